// Write scheduling of the shared-queue controller: drains with hysteresis and their
// rules (DRAMSim3's full-queue and idle drains of the writes queued at the start, the idle
// flush, gem5's min_writes_per_switch, the R→W hazard), read-after-write forwarding, write
// merging, DRAMSim3's per-bank command queues, and the counters that show them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <memsub/memory/all.hpp>

#include "helpers.hpp"

using memsub::byte_address;
using namespace memsub::memory;
using memtest::read_at;
using memtest::write_at;

namespace {

dram_timing ddr4() {
    dram_timing t = presets::ddr4_2400;
    t.tREFI = 0; // no refresh: hand-checked cycles
    t.tRFC = 0;
    return t;
}
const bit_field_mapping& map() {
    static const bit_field_mapping m = bit_field_mapping::from_order("rochrababgco", ddr4());
    return m;
}
/// Flat bank b (0..15) of the one rank, row r, column c.
byte_address at(std::uint32_t b, std::uint32_t r, std::uint32_t c = 0) {
    return map().unmap({.bank_group = b % 4, .bank = b / 4, .row = r, .column = c});
}
const completion& by_id(const std::vector<completion>& v, std::uint64_t id) {
    return memtest::by_id(v, id);
}

} // namespace

TEST_CASE("a few writes wait while reads flow: no write whenever no read is selectable") {
    // Four writes, then a read every 20 cycles for 2000 cycles (the read queue empties between
    // reads but never for write_idle_flush_cycles = 256): without the wait bound the writes go
    // after the last read, in one batch, one turnaround in all; with it (1024 cycles) they go
    // at 1024. The earlier policy served them at once.
    std::vector<mem_request> reqs;
    for (std::uint32_t i = 0; i < 4; ++i) reqs.push_back(write_at(1000 + i, at(i, 7), 0));
    for (std::uint32_t k = 0; k < 100; ++k) reqs.push_back(read_at(k, at(k % 16, 3 + k), 20 * k));
    std::sort(reqs.begin(), reqs.end(), [](const mem_request& a, const mem_request& b) {
        return a.arrival_cycle < b.arrival_cycle;
    });
    fr_fcfs_controller<> c(map(), {.timing = ddr4(), .write_max_wait_cycles = 0});
    const auto out = memtest::run(c, reqs);
    std::uint64_t last_read = 0, first_write = memsub::never;
    for (const auto& x : out) {
        if (x.is_write)
            first_write = std::min(first_write, x.selected_cycle);
        else
            last_read = std::max(last_read, x.selected_cycle);
    }
    CHECK(first_write == last_read + 256); // the idle flush, after the last read left the queue
    CHECK(c.stats().bus_turnarounds == 1);
    CHECK(c.stats().write_drains == 1);
    CHECK(c.stats().drained_writes == 4);

    fr_fcfs_controller<> bounded(map(), {.timing = ddr4()});
    const auto b = memtest::run(bounded, reqs);
    std::uint64_t first_bounded = memsub::never;
    for (const auto& x : b)
        if (x.is_write) first_bounded = std::min(first_bounded, x.selected_cycle);
    CHECK(first_bounded == 1024);
    CHECK(bounded.stats().bus_turnarounds == 2);

    fr_fcfs_controller<> old(
        map(), memtest::write_policy_before_drains(fr_fcfs_controller<>::params{.timing = ddr4()}));
    const auto before = memtest::run(old, reqs);
    CHECK(by_id(before, 1000).selected_cycle < 20); // served at once, before the reads ended
    CHECK(old.stats().bus_turnarounds >= 2);
}

TEST_CASE("idle drains: nine writes start one at once, fewer wait for the flush") {
    // DRAMSim3: "write_buffer_.size() > 8" with no read pending starts a drain.
    std::vector<mem_request> nine;
    for (std::uint32_t i = 0; i < 9; ++i) nine.push_back(write_at(i, at(i, 1), 10));
    fr_fcfs_controller<> c(map(), {.timing = ddr4()});
    auto out = memtest::run(c, nine);
    std::uint64_t first = memsub::never;
    for (const auto& x : out) first = std::min(first, x.selected_cycle);
    CHECK(first == 10);
    CHECK(c.stats().write_drains == 1);
    CHECK(c.stats().writes_per_drain() == doctest::Approx(9.0));

    // Eight writes arriving at 10 after reads left at 0: the flush at 0 + 256.
    std::vector<mem_request> eight(nine.begin(), nine.end() - 1);
    fr_fcfs_controller<> d(map(), {.timing = ddr4()});
    out = memtest::run(d, eight);
    first = memsub::never;
    for (const auto& x : out) first = std::min(first, x.selected_cycle);
    CHECK(first == 256);
    // A shorter flush parameter moves it.
    fr_fcfs_controller<> e(map(), {.timing = ddr4(), .write_idle_flush_cycles = 40});
    out = memtest::run(e, eight);
    first = memsub::never;
    for (const auto& x : out) first = std::min(first, x.selected_cycle);
    CHECK(first == 40);
}

TEST_CASE("a full write queue drains the writes queued at the start, ahead of waiting reads") {
    // 8-entry write queue: 8 writes fill it while 8 reads wait; the drain serves exactly those
    // 8 writes (DRAMSim3's write_draining_ count), then the reads go.
    std::vector<mem_request> reqs;
    for (std::uint32_t i = 0; i < 8; ++i) reqs.push_back(write_at(100 + i, at(i, 1), 0));
    for (std::uint32_t i = 0; i < 8; ++i) reqs.push_back(read_at(i, at(8 + i, 2), 0));
    fr_fcfs_controller<> c(map(), {.timing = ddr4(), .write_queue = 8});
    const auto out = memtest::run(c, reqs);
    std::uint64_t last_write = 0, first_read = memsub::never;
    for (const auto& x : out) {
        if (x.is_write)
            last_write = std::max(last_write, x.selected_cycle);
        else
            first_read = std::min(first_read, x.selected_cycle);
    }
    CHECK(last_write < first_read);
    CHECK(c.stats().write_drains == 1);
    CHECK(c.stats().drained_writes == 8);
    CHECK(c.stats().bus_turnarounds == 1);
}

TEST_CASE("gem5's min_writes_per_switch ends a drain once reads wait") {
    std::vector<mem_request> reqs;
    for (std::uint32_t i = 0; i < 8; ++i) reqs.push_back(write_at(100 + i, at(i, 1), 0));
    for (std::uint32_t i = 0; i < 8; ++i) reqs.push_back(read_at(i, at(8 + i, 2), 0));
    fr_fcfs_controller<> c(map(), {.timing = ddr4(), .write_queue = 8, .min_writes_per_switch = 2});
    const auto out = memtest::run(c, reqs);
    // The first drain serves two writes, then the reads go; the rest drain later.
    std::vector<completion> sorted = out;
    std::sort(sorted.begin(), sorted.end(), [](const completion& a, const completion& b) {
        return a.selected_cycle < b.selected_cycle;
    });
    CHECK(sorted[0].is_write);
    CHECK(sorted[1].is_write);
    CHECK_FALSE(sorted[2].is_write);
    CHECK(c.stats().write_drains >= 2);
}

TEST_CASE("read-after-write forwarding and write merging, per 64 B line") {
    // A lone write stays queued until the idle flush (256); reads of its line meanwhile are
    // served from it one cycle after arrival (DRAMSim3: clk_ + 1), a second write merges.
    std::vector<mem_request> reqs{write_at(1, at(3, 9, 5), 0), read_at(2, at(3, 9, 5), 10),
                                  read_at(3, byte_address{at(3, 9, 5).value + 8}, 20),
                                  write_at(4, at(3, 9, 5), 30), read_at(5, at(3, 9, 6), 40)};
    fr_fcfs_controller<> c(map(), {.timing = ddr4()});
    const auto out = memtest::run(c, reqs);
    CHECK(by_id(out, 2).from_queue);
    CHECK(by_id(out, 2).latency() == 1);
    CHECK(by_id(out, 3).from_queue); // same line, another byte
    CHECK(by_id(out, 4).from_queue);
    CHECK(by_id(out, 4).latency() == 1);
    CHECK_FALSE(by_id(out, 5).from_queue); // another line of the row: DRAM
    CHECK_FALSE(by_id(out, 1).from_queue);
    CHECK(c.stats().forwarded_reads == 2);
    CHECK(c.stats().merged_writes == 1);
    CHECK(c.stats().dram_accesses() == 2);
    CHECK(c.stats().reads == 3);
    CHECK(c.stats().writes == 2);
    CHECK(c.stats().bytes == 2 * 64); // only the DRAM accesses move data

    fr_fcfs_controller<> off(map(),
                             {.timing = ddr4(), .forward_reads = false, .merge_writes = false});
    const auto plain = memtest::run(off, reqs);
    for (const auto& x : plain) CHECK_FALSE(x.from_queue);
    CHECK(off.stats().dram_accesses() == 5);
}

TEST_CASE("a drained write never overtakes an older read of its line (DRAMSim3's R->W rule)") {
    // The read of line A waits behind a long row conflict at its bank; nine writes (A among
    // them) fill a 9-entry write queue and start a drain, but the write of A only goes after
    // the read.
    std::vector<mem_request> reqs{read_at(1, at(0, 5), 0), read_at(2, at(0, 6), 0)};
    for (std::uint32_t i = 0; i < 8; ++i) reqs.push_back(write_at(100 + i, at(1 + i, 1), 1));
    reqs.push_back(write_at(200, at(0, 6), 1));
    fr_fcfs_controller<> c(map(), {.timing = ddr4(), .write_queue = 9, .forward_reads = false});
    const auto out = memtest::run(c, reqs);
    CHECK(by_id(out, 2).selected_cycle < by_id(out, 200).selected_cycle);
}

TEST_CASE("DRAMSim3's per-bank command queues admit more reads per bank") {
    // read_queue 4 with command queues of 2: one bank takes 4 + 2 reads, two banks 4 + 2 + 2.
    auto accepted = [](std::uint32_t banks) {
        fr_fcfs_controller<> c(map(), {.timing = ddr4(), .read_queue = 4, .bank_command_queue = 2});
        std::uint32_t n = 0;
        for (std::uint32_t k = 0; k < 20; ++k)
            n += c.enqueue(read_at(k, at(k % banks, 1, k), 0)) == enqueue_result::accepted;
        return n;
    };
    CHECK(accepted(1) == 6);
    CHECK(accepted(2) == 8);
    // Without them: the read queue alone.
    fr_fcfs_controller<> c(map(), {.timing = ddr4(), .read_queue = 4});
    std::uint32_t n = 0;
    for (std::uint32_t k = 0; k < 20; ++k)
        n += c.enqueue(read_at(k, at(0, 1, k), 0)) == enqueue_result::accepted;
    CHECK(n == 4);
    CHECK(c.stats().refused == 16);
}

TEST_CASE("DRAMSim3's two levels: a request moves into its command queue, then issues") {
    // dramsim3_params: a request moves into its bank's command queue in the cycle it arrives
    // and issues from the next (Controller::ClockTick: the issue, then ScheduleTransaction), so
    // an isolated read costs one cycle more than memsub's single queue: DRAMSim3's 37 / 21 / 53
    // cycles with the matched DDR4 config (tests/data/dramsim3/README.md). A miss's row
    // commands and its column command are selected apart; the class counts at the column.
    const dram_timing t = ddr4();
    dramsim3_controller<> c(map(), dramsim3_params(t));
    const auto out = memtest::run(
        c, {read_at(1, at(1, 5), 1000), read_at(2, at(1, 5, 3), 1500), read_at(3, at(1, 9), 2000)});
    REQUIRE(out.size() == 3);
    const std::uint64_t burst = t.burst_cycles();
    CHECK(by_id(out, 1).kind == row_class::empty);
    CHECK(by_id(out, 1).latency() == 1 + t.tRCD + t.tCL + burst);
    CHECK(by_id(out, 1).latency() == 37);
    CHECK(by_id(out, 2).kind == row_class::hit);
    CHECK(by_id(out, 2).latency() == 1 + t.tCL + burst);
    CHECK(by_id(out, 3).kind == row_class::conflict);
    CHECK(by_id(out, 3).latency() == 1 + t.tRP + t.tRCD + t.tCL + burst);
    CHECK(c.stats().write_drains == 0);
    // The same parameters and refresh on memsub's single queue (shared_queues): one cycle less.
    using one_level_controller =
        dram_controller<fr_fcfs, open_page, bit_field_mapping, shared_queues, watermark_write_drain,
                        dramsim3_refresh>;
    one_level_controller one(map(), dramsim3_params<one_level_controller>(t));
    CHECK(memtest::run(one, {read_at(1, at(1, 5), 1000)})[0].latency() == t.tRCD + t.tCL + burst);
    // The command queues need entries.
    auto p = dramsim3_params(t);
    p.bank_command_queue = 0;
    CHECK_THROWS((dramsim3_controller<>(map(), p)));
}

// Each organisation's own knobs exist only on its controllers: only a command queue holds a
// miss between its ACT and its RD, and the shared queues' write policies have no meaning on
// command queues (a controller cannot be configured with a knob it would ignore).
template <class Params>
constexpr bool has_row_commands_apart = requires(Params p) {
    p.queues.row_commands_apart;
};
template <class Params>
constexpr bool has_write_when_no_read = requires(Params p) {
    p.queues.write_when_no_read;
};
template <class Params>
constexpr bool has_drained_writes_mix = requires(Params p) {
    p.queues.drained_writes_mix_with_reads;
};
static_assert(has_row_commands_apart<dramsim3_controller<>::params>);
static_assert(!has_row_commands_apart<fr_fcfs_controller<>::params>);
static_assert(has_write_when_no_read<fr_fcfs_controller<>::params>);
static_assert(!has_write_when_no_read<dramsim3_controller<>::params>);
static_assert(has_drained_writes_mix<fr_fcfs_controller<>::params>);
static_assert(!has_drained_writes_mix<dramsim3_controller<>::params>);

TEST_CASE("DRAMSim3's two levels: the idle drain waits for the command queues to empty") {
    // ScheduleTransaction: "write_buffer_.size() > 8 && cmd_queue_.QueueEmpty()". Nine
    // writes and no read: the drain starts at once.
    auto first_write = [](std::uint32_t writes, bool with_read) {
        auto p = dramsim3_params(ddr4());
        p.write_max_wait_cycles = 0;
        dramsim3_controller<> c(map(), p);
        std::vector<mem_request> reqs;
        if (with_read) reqs.push_back(read_at(1, at(0, 3), 100));
        for (std::uint32_t i = 0; i < writes; ++i)
            reqs.push_back(write_at(10 + i, at(1 + i, 7), 101));
        std::uint64_t first = memsub::never, read_data = 0;
        for (const auto& x : memtest::run(c, reqs)) {
            if (x.is_write)
                first = std::min(first, x.data_cycle);
            else
                read_data = x.data_cycle;
        }
        return std::pair{first, read_data};
    };
    const dram_timing t = ddr4();
    // Moved at 101, ACT at 102, WR tRCD later.
    CHECK(first_write(9, false).first == 102 + t.tRCD + t.tCWL);
    // Eight: they wait for memsub's idle flush, 256 cycles without a read (here from cycle 0).
    CHECK(first_write(8, false).first == 256 + 1 + t.tRCD + t.tCWL);
    // A read selected (its RD placed) but whose RD has not issued still holds its command
    // queue (DRAMSim3 erases a request at its column command): the nine writes start moving
    // in the cycle of its RD, so the first WR comes 1 + tRCD after it.
    const auto [write_data, read_data] = first_write(9, true);
    const std::uint64_t read_column = read_data - t.tCL;
    CHECK(write_data == read_column + 1 + t.tRCD + t.tCWL);
}

TEST_CASE("DRAMSim3's two levels: every request completes once under random mixed traffic") {
    // Hot lines (R→W dependencies, forwarding, merging), refresh, two ranks, small queues: no
    // request is lost or served twice, and no channel stalls.
    for (std::uint32_t variant = 0; variant < 4; ++variant) {
        CAPTURE(variant);
        dram_timing t = presets::ddr4_2400;
        t.ranks = variant % 2 == 0 ? 1 : 2;
        const auto m = bit_field_mapping::from_order("rochrababgco", t);
        auto p = dramsim3_params(t);
        if (variant >= 2) {
            p.read_queue = 4;
            p.write_queue = 6;
            p.bank_command_queue = 2;
        }
        dramsim3_controller<> c(m, p);
        std::vector<mem_request> reqs;
        std::uint64_t x = 12345 + variant, cycle = 0;
        auto next = [&x] { return x = x * 6364136223846793005ull + 1442695040888963407ull; };
        for (std::uint64_t k = 0; k < 4000; ++k) {
            cycle += (next() >> 33) % 12;
            const std::uint64_t foot = k % 3 == 0 ? 4096 : (std::uint64_t{1} << 28);
            const byte_address a{((next() >> 20) % foot) & ~std::uint64_t{63}};
            reqs.push_back((next() >> 40) % 10 < 4 ? write_at(k, a, cycle) : read_at(k, a, cycle));
        }
        const auto out = memtest::run(c, reqs);
        REQUIRE(out.size() == reqs.size());
        std::vector<int> seen(reqs.size(), 0);
        for (const auto& o : out) ++seen[o.id];
        CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(reqs.size()));
        CHECK(c.stats().write_drains > 0);
        CHECK(c.pending() == 0);
    }
}

TEST_CASE("partitioned controller: drains, full-FIFO drains, forwarding across requesters") {
    const dram_timing t = presets::hbm2_4gb_x128;
    const auto m = bit_field_mapping::from_order("rorabgbachco", t);
    auto hbm = [&](std::uint32_t bank, std::uint32_t row, std::uint32_t col = 0) {
        return m.unmap({.bank_group = bank % 4, .bank = bank / 4, .row = row, .column = col});
    };
    // Requester 1 writes once; requester 0 reads every 20 cycles: without the wait bound the
    // write waits for the reads to stop (plus the idle flush), one turnaround in all; with it
    // (1024 cycles) it goes at 1024.
    std::vector<mem_request> reqs{write_at(1000, hbm(1, 7), 0, 1)};
    for (std::uint32_t k = 0; k < 50; ++k)
        reqs.push_back(read_at(k, hbm(2 + k % 8, 3 + k), 20 * k));
    std::sort(reqs.begin(), reqs.end(), [](const mem_request& a, const mem_request& b) {
        return a.arrival_cycle < b.arrival_cycle;
    });
    partitioned_controller<> c(m, {.timing = t, .requesters = 2, .write_max_wait_cycles = 0});
    auto out = memtest::run(c, reqs);
    std::uint64_t last_read = 0;
    for (const auto& x : out)
        if (!x.is_write) last_read = std::max(last_read, x.selected_cycle);
    CHECK(by_id(out, 1000).selected_cycle == last_read + 256);
    CHECK(c.stats().bus_turnarounds == 1);
    partitioned_controller<> bounded(m, {.timing = t, .requesters = 2});
    out = memtest::run(bounded, reqs);
    CHECK(by_id(out, 1000).selected_cycle == 1024);

    // A full write FIFO (depth 2) starts a drain although reads wait; it ends once the FIFO
    // has room and the low watermark (half of the 4 write slots) is reached: one write.
    std::vector<mem_request> full{write_at(100, hbm(1, 1), 0, 1), write_at(101, hbm(2, 1), 0, 1)};
    for (std::uint32_t k = 0; k < 4; ++k) full.push_back(read_at(k, hbm(4 + k, 2), 0, 0));
    partitioned_controller<> d(m, {.timing = t, .requesters = 2, .queue_depth = 2});
    out = memtest::run(d, full);
    CHECK(d.stats().write_drains >= 1);
    CHECK(by_id(out, 100).selected_cycle == 0);
    CHECK(d.stats().drained_writes == 2); // the second in a later (idle) drain

    // Requester 0 reads the line requester 1 has a write queued for: forwarded.
    std::vector<mem_request> fw{write_at(100, hbm(1, 1, 3), 0, 1), read_at(1, hbm(1, 1, 3), 5, 0),
                                write_at(101, hbm(1, 1, 3), 6, 0)};
    partitioned_controller<> e(m, {.timing = t, .requesters = 2});
    out = memtest::run(e, fw);
    CHECK(by_id(out, 1).from_queue);
    CHECK(by_id(out, 1).latency() == 1);
    CHECK(by_id(out, 101).from_queue);
    CHECK(e.stats().forwarded_reads == 1);
    CHECK(e.stats().merged_writes == 1);
    CHECK(e.stats().dram_accesses() == 1);
}

TEST_CASE("during a drain, reads queued before it fill the cycles no drained write can use") {
    // Four writes to one bank (each waits for the previous one's column command) fill a
    // 4-entry write queue at cycle 1 and start a drain. Read 1 (queued at 0, before the drain,
    // behind read 0 at its bank) goes while the writes' bank is busy; read 2 (queued at 3,
    // during the drain) waits for its end.
    std::vector<mem_request> reqs{read_at(0, at(5, 2), 0), read_at(1, at(5, 3), 0)};
    for (std::uint32_t i = 0; i < 4; ++i) reqs.push_back(write_at(100 + i, at(0, 10 + i), 1));
    reqs.push_back(read_at(2, at(6, 2), 3));
    fr_fcfs_controller<> mix(map(), {.timing = ddr4(), .write_queue = 4});
    auto out = memtest::run(mix, reqs);
    std::uint64_t last_write = 0;
    for (const auto& x : out)
        if (x.is_write) last_write = std::max(last_write, x.selected_cycle);
    CHECK(by_id(out, 1).selected_cycle < by_id(out, 101).selected_cycle);
    CHECK(by_id(out, 2).selected_cycle > last_write);

    fr_fcfs_controller<> strict(
        map(),
        {.timing = ddr4(), .write_queue = 4, .queues = {.drained_writes_mix_with_reads = false}});
    out = memtest::run(strict, reqs);
    last_write = 0;
    for (const auto& x : out)
        if (x.is_write) last_write = std::max(last_write, x.selected_cycle);
    CHECK(by_id(out, 1).selected_cycle > last_write);
}
