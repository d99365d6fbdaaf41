// memsub — `gpu::baseline_l1`: the GPU L1 data cache of Table 3.1 ([Dissertation], ID-Cache's
// baseline; docs/mechanisms/id_cache.md, 'Reference GPU'): "L1 Data Cache 16KB per SM
// (32-sets/4-ways), LRU", 128 B lines, write-evict (Fermi's L1 does not keep global stores: a store
// invalidates the line it touches and goes to L2; store misses do not allocate).
#pragma once

#include <cstdint>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/never.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/replacement/lru.hpp>

namespace memsub::gpu {

/// Table 3.1's L1D shape: 32 sets × 4 ways × 128 B = 16 KB.
using l1_geometry = fixed_geometry<32, 4, 128>;
static_assert(l1_geometry::capacity_bytes() == 16 * 1024);

/// The baseline L1: conventional, LRU, write-evict; `Bypass` lets a PC-only / PC+Div bypass
/// predictor run on the fixed 128 B line (`baseline_l1<bypass::pc_only>`).
template <bypass::bypass_predictor Bypass = bypass::never>
using baseline_l1_with =
    cache::set_associative_cache<replacement::lru, cache::write_policy::write_evict, l1_geometry,
                                 Bypass>;
using baseline_l1 = baseline_l1_with<>;

} // namespace memsub::gpu
