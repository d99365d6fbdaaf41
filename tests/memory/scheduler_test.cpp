// FCFS / FR-FCFS behaviour, the starvation cap, write drain, row policies, back-pressure and the
// controller protocol (idle skipping, drain into a buffer).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>

#include "helpers.hpp"

using memsub::byte_address;
using namespace memsub::memory;
using memtest::read_at;
using memtest::write_at;

namespace {
dram_timing ddr3() {
    dram_timing t = presets::ddr3_1600_remap;
    t.tREFI = 0; // keep the hand-computed cycles free of refresh
    t.tRFC = 0;
    return t;
}
const bit_field_mapping& ddr3_map() {
    static const bit_field_mapping m = bit_field_mapping::from_order("rorabachco", ddr3());
    return m;
}
byte_address at(std::uint32_t bank, std::uint32_t row, std::uint32_t col = 0) {
    return ddr3_map().unmap({.bank = bank, .row = row, .column = col});
}
std::vector<std::uint64_t> service_order(std::vector<completion> v) {
    std::sort(v.begin(), v.end(), [](const completion& a, const completion& b) {
        return a.selected_cycle < b.selected_cycle;
    });
    std::vector<std::uint64_t> ids;
    for (const auto& c : v) ids.push_back(c.id);
    return ids;
}
} // namespace

TEST_CASE("FR-FCFS serves row hits ahead of older misses; FCFS keeps arrival order") {
    // Row 0 of bank 0 is opened first; then a conflict (row 1) arrives before two row-0 hits.
    // Request 9 (row 2, a conflict) keeps the bank busy until its column command at 521; a
    // conflict (row 1) then arrives before two hits to row 2.
    const std::vector<mem_request> busy{read_at(0, at(0, 0), 0), read_at(9, at(0, 2), 499),
                                        read_at(1, at(0, 1), 500), read_at(2, at(0, 2, 1), 501),
                                        read_at(3, at(0, 2, 2), 502)};
    fr_fcfs_controller<> fr(ddr3_map(), {.timing = ddr3()});
    fcfs_controller<> fc(ddr3_map(), {.timing = ddr3()});
    const auto fr_out = memtest::run(fr, busy);
    const auto fc_out = memtest::run(fc, busy);
    CHECK(service_order(fr_out) == std::vector<std::uint64_t>{0, 9, 2, 3, 1});
    CHECK(service_order(fc_out) == std::vector<std::uint64_t>{0, 9, 1, 2, 3});
    CHECK(memtest::by_id(fr_out, 2).kind == row_class::hit);
    CHECK(memtest::by_id(fr_out, 3).kind == row_class::hit);
    CHECK(memtest::by_id(fr_out, 1).kind == row_class::conflict);
    CHECK(memtest::by_id(fc_out, 1).kind == row_class::conflict);
    CHECK(memtest::by_id(fc_out, 2).kind == row_class::conflict);
    CHECK(memtest::by_id(fc_out, 3).kind == row_class::hit);
    CHECK(fr.stats().row_hit_rate() > fc.stats().row_hit_rate());
}

TEST_CASE("FR-FCFS beats FCFS's row-hit rate on interleaved streams") {
    // Four streams, each walking its own row of the same bank, interleaved request by request
    // (the classic case FR-FCFS was made for), arriving faster than the bank serves them.
    std::vector<mem_request> reqs;
    std::uint64_t id = 0;
    for (std::uint32_t k = 0; k < 64; ++k)
        for (std::uint32_t s = 0; s < 4; ++s)
            reqs.push_back(read_at(id++, at(3, 10 + s, k % 128), k * 8 + s));
    fr_fcfs_controller<> fr(ddr3_map(), {.timing = ddr3()});
    fcfs_controller<> fc(ddr3_map(), {.timing = ddr3()});
    (void)memtest::run(fr, reqs);
    (void)memtest::run(fc, reqs);
    MESSAGE("row-hit rate FR-FCFS " << fr.stats().row_hit_rate() << " vs FCFS "
                                    << fc.stats().row_hit_rate());
    CHECK(fc.stats().row_hit_rate() < 0.05); // FCFS alternates rows: conflicts
    CHECK(fr.stats().row_hit_rate() > 0.75);
    CHECK(fr.stats().latency.mean() < fc.stats().latency.mean());
}

namespace {
/// An old conflict request followed by an endless stream of row hits to the open row.
std::uint64_t starved_wait(std::uint32_t cap) {
    fr_fcfs_controller<> c(ddr3_map(),
                           {.timing = ddr3(), .scheduler = {.max_row_hit_bypasses = cap}});
    // Row 3 is open; request A (row 0) makes the bank busy until ~121 and leaves row 0 open;
    // the old miss (row 7) arrives at 100, then row-0 hits every 2 cycles (faster than the
    // 4-cycle service, so hits are always queued).
    std::vector<mem_request> reqs{read_at(0, at(5, 3), 0), read_at(10'000, at(5, 0), 99),
                                  read_at(1, at(5, 7), 100)};
    for (std::uint64_t i = 0; i < 2000; ++i)
        reqs.push_back(read_at(2 + i, at(5, 0, static_cast<std::uint32_t>(i % 128)), 101 + i * 2));
    const auto out = memtest::run(c, reqs);
    return memtest::by_id(out, 1).queueing_delay();
}
} // namespace

TEST_CASE("the bypass cap bounds an old request's wait (no starvation)") {
    const std::uint64_t capped = starved_wait(4);
    const std::uint64_t uncapped = starved_wait(1u << 20);
    MESSAGE("queueing delay of the old miss: cap 4 -> " << capped << " cycles, no cap -> "
                                                        << uncapped);
    // With cap 4 at most 4 hits (each tCCD = 4 cycles apart) pass it: it waits for the busy
    // bank (≤ tRP + tRCD = 22 cycles) plus ≤ 4·tCCD.
    CHECK(capped <= 22 + 4 * 4 + 4);
    // Without a cap it waits for the whole hit stream (2000 hits, one per 4 cycles).
    CHECK(uncapped >= 7000);
}

namespace {
/// A scheduler view over a hand-made queue (index 0 oldest). With `timed`, it also reports
/// when each row hit's column command could issue (`issue_at`), as dram_controller's does.
struct fake_queue {
    struct entry {
        std::uint32_t bank;
        bool hit;
        std::uint64_t issue_at = 0;
    };
    std::vector<entry> q;
    std::uint64_t t = 100;
    void erase(std::size_t i) { q.erase(q.begin() + static_cast<std::ptrdiff_t>(i)); }
};
struct plain_view {
    const fake_queue* f;
    std::uint32_t bank(std::size_t i) const noexcept { return f->q[i].bank; }
    bool hit(std::size_t i) const noexcept { return f->q[i].hit; }
    bool ready(std::size_t) const noexcept { return true; }
    std::uint64_t ready_at(std::size_t) const noexcept { return f->t; }
};
struct timed_view : plain_view {
    std::uint64_t now() const noexcept { return f->t; }
    std::uint64_t issue_at(std::size_t i) const noexcept { return f->q[i].issue_at; }
};
/// Selects, removes and returns the chosen entry's index (or selection::none).
template <class View>
std::size_t step(fr_fcfs& s, fake_queue& f) {
    const View v{{&f}};
    const selection sel = s.select(f.q.size(), v);
    if (sel.index == selection::none) return sel.index;
    s.on_selected(v, sel.index);
    f.erase(sel.index);
    return sel.index;
}
} // namespace

TEST_CASE("the bypass counter reaches the cap exactly, then the oldest request goes") {
    // Bank 0: an old miss (index 0) followed by five row hits; cap 2.
    fr_fcfs s(fr_fcfs::params{.max_row_hit_bypasses = 2}, 4);
    fake_queue f;
    f.q = {{0, false}, {0, true}, {0, true}, {0, true}, {0, true}, {0, true}};
    CHECK(step<plain_view>(s, f) == 1); // a hit bypasses the miss
    CHECK(s.bypasses(0) == 1);
    CHECK(step<plain_view>(s, f) == 1);
    CHECK(s.bypasses(0) == 2);          // the cap
    CHECK(step<plain_view>(s, f) == 0); // the miss, although hits are queued
    CHECK(s.bypasses(0) == 0);          // reset
    CHECK(f.q.size() == 3);
    // With the miss gone, the remaining hits have no older request: no bypass counted.
    CHECK(step<plain_view>(s, f) == 0);
    CHECK(s.bypasses(0) == 0);
    // Cap 0 is plain FCFS per bank: the miss goes first.
    fr_fcfs fc(fr_fcfs::params{.max_row_hit_bypasses = 0}, 4);
    fake_queue g;
    g.q = {{1, false}, {1, true}};
    CHECK(step<plain_view>(fc, g) == 0);
    // Other banks are unaffected by bank 0's counter: a hit to bank 2 never counts.
    fake_queue h;
    h.q = {{0, false}, {2, true}};
    fr_fcfs s2(fr_fcfs::params{.max_row_hit_bypasses = 1}, 4);
    CHECK(step<plain_view>(s2, h) == 1);
    CHECK(s2.bypasses(2) == 0);
    CHECK(s2.bypasses(0) == 0);
}

TEST_CASE("first-ready FR-FCFS: a hit issuing now goes first; a waiting hit holds its bank's "
          "precharge until the cap") {
    fr_fcfs s(fr_fcfs::params{.max_row_hit_bypasses = 2, .hit_lookahead_cycles = 0}, 4);
    fake_queue f;
    // Bank 0 has an old miss and hits that cannot issue before 104; bank 1 a hit issuing now.
    f.q = {{0, false}, {0, true, 104}, {1, true, 100}, {0, true, 104}};
    CHECK(step<timed_view>(s, f) == 2); // the hit that issues now, though younger
    // Bank 0's miss would close the row its hits wait for: nothing is selected until 104.
    const timed_view v{{&f}};
    const selection none = s.select(f.q.size(), v);
    CHECK(none.index == selection::none);
    CHECK(none.wake == 104);
    f.t = 104;
    CHECK(step<timed_view>(s, f) == 1); // bypass 1
    CHECK(step<timed_view>(s, f) == 1); // bypass 2 = cap
    f.q.push_back({0, true, 104});
    CHECK(step<timed_view>(s, f) == 0); // the cap lets the miss precharge
    // Within the look-ahead a hit may be placed ahead of the bus.
    fr_fcfs la(fr_fcfs::params{.max_row_hit_bypasses = 2, .hit_lookahead_cycles = 8}, 4);
    fake_queue g;
    g.t = 100;
    g.q = {{3, true, 107}, {2, false}};
    CHECK(step<timed_view>(la, g) == 0);
}

TEST_CASE("round-robin FR-FCFS (DRAMSim3's bank queues): ready hits go bank by bank from the "
          "one after the last selected, not oldest first") {
    fr_fcfs s(fr_fcfs::params{.hit_lookahead_cycles = 0, .round_robin_hits = true}, 4);
    fake_queue f;
    // Oldest first would serve bank 2, 2, 1, 3; round-robin from bank 0 on serves bank 1, then
    // bank 2 (the one after 1), then bank 3, then bank 2 again (wrapping past 0 and 1).
    f.q = {{2, true, 100}, {2, true, 100}, {1, true, 100}, {3, true, 100}};
    CHECK(step<timed_view>(s, f) == 2); // bank 1
    CHECK(step<timed_view>(s, f) == 0); // bank 2 (its oldest hit)
    CHECK(step<timed_view>(s, f) == 1); // bank 3
    CHECK(step<timed_view>(s, f) == 0); // bank 2
    // Only ready hits take part: a hit that cannot issue yet is skipped, and a miss still
    // waits for the hits (first-ready).
    fake_queue g;
    g.q = {{1, false}, {3, true, 105}, {0, true, 100}};
    fr_fcfs r(fr_fcfs::params{.hit_lookahead_cycles = 0, .round_robin_hits = true}, 4);
    CHECK(step<timed_view>(r, g) == 2); // bank 0's hit issues now; bank 3's at 105
    // The default is oldest first.
    fr_fcfs o(fr_fcfs::params{.hit_lookahead_cycles = 0}, 4);
    fake_queue h;
    h.q = {{2, true, 100}, {1, true, 100}};
    CHECK(step<timed_view>(o, h) == 0);
}

TEST_CASE("round-robin FR-FCFS: with round_robin_misses the misses go bank by bank too") {
    // Each bank's oldest miss is a candidate; the first bank from the one after the last
    // selected goes (DRAMSim3's round-robin covers its ACTs too), not the oldest miss.
    fr_fcfs s(fr_fcfs::params{.hit_lookahead_cycles = 0,
                              .round_robin_hits = true,
                              .round_robin_misses = true},
              4);
    fake_queue f;
    f.q = {{3, false}, {2, false}, {2, false}, {1, false}};
    CHECK(step<timed_view>(s, f) == 3); // bank 1 (from bank 0 on)
    CHECK(step<timed_view>(s, f) == 1); // bank 2, its oldest miss
    CHECK(step<timed_view>(s, f) == 0); // bank 3
    CHECK(step<timed_view>(s, f) == 0); // bank 2 (wrapping)
    // A bank whose open row has a hit waiting is still not closed for its miss.
    fake_queue g;
    g.q = {{1, false}, {1, true, 105}, {2, false}};
    fr_fcfs r(fr_fcfs::params{.hit_lookahead_cycles = 0,
                              .round_robin_hits = true,
                              .round_robin_misses = true},
              4);
    CHECK(step<timed_view>(r, g) == 2); // bank 2's miss, not bank 1's
    // Without it: the oldest miss.
    fr_fcfs o(fr_fcfs::params{.hit_lookahead_cycles = 0, .round_robin_hits = true}, 4);
    fake_queue h;
    h.q = {{3, false}, {1, false}};
    CHECK(step<timed_view>(o, h) == 0);
}

TEST_CASE("writes drain between the watermarks; reads go first otherwise") {
    // 8-entry write queue: drain starts at 80 % (7 entries) and stops at 20 % (1 entry), with
    // the drain running to the low watermark (not just the writes queued at its start).
    const fr_fcfs_controller<>::params wm{.timing = ddr3(),
                                          .read_queue = 32,
                                          .write_queue = 8,
                                          .write_high_watermark_pct = 80,
                                          .write_low_watermark_pct = 20,
                                          .drain_queued_at_start = false};
    fr_fcfs_controller<> c(ddr3_map(), wm);
    std::vector<mem_request> reqs;
    for (std::uint64_t i = 0; i < 6; ++i)
        reqs.push_back(write_at(100 + i, at(static_cast<std::uint32_t>(i), 1), 0));
    for (std::uint64_t i = 0; i < 6; ++i)
        reqs.push_back(read_at(i, at(static_cast<std::uint32_t>(i), 2), 0));
    auto out = memtest::run(c, reqs);
    // Below the high watermark every read is selected before any write.
    std::uint64_t last_read = 0, first_write = ~0ull;
    for (const auto& x : out)
        if (x.is_write)
            first_write = std::min(first_write, x.selected_cycle);
        else
            last_read = std::max(last_read, x.selected_cycle);
    CHECK(last_read < first_write);

    // Above it: 7 writes trigger a drain that runs until ≤ 1 write is left, ahead of reads.
    fr_fcfs_controller<> d(ddr3_map(), wm);
    std::vector<mem_request> r2;
    for (std::uint64_t i = 0; i < 7; ++i)
        r2.push_back(write_at(100 + i, at(static_cast<std::uint32_t>(i), 1), 0));
    for (std::uint64_t i = 0; i < 4; ++i)
        r2.push_back(read_at(i, at(static_cast<std::uint32_t>(i), 2), 0));
    out = memtest::run(d, r2);
    const auto order = service_order(out);
    // The first six services are writes (7 → 1 left) although the reads arrived with them.
    for (std::size_t i = 0; i < 6; ++i) CHECK(order[i] >= 100);
    std::size_t reads_before_last_write = 0;
    for (std::size_t i = 6; i < order.size(); ++i) reads_before_last_write += order[i] < 100;
    CHECK(reads_before_last_write == 4);
}

TEST_CASE("closed page: every access finds its bank empty; timeout-adaptive learns") {
    std::vector<mem_request> reqs;
    for (std::uint64_t i = 0; i < 50; ++i)
        reqs.push_back(read_at(i, at(0, 0, static_cast<std::uint32_t>(i)), i * 100));
    fr_fcfs_controller<closed_page> cp(ddr3_map(), {.timing = ddr3()});
    (void)memtest::run(cp, reqs);
    CHECK(cp.stats().row_empties() == 50);
    fr_fcfs_controller<open_page> op(ddr3_map(), {.timing = ddr3()});
    (void)memtest::run(op, reqs);
    CHECK(op.stats().row_hits() == 49);

    // Same-row accesses 100 cycles apart: the 64-cycle timer closes too early at first
    // (premature closes), doubles to 128 and then every access hits.
    fr_fcfs_controller<timeout_adaptive> ta(ddr3_map(), {.timing = ddr3()});
    const auto out = memtest::run(ta, reqs);
    CHECK(ta.row_policy().timeout(0) == 128);
    CHECK(memtest::by_id(out, 1).kind == row_class::empty); // closed at 64 < 100
    CHECK(memtest::by_id(out, 49).kind == row_class::hit);
    CHECK(ta.stats().row_hits() == 48);
    // Alternating rows: conflicts halve the timeout down to the minimum.
    std::vector<mem_request> alt;
    for (std::uint64_t i = 0; i < 20; ++i)
        alt.push_back(read_at(i, at(1, static_cast<std::uint32_t>(i % 2)), i * 40));
    fr_fcfs_controller<timeout_adaptive> tb(ddr3_map(), {.timing = ddr3()});
    (void)memtest::run(tb, alt);
    CHECK(tb.row_policy().timeout(1) == 8); // bank 1 of channel 0
}

TEST_CASE("back-pressure, idle skipping and draining into a caller buffer") {
    fr_fcfs_controller<> c(ddr3_map(), {.timing = ddr3(), .read_queue = 4, .write_queue = 4});
    for (std::uint64_t i = 0; i < 4; ++i)
        CHECK(c.enqueue(read_at(i, at(0, static_cast<std::uint32_t>(i)), 0)) ==
              enqueue_result::accepted);
    CHECK_FALSE(c.can_accept(read_at(9, at(1, 0), 0)));
    CHECK(c.enqueue(read_at(9, at(1, 0), 0)) == enqueue_result::queue_full);
    CHECK(c.can_accept(write_at(10, at(1, 0), 0)));
    CHECK(c.stats().refused == 1);
    CHECK(c.pending() == 4);
    // Skip straight from event to event: far fewer calls than cycles.
    std::array<completion, 2> buf{};
    std::size_t got = 0, calls = 0;
    while (got < 4) {
        const std::uint64_t t = c.next_event_cycle();
        REQUIRE(t != memsub::never);
        c.advance_to(t);
        got += c.drain(std::span<completion>(buf));
        ++calls;
    }
    CHECK(calls <= 20);
    CHECK(c.pending() == 0);
    CHECK(c.next_event_cycle() == memsub::never);
    CHECK(c.now() >= 3 * (11 + 11 + 11) + 11);
}

TEST_CASE("a host that does not drain still moves forward: drainable completions are not "
          "events") {
    fr_fcfs_controller<> c(ddr3_map(), {.timing = ddr3()});
    for (std::uint64_t i = 0; i < 3; ++i)
        REQUIRE(c.enqueue(read_at(i, at(static_cast<std::uint32_t>(i), 1), 10 * i)) ==
                enqueue_result::accepted);
    std::uint64_t prev = 0;
    int steps = 0;
    for (std::uint64_t t; (t = c.next_event_cycle()) != memsub::never; ++steps) {
        REQUIRE(steps < 50);
        CHECK(t >= c.now());
        if (steps > 0) CHECK(t > prev); // strictly forward although nothing is drained
        c.advance_to(t);
        prev = t;
    }
    CHECK(c.pending() == 3); // all completed, none drained
    std::array<completion, 4> buf{};
    CHECK(c.drain(std::span<completion>(buf)) == 3);
}

TEST_CASE("HMC vault controller (Kim et al.): FR-FCFS, closed page, one 16-entry queue") {
    const dram_timing t = presets::hmc_vault;
    const auto m = bit_field_mapping::kim_multi_gpu(t);
    hmc_vault_controller<> c(m, hmc_vault_params());
    // Sixteen requests to one vault fill its queue, reads and writes together.
    const dram_address v0{.channel = 0, .bank = 0, .row = 1};
    std::uint64_t accepted = 0;
    for (std::uint64_t i = 0; i < 20; ++i) {
        dram_address d = v0;
        d.bank = static_cast<std::uint32_t>(i % 16);
        const mem_request r{.id = i, .address = m.unmap(d), .is_write = i % 2 == 1};
        accepted += c.enqueue(r) == enqueue_result::accepted;
    }
    CHECK(accepted == 16);
    // Closed page: a second access to the same row finds the bank precharged.
    hmc_vault_controller<> d(m, hmc_vault_params());
    const byte_address a = m.unmap({.channel = 3, .bank = 5, .row = 9});
    const auto out = memtest::run(d, {read_at(1, a, 100), read_at(2, a, 400)});
    for (const auto& x : out) {
        CHECK(x.kind == row_class::empty);
        CHECK(x.latency() == t.tRCD + t.tCL + t.burst_cycles());
    }
    CHECK_THROWS_AS(hmc_vault_controller<>(
                        m, {.timing = t, .read_queue = 4, .write_queue = 4, .queue_entries = 9}),
                    memsub::config_error);
}

TEST_CASE("bad controller configuration throws config_error") {
    CHECK_THROWS_AS(fr_fcfs_controller<>(ddr3_map(), {.timing = ddr3(), .read_queue = 0}),
                    memsub::config_error);
    CHECK_THROWS_AS(fr_fcfs_controller<>(ddr3_map(), {.timing = ddr3(),
                                                      .write_high_watermark_pct = 20,
                                                      .write_low_watermark_pct = 50}),
                    memsub::config_error);
    // A mapping that does not match the preset.
    CHECK_THROWS_AS(fr_fcfs_controller<>(ddr3_map(), {.timing = presets::ddr4_2400}),
                    memsub::config_error);
    CHECK_THROWS_AS(timeout_adaptive(timeout_adaptive::params{.initial_timeout_cycles = 2}, 4),
                    memsub::config_error);
}

TEST_CASE("request_queue keeps each bank's entry positions through pushes and erases") {
    memsub::xoshiro256ss rng(5);
    detail::request_queue q(48);
    REQUIRE(q.tracks_positions());
    for (int step = 0; step < 20000; ++step) {
        if (!q.full() && (q.empty() || rng() % 2 == 0)) {
            const auto b = static_cast<std::uint32_t>(rng() % 20);
            q.push_back({.visible_at = 0, .row = 0, .bank = b}, mem_request{});
        } else {
            q.erase(static_cast<std::size_t>(rng() % q.size()));
        }
        std::array<std::uint64_t, 64> want{};
        std::uint64_t banks = 0;
        for (std::size_t i = 0; i < q.size(); ++i) {
            want[q.key_at(i).bank] |= std::uint64_t{1} << i;
            banks |= std::uint64_t{1} << q.key_at(i).bank;
        }
        REQUIRE(q.banks() == banks);
        for (std::uint32_t b = 0; b < 20; ++b) REQUIRE(q.positions_of(b) == want[b]);
    }
    CHECK_FALSE(detail::request_queue(65).tracks_positions());
}
