// memsub — the shared-queue organisation of `dram_controller` (models `queue_organisation`,
// memory/controller_parts_concept.hpp): per channel one read queue and one write queue shared by
// all requesters; the scheduler selects from the queue of the write-drain policy's mode. It is the
// baseline of [HTA] §3.1 ("all requests from different CUs share a read and a write queue"
// with FR-FCFS) and, with one 16-entry queue (`queue_entries`), the HMC vault controller of
// [MemNet] Table I ("FR-FCFS, 16-entry request queue/vault").
//
// Per decision the channel is in read mode or in a write drain (watermark_write_drain.hpp) and
// selects from the queue of its mode, FR-FCFS being row-hit-first within the writes as within
// the reads. In a drain, reads queued before it started fill the cycles no write can use
// (`drained_writes_mix_with_reads`, a knob of this organisation: `params` below), as the reads
// already in DRAMSim3's command queues keep issuing there ([DRAMSim3], src/controller.cc). A
// request keeps its slot until its data is transferred; with `bank_command_queue` a bank's first
// reads do not count against the read queue (DRAMSim3's per-bank command queues as extra read
// capacity). A bank takes a new request once the column command of its previous one has issued, so
// row hits to one bank pipeline at tCCD while FR-FCFS still sees a full queue to reorder. Decision:
// one selection per channel per cycle. [HTA] §2.1 says "an MMC selects a request to serve"; bank
// parallelism comes from overlapping the banks' timings, not from several selections. Storage
// (hardware view): per channel read_queue + write_queue entries (or `queue_entries` shared) of
// (address, id, requester, arrival).
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

struct shared_queues {
    static constexpr std::string_view name = "shared queues";
    static constexpr bool command_queues = false;

    /// The knobs only this organisation reads (`dram_controller::params::queues`).
    struct params {
        /// During a drain the writes go first, but a read queued before the drain started is
        /// served when no drained write can be selected: DRAMSim3 stops moving reads into its
        /// per-bank command queues while it drains, but the reads already there keep issuing
        /// whenever their commands are ready. false: a drain serves writes only (gem5's write
        /// mode). It brings memsub's bus turnarounds closer to DRAMSim3's (figures:
        /// docs/performance/figures_behind_choices.md).
        bool drained_writes_mix_with_reads = true;
        /// memsub's earlier policy: in read mode a write is also served whenever no read can be
        /// selected. It defeats batching (3.0× DRAMSim3's bus turnarounds on the 70/30 mix at
        /// one request per 8 cycles, fidelity_test.cpp); kept for the cycle-exact
        /// reference-model tests written against it.
        bool write_when_no_read = false;
    };

    /// Per channel: the reads beyond their bank's command-queue entries (`bank_command_queue`
    /// as extra read capacity), which count against the read queue.
    struct channel_state {
        channel_state(std::uint32_t /*banks*/, std::uint32_t /*bank_command_queue*/) noexcept {}
        std::uint32_t reads_outside = 0;
    };

    /// Beyond its bank's command-queue entries a read counts against the read queue.
    template <class Ctl>
    [[nodiscard]] static bool has_room(const Ctl& ctl, std::uint32_t c, bool write) noexcept {
        const auto& ch = ctl.channels_[c];
        return write ? !ch.wq.full()
                     : !ch.rq.full() && (ctl.p_.bank_command_queue == 0 ||
                                         ch.q.reads_outside < ctl.p_.read_queue);
    }

    /// Every queued write is in the write queue.
    template <class Ctl>
    [[nodiscard]] static bool holds_write(const Ctl&, std::uint32_t, std::uint32_t, std::uint32_t,
                                          byte_address) noexcept {
        return false;
    }

    template <class Ctl>
    static void place(Ctl& ctl, std::uint32_t c, const mem_request& r, std::uint32_t row,
                      std::uint32_t bank, std::uint64_t visible) noexcept {
        auto& ch = ctl.channels_[c];
        if (!r.is_write && ctl.p_.bank_command_queue != 0 &&
            ch.per_bank_kind[0][bank] >= ctl.p_.bank_command_queue)
            ++ch.q.reads_outside;
        (r.is_write ? ch.wq : ch.rq)
            .push_back({.visible_at = visible, .row = row, .bank = bank}, r);
        const std::uint64_t bit = std::uint64_t{1} << bank;
        ch.queued_banks |= bit;
        ++ch.per_bank[bank];
        const std::size_t kind = r.is_write ? 1 : 0; // an index, not a branch
        ++ch.per_bank_kind[kind][bank];
        ch.queued_kind[kind] |= bit;
        // It cannot be selected before its bank takes a request (accept cycles only grow).
        ch.next_decision =
            std::min(ch.next_decision, std::max({visible, ch.min_decision, ch.bank_ready[bank]}));
    }

    template <class Ctl>
    static void run_channel(Ctl& ctl, std::uint32_t c, std::uint64_t until) noexcept {
        auto& ch = ctl.channels_[c];
        while (ch.next_decision <= until) {
            const std::uint64_t t = ch.next_decision;
            ctl.refresh_due(ch, t);
            // Which banks with queued requests take one now? If none, no scheduler can select
            // anything: sleep until the first one can.
            std::uint64_t bank_wake = never;
            const std::uint64_t ready_banks = Ctl::ready_mask(ch, t, bank_wake);
            if (ready_banks == 0) {
                ch.next_decision = bank_wake; // never when both queues are empty
                continue;
            }
            ch.ready_banks = ready_banks;
            // Read mode or a write drain (header comment): only the queue of the mode is
            // scheduled, so writes go in batches.
            const std::uint64_t flush_at = update_drain(ctl, ch, t);
            const bool draining = ch.drain.draining();
            typename Ctl::queue* from = draining ? &ch.wq : &ch.rq;
            const std::uint64_t mask = ch.queued_kind[draining ? 1 : 0];
            // A queue with no request at a ready bank cannot yield a selection: skip its scan;
            // its wake-up is then the first cycle one of its banks (all busy) takes a request.
            selection s{};
            std::uint64_t wake = flush_at;
            if ((mask & ready_banks) != 0) {
                s = ch.sched.select(from->size(), Ctl::make_view(*from, ch, t, draining));
                wake = std::min(wake, s.wake);
            } else {
                wake = std::min(wake, ch.busy.first_of(mask, ch.bank_ready));
            }
            if (s.index == selection::none && draining &&
                ctl.p_.queues.drained_writes_mix_with_reads) {
                // No drained write now: a read queued before the drain started may go (the
                // reads already in DRAMSim3's command queues). Visibility is non-decreasing
                // along the queue, so those reads are a prefix of it.
                std::size_t rn = ch.rq.size();
                const std::uint64_t started = ch.drain.started_at();
                while (rn > 0 && ch.rq.key_at(rn - 1).visible_at >= started) --rn;
                if (rn != 0) {
                    if ((ch.queued_kind[0] & ready_banks) != 0) {
                        const selection r =
                            ch.sched.select(rn, Ctl::make_view(ch.rq, ch, t, false));
                        wake = std::min(wake, r.wake);
                        if (r.index != selection::none) {
                            s = r;
                            from = &ch.rq;
                        }
                    } else {
                        wake = std::min(wake, ch.busy.first_of(ch.queued_kind[0], ch.bank_ready));
                    }
                }
            }
            if (s.index == selection::none && ctl.p_.queues.write_when_no_read) {
                // The earlier policy: the other queue serves when the mode's cannot.
                typename Ctl::queue* other = draining ? &ch.rq : &ch.wq;
                const std::uint64_t omask = ch.queued_kind[draining ? 0 : 1];
                if ((omask & ready_banks) != 0) {
                    const selection s2 =
                        ch.sched.select(other->size(), Ctl::make_view(*other, ch, t, !draining));
                    wake = std::min(wake, s2.wake);
                    if (s2.index != selection::none) {
                        s = s2;
                        from = other;
                    }
                } else {
                    wake = std::min(wake, ch.busy.first_of(omask, ch.bank_ready));
                }
            }
            if (s.index == selection::none) {
                ch.next_decision = std::max(wake, t + 1);
                continue;
            }
            if (const std::uint64_t due =
                    Ctl::refresh_type::preempt_deadline(ch.dram, from->key_at(s.index).bank);
                due != never) {
                // The request's column command would come at or after its rank's refresh is
                // due: the channel selects nothing more before the refresh (performed at the
                // next decision, which then finds the banks blocked for tRFC). Deviation: with
                // several ranks DRAMSim3 would keep serving the other ranks meanwhile.
                const auto& k = from->key_at(s.index);
                ch.dram.settle(k.bank, t);
                const command_plan plan =
                    ch.dram.plan(k.bank, k.row, from->request(s.index).is_write, t);
                if (plan.column >= due) {
                    // Its PRE / ACT before the refresh still issue (and hold the refresh).
                    ch.dram.commit_row_commands(k.bank, k.row, plan, due);
                    Ctl::sync_bank(ch, k.bank, t);
                    ch.next_decision = std::max(due, t + 1);
                    continue;
                }
            }
            if (draining && from == &ch.wq) {
                // DRAMSim3's R→W dependency: a write with an older read of its line queued
                // ends the drain; the read goes first. (write_when_no_read's opportunistic
                // writes are not checked, as before that option existed.)
                if (!ctl.p_.queues.write_when_no_read &&
                    ctl.find_line(ch.rq, from->key_at(s.index).bank, from->key_at(s.index).row,
                                  from->request(s.index).address) != Ctl::none) {
                    ch.drain.end_on_hazard();
                    continue; // decide again at t in read mode
                }
                ch.drain.on_write_served();
                ++ctl.stats_.drained_writes;
            } else if (from == &ch.rq) {
                ch.drain.on_read_served();
            }
            ch.sched.on_selected(Ctl::make_view(*from, ch, t, from == &ch.wq), s.index);
            const std::uint32_t bank = from->key_at(s.index).bank;
            const bool write = from->request(s.index).is_write;
            ctl.issue(c, ch, from->key_at(s.index), from->request(s.index), t);
            from->erase(s.index);
            if (!write && ch.rq.empty()) ch.reads_absent_since = t;
            // The bank leaves the masks when its last request of a kind leaves (no branch).
            const bool none_left = --ch.per_bank[bank] == 0;
            const std::size_t kind = write ? 1 : 0;
            if (!write && ctl.p_.bank_command_queue != 0 &&
                ch.per_bank_kind[0][bank] > ctl.p_.bank_command_queue)
                --ch.q.reads_outside; // the oldest outside read moves into the command queue
            const bool none_of_kind = --ch.per_bank_kind[kind][bank] == 0;
            ch.queued_banks &= ~(std::uint64_t{none_left} << bank);
            ch.queued_kind[kind] &= ~(std::uint64_t{none_of_kind} << bank);
            ch.min_decision = t + 1;
            // The next decision: next cycle if a bank with queued requests is ready then,
            // otherwise when the first becomes ready (saves the host an idle round trip).
            std::uint64_t w = never;
            ch.next_decision = Ctl::ready_mask(ch, t + 1, w) != 0 ? t + 1 : w;
        }
    }

private:
    /// The write-drain policy's step at decision cycle t; returns
    /// the cycle from which a waiting start condition holds (never if none).
    template <class Ctl, class Channel>
    MEMSUB_ALWAYS_INLINE static std::uint64_t update_drain(Ctl& ctl, Channel& ch,
                                                           std::uint64_t t) noexcept {
        const bool no_reads = ch.rq.empty();
        const drain_observation o{.writes = static_cast<std::uint32_t>(ch.wq.size()),
                                  .reads_wait = !no_reads,
                                  .reads_absent_since = ch.reads_absent_since, // never: reads
                                  .idle = no_reads,
                                  .writes_when_no_read = ctl.p_.queues.write_when_no_read};
        // The queue is in age order: its first write is the oldest.
        const drain_step d =
            ch.drain.update(o, t, [&ch]() noexcept { return ch.wq.key_at(0).visible_at; });
        if (d.started) ++ctl.stats_.write_drains;
        return d.wake;
    }
};

static_assert(queue_organisation<shared_queues>);

} // namespace memsub::memory
