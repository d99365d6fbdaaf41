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
// Rules (spec, RRIP family):
//  * Leader sets: side-0 leaders always use side 0, side-1 leaders side 1; followers use the
//    MSB of PSEL (0 → side 0, 1 → side 1). PSEL starts at 0 and saturates at 0 and 2^bits − 1.
//  * A miss (O1) in a side-0 leader adds its cost to PSEL, in a side-1 leader subtracts it.
//    Hits never move PSEL. The cost is the `Cost` functor's: 1 per miss for DRRIP
//    (`unit_miss_cost`); a memory access cost for ReMAP (`hinted_miss_cost` or a functor that
//    reads the dual policy's own estimate).
//  * Leader choice: DIP's complement-select by default — N sets, K leaders per side, region
//    r = N/K, constituency c = s / r, offset o = s mod r; s leads side 0 iff o == c and side 1 iff
//    o == r − 1 − c (needs N ≥ K²). Or an explicit leader list (small caches, tests).
//  * [resolution] `leaders_per_side = 0` (the default) means automatic: 32 (the spec's value) when
//    N ≥ 1024, otherwise the largest power of two K with K² ≤ N, so default-constructed dueling
//    policies work on small caches; a K set explicitly that does not fit throws config_error.
//  * Thread-aware dueling (`requesters` > 1, RRIP §4.5 / TADIP; spec [resolution]): each
//    requester t has its own PSEL_t and its own K + K leader sets, disjoint from every other
//    requester's. Requester t's complement-select offsets are shifted by 2t (side 0: o == (c + 2t)
//    mod r; side 1: o == (r − 1 − c − 2t) mod r); overlaps throw config_error. In t's leader sets
//    only t's accesses are forced to the leader's side and only t's misses move PSEL_t;
//    everywhere else an access follows its own requester's PSEL. Requester ids ≥ `requesters`
//    are treated as requester 0.
// Storage: the dual policy's bits plus `requesters` × PSEL width (leader identification is
// combinational in DIP's complement-select, so it costs no state).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

/// A policy with two behaviours ("sides") over one state. Requirements mirror R1–R7 with the
/// side (0 or 1) passed to the hooks that may differ between the behaviours:
///   D1. `typename D::params` default-constructible; D2. `D(const geometry&, const params&)`;
///   D3. `on_hit(s, e, a, side)`, D4. `on_insert(s, e, a, side)`, D5. `on_evict(s, e, info)`,
///   D6. `victim(s, eligible, a, side)` -> entry_index, all noexcept; D7. `name()`.
/// Optional: `on_miss(s, a, side)`, `should_bypass(s, a, side)` (noexcept), `storage_bits()`.
template <class D>
concept dueling_candidate = std::default_initializable<typename D::params> &&
    std::constructible_from<D, const geometry&, const typename D::params&> &&
    requires(D& d, const D& cd, set_index s, entry_index e, entry_mask m, const access& a,
             const eviction_info& info, std::uint32_t side) {
    { d.on_hit(s, e, a, side) }
    noexcept;
    { d.on_insert(s, e, a, side) }
    noexcept;
    { d.on_evict(s, e, info) }
    noexcept;
    { d.victim(s, m, a, side) }
    noexcept->std::same_as<entry_index>;
    { cd.name() } -> std::convertible_to<std::string_view>;
};

template <class D>
concept dual_observes_misses = requires(D& d, set_index s, const access& a, std::uint32_t side) {
    { d.on_miss(s, a, side) }
    noexcept;
};

template <class D>
concept dual_may_bypass = requires(D& d, set_index s, const access& a, std::uint32_t side) {
    { d.should_bypass(s, a, side) }
    noexcept->std::convertible_to<bool>;
};

/// The cost of one leader-set miss is 1 (DIP, DRRIP).
struct unit_miss_cost {
    [[nodiscard]] constexpr std::uint32_t operator()(const access&) const noexcept { return 1; }
};

/// The host's cost of the miss: `hints.miss_cost_cycles` when known, else
/// `hints.memory_cost_class + 1` when known, else 1 (ReMAP's PSEL update, spec §2.2.4).
struct hinted_miss_cost {
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
    std::uint32_t set = 0;
    /// 0 or 1: the side this set always uses (for its requester).
    std::uint32_t side = 0;
    /// The requester whose PSEL it trains (thread-aware dueling); 0 otherwise.
    std::uint32_t requester = 0;
};

template <dueling_candidate Dual, miss_cost_for<Dual> Cost = unit_miss_cost>
class set_dueling {
public:
    static constexpr std::uint32_t auto_leaders = 0;

    struct params {
        typename Dual::params policy{};
        /// K leader sets per side (per requester); 0 = automatic (see the header comment).
        std::uint32_t leaders_per_side = auto_leaders;
        /// PSEL width, 1..31 (10 in DRRIP).
        std::uint32_t psel_bits = 10;
        /// Requesters with their own PSEL and leader sets (1 = plain set dueling).
        std::uint32_t requesters = 1;
        /// Explicit leader sets; empty = complement-select with `leaders_per_side`.
        std::vector<dueling_leader> leaders{};
        Cost cost{};
    };

    explicit set_dueling(const geometry& g) : set_dueling(g, params{}) {}
    set_dueling(const geometry& g, const params& p)
        : dual_(g, p.policy)
        , cost_(p.cost)
        , psel_bits_(p.psel_bits)
        , psel_max_((validate(g, p), (std::uint32_t{1} << p.psel_bits) - 1u))
        , requesters_(p.requesters)
        , leader_(g.sets, 0)
        , psel_(p.requesters, 0) {
        if (p.leaders.empty())
            complement_select(g.sets, p);
        else
            for (const auto& l : p.leaders) assign(l.set, l.side, l.requester);
    }

    [[nodiscard]] std::string_view name() const noexcept { return dual_.name(); }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        dual_.on_hit(s, e, a, side_of(s, a.requester));
    }

    void on_miss(set_index s, const access& a) noexcept {
        const std::uint32_t t = requester_of(a.requester);
        const std::uint16_t leader = leader_[s.value];
        const std::uint32_t role = leader & 3u;
        if constexpr (dual_observes_misses<Dual>) dual_.on_miss(s, a, side_of(s, a.requester));
        if (role == 0 || (leader >> 2) != t) return; // followers never train PSEL
        const std::uint64_t c = cost_of(s, a);
        std::uint32_t& psel = psel_[t];
        if (role == 1) // side-0 leader missed: evidence against side 0
            psel = static_cast<std::uint32_t>(psel + c < psel_max_ ? psel + c : psel_max_);
        else
            psel = static_cast<std::uint32_t>(psel > c ? psel - c : 0);
    }

    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        dual_.on_insert(s, e, a, side_of(s, a.requester));
    }
    void on_evict(set_index s, entry_index e, const eviction_info& info) noexcept {
        dual_.on_evict(s, e, info);
    }
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access& a) noexcept {
        return dual_.victim(s, eligible, a, side_of(s, a.requester));
    }

    [[nodiscard]] bool should_bypass(set_index s,
                                     const access& a) noexcept requires dual_may_bypass<Dual> {
        return dual_.should_bypass(s, a, side_of(s, a.requester));
    }

    // ------------------------------------------------------------ introspection

    /// The side (0 or 1) an access of `requester` uses in set `s` now.
    [[nodiscard]] std::uint32_t side_of(set_index s, std::uint32_t requester = 0) const noexcept {
        const std::uint32_t t = requester_of(requester);
        const std::uint16_t leader = leader_[s.value];
        const std::uint32_t role = leader & 3u;
        if (role != 0 && (leader >> 2) == t) return role - 1u;
        return psel_[t] >> (psel_bits_ - 1u);
    }
    /// 0 = follower, 1 = side-0 leader, 2 = side-1 leader (of `leader_owner(s)`).
    [[nodiscard]] std::uint32_t leader_role(set_index s) const noexcept {
        return leader_[s.value] & 3u;
    }
    [[nodiscard]] std::uint32_t leader_owner(set_index s) const noexcept {
        return leader_[s.value] >> 2;
    }
    [[nodiscard]] std::uint32_t psel(std::uint32_t requester = 0) const noexcept {
        return psel_[requester_of(requester)];
    }
    [[nodiscard]] std::uint32_t psel_max() const noexcept { return psel_max_; }
    [[nodiscard]] std::uint32_t requesters() const noexcept { return requesters_; }
    [[nodiscard]] Dual& dual() noexcept { return dual_; }
    [[nodiscard]] const Dual& dual() const noexcept { return dual_; }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return storage_bits_of_dual() + std::uint64_t{requesters_} * psel_bits_;
    }

private:
    static constexpr std::string_view component = "memsub::replacement::set_dueling";

    [[nodiscard]] std::uint64_t storage_bits_of_dual() const noexcept {
        if constexpr (requires(const Dual& d) {
                          { d.storage_bits() } -> std::convertible_to<std::uint64_t>;
                      })
            return dual_.storage_bits();
        else
            return 0;
    }

    [[nodiscard]] std::uint32_t requester_of(std::uint32_t r) const noexcept {
        return r < requesters_ ? r : 0u;
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

    static void validate(const geometry& g, const params& p) {
        using memsub::detail::require;
        require(p.psel_bits >= 1 && p.psel_bits <= 31, component, "psel_bits", p.psel_bits,
                "must be in 1..31");
        require(p.requesters >= 1 && p.requesters <= 1024, component, "requesters", p.requesters,
                "must be in 1..1024");
        if (!p.leaders.empty()) {
            for (const auto& l : p.leaders) {
                require(l.set < g.sets, component, "leaders[].set", l.set,
                        "must be less than the number of sets");
                require(l.side <= 1, component, "leaders[].side", l.side, "must be 0 or 1");
                require(l.requester < p.requesters, component, "leaders[].requester", l.requester,
                        "must be less than requesters");
            }
            return;
        }
        require(g.sets >= 2, component, "geometry.sets", g.sets,
                "set dueling needs at least 2 sets (one leader set per side)");
        const std::uint32_t k = leaders_for(g.sets, p.leaders_per_side);
        require(k >= 1 && k <= g.sets && g.sets % k == 0, component, "leaders_per_side", k,
                "must divide the number of sets");
        require(std::uint64_t{k} * k <= g.sets, component, "leaders_per_side", k,
                "complement-select needs sets >= leaders_per_side^2 (else pass explicit leaders)");
    }

    static std::uint32_t leaders_for(std::uint32_t sets, std::uint32_t requested) noexcept {
        if (requested != auto_leaders) return requested;
        if (sets >= 1024) return 32;
        std::uint32_t k = 1;
        while (std::uint64_t{2 * k} * (2 * k) <= sets) k *= 2;
        return k;
    }

    void complement_select(std::uint32_t sets, const params& p) {
        const std::uint32_t k = leaders_for(sets, p.leaders_per_side);
        const std::uint32_t region = sets / k;
        for (std::uint32_t t = 0; t < p.requesters; ++t) {
            const std::uint64_t shift = 2ull * t;
            for (std::uint32_t c = 0; c < k; ++c) {
                const auto o0 = static_cast<std::uint32_t>((c + shift) % region);
                const auto o1 = static_cast<std::uint32_t>(
                    (std::uint64_t{region} - 1 - c + region - shift % region) % region);
                assign(c * region + o0, 0, t);
                assign(c * region + o1, 1, t);
            }
        }
    }

    void assign(std::uint32_t set, std::uint32_t side, std::uint32_t requester) {
        memsub::detail::require(leader_[set] == 0, component, "leaders", set,
                                "a set may lead for one side of one requester only (leader sets "
                                "overlap: use fewer leaders/requesters or more sets)");
        leader_[set] = static_cast<std::uint16_t>((requester << 2) | (side + 1));
    }

    Dual dual_;
    [[no_unique_address]] Cost cost_;
    std::uint32_t psel_bits_;
    std::uint32_t psel_max_;
    std::uint32_t requesters_;
    /// Per set: 0 = follower, else (requester << 2) | (side + 1) of the leader.
    std::vector<std::uint16_t> leader_;
    std::vector<std::uint32_t> psel_;
};

} // namespace memsub::replacement
