// memsub::explorer — the compressibility report as a function template over a list of
// compressors: run_compressibility<Compressors...>(argc, argv) is the `compressibility` tool's
// whole command line (docs/tools/compressibility.md), run on the compressor types given. The tool
// passes the library's (BDI, FPC, C-PACK, C-PACK+Z, BPC, SC², their per-line best); a user adds
// their own compressor to the list and gets the same report, CSV and plot with a column for it.
//
// For each input (files, or a built-in data set of binary code, zero-heavy data, integer arrays,
// pointer arrays and floats) it prints the compression ratio of every compressor — Σ original
// bytes / Σ stored bytes (memsub/compression/stored_size.hpp), each line stored in segments of S
// bytes (CS3; default 8 B for 32/64-byte lines, 32 B for 128-byte lines) and stored raw when that
// saves nothing (CS4) — and a histogram of the per-line stored sizes. A compressor that takes a
// code book (SC²) codes with a book sampled from the first 10 % of each input's lines (a
// value-frequency table, [SC2]), or from a separate file given with --sc2-train;
// the report says which. Files are streamed in 1 MiB blocks (bounded memory whatever their size);
// a trailing partial line is not counted (with a warning). It writes the ratios and a gnuplot
// script for a grouped bar chart like Figure 4.1 of [Dissertation] to the output directory and
// renders it with gnuplot when gnuplot is installed, and a CSV with a row per input, unreadable
// or skipped ones included, carrying the status columns partial, interrupted_by_signal and error
// (memsub/explorer/result_table.hpp). A FILE of - is standard input; an input that can be read
// only once (standard input, a pipe, a FIFO) and trains its own SC² book is copied to an unnamed
// temporary file first, so its report is the file's.
//
// Part of the explorer module (CMake target memsub::explorer; needs {fmt}).
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/compression/all.hpp>
#include <memsub/core/rng.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/progress.hpp>
#include <memsub/explorer/result_table.hpp>
#include <memsub/explorer/sample_data.hpp>
#include <memsub/explorer/signals.hpp>

#include <unistd.h> // POSIX: mkstemp, unlink, close

namespace memsub::explorer {

/// A compressor's names in the compressibility report: its heading in the tables and the plot's
/// data file, its CSV columns (ratio_<column>, exact_ratio_<column>), its title in the bar chart
/// and whether the chart shows it.
struct compressor_column {
    std::string heading, column, plot_title;
    bool in_plot = true;
};

/// How the compressibility report names the compressor type C: a specialisation has a static
/// `compressor_column names()`. Without one, heading, column and title are C's name() and the
/// chart shows it. The library's compressors have theirs below; the chart shows those of
/// Figure 4.1 of [Dissertation] (BDI, FPC, C-PACK+Z, BPC, SC²).
template <class C>
struct compressor_label {};

template <>
struct compressor_label<memsub::compression::bdi> {
    static compressor_column names() { return {"BDI", "bdi", "BDI", true}; }
};
template <>
struct compressor_label<memsub::compression::fpc> {
    static compressor_column names() { return {"FPC", "fpc", "FPC", true}; }
};
template <>
struct compressor_label<memsub::compression::cpack> {
    static compressor_column names() { return {"C-PACK", "cpack", "C-PACK", false}; }
};
template <>
struct compressor_label<memsub::compression::cpack_z> {
    static compressor_column names() { return {"C-PACK+Z", "cpack_z", "C-PACK+Z", true}; }
};
template <>
struct compressor_label<memsub::compression::bpc> {
    static compressor_column names() { return {"BPC", "bpc", "BPC", true}; }
};
template <>
struct compressor_label<memsub::compression::sc2> {
    static compressor_column names() { return {"SC2", "sc2", "SC^2", true}; }
};
template <>
struct compressor_label<memsub::compression::best_of_all> {
    static compressor_column names() { return {"best", "best", "best", false}; }
};

namespace compressibility_detail {

namespace mc = memsub::compression;
namespace fs = std::filesystem;

/// The name the program speaks in (argv[0]'s file name).
inline std::string program = "compressibility";
/// Its --help text (usage_text()).
inline std::string usage_message;

template <class P>
constexpr bool params_take_code_book();

template <class Tuple>
struct any_params_take_code_book;
template <class... Ps>
struct any_params_take_code_book<std::tuple<Ps...>> {
    static constexpr bool value = (params_take_code_book<Ps>() || ...);
};

/// Whether params P carry an SC²-style code book, directly or in a best_of member's params.
template <class P>
constexpr bool params_take_code_book() {
    if constexpr (requires(P & p) { p.code_book; })
        return true;
    else if constexpr (requires(P & p) { p.members; })
        return any_params_take_code_book<
            std::remove_cvref_t<decltype(std::declval<P&>().members)>>::value;
    else
        return false;
}

/// Gives `book` to P and to every best_of member that takes one.
template <class P>
void set_code_book(P& p, const std::shared_ptr<const mc::huffman_code_book>& book) {
    if constexpr (requires(P & q) { q.code_book; }) p.code_book = book;
    if constexpr (requires(P & q) { q.members; })
        std::apply([&](auto&... m) { (set_code_book(m, book), ...); }, p.members);
}

/// C built for `line_bytes`-byte lines (params' line_bytes), with `book` where it takes one.
template <class C>
C make_compressor(std::uint32_t line_bytes,
                  const std::shared_ptr<const mc::huffman_code_book>& book) {
    typename C::params p{};
    p.line_bytes = line_bytes;
    set_code_book(p, book);
    return C(p);
}

/// C's names in the report: compressor_label<C>, else its name() (a default-built C's).
template <class C>
compressor_column column_of() {
    if constexpr (requires { compressor_label<C>::names(); }) {
        return compressor_label<C>::names();
    } else {
        const std::string name(C(typename C::params{}).name());
        return {name, name, name, true};
    }
}

struct options {
    std::uint32_t line_bytes = 64;
    std::optional<std::string> sc2_train; // train SC²'s code book on this file instead
    std::uint32_t segment_bytes = 0;      // 0 = the CS3 default for the line size
    fs::path output_dir = ".";
    bool plot = true;
    bool progress = true;
    std::vector<std::string> files; // "-" is standard input
};

struct input {
    std::string name;
    std::vector<std::byte> bytes;
};

// --- default data set ------------------------------------------------------------------------

inline constexpr std::size_t default_bytes = std::size_t{4} << 20;

inline void put32(std::byte* p, std::uint32_t v) {
    std::memcpy(p, &v, 4);
}
inline void put64(std::byte* p, std::uint64_t v) {
    std::memcpy(p, &v, 8);
}

inline input binary_code() {
    std::string library;
    input in{"binary", memsub::explorer::binary_code_sample(default_bytes, 1, library)};
    in.name = library.empty() ? "binary (generated)" : "binary (" + library + ")";
    return in;
}

inline input zero_heavy() {
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

inline input integers() {
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

inline input pointers() {
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

inline input floats() {
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

struct result {
    std::string input;      // the input as given: a path, "standard input", a data set's name
    std::string name;       // as the report shows it: a file's name without its directory
    std::string sc2_source; // what SC²'s code book was trained on
    bool partial = false;   // a stop signal came: covers the lines read until then (or none)
    int interrupted_by = 0; // that signal
    std::optional<std::string> error;   // the input could not be read (no lines counted)
    std::optional<std::string> warning; // e.g. a trailing partial line left out
    std::uint64_t lines = 0;
    std::uint64_t trailing_bytes = 0; // a trailing partial line, not counted
    // Per compressor, in the list's order (empty for an input that was not analysed):
    std::vector<mc::ratio_accumulator> stored;
    std::vector<mc::ratio_accumulator> exact;            // S = 1 byte
    std::vector<std::vector<std::uint64_t>> histogram{}; // lines per segment count

    /// The name in the report and the plot: marked when the input was cut short.
    [[nodiscard]] std::string shown_name() const { return partial ? name + " (partial)" : name; }
};

/// Calls `sink` with blocks of whole `L`-byte lines read from `in` (at most `max_lines` lines;
/// 0 = all), 1 MiB at a time, so memory stays bounded whatever the input's size, and
/// `progress(lines so far)` after each block. Returns the bytes of a trailing partial line (not
/// passed on). Throws std::runtime_error naming `name` on a read error. Stops early (between
/// blocks) when a stop signal arrived, setting `stopped_by` to it (left alone otherwise).
template <class Sink, class Progress>
std::uint64_t stream_lines(std::istream& in, const std::string& name, std::uint32_t L,
                           std::uint64_t max_lines, Sink&& sink, Progress&& progress,
                           int& stopped_by) {
    const std::size_t block_lines = (std::size_t{1} << 20) / L;
    std::vector<std::byte> block(block_lines * L);
    std::uint64_t lines = 0;
    while (max_lines == 0 || lines < max_lines) {
        std::size_t want = block.size();
        if (max_lines != 0) want = std::min<std::uint64_t>(want, (max_lines - lines) * L);
        in.read(reinterpret_cast<char*>(block.data()), static_cast<std::streamsize>(want));
        const auto got = static_cast<std::size_t>(in.gcount());
        if (in.bad()) throw std::runtime_error(name + ": read error");
        const std::size_t whole = got / L * L;
        if (whole != 0) sink(std::span<const std::byte>(block.data(), whole));
        lines += whole / L;
        progress(lines);
        if (got < want) return got - whole; // end of input
        if (const int sig = memsub::explorer::stop_requested(); sig != 0) {
            stopped_by = sig; // SIGINT/SIGTERM: the caller reports
            return 0;
        }
    }
    return 0;
}

/// An input file as the analysis reads it, in one or more passes. A regular file is opened
/// again for each pass. Standard input ("-"), a pipe, a FIFO or a device can be read once: when
/// more than one pass is needed it is first copied to an unnamed temporary file in $TMPDIR
/// (else /tmp), unlinked at once, so memory stays bounded and the report is the file's; with one
/// pass it is streamed. Throws std::runtime_error naming the input when it cannot be read.
class input_source {
public:
    input_source(const std::string& path, bool several_passes, bool progress)
        : path_(path)
        , name_(memsub::explorer::input_label(path)) {
        std::error_code ec;
        if (path != memsub::explorer::stdin_name && fs::is_directory(path, ec))
            throw std::runtime_error(path + ": is a directory, not a data file");
        regular_ = path != memsub::explorer::stdin_name && fs::is_regular_file(path, ec);
        if (regular_) {
            const auto size = fs::file_size(path, ec);
            if (!ec) size_ = size;
        } else if (several_passes) {
            copy_to_temporary_file(progress);
        }
    }

    /// The input's name as shown ("standard input" for "-").
    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    /// Its size in bytes, when known before reading it (a regular file, or a copied pipe).
    [[nodiscard]] std::optional<std::uint64_t> size() const noexcept { return size_; }
    /// A stop signal came while a pipe was being copied: nothing was analysed.
    [[nodiscard]] bool copy_interrupted() const noexcept { return copy_interrupted_; }
    /// The stop signal that cut a pass short (it ended before the input did), or 0.
    [[nodiscard]] int stopped_by() const noexcept { return stopped_by_; }

    /// One pass: stream_lines over the input.
    template <class Sink, class Progress>
    std::uint64_t read(std::uint32_t L, std::uint64_t max_lines, Sink&& sink, Progress&& progress) {
        if (copy_) {
            copy_->clear();
            copy_->seekg(0);
            return stream_lines(*copy_, name_, L, max_lines, sink, progress, stopped_by_);
        }
        if (read_once_ && !regular_)
            throw std::logic_error(name_ + " can be read once and was read already");
        read_once_ = true;
        if (path_ == memsub::explorer::stdin_name) {
            std::ios::sync_with_stdio(false); // cin reads in blocks, not through stdio
            return stream_lines(std::cin, name_, L, max_lines, sink, progress, stopped_by_);
        }
        std::ifstream in(path_, std::ios::binary);
        if (!in) throw std::runtime_error(path_ + ": cannot open for reading");
        return stream_lines(in, name_, L, max_lines, sink, progress, stopped_by_);
    }

private:
    void copy_to_temporary_file(bool progress) {
        std::ifstream file;
        if (path_ != memsub::explorer::stdin_name) {
            file.open(path_, std::ios::binary);
            if (!file) throw std::runtime_error(path_ + ": cannot open for reading");
        } else {
            std::ios::sync_with_stdio(false); // cin reads in blocks, not through stdio
        }
        std::istream& source = path_ == memsub::explorer::stdin_name ? std::cin : file;
        const char* env = std::getenv("TMPDIR");
        const std::string dir = env != nullptr && *env != '\0' ? env : "/tmp";
        std::string temporary = dir + "/memsub-compressibility-XXXXXX";
        const int fd = ::mkstemp(temporary.data());
        if (fd < 0)
            throw std::runtime_error(fmt::format(
                "{}: cannot create a temporary file in {} for a copy of it (it can be read only "
                "once, and SC2's self-training reads it twice): {}; set TMPDIR, or give "
                "--sc2-train",
                name_, dir, std::strerror(errno)));
        copy_.emplace(temporary, std::ios::in | std::ios::out | std::ios::binary);
        ::close(fd);
        ::unlink(temporary.c_str());
        if (!*copy_)
            throw std::runtime_error(
                fmt::format("{}: cannot open its temporary copy in {}", name_, dir));
        memsub::explorer::progress_meter meter(progress, name_);
        meter.set_unit("bytes copied to a temporary file");
        meter.set_then("then the analysis");
        std::uint64_t copied = 0;
        std::vector<char> block(std::size_t{1} << 20);
        while (source && !copy_interrupted_) {
            source.read(block.data(), static_cast<std::streamsize>(block.size()));
            if (source.bad()) throw std::runtime_error(name_ + ": read error");
            copy_->write(block.data(), source.gcount());
            if (!*copy_)
                throw std::runtime_error(
                    fmt::format("{}: writing its copy in {} failed after {} bytes: {}; set TMPDIR "
                                "to a disk with room, or give --sc2-train",
                                name_, dir, copied, std::strerror(errno)));
            copied += static_cast<std::uint64_t>(source.gcount());
            meter.update(copied, std::nullopt);
            copy_interrupted_ = memsub::explorer::stop_requested() != 0;
        }
        meter.finish();
        if (!copy_->flush())
            throw std::runtime_error(fmt::format("{}: writing its copy in {} failed: {}", name_,
                                                 dir, std::strerror(errno)));
        size_ = copied;
    }

    std::string path_, name_;
    bool regular_ = false;
    bool read_once_ = false;
    bool copy_interrupted_ = false;
    int stopped_by_ = 0;
    std::optional<std::uint64_t> size_;
    std::optional<std::fstream> copy_; // the temporary copy of an input that can be read once
};

/// Where SC²'s code book comes from (printed with the report).
struct sc2_training {
    std::shared_ptr<const mc::huffman_code_book> book;
    std::string source; // e.g. "the first 10 % of its lines (41 lines)"
};

/// Trains SC²'s value-frequency table ([SC2]) on `lines` lines given in blocks by
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
inline std::uint64_t self_training_lines(std::uint64_t lines) {
    return std::max<std::uint64_t>(1, lines / 10);
}

/// Accumulates the report of one input over blocks of whole lines, for each of `Compressors`.
template <class... Compressors>
class analysis {
public:
    analysis(std::string name, const options& opt, const mc::storage_rule& rule,
             const std::shared_ptr<const mc::huffman_code_book>& book)
        : L_(opt.line_bytes)
        , rule_(rule)
        , compressors_(make_compressor<Compressors>(opt.line_bytes, book)...) {
        r_.name = std::move(name);
        r_.histogram.assign(sizeof...(Compressors),
                            std::vector<std::uint64_t>(rule.segments_per_line() + 1, 0));
        // CS7: floor of one segment
        r_.stored.assign(sizeof...(Compressors), mc::ratio_accumulator(rule));
        r_.exact.assign(sizeof...(Compressors), mc::ratio_accumulator());
    }

    /// `block` holds whole lines.
    void add(std::span<const std::byte> block) {
        const mc::storage_rule exact_rule = mc::byte_aligned_storage_rule(L_); // SC²'s own (CS3)
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
            ++r_.lines;
        }
    }

    result finish() { return std::move(r_); }

private:
    std::uint32_t L_;
    mc::storage_rule rule_;
    result r_;
    std::tuple<Compressors...> compressors_;
};

// --- output -----------------------------------------------------------------------------------

/// The inputs with at least one whole line: those the report, the data file and the plot show.
inline std::vector<const result*> reported(const std::vector<result>& results) {
    std::vector<const result*> out;
    for (const auto& r : results)
        if (r.lines > 0) out.push_back(&r);
    return out;
}

/// Prints the report of `results`: each compressor's ratio (and the mean), where the code book
/// came from (when a compressor `trains` one), the exact ratios and the per-line histograms.
inline void print_report(const std::vector<const result*>& results, const mc::storage_rule& rule,
                         const std::vector<compressor_column>& columns, bool trains) {
    const std::size_t algorithms = columns.size();
    // Columns as wide as the longest heading (8 at least: a ratio prints as 8 characters).
    std::size_t width = 8;
    for (const auto& c : columns) width = std::max(width, c.heading.size());
    fmt::print("Compression ratio = Σ original / Σ stored bytes ({}-byte lines, {}-byte segments, "
               "lines that save nothing stored raw)\n\n",
               rule.line_bytes, rule.segment_bytes);
    fmt::print("{:<34} {:>9}", "input", "lines");
    for (const auto& c : columns) fmt::print(" {:>{}}", c.heading, width);
    fmt::print("\n");
    std::vector<double> mean(algorithms, 0.0);
    for (const result* r : results) {
        fmt::print("{:<34} {:>9}", r->shown_name().substr(0, 34), r->lines);
        for (std::size_t a = 0; a < algorithms; ++a) {
            fmt::print(" {:>{}.3f}", r->stored[a].ratio(), width);
            mean[a] += r->stored[a].ratio() / static_cast<double>(results.size());
        }
        fmt::print("\n");
    }
    fmt::print("{:<34} {:>9}", "average (of the ratios)", "");
    for (double m : mean) fmt::print(" {:>{}.3f}", m, width);
    if (trains) {
        fmt::print("\n\nSC2's code book (a value-frequency table, docs/mechanisms/compressors.md "
                   "§1.5) was trained on:\n");
        for (const result* r : results) fmt::print("  {}: {}\n", r->shown_name(), r->sc2_source);
    } else {
        fmt::print("\n");
    }
    fmt::print("\nExact (byte-granular, S = 1, how SC² stores its lines) ratios:\n");
    for (const result* r : results) {
        fmt::print("{:<34} {:>9}", r->shown_name().substr(0, 34), "");
        for (std::size_t a = 0; a < algorithms; ++a)
            fmt::print(" {:>{}.3f}", r->exact[a].ratio(), width);
        fmt::print("\n");
    }

    const std::uint32_t segs = rule.segments_per_line();
    for (const result* r : results) {
        fmt::print(
            "\nPer-line stored size, {} (% of lines per number of {}-byte segments; {} = raw "
            "or nothing saved):\n",
            r->shown_name(), rule.segment_bytes, segs);
        fmt::print("{:<{}}", "segments", width + 2);
        for (std::uint32_t s = 0; s <= segs; ++s) fmt::print(" {:>5}", s);
        fmt::print("\n");
        for (std::size_t a = 0; a < algorithms; ++a) {
            fmt::print("{:<{}}", columns[a].heading, width + 2);
            for (std::uint32_t s = 0; s <= segs; ++s)
                fmt::print(" {:>5.1f}", 100.0 * static_cast<double>(r->histogram[a][s]) /
                                            static_cast<double>(r->lines));
            fmt::print("\n");
        }
    }
}

inline std::string quoted(std::string s) {
    std::replace(s.begin(), s.end(), '"', '\'');
    return "\"" + s + "\"";
}

/// `s` as one POSIX shell word: single-quoted, with each ' written as '\'' — nothing inside
/// ($, `, \, ", spaces) is expanded or split.
inline std::string shell_quoted(const std::string& s) {
    std::string q = "'";
    for (const char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

/// The output files, all in --output-dir.
struct output_files {
    fs::path dat, gp, png, csv;
    explicit output_files(const fs::path& dir)
        : dat(dir / "compressibility.dat")
        , gp(dir / "compressibility.gp")
        , png(dir / "compressibility.png")
        , csv(dir / "compressibility.csv") {}
};

/// Every input's row, the unreadable and the skipped ones too (memsub/explorer/result_table.hpp):
/// its bytes and whole lines, each algorithm's ratio (ratio_*, at the storage rule's segments) and
/// exact ratio (exact_ratio_*, S = 1 byte), SC²'s training, a warning, and the status columns
/// `partial` (a stop signal cut it short or kept it from being read), `interrupted_by_signal` and
/// `error` (why it could not be read). The ratios of an input without a whole line are null.
inline memsub::explorer::result_table results_table(const std::vector<result>& results,
                                                    const mc::storage_rule& rule,
                                                    const std::vector<compressor_column>& columns,
                                                    bool trains) {
    const std::size_t algorithms = columns.size();
    memsub::explorer::result_table table("compressibility");
    for (const auto& r : results) {
        auto& row = table.add_row();
        row.text("input", r.input)
            .text("name", r.name)
            .number("bytes", r.lines * rule.line_bytes + r.trailing_bytes)
            .number("lines", r.lines)
            .number("line_bytes", rule.line_bytes)
            .number("segment_bytes", rule.segment_bytes);
        // An input that was not analysed has no accumulators: its ratios are null.
        const auto ratio = [&](const std::vector<mc::ratio_accumulator>& of, std::size_t a) {
            return r.lines > 0 && a < of.size() ? std::optional(of[a].ratio()) : std::nullopt;
        };
        for (std::size_t a = 0; a < algorithms; ++a)
            row.optional_number(fmt::format("ratio_{}", columns[a].column), ratio(r.stored, a),
                                "{:.6f}");
        for (std::size_t a = 0; a < algorithms; ++a)
            row.optional_number(fmt::format("exact_ratio_{}", columns[a].column), ratio(r.exact, a),
                                "{:.6f}");
        row.optional_text("sc2_training",
                          trains && r.lines > 0 ? std::optional(r.sc2_source) : std::nullopt)
            .optional_text("warning", r.warning)
            .boolean("partial", r.partial)
            .optional_number("interrupted_by_signal",
                             r.interrupted_by != 0 ? std::optional(r.interrupted_by) : std::nullopt)
            .optional_text("error", r.error);
    }
    return table;
}

/// Writes the plot's data file (the inputs with a whole line, and a comment naming each input
/// that has none) and its gnuplot script. Throws std::runtime_error naming a file that cannot
/// be written.
inline void write_plot_files(const std::vector<result>& results, const options& opt,
                             const output_files& files,
                             const std::vector<compressor_column>& columns) {
    const std::size_t algorithms = columns.size();
    const auto shown = reported(results);
    {
        std::ofstream out(files.dat);
        if (!out) throw std::runtime_error("cannot write " + files.dat.string());
        out << "# Compression ratio per input (rows) and algorithm (columns); partial = 1 when a\n"
               "# stop signal cut the input short. Every input's status, the unread ones too, is\n"
               "# in compressibility.csv.\n";
        out << "# input";
        for (const auto& c : columns) out << ' ' << c.heading;
        out << " partial\n";
        std::vector<double> mean(algorithms, 0.0);
        for (const result* r : shown) {
            out << quoted(r->shown_name());
            for (std::size_t a = 0; a < algorithms; ++a) {
                out << ' ' << fmt::format("{:.4f}", r->stored[a].ratio());
                mean[a] += r->stored[a].ratio() / static_cast<double>(shown.size());
            }
            out << ' ' << (r->partial ? 1 : 0) << "\n";
        }
        out << quoted("AVG");
        for (double m : mean) out << ' ' << fmt::format("{:.4f}", m);
        out << " 0\n";
        for (const auto& r : results)
            if (r.lines == 0)
                out << "# not plotted: " << r.input << ": "
                    << r.error.value_or(r.warning.value_or("no whole line")) << "\n";
        if (!out.flush()) throw std::runtime_error("error writing " + files.dat.string());
    }
    {
        // The chart's bars: the compressors marked in_plot (data column 2 is the first one's).
        std::string bars;
        for (std::size_t a = 0; a < algorithms; ++a) {
            if (!columns[a].in_plot) continue;
            bars += bars.empty() ? fmt::format("{} using {}:xtic(1)",
                                               quoted(files.dat.filename().string()), a + 2)
                                 : fmt::format(", '' using {}", a + 2);
            bars += fmt::format(" title '{}'", columns[a].plot_title);
        }
        std::ofstream out(files.gp);
        if (!out) throw std::runtime_error("cannot write " + files.gp.string());
        out << "# Compression ratio per input and algorithm (after Figure 4.1 of the LATTE-CC\n"
               "# dissertation). Render: gnuplot compressibility.gp\n"
            << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "    set terminal pngcairo size 1100,520 font 'Sans,10'\n"
               "} else {\n"
               "    set terminal png size 1100,520\n"
               "}\n"
            << "set output " << quoted(files.png.filename().string()) << "\n"
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
            << "plot " << bars << "\n";
        if (!out.flush()) throw std::runtime_error("error writing " + files.gp.string());
    }
    fmt::print("\nwrote {} and {}\n", files.dat.string(), files.gp.string());
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
    if (std::system(cmd.c_str()) != 0)
        throw std::runtime_error("gnuplot failed on " + files.gp.string());
    fmt::print("plot: {}\n", files.png.string());
}

/// The --help text: the compressors' headings in the table's order, then every option.
inline std::string usage_text(const std::vector<compressor_column>& columns) {
    std::string names;
    for (const auto& c : columns) names += (names.empty() ? "" : ", ") + c.heading;
    return fmt::format("usage: {} [options] [FILE...]\n"
                       "Compression ratio (sum of original / sum of stored bytes) of each "
                       "compressor below on\n"
                       "each FILE, line by line as a cache stores it, with a histogram of the "
                       "per-line stored\n"
                       "sizes, a data file, a CSV and a gnuplot bar chart.\n"
                       "{}\n",
                       program, wrap_text("compressors: " + names, 91, 2)) +
           std::string("Without files: a built-in data set (binary code, zero-heavy data, "
                       "integers, pointers,\n"
                       "floats). A FILE of - is standard input; a pipe or a FIFO (/dev/stdin, "
                       "<(zcat f.gz)) works\n"
                       "too and gives the file's report: as SC2 trains on its first 10 % of lines "
                       "it is copied to a\n"
                       "temporary file in $TMPDIR (else /tmp) first, unless --sc2-train is given.\n"
                       "  --line-bytes N      line size: 32, 64 (default) or 128\n"
                       "  --segment-bytes S   storage granularity in bytes: a power of two up to "
                       "the line size\n"
                       "                      (default 8 for 32/64-byte lines, 32 for 128-byte "
                       "lines); a line that\n"
                       "                      saves nothing is stored raw\n"
                       "  --sc2-train FILE    train SC2's code book on FILE (all its lines; - is "
                       "standard input).\n"
                       "                      Default: each input trains its own book on its first "
                       "10 % of lines,\n"
                       "                      which are then also compressed (an optimistic "
                       "setting; the report\n"
                       "                      says which was used)\n"
                       "  --output-dir DIR    where compressibility.dat/.gp/.png/.csv go (default "
                       ".; created if\n"
                       "                      missing); every output is checked before any work\n"
                       "  --no-plot           write the data and script but do not run gnuplot\n"
                       "  --quiet             no progress on stderr\n"
                       "  -h, --help          this help\n"
                       "compressibility.csv has a row per input, unreadable and skipped ones "
                       "included: bytes,\n"
                       "lines, ratio_* and exact_ratio_* per algorithm, sc2_training, warning, and "
                       "the status\n"
                       "columns partial, interrupted_by_signal and error.\n"
                       "Files are streamed (bounded memory). Only whole lines are counted: a "
                       "trailing partial\n"
                       "line is left out with a warning; a file shorter than one line is skipped "
                       "with one.\n"
                       "SIGINT / SIGTERM (Ctrl-C): the lines read so far are reported (marked "
                       "partial) and the\n"
                       "data files written, then the program exits with 128 + the signal number.\n"
                       "exit status: 0 success; 1 a file could not be read (the others are still "
                       "reported), or\n"
                       "an output could not be written; 2 bad usage (an output that cannot be "
                       "written: nothing is\n"
                       "run); 3 no input holds a whole line; 4 out of memory; 130 / 143 "
                       "interrupted by SIGINT /\n"
                       "SIGTERM.\n");
}

[[noreturn]] inline void usage(int code) {
    fmt::print(code == 0 ? stdout : stderr, "{}", usage_message);
    std::exit(code);
}

inline std::uint32_t parse_u32(std::string_view flag, std::string_view text) {
    return static_cast<std::uint32_t>(memsub::explorer::parse_number(
        program, flag, text, 1, std::numeric_limits<std::uint32_t>::max()));
}

inline options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) {
                fmt::print(stderr, "{}: {} needs a value\n", program, a);
                usage(2);
            }
            return argv[++i];
        };
        if (a == "--line-bytes") {
            o.line_bytes = parse_u32(a, value());
        } else if (a == "--segment-bytes") {
            o.segment_bytes = parse_u32(a, value());
        } else if (a == "--sc2-train") {
            o.sc2_train = std::string(value());
        } else if (a == "--output-dir") {
            o.output_dir = std::string(value());
        } else if (a == "--no-plot") {
            o.plot = false;
        } else if (a == "--quiet") {
            o.progress = false;
        } else if (a == "-h" || a == "--help") {
            usage(0);
        } else if (a.size() > 1 && a[0] == '-') {
            fmt::print(stderr, "{}: unknown option {}\n", program, a);
            usage(2);
        } else {
            o.files.emplace_back(a); // "-" is standard input
        }
    }
    if (!mc::is_supported_line_size(o.line_bytes)) {
        fmt::print(stderr, "{}: --line-bytes = {} is not supported: use 32, 64 or 128\n", program,
                   o.line_bytes);
        std::exit(2);
    }
    // Standard input can be read once.
    const auto stdin_uses =
        std::count(o.files.begin(), o.files.end(), memsub::explorer::stdin_name) +
        (o.sc2_train == memsub::explorer::stdin_name ? 1 : 0);
    if (stdin_uses > 1) {
        fmt::print(stderr,
                   "{}: standard input (-) is named {} times (as a FILE or "
                   "--sc2-train); it can be read once\n",
                   program, stdin_uses);
        std::exit(2);
    }
    if (o.segment_bytes == 0) o.segment_bytes = mc::default_segment_bytes(o.line_bytes); // CS3
    return o;
}

/// A progress line for an input: lines so far and, when its size is known, the share done and
/// the time left.
inline auto line_progress(memsub::explorer::progress_meter& meter,
                          std::optional<std::uint64_t> lines) {
    return [&meter, lines](std::uint64_t done) {
        meter.update(done, lines && *lines > 0 ? std::optional(static_cast<double>(done) /
                                                               static_cast<double>(*lines))
                                               : std::nullopt);
    };
}

/// Analyses an in-memory input (the built-in data set).
template <class... Compressors>
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
    analysis<Compressors...> an(in.name, opt, rule, t.book);
    an.add(all);
    result r = an.finish();
    r.input = in.name;
    r.sc2_source = t.source;
    return r;
}

/// How the report names an input file: its name without the directory ("standard input" for -).
inline std::string report_name(const std::string& file) {
    if (file == memsub::explorer::stdin_name) return std::string(memsub::explorer::stdin_label);
    const std::string name = fs::path(file).filename().string();
    return name.empty() ? file : name;
}

/// Analyses a file ("-": standard input), read twice when it trains its own SC² book (the first
/// 10 % of its lines, then every line). Throws std::runtime_error naming the file when it cannot
/// be read.
template <class... Compressors>
result analyse_file(const std::string& file, const options& opt, const mc::storage_rule& rule,
                    const std::optional<sc2_training>& shared) {
    const std::uint32_t L = opt.line_bytes;
    input_source in(file, !shared, opt.progress);
    const std::string short_name = report_name(file);
    memsub::explorer::progress_meter meter(opt.progress, short_name);
    meter.set_unit("lines");
    const std::optional<std::uint64_t> expected =
        in.size() ? std::optional(*in.size() / L) : std::nullopt;
    result r;
    if (in.copy_interrupted()) { // nothing analysed: the row says so
        r.name = short_name;
        r.warning = "a stop signal came while it was being copied; not analysed";
    } else {
        sc2_training t;
        if (shared) {
            t = *shared;
        } else {
            const std::uint64_t n = self_training_lines(expected.value_or(0));
            t.book = train_sc2(L, [&](auto&& sink) { in.read(L, n, sink, [](std::uint64_t) {}); });
            t.source = fmt::format("the first 10 % of its lines ({} lines)", n);
        }
        analysis<Compressors...> an(short_name, opt, rule, t.book);
        const std::uint64_t trailing = in.read(
            L, 0, [&](std::span<const std::byte> block) { an.add(block); },
            line_progress(meter, expected));
        meter.finish();
        r = an.finish();
        r.sc2_source = t.source;
        r.trailing_bytes = trailing;
    }
    r.input = in.name();
    // Partial only when a signal cut the reading short: one that came after the input's end
    // leaves its figures whole.
    r.interrupted_by = in.copy_interrupted() ? memsub::explorer::stop_requested() : in.stopped_by();
    r.partial = r.interrupted_by != 0;
    if (r.lines == 0 && !r.partial) {
        if (r.trailing_bytes == 0) {
            r.warning = "is empty; skipped";
            fmt::print(stderr, "{}: warning: {} is empty; skipped\n", program, in.name());
        } else {
            r.warning = fmt::format("is shorter than one {}-byte line ({} bytes); skipped", L,
                                    r.trailing_bytes);
            fmt::print(stderr, "{}: warning: {} {}\n", program, in.name(), *r.warning);
        }
    } else if (r.trailing_bytes != 0) {
        r.warning = fmt::format("ends with a partial line: its last {} bytes (less than one "
                                "{}-byte line) are not counted",
                                r.trailing_bytes, L);
        fmt::print(stderr, "{}: warning: {} {}\n", program, in.name(), *r.warning);
    }
    return r;
}

/// Creates the output directory and checks that every output in it can be written, before any
/// work. Throws option_error naming the option and the file.
inline void check_outputs(const options& opt, const output_files& files) {
    std::error_code ec;
    fs::create_directories(opt.output_dir, ec);
    if (ec)
        throw memsub::explorer::option_error(fmt::format("--output-dir {}: cannot create it: {}",
                                                         opt.output_dir.string(), ec.message()));
    if (!fs::is_directory(opt.output_dir, ec))
        throw memsub::explorer::option_error(
            fmt::format("--output-dir {}: is not a directory", opt.output_dir.string()));
    for (const fs::path* f : {&files.dat, &files.gp, &files.csv})
        memsub::explorer::check_writable("--output-dir", f->string());
    if (opt.plot) memsub::explorer::check_writable("--output-dir", files.png.string());
}

template <class... Compressors>
int run(int argc, char** argv) try {
    // Compressors that take a code book (SC²) train it; without one the inputs are read once.
    constexpr bool trains = (params_take_code_book<typename Compressors::params>() || ...);
    const std::vector<compressor_column> columns{column_of<Compressors>()...};
    usage_message = usage_text(columns);
    options opt = parse(argc, argv);
    if (opt.sc2_train && !trains) {
        fmt::print(stderr, "{}: --sc2-train: no compressor of this program takes a code book\n",
                   program);
        return 2;
    }
    const mc::storage_rule rule{.line_bytes = opt.line_bytes, .segment_bytes = opt.segment_bytes};
    try {
        rule.validate("storage rule");
        // Each compressor accepts the line size before any input is read (a user's may take
        // fewer sizes than the library's).
        (void)std::tuple<Compressors...>{make_compressor<Compressors>(opt.line_bytes, nullptr)...};
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return 2;
    }
    const output_files files(opt.output_dir);
    try {
        check_outputs(opt, files);
    } catch (const memsub::explorer::option_error& e) {
        fmt::print(stderr, "{}: {} (nothing was run)\n", program, e.what());
        return 2;
    }

    memsub::explorer::install_stop_handlers();
    // SC²'s code book: one trained on --sc2-train FILE for every input, or each input's own.
    std::optional<sc2_training> shared;
    if (!trains) shared.emplace(); // nothing to train: no book
    if (opt.sc2_train) {
        std::uint64_t lines = 0;
        sc2_training t;
        std::string name = *opt.sc2_train;
        try {
            input_source in(*opt.sc2_train, false, opt.progress);
            name = in.name();
            memsub::explorer::progress_meter meter(opt.progress, "SC2 training on " + in.name());
            meter.set_unit("lines");
            meter.set_then("then the inputs");
            t.book = train_sc2(opt.line_bytes, [&](auto&& sink) {
                in.read(
                    opt.line_bytes, 0,
                    [&](std::span<const std::byte> b) {
                        lines += b.size() / opt.line_bytes;
                        sink(b);
                    },
                    line_progress(meter, in.size() ? std::optional(*in.size() / opt.line_bytes)
                                                   : std::nullopt));
            });
            meter.finish();
        } catch (const std::runtime_error& e) {
            fmt::print(stderr, "{}: --sc2-train: {}\n", program, e.what());
            return 1;
        }
        if (const int sig = memsub::explorer::stop_requested(); sig != 0) {
            fmt::print(stderr,
                       "{}: interrupted by signal {} while training SC2 on {}; "
                       "nothing was analysed\n",
                       program, sig, name);
            return memsub::explorer::stopped_exit_status(sig);
        }
        if (lines == 0) {
            fmt::print(stderr, "{}: --sc2-train {} holds no whole {}-byte line\n", program, name,
                       opt.line_bytes);
            return 2;
        }
        t.source = fmt::format("{} ({} lines, given with --sc2-train)", name, lines);
        shared = std::move(t);
    }

    std::vector<result> results;
    std::vector<std::string> errors, not_run;
    if (opt.files.empty()) {
        // A set is analysed whole once begun; the sets after a stop signal have rows saying
        // they were not run, as a file not read does.
        struct builtin_set {
            const char* name;
            input (*make)();
        };
        constexpr builtin_set builtin[]{{"binary", binary_code},
                                        {"zero-heavy", zero_heavy},
                                        {"integers", integers},
                                        {"pointers", pointers},
                                        {"floats", floats}};
        for (const auto& [name, make] : builtin) {
            if (const int sig = memsub::explorer::stop_requested(); sig != 0) {
                not_run.emplace_back(name);
                result& r = results.emplace_back();
                r.input = name;
                r.name = name;
                r.partial = true;
                r.interrupted_by = sig;
                r.warning = "not run: a stop signal came before it";
                continue;
            }
            results.push_back(analyse_bytes<Compressors...>(make(), opt, rule, shared));
        }
    } else {
        for (const auto& f : opt.files) {
            if (const int sig = memsub::explorer::stop_requested(); sig != 0) {
                // Not read: its row says so (partial, the signal).
                not_run.push_back(memsub::explorer::input_label(f));
                result& r = results.emplace_back();
                r.input = memsub::explorer::input_label(f);
                r.name = report_name(f);
                r.partial = true;
                r.interrupted_by = sig;
                r.warning = "not read: a stop signal came before it";
                continue;
            }
            try {
                results.push_back(analyse_file<Compressors...>(f, opt, rule, shared));
            } catch (const std::runtime_error& e) {
                // Reported after the others' results, which are kept; its row has the error.
                errors.emplace_back(e.what());
                result& r = results.emplace_back();
                r.input = memsub::explorer::input_label(f);
                r.name = report_name(f);
                r.error = e.what();
            }
        }
    }
    const auto shown = reported(results);
    if (!shown.empty()) print_report(shown, rule, columns, trains);
    memsub::explorer::output_attempts outputs;
    const auto attempt = [&](auto&& write) { outputs.attempt(write); };
    if (!shown.empty()) attempt([&] { write_plot_files(results, opt, files, columns); });
    attempt([&] {
        results_table(results, rule, columns, trains).write_csv(files.csv.string());
        fmt::print("every input's row (CSV): {}\n", files.csv.string());
    });
    for (const auto& e : errors) fmt::print(stderr, "{}: {}\n", program, e);
    if (!errors.empty() && !shown.empty())
        fmt::print(stderr, "{}: the report covers the other {} file(s)\n", program, shown.size());
    for (const auto& f : outputs.failures())
        fmt::print(stderr, "{}: output error: {}\n", program, f);
    if (const int sig = memsub::explorer::stop_requested(); sig != 0) {
        const std::string_view unit =
            opt.files.empty() ? "data set(s) not run" : "file(s) not read";
        fmt::print(stderr, "{}: interrupted by signal {}: the report above is partial{}\n", program,
                   sig,
                   not_run.empty() ? std::string() : fmt::format("; {} {}", not_run.size(), unit));
        for (const auto& f : not_run)
            fmt::print(stderr, "{}: {}: {}\n", program, opt.files.empty() ? "not run" : "not read",
                       f);
        return memsub::explorer::stopped_exit_status(sig);
    }
    if (!errors.empty() || !outputs.ok()) return 1;
    if (shown.empty()) {
        fmt::print(stderr,
                   "{}: warning: no input holds a whole {}-byte line; "
                   "nothing to report\n",
                   program, opt.line_bytes);
        return 3;
    }
    return 0;
} catch (const std::bad_alloc&) {
    fmt::print(stderr, "{}: out of memory\n", program);
    return 4;
} catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", program, e.what());
    return 1;
}

} // namespace compressibility_detail

/// The compressibility tool's command line (`--help` lists it; docs/tools/compressibility.md) on
/// the compressors `Compressors`, each modelling memsub::compression::compressor: C(params) with
/// params' line_bytes set to --line-bytes (and a trained code book where its params take one, as
/// SC²'s do). Each gets a column in the tables, the CSV and the plot, named by
/// compressor_label<C> or its name(). Returns the exit status (0 success, 1 an input or output
/// error, 2 bad usage, 3 no whole line in any input, 4 out of memory, 128 + N stopped by signal
/// N).
template <class... Compressors>
int run_compressibility(int argc, char** argv) {
    compressibility_detail::program = program_name(argc, argv, "compressibility");
    return compressibility_detail::run<Compressors...>(argc, argv);
}

} // namespace memsub::explorer
