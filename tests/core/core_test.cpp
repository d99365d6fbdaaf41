#include <doctest/doctest.h>

#include <memsub/core/bits.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>

#include <set>
#include <type_traits>

using namespace memsub;

TEST_CASE("strong types are distinct and compare like their values") {
    static_assert(!std::is_convertible_v<set_index, entry_index>);
    static_assert(!std::is_convertible_v<std::uint64_t, byte_address>);
    CHECK(byte_address{5} < byte_address{7});
    CHECK(line_address{3} == line_address{3});
    CHECK(std::hash<line_address>{}(line_address{9}) == std::hash<std::uint64_t>{}(9));
}

TEST_CASE("entry masks") {
    CHECK(low_bits_mask(0) == 0);
    CHECK(low_bits_mask(16) == 0xffff);
    CHECK(low_bits_mask(64) == ~0ULL);
    CHECK(lowest_entry(0b1000) == entry_index{3});
    CHECK(contains(0b1010, entry_index{1}));
    CHECK_FALSE(contains(0b1010, entry_index{2}));
}

TEST_CASE("popcount64 and run_length64 count bits") {
    CHECK(popcount64(0) == 0);
    CHECK(popcount64(~0ULL) == 64);
    CHECK(popcount64(0x8000000000000001ULL) == 2);
    // run_length64: every run of ones (a block's segments in its line).
    for (std::uint32_t len = 1; len <= 64; ++len)
        for (std::uint32_t at = 0; at + len <= 64; ++at) {
            const std::uint64_t run = low_bits_mask(len) << at;
            if (run_length64(run) != len || popcount64(run) != len)
                FAIL("run of ", len, " at ", at);
        }
}

TEST_CASE("geometry derived values and validation") {
    geometry g{.sets = 32, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    CHECK_NOTHROW(g.validate());
    CHECK(g.segments_per_line() == 4);
    CHECK(g.segments_per_set() == 16);
    CHECK(g.entries_per_set() == 16);
    CHECK(g.capacity_bytes() == 16384);
    CHECK_THROWS_AS((geometry{.sets = 3, .ways = 4}.validate()), config_error);
    CHECK_THROWS_AS(
        (geometry{.sets = 4, .ways = 4, .line_bytes = 64, .segment_bytes = 128}.validate()),
        config_error);
    CHECK_THROWS_AS(
        (geometry{.sets = 4, .ways = 8, .line_bytes = 64, .tags_per_set = 4}.validate()),
        config_error);
    constexpr fixed_geometry<2048, 16, 64> f;
    static_assert(f.sets == 2048 && f.entries_per_set() == 16 && f.capacity_bytes() == 2u << 20);
    CHECK(static_cast<geometry>(f) ==
          geometry{
              .sets = 2048, .ways = 16, .line_bytes = 64, .segment_bytes = 64, .tags_per_set = 16});
    static_assert(geometry_like<geometry> && geometry_like<fixed_geometry<4, 2, 64>>);
}

TEST_CASE("config_error message format") {
    config_error e("memsub::replacement::srrip", "rrpv_bits", 9, "must be in 1..7");
    CHECK(std::string(e.what()) ==
          "memsub::replacement::srrip: rrpv_bits = 9 violates \"must be in 1..7\"");
    input_error ie("trace.din", input_error::position_kind::line_number, 12, "unknown label 7");
    CHECK(std::string(ie.what()) == "trace.din: at line 12: unknown label 7");
}

TEST_CASE("rng is seeded, reproducible and roughly uniform") {
    xoshiro256ss a(42), b(42), c(43);
    CHECK(a() == b());
    CHECK(a() != c());
    std::uint64_t buckets[8] = {};
    for (int i = 0; i < 80000; ++i) ++buckets[a.below(8)];
    for (auto n : buckets) CHECK((n > 9000 && n < 11000));
    double u = a.uniform();
    CHECK((u >= 0.0 && u < 1.0));
}
