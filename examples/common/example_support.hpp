// Helpers shared by the example programs: command-line parsing and a chunked access source that
// reads a trace (any memsub::trace format) or draws from a built-in generator. Examples only —
// not part of the library.
#pragma once

#include <memsub/core/access.hpp>
#include <memsub/trace/open.hpp>

#include <fmt/core.h>

#include <signal.h> // sigaction (POSIX)
#include <unistd.h> // access (POSIX)

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <concepts>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memsub_examples {

/// A bad option value. The message names the option and the value given.
class option_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A decimal integer option value in [min, max], parsed at full 64-bit width (no silent
/// truncation to a narrower field: the caller passes its field's range). Throws option_error
/// naming `flag` and `text` otherwise.
inline std::uint64_t parse_unsigned(std::string_view flag, std::string_view text,
                                    std::uint64_t min = 0,
                                    std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
    const auto range = [&] { return fmt::format("{}..{}", min, max); };
    if (text.empty() ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw option_error(
            fmt::format("{} expects a whole number in {}, got '{}'", flag, range(), text));
    std::uint64_t v = 0;
    for (const char c : text) {
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
            throw option_error(
                fmt::format("{} = {} is out of range: it must be in {}", flag, text, range()));
        v = v * 10 + digit;
    }
    if (v < min || v > max)
        throw option_error(
            fmt::format("{} = {} is out of range: it must be in {}", flag, text, range()));
    return v;
}

/// parse_unsigned for a field of type T: the range is clipped to T's, so nothing is cut.
template <std::unsigned_integral T>
T parse_unsigned_as(std::string_view flag, std::string_view text, T min = 0,
                    T max = std::numeric_limits<T>::max()) {
    return static_cast<T>(parse_unsigned(flag, text, min, max));
}

/// parse_unsigned for a power of two in [min, max] (both powers of two): a value that is not
/// one is named with the nearest powers of two around it.
inline std::uint32_t parse_power_of_two(std::string_view flag, std::string_view text,
                                        std::uint32_t min, std::uint32_t max) {
    const auto v = static_cast<std::uint32_t>(parse_unsigned(flag, text, min, max));
    if ((v & (v - 1)) != 0) {
        std::uint32_t below = 1;
        while (below <= v / 2) below *= 2;
        throw option_error(fmt::format("{} = {} is not a power of two (try {} or {})", flag, text,
                                       below, std::uint64_t{below} * 2));
    }
    return v;
}

/// A finite real option value in (0, max]. Throws option_error naming `flag` otherwise.
inline double parse_positive_real(std::string_view flag, std::string_view text,
                                  double max = std::numeric_limits<double>::max()) {
    const std::string copy(text); // strtod needs a terminated string
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size() || errno == ERANGE || !std::isfinite(v) ||
        !(v > 0.0))
        throw option_error(
            fmt::format("{} expects a finite positive number, got '{}'", flag, text));
    if (v > max)
        throw option_error(
            fmt::format("{} = {} is out of range: it must be at most {:g}", flag, text, max));
    return v;
}

/// Runs `parse` (a lambda parsing one option value); on option_error prints
/// "<program>: <message>" and exits with status 2 (bad usage).
template <class Parse>
auto parse_or_exit(std::string_view program, Parse&& parse) {
    try {
        return parse();
    } catch (const option_error& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        std::exit(2);
    }
}

/// A decimal integer option value in [min, max]; exits with status 2 and a message naming the
/// option otherwise.
inline std::uint64_t parse_number(std::string_view program, std::string_view flag,
                                  std::string_view text, std::uint64_t min = 0,
                                  std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
    return parse_or_exit(program, [&] { return parse_unsigned(flag, text, min, max); });
}

/// Checks, before any work is done, that the output `file` given with `flag` can be written:
/// an existing file must be writable, a new one needs an existing, writable directory. Nothing
/// is created. Throws option_error naming the option, the file and why not, so a long run never
/// ends in an output error that was knowable at its start.
inline void check_writable(std::string_view flag, const std::string& file) {
    if (file.empty()) return;
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path path(file);
    if (fs::is_directory(path, ec))
        throw option_error(fmt::format("{} {}: is a directory, not a file", flag, file));
    if (fs::exists(path, ec)) {
        if (::access(file.c_str(), W_OK) != 0)
            throw option_error(
                fmt::format("{} {}: cannot write it: {}", flag, file, std::strerror(errno)));
        return;
    }
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec))
        throw option_error(fmt::format("{} {}: cannot write it: the directory {} does not exist",
                                       flag, file, dir.string()));
    if (::access(dir.c_str(), W_OK) != 0)
        throw option_error(fmt::format("{} {}: cannot write it: the directory {}: {}", flag, file,
                                       dir.string(), std::strerror(errno)));
}

/// The outputs a program writes at the end of a run: each write is attempted, and one that
/// fails (a full disk) is kept as a message without stopping the others, so every output that
/// can be written is; running out of memory still ends the program (its own exit status).
class output_attempts {
public:
    /// Calls `write()`; returns whether it succeeded.
    template <class Write>
    bool attempt(Write&& write) {
        try {
            write();
            return true;
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& e) {
            failures_.emplace_back(e.what());
            return false;
        }
    }
    /// One message per output that could not be written, in the order attempted.
    [[nodiscard]] const std::vector<std::string>& failures() const noexcept { return failures_; }
    [[nodiscard]] bool ok() const noexcept { return failures_.empty(); }

private:
    std::vector<std::string> failures_;
};

/// The gnuplot terminal for a plot file, chosen by its extension (.png, .svg, .pdf; case
/// insensitive); nullopt for any other name, which the examples reject at parse time.
inline std::optional<std::string> gnuplot_terminal_for(std::string_view file) {
    const auto dot = file.find_last_of('.');
    const auto slash = file.find_last_of('/');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
        return std::nullopt;
    std::string ext(file.substr(dot + 1));
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == "png") return std::string("pngcairo");
    if (ext == "svg") return std::string("svg dynamic");
    if (ext == "pdf") return std::string("pdfcairo");
    return std::nullopt;
}

/// The one rule for plot files in every program: the format follows the name, .png, .svg or
/// .pdf (case insensitive); any other name is an option_error at parse time, before any work,
/// naming the option. Returns the gnuplot terminal for the name.
inline std::string plot_terminal_or_throw(std::string_view flag, std::string_view file) {
    auto terminal = gnuplot_terminal_for(file);
    if (!terminal)
        throw option_error(fmt::format(
            "{} {}: unknown plot format; name the file .png, .svg or .pdf", flag, file));
    return std::move(*terminal);
}

/// `s` as a gnuplot single-quoted string (a quote doubled).
inline std::string gnuplot_quoted(std::string_view s) {
    std::string q = "'";
    for (const char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

/// Runs gnuplot on the script `script`, which draws `plot`. Without gnuplot it says on stderr
/// how to render it later and returns false; a failing gnuplot throws std::runtime_error.
inline bool render_with_gnuplot(const std::string& script, const std::string& plot) {
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fmt::print(stderr, "gnuplot not found (Debian: gnuplot-nox); render with: gnuplot {}\n",
                   script);
        return false;
    }
    std::string cmd = "gnuplot '"; // the shell's single quotes: a quote is '\''
    for (const char c : script) cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
    cmd += "'";
    if (std::system(cmd.c_str()) != 0)
        throw std::runtime_error(fmt::format("gnuplot failed on {} (drawing {})", script, plot));
    return true;
}

// ------------------------------------------------------------------ stop signals

namespace detail {
/// The signal that asked the program to stop (0: none). Written only by the handler.
inline volatile std::sig_atomic_t stop_signal = 0;
extern "C" inline void record_stop_signal(int sig) {
    stop_signal = sig;
}
} // namespace detail

/// Installs SIGINT and SIGTERM handlers that only record the signal (the loops poll
/// stop_requested() between chunks and wind down: partial results are printed and written, and
/// the program exits with 128 + the signal). The handler is one-shot: a second signal of the
/// same kind takes its default action (terminates at once).
/// A signal ignored when the program starts (nohup, a shell's background job) stays ignored.
inline void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = detail::record_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (const int sig : {SIGINT, SIGTERM}) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sig, &sa, nullptr);
    }
}

/// The signal that asked to stop, or 0.
inline int stop_requested() noexcept {
    return static_cast<int>(detail::stop_signal);
}

/// The exit status of a program stopped by `sig` (the shell's convention).
inline int stopped_exit_status(int sig) noexcept {
    return 128 + sig;
}

/// `text` wrapped at spaces into lines of at most `width` characters (a longer word stands on
/// its own line), the lines after the first indented by `indent` spaces; no final newline.
inline std::string wrap_text(std::string_view text, std::size_t width = 100,
                             std::size_t indent = 0) {
    std::string out, line;
    const auto flush = [&] {
        if (!out.empty()) out += '\n' + std::string(indent, ' ');
        out += line;
        line.clear();
    };
    while (!text.empty()) {
        const auto space = text.find(' ');
        const std::string_view word = text.substr(0, space);
        text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
        if (word.empty()) continue;
        const std::size_t room = width - (out.empty() ? 0 : indent);
        if (!line.empty() && line.size() + 1 + word.size() > room) flush();
        if (!line.empty()) line += ' ';
        line += word;
    }
    if (!line.empty()) flush();
    return out;
}

/// "a,b,c" → {"a", "b", "c"}.
inline std::vector<std::string> split_list(std::string_view s) {
    std::vector<std::string> out;
    while (!s.empty()) {
        const auto comma = s.find(',');
        out.emplace_back(s.substr(0, comma));
        s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    }
    return out;
}

/// Progress on stderr for a long run, at most once a second: accesses so far and, when the
/// fraction done is known, the percentage and an estimate of the time left (from the rate so
/// far). `finish()` ends the line if anything was printed.
class progress_meter {
public:
    using clock = std::chrono::steady_clock;

    progress_meter(bool enabled, std::string label)
        : enabled_(enabled)
        , label_(std::move(label).substr(0, 40)) {}

    /// `accesses` done so far and, when known, the fraction of the work done.
    void update(std::uint64_t accesses, std::optional<double> fraction) {
        if (!due()) return;
        const double secs = seconds();
        if (fraction && *fraction > 0) {
            const double left = secs * (1.0 - *fraction) / *fraction;
            fmt::print(stderr, "\r{}{:.1f} M {} ({:.0f}%), {:.0f} s, about {} left{}   ", head(),
                       static_cast<double>(accesses) / 1e6, unit_, 100.0 * *fraction, secs,
                       duration_text(left), then_);
        } else {
            fmt::print(stderr, "\r{}{:.1f} M {}, {:.0f} s{}   ", head(),
                       static_cast<double>(accesses) / 1e6, unit_, secs, then_);
        }
    }

    /// A phase measured only by its fraction done (e.g. the OPT bound's pass).
    void update(double fraction) {
        if (!due()) return;
        const double secs = seconds();
        const double f = std::clamp(fraction, 0.0, 1.0);
        if (f > 0)
            fmt::print(stderr, "\r{}{:.0f}%, {:.0f} s, about {} left{}   ", head(), 100.0 * f, secs,
                       duration_text(secs * (1.0 - f) / f), then_);
        else
            fmt::print(stderr, "\r{}{:.0f} s{}   ", head(), secs, then_);
    }

    /// What the counts of update(count, fraction) are ("accesses" unless set).
    void set_unit(std::string unit) { unit_ = std::move(unit); }
    /// Work that follows this meter's and its time left does not include, said after the time
    /// left (e.g. "then the OPT bound"), so the estimate does not promise too much.
    void set_then(std::string_view what) {
        then_ = what.empty() ? std::string() : fmt::format(" ({})", what);
    }

    void finish() {
        if (printed_) fmt::print(stderr, "\n");
        printed_ = false;
    }

    /// "42 s", "3 min 5 s", "2 h 10 min".
    static std::string duration_text(double seconds) {
        const auto s = static_cast<std::uint64_t>(std::max(0.0, seconds) + 0.5);
        if (s < 60) return fmt::format("{} s", s);
        if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
        return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
    }

private:
    /// True (and the clock of the last line reset) when a line is due: at most one a second.
    bool due() {
        if (!enabled_) return false;
        const auto now = clock::now();
        if (now - last_ < std::chrono::seconds(1)) return false;
        last_ = now;
        printed_ = true;
        return true;
    }
    [[nodiscard]] double seconds() const {
        return std::chrono::duration<double>(last_ - start_).count();
    }
    [[nodiscard]] std::string head() const {
        return label_.empty() ? std::string("  ") : "  " + label_ + ": ";
    }

    bool enabled_;
    std::string label_;
    std::string unit_ = "accesses";
    std::string then_;
    clock::time_point start_ = clock::now();
    clock::time_point last_ = start_;
    bool printed_ = false;
};

/// The input name that means standard input in every program ("-", as in cat and sort).
inline constexpr std::string_view stdin_name = "-";
/// How standard input is named in tables, files and errors.
inline constexpr std::string_view stdin_label = "standard input";
/// The name a program shows for the input `file`.
inline std::string input_label(const std::string& file) {
    return file == stdin_name ? std::string(stdin_label) : file;
}

/// Accesses per chunk a source delivers: 4 Ki records (320 KiB) stay in the core's L2 between
/// being decoded and being simulated; a chunk of 64 Ki (5 MiB) went out to memory and back and
/// cost the explorer about a fifth of its end-to-end time on a 10 M-record oracleGeneral file.
inline constexpr std::size_t chunk_accesses = std::size_t{1} << 12;

/// Delivers accesses in chunks from a trace file or, without one, from `Generator` (any type
/// with `memsub::access next()`), stopping after `limit` accesses (0 = no limit; the generator
/// always stops after `generated`).
template <class Generator>
class chunked_source {
public:
    /// Reads `file` (format detected unless given); "-" is standard input.
    chunked_source(const std::string& file, std::optional<memsub::trace::trace_format> format,
                   std::uint64_t limit, const memsub::trace::open_options& options = {})
        : reader_(open(file, format, options))
        , label_(input_label(file))
        , cap_(limit != 0 ? limit : ~std::uint64_t{0}) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(file, ec);
        if (!ec && file != stdin_name) file_bytes_ = size; // unknown for a pipe or a device
    }

    /// Draws `generated` accesses (capped by `limit`) from `generator`.
    chunked_source(Generator generator, std::string label, std::uint64_t generated,
                   std::uint64_t limit)
        : generator_(std::move(generator))
        , label_(std::move(label))
        , cap_(limit != 0 ? std::min(limit, generated) : generated) {}

    /// Fills `chunk` (its old content is replaced); false when the source is exhausted. The
    /// records are decoded in place, a batch per call (trace::next_batch). A malformed trace
    /// delivers every record before the bad one, then throws memsub::input_error from the next
    /// call with `chunk` empty.
    bool next_chunk(std::vector<memsub::access>& chunk) {
        const auto want =
            static_cast<std::size_t>(std::min<std::uint64_t>(chunk_accesses, cap_ - produced_));
        if (generator_) {
            chunk.clear();
            for (std::size_t i = 0; i < want; ++i) chunk.push_back(generator_->next());
        } else {
            chunk.resize(want); // no work when the last chunk was full
            try {
                chunk.resize(memsub::trace::next_batch(*reader_, chunk));
            } catch (...) {
                chunk.clear();
                throw;
            }
        }
        produced_ += chunk.size();
        return !chunk.empty();
    }

    /// How far through its input the source is, in [0, 1], when that is known: a generated
    /// source, a trace file of known size, or a `limit`; nullopt otherwise (a pipe).
    [[nodiscard]] std::optional<double> fraction_done() const noexcept {
        std::optional<double> f;
        if (cap_ != ~std::uint64_t{0})
            f = static_cast<double>(produced_) /
                static_cast<double>(std::max<std::uint64_t>(cap_, 1));
        if (reader_ && file_bytes_ && *file_bytes_ > 0) {
            const double by_bytes = static_cast<double>(memsub::trace::bytes_consumed(*reader_)) /
                                    static_cast<double>(*file_bytes_);
            f = f ? std::max(*f, by_bytes) : by_bytes;
        }
        if (f) f = std::min(*f, 1.0);
        return f;
    }

    [[nodiscard]] const std::string& label() const noexcept { return label_; }
    /// Instructions counted by the trace reader, when its format carries them.
    [[nodiscard]] std::optional<std::uint64_t> instructions() const noexcept {
        return reader_ ? memsub::trace::instructions(*reader_) : std::nullopt;
    }

private:
    /// Opens `file`; a directory is named as one (reading it would fail with a read error at
    /// offset 0, which does not say what is wrong).
    static memsub::trace::any_reader open(const std::string& file,
                                          std::optional<memsub::trace::trace_format> format,
                                          const memsub::trace::open_options& options) {
        if (file == stdin_name) {
            std::ios::sync_with_stdio(false); // cin reads in blocks, not through stdio
            const std::string name(stdin_label);
            return format ? memsub::trace::open_trace(std::cin, name, *format, options)
                          : memsub::trace::open_trace(std::cin, name, options);
        }
        std::error_code ec;
        if (std::filesystem::is_directory(file, ec))
            throw memsub::input_error(file, memsub::input_error::position_kind::byte_offset, 0,
                                      "is a directory, not a trace file");
        return format ? memsub::trace::open_trace(file, *format, options)
                      : memsub::trace::open_trace(file, options);
    }

    std::optional<memsub::trace::any_reader> reader_;
    std::optional<Generator> generator_;
    std::string label_;
    std::uint64_t cap_;
    std::uint64_t produced_ = 0;
    std::optional<std::uint64_t> file_bytes_;
};

} // namespace memsub_examples
