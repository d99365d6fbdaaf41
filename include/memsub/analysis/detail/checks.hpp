// memsub — the configuration checks the miss-ratio-curve algorithms share (analysis/): one
// wording of each rule, thrown as config_error naming the algorithm.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::analysis::detail {

/// log2 of `line_bytes` once it is checked to be a power of two >= 4.
[[nodiscard]] inline std::uint32_t checked_line_shift(std::string_view component,
                                                      std::uint32_t line_bytes) {
    memsub::require(line_bytes >= 4 && std::has_single_bit(line_bytes), component, "line_bytes",
                    line_bytes, "must be a power of two >= 4");
    return log2_exact(line_bytes);
}

/// A grid of every power-of-two set count min_sets .. max_sets (<= 2^31) and every way count
/// 1 .. max_ways (<= 1024).
inline void check_grid(std::string_view component, std::uint32_t min_sets, std::uint32_t max_sets,
                       std::uint32_t max_ways) {
    require(min_sets >= 1 && std::has_single_bit(min_sets), component, "min_sets", min_sets,
            "must be a power of two >= 1");
    require(max_sets >= min_sets && std::has_single_bit(max_sets) &&
                max_sets <= (std::uint32_t{1} << 31),
            component, "max_sets", max_sets, "must be a power of two in min_sets .. 2^31");
    require(max_ways >= 1 && max_ways <= 1024, component, "max_ways", max_ways,
            "must be in 1 .. 1024");
}

} // namespace memsub::analysis::detail
