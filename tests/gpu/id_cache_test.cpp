// gpu::baseline_l1 (Table 3.1) and gpu::id_cache (PC+Div bypass + ALSI, [Dissertation] §3.2.5,
// Algorithm 5) on a crafted warp stream through the coalescer: a convergent PC whose lines are
// reused, interleaved with a fully divergent streaming gather that thrashes the baseline.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>

#include <memsub/bypass/pc_only.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/linesize/static_size.hpp>

#include "crafted_stream.hpp"

using namespace memsub;

namespace {

using crafted::pc_gather;
using crafted::pc_reuse;

struct tally {
    std::uint64_t accesses = 0, hits = 0, reuse_accesses = 0, reuse_hits = 0, fetched = 0;
};

/// Runs `rounds` rounds of the crafted stream; counts from round `measure_from` on.
template <class Cache>
tally run(Cache& c, int rounds, int measure_from) {
    tally t;
    crafted::run_rounds(rounds, [&](const memsub::access& a, int round) {
        const auto r = c.access(a);
        if (round < measure_from) return;
        ++t.accesses;
        t.hits += r.hit;
        t.fetched += r.bytes_fetched;
        if (a.pc == pc_reuse) {
            ++t.reuse_accesses;
            t.reuse_hits += r.hit;
        }
    });
    return t;
}

} // namespace

static_assert(gpu::l1_geometry::sets == 32 && gpu::l1_geometry::ways == 4 &&
              gpu::l1_geometry::line_bytes == 128);
static_assert(gpu::baseline_l1::options.writes == cache::write_policy::write_evict);
static_assert(std::is_same_v<gpu::id_cache::sizer_type, linesize::alsi>);
static_assert(std::is_same_v<gpu::id_cache::bypass_type, bypass::pc_divergence>);

TEST_CASE("Table 3.1 L1: 16 KB, 32 sets x 4 ways x 128 B, LRU, write-evict") {
    gpu::baseline_l1 c;
    CHECK(c.shape().capacity_bytes() == 16 * 1024);
    memsub::access a;
    a.address = byte_address{0x40};
    a.size = 4;
    CHECK(c.access(a).bytes_fetched == 128);
    CHECK(c.access(a).hit);
    a.kind = access_kind::store;
    const auto w = c.access(a); // write-evict: the store invalidates the line, goes down
    CHECK(w.evictions.size() == 1);
    CHECK(w.bytes_written_down == 4);
    a.kind = access_kind::load;
    CHECK_FALSE(c.access(a).hit);
}

TEST_CASE("ID-Cache on a crafted stream: the divergent gather is bypassed, the convergent "
          "reuse stays; the baseline thrashes") {
    gpu::baseline_l1 base;
    gpu::id_cache idc;
    gpu::variable_line_l1<linesize::alsi> alsi_only;
    const tally b = run(base, 8, 3);
    const tally i = run(idc, 8, 3);
    const tally a = run(alsi_only, 8, 3);

    // Baseline: A's first read each round misses (the gathers evicted it), its second hits.
    CHECK(b.reuse_hits * 2 == b.reuse_accesses);
    CHECK(base.stats().bypasses() == 0);
    // ID-Cache: after the (PC, d = 32) counter reached 0 every gather is bypassed, so A stays
    // resident and all its reads hit from round 3 on.
    const auto& p = idc.bypass_predictor();
    memsub::access g;
    g.pc = pc_gather;
    g.divergence = 32;
    CHECK(p.counter(g) == 0);
    memsub::access r;
    r.pc = pc_reuse;
    r.divergence = 1;
    CHECK(p.counter(r) > 0);
    CHECK(i.reuse_hits == i.reuse_accesses);
    CHECK(idc.stats().bypasses(cache::bypass_reason::predictor) > 0);
    CHECK(i.hits > b.hits);
    // Bypassed gathers fetch only their 4 requested bytes per lane instead of a 128 B line.
    CHECK(i.fetched * 10 < b.fetched);
    // Measured here (rounds 3-7): baseline A 320 / 640 hits, 696,320 bytes fetched; ID-Cache
    // 640 / 640 and 20,480 bytes (the gathers' 4 B per lane only); ALSI alone 320 / 640 and
    // 204,800 bytes. ALSI inserts the gathers as 32 B blocks, a quarter of the traffic, but
    // 1,024 of them per round (32 per set, 16 tags) still push A out: it needs the bypass.
    CHECK(a.fetched < b.fetched);
    CHECK(a.fetched > i.fetched);
    CHECK(a.reuse_hits == b.reuse_hits);
    CHECK(alsi_only.stats().bypasses() == 0);
}

TEST_CASE("comparison points on the same organisation: static sizes and PC-only bypass") {
    gpu::variable_line_l1<linesize::static_size<32>> s32;
    gpu::variable_line_l1<linesize::static_size<128>, bypass::pc_only> pc128;
    const tally t32 = run(s32, 4, 1);
    const tally tpc = run(pc128, 4, 1);
    CHECK(t32.accesses == tpc.accesses);
    CHECK(t32.fetched > 0);
    CHECK(s32.storage_bits() > 0);
    CHECK(pc128.storage_bits() > s32.storage_bits()); // the predictor's table counts
    CHECK(pc128.stats().bypasses(cache::bypass_reason::predictor) > 0);
}

TEST_CASE("ID-Cache partial miss: the resident block trains as a hit, the missing part is "
          "predicted with the missing access's (PC, bin) and inserted at its ALSI size") {
    gpu::id_cache c;
    auto& p = c.bypass_predictor();
    memsub::access a;
    a.pc = pc_gather;
    a.address = byte_address{0x8000 + 4};
    a.size = 4;
    a.divergence = 32; // bin 3: a 32 B block, segment 0
    REQUIRE(c.access(a).bytes_fetched == 32);
    memsub::access b = a;
    b.address = byte_address{0x8000};
    b.size = 64;      // segments 0-1
    b.divergence = 2; // bin 1: 64 B
    const auto r = c.access(b);
    CHECK(r.partial);
    CHECK(r.bytes_fetched == 32); // segment 1 only: segment 0 is resident
    CHECK(r.blocks_filled == 1);
    CHECK(c.block(r.set, r.entry).bytes == 64);
    CHECK(p.counter(a) == 2); // the 32 B block, inserted by (pc, bin 3), was hit
    CHECK(p.counter(b) == 1); // (pc, bin 1) untouched: it only predicted
    // Train (pc, bin 1) to 0: 64 B blocks of set 3 evicted unreused (8 fit in 16 segments).
    memsub::access t = b;
    for (std::uint64_t n = 0; n < 9; ++n) {
        t.address = byte_address{(n * 32 + 3) * 128};
        c.access(t);
    }
    REQUIRE(p.counter(b) == 0);
    // Now the same partial miss on another line is bypassed: the missing 32 B are read, nothing
    // is inserted, the resident 32 B block stays (and was hit).
    a.address = byte_address{0x9000 + 4};
    REQUIRE(c.access(a).filled());
    b.address = byte_address{0x9000};
    const auto q = c.access(b);
    CHECK(q.partial);
    CHECK(q.bypass == cache::bypass_reason::predictor);
    CHECK(q.blocks_filled == 0);
    CHECK(q.bytes_fetched == 32);
    CHECK(c.resident_segments(line_address{0x9000 / 128}) == 0x1);
}
