// The lookup's tag prefetch (cache/detail/set_layout.hpp, prefetched_tag_lines): which caches
// prefetch, and that a cache which does gives the results of an independent model. The result
// hash test's caches are too small to prefetch, so these caches are large (1 MiB of metadata
// and more), runtime and fixed geometry.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>

using namespace memsub;
using cache::detail::header_blocks;
using cache::detail::prefetched_tag_lines;

namespace {

/// Move-to-front LRU per set: the least recent line falls off the end. Hit or miss per access.
class mtf_lru_model {
public:
    mtf_lru_model(std::uint32_t sets, std::uint32_t ways)
        : sets_(sets)
        , ways_(ways)
        , lines_(std::size_t{sets} * ways, ~std::uint64_t{0}) {}
    bool access(std::uint64_t line) {
        std::uint64_t* set = &lines_[(line % sets_) * ways_];
        std::uint32_t at = 0;
        while (at < ways_ && set[at] != line) ++at;
        const bool hit = at < ways_;
        for (std::uint32_t w = hit ? at : ways_ - 1; w > 0; --w) set[w] = set[w - 1];
        set[0] = line;
        return hit;
    }

private:
    std::uint32_t sets_, ways_;
    std::vector<std::uint64_t> lines_;
};

/// Loads and stores over twice the cache's lines, a quarter of them from a small hot region.
template <class Cache>
void check_against_model(Cache& c, std::uint32_t sets, std::uint32_t ways) {
    mtf_lru_model model(sets, ways);
    xoshiro256ss rng(11);
    const std::uint64_t lines = 2ull * sets * ways;
    std::uint64_t hits = 0;
    for (int i = 0; i < 400'000; ++i) {
        const std::uint64_t line = rng.below(4) == 0 ? rng.below(lines / 64) : rng.below(lines);
        const auto kind = rng.below(5) == 0 ? access_kind::store : access_kind::load;
        const auto r = c.access(memsub::access{.address = byte_address{line * 64}, .kind = kind});
        const bool expected = model.access(line);
        REQUIRE(r.hit == expected);
        hits += expected;
    }
    CHECK(hits > 0);
    CHECK(c.stats().hits() == hits);
}

} // namespace

TEST_CASE("tag prefetch: caches of at least 1 MiB of headers and tags prefetch every tag line") {
    // 64 sets x 16 ways: 64 x (64 + 128) bytes, no prefetch.
    CHECK(prefetched_tag_lines(64, 16, header_blocks(16)) == 0);
    // 4096 x 16: 768 KiB, still none; 8192 x 16: 1.5 MiB, both tag lines.
    CHECK(prefetched_tag_lines(4096, 16, header_blocks(16)) == 0);
    CHECK(prefetched_tag_lines(8192, 16, header_blocks(16)) == 2);
    // 16 Ki x 4 (1.5 MiB): the set's one tag line; 64 Ki x 32: all four.
    CHECK(prefetched_tag_lines(16384, 4, header_blocks(4)) == 1);
    CHECK(prefetched_tag_lines(65536, 32, header_blocks(32)) == 4);
    CHECK(cache::detail::fixed_layout<fixed_geometry<16384, 16, 64>,
                                      header_blocks(16)>::prefetched_tag_lines == 2);
}

TEST_CASE("tag prefetch: a large cache that prefetches gives an independent LRU model's hits") {
    SUBCASE("runtime geometry, 16 Ki sets x 16 ways") {
        cache::set_associative_cache<replacement::lru> c(
            geometry{.sets = 16384, .ways = 16, .line_bytes = 64});
        check_against_model(c, 16384, 16);
    }
    SUBCASE("fixed geometry, 16 Ki sets x 4 ways") {
        cache::set_associative_cache<replacement::lru, cache::write_policy::write_back,
                                     fixed_geometry<16384, 4, 64>>
            c(fixed_geometry<16384, 4, 64>{});
        check_against_model(c, 16384, 4);
    }
}
