// The variable-block engine as a compressed L1 uses it ([Dissertation] §4.3.1: 128 B lines in
// 32 B segments, 16 tags and 16 segments per set): block specs computed lazily (only when the
// engine stores data) and read from `access::data`; find() agreeing with the access path; a hit
// whose block leaves during a resizing store; a store hit on a block of another span; tag-only
// blocks; specs the engine corrects; invalidations by reason; payload bits in storage_bits().
// Worked examples by hand, then seeded property tests against a reference mirror of the cache.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include <memsub/bypass/always.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/fifo.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/random.hpp>
#include <memsub/testing/recording_policy.hpp>

using namespace memsub;
using cache::block_spec;
using memsub::eviction_reason;
using replacement::fifo;
using replacement::lru;

namespace {

memsub::access load(std::uint64_t addr, std::uint32_t size = 0) {
    return memsub::access{.address = byte_address{addr}, .size = size};
}
memsub::access store(std::uint64_t addr, std::uint32_t size = 0) {
    return memsub::access{.address = byte_address{addr}, .kind = access_kind::store, .size = size};
}

/// LATTE-CC's compressed L1 ([Dissertation] §4.3.1): 32 sets × 4 ways × 128 B, 32 B segments,
/// 16 tags per set.
constexpr geometry latte_l1{
    .sets = 32, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
/// One set of it, and a smaller set (2 ways: 8 segments, 8 tags) for hand-worked examples.
constexpr geometry latte_set{
    .sets = 1, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
constexpr geometry small_set{
    .sets = 1, .ways = 2, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 8};

/// A spec that depends on the access and on a version the test bumps (the line's data changed),
/// so an eager and a lazy cache given the same function see the same specs.
block_spec spec_for(const memsub::access& a, std::uint32_t version) {
    const std::uint64_t h = (a.address.value >> 7) * 0x9e3779b97f4a7c15ull + version;
    const auto stored = static_cast<std::uint32_t>((h >> 40) % 5); // 0..4: tag-only included
    return block_spec{4, stored, static_cast<std::uint32_t>((h >> 20) & 63)};
}

template <class R>
void check_same(const R& x, const R& y) {
    REQUIRE(x.hit == y.hit);
    REQUIRE(x.partial == y.partial);
    REQUIRE(x.bypass == y.bypass);
    REQUIRE(x.blocks_filled == y.blocks_filled);
    REQUIRE(x.set == y.set);
    REQUIRE(x.entry == y.entry);
    REQUIRE(x.payload == y.payload);
    REQUIRE(x.hit_block_left == y.hit_block_left);
    REQUIRE(x.resize_refused == y.resize_refused);
    REQUIRE(x.bytes_fetched == y.bytes_fetched);
    REQUIRE(x.bytes_written_down == y.bytes_written_down);
    REQUIRE(x.evictions == y.evictions);
}

} // namespace

// ------------------------------------------------------------------------------- lazy specs

TEST_CASE("lazy spec: called once per filled access and per resizing store hit, never on a "
          "hit, a bypass or a write-evict store; results equal the eager path") {
    xoshiro256ss rng(77);
    SUBCASE("write-back: fills and store hits ask, load hits and host bypasses do not") {
        cache::variable_block_cache<lru, 4> lazy(latte_l1), eager(latte_l1);
        std::uint64_t calls = 0, expected = 0, fills = 0, store_hits = 0, load_hits = 0,
                      bypasses = 0;
        std::uint32_t version = 0;
        for (int i = 0; i < 50000; ++i) {
            auto a = rng.below(4) == 0 ? store(rng.below(512) * 128 + rng.below(128), 4)
                                       : load(rng.below(512) * 128 + rng.below(128), 4);
            a.hints.no_allocate = rng.below(10) == 0;
            if (rng.below(50) == 0) ++version;
            const std::uint64_t before = calls;
            const auto x = lazy.access(a, [&](const memsub::access& b) {
                ++calls;
                return spec_for(b, version);
            });
            const auto y = eager.access(a, spec_for(a, version));
            check_same(x, y);
            const std::uint64_t asked = calls - before;
            if (x.filled()) {
                ++fills;
                REQUIRE(asked == 1);
            } else if (x.hit && a.kind == access_kind::store) {
                ++store_hits;
                REQUIRE(asked == 1);
            } else {
                if (x.hit) ++load_hits;
                if (x.bypassed()) ++bypasses;
                REQUIRE(asked == 0);
            }
            expected += asked;
        }
        CHECK(calls == expected);
        CHECK(calls == fills + store_hits);
        CHECK(fills > 1000);
        CHECK(store_hits > 1000);
        CHECK(load_hits > 1000);
        CHECK(bypasses > 1000);
        const auto& s = lazy.stats();
        const auto& t = eager.stats();
        CHECK(s.fills == t.fills);
        CHECK(s.evictions == t.evictions);
        CHECK(s.resizes == t.resizes);
        CHECK(s.bytes_fetched == t.bytes_fetched);
        CHECK(s.bytes_written_back == t.bytes_written_back);
        CHECK(s.misses() == t.misses());
    }
    SUBCASE("write-evict (LATTE-CC's L1): only fills ask; a predictor's bypass does not") {
        using l1 = cache::variable_block_cache<lru, 4, cache::write_policy::write_evict>;
        l1 lazy(latte_l1), eager(latte_l1);
        std::uint64_t calls = 0, fills = 0, stores = 0;
        for (int i = 0; i < 50000; ++i) {
            const auto a =
                rng.below(3) == 0 ? store(rng.below(400) * 128, 0) : load(rng.below(400) * 128, 0);
            const std::uint64_t before = calls;
            const auto x = lazy.access(a, [&](const memsub::access& b) {
                ++calls;
                return spec_for(b, 0);
            });
            check_same(x, eager.access(a, spec_for(a, 0)));
            stores += a.kind == access_kind::store;
            fills += x.filled();
            REQUIRE(calls - before == (x.filled() ? 1u : 0u));
        }
        CHECK(calls == fills);
        CHECK(stores > 10000);
        // Every miss bypassed by the cache's predictor: never asked.
        cache::variable_block_cache<lru, 4, cache::write_policy::write_back, geometry,
                                    bypass::always>
            bypassing(latte_l1);
        for (int i = 0; i < 1000; ++i) {
            const auto r = bypassing.access(load(rng.below(400) * 128), [&](const memsub::access&) {
                ++calls;
                return block_spec{4, 1, 0};
            });
            REQUIRE(r.bypass == cache::bypass_reason::predictor);
        }
        CHECK(calls == fills);
    }
    SUBCASE("a read-modify-write asks for its read's fill and for its write's resize") {
        cache::variable_block_cache<lru, 4> c(latte_set);
        int calls = 0;
        const auto spec_of = [&](const memsub::access&) {
            ++calls;
            return block_spec{4, calls == 1 ? 1u : 3u, static_cast<std::uint32_t>(calls)};
        };
        auto m = load(0, 8);
        m.read_modify_write = true;
        auto r = c.access(m, spec_of); // miss: the fill asks (1 segment), the write resizes (3)
        CHECK(calls == 2);
        CHECK(r.filled());
        CHECK(c.block(r.set, r.entry).stored_segments == 3);
        CHECK(c.block(r.set, r.entry).payload == 2);
        CHECK(c.block(r.set, r.entry).dirty);
    }
}

TEST_CASE("access::data reaches the lazy spec: a host's compressor sizes the line there") {
    // A toy compressor: a line whose 32 B quarters are all zero but the first stores in one
    // segment, an all-zero line as a tag only (payload 1), anything else raw.
    const auto compress = [](const memsub::access& a) {
        REQUIRE(a.data.size() == 128);
        const bool zero = std::all_of(a.data.begin(), a.data.end(),
                                      [](std::byte b) { return b == std::byte{0}; });
        const bool tail_zero = std::all_of(a.data.begin() + 32, a.data.end(),
                                           [](std::byte b) { return b == std::byte{0}; });
        if (zero) return block_spec{4, 0, 1};
        return tail_zero ? block_spec{4, 1, 2} : block_spec{4, 4, 0};
    };
    std::array<std::byte, 128> line{};
    cache::variable_block_cache<lru, 4> c(latte_set);
    auto a = load(0);
    a.data = line;
    auto r = c.access(a, compress);
    CHECK(c.block(r.set, r.entry).stored_segments == 0);
    CHECK(r.payload == 1);
    line[5] = std::byte{7};
    a.address = byte_address{128};
    r = c.access(a, compress);
    CHECK(c.block(r.set, r.entry).stored_segments == 1);
    line[100] = std::byte{1};
    a.address = byte_address{256};
    r = c.access(a, compress);
    CHECK(c.block(r.set, r.entry).stored_segments == 4);
    CHECK(c.free_segments(set_index{0}) == 16 - 5);
}

TEST_CASE("access_all with a lazy spec equals access one by one") {
    std::vector<memsub::access> batch;
    xoshiro256ss rng(5);
    for (int i = 0; i < 20000; ++i)
        batch.push_back(rng.below(4) == 0 ? store(rng.below(600) * 128 + rng.below(128), 4)
                                          : load(rng.below(600) * 128 + rng.below(128), 4));
    cache::variable_block_cache<lru, 4> all(latte_l1), one(latte_l1);
    std::uint64_t calls_all = 0, calls_one = 0;
    std::vector<cache::variable_block_cache<lru, 4>::result_type> results;
    all.access_all(
        batch,
        [&](const memsub::access& a) {
            ++calls_all;
            return spec_for(a, 0);
        },
        [&](const memsub::access&, const auto& r) { results.push_back(r); });
    REQUIRE(results.size() == batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i)
        check_same(results[i], one.access(batch[i], [&](const memsub::access& a) {
            ++calls_one;
            return spec_for(a, 0);
        }));
    CHECK(calls_all == calls_one);
    CHECK(calls_all < batch.size()); // hits did not ask
}

// ------------------------------------------------------------------------------- find()

TEST_CASE("find() names the block the access path would report, by the same scan") {
    // Mixed spans (ALSI-like) and compressed whole lines; find() must agree with a scan of the
    // block views (the lowest valid entry whose block covers the address) and with a load hit's
    // r.entry, and contains() with resident_segments().
    const geometry g{
        .sets = 4, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    cache::variable_block_cache<lru, 4> c(g);
    xoshiro256ss rng(11);
    for (int i = 0; i < 20000; ++i) {
        const std::uint32_t span = 1u << rng.below(3);
        const auto stored = static_cast<std::uint32_t>(rng.below(span + 1));
        c.access(load(rng.below(64) * 128 + rng.below(128), 1), block_spec{span, stored, 0});
        if (i % 50 != 0) continue;
        for (std::uint64_t addr = 0; addr < 64 * 128; addr += 32) {
            const byte_address x{addr};
            const set_index s = c.set_of(x);
            std::optional<cache::block_location> want;
            for (std::uint32_t e = 0; e < g.entries_per_set() && !want; ++e) {
                const auto v = c.block(s, entry_index{e});
                if (v.valid && addr >= v.address.value && addr < v.address.value + v.bytes)
                    want = cache::block_location{s, entry_index{e}};
            }
            REQUIRE(c.find(x) == want);
            REQUIRE(c.contains(x) == want.has_value());
            const std::uint64_t seg_bit = std::uint64_t{1} << ((addr % 128) / 32);
            REQUIRE(c.contains(x) == ((c.resident_segments(c.line_of(x)) & seg_bit) != 0));
        }
    }
    // A load hit reports the block find() names.
    for (std::uint64_t addr = 0; addr < 64 * 128; addr += 32) {
        const auto where = c.find(byte_address{addr});
        if (!where) continue;
        const auto r = c.access(load(addr, 4), block_spec{1, 1, 0});
        REQUIRE(r.hit);
        REQUIRE(r.entry == where->entry);
    }
}

// ------------------------------------------------------------------- a hit block that leaves

TEST_CASE("a growing block that evicts itself is reported as a hit whose block left") {
    cache::variable_block_cache<fifo, 4> c(small_set);
    c.access(load(0 * 128), block_spec{4, 2, 5}); // A, the oldest
    c.access(load(1 * 128), block_spec{4, 4});    // B
    c.access(load(2 * 128), block_spec{4, 2});    // C: 8 of 8 used
    const auto a = c.find(byte_address{0});
    REQUIRE(a);
    const auto r = c.access(store(0, 4), block_spec{4, 3, 6});
    CHECK(r.hit);
    CHECK(r.hit_block_left);
    CHECK(r.entry == a->entry);
    CHECK_FALSE(c.block(r.set, r.entry).valid); // the entry no longer holds it
    REQUIRE(r.evictions.size() == 1);
    const auto& gone = r.evictions[0];
    CHECK(gone.entry == r.entry);
    CHECK(gone.set == r.set);
    CHECK(gone.reason == eviction_reason::replacement);
    CHECK(gone.dirty);                // the store's data goes down with it
    CHECK(gone.stored_segments == 2); // it left at the size it had
    CHECK(gone.payload == 6);         // holding the store's data, as the spec encodes it
    CHECK(c.free_segments(set_index{0}) == 2);
    CHECK(c.stats().resizes == 1);
    // A hit that keeps its block says so.
    const auto kept = c.access(store(128, 4), block_spec{4, 2, 7});
    CHECK(kept.hit);
    CHECK_FALSE(kept.hit_block_left);
    CHECK(c.block(kept.set, kept.entry).valid);
}

TEST_CASE("a growing block whose victim is another block the store touched: that block is "
          "reported, not resized after it left") {
    cache::variable_block_cache<fifo, 4> c(small_set);
    c.access(load(5 * 128), block_spec{4, 1});         // P: entry 0
    c.access(load(6 * 128), block_spec{4, 1});         // Q: entry 1
    c.access(load(0 * 128 + 64, 4), block_spec{2, 1}); // B (line 0, segments 2-3): entry 2
    c.invalidate(byte_address{5 * 128});               // entry 0 free
    c.invalidate(byte_address{6 * 128});               // entry 1 free
    c.access(load(0 * 128 + 0, 4), block_spec{2, 1});  // A (segments 0-1): entry 0
    c.access(load(1 * 128), block_spec{4, 4});         // C: entry 1
    c.access(load(2 * 128), block_spec{4, 2});         // D: entry 3 — 8 of 8 used
    // The store covers A and B; A (entry 0) grows first and FIFO names B, the oldest.
    const auto r = c.access(store(0, 128), block_spec{2, 2, 9});
    CHECK(r.hit);
    CHECK(r.hit_block_left);
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].address == byte_address{64}); // B
    CHECK(r.evictions[0].dirty);
    CHECK(r.entry == entry_index{0}); // A holds the first requested byte and stays
    CHECK(c.block(r.set, r.entry).valid);
    CHECK(c.block(r.set, r.entry).stored_segments == 2);
    // The set's books balance: A 2 + C 4 + D 2.
    CHECK(c.free_segments(set_index{0}) == 0);
    CHECK(c.free_entries(set_index{0}) == 5);
    CHECK(c.stats().resizes == 1);
}

TEST_CASE("write-evict: a store hit's block leaves and the result says so") {
    cache::variable_block_cache<lru, 4, cache::write_policy::write_evict> c(latte_set);
    c.access(load(0), block_spec{4, 2, 3});
    const auto r = c.access(store(0, 4), block_spec{4, 4, 4});
    CHECK(r.hit);
    CHECK(r.hit_block_left);
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].reason == eviction_reason::write_evict);
    CHECK(r.evictions[0].entry == r.entry);
    CHECK(
        c.stats().invalidations_by_reason[static_cast<std::size_t>(eviction_reason::write_evict)] ==
        1);
    cache::set_associative_cache<lru, cache::write_policy::write_evict> conventional(
        geometry{.sets = 4, .ways = 4, .line_bytes = 128});
    conventional.access(load(0));
    const auto q = conventional.access(store(0, 4));
    CHECK(q.hit);
    CHECK(q.hit_block_left);
    CHECK_FALSE(conventional.access(load(128)).hit_block_left);
}

TEST_CASE("a store hit whose spec's span differs from the block's is refused, counted, flagged") {
    cache::variable_block_cache<lru, 4> c(latte_set);
    c.access(load(0, 0), block_spec{4, 2, 1}); // a whole-line block of 2 segments
    auto r = c.access(store(0, 4), block_spec{1, 1, 2});
    CHECK(r.hit);
    CHECK(r.resize_refused);
    CHECK(r.payload == 1);
    CHECK(c.block(r.set, r.entry).stored_segments == 2);
    CHECK(c.block(r.set, r.entry).payload == 1);
    CHECK(c.block(r.set, r.entry).dirty); // the store itself is a hit as ever
    CHECK(c.stats().resizes_refused == 1);
    CHECK(c.stats().resizes == 0);
    r = c.access(store(0, 4), block_spec{4, 3, 2}); // the block's span: resized
    CHECK_FALSE(r.resize_refused);
    CHECK(c.block(r.set, r.entry).stored_segments == 3);
    CHECK(c.stats().resizes == 1);
    // Three blocks touched, two of the spec's span: they are resized, the third is refused.
    c.access(load(128 + 0, 4), block_spec{1, 1, 0});  // segment 0
    c.access(load(128 + 32, 4), block_spec{1, 1, 0}); // segment 1
    c.access(load(128 + 64, 4), block_spec{2, 2, 0}); // segments 2-3
    REQUIRE(c.resident_segments(line_address{1}) == 0b1111);
    r = c.access(store(128, 128), block_spec{1, 0, 5});
    CHECK(r.hit);
    CHECK(r.resize_refused);
    CHECK(c.stats().resizes_refused == 2);
    CHECK(c.stats().resizes == 3);
    CHECK(c.block(r.set, c.find(byte_address{128 + 32})->entry).payload == 5);
    CHECK(c.block(r.set, c.find(byte_address{128 + 64})->entry).payload == 0);
    CHECK(c.free_segments(set_index{0}) == 16 - 3 - 2);
}

// ------------------------------------------------------------------------------ tag-only

TEST_CASE("tag-only blocks: a tag and no segment; room for data never evicts one") {
    cache::variable_block_cache<lru, 4> c(small_set); // 8 tags, 8 segments
    for (std::uint64_t l = 0; l < 6; ++l) {
        const auto r = c.access(load(l * 128), block_spec{4, 0, 1}); // tag only
        CHECK(r.filled());
        CHECK(r.bytes_fetched == 128); // the line still comes from below
    }
    CHECK(c.free_entries(set_index{0}) == 2);
    CHECK(c.free_segments(set_index{0}) == 8);
    c.access(load(10 * 128), block_spec{4, 4, 2}); // A
    c.access(load(11 * 128), block_spec{4, 4, 2}); // B: 8 tags, 8 segments used
    CHECK(c.free_entries(set_index{0}) == 0);
    CHECK(c.free_segments(set_index{0}) == 0);
    // A hit on a tag-only line is a hit; the payload says what it is.
    auto r = c.access(load(5 * 128 + 8, 4), block_spec{4, 4, 2});
    CHECK(r.hit);
    CHECK(r.payload == 1);
    CHECK(c.block(r.set, r.entry).stored_segments == 0);
    // A 4-segment line: no tag (the LRU tag-only line 0 leaves for it), then no segments: the
    // LRU block holding data (A) leaves, not tag-only line 1.
    r = c.access(load(12 * 128), block_spec{4, 4, 2});
    REQUIRE(r.evictions.size() == 2);
    CHECK(r.evictions[0].address == byte_address{0});
    CHECK(r.evictions[0].stored_segments == 0);
    CHECK(r.evictions[1].address == byte_address{10 * 128});
    CHECK(r.evictions[1].stored_segments == 4);
    // A tag-only insert needs a tag only: one is free; then none is, and the LRU block of any
    // size (tag-only line 1) leaves.
    r = c.access(load(13 * 128), block_spec{4, 0, 1});
    CHECK(r.evictions.empty());
    r = c.access(load(14 * 128), block_spec{4, 0, 1});
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].address == byte_address{128});
    CHECK(c.free_entries(set_index{0}) == 0);
    CHECK(c.free_segments(set_index{0}) == 0);
    // A store grows a tag-only line to 4 segments: B, the LRU block with data, leaves.
    c.access(load(11 * 128 + 4, 4));
    c.access(load(12 * 128 + 4, 4));
    r = c.access(store(13 * 128, 4), block_spec{4, 4, 2});
    CHECK(r.hit);
    CHECK_FALSE(r.hit_block_left);
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].address == byte_address{11 * 128});
    CHECK(c.block(r.set, r.entry).stored_segments == 4);
}

namespace {

/// LRU that hands the test every victim call made when the set lacks only segments, to check
/// P4 / P8's rule: such a call offers no tag-only block.
struct eligibility_checking_lru : lru {
    using lru::lru;
    using lru::victim;
    entry_index victim(set_index s, entry_mask m, const memsub::access& a,
                       const replacement::room_request& need) noexcept {
        if (need.entries_needed == 0 && on_segments_only) on_segments_only(s, m);
        ++calls;
        return lru::victim(s, m, a);
    }
    std::function<void(set_index, entry_mask)> on_segments_only;
    std::uint64_t calls = 0;
};

} // namespace

TEST_CASE("tag-only and 4-segment mixes against a reference mirror (seeded property test)") {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        const geometry g{
            .sets = 4, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
        using cache_t = cache::variable_block_cache<eligibility_checking_lru, 4>;
        cache_t c(g);
        std::uint64_t offered = 0, segment_calls = 0;
        c.policy().on_segments_only = [&](set_index s, entry_mask m) {
            ++segment_calls;
            for (entry_mask left = m; left != 0; left &= left - 1)
                if (c.block(s, lowest_entry(left)).stored_segments == 0) ++offered;
        };
        struct mirrored {
            std::uint32_t stored = 0;
            std::uint32_t payload = 0;
        };
        std::map<std::uint64_t, mirrored> mirror; // resident line -> its block
        xoshiro256ss rng(seed);
        std::uint64_t tag_only_fills = 0, full_fills = 0;
        for (int i = 0; i < 30000; ++i) {
            const std::uint64_t line = rng.below(96);
            const std::uint32_t stored = rng.below(2) == 0 ? 0u : 4u;
            const block_spec spec{4, stored, stored + 1};
            const auto a = rng.below(4) == 0 ? store(line * 128 + rng.below(128), 1)
                                             : load(line * 128 + rng.below(128), 1);
            const auto r = c.access(a, spec);
            for (const auto& e : r.evictions) {
                const auto it = mirror.find(e.line.value);
                REQUIRE(it != mirror.end());
                REQUIRE(it->second.stored == e.stored_segments);
                mirror.erase(it);
            }
            if (r.filled()) {
                REQUIRE(mirror.count(line) == 0);
                mirror[line] = {stored, spec.payload};
                (stored == 0 ? tag_only_fills : full_fills) += 1;
            } else if (r.hit && a.kind == access_kind::store && !r.hit_block_left) {
                mirror[line] = {stored, spec.payload};
            }
            if (r.hit && !r.hit_block_left) {
                const auto v = c.block(r.set, r.entry);
                REQUIRE(v.valid);
                REQUIRE(v.address.value / 128 == line);
            }
            // The cache holds exactly the mirror; tags and segments within every set's budget.
            std::size_t blocks = 0;
            for (std::uint32_t s = 0; s < g.sets; ++s) {
                std::uint32_t used = 0, tags = 0;
                for (std::uint32_t e = 0; e < g.entries_per_set(); ++e) {
                    const auto v = c.block(set_index{s}, entry_index{e});
                    if (!v.valid) continue;
                    ++tags;
                    used += v.stored_segments;
                    const auto it = mirror.find(v.address.value / 128);
                    REQUIRE(it != mirror.end());
                    REQUIRE(it->second.stored == v.stored_segments);
                    REQUIRE(it->second.payload == v.payload);
                }
                blocks += tags;
                REQUIRE(used <= g.segments_per_set());
                REQUIRE(tags <= g.entries_per_set());
                REQUIRE(used + c.free_segments(set_index{s}) == g.segments_per_set());
                REQUIRE(tags + c.free_entries(set_index{s}) == g.entries_per_set());
            }
            REQUIRE(blocks == mirror.size());
        }
        CHECK(offered == 0);
        CHECK(segment_calls > 1000);
        CHECK(c.policy().calls > segment_calls);
        CHECK(tag_only_fills > 1000);
        CHECK(full_fills > 1000);
        CHECK(c.stats().resizes > 100);
    }
}

TEST_CASE("mixed spans, stored sizes and bad specs under random replacement: the protocol "
          "holds and every departure is reported (seeded property test)") {
    const geometry g{
        .sets = 2, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    cache::variable_block_cache<testing::recording_policy<replacement::random>, 4> c(g);
    xoshiro256ss rng(99);
    std::map<std::uint64_t, std::uint32_t> resident; // block address -> stored segments
    std::uint64_t bad_specs = 0, left = 0;
    for (int i = 0; i < 40000; ++i) {
        const std::uint64_t addr = rng.below(48) * 128 + rng.below(128);
        const auto a = rng.below(3) == 0 ? store(addr, 1) : load(addr, 1);
        const auto r = c.access(a, [&](const memsub::access&) {
            block_spec s{1u << rng.below(3), static_cast<std::uint32_t>(rng.below(5)), 0};
            if (rng.below(20) == 0) s.span_segments = 3; // not a power of two
            const bool bad = s.span_segments == 3 || s.stored_segments > s.span_segments;
            bad_specs += bad;
            return s;
        });
        for (const auto& e : r.evictions) {
            const auto it = resident.find(e.address.value);
            REQUIRE(it != resident.end());
            REQUIRE(it->second == e.stored_segments);
            resident.erase(it);
        }
        left += r.hit_block_left;
        if (r.hit && !r.hit_block_left) REQUIRE(c.block(r.set, r.entry).valid);
        if (r.hit_block_left) {
            bool reported = false;
            for (const auto& e : r.evictions) reported |= e.line.value == addr / 128;
            REQUIRE(reported);
        }
        // Re-read the resident blocks (fills and resizes), within each set's budget.
        std::size_t blocks = 0;
        for (std::uint32_t s = 0; s < g.sets; ++s) {
            std::uint32_t used = 0;
            for (std::uint32_t e = 0; e < g.entries_per_set(); ++e) {
                const auto v = c.block(set_index{s}, entry_index{e});
                if (!v.valid) continue;
                REQUIRE(v.stored_segments * 32 <= v.bytes);
                used += v.stored_segments;
                resident[v.address.value] = v.stored_segments;
                ++blocks;
            }
            REQUIRE(used + c.free_segments(set_index{s}) == g.segments_per_set());
        }
        REQUIRE(blocks == resident.size());
    }
    CHECK(c.stats().specs_clamped == bad_specs);
    CHECK(bad_specs > 1000);
    CHECK(left > 10);
    CHECK(c.stats().resizes_refused > 100);
    CHECK(c.policy().violations().empty());
}

// ------------------------------------------------------------------- storage rule and specs

TEST_CASE("the cache's storage rule: sizes round up to its segments, at most a line") {
    cache::variable_block_cache<lru, 4> c(latte_set);
    CHECK(c.segments_for_bits(0) == 0);
    CHECK(c.segments_for_bits(1) == 1);
    CHECK(c.segments_for_bits(256) == 1);
    CHECK(c.segments_for_bits(257) == 2);
    CHECK(c.segments_for_bits(400) == 2); // not "50 segments" of a byte-aligned rule
    CHECK(c.segments_for_bits(1024) == 4);
    CHECK(c.segments_for_bits(1500) == 4); // larger than the line: stored raw
    CHECK(c.segments_for_bytes(0) == 0);
    CHECK(c.segments_for_bytes(33) == 2);
    CHECK(c.segments_for_bytes(96) == 3);
    CHECK(c.segments_for_bytes(1u << 20) == 4);
}

TEST_CASE("a spec stored beyond its span is stored raw and counted") {
    cache::variable_block_cache<lru, 4> c(latte_set);
    auto r = c.access(load(0), block_spec{4, 50, 3});
    CHECK(c.block(r.set, r.entry).stored_segments == 4);
    CHECK(c.block(r.set, r.entry).payload == 3);
    CHECK(c.stats().specs_clamped == 1);
    r = c.access(load(128 + 32, 4), block_spec{3, 1, 0}); // span 3: the whole line
    CHECK(c.block(r.set, r.entry).bytes == 128);
    CHECK(c.stats().specs_clamped == 2);
    r = c.access(store(0, 4), block_spec{4, 9, 0}); // a resizing store: clamped too
    CHECK(c.block(r.set, r.entry).stored_segments == 4);
    CHECK(c.stats().specs_clamped == 3);
    CHECK(c.free_segments(set_index{0}) == 16 - 4 - 1);
}

// ------------------------------------------------------------------- counts and budgets

TEST_CASE("invalidations are counted by reason; the host's reason is kept") {
    cache::variable_block_cache<lru, 4> c(latte_l1);
    for (std::uint32_t l = 0; l < 64; ++l)
        c.access(load(l * 128), block_spec{4, 2, l % 4 == 0 ? 7u : 8u}); // payload 7: old book
    std::uint64_t seen = 0;
    const auto n = c.invalidate_if([](const cache::block_view& b) { return b.payload == 7; },
                                   [&](const memsub::evicted_block& b) {
                                       CHECK(b.reason == eviction_reason::retired);
                                       ++seen;
                                   },
                                   eviction_reason::retired);
    CHECK(n == 16);
    CHECK(seen == 16);
    const auto one = c.invalidate(byte_address{128});
    REQUIRE(one);
    CHECK(one->reason == eviction_reason::invalidated);
    const auto two = c.invalidate(byte_address{2 * 128}, eviction_reason::retired);
    REQUIRE(two);
    CHECK(two->reason == eviction_reason::retired);
    // `replacement` is the policy's word, not the host's: recorded as `invalidated`.
    CHECK(c.invalidate(byte_address{3 * 128}, eviction_reason::replacement)->reason ==
          eviction_reason::invalidated);
    c.invalidate_line(
        line_address{5}, [](const memsub::evicted_block&) {}, eviction_reason::retired);
    c.access(store(6 * 128 + 4, 4));
    c.access(load(6 * 128), block_spec{1, 1}); // superseded? no: resident; a hit
    c.access(load(100 * 128 + 32, 4), block_spec{1, 1});
    c.access(load(100 * 128), block_spec{4, 4}); // supersedes the 32 B block
    const auto& s = c.stats();
    CHECK(s.invalidations_by_reason[static_cast<std::size_t>(eviction_reason::retired)] == 18);
    CHECK(s.removed(eviction_reason::retired) == 18);
    CHECK(s.removed(eviction_reason::invalidated) == 2);
    CHECK(s.removed(eviction_reason::superseded) == 1);
    CHECK(s.removed(eviction_reason::write_evict) == 0);
    CHECK(s.removed(eviction_reason::replacement) == s.evictions);
    CHECK(s.invalidations_by_reason[0] == 0);
    std::uint64_t total = 0;
    for (const auto v : s.invalidations_by_reason) total += v;
    CHECK(s.invalidations == total);
    CHECK(s.invalidations == 21);
}

TEST_CASE("storage_bits counts the payload bits of every tag") {
    constexpr cache::cache_options plain{.writes = cache::write_policy::write_evict,
                                         .max_block_segments = 4};
    constexpr cache::cache_options latte{
        .writes = cache::write_policy::write_evict, .max_block_segments = 4, .payload_bits = 6};
    const cache::basic_cache<lru, plain> without(latte_l1);
    const cache::basic_cache<lru, latte> with(latte_l1);
    // 2 mode + 4 encoding bits × 16 tags × 32 sets ([Dissertation] §4.3.1).
    CHECK(with.storage_bits() - without.storage_bits() == 6u * 16u * 32u);
    CHECK(with.storage_bits(40) - without.storage_bits(40) == 6u * 16u * 32u);
}
