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

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <span>
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
    /// An input whose first bytes were read ahead (format detection): they are read first.
    reader_base(read_ahead_input&& input, const params& p)
        : p_(validated(p))
        , src_(std::move(input), p.buffer_bytes) {}

    /// Fills `out` from the front with the next records; returns how many: 0 only at the end of
    /// input. An input error after k > 0 records returns k and is thrown by the next call (see
    /// "Batches" in trace/concept.hpp). A reader of fixed-size
    /// records (`record_bytes` and a `decode`, see below) decodes every whole record already
    /// buffered in one loop; the records that straddle a refill, and any bad one, go through
    /// `next` (which raises the error at the right offset).
    std::size_t next_batch(std::span<memsub::access> out) {
        auto& self = static_cast<Reader&>(*this);
        std::size_t n = 0;
        try {
            if constexpr (fixed_records) {
                error_.check();
                constexpr std::size_t bytes = Reader::record_bytes;
                // The decoder is a value (the params it needs in registers: the records written
                // through `out` cannot alias it).
                const auto decode = self.decoder();
                while (n < out.size()) {
                    const std::span<const std::byte> buf = src_.buffered();
                    const std::size_t whole = std::min(buf.size() / bytes, out.size() - n);
                    const std::byte* rec = buf.data();
                    memsub::access* dst = out.data() + n;
                    std::size_t i = 0, produced = 0, skipped = 0;
                    bool bad = false;
                    for (; i < whole; ++i, rec += bytes) {
                        const record_status st = decode(rec, dst[produced]);
                        produced += st == record_status::ok;
                        skipped += st == record_status::skip;
                        if (st == record_status::invalid) [[unlikely]] {
                            bad = true;
                            break;
                        }
                    }
                    src_.skip(i * bytes);
                    records_ += produced;
                    skipped_ += skipped;
                    n += produced;
                    if (n == out.size()) break;
                    if (bad || i == whole) { // a bad record, or the buffer ran out: one by one
                        if (!self.next(out[n])) break;
                        ++n;
                    }
                }
            } else {
                while (n < out.size() && self.next(out[n])) ++n;
            }
        } catch (const input_error& e) {
            if (n == 0) throw;
            error_.remember(e); // a byte-source error is not sticky by itself
        }
        return n;
    }

    /// Bytes of the input consumed so far (every format; for a progress fraction).
    [[nodiscard]] std::uint64_t bytes_consumed() const noexcept { return src_.byte_offset(); }

    /// Records delivered so far.
    [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
    /// Where reading stands: the number of the last line read (text formats) or the byte offset
    /// of the next record (binary formats).
    [[nodiscard]] trace_position position() const noexcept { return {Reader::position_kind, at()}; }
    [[nodiscard]] const std::string& name() const noexcept { return src_.name(); }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }

protected:
    /// What a fixed-record reader's decoder, `record_status (const std::byte* record,
    /// access& out)`, found: a record written to `out`, a record the format skips, or a malformed
    /// one (`next` then says why and where).
    enum class record_status : std::uint8_t { ok, skip, invalid };

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

    /// The reader's records have a fixed size and a non-throwing decoder: `r.decoder()` returns
    /// a callable value, `decoder(record, out)` -> record_status (the batch fast path).
    static constexpr bool fixed_records =
        requires(Reader & r, const std::byte* b, memsub::access& a) {
        Reader::record_bytes;
        { r.decoder()(b, a) } -> std::same_as<record_status>;
    };

    params p_;
    stream_source src_;
    sticky_error error_;
    std::uint64_t records_ = 0;
    std::uint64_t skipped_ = 0; ///< records a format skips (a fixed-record decoder's `skip`)

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
