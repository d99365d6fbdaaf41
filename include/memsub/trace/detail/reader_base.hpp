// memsub — what every trace reader shares: one streaming source (constant memory), its
// validated params, the sticky input error, the record count, the constructors from a file or
// a named stream, and the accessors of the `trace_reader` concept (trace/concept.hpp).
//
// A reader derives from reader_base<Reader, Params> and names
//   * `component` (for config errors) and `position_kind`: line numbers for the text formats
//     (whose params have `max_line_bytes`), byte offsets for the binary ones;
//   * optionally `static void validate(const params&)` for its own parameters;
//   * `next(access&)`: text formats call `next_parsed_line`, which hands each line to the
//     reader's `parse(std::string_view, access&)` until one yields a record.
// Readers befriend their base so that `validate` and `parse` stay private.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/trace/concept.hpp>
#include <memsub/trace/detail/stream_source.hpp>

namespace memsub::trace::detail {

template <class Reader, class Params>
class reader_base {
public:
    using params = Params;

    explicit reader_base(const std::filesystem::path& file) : reader_base(file, params{}) {}
    reader_base(const std::filesystem::path& file, const params& p)
        : p_(validated(p))
        , src_(file, p.buffer_bytes) {}
    reader_base(std::istream& in, std::string name) : reader_base(in, std::move(name), params{}) {}
    reader_base(std::istream& in, std::string name, const params& p)
        : p_(validated(p))
        , src_(in, std::move(name), p.buffer_bytes) {}

    /// Records delivered so far.
    [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
    /// Where reading stands: the number of the last line read (text formats) or the byte offset
    /// of the next record (binary formats).
    [[nodiscard]] trace_position position() const noexcept { return {Reader::position_kind, at()}; }
    [[nodiscard]] const std::string& name() const noexcept { return src_.name(); }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }

protected:
    [[nodiscard]] static constexpr bool line_oriented() noexcept {
        return Reader::position_kind == input_error::position_kind::line_number;
    }

    /// Raises (and remembers: later `next` calls rethrow it) an input error at `where`.
    [[noreturn]] void fail_at(std::uint64_t where, const std::string& problem) {
        error_.raise(src_.name(), Reader::position_kind, where, problem);
    }
    /// The same at the current position (text formats: the line being parsed).
    [[noreturn]] void fail(const std::string& problem) { fail_at(at(), problem); }

    /// Text formats: reads lines until the reader's `parse` turns one into a record.
    bool next_parsed_line(memsub::access& out) {
        std::string_view line;
        while (src_.next_line(line, p_.max_line_bytes)) {
            if (static_cast<Reader&>(*this).parse(line, out)) {
                ++records_;
                return true;
            }
        }
        return false;
    }

    params p_;
    stream_source src_;
    sticky_error error_;
    std::uint64_t records_ = 0;

private:
    [[nodiscard]] std::uint64_t at() const noexcept {
        if constexpr (line_oriented())
            return src_.line_number();
        else
            return src_.byte_offset();
    }
    static params validated(const params& p) {
        if constexpr (line_oriented())
            validate_buffers(Reader::component, p.buffer_bytes, p.max_line_bytes);
        else
            validate_binary_buffer(Reader::component, p.buffer_bytes);
        if constexpr (requires { Reader::validate(p); }) Reader::validate(p);
        return p;
    }
};

} // namespace memsub::trace::detail
