// One L1 access per coalesced line request (gpu::coalescer::for_each_request), as GPGPU-Sim's
// sectored L1 looks a line request up once with its sector mask: two pieces of one line in one
// warp instruction are one access, never a hit on each other, on the baseline L1 (which ignores
// the mask), on a 32 B-segment L1 (which requests exactly the masked sectors) and for ID-Cache's
// PC+Div predictor (which must not train on such a hit). Worked examples by hand, then the
// banded SpMV whose per-sector-run hit rate was ~47 % on the baseline L1.
#include <doctest/doctest.h>

#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/linesize/static_size.hpp>
#include <memsub/profile/l1_statistics.hpp>
#include <memsub/workload/simt/csr_inputs.hpp>
#include <memsub/workload/simt/gto_scheduler.hpp>
#include <memsub/workload/simt/spmv.hpp>

#include <array>
#include <cstdint>
#include <vector>

using namespace memsub;

namespace {

constexpr std::uint64_t line_base = 0x10000; // set 0 of every L1 below

/// The accesses an L1 sees for one warp instruction in which lane 0 reads byte 0 and lane 1
/// byte 96 of one 128 B line (sectors 0 and 3), with PC `pc`.
std::vector<memsub::access> two_pieces(std::uint64_t pc = 0x40, std::uint64_t base = line_base) {
    const gpu::coalescer c;
    std::array<std::uint64_t, gpu::warp_size> lanes{};
    lanes[0] = base;
    lanes[1] = base + 96;
    const auto w = c.coalesce(lanes, 0b11u, 1);
    memsub::access proto;
    proto.pc = pc;
    proto.kind = access_kind::load;
    std::vector<memsub::access> out;
    c.for_each_request(w, proto, [&](const memsub::access& a) { out.push_back(a); });
    return out;
}

template <class Cache>
void run(Cache& cache, profile::l1_statistics& stats, const std::vector<memsub::access>& accesses) {
    for (const auto& a : accesses) stats.record(a, cache.access(a));
}

} // namespace

TEST_CASE("one access: lane 0 reads byte 0 and lane 1 byte 96 of one line") {
    const auto accesses = two_pieces();
    REQUIRE(accesses.size() == 1);
    CHECK(accesses[0].address == byte_address{line_base});
    CHECK(accesses[0].size == 97);
    CHECK(accesses[0].sector_mask == 0b1001);
    CHECK(accesses[0].divergence == 1);
}

TEST_CASE("one access on the baseline L1: one miss, the whole 128 B line, then a temporal hit") {
    gpu::baseline_l1 cache;
    profile::l1_statistics stats;
    run(cache, stats, two_pieces());
    auto c = stats.totals();
    CHECK(c.accesses == 1);
    CHECK(c.full_misses == 1);
    CHECK(c.hits() == 0);
    CHECK(c.bytes_fetched == 128);
    run(cache, stats, two_pieces()); // the same bytes again: every one touched before
    c = stats.totals();
    CHECK(c.accesses == 2);
    CHECK(c.temporal_hits == 1);
    // Utilisation counts the masked sectors only: sectors 0 and 3 of 4 -> "25-50 %" (the span
    // 0..96 would have covered all four).
    cache.flush([&](const memsub::evicted_block& b) { stats.record_departure(b); });
    CHECK(stats.totals().utilisation == std::array<std::uint64_t, 4>{0, 1, 0, 0});
}

TEST_CASE("one access on the baseline L1: the hit split reads the mask's bytes") {
    gpu::baseline_l1 cache;
    profile::l1_statistics stats;
    run(cache, stats, two_pieces()); // requests bytes 0-96 inside sectors 0 and 3: 0-31 and 96
    // Bytes 32-64 (sectors 1 and 2) lie inside the first request's span but not in its
    // sectors: never touched, so a spatial hit (the span alone would make it temporal).
    memsub::access middle;
    middle.address = byte_address{line_base + 32};
    middle.size = 33;
    middle.sector_mask = 0b0110;
    stats.record(middle, cache.access(middle));
    CHECK(stats.totals().spatial_hits == 1);
    CHECK(stats.totals().mixed_hits == 0);
}

TEST_CASE("one access on the baseline L1: a bypassed read moves its masked sectors") {
    gpu::baseline_l1 cache;
    profile::l1_statistics stats;
    auto accesses = two_pieces();
    accesses[0].hints.no_allocate = true;
    run(cache, stats, accesses);
    const auto c = stats.totals();
    CHECK(c.accesses == 1);
    CHECK(c.bypassed_misses == 1);
    CHECK(c.bytes_fetched == 2 * 32); // sectors 0 and 3, not the four the span crosses
}

TEST_CASE("one access on a 32 B-segment L1: one miss that fetches the two sectors") {
    gpu::variable_line_l1<linesize::static_size<32>> cache;
    profile::l1_statistics stats;
    run(cache, stats, two_pieces());
    auto c = stats.totals();
    CHECK(c.accesses == 1);
    CHECK(c.full_misses == 1);
    CHECK(c.hits() == 0);
    CHECK(c.bytes_fetched == 64); // as the two sector runs fetched
    CHECK(c.blocks_inserted == 2);
    CHECK(cache.resident_segments(line_address{line_base >> 7}) == 0b1001);
    run(cache, stats, two_pieces());
    CHECK(stats.totals().temporal_hits == 1);
}

TEST_CASE("one access on ID-Cache: the PC+Div predictor sees no hit") {
    // ALSI inserts the whole line for d = 1; a second sector run of the same request would hit
    // it and raise the PC's counter (Algorithm 3, HIT).
    gpu::id_cache cache;
    profile::l1_statistics stats;
    const auto accesses = two_pieces(0x40);
    const std::uint32_t before = cache.bypass_predictor().counter(accesses[0]);
    run(cache, stats, accesses);
    CHECK(stats.totals().accesses == 1);
    CHECK(stats.totals().hits() == 0);
    CHECK(cache.bypass_predictor().counter(accesses[0]) == before);
    // A real reuse (the next warp instruction) does train it.
    run(cache, stats, accesses);
    CHECK(stats.totals().hits() == 1);
    CHECK(cache.bypass_predictor().counter(accesses[0]) == before + 1);
}

TEST_CASE("banded SpMV (half-bandwidth 8) on the baseline L1: ~3.7 % hits per line request") {
    // 32 Ki rows, 15 SMs. Each row's 17 non-zeros span at most two lines of x and of the column
    // indices, so most lines a warp touches come back only once the L1 has lost them; counted
    // per sector run the same stream showed ~47 % hits, nearly all of them a request's second
    // run finding the line its first run had just filled.
    const auto m =
        workload::simt::make_banded_matrix({.rows = 32 * 1024, .half_bandwidth = 8, .seed = 1});
    workload::simt::spmv_kernel kernel(m);
    workload::simt::gto_scheduler<workload::simt::spmv_kernel> scheduler(
        kernel, workload::simt::gto_params{.sms = 15});
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    std::vector<gpu::baseline_l1> l1(15);
    std::vector<profile::l1_statistics> stats(15);
    std::uint64_t line_requests = 0;
    memsub::warp_instruction w;
    while (scheduler.next(w)) {
        coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        line_requests += lines.count;
        memsub::access proto;
        proto.pc = w.pc;
        proto.kind = w.kind;
        proto.requester = w.sm;
        coalescer.for_each_request(lines, proto, [&](const memsub::access& a) {
            stats[w.sm].record(a, l1[w.sm].access(a));
        });
    }
    std::uint64_t accesses = 0, hits = 0;
    for (const auto& s : stats) {
        accesses += s.totals().accesses;
        hits += s.totals().hits();
    }
    CHECK(accesses == line_requests);
    const double hit_rate = static_cast<double>(hits) / static_cast<double>(accesses);
    INFO("hit rate per line request: " << 100 * hit_rate << " %");
    CHECK(hit_rate > 0.027);
    CHECK(hit_rate < 0.047);
}
