// memsub — reader for raw binary address traces: little-endian 64-bit addresses back to back.
//
// Format: the file is a sequence of 8-byte records, each one byte address stored little-endian
// (byte 0 least significant), no header. Every record becomes a `load` of unknown size (0).
// The byte order is decoded explicitly, so the reader gives the same result on any host.
// A file whose size is not a multiple of 8 ends in a truncated record: every complete record
// before it is delivered, then `next` throws `input_error` naming the byte offset where the
// truncated record starts.
#pragma once

#include <array>
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
#include <memsub/trace/detail/little_endian.hpp>
#include <memsub/trace/detail/stream_source.hpp>

namespace memsub::trace {

struct binary_u64_reader_params {
    std::size_t buffer_bytes = std::size_t{1} << 20;
};

class binary_u64_reader {
public:
    using params = binary_u64_reader_params;
    static constexpr std::string_view format_name = "u64";
    static constexpr std::string_view component = "memsub::trace::binary_u64_reader";
    static constexpr std::size_t record_bytes = 8;

    explicit binary_u64_reader(const std::filesystem::path& file)
        : binary_u64_reader(file, params{}) {}
    binary_u64_reader(const std::filesystem::path& file, const params& p)
        : p_(validated(p))
        , src_(file, p.buffer_bytes) {}
    binary_u64_reader(std::istream& in, std::string name)
        : binary_u64_reader(in, std::move(name), params{}) {}
    binary_u64_reader(std::istream& in, std::string name, const params& p)
        : p_(validated(p))
        , src_(in, std::move(name), p.buffer_bytes) {}

    bool next(memsub::access& out) {
        error_.check();
        std::array<std::byte, record_bytes> rec;
        const std::uint64_t start = src_.byte_offset();
        const std::size_t got = src_.read(rec.data(), rec.size());
        if (got == 0) return false;
        if (got < rec.size())
            error_.raise(src_.name(), input_error::position_kind::byte_offset, start,
                         "truncated record: " + std::to_string(got) + " of 8 bytes");
        out = memsub::access{};
        out.address = byte_address{detail::load_le<8>(rec.data())};
        ++records_;
        return true;
    }

    [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
    /// Bytes consumed: the offset of the next record.
    [[nodiscard]] trace_position position() const noexcept {
        return {input_error::position_kind::byte_offset, src_.byte_offset()};
    }
    [[nodiscard]] const std::string& name() const noexcept { return src_.name(); }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }

private:
    static params validated(const params& p) {
        detail::validate_binary_buffer(component, p.buffer_bytes);
        return p;
    }

    params p_;
    detail::stream_source src_;
    detail::sticky_error error_;
    std::uint64_t records_ = 0;
};

static_assert(trace_reader<binary_u64_reader>);

} // namespace memsub::trace
