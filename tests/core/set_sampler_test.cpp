// Set sampling (core/set_sampler.hpp): leader placement for N candidates and R requesters (DIP
// ISCA 2007 §5 complement-select, RRIP ISCA 2010 §4.5 thread-aware shift, LATTE-CC's 3 modes ×
// 4 sets of 32), explicit lists, config errors, psel_rule and argmin_rule, and a custom rule.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <memsub/core/set_sampler.hpp>

using namespace memsub;

namespace {

/// The parameter a config_error names, "<no error>" when construction succeeds.
template <class F>
std::string param_of_error(F&& make) {
    try {
        make();
    } catch (const config_error& e) {
        return e.parameter();
    }
    return "<no error>";
}

/// The leader sets of (candidate, requester), in set order.
std::vector<std::uint32_t> leaders_of(const leader_sets& l, std::uint32_t candidate,
                                      std::uint32_t requester = 0) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t s = 0; s < l.sets(); ++s)
        if (l.role(set_index{s}) == set_role{.candidate = candidate, .requester = requester})
            out.push_back(s);
    return out;
}

leader_sets make_leaders(std::uint32_t sets, std::uint32_t candidates, std::uint32_t k,
                         std::uint32_t requesters = 1) {
    return leader_sets(sets, {.candidates = candidates,
                              .leaders_per_candidate = k,
                              .requesters = requesters,
                              .leaders = {}});
}

} // namespace

TEST_CASE("N = 2 is DIP's complement-select (ISCA 2007 §5): N = 1024, K = 32") {
    const leader_sets l(1024, {}); // automatic K = 32 at 1024 sets
    CHECK(l.leaders_per_candidate() == 32);
    CHECK_FALSE(l.is_explicit());
    CHECK(l.leader_count() == 64);
    const auto side0 = leaders_of(l, 0), side1 = leaders_of(l, 1);
    REQUIRE(side0.size() == 32);
    REQUIRE(side1.size() == 32);
    for (std::uint32_t c = 0; c < 32; ++c) {
        CHECK(side0[c] == 33 * c);
        CHECK(side1[c] == 32 * c + 31 - c);
    }
    CHECK(l.role(set_index{1}) == set_role{}); // a follower
    CHECK_FALSE(l.role(set_index{1}).is_leader());
    CHECK(l.leads_for(set_index{66}, 0) == 0);
    CHECK(l.leads_for(set_index{62}, 0) == 1);
    CHECK(l.leads_for(set_index{63}, 0) == no_candidate);
    CHECK(leader_sets::storage_bits() == 0); // combinational
    CHECK(l.leader_tag_bits() == 0);
}

TEST_CASE("automatic K: 32 from 1024 sets, else the largest power of two with K^2 <= sets") {
    CHECK(leader_sets::automatic_leaders(4096) == 32);
    CHECK(leader_sets::automatic_leaders(1024) == 32);
    CHECK(leader_sets::automatic_leaders(512) == 16);
    CHECK(leader_sets::automatic_leaders(64) == 8);
    CHECK(leader_sets::automatic_leaders(32) == 4);
    CHECK(leader_sets::automatic_leaders(3) == 1);
    CHECK(leader_sets(32, {.candidates = 3}).leaders_per_candidate() == 4);
}

TEST_CASE("N = 3 on 32 sets, K = 4 (LATTE-CC): 12 disjoint leader sets, 4 per mode, spread") {
    const leader_sets l = make_leaders(32, 3, 4);
    CHECK(l.leader_count() == 12);
    CHECK(leaders_of(l, 0) == std::vector<std::uint32_t>{0, 9, 18, 27});
    CHECK(leaders_of(l, 1) == std::vector<std::uint32_t>{7, 14, 21, 28});
    CHECK(leaders_of(l, 2) == std::vector<std::uint32_t>{2, 11, 20, 29});
    std::set<std::uint32_t> all;
    for (std::uint32_t c = 0; c < 3; ++c) {
        const auto sets = leaders_of(l, c);
        all.insert(sets.begin(), sets.end());
        // Spread across the set index space: one leader in each quarter (region of 8 sets).
        for (std::uint32_t region = 0; region < 4; ++region) CHECK(sets[region] / 8 == region);
    }
    CHECK(all.size() == 12);
    std::uint32_t followers = 0;
    for (std::uint32_t s = 0; s < 32; ++s) followers += !l.role(set_index{s}).is_leader();
    CHECK(followers == 20);
}

TEST_CASE("thread-aware shift (RRIP §4.5): requester t's offsets move by 2t, all disjoint") {
    const std::uint32_t sets = 2048, k = 32, r = sets / k, requesters = 4;
    const leader_sets l = make_leaders(sets, 2, k, requesters);
    CHECK(l.leader_count() == 2 * k * requesters);
    std::set<std::uint32_t> all;
    for (std::uint32_t t = 0; t < requesters; ++t) {
        const auto side0 = leaders_of(l, 0, t), side1 = leaders_of(l, 1, t);
        REQUIRE(side0.size() == k);
        REQUIRE(side1.size() == k);
        for (std::uint32_t c = 0; c < k; ++c) {
            CHECK(side0[c] == c * r + (c + 2 * t) % r);
            CHECK(side1[c] == c * r + (r - 1 - c + r - 2 * t) % r);
        }
        all.insert(side0.begin(), side0.end());
        all.insert(side1.begin(), side1.end());
    }
    CHECK(all.size() == 2 * k * requesters);
    // A set leads only for its own requester; ids >= requesters count as requester 0.
    const std::uint32_t lead1 = leaders_of(l, 0, 1).front();
    CHECK(l.leads_for(set_index{lead1}, 1) == 0);
    CHECK(l.leads_for(set_index{lead1}, 0) == no_candidate);
    CHECK(l.leads_for(set_index{0}, 7) == 0); // set 0 leads side 0 for requester 0
    CHECK(l.requester_of(7) == 0);
    CHECK(l.requester_of(3) == 3);
}

TEST_CASE("explicit leaders") {
    const leader_sets l(8, {.candidates = 3,
                            .requesters = 2,
                            .leaders = {{.set = 5, .candidate = 2, .requester = 1},
                                        {.set = 0, .candidate = 0},
                                        {.set = 3, .candidate = 1}}});
    CHECK(l.is_explicit());
    CHECK(l.leaders_per_candidate() == 0);
    CHECK(l.leader_count() == 3);
    CHECK(l.role(set_index{5}) == set_role{.candidate = 2, .requester = 1});
    CHECK(l.role(set_index{3}) == set_role{.candidate = 1, .requester = 0});
    CHECK_FALSE(l.role(set_index{4}).is_leader());
    CHECK(l.leads_for(set_index{5}, 1) == 2);
    CHECK(l.leads_for(set_index{5}, 0) == no_candidate);
    // A per-set tag naming one of 3 × 2 roles or none needs 3 bits (reported, not counted).
    CHECK(l.leader_tag_bits() == 8 * 3);
    CHECK(leader_sets::storage_bits() == 0);
}

TEST_CASE("config errors name the parameter") {
    auto placement_error = [](std::uint32_t sets, leader_placement p) {
        return param_of_error([&] { [[maybe_unused]] const leader_sets l(sets, p); });
    };
    // Overlap: 17 requesters' 2t shifts do not fit in 32-set regions (16 do).
    CHECK(placement_error(1024, {.requesters = 17}) == "leaders");
    CHECK(placement_error(1024, {.requesters = 16}) == "<no error>");
    // N = 3 on 32 sets, K = 4, r = 8: ⌈3/2⌉·R ≤ 4 fits R = 2, not R = 3.
    CHECK(placement_error(32, {.candidates = 3, .leaders_per_candidate = 4, .requesters = 2}) ==
          "<no error>");
    CHECK(placement_error(32, {.candidates = 3, .leaders_per_candidate = 4, .requesters = 3}) ==
          "leaders");
    CHECK(placement_error(8, {.leaders = {{.set = 2, .candidate = 0},
                                          {.set = 2, .candidate = 1}}}) == "leaders");
    // K² > sets, K not dividing the sets.
    CHECK(placement_error(32, {.candidates = 3, .leaders_per_candidate = 8}) ==
          "leaders_per_candidate");
    CHECK(placement_error(1024, {.leaders_per_candidate = 3}) == "leaders_per_candidate");
    CHECK(placement_error(1024, {.leaders_per_candidate = 2048}) == "leaders_per_candidate");
    // Candidate and requester counts; fewer sets than candidates.
    CHECK(placement_error(32, {.candidates = 1}) == "candidates");
    CHECK(placement_error(1024, {.candidates = 64}) == "candidates");
    CHECK(placement_error(1024, {.candidates = 63, .leaders_per_candidate = 1}) == "<no error>");
    CHECK(placement_error(32, {.requesters = 0}) == "requesters");
    CHECK(placement_error(32, {.requesters = 1025}) == "requesters");
    CHECK(placement_error(2, {.candidates = 3}) == "sets");
    // Bad explicit entries.
    CHECK(placement_error(8, {.leaders = {{.set = 1, .candidate = 2}}}) == "leaders[].candidate");
    CHECK(placement_error(8, {.leaders = {{.set = 8, .candidate = 0}}}) == "leaders[].set");
    CHECK(placement_error(8, {.leaders = {{.set = 1, .requester = 1}}}) == "leaders[].requester");
    // The rule's own limits and params.
    CHECK(param_of_error([] { set_sampler<psel_rule>(32, {.candidates = 3}); }) == "candidates");
    CHECK(param_of_error([] { set_sampler<psel_rule>(32, {.rule = {.psel_bits = 0}}); }) ==
          "psel_bits");
    CHECK(param_of_error([] { set_sampler<psel_rule>(32, {.rule = {.psel_bits = 32}}); }) ==
          "psel_bits");
    CHECK(param_of_error([] { set_sampler<argmin_rule>(32, {.rule = {.counter_bits = 0}}); }) ==
          "counter_bits");
    CHECK(param_of_error([] { set_sampler<argmin_rule>(32, {.rule = {.counter_bits = 65}}); }) ==
          "counter_bits");
    CHECK(param_of_error([] {
              set_sampler<argmin_rule>(32, {.candidates = 3, .rule = {.initial_choice = 3}});
          }) == "initial_choice");
    // A consumer's spelling of the component and the parameters reaches the message.
    try {
        leader_sets(1024, {.leaders_per_candidate = 64},
                    {.component = "my_policy", .leaders_per_candidate = "sdm_sets"});
        FAIL("expected a config_error");
    } catch (const config_error& e) {
        CHECK(e.component() == "my_policy");
        CHECK(e.parameter() == "sdm_sets");
        CHECK(e.value() == "64");
    }
}

TEST_CASE("property: unique leader sets, K per candidate per requester, one per region") {
    std::uint32_t built = 0, rejected = 0;
    for (std::uint32_t sets = 2; sets <= 4096; sets *= 2)
        for (std::uint32_t k = 1; std::uint64_t{k} * k <= sets; k *= 2)
            for (std::uint32_t n = 2; n <= 7; ++n)
                for (std::uint32_t requesters : {1u, 2u, 3u, 4u, 5u, 8u, 16u}) {
                    if (sets < n) continue;
                    const std::uint32_t region = sets / k;
                    const bool fits = std::uint64_t{(n + 1) / 2} * requesters <= region / 2;
                    INFO("sets " << sets << " K " << k << " N " << n << " R " << requesters);
                    if (!fits) {
                        CHECK(param_of_error([&] { make_leaders(sets, n, k, requesters); }) ==
                              "leaders");
                        ++rejected;
                        continue;
                    }
                    const leader_sets l = make_leaders(sets, n, k, requesters);
                    ++built;
                    std::vector<std::uint32_t> count(std::size_t{n} * requesters, 0);
                    std::vector<std::uint32_t> per_region(std::size_t{n} * requesters * k, 0);
                    std::uint32_t leaders = 0;
                    for (std::uint32_t s = 0; s < sets; ++s) {
                        const set_role r = l.role(set_index{s});
                        if (!r.is_leader()) continue;
                        ++leaders;
                        REQUIRE(r.candidate < n);
                        REQUIRE(r.requester < requesters);
                        ++count[std::size_t{r.requester} * n + r.candidate];
                        ++per_region[(std::size_t{r.requester} * n + r.candidate) * k + s / region];
                        // The table agrees with the closed form.
                        REQUIRE(leader_sets::complement_select_set(sets, k, requesters, r.candidate,
                                                                   r.requester, s / region) == s);
                    }
                    // Each set holds one role, so N·K·R roles over N·K·R leaders means unique.
                    CHECK(leaders == n * k * requesters);
                    CHECK(l.leader_count() == leaders);
                    for (std::uint32_t c : count) CHECK(c == k);
                    for (std::uint32_t c : per_region) CHECK(c == 1);
                }
    CHECK(built > 1000);
    CHECK(rejected > 100);
}

TEST_CASE("psel_rule: saturates at both ends, moves by the cost, followers take the MSB") {
    // 8 sets, set 0 leads candidate 0, set 1 leads candidate 1; 4-bit PSEL (max 15, MSB at 8).
    set_sampler<psel_rule> s(8,
                             {.leaders = {{.set = 0, .candidate = 0}, {.set = 1, .candidate = 1}},
                              .rule = {.psel_bits = 4}});
    const psel_rule& rule = s.rule();
    CHECK(rule.psel(0) == 0);
    CHECK(rule.psel_max() == 15);
    CHECK(s.candidate_of(set_index{2}) == 0);
    s.on_miss(set_index{0}, 0, 5); // by the cost, not by one
    CHECK(rule.psel(0) == 5);
    s.on_miss(set_index{0}, 0, 3);
    CHECK(rule.psel(0) == 8); // MSB set: followers switch
    CHECK(s.candidate_of(set_index{2}) == 1);
    CHECK(s.candidate_of(set_index{0}) == 0); // leaders never follow
    CHECK(s.candidate_of(set_index{1}) == 1);
    CHECK(s.follower_candidate() == 1);
    s.on_miss(set_index{0}, 0, 100);
    CHECK(rule.psel(0) == 15);    // saturates high
    s.on_hit(set_index{0}, 0, 7); // hits never move PSEL
    s.on_hit(set_index{1}, 0, 7);
    CHECK(rule.psel(0) == 15);
    s.on_miss(set_index{4}, 0, 9); // followers never train
    CHECK(rule.psel(0) == 15);
    s.on_miss(set_index{1}, 0, 8);
    CHECK(rule.psel(0) == 7);
    CHECK(s.candidate_of(set_index{2}) == 0);
    s.on_miss(set_index{1}, 0); // default cost 1
    CHECK(rule.psel(0) == 6);
    s.on_miss(set_index{1}, 0, 1000);
    CHECK(rule.psel(0) == 0); // saturates low
    // The lazy cost runs only in a leader set of the requester.
    int calls = 0;
    auto cost = [&calls]() noexcept {
        ++calls;
        return 2u;
    };
    s.on_miss(set_index{3}, 0, cost);
    CHECK(calls == 0);
    s.on_miss(set_index{0}, 0, cost);
    CHECK(calls == 1);
    CHECK(rule.psel(0) == 2);
    CHECK(s.storage_bits() == 4);
}

TEST_CASE("psel_rule per requester: only the owner's misses in its leaders move its PSEL") {
    set_sampler<psel_rule> s(64, {.requesters = 2});
    const std::uint32_t lead1 = leaders_of(s.leaders(), 0, 1).front();
    for (int i = 0; i < 600; ++i) s.on_miss(set_index{lead1}, 1);
    s.on_miss(set_index{lead1}, 0); // requester 0 in requester 1's leader: a follower
    CHECK(s.rule().psel(1) == 600);
    CHECK(s.rule().psel(0) == 0);
    CHECK(s.candidate_of(set_index{lead1}, 1) == 0); // forced: t's own leader
    CHECK(s.candidate_of(set_index{lead1 + 1}, 1) == 1);
    CHECK(s.candidate_of(set_index{lead1}, 0) == 0);
    CHECK(s.candidate_of(set_index{lead1 + 1}, 5) == 0); // id 5 counts as requester 0
    CHECK(s.storage_bits() == 2 * 10);
}

TEST_CASE("argmin_rule: least cost, ties to the lower candidate, unsampled excluded, reset") {
    // 3 candidates with one explicit leader set each: sets 0, 1, 2.
    set_sampler<argmin_rule> s(8, {.candidates = 3,
                                   .leaders = {{.set = 0, .candidate = 0},
                                               {.set = 1, .candidate = 1},
                                               {.set = 2, .candidate = 2}}});
    argmin_rule& rule = s.rule();
    CHECK(s.follower_candidate() == 0); // initial_choice before any decision
    rule.decide();
    CHECK(s.follower_candidate() == 0); // nothing sampled: unchanged

    // Only candidate 2 sampled: chosen even though candidates 0 and 1 "cost" nothing.
    s.on_miss(set_index{2}, 0, 10);
    CHECK(s.follower_candidate() == 0); // the choice changes only at decide()
    rule.decide();
    CHECK(s.follower_candidate() == 2);

    s.on_miss(set_index{0}, 0, 4);
    s.on_hit(set_index{0}, 0, 3); // cost 7
    s.on_miss(set_index{1}, 0, 6);
    s.on_hit(set_index{1}, 0);     // cost 6, hits cost 0 by default
    s.on_miss(set_index{5}, 0, 1); // a follower: not counted
    CHECK(rule.counts(0, 0).hits == 1);
    CHECK(rule.counts(0, 0).misses == 1);
    CHECK(rule.counts(0, 0).cost() == 7);
    CHECK(rule.counts(0, 1).samples() == 2);
    rule.decide();
    CHECK(s.follower_candidate() == 1);
    CHECK(s.candidate_of(set_index{0}) == 0); // leaders keep their candidate
    CHECK(s.candidate_of(set_index{7}) == 1);

    s.on_hit(set_index{1}, 0, 1); // candidates 0 and 1 tie at 7 (2 at 10): the lower wins
    rule.decide();
    CHECK(s.follower_candidate() == 0);
    rule.decide([](const candidate_counts&) { return 1; }); // a three-way tie: the lowest
    CHECK(s.follower_candidate() == 0);
    CHECK(rule.counts(0, 2).cost() == 10);

    // A consumer's cost over (candidate, counts), floating point, NaN skipped.
    rule.decide([](std::uint32_t c, const candidate_counts& k) {
        return c == 0 ? std::nan("") : static_cast<double>(k.cost()) / static_cast<double>(c);
    });
    CHECK(s.follower_candidate() == 2); // 10/2 = 5 < 7/1

    // Reset clears the counts, not the choice; then unsampled candidates are excluded again.
    rule.reset();
    CHECK(rule.counts(0, 0).samples() == 0);
    CHECK(s.follower_candidate() == 2);
    s.on_miss(set_index{1}, 0, 50);
    rule.decide();
    CHECK(s.follower_candidate() == 1);
}

TEST_CASE("argmin_rule: per requester, per-event decisions, saturation, storage") {
    set_sampler<argmin_rule> s(32, {.candidates = 3,
                                    .leaders_per_candidate = 4,
                                    .requesters = 2,
                                    .rule = {.counter_bits = 4, .decide_per_event = true}});
    const auto& rule = s.rule();
    const std::uint32_t r1_mode2 = leaders_of(s.leaders(), 2, 1).front();
    const std::uint32_t r1_mode0 = leaders_of(s.leaders(), 0, 1).front();
    s.on_miss(set_index{r1_mode2}, 1, 3);
    CHECK(s.follower_candidate(1) == 2); // decided at once
    CHECK(s.follower_candidate(0) == 0); // requester 0 untouched
    s.on_miss(set_index{r1_mode0}, 1, 3);
    CHECK(s.follower_candidate(1) == 0); // tie → lower
    s.on_miss(set_index{r1_mode0}, 1, 100);
    CHECK(rule.counts(1, 0).miss_cost == 15); // 4-bit counters saturate
    CHECK(s.follower_candidate(1) == 2);
    s.rule().reset(1);
    CHECK(rule.counts(1, 0).samples() == 0);
    CHECK(s.follower_candidate(1) == 2);
    s.rule().choose(1, 1);
    CHECK(s.follower_candidate(1) == 1);
    // 2 requesters × (3 candidates × 4 counters × 4 bits + 2 choice bits).
    CHECK(s.storage_bits() == 2 * (3 * 4 * 4 + 2));
    CHECK(s.rule().decide(0, [](const candidate_counts&) { return 1; }) == 0); // none sampled
}

namespace {
/// A rule written outside memsub (Adaptive-Hit-Count, a LATTE-CC baseline of [Dissertation] §4.3:
/// the most hits wins, ties → lower), to show the concept is all a consumer needs.
class most_hits_rule {
public:
    struct params {};
    static constexpr std::uint32_t max_candidates = 8;
    most_hits_rule(const params&, const sampler_shape& shape) : hits_(shape.candidates, 0) {}
    void on_leader_miss(std::uint32_t, std::uint32_t, std::uint64_t) noexcept {}
    void on_leader_hit(std::uint32_t, std::uint32_t c, std::uint64_t) noexcept {
        ++hits_[c];
        best_ = 0;
        for (std::uint32_t i = 1; i < hits_.size(); ++i)
            if (hits_[i] > hits_[best_]) best_ = i;
    }
    [[nodiscard]] std::uint32_t choice(std::uint32_t) const noexcept { return best_; }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return hits_.size() * 16; }

private:
    std::vector<std::uint32_t> hits_;
    std::uint32_t best_ = 0;
};

struct missing_noexcept_rule {
    struct params {};
    static constexpr std::uint32_t max_candidates = 2;
    missing_noexcept_rule(const params&, const sampler_shape&) {}
    void on_leader_miss(std::uint32_t, std::uint32_t, std::uint64_t) {} // FR4 needs noexcept
    [[nodiscard]] std::uint32_t choice(std::uint32_t) const noexcept { return 0; }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return 0; }
};
} // namespace

static_assert(follower_rule<most_hits_rule> && rule_observes_hits<most_hits_rule>);
static_assert(!follower_rule<missing_noexcept_rule>);
static_assert(!rule_observes_hits<psel_rule>);

TEST_CASE("a consumer's own follower rule plugs in") {
    set_sampler<most_hits_rule> s(32, {.candidates = 3, .leaders_per_candidate = 4});
    CHECK(s.candidate_of(set_index{5}) == 0);
    s.on_hit(set_index{2}, 0); // mode 2's leader
    CHECK(s.candidate_of(set_index{5}) == 2);
    s.on_hit(set_index{9}, 0); // mode 0's leader: tie → 0
    CHECK(s.candidate_of(set_index{5}) == 0);
    CHECK(s.storage_bits() == 3 * 16);
    CHECK(param_of_error([] { set_sampler<most_hits_rule>(1024, {.candidates = 9}); }) ==
          "candidates");
}

TEST_CASE("LATTE-CC-style use: AMAT over per-mode counts at epoch boundaries") {
    // [Dissertation] §4.2.1 (docs/mechanisms/latte_cc.md): AMAT = (N_hit·max(hit_latency −
    // tolerance, 0) + N_miss·miss_latency) / (N_hit + N_miss), hit_latency = mean effective hit
    // latency.
    set_sampler<argmin_rule> s(32, {.candidates = 3, .leaders_per_candidate = 4});
    const double miss_latency = 120;
    auto amat = [&](double tolerance) {
        return [=](const candidate_counts& k) {
            const double hit_latency =
                k.hits == 0 ? 0.0 : static_cast<double>(k.hit_cost) / static_cast<double>(k.hits);
            const double hidden = std::max(hit_latency - tolerance, 0.0);
            return (static_cast<double>(k.hits) * hidden +
                    static_cast<double>(k.misses) * miss_latency) /
                   static_cast<double>(k.samples());
        };
    };
    // Learning EP: insertions count as misses, hits carry their effective hit latency.
    for (std::uint32_t set : {0u, 9u, 18u, 27u}) { // mode 0, uncompressed: 4 misses, 4 hits
        s.on_miss(set_index{set}, 0);
        s.on_hit(set_index{set}, 0, 0);
    }
    for (std::uint32_t set : {7u, 14u, 21u, 28u}) // mode 1, BDI (2 cycles): 8 misses, 8 hits
        for (int i = 0; i < 2; ++i) {
            s.on_miss(set_index{set}, 0);
            s.on_hit(set_index{set}, 0, 2);
        }
    for (std::uint32_t set : {2u, 11u, 20u, 29u}) // mode 2, SC² (14 cycles): 8 hits, 1 miss
        for (int i = 0; i < 2; ++i) s.on_hit(set_index{set}, 0, 14);
    s.on_miss(set_index{2}, 0);
    s.on_miss(set_index{3}, 0);         // a follower: not counted
    CHECK(s.follower_candidate() == 0); // mode 0 before the first decision
    s.rule().decide(amat(0));           // latency-sensitive: no tolerance
    // AMAT: mode 0 = 60, mode 1 = (8·2 + 8·120)/16 = 61, mode 2 = (8·14 + 1·120)/9 ≈ 25.8.
    CHECK(s.follower_candidate() == 2);
    s.rule().reset(); // next period
    s.on_miss(set_index{0}, 0);
    s.rule().decide(amat(100));
    CHECK(s.follower_candidate() == 0); // only mode 0 has counted accesses
}
