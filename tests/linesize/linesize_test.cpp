// The line-size family: the concept (archetype and broken types, LS1–LS4), ALSI's sizes
// ([Dissertation] §3.2.4, Algorithm 4, spec reading), static sizes, and `adaptive_line_cache` on
// the variable-block engine: the block a miss inserts, partial hits and misses that never re-fetch
// resident bytes, eviction until a tag and the segments exist, equivalence of static 128 B with
// a conventional cache, and a property test of the fetched bytes.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <set>
#include <string_view>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/linesize/all.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/testing/archetypes.hpp>

using namespace memsub;
using linesize::alsi;
using linesize::static_size;
using replacement::lru;

namespace {

// Table 3.1's L1 budget as a runtime shape: 32 sets × 4 ways × 128 B in 32 B segments, 16 tags.
const geometry l1{
    .sets = 32, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};

template <class Sizer>
using l1_cache = linesize::adaptive_line_cache<lru, Sizer, cache::write_policy::write_evict>;

memsub::access load(std::uint64_t address, std::uint32_t size, std::uint32_t d) {
    memsub::access a;
    a.address = byte_address{address};
    a.size = size;
    a.divergence = d;
    return a;
}

/// Line `n` of set `s` in the 32-set cache.
constexpr std::uint64_t line_in_set(std::uint64_t s, std::uint64_t n) {
    return (n * 32 + s) * 128;
}

} // namespace

static_assert(linesize::line_size_predictor<testing::linesize_archetype>);
static_assert(!linesize::line_size_predictor<testing::broken_sizer_no_params>);
static_assert(!linesize::line_size_predictor<testing::broken_sizer_no_geometry>);
static_assert(!linesize::line_size_predictor<testing::broken_sizer_throwing>);
static_assert(!linesize::line_size_predictor<testing::broken_sizer_unnamed>);
static_assert(linesize::line_size_predictor<alsi>);
static_assert(linesize::line_size_predictor<static_size<32>>);
static_assert(linesize::reports_storage<alsi> && !linesize::observes_evictions<alsi>);

TEST_CASE("the archetype runs on adaptive_line_cache (the cache asks no more than LS1-LS4)") {
    l1_cache<testing::linesize_archetype> c(l1);
    const auto r = c.access(load(0x1000, 4, 32));
    CHECK(r.filled());
    CHECK(r.bytes_fetched == 128);
}

TEST_CASE("ALSI: d = 1 -> 128 B, 2 <= d < 4 -> 64 B, d >= 4 -> 32 B (thresholds are params)") {
    const alsi a(l1);
    CHECK(a.bytes_for(0) == 128);
    CHECK(a.bytes_for(1) == 128);
    CHECK(a.bytes_for(2) == 64);
    CHECK(a.bytes_for(3) == 64);
    CHECK(a.bytes_for(4) == 32);
    CHECK(a.bytes_for(32) == 32);
    CHECK(a.bytes_for(64) == 32);
    const alsi b(l1, {.medium_from_divergence = 3, .small_from_divergence = 9});
    CHECK(b.bytes_for(2) == 128);
    CHECK(b.bytes_for(8) == 64);
    CHECK(b.bytes_for(9) == 32);
    const alsi two(l1, {.medium_from_divergence = 4, .small_from_divergence = 4});
    CHECK(two.bytes_for(3) == 128);
    CHECK(two.bytes_for(4) == 32);
    CHECK(a.name() == "alsi");
    CHECK(a.storage_bits() == 0);
}

TEST_CASE("bad line-size params throw config_error") {
    CHECK_THROWS_AS(alsi(l1, {.medium_from_divergence = 1}), config_error);
    CHECK_THROWS_AS(alsi(l1, {.medium_from_divergence = 4, .small_from_divergence = 3}),
                    config_error);
    CHECK_THROWS_AS(alsi(l1, {.large_bytes = 256}), config_error);
    CHECK_THROWS_AS(alsi(l1, {.small_bytes = 16}), config_error); // below the segment size
    CHECK_THROWS_AS(alsi(l1, {.medium_bytes = 48}), config_error);
    CHECK_THROWS_AS(static_size<256>{l1}, config_error);
    CHECK_THROWS_AS(static_size<16>{l1}, config_error);
    CHECK_THROWS_AS(l1_cache<static_size<256>>{l1}, config_error);
}

TEST_CASE("static sizes: names and answers") {
    CHECK(static_size<32>::name() == "static_32B");
    CHECK(static_size<64>::name() == "static_64B");
    CHECK(static_size<128>::name() == "static_128B");
    CHECK(static_size<64>(l1).block_bytes(set_index{0}, load(0, 4, 1)) == 64);
}

TEST_CASE("ALSI on the variable-block cache: the inserted block is the aligned block of the "
          "predicted size holding the request") {
    l1_cache<alsi> c(l1);
    auto& u = c;
    // d = 1: the whole 128 B line.
    auto r = c.access(load(0x1000 + 8, 4, 1));
    CHECK(r.filled());
    CHECK(r.bytes_fetched == 128);
    CHECK(u.resident_segments(line_address{0x1000 / 128}) == 0xf);
    // d = 2: the aligned 64 B half holding byte 70.
    r = c.access(load(0x2000 + 70, 4, 2));
    CHECK(r.bytes_fetched == 64);
    CHECK(u.resident_segments(line_address{0x2000 / 128}) == 0xc);
    CHECK(u.block(r.set, r.entry).bytes == 64);
    CHECK(u.block(r.set, r.entry).address == byte_address{0x2040});
    // d = 32: the 32 B sector holding byte 100.
    r = c.access(load(0x3000 + 100, 4, 32));
    CHECK(r.bytes_fetched == 32);
    CHECK(u.resident_segments(line_address{0x3000 / 128}) == 0x8);
    CHECK(u.block(r.set, r.entry).bytes == 32);
    // A request spanning two 32 B blocks with d = 4 inserts both.
    r = c.access(load(0x4000 + 24, 16, 4));
    CHECK(r.blocks_filled == 2);
    CHECK(r.bytes_fetched == 64);
    CHECK(u.resident_segments(line_address{0x4000 / 128}) == 0x3);
}

TEST_CASE("partial hits and misses: only the missing blocks are fetched, resident bytes never") {
    l1_cache<alsi> c(l1);
    auto& u = c;
    const line_address line{0x2000 / 128};
    c.access(load(0x2000 + 64, 4, 2)); // 64 B block, segments 2-3
    // A hit inside the resident block.
    auto r = c.access(load(0x2000 + 96, 8, 32));
    CHECK(r.hit);
    CHECK(r.bytes_fetched == 0);
    // A request over segments 1-2 (partly resident), d = 2: a partial miss fetching the
    // aligned 64 B half 0-1 only.
    r = c.access(load(0x2000 + 48, 32, 2));
    CHECK_FALSE(r.hit);
    CHECK(r.partial);
    CHECK(r.missing_segments == 0x2);
    CHECK(r.bytes_fetched == 64);
    CHECK(u.resident_segments(line) == 0xf);
    CHECK(c.stats().partial_misses == 1);
    // Now the whole line is resident (two 64 B blocks): a convergent access hits.
    CHECK(c.access(load(0x2000, 0, 1)).hit);

    // A 32 B block resident, then a convergent (d = 1) request for the line: a partial miss that
    // inserts a 128 B block superseding the 32 B one and fetches the other 96 bytes only.
    const line_address other{0x9000 / 128};
    c.access(load(0x9000 + 40, 4, 32)); // segment 1
    REQUIRE(u.resident_segments(other) == 0x2);
    r = c.access(load(0x9000, 128, 1));
    CHECK(r.partial);
    CHECK(r.bytes_fetched == 96);
    CHECK(r.blocks_filled == 1);
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].reason == memsub::eviction_reason::superseded);
    CHECK(u.resident_segments(other) == 0xf);
}

TEST_CASE("eviction until a free tag and enough free segments exist (LRU over blocks)") {
    l1_cache<alsi> c(l1);
    auto& u = c;
    const set_index s{5};
    // Four 128 B lines fill set 5's 16 segments.
    for (std::uint64_t n = 0; n < 4; ++n) CHECK(c.access(load(line_in_set(5, n), 4, 1)).filled());
    CHECK(u.free_segments(s) == 0);
    CHECK(u.free_entries(s) == 12);
    // A 32 B insert needs one segment: the LRU 128 B line leaves (freeing 4).
    auto r = c.access(load(line_in_set(5, 4), 4, 32));
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].address == byte_address{line_in_set(5, 0)});
    CHECK(u.free_segments(s) == 3);
    // Three more 32 B blocks fit without evicting.
    for (std::uint64_t n = 5; n < 8; ++n)
        CHECK(c.access(load(line_in_set(5, n), 4, 32)).evictions.empty());
    CHECK(u.free_segments(s) == 0);

    // Tags run out before segments: 16 32 B blocks use all 16 tags of a set.
    l1_cache<alsi> t(l1);
    for (std::uint64_t n = 0; n < 16; ++n)
        CHECK(t.access(load(line_in_set(9, n), 4, 32)).evictions.empty());
    CHECK(t.free_entries(set_index{9}) == 0);
    // A 128 B insert needs 4 segments: the four LRU 32 B blocks leave, in LRU order.
    r = t.access(load(line_in_set(9, 16), 4, 1));
    REQUIRE(r.evictions.size() == 4);
    for (std::uint64_t k = 0; k < 4; ++k)
        CHECK(r.evictions[k].address == byte_address{line_in_set(9, k)});
    CHECK(t.free_entries(set_index{9}) == 3);
    CHECK(t.free_segments(set_index{9}) == 0);
}

TEST_CASE("static 128 B on the variable-block cache behaves as the conventional 128 B L1") {
    l1_cache<static_size<128>> v(l1);
    gpu::baseline_l1 b;
    xoshiro256ss r{7};
    for (int i = 0; i < 100000; ++i) {
        memsub::access a = load(r.below(1u << 18), 0, 1 + static_cast<std::uint32_t>(r.below(32)));
        a.size = 1u << r.below(5);
        a.address = byte_address{a.address.value & ~std::uint64_t{a.size - 1}}; // within a line
        a.kind = r.below(8) == 0 ? access_kind::store : access_kind::load;
        const auto x = v.access(a);
        const auto y = b.access(a);
        REQUIRE(x.hit == y.hit);
        REQUIRE(x.filled() == y.filled());
        REQUIRE(x.bytes_fetched == y.bytes_fetched);
        REQUIRE(x.evictions.size() == y.evictions.size());
    }
    CHECK(v.stats().hits() == b.stats().hits());
    CHECK(v.stats().bytes_fetched == b.stats().bytes_fetched);
    CHECK(v.stats().hits() > 0);
}

TEST_CASE("property: a fill fetches exactly the newly resident segments of its line") {
    for (const std::uint64_t seed : {11u, 12u, 13u}) {
        l1_cache<alsi> c(l1);
        auto& u = c;
        xoshiro256ss r{seed};
        std::uint64_t partial = 0, hits = 0;
        for (int i = 0; i < 50000; ++i) {
            const std::uint64_t line = r.below(512); // 4× the capacity in lines
            const auto size = static_cast<std::uint32_t>(1u << r.below(8)); // 1..128
            const std::uint64_t offset = r.below(128 / size) * size;
            const auto d = static_cast<std::uint32_t>(1 + r.below(32));
            const line_address la{line};
            const std::uint64_t before = u.resident_segments(la);
            const auto res = c.access(load(line * 128 + offset, size, d));
            const std::uint64_t after = u.resident_segments(la);
            const std::uint64_t requested =
                low_bits_mask((offset + size - 1) / 32 - offset / 32 + 1) << (offset / 32);
            REQUIRE(res.hit == ((requested & ~before) == 0));
            if (res.hit) {
                ++hits;
                REQUIRE(res.bytes_fetched == 0);
                continue;
            }
            partial += res.partial;
            REQUIRE(res.partial == ((requested & before) != 0));
            // Never re-fetch resident bytes: the fetched segments are exactly the new ones,
            // each new block is the aligned ALSI-sized piece holding missing requested bytes.
            REQUIRE(res.bytes_fetched == 32u * std::popcount(after & ~before));
            REQUIRE((after & requested) == requested);
            const std::uint32_t span = c.sizer().bytes_for(d) / 32;
            std::uint64_t expected_new = 0;
            for (std::uint32_t o = 0; o < 4; o += span)
                if ((requested & ~before & (low_bits_mask(span) << o)) != 0)
                    expected_new |= low_bits_mask(span) << o;
            REQUIRE((after & ~before) == (expected_new & ~before));
        }
        CHECK(partial > 0);
        CHECK(hits > 0);
    }
}

namespace {

/// A predictor that records how the engine composes it: every question (LS3) and every
/// departure it hears (LO1), by reason.
struct recording_sizer {
    struct params {};
    recording_sizer(const geometry&, const params&) noexcept {}
    std::uint32_t asked = 0;
    std::vector<eviction_reason> departures;
    [[nodiscard]] std::uint32_t block_bytes(set_index, const memsub::access&) noexcept {
        ++asked;
        return 64;
    }
    void on_evict(set_index, entry_index, const evicted_block& b) noexcept {
        departures.push_back(b.reason);
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "recording"; }
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 7; }
};

} // namespace

TEST_CASE("composition: the engine asks the line-size predictor only when an access stores data "
          "(LP1)") {
    using write_back_l1 = linesize::adaptive_line_cache<lru, recording_sizer>;
    write_back_l1 c(l1);
    CHECK(c.access(load(0x1000, 4, 1)).filled()); // a fill asks once
    CHECK(c.sizer().asked == 1);
    CHECK(c.access(load(0x1000, 4, 1)).hit); // a load hit never asks
    CHECK(c.sizer().asked == 1);
    memsub::access no_allocate = load(0x5000, 4, 1);
    no_allocate.hints.no_allocate = true; // a miss the host declines never asks
    CHECK(!c.access(no_allocate).filled());
    CHECK(c.sizer().asked == 1);
    memsub::access store = load(0x1000, 4, 1);
    store.kind = access_kind::store; // a write-back store hit may resize: asked once
    CHECK(c.access(store).hit);
    CHECK(c.sizer().asked == 2);
    // The predictor's bits count in the cache's budget (LO2).
    CHECK(c.storage_bits() ==
          linesize::adaptive_line_cache<lru, static_size<64>>(l1).storage_bits() + 7);
}

TEST_CASE("composition: the line-size predictor hears every departure, whatever its cause "
          "(LO1, LP4)") {
    l1_cache<recording_sizer> c(l1);
    // Five 64 B blocks in set 0 (16 segments = 8 such blocks fit; write-evict L1).
    for (std::uint64_t n = 0; n < 10; ++n) c.access(load(line_in_set(0, n), 4, 1));
    const std::size_t replaced = c.sizer().departures.size();
    CHECK(replaced == 2); // 10 blocks of 2 segments into 16 segments
    memsub::access store = load(line_in_set(0, 9), 4, 1);
    store.kind = access_kind::store; // write-evict: the store removes the block
    c.access(store);
    CHECK(c.sizer().departures.size() == replaced + 1);
    CHECK(c.sizer().departures.back() == eviction_reason::write_evict);
    CHECK(c.invalidate(byte_address{line_in_set(0, 8)}).has_value());
    CHECK(c.sizer().departures.size() == replaced + 2);
    CHECK(c.sizer().departures.back() == eviction_reason::invalidated);
    std::size_t flushed = 0;
    c.flush([&](const evicted_block&) { ++flushed; });
    CHECK(flushed == 6);
    CHECK(c.sizer().departures.size() == replaced + 2 + flushed);
}

TEST_CASE("composition: a conventional cache's default line-size part is the whole line") {
    using conventional = cache::set_associative_cache<lru>;
    static_assert(std::same_as<conventional::sizer_type, linesize::whole_line>);
    conventional c(geometry{.sets = 4, .ways = 2, .line_bytes = 64});
    CHECK(c.sizer().block_bytes(set_index{0}, load(0, 4, 1)) == 64);
    CHECK(c.sizer().name() == "whole_line");
    CHECK(c.storage_bits() ==
          cache::set_associative_cache<lru>(geometry{.sets = 4, .ways = 2, .line_bytes = 64})
              .storage_bits());
}
