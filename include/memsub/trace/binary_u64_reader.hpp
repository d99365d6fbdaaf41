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
        const std::uint64_t start = src_.byte_offset();
        if (const std::byte* rec = src_.take(record_bytes)) { // in place, no copy
            (void)decoder()(rec, out);
            ++records_;
            return true;
        }
        std::array<std::byte, record_bytes> tail; // the end: nothing, or a partial record
        const std::size_t got = src_.read(tail.data(), tail.size());
        if (got == 0) return false;
        fail_at(start, "truncated record: " + std::to_string(got) + " of 8 bytes");
    }

private:
    friend reader_base;

    /// Decodes one record (every 8-byte value is an address; reader_base's batch loop).
    struct record_decoder {
        [[gnu::always_inline]] record_status operator()(const std::byte* rec,
                                                        memsub::access& out) const noexcept {
            out = memsub::access{};
            out.address = byte_address{detail::load_le<8>(rec)};
            return record_status::ok;
        }
    };
    [[nodiscard]] static record_decoder decoder() noexcept { return {}; }
};

static_assert(trace_reader<binary_u64_reader>);

} // namespace memsub::trace
