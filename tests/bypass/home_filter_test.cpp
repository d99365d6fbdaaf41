// The home-based allocation filters (memory_side, module_side, remote_only;
// docs/mechanisms/multi_module_gpu.md §1 C5.2/C5.3), the epoch invalidation hook
// (cache::sync_epoch_invalidator) and a write-through remote-only L1.5: the concept and the bypass
// contract (K1, K3–K7), equality with an independent reference (the same cache with the host's
// no_allocate hint set by the rule), the configuration errors, one invalidation per synchronisation
// id, dirty lines reported.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <set>
#include <vector>

#include <memsub/bypass/all.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/hierarchy.hpp>
#include <memsub/cache/sync_epoch_invalidator.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/testing/contract.hpp>

using namespace memsub;
using bypass::home_ref;
using bypass::memory_side;
using bypass::module_side;
using bypass::remote_only;
using cache::write_policy;
using replacement::lru;

namespace {

/// A host's home function for the tests: fine-grain interleave of `granule`-byte chunks over
/// `modules` modules (C5.1's rule, written here so the filters depend on no placement code).
struct interleave_home {
    std::uint32_t modules = 4;
    std::uint64_t granule = 256;
    std::uint32_t operator()(byte_address a) const noexcept {
        return static_cast<std::uint32_t>((a.value / granule) % modules);
    }
};

/// A stateful home function shared by reference: a page table a host fills at run time.
struct page_table_home {
    std::vector<std::uint32_t> page_home;
    std::uint32_t operator()(byte_address a) const noexcept {
        return page_home[(a.value >> 12) % page_home.size()];
    }
};

static_assert(bypass::home_function<interleave_home>);
static_assert(bypass::home_function<home_ref<page_table_home>>);
static_assert(bypass::bypass_predictor<memory_side<interleave_home>>);
static_assert(bypass::bypass_predictor<module_side<interleave_home>>);
static_assert(bypass::bypass_predictor<remote_only<interleave_home>>);
static_assert(bypass::bypass_predictor<remote_only<home_ref<page_table_home>>>);

/// A home function that may throw is refused (should_bypass is noexcept).
struct throwing_home {
    std::uint32_t operator()(byte_address) const { return 0; }
};
static_assert(!bypass::home_function<throwing_home>);

const geometry shape{.sets = 16, .ways = 4, .line_bytes = 128};

memsub::access make(std::uint64_t line, access_kind k = access_kind::load) {
    return memsub::access{.address = byte_address{line * 128}, .kind = k};
}

/// Runs a seeded stream through `Filtered` (the filter in the bypass slot) and through a plain
/// LRU cache whose host sets `no_allocate` by the rule `admit`; hit/miss and fill must agree on
/// every access, and no line the rule refuses is ever resident.
template <template <class> class Filter, class Admit>
void check_against_no_allocate_reference(std::uint32_t module, Admit admit, std::uint64_t seed) {
    const interleave_home home{};
    cache::set_associative_cache<lru, write_policy::write_back, geometry, Filter<interleave_home>>
        filtered(shape, {}, {.home_of = home, .module = module, .modules = 4});
    cache::set_associative_cache<lru> reference(shape);
    xoshiro256ss rng{seed};
    std::uint64_t fills = 0, bypasses = 0;
    for (int i = 0; i < 20000; ++i) {
        memsub::access a =
            make(rng() % 512, rng() % 4 == 0 ? access_kind::store : access_kind::load);
        const auto got = filtered.access(a);
        a.hints.no_allocate = !admit(home(a.address) == module);
        const auto want = reference.access(a);
        REQUIRE(got.hit == want.hit);
        REQUIRE(got.filled() == want.filled());
        fills += got.filled();
        bypasses += got.bypassed();
        if (!admit(home(a.address) == module)) CHECK_FALSE(filtered.contains(a.address));
    }
    const auto& f = filtered.bypass_predictor();
    CHECK(f.local_misses() + f.remote_misses() == filtered.stats().fills + bypasses);
    if (admit(true) != admit(false)) {
        CHECK(fills > 0);
        CHECK(bypasses > 0);
    }
}

} // namespace

TEST_CASE("home filters: each rule equals the same cache with the host's no_allocate by rule") {
    for (std::uint32_t m = 0; m < 4; ++m) {
        check_against_no_allocate_reference<memory_side>(
            m, [](bool local) { return local; }, 10 + m);
        check_against_no_allocate_reference<remote_only>(
            m, [](bool local) { return !local; }, 20 + m);
        check_against_no_allocate_reference<module_side>(
            m, [](bool) { return true; }, 30 + m);
    }
}

TEST_CASE("home filters answer by the home function: admits, is_local, counters") {
    const interleave_home home{};
    remote_only<interleave_home> l15(shape, {.home_of = home, .module = 2});
    memory_side<interleave_home> l2(shape, {.home_of = home, .module = 2});
    module_side<interleave_home> any(shape, {.home_of = home, .module = 2});
    // Granules of 256 B rotate over 4 modules: bytes [512, 768) are homed on module 2.
    CHECK(l15.is_local(byte_address{600}));
    CHECK_FALSE(l15.admits(byte_address{600}));
    CHECK(l15.admits(byte_address{100}));
    CHECK(l2.admits(byte_address{600}));
    CHECK_FALSE(l2.admits(byte_address{100}));
    CHECK(any.admits(byte_address{600}));
    CHECK(any.admits(byte_address{100}));
    const memsub::access local{.address = byte_address{600}};
    const memsub::access remote{.address = byte_address{1024}};
    CHECK(l15.should_bypass(set_index{0}, local));
    CHECK_FALSE(l15.should_bypass(set_index{0}, remote));
    CHECK_FALSE(l2.should_bypass(set_index{0}, local));
    CHECK(l2.should_bypass(set_index{0}, remote));
    CHECK_FALSE(any.should_bypass(set_index{0}, local));
    CHECK_FALSE(any.should_bypass(set_index{0}, remote));
    CHECK(l15.local_misses() == 1);
    CHECK(l15.remote_misses() == 1);
    CHECK(l15.name() == "remote_only");
    CHECK(l2.name() == "memory_side");
    CHECK(any.name() == "module_side");
    CHECK(l15.storage_bits() == 0);
}

TEST_CASE("a home function held by reference sees the host's run-time updates") {
    page_table_home table{.page_home = {0, 1, 2, 3}};
    remote_only<home_ref<page_table_home>> l15(shape, {.home_of = home_ref{table}, .module = 1});
    const byte_address page1{4096 + 64};
    CHECK_FALSE(l15.admits(page1)); // page 1 homed here: local, not allocated
    table.page_home[1] = 3;         // the host re-homes the page (first touch elsewhere)
    CHECK(l15.admits(page1));
}

TEST_CASE("a capturing lambda over a host's placement serves through home_ref") {
    // A host placement with its own interface (a first-touch table, say): the lambda projects
    // it to the module id; home_ref makes it default-constructible for the params (B1).
    struct placement {
        std::vector<std::uint32_t> partition_of_page;
        std::uint32_t partition_of(byte_address a) const noexcept {
            return partition_of_page[(a.value >> 12) % partition_of_page.size()];
        }
    } pl{{2, 0, 1, 2}};
    auto home = [&pl](byte_address a) noexcept { return pl.partition_of(a); };
    cache::set_associative_cache<lru, write_policy::write_through, geometry,
                                 remote_only<home_ref<decltype(home)>>>
        l15(shape, {}, {.home_of = home_ref{home}, .module = 2});
    CHECK(l15.access(make(0)).bypass == cache::bypass_reason::predictor); // page 0: module 2
    CHECK(l15.access(make(32)).filled());                                 // page 1: module 0
    pl.partition_of_page[1] = 2; // re-homed by the host: later fills of page 1 are local
    CHECK(l15.access(make(33)).bypass == cache::bypass_reason::predictor);
}

TEST_CASE("home filters reject an unbound reference and a module out of range") {
    using by_ref = remote_only<home_ref<page_table_home>>;
    try {
        by_ref unbound(shape, {});
        FAIL("no config_error");
    } catch (const config_error& e) {
        CHECK(e.parameter() == "home_of");
        CHECK(e.component() == "memsub::bypass::remote_only");
    }
    CHECK_THROWS_AS(memory_side<interleave_home>(shape, {.module = 4, .modules = 4}), config_error);
    CHECK_NOTHROW(memory_side<interleave_home>(shape, {.module = 3, .modules = 4}));
}

TEST_CASE("the home filters pass the bypass contract (K1, K3-K7), by value and by reference") {
    const auto report = [](const testing::contract_report& r) {
        INFO(r.text());
        CHECK(r.ok());
        CHECK(r.passes.size() == 2);
    };
    // The contract's stream spans 256 lines of 64 B and 128 B: a 64-byte granule over 4
    // modules gives every module local and remote lines in both passes.
    const interleave_home home{.modules = 4, .granule = 64};
    report(testing::check_bypass_contract<memory_side<interleave_home>>(
        {.home_of = home, .module = 1}));
    report(testing::check_bypass_contract<module_side<interleave_home>>(
        {.home_of = home, .module = 1}));
    report(testing::check_bypass_contract<remote_only<interleave_home>>(
        {.home_of = home, .module = 1}));
    static const page_table_home table{.page_home = {0, 1, 2, 3, 1, 0}};
    report(testing::check_bypass_contract<remote_only<home_ref<page_table_home>>>(
        {.home_of = home_ref{table}, .module = 0}));
}

TEST_CASE("remote_only composes with the OR (any_of) and AND (all_of) combinators") {
    using combined = bypass::any_of<remote_only<interleave_home>, bypass::always>;
    combined c(shape, {});
    CHECK(c.should_bypass(set_index{0}, make(1))); // always says bypass: OR bypasses
    using both = bypass::all_of<remote_only<interleave_home>, bypass::always>;
    both b(shape, {});
    // Module 0, line 1 (bytes 128..255) is homed on module 0: remote_only bypasses, and so
    // does always.
    CHECK(b.should_bypass(set_index{0}, make(1)));
    // Line 2 (bytes 256..383) is homed on module 1: remote_only admits, so the AND admits.
    CHECK_FALSE(b.should_bypass(set_index{0}, make(2)));
}

TEST_CASE("sync_epoch_invalidator: one flush per synchronisation id, however many SMs send it") {
    using l15_cache = cache::set_associative_cache<lru, write_policy::write_through, geometry,
                                                   remote_only<interleave_home>>;
    l15_cache l15(shape, {}, {.home_of = interleave_home{}, .module = 0});
    cache::sync_epoch_invalidator hook;
    const auto fill = [&] {
        for (std::uint64_t line = 0; line < 64; ++line) (void)l15.access(make(line));
    };
    fill();
    const std::uint64_t resident = 64 - 16; // lines homed on module 0 are not allocated
    std::uint64_t counted = 0;
    for (std::uint64_t line = 0; line < 64; ++line) counted += l15.contains(make(line).address);
    REQUIRE(counted == resident);

    // 8 SMs each send the sync for event 7: the first flushes, the other 7 do nothing.
    std::uint64_t sunk = 0;
    for (int sm = 0; sm < 8; ++sm) {
        const auto o = hook.on_sync(7, l15, [&](const memsub::evicted_block& b) {
            ++sunk;
            CHECK(b.reason == memsub::eviction_reason::invalidated);
        });
        CHECK(o.flushed == (sm == 0));
        CHECK(o.blocks_invalidated == (sm == 0 ? resident : 0));
        CHECK(o.dirty_written_back == 0); // write-through: never dirty
    }
    CHECK(sunk == resident);
    for (std::uint64_t line = 0; line < 64; ++line) CHECK_FALSE(l15.contains(make(line).address));

    // Lines filled after the flush survive duplicates of event 7 and go at event 8 (line 2,
    // bytes 256..383, is homed on module 1: resident).
    fill();
    CHECK_FALSE(hook.on_sync(7, l15).flushed);
    CHECK(l15.contains(make(2).address));
    const auto next = hook.on_sync(8, l15);
    CHECK(next.flushed);
    CHECK(next.blocks_invalidated == resident);
    CHECK(hook.stats().commands == 10);
    CHECK(hook.stats().flushes == 2);
    CHECK(hook.stats().blocks_invalidated == 2 * resident);
    CHECK(hook.last_event() == 8);
}

TEST_CASE("sync_epoch_invalidator on a write-back level reports the dirty lines written back") {
    cache::set_associative_cache<lru> level(shape);
    for (std::uint64_t line = 0; line < 32; ++line)
        (void)level.access(make(line, line % 4 == 0 ? access_kind::store : access_kind::load));
    cache::sync_epoch_invalidator hook;
    std::set<std::uint64_t> written_back;
    const auto o = hook.on_sync(1, level, [&](const memsub::evicted_block& b) {
        if (b.dirty) written_back.insert(b.line.value);
    });
    CHECK(o.blocks_invalidated == 32);
    CHECK(o.dirty_written_back == 8);
    CHECK(written_back == std::set<std::uint64_t>{0, 4, 8, 12, 16, 20, 24, 28});
}

TEST_CASE("a write-through remote-only L1.5: stores write down, hit remote copies, never dirty") {
    // C5.3: the L1.5 is write-through (footnote 4); memsub's engine has the write policy, so the
    // L1.5 is a cache configured with it and the remote-only filter.
    using l15_cache = cache::set_associative_cache<lru, write_policy::write_through, geometry,
                                                   remote_only<interleave_home>>;
    l15_cache l15(shape, {}, {.home_of = interleave_home{}, .module = 0});
    const memsub::access remote_load = make(2); // bytes 256..383: module 1
    const memsub::access local_load = make(1);  // bytes 128..255: module 0
    CHECK(l15.access(remote_load).filled());
    const auto local = l15.access(local_load);
    CHECK(local.bypass == cache::bypass_reason::predictor);
    CHECK_FALSE(l15.contains(local_load.address));

    // A store to the resident remote line hits, updates the copy and is written through.
    const auto store_hit = l15.access(make(2, access_kind::store));
    CHECK(store_hit.hit);
    CHECK(store_hit.bytes_written_down > 0);
    CHECK_FALSE(l15.block(store_hit.set, store_hit.entry).dirty);
    // A store miss does not allocate (write-no-allocate), before the predictor is asked (Q1).
    const auto store_miss = l15.access(make(6, access_kind::store)); // module 3: remote
    CHECK(store_miss.bypass == cache::bypass_reason::write_no_allocate);
    CHECK(store_miss.bytes_written_down > 0);
    CHECK_FALSE(l15.contains(make(6).address));
    // Eviction of a written line reports nothing to write back.
    std::uint64_t dirty = 0;
    (void)l15.flush([&](const memsub::evicted_block& b) { dirty += b.dirty; });
    CHECK(dirty == 0);
}

TEST_CASE("an MCM-GPU hierarchy: per-SM L1, remote-only write-through L1.5, memory-side L2") {
    // 2 modules x 2 SMs; lines are homed by 128 B interleave over the two modules. Each
    // module's L1.5 holds a remote_only filter for its module, each L2 slice a memory_side
    // filter for its module; the routers send an L1.5 lookup only for remote lines (C5.3:
    // local accesses skip the L1.5) and an L2 access to the line's home slice (C5.2).
    const interleave_home home{.modules = 2, .granule = 128};
    using l1_type = cache::set_associative_cache<lru, write_policy::write_evict>;
    using l15_type = cache::set_associative_cache<lru, write_policy::write_through, geometry,
                                                  remote_only<interleave_home>>;
    using l2_type = cache::set_associative_cache<lru, write_policy::write_back, geometry,
                                                 memory_side<interleave_home>>;
    struct l15_router {
        interleave_home home;
        std::uint32_t operator()(const memsub::access& a) const noexcept {
            const std::uint32_t module = a.requester / 2;
            return home(a.address) == module ? cache::route::skip : module;
        }
    };
    struct home_router {
        interleave_home home;
        std::uint32_t operator()(const memsub::access& a) const noexcept { return home(a.address); }
    };
    const geometry small{.sets = 2, .ways = 4, .line_bytes = 128};
    cache::level<l1_type, cache::inclusion::non_inclusive, cache::route::private_per> l1 =
        cache::make_level<l1_type, cache::inclusion::non_inclusive>(
            4, geometry{.sets = 1, .ways = 2, .line_bytes = 128}, cache::route::private_per{1});
    cache::level<l15_type, cache::inclusion::non_inclusive, l15_router> l15{
        .caches = {}, .route = l15_router{home}};
    cache::level<l2_type, cache::inclusion::non_inclusive, home_router> l2{
        .caches = {}, .route = home_router{home}};
    for (std::uint32_t m = 0; m < 2; ++m) {
        l15.caches.emplace_back(small, lru::params{},
                                remote_only<interleave_home>::params{.home_of = home, .module = m});
        l2.caches.emplace_back(small, lru::params{},
                               memory_side<interleave_home>::params{.home_of = home, .module = m});
    }
    cache::hierarchy h{4, l1, l15, l2};
    std::vector<cache::memory_request> memory;
    const auto sink = [&](const cache::memory_request& q) { memory.push_back(q); };
    const auto load = [](std::uint64_t addr, std::uint32_t sm) {
        return memsub::access{.address = byte_address{addr}, .requester = sm, .size = 8};
    };
    auto r = h.access(load(0x000, 0), sink); // home 0, SM 0 on module 0: L1.5 skipped
    CHECK_FALSE(r.levels[1].looked_up);
    CHECK(r.levels[2].instance == 0);
    r = h.access(load(0x080, 0), sink); // home 1: remote for module 0, allocated in its L1.5
    CHECK(r.levels[1].looked_up);
    CHECK(h.cache<1>(0).contains(byte_address{0x080}));
    CHECK(h.cache<2>(1).contains(byte_address{0x080})); // and in its home L2 slice
    r = h.access(load(0x080, 1), sink);                 // SM 1, same module: the L1.5 serves it
    CHECK(r.served_by == 1);
    // Store to the remote line: written through the L1.5 (kept clean) to the home L2.
    r = h.access(
        memsub::access{
            .address = byte_address{0x080}, .kind = access_kind::store, .requester = 1, .size = 8},
        sink);
    CHECK(r.levels[1].hit);
    const auto at = h.cache<1>(0).find(byte_address{0x080});
    REQUIRE(at.has_value());
    CHECK_FALSE(h.cache<1>(0).block(at->set, at->entry).dirty);
    CHECK(r.levels[2].hit);
    // No L1.5 ever holds a line homed on its own module; no L2 slice a line homed elsewhere.
    xoshiro256ss rng{3};
    for (int i = 0; i < 2000; ++i) {
        const std::uint64_t addr = (rng() % 64) * 128;
        (void)h.access(load(addr, static_cast<std::uint32_t>(rng() % 4)), sink);
        for (std::uint32_t m = 0; m < 2; ++m) {
            if (home(byte_address{addr}) == m)
                CHECK_FALSE(h.cache<1>(m).contains(byte_address{addr}));
            else
                CHECK_FALSE(h.cache<2>(m).contains(byte_address{addr}));
        }
    }
    // A kernel boundary: all 4 SMs send sync 1; the L1.5 level is flushed once.
    cache::sync_epoch_invalidator hook;
    std::uint32_t flushes = 0;
    std::uint64_t removed = 0;
    for (std::uint32_t sm = 0; sm < 4; ++sm)
        removed += hook.on_sync_with(1,
                                     [&] {
                                         ++flushes;
                                         return h.flush_level<1>(sink);
                                     })
                       .blocks_invalidated;
    CHECK(flushes == 1);
    CHECK(removed > 0);
    for (std::uint32_t m = 0; m < 2; ++m)
        for (std::uint32_t s = 0; s < small.sets; ++s)
            CHECK(h.cache<1>(m).valid_entries(set_index{s}) == 0);
    std::uint32_t l2_resident = 0; // the L2 keeps its lines: only the L1.5 level goes
    for (std::uint32_t m = 0; m < 2; ++m)
        for (std::uint32_t s = 0; s < small.sets; ++s)
            l2_resident += static_cast<std::uint32_t>(
                std::popcount(h.cache<2>(m).valid_entries(set_index{s})));
    // The home bit is the set-index bit here (128 B interleave, 2 sets of 128 B lines), so each
    // slice fills one set: 2 slices × 4 ways, all still resident.
    CHECK(l2_resident == 2 * small.ways);
    CHECK(hook.stats().commands == 4);
}
