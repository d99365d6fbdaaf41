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
#include <memsub/trace/detail/reader_base.hpp>

namespace memsub::trace {

struct binary_u64_reader_params {
    std::size_t buffer_bytes = std::size_t{1} << 20;
};

class binary_u64_reader : public detail::reader_base<binary_u64_reader, binary_u64_reader_params> {
public:
    static constexpr std::string_view format_name = "u64";
    static constexpr std::string_view component = "memsub::trace::binary_u64_reader";
    static constexpr auto position_kind = input_error::position_kind::byte_offset;
    static constexpr std::size_t record_bytes = 8;
    using reader_base::reader_base;

    bool next(memsub::access& out) {
        error_.check();
        std::array<std::byte, record_bytes> rec;
        const std::uint64_t start = src_.byte_offset();
        const std::size_t got = src_.read(rec.data(), rec.size());
        if (got == 0) return false;
        if (got < rec.size())
            fail_at(start, "truncated record: " + std::to_string(got) + " of 8 bytes");
        out = memsub::access{};
        out.address = byte_address{detail::load_le<8>(rec.data())};
        ++records_;
        return true;
    }
};

static_assert(trace_reader<binary_u64_reader>);

} // namespace memsub::trace
