// Compressibility report: how well BDI, FPC, C-PACK(+Z), BPC, SC² and their per-line best
// compress some data, line by line, as a cache would store it.
//
//   compressibility [--line-bytes 32|64|128] [--segment-bytes S] [--output-dir DIR] [--no-plot]
//                   [FILE...]
//
// Without files it builds a default data set: binary code (the largest shared library of this
// machine, or generated code-like bytes), zero-heavy data, integer arrays, pointer arrays and
// floats. For every input it prints the compression ratio of every algorithm — Σ original bytes
// / Σ stored bytes (spec compressors.md §2 G6), each line stored in segments of S bytes (G3;
// default 8 B for 32/64-byte lines, 32 B for 128-byte lines) and stored raw when that saves
// nothing (G4) — and a histogram of the per-line stored sizes. SC² codes with a book sampled from
// the first 10 % of each input's lines (a value-frequency table, spec §1.5). It writes the
// ratios and a gnuplot script for a grouped bar chart like Figure 4.1 of the LATTE-CC
// dissertation to the output directory and renders it with gnuplot when gnuplot is installed.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <memsub/compression/all.hpp>
#include <memsub/core/rng.hpp>

namespace mc = memsub::compression;
namespace fs = std::filesystem;

namespace {

struct options {
    std::uint32_t line_bytes = 64;
    std::uint32_t segment_bytes = 0; // 0 = the §2 G3 default for the line size
    fs::path output_dir = ".";
    bool plot = true;
    std::vector<fs::path> files;
};

struct input {
    std::string name;
    std::vector<std::byte> bytes;
};

// --- default data set ------------------------------------------------------------------------

constexpr std::size_t default_bytes = std::size_t{4} << 20;

void put32(std::byte* p, std::uint32_t v) {
    std::memcpy(p, &v, 4);
}
void put64(std::byte* p, std::uint64_t v) {
    std::memcpy(p, &v, 8);
}

input binary_code() {
    input in{"binary", std::vector<std::byte>(default_bytes)};
    std::error_code ec;
    std::pair<std::uintmax_t, fs::path> best{0, {}};
    for (const auto& e : fs::directory_iterator("/usr/lib/x86_64-linux-gnu", ec)) {
        const auto name = e.path().filename().string();
        if (e.is_regular_file(ec) && name.find(".so") != std::string::npos &&
            e.file_size(ec) > best.first)
            best = {e.file_size(ec), e.path()};
    }
    if (best.first >= default_bytes) {
        std::ifstream f(best.second, std::ios::binary);
        f.read(reinterpret_cast<char*>(in.bytes.data()),
               static_cast<std::streamsize>(default_bytes));
        if (static_cast<std::size_t>(f.gcount()) == default_bytes) {
            in.name = "binary (" + best.second.filename().string() + ")";
            return in;
        }
    }
    memsub::xoshiro256ss rng(1); // code-like bytes: short opcodes, displacements, padding
    for (std::size_t i = 0; i < in.bytes.size();) {
        const auto k = rng.below(10);
        if (k < 5) {
            in.bytes[i++] = static_cast<std::byte>(rng.below(256));
        } else if (k < 8 && i + 4 <= in.bytes.size()) {
            put32(&in.bytes[i], static_cast<std::uint32_t>(rng.below(1 << 16)) - (1 << 15));
            i += 4;
        } else {
            in.bytes[i++] = std::byte{0};
        }
    }
    in.name = "binary (generated)";
    return in;
}

input zero_heavy() {
    input in{"zero-heavy", std::vector<std::byte>(default_bytes)};
    memsub::xoshiro256ss rng(2);
    for (std::size_t off = 0; off < in.bytes.size(); off += 64) {
        if (rng.below(10) < 6) continue; // 60 % zero 64-byte blocks
        for (std::size_t w = 0; w < 16; ++w)
            if (rng.below(5) == 0)
                put32(&in.bytes[off + 4 * w],
                      static_cast<std::uint32_t>(rng()) >> (rng.below(4) * 8));
    }
    return in;
}

input integers() {
    input in{"integers", std::vector<std::byte>(default_bytes)};
    memsub::xoshiro256ss rng(3);
    for (std::size_t region = 0; region < in.bytes.size(); region += 4096) {
        const auto kind = rng.below(3);
        std::int64_t acc = static_cast<std::int64_t>(rng.below(100000));
        for (std::size_t o = region; o < region + 4096; o += 4) {
            std::uint32_t v = 0;
            if (kind == 0) { // sorted indices (CSR column arrays)
                acc += static_cast<std::int64_t>(rng.below(24));
                v = static_cast<std::uint32_t>(acc);
            } else if (kind == 1) { // small counters and labels
                v = static_cast<std::uint32_t>(rng.below(rng.below(4) == 0 ? 65536 : 32));
            } else { // signed values around zero
                v = static_cast<std::uint32_t>(static_cast<std::int32_t>(rng.below(512)) - 256);
            }
            put32(&in.bytes[o], v);
        }
    }
    return in;
}

input pointers() {
    input in{"pointers", std::vector<std::byte>(default_bytes)};
    memsub::xoshiro256ss rng(4);
    for (std::size_t region = 0; region < in.bytes.size(); region += 4096) {
        const std::uint64_t heap = 0x00005555'00000000ULL + (rng() & 0xFFFFF000ULL);
        const bool nulls = rng.below(3) == 0;
        for (std::size_t o = region; o < region + 4096; o += 8)
            put64(&in.bytes[o], nulls && rng.below(3) == 0 ? 0 : heap + 32 * rng.below(1 << 15));
    }
    return in;
}

input floats() {
    input in{"floats", std::vector<std::byte>(default_bytes)};
    memsub::xoshiro256ss rng(5);
    for (std::size_t region = 0; region < in.bytes.size(); region += 4096) {
        const bool smooth = rng.below(2) == 0;
        float x = static_cast<float>(rng.uniform() * 10.0);
        for (std::size_t o = region; o < region + 4096; o += 4) {
            x = smooth ? x + 0.001f : static_cast<float>(rng.uniform() * 2.0 - 1.0);
            std::uint32_t v;
            std::memcpy(&v, &x, 4);
            put32(&in.bytes[o], v);
        }
    }
    return in;
}

// --- compression ------------------------------------------------------------------------------

// The algorithms of Figure 4.1 (BDI, FPC, C-PACK+Z, BPC, SC²) plus plain C-PACK and the per-line
// best of the five.
constexpr std::array<std::string_view, 7> algorithm_names = {"BDI", "FPC", "C-PACK", "C-PACK+Z",
                                                             "BPC", "SC2", "best"};
constexpr std::size_t algorithms = algorithm_names.size();

struct result {
    std::string name;
    std::uint64_t lines = 0;
    std::array<mc::ratio_accumulator, algorithms> stored;
    std::array<mc::ratio_accumulator, algorithms> exact;            // S = 1 byte
    std::array<std::vector<std::uint64_t>, algorithms> histogram{}; // lines per segment count
};

std::shared_ptr<const mc::huffman_code_book> train_sc2(const input& in, std::uint32_t L) {
    mc::value_frequency_table vft;
    const std::size_t lines = in.bytes.size() / L;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, lines / 10) && i < lines; ++i)
        vft.on_insert(std::span<const std::byte>(in.bytes.data() + i * L, L));
    return vft.build_code_book();
}

result analyse(const input& in, const options& opt, const mc::storage_rule& rule) {
    const std::uint32_t L = opt.line_bytes;
    const auto book = train_sc2(in, L);
    mc::best_of_all::params bp;
    bp.line_bytes = L;
    std::get<mc::sc2::params>(bp.members).code_book = book;
    // The same members best_of uses, for the per-algorithm columns.
    const auto compressors = std::make_tuple(
        mc::bdi(mc::bdi::params{.line_bytes = L}), mc::fpc(mc::fpc::params{.line_bytes = L}),
        mc::cpack(mc::cpack::params{.line_bytes = L}),
        mc::cpack_z(mc::cpack_z::params{.line_bytes = L}),
        mc::bpc(mc::bpc::params{.line_bytes = L}),
        mc::sc2(mc::sc2::params{.line_bytes = L, .code_book = book}), mc::best_of_all(bp));
    const mc::storage_rule exact_rule = mc::byte_aligned_storage_rule(L); // SC²'s own (G3)

    result r;
    r.name = in.name;
    for (auto& h : r.histogram) h.assign(rule.segments_per_line() + 1, 0);
    for (auto& a : r.stored) a = mc::ratio_accumulator(rule); // G7: floor of one segment
    const std::size_t lines = in.bytes.size() / L;
    const bool long_input = lines >= (std::size_t{1} << 18);
    for (std::size_t i = 0; i < lines; ++i) {
        const std::span<const std::byte> line(in.bytes.data() + i * L, L);
        std::size_t a = 0;
        std::apply(
            [&](const auto&... c) {
                (
                    [&](const auto& comp) {
                        const std::uint32_t bits = comp.size_bits(line);
                        const mc::stored_size s = mc::stored_size_of(bits, rule);
                        r.stored[a].add(s, rule);
                        r.exact[a].add(mc::stored_size_of(bits, exact_rule), exact_rule);
                        ++r.histogram[a][s.segments];
                        ++a;
                    }(c),
                    ...);
            },
            compressors);
        if (long_input && (i & 0xFFFF) == 0)
            fmt::print(stderr, "\r{}: {:5.1f} % of {} lines", in.name,
                       100.0 * static_cast<double>(i) / static_cast<double>(lines), lines);
    }
    if (long_input) fmt::print(stderr, "\r{}: done ({} lines){:20}\n", in.name, lines, "");
    r.lines = lines;
    return r;
}

// --- output -----------------------------------------------------------------------------------

void print_report(const std::vector<result>& results, const mc::storage_rule& rule) {
    fmt::print("Compression ratio = Σ original / Σ stored bytes ({}-byte lines, {}-byte segments, "
               "lines that save nothing stored raw)\n\n",
               rule.line_bytes, rule.segment_bytes);
    fmt::print("{:<34} {:>9}", "input", "lines");
    for (auto n : algorithm_names) fmt::print(" {:>8}", n);
    fmt::print("\n");
    std::array<double, algorithms> mean{};
    for (const auto& r : results) {
        fmt::print("{:<34} {:>9}", r.name.substr(0, 34), r.lines);
        for (std::size_t a = 0; a < algorithms; ++a) {
            fmt::print(" {:>8.3f}", r.stored[a].ratio());
            mean[a] += r.stored[a].ratio() / static_cast<double>(results.size());
        }
        fmt::print("\n");
    }
    fmt::print("{:<34} {:>9}", "average (of the ratios)", "");
    for (double m : mean) fmt::print(" {:>8.3f}", m);
    fmt::print("\n\nExact (byte-granular, S = 1, how SC² stores its lines) ratios:\n");
    for (const auto& r : results) {
        fmt::print("{:<34} {:>9}", r.name.substr(0, 34), "");
        for (std::size_t a = 0; a < algorithms; ++a) fmt::print(" {:>8.3f}", r.exact[a].ratio());
        fmt::print("\n");
    }

    const std::uint32_t segs = rule.segments_per_line();
    for (const auto& r : results) {
        fmt::print(
            "\nPer-line stored size, {} (% of lines per number of {}-byte segments; {} = raw "
            "or nothing saved):\n",
            r.name, rule.segment_bytes, segs);
        fmt::print("{:<10}", "segments");
        for (std::uint32_t s = 0; s <= segs; ++s) fmt::print(" {:>5}", s);
        fmt::print("\n");
        for (std::size_t a = 0; a < algorithms; ++a) {
            fmt::print("{:<10}", algorithm_names[a]);
            for (std::uint32_t s = 0; s <= segs; ++s)
                fmt::print(" {:>5.1f}", r.lines == 0
                                            ? 0.0
                                            : 100.0 * static_cast<double>(r.histogram[a][s]) /
                                                  static_cast<double>(r.lines));
            fmt::print("\n");
        }
    }
}

std::string quoted(std::string s) {
    std::replace(s.begin(), s.end(), '"', '\'');
    return "\"" + s + "\"";
}

/// `s` as one POSIX shell word: single-quoted, with each ' written as '\'' — nothing inside
/// ($, `, \, ", spaces) is expanded or split.
std::string shell_quoted(const std::string& s) {
    std::string q = "'";
    for (const char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

void write_plot(const std::vector<result>& results, const options& opt) {
    fs::create_directories(opt.output_dir);
    const fs::path dat = opt.output_dir / "compressibility.dat";
    const fs::path gp = opt.output_dir / "compressibility.gp";
    const fs::path png = opt.output_dir / "compressibility.png";
    {
        std::ofstream out(dat);
        out << "# input";
        for (auto n : algorithm_names) out << ' ' << n;
        out << "\n";
        std::array<double, algorithms> mean{};
        for (const auto& r : results) {
            out << quoted(r.name);
            for (std::size_t a = 0; a < algorithms; ++a) {
                out << ' ' << fmt::format("{:.4f}", r.stored[a].ratio());
                mean[a] += r.stored[a].ratio() / static_cast<double>(results.size());
            }
            out << "\n";
        }
        out << quoted("AVG");
        for (double m : mean) out << ' ' << fmt::format("{:.4f}", m);
        out << "\n";
    }
    {
        // Figure 4.1 shows BDI, FPC, C-PACK+Z, BPC and SC (columns 2, 3, 5, 6, 7 of the data).
        std::ofstream out(gp);
        out << "# Compression ratio per input and algorithm (after Figure 4.1 of the LATTE-CC\n"
               "# dissertation). Render: gnuplot compressibility.gp\n"
            << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "    set terminal pngcairo size 1100,520 font 'Sans,10'\n"
               "} else {\n"
               "    set terminal png size 1100,520\n"
               "}\n"
            << "set output " << quoted(png.filename().string()) << "\n"
            << "set title "
            << quoted(fmt::format("Compression ratio, {}-byte lines, {}-byte segments",
                                  opt.line_bytes, opt.segment_bytes))
            << "\n"
            << "set style data histograms\n"
               "set style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\n"
               "set boxwidth 0.9\n"
               "set ylabel 'Compression ratio'\n"
               "set yrange [0:*]\n"
               "set grid ytics\n"
               "set key top left\n"
               // input names are file names: no enhanced-text markup (a '_' would subscript)
               "set xtics rotate by -15 scale 0 noenhanced\n"
            << "plot " << quoted(dat.filename().string())
            << " using 2:xtic(1) title 'BDI', '' using 3 title 'FPC', '' using 5 title "
               "'C-PACK+Z', '' using 6 title 'BPC', '' using 7 title 'SC^2'\n";
    }
    fmt::print("\nwrote {} and {}\n", dat.string(), gp.string());
    if (!opt.plot) {
        fmt::print("plot skipped (--no-plot); render with: cd {} && gnuplot compressibility.gp\n",
                   opt.output_dir.string());
        return;
    }
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fmt::print("gnuplot not found; install it (Debian: gnuplot-nox) and run: cd {} && gnuplot "
                   "compressibility.gp\n",
                   opt.output_dir.string());
        return;
    }
    const std::string cmd = fmt::format("cd -- {} && gnuplot compressibility.gp",
                                        shell_quoted(opt.output_dir.string()));
    if (std::system(cmd.c_str()) == 0)
        fmt::print("plot: {}\n", png.string());
    else
        fmt::print(stderr, "gnuplot failed; the script is {}\n", gp.string());
}

[[noreturn]] void usage(int code) {
    fmt::print(code == 0 ? stdout : stderr,
               "usage: compressibility [--line-bytes 32|64|128] [--segment-bytes S] "
               "[--output-dir DIR] [--no-plot] [FILE...]\n");
    std::exit(code);
}

options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) usage(2);
            return argv[++i];
        };
        if (a == "--line-bytes") {
            o.line_bytes = static_cast<std::uint32_t>(std::stoul(std::string(value())));
        } else if (a == "--segment-bytes") {
            o.segment_bytes = static_cast<std::uint32_t>(std::stoul(std::string(value())));
        } else if (a == "--output-dir") {
            o.output_dir = std::string(value());
        } else if (a == "--no-plot") {
            o.plot = false;
        } else if (a == "-h" || a == "--help") {
            usage(0);
        } else if (!a.empty() && a[0] == '-') {
            fmt::print(stderr, "unknown option {}\n", a);
            usage(2);
        } else {
            o.files.emplace_back(a);
        }
    }
    if (!mc::is_supported_line_size(o.line_bytes)) {
        fmt::print(stderr, "--line-bytes must be 32, 64 or 128\n");
        usage(2);
    }
    if (o.segment_bytes == 0) o.segment_bytes = mc::default_segment_bytes(o.line_bytes); // §2 G3
    return o;
}

} // namespace

int main(int argc, char** argv) try {
    options opt = parse(argc, argv);
    const mc::storage_rule rule{.line_bytes = opt.line_bytes, .segment_bytes = opt.segment_bytes};
    rule.validate("compressibility");

    std::vector<input> inputs;
    if (opt.files.empty()) {
        inputs.push_back(binary_code());
        inputs.push_back(zero_heavy());
        inputs.push_back(integers());
        inputs.push_back(pointers());
        inputs.push_back(floats());
    } else {
        for (const auto& f : opt.files) {
            std::ifstream in(f, std::ios::binary);
            if (!in) {
                fmt::print(stderr, "cannot open {}\n", f.string());
                return 1;
            }
            input x{f.filename().string(), {}};
            x.bytes.resize(static_cast<std::size_t>(fs::file_size(f)));
            in.read(reinterpret_cast<char*>(x.bytes.data()),
                    static_cast<std::streamsize>(x.bytes.size()));
            x.bytes.resize(static_cast<std::size_t>(in.gcount()) / opt.line_bytes * opt.line_bytes);
            if (x.bytes.empty()) {
                fmt::print(stderr, "{} is shorter than one line; skipped\n", f.string());
                continue;
            }
            inputs.push_back(std::move(x));
        }
        if (inputs.empty()) return 1;
    }

    std::vector<result> results;
    for (const auto& in : inputs) results.push_back(analyse(in, opt, rule));
    print_report(results, rule);
    write_plot(results, opt);
    return 0;
} catch (const std::exception& e) {
    fmt::print(stderr, "compressibility: {}\n", e.what());
    return 1;
}
