// memsub — reader for libCacheSim's `oracleGeneral` binary traces.
//
// Format (libCacheSim, traceReader/customizedReader/oracle/oracleGeneralBin.h, and its FAQ): no
// header; packed little-endian 24-byte records
//     offset 0  uint32 clock_time          (real time of the request, seconds in libCacheSim)
//     offset 4  uint64 obj_id
//     offset 12 uint32 obj_size            (bytes)
//     offset 16 int64  next_access_vtime   (logical time — request number — of the next request
//                                            to the same object; -1 = never requested again)
// Mapping to `memsub::access` (a load; the format has no operation field):
//   * address ← obj_id × `params::address_scale` (default 64: each object is one 64-byte cache
//     line, so `line_address` = obj_id for 64-byte lines). A product beyond 64 bits is an input
//     error naming the record's byte offset;
//   * size ← obj_size, capped at `address_scale` when that is above 1: an object owns its
//     `address_scale` bytes of address space, so a 4 KiB object at the default scale is one
//     64-byte line, not 64 lines that overlap the next objects (the size matters to a consumer
//     that follows line-crossing references, e.g. the explorer's cachegrind counting). At
//     scale 1 (obj_id is a byte address) the record is a byte range and keeps its size;
//     hints.cycle ← clock_time;
//   * hints.next_use ← next_access_vtime when ≥ 0, `memsub::never` when it is -1 (libCacheSim's
//     "no next access", which its reader maps to INT64_MAX) or INT64_MAX. Other negative values
//     are an input error. The value is passed through in the trace's own numbering.
// Records with obj_size = 0 are skipped (counted in `skipped()`), as libCacheSim's reader does;
// set `params::skip_zero_size = false` to deliver them with size 0.
// A truncated final record (file size not a multiple of 24) is an input error at its byte
// offset, after every complete record has been delivered.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/trace/concept.hpp>
#include <memsub/trace/detail/little_endian.hpp>
#include <memsub/trace/detail/reader_base.hpp>

namespace memsub::trace {

struct oracle_general_reader_params {
    /// Bytes per object id: address = obj_id × address_scale_bytes (≥ 1).
    std::uint64_t address_scale_bytes = 64;
    /// Skip records of size 0, as libCacheSim does.
    bool skip_zero_size = true;
    std::size_t buffer_bytes = std::size_t{1} << 20;
};

class oracle_general_reader
    : public detail::reader_base<oracle_general_reader, oracle_general_reader_params> {
public:
    static constexpr std::string_view format_name = "oracleGeneral";
    static constexpr std::string_view component = "memsub::trace::oracle_general_reader";
    static constexpr auto position_kind = input_error::position_kind::byte_offset;
    static constexpr std::size_t record_bytes = 24;
    using reader_base::reader_base;

    bool next(memsub::access& out) {
        error_.check();
        for (;;) {
            const std::uint64_t start = src_.byte_offset();
            const std::byte* rec = src_.take(record_bytes); // in place, no copy
            if (rec == nullptr) {                           // the end: nothing, or a partial record
                std::array<std::byte, record_bytes> tail;
                const std::size_t got = src_.read(tail.data(), tail.size());
                if (got == 0) return false;
                fail_at(start, "truncated record: " + std::to_string(got) + " of 24 bytes");
            }
            switch (decoder()(rec, out)) {
            case record_status::ok:
                ++records_;
                return true;
            case record_status::skip:
                ++skipped_;
                continue;
            case record_status::invalid:
                fail_at(start, problem(rec));
            }
        }
    }

    /// Records of size 0 skipped so far.
    [[nodiscard]] std::uint64_t skipped() const noexcept { return skipped_; }

private:
    friend reader_base;

    /// Decodes one record without throwing (reader_base's batch loop calls it for every whole
    /// record in the buffer); a malformed record is `invalid` and `problem` says why.
    struct record_decoder {
        std::uint64_t address_scale_bytes;
        std::uint64_t max_obj_id;
        bool skip_zero_size;

        [[gnu::always_inline]] record_status operator()(const std::byte* rec,
                                                        memsub::access& out) const noexcept {
            const auto clock = detail::load_le<4>(rec);
            const auto obj_id = detail::load_le<8>(rec + 4);
            const auto size = detail::load_le<4>(rec + 12);
            // Two's-complement reinterpretation, well defined since C++20.
            const auto next_vtime = static_cast<std::int64_t>(detail::load_le<8>(rec + 16));
            if (size == 0 && skip_zero_size) return record_status::skip;
            if (obj_id > max_obj_id) return record_status::invalid;
            std::uint64_t next_use = never; // -1 (libCacheSim's "never") or INT64_MAX
            if (next_vtime >= 0 && next_vtime != std::numeric_limits<std::int64_t>::max())
                next_use = static_cast<std::uint64_t>(next_vtime);
            else if (next_vtime != -1 && next_vtime != std::numeric_limits<std::int64_t>::max())
                return record_status::invalid;
            out = memsub::access{};
            out.address = byte_address{obj_id * address_scale_bytes};
            out.size = static_cast<std::uint32_t>(
                address_scale_bytes > 1 ? std::min<std::uint64_t>(size, address_scale_bytes)
                                        : size);
            out.hints.cycle = clock;
            out.hints.next_use = next_use;
            return record_status::ok;
        }
    };
    [[nodiscard]] record_decoder decoder() const noexcept {
        return {p_.address_scale_bytes, max_obj_id_, p_.skip_zero_size};
    }

    /// Why `decode` found `rec` invalid.
    [[gnu::cold]] std::string problem(const std::byte* rec) const {
        const auto obj_id = detail::load_le<8>(rec + 4);
        if (obj_id > max_obj_id_)
            return "obj_id " + std::to_string(obj_id) + " times address_scale_bytes " +
                   std::to_string(p_.address_scale_bytes) + " does not fit in 64 bits";
        return "negative next_access_vtime " +
               std::to_string(static_cast<std::int64_t>(detail::load_le<8>(rec + 16))) +
               " (only -1 means never)";
    }

    static void validate(const params& p) {
        memsub::require(p.address_scale_bytes >= 1, component, "address_scale_bytes",
                        p.address_scale_bytes, "must be at least 1");
    }

    /// The largest obj_id whose address fits in 64 bits (computed once: no division per record).
    std::uint64_t max_obj_id_ = std::numeric_limits<std::uint64_t>::max() / p_.address_scale_bytes;
};

static_assert(trace_reader<oracle_general_reader>);

} // namespace memsub::trace
