// The multi-module GPU's memory side (gpu/mcm_memory_side.hpp) on hand-computed cases: two
// modules on a ring (one hop apart), fine-grain interleave on 128 B lines (line 0 homed in
// module 0, line 1 in module 1), the default latencies: to the L2 slice 40, L2 hit 120, 32 per
// hop each way, L1.5 lookup 10 and hit 120, flat DRAM 100 cycles.
#include <doctest/doctest.h>

#include <memsub/gpu/mcm_memory_side.hpp>
#include <memsub/placement/fine_grain_interleave.hpp>

#include <cstdint>
#include <vector>

namespace {

namespace mcm = memsub::gpu::mcm;
using placement = memsub::placement::fine_grain_interleave;
using side_type = mcm::memory_side<placement>;

constexpr placement::params two_partitions{.partitions = 2, .granule_bytes = mcm::line_bytes};

memsub::access load(std::uint64_t line) {
    return memsub::access{.address = memsub::byte_address{line * mcm::line_bytes},
                          .kind = memsub::access_kind::load,
                          .size = mcm::line_bytes};
}

struct completion {
    std::uint32_t warp;
    std::uint64_t ready;
};

std::vector<completion> drain(side_type& side, std::uint64_t cycle) {
    std::vector<completion> done;
    side.advance_to(cycle, [&](memsub::warp_id w, std::uint64_t ready) {
        done.push_back({w.value, ready});
    });
    return done;
}

} // namespace

TEST_CASE("mcm memory side: DRAM fill, then local and remote L2 hits at the hand-computed cycles") {
    const mcm::machine two_modules{.modules = 2, .sms_per_module = 8};
    side_type side(two_modules, two_partitions, /*with_l15=*/false, mcm::timing_mode::memory);

    // Module 0 misses line 0 in its own slice at t = 0 and again at t = 1: one DRAM read (the
    // second waits on the first's fill). The read reaches the slice at 40, DRAM is done at 140,
    // and the data is back at the SM 80 cycles later (the rest of the 120-cycle L2 hit).
    CHECK(side.request(0, load(0), mcm::line_bytes, 0, {7}) == memsub::never);
    CHECK(side.request(0, load(0), mcm::line_bytes, 1, {8}) == memsub::never);
    const auto done = drain(side, 10'000);
    REQUIRE(done.size() == 2);
    CHECK(done[0].warp == 7);
    CHECK(done[0].ready == 220);
    CHECK(done[1].warp == 8);
    CHECK(done[1].ready == 220);

    // Now resident: a local hit is back after the L2 hit latency; module 1's remote hit adds a
    // hop for the request and a hop for the reply.
    CHECK(side.request(0, load(0), mcm::line_bytes, 1000) == 1000 + 120);
    CHECK(side.request(1, load(0), mcm::line_bytes, 2000) == 2000 + 32 + 120 + 32);

    const auto r = side.finish();
    CHECK(r.local_requests == 3);
    CHECK(r.remote_requests == 1);
    CHECK(r.dram_read_bytes == mcm::line_bytes);
}

TEST_CASE("mcm memory side: a remote-only L1.5 serves the second remote read") {
    const mcm::machine two_modules{.modules = 2, .sms_per_module = 8};
    side_type side(two_modules, two_partitions, /*with_l15=*/true, mcm::timing_mode::memory);
    // Fill line 1 in module 1's slice (its home), then module 0 reads it twice.
    CHECK(side.request(1, load(1), mcm::line_bytes, 0) == memsub::never);
    REQUIRE(drain(side, 10'000).size() == 1);
    // First remote read: L1.5 lookup 10, a hop, the slice hit, a hop back.
    CHECK(side.request(0, load(1), mcm::line_bytes, 2000) == 2000 + 10 + 32 + 120 + 32);
    // Second: the L1.5 (in module 0) has it: lookup, then its hit latency.
    CHECK(side.request(0, load(1), mcm::line_bytes, 3000) == 3000 + 10 + 120);
    const auto r = side.finish();
    CHECK(r.l15_lookups == 2);
    CHECK(r.l15_hits == 1);
    CHECK(r.ring_requests == 1);
}

TEST_CASE("mcm memory side: untimed traffic counts (inter-module bytes are bytes x hops)") {
    const mcm::machine two_modules{.modules = 2, .sms_per_module = 8};
    side_type side(two_modules, two_partitions, /*with_l15=*/false);
    CHECK(side.request(0, load(0), mcm::line_bytes) == 0); // local
    CHECK(side.request(0, load(1), mcm::line_bytes) == 0); // remote: 128 B over one hop
    CHECK(side.request(1, load(1), mcm::line_bytes) == 0); // local
    side.end_launch(100, 1);
    const auto r = side.finish();
    CHECK(r.local_requests == 2);
    CHECK(r.remote_requests == 1);
    CHECK(r.inter_module_bytes == mcm::line_bytes);
    CHECK(r.launches == 1);
}
