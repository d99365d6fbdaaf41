// profile::l1_statistics and profile::reuse_distance_profile against hand-computed values on
// crafted sequences: a temporal, a spatial and a mixed hit (Fig. 3.9), zero-reuse departures
// (Fig. 3.2), utilisation buckets (Fig. 3.3), partial misses and superseded blocks of a
// variable-block cache, reuse-distance percentiles per PC and per (PC, divergence bin).
#include <doctest/doctest.h>

#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/profile/l1_statistics.hpp>
#include <memsub/profile/reuse_distance_profile.hpp>
#include <memsub/workload/simt/bfs.hpp>
#include <memsub/workload/simt/gto_scheduler.hpp>

#include <boost/container/static_vector.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>

using namespace memsub;
using memsub::profile::l1_statistics;
using memsub::profile::reuse_distance_profile;

namespace {
memsub::access at(std::uint64_t address, std::uint32_t size, access_kind kind = access_kind::load) {
    memsub::access a;
    a.address = byte_address{address};
    a.size = size;
    a.kind = kind;
    return a;
}

/// A hand-made cache result (the fields l1_statistics reads).
struct crafted_result {
    bool hit = false;
    bool partial = false;
    std::uint32_t blocks_filled = 0;
    std::uint32_t bytes_fetched = 0;
    std::uint64_t missing_segments = 0;
    boost::container::static_vector<memsub::evicted_block, 4> evictions;
};

memsub::evicted_block block(std::uint64_t address, std::uint32_t bytes, bool reused,
                            memsub::eviction_reason reason = memsub::eviction_reason::replacement) {
    memsub::evicted_block b;
    b.address = byte_address{address};
    b.line = line_address{address >> 7};
    b.bytes = bytes;
    b.reused = reused;
    b.reason = reason;
    return b;
}
} // namespace

TEST_CASE("l1_statistics on the baseline L1: hit kinds, zero reuse, utilisation, bytes") {
    gpu::baseline_l1 cache;
    l1_statistics stats({.max_resident_blocks = 128});
    const auto run = [&](const memsub::access& a) {
        const auto r = cache.access(a);
        stats.record(a, r);
        return r;
    };
    // Lines of set 0 (32 sets of 128 B: a 4 KB stride).
    const std::uint64_t L = 0x100000, M = L + 4096, N = L + 2 * 4096, O = L + 3 * 4096,
                        P = L + 4 * 4096, Q = L + 5 * 4096;
    CHECK_FALSE(run(at(L, 4)).hit); // full miss: bytes 0-3 touched
    CHECK(run(at(L, 4)).hit);       // temporal: every byte touched before
    CHECK(run(at(L + 64, 4)).hit);  // spatial: no byte touched before
    CHECK(run(at(L + 60, 8)).hit);  // mixed: 60-63 new, 64-67 touched
    for (const auto line : {M, N, O}) run(at(line, 4));
    run(at(P, 4)); // evicts L: reused, granules 0, 1 and 2 touched -> 75 % -> "50-75 %"
    run(at(Q, 4)); // evicts M: never reused, 1 granule -> "0-25 %"
    auto c = stats.totals();
    CHECK(c.accesses == 9);
    CHECK(c.temporal_hits == 1);
    CHECK(c.spatial_hits == 1);
    CHECK(c.mixed_hits == 1);
    CHECK(c.full_misses == 6);
    CHECK(c.partial_misses == 0);
    CHECK(c.bypassed_misses == 0);
    CHECK(c.bytes_fetched == 6 * 128);
    CHECK(c.departures == 2);
    CHECK(c.zero_reuse_departures == 1);
    CHECK(c.utilisation == std::array<std::uint64_t, 4>{1, 0, 1, 0});
    CHECK(c.hit_rate() == doctest::Approx(3.0 / 9.0));
    CHECK(stats.tracked_lines() == 4); // N, O, P, Q

    // A store miss of the write-evict L1 does not allocate: a bypassed miss.
    run(at(L + 8 * 4096, 4, access_kind::store));
    CHECK(stats.totals().bypassed_misses == 1);

    // Flushing counts the rest: N, O, P, Q never reused, one granule each.
    cache.flush([&](const memsub::evicted_block& b) { stats.record_departure(b); });
    c = stats.totals();
    CHECK(c.departures == 6);
    CHECK(c.zero_reuse_departures == 5);
    CHECK(c.utilisation == std::array<std::uint64_t, 4>{5, 0, 1, 0});
    CHECK(c.zero_reuse_fraction() == doctest::Approx(5.0 / 6.0));
    CHECK(c.mean_utilisation() == doctest::Approx((5 * 0.25 + 0.75) / 6.0));
    CHECK(stats.tracked_lines() == 0);
}

TEST_CASE("l1_statistics with variable-size blocks: partial misses, superseded blocks, "
          "per-block utilisation") {
    l1_statistics stats;
    const std::uint64_t X = 0x200000;
    crafted_result r;
    // Bytes 0-3: a 32 B block at 0.
    r.blocks_filled = 1;
    r.bytes_fetched = 32;
    stats.record(at(X, 4), r);
    // Bytes 16-47: segment 0 resident, segment 1 fetched (a partial miss).
    r.partial = true;
    stats.record(at(X + 16, 32), r);
    // Bytes 0-127 inserted as one 128 B block: the two 32 B blocks are superseded.
    r.bytes_fetched = 64;
    r.evictions = {block(X, 32, true, memsub::eviction_reason::superseded),
                   block(X + 32, 32, false, memsub::eviction_reason::superseded)};
    stats.record(at(X, 128), r);
    auto c = stats.totals();
    CHECK(c.full_misses == 1);
    CHECK(c.partial_misses == 2);
    CHECK(c.blocks_inserted == 3);
    CHECK(c.bytes_fetched == 128);
    CHECK(c.departures == 0); // superseded blocks did not leave
    CHECK(stats.tracked_lines() == 1);
    // A hit on bytes 8-11 (touched by the 128 B request): temporal.
    crafted_result hit;
    hit.hit = true;
    stats.record(at(X + 8, 4), hit);
    CHECK(stats.totals().temporal_hits == 1);
    // The 128 B block leaves: every granule touched -> "75-100 %"; counted as reused or not as
    // the cache says.
    stats.record_departure(block(X, 128, true));
    CHECK(stats.tracked_lines() == 0);

    // A 32 B block with its request inside: 100 %; a 64 B block with one of two granules: 50 %.
    const std::uint64_t Y = 0x300000;
    crafted_result fill;
    fill.blocks_filled = 1;
    fill.bytes_fetched = 32;
    stats.record(at(Y + 40, 4), fill);
    fill.bytes_fetched = 64;
    stats.record(at(Y + 64, 4), fill);
    stats.record_departure(block(Y + 32, 32, false));
    stats.record_departure(block(Y + 64, 64, false));
    c = stats.totals();
    CHECK(c.departures == 3);
    CHECK(c.zero_reuse_departures == 2);
    CHECK(c.utilisation == std::array<std::uint64_t, 4>{0, 1, 0, 2});
    CHECK(stats.tracked_lines() == 0);

    // Bypassed reads count the 32 B granules they need: 4 bytes in one granule, 4 bytes across
    // two, and a partial miss's missing segments; the engine's byte count when asked.
    crafted_result bypassed;
    bypassed.bytes_fetched = 4;
    stats.record(at(0x400000 + 8, 4), bypassed);
    CHECK(stats.totals().bytes_fetched == 128 + 32 + 64 + 32);
    stats.record(at(0x400000 + 30, 4), bypassed);
    CHECK(stats.totals().bytes_fetched == 128 + 32 + 64 + 32 + 64);
    bypassed.partial = true;
    bypassed.bytes_fetched = 40;
    bypassed.missing_segments = 0b0110;
    stats.record(at(0x400000 + 24, 80), bypassed);
    CHECK(stats.totals().bytes_fetched == 128 + 32 + 64 + 32 + 64 + 64);
    CHECK(stats.totals().bypassed_misses == 3);
    l1_statistics exact({.bypass_reads_in_granules = false});
    crafted_result four;
    four.bytes_fetched = 4;
    exact.record(at(0x400000 + 30, 4), four);
    CHECK(exact.totals().bytes_fetched == 4);

    CHECK_THROWS_AS(l1_statistics({.line_bytes = 256}), config_error);
    CHECK_THROWS_AS(l1_statistics({.granule_bytes = 48}), config_error);
}

TEST_CASE("reuse_distance_profile: distinct lines of the same set between references") {
    reuse_distance_profile p({.sets = 2, .line_bytes = 128, .max_distance = 3});
    const std::uint64_t A = 0x10, B = 0x20;
    const auto line = [](std::uint64_t n) { return n * 128; };
    // Set 0 holds even lines, set 1 odd ones.
    CHECK(p.reference(A, 1, line(0)) == 4); // first: beyond
    CHECK(p.reference(A, 1, line(2)) == 4);
    CHECK(p.reference(A, 1, line(1)) == 4); // set 1: does not count for set 0
    CHECK(p.reference(A, 1, line(0)) == 1); // line 2 between
    CHECK(p.reference(A, 5, line(4)) == 4);
    CHECK(p.reference(A, 5, line(2)) == 2); // lines 0 and 4 between
    CHECK(p.reference(A, 5, line(2)) == 0);
    // A: 4, 4, 4, 1, 4, 2, 0 -> sorted 0 1 2 4 4 4 4: p25 = 1, median = 4, p75 = 4 (nearest rank).
    const auto all = *p.of_pc(A);
    CHECK(all.references == 7);
    CHECK(all.p25 == 1);
    CHECK(all.median == 4);
    CHECK(all.p75 == 4);
    // d = 1: 4, 4, 4, 1 -> 1 4 4 4; d = 5 (bin 2): 4, 2, 0 -> 0 2 4.
    const auto convergent = *p.of_pc_bin(A, 0);
    CHECK(convergent.references == 4);
    CHECK(convergent.p25 == 1);
    CHECK(convergent.median == 4);
    const auto divergent = *p.of_pc_bin(A, 2);
    CHECK(divergent.references == 3);
    CHECK(divergent.p25 == 0);
    CHECK(divergent.median == 2);
    CHECK(divergent.p75 == 4);
    CHECK(p.of_pc_bin(A, 1)->references == 0);
    CHECK_FALSE(p.of_pc(B).has_value());
    CHECK(p.bin_of(1) == 0);
    CHECK(p.bin_of(3) == 1);
    CHECK(p.bin_of(15) == 2);
    CHECK(p.bin_of(16) == 3);
    // A line pushed more than max_distance lines down is beyond.
    reuse_distance_profile q({.sets = 1, .max_distance = 3});
    for (std::uint64_t n = 0; n < 5; ++n) q.reference(B, 1, line(n));
    CHECK(q.reference(B, 1, line(0)) == 4); // 4 lines between > 3
    CHECK(q.reference(B, 1, line(3)) == 2); // lines 4 and 0 between
    CHECK(q.overall().references == 7);
    CHECK(q.pcs() == std::vector<std::uint64_t>{B});
}

namespace {
/// Runs a small BFS (2 SMs, SM 0's L1 only) through `cache` and `stats`; returns the bucket
/// counts computed from the engine's own `touched_segments` of every departing block.
template <class Cache>
std::array<std::uint64_t, 4> run_bfs_through(Cache& cache, l1_statistics& stats) {
    using namespace memsub::workload::simt;
    const csr_graph g = make_rmat_graph({.scale = 10, .edge_factor = 8, .seed = 11});
    bfs_kernel k(g);
    gto_scheduler<bfs_kernel> s(k, {.sms = 2});
    const gpu::coalescer co;
    gpu::coalesced_warp lines;
    warp_instruction w;
    std::array<std::uint64_t, 4> engine_buckets{};
    const auto count = [&](const memsub::evicted_block& b) {
        if (b.reason == memsub::eviction_reason::superseded) return;
        const std::uint32_t granules = b.bytes / 32;
        const auto used = static_cast<std::uint32_t>(std::popcount(b.touched_segments));
        const std::uint32_t quarters = (4 * used + granules - 1) / granules;
        ++engine_buckets[quarters == 0 ? 0 : quarters - 1];
    };
    while (s.next(w)) {
        if (w.sm != 0) continue;
        co.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        memsub::access proto;
        proto.pc = w.pc;
        proto.kind = w.kind;
        // One access per line request (as the explorers feed it): the masked requests' touched
        // bytes must agree with the engine's touched segments.
        co.for_each_request(lines, proto, [&](const memsub::access& a) {
            const auto r = cache.access(a);
            stats.record(a, r);
            for (const auto& b : r.evictions) count(b);
        });
    }
    const auto sink = [&](const memsub::evicted_block& b) {
        stats.record_departure(b);
        count(b);
    };
    cache.flush(sink);
    return engine_buckets;
}
} // namespace

TEST_CASE("l1_statistics agrees with the caches' own counters on a BFS stream") {
    SUBCASE("the baseline L1") {
        gpu::baseline_l1 cache;
        l1_statistics stats({.max_resident_blocks = 128, .bypass_reads_in_granules = false});
        run_bfs_through(cache, stats);
        const auto& c = stats.totals();
        const auto& e = cache.stats();
        CHECK(c.accesses == e.accesses());
        CHECK(c.hits() == e.hits());
        CHECK(c.partial_misses == 0);
        CHECK(c.bypassed_misses == e.bypasses());
        CHECK(c.bytes_fetched == e.bytes_fetched);
        CHECK(c.blocks_inserted == e.fills);
        CHECK(c.departures == e.evictions + e.invalidations); // flush included
        CHECK(c.accesses > 10000);
        CHECK(stats.tracked_lines() == 0);
    }
    SUBCASE("ID-Cache: variable blocks; utilisation equals the engine's touched segments") {
        gpu::id_cache cache;
        l1_statistics stats({.bypass_reads_in_granules = false});
        const auto engine_buckets = run_bfs_through(cache, stats);
        const auto& c = stats.totals();
        const auto& e = cache.stats();
        CHECK(c.accesses == e.accesses());
        CHECK(c.hits() == e.hits());
        CHECK(c.partial_misses == e.partial_misses);
        CHECK(c.bypassed_misses == e.bypasses());
        CHECK(c.bytes_fetched == e.bytes_fetched);
        CHECK(c.partial_misses > 0);
        CHECK(c.utilisation == engine_buckets);
        CHECK(stats.tracked_lines() == 0);
    }
}
