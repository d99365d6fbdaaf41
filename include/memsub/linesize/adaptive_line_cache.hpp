// memsub — `linesize::adaptive_line_cache`: a variable-block cache whose misses insert blocks of
// the size a line-size predictor chooses (ALSI, a static size), with an optional bypass
// predictor — ID-Cache is `adaptive_line_cache<lru, alsi, write_evict, …, pc_divergence>`
// ([Dissertation] §3.2.5, Algorithm 5: "if Bypass … access.bypass = TRUE; else … access.line_size =
// LineSizeDecision").
//
// It owns a `cache::variable_block_cache` and performs the line-size protocol LP1–LP5
// (linesize/concept.hpp): per access, ask the predictor for the block size, then
// `access(a, block_spec{span, span})`. The engine does the rest (docs/mechanisms/id_cache.md,
// 'Cache organisation'): a hit needs every requested segment resident; a
// partial miss consults the bypass predictor as a miss and fetches only the missing aligned
// blocks of the predicted size, never re-fetching resident bytes; insertion needs a free tag
// and enough free segments, and the replacement policy evicts blocks until both exist.
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

template <replacement::replacement_policy Policy, line_size_predictor Sizer,
          cache::write_policy Writes = cache::write_policy::write_back,
          geometry_like Geometry = geometry, bypass::bypass_predictor Bypass = bypass::never,
          std::uint32_t MaxBlockSegments = 4>
class adaptive_line_cache {
public:
    using cache_type =
        cache::variable_block_cache<Policy, MaxBlockSegments, Writes, Geometry, Bypass>;
    using result_type = typename cache_type::result_type;
    using sizer_type = Sizer;
    using sizer_params = typename Sizer::params;
    using policy_params = typename Policy::params;
    using bypass_params = typename Bypass::params;

    /// Throws `config_error` for a bad geometry or params (the cache's, the predictor's).
    explicit adaptive_line_cache(const Geometry& g = Geometry{}, const sizer_params& sizer = {},
                                 const policy_params& policy = {}, const bypass_params& bypass = {})
        : cache_(g, policy, bypass)
        , sizer_(static_cast<geometry>(g), sizer) {}

    /// One access (LP1–LP4): the predictor's block size, then the engine.
    result_type access(const memsub::access& a) noexcept {
        const result_type r =
            cache_.access(a, block_spec_for(sizer_, cache_.set_of(a.address), a,
                                            static_cast<geometry>(cache_.shape()))); // LP1-LP3
        if constexpr (observes_evictions<Sizer>)
            for (const auto& e : r.evictions) sizer_.on_evict(e.set, e.entry, e); // LP4
        return r;
    }

    [[nodiscard]] const cache::cache_stats& stats() const noexcept { return cache_.stats(); }
    void reset_stats() noexcept { cache_.reset_stats(); }
    [[nodiscard]] cache_type& underlying() noexcept { return cache_; }
    [[nodiscard]] const cache_type& underlying() const noexcept { return cache_; }
    [[nodiscard]] Sizer& sizer() noexcept { return sizer_; }
    [[nodiscard]] const Sizer& sizer() const noexcept { return sizer_; }
    [[nodiscard]] Bypass& bypass_predictor() noexcept { return cache_.bypass_predictor(); }
    [[nodiscard]] const Bypass& bypass_predictor() const noexcept {
        return cache_.bypass_predictor();
    }

    /// The cache's tag store, policy and bypass bits (cache_type::storage_bits) plus the
    /// line-size predictor's (LO2).
    [[nodiscard]] std::uint64_t storage_bits(std::uint32_t address_bits = 48) const noexcept {
        return cache_.storage_bits(address_bits) + storage_bits_of(sizer_);
    }

private:
    cache_type cache_;
    [[no_unique_address]] Sizer sizer_;
};

} // namespace memsub::linesize
