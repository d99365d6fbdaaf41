// memsub — a GPU memory side as a `cache::hierarchy`: one private L1 per SM (the Table 3.1
// baseline, a variable-line L1, or ID-Cache's) over the 768 KB six-bank L2 (gpu/l2.hpp): ID-Cache
// behind the L2 of Table 3.1 ([Dissertation] §3.2.5), through the generic hierarchy.
//
// The L1 level holds the engine caches themselves (the hierarchy drives `basic_cache`s): ID-Cache
// or any `variable_line_l1` is such a cache, its line-size and bypass predictors parts of its
// type, so `h.access(a)` carries Algorithm 5's decisions. Table 3.1 has 15 SMs; requester = SM
// index.
#pragma once

#include <cstdint>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/hierarchy.hpp>
#include <memsub/gpu/l2.hpp>

namespace memsub::gpu {

/// SMs of Table 3.1's GTX480.
inline constexpr std::uint32_t table_3_1_sms = 15;

template <cache::level_cache L1>
using l1_l2_hierarchy = cache::hierarchy<
    cache::level<L1, cache::inclusion::non_inclusive, cache::route::private_per>,
    cache::level<l2_bank, cache::inclusion::non_inclusive, cache::route::interleaved>>;

/// `sms` private L1s of type `L1` (requester i → L1 i) over the six-bank L2.
template <cache::level_cache L1>
[[nodiscard]] l1_l2_hierarchy<L1>
make_l1_l2_hierarchy(std::uint32_t sms = table_3_1_sms,
                     const typename L1::bypass_params& l1_bypass = {}) {
    return l1_l2_hierarchy<L1>(
        sms,
        cache::make_level<L1, cache::inclusion::non_inclusive, cache::route::private_per>(
            sms, typename L1::geometry_type{}, cache::route::private_per{1}, {}, l1_bypass),
        make_l2_level());
}

} // namespace memsub::gpu
