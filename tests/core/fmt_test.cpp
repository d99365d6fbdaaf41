#include <doctest/doctest.h>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/fmt.hpp>
#include <memsub/replacement/lru.hpp>

using namespace memsub;

TEST_CASE("fmt formatters") {
    CHECK(fmt::format("{}", byte_address{0x7ff000398}) == "0x7ff000398");
    CHECK(fmt::format("{}", set_index{12}) == "12");
    CHECK(fmt::format("{}", access_kind::writeback) == "writeback");
    CHECK(fmt::format("{}", geometry{.sets = 2048, .ways = 16, .line_bytes = 64}) ==
          "2048 sets x 16 ways x 64 B (2048 KiB)");
    CHECK(fmt::format("{}", geometry{.sets = 32,
                                     .ways = 4,
                                     .line_bytes = 128,
                                     .segment_bytes = 32,
                                     .tags_per_set = 16}) ==
          "32 sets x 4 ways x 128 B (16 KiB), 32 B segments, 16 tags/set");
    cache::set_associative_cache<replacement::lru> c(geometry{.sets = 1, .ways = 1});
    c.access(memsub::access{.address = byte_address{0}});
    c.access(memsub::access{.address = byte_address{0}});
    CHECK(fmt::format("{}", c.stats()).starts_with("2 accesses, 1 hits, 1 misses (50.00% miss)"));
}
