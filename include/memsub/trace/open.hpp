// memsub — opening a trace by format name or by detection, and driving any reader.
//
//   trace_format              lackey, din, text, u64, oracle_general, champsim
//   parse_format(name)        "lackey" | "din"/"dinero" | "text"/"txt" | "u64"/"binary_u64"/"bin"
//                             | "oracleGeneral"/"oracle_general" | "champsim" → trace_format
//                             (nullopt if none)
//   detect_format(file)       from the file name, else from the first bytes of the content:
//       *.oracleGeneral, *.oracleGeneral.bin, *.oracleGeneral.<anything> → oracle_general
//       *.din → din   *.u64, *.bin → u64   *.lackey → lackey
//       *.champsimtrace → champsim; *.champsimtrace.xz / .gz → input_error (decompress first)
//       otherwise (e.g. *.txt, no extension) the first up-to-4 KiB are examined: a NUL or other
//       control byte → binary, which cannot be told apart reliably: input_error asking for an
//       explicit format; a Valgrind message ("==pid==") or a Lackey record ("I  a,n", " L a,n",
//       " S a,n", " M a,n") → lackey; "<0-5> <hex> …" → din; anything else → text.
//       gzip or xz data (by its magic number) is an input_error saying to decompress it.
//       An Accel-Sim SASS trace (*.traceg, or "-kernel name" / "#BEGIN_TB" lines) is an
//       input_error saying so: its records are warp instructions (trace/accel_sim_reader.hpp).
//   open_trace(file, format, options) / open_trace(file, options) → any_reader (a std::variant)
//       The file is opened once; detection by content reads its first bytes from the stream the
//       reader then continues, so a pipe (`/dev/stdin`) delivers every record.
//   open_trace(stream, name[, format], options)  the same over an open std::istream (std::cin)
//   for_each_access(reader, f)  calls f(const memsub::access&) for every record; returns the
//                               count. For `any_reader` the variant is visited once, outside the
//                               loop, so the per-record path has no variant dispatch.
// Compressed traces (.gz, .xz) are not decoded here; decompress them first (e.g. `zcat t.gz`
// into a pipe). The explorer module's tools decode them (explorer/compressed_input.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/trace/binary_u64_reader.hpp>
#include <memsub/trace/champsim_reader.hpp>
#include <memsub/trace/concept.hpp>
#include <memsub/trace/detail/parse.hpp>
#include <memsub/trace/dinero_reader.hpp>
#include <memsub/trace/lackey_reader.hpp>
#include <memsub/trace/oracle_general_reader.hpp>
#include <memsub/trace/text_reader.hpp>

namespace memsub::trace {

enum class trace_format : std::uint8_t { lackey, din, text, u64, oracle_general, champsim };

[[nodiscard]] constexpr std::string_view to_string(trace_format f) noexcept {
    switch (f) {
    case trace_format::lackey:
        return lackey_reader::format_name;
    case trace_format::din:
        return dinero_reader::format_name;
    case trace_format::text:
        return text_reader::format_name;
    case trace_format::u64:
        return binary_u64_reader::format_name;
    case trace_format::oracle_general:
        return oracle_general_reader::format_name;
    case trace_format::champsim:
        return champsim_reader::format_name;
    }
    return "?";
}

[[nodiscard]] constexpr std::optional<trace_format> parse_format(std::string_view s) noexcept {
    if (s == "lackey") return trace_format::lackey;
    if (s == "din" || s == "dinero") return trace_format::din;
    if (s == "text" || s == "txt") return trace_format::text;
    if (s == "u64" || s == "binary_u64" || s == "bin") return trace_format::u64;
    if (s == "oracleGeneral" || s == "oracle_general") return trace_format::oracle_general;
    if (s == "champsim") return trace_format::champsim;
    return std::nullopt;
}

/// Reader parameters used by `open_trace`, one set per format.
struct open_options {
    lackey_reader::params lackey{};
    dinero_reader::params din{};
    text_reader::params text{};
    binary_u64_reader::params u64{};
    oracle_general_reader::params oracle_general{};
    champsim_reader::params champsim{};
};

using any_reader = std::variant<lackey_reader, dinero_reader, text_reader, binary_u64_reader,
                                oracle_general_reader, champsim_reader>;

namespace detail {
/// The problem an Accel-Sim SASS trace is reported with: it holds warp instructions, which no
/// per-access reader of `any_reader` decodes.
inline constexpr std::string_view accel_sim_trace_problem =
    "an Accel-Sim SASS trace (kernel-N.traceg: warp instructions, not single accesses); "
    "read it with memsub::trace::accel_sim_reader";

[[nodiscard]] inline std::optional<trace_format> format_from_name(const std::filesystem::path& f) {
    const std::string name = f.filename().string();
    if (name.find(".oracleGeneral") != std::string::npos) return trace_format::oracle_general;
    if (name.ends_with(".champsimtrace")) return trace_format::champsim;
    if (name.ends_with(".champsimtrace.xz") || name.ends_with(".champsimtrace.gz"))
        throw input_error(f.string(), input_error::position_kind::byte_offset, 0,
                          "a compressed ChampSim trace: memsub reads its decompressed bytes "
                          "(e.g. `xz -dc TRACE | explorer --format champsim -`)");
    const std::string ext = f.extension().string();
    if (ext == ".din") return trace_format::din;
    if (ext == ".u64" || ext == ".bin") return trace_format::u64;
    if (ext == ".lackey") return trace_format::lackey;
    if (ext == ".traceg")
        throw input_error(f.string(), input_error::position_kind::byte_offset, 0,
                          accel_sim_trace_problem);
    return std::nullopt;
}

/// True when `line` is a Lackey record ("I  a,n" or " X a,n" with X in L/S/M).
[[nodiscard]] inline bool looks_like_lackey_record(std::string_view line) noexcept {
    std::string_view rest = line;
    const std::string_view tag = next_token(rest);
    if (tag.size() != 1) return false;
    if (tag[0] == 'I') {
        if (!line.starts_with("I ")) return false;
    } else if (tag[0] == 'L' || tag[0] == 'S' || tag[0] == 'M') {
        if (!line.starts_with(' ')) return false;
    } else {
        return false;
    }
    const std::string_view field = next_token(rest);
    const std::size_t comma = field.find(',');
    if (comma == std::string_view::npos) return false;
    std::uint64_t v = 0;
    char bad = 0;
    return parse_hex(field.substr(0, comma), v, bad) == number_status::ok &&
           parse_decimal(field.substr(comma + 1), v, bad) == number_status::ok;
}

[[nodiscard]] inline bool looks_like_din_record(std::string_view line) noexcept {
    std::string_view rest = line;
    const std::string_view label = next_token(rest);
    if (label.size() != 1 || label[0] < '0' || label[0] > '5') return false;
    std::string_view addr = next_token(rest);
    if (has_hex_prefix(addr)) addr.remove_prefix(2);
    std::uint64_t v = 0;
    char bad = 0;
    return parse_hex(addr, v, bad) == number_status::ok;
}

/// Bytes of an input's start that format detection examines.
inline constexpr std::size_t sniff_bytes = 4096;

/// True when `line` starts a header or thread block of an Accel-Sim SASS trace.
[[nodiscard]] inline bool looks_like_accel_sim_line(std::string_view line) noexcept {
    return line.starts_with("-kernel name") || line.starts_with("-kernel id") ||
           line.starts_with("-grid dim") || line.starts_with("-accelsim tracer version") ||
           line.starts_with("#BEGIN_TB") || line.starts_with("#traces format");
}

/// "gzip" or "xz" when `head` starts with that format's magic number (1f 8b; fd '7zXZ' 00),
/// else empty.
[[nodiscard]] inline std::string_view compression_magic(std::string_view head) noexcept {
    if (head.starts_with(std::string_view("\x1f\x8b", 2))) return "gzip";
    if (head.starts_with(std::string_view("\xfd"
                                          "7zXZ\0",
                                          6)))
        return "xz";
    return {};
}

/// The format of an input whose first bytes are `head` (at most sniff_bytes; all of the input
/// when it is shorter). `name` is for the error messages.
[[nodiscard]] inline trace_format format_from_head(std::string_view head, const std::string& name) {
    if (const std::string_view packed = compression_magic(head); !packed.empty())
        throw input_error(name, input_error::position_kind::byte_offset, 0,
                          std::string(packed) +
                              "-compressed data: the trace readers take the decompressed bytes "
                              "(zcat or xz -dc into a pipe)");
    for (std::size_t i = 0; i < head.size(); ++i) {
        const auto c = static_cast<unsigned char>(head[i]);
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
            throw input_error(name, input_error::position_kind::byte_offset, i,
                              "binary content; cannot detect the trace format (name it: u64, "
                              "oracleGeneral or champsim)");
    }
    const bool whole = head.size() < sniff_bytes; // the input ended within the window
    std::string_view text = head;
    std::uint64_t line_number = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const bool complete = nl != std::string_view::npos;
        std::string_view line = text.substr(0, complete ? nl : text.size());
        text.remove_prefix(complete ? nl + 1 : text.size());
        ++line_number;
        if (!complete && !whole) break; // a line cut by the sniff window
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (is_blank_line(line)) continue;
        if (looks_like_accel_sim_line(line))
            throw input_error(name, input_error::position_kind::line_number, line_number,
                              accel_sim_trace_problem);
        if (line.starts_with("==") || looks_like_lackey_record(line)) return trace_format::lackey;
        if (looks_like_din_record(line)) return trace_format::din;
        const std::size_t first = line.find_first_not_of(" \t");
        if (line[first] == '#') continue; // text comment
        return trace_format::text;
    }
    return trace_format::text; // empty or comments only: any text reader yields nothing
}

/// Reads up to sniff_bytes of `*input.in` into `input.head` (fewer only at the end of input).
inline void read_head(read_ahead_input& input) {
    input.head.resize(sniff_bytes);
    std::size_t got = 0;
    while (got < sniff_bytes && *input.in) { // a pipe may deliver a short read
        input.in->read(input.head.data() + got, static_cast<std::streamsize>(sniff_bytes - got));
        got += static_cast<std::size_t>(input.in->gcount());
    }
    input.head.resize(got);
    if (input.in->bad())
        throw input_error(input.name, input_error::position_kind::byte_offset, got, "read error");
}

[[nodiscard]] inline trace_format format_from_content(const std::filesystem::path& file) {
    read_ahead_input input = read_ahead_input::open(file);
    read_head(input);
    return format_from_head(input.head, input.name);
}
} // namespace detail

/// The format `file`'s name gives, if it gives one (the name rules of `detect_format`, without
/// reading the file).
[[nodiscard]] inline std::optional<trace_format>
format_from_file_name(const std::filesystem::path& file) {
    return detail::format_from_name(file);
}

/// The format of `file`: by name, else by content (see the header comment).
[[nodiscard]] inline trace_format detect_format(const std::filesystem::path& file) {
    if (const auto f = detail::format_from_name(file)) return *f;
    return detail::format_from_content(file);
}

[[nodiscard]] inline any_reader open_trace(const std::filesystem::path& file, trace_format format,
                                           const open_options& o = {}) {
    switch (format) {
    case trace_format::lackey:
        return any_reader{std::in_place_type<lackey_reader>, file, o.lackey};
    case trace_format::din:
        return any_reader{std::in_place_type<dinero_reader>, file, o.din};
    case trace_format::text:
        return any_reader{std::in_place_type<text_reader>, file, o.text};
    case trace_format::u64:
        return any_reader{std::in_place_type<binary_u64_reader>, file, o.u64};
    case trace_format::oracle_general:
        return any_reader{std::in_place_type<oracle_general_reader>, file, o.oracle_general};
    case trace_format::champsim:
        return any_reader{std::in_place_type<champsim_reader>, file, o.champsim};
    }
    throw config_error("memsub::trace::open_trace", "format", static_cast<std::uint64_t>(format),
                       "must be a trace_format");
}

namespace detail {
/// A reader of `format` over `input` (its read-ahead bytes first).
[[nodiscard]] inline any_reader open_read_ahead(read_ahead_input&& input, trace_format format,
                                                const open_options& o) {
    switch (format) {
    case trace_format::lackey:
        return any_reader{std::in_place_type<lackey_reader>, std::move(input), o.lackey};
    case trace_format::din:
        return any_reader{std::in_place_type<dinero_reader>, std::move(input), o.din};
    case trace_format::text:
        return any_reader{std::in_place_type<text_reader>, std::move(input), o.text};
    case trace_format::u64:
        return any_reader{std::in_place_type<binary_u64_reader>, std::move(input), o.u64};
    case trace_format::oracle_general:
        return any_reader{std::in_place_type<oracle_general_reader>, std::move(input),
                          o.oracle_general};
    case trace_format::champsim:
        return any_reader{std::in_place_type<champsim_reader>, std::move(input), o.champsim};
    }
    throw config_error("memsub::trace::open_trace", "format", static_cast<std::uint64_t>(format),
                       "must be a trace_format");
}
} // namespace detail

/// Opens `file` in the format `detect_format` finds. The file is opened once: the bytes that
/// detection by content reads are delivered to the reader, so a pipe or a FIFO (`/dev/stdin`,
/// `<(zcat t.gz)`) loses nothing. (`detect_format` itself opens the file on its own and would
/// consume a pipe's first bytes.)
[[nodiscard]] inline any_reader open_trace(const std::filesystem::path& file,
                                           const open_options& o = {}) {
    if (const auto f = detail::format_from_name(file)) return open_trace(file, *f, o);
    detail::read_ahead_input input = detail::read_ahead_input::open(file);
    detail::read_head(input);
    const trace_format format = detail::format_from_head(input.head, input.name);
    return detail::open_read_ahead(std::move(input), format, o);
}

/// Reads the already-open stream `in` (borrowed: it must outlive the reader, e.g. `std::cin`)
/// in `format`; `name` names it in error messages.
[[nodiscard]] inline any_reader open_trace(std::istream& in, std::string name, trace_format format,
                                           const open_options& o = {}) {
    return detail::open_read_ahead(detail::read_ahead_input::borrow(in, std::move(name)), format,
                                   o);
}

/// Reads the already-open stream `in` (borrowed) in the format its first bytes show (the
/// content rules of `detect_format`); those bytes are delivered to the reader too.
[[nodiscard]] inline any_reader open_trace(std::istream& in, std::string name,
                                           const open_options& o = {}) {
    detail::read_ahead_input input = detail::read_ahead_input::borrow(in, std::move(name));
    detail::read_head(input);
    const trace_format format = detail::format_from_head(input.head, input.name);
    return detail::open_read_ahead(std::move(input), format, o);
}

/// Calls `f(const memsub::access&)` for every record of `r`; returns how many. Input errors
/// propagate (records before the bad one have been passed to `f`).
template <trace_reader R, class F>
std::uint64_t for_each_access(R& r, F&& f) {
    memsub::access a{};
    std::uint64_t n = 0;
    while (r.next(a)) {
        f(std::as_const(a));
        ++n;
    }
    return n;
}

template <class F>
std::uint64_t for_each_access(any_reader& r, F&& f) {
    return std::visit([&f](auto& reader) { return for_each_access(reader, f); }, r);
}

/// Fills `out` from the front with the next records of `r`; returns how many: 0 only at the
/// end of input (read until then). Uses the reader's own `next_batch` when it has one (one
/// call per batch), else `next` per record; errors as "Batches" in trace/concept.hpp says: an
/// input error after k > 0 records returns k and is thrown by the next call.
template <trace_reader R>
std::size_t next_batch(R& r, std::span<memsub::access> out) {
    if constexpr (requires {
                      { r.next_batch(out) } -> std::same_as<std::size_t>;
                  }) {
        return r.next_batch(out);
    } else {
        std::size_t n = 0;
        try {
            while (n < out.size() && r.next(out[n])) ++n;
        } catch (const input_error&) {
            if (n == 0) throw;
            // A reader of the concept rethrows its error on the next call (TR4).
        }
        return n;
    }
}

/// The same for whichever reader `r` holds: one dispatch per batch.
inline std::size_t next_batch(any_reader& r, std::span<memsub::access> out) {
    return std::visit([out](auto& reader) { return next_batch(reader, out); }, r);
}

/// Bytes of the input whichever reader `r` holds has consumed (with the file's size, a
/// progress fraction).
[[nodiscard]] inline std::uint64_t bytes_consumed(const any_reader& r) noexcept {
    return std::visit([](const auto& reader) noexcept { return reader.bytes_consumed(); }, r);
}

/// The number of records delivered so far by whichever reader `r` holds.
[[nodiscard]] inline std::uint64_t records(const any_reader& r) noexcept {
    return std::visit([](const auto& reader) noexcept { return reader.records(); }, r);
}

/// The name (file path) of whichever reader `r` holds.
[[nodiscard]] inline const std::string& name(const any_reader& r) noexcept {
    return std::visit(
        [](const auto& reader) noexcept -> const std::string& { return reader.name(); }, r);
}

/// Instructions counted by the reader (Lackey I records, din label 2); nullopt for formats that
/// carry no instruction information.
[[nodiscard]] inline std::optional<std::uint64_t> instructions(const any_reader& r) noexcept {
    return std::visit(
        [](const auto& reader) noexcept -> std::optional<std::uint64_t> {
            if constexpr (requires { reader.instructions(); })
                return reader.instructions();
            else
                return std::nullopt;
        },
        r);
}

} // namespace memsub::trace
