// memsub — the `trace_reader` concept: a streaming source of `memsub::access` records.
//
// A trace reader turns one external trace (a file or an already-open std::istream) into the
// access records a cache consumes, one at a time, in constant memory: every reader reads through
// one fixed-size buffer allocated at construction (`params::buffer_bytes`, default 1 MiB) and
// keeps no per-record state beyond a few counters.
//
// Requirements (a type R models `trace_reader` when all hold; the statically checkable part of
// each is a concept of its own below, `tr1_params` … `tr7_names`, and `diagnose_trace_reader<R>()`
// names the broken ones; labels: testing/contract.hpp):
//   TR1. `typename R::params` is a default-constructible aggregate of the reader's knobs (unit-
//        suffixed, validated once in the constructor, `memsub::config_error` on a bad value).
//   TR2. `R(const std::filesystem::path& file[, const params&])` opens `file` (an `input_error`
//        at byte offset 0 when it cannot be opened) and `R(std::istream& in, std::string name
//        [, const params&])` borrows `in`, which must outlive the reader; `name` is used in
//        messages. R is movable (not copyable).
//   TR3. `r.next(a)` -> bool: writes the next record into `a` (every field is reset first: fields
//        the format does not carry keep `memsub::access{}` defaults) and returns true; returns
//        false at the clean end of input, and keeps returning false.
//   TR4. Malformed input makes `next` throw `memsub::input_error` whose `source()` is the reader's
//        name and whose position is the 1-based line number (text formats) or the byte offset of
//        the offending record (binary formats). Every record before the bad one has already been
//        delivered; nothing produced is lost. Once it has thrown, the reader is failed and every
//        later `next` throws the same error again. No byte sequence causes undefined behaviour:
//        overlong lines, garbage bytes, numbers beyond 64 bits and truncated records are errors.
//   TR5. `r.records()` -> std::uint64_t (noexcept): records delivered by `next` so far.
//   TR6. `r.position()` -> `trace_position` (noexcept): where the reader is — the line number of
//        the last line read, or the number of bytes consumed (the offset of the next record).
//   TR7. `r.name()` -> `const std::string&` (noexcept), and `R::format_name`, a
//        `std::string_view` constant naming the format ("lackey", "din", …).
// Complexity: `next` is amortised O(1) per record (O(line length) for text formats).
// Batches (not a requirement; every memsub reader offers it, and `trace::next_batch` in
// trace/open.hpp falls back to `next` for a reader that does not): `r.next_batch(out)` fills
// `out` (a std::span<memsub::access>) from the front and returns how many records it wrote.
// It is `next` in a loop the compiler sees whole (one call per batch, not per record). It
// returns 0 only at the clean end of input; fewer than out.size() means the end or an input
// error after k > 0 records: those k are delivered and the next call throws the error (TR4's
// stickiness), so nothing produced is lost. Read until a call returns 0 (or throws).
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

/// Trace readers and writers: the `trace_reader` concept (TR1–TR7), the streaming readers of
/// each trace format, and `open` (trace/open.hpp), which picks a reader by format.
namespace memsub::trace {

/// Where a reader is in its input: a line number (text) or a byte offset (binary).
struct trace_position {
    /// What `value` counts: lines (text formats) or bytes (binary formats).
    input_error::position_kind kind = input_error::position_kind::line_number;
    /// The number of the last line read (text formats), or the bytes consumed so far, which is
    /// the offset of the next record (binary formats).
    std::uint64_t value = 0;

    /// Equal when kind and value are equal.
    friend constexpr bool operator==(const trace_position&, const trace_position&) = default;
};

// ------------------------------------------------------------ one concept per requirement
// TR4 (errors) is behaviour, checked by the tests of each reader, not by a concept.

/// TR1: `R::params` is a default-constructible aggregate of the reader's knobs.
template <class R>
concept tr1_params = std::default_initializable<typename R::params>;

/// TR2: `R` opens a file or borrows a named `std::istream`, each with params, and is movable.
template <class R>
concept tr2_construction = std::movable<R> &&
    std::constructible_from<R, const std::filesystem::path&, const typename R::params&> &&
    std::constructible_from<R, std::istream&, std::string, const typename R::params&>;

/// TR3: `r.next(a)` writes the next record into `a` and returns true, or false at the clean end
/// of input (and from then on).
template <class R>
concept tr3_next = requires(R& r, memsub::access& a) {
    { r.next(a) } -> std::same_as<bool>;
};

/// TR5: `r.records()` noexcept gives the records `next` has delivered so far.
template <class R>
concept tr5_records = requires(const R& r) {
    { r.records() }
    noexcept->std::same_as<std::uint64_t>;
};

/// TR6: `r.position()` noexcept gives where the reader is in its input (`trace_position`).
template <class R>
concept tr6_position = requires(const R& r) {
    { r.position() }
    noexcept->std::same_as<trace_position>;
};

/// TR7: `R::format_name` names the format ("lackey", "din", …) and `r.name()` noexcept names
/// the input (used in error messages).
template <class R>
concept tr7_names = requires(const R& r) {
    { R::format_name } -> std::convertible_to<std::string_view>;
    { r.name() }
    noexcept->std::convertible_to<std::string_view>;
};

/// A streaming trace source (TR1–TR7): one record at a time in constant memory, with sticky,
/// positioned input errors (TR4, checked by each reader's tests rather than by the concept).
template <class R>
concept trace_reader = tr1_params<R> && tr2_construction<R> && tr3_next<R> && tr5_records<R> &&
    tr6_position<R> && tr7_names<R>;

/// Fails to compile with one message per broken requirement (TR1–TR3, TR5–TR7).
template <class R>
consteval bool diagnose_trace_reader() {
    static_assert(tr1_params<R>, "TR1: R::params must be a default-constructible aggregate");
    static_assert(tr2_construction<R>,
                  "TR2: R must be movable and constructible from (const std::filesystem::path&, "
                  "const R::params&) and (std::istream&, std::string, const R::params&)");
    static_assert(tr3_next<R>, "TR3: r.next(memsub::access&) must return bool");
    static_assert(tr5_records<R>, "TR5: r.records() const must be noexcept and return "
                                  "std::uint64_t");
    static_assert(tr6_position<R>, "TR6: r.position() const must be noexcept and return "
                                   "trace_position");
    static_assert(tr7_names<R>, "TR7: R::format_name and r.name() const noexcept must be "
                                "convertible to std::string_view");
    return trace_reader<R>;
}

namespace detail {
/// Remembers the first input error of a reader so that later calls rethrow it (TR4).
class sticky_error {
public:
    [[noreturn]] void raise(std::string_view source, input_error::position_kind kind,
                            std::uint64_t position, std::string_view problem) {
        error_.emplace(source, kind, position, problem);
        throw *error_;
    }
    /// Remembers `e` (an error raised elsewhere, e.g. by the byte source) without throwing it.
    void remember(const input_error& e) {
        if (!error_) error_.emplace(e);
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
