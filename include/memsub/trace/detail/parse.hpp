// memsub — small, total parsing helpers for the text trace formats.
//
// Every function accepts any byte sequence: no locale, no exceptions, no undefined behaviour.
// Numbers are parsed digit by digit with an explicit overflow check (a value that does not fit
// in 64 bits is reported, never wrapped).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace memsub::trace::detail {

enum class number_status : std::uint8_t { ok, empty, bad_digit, overflow };

[[nodiscard]] constexpr bool is_blank(char c) noexcept {
    return c == ' ' || c == '\t';
}

/// Digit value of every byte: 0–15 for [0-9a-fA-F], -1 otherwise.
inline constexpr auto hex_table = [] {
    std::array<std::int8_t, 256> t{};
    for (auto& x : t) x = -1;
    for (int c = '0'; c <= '9'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'a' + 10);
    for (int c = 'A'; c <= 'F'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'A' + 10);
    return t;
}();

[[nodiscard]] constexpr int hex_value(char c) noexcept {
    return hex_table[static_cast<unsigned char>(c)];
}

/// Parses all of `s` as hexadecimal digits (no prefix). `bad` receives the first offending
/// character; a value with more than 16 significant digits is an overflow.
[[nodiscard]] constexpr number_status parse_hex(std::string_view s, std::uint64_t& out,
                                                char& bad) noexcept {
    if (s.empty()) return number_status::empty;
    std::uint64_t v = 0;
    std::size_t significant = 0; // digits from the first non-zero one on
    for (const char c : s) {
        const int d = hex_value(c);
        if (d < 0) {
            bad = c;
            return number_status::bad_digit;
        }
        significant += static_cast<std::size_t>(significant != 0 || d != 0);
        v = (v << 4) | static_cast<std::uint64_t>(d); // wraps harmlessly; checked below
    }
    if (significant > 16) return number_status::overflow;
    out = v;
    return number_status::ok;
}

/// Parses all of `s` as decimal digits. `bad` receives the offending character.
[[nodiscard]] constexpr number_status parse_decimal(std::string_view s, std::uint64_t& out,
                                                    char& bad) noexcept {
    if (s.empty()) return number_status::empty;
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') {
            bad = c;
            return number_status::bad_digit;
        }
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (v > (max - d) / 10) return number_status::overflow;
        v = v * 10 + d;
    }
    out = v;
    return number_status::ok;
}

/// True when `s` starts with "0x" or "0X".
[[nodiscard]] constexpr bool has_hex_prefix(std::string_view s) noexcept {
    return s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/// Splits off the next blank-separated token of `rest` (leading blanks skipped); empty at end.
[[nodiscard]] constexpr std::string_view next_token(std::string_view& rest) noexcept {
    std::size_t i = 0;
    while (i < rest.size() && is_blank(rest[i])) ++i;
    std::size_t j = i;
    while (j < rest.size() && !is_blank(rest[j])) ++j;
    const std::string_view tok = rest.substr(i, j - i);
    rest.remove_prefix(j);
    return tok;
}

/// True when `s` holds only blanks.
[[nodiscard]] constexpr bool is_blank_line(std::string_view s) noexcept {
    for (const char c : s)
        if (!is_blank(c)) return false;
    return true;
}

/// A printable rendering of a byte for error messages ('g', or \x07 for control bytes).
[[nodiscard]] inline std::string quote_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string{'\'', c, '\''};
    constexpr char digits[] = "0123456789abcdef";
    return std::string{"byte 0x"} + digits[u >> 4] + digits[u & 15];
}

/// A human-readable reason for a failed number parse of `what` ("address", "size", …).
[[nodiscard]] inline std::string number_problem(number_status st, char bad, std::string_view what,
                                                std::string_view base) {
    std::string m;
    switch (st) {
    case number_status::ok:
        break;
    case number_status::empty:
        m = "missing " + std::string(what);
        break;
    case number_status::bad_digit:
        m = "bad " + std::string(base) + " digit " + quote_char(bad) + " in " + std::string(what);
        break;
    case number_status::overflow:
        m = std::string(what) + " does not fit in 64 bits";
        break;
    }
    return m;
}

} // namespace memsub::trace::detail
