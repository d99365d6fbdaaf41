// The explorers' input: a trace (any memsub::trace format, "-" for standard input) or, without
// one, the explorer's built-in workload (a zipf + loop + scan mix sized for a cache), read in
// chunks. Shared by the explorer and mrc_explorer so both read the same accesses from the same
// options. Examples only — not part of the library.
#pragma once

#include <memsub/trace/open.hpp>
#include <memsub/workload/synthetic.hpp>

#include "example_support.hpp"

#include <fmt/core.h>

#include <cstdint>
#include <optional>
#include <string>

namespace memsub_examples {

using explorer_source = chunked_source<memsub::workload::mixed_stream>;

/// What an explorer's input depends on (its --format, --limit, --object-bytes, --accesses and
/// --seed, and the cache the built-in workload is sized for).
struct explorer_source_settings {
    std::optional<memsub::trace::trace_format> format;
    std::uint64_t limit = 0; ///< 0 = the whole trace
    /// oracleGeneral: address = obj_id x this.
    std::uint64_t object_bytes = 64;
    /// The built-in workload: the capacity (lines) its footprints are scaled to, its line size,
    /// length and seed.
    std::uint64_t workload_lines = 32768;
    std::uint32_t line_bytes = 64;
    std::uint64_t accesses = 5'000'000;
    std::uint64_t seed = 2026;
};

/// Opens `file`, or the built-in workload when there is none. Throws memsub::input_error when
/// the trace cannot be opened or its format detected.
inline explorer_source open_explorer_source(const explorer_source_settings& s,
                                            const std::optional<std::string>& file) {
    if (file) {
        memsub::trace::open_options options;
        options.oracle_general.address_scale_bytes = s.object_bytes;
        return explorer_source(*file, s.format, s.limit, options);
    }
    return explorer_source(
        memsub::workload::mixed_stream(memsub::workload::mixed_stream::params{
            .cache_lines = s.workload_lines, .line_bytes = s.line_bytes, .seed = s.seed}),
        fmt::format("built-in mix (zipf 55% / loop 30% / scan 15%, seed {})", s.seed), s.accesses,
        s.limit);
}

} // namespace memsub_examples
