// Compressibility report: how well BDI, FPC, C-PACK(+Z), BPC, SC² and their per-line best
// compress some data, line by line, as a cache would store it.
//
//   compressibility [--line-bytes 32|64|128] [--segment-bytes S] [--sc2-train FILE]
//                   [--output-dir DIR] [--no-plot] [FILE...]   (--help explains every option)
//
// Without files it builds a default data set: binary code (the largest shared library of this
// machine, or generated code-like bytes), zero-heavy data, integer arrays, pointer arrays and
// floats. For every input it prints the compression ratio of every algorithm — Σ original bytes
// / Σ stored bytes (spec compressors.md §2 G6), each line stored in segments of S bytes (G3;
// default 8 B for 32/64-byte lines, 32 B for 128-byte lines) and stored raw when that saves
// nothing (G4) — and a histogram of the per-line stored sizes. SC² codes with a book sampled from
// the first 10 % of each input's lines (a value-frequency table, spec §1.5), or from a separate
// file given with --sc2-train; the report says which. Files are streamed in 1 MiB blocks
// (bounded memory whatever their size); a trailing partial line is not counted (with a warning). It
// writes the ratios and a gnuplot script for a grouped bar chart like Figure 4.1 of the LATTE-CC
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
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <memsub/compression/all.hpp>
#include <memsub/core/rng.hpp>

#include "common/example_support.hpp"

namespace mc = memsub::compression;
namespace fs = std::filesystem;

namespace {

struct options {
    std::uint32_t line_bytes = 64;
    std::optional<fs::path> sc2_train; // train SC²'s code book on this file instead
    std::uint32_t segment_bytes = 0;   // 0 = the §2 G3 default for the line size
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
    std::string sc2_source; // what SC²'s code book was trained on
    bool partial = false;   // interrupted by a signal: covers the lines read until then
    std::uint64_t lines = 0;
    std::array<mc::ratio_accumulator, algorithms> stored;
    std::array<mc::ratio_accumulator, algorithms> exact;            // S = 1 byte
    std::array<std::vector<std::uint64_t>, algorithms> histogram{}; // lines per segment count
};

/// Calls `sink` with blocks of whole `L`-byte lines of `file` (at most `max_lines` lines; 0 = all),
/// reading 1 MiB at a time, so memory stays bounded whatever the file's size. Returns the bytes
/// of a trailing partial line (not passed on). Throws std::runtime_error naming the file when
/// it cannot be opened or read. Stops early (between blocks) when a stop signal arrived.
template <class Sink>
std::uint64_t stream_lines(const fs::path& file, std::uint32_t L, std::uint64_t max_lines,
                           Sink&& sink) {
    std::error_code ec;
    if (fs::is_directory(file, ec))
        throw std::runtime_error(file.string() + ": is a directory, not a data file");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error(file.string() + ": cannot open for reading");
    const std::size_t block_lines = (std::size_t{1} << 20) / L;
    std::vector<std::byte> block(block_lines * L);
    std::uint64_t lines = 0;
    while (max_lines == 0 || lines < max_lines) {
        std::size_t want = block.size();
        if (max_lines != 0) want = std::min<std::uint64_t>(want, (max_lines - lines) * L);
        in.read(reinterpret_cast<char*>(block.data()), static_cast<std::streamsize>(want));
        const auto got = static_cast<std::size_t>(in.gcount());
        if (in.bad()) throw std::runtime_error(file.string() + ": read error");
        const std::size_t whole = got / L * L;
        if (whole != 0) sink(std::span<const std::byte>(block.data(), whole));
        lines += whole / L;
        if (got < want) return got - whole;                   // end of file
        if (memsub_examples::stop_requested() != 0) return 0; // SIGINT/SIGTERM: main reports
    }
    return 0;
}

/// Where SC²'s code book comes from (printed with the report).
struct sc2_training {
    std::shared_ptr<const mc::huffman_code_book> book;
    std::string source; // e.g. "the first 10 % of its lines (41 lines)"
};

/// Trains SC²'s value-frequency table (spec §1.5) on `lines` lines given in blocks by
/// `for_each_block`.
template <class ForEachBlock>
std::shared_ptr<const mc::huffman_code_book> train_sc2(std::uint32_t L,
                                                       ForEachBlock&& for_each_block) {
    mc::value_frequency_table vft;
    for_each_block([&](std::span<const std::byte> block) {
        for (std::size_t off = 0; off + L <= block.size(); off += L)
            vft.on_insert(block.subspan(off, L));
    });
    return vft.build_code_book();
}

/// Lines SC² trains on when the input trains itself: the first 10 % (at least one).
std::uint64_t self_training_lines(std::uint64_t lines) {
    return std::max<std::uint64_t>(1, lines / 10);
}

/// Accumulates the report of one input over blocks of whole lines.
class analysis {
public:
    analysis(std::string name, std::uint64_t expected_lines, const options& opt,
             const mc::storage_rule& rule, std::shared_ptr<const mc::huffman_code_book> book)
        : L_(opt.line_bytes)
        , rule_(rule)
        , expected_(expected_lines)
        , compressors_(make_compressors(opt.line_bytes, book)) {
        r_.name = std::move(name);
        for (auto& h : r_.histogram) h.assign(rule.segments_per_line() + 1, 0);
        for (auto& a : r_.stored) a = mc::ratio_accumulator(rule); // G7: floor of one segment
    }

    /// `block` holds whole lines.
    void add(std::span<const std::byte> block) {
        const mc::storage_rule exact_rule = mc::byte_aligned_storage_rule(L_); // SC²'s own (G3)
        const bool long_input = expected_ >= (std::uint64_t{1} << 18);
        for (std::size_t off = 0; off + L_ <= block.size(); off += L_) {
            const std::span<const std::byte> line = block.subspan(off, L_);
            std::size_t a = 0;
            std::apply(
                [&](const auto&... c) {
                    (
                        [&](const auto& comp) {
                            const std::uint32_t bits = comp.size_bits(line);
                            const mc::stored_size s = mc::stored_size_of(bits, rule_);
                            r_.stored[a].add(s, rule_);
                            r_.exact[a].add(mc::stored_size_of(bits, exact_rule), exact_rule);
                            ++r_.histogram[a][s.segments];
                            ++a;
                        }(c),
                        ...);
                },
                compressors_);
            if (long_input && (r_.lines & 0xFFFF) == 0)
                fmt::print(stderr, "\r{}: {:5.1f} % of {} lines", r_.name,
                           100.0 * static_cast<double>(r_.lines) / static_cast<double>(expected_),
                           expected_);
            ++r_.lines;
        }
    }

    result finish() {
        if (expected_ >= (std::uint64_t{1} << 18))
            fmt::print(stderr, "\r{}: done ({} lines){:20}\n", r_.name, r_.lines, "");
        return std::move(r_);
    }

private:
    using compressor_set =
        std::tuple<mc::bdi, mc::fpc, mc::cpack, mc::cpack_z, mc::bpc, mc::sc2, mc::best_of_all>;
    static compressor_set
    make_compressors(std::uint32_t L, const std::shared_ptr<const mc::huffman_code_book>& book) {
        mc::best_of_all::params bp;
        bp.line_bytes = L;
        std::get<mc::sc2::params>(bp.members).code_book = book;
        // The same members best_of uses, for the per-algorithm columns.
        return std::make_tuple(
            mc::bdi(mc::bdi::params{.line_bytes = L}), mc::fpc(mc::fpc::params{.line_bytes = L}),
            mc::cpack(mc::cpack::params{.line_bytes = L}),
            mc::cpack_z(mc::cpack_z::params{.line_bytes = L}),
            mc::bpc(mc::bpc::params{.line_bytes = L}),
            mc::sc2(mc::sc2::params{.line_bytes = L, .code_book = book}), mc::best_of_all(bp));
    }

    std::uint32_t L_;
    mc::storage_rule rule_;
    std::uint64_t expected_;
    result r_;
    compressor_set compressors_;
};

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
    fmt::print("\n\nSC2's code book (a value-frequency table, spec §1.5) was trained on:\n");
    for (const auto& r : results) fmt::print("  {}: {}\n", r.name, r.sc2_source);
    fmt::print("\nExact (byte-granular, S = 1, how SC² stores its lines) ratios:\n");
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
    fmt::print(
        code == 0 ? stdout : stderr,
        "usage: compressibility [options] [FILE...]\n"
        "Compression ratio (sum of original / sum of stored bytes) of BDI, FPC, C-PACK, C-PACK+Z,\n"
        "BPC, SC2 and their per-line best on each FILE, line by line as a cache stores it, with\n"
        "a histogram of the per-line stored sizes, a data file and a gnuplot bar chart. Without\n"
        "files: a built-in data set (binary code, zero-heavy data, integers, pointers, floats).\n"
        "  --line-bytes N      line size: 32, 64 (default) or 128\n"
        "  --segment-bytes S   storage granularity in bytes (default 8 for 32/64-byte lines,\n"
        "                      32 for 128-byte lines); a line that saves nothing is stored raw\n"
        "  --sc2-train FILE    train SC2's code book on FILE (all its lines). Default: each\n"
        "                      input trains its own book on its first 10 %% of lines, which\n"
        "                      are then also compressed (an optimistic setting; the report\n"
        "                      says which was used)\n"
        "  --output-dir DIR    where compressibility.dat/.gp/.png go (default .)\n"
        "  --no-plot           write the data and script but do not run gnuplot\n"
        "  -h, --help          this help\n"
        "Files are streamed (bounded memory). Only whole lines are counted: a trailing partial\n"
        "line is left out with a warning; a file shorter than one line is skipped with one.\n"
        "SIGINT / SIGTERM (Ctrl-C): the lines read so far are reported (marked partial) and the\n"
        "data file written, then the program exits with 128 + the signal number.\n"
        "exit status: 0 success; 1 a file could not be read (the others are still reported);\n"
        "2 bad usage; 3 no input holds a whole line; 4 out of memory; 130 / 143 interrupted\n"
        "by SIGINT / SIGTERM.\n");
    std::exit(code);
}

std::uint32_t parse_u32(std::string_view flag, std::string_view text) {
    return static_cast<std::uint32_t>(memsub_examples::parse_number(
        "compressibility", flag, text, 1, std::numeric_limits<std::uint32_t>::max()));
}

options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) {
                fmt::print(stderr, "compressibility: {} needs a value\n", a);
                usage(2);
            }
            return argv[++i];
        };
        if (a == "--line-bytes") {
            o.line_bytes = parse_u32(a, value());
        } else if (a == "--segment-bytes") {
            o.segment_bytes = parse_u32(a, value());
        } else if (a == "--sc2-train") {
            o.sc2_train = fs::path(std::string(value()));
        } else if (a == "--output-dir") {
            o.output_dir = std::string(value());
        } else if (a == "--no-plot") {
            o.plot = false;
        } else if (a == "-h" || a == "--help") {
            usage(0);
        } else if (!a.empty() && a[0] == '-') {
            fmt::print(stderr, "compressibility: unknown option {}\n", a);
            usage(2);
        } else {
            o.files.emplace_back(a);
        }
    }
    if (!mc::is_supported_line_size(o.line_bytes)) {
        fmt::print(stderr,
                   "compressibility: --line-bytes = {} is not supported: use 32, 64 or 128\n",
                   o.line_bytes);
        std::exit(2);
    }
    if (o.segment_bytes == 0) o.segment_bytes = mc::default_segment_bytes(o.line_bytes); // §2 G3
    return o;
}

/// Analyses an in-memory input (the built-in data set).
result analyse_bytes(const input& in, const options& opt, const mc::storage_rule& rule,
                     const std::optional<sc2_training>& shared) {
    const std::uint32_t L = opt.line_bytes;
    const std::size_t lines = in.bytes.size() / L;
    const std::span<const std::byte> all(in.bytes.data(), lines * L);
    sc2_training t;
    if (shared) {
        t = *shared;
    } else {
        const std::uint64_t n = self_training_lines(lines);
        t.book = train_sc2(L, [&](auto&& sink) { sink(all.first(n * L)); });
        t.source = fmt::format("the first 10 % of its lines ({} lines)", n);
    }
    analysis an(in.name, lines, opt, rule, t.book);
    an.add(all);
    result r = an.finish();
    r.sc2_source = t.source;
    return r;
}

/// Analyses a file, streamed twice when it trains its own SC² book (first 10 % of its lines,
/// then every line). Throws std::runtime_error naming the file when it cannot be read.
std::optional<result> analyse_file(const fs::path& f, const options& opt,
                                   const mc::storage_rule& rule,
                                   const std::optional<sc2_training>& shared) {
    const std::uint32_t L = opt.line_bytes;
    std::error_code ec;
    const std::uintmax_t size = fs::is_regular_file(f, ec) ? fs::file_size(f, ec) : 0;
    const std::uint64_t expected = ec ? 0 : size / L;
    sc2_training t;
    if (shared) {
        t = *shared;
    } else {
        // The number of lines is known for a regular file; otherwise (a pipe) train on the
        // first 10 % of a first read's count.
        std::uint64_t lines = expected;
        if (lines == 0)
            stream_lines(f, L, 0, [&](std::span<const std::byte> b) { lines += b.size() / L; });
        const std::uint64_t n = self_training_lines(lines);
        t.book = train_sc2(L, [&](auto&& sink) { stream_lines(f, L, n, sink); });
        t.source = fmt::format("the first 10 % of its lines ({} lines)", n);
    }
    analysis an(f.filename().string(), expected, opt, rule, t.book);
    const std::uint64_t trailing =
        stream_lines(f, L, 0, [&](std::span<const std::byte> block) { an.add(block); });
    result r = an.finish();
    r.sc2_source = t.source;
    r.partial = memsub_examples::stop_requested() != 0;
    if (r.partial) r.name += " (partial)";
    if (r.lines == 0 && !r.partial) {
        if (trailing == 0)
            fmt::print(stderr, "compressibility: warning: {} is empty; skipped\n", f.string());
        else
            fmt::print(stderr,
                       "compressibility: warning: {} is shorter than one {}-byte line ({} bytes); "
                       "skipped\n",
                       f.string(), L, trailing);
        return std::nullopt;
    }
    if (r.lines == 0) return std::nullopt; // interrupted before its first line
    if (trailing != 0)
        fmt::print(stderr,
                   "compressibility: warning: {} ends with a partial line: its last {} bytes (less "
                   "than one {}-byte line) are not counted\n",
                   f.string(), trailing, L);
    return r;
}

} // namespace

int main(int argc, char** argv) try {
    options opt = parse(argc, argv);
    const mc::storage_rule rule{.line_bytes = opt.line_bytes, .segment_bytes = opt.segment_bytes};
    try {
        rule.validate("storage rule");
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "compressibility: {}\n", e.what());
        return 2;
    }

    // SC²'s code book: one trained on --sc2-train FILE for every input, or each input's own.
    std::optional<sc2_training> shared;
    if (opt.sc2_train) {
        std::uint64_t lines = 0;
        sc2_training t;
        try {
            t.book = train_sc2(opt.line_bytes, [&](auto&& sink) {
                stream_lines(*opt.sc2_train, opt.line_bytes, 0, [&](std::span<const std::byte> b) {
                    lines += b.size() / opt.line_bytes;
                    sink(b);
                });
            });
        } catch (const std::runtime_error& e) {
            fmt::print(stderr, "compressibility: --sc2-train: {}\n", e.what());
            return 1;
        }
        if (lines == 0) {
            fmt::print(stderr, "compressibility: --sc2-train {} holds no whole {}-byte line\n",
                       opt.sc2_train->string(), opt.line_bytes);
            return 2;
        }
        t.source =
            fmt::format("{} ({} lines, given with --sc2-train)", opt.sc2_train->string(), lines);
        shared = std::move(t);
    }

    std::vector<result> results;
    std::vector<std::string> errors, not_run;
    memsub_examples::install_stop_handlers();
    if (opt.files.empty()) {
        for (auto make : {binary_code, zero_heavy, integers, pointers, floats})
            if (memsub_examples::stop_requested() == 0)
                results.push_back(analyse_bytes(make(), opt, rule, shared));
    } else {
        for (const auto& f : opt.files) {
            if (memsub_examples::stop_requested() != 0) {
                not_run.push_back(f.string());
                continue;
            }
            try {
                if (auto r = analyse_file(f, opt, rule, shared)) results.push_back(std::move(*r));
            } catch (const std::runtime_error& e) {
                // Reported after the others' results, which are kept.
                errors.emplace_back(e.what());
            }
        }
    }
    if (!results.empty()) {
        print_report(results, rule);
        write_plot(results, opt);
    }
    for (const auto& e : errors) fmt::print(stderr, "compressibility: {}\n", e);
    if (!errors.empty() && !results.empty())
        fmt::print(stderr, "compressibility: the report covers the other {} file(s)\n",
                   results.size());
    if (const int sig = memsub_examples::stop_requested(); sig != 0) {
        fmt::print(
            stderr, "compressibility: interrupted by signal {}: the report above is partial{}\n",
            sig,
            not_run.empty() ? std::string() : fmt::format("; {} file(s) not read", not_run.size()));
        for (const auto& f : not_run) fmt::print(stderr, "compressibility: not read: {}\n", f);
        return memsub_examples::stopped_exit_status(sig);
    }
    if (!errors.empty()) return 1;
    if (results.empty()) {
        fmt::print(stderr,
                   "compressibility: warning: no input holds a whole {}-byte line; "
                   "nothing to report\n",
                   opt.line_bytes);
        return 3;
    }
    return 0;
} catch (const std::bad_alloc&) {
    fmt::print(stderr, "compressibility: out of memory\n");
    return 4;
} catch (const std::exception& e) {
    fmt::print(stderr, "compressibility: {}\n", e.what());
    return 1;
}
