// SHiP training and prediction, BRRIP's bimodal source, OPT against a brute-force optimum and
// against every other policy, reproducibility of the seeded policies.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/all.hpp>

#include "helpers.hpp"

using namespace memsub;
using namespace memsub::replacement;
using cache::set_associative_cache;
using repl_test::line_access;
using repl_test::make_stream;

TEST_CASE("SHiP-PC signature: XOR fold of 14-bit chunks") {
    const ship s(geometry{.sets = 4, .ways = 4, .line_bytes = 64});
    CHECK(s.signature_of(0) == 0);
    CHECK(s.signature_of(0x3fff) == 0x3fff);
    CHECK(s.signature_of((1ull << 14) | 5) == 4);
    CHECK(s.signature_of(0x3fffull | (0x3fffull << 14)) == 0);
    CHECK(s.signature_of(0x400123) == ((0x400123 & 0x3fff) ^ (0x400123 >> 14)));
    CHECK(s.signature_of(~0ull) == (0x3fff ^ 0x3fff ^ 0x3fff ^ 0x3fff ^ 0xff));
    CHECK(s.counter(123) == 1); // initial value
}

TEST_CASE("SHiP: SHCT training on hits and on evictions without reuse; distant insertion") {
    set_associative_cache<ship> c(geometry{.sets = 1, .ways = 2, .line_bytes = 64});
    const ship& s = c.policy();
    const std::uint64_t P = 0x40, Q = 0x80, A = 1, B = 2, C = 3, D = 4, E = 5;
    auto r = c.access(line_access(A, P));
    CHECK(s.rrpv(r.set, r.entry) == 2); // counter 1: long
    CHECK_FALSE(s.outcome(r.set, r.entry));
    r = c.access(line_access(A, P));
    CHECK(r.hit);
    CHECK(s.outcome(r.set, r.entry));
    CHECK(s.counter(P) == 2);
    CHECK(s.rrpv(r.set, r.entry) == 0);
    r = c.access(line_access(B, Q));
    CHECK(s.rrpv(r.set, r.entry) == 2);
    r = c.access(line_access(C, Q)); // ages, evicts B (never reused): SHCT[Q] 1 → 0
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].address.value / 64 == B);
    CHECK(s.counter(Q) == 0);
    CHECK(s.rrpv(r.set, r.entry) == 3); // counter 0: distant
    r = c.access(line_access(D, Q));    // C is distant: evicted, SHCT[Q] stays 0 (saturates)
    CHECK(r.evictions[0].address.value / 64 == C);
    CHECK(s.counter(Q) == 0);
    CHECK(s.rrpv(r.set, r.entry) == 3);
    CHECK(c.access(line_access(D, Q)).hit);
    CHECK(s.counter(Q) == 1); // every hit increments
    for (int i = 0; i < 20; ++i) CHECK(c.access(line_access(A, P)).hit);
    CHECK(s.counter(P) == 7);        // saturates at 2^3 − 1
    r = c.access(line_access(E, P)); // both RRPV 0 → aged to 3, A (way 0, reused) evicted
    CHECK(r.evictions[0].address.value / 64 == A);
    CHECK(s.counter(P) == 7); // reused line: no decrement
    CHECK(s.rrpv(r.set, r.entry) == 2);
    // Invalidation carries no reuse evidence.
    c.invalidate(byte_address{E * 64});
    CHECK(s.counter(P) == 7);
}

TEST_CASE("SHiP-S: only sampled sets train, predictions apply everywhere") {
    // 8 sets, 2 sampled: sets 0 and 4 train.
    set_associative_cache<ship> c(geometry{.sets = 8, .ways = 1, .line_bytes = 64},
                                  {.sampled_sets = 2});
    const ship& s = c.policy();
    CHECK(s.trains(set_index{0}));
    CHECK(s.trains(set_index{4}));
    CHECK_FALSE(s.trains(set_index{1}));
    const std::uint64_t Q = 0x99;
    // Set 1 (not sampled): dead evictions and hits do not train.
    c.access(line_access(8 * 1 + 1, Q));
    c.access(line_access(8 * 2 + 1, Q)); // evicts a never-reused line
    CHECK(s.counter(Q) == 1);
    c.access(line_access(8 * 2 + 1, Q));
    CHECK(s.counter(Q) == 1);
    // Set 0 (sampled): a dead eviction trains SHCT[Q] to 0.
    c.access(line_access(8 * 1 + 0, Q));
    c.access(line_access(8 * 2 + 0, Q));
    CHECK(s.counter(Q) == 0);
    // Prediction applies in the unsampled set 3.
    const auto r = c.access(line_access(8 * 5 + 3, Q));
    CHECK(s.rrpv(r.set, r.entry) == 3);
}

TEST_CASE("BRRIP bimodal source: counter mode and PRNG rate") {
    // 1-way sets: every insertion's RRPV is observable right after the fill.
    set_associative_cache<brrip> c(geometry{.sets = 64, .ways = 1, .line_bytes = 64},
                                   {.source = bimodal_source::counter});
    for (std::uint64_t n = 1; n <= 200; ++n) {
        const auto r = c.access(line_access(n * 7));
        REQUIRE(r.filled());
        CHECK(c.policy().rrpv(r.set, r.entry) == (n % 32 == 0 ? 2u : 3u));
    }
    set_associative_cache<brrip> p(geometry{.sets = 64, .ways = 1, .line_bytes = 64});
    int longs = 0;
    for (std::uint64_t n = 1; n <= 32000; ++n) {
        const auto r = p.access(line_access(n));
        longs += p.policy().rrpv(r.set, r.entry) == 2;
    }
    CHECK(longs > 850); // expectation 1000, σ ≈ 31
    CHECK(longs < 1150);
}

namespace {

std::vector<memsub::access> random_stream(std::uint64_t seed, std::size_t n,
                                          std::uint64_t footprint) {
    xoshiro256ss rng(seed);
    std::vector<std::uint64_t> lines(n);
    for (auto& l : lines) l = rng.below(footprint);
    return make_stream(lines);
}

template <class P>
std::uint64_t misses_of(const std::vector<memsub::access>& s, const geometry& g,
                        const typename P::params& p = {}) {
    set_associative_cache<P> c(g, p);
    for (const auto& a : s) c.access(a);
    return c.stats().misses();
}

/// Exhaustive minimum misses of one W-way set over lines < 16 (memoised over positions and
/// resident sets): demand fetch (always insert) or with bypass allowed.
struct brute_force {
    const std::vector<std::uint64_t>& lines;
    std::uint32_t ways;
    bool bypass;
    std::unordered_map<std::uint64_t, std::uint32_t> memo{};

    std::uint32_t solve(std::size_t pos, std::uint32_t resident) {
        if (pos == lines.size()) return 0;
        const std::uint64_t key = (std::uint64_t{pos} << 16) | resident;
        if (auto it = memo.find(key); it != memo.end()) return it->second;
        const std::uint32_t bit = 1u << lines[pos];
        std::uint32_t best;
        if (resident & bit) {
            best = solve(pos + 1, resident);
        } else if (static_cast<std::uint32_t>(std::popcount(resident)) < ways) {
            best = 1 + solve(pos + 1, resident | bit);
        } else {
            best = ~0u;
            for (std::uint32_t r = resident; r != 0; r &= r - 1) {
                const std::uint32_t out = r & (~r + 1);
                best = std::min(best, 1 + solve(pos + 1, (resident & ~out) | bit));
            }
            if (bypass) best = std::min(best, 1 + solve(pos + 1, resident));
        }
        memo.emplace(key, best);
        return best;
    }
};

} // namespace

TEST_CASE("OPT equals a brute-force optimum on small single-set streams") {
    xoshiro256ss rng(2024);
    for (int trial = 0; trial < 300; ++trial) {
        const std::uint32_t ways = 2 + static_cast<std::uint32_t>(rng.below(3)); // 2..4
        const std::uint64_t footprint = ways + 1 + rng.below(5);
        std::vector<std::uint64_t> lines(10 + rng.below(25));
        for (auto& l : lines) l = rng.below(footprint);
        const auto s = make_stream(lines);
        const geometry g{.sets = 1, .ways = ways, .line_bytes = repl_test::line_bytes};
        INFO("trial " << trial);
        brute_force demand{lines, ways, false};
        brute_force with_bypass{lines, ways, true};
        CHECK(misses_of<opt>(s, g) == demand.solve(0, 0));
        CHECK(misses_of<opt>(s, g, {.allow_bypass = true}) == with_bypass.solve(0, 0));
    }
}

namespace {
template <class Tuple, std::size_t... I>
void check_opt_bound(const std::vector<memsub::access>& s, const geometry& g,
                     std::index_sequence<I...>) {
    const std::uint64_t o = misses_of<opt>(s, g);
    const std::uint64_t ob = misses_of<opt>(s, g, {.allow_bypass = true});
    CHECK(ob <= o);
    const std::uint64_t others[] = {misses_of<std::tuple_element_t<I, Tuple>>(s, g)...};
    for (std::uint64_t m : others) CHECK(o <= m);
}
} // namespace

TEST_CASE("OPT misses <= every other policy's; bypass OPT <= demand OPT") {
    const geometry g{.sets = 16, .ways = 4, .line_bytes = repl_test::line_bytes};
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const auto s = random_stream(seed, 20000, 64 + 64 * seed);
        check_opt_bound<all_policies>(s, g,
                                      std::make_index_sequence<std::tuple_size_v<all_policies>>{});
    }
}

TEST_CASE("next_use annotation") {
    const auto s = make_stream({5, 6, 5, 7, 6, 5});
    const std::vector<std::uint64_t> expected = {2, 4, 5, never, never, never};
    for (std::size_t i = 0; i < s.size(); ++i) CHECK(s[i].hints.next_use == expected[i]);
    // Bytes of the same line are the same line.
    std::vector<memsub::access> b(3);
    b[0].address = byte_address{64};
    b[1].address = byte_address{127};
    b[2].address = byte_address{128};
    annotate_next_use(b, 64);
    CHECK(b[0].hints.next_use == 1);
    CHECK(b[1].hints.next_use == never);
    CHECK(b[2].hints.next_use == never);
    // The compact form over line addresses gives the same positions.
    std::vector<line_address> lines;
    for (const auto& a : s) lines.push_back(line_address{a.address.value / repl_test::line_bytes});
    CHECK(next_use_positions(lines) == expected);
    annotate_next_use(b, 256); // all three in line 0
    CHECK(b[0].hints.next_use == 1);
    CHECK(b[1].hints.next_use == 2);
}

TEST_CASE("seeded policies: same seed reproduces, different seeds differ") {
    const geometry g{.sets = 16, .ways = 8, .line_bytes = repl_test::line_bytes};
    const auto s = random_stream(77, 30000, 400);
    auto outcomes = [&](auto tag, const auto& params) {
        using P = typename decltype(tag)::type;
        set_associative_cache<P> c(g, params);
        return repl_test::run(c, s);
    };
    using R = memsub::replacement::random;
    CHECK(outcomes(std::type_identity<R>{}, R::params{.seed = 3}) ==
          outcomes(std::type_identity<R>{}, R::params{.seed = 3}));
    CHECK(outcomes(std::type_identity<R>{}, R::params{.seed = 3}) !=
          outcomes(std::type_identity<R>{}, R::params{.seed = 4}));
    CHECK(outcomes(std::type_identity<brrip>{}, brrip::params{.seed = 3}) ==
          outcomes(std::type_identity<brrip>{}, brrip::params{.seed = 3}));
    CHECK(outcomes(std::type_identity<brrip>{}, brrip::params{.seed = 3}) !=
          outcomes(std::type_identity<brrip>{}, brrip::params{.seed = 4}));
    drrip::params d1, d2;
    d1.policy.seed = 3;
    d2.policy.seed = 4;
    d1.psel_bits = d2.psel_bits = 2; // followers flip often, so BRRIP insertions happen
    CHECK(outcomes(std::type_identity<drrip>{}, d1) == outcomes(std::type_identity<drrip>{}, d1));
    CHECK(outcomes(std::type_identity<drrip>{}, d1) != outcomes(std::type_identity<drrip>{}, d2));
}
