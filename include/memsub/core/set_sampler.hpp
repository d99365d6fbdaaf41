// memsub — set sampling: leader sets for N candidates ("set-dueling monitors") and a pluggable
// rule that turns what the leader sets observe into the candidate the follower sets use.
//
// Citations: Qureshi, Jaleel, Patt, Steely, Emer, "Adaptive Insertion Policies for High
// Performance Caching" (DIP), ISCA 2007, §5 (set dueling, complement-select leader sets, PSEL);
// Jaleel et al., RRIP, ISCA 2010, §4.3 / §6.7 (DRRIP, 10-bit PSEL) and §4.5 (thread-aware
// dueling: one PSEL and one pair of SDMs per application); [Dissertation] §4.2.2 and Fig. 4.8
// (LATTE-CC's modified set sampling: dedicated sets per mode only in the learning phase, per-mode
// N_hit / N_miss, N_hit counted one EP longer), §4.3.3 (3 modes, 4 dedicated sets per mode,
// periods of 10 EPs with one learning EP); ReMAP, [Dissertation] §2.2.4 (PSEL moved by the memory
// access cost of misses).
//
// Three pieces, usable alone or together:
//  * `leader_sets`: which sets lead for which (candidate, requester); a table lookup per access.
//  * a `follower_rule` (concept below, FR1–FR6): per-requester state trained by leader-set events
//    that names the candidate followers use. memsub ships `psel_rule` (2 candidates: DIP / DRRIP
//    PSEL, moved by a cost) and `argmin_rule` (N candidates: per-candidate counts, argmin of a
//    cost at the consumer's epoch boundaries, or after every event).
//  * `set_sampler<Rule>`: both, plus a phase; `candidate_of(set, requester)` on every access,
//    the events of SS3–SS5 below. `replacement::set_dueling` is `set_sampler<psel_rule>` plus a
//    dual policy; LATTE-CC plugs in `argmin_rule` (or its own AMAT rule).
//
// Phases ([Dissertation] §4.2.2): LATTE-CC's dedicated (leader) sets use their mode only in the
// learning phase (EP 1 of each period); in the adaptive phase (EPs 2–10) they are followers too,
// to keep the cost of sampling low. `set_phase(sampling_phase::adaptive)` makes every set follow;
// the default, `learning` for ever, is set dueling's (DIP §5: leaders always use their policy).
//
// Sampler protocol (SS1–SS7):
//  SS1. `candidate_of(s, t)`: in phase `learning`, the leader's candidate in t's own leader sets
//      and t's rule choice elsewhere; in phase `adaptive`, t's rule choice in every set. O(1).
//  SS2. `set_phase(p)`, at the consumer's boundaries, changes SS1 only: the placement (`role`,
//      `leaders()`), the events and the rule's state do not depend on the phase.
//  SS3. Set-attributed events `on_miss(s, t, cost)` / `on_hit(s, t, cost)` train t's rule state
//      for candidate c iff s is t's leader set of c. They take every block of a leader set to
//      have been inserted under the leader's candidate: true while the phase stays `learning`
//      (set dueling, DRRIP, ReMAP).
//  SS4. Candidate-attributed events `on_miss_of(c, t, cost)` / `on_hit_of(c, t, cost)` train t's
//      state for c wherever the event happened: the consumer has attributed it.
//  SS5. Leader-block events `on_leader_miss_of(s, c, t, cost)` / `on_leader_hit_of(s, c, t, cost)`,
//      c being the candidate the block was (or is being) inserted under, train t's state for c
//      iff s is t's leader set of c, and return whether they did. After a learning phase a
//      leader set holds blocks inserted under its own candidate and blocks the followers' choice
//      inserted; only the former tell anything about the leader's candidate.
//  SS6. Which events train when is the consumer's choice: the sampler gates nothing on the phase.
//      Hits reach the rule only if it counts them (FRO1); otherwise the hit events are no-ops.
//  SS7. Candidates a rule may not choose are the rule's business (`argmin_rule`'s `allowed`
//      mask). Decision: a leader of such a candidate still leads — SS1 forces it in the learning
//      phase, `role` reports it, its events still count — because the placement is fixed
//      (complement-select is combinational) and what such a leader stores is the consumer's
//      (LATTE-CC, period 1: SC leaders store lines uncompressed, as no code book exists yet,
//      §4.3.3); the rule just never chooses the candidate. Considered: making such leaders
//      follow, which would tie a set's role to the rule's state and hide the set from a
//      consumer that wants its events anyway.
//  No per-access or per-event path allocates, throws, or makes a virtual or std::function call.
//
// LATTE-CC on `set_sampler<argmin_rule>` ([Dissertation] §4.2.2; a period of 10 EPs, EP 1 the
// learning phase, §4.3.3). The hit events are SS5's: N_hit counts hits in a mode's dedicated sets
// of the blocks inserted under that mode.
//  * Period start: `rule().reset()` (Decision: counts cover one period, so each decision reflects
//    the current phase of the program; considered: halving, which the text does not mention),
//    `set_phase(learning)`. Built with `allowed` = modes 0 and 1; from period 2 on
//    `rule().set_allowed(all)`: period 1's learning EP cannot rate SC, whose first code book is
//    being built during it (§4.3.3), so its leaders store lines uncompressed (SS7).
//  * EP 1: an insertion of mode m in set s → `on_leader_miss_of(s, m, t)` (N_miss); a hit on a
//    block of mode m in set s → `on_leader_hit_of(s, m, t, effective_hit_latency)` (N_hit).
//  * End of EP 1: `set_phase(adaptive)` and `rule().decide(amat)`.
//  * EP 2: hits as in EP 1 (N_hit keeps counting one EP: reuse follows insertion); insertions
//    are no longer counted. A block the followers inserted in a leader set under another mode
//    stays out of the count; one inserted there under the leader's own mode counts — the 2-bit
//    per-line mode tag is all the hardware has to tell them apart.
//  * Every later EP boundary: `rule().decide(amat)` with the current latency tolerance.
//  Adaptive-Hit-Count (§4.3.7) is the same with `decide` over the negated hit count.
//
// Leader placement (complement-select, DIP §5, generalised to N candidates and R requesters):
//  S sets, K leaders per candidate per requester, region r = S/K (K must divide S, and S ≥ K²),
//  constituency c = s / r, offset o = s mod r. Candidates go in pairs: candidate 2p + q
//  (q ∈ {0, 1}) of requester t is placed as "virtual requester" v = p·R + t and leads set s iff
//     q = 0:  o == (c + 2v) mod r            (DIP's o == c, shifted by 2v)
//     q = 1:  o == (r − 1 − c − 2v) mod r    (DIP's complement o == r − 1 − c, shifted by 2v)
//  * N = 2, R = 1 (v = 0) is DIP's complement-select exactly (S = 1024, K = 32: candidate 0 at
//    sets 33c, candidate 1 at 32c + 31 − c); N = 2, R > 1 is memsub's TA-DRRIP placement (offsets
//    shifted by 2t per requester, [RRIP] §4.5; a decision, docs/mechanisms/remap.md, 'Set
//    dueling'). Candidates 0 and 1 of every requester sit where N = 2 puts them, whatever N.
//  * Every candidate gets one leader set in each of the K regions, so its K sets are spread
//    evenly over the index space. LATTE-CC (S = 32, K = 4, N = 3): mode 0 leads sets 0, 9, 18,
//    27; mode 1 sets 7, 14, 21, 28; mode 2 sets 2, 11, 20, 29.
//  * When r is even the q = 0 and q = 1 offsets differ in parity and never meet, so the sets are
//    disjoint iff ⌈N/2⌉·R ≤ r/2. Any overlap (also in an explicit list) throws config_error
//    naming `leaders`.
//  * Decision: `leaders_per_candidate = 0` (automatic): K = 32 (DIP's value, which DRRIP
//    implementations use) when S ≥ 1024, else the largest power of two with K² ≤ S; it does not
//    depend on N or R. A K given explicitly that does not fit throws config_error.
//  * Or an explicit leader list (small caches, tests): (set, candidate, requester) triples.
//  Requester ids ≥ R count as requester 0 (TA-DRRIP; Decision: a bad id still trains a defined
//  PSEL). In requester t's leader sets only t's accesses are forced to the leader's candidate (in
//  the learning phase) and only t's events train t's rule state; everywhere else an access follows
//  its own requester's choice.
// Storage: complement-select leader identification is combinational (compare two bit fields of
// the set index, DIP §5), so it costs 0 bits; the table this class keeps is a simulation device.
// An explicit leader list would need a per-set tag of ⌈log2(N·R + 1)⌉ bits in hardware: NOT
// counted in `storage_bits()` (as set_dueling never counted it); `leader_tag_bits()` reports it
// for a consumer that wants to add it. The rule's own state is counted (`Rule::storage_bits()`).
#pragma once

#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub {

/// "Not a leader set (for this requester)".
inline constexpr std::uint32_t no_candidate = std::numeric_limits<std::uint32_t>::max();

/// One explicit leader set.
struct sampled_leader {
    /// The set index (< sets); each set leads for at most one (candidate, requester).
    std::uint32_t set = 0;
    /// The candidate this set always uses (for its requester).
    std::uint32_t candidate = 0;
    /// The requester whose rule state it trains (0 without thread-aware sampling).
    std::uint32_t requester = 0;
};

/// Where to put the leader sets (the params of `leader_sets`).
struct leader_placement {
    /// N candidates, 2..63.
    std::uint32_t candidates = 2;
    /// K leader sets per candidate per requester; 0 = automatic (see the header comment).
    std::uint32_t leaders_per_candidate = 0;
    /// R requesters with their own leader sets and rule state, 1..1024.
    std::uint32_t requesters = 1;
    /// Explicit leader sets; empty = complement-select with `leaders_per_candidate`.
    std::vector<sampled_leader> leaders{};
};

/// What a set is: a follower, or a leader of `candidate` for `requester`.
struct set_role {
    /// The candidate the set leads for, or `no_candidate` for a follower.
    std::uint32_t candidate = no_candidate;
    /// The requester whose leader set it is (0 for a follower).
    std::uint32_t requester = 0;

    /// Whether the set leads for some requester.
    [[nodiscard]] constexpr bool is_leader() const noexcept { return candidate != no_candidate; }
    /// Equal when candidate and requester are equal.
    friend constexpr bool operator==(set_role, set_role) noexcept = default;
};

/// How config errors spell the component and the placement's parameters. A consumer whose params
/// name them differently (set_dueling: `leaders_per_side`, `leaders[].side`) passes its own, so
/// the error names the field its user actually set.
struct sampler_names {
    /// The component a `config_error` names.
    std::string_view component = "memsub::set_sampler";
    /// The parameter holding the set count.
    std::string_view sets = "sets";
    /// The parameter holding N, `leader_placement::candidates`.
    std::string_view candidates = "candidates";
    /// The parameter holding K, `leader_placement::leaders_per_candidate`.
    std::string_view leaders_per_candidate = "leaders_per_candidate";
    /// The parameter holding R, `leader_placement::requesters`.
    std::string_view requesters = "requesters";
    /// The explicit leader list (also named when leader sets overlap).
    std::string_view leaders = "leaders";
    /// An explicit leader's `sampled_leader::set`.
    std::string_view leader_set = "leaders[].set";
    /// An explicit leader's `sampled_leader::candidate`.
    std::string_view leader_candidate = "leaders[].candidate";
    /// An explicit leader's `sampled_leader::requester`.
    std::string_view leader_requester = "leaders[].requester";
};

/// The leader-set assignment: built once (validated, may throw config_error), then a constant-
/// time, allocation-free lookup per access.
class leader_sets {
public:
    /// `leaders_per_candidate` value asking for the automatic K (see the header comment).
    static constexpr std::uint32_t auto_leaders = 0;
    /// The most candidates a placement may have (N ≤ 63: a candidate fits a 6-bit field).
    static constexpr std::uint32_t max_candidates = 63;
    /// The most requesters a placement may have.
    static constexpr std::uint32_t max_requesters = 1024;

    /// Places the leader sets of `p` among `sets` sets, by complement-select or from the explicit
    /// list. Throws `config_error`, worded with `names`, when the placement is invalid or leader
    /// sets overlap.
    leader_sets(std::uint32_t sets, const leader_placement& p, const sampler_names& names = {})
        : candidates_(p.candidates)
        , requesters_(p.requesters)
        , tag_((validate(sets, p, names), sets), 0) {
        if (p.leaders.empty()) {
            leaders_per_candidate_ = leaders_for(sets, p.leaders_per_candidate);
            complement_select(sets, names);
        } else {
            for (const auto& l : p.leaders) assign(l.set, l.candidate, l.requester, names);
        }
    }

    // ------------------------------------------------------------ per access (O(1), noexcept)

    /// The candidate `requester` is forced to in set `s`, or `no_candidate` when `s` does not
    /// lead for that requester (a follower, or another requester's leader).
    [[nodiscard]] std::uint32_t leads_for(set_index s, std::uint32_t requester) const noexcept {
        const std::uint16_t tag = tag_[s.value];
        const std::uint32_t c = tag & candidate_mask;
        return c != 0 && (tag >> candidate_bits) == requester_of(requester) ? c - 1u : no_candidate;
    }
    /// Follower, or leader of which candidate for which requester.
    [[nodiscard]] set_role role(set_index s) const noexcept {
        const std::uint16_t tag = tag_[s.value];
        const std::uint32_t c = tag & candidate_mask;
        if (c == 0) return {};
        return {.candidate = c - 1u, .requester = std::uint32_t{tag} >> candidate_bits};
    }
    /// Requester ids ≥ `requesters()` count as requester 0.
    [[nodiscard]] std::uint32_t requester_of(std::uint32_t r) const noexcept {
        return r < requesters_ ? r : 0u;
    }

    // ------------------------------------------------------------ introspection

    /// The number of sets the placement covers.
    [[nodiscard]] std::uint32_t sets() const noexcept {
        return static_cast<std::uint32_t>(tag_.size());
    }
    /// N, the candidates.
    [[nodiscard]] std::uint32_t candidates() const noexcept { return candidates_; }
    /// R, the requesters with leader sets of their own.
    [[nodiscard]] std::uint32_t requesters() const noexcept { return requesters_; }
    /// K of complement-select (the automatic value resolved); 0 for an explicit list.
    [[nodiscard]] std::uint32_t leaders_per_candidate() const noexcept {
        return leaders_per_candidate_;
    }
    /// Whether the leaders came from an explicit list rather than complement-select.
    [[nodiscard]] bool is_explicit() const noexcept { return leaders_per_candidate_ == 0; }
    /// The number of leader sets, over all candidates and requesters.
    [[nodiscard]] std::uint32_t leader_count() const noexcept { return leader_count_; }

    /// 0: complement-select is combinational, and an explicit list's per-set tag is not counted.
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 0; }
    /// What an explicit list would cost as a per-set tag (⌈log2(N·R + 1)⌉ bits per set); 0 for
    /// complement-select.
    [[nodiscard]] std::uint64_t leader_tag_bits() const noexcept {
        if (!is_explicit()) return 0;
        const auto roles = std::uint64_t{candidates_} * requesters_ + 1;
        return std::uint64_t{sets()} * std::bit_width(roles - 1);
    }

    /// The automatic K for `sets` sets (see the header comment).
    [[nodiscard]] static constexpr std::uint32_t automatic_leaders(std::uint32_t sets) noexcept {
        if (sets >= 1024) return 32;
        std::uint32_t k = 1;
        while (std::uint64_t{2 * k} * (2 * k) <= sets) k *= 2;
        return k;
    }

    /// Complement-select: the set in constituency `constituency` (0..K−1) that leads for
    /// `candidate` of `requester`, with `sets` sets, K = `leaders` and R = `requesters`.
    [[nodiscard]] static constexpr std::uint32_t
    complement_select_set(std::uint32_t sets, std::uint32_t leaders, std::uint32_t requesters,
                          std::uint32_t candidate, std::uint32_t requester,
                          std::uint32_t constituency) noexcept {
        const std::uint64_t region = sets / leaders;
        const std::uint64_t v = std::uint64_t{candidate / 2} * requesters + requester;
        const std::uint64_t shift = (2 * v) % region;
        const std::uint64_t c = constituency;
        const std::uint64_t offset =
            candidate % 2 == 0 ? (c + shift) % region : (region - 1 - c + region - shift) % region;
        return static_cast<std::uint32_t>(c * region + offset);
    }

private:
    // Per set: 0 = follower, else (requester << candidate_bits) | (candidate + 1).
    static constexpr std::uint32_t candidate_bits = 6;
    static constexpr std::uint32_t candidate_mask = (1u << candidate_bits) - 1u;
    static_assert(max_candidates == candidate_mask);
    static_assert(std::uint64_t{max_requesters} << candidate_bits <= 1u << 16);

    static std::uint32_t leaders_for(std::uint32_t sets, std::uint32_t requested) noexcept {
        return requested != auto_leaders ? requested : automatic_leaders(sets);
    }

    static void validate(std::uint32_t sets, const leader_placement& p, const sampler_names& n) {
        require(p.requesters >= 1 && p.requesters <= max_requesters, n.component, n.requesters,
                p.requesters, "must be in 1..1024");
        require(p.candidates >= 2 && p.candidates <= max_candidates, n.component, n.candidates,
                p.candidates, "must be in 2..63");
        if (!p.leaders.empty()) {
            for (const auto& l : p.leaders) {
                require(l.set < sets, n.component, n.leader_set, l.set,
                        "must be less than the number of sets");
                require(l.candidate < p.candidates, n.component, n.leader_candidate, l.candidate,
                        "must be less than the number of candidates (2 sides in set dueling)");
                require(l.requester < p.requesters, n.component, n.leader_requester, l.requester,
                        "must be less than requesters");
            }
            return;
        }
        require(sets >= p.candidates, n.component, n.sets, sets,
                "set sampling needs at least one leader set per candidate (at least 2 sets for "
                "set dueling)");
        const std::uint32_t k = leaders_for(sets, p.leaders_per_candidate);
        require(k >= 1 && k <= sets && sets % k == 0, n.component, n.leaders_per_candidate, k,
                "must divide the number of sets");
        require(std::uint64_t{k} * k <= sets, n.component, n.leaders_per_candidate, k,
                "complement-select needs sets >= K^2, K leader sets per candidate (else pass "
                "explicit leaders)");
    }

    void complement_select(std::uint32_t sets, const sampler_names& names) {
        const std::uint32_t k = leaders_per_candidate_;
        for (std::uint32_t t = 0; t < requesters_; ++t)
            for (std::uint32_t pair = 0; 2 * pair < candidates_; ++pair)
                for (std::uint32_t c = 0; c < k; ++c)
                    for (std::uint32_t q = 0; q < 2 && 2 * pair + q < candidates_; ++q) {
                        const std::uint32_t cand = 2 * pair + q;
                        assign(complement_select_set(sets, k, requesters_, cand, t, c), cand, t,
                               names);
                    }
    }

    void assign(std::uint32_t set, std::uint32_t candidate, std::uint32_t requester,
                const sampler_names& names) {
        memsub::require(
            tag_[set] == 0, names.component, names.leaders, set,
            "a set may lead for one candidate of one requester only (leader sets overlap: use "
            "fewer leaders, candidates or requesters, or more sets)");
        tag_[set] = static_cast<std::uint16_t>((requester << candidate_bits) | (candidate + 1));
        ++leader_count_;
    }

    std::uint32_t candidates_;
    std::uint32_t requesters_;
    std::uint32_t leaders_per_candidate_ = 0;
    std::uint32_t leader_count_ = 0;
    std::vector<std::uint16_t> tag_;
};

/// What a follower rule is built for (FR2); the sampler has validated both counts.
struct sampler_shape {
    /// N, the candidates the rule chooses among (≤ `Rule::max_candidates`).
    std::uint32_t candidates = 2;
    /// R, the requesters with rule state of their own.
    std::uint32_t requesters = 1;
    /// The component config errors name.
    std::string_view component = "memsub::set_sampler";
};

/// A follower rule: per-requester state trained by events in that requester's leader sets, which
/// names the candidate its followers use.
/// Requirements (a type R models `follower_rule` when all hold):
///   FR1. `typename R::params` is a default-constructible aggregate of the rule's knobs.
///   FR2. `R(const typename R::params& p, const sampler_shape& shape)` builds the rule for
///       `shape.candidates` candidates and `shape.requesters` requesters. It may throw
///       `config_error` (naming `shape.component`); nothing else throws.
///   FR3. `R::max_candidates` — a constant: the most candidates the rule can choose among (the
///       sampler rejects more).
///   FR4. `r.on_leader_miss(t, c, cost)` noexcept — a miss of requester t attributed to
///       candidate c (in t's leader set of c, or by the consumer: SS3–SS5 in the header comment);
///       `cost` (std::uint64_t) is the consumer's (1 to count misses).
///   FR5. `r.choice(t)` const noexcept -> std::uint32_t in [0, candidates): the candidate t's
///       followers use now. O(1): it runs on every access.
///   FR6. `r.storage_bits()` const -> std::uint64_t: hardware bits of the rule's state.
/// Optional, detected with `requires`:
///   FRO1. `r.on_leader_hit(t, c, cost)` noexcept — a hit of requester t attributed to candidate
///       c, as in FR4. The sampler skips hits entirely (no lookup) for a rule without it.
/// Protocol: t < requesters and c < candidates always; the sampler attributes an event to (t, c)
/// only from t's own leader sets of c (SS3, SS5) unless the consumer attributes it (SS4), so a rule
/// must not assume that c is the candidate in force where the event happened (in the adaptive
/// phase it is not). FR4 / FRO1 run in O(candidates) at most, never allocate, never throw. The
/// choice may change inside FR4 / FRO1 or in the rule's own methods (epoch decisions); the sampler
/// caches nothing. Which candidates a rule may choose (a mask) is the rule's own business (SS7).
template <class R>
concept follower_rule = std::default_initializable<typename R::params> &&          // FR1
    std::constructible_from<R, const typename R::params&, const sampler_shape&> && // FR2
    requires(R& r, const R& cr, std::uint32_t t, std::uint32_t c, std::uint64_t cost) {
    { R::max_candidates } -> std::convertible_to<std::uint32_t>; // FR3
    { r.on_leader_miss(t, c, cost) }
    noexcept; // FR4
    { cr.choice(t) }
    noexcept->std::convertible_to<std::uint32_t>;                // FR5
    { cr.storage_bits() } -> std::convertible_to<std::uint64_t>; // FR6
};

/// FRO1: the rule counts hits in leader sets.
template <class R>
concept rule_observes_hits = requires(R& r, std::uint32_t t, std::uint32_t c, std::uint64_t cost) {
    { r.on_leader_hit(t, c, cost) }
    noexcept;
};

/// DIP §5 / RRIP §4.3: one saturating PSEL per requester (RRIP §4.5), 2 candidates. PSEL starts
/// at 0 and saturates at 0 and 2^psel_bits − 1; a miss in a candidate-0 leader adds its cost
/// (evidence against candidate 0), a miss in a candidate-1 leader subtracts it; hits never move
/// it; followers take the MSB (0 → candidate 0, 1 → candidate 1). With cost 1 per miss this is
/// DIP / DRRIP; with a memory access cost it is ReMAP's cost-based dueling ([Dissertation] §2.2.4).
/// Storage: requesters × psel_bits.
class psel_rule {
public:
    /// The rule's knobs (FR1).
    struct params {
        /// PSEL width, 1..31 (10 in DRRIP, RRIP §6.7).
        std::uint32_t psel_bits = 10;
    };
    /// Two candidates: a PSEL's MSB names one of two (FR3).
    static constexpr std::uint32_t max_candidates = 2;

    /// One PSEL per requester of `shape`, all 0 (candidate 0). Throws `config_error` unless
    /// `psel_bits` is in 1..31 (FR2).
    psel_rule(const params& p, const sampler_shape& shape)
        : bits_(p.psel_bits)
        , max_((validate(p, shape), (std::uint32_t{1} << p.psel_bits) - 1u))
        , psel_(shape.requesters, 0) {}

    /// FR4: a miss attributed to candidate 0 raises requester t's PSEL by `cost`, one attributed to
    /// candidate 1 lowers it, saturating at both ends.
    void on_leader_miss(std::uint32_t t, std::uint32_t c, std::uint64_t cost) noexcept {
        std::uint32_t& psel = psel_[t];
        if (c == 0)
            psel =
                cost < std::uint64_t{max_ - psel} ? static_cast<std::uint32_t>(psel + cost) : max_;
        else
            psel = psel > cost ? static_cast<std::uint32_t>(psel - cost) : 0u;
    }
    /// FR5: the MSB of requester t's PSEL (0 → candidate 0, 1 → candidate 1).
    [[nodiscard]] std::uint32_t choice(std::uint32_t t) const noexcept {
        return psel_[t] >> (bits_ - 1u);
    }

    /// Requester t's PSEL value, 0 … psel_max().
    [[nodiscard]] std::uint32_t psel(std::uint32_t t) const noexcept { return psel_[t]; }
    /// The saturation value, 2^psel_bits − 1.
    [[nodiscard]] std::uint32_t psel_max() const noexcept { return max_; }
    /// The PSEL width.
    [[nodiscard]] std::uint32_t psel_bits() const noexcept { return bits_; }
    /// FR6: requesters × psel_bits.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{psel_.size()} * bits_;
    }

private:
    static void validate(const params& p, const sampler_shape& shape) {
        memsub::require(p.psel_bits >= 1 && p.psel_bits <= 31, shape.component, "psel_bits",
                        p.psel_bits, "must be in 1..31");
    }

    std::uint32_t bits_;
    std::uint32_t max_;
    std::vector<std::uint32_t> psel_;
};

/// What one candidate's leader sets have seen (for one requester) since the last reset.
struct candidate_counts {
    /// Hits attributed to the candidate (N_hit); saturates at the rule's counter maximum.
    std::uint64_t hits = 0;
    /// Misses attributed to the candidate (N_miss); saturates likewise.
    std::uint64_t misses = 0;
    /// Sum of the costs passed with the hits (e.g. LATTE-CC's effective hit latencies).
    std::uint64_t hit_cost = 0;
    /// Sum of the costs passed with the misses.
    std::uint64_t miss_cost = 0;

    /// Counted accesses; a candidate with none is never chosen.
    [[nodiscard]] constexpr std::uint64_t samples() const noexcept { return hits + misses; }
    /// The accumulated cost `decide()` minimises.
    [[nodiscard]] constexpr std::uint64_t cost() const noexcept { return hit_cost + miss_cost; }
};

/// N candidates: per requester and candidate, the hits, misses and their accumulated costs
/// attributed to it (SS3–SS5); followers take the argmin of a cost over the allowed candidates
/// (LATTE-CC: least AMAT, [Dissertation] §4.2.2; Adaptive-Hit-Count: most hits, §4.3.7).
///  * `decide()` sets every requester's choice to the argmin of `candidate_counts::cost()`;
///    `decide(fn)` / `decide(t, fn)` to the argmin of the consumer's cost, `fn(counts)` or
///    `fn(candidate, counts)` returning any arithmetic type (LATTE-CC's AMAT from N_hit, N_miss,
///    the hit cost and its tolerance). Only allowed candidates with samples compete; NaN costs are
///    skipped; ties → the lowest candidate; with none left the choice stays. Decision: ties go to
///    the lower candidate (LATTE-CC: mode 0 uncompressed, then the faster BDI), and a candidate
///    with no samples is never chosen — the text rates a mode by what its dedicated sets saw,
///    so a mode they saw nothing of has no rating (considered: rating it 0, which would make any
///    unsampled mode win a cost argmin).
///  * The allowed mask (bit c = candidate c; bits ≥ candidates ignored), per requester:
///    `params::allowed` for all at construction, then `set_allowed(mask)` / `set_allowed(t, mask)`.
///    It restricts decisions only: `set_allowed` leaves the current choice as it is, `choose`
///    ignores the mask, and a disallowed candidate's counts still accumulate (SS7). LATTE-CC:
///    0b011 in period 1, whose learning EP cannot rate SC (its code book is only being built,
///    [Dissertation] §4.3.3), then 0b111.
///  * The choice changes only in `decide` / `choose` — at the consumer's epoch boundaries — unless
///    `decide_per_event` re-runs `decide()` for the requester after each event (an N-way
///    analogue of PSEL, O(N) per event).
///  * `reset()` clears the counts (period starts), not the choice: followers keep the current
///    candidate until the next decision. Before the first decision they use `initial_choice`.
///    `counts(t, c)` reads them (N_hit = hits, N_miss = misses, and the summed costs).
/// Storage: requesters × (candidates × 4 × counter_bits + ⌈log2 candidates⌉); each counter
/// saturates at 2^counter_bits − 1. Decision: the allowed mask is not counted — it is the
/// consumer's input (LATTE-CC's "a code book exists" flag, which it keeps anyway), not state the
/// rule learns; considered: N bits per requester.
class argmin_rule {
public:
    /// The rule's knobs (FR1).
    struct params {
        /// Width of each counter (hits, misses, hit cost, miss cost), 1..64.
        std::uint32_t counter_bits = 32;
        /// The followers' candidate before the first decision (LATTE-CC: mode 0, no compression;
        /// Decision: the safe mode until one is learnt).
        std::uint32_t initial_choice = 0;
        /// Re-decide after every event instead of only when the consumer calls decide().
        bool decide_per_event = false;
        /// The candidates decisions may choose, bit c = candidate c (bits ≥ candidates are
        /// ignored); must include `initial_choice`. Every requester starts with it.
        std::uint64_t allowed = all_candidates;
    };
    /// The `allowed` mask allowing every candidate.
    static constexpr std::uint64_t all_candidates = ~std::uint64_t{0};
    /// As many candidates as a placement may have (FR3).
    static constexpr std::uint32_t max_candidates = leader_sets::max_candidates;

    /// Zero counts and choice `initial_choice` for every requester of `shape`. Throws
    /// `config_error` unless counter_bits is in 1..64 and `initial_choice` is a candidate that
    /// `allowed` allows (FR2).
    argmin_rule(const params& p, const sampler_shape& shape)
        : candidates_(shape.candidates)
        , counter_bits_(p.counter_bits)
        , counter_max_((validate(p, shape), p.counter_bits >= 64
                                                ? std::numeric_limits<std::uint64_t>::max()
                                                : (std::uint64_t{1} << p.counter_bits) - 1u))
        , per_event_(p.decide_per_event)
        , counts_(std::size_t{shape.requesters} * shape.candidates)
        , choice_(shape.requesters, p.initial_choice)
        , allowed_(shape.requesters, p.allowed & candidate_bits()) {}

    /// FR4: counts a miss and its cost for (t, c); re-decides t under `decide_per_event`.
    void on_leader_miss(std::uint32_t t, std::uint32_t c, std::uint64_t cost) noexcept {
        candidate_counts& k = counts_[index(t, c)];
        k.misses = add(k.misses, 1);
        k.miss_cost = add(k.miss_cost, cost);
        if (per_event_) decide(t, default_cost{});
    }
    /// FRO1: counts a hit and its cost for (t, c); re-decides t under `decide_per_event`.
    void on_leader_hit(std::uint32_t t, std::uint32_t c, std::uint64_t cost) noexcept {
        candidate_counts& k = counts_[index(t, c)];
        k.hits = add(k.hits, 1);
        k.hit_cost = add(k.hit_cost, cost);
        if (per_event_) decide(t, default_cost{});
    }
    /// FR5: requester t's current choice (changed only by a decision or `choose`).
    [[nodiscard]] std::uint32_t choice(std::uint32_t t) const noexcept { return choice_[t]; }

    /// Every requester takes the argmin of the accumulated cost.
    void decide() noexcept {
        for (std::uint32_t t = 0; t < requesters(); ++t) decide(t, default_cost{});
    }
    /// Every requester takes the argmin of `fn`.
    template <class F>
    void decide(F&& fn) {
        for (std::uint32_t t = 0; t < requesters(); ++t) decide(t, fn);
    }
    /// Requester t takes the argmin of `fn(counts)` or `fn(candidate, counts)` over its allowed
    /// candidates with samples; returns the choice (unchanged when there are none).
    /// t < requesters.
    template <class F>
    std::uint32_t decide(std::uint32_t t, F&& fn) {
        MEMSUB_ASSERT(t < requesters());
        std::uint32_t best = no_candidate;
        auto best_cost = decltype(cost_of(fn, 0u, counts_[0])){};
        const std::uint64_t allowed = allowed_[t];
        for (std::uint32_t c = 0; c < candidates_; ++c) {
            const candidate_counts& k = counts_[index(t, c)];
            if ((allowed >> c & 1u) == 0 || k.samples() == 0) continue;
            const auto v = cost_of(fn, c, k);
            if constexpr (std::is_floating_point_v<decltype(v)>)
                if (std::isnan(v)) continue;
            if (best == no_candidate || v < best_cost) { // strict: ties keep the lower candidate
                best = c;
                best_cost = v;
            }
        }
        if (best != no_candidate) choice_[t] = best;
        return choice_[t];
    }
    /// Sets requester t's choice directly (an oracle, a static mode), allowed or not.
    /// t < requesters, c < candidates.
    void choose(std::uint32_t t, std::uint32_t c) noexcept {
        MEMSUB_ASSERT(t < requesters() && c < candidates_);
        choice_[t] = c;
    }

    /// Every requester may choose the candidates in `mask` (bit c = candidate c) from the next
    /// decision on; the current choice stays.
    void set_allowed(std::uint64_t mask) noexcept {
        for (auto& a : allowed_) a = mask & candidate_bits();
    }
    /// Requester t may choose the candidates in `mask` from its next decision on. t < requesters.
    void set_allowed(std::uint32_t t, std::uint64_t mask) noexcept {
        MEMSUB_ASSERT(t < requesters());
        allowed_[t] = mask & candidate_bits();
    }
    /// The candidates requester t's decisions may choose (bits ≥ candidates clear).
    [[nodiscard]] std::uint64_t allowed(std::uint32_t t) const noexcept { return allowed_[t]; }
    /// Whether requester t's decisions may choose candidate c (false for c ≥ candidates).
    [[nodiscard]] bool is_allowed(std::uint32_t t, std::uint32_t c) const noexcept {
        return c < candidates_ && (allowed_[t] >> c & 1u) != 0;
    }

    /// Clears every requester's counts (the choice stays).
    void reset() noexcept {
        for (auto& k : counts_) k = {};
    }
    /// Clears requester t's counts (the choice stays).
    void reset(std::uint32_t t) noexcept {
        for (std::uint32_t c = 0; c < candidates_; ++c) counts_[index(t, c)] = {};
    }

    /// What requester t's leader sets saw of candidate c since the last reset.
    [[nodiscard]] const candidate_counts& counts(std::uint32_t t, std::uint32_t c) const noexcept {
        return counts_[index(t, c)];
    }
    /// N, the candidates.
    [[nodiscard]] std::uint32_t candidates() const noexcept { return candidates_; }
    /// R, the requesters with state of their own.
    [[nodiscard]] std::uint32_t requesters() const noexcept {
        return static_cast<std::uint32_t>(choice_.size());
    }
    /// FR6: requesters × (candidates × 4 × counter_bits + ⌈log2 candidates⌉).
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        const std::uint64_t choice_bits = std::bit_width(candidates_ - 1u);
        return requesters() * (std::uint64_t{candidates_} * 4 * counter_bits_ + choice_bits);
    }

private:
    struct default_cost {
        constexpr std::uint64_t operator()(const candidate_counts& k) const noexcept {
            return k.cost();
        }
    };

    template <class F>
    static auto cost_of(F& fn, std::uint32_t c, const candidate_counts& k) {
        if constexpr (std::invocable<F&, std::uint32_t, const candidate_counts&>) {
            static_assert(std::is_arithmetic_v<
                              std::invoke_result_t<F&, std::uint32_t, const candidate_counts&>>,
                          "an argmin_rule cost must return an arithmetic type");
            return fn(c, k);
        } else {
            static_assert(std::invocable<F&, const candidate_counts&>,
                          "an argmin_rule cost is called as fn(counts) or fn(candidate, counts)");
            static_assert(std::is_arithmetic_v<std::invoke_result_t<F&, const candidate_counts&>>,
                          "an argmin_rule cost must return an arithmetic type");
            return fn(k);
        }
    }

    static void validate(const params& p, const sampler_shape& shape) {
        require(p.counter_bits >= 1 && p.counter_bits <= 64, shape.component, "counter_bits",
                p.counter_bits, "must be in 1..64");
        require(p.initial_choice < shape.candidates, shape.component, "initial_choice",
                p.initial_choice, "must be less than the number of candidates");
        require(p.initial_choice < 64 && (p.allowed >> p.initial_choice & 1u) != 0, shape.component,
                "allowed", p.allowed, "must allow initial_choice (bit c allows candidate c)");
    }

    /// Bits 0..candidates−1 set.
    [[nodiscard]] std::uint64_t candidate_bits() const noexcept {
        return candidates_ >= 64 ? all_candidates : (std::uint64_t{1} << candidates_) - 1u;
    }

    [[nodiscard]] std::size_t index(std::uint32_t t, std::uint32_t c) const noexcept {
        return std::size_t{t} * candidates_ + c;
    }
    [[nodiscard]] std::uint64_t add(std::uint64_t a, std::uint64_t b) const noexcept {
        return b < counter_max_ - a ? a + b : counter_max_;
    }

    std::uint32_t candidates_;
    std::uint32_t counter_bits_;
    std::uint64_t counter_max_;
    bool per_event_;
    std::vector<candidate_counts> counts_;
    std::vector<std::uint32_t> choice_;
    std::vector<std::uint64_t> allowed_;
};

/// A cost computed only when an event lands in one of its requester's leader sets (set_dueling's
/// cost functor may read policy state): called as `cost()`.
template <class F>
concept lazy_sample_cost =
    std::invocable<F&> && std::convertible_to<std::invoke_result_t<F&>, std::uint64_t>;

/// Whether the leader sets use their own candidate (SS1). [Dissertation] §4.2.2.
enum class sampling_phase : std::uint8_t {
    /// Leader sets are forced to their candidate (LATTE-CC's learning phase; set dueling always).
    learning,
    /// Every set, leader or not, uses its requester's rule choice (LATTE-CC's adaptive phase).
    adaptive,
};

/// Leader sets plus a follower rule and a phase (see the header comment, SS1–SS7). Per access:
/// `candidate_of` (the candidate in force), then the events, which train the rule for the
/// candidate they are attributed to. No allocation, virtual call or std::function on these paths.
template <follower_rule Rule>
class set_sampler {
public:
    /// The follower rule.
    using rule_type = Rule;
    /// `leaders_per_candidate` value asking for the automatic K.
    static constexpr std::uint32_t auto_leaders = leader_sets::auto_leaders;

    /// The placement's knobs and the rule's, in one aggregate.
    struct params {
        /// N candidates, 2..min(63, Rule::max_candidates).
        std::uint32_t candidates = 2;
        /// K leader sets per candidate per requester; 0 = automatic.
        std::uint32_t leaders_per_candidate = auto_leaders;
        /// R requesters with their own leader sets and rule state, 1..1024.
        std::uint32_t requesters = 1;
        /// Explicit leader sets; empty = complement-select.
        std::vector<sampled_leader> leaders{};
        /// The follower rule's knobs.
        typename Rule::params rule{};
    };

    /// A sampler over `sets` sets, in the learning phase. Throws `config_error`, worded with
    /// `names`, on an invalid placement or rule, or more candidates than the rule allows.
    set_sampler(std::uint32_t sets, const params& p, const sampler_names& names = {})
        : set_sampler(sets,
                      leader_placement{.candidates = p.candidates,
                                       .leaders_per_candidate = p.leaders_per_candidate,
                                       .requesters = p.requesters,
                                       .leaders = p.leaders},
                      p.rule, names) {}
    /// The same, with the placement and the rule's params given apart.
    set_sampler(std::uint32_t sets, const leader_placement& placement,
                const typename Rule::params& rule, const sampler_names& names = {})
        : leaders_(sets, checked(placement, names), names)
        , rule_(rule, sampler_shape{.candidates = placement.candidates,
                                    .requesters = placement.requesters,
                                    .component = names.component}) {}

    // ------------------------------------------------------------ per access

    /// The candidate an access of `requester` uses in set `s` now (SS1): in the learning phase the
    /// leader's candidate in the requester's own leader sets; else the rule's choice for it.
    [[nodiscard]] std::uint32_t candidate_of(set_index s,
                                             std::uint32_t requester = 0) const noexcept {
        const std::uint32_t c = leaders_.leads_for(s, requester);
        return c != no_candidate && phase_ == sampling_phase::learning
                   ? c
                   : rule_.choice(leaders_.requester_of(requester));
    }
    /// The candidate `requester`'s followers use now.
    [[nodiscard]] std::uint32_t follower_candidate(std::uint32_t requester = 0) const noexcept {
        return rule_.choice(leaders_.requester_of(requester));
    }

    /// SS2: from now on leaders are forced to their candidate (`learning`) or follow (`adaptive`).
    void set_phase(sampling_phase p) noexcept { phase_ = p; }
    /// The current phase (`learning` until `set_phase` changes it).
    [[nodiscard]] sampling_phase phase() const noexcept { return phase_; }

    // ---- SS3: attributed by the set (every block of a leader set inserted under its candidate)

    /// A miss (or what the consumer counts as one, e.g. LATTE-CC's insertions) by `requester` in
    /// set `s`; trains the rule iff `s` is one of the requester's leader sets.
    void on_miss(set_index s, std::uint32_t requester, std::uint64_t cost = 1) noexcept {
        on_miss(s, requester, [cost]() noexcept { return cost; });
    }
    /// As above; `cost()` is called only when `s` leads for `requester`.
    template <lazy_sample_cost F>
    void on_miss(set_index s, std::uint32_t requester, F&& cost) noexcept {
        const std::uint32_t c = leaders_.leads_for(s, requester);
        if (c == no_candidate) return; // followers never train the rule
        rule_.on_leader_miss(leaders_.requester_of(requester), c,
                             static_cast<std::uint64_t>(cost()));
    }
    /// A hit by `requester` in set `s`; a no-op unless the rule counts hits (FRO1).
    void on_hit(set_index s, std::uint32_t requester, std::uint64_t cost = 0) noexcept {
        on_hit(s, requester, [cost]() noexcept { return cost; });
    }
    /// As above; `cost()` is called only when the event trains the rule.
    template <lazy_sample_cost F>
    void on_hit(set_index s, std::uint32_t requester, F&& cost) noexcept {
        if constexpr (rule_observes_hits<Rule>) {
            const std::uint32_t c = leaders_.leads_for(s, requester);
            if (c == no_candidate) return;
            rule_.on_leader_hit(leaders_.requester_of(requester), c,
                                static_cast<std::uint64_t>(cost()));
        }
    }

    // ---- SS4: attributed by the consumer

    /// A miss by `requester` that the consumer attributes to `candidate` (< candidates()).
    void on_miss_of(std::uint32_t candidate, std::uint32_t requester,
                    std::uint64_t cost = 1) noexcept {
        MEMSUB_ASSERT(candidate < candidates());
        rule_.on_leader_miss(leaders_.requester_of(requester), candidate, cost);
    }
    /// A hit by `requester` that the consumer attributes to `candidate` (< candidates()); a no-op
    /// unless the rule counts hits (FRO1).
    void on_hit_of(std::uint32_t candidate, std::uint32_t requester,
                   std::uint64_t cost = 0) noexcept {
        MEMSUB_ASSERT(candidate < candidates());
        if constexpr (rule_observes_hits<Rule>)
            rule_.on_leader_hit(leaders_.requester_of(requester), candidate, cost);
    }

    // ---- SS5: a block inserted under `inserted`, counted in the requester's leader sets of it

    /// A miss (LATTE-CC: an insertion) by `requester` in set `s` of a block inserted under
    /// candidate `inserted`; trains the rule, and returns true, iff `s` is the requester's
    /// leader set of `inserted`.
    bool on_leader_miss_of(set_index s, std::uint32_t inserted, std::uint32_t requester,
                           std::uint64_t cost = 1) noexcept {
        return on_leader_miss_of(s, inserted, requester, [cost]() noexcept { return cost; });
    }
    /// As above; `cost()` is called only when the event trains the rule.
    template <lazy_sample_cost F>
    bool on_leader_miss_of(set_index s, std::uint32_t inserted, std::uint32_t requester,
                           F&& cost) noexcept {
        if (inserted == no_candidate || leaders_.leads_for(s, requester) != inserted) return false;
        rule_.on_leader_miss(leaders_.requester_of(requester), inserted,
                             static_cast<std::uint64_t>(cost()));
        return true;
    }
    /// A hit by `requester` in set `s` on a block inserted under candidate `inserted`; trains
    /// the rule, and returns true, iff `s` is the requester's leader set of `inserted` and the
    /// rule counts hits (FRO1).
    bool on_leader_hit_of(set_index s, std::uint32_t inserted, std::uint32_t requester,
                          std::uint64_t cost = 0) noexcept {
        return on_leader_hit_of(s, inserted, requester, [cost]() noexcept { return cost; });
    }
    /// As above; `cost()` is called only when the event trains the rule.
    template <lazy_sample_cost F>
    bool on_leader_hit_of(set_index s, std::uint32_t inserted, std::uint32_t requester,
                          F&& cost) noexcept {
        if constexpr (rule_observes_hits<Rule>) {
            if (inserted == no_candidate || leaders_.leads_for(s, requester) != inserted)
                return false;
            rule_.on_leader_hit(leaders_.requester_of(requester), inserted,
                                static_cast<std::uint64_t>(cost()));
            return true;
        } else {
            return false;
        }
    }

    // ------------------------------------------------------------ introspection

    /// The leader-set placement.
    [[nodiscard]] const leader_sets& leaders() const noexcept { return leaders_; }
    /// The follower rule, for the consumer's decisions (`argmin_rule::decide`, `reset`, …).
    [[nodiscard]] Rule& rule() noexcept { return rule_; }
    /// The follower rule, read-only.
    [[nodiscard]] const Rule& rule() const noexcept { return rule_; }
    /// Whether set `s` is a follower or leads, for which candidate and requester (whatever the
    /// phase, SS2).
    [[nodiscard]] set_role role(set_index s) const noexcept { return leaders_.role(s); }
    /// N, the candidates.
    [[nodiscard]] std::uint32_t candidates() const noexcept { return leaders_.candidates(); }
    /// R, the requesters with leader sets and rule state of their own.
    [[nodiscard]] std::uint32_t requesters() const noexcept { return leaders_.requesters(); }
    /// The rule's state; leader identification costs nothing (see the header comment).
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return leader_sets::storage_bits() + rule_.storage_bits();
    }

private:
    static const leader_placement& checked(const leader_placement& p, const sampler_names& n) {
        constexpr auto rule_max = static_cast<std::uint32_t>(Rule::max_candidates);
        memsub::require(p.candidates <= rule_max, n.component, n.candidates, p.candidates,
                        "more candidates than the follower rule can choose among");
        return p;
    }

    leader_sets leaders_;
    Rule rule_;
    sampling_phase phase_ = sampling_phase::learning;
};

static_assert(follower_rule<psel_rule>);
static_assert(follower_rule<argmin_rule> && rule_observes_hits<argmin_rule>);

} // namespace memsub
