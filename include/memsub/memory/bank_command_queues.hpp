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
// `row_commands_apart` (a knob of this organisation): a miss selected from a command queue has
// only its PRE / ACT placed and stays queued; its RD / WR is selected later as a row hit
// (first-ready, `issue_at`), as a command-level scheduler issues each command when it is ready
// (command_queue.cc GetFirstReadyInQueue). Its row-hit class is the one at its ACT.
// Not used here: the shared queues' `drained_writes_mix_with_reads` and `write_when_no_read`
// (the command queues already mix the reads and writes moved into them).
// Storage (hardware view): read_queue + write_queue transaction-queue entries and banks ×
// bank_command_queue command-queue entries per channel, each command-queue entry with the cycle
// of its column command once selected.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <memsub/config.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/controller_parts_concept.hpp>
#include <memsub/memory/dram_channel.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/scheduler_concept.hpp>

namespace memsub::memory {

struct bank_command_queues {
    static constexpr std::string_view name = "bank command queues";
    static constexpr bool command_queues = true;

    /// A read takes a read-queue entry until it moves into its bank's command queue.
    template <class Ctl>
    [[nodiscard]] static bool has_room(const Ctl& ctl, std::uint32_t c, bool write) noexcept {
        const auto& ch = ctl.channels_[c];
        return write ? !ch.wq.full() : ch.rq.size() < ctl.p_.read_queue;
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
            if (ch.pend_min <= t) purge_columns(ctl, ch, t);
            std::uint64_t wake = never;
            bool selected = false;
            if (!ch.cq.empty() && t < ch.refresh_hold_until) {
                wake = ch.refresh_hold_until;
            } else if (!ch.cq.empty()) {
                ch.busy.advance(t, ch.bank_ready);
                const std::uint64_t ready = ch.cq_banks & ~ch.busy.mask();
                if (ready == 0) {
                    wake = ch.busy.first_of(ch.cq_banks, ch.bank_ready);
                } else {
                    ch.ready_banks = ready;
                    typename Ctl::view v = Ctl::make_view(ch.cq, ch, t, false);
                    v.mixed = true;
                    const selection s = ch.sched.select(ch.cq.size(), v);
                    wake = s.wake;
                    if (s.index != selection::none)
                        selected = select(ctl, c, ch, v, s.index, t, wake);
                }
            }
            // ScheduleTransaction: does a drain start (or end)?
            bool drain_changed = false;
            {
                const bool reads_wait = !ch.rq.empty() || ch.cq_reads != 0;
                const drain_observation o{.writes = static_cast<std::uint32_t>(ch.wq.size()),
                                          .reads_wait = reads_wait,
                                          .reads_absent_since = ch.reads_absent_since,
                                          .idle = ch.cq.empty() &&
                                                  ch.pend_total == 0}; // DRAMSim3's QueueEmpty
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
                if (ch.cq_of_bank[k.bank] + ch.pend_n[k.bank] >= room) continue;
                const mem_request r = src.request(i);
                if (r.is_write) {
                    // R→W dependency: a queued read of the line ends the drain.
                    if (ctl.find_line(ch.rq, k.bank, k.row, r.address) != Ctl::none ||
                        ctl.find_line(ch.cq, k.bank, k.row, r.address, Ctl::of_kind::reads) !=
                            Ctl::none) {
                        ch.drain.end_on_hazard();
                        drain_changed = true;
                        break;
                    }
                    ch.drain.on_write_served();
                    ++ctl.stats_.drained_writes;
                } else {
                    ch.drain.on_read_served();
                    ++ch.cq_reads;
                }
                ch.cq.push_back({.visible_at = t + 1, .row = k.row, .bank = k.bank}, r);
                ++ch.cq_of_bank[k.bank];
                ch.cq_banks |= std::uint64_t{1} << k.bank;
                src.erase(i);
                moved = true;
                break;
            }
            // A column command issuing frees a command-queue slot (and may empty them all).
            if (!moved && (!src.empty() || !ch.wq.empty())) wake = std::min(wake, ch.pend_min);
            if (selected) ch.min_decision = t + 1;
            ch.next_decision = selected || moved || drain_changed ? t + 1 : std::max(wake, t + 1);
        }
    }

private:
    /// Drops the pending column cycles ≤ t (those commands have issued).
    template <class Ctl, class Channel>
    static void purge_columns(const Ctl& ctl, Channel& ch, std::uint64_t t) noexcept {
        ch.pend_min = never;
        for (std::uint32_t b = 0; b < ctl.p_.timing.banks_per_channel(); ++b) {
            std::uint64_t* col = &ch.pend_col[std::size_t{b} * ctl.p_.bank_command_queue];
            std::uint32_t kept = 0;
            for (std::uint32_t j = 0; j < ch.pend_n[b]; ++j)
                if (col[j] > t) {
                    col[kept++] = col[j];
                    ch.pend_min = std::min(ch.pend_min, col[j]);
                }
            ch.pend_total -= ch.pend_n[b] - kept;
            ch.pend_n[b] = kept;
        }
    }

    /// Issues command-queue entry `i` chosen at t, unless the refresh or a read of its line
    /// holds it back; whether it was issued. `wake` learns when to look again.
    template <class Ctl, class Channel, class View>
    static bool select(Ctl& ctl, std::uint32_t c, Channel& ch, const View& v, std::size_t i,
                       std::uint64_t t, std::uint64_t& wake) noexcept {
        const auto k = ch.cq.key_at(i);
        const mem_request r = ch.cq.request(i);
        if (ctl.p_.row_commands_apart) {
            ch.dram.settle(k.bank, t);
            const command_plan plan = ch.dram.plan(k.bank, k.row, r.is_write, t);
            if (plan.kind != row_class::hit) {
                // Only its PRE / ACT now (those before a due refresh); it stays queued.
                const bool preempt = ctl.p_.refresh_preempts &&
                                     ctl.p_.timing.refresh == refresh_mode::all_bank &&
                                     ctl.p_.timing.tREFI != 0;
                const std::uint64_t due =
                    preempt ? ch.dram.refresh_due_of_rank(ch.dram.rank_of(k.bank)) : never;
                ch.dram.commit_row_commands(k.bank, k.row, plan, due);
                Ctl::sync_bank(ch, k.bank, t);
                if (plan.act >= due) {
                    ch.refresh_hold_until = std::max(due, t + 1);
                    wake = std::min(wake, ch.refresh_hold_until);
                    return false;
                }
                ch.act_pending |= std::uint64_t{1} << k.bank;
                ch.act_kind[k.bank] = plan.kind;
                ch.sched.on_selected(v, i);
                return true;
            }
        }
        if (ctl.p_.refresh_preempts && ctl.p_.timing.refresh == refresh_mode::all_bank &&
            ctl.p_.timing.tREFI != 0) {
            // As in run_channel: a column command at or after the refresh waits for it; its
            // PRE / ACT before the due cycle still issue. (The moves go on meanwhile.)
            const std::uint64_t due = ch.dram.refresh_due_of_rank(ch.dram.rank_of(k.bank));
            ch.dram.settle(k.bank, t);
            const command_plan plan = ch.dram.plan(k.bank, k.row, r.is_write, t);
            if (plan.column >= due) {
                ch.dram.commit_row_commands(k.bank, k.row, plan, due);
                Ctl::sync_bank(ch, k.bank, t);
                ch.refresh_hold_until = std::max(due, t + 1);
                wake = std::min(wake, ch.refresh_hold_until);
                return false;
            }
        }
        if (r.is_write) {
            // command_queue.cc HasRWDependency: not before an older read of its line.
            const std::size_t read =
                ctl.find_line(ch.cq, k.bank, k.row, r.address, Ctl::of_kind::reads);
            if (read != Ctl::none && read < i) {
                wake = std::min(wake, t + 1);
                return false;
            }
        }
        ch.sched.on_selected(v, i);
        const std::uint64_t column = ctl.issue(c, ch, k, r, t);
        if (column > t) {
            // It holds its command-queue slot until the column command issues.
            ch.pend_col[std::size_t{k.bank} * ctl.p_.bank_command_queue + ch.pend_n[k.bank]++] =
                column;
            ++ch.pend_total;
            ch.pend_min = std::min(ch.pend_min, column);
        }
        ch.cq.erase(i);
        --ch.per_bank[k.bank];
        if (--ch.cq_of_bank[k.bank] == 0) ch.cq_banks &= ~(std::uint64_t{1} << k.bank);
        if (!r.is_write) {
            ch.drain.on_read_served(); // a read went: drains may start again
            if (--ch.cq_reads == 0 && ch.rq.empty()) ch.reads_absent_since = t;
        }
        return true;
    }
};

static_assert(queue_organisation<bank_command_queues>);

} // namespace memsub::memory
