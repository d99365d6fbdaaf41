// memsub — the `trace_reader` concept: a streaming source of `memsub::access` records.
//
// A trace reader turns one external trace (a file or an already-open std::istream) into the
// access records a cache consumes, one at a time, in constant memory: every reader reads through
// one fixed-size buffer allocated at construction (`params::buffer_bytes`, default 1 MiB) and
// keeps no per-record state beyond a few counters.
//
// Requirements (a type R models `trace_reader` when all hold):
//   T1. `typename R::params` is a default-constructible aggregate of the reader's knobs (unit-
//       suffixed, validated once in the constructor, `memsub::config_error` on a bad value).
//   T2. `R(const std::filesystem::path& file[, const params&])` opens `file` (an `input_error`
//       at byte offset 0 when it cannot be opened) and `R(std::istream& in, std::string name
//       [, const params&])` borrows `in`, which must outlive the reader; `name` is used in
//       messages. R is movable (not copyable).
//   T3. `r.next(a)` -> bool: writes the next record into `a` (every field is reset first: fields
//       the format does not carry keep `memsub::access{}` defaults) and returns true; returns
//       false at the clean end of input, and keeps returning false.
//   T4. Malformed input makes `next` throw `memsub::input_error` whose `source()` is the reader's
//       name and whose position is the 1-based line number (text formats) or the byte offset of
//       the offending record (binary formats). Every record before the bad one has already been
//       delivered; nothing produced is lost. Once it has thrown, the reader is failed and every
//       later `next` throws the same error again. No byte sequence causes undefined behaviour:
//       overlong lines, garbage bytes, numbers beyond 64 bits and truncated records are errors.
//   T5. `r.records()` -> std::uint64_t (noexcept): records delivered by `next` so far.
//   T6. `r.position()` -> `trace_position` (noexcept): where the reader is — the line number of
//       the last line read, or the number of bytes consumed (the offset of the next record).
//   T7. `r.name()` -> `const std::string&` (noexcept), and `R::format_name`, a
//       `std::string_view` constant naming the format ("lackey", "din", …).
// Complexity: `next` is amortised O(1) per record (O(line length) for text formats).
#pragma once

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>

namespace memsub::trace {

/// Where a reader is in its input: a line number (text) or a byte offset (binary).
struct trace_position {
    input_error::position_kind kind = input_error::position_kind::line_number;
    std::uint64_t value = 0;

    friend constexpr bool operator==(const trace_position&, const trace_position&) = default;
};

template <class R>
concept trace_reader = std::movable<R> && std::default_initializable<typename R::params> &&
    requires(R& r, const R& cr, memsub::access& a) {
    { R::format_name } -> std::convertible_to<std::string_view>;
    { r.next(a) } -> std::same_as<bool>;
    { cr.records() }
    noexcept->std::same_as<std::uint64_t>;
    { cr.position() }
    noexcept->std::same_as<trace_position>;
    { cr.name() }
    noexcept->std::convertible_to<std::string_view>;
};

namespace detail {
/// Remembers the first input error of a reader so that later calls rethrow it (T4).
class sticky_error {
public:
    [[noreturn]] void raise(std::string_view source, input_error::position_kind kind,
                            std::uint64_t position, std::string_view problem) {
        error_.emplace(source, kind, position, problem);
        throw *error_;
    }
    /// Rethrows the remembered error, if any.
    void check() const {
        if (error_) throw *error_;
    }

private:
    std::optional<input_error> error_;
};
} // namespace detail

} // namespace memsub::trace
