// Set sampling for LATTE-CC-style learning (core/set_sampler.hpp, SS1–SS7): the learning / adaptive
// phase switch ([Dissertation] §4.2.2: dedicated sets use their mode only in the learning EP),
// argmin_rule's allowed mask (SC is not a candidate before its first code book, §4.3.3), events
// attributed by the candidate a block was inserted under, and a property test against a
// reference model in plain arrays.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <memsub/core/set_sampler.hpp>

using namespace memsub;

namespace {

template <class F>
std::string param_of_error(F&& make) {
    try {
        make();
    } catch (const config_error& e) {
        return e.parameter();
    }
    return "<no error>";
}

/// LATTE-CC's placement: 32 sets, 3 modes, 4 dedicated sets each (set_sampler_test.cpp checks it).
set_sampler<argmin_rule> latte_sampler(argmin_rule::params rule = {}) {
    return set_sampler<argmin_rule>(
        32, {.candidates = 3, .leaders_per_candidate = 4, .requesters = 1, .rule = rule});
}
/// The dedicated sets of modes 0, 1 and 2.
constexpr std::array<std::array<std::uint32_t, 4>, 3> mode_sets{
    {{0, 9, 18, 27}, {7, 14, 21, 28}, {2, 11, 20, 29}}};

} // namespace

TEST_CASE("phase: leaders use their candidate while learning, follow in the adaptive phase") {
    auto s = latte_sampler();
    CHECK(s.phase() == sampling_phase::learning); // the default: set dueling's
    s.rule().choose(0, 1);                        // followers on mode 1
    CHECK(s.candidate_of(set_index{2}) == 2);     // mode 2's dedicated set, forced
    CHECK(s.candidate_of(set_index{9}) == 0);     // mode 0's
    CHECK(s.candidate_of(set_index{7}) == 1);
    CHECK(s.candidate_of(set_index{3}) == 1); // a follower

    s.set_phase(sampling_phase::adaptive);
    CHECK(s.phase() == sampling_phase::adaptive);
    for (std::uint32_t set = 0; set < 32; ++set) CHECK(s.candidate_of(set_index{set}) == 1);
    // The placement does not move: the dedicated sets are still reported as leaders.
    CHECK(s.role(set_index{2}) == set_role{.candidate = 2, .requester = 0});
    // Set-attributed events do not depend on the phase (SS2, SS6): a miss in set 2 is mode 2's.
    s.on_miss(set_index{2}, 0, 5);
    CHECK(s.rule().counts(0, 2).misses == 1);
    CHECK(s.rule().counts(0, 2).miss_cost == 5);

    s.set_phase(sampling_phase::learning); // the next period's learning EP
    CHECK(s.candidate_of(set_index{2}) == 2);
    CHECK(s.candidate_of(set_index{3}) == 1);
}

TEST_CASE("phase with requesters: only the owner's accesses were forced; adaptive frees them") {
    set_sampler<argmin_rule> s(32, {.candidates = 3, .leaders_per_candidate = 4, .requesters = 2});
    s.rule().choose(0, 1);
    s.rule().choose(1, 0);
    std::uint32_t r1_mode2 = 32;
    for (std::uint32_t set = 0; set < 32; ++set)
        if (s.role(set_index{set}) == set_role{.candidate = 2, .requester = 1}) r1_mode2 = set;
    REQUIRE(r1_mode2 < 32);
    CHECK(s.candidate_of(set_index{r1_mode2}, 1) == 2);
    CHECK(s.candidate_of(set_index{r1_mode2}, 0) == 1); // requester 0 follows there
    s.set_phase(sampling_phase::adaptive);
    CHECK(s.candidate_of(set_index{r1_mode2}, 1) == 0);
    CHECK(s.candidate_of(set_index{r1_mode2}, 0) == 1);
    CHECK(s.candidate_of(set_index{r1_mode2}, 9) == 1); // id 9 counts as requester 0
}

TEST_CASE("psel_rule (set dueling) never leaves the learning phase: leaders stay forced") {
    set_sampler<psel_rule> s(8,
                             {.leaders = {{.set = 0, .candidate = 0}, {.set = 1, .candidate = 1}},
                              .rule = {.psel_bits = 2}});
    for (int i = 0; i < 3; ++i) s.on_miss(set_index{0}, 0);
    CHECK(s.follower_candidate() == 1);
    CHECK(s.candidate_of(set_index{0}) == 0);
    CHECK(s.candidate_of(set_index{1}) == 1);
    s.set_phase(sampling_phase::adaptive); // possible, though set dueling never does it
    CHECK(s.candidate_of(set_index{0}) == 1);
}

TEST_CASE("allowed mask: decisions skip disallowed candidates, even the cheapest") {
    // Period 1 of LATTE-CC: SC (mode 2) has no code book, so only modes 0 and 1 may be chosen.
    auto s = latte_sampler({.allowed = 0b011});
    argmin_rule& rule = s.rule();
    CHECK(rule.allowed(0) == 0b011);
    CHECK(rule.is_allowed(0, 1));
    CHECK_FALSE(rule.is_allowed(0, 2));
    CHECK_FALSE(rule.is_allowed(0, 3)); // not a candidate at all
    // SS7: mode 2's dedicated sets still lead while learning, and their events still count.
    CHECK(s.candidate_of(set_index{2}) == 2);
    CHECK(s.on_leader_miss_of(set_index{2}, 2, 0, 1));
    CHECK(rule.counts(0, 2).misses == 1); // cost 1: the cheapest
    s.on_miss(set_index{0}, 0, 9);        // mode 0: 9
    s.on_miss(set_index{7}, 0, 4);        // mode 1: 4
    rule.decide();
    CHECK(s.follower_candidate() == 1); // not 2
    // A consumer's cost too: mode 2 would win on any of them.
    rule.decide([](std::uint32_t c, const candidate_counts&) { return c == 2 ? -1.0 : double(c); });
    CHECK(s.follower_candidate() == 0);

    // Period 2: SC joins. set_allowed does not change the choice; the next decision does.
    rule.set_allowed(0b111);
    CHECK(s.follower_candidate() == 0);
    rule.decide();
    CHECK(s.follower_candidate() == 2);
    // Taking a candidate away leaves the current choice in force until the next decision.
    rule.set_allowed(0b001);
    CHECK(s.follower_candidate() == 2);
    rule.decide();
    CHECK(s.follower_candidate() == 0);
    // No allowed candidate with samples: the choice stays, even a disallowed one.
    rule.choose(0, 2); // choose ignores the mask (an oracle)
    rule.reset();
    s.on_miss(set_index{7}, 0, 1);
    rule.decide();
    CHECK(s.follower_candidate() == 2);
    rule.set_allowed(0);
    s.on_miss(set_index{0}, 0, 1);
    CHECK(rule.decide(0, [](const candidate_counts& k) { return k.cost(); }) == 2);
    // Bits at and above the number of candidates are dropped.
    rule.set_allowed(0, ~std::uint64_t{0});
    CHECK(rule.allowed(0) == 0b111);
}

TEST_CASE("allowed mask: per requester, per-event decisions, Adaptive-Hit-Count, config") {
    set_sampler<argmin_rule> s(8, {.candidates = 3,
                                   .requesters = 2,
                                   .leaders = {{.set = 0, .candidate = 0},
                                               {.set = 1, .candidate = 1},
                                               {.set = 2, .candidate = 2},
                                               {.set = 4, .candidate = 0, .requester = 1},
                                               {.set = 5, .candidate = 1, .requester = 1},
                                               {.set = 6, .candidate = 2, .requester = 1}},
                                   .rule = {.decide_per_event = true}});
    argmin_rule& rule = s.rule();
    rule.set_allowed(1, 0b101); // requester 1 may not take candidate 1
    s.on_miss(set_index{1}, 0, 1);
    s.on_miss(set_index{5}, 1, 1);
    CHECK(s.follower_candidate(0) == 1); // decided at once, allowed
    CHECK(s.follower_candidate(1) == 0); // candidate 1 is the only sampled one: not allowed
    s.on_miss(set_index{6}, 1, 7);
    CHECK(s.follower_candidate(1) == 2);

    // Adaptive-Hit-Count ([Dissertation] §4.3.7): the most hits, ties → lower; via the callback.
    const auto most_hits = [](const candidate_counts& k) { return -static_cast<double>(k.hits); };
    rule.reset();
    rule.set_allowed(0b011);
    for (int i = 0; i < 5; ++i) s.on_hit(set_index{2}, 0); // candidate 2: most hits, disallowed
    for (int i = 0; i < 3; ++i) s.on_hit(set_index{1}, 0);
    for (int i = 0; i < 3; ++i) s.on_hit(set_index{0}, 0);
    rule.decide(most_hits);
    CHECK(s.follower_candidate(0) == 0); // 3 = 3: the lower
    CHECK(s.follower_candidate(1) == 2); // requester 1 has no samples: unchanged

    CHECK(param_of_error([] {
              set_sampler<argmin_rule>(32, {.candidates = 3, .rule = {.allowed = 0b110}});
          }) == "allowed"); // initial_choice 0 not allowed
    CHECK(param_of_error([] {
              set_sampler<argmin_rule>(
                  32, {.candidates = 3, .rule = {.initial_choice = 1, .allowed = 0b110}});
          }) == "<no error>");
}

TEST_CASE("attribution by the inserted candidate: a LATTE-CC period, worked by hand") {
    auto s = latte_sampler();
    const argmin_rule& rule = s.rule();
    // EP 1 (learning): every dedicated set inserts one block under its mode and hits it once.
    for (std::uint32_t m = 0; m < 3; ++m)
        for (std::uint32_t set : mode_sets[m]) {
            const std::uint32_t inserted = s.candidate_of(set_index{set});
            CHECK(inserted == m);
            CHECK(s.on_leader_miss_of(set_index{set}, inserted, 0));
            CHECK(s.on_leader_hit_of(set_index{set}, inserted, 0, 2 * m));
        }
    // Events outside a leader set of that candidate do not count.
    CHECK_FALSE(s.on_leader_miss_of(set_index{3}, 0, 0)); // a follower
    CHECK_FALSE(s.on_leader_hit_of(set_index{0}, 1, 0));  // mode 0's set, a mode-1 block
    CHECK_FALSE(s.on_leader_hit_of(set_index{3}, no_candidate, 0));
    for (std::uint32_t m = 0; m < 3; ++m) {
        CHECK(rule.counts(0, m).misses == 4);
        CHECK(rule.counts(0, m).hits == 4);
        CHECK(rule.counts(0, m).hit_cost == 4 * 2 * m);
    }
    // End of EP 1: the followers take mode 1 (an oracle decision keeps the example short).
    s.set_phase(sampling_phase::adaptive);
    s.rule().choose(0, 1);
    // EP 2: mode 0's set 0 now inserts under mode 1. A hit on that block must not count for
    // mode 0 — the set-attributed on_hit would count it there, which is the bug SS5 avoids.
    const std::uint32_t inserted = s.candidate_of(set_index{0});
    CHECK(inserted == 1);
    CHECK_FALSE(s.on_leader_hit_of(set_index{0}, inserted, 0, 50));
    CHECK(rule.counts(0, 0).hits == 4);
    CHECK(rule.counts(0, 1).hits == 4); // nor for mode 1: set 0 does not sample mode 1
    // A hit on a block inserted in EP 1 (mode 0) still counts: N_hit runs on through EP 2.
    CHECK(s.on_leader_hit_of(set_index{0}, 0, 0, 0));
    CHECK(rule.counts(0, 0).hits == 5);
    // In mode 1's set 7 a block the followers inserted under mode 1 is indistinguishable from
    // one of EP 1 (the same 2-bit mode tag): it counts.
    CHECK(s.on_leader_hit_of(set_index{7}, s.candidate_of(set_index{7}), 0, 2));
    CHECK(rule.counts(0, 1).hits == 5);
    // The set-attributed hit, for contrast, credits the leader's candidate whatever the block.
    s.on_hit(set_index{0}, 0, 50);
    CHECK(rule.counts(0, 0).hits == 6);
    CHECK(rule.counts(0, 0).hit_cost == 50);

    // Candidate-attributed events count wherever the consumer says (SS4).
    s.on_hit_of(2, 0, 14);
    s.on_miss_of(2, 0);
    s.on_miss_of(2, 7, 3); // id 7 counts as requester 0
    CHECK(rule.counts(0, 2).hits == 5);
    CHECK(rule.counts(0, 2).hit_cost == 4 * 4 + 14);
    CHECK(rule.counts(0, 2).misses == 6);
    CHECK(rule.counts(0, 2).miss_cost == 4 + 1 + 3);
}

TEST_CASE("leader-block events: lazy costs, requesters, rules without hit counting") {
    set_sampler<argmin_rule> s(32, {.candidates = 3, .leaders_per_candidate = 4, .requesters = 2});
    int calls = 0;
    auto cost = [&calls]() noexcept {
        ++calls;
        return 6u;
    };
    std::uint32_t r1_mode1 = 32;
    for (std::uint32_t set = 0; set < 32; ++set)
        if (s.role(set_index{set}) == set_role{.candidate = 1, .requester = 1}) r1_mode1 = set;
    REQUIRE(r1_mode1 < 32);
    CHECK_FALSE(s.on_leader_hit_of(set_index{r1_mode1}, 1, 0, cost));  // requester 0: not its set
    CHECK_FALSE(s.on_leader_miss_of(set_index{r1_mode1}, 2, 1, cost)); // another candidate
    CHECK(calls == 0);
    CHECK(s.on_leader_hit_of(set_index{r1_mode1}, 1, 1, cost));
    CHECK(s.on_leader_miss_of(set_index{r1_mode1}, 1, 1, cost));
    CHECK(calls == 2);
    CHECK(s.rule().counts(1, 1).hit_cost == 6);
    CHECK(s.rule().counts(1, 1).miss_cost == 6);
    CHECK(s.rule().counts(0, 1).samples() == 0);

    // psel_rule counts no hits: the hit events are no-ops, the miss events move PSEL.
    set_sampler<psel_rule> d(8,
                             {.leaders = {{.set = 0, .candidate = 0}, {.set = 1, .candidate = 1}},
                              .rule = {.psel_bits = 4}});
    CHECK_FALSE(d.on_leader_hit_of(set_index{0}, 0, 0, 3));
    d.on_hit_of(0, 0, 3);
    CHECK(d.rule().psel(0) == 0);
    CHECK(d.on_leader_miss_of(set_index{0}, 0, 0, 3));
    CHECK_FALSE(d.on_leader_miss_of(set_index{1}, 0, 0, 3));
    d.on_miss_of(1, 0, 1);
    CHECK(d.rule().psel(0) == 2);
}

namespace {

/// An independent model of set_sampler<argmin_rule> in plain arrays.
struct reference_sampler {
    std::uint32_t candidates, requesters;
    std::uint64_t counter_max;
    bool per_event;
    bool learning = true;
    std::vector<std::uint32_t> lead_candidate, lead_requester; // per set; candidates = follower
    std::vector<std::array<std::uint64_t, 4>> counts;          // hits, misses, hit/miss cost
    std::vector<std::uint32_t> choice;
    std::vector<std::uint64_t> allowed;

    std::uint32_t req(std::uint32_t t) const { return t < requesters ? t : 0; }
    std::uint32_t forced(std::uint32_t s, std::uint32_t t) const {
        return lead_candidate[s] < candidates && lead_requester[s] == req(t) ? lead_candidate[s]
                                                                             : candidates;
    }
    std::uint32_t candidate_of(std::uint32_t s, std::uint32_t t) const {
        const std::uint32_t f = forced(s, t);
        return learning && f < candidates ? f : choice[req(t)];
    }
    candidate_counts as_counts(std::uint32_t t, std::uint32_t c) const {
        const auto& k = counts[t * candidates + c];
        return {.hits = k[0], .misses = k[1], .hit_cost = k[2], .miss_cost = k[3]};
    }
    template <class F>
    void decide(std::uint32_t t, F fn) {
        bool found = false;
        double best = 0;
        for (std::uint32_t c = 0; c < candidates; ++c) {
            const candidate_counts k = as_counts(t, c);
            if (!((allowed[t] >> c) & 1u) || k.hits + k.misses == 0) continue;
            const double v = static_cast<double>(fn(c, k));
            if (std::isnan(v)) continue;
            if (!found || v < best) {
                found = true;
                best = v;
                choice[t] = c;
            }
        }
    }
    void add(std::uint32_t t, std::uint32_t c, bool hit, std::uint64_t cost) {
        auto& k = counts[req(t) * candidates + c];
        const std::size_t n = hit ? 0 : 1;
        k[n] = std::min(counter_max, k[n] + 1);
        k[n + 2] = cost > counter_max - k[n + 2] ? counter_max : k[n + 2] + cost;
        if (per_event)
            decide(req(t), [](std::uint32_t, const candidate_counts& x) {
                return x.hit_cost + x.miss_cost;
            });
    }
};

} // namespace

TEST_CASE("property: phases, masks and all event kinds match a reference model in plain arrays") {
    std::mt19937_64 rng(20240611);
    auto pick = [&rng](std::uint64_t n) {
        return static_cast<std::uint32_t>(
            std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng));
    };
    // Costs the consumer may decide on: integer, floating point with NaN, negative (most hits).
    const auto cost_a = [](std::uint32_t, const candidate_counts& k) { return k.cost(); };
    const auto cost_b = [](std::uint32_t c, const candidate_counts& k) {
        return k.misses == 0 && c % 2 == 1
                   ? std::nan("")
                   : (static_cast<double>(k.hits) * static_cast<double>(k.hit_cost % 7) +
                      static_cast<double>(k.misses) * 120.0) /
                         static_cast<double>(k.hits + k.misses);
    };
    const auto cost_c = [](std::uint32_t, const candidate_counts& k) {
        return -static_cast<std::int64_t>(k.hits % 5);
    };
    std::uint64_t events = 0, trained = 0, forced_seen = 0, adaptive_leader_seen = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const std::uint32_t sets = 4 + pick(61), n = 2 + pick(5), r = 1 + pick(3);
        const std::uint32_t counter_bits = trial % 3 == 0 ? 64 : 2 + pick(8);
        const std::uint32_t initial = pick(n);
        const std::uint64_t mask = rng() | (std::uint64_t{1} << initial);
        const bool per_event = pick(4) == 0;
        // Random explicit leaders on distinct sets.
        std::vector<std::uint32_t> order(sets);
        for (std::uint32_t i = 0; i < sets; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<sampled_leader> leaders;
        reference_sampler ref{.candidates = n,
                              .requesters = r,
                              .counter_max = counter_bits == 64
                                                 ? std::numeric_limits<std::uint64_t>::max()
                                                 : (std::uint64_t{1} << counter_bits) - 1,
                              .per_event = per_event,
                              .lead_candidate = std::vector<std::uint32_t>(sets, n),
                              .lead_requester = std::vector<std::uint32_t>(sets, 0),
                              .counts = std::vector<std::array<std::uint64_t, 4>>(n * r),
                              .choice = std::vector<std::uint32_t>(r, initial),
                              .allowed = std::vector<std::uint64_t>(r, mask & ((1u << n) - 1))};
        for (std::uint32_t i = 0, count = 1 + pick(sets); i < count; ++i) {
            const sampled_leader l{.set = order[i], .candidate = pick(n), .requester = pick(r)};
            leaders.push_back(l);
            ref.lead_candidate[l.set] = l.candidate;
            ref.lead_requester[l.set] = l.requester;
        }
        set_sampler<argmin_rule> s(sets, {.candidates = n,
                                          .requesters = r,
                                          .leaders = leaders,
                                          .rule = {.counter_bits = counter_bits,
                                                   .initial_choice = initial,
                                                   .decide_per_event = per_event,
                                                   .allowed = mask}});
        argmin_rule& rule = s.rule();
        INFO("trial " << trial << " sets " << sets << " N " << n << " R " << r << " bits "
                      << counter_bits);
        for (int step = 0; step < 400; ++step) {
            const std::uint32_t set = pick(sets), t = pick(r + 1); // id r counts as 0
            const std::uint32_t c = pick(n), big = pick(4) == 0 ? 1000 : 1;
            const std::uint64_t cost = pick(20) * big;
            // What a block in `set` may have been inserted under: the leader's candidate, the one
            // in force now, any candidate, or none (n: not a candidate).
            const std::uint32_t way = pick(3);
            const std::uint32_t inserted = way == 0   ? ref.forced(set, t)
                                           : way == 1 ? ref.candidate_of(set, t)
                                                      : pick(n + 1);
            const bool leader_block = ref.forced(set, t) < n && ref.forced(set, t) == inserted;
            switch (pick(16)) {
            case 0:
                s.set_phase(pick(2) == 0 ? sampling_phase::learning : sampling_phase::adaptive);
                ref.learning = s.phase() == sampling_phase::learning;
                break;
            case 1:
            case 2:
                s.on_miss(set_index{set}, t, cost);
                if (ref.forced(set, t) < n) ref.add(t, ref.forced(set, t), false, cost);
                break;
            case 3:
                s.on_hit(set_index{set}, t, cost);
                if (ref.forced(set, t) < n) ref.add(t, ref.forced(set, t), true, cost);
                break;
            case 4:
                s.on_miss_of(c, t, cost);
                ref.add(t, c, false, cost);
                break;
            case 5:
                s.on_hit_of(c, t, cost);
                ref.add(t, c, true, cost);
                break;
            case 6:
            case 7: {
                REQUIRE(s.on_leader_miss_of(set_index{set}, inserted, t, cost) == leader_block);
                if (leader_block) ref.add(t, inserted, false, cost);
                trained += leader_block;
                break;
            }
            case 8:
            case 9: {
                REQUIRE(s.on_leader_hit_of(set_index{set}, inserted, t, cost) == leader_block);
                if (leader_block) ref.add(t, inserted, true, cost);
                trained += leader_block;
                break;
            }
            case 10: {
                const int which = static_cast<int>(pick(3));
                if (which == 0) rule.decide(cost_a);
                if (which == 1) rule.decide(cost_b);
                if (which == 2) rule.decide(cost_c);
                for (std::uint32_t u = 0; u < r; ++u) {
                    if (which == 0) ref.decide(u, cost_a);
                    if (which == 1) ref.decide(u, cost_b);
                    if (which == 2) ref.decide(u, cost_c);
                }
                break;
            }
            case 11: {
                const std::uint32_t u = pick(r);
                ref.decide(u, cost_b);
                CHECK(rule.decide(u, cost_b) == ref.choice[u]);
                break;
            }
            case 12: {
                const std::uint64_t m = rng();
                if (pick(2) == 0) {
                    rule.set_allowed(m);
                    for (auto& a : ref.allowed) a = m & ((1u << n) - 1);
                } else {
                    const std::uint32_t u = pick(r);
                    rule.set_allowed(u, m);
                    ref.allowed[u] = m & ((1u << n) - 1);
                }
                break;
            }
            case 13: {
                const std::uint32_t u = pick(r);
                rule.choose(u, c);
                ref.choice[u] = c;
                break;
            }
            case 14:
                if (pick(4) == 0) {
                    rule.reset();
                    for (auto& k : ref.counts) k = {};
                } else {
                    const std::uint32_t u = pick(r);
                    rule.reset(u);
                    for (std::uint32_t x = 0; x < n; ++x) ref.counts[u * n + x] = {};
                }
                break;
            default:
                rule.decide();
                for (std::uint32_t u = 0; u < r; ++u) ref.decide(u, cost_a);
                break;
            }
            ++events;
            // The candidate in force in a random set, for every requester id, agrees.
            const std::uint32_t probe = pick(sets);
            for (std::uint32_t u = 0; u <= r; ++u) {
                REQUIRE(s.candidate_of(set_index{probe}, u) == ref.candidate_of(probe, u));
                forced_seen += ref.learning && ref.forced(probe, u) < n;
                adaptive_leader_seen += !ref.learning && ref.forced(probe, u) < n;
            }
            for (std::uint32_t u = 0; u < r; ++u) {
                REQUIRE(s.follower_candidate(u) == ref.choice[u]);
                REQUIRE(rule.allowed(u) == ref.allowed[u]);
                for (std::uint32_t x = 0; x < n; ++x) {
                    const candidate_counts got = rule.counts(u, x), want = ref.as_counts(u, x);
                    REQUIRE(got.hits == want.hits);
                    REQUIRE(got.misses == want.misses);
                    REQUIRE(got.hit_cost == want.hit_cost);
                    REQUIRE(got.miss_cost == want.miss_cost);
                }
            }
        }
    }
    // The stream exercised what it should.
    CHECK(events == 300 * 400);
    CHECK(trained > 3000);
    CHECK(forced_seen > 10000);
    CHECK(adaptive_leader_seen > 10000);
}
