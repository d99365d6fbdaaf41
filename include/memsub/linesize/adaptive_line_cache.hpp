// memsub — `linesize::adaptive_line_cache`: a variable-block cache whose misses insert blocks of
// the size a line-size predictor chooses (ALSI, a static size), with an optional bypass
// predictor — ID-Cache is `adaptive_line_cache<lru, alsi, write_evict, …, pc_divergence>`
// ([Dissertation] §3.2.5, Algorithm 5: "if Bypass … access.bypass = TRUE; else … access.line_size =
// LineSizeDecision").
//
// It is `cache::variable_block_cache` with the predictor as the engine's line-size part; the
// engine performs the line-size protocol LP1–LP5 (linesize/concept.hpp). What the engine does
// with the size (docs/mechanisms/id_cache.md, 'Cache organisation'): a hit needs every requested
// segment resident; a partial miss consults the bypass predictor as a miss and fetches only the
// missing aligned blocks of the predicted size, never re-fetching resident bytes; insertion needs
// a free tag and enough free segments, and the replacement policy evicts blocks until both exist.
// Deviation from Amoeba-Cache (the dissertation's organisation), documented by the engine: tags
// have their own store (one per possible segment-sized block by default) and do not consume
// data capacity; a set is assumed compacted, so there is no fragmentation.
#pragma once

#include <cstdint>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/never.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/linesize/concept.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::linesize {

/// The engine's block shape for the size `s` chooses for `a` (LS3, LP2, LP3): what a host that
/// drives a variable-block cache itself — a `cache::hierarchy` level 0 — passes with the access.
/// One predictor may serve several caches only if it keeps no per-cache state (ALSI, static).
template <line_size_predictor Sizer>
[[nodiscard]] cache::block_spec block_spec_for(Sizer& s, set_index set, const memsub::access& a,
                                               const geometry& g) noexcept {
    const std::uint32_t bytes = s.block_bytes(set, a);
    MEMSUB_ASSERT(valid_block_bytes(g, bytes));
    const std::uint32_t span = bytes >> log2_exact(g.segment_size());
    return cache::block_spec{span, span, 0};
}

/// The variable-block cache with `Sizer` as its line-size part: the engine asks the predictor
/// for the block size whenever the access stores data (LP1–LP5), tells it of every departure,
/// and counts its storage. An alias, not a wrapper: line size composes into the engine as the
/// bypass predictor and the replacement policy do (cache/basic_cache.hpp, 'Composition').
template <replacement::replacement_policy Policy, line_size_predictor Sizer,
          cache::write_policy Writes = cache::write_policy::write_back,
          geometry_like Geometry = geometry, bypass::bypass_predictor Bypass = bypass::never,
          std::uint32_t MaxBlockSegments = 4>
using adaptive_line_cache =
    cache::variable_block_cache<Policy, MaxBlockSegments, Writes, Geometry, Bypass, Sizer>;

} // namespace memsub::linesize
