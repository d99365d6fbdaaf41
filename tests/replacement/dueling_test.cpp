// Set dueling: leader selection, PSEL movement ("PSEL expectations" of the spec), follower
// switching, TA-DRRIP's per-requester PSELs, and dueling two arbitrary policies.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/all.hpp>

#include "helpers.hpp"

using namespace memsub;
using namespace memsub::replacement;
using cache::set_associative_cache;
using repl_test::line_access;

TEST_CASE("complement-select leaders: N = 1024, K = 32 (DIP: 0, 33, 66, … and 31, 62, 93, …)") {
    const drrip d(geometry{.sets = 1024, .ways = 16, .line_bytes = 64});
    std::vector<std::uint32_t> side0, side1;
    for (std::uint32_t s = 0; s < 1024; ++s) {
        if (d.leader_role(set_index{s}) == 1) side0.push_back(s);
        if (d.leader_role(set_index{s}) == 2) side1.push_back(s);
    }
    REQUIRE(side0.size() == 32);
    REQUIRE(side1.size() == 32);
    for (std::uint32_t c = 0; c < 32; ++c) {
        CHECK(side0[c] == 33 * c);          // constituency c, offset c
        CHECK(side1[c] == 32 * c + 31 - c); // offset N/K - 1 - c
    }
    CHECK(side1[0] == 31);
    CHECK(side1[1] == 62);
    CHECK(side1[2] == 93);
    CHECK(d.psel() == 0);
    CHECK(d.psel_max() == 1023);
    // Followers start as SRRIP (PSEL = 0); leaders use their own side.
    CHECK(d.side_of(set_index{1}) == 0);
    CHECK(d.side_of(set_index{31}) == 1);
    CHECK(d.side_of(set_index{33}) == 0);
}

TEST_CASE("automatic K on small caches and explicit K") {
    const drrip small(geometry{.sets = 64, .ways = 4, .line_bytes = 64}); // K = 8
    int leaders = 0;
    for (std::uint32_t s = 0; s < 64; ++s) leaders += small.leader_role(set_index{s}) != 0;
    CHECK(leaders == 16);
    drrip::params p;
    p.leaders_per_side = 16;
    const drrip big(geometry{.sets = 4096, .ways = 16, .line_bytes = 64}, p);
    leaders = 0;
    for (std::uint32_t s = 0; s < 4096; ++s) leaders += big.leader_role(set_index{s}) != 0;
    CHECK(leaders == 32);
    CHECK(big.leader_role(set_index{0}) == 1);
    CHECK(big.leader_role(set_index{255}) == 2); // region 256, constituency 0, offset 255
}

TEST_CASE("PSEL expectations on a crafted stream (spec)") {
    // 8 sets x 2 ways; set 0 leads SRRIP (side 0), set 1 leads BRRIP (side 1); others follow.
    drrip::params p;
    p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
    p.policy.long_period = 0; // every BRRIP insertion distant, to observe the follower's side
    set_associative_cache<drrip> c(geometry{.sets = 8, .ways = 2, .line_bytes = 64}, p);
    const auto& d = c.policy();
    auto line_in_set = [](std::uint32_t set, std::uint64_t k) { return 8 * k + set; };
    std::uint64_t fresh = 1000;

    // Misses in the SRRIP leader: +1 each, saturating at 1023.
    for (std::uint32_t n = 1; n <= 1100; ++n) {
        const auto r = c.access(line_access(line_in_set(0, fresh++)));
        REQUIRE_FALSE(r.hit);
        REQUIRE(d.psel() == std::min<std::uint32_t>(n, 1023));
        // Followers switch to BRRIP exactly on the miss that takes PSEL from 511 to 512.
        REQUIRE(d.side_of(set_index{2}) == (n >= 512 ? 1u : 0u));
        REQUIRE(d.side_of(set_index{0}) == 0); // leaders never follow
        REQUIRE(d.side_of(set_index{1}) == 1);
    }
    CHECK(d.psel() == 1023);

    // Hits never move PSEL (in either leader).
    const std::uint64_t hot0 = line_in_set(0, 5), hot1 = line_in_set(1, 5);
    c.access(line_access(hot1)); // a miss in the BRRIP leader: 1022
    CHECK(d.psel() == 1022);
    c.access(line_access(hot0)); // a miss in the SRRIP leader: 1023
    CHECK(d.psel() == 1023);
    for (int i = 0; i < 10; ++i) {
        CHECK(c.access(line_access(hot0)).hit);
        CHECK(c.access(line_access(hot1)).hit);
        CHECK(d.psel() == 1023);
    }
    // Follower misses never move PSEL; a BRRIP follower inserts distant.
    for (int i = 0; i < 5; ++i) {
        const auto r = c.access(line_access(line_in_set(2, fresh++)));
        CHECK_FALSE(r.hit);
        CHECK(d.rrpv(r.set, r.entry) == 3);
        CHECK(d.psel() == 1023);
    }

    // Misses in the BRRIP leader: −1 each, followers back to SRRIP on 512 → 511, floor at 0.
    for (std::uint32_t n = 1; n <= 1100; ++n) {
        const auto r = c.access(line_access(line_in_set(1, fresh++)));
        REQUIRE_FALSE(r.hit);
        const std::uint32_t expected = n >= 1023 ? 0u : 1023u - n;
        REQUIRE(d.psel() == expected);
        REQUIRE(d.side_of(set_index{5}) == (expected >= 512 ? 1u : 0u));
        if (expected == 511) REQUIRE(d.side_of(set_index{5}) == 0);
    }
    CHECK(d.psel() == 0);
    const auto r = c.access(line_access(line_in_set(3, fresh++)));
    CHECK(d.rrpv(r.set, r.entry) == 2); // SRRIP follower inserts long
}

TEST_CASE("set_dueling with a custom miss cost moves PSEL by the cost") {
    set_dueling<rrip_dual, hinted_miss_cost>::params p;
    p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
    p.psel_bits = 6;
    set_associative_cache<set_dueling<rrip_dual, hinted_miss_cost>> c(
        geometry{.sets = 4, .ways = 2, .line_bytes = 64}, p);
    auto a = line_access(4 * 100 + 0);
    a.hints.memory_cost_class = 2; // cost 3
    c.access(a);
    CHECK(c.policy().psel() == 3);
    a = line_access(4 * 101 + 0);
    a.hints.miss_cost_cycles = 50; // cycles take precedence, saturates at 63
    c.access(a);
    CHECK(c.policy().psel() == 53);
    a = line_access(4 * 102 + 0);
    a.hints.miss_cost_cycles = 50;
    c.access(a);
    CHECK(c.policy().psel() == 63);
    a = line_access(4 * 103 + 1); // unknown cost: 1
    c.access(a);
    CHECK(c.policy().psel() == 62);
    CHECK(c.policy().side_of(set_index{2}) == 1);
}

TEST_CASE("TA-DRRIP: per-requester PSELs and disjoint leader sets") {
    drrip::params p;
    p.requesters = 4;
    const geometry g{.sets = 2048, .ways = 16, .line_bytes = 64};
    drrip d(g, p);
    std::vector<int> count(8, 0);
    for (std::uint32_t s = 0; s < g.sets; ++s) {
        const auto role = d.leader_role(set_index{s});
        if (role != 0) ++count[d.leader_owner(set_index{s}) * 2 + role - 1];
    }
    for (int c : count) CHECK(c == 32); // 32 + 32 per requester, disjoint by construction

    // Requester 1's leader misses move only PSEL_1; requester 0 in requester 1's leader follows.
    set_associative_cache<drrip> c(g, p);
    std::uint32_t lead1 = 0;
    for (std::uint32_t s = 0; s < g.sets; ++s)
        if (c.policy().leader_role(set_index{s}) == 1 && c.policy().leader_owner(set_index{s}) == 1)
            lead1 = s;
    for (std::uint64_t k = 0; k < 600; ++k) {
        auto a = line_access(k * g.sets + lead1);
        a.requester = 1;
        c.access(a);
    }
    CHECK(c.policy().psel(1) == 600);
    CHECK(c.policy().psel(0) == 0);
    CHECK(c.policy().psel(2) == 0);
    CHECK(c.policy().side_of(set_index{lead1}, 1) == 0);     // forced: leader of its side
    CHECK(c.policy().side_of(set_index{lead1}, 0) == 0);     // requester 0 follows PSEL_0
    CHECK(c.policy().side_of(set_index{lead1 + 1}, 1) == 1); // requester 1 follows PSEL_1
    for (std::uint64_t k = 0; k < 10; ++k) {
        auto a = line_access(k * g.sets + lead1 + 2048 * 1000);
        a.requester = 0; // requester 0's misses in requester 1's leader move nothing
        c.access(a);
    }
    CHECK(c.policy().psel(1) == 600);
    CHECK(c.policy().psel(0) == 0);
}

TEST_CASE("dual_of: dueling two arbitrary policies; the side's policy names the victim") {
    // 4 sets x 2 ways: set 0 leads LRU (side 0), set 1 leads FIFO (side 1).
    using P = set_dueling<dual_of<lru, fifo>>;
    P::params p;
    p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
    p.psel_bits = 2;
    set_associative_cache<P> c(geometry{.sets = 4, .ways = 2, .line_bytes = 64}, p);
    auto in = [](std::uint32_t set, std::uint64_t k) { return line_access(4 * k + set); };
    // A, B, A(hit), C: LRU evicts B, FIFO evicts A.
    for (std::uint32_t set : {0u, 1u}) {
        c.access(in(set, 1));
        c.access(in(set, 2));
        CHECK(c.access(in(set, 1)).hit);
        const auto r = c.access(in(set, 3));
        REQUIRE(r.evictions.size() == 1);
        CHECK(r.evictions[0].address.value / 64 == (set == 0 ? 4 * 2 + 0u : 4 * 1 + 1u));
    }
    // LRU leader missed 3 times (+3), FIFO leader 3 times (−3): PSEL 0, followers on LRU.
    CHECK(c.policy().psel() == 0);
    c.access(in(2, 1));
    c.access(in(2, 2));
    c.access(in(2, 1));
    auto r = c.access(in(2, 3));
    CHECK(r.evictions[0].address.value / 64 == 4 * 2 + 2u); // LRU: B goes
    // Two more misses in the LRU leader: PSEL 2 = MSB set → followers use FIFO.
    c.access(in(0, 7));
    c.access(in(0, 8));
    CHECK(c.policy().psel() == 2);
    CHECK(c.policy().side_of(set_index{3}) == 1);
    c.access(in(3, 1));
    c.access(in(3, 2));
    c.access(in(3, 1));
    r = c.access(in(3, 3));
    CHECK(r.evictions[0].address.value / 64 == 4 * 1 + 3u); // FIFO: A goes despite its hit
    CHECK(c.policy().name() == "set_dueling");
}

namespace {
/// A cost functor of the `cost(dual, set, access)` form (ReMAP's hook): reads the dual policy's
/// own state — here the RRPV width — and the set, to show both reach the functor.
struct state_reading_cost {
    std::uint32_t operator()(const rrip_dual& d, set_index s,
                             const memsub::access&) const noexcept {
        return d.rrpv(s, entry_index{0}) + 1; // RRPV of way 0 of the missing set, plus one
    }
};
} // namespace

TEST_CASE("set_dueling: a cost functor may read the dual policy's state") {
    using P = set_dueling<rrip_dual, state_reading_cost>;
    P::params p;
    p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
    set_associative_cache<P> c(geometry{.sets = 2, .ways = 1, .line_bytes = 64}, p);
    c.access(line_access(0)); // set 0 empty: way 0 holds the initial distant RRPV 3 → cost 4
    CHECK(c.policy().psel() == 4);
    c.access(line_access(2)); // way 0 holds line 0 at RRPV 2 (SRRIP insertion) → cost 3
    CHECK(c.policy().psel() == 7);
}

TEST_CASE("DRRIP counter mode counts BRRIP insertions only") {
    drrip::params p;
    p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
    p.policy.source = bimodal_source::counter;
    set_associative_cache<drrip> c(geometry{.sets = 2, .ways = 1, .line_bytes = 64}, p);
    for (std::uint64_t n = 1; n <= 70; ++n) {
        // An SRRIP-leader insertion between BRRIP ones must not advance the counter.
        auto r = c.access(line_access(2 * (1000 + n) + 0));
        CHECK(c.policy().rrpv(r.set, r.entry) == 2);
        r = c.access(line_access(2 * n + 1));
        INFO("BRRIP insertion " << n);
        CHECK(c.policy().rrpv(r.set, r.entry) == (n % 32 == 0 ? 2u : 3u));
    }
}

namespace {

/// LRU that also records what the size-aware hooks told it (R4's insert_info, R6's
/// room_request), to see them arrive through set_dueling and dual_of.
struct size_seeing_lru {
    using params = lru::params;
    size_seeing_lru(const geometry& g, const params& p) : inner(g, p) {}
    [[nodiscard]] std::string_view name() const noexcept { return "size_seeing_lru"; }
    void on_hit(set_index s, entry_index e, const memsub::access& a) noexcept {
        inner.on_hit(s, e, a);
    }
    void on_insert(set_index s, entry_index e, const memsub::access& a,
                   const insert_info& i) noexcept {
        inner.on_insert(s, e, a);
        inserted_segments += i.stored_segments;
        ++inserts;
    }
    void on_evict(set_index s, entry_index e, const evicted_block& b) noexcept {
        inner.on_evict(s, e, b);
    }
    [[nodiscard]] entry_index victim(set_index s, entry_mask m, const memsub::access& a,
                                     const room_request& r) noexcept {
        incoming_segments += r.incoming_segments;
        ++victims;
        return inner.victim(s, m, a);
    }
    lru inner;
    std::uint64_t inserts = 0, inserted_segments = 0, victims = 0, incoming_segments = 0;
};

} // namespace

TEST_CASE("set_dueling over dual_of forwards the size-aware hooks (D4, D6) to each side") {
    using dueling = set_dueling<dual_of<size_seeing_lru, size_seeing_lru>>;
    static_assert(sized_on_insert<dueling> && sized_victim<dueling>);
    const geometry g{
        .sets = 16, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    cache::variable_block_cache<dueling, 4> c(g);
    std::uint64_t stored = 0;
    for (std::uint64_t i = 0; i < 4000; ++i) {
        memsub::access a = line_access((i * 7919) % 300);
        a.address = byte_address{a.address.value * 2}; // 128 B lines
        const std::uint32_t segments = 1 + static_cast<std::uint32_t>(i % 4);
        const auto r =
            c.access(a, cache::block_spec{.span_segments = 4, .stored_segments = segments});
        if (r.filled()) stored += segments * r.blocks_filled;
    }
    const auto& both = c.policy().dual();
    // Both sides heard every insertion with its stored size (insertions go to both policies).
    CHECK(both.first().inserts == c.stats().fills);
    CHECK(both.second().inserts == c.stats().fills);
    CHECK(both.first().inserted_segments == stored);
    CHECK(both.second().inserted_segments == stored);
    // Victims were asked of one side or the other, each with the incoming block's size.
    CHECK(both.first().victims + both.second().victims > 0);
    CHECK(both.first().incoming_segments + both.second().incoming_segments >=
          both.first().victims + both.second().victims);
}
