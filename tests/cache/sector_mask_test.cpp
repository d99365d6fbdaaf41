// access::sector_mask on the set engine: a variable-block cache requests exactly the masked
// segments (hits iff every one is resident, fetches only the missing ones, a bypassed read moves
// the missing masked segments, a store writes the masked segments down); a conventional cache
// ignores the mask; a mask of 0 is the byte range as before. Hand-worked examples, then an
// independent segment-set model and a differential against the equivalent unmasked range.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>

using namespace memsub;
using cache::block_spec;
using replacement::lru;

namespace {

/// ID-Cache's L1 set ([Dissertation] §3.2.4): 4 ways of 128 B in 32 B segments, 16 tags.
constexpr geometry alsi_set{
    .sets = 1, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};

/// A load of [address, address + size) with `mask` (bit i = 32 B segment i of the line).
memsub::access masked(std::uint64_t address, std::uint32_t size, std::uint16_t mask,
                      access_kind kind = access_kind::load) {
    memsub::access a;
    a.address = byte_address{address};
    a.size = size;
    a.kind = kind;
    a.sector_mask = mask;
    return a;
}

constexpr block_spec span_1{.span_segments = 1, .stored_segments = 1};

} // namespace

TEST_CASE("sector mask: a miss fetches only the masked segments, then hits on them alone") {
    cache::variable_block_cache<lru, 4> c(alsi_set);
    // Bytes 0 and 96 of line 0: segments 0 and 3, the two between not requested.
    auto r = c.access(masked(0x00, 97, 0b1001), span_1);
    CHECK_FALSE(r.hit);
    CHECK_FALSE(r.partial);
    CHECK(r.missing_segments == 0b1001);
    CHECK(r.blocks_filled == 2);
    CHECK(r.bytes_fetched == 64);
    CHECK(c.resident_segments(line_address{0}) == 0b1001);
    CHECK(c.block(r.set, r.entry).address == byte_address{0x00}); // holds the first byte
    // The same request: every masked segment is resident.
    r = c.access(masked(0x00, 97, 0b1001), span_1);
    CHECK(r.hit);
    CHECK(r.bytes_fetched == 0);
    // Segments 0 and 1: a partial miss that fetches segment 1 only.
    r = c.access(masked(0x10, 0x20, 0b0011), span_1);
    CHECK_FALSE(r.hit);
    CHECK(r.partial);
    CHECK(r.missing_segments == 0b0010);
    CHECK(r.bytes_fetched == 32);
    CHECK(c.resident_segments(line_address{0}) == 0b1011);
    // Mask 0: the byte range 0..96 requests segments 0-3 as before (segment 2 is missing).
    r = c.access(masked(0x00, 97, 0), span_1);
    CHECK(r.partial);
    CHECK(r.missing_segments == 0b0100);
    CHECK(c.stats().misses() == 3);
    CHECK(c.stats().bytes_fetched == 64 + 32 + 32);
}

TEST_CASE("sector mask: with 128 B blocks a masked miss fills the whole line once") {
    cache::variable_block_cache<lru, 4> c(alsi_set);
    auto r = c.access(masked(0x200, 97, 0b1001), block_spec{4, 4});
    CHECK(r.blocks_filled == 1);
    CHECK(r.bytes_fetched == 128);
    CHECK(c.block(r.set, r.entry).touched_segments == 0b1001); // only the masked ones used
    r = c.access(masked(0x220, 64, 0b0110), block_spec{4, 4});
    CHECK(r.hit);
    CHECK(c.block(r.set, r.entry).touched_segments == 0b1111);
}

TEST_CASE("sector mask: a bypassed read moves the requested bytes of the missing masked segments") {
    cache::variable_block_cache<lru, 4> c(alsi_set);
    auto a = masked(0x00, 97, 0b1001);
    a.hints.no_allocate = true;
    auto r = c.access(a, span_1);
    CHECK(r.bypassed());
    // The requested bytes: segment 0 from byte 0 (32) and segment 3 up to byte 96 (1), not the
    // span's 97 bytes nor two whole segments.
    CHECK(r.bytes_fetched == 33);
    c.access(masked(0x00, 4, 0), span_1); // segment 0 resident
    r = c.access(a, span_1);
    CHECK(r.bypassed());
    CHECK(r.partial);
    CHECK(r.bytes_fetched == 1);
    // One run of sectors asks for exactly its bytes, as an unmasked access does (a 4 B gather
    // bypassed fetches 4 B: [Dissertation] Algorithm 5).
    auto gather = masked(0x44, 4, 0b0100);
    gather.hints.no_allocate = true;
    CHECK(c.access(gather, span_1).bytes_fetched == 4);
}

TEST_CASE("sector mask: a store writes the requested bytes of the masked segments down") {
    cache::variable_block_cache<lru, 4, cache::write_policy::write_evict> c(alsi_set);
    c.access(masked(0x00, 0, 0), span_1); // segments 0-3 resident, one block each
    auto r = c.access(masked(0x00, 97, 0b1001, access_kind::store), span_1);
    CHECK(r.hit);
    CHECK(r.bytes_written_down == 33); // segment 0 whole, byte 96 of segment 3
    CHECK(r.evictions.size() == 2);    // the blocks of segments 0 and 3
    CHECK(c.resident_segments(line_address{0}) == 0b0110);
    // A store miss (not allocated) also writes the masked segments.
    r = c.access(masked(0x80, 97, 0b1001, access_kind::store), span_1);
    CHECK(r.bypassed());
    CHECK(r.bytes_written_down == 33);
    // A read-modify-write: the read fills the masked segments, the write sends them down.
    cache::variable_block_cache<lru, 4, cache::write_policy::write_through> wt(alsi_set);
    auto rmw = masked(0x100, 97, 0b1001);
    rmw.read_modify_write = true;
    r = wt.access(rmw, span_1);
    CHECK(r.bytes_fetched == 64); // a fill moves whole segments
    CHECK(r.bytes_written_down == 33);
}

TEST_CASE("sector mask: bits past the line are ignored; none inside leaves the byte range") {
    cache::variable_block_cache<lru, 2> c(
        geometry{.sets = 1, .ways = 4, .line_bytes = 64, .segment_bytes = 32, .tags_per_set = 8});
    // Bytes 0-63 masked to segments 0 and 2: segment 2 does not exist, and segment 1 is not
    // requested although the range covers it.
    auto r = c.access(masked(0x00, 64, 0b0101), span_1);
    CHECK(r.missing_segments == 0b01);
    CHECK(r.bytes_fetched == 32);
    r = c.access(masked(0x40, 64, 0b1100), span_1); // no segment of the line: bytes 0-63
    CHECK(r.missing_segments == 0b11);
}

TEST_CASE("sector mask: a conventional cache ignores it (the Fermi L1 hits iff the line is "
          "resident)") {
    cache::set_associative_cache<lru, cache::write_policy::write_evict> c(
        geometry{.sets = 32, .ways = 4, .line_bytes = 128});
    auto r = c.access(masked(0x1000, 97, 0b1001));
    CHECK_FALSE(r.hit);
    CHECK(r.bytes_fetched == 128);
    r = c.access(masked(0x1020, 64, 0b0110)); // segments the first did not request
    CHECK(r.hit);
    // A random stream, masked and unmasked, gives identical results.
    cache::set_associative_cache<lru> with(geometry{.sets = 4, .ways = 2, .line_bytes = 128});
    cache::set_associative_cache<lru> without(geometry{.sets = 4, .ways = 2, .line_bytes = 128});
    xoshiro256ss rng{31};
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t line = rng.below(40);
        const auto first = static_cast<std::uint32_t>(rng.below(4));
        const auto more = static_cast<std::uint32_t>(rng.below(16)) << first;
        auto a = masked(line * 128 + first * 32 + rng.below(32),
                        1 + static_cast<std::uint32_t>(rng.below(16)),
                        static_cast<std::uint16_t>((1u << first) | (more & 0xfu)),
                        rng.below(4) == 0 ? access_kind::store : access_kind::load);
        auto b = a;
        b.sector_mask = 0;
        const auto x = with.access(a);
        const auto y = without.access(b);
        REQUIRE(x.hit == y.hit);
        REQUIRE(x.bytes_fetched == y.bytes_fetched);
        REQUIRE(x.bytes_written_down == y.bytes_written_down);
        REQUIRE(x.evictions.size() == y.evictions.size());
    }
    CHECK(with.stats().misses() == without.stats().misses());
}

TEST_CASE("property: masked requests on 32 B blocks equal a segment-set model") {
    // 16 lines and room for all of them (64 tags, 64 segments): nothing is evicted, so a request
    // hits iff its masked segments were all requested before, and fetches the others.
    cache::variable_block_cache<lru, 4> c(geometry{
        .sets = 1, .ways = 16, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 64});
    std::vector<std::uint32_t> resident(16, 0);
    xoshiro256ss rng{2024};
    for (int i = 0; i < 5000; ++i) {
        const std::uint64_t line = rng.below(16);
        const auto mask = static_cast<std::uint16_t>(1 + rng.below(15));
        const auto first = static_cast<std::uint32_t>(std::countr_zero(mask));
        const auto last = static_cast<std::uint32_t>(std::bit_width(mask)) - 1;
        const std::uint32_t lo = first * 32 + static_cast<std::uint32_t>(rng.below(32));
        const std::uint32_t hi = last * 32 + static_cast<std::uint32_t>(rng.below(32)) + 1;
        const std::uint32_t size = hi > lo ? hi - lo : 1;
        const auto r = c.access(masked(line * 128 + lo, size, mask), span_1);
        const std::uint32_t missing = mask & ~resident[line];
        REQUIRE(r.hit == (missing == 0));
        if (!r.hit) {
            REQUIRE(r.missing_segments == missing);
            REQUIRE(r.partial == ((mask & resident[line]) != 0));
            REQUIRE(r.bytes_fetched == 32u * static_cast<std::uint32_t>(std::popcount(missing)));
        }
        REQUIRE(r.evictions.empty());
        resident[line] |= mask;
        REQUIRE(c.resident_segments(line_address{line}) == resident[line]);
    }
}

TEST_CASE("property: a contiguous mask equals the unmasked whole-segment range") {
    // Requests of whole segments first..last, masked and not, on two caches that evict: every
    // result and the final statistics agree (span 1, 2 or 4 blocks; loads, stores, bypasses).
    cache::variable_block_cache<lru, 4> with(alsi_set), without(alsi_set);
    xoshiro256ss rng{99};
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t line = rng.below(12);
        auto first = static_cast<std::uint32_t>(rng.below(4));
        auto last = static_cast<std::uint32_t>(rng.below(4));
        if (first > last) std::swap(first, last);
        const auto mask = static_cast<std::uint16_t>(((2u << last) - 1) & ~((1u << first) - 1));
        auto a = masked(line * 128 + first * 32, (last - first + 1) * 32, mask,
                        rng.below(5) == 0 ? access_kind::store : access_kind::load);
        a.hints.no_allocate = rng.below(8) == 0;
        auto b = a;
        b.sector_mask = 0;
        const std::uint32_t span = 1u << rng.below(3);
        const auto x = with.access(a, block_spec{span, span});
        const auto y = without.access(b, block_spec{span, span});
        REQUIRE(x.hit == y.hit);
        REQUIRE(x.partial == y.partial);
        REQUIRE(x.missing_segments == y.missing_segments);
        REQUIRE(x.blocks_filled == y.blocks_filled);
        REQUIRE(x.bytes_fetched == y.bytes_fetched);
        REQUIRE(x.bytes_written_down == y.bytes_written_down);
        REQUIRE(x.entry == y.entry);
        REQUIRE(x.evictions.size() == y.evictions.size());
        for (std::size_t k = 0; k < x.evictions.size(); ++k) {
            REQUIRE(x.evictions[k].address == y.evictions[k].address);
            REQUIRE(x.evictions[k].dirty == y.evictions[k].dirty);
        }
    }
    CHECK(with.stats().misses() == without.stats().misses());
    CHECK(with.stats().bytes_fetched == without.stats().bytes_fetched);
    CHECK(with.stats().bytes_written_down == without.stats().bytes_written_down);
}
