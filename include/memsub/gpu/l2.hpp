// memsub — the GPU L2 of Table 3.1 ([Dissertation]; docs/mechanisms/id_cache.md, 'Reference GPU'):
// "L2 Cache 768KB unified cache (64-sets/16-ways/6-banks), LRU", 128 B lines — six banks of 64 sets
// × 16 ways × 128 B = 128 KB, as a `cache::hierarchy` level of six interleaved instances. Decision:
// bank interleaving is not given in the text. The banks are interleaved on 8 KB granules — bank =
// (line / 64) mod 6 — so the bank is chosen by the line-address bits above the 6 set-index bits:
// interleaving on lines (line mod 6) would tie the bank to the set index's low bit (6 and 64 share
// the factor 2) and leave half of each bank's sets unused. Write-back, write-allocate (the L1 above
// is write-evict and sends every store down).
#pragma once

#include <cstdint>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/hierarchy.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/replacement/lru.hpp>

namespace memsub::gpu {

/// One L2 bank: 64 sets × 16 ways × 128 B.
using l2_bank_geometry = fixed_geometry<64, 16, 128>;
using l2_bank = cache::set_associative_cache<replacement::lru, cache::write_policy::write_back,
                                             l2_bank_geometry>;
inline constexpr std::uint32_t l2_banks = 6;
static_assert(l2_bank_geometry::capacity_bytes() * l2_banks == 768 * 1024);

/// The bank router: 8 KB granules (64 lines, one per set) go round-robin over the 6 banks.
inline constexpr cache::route::interleaved l2_bank_router{
    .granule_bytes = l2_bank_geometry::sets * l2_bank_geometry::line_bytes, .slices = l2_banks};

/// The L2 as a hierarchy level (non-inclusive: GPGPU-Sim's L1 and L2 are not inclusive).
[[nodiscard]] inline auto make_l2_level() {
    return cache::make_level<l2_bank, cache::inclusion::non_inclusive, cache::route::interleaved>(
        l2_banks, l2_bank_geometry{}, l2_bank_router);
}

} // namespace memsub::gpu
