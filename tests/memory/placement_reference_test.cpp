// The command placement of dram_channel (reservation against the whole command history, gap
// filling) against a brute-force reference: every request's PRE / ACT / column command is put
// at the first cycle, tried one by one, at which every JEDEC rule holds against every command
// placed so far, the rules written out directly (ACT counts in tFAW windows, data-bus windows
// and turnarounds) rather than as dram_channel's gap table and reservation bitmaps. Multi-bank,
// multi-bank-group and multi-rank configurations, including synthetic timings with
// tCCD_L / tRRD_L / tWTR_L more than twice the _S values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>

#include "helpers.hpp"

using memsub::byte_address;
using namespace memsub::memory;

namespace {

/// FCFS (reads first: the oldest read if its bank takes a request, else the oldest write if
/// its bank does), one selection per cycle, open page, no refresh; a bank takes a request once
/// its previous column command has issued.
struct brute_force_channel {
    explicit brute_force_channel(const dram_timing& timing) : t(timing) {}
    dram_timing t;

    struct col {
        std::int64_t at;
        std::uint32_t rank, group;
        bool write;
    };
    struct act {
        std::int64_t at;
        std::uint32_t rank, group;
    };
    struct bank {
        std::int64_t open_row = -1;
        std::int64_t last_act = -1'000'000;
        std::int64_t last_pre = -1'000'000;
        std::int64_t last_read = -1'000'000;      // column cycle
        std::int64_t last_write_end = -1'000'000; // end of write data
        std::int64_t accept = 0;                  // last column command
    };

    std::vector<col> cols;
    std::vector<act> acts;

    [[nodiscard]] std::int64_t lat(bool write) const { return write ? t.tCWL : t.tCL; }

    bool act_ok(std::int64_t x, std::uint32_t r, std::uint32_t g) const {
        for (const act& a : acts) {
            if (a.rank != r) continue;
            const std::int64_t rrd = a.group == g ? t.tRRD_L : t.tRRD_S;
            if (std::abs(x - a.at) < rrd) return false;
        }
        if (t.tFAW == 0) return true;
        // Every window [s, s + tFAW) holding x holds at most four ACTs with x.
        for (std::int64_t s = x - t.tFAW + 1; s <= x; ++s) {
            int n = 1;
            for (const act& a : acts)
                if (a.rank == r && a.at >= s && a.at < s + t.tFAW) ++n;
            if (n > 4) return false;
        }
        return true;
    }

    bool col_ok(std::int64_t x, std::uint32_t r, std::uint32_t g, bool w) const {
        const std::int64_t burst = t.burst_cycles();
        const std::int64_t ds = x + lat(w), de = ds + burst; // this command's data window
        for (const col& c : cols) {
            if (c.at == x) return false; // one column command per cycle
            const std::int64_t cs = c.at + lat(c.write), ce = cs + burst;
            if (ds < ce && cs < de) return false; // the data bus carries one burst at a time
            if (c.rank != r) {
                // Rank switch: tRTRS between the bursts, in either order.
                if (!(ds >= ce + t.tRTRS || cs >= de + t.tRTRS)) return false;
                continue;
            }
            const bool same_group = c.group == g;
            if (c.write == w) {
                const std::int64_t ccd =
                    std::max<std::int64_t>(burst, same_group ? t.tCCD_L : t.tCCD_S);
                if (std::abs(x - c.at) < ccd) return false;
                continue;
            }
            const std::int64_t wtr = same_group ? t.tWTR_L : t.tWTR_S;
            if (c.write && c.at < x && x < ce + wtr) return false;       // write, then this read
            if (w && x < c.at && c.at < de + wtr) return false;          // this write, then a read
            if (!c.write && c.at < x && ds < ce + t.tRTRS) return false; // read, then this write
            if (!w && x < c.at && cs < de + t.tRTRS) return false;       // this read, then a write
        }
        return true;
    }

    std::vector<completion> run(const std::vector<mem_request>& reqs, const bit_field_mapping& m) {
        const auto& o = m.organisation();
        std::vector<bank> banks(o.banks_per_channel());
        std::vector<bool> taken(reqs.size(), false);
        std::vector<completion> out;
        std::size_t left = reqs.size();
        for (std::int64_t now = 0; left > 0; ++now) {
            REQUIRE(now < 10'000'000);
            // The oldest visible read, else the oldest visible write.
            std::int64_t pick = -1;
            for (int pass = 0; pass < 2 && pick < 0; ++pass) {
                for (std::size_t i = 0; i < reqs.size(); ++i) {
                    if (taken[i] || reqs[i].is_write != (pass == 1) ||
                        static_cast<std::int64_t>(reqs[i].arrival_cycle) > now)
                        continue;
                    const dram_address d = m.map(reqs[i].address);
                    if (banks[flat_bank(d, o)].accept <= now) pick = static_cast<std::int64_t>(i);
                    break; // FCFS: only the oldest of the queue is considered
                }
            }
            if (pick < 0) continue;
            const mem_request& rq = reqs[static_cast<std::size_t>(pick)];
            taken[static_cast<std::size_t>(pick)] = true;
            --left;
            const dram_address d = m.map(rq.address);
            bank& b = banks[flat_bank(d, o)];
            const std::uint32_t r = d.rank, g = d.bank_group;
            row_class kind = row_class::hit;
            std::int64_t col_from = now;
            if (b.open_row != static_cast<std::int64_t>(d.row)) {
                kind = b.open_row < 0 ? row_class::empty : row_class::conflict;
                std::int64_t act_from = std::max(now, b.last_pre + t.tRP);
                if (kind == row_class::conflict) {
                    std::int64_t pre = now;
                    while (pre < b.last_act + t.tRAS || pre < b.last_read + t.tRTP ||
                           pre < b.last_write_end + t.tWR)
                        ++pre;
                    b.last_pre = pre;
                    act_from = pre + t.tRP;
                }
                std::int64_t a = act_from;
                while (!act_ok(a, r, g)) ++a;
                acts.push_back({a, r, g});
                b.last_act = a;
                b.open_row = d.row;
                col_from = a + t.tRCD;
            }
            col_from = std::max(col_from, b.last_act + t.tRCD);
            std::int64_t c = col_from;
            while (!col_ok(c, r, g, rq.is_write)) ++c;
            cols.push_back({c, r, g, rq.is_write});
            b.accept = c;
            const std::int64_t data = c + lat(rq.is_write);
            if (rq.is_write)
                b.last_write_end = data + t.burst_cycles();
            else
                b.last_read = c;
            out.push_back(
                completion{.id = rq.id,
                           .kind = kind,
                           .arrival_cycle = rq.arrival_cycle,
                           .selected_cycle = static_cast<std::uint64_t>(now),
                           .data_cycle = static_cast<std::uint64_t>(data),
                           .done_cycle = static_cast<std::uint64_t>(data) + t.burst_cycles()});
        }
        return out;
    }
};

dram_timing no_refresh(dram_timing t) {
    t.tREFI = 0;
    t.tRFC = 0;
    return t;
}

/// DDR4 with the same-bank-group values stretched beyond twice the others.
dram_timing ddr4_long_l() {
    dram_timing t = no_refresh(presets::ddr4_2400);
    t.name = "DDR4, synthetic tCCD_L 10 / tRRD_L 11 / tWTR_L 12";
    t.tCCD_S = 4;
    t.tCCD_L = 10;
    t.tRRD_S = 4;
    t.tRRD_L = 11;
    t.tWTR_S = 3;
    t.tWTR_L = 12;
    return t;
}

/// Two ranks of HBM2 timing: a write's data latency (4) is much shorter than a read's (14), so
/// a read may be issued before a write of the other rank yet move its data after it.
dram_timing hbm2_two_ranks() {
    dram_timing t = no_refresh(presets::hbm2_4gb_x128);
    t.name = "HBM2 timing, 1 channel, 2 ranks";
    t.channels = 1;
    t.ranks = 2;
    t.bank_groups = 2;
    return t;
}

dram_timing ddr4_two_ranks() {
    dram_timing t = no_refresh(presets::ddr4_2400);
    t.name = "DDR4, 2 ranks";
    t.ranks = 2;
    return t;
}

} // namespace

TEST_CASE("multi-bank placement matches a brute-force reference over the whole command "
          "history") {
    dram_timing ddr3 = no_refresh(presets::ddr3_1600_remap);
    dram_timing ddr4 = no_refresh(presets::ddr4_2400);
    dram_timing hbm = no_refresh(presets::hbm2_4gb_x128);
    hbm.channels = 1;
    const std::vector<dram_timing> configs{
        ddr3, ddr4, ddr4_long_l(), hbm, hbm2_two_ranks(), ddr4_two_ranks()};
    std::size_t compared = 0, overtakes = 0;
    for (const dram_timing& t : configs) {
        CAPTURE(std::string(t.name));
        const char* order = t.bank_groups > 1 ? "rorabgbachco" : "rorabachco";
        const auto m = bit_field_mapping::from_order(order, t);
        const auto& o = m.organisation();
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            CAPTURE(seed);
            memsub::xoshiro256ss rng(seed * 77);
            std::vector<mem_request> reqs;
            std::uint64_t at = 5;
            for (std::uint64_t i = 0; i < 160; ++i) {
                at += rng() % (seed % 2 == 0 ? 3 : 9); // dense: commands pile up ahead
                const dram_address d{
                    .channel = 0,
                    .rank = static_cast<std::uint32_t>(rng() % o.ranks),
                    .bank_group = static_cast<std::uint32_t>(rng() % o.bank_groups),
                    .bank = static_cast<std::uint32_t>(rng() % std::min(o.banks_per_group, 2u)),
                    .row = static_cast<std::uint32_t>(rng() % 3),
                    .column = static_cast<std::uint32_t>(rng() % o.columns)};
                reqs.push_back(mem_request{.id = i,
                                           .address = m.unmap(d),
                                           .is_write = rng() % 4 == 0,
                                           .arrival_cycle = at});
            }
            dram_controller<fcfs, open_page> c(
                m, memtest::writes_only_when_no_read(
                       dram_controller<fcfs, open_page>::params{.timing = t}));
            const auto got = memtest::run(c, reqs);
            brute_force_channel ref(t);
            const auto want = ref.run(reqs, m);
            REQUIRE(got.size() == want.size());
            std::map<std::uint64_t, completion> by;
            for (const auto& x : got) by[x.id] = x;
            std::uint64_t last_sel_done = 0;
            for (const auto& w : want) { // in selection order
                const completion& g = by[w.id];
                CAPTURE(w.id);
                CHECK(g.selected_cycle == w.selected_cycle);
                CHECK(g.kind == w.kind);
                CHECK(g.data_cycle == w.data_cycle);
                CHECK(g.done_cycle == w.done_cycle);
                overtakes += w.done_cycle < last_sel_done;
                last_sel_done = std::max(last_sel_done, w.done_cycle);
                ++compared;
            }
        }
    }
    MESSAGE(compared << " requests compared; " << overtakes
                     << " finished before a request selected earlier (gap filling)");
    CHECK(overtakes > 0);
}
