// The engine's spec rules hold in a release build: this file is compiled with NDEBUG (so every
// MEMSUB_ASSERT is off) and its caches use a policy type of its own, so the engine code below
// is instantiated here only, without assertions. A spec stored beyond its span, or with a span
// the line cannot hold, is corrected and counted, not left to undefined behaviour.
#ifndef NDEBUG
#define NDEBUG
#endif
#include <doctest/doctest.h>

#include <cstdint>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/lru.hpp>

using namespace memsub;
using cache::block_spec;

namespace {

/// LRU under a name of this file's own (see the header comment).
struct release_lru : replacement::lru {
    using replacement::lru::lru;
};

constexpr geometry one_set{
    .sets = 1, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};

memsub::access at(std::uint64_t addr, access_kind kind = access_kind::load) {
    return memsub::access{.address = byte_address{addr}, .kind = kind, .size = 4};
}

} // namespace

TEST_CASE("release build: a spec beyond its span is stored raw and counted, the set's budget "
          "holds") {
    MEMSUB_ASSERT(false); // assertions are off in this file: this is a no-op
    cache::variable_block_cache<release_lru, 4> c(one_set);
    // SC²'s byte-aligned sizes read as segments: a 400-bit line "50 segments".
    auto r = c.access(at(0), block_spec{4, 50, 1});
    CHECK(c.block(r.set, r.entry).stored_segments == 4);
    r = c.access(at(128), block_spec{4, c.segments_for_bits(400), 2});
    CHECK(c.block(r.set, r.entry).stored_segments == 2);
    r = c.access(at(256), block_spec{6, 2, 3}); // span 6: the whole line
    CHECK(c.block(r.set, r.entry).bytes == 128);
    CHECK(c.block(r.set, r.entry).stored_segments == 2);
    r = c.access(at(384), block_spec{64, 64, 4}); // span beyond the line: the whole line, raw
    CHECK(c.block(r.set, r.entry).bytes == 128);
    CHECK(c.block(r.set, r.entry).stored_segments == 4);
    r = c.access(at(0, access_kind::store), block_spec{4, 255, 5}); // a resizing store
    CHECK(c.block(r.set, r.entry).stored_segments == 4);
    CHECK(c.stats().specs_clamped == 4);
    CHECK(c.free_segments(set_index{0}) == 16 - 4 - 2 - 2 - 4);
    // Filling past the budget evicts as usual; the books balance.
    for (std::uint64_t l = 4; l < 40; ++l) c.access(at(l * 128), block_spec{4, 9, 0});
    std::uint32_t used = 0;
    for (std::uint32_t e = 0; e < one_set.entries_per_set(); ++e)
        used += c.block(set_index{0}, entry_index{e}).stored_segments;
    CHECK(used == 16);
    CHECK(c.free_segments(set_index{0}) == 0);
    CHECK(c.stats().specs_clamped == 4 + 36);
}
