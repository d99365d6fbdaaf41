// Golden fingerprints: seeded saturated runs of every controller kind, hashed over every
// completion (all fields, drain order) and the final statistics. The expected values were
// recorded with the command-history model of commit bf4d86e (as revised up to a83a76c), before
// the speed work that followed, which must leave every simulated cycle unchanged. A deliberate
// change of the model changes them: record the new values then (the failure prints them).
// Re-recorded for DRAMSim3-style write scheduling (write drains, forwarding, merging: the shared-
// queue controllers' defaults changed); the earlier policy, still available as parameters,
// keeps its old fingerprint below.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <span>

#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>

#include "helpers.hpp"

using namespace memsub::memory;

namespace {

struct fnv {
    std::uint64_t h = 0xcbf29ce484222325ull;
    void add(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xff;
            h *= 0x100000001b3ull;
        }
    }
};

enum class stream { random, sequential, mixed };

/// Keeps the queues full (as bench/memory.cpp does, with a 5-entry drain buffer so completions
/// also wait between calls) until `n` requests completed; every fifth request is a write.
template <class Controller>
std::uint64_t fingerprint(Controller& c, std::uint64_t n, stream kind, std::uint32_t requesters) {
    fnv h;
    memsub::xoshiro256ss rng(42);
    std::array<std::uint64_t, 4> pos{};
    auto address = [&](std::uint64_t k) {
        const std::uint64_t r = rng();
        switch (kind) {
        case stream::random:
            return memsub::byte_address{r & 0xffffffc0ull};
        case stream::sequential:
            return memsub::byte_address{k * 64};
        case stream::mixed:
            break;
        }
        // Four interleaved sequential streams that jump now and then, plus 1/8 random.
        if ((r & 7) == 0) return memsub::byte_address{(r >> 8) & 0xffffffc0ull};
        std::uint64_t& p = pos[k & 3];
        if (((r >> 3) & 63) == 0) p = (r >> 12) & 0xffffffc0ull;
        p += 64;
        return memsub::byte_address{p & 0xffffffffull};
    };
    std::array<completion, 5> buf{};
    std::uint64_t now = 0, id = 0, done = 0;
    bool may_enqueue = true;
    while (done < n) {
        for (; may_enqueue;) {
            const mem_request r{.id = id,
                                .address = address(id),
                                .is_write = id % 5 == 4,
                                .requester = static_cast<std::uint32_t>(id % requesters),
                                .arrival_cycle = now};
            if (c.enqueue(r) != enqueue_result::accepted) {
                may_enqueue = false;
                break;
            }
            ++id;
        }
        const std::uint64_t next = c.next_event_cycle();
        now = next > now ? next : now + 1;
        c.advance_to(now);
        for (std::size_t k; (k = c.drain(std::span<completion>(buf))) != 0;) {
            for (std::size_t i = 0; i < k; ++i) {
                const completion& x = buf[i];
                for (std::uint64_t v :
                     {x.id, x.address.value, std::uint64_t{x.is_write}, std::uint64_t{x.requester},
                      std::uint64_t{x.channel}, std::uint64_t{x.bank},
                      static_cast<std::uint64_t>(x.kind), x.arrival_cycle, x.selected_cycle,
                      x.data_cycle, x.done_cycle})
                    h.add(v);
            }
            done += k;
            may_enqueue = true;
        }
    }
    const controller_stats& s = c.stats();
    for (std::uint64_t v :
         {now, s.reads, s.writes, s.by_class[0], s.by_class[1], s.by_class[2], s.refused,
          s.refreshes, s.latency.percentile(0.5), s.latency.percentile(0.95),
          s.queueing.percentile(0.95), c.next_event_cycle()})
        h.add(v);
    return h.h;
}

constexpr std::uint64_t requests = 12000;

dram_timing ddr4_two_ranks() {
    dram_timing t = presets::ddr4_2400;
    t.ranks = 2;
    return t;
}
dram_timing hbm2_per_bank() {
    dram_timing t = presets::hbm2_4gb_x128;
    t.refresh = refresh_mode::per_bank;
    return t;
}

} // namespace

TEST_CASE("golden: FR-FCFS and FCFS on DDR4 (one and two ranks, row policies)") {
    const auto m = bit_field_mapping::from_order("rorabgbachco", presets::ddr4_2400);
    const auto m2 = bit_field_mapping::from_order("rorabgbachco", ddr4_two_ranks());
    SUBCASE("fr-fcfs random") {
        fr_fcfs_controller<> c(m, {.timing = presets::ddr4_2400});
        CHECK_EQ(fingerprint(c, requests, stream::random, 1), 0x8cf38f8b2da20f58ull);
    }
    SUBCASE("fr-fcfs random, the write policy before drains") {
        // write_when_no_read with 80 / 20 % watermarks, no idle drains, no forwarding or
        // merging reproduces the earlier model cycle for cycle (its recorded fingerprint).
        fr_fcfs_controller<> c(m, memtest::write_policy_before_drains(
                                      fr_fcfs_controller<>::params{.timing = presets::ddr4_2400}));
        CHECK_EQ(fingerprint(c, requests, stream::random, 1), 0xc9bfbdfa29f60b2dull);
    }
    SUBCASE("fr-fcfs sequential") {
        fr_fcfs_controller<> c(m, {.timing = presets::ddr4_2400});
        CHECK_EQ(fingerprint(c, requests, stream::sequential, 1), 0x6a44d292b00409ccull);
    }
    SUBCASE("fr-fcfs mixed, two ranks, timeout row policy") {
        fr_fcfs_controller<timeout_adaptive> c(m2, {.timing = ddr4_two_ranks()});
        CHECK_EQ(fingerprint(c, requests, stream::mixed, 1), 0xbe9782f8ed08d60dull);
    }
    SUBCASE("fcfs random") {
        fcfs_controller<> c(m, {.timing = presets::ddr4_2400});
        CHECK_EQ(fingerprint(c, requests, stream::random, 1), 0xcaa0173e3c233fcaull);
    }
    SUBCASE("fcfs mixed, closed page") {
        fcfs_controller<closed_page> c(m, {.timing = presets::ddr4_2400});
        CHECK_EQ(fingerprint(c, requests, stream::mixed, 1), 0xddcbb95a6440dfeaull);
    }
}

TEST_CASE("golden: HBM2 (FR-FCFS per-bank refresh, partitioned) and the HMC vault") {
    const auto m = bit_field_mapping::from_order("rorabgbachco", presets::hbm2_4gb_x128);
    SUBCASE("fr-fcfs per-bank refresh mixed") {
        fr_fcfs_controller<> c(m, {.timing = hbm2_per_bank()});
        CHECK_EQ(fingerprint(c, requests, stream::mixed, 16), 0x8f1cb9a3a0f49922ull);
    }
    SUBCASE("partitioned random") {
        partitioned_controller<> c(m, {.timing = presets::hbm2_4gb_x128, .requesters = 16});
        CHECK_EQ(fingerprint(c, requests, stream::random, 16), 0x2962270a6721869eull);
    }
    SUBCASE("partitioned random, the write policy before drains") {
        partitioned_controller<> c(m, {.timing = presets::hbm2_4gb_x128,
                                       .requesters = 16,
                                       .write_high_watermark_pct = 80,
                                       .write_low_watermark_pct = 20,
                                       .write_idle_drain_min = 0,
                                       .forward_reads = false,
                                       .merge_writes = false,
                                       .drain_on_full_fifo = false,
                                       .write_when_no_read = true});
        CHECK_EQ(fingerprint(c, requests, stream::random, 16), 0x7bdbfe35af59cb79ull);
    }
    SUBCASE("hmc vault mixed") {
        dram_timing t = presets::hmc_vault;
        t.channels = 4;
        const auto mv = bit_field_mapping::from_order("robachco", t);
        hmc_vault_controller<> c(mv, hmc_vault_params(t));
        CHECK_EQ(fingerprint(c, requests, stream::mixed, 1), 0xd6175ad84381e1baull);
    }
}
