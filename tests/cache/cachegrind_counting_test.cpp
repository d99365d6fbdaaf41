// Read-modify-write accesses and line-crossing references, counted as valgrind's cachegrind
// counts them (cg_sim.c: a modify is one data read; a reference over two lines touches both in
// order and is one access with at most one miss).
#include <doctest/doctest.h>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

using namespace memsub;
using cache::set_associative_cache;
using cache::write_policy;
using replacement::lru;

namespace {
memsub::access ref(std::uint64_t addr, std::uint32_t size, access_kind k = access_kind::load,
                   bool modify = false) {
    return memsub::access{
        .address = byte_address{addr}, .kind = k, .read_modify_write = modify, .size = size};
}
memsub::access modify(std::uint64_t addr, std::uint32_t size = 4) {
    return ref(addr, size, access_kind::load, true);
}
std::uint64_t count(const cache::cache_stats& s, access_kind k) {
    return s.by_kind[static_cast<std::size_t>(k)].accesses;
}
std::uint64_t missed(const cache::cache_stats& s, access_kind k) {
    return s.by_kind[static_cast<std::size_t>(k)].misses;
}
bool same_counts(const cache::cache_stats& a, const cache::cache_stats& b) {
    for (std::size_t k = 0; k < access_kind_count; ++k)
        if (a.by_kind[k].accesses != b.by_kind[k].accesses ||
            a.by_kind[k].misses != b.by_kind[k].misses)
            return false;
    return true;
}

/// An independent model of cachegrind's D1 (cg_sim.c as documented there): per set a list of
/// line numbers, most recent first; a reference touches each of its lines in order and misses
/// when any of them missed.
class cachegrind_model {
public:
    cachegrind_model(std::uint32_t sets, std::uint32_t ways, std::uint32_t line_bytes)
        : sets_(sets)
        , ways_(ways)
        , line_bytes_(line_bytes)
        , lists_(sets) {}
    bool reference(std::uint64_t addr, std::uint32_t size) {
        const std::uint64_t first = addr / line_bytes_;
        const std::uint64_t last = (addr + std::max(size, 1u) - 1) / line_bytes_;
        bool miss = false;
        for (std::uint64_t line = first; line <= last; ++line) miss = touch(line) || miss;
        return miss;
    }

private:
    bool touch(std::uint64_t line) {
        auto& l = lists_[line % sets_];
        const auto it = std::find(l.begin(), l.end(), line);
        const bool miss = it == l.end();
        if (!miss) l.erase(it);
        l.insert(l.begin(), line);
        if (l.size() > ways_) l.pop_back();
        return miss;
    }
    std::uint32_t sets_, ways_, line_bytes_;
    std::vector<std::vector<std::uint64_t>> lists_;
};
} // namespace

TEST_CASE("read-modify-write, write-back: one load access, the line ends dirty") {
    set_associative_cache<lru> c(geometry{.sets = 1, .ways = 2, .line_bytes = 64});
    auto r = c.access(modify(0x10)); // miss: filled as a read, then written
    CHECK(r.filled());
    CHECK(r.bytes_fetched == 64);
    CHECK(r.bytes_written_down == 0);
    CHECK(c.block(r.set, r.entry).dirty);
    CHECK(c.access(ref(0x40, 8)).filled()); // a clean line
    r = c.access(modify(0x44));             // hit: the clean line becomes dirty
    CHECK(r.hit);
    CHECK(c.block(r.set, r.entry).dirty);
    CHECK(count(c.stats(), access_kind::load) == 3);
    CHECK(missed(c.stats(), access_kind::load) == 2);
    CHECK(count(c.stats(), access_kind::store) == 0);
    CHECK(c.stats().accesses() == 3);
    // Both lines leave dirty.
    r = c.access(ref(0x80, 4));
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].dirty);
    r = c.access(ref(0xc0, 4));
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].dirty);
    CHECK(c.stats().writebacks == 2);
}

TEST_CASE("read-modify-write that does not allocate: the read is served, the bytes go down") {
    set_associative_cache<lru> c(geometry{.sets = 1, .ways = 2, .line_bytes = 64});
    auto a = modify(0x10, 8);
    a.hints.no_allocate = true;
    const auto r = c.access(a);
    CHECK(r.bypass == cache::bypass_reason::host_no_allocate);
    CHECK(r.bytes_fetched == 8);
    CHECK(r.bytes_written_down == 8);
    CHECK_FALSE(c.contains(byte_address{0x10}));
    CHECK(c.stats().accesses() == 1);
    CHECK(c.stats().bytes_written_down == 8);
}

TEST_CASE("read-modify-write versus a plain load: only the dirty bit differs") {
    set_associative_cache<lru> a(geometry{.sets = 4, .ways = 2, .line_bytes = 64});
    set_associative_cache<lru> b(geometry{.sets = 4, .ways = 2, .line_bytes = 64});
    xoshiro256ss rng(7);
    std::uint64_t dirty_evictions = 0;
    for (int i = 0; i < 5000; ++i) {
        const std::uint64_t addr = rng() % 4096;
        const auto ra = a.access(modify(addr));
        const auto rb = b.access(ref(addr, 4));
        REQUIRE(ra.hit == rb.hit);
        REQUIRE(ra.evictions.size() == rb.evictions.size());
        if (!ra.evictions.empty()) {
            CHECK(ra.evictions[0].address == rb.evictions[0].address);
            CHECK_FALSE(rb.evictions[0].dirty);
            dirty_evictions += ra.evictions[0].dirty;
        }
    }
    CHECK(same_counts(a.stats(), b.stats()));
    CHECK(dirty_evictions == a.stats().writebacks);
    CHECK(dirty_evictions > 0);
}

TEST_CASE("read-modify-write, write-through: allocates as a read, the bytes go down") {
    set_associative_cache<lru, write_policy::write_through> c(
        geometry{.sets = 1, .ways = 2, .line_bytes = 64});
    auto r = c.access(modify(0x10, 4)); // a store miss would not allocate; the read does
    CHECK(r.filled());
    CHECK(r.bytes_fetched == 64);
    CHECK(r.bytes_written_down == 4);
    CHECK_FALSE(c.block(r.set, r.entry).dirty);
    r = c.access(modify(0x3e, 8)); // hit; only the bytes inside the line count
    CHECK(r.hit);
    CHECK(r.bytes_written_down == 2);
    CHECK(c.stats().bytes_written_down == 6);
    CHECK(c.stats().accesses() == 2);
    CHECK(c.stats().misses() == 1);
}

TEST_CASE("read-modify-write, write-evict: a hit evicts, a miss does not allocate") {
    set_associative_cache<lru, write_policy::write_evict> c(
        geometry{.sets = 1, .ways = 2, .line_bytes = 64});
    CHECK(c.access(ref(0x80, 4)).filled());
    auto r = c.access(modify(0x84)); // hit: the write evicts the line
    CHECK(r.hit);
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].address == byte_address{0x80});
    CHECK(r.evictions[0].reason == memsub::eviction_reason::write_evict);
    CHECK(r.bytes_written_down == 4);
    CHECK_FALSE(c.contains(byte_address{0x80}));
    r = c.access(modify(0x10)); // miss: read without allocating, the bytes go down
    CHECK_FALSE(r.filled());
    CHECK(r.bypass == cache::bypass_reason::write_no_allocate);
    CHECK(r.bytes_fetched == 4);
    CHECK(r.bytes_written_down == 4);
    CHECK(c.stats().bypasses_by_reason[static_cast<std::size_t>(
              cache::bypass_reason::write_no_allocate)] == 1);
    CHECK(c.stats().bypasses_by_reason[static_cast<std::size_t>(
              cache::bypass_reason::host_no_allocate)] == 0);
    CHECK(c.stats().accesses() == 3);
    CHECK(c.stats().misses() == 2);
}

TEST_CASE("read-modify-write in a variable-block cache marks the blocks holding its bytes") {
    cache::variable_block_cache<lru, 4> c(
        geometry{.sets = 1, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16});
    const cache::block_spec quarter{.span_segments = 1, .stored_segments = 1};
    CHECK(c.access(ref(0x00, 4), quarter).filled());
    CHECK(c.access(ref(0x20, 4), quarter).filled());
    auto r = c.access(modify(0x1e, 4), quarter); // spans the two 32B blocks: a hit, both dirty
    CHECK(r.hit);
    CHECK(c.block(r.set, c.find(byte_address{0x00})->entry).dirty);
    CHECK(c.block(r.set, c.find(byte_address{0x20})->entry).dirty);
    r = c.access(modify(0x40, 4), quarter); // a miss fills one block, dirty
    CHECK(r.filled());
    CHECK(c.block(r.set, r.entry).dirty);
    CHECK_FALSE(c.contains(byte_address{0x60}));
    CHECK(c.stats().accesses() == 4);
    CHECK(c.stats().misses() == 3);
}

TEST_CASE("access_spanning: a reference within one line is exactly access()") {
    set_associative_cache<lru> a(geometry{.sets = 2, .ways = 2, .line_bytes = 64});
    set_associative_cache<lru> b(geometry{.sets = 2, .ways = 2, .line_bytes = 64});
    for (const std::uint64_t addr : {0x0ull, 0x38ull, 0x40ull, 0x100ull, 0x0ull}) {
        int calls = 0;
        const bool miss = a.access_spanning(ref(addr, 8), [&](const auto&) { ++calls; });
        CHECK(calls == 1);
        CHECK(miss == !b.access(ref(addr, 8)).hit);
    }
    CHECK(same_counts(a.stats(), b.stats()));
}

TEST_CASE("access_spanning: both lines touched in order, one access, one miss at most") {
    set_associative_cache<lru> c(geometry{.sets = 1, .ways = 2, .line_bytes = 64});
    std::vector<bool> hits;
    const auto sink = [&](const auto& r) { hits.push_back(r.hit); };
    CHECK(c.access_spanning(ref(0x3c, 8), sink)); // lines 0 and 1 both miss: one miss
    CHECK(hits == std::vector<bool>{false, false});
    CHECK(c.stats().accesses() == 1);
    CHECK(c.stats().misses() == 1);
    CHECK(c.stats().fills == 2);
    hits.clear();
    CHECK_FALSE(c.access_spanning(ref(0x3c, 8), sink)); // both hit
    CHECK(hits == std::vector<bool>{true, true});
    // Line 1 is now the most recent: a reference to lines 1..2 hits 1 and evicts line 0.
    hits.clear();
    CHECK(c.access_spanning(ref(0x7f, 2, access_kind::store), sink));
    CHECK(hits == std::vector<bool>{true, false});
    CHECK_FALSE(c.contains(byte_address{0x00}));
    CHECK(c.stats().accesses() == 3);
    CHECK(c.stats().misses() == 2);
    CHECK(missed(c.stats(), access_kind::store) == 1);
    // The store wrote a byte of each line: both are dirty.
    CHECK(c.block(set_index{0}, c.find(byte_address{0x80})->entry).dirty);
    CHECK(c.block(set_index{0}, c.find(byte_address{0x40})->entry).dirty);
    CHECK(count(c.stats(), access_kind::load) == 2);
    CHECK(count(c.stats(), access_kind::store) == 1);
    // A reference over three lines (cachegrind never makes one): one access, one miss.
    hits.clear();
    CHECK(c.access_spanning(ref(0x13c, 132), sink));
    CHECK(hits.size() == 3);
    CHECK(c.stats().accesses() == 4);
    CHECK(c.stats().misses() == 3);
}

TEST_CASE("access_spanning: a read-modify-write over two clean lines dirties both") {
    set_associative_cache<lru> c(geometry{.sets = 2, .ways = 2, .line_bytes = 64});
    CHECK(c.access_spanning(ref(0x00, 128), [](const auto&) {}));
    CHECK_FALSE(c.block(set_index{0}, c.find(byte_address{0x00})->entry).dirty);
    CHECK_FALSE(c.block(set_index{1}, c.find(byte_address{0x40})->entry).dirty);
    CHECK_FALSE(c.access_spanning(modify(0x3e, 4), [](const auto&) {}));
    CHECK(c.block(set_index{0}, c.find(byte_address{0x00})->entry).dirty);
    CHECK(c.block(set_index{1}, c.find(byte_address{0x40})->entry).dirty);
    CHECK(count(c.stats(), access_kind::load) == 2);
    CHECK(missed(c.stats(), access_kind::load) == 1);
    CHECK(count(c.stats(), access_kind::store) == 0);
}

TEST_CASE("access_spanning agrees with an independent model of cachegrind's D1") {
    for (const auto& shape : {std::tuple{64u, 8u, 64u}, std::tuple{16u, 2u, 32u},
                              std::tuple{1u, 4u, 16u}, std::tuple{256u, 1u, 64u}}) {
        // Named copies, not a structured binding: CAPTURE cannot take one (clang 14).
        const unsigned sets = std::get<0>(shape), ways = std::get<1>(shape),
                       line = std::get<2>(shape);
        CAPTURE(sets);
        CAPTURE(ways);
        CAPTURE(line);
        set_associative_cache<lru> c(geometry{.sets = sets, .ways = ways, .line_bytes = line});
        cachegrind_model model(sets, ways, line);
        xoshiro256ss rng(sets * 31 + ways);
        std::uint64_t reads = 0, writes = 0, read_misses = 0, write_misses = 0;
        const std::uint64_t span = std::uint64_t{sets} * ways * line * 3;
        for (int i = 0; i < 40000; ++i) {
            const std::uint64_t addr = rng() % span;
            const std::uint32_t size = 1u + static_cast<std::uint32_t>(rng() % line); // ≤ line
            const auto pick = rng() % 3;
            const auto a =
                ref(addr, size, pick == 1 ? access_kind::store : access_kind::load, pick == 2);
            const bool expected = model.reference(addr, size);
            int lines = 0;
            const bool miss = c.access_spanning(a, [&](const auto&) { ++lines; });
            REQUIRE(miss == expected);
            CHECK(lines == ((addr % line) + size > line ? 2 : 1));
            (pick == 1 ? writes : reads) += 1;
            (pick == 1 ? write_misses : read_misses) += expected;
        }
        CHECK(count(c.stats(), access_kind::load) == reads);
        CHECK(count(c.stats(), access_kind::store) == writes);
        CHECK(missed(c.stats(), access_kind::load) == read_misses);
        CHECK(missed(c.stats(), access_kind::store) == write_misses);
        CHECK(read_misses > 0);
        CHECK(write_misses > 0);
    }
}

TEST_CASE("access_all_spanning equals access_spanning reference by reference") {
    set_associative_cache<lru> batch_cache(geometry{.sets = 8, .ways = 2, .line_bytes = 32});
    set_associative_cache<lru> one_by_one(geometry{.sets = 8, .ways = 2, .line_bytes = 32});
    xoshiro256ss rng(99);
    std::vector<memsub::access> refs;
    for (int i = 0; i < 20000; ++i) {
        // Mostly one-line references; some cross one boundary, a few span up to 12 lines
        // (more than access_all_spanning's 8 pieces at a time).
        const auto roll = rng() % 100;
        const std::uint32_t size = roll < 80   ? 1u + static_cast<std::uint32_t>(rng() % 8)
                                   : roll < 97 ? 1u + static_cast<std::uint32_t>(rng() % 32)
                                               : 1u + static_cast<std::uint32_t>(rng() % 384);
        const auto pick = rng() % 3;
        refs.push_back(
            ref(rng() % 4096, size, pick == 1 ? access_kind::store : access_kind::load, pick == 2));
    }
    std::vector<std::pair<std::uint64_t, bool>> seen_batch, seen_one;
    batch_cache.access_all_spanning(refs, [&](const memsub::access& a, const auto& r) {
        seen_batch.emplace_back(a.address.value >> 5, r.hit);
    });
    for (const auto& a : refs)
        (void)one_by_one.access_spanning(a, [&](const auto& r) {
            seen_one.emplace_back(one_by_one.line_of(a.address).value, r.hit);
        });
    REQUIRE(seen_batch.size() == seen_one.size());
    CHECK(seen_batch.size() > refs.size());
    std::size_t mismatched_hits = 0;
    for (std::size_t i = 0; i < seen_batch.size(); ++i)
        mismatched_hits += seen_batch[i].second != seen_one[i].second;
    CHECK(mismatched_hits == 0);
    CHECK(same_counts(batch_cache.stats(), one_by_one.stats()));
    CHECK(batch_cache.stats().accesses() == refs.size());
    CHECK(batch_cache.stats().fills == one_by_one.stats().fills);
    CHECK(batch_cache.stats().writebacks == one_by_one.stats().writebacks);
}
