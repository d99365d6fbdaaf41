// memsub — DRAMSim3's two-level queue organisation for `dram_controller` (models
// `queue_organisation`, memory/controller_parts_concept.hpp): read and write transaction queues
// feeding per-bank command queues of `bank_command_queue` entries (its configs' cmd_queue_size: 8),
// the scheduler selecting among the command queues' requests only ([DRAMSim3], src/controller.cc
// ScheduleTransaction, src/command_queue.cc; tests/data/dramsim3/README.md compares).
//
// Per decision cycle: first the selection among the command queues' requests, reads and
// writes together, so drained writes interleave with the reads moved before them (its
// GetCommandToIssue); then the write-drain policy's step (watermark_write_drain.hpp; its idle
// condition is DRAMSim3's "cmd_queue_.QueueEmpty()"), then at most one move: the first request
// of the mode's transaction queue whose bank command queue has room (from the write queue while
// a drain is on, otherwise from the read queue). That is Controller::ClockTick's order (the
// issue, then ScheduleTransaction), so a request moved at t is selectable from t + 1. A drained
// write with a queued read of its line ends the drain (R→W dependency) and a write selected in
// a command queue waits for an older read of its line there (command_queue.cc
// HasRWDependency). A request keeps its command-queue slot until its column command issues, as
// DRAMSim3 erases it only then.
// `row_commands_apart` (a knob of this organisation, in `params` below): a miss selected from a
// command queue has only its PRE / ACT placed and stays queued; its RD / WR is selected later as a
// row hit (first-ready, `issue_at`), as a command-level scheduler issues each command when it is
// ready (command_queue.cc GetFirstReadyInQueue). Its row-hit class is the one at its ACT. The
// shared queues' own knobs (`drained_writes_mix_with_reads`, `write_when_no_read`) have no
// counterpart here: the command queues already mix the reads and writes moved into them.
// Storage (hardware view): read_queue + write_queue transaction-queue entries and banks ×
// bank_command_queue command-queue entries per channel, each command-queue entry with the cycle
// of its column command once selected.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/controller_parts_concept.hpp>
#include <memsub/memory/detail/request_queue.hpp>
#include <memsub/memory/dram_channel.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/scheduler_concept.hpp>

namespace memsub::memory {

struct bank_command_queues {
    static constexpr std::string_view name = "bank command queues";
    static constexpr bool command_queues = true;

    /// The knobs only this organisation reads (`dram_controller::params::queues`).
    struct params {
        /// A miss selected from a command queue has only its PRE / ACT placed and stays
        /// queued; its RD / WR is selected later as a row hit (header comment). false: all its
        /// commands at selection.
        bool row_commands_apart = false;
    };

    /// Per channel: the command queues and what the selection needs to know of them.
    struct channel_state {
        channel_state(std::uint32_t banks, std::uint32_t bank_command_queue)
            : cq(std::size_t{banks} * bank_command_queue)
            , pend_col(std::size_t{banks} * bank_command_queue) {}
        detail::request_queue cq; ///< the command queues' requests, in arrival order
        /// Requests per command queue, the banks with any, the reads among them and the end of
        /// a refresh hold.
        std::array<std::uint32_t, 64> cq_of_bank{};
        std::uint64_t cq_banks = 0;
        std::uint32_t cq_reads = 0;
        std::uint64_t refresh_hold_until = 0;
        /// The column cycles still ahead of the selected requests, per bank
        /// (`bank_command_queue` slots each; DRAMSim3 keeps a request in its command queue
        /// until its RD / WR issues), how many per bank and in all, and the earliest.
        std::vector<std::uint64_t> pend_col;
        std::array<std::uint32_t, 64> pend_n{};
        std::uint32_t pend_total = 0;
        std::uint64_t pend_min = never;
        /// row_commands_apart: banks activated with no column command since, and the class
        /// (empty / conflict) of that activation.
        std::uint64_t act_pending = 0;
        std::array<row_class, 64> act_kind{};
    };

    /// A read takes a read-queue entry until it moves into its bank's command queue.
    template <class Ctl>
    [[nodiscard]] static bool has_room(const Ctl& ctl, std::uint32_t c, bool write) noexcept {
        const auto& ch = ctl.channels_[c];
        return write ? !ch.wq.full() : ch.rq.size() < ctl.p_.read_queue;
    }

    /// A write moved into a command queue is still a queued write of its line.
    template <class Ctl>
    [[nodiscard]] static bool holds_write(const Ctl& ctl, std::uint32_t c, std::uint32_t bank,
                                          std::uint32_t row, byte_address a) noexcept {
        return ctl.find_line(ctl.channels_[c].q.cq, bank, row, a, Ctl::of_kind::writes) !=
               Ctl::none;
    }

    /// It waits in its transaction queue for its move into a command queue.
    template <class Ctl>
    static void place(Ctl& ctl, std::uint32_t c, const mem_request& r, std::uint32_t row,
                      std::uint32_t bank, std::uint64_t visible) noexcept {
        auto& ch = ctl.channels_[c];
        (r.is_write ? ch.wq : ch.rq)
            .push_back({.visible_at = visible, .row = row, .bank = bank}, r);
        ++ch.per_bank[bank];
        ch.next_decision = std::min(ch.next_decision, std::max(visible, ch.min_decision));
    }

    /// Per cycle, the selection among the
    /// command queues' requests (its GetCommandToIssue), then one move from a transaction
    /// queue into a command queue (its ScheduleTransaction, called after the issue in
    /// Controller::ClockTick, so a request moved at t is selectable from t + 1).
    template <class Ctl>
    static void run_channel(Ctl& ctl, std::uint32_t c, std::uint64_t until) noexcept {
        auto& ch = ctl.channels_[c];
        const std::uint32_t room = ctl.p_.bank_command_queue;
        while (ch.next_decision <= until) {
            const std::uint64_t t = ch.next_decision;
            ctl.refresh_due(ch, t);
            if (ch.q.pend_min <= t) purge_columns(ctl, ch, t);
            std::uint64_t wake = never;
            bool selected = false;
            if (!ch.q.cq.empty() && t < ch.q.refresh_hold_until) {
                wake = ch.q.refresh_hold_until;
            } else if (!ch.q.cq.empty()) {
                ch.busy.advance(t, ch.bank_ready);
                const std::uint64_t ready = ch.q.cq_banks & ~ch.busy.mask();
                if (ready == 0) {
                    wake = ch.busy.first_of(ch.q.cq_banks, ch.bank_ready);
                } else {
                    ch.ready_banks = ready;
                    typename Ctl::view v = Ctl::make_view(ch.q.cq, ch, t, false);
                    v.mixed = true;
                    const selection s = ch.sched.select(ch.q.cq.size(), v);
                    wake = s.wake;
                    if (s.index != selection::none)
                        selected = select(ctl, c, ch, v, s.index, t, wake);
                }
            }
            // ScheduleTransaction: does a drain start (or end)?
            bool drain_changed = false;
            {
                const bool reads_wait = !ch.rq.empty() || ch.q.cq_reads != 0;
                const drain_observation o{.writes = static_cast<std::uint32_t>(ch.wq.size()),
                                          .reads_wait = reads_wait,
                                          .reads_absent_since = ch.reads_absent_since,
                                          .idle = ch.q.cq.empty() &&
                                                  ch.q.pend_total == 0}; // DRAMSim3's QueueEmpty
                const drain_step d =
                    ch.drain.update(o, t, [&ch]() noexcept { return ch.wq.key_at(0).visible_at; });
                if (d.started) ++ctl.stats_.write_drains;
                wake = std::min(wake, d.wake);
            }
            // The first request of the mode's queue whose bank command queue has room moves.
            bool moved = false;
            typename Ctl::queue& src = ch.drain.draining() ? ch.wq : ch.rq;
            for (std::size_t i = 0; i < src.size(); ++i) {
                const auto k = src.key_at(i);
                if (k.visible_at > t) {
                    wake = std::min(wake, k.visible_at);
                    break;
                }
                if (ch.q.cq_of_bank[k.bank] + ch.q.pend_n[k.bank] >= room) continue;
                const mem_request r = src.request(i);
                if (r.is_write) {
                    // R→W dependency: a queued read of the line ends the drain.
                    if (ctl.find_line(ch.rq, k.bank, k.row, r.address) != Ctl::none ||
                        ctl.find_line(ch.q.cq, k.bank, k.row, r.address, Ctl::of_kind::reads) !=
                            Ctl::none) {
                        ch.drain.end_on_hazard();
                        drain_changed = true;
                        break;
                    }
                    ch.drain.on_write_served();
                    ++ctl.stats_.drained_writes;
                } else {
                    ch.drain.on_read_served();
                    ++ch.q.cq_reads;
                }
                ch.q.cq.push_back({.visible_at = t + 1, .row = k.row, .bank = k.bank}, r);
                ++ch.q.cq_of_bank[k.bank];
                ch.q.cq_banks |= std::uint64_t{1} << k.bank;
                src.erase(i);
                moved = true;
                break;
            }
            // A column command issuing frees a command-queue slot (and may empty them all).
            if (!moved && (!src.empty() || !ch.wq.empty())) wake = std::min(wake, ch.q.pend_min);
            if (selected) ch.min_decision = t + 1;
            ch.next_decision = selected || moved || drain_changed ? t + 1 : std::max(wake, t + 1);
        }
    }

private:
    /// Drops the pending column cycles ≤ t (those commands have issued).
    template <class Ctl, class Channel>
    static void purge_columns(const Ctl& ctl, Channel& ch, std::uint64_t t) noexcept {
        ch.q.pend_min = never;
        for (std::uint32_t b = 0; b < ctl.p_.timing.banks_per_channel(); ++b) {
            std::uint64_t* col = &ch.q.pend_col[std::size_t{b} * ctl.p_.bank_command_queue];
            std::uint32_t kept = 0;
            for (std::uint32_t j = 0; j < ch.q.pend_n[b]; ++j)
                if (col[j] > t) {
                    col[kept++] = col[j];
                    ch.q.pend_min = std::min(ch.q.pend_min, col[j]);
                }
            ch.q.pend_total -= ch.q.pend_n[b] - kept;
            ch.q.pend_n[b] = kept;
        }
    }

    /// Issues command-queue entry `i` chosen at t, unless the refresh or a read of its line
    /// holds it back; whether it was issued. `wake` learns when to look again.
    template <class Ctl, class Channel, class View>
    static bool select(Ctl& ctl, std::uint32_t c, Channel& ch, const View& v, std::size_t i,
                       std::uint64_t t, std::uint64_t& wake) noexcept {
        const auto k = ch.q.cq.key_at(i);
        const mem_request r = ch.q.cq.request(i);
        if (ctl.p_.queues.row_commands_apart) {
            ch.dram.settle(k.bank, t);
            const command_plan plan = ch.dram.plan(k.bank, k.row, r.is_write, t);
            if (plan.kind != row_class::hit) {
                // Only its PRE / ACT now (those before a due refresh); it stays queued.
                const std::uint64_t due = Ctl::refresh_type::preempt_deadline(ch.dram, k.bank);
                ch.dram.commit_row_commands(k.bank, k.row, plan, due);
                Ctl::sync_bank(ch, k.bank, t);
                if (plan.act >= due) {
                    ch.q.refresh_hold_until = std::max(due, t + 1);
                    wake = std::min(wake, ch.q.refresh_hold_until);
                    return false;
                }
                ch.q.act_pending |= std::uint64_t{1} << k.bank;
                ch.q.act_kind[k.bank] = plan.kind;
                ch.sched.on_selected(v, i);
                return true;
            }
        }
        if (const std::uint64_t due = Ctl::refresh_type::preempt_deadline(ch.dram, k.bank);
            due != never) {
            // As in shared_queues: a column command at or after the refresh waits for it; its
            // PRE / ACT before the due cycle still issue. (The moves go on meanwhile.)
            ch.dram.settle(k.bank, t);
            const command_plan plan = ch.dram.plan(k.bank, k.row, r.is_write, t);
            if (plan.column >= due) {
                ch.dram.commit_row_commands(k.bank, k.row, plan, due);
                Ctl::sync_bank(ch, k.bank, t);
                ch.q.refresh_hold_until = std::max(due, t + 1);
                wake = std::min(wake, ch.q.refresh_hold_until);
                return false;
            }
        }
        if (r.is_write) {
            // command_queue.cc HasRWDependency: not before an older read of its line.
            const std::size_t read =
                ctl.find_line(ch.q.cq, k.bank, k.row, r.address, Ctl::of_kind::reads);
            if (read != Ctl::none && read < i) {
                wake = std::min(wake, t + 1);
                return false;
            }
        }
        ch.sched.on_selected(v, i);
        // row_commands_apart: the first column command after the ACT placed for a miss counts
        // as that ACT's class.
        row_class hit_counts_as = row_class::hit;
        if (const std::uint64_t bit = std::uint64_t{1} << k.bank; (ch.q.act_pending & bit) != 0) {
            hit_counts_as = ch.q.act_kind[k.bank];
            ch.q.act_pending &= ~bit;
        }
        const std::uint64_t column = ctl.issue(c, ch, k, r, t, hit_counts_as);
        if (column > t) {
            // It holds its command-queue slot until the column command issues.
            ch.q.pend_col[std::size_t{k.bank} * ctl.p_.bank_command_queue + ch.q.pend_n[k.bank]++] =
                column;
            ++ch.q.pend_total;
            ch.q.pend_min = std::min(ch.q.pend_min, column);
        }
        ch.q.cq.erase(i);
        --ch.per_bank[k.bank];
        if (--ch.q.cq_of_bank[k.bank] == 0) ch.q.cq_banks &= ~(std::uint64_t{1} << k.bank);
        if (!r.is_write) {
            ch.drain.on_read_served(); // a read went: drains may start again
            if (--ch.q.cq_reads == 0 && ch.rq.empty()) ch.reads_absent_since = t;
        }
        return true;
    }
};

static_assert(queue_organisation<bank_command_queues>);

} // namespace memsub::memory
