// The GPU memory side through cache::hierarchy: Table 3.1's six-bank 768 KB L2 under private
// L1s (gpu/l2.hpp, gpu/l1_l2_hierarchy.hpp), and ID-Cache as the L1 level with ALSI's block
// shape passed by the host ([Dissertation] §3.2.5: ID-Cache behind the L2, through the hierarchy).
#include <doctest/doctest.h>

#include <cstdint>

#include <memsub/cache/hierarchy.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/gpu/l1_l2_hierarchy.hpp>
#include <memsub/gpu/l2.hpp>
#include <memsub/linesize/adaptive_line_cache.hpp>
#include <memsub/linesize/alsi.hpp>

#include "crafted_stream.hpp"

using namespace memsub;

namespace {

memsub::access load(std::uint64_t address, std::uint32_t requester = 0) {
    memsub::access a;
    a.address = byte_address{address};
    a.size = 4;
    a.requester = requester;
    return a;
}

} // namespace

TEST_CASE("Table 3.1 L2: 768 KB in six banks of 64 sets x 16 ways, every set reachable") {
    auto h = gpu::make_l1_l2_hierarchy<gpu::baseline_l1>(1);
    CHECK(h.instances<1>() == 6);
    constexpr std::uint64_t lines = 768 * 1024 / 128;
    for (std::uint64_t l = 0; l < lines; ++l) CHECK(h.access(load(l * 128)).from_memory());
    // The whole 768 KB fits: a second pass misses the 16 KB L1 and hits the L2 every time.
    // (Banks interleaved on lines, `line mod 6`, reach only half of each bank's sets, 384 KB:
    // measured, this LRU sweep then gets 0 of its 6,144 lines from the L2.)
    std::uint64_t from_l2 = 0;
    for (std::uint64_t l = 0; l < lines; ++l) from_l2 += h.access(load(l * 128)).served_by == 1;
    CHECK(from_l2 == lines);
    for (std::uint32_t b = 0; b < 6; ++b) CHECK(h.stats<1>(b).fills == lines / 6);
}

TEST_CASE("private L1s per SM share the L2: another SM's miss is served by the L2") {
    auto h = gpu::make_l1_l2_hierarchy<gpu::baseline_l1>(gpu::table_3_1_sms);
    CHECK(h.instances<0>() == 15);
    CHECK(h.access(load(0x4000, 0)).from_memory());
    CHECK(h.access(load(0x4000, 0)).served_by == 0);
    const auto r = h.access(load(0x4000, 7));
    CHECK(r.served_by == 1);
    CHECK(r.levels[0].instance == 7);
}

TEST_CASE("ID-Cache as the L1 level behaves as the standalone ID-Cache, the L2 catches the rest") {
    // The L1 level is ID-Cache itself: its line-size predictor is part of the cache, so the
    // hierarchy's plain access carries Algorithm 5's line size.
    auto h = gpu::make_l1_l2_hierarchy<gpu::id_cache>(1);
    auto hb = gpu::make_l1_l2_hierarchy<gpu::baseline_l1>(1);
    gpu::id_cache alone;
    std::uint64_t mismatches = 0, l2_served_base = 0, memory_base = 0, memory_idc = 0;
    crafted::run_rounds(6, [&](const memsub::access& a, int round) {
        const auto r = h.access(a);
        const auto s = alone.access(a);
        mismatches += r.levels[0].hit != s.hit || r.levels[0].bypass != s.bypass ||
                      r.levels[0].blocks_filled != s.blocks_filled;
        const auto b = hb.access(a);
        if (round >= 2) {
            l2_served_base += b.served_by == 1;
            memory_base += b.from_memory();
            memory_idc += r.from_memory();
        }
    });
    CHECK(mismatches == 0);
    CHECK(h.stats<0>(0).hits() == alone.stats().hits());
    CHECK(h.stats<0>(0).bytes_fetched == alone.stats().bytes_fetched);
    CHECK(h.stats<0>(0).bypasses(cache::bypass_reason::predictor) > 0);
    // Baseline: A's first read each round misses the L1 and is served by the L2 (A is 8 KB, hot
    // in the 768 KB L2); only the fresh gathers go to memory. ID-Cache keeps A in the L1.
    CHECK(l2_served_base == 4 * 64);
    CHECK(memory_base == 4 * 32 * 32);
    CHECK(memory_idc == memory_base);
}
