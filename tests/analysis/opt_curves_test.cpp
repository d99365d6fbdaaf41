// The one-pass OPT curves against a hand-worked example and against memsub's own OPT caches
// (fully_associative_cache<fa_opt> per capacity, set_associative_cache<replacement::opt> per
// geometry) and libCacheSim's Belady rows.
#include <doctest/doctest.h>

#include "../support/libcachesim_reference.hpp"
#include "streams.hpp"

#include <map>

#include <memsub/analysis/opt_curve.hpp>

using namespace memsub;
using analysis::cold_distance;
using mrc_test::shape;

namespace {

void check_fa_opt(const std::vector<memsub::access>& s, std::uint64_t bound, std::uint64_t step) {
    const auto curve_of =
        analysis::opt_curve::from_references(s, {.line_bytes = 64, .max_capacity_lines = bound});
    CHECK(curve_of.accesses() == s.size());
    const auto curve = curve_of.miss_curve();
    REQUIRE(curve.size() == bound + 1);
    CHECK(curve[0] == s.size());
    const auto pieces = mrc_test::pieces_of(s, 64);
    for (std::uint64_t c = 1; c <= bound; c += (c < 16 ? 1 : step)) {
        CAPTURE(c);
        cache::fully_associative_cache<cache::fa_opt> fa(c, 64);
        const std::uint64_t expected = mrc_test::piece_misses(fa, pieces);
        CHECK(curve[c] == expected);
        CHECK(curve_of.misses(c) == expected);
    }
}

void check_sa_opt(const std::vector<memsub::access>& s, std::uint32_t min_sets,
                  std::uint32_t max_sets, std::uint32_t max_ways) {
    const auto grid = analysis::set_associative_opt::from_references(
        s, {.line_bytes = 64, .min_sets = min_sets, .max_sets = max_sets, .max_ways = max_ways});
    CHECK(grid.accesses() == s.size());
    const auto pieces = mrc_test::pieces_of(s, 64);
    for (std::uint32_t sets = min_sets; sets <= max_sets; sets *= 2)
        for (std::uint32_t ways = 1; ways <= max_ways; ++ways) {
            CAPTURE(sets);
            CAPTURE(ways);
            cache::set_associative_cache<replacement::opt> c(
                geometry{.sets = sets, .ways = ways, .line_bytes = 64});
            CHECK(grid.misses(sets, ways) == mrc_test::piece_misses(c, pieces));
        }
}

} // namespace

TEST_CASE("OPT stack distances of a hand-worked stream") {
    // Lines A B C A B D A C B A at positions 0..9; next uses: A 3,6,9,never; B 4,8,never;
    // C 7,never; D never. OPT stack (top first, [next use]) before each access and distance:
    //  0 A: []                                 cold
    //  1 B: [A3]                               cold  -> B on top, A (3) carried to slot 2
    //  2 C: [B4 A3]                            cold  -> records from top: B4; A3 < 4 stays:
    //                                                   [C7 A3 B4]
    //  3 A: [C7 A3 B4]                         2     -> [A6 C7 B4]
    //  4 B: [A6 C7 B4]                         3     -> carry A6, C7 > 6 is a record: A6 to
    //                                                   slot 2, C7 to 3: [B8 A6 C7]
    //  5 D: [B8 A6 C7]                         cold  -> carry B8, A6 no, C7 no: B8 to slot 4:
    //                                                   [Dnever A6 C7 B8]
    //  6 A: [D A6 C7 B8]                       2     -> carry D (never) to slot 2: [A9 D C7 B8]
    //  7 C: [A9 D C7 B8]                       3     -> carry A9, D (never) > 9: A9 to slot 2,
    //                                                   D to 3: [Cnever A9 D B8]
    //  8 B: [C A9 D B8]                        4     -> carry C (never) all the way: [Bnever
    //                                                   A9 D C]
    //  9 A: [B A9 D C]                         2
    const std::uint64_t A = 1, B = 2, C = 3, D = 4;
    const std::uint64_t lines[] = {A, B, C, A, B, D, A, C, B, A};
    const std::uint64_t next[] = {3, 4, 7, 6, 8, never, 9, never, never, never};
    const std::uint64_t expected[] = {
        cold_distance, cold_distance, cold_distance, 2, 3, cold_distance, 2, 3, 4, 2};
    analysis::opt_curve curve({.max_capacity_lines = 4});
    for (int i = 0; i < 10; ++i) {
        CAPTURE(i);
        CHECK(curve.access_line(line_address{lines[i]}, next[i]) == expected[i]);
    }
    // Belady by hand: 1 line 10 misses; 2 lines: hits at 3, 6, 9 -> 7; 3 lines: also 4, 7 -> 5;
    // 4 lines: also 8 -> 4.
    const std::vector<std::uint64_t> misses{10, 10, 7, 5, 4};
    CHECK(curve.miss_curve() == misses);
    CHECK(curve.cold_misses() == 4);
}

TEST_CASE("fully associative OPT curve equals fa_opt at every capacity") {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        check_fa_opt(mrc_test::synthetic(shape::zipf, 15000, 3000, seed), 1200, 53);
        check_fa_opt(mrc_test::synthetic(shape::loop, 5000, 400 + 40 * seed, seed), 600, 7);
        check_fa_opt(mrc_test::synthetic(shape::scan, 15000, 2000, seed), 800, 61);
        check_fa_opt(mrc_test::synthetic(shape::mix, 20000, 4000, seed), 1500, 71);
        check_fa_opt(mrc_test::synthetic(shape::crossing, 15000, 2000, seed), 800, 43);
    }
    // A bound smaller than the footprint: lines fall off the bottom of the stack and return.
    check_fa_opt(mrc_test::synthetic(shape::mix, 20000, 4000, 7), 64, 1);
}

TEST_CASE("set-associative OPT equals basic_cache<opt> at every (sets, ways) of a grid") {
    for (const std::uint64_t seed : {1u, 2u}) {
        CAPTURE(seed);
        check_sa_opt(mrc_test::synthetic(shape::zipf, 15000, 3000, seed), 1, 32, 12);
        check_sa_opt(mrc_test::synthetic(shape::loop, 6000, 300 + 50 * seed, seed), 1, 32, 8);
        check_sa_opt(mrc_test::synthetic(shape::mix, 20000, 4000, seed), 2, 64, 16);
        check_sa_opt(mrc_test::synthetic(shape::crossing, 15000, 2000, seed), 1, 16, 8);
    }
}

TEST_CASE("OPT curves on the real lackey excerpt and the 200k oracleGeneral trace") {
    const auto lackey = mrc_test::read_trace("lackey_true_excerpt.txt");
    check_fa_opt(lackey, 48, 1);
    check_sa_opt(lackey, 1, 8, 8);
    const auto mixed = mrc_test::read_trace("fully_associative/mixed_200k.oracleGeneral.bin");
    check_fa_opt(mixed, 70000, 6999);
    check_sa_opt(mixed, 256, 1024, 8);
}

TEST_CASE("fully associative OPT curve equals libCacheSim's Belady miss counts") {
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> rows;
    for (const auto& r : memsub_test::libcachesim_reference())
        if (r.algorithm == "Belady") rows[r.trace].emplace_back(r.capacity, r.misses);
    std::size_t checked = 0;
    for (const std::string trace :
         {"fully_associative/mixed_200k.oracleGeneral.bin", "sample.oracleGeneral.bin"}) {
        const auto s = mrc_test::read_trace(trace);
        const std::string leaf = std::filesystem::path(trace).filename().string();
        const auto curve = analysis::opt_curve::from_references(s, {.max_capacity_lines = 65536});
        for (const auto& row : rows[leaf]) {
            const auto capacity = row.first; // CAPTURE cannot take a structured binding (clang 14)
            const auto misses = row.second;
            CAPTURE(leaf);
            CAPTURE(capacity);
            CHECK(curve.misses(capacity) == misses);
            ++checked;
        }
    }
    CHECK(checked >= 12);
}

TEST_CASE("OPT curve configuration errors throw config_error") {
    CHECK_THROWS_AS(analysis::opt_curve({.max_capacity_lines = 0}), config_error);
    CHECK_THROWS_AS(analysis::opt_curve({.line_bytes = 24}), config_error);
    analysis::opt_curve curve({.max_capacity_lines = 8});
    CHECK_THROWS_AS((void)curve.misses(9), config_error);
    using P = analysis::set_associative_opt::params;
    CHECK_THROWS_AS(analysis::set_associative_opt(P{.max_ways = 0}), config_error);
    CHECK_THROWS_AS(analysis::set_associative_opt(P{.min_sets = 4, .max_sets = 12}), config_error);
    analysis::set_associative_opt grid(P{.min_sets = 2, .max_sets = 4, .max_ways = 2});
    CHECK_THROWS_AS((void)grid.misses(8, 1), config_error);
    CHECK_THROWS_AS((void)grid.misses(2, 3), config_error);
}
