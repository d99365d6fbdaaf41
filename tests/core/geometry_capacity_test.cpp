// geometry::from_capacity: a geometry built from the capacity a user means, so that
// `geometry{32768, 8, 64}` (32768 sets: 16 MiB) is not the only way to say "32 KiB, 8-way".
#include <doctest/doctest.h>

#include <string>

#include <memsub/core/geometry.hpp>

using memsub::config_error;
using memsub::geometry;

TEST_CASE("geometry::from_capacity derives the sets from the capacity") {
    const geometry l1 = geometry::from_capacity(32 * 1024, 8, 64);
    CHECK(l1.sets == 64);
    CHECK(l1.ways == 8);
    CHECK(l1.line_bytes == 64);
    CHECK(l1.capacity_bytes() == 32 * 1024);
    CHECK(l1 == geometry{.sets = 64, .ways = 8, .line_bytes = 64});
    // The positional aggregate is sets first: 32768 sets of 8 x 64 B are 16 MiB.
    CHECK(geometry{32768, 8, 64}.capacity_bytes() == 16ull * 1024 * 1024);
    CHECK(geometry::from_capacity(2ull * 1024 * 1024, 16).sets == 2048); // 64 B lines by default
    CHECK(geometry::from_capacity(1ull << 40, 16, 64).sets == (1u << 30));
    CHECK(geometry::from_capacity(96, 3, 32).sets == 1); // one set, non-power-of-two ways
}

TEST_CASE("geometry::from_capacity rejects capacities that are not whole, valid sets") {
    auto message = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const config_error& e) {
            return e.what();
        }
        return "(no config_error)";
    };
    // Not a multiple of one set (8 x 64 B = 512 B).
    CHECK(message([] {
              (void)geometry::from_capacity(32 * 1024 + 64, 8, 64);
          }).find("capacity_bytes = 32832") != std::string::npos);
    CHECK_THROWS_AS((void)geometry::from_capacity(0, 8, 64), config_error);
    CHECK_THROWS_AS((void)geometry::from_capacity(256, 8, 64), config_error); // less than a set
    // A whole number of sets that is not a power of two: validate()'s rule, naming sets.
    CHECK(message([] { (void)geometry::from_capacity(3 * 512, 8, 64); }).find("sets = 3") !=
          std::string::npos);
    CHECK_THROWS_AS((void)geometry::from_capacity(32 * 1024, 0, 64), config_error);
    CHECK_THROWS_AS((void)geometry::from_capacity(32 * 1024, 8, 0), config_error);
    CHECK_THROWS_AS((void)geometry::from_capacity(32 * 1024, 8, 48), config_error); // line size
    CHECK_THROWS_AS((void)geometry::from_capacity(std::uint64_t{1} << 50, 1, 4), config_error);
}
