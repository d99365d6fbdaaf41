// memsub — `gpu::id_cache`: ID-Cache = PC+Div bypass + ALSI on a variable-block GPU L1
// ([Dissertation] §3.2.5, Algorithm 5; docs/mechanisms/id_cache.md, 'ID-Cache'): on a miss the
// PC+Div predictor decides whether to insert; inserted blocks take the ALSI size (128 / 64 / 32 B
// by the divergence degree).
//
// Organisation (spec, "Cache organisation for variable line sizes"): the Table 3.1 data budget
// — 32 sets × 4 ways × 128 B = 16 KB, i.e. 16 segments of 32 B per set — with 16 tag entries
// per set (one per possible 32 B block), LRU over blocks, write-evict as the baseline L1.
// Deviation from Amoeba-Cache: tags do not consume data capacity (linesize/adaptive_line_cache).
// `variable_line_l1<Sizer, Bypass>` gives the comparison points on the same organisation:
// ALSI alone, static 32 / 64 / 128 B lines, with or without a bypass predictor.
#pragma once

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/never.hpp>
#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/linesize/adaptive_line_cache.hpp>
#include <memsub/linesize/alsi.hpp>
#include <memsub/linesize/concept.hpp>
#include <memsub/replacement/lru.hpp>

namespace memsub::gpu {

/// Table 3.1's L1D data budget in 32 B segments, with one tag per possible 32 B block.
using variable_l1_geometry = fixed_geometry<32, 4, 128, 32, 16>;
static_assert(variable_l1_geometry::capacity_bytes() == 16 * 1024);

template <linesize::line_size_predictor Sizer, bypass::bypass_predictor Bypass = bypass::never>
using variable_line_l1 =
    linesize::adaptive_line_cache<replacement::lru, Sizer, cache::write_policy::write_evict,
                                  variable_l1_geometry, Bypass, 4>;

/// ID-Cache (Algorithm 5).
using id_cache = variable_line_l1<linesize::alsi, bypass::pc_divergence>;

} // namespace memsub::gpu
