// memsub — set dueling: a generic combinator that picks, per set, one of two behaviours of a
// "dual" policy by a saturating policy-selection counter (PSEL) trained in leader sets.
//
// Citation: Qureshi, Jaleel, Patt, Steely, Emer, "Adaptive Insertion Policies for High
// Performance Caching" (DIP), ISCA 2007, §5 (set dueling, complement-select leader sets, PSEL);
// RRIP ISCA 2010 §4.3 / §6.7 (DRRIP, 10-bit PSEL) and §4.5 (thread-aware dueling, TA-DRRIP).
//
// Why a "dual" policy and not two policies: DRRIP's SRRIP and BRRIP share ONE RRPV array and
// differ only in insertion, so "two independent policies each keeping its own state" would not be
// DRRIP. A `dueling_candidate` is one policy whose hooks take the side (0 or 1) that applies to
// the set; it decides what the side changes (insertion only for RRIP). `dual_of<A, B>`
// (dual_of.hpp) turns any two independent replacement policies into a dual one.
//
// Rules (docs/mechanisms/remap.md, 'RRIP family'); the leader sets and the PSEL live in
// core/set_sampler.hpp
// (`set_sampler<psel_rule>` with 2 candidates, the sides), this class adds the dual policy and
// the cost of a miss:
//  * Leader sets: side-0 leaders always use side 0, side-1 leaders side 1; followers use the
//    MSB of PSEL (0 → side 0, 1 → side 1). PSEL starts at 0 and saturates at 0 and 2^bits − 1.
//  * A miss (O1) in a side-0 leader adds its cost to PSEL, in a side-1 leader subtracts it.
//    Hits never move PSEL. The cost is the `Cost` functor's: 1 per miss for DRRIP
//    (`unit_miss_cost`); a memory access cost for ReMAP (`hinted_miss_cost` or a functor that
//    reads the dual policy's own estimate, computed only for leader-set misses, after the dual
//    policy's on_miss).
//  * Leader choice: DIP's complement-select by default — N sets, K leaders per side, region
//    r = N/K, constituency c = s / r, offset o = s mod r; s leads side 0 iff o == c and side 1 iff
//    o == r − 1 − c (needs N ≥ K²). Or an explicit leader list (small caches, tests).
//  * Decision: `leaders_per_side = 0` (the default) means automatic: 32 (DIP's value) when
//    N ≥ 1024, otherwise the largest power of two K with K² ≤ N, so default-constructed dueling
//    policies work on small caches; a K set explicitly that does not fit throws config_error.
//  * Thread-aware dueling (`requesters` > 1, [RRIP] §4.5 / [TADIP]; Decision: disjoint leaders):
//    each requester t has its own PSEL_t and its own K + K leader sets, disjoint from every other
//    requester's. Requester t's complement-select offsets are shifted by 2t (side 0: o == (c + 2t)
//    mod r; side 1: o == (r − 1 − c − 2t) mod r); overlaps throw config_error. In t's leader sets
//    only t's accesses are forced to the leader's side and only t's misses move PSEL_t; everywhere
//    else an access follows its own requester's PSEL. Requester ids ≥ `requesters` are treated as
//    requester 0.
// Config errors name this class's params (`leaders_per_side`, `leaders[].side`, `psel_bits`, …).
// Storage: the dual policy's bits plus `requesters` × PSEL width (leader identification is
// combinational in DIP's complement-select, so it costs no state; an explicit list's per-set tag
// is not counted, see set_sampler.hpp).
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/set_sampler.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

/// A policy with two behaviours ("sides") over one state. Requirements mirror R1–R7 with the
/// side (0 or 1) passed to the hooks that may differ between the behaviours:
///   D1. `typename D::params` default-constructible; D2. `D(const geometry&, const params&)`;
///   D3. `on_hit(s, e, a, side)`, D4. `on_insert(s, e, a, side)` or the size-aware
///   `on_insert(s, e, a, insert_info, side)`, D5. `on_evict(s, e, info)`, D6.
///   `victim(s, eligible, a, side)` or the size-aware `victim(s, eligible, a, room_request,
///   side)` -> entry_index, all noexcept; D7. `name()`. set_dueling calls the richest form
///   (as the engine does for R4/R6).
/// Optional: `on_miss(s, a, side)`, `should_bypass(s, a, side)` (noexcept), `storage_bits()`.
/// D4, the size-aware form: `on_insert(s, e, a, insert_info, side)` noexcept.
template <class D>
concept dual_sized_on_insert = requires(D& d, set_index s, entry_index e, const access& a,
                                        const insert_info& i, std::uint32_t side) {
    { d.on_insert(s, e, a, i, side) }
    noexcept;
};
/// D6, the size-aware form: `victim(s, eligible, a, room_request, side)` noexcept.
template <class D>
concept dual_sized_victim = requires(D& d, set_index s, entry_mask m, const access& a,
                                     const room_request& r, std::uint32_t side) {
    { d.victim(s, m, a, r, side) }
    noexcept->std::same_as<entry_index>;
};

// One concept per requirement (labels: testing/contract.hpp); `diagnose_dueling_candidate<D>()`
// names the broken ones.
/// D1: `D::params` is default-constructible.
template <class D>
concept d1_params = std::default_initializable<typename D::params>;
/// D2: `D(geometry, params)` builds the dual policy for a cache of that shape.
template <class D>
concept d2_constructible = std::constructible_from<D, const geometry&, const typename D::params&>;
/// D3: `d.on_hit(s, e, a, side)` noexcept: R3 under the side in force in the set.
template <class D>
concept d3_on_hit = requires(D& d, set_index s, entry_index e, const access& a,
                             std::uint32_t side) {
    { d.on_hit(s, e, a, side) }
    noexcept;
};
/// D4: `d.on_insert` noexcept, plain or size-aware, with the side: R4 under that side.
template <class D>
concept d4_on_insert = dual_sized_on_insert<D> ||
    requires(D& d, set_index s, entry_index e, const access& a, std::uint32_t side) {
    { d.on_insert(s, e, a, side) }
    noexcept;
};
/// D5: `d.on_evict(s, e, block)` noexcept: R5; a departure is the same whatever the side.
template <class D>
concept d5_on_evict = requires(D& d, set_index s, entry_index e, const evicted_block& info) {
    { d.on_evict(s, e, info) }
    noexcept;
};
/// D6: `d.victim` noexcept, plain or size-aware, with the side: R6 under that side.
template <class D>
concept d6_victim = dual_sized_victim<D> ||
    requires(D& d, set_index s, entry_mask m, const access& a, std::uint32_t side) {
    { d.victim(s, m, a, side) }
    noexcept->std::same_as<entry_index>;
};
/// D7: `d.name()` gives a short stable identifier (set_dueling reports it as its own).
template <class D>
concept d7_name = requires(const D& d) {
    { d.name() } -> std::convertible_to<std::string_view>;
};

/// A dual policy set_dueling can drive (D1–D7): one state, two behaviours ("sides") selected per
/// call by the side passed to its hooks.
template <class D>
concept dueling_candidate = d1_params<D> && d2_constructible<D> && d3_on_hit<D> &&
    d4_on_insert<D> && d5_on_evict<D> && d6_victim<D> && d7_name<D>;

/// Fails to compile with one message per broken requirement (D1–D7).
template <class D>
consteval bool diagnose_dueling_candidate() {
    static_assert(d1_params<D>, "D1: D::params must be default-constructible");
    static_assert(d2_constructible<D>, "D2: D must be constructible from (const geometry&, "
                                       "const D::params&)");
    static_assert(d3_on_hit<D>, "D3: d.on_hit(set, entry, access, side) must be noexcept");
    static_assert(d4_on_insert<D>, "D4: d.on_insert(set, entry, access, side) or the size-aware "
                                   "on_insert(set, entry, access, insert_info, side) must be "
                                   "noexcept");
    static_assert(d5_on_evict<D>, "D5: d.on_evict(set, entry, evicted_block) must be noexcept");
    static_assert(d6_victim<D>, "D6: d.victim(set, eligible, access, side) or the size-aware "
                                "victim(set, eligible, access, room_request, side) must be "
                                "noexcept and return entry_index");
    static_assert(d7_name<D>, "D7: d.name() const must return something convertible to "
                              "std::string_view");
    return dueling_candidate<D>;
}

/// Optional: `d.on_miss(s, a, side)` noexcept (O1 with the side); set_dueling forwards misses.
template <class D>
concept dual_observes_misses = requires(D& d, set_index s, const access& a, std::uint32_t side) {
    { d.on_miss(s, a, side) }
    noexcept;
};

/// Optional: `d.should_bypass(s, a, side)` noexcept (O3 with the side); set_dueling then offers
/// `should_bypass` too.
template <class D>
concept dual_may_bypass = requires(D& d, set_index s, const access& a, std::uint32_t side) {
    { d.should_bypass(s, a, side) }
    noexcept->std::convertible_to<bool>;
};

/// The cost of one leader-set miss is 1 (DIP, DRRIP).
struct unit_miss_cost {
    /// 1, whatever the access: PSEL counts misses.
    [[nodiscard]] constexpr std::uint32_t operator()(const access&) const noexcept { return 1; }
};

/// The host's cost of the miss: `hints.miss_cost_cycles` when known, else
/// `hints.memory_cost_class + 1` when known, else 1 (ReMAP's PSEL update, [Dissertation] §2.2.4).
struct hinted_miss_cost {
    /// The cost of `a`'s miss from its host hints, ≥ 1.
    [[nodiscard]] constexpr std::uint32_t operator()(const access& a) const noexcept {
        if (a.hints.miss_cost_cycles != 0) return a.hints.miss_cost_cycles;
        if (a.hints.memory_cost_class != host_hints::unknown_class)
            return std::uint32_t{a.hints.memory_cost_class} + 1u;
        return 1;
    }
};

/// A miss-cost functor: called as `cost(dual, set, access)` (to read the dual policy's own
/// estimate, e.g. ReMAP's MAC class, computed in its on_miss) or `cost(access)`.
template <class C, class D>
concept miss_cost_for = std::default_initializable<C> &&(
    requires(const C& c, const D& d, set_index s, const access& a) {
        { c(d, s, a) }
        noexcept->std::convertible_to<std::uint32_t>;
    } ||
    requires(const C& c, const access& a) {
        { c(a) }
        noexcept->std::convertible_to<std::uint32_t>;
    });

/// One explicit leader set.
struct dueling_leader {
    /// The set index (< sets); each set leads for at most one (side, requester).
    std::uint32_t set = 0;
    /// 0 or 1: the side this set always uses (for its requester).
    std::uint32_t side = 0;
    /// The requester whose PSEL it trains (thread-aware dueling); 0 otherwise.
    std::uint32_t requester = 0;
};

/// Set dueling (DIP §5, DRRIP, TA-DRRIP, ReMAP's cost-based dueling): a replacement policy
/// (R1–R7) that runs the dual policy `Dual` under side 0 or side 1 per set and access, as
/// leader sets and a PSEL per requester decide (see the header comment). `Cost` weighs each
/// leader-set miss (`unit_miss_cost` by default). Hooks are O(1) besides the dual's, never
/// allocate and never throw.
template <dueling_candidate Dual, miss_cost_for<Dual> Cost = unit_miss_cost>
class set_dueling {
public:
    /// `leaders_per_side` value asking for the automatic K.
    static constexpr std::uint32_t auto_leaders = leader_sets::auto_leaders;
    /// The leader sets and PSELs: a set sampler with two candidates, the sides.
    using sampler_type = set_sampler<psel_rule>;

    /// The knobs (R1): the dual policy's, the leader placement, the PSEL width and the cost.
    struct params {
        /// The dual policy's own knobs.
        typename Dual::params policy{};
        /// K leader sets per side (per requester); 0 = automatic (see set_sampler.hpp).
        std::uint32_t leaders_per_side = auto_leaders;
        /// PSEL width, 1..31 (10 in DRRIP).
        std::uint32_t psel_bits = 10;
        /// Requesters with their own PSEL and leader sets (1 = plain set dueling).
        std::uint32_t requesters = 1;
        /// Explicit leader sets; empty = complement-select with `leaders_per_side`.
        std::vector<dueling_leader> leaders{};
        /// The miss-cost functor (stateless for DRRIP and ReMAP).
        Cost cost{};

        /// The fields text can set (core/param_text.hpp): the dual policy's own, unprefixed,
        /// then the dueling knobs. Explicit `leaders` and the cost functor are not text.
        template <class V>
        friend void describe_params(V& v, params& p) {
            v("", p.policy);
            v("leaders_per_side", p.leaders_per_side);
            v("psel_bits", p.psel_bits);
            v("requesters", p.requesters);
        }
    };

    /// With default params.
    explicit set_dueling(const geometry& g) : set_dueling(g, params{}) {}
    /// R2: builds the dual policy and places the leader sets. Throws `config_error` naming this
    /// class's params (`leaders_per_side`, `leaders[].side`, `psel_bits`, …) when they do not fit
    /// the geometry.
    set_dueling(const geometry& g, const params& p)
        : dual_(g, p.policy)
        , cost_(p.cost)
        , sampler_(g.sets, placement(p), psel_rule::params{.psel_bits = p.psel_bits}, names) {}

    /// R7: the dual policy's name.
    [[nodiscard]] std::string_view name() const noexcept { return dual_.name(); }

    /// R3: the dual policy's on_hit under the side in force.
    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        dual_.on_hit(s, e, a, side_of(s, a.requester));
    }

    /// O1: the dual policy's on_miss (when it has one), then the miss's cost moves the PSEL of
    /// the access's requester when `s` is one of its leader sets.
    void on_miss(set_index s, const access& a) noexcept {
        if constexpr (dual_observes_misses<Dual>) dual_.on_miss(s, a, side_of(s, a.requester));
        // After the dual's on_miss, so a cost functor may read what it computed (ReMAP's MAC).
        sampler_.on_miss(s, a.requester, [&]() noexcept { return cost_of(s, a); });
    }

    // R4 and R6 in their size-aware forms, forwarded in the dual policy's richest form (D4, D6).
    /// R4: the dual policy's on_insert under the side in force.
    void on_insert(set_index s, entry_index e, const access& a, const insert_info& info) noexcept {
        const std::uint32_t side = side_of(s, a.requester);
        if constexpr (dual_sized_on_insert<Dual>)
            dual_.on_insert(s, e, a, info, side);
        else
            dual_.on_insert(s, e, a, side);
    }
    /// R5: the dual policy's on_evict.
    void on_evict(set_index s, entry_index e, const evicted_block& info) noexcept {
        dual_.on_evict(s, e, info);
    }
    /// R6: the dual policy's victim under the side in force.
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access& a,
                                     const room_request& need) noexcept {
        const std::uint32_t side = side_of(s, a.requester);
        if constexpr (dual_sized_victim<Dual>)
            return dual_.victim(s, eligible, a, need, side);
        else
            return dual_.victim(s, eligible, a, side);
    }

    // Deprecated aliases, kept for one release (CHANGELOG "Host interface"): the R4 / R6 forms
    // hosts called before the size-aware hooks, for a whole-line block (one entry, one
    // segment, size unknown). Hosts call notify_insert / choose_victim (concept.hpp) instead.
    [[deprecated("call memsub::replacement::notify_insert(policy, set, entry, access, "
                 "insert_info)")]] void
    on_insert(set_index s, entry_index e, const access& a) noexcept {
        on_insert(s, e, a, insert_info{.address = a.address, .bytes = 0, .stored_segments = 1});
    }
    [[deprecated("call memsub::replacement::choose_victim(policy, set, eligible, access, "
                 "room_request)")]] [[nodiscard]] entry_index
    victim(set_index s, entry_mask eligible, const access& a) noexcept {
        return victim(s, eligible, a, room_request{.entries_needed = 1, .incoming_segments = 1});
    }

    /// O3, when the dual policy may bypass: its decision under the side in force.
    [[nodiscard]] bool should_bypass(set_index s,
                                     const access& a) noexcept requires dual_may_bypass<Dual> {
        return dual_.should_bypass(s, a, side_of(s, a.requester));
    }

    // ------------------------------------------------------------ introspection

    /// The side (0 or 1) an access of `requester` uses in set `s` now.
    [[nodiscard]] std::uint32_t side_of(set_index s, std::uint32_t requester = 0) const noexcept {
        return sampler_.candidate_of(s, requester);
    }
    /// 0 = follower, 1 = side-0 leader, 2 = side-1 leader (of `leader_owner(s)`).
    [[nodiscard]] std::uint32_t leader_role(set_index s) const noexcept {
        const set_role r = sampler_.role(s);
        return r.is_leader() ? r.candidate + 1u : 0u;
    }
    /// The requester whose leader set `s` is (0 for a follower).
    [[nodiscard]] std::uint32_t leader_owner(set_index s) const noexcept {
        return sampler_.role(s).requester;
    }
    /// `requester`'s PSEL value, 0 … psel_max() (ids ≥ requesters() read requester 0's).
    [[nodiscard]] std::uint32_t psel(std::uint32_t requester = 0) const noexcept {
        return sampler_.rule().psel(sampler_.leaders().requester_of(requester));
    }
    /// The PSEL saturation value, 2^psel_bits − 1.
    [[nodiscard]] std::uint32_t psel_max() const noexcept { return sampler_.rule().psel_max(); }
    /// The requesters with a PSEL and leader sets of their own.
    [[nodiscard]] std::uint32_t requesters() const noexcept { return sampler_.requesters(); }
    /// The dual policy (its own introspection, e.g. RRPVs).
    [[nodiscard]] Dual& dual() noexcept { return dual_; }
    /// The dual policy, read-only.
    [[nodiscard]] const Dual& dual() const noexcept { return dual_; }
    /// The leader sets and PSELs (core/set_sampler.hpp).
    [[nodiscard]] const sampler_type& sampler() const noexcept { return sampler_; }

    /// O2: the dual policy's bits (0 if it reports none) plus requesters × psel_bits.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return storage_bits_of_dual() + sampler_.storage_bits();
    }

private:
    // Config errors name set_dueling's own params.
    static constexpr sampler_names names{.component = "memsub::replacement::set_dueling",
                                         .sets = "geometry.sets",
                                         .candidates = "candidates",
                                         .leaders_per_candidate = "leaders_per_side",
                                         .requesters = "requesters",
                                         .leaders = "leaders",
                                         .leader_set = "leaders[].set",
                                         .leader_candidate = "leaders[].side",
                                         .leader_requester = "leaders[].requester"};

    static leader_placement placement(const params& p) {
        leader_placement lp{.candidates = 2,
                            .leaders_per_candidate = p.leaders_per_side,
                            .requesters = p.requesters,
                            .leaders = {}};
        lp.leaders.reserve(p.leaders.size());
        for (const auto& l : p.leaders)
            lp.leaders.push_back({.set = l.set, .candidate = l.side, .requester = l.requester});
        return lp;
    }

    [[nodiscard]] std::uint64_t storage_bits_of_dual() const noexcept {
        if constexpr (requires(const Dual& d) {
                          { d.storage_bits() } -> std::convertible_to<std::uint64_t>;
                      })
            return dual_.storage_bits();
        else
            return 0;
    }

    [[nodiscard]] std::uint64_t cost_of(set_index s, const access& a) const noexcept {
        if constexpr (requires(const Cost& c) {
                          { c(dual_, s, a) }
                          noexcept->std::convertible_to<std::uint32_t>;
                      })
            return cost_(dual_, s, a);
        else
            return cost_(a);
    }

    Dual dual_;
    [[no_unique_address]] Cost cost_;
    sampler_type sampler_;
};

} // namespace memsub::replacement
