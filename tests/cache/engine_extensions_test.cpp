// Engine 2's extension points: the size-aware hooks (insert_info, room_request), the evicted
// block's identity (set, entry) and its one meaning of `dirty`, compressed blocks (a store hit
// that resizes, the per-block payload, invalidate_if by payload), invalidate_line, and stats
// whose totals are computed.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <type_traits>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/fifo.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/testing/recording_policy.hpp>

using namespace memsub;
using cache::block_spec;
using replacement::fifo;
using replacement::lru;

namespace {

memsub::access load(std::uint64_t addr, std::uint32_t size = 0) {
    return memsub::access{.address = byte_address{addr}, .size = size};
}
memsub::access store(std::uint64_t addr, std::uint32_t size = 0) {
    return memsub::access{.address = byte_address{addr}, .kind = access_kind::store, .size = size};
}

/// LRU that also records what the size-aware hooks are told.
struct size_aware_lru : lru {
    using lru::lru;
    using lru::on_insert;
    using lru::victim;
    void on_insert(set_index s, entry_index e, const memsub::access& a,
                   const replacement::insert_info& info) noexcept {
        inserts.push_back(info);
        lru::on_insert(s, e, a);
    }
    entry_index victim(set_index s, entry_mask m, const memsub::access& a,
                       const replacement::room_request& need) noexcept {
        requests.push_back(need);
        return lru::victim(s, m, a);
    }
    std::vector<replacement::insert_info> inserts;
    std::vector<replacement::room_request> requests;
};
static_assert(replacement::sized_on_insert<size_aware_lru> &&
              replacement::sized_victim<size_aware_lru>);
static_assert(replacement::plain_on_insert<lru> && !replacement::sized_on_insert<lru>);

/// A policy with only the size-aware forms is a replacement policy too.
struct only_sized {
    struct params {};
    only_sized(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const memsub::access&) noexcept {}
    void on_insert(set_index, entry_index, const memsub::access&,
                   const replacement::insert_info&) noexcept {}
    void on_evict(set_index, entry_index, const memsub::evicted_block&) noexcept {}
    entry_index victim(set_index, entry_mask m, const memsub::access&,
                       const replacement::room_request&) noexcept {
        return lowest_entry(m);
    }
    std::string_view name() const noexcept { return "only_sized"; }
};
static_assert(replacement::replacement_policy<only_sized>);
static_assert(replacement::diagnose_replacement_policy<only_sized>());

// 1 set, 2 ways of 128B lines in 32B segments (8 segments), 8 tags: a small compressed set.
constexpr geometry compressed_set{
    .sets = 1, .ways = 2, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 8};

} // namespace

TEST_CASE("size-aware hooks: the policy is told the block's size and the room still needed") {
    cache::variable_block_cache<size_aware_lru, 4> c(compressed_set);
    c.access(load(0 * 128), block_spec{4, 2, 11}); // 2 segments
    c.access(load(1 * 128), block_spec{4, 3, 12}); // 3
    c.access(load(2 * 128), block_spec{4, 2, 13}); // 2: 7 of 8 used
    auto& p = c.policy();
    REQUIRE(p.inserts.size() == 3);
    CHECK(p.inserts[1].address == byte_address{128});
    CHECK(p.inserts[1].bytes == 128);
    CHECK(p.inserts[1].stored_segments == 3);
    CHECK(p.inserts[1].payload == 12);
    CHECK(p.requests.empty());
    // A 4-segment line needs 3 more segments than are free: victims until it fits.
    const auto r = c.access(load(3 * 128), block_spec{4, 4, 14});
    REQUIRE(p.requests.size() == 2);
    CHECK(p.requests[0].entries_needed == 0);
    CHECK(p.requests[0].segments_needed == 3);
    CHECK(p.requests[0].incoming_segments == 4);
    CHECK(p.requests[0].incoming_bytes == 128);
    CHECK(p.requests[1].segments_needed == 1); // the first victim freed 2
    REQUIRE(r.evictions.size() == 2);
    CHECK(r.evictions[0].address == byte_address{0});
    CHECK(r.evictions[1].address == byte_address{128});
    CHECK(c.free_segments(set_index{0}) == 2);
}

TEST_CASE("the evicted block names its set and entry, and carries the payload") {
    cache::variable_block_cache<lru, 4> c(
        geometry{.sets = 4, .ways = 1, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 4});
    const auto first = c.access(load(0), block_spec{4, 4, 0xab});
    const auto r = c.access(load(4 * 128), block_spec{4, 4, 0xcd}); // same set 0
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].set == first.set);
    CHECK(r.evictions[0].entry == first.entry);
    CHECK(r.evictions[0].line == line_address{0});
    CHECK(r.evictions[0].payload == 0xab);
    CHECK(c.block(r.set, r.entry).payload == 0xcd);
    // Conventional cache: the entry that was filled is the entry that leaves.
    cache::set_associative_cache<lru> k(geometry{.sets = 1, .ways = 2, .line_bytes = 64});
    const auto a = k.access(load(0));
    k.access(load(64));
    const auto b = k.access(load(128));
    REQUIRE(b.evictions.size() == 1);
    CHECK(b.evictions[0].entry == a.entry);
    CHECK(b.evictions[0].set == set_index{0});
    CHECK(b.entry == a.entry); // the freed entry is refilled
    CHECK(b.evictions[0].payload == 0);
}

TEST_CASE("one meaning of dirty: a superseded block is never dirty, its data moves on") {
    testing::recording_policy<lru> unused(compressed_set); // (the recorder compiles here too)
    struct watch : lru {
        using lru::lru;
        void on_evict(set_index s, entry_index e, const memsub::evicted_block& b) noexcept {
            seen.push_back(b);
            lru::on_evict(s, e, b);
        }
        std::vector<memsub::evicted_block> seen;
    };
    cache::variable_block_cache<watch, 4> c(
        geometry{.sets = 1, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16});
    c.access(store(0x00, 4), block_spec{1, 1}); // a dirty 32B block
    const auto r = c.access(load(0x00, 0), block_spec{4, 4});
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].reason == memsub::eviction_reason::superseded);
    CHECK_FALSE(r.evictions[0].dirty);
    CHECK(r.writeback_bytes() == 0);
    REQUIRE(c.policy().seen.size() == 1);
    CHECK(c.policy().seen[0] == r.evictions[0]); // the policy hears the same record
    CHECK(c.block(r.set, r.entry).dirty);        // the dirtiness moved to the new block
    c.flush([&](const memsub::evicted_block& b) { CHECK(b.dirty); });
    CHECK(c.stats().writebacks == 1);
}

TEST_CASE("compressed blocks: a store hit grows a block, evicting others, or shrinks it") {
    cache::variable_block_cache<lru, 4> c(compressed_set);
    c.access(load(0 * 128), block_spec{4, 1, 1}); // A: 1 segment
    c.access(load(1 * 128), block_spec{4, 2, 1}); // B: 2
    c.access(load(2 * 128), block_spec{4, 4, 1}); // C: 4 — 7 of 8 used
    // A's data changes and now compresses to 3 segments: 2 more than it had, 1 free.
    auto r = c.access(store(0 * 128, 8), block_spec{4, 3, 2});
    CHECK(r.hit);
    CHECK(r.payload == 2); // the hit reports the block's (new) payload
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].address == byte_address{128}); // B, the least recently used
    CHECK(r.evictions[0].reason == memsub::eviction_reason::replacement);
    auto a = c.find(byte_address{0});
    REQUIRE(a);
    CHECK(c.block(a->set, a->entry).stored_segments == 3);
    CHECK(c.block(a->set, a->entry).payload == 2);
    CHECK(c.block(a->set, a->entry).dirty);
    CHECK(c.free_segments(set_index{0}) == 1);
    // C shrinks to one segment: three freed, nothing leaves.
    r = c.access(store(2 * 128, 8), block_spec{4, 1, 3});
    CHECK(r.evictions.empty());
    CHECK(c.free_segments(set_index{0}) == 4);
    // A load hit never resizes, and a store hit without a spec keeps the size.
    c.access(load(0), block_spec{4, 1, 9});
    c.access(store(0, 8));
    a = c.find(byte_address{0});
    CHECK(c.block(a->set, a->entry).stored_segments == 3);
    CHECK(c.block(a->set, a->entry).payload == 2);
    CHECK(c.stats().resizes == 2);
}

TEST_CASE("compressed blocks: the growing block itself may be the victim (P8), and leaves dirty") {
    cache::variable_block_cache<fifo, 4> c(compressed_set);
    c.access(load(0 * 128), block_spec{4, 2}); // A, the oldest
    c.access(load(1 * 128), block_spec{4, 4}); // B
    c.access(load(2 * 128), block_spec{4, 2}); // C: 8 of 8 used
    const auto r = c.access(store(0, 4), block_spec{4, 3});
    CHECK(r.hit);
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].address == byte_address{0}); // FIFO names A itself
    CHECK(r.evictions[0].dirty);                      // the store's data goes down with it
    CHECK_FALSE(c.contains(byte_address{0}));
    CHECK(c.free_segments(set_index{0}) == 2);
}

TEST_CASE("compressed blocks: occupancy never exceeds the budget, every departure is reported "
          "(seeded property test with the protocol recorder)") {
    const geometry g{
        .sets = 4, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    cache::variable_block_cache<testing::recording_policy<lru>, 4> c(g);
    std::map<std::uint64_t, std::uint32_t> mirror; // resident line -> stored segments
    xoshiro256ss rng(2024);
    for (int i = 0; i < 40000; ++i) {
        const std::uint64_t line = rng.below(64);
        const auto stored = 1 + static_cast<std::uint32_t>(rng.below(4));
        const auto a = rng.below(3) == 0 ? store(line * 128 + rng.below(128), 1)
                                         : load(line * 128 + rng.below(128), 1);
        const auto r = c.access(a, block_spec{4, stored, stored});
        for (const auto& e : r.evictions) {
            REQUIRE(mirror.count(e.line.value) == 1);
            CHECK(mirror[e.line.value] == e.stored_segments);
            CHECK(e.payload == e.stored_segments);
            mirror.erase(e.line.value);
        }
        if (r.filled())
            mirror[line] = stored;
        else if (r.hit && a.kind == access_kind::store && c.contains(a.address))
            mirror[line] = stored;
        // The cache holds exactly the mirror, within every set's budget.
        std::uint32_t used[4]{};
        std::size_t blocks = 0;
        for (std::uint32_t s = 0; s < g.sets; ++s)
            for (std::uint32_t e = 0; e < g.entries_per_set(); ++e) {
                const auto v = c.block(set_index{s}, entry_index{e});
                if (!v.valid) continue;
                ++blocks;
                used[s] += v.stored_segments;
                const auto it = mirror.find(v.address.value / 128);
                REQUIRE(it != mirror.end());
                CHECK(it->second == v.stored_segments);
            }
        REQUIRE(blocks == mirror.size());
        for (std::uint32_t s = 0; s < g.sets; ++s) {
            REQUIRE(used[s] <= g.segments_per_set());
            REQUIRE(used[s] + c.free_segments(set_index{s}) == g.segments_per_set());
        }
    }
    CHECK(c.stats().resizes > 1000);
    CHECK(c.policy().violations().empty());
}

TEST_CASE("invalidate_if removes the blocks of an old code book; invalidate_line a whole line") {
    cache::variable_block_cache<lru, 4> c(
        geometry{.sets = 8, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16});
    for (std::uint64_t l = 0; l < 16; ++l)
        c.access(load(l * 128), block_spec{4, 2, l % 2 ? 7u : 8u});
    std::vector<std::uint64_t> gone;
    const auto n = c.invalidate_if([](const cache::block_view& b) { return b.payload == 7; },
                                   [&](const memsub::evicted_block& b) {
                                       CHECK(b.reason == memsub::eviction_reason::invalidated);
                                       gone.push_back(b.line.value);
                                   });
    CHECK(n == 8);
    CHECK(gone.size() == 8);
    for (const auto l : gone) CHECK(l % 2 == 1);
    for (std::uint64_t l = 0; l < 16; ++l) CHECK(c.contains(byte_address{l * 128}) == (l % 2 == 0));
    // Two 32B blocks and a 64B block of line 20.
    c.access(load(20 * 128 + 0, 4), block_spec{1, 1});
    c.access(load(20 * 128 + 32, 4), block_spec{1, 1});
    c.access(load(20 * 128 + 64, 4), block_spec{2, 2});
    CHECK(c.resident_segments(line_address{20}) == 0b1111);
    std::uint32_t bytes = 0;
    CHECK(c.invalidate_line(line_address{20},
                            [&](const memsub::evicted_block& b) { bytes += b.bytes; }) == 3);
    CHECK(bytes == 128);
    CHECK(c.resident_segments(line_address{20}) == 0);
    CHECK(c.invalidate_line(line_address{20}, [](const memsub::evicted_block&) {}) == 0);
}

TEST_CASE("stats: totals are computed from the per-kind counters") {
    cache::set_associative_cache<lru> c(geometry{.sets = 2, .ways = 2, .line_bytes = 64});
    c.access(load(0));
    c.access(load(0));
    c.access(store(64));
    c.access(memsub::access{.address = byte_address{128}, .kind = access_kind::prefetch});
    const auto& s = c.stats();
    CHECK(s.accesses() == 4);
    CHECK(s.misses() == 3);
    CHECK(s.hits() == 1);
    CHECK(s.of(access_kind::load).accesses == 2);
    CHECK(s.of(access_kind::store).misses == 1);
    CHECK(s.of(access_kind::prefetch).misses == 1);
    CHECK(s.hit_ratio() == doctest::Approx(0.25));
    CHECK(s.bypasses() == 0);
}

TEST_CASE("access_result::evictions: an in-place list read like a container") {
    cache::eviction_list<3> list;
    CHECK(list.empty());
    CHECK(list.capacity() == 3);
    static_assert(std::is_trivially_copyable_v<cache::eviction_list<3>>);
    memsub::evicted_block a{.line = line_address{1}, .dirty = true};
    memsub::evicted_block b{.line = line_address{2}};
    list.push_back(a);
    list.push_back(b);
    REQUIRE(list.size() == 2);
    CHECK(list.front() == a);
    CHECK(list.back() == b);
    CHECK(list[1].line == line_address{2});
    std::vector<std::uint64_t> lines;
    for (const auto& e : list) lines.push_back(e.line.value);
    CHECK(lines == std::vector<std::uint64_t>{1, 2});
    const cache::eviction_list<3> copy = list; // a copy reads the same blocks
    CHECK(copy == list);
    list.clear();
    CHECK(list.empty());
    CHECK_FALSE(copy == list);
    // emplace_back: a slot written in place (the engine's way of recording an eviction).
    memsub::evicted_block& slot = list.emplace_back();
    slot = b;
    REQUIRE(list.size() == 1);
    CHECK(list.front() == b);
    // Through the engine: a full 1-way set evicts exactly the block it held, dirty.
    cache::set_associative_cache<lru> c(geometry{.sets = 1, .ways = 1, .line_bytes = 64});
    (void)c.access(store(0));
    const auto r = c.access(load(64));
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].line == line_address{0});
    CHECK(r.evictions[0].dirty);
    CHECK(r.writeback_bytes() == 64);
    // Every field of the in-place record is written (a stale slot would show here: the
    // result's slots are not initialised).
    CHECK(r.evictions[0] == memsub::evicted_block{.line = line_address{0},
                                                  .address = byte_address{0},
                                                  .bytes = 64,
                                                  .stored_segments = 1,
                                                  .set = set_index{0},
                                                  .entry = entry_index{0},
                                                  .dirty = true,
                                                  .reused = false,
                                                  .reason = memsub::eviction_reason::replacement,
                                                  .touched_segments = 1,
                                                  .payload = 0});
}
