// memsub — the timing state of one DRAM channel: banks, ranks, the column commands and the
// data bus.
//
// The controller selects one request at a time (at cycle t). The channel places the DRAM
// commands the request needs (PRE if another row is open, ACT if no row is open, then the
// column command RD/WR), each at the earliest cycle ≥ t that every constraint allows. The
// constraints are checked against the whole relevant command history of the channel: the
// commands already placed, in the past and ahead of t. Placement is a reservation. A
// later-selected request never moves the commands of an earlier one, but it may take an earlier
// free slot. For example, a row hit selected one cycle after a row conflict to another bank
// issues and moves its data first, as in DRAMSim3 or Ramulator. Banks work in parallel.
//
// Constraints honoured:
//   bank:    ACT→column tRCD; ACT→PRE tRAS; PRE→ACT tRP; RD→PRE tRTP; write data end→PRE tWR.
//            A bank takes its next request once the column command of its previous one has
//            issued, so each bank's commands are in order.
//   rank:    ACT↔ACT at least tRRD_S (other bank group) / tRRD_L (same group) from every
//            other ACT of the rank; at most four ACTs in any tFAW window.
//   column commands, checked pairwise against every column command of the channel:
//            same rank, same direction:  max(burst, tCCD_S / tCCD_L (same bank group));
//            same rank, write→read:      write data end + tWTR_S / tWTR_L → the RD;
//            same rank, read→write:      the write data starts tRTRS after the read data ends;
//            other rank (either order):  the two bursts are at least tRTRS apart on the bus;
//            at most one column command per cycle.
//            Together these keep data bursts apart on the bus, with turnarounds.
//   refresh: `dram_timing::refresh` (dram_timing.hpp). all_bank issues one REF per rank; it
//            waits for the commands already placed in that rank (postponed, as JEDEC allows),
//            precharges every bank (at once, or one per cycle: `refresh_precharge`, chosen by the
//            controller's refresh part) and blocks them for tRFC. per_bank issues
//            one REFSB per bank in turn and blocks only that bank, for tRFCsb. (A controller
//            that preempts for refresh, as DRAMSim3 does, places only the PRE / ACT of a request
//            before the due cycle: `commit_row_commands`.)
// Deviations from a command-level simulator (DRAMSim3):
//   * The command bus is modelled only as one column command per cycle. ACT/PRE may share a
//     cycle with other commands, as on HBM's separate row and column command buses.
//   * A request's commands are fixed when it is selected. Later requests fill the gaps but never
//     delay them, so the oldest selected work has priority.
//   * Row-buffer policies close rows lazily. A bank records the cycle from which its row is to
//     be closed, and the PRE is resolved at the first legal cycle when the bank is next used or
//     refreshed.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/detail/command_window.hpp>
#include <memsub/memory/detail/reservation_calendar.hpp>
#include <memsub/memory/dram_timing.hpp>

namespace memsub::memory {

/// How an all-bank refresh precharges its rank's open banks: all at once, or one PRE per cycle
/// (the command bus carries one command per cycle; DRAMSim3 ChannelState::GetReadyCommand).
enum class refresh_precharge : std::uint8_t { all_at_once, one_per_cycle };

/// The command cycles of one selected request.
struct command_plan {
    row_class kind = row_class::hit;
    std::uint64_t selected = 0; ///< the selection cycle the plan was made for
    std::uint64_t pre = never;  ///< PRE cycle (conflicts only)
    std::uint64_t act = never;  ///< ACT cycle (empty and conflict)
    std::uint64_t column = 0;   ///< RD / WR cycle
    std::uint64_t data = 0;     ///< first data-bus cycle
    std::uint64_t done = 0;     ///< cycle after the last data beat (completion)
    /// The bank had been closed by the row policy while holding the wanted row.
    bool premature_close = false;
};

class dram_channel {
public:
    static constexpr std::uint32_t no_row = 0xffffffffu;

    struct bank_state {
        std::uint32_t open_row = no_row;
        std::uint64_t close_at = never; ///< policy close time of the open row
        std::uint64_t act_ready = 0;    ///< earliest next ACT (tRP after PRE, tRFC after REF)
        std::uint64_t pre_ready = 0;    ///< earliest PRE (tRAS, tRTP, tWR)
        std::uint64_t col_ready = 0;    ///< earliest column command (tRCD after ACT)
        /// The bank takes a new request from this cycle (its last placed column command).
        std::uint64_t accept_at = 0;
        std::uint32_t closed_row = no_row; ///< the row most recently closed by the policy
    };

    dram_channel() = default;
    explicit dram_channel(const dram_timing& t)
        : t_(t)
        , banks_(t.banks_per_channel())
        , ranks_(t.ranks)
        , burst_(t.burst_cycles()) {
        // Column-to-column gaps, indexed by gap_index (see column_gap below).
        const std::int64_t burst = burst_;
        for (std::uint32_t i = 0; i < 16; ++i) {
            const bool same_rank = (i & 8u) != 0, same_group = (i & 4u) != 0;
            const bool first_write = (i & 2u) != 0, second_write = (i & 1u) != 0;
            const std::int64_t first_lat = first_write ? t.tCWL : t.tCL;
            const std::int64_t second_lat = second_write ? t.tCWL : t.tCL;
            std::int64_t g = 0;
            if (!same_rank) {
                // Rank switch: the second burst starts tRTRS after the first ends.
                g = first_lat + burst + t.tRTRS - second_lat;
            } else if (first_write == second_write) {
                g = std::max<std::int64_t>(burst, same_group ? t.tCCD_L : t.tCCD_S);
            } else if (first_write) {
                g = t.tCWL + burst + (same_group ? t.tWTR_L : t.tWTR_S); // write → read: tWTR
            } else {
                g = t.tCL + burst + t.tRTRS - t.tCWL; // read → write: bus turnaround
            }
            gap_[i] = g;
            max_gap_ = std::max(max_gap_, g);
        }
        // The span a column command of direction w forbids to commands of direction w2:
        // [at − back, at + ahead) with back = gap(w2 → w) − 1, ahead = gap(w → w2).
        for (std::uint32_t w = 0; w < 2; ++w)
            for (std::uint32_t w2 = 0; w2 < 2; ++w2) {
                auto make = [&](bool same_rank, bool same_group) {
                    return span{gap_[gap_index(w2 != 0, w != 0, same_rank, same_group)] - 1,
                                gap_[gap_index(w != 0, w2 != 0, same_rank, same_group)]};
                };
                long_span_[w][w2] = make(true, true);
                short_span_[w][w2] = make(true, false);
                rank_span_[w][w2] = make(false, false);
            }
        max_gap_ = std::max<std::int64_t>(max_gap_, 1);
        // The same-rank spans of a column command (gaps ≥ one burst: back ≥ 0, ahead ≥ 1) as
        // one 64-cycle pattern per row from at − col_back_, when they fit; likewise the tRRD
        // spans of an ACT, and the tFAW spans (at most 2·tFAW − 1 cycles) as short spans.
        for (std::uint32_t w = 0; w < 2; ++w) {
            const span rows[4] = {long_span_[w][0], long_span_[w][1], short_span_[w][0],
                                  short_span_[w][1]};
            std::int64_t back = 0, ahead = 1;
            bool ok = true;
            for (const span& sp : rows) {
                ok = ok && sp.back >= 0 && sp.ahead >= 1;
                back = std::max(back, sp.back);
                ahead = std::max(ahead, sp.ahead);
            }
            col_fits_ = (w == 0 || col_fits_) && ok && back + ahead <= 64;
            col_back_[w] = static_cast<std::uint64_t>(back);
            if (ok && back + ahead <= 64)
                for (std::uint32_t k = 0; k < 4; ++k)
                    col_pattern_[w][k] =
                        bits_between(static_cast<std::uint64_t>(back - rows[k].back),
                                     static_cast<std::uint64_t>(back + rows[k].ahead));
        }
        const std::uint64_t rrd_short = t.bank_groups > 1 ? t.tRRD_S : t.tRRD_L;
        act_back_ = t.tRRD_L == 0 ? 0 : t.tRRD_L - 1; // tRRD_L ≥ tRRD_S
        act_fits_ = 2 * act_back_ + 1 <= 64;
        if (act_fits_ && rrd_short != 0)
            act_pattern_[0] = bits_between(act_back_ - (rrd_short - 1), act_back_ + rrd_short);
        if (act_fits_ && t.tRRD_L != 0) act_pattern_[1] = bits_between(0, 2 * act_back_ + 1);
        act_reach_ = std::max<std::uint64_t>({1, t.tFAW, t.tRRD_L});
        act_batch_ = 2 * act_reach_ - 1 <= 64;
        groups_ = t.bank_groups;
        ranks_n_ = t.ranks;
        data_latency_ = {t.tCL, t.tCWL};
        pre_gap_ = {t.tRTP,
                    std::uint64_t{t.tCWL} + burst_ + t.tWR}; // read: tRTP; write: data + tWR
        group_bits_ = log2_exact(t.bank_groups);
        group_shift_ = log2_exact(t.banks_per_group); // all organisation counts are powers of 2
        rank_shift_ = log2_exact(t.banks_per_rank());
        // How far ahead of its selection cycle a command can be placed: each of the ≤ banks
        // outstanding requests adds at most one row cycle, ACT spacing, column gap and (per-bank
        // refresh) one REFSB beyond the commands before it; all-bank refresh adds tRFC once or
        // twice. The calendars span twice that (checked in Debug builds at every commit).
        const bool per_bank = t.refresh == refresh_mode::per_bank && t.tREFI != 0;
        const std::uint64_t per_request = std::uint64_t{t.tRP} + t.tRAS + t.tRCD +
                                          std::max({t.tFAW, t.tRRD_L, t.tRRD_S}) +
                                          static_cast<std::uint64_t>(max_gap_) + t.tCL + t.tCWL +
                                          burst_ + t.tWR + t.tRTP + 16 + (per_bank ? t.tRFCsb : 0);
        horizon_ = std::uint64_t{t.banks_per_channel()} * per_request +
                   2 * std::uint64_t{t.tREFI == 0 ? 0 : t.tRFC} + 256;
        // Rows: per rank and direction the spans every column command forbids ("short": the
        // _S gaps, rank switches, one command per cycle), then per (rank, group, direction) the
        // longer same-group spans (_L ⊇ _S). ACTs likewise: per rank tRRD_S and tFAW, per
        // (rank, group) tRRD_L. A kind's free cycles are those free in its two rows.
        const std::uint32_t rg = t.ranks * t.bank_groups;
        cols_ = detail::reservation_calendar(2 * t.ranks + 2 * rg, 2 * horizon_ + 256);
        acts_ = detail::reservation_calendar(t.ranks + rg, 2 * horizon_ + 256);
        // FAW needs the ACTs of the last tFAW cycles and those ahead (≤ one per bank).
        if (t.tFAW != 0)
            for (auto& r : ranks_)
                r.acts = detail::command_window<act_cmd>(std::size_t{t.tFAW} + 8 +
                                                         t.banks_per_channel());
        slots_ = t.refresh == refresh_mode::per_bank ? t.banks_per_rank() : 1;
        for (std::uint32_t r = 0; r < ranks_.size(); ++r)
            ranks_[r].next_refresh = refresh_due(r, 0);
        next_refresh_ = next_refresh();
    }

    [[nodiscard]] std::uint32_t bank_group_of(std::uint32_t bank) const noexcept {
        return (bank >> group_shift_) & (groups_ - 1);
    }
    [[nodiscard]] std::uint32_t rank_of(std::uint32_t bank) const noexcept {
        return bank >> rank_shift_;
    }
    /// rank · bank_groups + bank group of a flat bank.
    [[nodiscard]] std::uint32_t rank_group_of(std::uint32_t bank) const noexcept {
        return bank >> group_shift_;
    }
    [[nodiscard]] const bank_state& bank(std::uint32_t b) const noexcept { return banks_[b]; }

    /// The earliest cycle ≥ `t` at which a column command (read or `write`) to bank `b` could be
    /// placed, for a row hit selected at `t` (what a first-ready scheduler compares).
    [[nodiscard]] std::uint64_t column_ready(std::uint32_t b, bool write,
                                             std::uint64_t t) const noexcept {
        return cols_.first_free(col_short(rank_of(b), write), col_long(rank_group_of(b), write),
                                std::max(t, banks_[b].col_ready));
    }
    /// The earliest cycle ≥ `t` free for a column command of rank·groups + group `rg`.
    [[nodiscard]] std::uint64_t column_slot(std::uint32_t rg, bool write,
                                            std::uint64_t t) const noexcept {
        return cols_.first_free(col_short(rg >> group_bits_, write), col_long(rg, write), t);
    }
    /// Banks per channel and rank-groups (ranks · bank groups).
    [[nodiscard]] std::uint32_t rank_groups() const noexcept { return ranks() * groups_; }

    /// The cycle rank `r`'s next refresh is due (never without refresh).
    [[nodiscard]] std::uint64_t refresh_due_of_rank(std::uint32_t r) const noexcept {
        return ranks_[r].next_refresh;
    }

    /// Performs every refresh due at or before `t` (call before deciding at cycle t).
    /// Returns the number of refresh commands (REF or REFSB) performed. A long idle gap costs
    /// O(banks), not one step per refresh (see refresh_due_by).
    /// `pre`: how an all-bank refresh precharges its rank's open banks.
    MEMSUB_ALWAYS_INLINE std::uint64_t
    refresh_until(std::uint64_t t,
                  refresh_precharge pre = refresh_precharge::all_at_once) noexcept {
        if (MEMSUB_LIKELY(t < next_refresh_)) return 0; // the usual case, inline
        return refresh_due_by(t, pre);
    }

    /// The earliest refresh due over the ranks (never without refresh).
    [[nodiscard]] std::uint64_t next_refresh() const noexcept {
        std::uint64_t m = never;
        for (const auto& r : ranks_) m = std::min(m, r.next_refresh);
        return m;
    }

private:
    std::uint64_t refresh_due_by(std::uint64_t t, refresh_precharge pre) noexcept {
        std::uint64_t n = 0;
        for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
            rank_state& rs = ranks_[r];
            const std::uint32_t first = r * t_.banks_per_rank();
            while (rs.next_refresh <= t) {
                const std::uint64_t due = rs.next_refresh;
                // Idle fast-forward: when every bank of the rank is precharged and free by
                // `due`, each refresh leaves a bank closed and blocked until its own due cycle +
                // tRFC(sb) (< tREFI, the spacing of the same slot's refreshes: due(k + slots) =
                // due(k) + tREFI), whatever came before. So only the last round of `slots_`
                // refreshes before `t` determines the state: the whole rounds before it are
                // counted, not stepped (exactly the state and count stepping gives).
                if (t - due >= 2 * std::uint64_t{t_.tREFI} && rank_idle(first, due)) {
                    const std::uint64_t skipped = ((t - due) / t_.tREFI - 1) * slots_;
                    rs.refreshes += skipped;
                    n += skipped;
                    rs.next_refresh = refresh_due(r, rs.refreshes);
                    continue;
                }
                if (t_.refresh == refresh_mode::per_bank)
                    refresh_banks(first + static_cast<std::uint32_t>(rs.refreshes % slots_), 1, due,
                                  t_.tRFCsb, pre);
                else
                    refresh_banks(first, t_.banks_per_rank(), due, t_.tRFC, pre);
                ++rs.refreshes;
                rs.next_refresh = refresh_due(r, rs.refreshes);
                ++n;
            }
        }
        next_refresh_ = next_refresh();
        return n;
    }

public:
    /// Resolves a policy close that is due by cycle `t` (the bank's row is then closed, with
    /// its PRE at the first legal cycle ≥ the close time).
    void settle(std::uint32_t b, std::uint64_t t) noexcept {
        bank_state& bs = banks_[b];
        if (bs.open_row != no_row && bs.close_at <= t) {
            const std::uint64_t pre = std::max(bs.close_at, bs.pre_ready);
            bs.act_ready = std::max(bs.act_ready, pre + t_.tRP);
            bs.closed_row = bs.open_row;
            bs.open_row = no_row;
            bs.close_at = never;
        }
    }

    /// The class a request for `row` at bank `b` would find if selected at `t` (after settle).
    [[nodiscard]] row_class classify(std::uint32_t b, std::uint32_t row,
                                     std::uint64_t t) const noexcept {
        const bank_state& bs = banks_[b];
        const bool open = bs.open_row != no_row && bs.close_at > t;
        if (!open) return row_class::empty;
        return bs.open_row == row ? row_class::hit : row_class::conflict;
    }

    /// The earliest commands for a request selected at `t` (the bank must be settled at t and
    /// take a request: t ≥ bank(b).accept_at).
    [[nodiscard]] command_plan plan(std::uint32_t b, std::uint32_t row, bool write,
                                    std::uint64_t t) const noexcept {
        const bank_state& bs = banks_[b];
        const std::uint32_t r = rank_of(b);
        const std::uint32_t rg = rank_group_of(b);
        command_plan p;
        p.selected = t;
        p.kind = classify(b, row, t);
        p.premature_close = p.kind == row_class::empty && bs.closed_row == row;
        std::uint64_t col_min = std::max(t, bs.col_ready);
        if (p.kind != row_class::hit) {
            std::uint64_t act = std::max(t, bs.act_ready);
            if (p.kind == row_class::conflict) {
                p.pre = std::max(t, bs.pre_ready);
                act = std::max(act, p.pre + t_.tRP);
            }
            p.act = acts_.first_free(r, act_long(rg), act);
            col_min = std::max(t, p.act + t_.tRCD);
        }
        p.column = cols_.first_free(col_short(r, write), col_long(rg, write), col_min);
        p.data = p.column + data_latency_[write ? 1 : 0];
        p.done = p.data + burst_;
        return p;
    }

    /// Records the commands of `p` (from `plan` at the same state) for bank `b`; the row then
    /// closes from `close_at` on (`never` = stays open; ≤ column = auto-precharge). Selection
    /// cycles never decrease from one request to the next (a controller decides in time order).
    void commit(std::uint32_t b, std::uint32_t row, bool write, const command_plan& p,
                std::uint64_t close_at) noexcept {
        bank_state& bs = banks_[b];
        const std::uint32_t r = rank_of(b);
        const std::uint32_t rg = rank_group_of(b);
        rank_state& rs = ranks_[r];
        MEMSUB_ASSERT(p.column < p.selected + horizon_);
        // Selection cycles never decrease: nothing before this one is placed or queried again.
        cols_.set_floor(p.selected);
        acts_.set_floor(p.selected);
        if (p.kind != row_class::hit) record_act(rs, r, rg, p.act, p.selected);
        if (p.kind != row_class::hit) {
            bs.open_row = row;
            bs.col_ready = p.act + t_.tRCD;
            bs.pre_ready = p.act + t_.tRAS;
        }
        const std::uint64_t pre_after = p.column + pre_gap_[write ? 1 : 0]; // tWR / tRTP
        bs.pre_ready = std::max(bs.pre_ready, pre_after);
        bs.accept_at = p.column;
        bs.closed_row = no_row;
        bs.close_at = close_at <= p.column ? p.column : close_at;
        if (close_at <= p.column) {
            // Auto-precharge: resolve now so classify sees the bank closed from this cycle on.
            bs.act_ready = std::max(bs.act_ready, bs.pre_ready + t_.tRP);
            bs.open_row = no_row;
            bs.close_at = never;
        }
        record_column(r, rg, write, p.column, p.selected);
    }

    /// Records only the row commands of `p` (from `plan` at the same state) that come before
    /// `limit`, for a request whose column command will not issue before then (DRAMSim3's
    /// refresh preemption, command_queue.cc FinishRefresh: a request's PRE and ACT may issue
    /// before its rank's refresh is due and its RD / WR not; the refresh then precharges the
    /// row, tRAS after the ACT, and the request activates it again afterwards).
    void commit_row_commands(std::uint32_t b, std::uint32_t row, const command_plan& p,
                             std::uint64_t limit) noexcept {
        if (p.kind == row_class::hit) return;
        bank_state& bs = banks_[b];
        cols_.set_floor(p.selected);
        acts_.set_floor(p.selected);
        if (p.kind == row_class::conflict && p.pre < limit) {
            bs.act_ready = std::max(bs.act_ready, p.pre + t_.tRP);
            bs.open_row = no_row;
            bs.close_at = never;
        }
        if (p.act >= limit) return;
        const std::uint32_t r = rank_of(b);
        record_act(ranks_[r], r, rank_group_of(b), p.act, p.selected);
        bs.open_row = row;
        bs.close_at = never;
        bs.closed_row = no_row;
        bs.col_ready = p.act + t_.tRCD;
        bs.pre_ready = std::max(bs.pre_ready, p.act + t_.tRAS);
    }

    [[nodiscard]] const dram_timing& timing() const noexcept { return t_; }

    /// The least column-to-column distance when a column command (`first_write`) is followed by
    /// another (`second_write`) of the same/other rank and bank group; may be ≤ 0 across ranks
    /// when the second's data latency is longer. Exposed for tests.
    [[nodiscard]] std::int64_t column_gap(bool first_write, bool second_write, bool same_rank,
                                          bool same_group) const noexcept {
        return gap_[gap_index(first_write, second_write, same_rank, same_group)];
    }

private:
    struct act_cmd {
        std::uint64_t at;
        std::uint32_t group;
    };
    struct rank_state {
        detail::command_window<act_cmd> acts;
        std::uint64_t refreshes = 0; ///< refresh commands performed
        std::uint64_t next_refresh = never;
    };

    [[nodiscard]] static constexpr std::uint32_t
    gap_index(bool first_write, bool second_write, bool same_rank, bool same_group) noexcept {
        return (same_rank ? 8u : 0u) | (same_rank && same_group ? 4u : 0u) |
               (first_write ? 2u : 0u) | (second_write ? 1u : 0u);
    }

    /// Every bank of the rank starting at `first` is precharged and may take an ACT by `due`.
    [[nodiscard]] bool rank_idle(std::uint32_t first, std::uint64_t due) const noexcept {
        for (std::uint32_t b = first; b < first + t_.banks_per_rank(); ++b)
            if (banks_[b].open_row != no_row || banks_[b].act_ready > due) return false;
        return true;
    }

    /// Due cycle of refresh number `k` of rank `r`: the refresh slots (one per tREFI for
    /// all-bank, one per bank for per-bank) of all ranks are spread evenly over tREFI.
    [[nodiscard]] std::uint64_t refresh_due(std::uint32_t r, std::uint64_t k) const noexcept {
        if (t_.tREFI == 0) return never;
        const std::uint64_t ranks = ranks_.size();
        return ((k * ranks + r + 1) * t_.tREFI) / (std::uint64_t{slots_} * ranks);
    }

    /// Refreshes banks [first, first + n) due at `due`: waits for the commands already placed
    /// there, precharges open rows, blocks the banks for `trfc`.
    void refresh_banks(std::uint32_t first, std::uint32_t n, std::uint64_t due, std::uint32_t trfc,
                       refresh_precharge precharge) noexcept {
        std::uint64_t start = due;
        std::array<std::uint64_t, 64> pre{}; // the open banks' earliest PRE cycles
        std::uint32_t open = 0;
        for (std::uint32_t b = first; b < first + n; ++b) {
            settle(b, due);
            const bank_state& bs = banks_[b];
            if (bs.open_row != no_row)
                pre[open++] = std::max(due, bs.pre_ready);
            else
                start = std::max(start, bs.act_ready);
        }
        if (precharge == refresh_precharge::one_per_cycle) {
            // One PRE per command-bus cycle (DRAMSim3 ChannelState::GetReadyCommand returns
            // one ready PRE of the rank per cycle for the pending REF): in order of readiness,
            // each at the first cycle both it is ready and the bus is free.
            std::sort(pre.begin(), pre.begin() + open);
            for (std::uint32_t i = 1; i < open; ++i) pre[i] = std::max(pre[i], pre[i - 1] + 1);
        }
        for (std::uint32_t i = 0; i < open; ++i) start = std::max(start, pre[i] + t_.tRP);
        for (std::uint32_t b = first; b < first + n; ++b) {
            bank_state& bs = banks_[b];
            bs.open_row = no_row;
            bs.close_at = never;
            bs.closed_row = no_row;
            bs.act_ready = start + trfc;
        }
    }

    /// Bits [lo, hi) of a word (0 ≤ lo < hi ≤ 64).
    [[nodiscard]] static constexpr std::uint64_t bits_between(std::uint64_t lo,
                                                              std::uint64_t hi) noexcept {
        return (~std::uint64_t{0} >> (64 - (hi - lo))) << lo;
    }

    [[nodiscard]] std::uint32_t ranks() const noexcept { return ranks_n_; }
    [[nodiscard]] static std::uint32_t col_short(std::uint32_t r, bool write) noexcept {
        return r * 2 + (write ? 1u : 0u);
    }
    /// Rows of rank-group rg = rank · groups + group: its column row, its ACT row.
    [[nodiscard]] std::uint32_t col_long(std::uint32_t rg, bool write) const noexcept {
        return 2 * ranks_n_ + rg * 2 + (write ? 1u : 0u);
    }
    [[nodiscard]] std::uint32_t act_long(std::uint32_t rg) const noexcept { return ranks_n_ + rg; }

    /// Marks the cycles the column command `e` (rank r, group g, `write`, at `at`) forbids to
    /// the other column commands: a command X at cycle x before `e` needs at − x ≥ gap(X → e),
    /// one after it x − at ≥ gap(e → X), and none shares its cycle. Cycles before `from` (the
    /// selection cycle: nothing is placed or queried earlier any more) may be marked or not.
    void record_column(std::uint32_t r, std::uint32_t rg, bool write, std::uint64_t at,
                       std::uint64_t from) noexcept {
        const auto a = static_cast<std::int64_t>(at);
        const auto floor = static_cast<std::int64_t>(from);
        const std::uint32_t w = write ? 1u : 0u;
        // Rows w2 = read, write of: this rank and group; this rank (the other groups, when
        // there are any; with one group, all are in it).
        const std::uint32_t long_row = col_long(rg, false), short_row = col_short(r, false);
        if (MEMSUB_LIKELY(col_fits_ && at >= col_back_[w])) {
            // One pattern per row from `base`. It also marks cycles before `from`; nothing
            // queries those any more, so that is the same as skipping them.
            const std::uint64_t base = at - col_back_[w];
            const std::array<std::uint64_t, 4> pat = col_pattern_[w]; // a copy: no aliasing
            const bool groups = groups_ > 1;
            cols_.prepare(base + 64);
            cols_.forbid_pattern(long_row, base, pat[0]);
            cols_.forbid_pattern(long_row + 1, base, pat[1]);
            if (groups) {
                cols_.forbid_pattern(short_row, base, pat[2]);
                cols_.forbid_pattern(short_row + 1, base, pat[3]);
            }
        } else {
            const auto lo = [a, floor](std::int64_t back) {
                return static_cast<std::uint64_t>(std::max(floor, a - back));
            };
            for (std::uint32_t w2 = 0; w2 < 2; ++w2) {
                const span l = long_span_[w][w2], sh = short_span_[w][w2];
                cols_.forbid(long_row + w2, lo(l.back), static_cast<std::uint64_t>(a + l.ahead));
                if (groups_ > 1)
                    cols_.forbid(short_row + w2, lo(sh.back),
                                 static_cast<std::uint64_t>(a + sh.ahead));
            }
        }
        if (ranks() > 1) {
            for (std::uint32_t w2 = 0; w2 < 2; ++w2) {
                const span& o = rank_span_[w][w2];
                for (std::uint32_t r2 = 0; r2 < ranks(); ++r2) {
                    if (r2 == r) continue;
                    const std::uint32_t row = col_short(r2, w2 != 0);
                    const std::int64_t lo2 = std::max(floor, a - o.back);
                    if (lo2 < a + o.ahead)
                        cols_.forbid(row, static_cast<std::uint64_t>(lo2),
                                     static_cast<std::uint64_t>(a + o.ahead));
                    if (o.back < 0 || o.ahead < 1) cols_.forbid(row, at, at + 1); // one per cycle
                }
            }
        }
    }

    /// Marks the cycles an ACT of rank r, group g at `x` forbids to other ACTs of the rank:
    /// (x − tRRD, x + tRRD) with tRRD_L in its group and tRRD_S in the others; and for every run
    /// of four consecutive ACTs y1 ≤ … ≤ y4 (the new one among them) spanning < tFAW, the
    /// cycles (y4 − tFAW, y1 + tFAW), where a fifth ACT would put five in a tFAW window.
    /// (Spans only grow: an ACT placed later between y1 and y4 leaves them forbidden.)
    void record_act(rank_state& rs, std::uint32_t r, std::uint32_t rg, std::uint64_t x,
                    std::uint64_t from) noexcept {
        // [x − back, hi) clipped to ≥ from (x ≥ from: the ACT is placed after its selection).
        const auto clip = [from, x](std::uint64_t back) { return x - std::min(x - from, back); };
        // Every span ends by x + act_reach_ (tRRD after x, or y1 + tFAW with y1 ≤ x).
        const bool patterns = act_fits_ && x >= act_back_;
        if (act_batch_ || patterns)
            acts_.prepare(std::max(x + act_reach_, x - std::min(x, act_back_) + 64));
        const auto mark = [this](std::uint32_t row, std::uint64_t lo, std::uint64_t hi) {
            if (act_batch_)
                acts_.forbid_short(row, lo, hi);
            else
                acts_.forbid(row, lo, hi);
        };
        // With one bank group every ACT is in the same group: tRRD_L throughout.
        const std::uint64_t rrd_short = groups_ > 1 ? t_.tRRD_S : t_.tRRD_L;
        const bool rrd_long = groups_ > 1 && t_.tRRD_L > t_.tRRD_S;
        const std::uint32_t long_row = act_long(rg);
        if (MEMSUB_LIKELY(patterns)) {
            // Patterns from x − (tRRD_L − 1); cycles before `from` are never queried again.
            const std::uint64_t base = x - act_back_;
            const std::uint64_t pat_short = act_pattern_[0], pat_long = act_pattern_[1];
            if (rrd_short != 0) acts_.forbid_pattern(r, base, pat_short);
            if (rrd_long) acts_.forbid_pattern(long_row, base, pat_long);
        } else {
            if (rrd_short != 0) acts_.forbid(r, clip(rrd_short - 1), x + rrd_short);
            if (rrd_long) acts_.forbid(long_row, clip(t_.tRRD_L - 1), x + t_.tRRD_L);
        }
        if (t_.tFAW == 0) return;
        if (from > t_.tFAW) rs.acts.drop_before(from - t_.tFAW + 1);
        const std::size_t k = rs.acts.insert(act_cmd{.at = x, .group = rg & (groups_ - 1)});
        const auto acts = rs.acts.entries();
        for (std::size_t j = k >= 3 ? k - 3 : 0; j <= k && j + 3 < acts.size(); ++j) {
            const std::uint64_t y1 = acts[j].at, y4 = acts[j + 3].at;
            if (y4 - y1 >= t_.tFAW) continue;
            // (y4 − tFAW, y1 + tFAW), clipped to ≥ from
            const std::uint64_t lo =
                std::max(from, y4 + 1 - std::min(y4 + 1, std::uint64_t{t_.tFAW}));
            if (lo < y1 + t_.tFAW) mark(r, lo, y1 + t_.tFAW);
        }
    }

    dram_timing t_{};
    std::vector<bank_state> banks_;
    std::vector<rank_state> ranks_;
    detail::reservation_calendar cols_; ///< forbidden column-command cycles (rows: see ctor)
    detail::reservation_calendar acts_; ///< forbidden ACT cycles (rows: see ctor)
    std::uint32_t groups_ = 1;
    std::uint32_t group_shift_ = 0; ///< log2 banks per group
    std::uint32_t group_bits_ = 0;  ///< log2 bank groups
    std::uint32_t ranks_n_ = 1;
    std::array<std::uint64_t, 2> data_latency_{}; ///< column → data: tCL, tCWL
    std::array<std::uint64_t, 2> pre_gap_{};      ///< column → PRE allowed: read, write
    std::uint32_t rank_shift_ = 0;                ///< log2 banks per rank
    std::uint64_t horizon_ = 0; ///< commands are placed < selection cycle + horizon_
    std::array<std::int64_t, 16> gap_{};
    /// Cycles [at − back, at + ahead) a column command forbids, by [its direction][the other's]:
    /// same rank and group, same rank other group, other rank.
    struct span {
        std::int64_t back = 0;
        std::int64_t ahead = 0;
    };
    span long_span_[2][2]{};
    span short_span_[2][2]{};
    span rank_span_[2][2]{};
    std::int64_t max_gap_ = 1;
    /// Same-rank column spans as patterns: by direction, the first cycle's distance before
    /// the command and the bits of rows long read, long write, short read, short write.
    bool col_fits_ = false;
    std::array<std::uint64_t, 2> col_back_{};
    std::array<std::array<std::uint64_t, 4>, 2> col_pattern_{};
    /// ACT tRRD spans as patterns from x − act_back_ (rank row, rank-group row).
    bool act_fits_ = false;
    std::uint64_t act_back_ = 0;
    std::array<std::uint64_t, 2> act_pattern_{};
    bool act_batch_ = false;      ///< ACT spans fit forbid_short
    std::uint64_t act_reach_ = 1; ///< ACT spans end by x + act_reach_
    std::uint32_t burst_ = 4;
    std::uint32_t slots_ = 1;            ///< refresh commands per rank per tREFI
    std::uint64_t next_refresh_ = never; ///< earliest refresh due over the ranks
};

} // namespace memsub::memory
