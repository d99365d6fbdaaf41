// memsub — the `line_size_predictor` concept and its call protocol.
//
// A line-size predictor chooses, for each access, the size of the blocks a miss inserts into a
// variable-block cache (docs/design.md, 'The set engine': blocks are aligned power-of-two spans of
// a line): ID-Cache's ALSI ([Dissertation] §3.2.4, Algorithm 4) picks 128, 64 or 32 B from the
// warp's divergence degree; a static line size always answers the same. It never chooses victims
// and never decides whether to insert (the replacement policy and the bypass predictor do that).
// A cache takes one as its line-size part (`cache::basic_cache`'s `Sizer` parameter, as it takes
// a bypass predictor; `linesize::adaptive_line_cache` names that cache, `linesize::whole_line` is
// the default part that always answers the whole line).
//
// Requirements (a type S models `line_size_predictor` when all hold; each is a concept of its
// own below, `ls1_params` … `ls4_name`, and `diagnose_line_size_predictor<S>()` names the broken
// ones):
//   LS1. `typename S::params` is a default-constructible aggregate of the predictor's knobs.
//   LS2. `S(const geometry& g, const typename S::params& p)` constructs it for a cache of shape
//        `g` and checks every size it can answer against `g` (LP2); it may throw
//        `memsub::config_error`, nothing else throws.
//   LS3. `s.block_bytes(set, access)` noexcept -> `std::uint32_t`: the bytes of each block a
//        (partial) miss of `access` inserts.
//   LS4. `s.name()` -> `std::string_view`, a short stable identifier.
// Optional hooks, detected with `requires`:
//   LO1. `s.on_evict(set, entry, block)` noexcept — a block left the cache (`evicted_block`:
//        its bytes, touched_segments, reason); a predictor that learns from spatial utilisation
//        uses it. Called for every departure the cache reports, whatever the reason.
//   LO2. `s.storage_bits()` -> `std::uint64_t` — its hardware budget.
//
// Call protocol, as the cache engine performs it (cache/basic_cache.hpp, 'Composition'):
//   LP1. LS3 is asked only when the access stores data: once when it fills (after the host,
//        the write rule and the bypass predictor admitted the miss; every block the access
//        inserts takes that size) and once when a store hit may resize (write-back and
//        write-through caches). Never on a load hit or a bypassed miss, so LS3 must not count
//        accesses or assume it sees all of them.
//   LP2. Every answer is a power of two, a multiple of `g.segment_size()` and at most
//        `g.line_bytes` (LS2 checks the sizes it can give; an answer the cache cannot insert
//        is corrected and counted in `cache_stats::specs_clamped`, as any block spec is).
//   LP3. The answer becomes `cache::block_spec{span, span}` with span = bytes / segment size:
//        blocks are stored uncompressed.
//   LP4. LO1 is called for every block that leaves, whatever the reason (replacement,
//        invalidation, flush, write-evict, supersession), as it leaves, after the replacement
//        policy and the bypass predictor are told.
//   LP5. Hooks run in O(1) (or O(entries per set)), never allocate, never throw.
// Labels: testing/contract.hpp lists every family's.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <string_view>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/evicted_block.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

/// Line-size prediction for variable-block caches: the `line_size_predictor` concept (LS1–LS4,
/// optional hooks LO1–LO2, call protocol LP1–LP5), ALSI, static sizes and
/// `adaptive_line_cache`, which runs one on memsub's variable-block cache.
namespace memsub::linesize {

/// LS1: `S::params` is a default-constructible aggregate of the predictor's knobs.
template <class S>
concept ls1_params = std::default_initializable<typename S::params>;

/// LS2: `S(geometry, params)` builds the predictor and checks every size it can answer against
/// the geometry (LP2).
template <class S>
concept ls2_constructible = std::constructible_from<S, const geometry&, const typename S::params&>;

/// LS3: `s.block_bytes(set, access)` noexcept gives the bytes of each block a (partial) miss of
/// the access inserts; asked once per access, before the lookup (LP1).
template <class S>
concept ls3_block_bytes = requires(S& s, set_index set, const access& a) {
    { s.block_bytes(set, a) }
    noexcept->std::convertible_to<std::uint32_t>;
};

/// LS4: `s.name()` gives a short stable identifier.
template <class S>
concept ls4_name = requires(const S& cs) {
    { cs.name() } -> std::convertible_to<std::string_view>;
};

/// A line-size predictor (LS1–LS4): chooses the size of the blocks a miss inserts into a
/// variable-block cache. It never chooses victims and never decides whether to insert.
template <class S>
concept line_size_predictor =
    ls1_params<S> && ls2_constructible<S> && ls3_block_bytes<S> && ls4_name<S>;

/// LO1: learns from departing blocks.
template <class S>
concept observes_evictions = requires(S& s, set_index set, entry_index e, const evicted_block& b) {
    { s.on_evict(set, e, b) }
    noexcept;
};
/// LO2: reports its hardware budget.
template <class S>
concept reports_storage = requires(const S& s) {
    { s.storage_bits() } -> std::convertible_to<std::uint64_t>;
};

/// Calls LO1 (`on_evict`) when `S` has it; does nothing otherwise.
template <class S>
void notify_evict(S& s, set_index set, entry_index e, const evicted_block& b) noexcept {
    if constexpr (observes_evictions<S>) s.on_evict(set, e, b);
}
/// The predictor's hardware budget in bits (LO2), or 0 when it does not report one.
template <class S>
[[nodiscard]] std::uint64_t storage_bits_of(const S& s) noexcept {
    if constexpr (reports_storage<S>)
        return s.storage_bits();
    else
        return 0;
}

/// LP2: whether `bytes` is a block size a cache of shape `g` can insert.
[[nodiscard]] constexpr bool valid_block_bytes(const geometry& g, std::uint32_t bytes) noexcept {
    return std::has_single_bit(bytes) && bytes >= g.segment_size() && bytes <= g.line_bytes;
}

/// LS2 helper: throws `config_error` unless `bytes` is a valid block size for `g` (LP2).
inline void require_block_bytes(const geometry& g, std::uint32_t bytes, std::string_view component,
                                std::string_view parameter) {
    memsub::require(valid_block_bytes(g, bytes), component, parameter, bytes,
                    "must be a power of two between the segment size and the line size");
}

/// Fails to compile with one message per broken requirement (LS1–LS4).
template <class S>
consteval bool diagnose_line_size_predictor() {
    static_assert(ls1_params<S>, "LS1: S::params must be a default-constructible aggregate");
    static_assert(ls2_constructible<S>,
                  "LS2: S must be constructible from (const geometry&, const S::params&)");
    static_assert(ls3_block_bytes<S>, "LS3: s.block_bytes(set_index, const access&) must exist, "
                                      "be noexcept and return std::uint32_t");
    static_assert(ls4_name<S>, "LS4: s.name() const must return something convertible to "
                               "std::string_view");
    return line_size_predictor<S>;
}

} // namespace memsub::linesize
