// Timing rules checked against the command history rather than the last command: tWTR_L behind
// a write to another bank group, tCCD_L / tRRD_L when they exceed twice the _S values, a row hit
// overtaking an earlier-selected row conflict of another bank; multi-rank rules (rank-switch
// turnaround tRTRS, tRRD per rank, refresh per rank); per-bank refresh (HBM2 REFSB).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <memsub/memory/all.hpp>

#include "helpers.hpp"

using memsub::byte_address;
using namespace memsub::memory;
using memtest::read_at;
using memtest::write_at;

namespace {

dram_timing no_refresh(dram_timing t) {
    t.tREFI = 0;
    t.tRFC = 0;
    return t;
}

/// DDR4 with the same-bank-group values stretched beyond twice the others.
dram_timing ddr4_long_l() {
    dram_timing t = no_refresh(presets::ddr4_2400);
    t.tCCD_S = 4;
    t.tCCD_L = 10;
    t.tRRD_S = 4;
    t.tRRD_L = 11;
    t.tWTR_S = 3;
    t.tWTR_L = 12;
    return t;
}

dram_timing two_ranks(dram_timing t) {
    t.ranks = 2;
    return t;
}

/// One request through the channel model directly (selection at `t`, row stays open).
command_plan place(dram_channel& ch, std::uint32_t bank, std::uint32_t row, bool write,
                   std::uint64_t t) {
    ch.refresh_until(t);
    ch.settle(bank, t);
    const command_plan p = ch.plan(bank, row, write, t);
    ch.commit(bank, row, write, p, memsub::never);
    return p;
}

/// Flat bank index of (rank, group, bank) under `t`.
std::uint32_t flat(const dram_timing& t, std::uint32_t rank, std::uint32_t group,
                   std::uint32_t bank) {
    return (rank * t.bank_groups + group) * t.banks_per_group + bank;
}

} // namespace

TEST_CASE("tWTR_L counts from every earlier write of the bank group, not just the last write") {
    // W1 to group 0 ends at e, W2 to group 1 ends at e + 4; a read to group 0 must wait for
    // e + tWTR_L (W1), not only e + 4 + tWTR_S (W2, the last write).
    const dram_timing t = no_refresh(presets::ddr4_2400); // tWTR_S 3, tWTR_L 9
    const auto m = bit_field_mapping::from_order("rorabgbachco", t);
    const byte_address g0b0 = m.unmap({.bank_group = 0, .bank = 0, .row = 1});
    const byte_address g1b0 = m.unmap({.bank_group = 1, .bank = 0, .row = 1});
    const byte_address g0b1 = m.unmap({.bank_group = 0, .bank = 1, .row = 1});
    fcfs_controller<> c(m, {.timing = t});
    const auto out =
        memtest::run(c, {read_at(0, g0b0, 0), read_at(1, g1b0, 0), read_at(2, g0b1, 0),
                         write_at(10, g0b0, 500), write_at(11, g1b0, 501), read_at(12, g0b1, 502)});
    const completion& w1 = memtest::by_id(out, 10);
    const completion& w2 = memtest::by_id(out, 11);
    const completion& r = memtest::by_id(out, 12);
    REQUIRE(w2.done_cycle == w1.done_cycle + t.tCCD_S);
    const std::uint64_t read_cmd = r.data_cycle - t.tCL;
    CHECK(read_cmd == w1.done_cycle + t.tWTR_L);
    CHECK(read_cmd > w2.done_cycle + t.tWTR_S); // what "the last write only" would allow
    // Across bank groups only tWTR_S applies: a read to group 1 right after a write to group 0.
    fcfs_controller<> d(m, {.timing = t});
    const auto o2 = memtest::run(d, {read_at(0, g0b0, 0), read_at(1, g1b0, 0),
                                     write_at(10, g0b0, 500), read_at(12, g1b0, 501)});
    CHECK(memtest::by_id(o2, 12).data_cycle - t.tCL ==
          memtest::by_id(o2, 10).done_cycle + t.tWTR_S);
}

TEST_CASE("tCCD_L and tRRD_L hold against every command of the group when _L > 2 x _S") {
    const dram_timing t = ddr4_long_l();
    SUBCASE("column commands (tCCD_L = 10 > 2 x tCCD_S = 8)") {
        dram_channel ch(t);
        for (std::uint32_t g : {0u, 1u}) (void)place(ch, flat(t, 0, g, 0), 1, false, 0);
        (void)place(ch, flat(t, 0, 0, 1), 1, false, 0);
        const command_plan r1 = place(ch, flat(t, 0, 0, 0), 1, false, 500);
        const command_plan r2 = place(ch, flat(t, 0, 1, 0), 1, false, 501);
        const command_plan r3 = place(ch, flat(t, 0, 0, 1), 1, false, 502);
        REQUIRE(r1.kind == row_class::hit);
        CHECK(r2.column == r1.column + t.tCCD_S);
        CHECK(r3.column == r1.column + t.tCCD_L); // not r2 + tCCD_S = r1 + 8
    }
    SUBCASE("activations (tRRD_L = 11 > 2 x tRRD_S = 8)") {
        dram_channel ch(t);
        const command_plan a1 = place(ch, flat(t, 0, 0, 0), 1, false, 100);
        const command_plan a2 = place(ch, flat(t, 0, 1, 0), 1, false, 101);
        const command_plan a3 = place(ch, flat(t, 0, 0, 1), 1, false, 102);
        CHECK(a1.act == 100);
        CHECK(a2.act == a1.act + t.tRRD_S);
        CHECK(a3.act == a1.act + t.tRRD_L); // not a2 + tRRD_S = a1 + 8
    }
    SUBCASE("through the controller") {
        const auto m = bit_field_mapping::from_order("rorabgbachco", t);
        fcfs_controller<> c(m, {.timing = t});
        const auto out =
            memtest::run(c, {read_at(1, m.unmap({.bank_group = 0, .bank = 0, .row = 2}), 100),
                             read_at(2, m.unmap({.bank_group = 1, .bank = 0, .row = 2}), 101),
                             read_at(3, m.unmap({.bank_group = 0, .bank = 1, .row = 2}), 102)});
        // Empty banks: data = ACT + tRCD + tCL, ACTs at 100, 104, 111.
        CHECK(memtest::by_id(out, 3).data_cycle - memtest::by_id(out, 1).data_cycle == t.tRRD_L);
    }
}

TEST_CASE("a row hit selected after a row conflict of another bank issues and finishes first") {
    for (const bool fr : {true, false}) {
        CAPTURE(fr);
        const dram_timing t = no_refresh(presets::ddr4_2400);
        const auto m = bit_field_mapping::from_order("rorabgbachco", t);
        const byte_address open_a = m.unmap({.bank_group = 0, .bank = 0, .row = 1});
        const byte_address conflict_a = m.unmap({.bank_group = 0, .bank = 0, .row = 3});
        const byte_address hit_b = m.unmap({.bank_group = 1, .bank = 0, .row = 2, .column = 5});
        const std::vector<mem_request> reqs{read_at(0, open_a, 0),
                                            read_at(1, m.unmap({.bank_group = 1, .row = 2}), 0),
                                            read_at(10, conflict_a, 500), read_at(11, hit_b, 501)};
        std::vector<completion> out;
        if (fr) {
            fr_fcfs_controller<> c(m, {.timing = t});
            out = memtest::run(c, reqs);
        } else {
            fcfs_controller<> c(m, {.timing = t});
            out = memtest::run(c, reqs);
        }
        const completion& conflict = memtest::by_id(out, 10);
        const completion& hit = memtest::by_id(out, 11);
        REQUIRE(conflict.kind == row_class::conflict);
        REQUIRE(hit.kind == row_class::hit);
        CHECK(conflict.selected_cycle == 500);
        CHECK(hit.selected_cycle == 501);
        // Exact isolated costs for both: the hit does not wait behind the conflict.
        CHECK(conflict.latency() == t.tRP + t.tRCD + t.tCL + t.burst_cycles());
        CHECK(hit.latency() == t.tCL + t.burst_cycles());
        CHECK(hit.done_cycle < conflict.done_cycle);
    }
}

TEST_CASE("two ranks: tRTRS between the ranks' bursts, tRRD and tFAW per rank") {
    const dram_timing t = two_ranks(no_refresh(presets::ddr4_2400));
    SUBCASE("rank switch on the data bus") {
        dram_channel ch(t);
        (void)place(ch, flat(t, 0, 0, 0), 1, false, 0);
        (void)place(ch, flat(t, 1, 1, 0), 1, false, 0);
        (void)place(ch, flat(t, 0, 1, 0), 1, false, 0);
        const command_plan a = place(ch, flat(t, 0, 0, 0), 1, false, 500);
        const command_plan same_rank = place(ch, flat(t, 0, 1, 0), 1, false, 501);
        const command_plan other_rank = place(ch, flat(t, 1, 1, 0), 1, false, 502);
        CHECK(same_rank.data == a.done);                    // back to back within a rank
        CHECK(other_rank.data == same_rank.done + t.tRTRS); // turnaround on a rank switch
        // A write of the other rank after a read: tRTRS too.
        const command_plan w = place(ch, flat(t, 1, 1, 0), 1, true, 503);
        CHECK(w.data >= other_rank.done + t.tRTRS);
        CHECK(ch.column_gap(false, false, false, false) == t.burst_cycles() + t.tRTRS);
    }
    SUBCASE("tRRD and tFAW are per rank") {
        dram_channel ch(t);
        // Five ACTs in rank 0 (the fifth waits for tFAW); rank 1's ACTs are unaffected.
        std::vector<std::uint64_t> r0, r1;
        for (std::uint32_t b = 0; b < 5; ++b) {
            r0.push_back(place(ch, flat(t, 0, b % 4, b / 4), 1, false, 100).act);
            r1.push_back(place(ch, flat(t, 1, b % 4, b / 4), 1, false, 100).act);
        }
        CHECK(r0[1] - r0[0] == t.tRRD_S);
        CHECK(r0[4] - r0[0] >= t.tFAW);
        CHECK(r1[0] == 100); // rank 1's first ACT does not wait for rank 0's
        CHECK(r1[4] - r1[0] >= t.tFAW);
    }
    SUBCASE("all-bank refresh is per rank, staggered") {
        dram_timing tr = two_ranks(presets::ddr4_2400); // tREFI 9363: rank 0 at 4681, 1 at 9363
        const auto m = bit_field_mapping::from_order("rorabgbachco", tr);
        const std::uint64_t due0 = tr.tREFI / 2;
        fr_fcfs_controller<> c(m, {.timing = tr});
        const auto out = memtest::run(c, {read_at(0, m.unmap({.rank = 0, .row = 4}), due0 + 5),
                                          read_at(1, m.unmap({.rank = 1, .row = 4}), due0 + 6)});
        // Rank 0 is refreshing: its read waits for tRFC; rank 1's read sees an idle bank.
        CHECK(memtest::by_id(out, 0).done_cycle ==
              due0 + tr.tRFC + tr.tRCD + tr.tCL + tr.burst_cycles());
        CHECK(memtest::by_id(out, 1).latency() == tr.tRCD + tr.tCL + tr.burst_cycles());
        CHECK(c.stats().refreshes == 1);
    }
}

TEST_CASE("per-bank refresh (HBM2 REFSB) blocks only the refreshed bank") {
    dram_timing t = presets::hbm2_4gb_x128;
    t.refresh = refresh_mode::per_bank;
    const auto m = bit_field_mapping::from_order("rorabgbachco", t);
    // Bank k of a channel is refreshed at (k + 1) · tREFI / 16 (+ multiples of tREFI).
    const std::uint64_t due0 = t.tREFI / t.banks_per_rank();
    fr_fcfs_controller<> c(m, {.timing = t});
    const auto out =
        memtest::run(c, {read_at(0, m.unmap({.bank_group = 0, .bank = 0, .row = 4}), due0 + 2),
                         read_at(1, m.unmap({.bank_group = 1, .bank = 1, .row = 4}), due0 + 3)});
    CHECK(memtest::by_id(out, 0).done_cycle == due0 + t.tRFCsb + t.tRCD + t.tCL + t.burst_cycles());
    CHECK(memtest::by_id(out, 1).latency() == t.tRCD + t.tCL + t.burst_cycles());
    // Over one tREFI every bank of every channel is refreshed once (refresh is performed when
    // a channel next decides, so every channel gets a request at tREFI).
    fr_fcfs_controller<> d(m, {.timing = t});
    std::vector<mem_request> late;
    for (std::uint32_t ch = 0; ch < t.channels; ++ch)
        late.push_back(read_at(ch, m.unmap({.channel = ch, .row = 1}), t.tREFI));
    (void)memtest::run(d, late);
    CHECK(d.stats().refreshes == std::uint64_t{t.channels} * t.banks_per_rank());
    // A configuration error: per-bank refresh needs tRFCsb.
    dram_timing bad = t;
    bad.tRFCsb = 0;
    CHECK_THROWS_AS(bad.validate(), memsub::config_error);
}
