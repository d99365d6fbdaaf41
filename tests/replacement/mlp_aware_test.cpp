// MLP-aware replacement (Qureshi et al., ISCA 2006): the MLP-based cost of overlapping misses,
// its 3-bit quantisation, LIN's victim against a brute-force model, SBAR's PSEL moved by cost_q
// where LIN and the ATD's LRU disagree, and the followers' switch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/replacement/mlp_aware.hpp>

#include "helpers.hpp"

using namespace memsub;
using namespace memsub::replacement;
using cache::set_associative_cache;

namespace {
memsub::access line_with_cost(std::uint64_t line, std::uint32_t cycles) {
    memsub::access a = repl_test::line_access(line);
    a.hints.miss_cost_cycles = cycles;
    return a;
}
} // namespace

static_assert(replacement_policy<mlp_aware> && reports_storage<mlp_aware>);

TEST_CASE("MLP-based cost: each outstanding miss accrues 1/N per cycle") {
    mlp_cost_meter m(4);
    // An isolated 300-cycle miss costs 300.
    m.issue(0, 0);
    CHECK(m.complete(0, 300) == 300);
    // Two misses fully overlapped for 200 cycles: 100 each.
    m.issue(0, 1000);
    m.issue(1, 1000);
    CHECK(m.complete(0, 1200) == 100);
    CHECK(m.complete(1, 1200) == 100);
    // Partial overlap: A alone 0–100 (100), A and B 100–300 (100 each), B alone 300–400 (100).
    m.issue(2, 2000);
    m.issue(3, 2100);
    CHECK(m.outstanding() == 2);
    CHECK(m.complete(2, 2300) == 200);
    CHECK(m.complete(3, 2400) == 200);
    CHECK(m.outstanding() == 0);
}

TEST_CASE("cost_q: 3 bits, 60-cycle steps") {
    const mlp_aware p(geometry{.sets = 16, .ways = 4, .line_bytes = 64});
    CHECK(p.quantise(0) == 0);
    CHECK(p.quantise(59) == 0);
    CHECK(p.quantise(60) == 1);
    CHECK(p.quantise(119) == 1);
    CHECK(p.quantise(419) == 6);
    CHECK(p.quantise(420) == 7);
    CHECK(p.quantise(100000) == 7);
    const mlp_aware q(geometry{.sets = 16, .ways = 4, .line_bytes = 64},
                      {.cost_bits = 2, .cost_step_cycles = 100});
    CHECK(q.quantise(250) == 2);
    CHECK(q.quantise(1000) == 3);
}

TEST_CASE("LIN: victim = argmin R + 4 cost_q (ties toward LRU), against a brute-force model") {
    const geometry g{.sets = 8, .ways = 8, .line_bytes = 64};
    set_associative_cache<mlp_aware> c(g, {.adaptive = false});
    const auto& p = c.policy();
    CHECK(p.name() == "lin");
    std::uint64_t st = 3, checked = 0, not_lru = 0;
    for (int i = 0; i < 30000; ++i) {
        const std::uint64_t r = splitmix64(st);
        const std::uint64_t line = (r % 4 == 0) ? (r >> 8) % 2000 : (r >> 8) % 80;
        const auto a = line_with_cost(line, static_cast<std::uint32_t>((r >> 40) % 500));
        const set_index s = c.set_of(a.address);
        std::vector<std::uint32_t> rec(g.ways), cq(g.ways);
        for (std::uint32_t w = 0; w < g.ways; ++w) {
            rec[w] = p.recency(s, entry_index{w});
            cq[w] = p.cost_q(s, entry_index{w});
        }
        const auto res = c.access(a);
        if (res.hit) {
            CHECK(p.recency(res.set, res.entry) == g.ways - 1); // MRU
            continue;
        }
        CHECK(p.cost_q(res.set, res.entry) == std::min<std::uint64_t>(7, (r >> 40) % 500 / 60));
        if (res.evictions.empty()) continue;
        std::uint32_t best = 0, best_v = ~0u;
        for (std::uint32_t w = 0; w < g.ways; ++w) {
            const std::uint32_t v = rec[w] + 4 * cq[w];
            if (v < best_v || (v == best_v && rec[w] < rec[best])) {
                best_v = v;
                best = w;
            }
        }
        REQUIRE(res.evictions[0].entry.value == best);
        not_lru += rec[best] != 0;
        ++checked;
    }
    CHECK(checked > 5000);
    CHECK(not_lru > 1000); // the cost term really overrides recency
}

TEST_CASE("LIN with equal costs is LRU") {
    const geometry g{.sets = 4, .ways = 4, .line_bytes = 64};
    set_associative_cache<mlp_aware> lin(g, {.adaptive = false});
    set_associative_cache<lru> plain(g);
    std::uint64_t st = 9;
    for (int i = 0; i < 5000; ++i) {
        const std::uint64_t line = splitmix64(st) % 40;
        const auto a = line_with_cost(line, 200);
        const auto x = lin.access(a);
        const auto y = plain.access(a);
        REQUIRE(x.hit == y.hit);
        REQUIRE(x.evictions.size() == y.evictions.size());
        if (!x.evictions.empty()) REQUIRE(x.evictions[0].line == y.evictions[0].line);
    }
}

TEST_CASE("SBAR: PSEL moves by cost_q where LIN (main directory) and LRU (ATD) disagree") {
    // 4 sets, K = 2 leader sets (complement-select candidate 0: sets 0 and 3), 2 ways.
    const geometry g{.sets = 4, .ways = 2, .line_bytes = 64};
    auto in0 = [](std::uint64_t k) { return 4 * k; }; // lines of set 0
    const std::uint64_t A = in0(1), X = in0(2), B = in0(3);
    // Runs the scenario with A's second miss costing `a_cycles`; returns PSEL after it.
    auto scenario = [&](std::uint32_t a_cycles) {
        set_associative_cache<mlp_aware> c(g);
        const auto& p = c.policy();
        REQUIRE(p.is_leader(set_index{0}));
        REQUIRE(p.is_leader(set_index{3}));
        REQUIRE_FALSE(p.is_leader(set_index{1}));
        CHECK_FALSE(c.access(line_with_cost(A, 0)).hit);
        CHECK_FALSE(c.access(line_with_cost(X, 450)).hit); // cost_q 7
        CHECK(c.access(line_with_cost(A, 0)).hit);         // LRU order: X, A
        // B misses in both: LIN evicts A (R 1 + 0 < R 0 + 4·7); the ATD's LRU evicts X. Both
        // missed: PSEL stays.
        auto r = c.access(line_with_cost(B, 240));
        REQUIRE(r.evictions.size() == 1);
        CHECK(r.evictions[0].line.value == A);
        CHECK(p.psel() == 0);
        // A misses in the main directory but hits the ATD: toward LRU by A's cost_q.
        r = c.access(line_with_cost(A, a_cycles));
        CHECK_FALSE(r.hit);
        REQUIRE(r.evictions.size() == 1);
        CHECK(r.evictions[0].line.value == B); // B: 1 + 4·4 < X: 0 + 4·7
        const std::uint32_t after_a = p.psel();
        // X hits the main directory but misses the ATD: toward LIN by X's cost_q (7).
        CHECK(c.access(line_with_cost(X, 0)).hit);
        CHECK(p.psel() == (after_a > 7 ? after_a - 7 : 0));
        CHECK(p.uses_lin(set_index{1})); // MSB 0: followers use LIN
        CHECK(p.storage_bits() == 4u * 2 * (1 + 3) + 2u * 2 * (40 + 1 + 1) + 10);
        return after_a;
    };
    // One event each time, different costs: PSEL moves by cost_q, not by one.
    CHECK(scenario(180) == 3);
    CHECK(scenario(360) == 6);
    CHECK(scenario(30) == 0);
}

TEST_CASE("SBAR: followers switch to LRU when LRU keeps winning in the leader sets") {
    const geometry g{.sets = 4, .ways = 2, .line_bytes = 64};
    set_associative_cache<mlp_aware> c(g, {.psel_bits = 4}); // switch at 8
    const auto& p = c.policy();
    auto in0 = [](std::uint64_t k) { return 4 * k; };
    // An expensive dead line X pins one of LIN's two ways, so A and B thrash the other; LRU
    // (the ATD) drops X and keeps both: every A and B miss of the main directory hits the ATD.
    c.access(line_with_cost(in0(1), 0));   // A
    c.access(line_with_cost(in0(2), 450)); // X, expensive
    for (int i = 0; i < 6 && p.uses_lin(set_index{1}); ++i) {
        c.access(line_with_cost(in0(1), 0));   // A hit → MRU
        c.access(line_with_cost(in0(3), 240)); // B: LIN evicts A (cheap), ATD evicts X
        c.access(line_with_cost(in0(1), 240)); // A: main miss, ATD hit → PSEL += 4
    }
    // First round: +4 (A); second: +4 (B hits the ATD) +4 (A) = 12 ≥ 8, the MSB of 4 bits.
    CHECK(p.psel() >= 8);
    CHECK_FALSE(p.uses_lin(set_index{1}));
    CHECK(p.uses_lin(set_index{0})); // leaders always run LIN
}

TEST_CASE("mlp_aware: bad parameters throw config_error naming them") {
    const geometry g{.sets = 64, .ways = 8, .line_bytes = 64};
    auto param = [&](const mlp_aware::params& p) -> std::string {
        try {
            mlp_aware m(g, p);
        } catch (const config_error& e) {
            return e.parameter();
        }
        return "<none>";
    };
    CHECK(param({}) == "<none>");
    CHECK(param({.cost_bits = 0}) == "cost_bits");
    CHECK(param({.cost_step_cycles = 0}) == "cost_step_cycles");
    CHECK(param({.leader_sets = 3}) == "leader_sets");
    CHECK(param({.leader_sets = 16}) == "leader_sets"); // 16² > 64
    CHECK(param({.psel_bits = 0}) == "psel_bits");
    CHECK(param({.adaptive = false, .leader_sets = 3}) == "<none>");
}
