// Timing of the bank/rank/bus model through the controllers: isolated access costs per preset,
// a naive per-cycle reference model of one bank, multi-bank constraints (tRRD, tFAW, tCCD_S/L),
// refresh, data-bus bandwidth (streaming ≥ 90 %, never above 100 %, bursts never overlap).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/dram_timing.hpp>

#include "helpers.hpp"

using memsub::byte_address;
using namespace memsub::memory;
using memtest::read_at;
using memtest::write_at;

namespace {

const char* order_for(const dram_timing& t) {
    return t.bank_groups > 1 ? "rorabgbachco" : "rorabachco";
}

dram_timing no_refresh(dram_timing t) {
    t.tREFI = 0;
    t.tRFC = 0;
    return t;
}

} // namespace

TEST_CASE("an isolated read costs CL+burst (hit), RCD+CL+burst (empty), RP+RCD+CL+burst "
          "(conflict) on every preset") {
    for (const dram_timing* tp : {&presets::ddr3_1600_remap, &presets::ddr4_2400,
                                  &presets::hbm2_4gb_x128, &presets::hmc_vault}) {
        const dram_timing& t = *tp;
        CAPTURE(t.name);
        const auto m = bit_field_mapping::from_order(order_for(t), t);
        fr_fcfs_controller<> c(m, {.timing = t});
        const byte_address row5 = m.unmap({.channel = 0, .bank = 1, .row = 5, .column = 0});
        const byte_address row5b = m.unmap({.channel = 0, .bank = 1, .row = 5, .column = 3});
        const byte_address row9 = m.unmap({.channel = 0, .bank = 1, .row = 9, .column = 0});
        const auto out = memtest::run(
            c, {read_at(1, row5, 1000), read_at(2, row5b, 1500), read_at(3, row9, 2000)});
        REQUIRE(out.size() == 3);
        const std::uint64_t burst = t.burst_cycles();
        CHECK(out[0].kind == row_class::empty);
        CHECK(out[0].latency() == t.tRCD + t.tCL + burst);
        CHECK(out[1].kind == row_class::hit);
        CHECK(out[1].latency() == t.tCL + burst);
        CHECK(out[2].kind == row_class::conflict);
        CHECK(out[2].latency() == t.tRP + t.tRCD + t.tCL + burst);
        for (const auto& x : out) CHECK(x.queueing_delay() == 0);
        // Writes: CWL instead of CL.
        fr_fcfs_controller<> w(m, {.timing = t});
        const auto wout = memtest::run(w, {write_at(1, row5, 1000)});
        CHECK(wout[0].latency() == t.tRCD + t.tCWL + burst);
    }
}

TEST_CASE("ReMAP's cost scale through the model: row hit ≈ 14 ns, row miss ≈ 41 ns (Table 2.3)") {
    // docs/mechanisms/remap.md, 'Reference system': with Table 2.3's timings a row hit costs ≈ 14
    // and a row miss ≈ 41 cycles at 1 GHz (CL vs tRP + tRCD + CL); the burst comes on top. Measured
    // through the controller on the DDR3 preset, converted with its tCK.
    const dram_timing t = no_refresh(presets::ddr3_1600_remap);
    const auto m = bit_field_mapping::from_order("rorabachco", t);
    fr_fcfs_controller<> c(m, {.timing = t});
    const auto out = memtest::run(c, {read_at(1, m.unmap({.bank = 4, .row = 7}), 100),
                                      read_at(2, m.unmap({.bank = 4, .row = 7, .column = 1}), 400),
                                      read_at(3, m.unmap({.bank = 4, .row = 9}), 800)});
    const double burst_ns = t.burst_cycles() * t.tck_ns;
    const completion& hit = memtest::by_id(out, 2);
    const completion& miss = memtest::by_id(out, 3);
    REQUIRE(hit.kind == row_class::hit);
    REQUIRE(miss.kind == row_class::conflict);
    const double hit_ns = static_cast<double>(hit.latency()) * t.tck_ns - burst_ns;
    const double miss_ns = static_cast<double>(miss.latency()) * t.tck_ns - burst_ns;
    CHECK(hit_ns == doctest::Approx(13.75));
    CHECK(miss_ns == doctest::Approx(41.25));
    CHECK(miss_ns / hit_ns == doctest::Approx(3.0));
}

// ------------------------------------------------------------------ naive reference model
namespace {

/// A naive per-cycle simulator of ONE bank under the controller's documented semantics:
/// FCFS with reads first, one selection per cycle, a request is selected once its bank took the
/// previous column command, commands issue at the first cycle where every constraint holds
/// (checked against the full command history), and the row policy closes the row from its close
/// time on. Written independently of dram_channel's max() arithmetic.
struct naive_bank {
    enum class policy { open, closed, timeout };
    dram_timing t;
    policy pol;
    std::uint32_t timeout = 0;

    struct cmd {
        char kind; // 'P', 'A', 'R', 'W'
        std::uint64_t at;
    };

    std::vector<completion> run(std::vector<mem_request> reqs) {
        std::vector<cmd> hist;
        std::vector<completion> out;
        std::vector<bool> selected(reqs.size(), false);
        std::vector<std::uint64_t> data_end; // per issued column: [start, end) of its data
        std::vector<std::uint64_t> data_start;
        std::vector<bool> data_write;
        std::int64_t open_row = -1;
        bool close_pending = false;
        std::uint64_t close_at = ~0ull;
        std::int64_t active = -1; // selected request waiting for its column command
        row_class active_class{};
        std::uint64_t active_sel = 0;
        std::uint64_t last_sel = 0;
        bool any_sel = false;
        std::uint64_t last_col = 0;
        bool any_col = false;
        const std::uint32_t burst = t.burst_cycles();

        auto last = [&](char k) -> std::int64_t {
            for (auto it = hist.rbegin(); it != hist.rend(); ++it)
                if (it->kind == k) return static_cast<std::int64_t>(it->at);
            return -1;
        };
        auto pre_legal = [&](std::uint64_t now) {
            const std::int64_t a = last('A');
            if (a >= 0 && now < static_cast<std::uint64_t>(a) + t.tRAS) return false;
            const std::int64_t r = last('R');
            if (r >= 0 && now < static_cast<std::uint64_t>(r) + t.tRTP) return false;
            for (std::size_t i = 0; i < data_end.size(); ++i)
                if (data_write[i] && now < data_end[i] + t.tWR) return false;
            return true;
        };
        auto act_legal = [&](std::uint64_t now) {
            const std::int64_t p = last('P');
            return !(p >= 0 && now < static_cast<std::uint64_t>(p) + t.tRP);
        };
        auto col_legal = [&](std::uint64_t now, bool write) {
            const std::int64_t a = last('A');
            if (a < 0 || now < static_cast<std::uint64_t>(a) + t.tRCD) return false;
            if (any_col && now < last_col + t.tCCD_L) return false;
            if (!write)
                for (std::size_t i = 0; i < data_end.size(); ++i)
                    if (data_write[i] && now < data_end[i] + t.tWTR_L) return false;
            const std::uint64_t ds = now + (write ? t.tCWL : t.tCL);
            for (std::size_t i = 0; i < data_end.size(); ++i) {
                const std::uint64_t gap = data_write[i] != write ? t.tRTRS : 0;
                // Bursts go in order: after every earlier burst (plus turnaround).
                if (ds < data_end[i] + (i + 1 == data_end.size() ? gap : 0)) return false;
            }
            return true;
        };

        std::size_t done = 0;
        bool issued = false;
        auto step4 = [&](std::uint64_t now) {
            if (issued) return;
            if (active >= 0) {
                const mem_request& r = reqs[static_cast<std::size_t>(active)];
                const auto row = static_cast<std::int64_t>(r.address.value);
                if (open_row >= 0 && open_row != row && !close_pending) {
                    if (pre_legal(now)) {
                        hist.push_back({'P', now});
                        open_row = -1;
                        issued = true;
                    }
                } else if (open_row < 0 && !close_pending) {
                    if (act_legal(now)) {
                        hist.push_back({'A', now});
                        open_row = row;
                        issued = true;
                    }
                } else if (open_row == row && !close_pending) {
                    if (col_legal(now, r.is_write)) {
                        hist.push_back({r.is_write ? 'W' : 'R', now});
                        issued = true;
                        last_col = now;
                        any_col = true;
                        const std::uint64_t ds = now + (r.is_write ? t.tCWL : t.tCL);
                        data_start.push_back(ds);
                        data_end.push_back(ds + burst);
                        data_write.push_back(r.is_write);
                        out.push_back(completion{.id = r.id,
                                                 .address = r.address,
                                                 .is_write = r.is_write,
                                                 .kind = active_class,
                                                 .arrival_cycle = r.arrival_cycle,
                                                 .selected_cycle = active_sel,
                                                 .data_cycle = ds,
                                                 .done_cycle = ds + burst});
                        ++done;
                        active = -1;
                        if (pol == policy::closed) {
                            close_pending = true;
                        } else if (pol == policy::timeout) {
                            close_at = ds + burst + timeout;
                        }
                    }
                }
            }
        };
        for (std::uint64_t now = 0; done < reqs.size(); ++now) {
            REQUIRE(now < 10'000'000);
            issued = false;
            // (1) the row policy's close becomes pending at its close time.
            if (open_row >= 0 && !close_pending && now >= close_at) close_pending = true;
            // (2) a pending close issues its PRE at the first legal cycle.
            if (close_pending && pre_legal(now)) {
                hist.push_back({'P', now});
                open_row = -1;
                close_pending = false;
                close_at = ~0ull;
                issued = true;
            }
            step4(now);
            // (3) selection: reads first, FCFS, once the bank took the last column command.
            if (active < 0 && (!any_sel || now >= last_sel + 1) && (!any_col || now >= last_col)) {
                std::int64_t pick = -1;
                for (int pass = 0; pass < 2 && pick < 0; ++pass)
                    for (std::size_t i = 0; i < reqs.size(); ++i)
                        if (!selected[i] && reqs[i].arrival_cycle <= now &&
                            reqs[i].is_write == (pass == 1)) {
                            pick = static_cast<std::int64_t>(i);
                            break;
                        }
                if (pick >= 0) {
                    selected[static_cast<std::size_t>(pick)] = true;
                    active = pick;
                    active_sel = now;
                    last_sel = now;
                    any_sel = true;
                    const auto row = static_cast<std::int64_t>(
                        reqs[static_cast<std::size_t>(pick)].address.value);
                    if (open_row < 0 || close_pending)
                        active_class = row_class::empty;
                    else
                        active_class = open_row == row ? row_class::hit : row_class::conflict;
                    if (active_class != row_class::empty) close_at = ~0ull;
                }
            }
            step4(now);
        }
        return out;
    }
};

} // namespace

TEST_CASE("one bank: the controller matches a naive per-cycle reference model") {
    for (const dram_timing* tp :
         {&presets::ddr3_1600_remap, &presets::ddr4_2400, &presets::hbm2_4gb_x128}) {
        const dram_timing t = no_refresh(*tp);
        CAPTURE(t.name);
        // Address = row number (one bank, one column) under a mapping with only a row field.
        bit_field_mapping::params mp;
        mp.offset_bits = memsub::log2_exact(t.burst_bytes());
        mp.address_bits = 48;
        dram_timing t1 = t;
        t1.channels = 1;
        t1.ranks = 1;
        t1.bank_groups = 1;
        t1.banks_per_group = 1;
        mp.fields = {{field_kind::row, 16}};
        const bit_field_mapping m(mp);
        for (int pol = 0; pol < 3; ++pol) {
            for (std::uint64_t seed = 1; seed <= 6; ++seed) {
                CAPTURE(pol);
                CAPTURE(seed);
                memsub::xoshiro256ss rng(seed);
                std::vector<mem_request> reqs;
                std::uint64_t at = 10;
                for (std::uint64_t i = 0; i < 150; ++i) {
                    at += rng() % (seed % 2 == 0 ? 12 : 70);
                    const std::uint64_t row = rng() % 3;
                    const bool w = rng() % 4 == 0;
                    // Addresses carry the row in the low field; the reference reads it back
                    // from the address value divided by the burst size.
                    reqs.push_back(mem_request{.id = i,
                                               .address = byte_address{row << mp.offset_bits},
                                               .is_write = w,
                                               .arrival_cycle = at});
                }
                std::vector<completion> got;
                if (pol == 0) {
                    dram_controller<fcfs, open_page> c(
                        m, memtest::writes_only_when_no_read(
                               dram_controller<fcfs, open_page>::params{.timing = t1}));
                    got = memtest::run(c, reqs);
                } else if (pol == 1) {
                    dram_controller<fcfs, closed_page> c(
                        m, memtest::writes_only_when_no_read(
                               dram_controller<fcfs, closed_page>::params{.timing = t1}));
                    got = memtest::run(c, reqs);
                } else {
                    const auto p = memtest::writes_only_when_no_read(
                        dram_controller<fcfs, timeout_adaptive>::params{
                            .timing = t1,
                            .row = {.initial_timeout_cycles = 30,
                                    .min_timeout_cycles = 30,
                                    .max_timeout_cycles = 30,
                                    .adaptive = false}});
                    dram_controller<fcfs, timeout_adaptive> c(m, p);
                    got = memtest::run(c, reqs);
                }
                // The reference sees the row directly as the address value.
                std::vector<mem_request> ref_reqs = reqs;
                for (auto& r : ref_reqs)
                    r.address = byte_address{r.address.value >> mp.offset_bits};
                naive_bank ref{t1, static_cast<naive_bank::policy>(pol), 30};
                const auto want = ref.run(ref_reqs);
                REQUIRE(got.size() == want.size());
                std::map<std::uint64_t, completion> by;
                for (const auto& c : got) by[c.id] = c;
                for (const auto& w : want) {
                    const completion& g = by[w.id];
                    CAPTURE(w.id);
                    CHECK(g.selected_cycle == w.selected_cycle);
                    CHECK(g.kind == w.kind);
                    CHECK(g.data_cycle == w.data_cycle);
                    CHECK(g.done_cycle == w.done_cycle);
                }
            }
        }
    }
}

TEST_CASE("tRRD and tFAW space the activations of a rank") {
    const dram_timing t = no_refresh(presets::ddr3_1600_remap); // tRRD 5, tFAW 24
    const auto m = bit_field_mapping::from_order("rorabachco", t);
    fcfs_controller<> c(m, {.timing = t});
    std::vector<mem_request> reqs;
    for (std::uint32_t b = 0; b < 5; ++b)
        reqs.push_back(read_at(b, m.unmap({.bank = b, .row = 1}), 100));
    const auto out = memtest::run(c, reqs);
    // ACTs at 100, 105, 110, 115 (tRRD) and 124 (= first + tFAW), each read done
    // ACT + tRCD + CL + burst (bursts are 5 apart, so the data bus does not delay them).
    const std::uint64_t acts[5] = {100, 105, 110, 115, 124};
    for (std::uint32_t b = 0; b < 5; ++b) {
        CAPTURE(b);
        CHECK(memtest::by_id(out, b).done_cycle == acts[b] + 11 + 11 + 4);
    }
}

TEST_CASE("DDR4 column spacing: tCCD_L within a bank group, tCCD_S across") {
    const dram_timing t = no_refresh(presets::ddr4_2400);
    const auto m = bit_field_mapping::from_order("rorabgbachco", t);
    // Open rows first, then two hits per pattern once everything is idle.
    auto run_pair = [&](std::uint32_t bg2, std::uint32_t ba2) {
        fr_fcfs_controller<> c(m, {.timing = t});
        const auto out = memtest::run(
            c, {read_at(0, m.unmap({.bank_group = 0, .bank = 0, .row = 3}), 0),
                read_at(1, m.unmap({.bank_group = bg2, .bank = ba2, .row = 3}), 0),
                read_at(2, m.unmap({.bank_group = 0, .bank = 0, .row = 3, .column = 1}), 500),
                read_at(3, m.unmap({.bank_group = bg2, .bank = ba2, .row = 3, .column = 1}), 500)});
        return memtest::by_id(out, 3).data_cycle - memtest::by_id(out, 2).data_cycle;
    };
    CHECK(run_pair(0, 1) == t.tCCD_L); // same bank group, other bank
    CHECK(run_pair(1, 0) == t.tCCD_S); // other bank group
}

TEST_CASE("refresh closes rows and blocks activation for tRFC") {
    const dram_timing t = presets::ddr3_1600_remap; // tREFI 6240, tRFC 208
    const auto m = bit_field_mapping::from_order("rorabachco", t);
    fr_fcfs_controller<> c(m, {.timing = t});
    const byte_address a = m.unmap({.bank = 2, .row = 7});
    const auto out = memtest::run(c, {read_at(1, a, 100), read_at(2, a, t.tREFI)});
    // The row opened at 100 is precharged for the refresh at tREFI (PRE at 6240, REF at
    // 6251); the second read then finds the bank empty.
    const completion& r2 = memtest::by_id(out, 2);
    CHECK(r2.kind == row_class::empty);
    CHECK(r2.done_cycle == t.tREFI + t.tRP + t.tRFC + t.tRCD + t.tCL + t.burst_cycles());
    CHECK(c.stats().refreshes == 1);
    // Long idle stretches perform every refresh that fell due (lazily).
    fr_fcfs_controller<> d(m, {.timing = t});
    (void)memtest::run(d, {read_at(1, a, 10 * t.tREFI + 1)});
    CHECK(d.stats().refreshes == 10);
}

/// FR-FCFS on shared queues with DRAMSim3's refresh rules.
using dramsim3_refresh_controller =
    dram_controller<fr_fcfs, open_page, bit_field_mapping, shared_queues, watermark_write_drain,
                    dramsim3_refresh>;

TEST_CASE("DRAMSim3's refresh rules: PREs one per cycle, and a request whose column command "
          "would follow the refresh waits for it") {
    const dram_timing t = presets::ddr3_1600_remap; // tREFI 6240, tRFC 208
    const auto m = bit_field_mapping::from_order("rorabachco", t);
    const std::uint64_t tail = t.tRCD + t.tCL + t.burst_cycles(); // ACT -> end of the data
    const byte_address b0 = m.unmap({.bank = 0, .row = 7});
    // Four open banks at the refresh: precharged all at once (default) or one per cycle
    // (DRAMSim3 ChannelState::GetReadyCommand), the REF tRP after the last PRE.
    std::vector<mem_request> open4;
    for (std::uint32_t b = 0; b < 4; ++b)
        open4.push_back(read_at(b, m.unmap({.bank = b, .row = 7}), 100 + 100 * b));
    open4.push_back(read_at(9, b0, t.tREFI));
    auto refresh_end = [&](auto&& c) {
        const auto out = memtest::run(c, open4);
        const completion& r = memtest::by_id(out, 9);
        CHECK(r.kind == row_class::empty);
        return r.done_cycle - t.tRP - t.tRFC - tail;
    };
    CHECK(refresh_end(fr_fcfs_controller<>(m, {.timing = t})) == t.tREFI);
    CHECK(refresh_end(dramsim3_refresh_controller(m, {.timing = t})) == t.tREFI + 3);
    // A read to a closed bank 5 cycles before the refresh is due: its column command would
    // come after the due cycle. By default the refresh waits for it; with dramsim3_refresh
    // (DRAMSim3 FinishRefresh) its ACT issues, the refresh precharges the row tRAS later, and
    // the read activates it again after tRFC.
    const std::vector<mem_request> late{read_at(1, b0, t.tREFI - 5)};
    fr_fcfs_controller<> postpone(m, {.timing = t});
    CHECK(memtest::by_id(memtest::run(postpone, late), 1).done_cycle == t.tREFI - 5 + tail);
    dramsim3_refresh_controller preempt(m, {.timing = t});
    const auto out = memtest::run(preempt, late);
    const completion& r = memtest::by_id(out, 1);
    CHECK(r.kind == row_class::empty);
    CHECK(r.done_cycle == t.tREFI - 5 + t.tRAS + t.tRP + t.tRFC + tail);
}

namespace {

/// Row-hit streaming: reads rotating over channels, then bank groups, then banks, then the
/// columns of row 1, so every bank sees its row hit after the first touch (and after each
/// refresh closes it). Runs `cycles_per_channel` cycles' worth of bursts per channel.
template <class Controller>
const controller_stats& stream(Controller& c, const bit_field_mapping& m, const dram_timing& t,
                               std::uint64_t cycles_per_channel) {
    const auto& o = m.organisation();
    const std::uint64_t n = cycles_per_channel / t.burst_cycles() * o.channels;
    const auto out = memtest::saturate(
        c, n,
        [&](std::uint64_t i) {
            const auto ch = static_cast<std::uint32_t>(i % o.channels);
            const std::uint64_t rest = i / o.channels;
            const auto bg = static_cast<std::uint32_t>(rest % o.bank_groups);
            const auto ba = static_cast<std::uint32_t>((rest / o.bank_groups) % o.banks_per_group);
            const auto col = static_cast<std::uint32_t>(
                (rest / (o.bank_groups * o.banks_per_group)) % o.columns);
            return m.unmap({.channel = ch, .bank_group = bg, .bank = ba, .row = 1, .column = col});
        },
        [](std::uint64_t) { return false; });
    REQUIRE(out.size() == n);
    return c.stats();
}

} // namespace

TEST_CASE("row-hit streaming reaches >= 90% of peak data-bus bandwidth on every preset, over "
          "several refresh intervals") {
    for (const dram_timing* tp : {&presets::ddr3_1600_remap, &presets::ddr4_2400,
                                  &presets::hbm2_4gb_x128, &presets::hmc_vault}) {
        const dram_timing& t = *tp;
        CAPTURE(t.name);
        const auto m = bit_field_mapping::from_order(order_for(t), t);
        // Six refresh intervals (the refresh-free HMC preset: 20000 cycles).
        const std::uint64_t cycles = t.tREFI != 0 ? 6ull * t.tREFI : 20000;
        const std::uint32_t channels = std::min(t.channels, 8u);
        dram_timing tc = t;
        tc.channels = channels; // HMC: 8 of its 256 vaults are enough
        const auto mc = bit_field_mapping::from_order(order_for(tc), tc);
        fr_fcfs_controller<> c(mc, {.timing = tc});
        const controller_stats& s = stream(c, mc, tc, cycles);
        const double u = s.bandwidth_utilisation();
        MESSAGE(t.name << ": " << s.completed() << " row-hit reads over " << s.elapsed_cycles()
                       << " cycles, " << s.refreshes << " refresh commands: " << u * 100.0
                       << " % of peak");
        CHECK(u >= 0.90);
        CHECK(u <= 1.0);
        CHECK(s.row_hit_rate() > 0.95);
        if (t.tREFI != 0) {
            // Refresh really happened, as often as the preset says (per channel: one REF per
            // rank per tREFI, or one REFSB per bank per tREFI).
            const std::uint64_t per_interval =
                t.refresh == refresh_mode::per_bank ? t.banks_per_rank() : 1;
            const std::uint64_t due = s.elapsed_cycles() / t.tREFI * per_interval * t.ranks;
            CHECK(s.refreshes >= channels * (due - per_interval));
        }
    }
}

TEST_CASE("all-bank refresh: the long-run streaming bound is 1 - tRFC/tREFI, and refresh-free "
          "streaming is >= 90 % too") {
    for (const dram_timing* tp :
         {&presets::ddr3_1600_remap, &presets::ddr4_2400, &presets::hbm2_4gb_x128}) {
        dram_timing t = *tp;
        t.refresh = refresh_mode::all_bank;
        t.channels = 1;
        CAPTURE(t.name);
        const auto m = bit_field_mapping::from_order(order_for(t), t);
        fr_fcfs_controller<> c(m, {.timing = t});
        const double u = stream(c, m, t, 10ull * t.tREFI).bandwidth_utilisation();
        // Each REF stops the bus for at least tRFC, plus tRP to precharge, plus tRCD + tCL to
        // reopen a row and get data out again.
        const double upper = 1.0 - static_cast<double>(t.tRFC) / t.tREFI;
        const double lower =
            1.0 -
            static_cast<double>(t.tRFC + t.tRP + t.tRCD + t.tCL + 4 * t.burst_cycles()) / t.tREFI;
        MESSAGE(t.name << " with all-bank refresh: " << u * 100.0 << " % (bound " << upper * 100.0
                       << " %, " << lower * 100.0 << " % with the precharge/reopen cost)");
        CHECK(u <= upper);
        CHECK(u >= lower - 0.02);
        // Without refresh, the scheduling and timing model alone.
        fr_fcfs_controller<> nr(m, {.timing = no_refresh(t)});
        CHECK(stream(nr, m, t, 10ull * t.tREFI).bandwidth_utilisation() >= 0.97);
    }
}

namespace {

/// Random mix for the bus properties: random channels/ranks/banks, few rows (many hits),
/// a third writes, four requesters, arriving faster than any channel serves them.
std::vector<mem_request> bus_mix(const dram_timing& t, const bit_field_mapping& m,
                                 std::uint64_t seed, std::uint64_t n) {
    memsub::xoshiro256ss rng(seed);
    std::vector<mem_request> reqs;
    std::uint64_t at = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        at += rng() % 3;
        const dram_address d{.channel = static_cast<std::uint32_t>(rng() % t.channels),
                             .rank = static_cast<std::uint32_t>(rng() % t.ranks),
                             .bank_group = static_cast<std::uint32_t>(rng() % t.bank_groups),
                             .bank = static_cast<std::uint32_t>(rng() % t.banks_per_group),
                             .row = static_cast<std::uint32_t>(rng() % (seed + 1)),
                             .column = static_cast<std::uint32_t>(rng() % t.columns())};
        reqs.push_back(mem_request{.id = i,
                                   .address = m.unmap(d),
                                   .is_write = rng() % 3 == 0,
                                   .requester = static_cast<std::uint32_t>(i % 4),
                                   .arrival_cycle = at});
    }
    return reqs;
}

/// Bursts of one channel never overlap, and consecutive bursts keep the turnarounds: tRTRS on
/// a read→write switch and between ranks, tWTR_S (+ tCL) on a write→read switch in a rank.
void check_bus(std::vector<completion> out, const dram_timing& t, const bit_field_mapping& m) {
    // Requests served by the write queue (forwarded reads, merged writes) use no bus.
    std::erase_if(out, [](const completion& c) { return c.from_queue; });
    std::sort(out.begin(), out.end(), [](const completion& a, const completion& b) {
        return a.channel != b.channel ? a.channel < b.channel : a.data_cycle < b.data_cycle;
    });
    std::size_t turnarounds = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const completion& cur = out[i];
        CHECK(cur.done_cycle - cur.data_cycle == t.burst_cycles());
        CHECK(cur.selected_cycle >= cur.arrival_cycle);
        if (i == 0 || out[i - 1].channel != cur.channel) continue;
        const completion& prev = out[i - 1];
        CHECK(cur.data_cycle >= prev.done_cycle);
        const bool same_rank = m.map(prev.address).rank == m.map(cur.address).rank;
        if (!same_rank || (!prev.is_write && cur.is_write)) {
            CHECK(cur.data_cycle >= prev.done_cycle + t.tRTRS);
            ++turnarounds;
        } else if (prev.is_write && !cur.is_write) {
            CHECK(cur.data_cycle - t.tCL >= prev.done_cycle + t.tWTR_S);
            ++turnarounds;
        }
    }
    CHECK(turnarounds > 0);
}

} // namespace

TEST_CASE("no pattern exceeds 100% of the bandwidth; bursts never overlap and keep their "
          "turnarounds (property; FR-FCFS, FCFS, partitioned, flat)") {
    dram_timing ddr4_2r = presets::ddr4_2400;
    ddr4_2r.ranks = 2;
    ddr4_2r.name = "DDR4-2400, 2 ranks";
    dram_timing hbm_pb = presets::hbm2_4gb_x128;
    hbm_pb.refresh = refresh_mode::per_bank;
    hbm_pb.name = "HBM2, per-bank refresh";
    for (const dram_timing* tp :
         std::initializer_list<const dram_timing*>{&presets::ddr3_1600_remap, &presets::ddr4_2400,
                                                   &ddr4_2r, &presets::hbm2_4gb_x128, &hbm_pb}) {
        const dram_timing& t = *tp;
        CAPTURE(t.name);
        const auto m =
            bit_field_mapping::from_order(t.ranks > 1 ? "rorabgbachco" : order_for(t), t);
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            CAPTURE(seed);
            const auto reqs = bus_mix(t, m, seed, memtest::scaled(4000));
            {
                fr_fcfs_controller<timeout_adaptive> c(m, {.timing = t});
                auto out = memtest::run(c, reqs);
                REQUIRE(out.size() == reqs.size());
                CHECK(c.stats().bandwidth_utilisation() <= 1.0);
                check_bus(out, t, m);
            }
            {
                fcfs_controller<closed_page> c(m, {.timing = t});
                auto out = memtest::run(c, reqs);
                REQUIRE(out.size() == reqs.size());
                CHECK(c.stats().bandwidth_utilisation() <= 1.0);
                check_bus(out, t, m);
            }
            {
                partitioned_controller<> c(m, {.timing = t, .requesters = 4});
                auto out = memtest::run(c, reqs);
                REQUIRE(out.size() == reqs.size());
                CHECK(c.stats().bandwidth_utilisation() <= 1.0);
                check_bus(out, t, m);
            }
        }
    }
    // The flat memory at a bandwidth that is not a whole number of bytes per cycle per request
    // (64 B at 24 B/cycle = 2.67 cycles): saturated, it reaches but never exceeds 100 %.
    for (const double bpc : {24.0, 16.0, 7.3, 64.0}) {
        CAPTURE(bpc);
        flat_memory f(flat_memory::params{
            .latency_cycles = 40, .bytes_per_cycle = bpc, .request_bytes = 64, .capacity = 64});
        std::vector<mem_request> reqs;
        for (std::uint64_t i = 0; i < 3000; ++i)
            reqs.push_back(read_at(i, byte_address{i * 64}, i / 8));
        const auto out = memtest::run(f, reqs);
        REQUIRE(out.size() == reqs.size());
        const double u = f.stats().bandwidth_utilisation();
        CHECK(u <= 1.0);
        CHECK(u >= 0.95);
    }
}
