// memsub::explorer — command-line helpers shared by the explorer and the memsub tools: option
// values parsed at full width with their range stated (option_error names the option and the
// value), output files checked for writability before a run, outputs attempted one by one at
// its end, text wrapping, lists, and the name of standard input ("-").
//
// Part of the explorer module (CMake target memsub::explorer; needs {fmt}). The core library
// never includes it.
//
// Exit statuses every tool built on the module uses (named in memsub/explorer/options.hpp):
// 0 success, 1 input error, 2 bad usage (parse_or_exit), 3 empty input, 4 out of memory,
// 128 + N stopped by signal N (memsub/explorer/signals.hpp).
#pragma once

#include <fmt/core.h>

#include <unistd.h> // access (POSIX)

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/core/param_text.hpp>

namespace memsub::explorer {

/// A bad option value. The message names the option and the value given.
class option_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Walks a command line option by option, as every tool's parser does:
///   for (option_reader r(args); r.next();) if (r.arg() == "--ways") ways = ...(r.value());
/// value() takes the argument after the current one as its value.
class option_reader {
public:
    explicit option_reader(std::vector<std::string_view> args) : args_(std::move(args)) {}
    /// argv's arguments after the program name.
    option_reader(int argc, char** argv) : args_(argv + (argc > 0 ? 1 : 0), argv + argc) {}
    /// Moves to the next argument; false when none is left.
    bool next() noexcept {
        at_ = following_++;
        return at_ < args_.size();
    }
    /// The current argument.
    [[nodiscard]] std::string_view arg() const { return args_[at_]; }
    /// The current option's value (the next argument, which is consumed). Throws option_error
    /// "<option> needs a value" when there is none.
    std::string_view value() {
        if (following_ >= args_.size()) throw option_error(fmt::format("{} needs a value", arg()));
        return args_[following_++];
    }
    /// The index of the last argument consumed.
    [[nodiscard]] std::size_t position() const noexcept { return following_ - 1; }
    /// Makes argument `i` the current one (a parser handing one argument to another).
    void seek(std::size_t i) noexcept {
        at_ = i;
        following_ = i + 1;
    }

private:
    std::vector<std::string_view> args_;
    std::size_t at_ = 0, following_ = 0;
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

/// A workload size scaled by --scale: `base` × `scale`, rounded, at least 1.
[[nodiscard]] inline std::uint64_t scaled(double base, double scale) {
    return static_cast<std::uint64_t>(std::max(1.0, std::round(base * scale)));
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

/// A list of policy specs, "lru,srrip:rrpv_bits=3,promotion=frequency_priority,drrip" →
/// {"lru", "srrip:rrpv_bits=3,promotion=frequency_priority", "drrip"}: an item with '=' and
/// no ':' is one more setting of the spec before it (a policy name never holds '=').
inline std::vector<std::string> split_policy_list(std::string_view s) {
    std::vector<std::string> out;
    for (auto& item : split_list(s)) {
        const bool setting =
            item.find('=') != std::string::npos && item.find(':') == std::string::npos;
        if (setting && !out.empty() && out.back().find(':') != std::string::npos)
            out.back() += ',' + item;
        else
            out.push_back(std::move(item));
    }
    return out;
}

/// The policy name of a spec ("srrip:rrpv_bits=3" → "srrip") and its settings ("rrpv_bits=3").
using memsub::spec_policy_name;
using memsub::spec_settings;

/// The name a tool speaks in (its messages, usage and files): argv[0]'s file name, or
/// `fallback` when the program was started without one.
inline std::string program_name(int argc, char** argv, std::string_view fallback) {
    if (argc > 0 && argv[0] != nullptr && *argv[0] != '\0')
        return std::filesystem::path(argv[0]).filename().string();
    return std::string(fallback);
}

/// `values` without repeats, each at its first place ("a,b,a" runs a and b once each).
template <class T>
[[nodiscard]] std::vector<T> without_repeats(std::vector<T> values) {
    std::vector<T> out;
    out.reserve(values.size());
    for (auto& v : values)
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
    return out;
}

/// The list `text` ("a,b,c") given with `flag`, each name one of `known`, in the order given,
/// a repeated name once. Throws option_error "<flag> needs at least one <what>" for an empty
/// list and "<flag>: unknown <what> '<name>' (<the known names>)" for a name not known.
inline std::vector<std::string> parse_known_names(std::string_view flag, std::string_view text,
                                                  std::span<const std::string_view> known,
                                                  std::string_view what) {
    std::vector<std::string> names = split_list(text);
    if (names.empty()) throw option_error(fmt::format("{} needs at least one {}", flag, what));
    for (const auto& n : names)
        if (std::find(known.begin(), known.end(), n) == known.end()) {
            std::string listed;
            for (const auto k : known) listed += (listed.empty() ? "" : ", ") + std::string(k);
            throw option_error(fmt::format("{}: unknown {} '{}' ({})", flag, what, n, listed));
        }
    return without_repeats(std::move(names));
}

/// The input name that means standard input in every program ("-", as in cat and sort).
inline constexpr std::string_view stdin_name = "-";
/// How standard input is named in tables, files and errors.
inline constexpr std::string_view stdin_label = "standard input";
/// The name a program shows for the input `file`.
inline std::string input_label(const std::string& file) {
    return file == stdin_name ? std::string(stdin_label) : file;
}

} // namespace memsub::explorer
