// The exact LRU curves (stack_distance_lru, all_associativity_lru) against hand-worked examples
// and against independent models: memsub's own caches simulated once per geometry, and
// libCacheSim's recorded LRU miss counts.
#include <doctest/doctest.h>

#include "../support/libcachesim_reference.hpp"
#include "streams.hpp"

#include <algorithm>
#include <iterator>
#include <list>
#include <map>

#include <memsub/analysis/all_associativity_lru.hpp>
#include <memsub/analysis/stack_distance_lru.hpp>
#include <memsub/trace/oracle_general_reader.hpp>

using namespace memsub;
using analysis::cold_distance;
using mrc_test::shape;

namespace {

memsub::access line_ref(std::uint64_t line) {
    memsub::access a;
    a.address = byte_address{line * 64};
    return a;
}

/// Checks every capacity 0 .. bound of `curve` against a fully associative LRU cache.
void check_fa_curve(const std::vector<memsub::access>& s, std::uint64_t bound, std::uint64_t step) {
    analysis::stack_distance_lru sd({.line_bytes = 64, .max_capacity_lines = bound});
    sd.access_all(s);
    CHECK(sd.accesses() == s.size());
    const auto curve = sd.miss_curve();
    REQUIRE(curve.size() == bound + 1);
    CHECK(curve[0] == s.size());
    for (std::uint64_t c = 1; c <= bound; c += (c < 16 ? 1 : step)) {
        CAPTURE(c);
        const std::uint64_t expected = mrc_test::fa_misses<cache::fa_lru>(s, c);
        CHECK(curve[c] == expected);
        CHECK(sd.misses(c) == expected);
    }
    CHECK(curve[bound] == mrc_test::fa_misses<cache::fa_lru>(s, bound));
}

/// Checks every (sets, ways) of the grid against memsub's set-associative LRU cache.
void check_grid(const std::vector<memsub::access>& s, std::uint32_t min_sets,
                std::uint32_t max_sets, std::uint32_t max_ways) {
    analysis::all_associativity_lru grid(
        {.line_bytes = 64, .min_sets = min_sets, .max_sets = max_sets, .max_ways = max_ways});
    grid.access_all(s);
    CHECK(grid.accesses() == s.size());
    const auto all = grid.miss_grid();
    std::uint32_t k = 0;
    for (std::uint32_t sets = min_sets; sets <= max_sets; sets *= 2, ++k)
        for (std::uint32_t ways = 1; ways <= max_ways; ++ways) {
            CAPTURE(sets);
            CAPTURE(ways);
            const std::uint64_t expected = mrc_test::lru_misses(s, sets, ways);
            CHECK(grid.misses(sets, ways) == expected);
            CHECK(all[std::size_t{k} * max_ways + (ways - 1)] == expected);
        }
}

} // namespace

TEST_CASE("stack distances of a hand-worked 10-access stream") {
    // A B C A B D A C B A. Stack before each access (most recent first) and the distance:
    //   A: [] cold   B: [A] cold   C: [B A] cold   A: [C B A] 3   B: [A C B] 3
    //   D: [B A C] cold   A: [D B A C] 3   C: [A D B C] 4   B: [C A D B] 4   A: [B C A D] 3
    const std::uint64_t A = 10, B = 11, C = 12, D = 13;
    const std::uint64_t stream[] = {A, B, C, A, B, D, A, C, B, A};
    const std::uint64_t expected[] = {
        cold_distance, cold_distance, cold_distance, 3, 3, cold_distance, 3, 4, 4, 3};
    analysis::stack_distance_lru sd({.line_bytes = 64, .max_capacity_lines = 8});
    for (int i = 0; i < 10; ++i) {
        CAPTURE(i);
        CHECK(sd.access_line(line_address{stream[i]}) == expected[i]);
    }
    CHECK(sd.cold_misses() == 4);
    CHECK(sd.distance_histogram()[3] == 4);
    CHECK(sd.distance_histogram()[4] == 2);
    const std::vector<std::uint64_t> curve{10, 10, 10, 6, 4, 4, 4, 4, 4};
    CHECK(sd.miss_curve() == curve);
    CHECK(sd.distinct_lines() == 4);
    CHECK(sd.bytes_per_distinct_line() > 0);
}

TEST_CASE("all-associativity LRU on a hand-worked 8-access stream") {
    // Lines 0 2 1 0 4 2 3 0, bit selection (set = line mod sets).
    //  1 set : distances cold cold cold 3 cold 4 cold 4      -> misses 8 8 7 5 (1..4 ways)
    //  2 sets: set 0 sees 0 2 0 4 2 0 (cold cold 2 cold 3 3), set 1 sees 1 3 (cold cold)
    //          -> misses 8 7 5 (1..3 ways)
    //  4 sets: set 0 sees 0 0 4 0 (cold 1 cold 2), set 2 sees 2 2 (cold 1), sets 1, 3 cold
    //          -> misses 6 5 (1..2 ways)
    analysis::all_associativity_lru grid({.min_sets = 1, .max_sets = 4, .max_ways = 4});
    for (const std::uint64_t l : {0, 2, 1, 0, 4, 2, 3, 0}) grid.access(line_ref(l));
    CHECK(grid.accesses() == 8);
    CHECK(grid.misses(1, 1) == 8);
    CHECK(grid.misses(1, 2) == 8);
    CHECK(grid.misses(1, 3) == 7);
    CHECK(grid.misses(1, 4) == 5);
    CHECK(grid.misses(2, 1) == 8);
    CHECK(grid.misses(2, 2) == 7);
    CHECK(grid.misses(2, 3) == 5);
    CHECK(grid.misses(2, 4) == 5);
    CHECK(grid.misses(4, 1) == 6);
    CHECK(grid.misses(4, 2) == 5);
    CHECK(grid.misses(4, 4) == 5);
}

TEST_CASE("a line-crossing reference is one access with at most one miss") {
    // Bytes 60..67 touch lines 0 and 1: one reference. Then line 1 alone, then line 0 alone.
    memsub::access crossing;
    crossing.address = byte_address{60};
    crossing.size = 8;
    analysis::stack_distance_lru sd({.max_capacity_lines = 4});
    CHECK(sd.access(crossing) == cold_distance);
    CHECK(sd.access(line_ref(1)) == 1);
    CHECK(sd.access(line_ref(0)) == 2);
    CHECK(sd.accesses() == 3);
    CHECK(sd.misses(1) == 2);
    CHECK(sd.misses(2) == 1);
    // Again after two other lines: lines 0 and 1 are at distances 4 and 3; the reference counts
    // at 4 (it misses in a 3-line cache although line 1 alone would hit).
    sd.access(line_ref(5));
    sd.access(line_ref(6));
    CHECK(sd.access(crossing) == 4);
    CHECK(sd.misses(3) == 4);
    CHECK(sd.misses(4) == 3);
}

TEST_CASE("fully associative LRU curve equals fa_lru at every capacity on synthetic streams") {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        check_fa_curve(mrc_test::synthetic(shape::zipf, 20000, 3000, seed), 1200, 37);
        check_fa_curve(mrc_test::synthetic(shape::loop, 6000, 500 + 40 * seed, seed), 700, 1);
        check_fa_curve(mrc_test::synthetic(shape::scan, 20000, 2000, seed), 1000, 41);
        check_fa_curve(mrc_test::synthetic(shape::mix, 30000, 4000, seed), 2000, 53);
        check_fa_curve(mrc_test::synthetic(shape::crossing, 20000, 2000, seed), 1000, 29);
    }
}

TEST_CASE("the stack stays exact through many renumberings of its stamps") {
    // 300k references over 5000 lines: the stamp space (>= 1024) is renumbered hundreds of times.
    check_fa_curve(mrc_test::synthetic(shape::mix, 300000, 20000, 9), 6000, 997);
}

TEST_CASE("all-associativity LRU equals basic_cache<lru> at every (sets, ways) of a grid") {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        check_grid(mrc_test::synthetic(shape::zipf, 20000, 4000, seed), 1, 64, 16);
        check_grid(mrc_test::synthetic(shape::loop, 8000, 300 + 50 * seed, seed), 1, 64, 12);
        check_grid(mrc_test::synthetic(shape::scan, 20000, 3000, seed), 2, 32, 8);
        check_grid(mrc_test::synthetic(shape::mix, 30000, 5000, seed), 1, 128, 16);
        check_grid(mrc_test::synthetic(shape::crossing, 20000, 3000, seed), 1, 64, 8);
    }
    // The largest way count basic_cache models.
    check_grid(mrc_test::synthetic(shape::mix, 20000, 8000, 4), 8, 16, 64);
}

TEST_CASE("exact LRU curves on the real lackey excerpt and the 200k oracleGeneral trace") {
    const auto lackey = mrc_test::read_trace("lackey_true_excerpt.txt");
    REQUIRE(lackey.size() > 30);
    check_fa_curve(lackey, 64, 1);
    check_grid(lackey, 1, 16, 8);
    const auto mixed = mrc_test::read_trace("fully_associative/mixed_200k.oracleGeneral.bin");
    REQUIRE(mixed.size() == 200000);
    check_fa_curve(mixed, 70000, 4999);
    check_grid(mixed, 64, 512, 16);
}

TEST_CASE("fully associative LRU curve equals libCacheSim's LRU miss counts") {
    // Rows "trace LRU capacity_objects requests misses" (capacity in objects = 64-byte lines
    // here: one line per object; records of obj_size 0 are skipped by libCacheSim and by
    // memsub's oracleGeneral reader alike).
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> rows;
    for (const auto& r : memsub_test::libcachesim_reference())
        if (r.algorithm == "LRU") rows[r.trace].emplace_back(r.capacity, r.misses);
    std::size_t checked = 0;
    for (const std::string trace :
         {"fully_associative/mixed_200k.oracleGeneral.bin", "sample.oracleGeneral.bin"}) {
        const auto s = mrc_test::read_trace(trace);
        const std::string leaf = std::filesystem::path(trace).filename().string();
        analysis::stack_distance_lru sd({.max_capacity_lines = 65536});
        sd.access_all(s);
        for (const auto& row : rows[leaf]) {
            const auto capacity = row.first; // CAPTURE cannot take a structured binding (clang 14)
            const auto misses = row.second;
            CAPTURE(leaf);
            CAPTURE(capacity);
            CHECK(sd.misses(capacity) == misses);
            ++checked;
        }
    }
    CHECK(checked >= 12);
}

TEST_CASE("configuration errors throw config_error") {
    using P = analysis::stack_distance_lru::params;
    CHECK_THROWS_AS(analysis::stack_distance_lru(P{.max_capacity_lines = 0}), config_error);
    CHECK_THROWS_AS(analysis::stack_distance_lru(P{.line_bytes = 48}), config_error);
    analysis::stack_distance_lru sd(P{.max_capacity_lines = 10});
    CHECK_THROWS_AS((void)sd.misses(11), config_error);
    using G = analysis::all_associativity_lru::params;
    CHECK_THROWS_AS(analysis::all_associativity_lru(G{.max_ways = 0}), config_error);
    CHECK_THROWS_AS(analysis::all_associativity_lru(G{.min_sets = 3}), config_error);
    CHECK_THROWS_AS(analysis::all_associativity_lru(G{.min_sets = 8, .max_sets = 4}), config_error);
    CHECK_THROWS_AS(analysis::all_associativity_lru(G{.max_sets = 96}), config_error);
    CHECK_THROWS_AS(analysis::all_associativity_lru(G{.line_bytes = 2}), config_error);
    analysis::all_associativity_lru grid(G{.min_sets = 2, .max_sets = 8, .max_ways = 4});
    CHECK_THROWS_AS((void)grid.misses(16, 1), config_error);
    CHECK_THROWS_AS((void)grid.misses(1, 1), config_error);
    CHECK_THROWS_AS((void)grid.misses(4, 5), config_error);
    CHECK_THROWS_AS((void)grid.misses(4, 0), config_error);
    CHECK_THROWS_AS((void)grid.misses(6, 1), config_error);
}

TEST_CASE("the distance stack equals a list model through touches, erases and renumberings") {
    // A recency list written here (front = most recent) against lru_distance_stack, with erases
    // as SHARDS makes them, over enough distinct lines that the stamps are renumbered often and
    // a block of the bitmap fills and empties.
    analysis::lru_distance_stack stack;
    std::list<std::uint64_t> model;
    xoshiro256ss rng(2026);
    std::uint64_t renumbering_sized = 0;
    for (std::size_t i = 0; i < 60000; ++i) {
        const std::uint64_t line = rng.below(4) == 0 ? rng.below(3000) : rng.below(300);
        if (rng.below(16) == 0) { // erase a line, present or not
            const auto it = std::find(model.begin(), model.end(), line);
            CHECK(stack.erase(line) == (it != model.end()));
            if (it != model.end()) model.erase(it);
            continue;
        }
        const auto it = std::find(model.begin(), model.end(), line);
        const std::uint64_t want =
            it == model.end() ? cold_distance
                              : static_cast<std::uint64_t>(std::distance(model.begin(), it) + 1);
        if (it != model.end()) model.erase(it);
        model.push_front(line);
        const std::uint64_t got = stack.touch(line);
        if (got != want) {
            FAIL_CHECK("distance differs at step " << i << ": " << got << " != " << want);
            break;
        }
        renumbering_sized += model.size() > 1000;
    }
    CHECK(stack.size() == model.size());
    CHECK(renumbering_sized > 1000); // the stack held more than a 1024-stamp space's half
}

TEST_CASE("access_all's loaded-ahead loop counts as access() one by one") {
    const auto s = mrc_test::synthetic(shape::crossing, 50000, 30000, 4);
    analysis::stack_distance_lru pipelined({.max_capacity_lines = 4096});
    analysis::stack_distance_lru one_by_one({.max_capacity_lines = 4096});
    analysis::stack_distance_lru by_line({.max_capacity_lines = 4096});
    pipelined.access_all(s);
    std::vector<std::uint64_t> lines;
    for (const auto& a : s) {
        (void)one_by_one.access(a);
        lines.push_back(a.address.value / 64);
    }
    by_line.access_lines(lines);
    CHECK(pipelined.accesses() == s.size());
    CHECK(pipelined.cold_misses() == one_by_one.cold_misses());
    const auto a = pipelined.distance_histogram();
    const auto b = one_by_one.distance_histogram();
    CHECK(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    // access_lines sees each reference's first line only: equal wherever no reference crosses.
    CHECK(by_line.accesses() == s.size());
    CHECK(by_line.misses(4096) <= pipelined.misses(4096));
}
