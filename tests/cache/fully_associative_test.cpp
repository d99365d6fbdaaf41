// The fully associative cache against independent naive models (a list-and-map LRU, a queue
// FIFO, a linear-scan MIN), against memsub's set engine with one set, on hash-hostile keys; and
// the 3C classification on crafted streams and Hill's identities on a seeded one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <list>
#include <unordered_map>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/fully_associative.hpp>
#include <memsub/cache/three_c.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/next_use.hpp>

using namespace memsub;
using cache::fully_associative_cache;

namespace {

constexpr std::uint32_t line_bytes = 64;

/// A seeded stream of loads and stores over `footprint` lines with a hot subset, optionally
/// with every line a multiple of `stride` (keys that share their low bits).
std::vector<memsub::access> stream(std::uint64_t seed, std::size_t n, std::uint64_t footprint,
                                   std::uint64_t stride = 1) {
    xoshiro256ss rng(seed);
    std::vector<memsub::access> s(n);
    for (auto& a : s) {
        const std::uint64_t l =
            rng.below(3) == 0 ? rng.below(footprint / 8 + 1) : rng.below(footprint);
        a.address = byte_address{l * stride * line_bytes + rng.below(line_bytes)};
        a.kind = rng.below(4) == 0 ? access_kind::store : access_kind::load;
    }
    replacement::annotate_next_use(s, line_bytes);
    return s;
}

struct outcome {
    bool hit;
    bool evicted;
    std::uint64_t evicted_line;
    bool writeback;
    friend bool operator==(const outcome&, const outcome&) = default;
};

/// Naive models: resident lines in a std::list in their order, dirty bits in a map.
struct naive_model {
    enum class kind { lru, fifo, opt } k;
    std::size_t capacity;
    std::list<std::uint64_t> order; // front = most recent (LRU) / newest (FIFO)
    std::unordered_map<std::uint64_t, bool> dirty;
    std::unordered_map<std::uint64_t, std::uint64_t> next_use; // OPT

    outcome access(const memsub::access& a) {
        const std::uint64_t line = a.address.value / line_bytes;
        const bool write = is_write(a.kind);
        const auto it = std::find(order.begin(), order.end(), line);
        outcome o{it != order.end(), false, 0, false};
        if (o.hit) {
            if (k == kind::lru) order.splice(order.begin(), order, it);
            dirty[line] = dirty[line] || write;
            next_use[line] = a.hints.next_use;
            return o;
        }
        if (order.size() == capacity) {
            auto victim = std::prev(order.end());
            if (k == kind::opt) // the farthest next use (never = the largest value)
                victim = std::max_element(order.begin(), order.end(), [&](auto x, auto y) {
                    return next_use[x] < next_use[y];
                });
            o.evicted = true;
            o.evicted_line = *victim;
            o.writeback = dirty[*victim];
            dirty.erase(*victim);
            order.erase(victim);
        }
        order.push_front(line);
        dirty[line] = write;
        next_use[line] = a.hints.next_use;
        return o;
    }
};

template <class Order>
void matches_model(naive_model::kind k, std::size_t capacity,
                   const std::vector<memsub::access>& s) {
    CAPTURE(capacity);
    fully_associative_cache<Order> c(capacity, line_bytes);
    naive_model m{k, capacity, {}, {}, {}};
    std::uint64_t misses = 0, writebacks = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto r = c.access(s[i]);
        const outcome want = m.access(s[i]);
        const outcome got{r.hit, r.evicted, r.evicted_line.value, r.writeback};
        if (k == naive_model::kind::opt) {
            // Which never-used-again line leaves is free, and cannot change a later hit or
            // miss; which of them was dirty can differ, so only hits and evictions are compared.
            if (got.hit != want.hit || got.evicted != want.evicted)
                FAIL("access ", i, ": hit ", got.hit, "/", want.hit);
        } else if (!(got == want)) {
            FAIL("access ", i, ": hit ", got.hit, "/", want.hit, ", evicted ", got.evicted_line,
                 "/", want.evicted_line);
        }
        misses += !r.hit;
        writebacks += r.writeback;
    }
    CHECK(c.stats().misses() == misses);
    CHECK(c.stats().writebacks == writebacks);
    if (k != naive_model::kind::opt && c.stats().evictions > 100) CHECK(writebacks > 0);
    CHECK(c.resident_lines() == std::min<std::uint64_t>(capacity, c.stats().fills));
}

} // namespace

TEST_CASE("fully associative LRU and FIFO match naive list models, access by access") {
    const auto s = stream(1, 30000, 1500);
    for (std::size_t capacity : {1u, 2u, 7u, 100u, 600u, 2000u}) {
        matches_model<cache::fa_lru>(naive_model::kind::lru, capacity, s);
        matches_model<cache::fa_fifo>(naive_model::kind::fifo, capacity, s);
    }
    // Keys that share their low bits (a stride of 2^20 lines) stress the hash index's probing
    // and backward-shift deletion.
    const auto strided = stream(2, 30000, 900, std::uint64_t{1} << 20);
    matches_model<cache::fa_lru>(naive_model::kind::lru, 300, strided);
    matches_model<cache::fa_fifo>(naive_model::kind::fifo, 300, strided);
}

TEST_CASE("fully associative OPT (Belady's MIN) matches a linear-scan model and bounds LRU") {
    const auto s = stream(3, 20000, 1200);
    for (std::size_t capacity : {1u, 16u, 250u, 1000u}) {
        matches_model<cache::fa_opt>(naive_model::kind::opt, capacity, s);
        fully_associative_cache<cache::fa_opt> opt(capacity, line_bytes);
        fully_associative_cache<cache::fa_lru> lru(capacity, line_bytes);
        for (const auto& a : s) {
            opt.access(a);
            lru.access(a);
        }
        CHECK(opt.stats().misses() <= lru.stats().misses());
    }
}

TEST_CASE("a 64-line fully associative LRU decides exactly as the set engine's one-set LRU") {
    const auto s = stream(4, 40000, 200);
    fully_associative_cache<cache::fa_lru> fa(64, line_bytes);
    cache::set_associative_cache<replacement::lru> one_set(
        geometry{.sets = 1, .ways = 64, .line_bytes = line_bytes});
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto a = fa.access(s[i]);
        const auto b = one_set.access(s[i]);
        REQUIRE(a.hit == b.hit);
        REQUIRE(a.evicted == !b.evictions.empty());
        if (a.evicted) {
            REQUIRE(a.evicted_line == b.evictions[0].line);
            REQUIRE(a.writeback == b.evictions[0].dirty);
        }
    }
    CHECK(fa.stats().writebacks == one_set.stats().writebacks);
    CHECK(fa.stats().bytes_fetched == one_set.stats().bytes_fetched);
}

TEST_CASE("fully associative cache: bad configuration throws once") {
    CHECK_THROWS_AS(fully_associative_cache<cache::fa_lru>(0, 64), config_error);
    CHECK_THROWS_AS(fully_associative_cache<cache::fa_lru>(std::uint64_t{1} << 31, 64),
                    config_error);
    CHECK_THROWS_AS(fully_associative_cache<cache::fa_lru>(16, 48), config_error);
}

TEST_CASE("3C: crafted streams give compulsory, capacity and conflict misses (Hill)") {
    // A direct-mapped cache of 2 lines (2 sets); lines 0 and 2 share set 0.
    cache::set_associative_cache<replacement::lru> dm(
        geometry{.sets = 2, .ways = 1, .line_bytes = line_bytes});
    cache::three_c_classifier c(2, line_bytes);
    const auto at = [](std::uint64_t line) {
        memsub::access a;
        a.address = byte_address{line * line_bytes};
        return a;
    };
    std::vector<cache::miss_class> got;
    for (std::uint64_t line : {0, 2, 0, 2, 1, 3, 0}) {
        const memsub::access a = at(line);
        got.push_back(c.classify(a, dm.access(a).hit));
    }
    using mc = cache::miss_class;
    // 0, 2: first references. 0 again: evicted by 2 in the direct-mapped cache, but the
    // 2-line fully associative LRU still holds it: conflict; 2 likewise. 1 and 3 are new. The
    // last 0: the fully associative LRU (holding 1, 3) misses too: capacity.
    CHECK(got == std::vector<mc>{mc::compulsory, mc::compulsory, mc::conflict, mc::conflict,
                                 mc::compulsory, mc::compulsory, mc::capacity});
    CHECK(c.counts().misses() == dm.stats().misses());
    CHECK(c.footprint_lines() == 4);

    // A loop over capacity + 1 lines in a fully associative-like cache: after the first pass
    // every miss is a capacity miss.
    cache::set_associative_cache<replacement::lru> fa_like(
        geometry{.sets = 1, .ways = 8, .line_bytes = line_bytes});
    cache::three_c_classifier loop(8, line_bytes);
    for (int pass = 0; pass < 5; ++pass)
        for (std::uint64_t line = 0; line < 9; ++line) {
            const memsub::access a = at(line);
            loop.classify(a, fa_like.access(a).hit);
        }
    CHECK(loop.counts().compulsory == 9);
    CHECK(loop.counts().capacity == 4 * 9);
    CHECK(loop.counts().conflict == 0);
}

TEST_CASE("3C: Hill's identities hold on a seeded stream for several organisations") {
    const auto s = stream(5, 50000, 3000);
    for (std::uint32_t ways : {1u, 4u, 16u}) {
        CAPTURE(ways);
        const geometry g{.sets = 1024 / ways, .ways = ways, .line_bytes = line_bytes};
        cache::set_associative_cache<replacement::lru> c(g);
        cache::three_c_classifier cls(1024, line_bytes);
        fully_associative_cache<cache::fa_lru> fa(1024, line_bytes);
        for (const auto& a : s) {
            cls.classify(a, c.access(a).hit);
            fa.access(a);
        }
        const auto& n = cls.counts();
        CHECK(n.misses() == c.stats().misses());
        CHECK(n.compulsory == cls.footprint_lines());
        // compulsory + capacity + (fully associative misses the cache hit) = FA-LRU's misses
        CHECK(n.compulsory + n.capacity + n.fa_misses_hit == fa.stats().misses());
        CHECK(n.hill_conflict() == static_cast<std::int64_t>(c.stats().misses()) -
                                       static_cast<std::int64_t>(fa.stats().misses()));
        if (ways == 1) CHECK(n.conflict > 0); // a direct-mapped cache has conflict misses
    }
}

TEST_CASE("line-crossing references: one rule for the set engine, the fully associative cache "
          "and the 3C split") {
    // References of 1..200 bytes at any offset, so many cross one or more line boundaries.
    xoshiro256ss rng(42);
    std::vector<memsub::access> s(40000);
    for (auto& a : s) {
        a.address = byte_address{rng.below(600) * line_bytes + rng.below(line_bytes)};
        a.size = static_cast<std::uint32_t>(1 + rng.below(200));
        a.kind = rng.below(4) == 0 ? access_kind::store : access_kind::load;
    }
    const std::uint64_t crossing =
        static_cast<std::uint64_t>(std::count_if(s.begin(), s.end(), [](const memsub::access& a) {
            return a.address.value % line_bytes + a.size > line_bytes;
        }));
    REQUIRE(crossing > s.size() / 2);

    // A one-set LRU of the set engine and the fully associative LRU of the same 64 lines are
    // the same cache: equal counts reference by reference.
    cache::set_associative_cache<replacement::lru> one_set(
        geometry{.sets = 1, .ways = 64, .line_bytes = line_bytes});
    fully_associative_cache<cache::fa_lru> fa(64, line_bytes);
    cache::three_c_classifier cls(64, line_bytes);
    std::uint64_t lines_touched = 0, agree = 0;
    for (const auto& a : s) {
        const bool engine_missed = one_set.access_spanning(a, [](const auto&) noexcept {});
        const bool fa_missed =
            fa.access_spanning(a, [&](const cache::fa_result&) noexcept { ++lines_touched; });
        agree += engine_missed == fa_missed;
        cls.classify(a, !engine_missed);
    }
    CHECK(agree == s.size());
    CHECK(lines_touched > s.size());          // every line of a crossing reference was accessed
    CHECK(fa.stats().accesses() == s.size()); // one access per reference
    CHECK(fa.stats().misses() == one_set.stats().misses());
    for (std::size_t k = 0; k < access_kind_count; ++k) {
        CHECK(fa.stats().by_kind[k].accesses == one_set.stats().by_kind[k].accesses);
        CHECK(fa.stats().by_kind[k].misses == one_set.stats().by_kind[k].misses);
    }
    // The 3C split of that cache: no conflict misses, Hill's conflict 0, and its misses are the
    // cache's.
    CHECK(cls.counts().conflict == 0);
    CHECK(cls.counts().hill_conflict() == 0);
    CHECK(cls.counts().misses() == one_set.stats().misses());
    // A reference over two new lines is one compulsory miss: fewer than the lines seen.
    CHECK(cls.counts().compulsory > 0);
    CHECK(cls.counts().compulsory < cls.footprint_lines());
}
