// memsub — the timing state of one DRAM channel: banks, ranks and the data bus.
//
// The controller selects one request at a time and commits the DRAM commands it needs (PRE if
// another row is open, ACT if no row is open, then the column command RD/WR) at the earliest
// cycles the timing allows; the channel records them. Constraints honoured:
//   bank:  ACT→column tRCD; ACT→PRE tRAS; PRE→ACT tRP; RD→PRE tRTP; write data end→PRE tWR;
//   rank:  ACT→ACT tRRD_S / tRRD_L (other / same bank group); ≤ 4 ACTs per tFAW window;
//          write data end→RD tWTR_S / tWTR_L; refresh every tREFI taking tRFC with all banks
//          precharged (postponed past commands already committed, as JEDEC allows);
//   channel: column→column tCCD_S / tCCD_L; bursts of BL/2 cycles never overlap on the data
//          bus, with tRTRS turnaround between reads and writes and between ranks.
// Commands are committed in selection order, so per rank the ACTs, and per channel the column
// commands and the bursts, are in that order. Simplifications (documented deviations from a
// command-level simulator such as DRAMSim3): the command bus is not a shared resource (several
// commands may be committed for the same cycle on different banks), and a request's commands
// are fixed when it is selected. Row-buffer policies close rows lazily: a bank records the
// cycle from which its row is to be closed and the precharge is resolved when the bank is next
// used or refreshed, at the first legal cycle.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/dram_timing.hpp>

namespace memsub::memory {

/// The command cycles of one selected request.
struct command_plan {
    row_class kind = row_class::hit;
    std::uint64_t pre = never; ///< PRE cycle (conflicts only)
    std::uint64_t act = never; ///< ACT cycle (empty and conflict)
    std::uint64_t column = 0;  ///< RD / WR cycle
    std::uint64_t data = 0;    ///< first data-bus cycle
    std::uint64_t done = 0;    ///< cycle after the last data beat (completion)
    /// The bank had been closed by the row policy while holding the wanted row.
    bool premature_close = false;
};

class dram_channel {
public:
    static constexpr std::uint32_t no_row = 0xffffffffu;

    struct bank_state {
        std::uint32_t open_row = no_row;
        /// Row that a pending policy close will close (for premature-close detection).
        std::uint64_t close_at = never; ///< policy close time of the open row
        std::uint64_t act_ready = 0;    ///< earliest next ACT (tRP after PRE, tRFC after REF)
        std::uint64_t pre_ready = 0;    ///< earliest PRE (tRAS, tRTP, tWR)
        std::uint64_t col_ready = 0;    ///< earliest column command (tRCD after ACT)
        /// The bank takes a new request from this cycle (the last committed column command).
        std::uint64_t accept_at = 0;
        std::uint32_t closed_row = no_row; ///< the row most recently closed by the policy
    };

    dram_channel() = default;
    explicit dram_channel(const dram_timing& t)
        : t_(t)
        , banks_(t.banks_per_channel())
        , ranks_(t.ranks)
        , burst_(t.burst_cycles()) {
        for (auto& r : ranks_) r.next_refresh = t.tREFI == 0 ? never : t.tREFI;
        next_refresh_ = next_refresh();
    }

    [[nodiscard]] std::uint32_t bank_group_of(std::uint32_t bank) const noexcept {
        return (bank / t_.banks_per_group) % t_.bank_groups;
    }
    [[nodiscard]] std::uint32_t rank_of(std::uint32_t bank) const noexcept {
        return bank / t_.banks_per_rank();
    }
    [[nodiscard]] const bank_state& bank(std::uint32_t b) const noexcept { return banks_[b]; }

    /// Performs every refresh due at or before `t` (call before deciding at cycle t).
    /// Returns the number of refreshes performed.
    std::uint32_t refresh_until(std::uint64_t t) noexcept {
        if (MEMSUB_LIKELY(t < next_refresh_)) return 0;
        std::uint32_t n = 0;
        for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
            rank_state& rs = ranks_[r];
            while (rs.next_refresh <= t) {
                std::uint64_t start = rs.next_refresh;
                const std::uint32_t first = r * t_.banks_per_rank();
                for (std::uint32_t b = first; b < first + t_.banks_per_rank(); ++b) {
                    settle(b, rs.next_refresh);
                    const bank_state& bs = banks_[b];
                    if (bs.open_row != no_row)
                        start = std::max(start, std::max(rs.next_refresh, bs.pre_ready) + t_.tRP);
                    else
                        start = std::max(start, bs.act_ready);
                }
                for (std::uint32_t b = first; b < first + t_.banks_per_rank(); ++b) {
                    bank_state& bs = banks_[b];
                    bs.open_row = no_row;
                    bs.close_at = never;
                    bs.closed_row = no_row;
                    bs.act_ready = start + t_.tRFC;
                }
                rs.next_refresh += t_.tREFI;
                ++n;
            }
        }
        next_refresh_ = next_refresh();
        return n;
    }

    /// The earliest refresh due over the ranks (never without refresh).
    [[nodiscard]] std::uint64_t next_refresh() const noexcept {
        std::uint64_t m = never;
        for (const auto& r : ranks_) m = std::min(m, r.next_refresh);
        return m;
    }

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

    /// The earliest commands for a request selected at `t` (the bank must be settled at t).
    [[nodiscard]] command_plan plan(std::uint32_t b, std::uint32_t row, bool write,
                                    std::uint64_t t) const noexcept {
        const bank_state& bs = banks_[b];
        const std::uint32_t r = rank_of(b);
        const std::uint32_t bg = bank_group_of(b);
        const rank_state& rs = ranks_[r];
        command_plan p;
        p.kind = classify(b, row, t);
        p.premature_close = p.kind == row_class::empty && bs.closed_row == row;
        std::uint64_t col_min = std::max(t, bs.col_ready);
        if (p.kind != row_class::hit) {
            std::uint64_t act = std::max(t, bs.act_ready);
            if (p.kind == row_class::conflict) {
                p.pre = std::max(t, bs.pre_ready);
                act = std::max(act, p.pre + t_.tRP);
            }
            if (rs.acts > 0) {
                const std::uint32_t rrd = rs.last_act_group == bg ? t_.tRRD_L : t_.tRRD_S;
                act = std::max(act, rs.last_act + rrd);
            }
            if (t_.tFAW != 0 && rs.acts >= 4)
                act = std::max(act, rs.act_window[rs.acts % 4] + t_.tFAW);
            p.act = act;
            col_min = std::max(t, act + t_.tRCD);
        }
        // Column-to-column spacing (channel), write-to-read turnaround (rank).
        if (columns_ > 0) {
            const bool same_group = last_col_rank_ == r && last_col_group_ == bg;
            col_min = std::max(col_min, last_col_ + (same_group ? t_.tCCD_L : t_.tCCD_S));
        }
        if (!write && rs.last_write_end != 0) {
            const std::uint32_t wtr = rs.last_write_group == bg ? t_.tWTR_L : t_.tWTR_S;
            col_min = std::max(col_min, rs.last_write_end + wtr);
        }
        // Data bus: bursts in order, turnaround on direction or rank change.
        const std::uint32_t lat = write ? t_.tCWL : t_.tCL;
        std::uint64_t bus_ready = bus_free_;
        if (bursts_ > 0 && (last_burst_write_ != write || last_burst_rank_ != r))
            bus_ready += t_.tRTRS;
        if (col_min + lat < bus_ready) col_min = bus_ready - lat;
        p.column = col_min;
        p.data = col_min + lat;
        p.done = p.data + burst_;
        return p;
    }

    /// Records the commands of `p` (from `plan` at the same state) for bank `b`; the row then
    /// closes from `close_at` on (`never` = stays open; ≤ column = auto-precharge).
    void commit(std::uint32_t b, std::uint32_t row, bool write, const command_plan& p,
                std::uint64_t close_at) noexcept {
        bank_state& bs = banks_[b];
        const std::uint32_t r = rank_of(b);
        const std::uint32_t bg = bank_group_of(b);
        rank_state& rs = ranks_[r];
        if (p.kind != row_class::hit) {
            rs.act_window[rs.acts % 4] = p.act;
            ++rs.acts;
            rs.last_act = p.act;
            rs.last_act_group = bg;
            bs.open_row = row;
            bs.col_ready = p.act + t_.tRCD;
            bs.pre_ready = p.act + t_.tRAS;
        }
        const std::uint64_t pre_after = write ? p.done + t_.tWR : p.column + t_.tRTP;
        bs.pre_ready = std::max(bs.pre_ready, pre_after);
        bs.accept_at = p.column;
        bs.closed_row = no_row;
        bs.close_at = close_at <= p.column ? p.column : close_at;
        if (close_at <= p.column) {
            // Auto-precharge: resolve now so classify sees the bank closed from this cycle on.
            const std::uint64_t pre = bs.pre_ready;
            bs.act_ready = std::max(bs.act_ready, pre + t_.tRP);
            bs.open_row = no_row;
            bs.close_at = never;
        }
        last_col_ = p.column;
        last_col_group_ = bg;
        last_col_rank_ = r;
        ++columns_;
        if (write) {
            rs.last_write_end = p.done;
            rs.last_write_group = bg;
        }
        bus_free_ = p.done;
        last_burst_write_ = write;
        last_burst_rank_ = r;
        ++bursts_;
    }

    [[nodiscard]] const dram_timing& timing() const noexcept { return t_; }

private:
    struct rank_state {
        std::array<std::uint64_t, 4> act_window{};
        std::uint64_t acts = 0;
        std::uint64_t last_act = 0;
        std::uint32_t last_act_group = 0;
        std::uint64_t last_write_end = 0;
        std::uint32_t last_write_group = 0;
        std::uint64_t next_refresh = never;
    };

    dram_timing t_{};
    std::vector<bank_state> banks_;
    std::vector<rank_state> ranks_;
    std::uint32_t burst_ = 4;
    std::uint64_t last_col_ = 0;
    std::uint32_t last_col_group_ = 0;
    std::uint32_t last_col_rank_ = 0;
    std::uint64_t columns_ = 0;
    std::uint64_t bus_free_ = 0;
    bool last_burst_write_ = false;
    std::uint32_t last_burst_rank_ = 0;
    std::uint64_t bursts_ = 0;
    std::uint64_t next_refresh_ = never; ///< earliest refresh due over the ranks
};

} // namespace memsub::memory
