// memsub — the `mode_selector` concept and its call protocol: who decides how a compressed cache
// stores the lines it inserts.
//
// A compressed cache offers N storage modes; mode 0 stores lines uncompressed and every other
// mode is a compressor with its latencies and energies (`mode_cost`). A mode selector names the
// mode each inserted line uses and learns from what the cache observes. LATTE-CC
// ([Dissertation] §4.2) picks among none / low latency (BDI) / high capacity (SC²) by the least
// GPU AMAT, crediting the SM's latency tolerance; the baselines are a static mode,
// Adaptive-Hit-Count ([Dissertation] §4.3.7) and Adaptive-CMP ([Adaptive-CMP]). A selector
// never chooses victims and never compresses: the cache (`gpu::compressed_l1`) does both, and
// tells the selector what happened.
//
// Requirements (a type S models `mode_selector` when all hold; each is a concept of its own
// below, `se1_params` … `se5_name`, and `diagnose_mode_selector<S>()` names the broken ones):
//   SE1. `typename S::params` is a default-constructible aggregate of the selector's knobs.
//   SE2. `S(const selection_shape& shape, const typename S::params& p)` builds it for a cache of
//        `shape.sets` sets and `shape.modes.size()` modes; it checks every rule it depends on and
//        may throw `memsub::config_error`, nothing else throws.
//   SE3. `s.insertion_mode(set)` noexcept -> `std::uint32_t` < modes: the mode a line inserted
//        into `set` now is stored with.
//   SE4. `s.on_access(const access_outcome&)` noexcept: what one cache access did (a hit and the
//        mode its block was inserted with, a fill and its mode, a miss that did not fill, a
//        store). This is also the selector's clock: its epochs are counted in accesses.
//   SE5. `s.name()` -> `std::string_view`, a short stable identifier.
// Optional hooks, detected with `requires`:
//   SO1. `s.set_latency_tolerance(cycles)` noexcept — the host's current estimate of the cycles
//        of a hit's latency the SM hides (`latency_tolerance.hpp`). A selector that declares
//        `static constexpr bool needs_latency_tolerance = true` must get one, and a cache built
//        with such a selector and no estimator throws config_error.
//   SO2. `s.set_allowed_modes(mask)` noexcept — bit m set: mode m may be chosen for followers
//        (SC² before its first code book is not). Mode 0 is always allowed.
//   SO3. `static constexpr bool needs_stack_depth = true` and `s.compressed_mode()` — the host
//        fills `access_outcome::stack_depth` and the tag-only fields (Adaptive-CMP's LRU stack
//        depth among the set's tags, "would have fit" judged by the sizes of lines in
//        `compressed_mode()`); others get `no_depth`, which saves the host the work.
//   SO4. `s.storage_bits()` -> `std::uint64_t` — its hardware budget.
//   SO5. `s.decisions()` -> `std::uint64_t` — how many times the follower mode was decided.
//   SO6. `s.eps()` -> `std::uint64_t` — experimental phases completed; the cache reports the
//        access that ends one (`epoch_ended`), when a host refreshes its tolerance estimate.
//
// Call protocol, as `gpu::compressed_l1` performs it:
//   SP1. Every cache access, in order, gets exactly one SE4 call after the cache has looked it
//        up and filled (if it filled). Loads and stores both count for the clock.
//   SP2. SE3 is asked once per filling access, for the set the line goes to, before the line is
//        compressed (so a mode's compressor runs only for lines stored in that mode); the fill's
//        SE4 call reports the mode the line was actually stored with, which differs from SE3's
//        answer when the compressor saved nothing (the line is then stored in mode 0).
//   SP3. A hit's SE4 call carries the mode its block was inserted with (the block's payload,
//        kept for its lifetime) and its effective hit latency in cycles (`hit_latency`: the
//        cache's base hit latency plus Eq. 4.3's decompression latency × (queue position + 1);
//        0 extra for mode 0).
//   SP4. SO1 and SO2 may be called between any two accesses; they take effect at the selector's
//        next decision, never retroactively.
//   SP5. Hooks run in O(modes) or better per access, never allocate, never throw (SE2 aside).
// Labels: testing/contract.hpp lists every family's.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

/// Compression mode selection: the `mode_selector` concept (SE1–SE5, optional hooks SO1–SO6,
/// call protocol SP1–SP5) that decides how a compressed cache stores the lines it inserts, and
/// the selectors (LATTE-CC, Adaptive-Hit-Count, Adaptive-CMP, static).
namespace memsub::selection {

/// The most modes a selector may offer (a 2-bit mode field per tag in [Dissertation] §4.3.3
/// holds 4; 8 leaves room for studies).
inline constexpr std::uint32_t max_modes = 8;

/// What storing a line in one mode costs: its compressor's latencies (cycles) and energies (nJ
/// per line). Mode 0 (uncompressed) costs nothing.
struct mode_cost {
    /// Cycles to compress a line on insertion.
    std::uint32_t compress_cycles = 0;
    /// Cycles to decompress a line on a hit (added to the hit latency; ≥ 1 for a compressed
    /// mode).
    std::uint32_t decompress_cycles = 0;
    /// Energy of one compression, nJ.
    double compress_nj = 0.0;
    /// Energy of one decompression, nJ.
    double decompress_nj = 0.0;
};

/// LATTE-CC's three modes ([Dissertation] §4.3.3): none; BDI, 2 / 2 cycles and 0.192 / 0.056 nJ
/// per compression / decompression; SC², 6 / 14 cycles and 0.42 / 0.336 nJ.
[[nodiscard]] inline std::vector<mode_cost> latte_cc_modes() {
    return {mode_cost{}, mode_cost{2, 2, 0.192, 0.056}, mode_cost{6, 14, 0.42, 0.336}};
}

/// The documented alternative ([Dissertation] §4.3.8): BPC in place of SC², decompressing in 11
/// cycles. Decision: the text gives neither BPC's compression latency nor its energies; memsub
/// uses SC²'s compression latency (6 cycles) and energies, which a study can override.
[[nodiscard]] inline std::vector<mode_cost> latte_cc_bdi_bpc_modes() {
    return {mode_cost{}, mode_cost{2, 2, 0.192, 0.056}, mode_cost{6, 11, 0.42, 0.336}};
}

/// The cache a selector serves (SE2).
struct selection_shape {
    /// Sets of the cache (the selector's sampling space).
    std::uint32_t sets = 32;
    /// The modes, mode 0 first (uncompressed: its cost must be zero).
    std::vector<mode_cost> modes = latte_cc_modes();
    /// Cycles of an L1 miss (the AMAT's miss term; Adaptive-CMP's penalty). [Dissertation]
    /// Table 4.2: the minimum L2 latency, 120 cycles.
    std::uint32_t miss_latency = 120;
    /// The associativity of the same cache uncompressed (Adaptive-CMP's "would have hit
    /// uncompressed" depth): 4 for [Dissertation] Table 4.2's L1D.
    std::uint32_t uncompressed_ways = 4;
    /// Checks the shape (SE2); `component` names the selector.
    void validate(std::string_view component) const {
        require(sets >= 1, component, "sets", sets, "must be >= 1");
        require(modes.size() >= 1 && modes.size() <= max_modes, component, "modes", modes.size(),
                "a selector needs 1..8 modes (mode 0 uncompressed)");
        require(modes[0].compress_cycles == 0 && modes[0].decompress_cycles == 0, component,
                "modes[0]", modes[0].decompress_cycles,
                "mode 0 stores lines uncompressed and must have zero latencies");
        for (std::size_t m = 1; m < modes.size(); ++m)
            require(modes[m].decompress_cycles >= 1, component, "modes[].decompress_cycles",
                    modes[m].decompress_cycles,
                    "a compressed mode needs its decompression latency (>= 1 cycle)");
        require(uncompressed_ways >= 1, component, "uncompressed_ways", uncompressed_ways,
                "must be >= 1");
    }
};

/// "No stack depth reported" (SO3).
inline constexpr std::uint32_t no_depth = std::numeric_limits<std::uint32_t>::max();

/// What one cache access did (SE4).
struct access_outcome {
    /// What kind of access it was and what the cache did with it.
    enum class kind : std::uint8_t {
        hit,  ///< a load found its line; `mode` is the block's insertion mode
        fill, ///< a load missed and its line was inserted in `mode`
        miss, ///< a load missed and nothing was inserted (a bypass)
        store ///< a store (write-evict: the L1 keeps no store data; never trains)
    };
    /// The set the access went to.
    set_index set{};
    /// What happened (`kind`).
    kind what = kind::miss;
    /// hit: the block's insertion mode; fill: the mode the line was stored in.
    std::uint32_t mode = 0;
    /// hit: the effective hit latency in cycles (SP3).
    std::uint32_t hit_latency = 0;
    /// hit: true when the block is stored compressed (fewer segments than the line).
    bool compressed = false;
    /// SO3, hit: the block's LRU stack depth among the set's resident lines (0 = MRU); fill or
    /// miss: the depth of the line's tag-only entry (a recently evicted line's tag), or no_depth.
    std::uint32_t stack_depth = no_depth;
    /// SO3, fill or miss with a tag-only entry: the line would have been resident had every
    /// line above it been stored compressed ([Adaptive-CMP]'s avoidable miss).
    bool fits_if_compressed = false;

    /// A load that hit.
    [[nodiscard]] constexpr bool is_hit() const noexcept { return what == kind::hit; }
    /// A load that missed and inserted its line.
    [[nodiscard]] constexpr bool is_fill() const noexcept { return what == kind::fill; }
    /// Any load (hit, fill or bypassed miss), not a store.
    [[nodiscard]] constexpr bool is_load() const noexcept { return what != kind::store; }
};

/// SE1: `S::params` is a default-constructible aggregate of the selector's knobs.
template <class S>
concept se1_params = std::default_initializable<typename S::params>;

/// SE2: `S(shape, params)` builds the selector for the cache `shape` describes.
template <class S>
concept se2_constructible =
    std::constructible_from<S, const selection_shape&, const typename S::params&>;

/// SE3: `s.insertion_mode(set)` noexcept gives the mode (< modes) a line inserted into `set` uses.
template <class S>
concept se3_insertion_mode = requires(S& s, set_index set) {
    { s.insertion_mode(set) }
    noexcept->std::convertible_to<std::uint32_t>;
};

/// SE4: `s.on_access(outcome)` noexcept learns what one cache access did.
template <class S>
concept se4_on_access = requires(S& s, const access_outcome& o) {
    { s.on_access(o) }
    noexcept;
};

/// SE5: `s.name()` gives a short stable identifier.
template <class S>
concept se5_name = requires(const S& cs) {
    { cs.name() } -> std::convertible_to<std::string_view>;
};

/// A compression mode selector (SE1–SE5): names the storage mode of each line a compressed cache
/// inserts and learns from every access. It never compresses and never chooses victims.
template <class S>
concept mode_selector = se1_params<S> && se2_constructible<S> && se3_insertion_mode<S> &&
    se4_on_access<S> && se5_name<S>;

/// SO1: reads the host's latency tolerance.
template <class S>
concept reads_latency_tolerance = requires(S& s, std::uint32_t cycles) {
    { s.set_latency_tolerance(cycles) }
    noexcept;
};
/// SO1: must be given one (the cache checks it at construction).
template <class S>
concept needs_latency_tolerance = reads_latency_tolerance<S> && requires {
    requires S::needs_latency_tolerance;
};
/// SO2: honours a mask of allowed modes.
template <class S>
concept restricts_modes = requires(S& s, std::uint32_t mask) {
    { s.set_allowed_modes(mask) }
    noexcept;
};
/// SO3: needs the LRU stack depth of every access.
template <class S>
concept needs_stack_depth = requires(const S& s) {
    requires S::needs_stack_depth;
    { s.compressed_mode() } -> std::convertible_to<std::uint32_t>;
};
/// SO4: reports its hardware budget.
template <class S>
concept reports_storage = requires(const S& s) {
    { s.storage_bits() } -> std::convertible_to<std::uint64_t>;
};
/// SO5: counts its decisions.
template <class S>
concept counts_decisions = requires(const S& s) {
    { s.decisions() } -> std::convertible_to<std::uint64_t>;
};

/// SO6: counts its experimental phases.
template <class S>
concept counts_epochs = requires(const S& s) {
    { s.eps() } -> std::convertible_to<std::uint64_t>;
};

/// Passes the host's latency-tolerance estimate to a selector that reads it (SO1); does nothing
/// otherwise.
template <class S>
void notify_tolerance(S& s, std::uint32_t cycles) noexcept {
    if constexpr (reads_latency_tolerance<S>) s.set_latency_tolerance(cycles);
}
/// Passes the mask of allowed modes to a selector that honours one (SO2); does nothing
/// otherwise.
template <class S>
void notify_allowed_modes(S& s, std::uint32_t mask) noexcept {
    if constexpr (restricts_modes<S>) s.set_allowed_modes(mask);
}
/// The selector's hardware budget in bits (SO4), or 0 when it does not report one.
template <class S>
[[nodiscard]] std::uint64_t storage_bits_of(const S& s) noexcept {
    if constexpr (reports_storage<S>)
        return s.storage_bits();
    else
        return 0;
}
/// How many times the selector decided the follower mode (SO5), or 0 when it does not count.
template <class S>
[[nodiscard]] std::uint64_t decisions_of(const S& s) noexcept {
    if constexpr (counts_decisions<S>)
        return s.decisions();
    else
        return 0;
}

/// Fails to compile with one message per broken requirement (SE1–SE5).
template <class S>
consteval bool diagnose_mode_selector() {
    static_assert(se1_params<S>, "SE1: S::params must be a default-constructible aggregate");
    static_assert(se2_constructible<S>, "SE2: S must be constructible from (const "
                                        "selection_shape&, const S::params&)");
    static_assert(se3_insertion_mode<S>, "SE3: s.insertion_mode(set_index) must exist, be "
                                         "noexcept and return std::uint32_t");
    static_assert(se4_on_access<S>,
                  "SE4: s.on_access(const access_outcome&) must exist and be noexcept");
    static_assert(se5_name<S>, "SE5: s.name() const must return something convertible to "
                               "std::string_view");
    return mode_selector<S>;
}

} // namespace memsub::selection
