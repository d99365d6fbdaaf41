// memsub — the shared-queue DRAM controller: per channel one read queue and one write queue
// shared by all requesters, a request scheduler (FCFS, FR-FCFS) and a row policy, over the
// timing model of `dram_channel`. Models `memory_controller` (memory/concept.hpp).
//
// Composition: `dram_controller<Scheduler, RowPolicy, Mapping>`; aliases `fcfs_controller` and
// `fr_fcfs_controller`. This is the baseline of HTA (seed 004 §4.1: "one read queue and one
// write queue shared by all requesters … FR-FCFS"), the HMC vault controller of Kim et al.
// (seed 002: FR-FCFS, closed page, 16-entry queue: `hmc_vault_controller` and
// `hmc_vault_params` below) and ReMAP's FCFS DDR3 controller (seed 001, Table 2.3).
//
// Per channel and per cycle the controller selects at most one request (spec G4.8). Writes are
// batched as real controllers and the reference simulators do (spec G4.5 leaves the policy
// open; the defaults reproduce DRAMSim3, src/controller.cc, commit 2981759): the channel is in
// read mode or in a write drain, and selects from the queue of its mode (FR-FCFS is
// row-hit-first within the writes as within the reads; in a drain, reads queued before it
// fill the cycles no write can use, as the reads already in DRAMSim3's command queues keep
// issuing). DRAMSim3's per-bank command queues can be added (`bank_command_queue`), as extra
// read capacity or, with `two_level_queues` (in `dramsim3_params`), as its two-level structure
// for reads and writes: transaction queues feeding per-bank command queues one request per
// cycle, the scheduler selecting among the command queues only (its own rules: the
// `two_level_queues` parameter); tests/data/dramsim3/README.md compares. A drain starts when the
// write queue reaches the high watermark (DRAMSim3: full) or, with no read queued, holds
// `write_idle_drain_min` writes (DRAMSim3: more than 8 with its command queues empty) or has
// waited `write_idle_flush_cycles` without reads or its oldest write `write_max_wait_cycles`
// [memsub: bounds every write's wait]; it ends at the low watermark, after
// the writes queued at its start (DRAMSim3's write_draining_ count), after
// `min_writes_per_switch` writes while reads wait (gem5 MemCtrl), or when the selected write
// has an older read of its line queued (DRAMSim3's R→W dependency rule). A read of a line with
// a queued write is served from it and a write to such a line merges into it (DRAMSim3
// AddTransaction), both `forward_latency_cycles` after arrival. Each rule is a parameter.
// `dramsim3_params` adds DRAMSim3's refresh (a due refresh preempts the requests whose column
// command has not issued; its PREs go one per cycle) and its round-robin over the banks.
// A bank takes a new request once the column command of its previous one has issued, so
// row hits to one bank pipeline at tCCD while FR-FCFS still sees a full queue to reorder; the
// commands of a selected request are placed against the whole command history of the channel
// (dram_channel.hpp), so banks work in parallel and a later row hit may use an earlier idle
// bus slot. The view offered to the scheduler reports when a row hit's column command could
// issue (`issue_at`), which FR-FCFS uses to be first-ready. Idle time is skipped:
// `next_event_cycle` names the next cycle where anything can happen (already drainable
// completions are not events). Deviations from a command-level model (DRAMSim3): see
// dram_channel.hpp (command bus modelled only for column commands; a request's commands are
// fixed when it is selected, except with `row_commands_apart`, where a miss's PRE / ACT and its
// column command are selected apart).
// Storage (hardware view): per channel read_queue + write_queue entries (or `queue_entries`
// shared) of (address, id, requester, arrival) — a request keeps its slot until its data is
// transferred — one
// open-row register and one timing state per bank, plus the scheduler's state (FR-FCFS: one
// bypass counter per bank) and the row policy's (timeout-adaptive: one timer per bank). With
// `two_level_queues`, banks × bank_command_queue command-queue entries, each with the cycle of
// its column command once selected.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/closed_page.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/controller_stats.hpp>
#include <memsub/memory/detail/busy_banks.hpp>
#include <memsub/memory/detail/check_mapping.hpp>
#include <memsub/memory/detail/completion_queue.hpp>
#include <memsub/memory/detail/request_queue.hpp>
#include <memsub/memory/dram_channel.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/fcfs.hpp>
#include <memsub/memory/fr_fcfs.hpp>
#include <memsub/memory/open_page.hpp>
#include <memsub/memory/row_policy.hpp>
#include <memsub/memory/scheduler.hpp>

namespace memsub::memory {

template <request_scheduler Scheduler, row_policy RowPolicy = open_page,
          address_mapping Mapping = bit_field_mapping>
class dram_controller {
public:
    static constexpr std::string_view component = "memsub::memory::dram_controller";

    struct params {
        dram_timing timing = presets::ddr4_2400;
        /// Read-queue and write-queue entries per channel.
        std::uint32_t read_queue = 32;
        std::uint32_t write_queue = 32;
        /// A write drain starts when the write queue holds ≥ high % of its entries and stops at
        /// ≤ low %. DRAMSim3 (controller.cc ScheduleTransaction): at a full write buffer, and
        /// it drains that batch (see drain_queued_at_start); gem5's MemCtrl uses 85 / 50.
        std::uint32_t write_high_watermark_pct = 100;
        std::uint32_t write_low_watermark_pct = 0;
        typename Scheduler::params scheduler{};
        typename RowPolicy::params row{};
        /// Requests a channel holds at once, reads and writes together (a single request
        /// queue of this size, such as an HMC vault's 16 entries); 0 = read_queue + write_queue.
        std::uint32_t queue_entries = 0;
        /// With no read queued, a drain starts once this many writes are queued (DRAMSim3:
        /// "write_buffer_.size() > 8 && cmd_queue_.QueueEmpty()"); 0 = never for this reason.
        std::uint32_t write_idle_drain_min = 9;
        /// [memsub] With no read queued for this many cycles, the queued writes are drained
        /// whatever their number. DRAMSim3 leaves up to 8 writes queued for ever (it
        /// acknowledges a write at once; memsub completes it at its data transfer).
        std::uint32_t write_idle_flush_cycles = 256;
        /// [memsub] A drain also starts once the oldest queued write has waited this many
        /// cycles (0 = no bound): with reads always queued and fewer writes than the
        /// watermark, DRAMSim3's rules would hold a write for ever.
        std::uint32_t write_max_wait_cycles = 1024;
        /// A drain serves at most the writes queued when it started (DRAMSim3:
        /// write_draining_ = write_buffer_.size() at the switch, one less per write).
        bool drain_queued_at_start = true;
        /// gem5 MemCtrl min_writes_per_switch (16 there): while reads wait, a drain ends once
        /// it has served this many writes. 0 = no such rule (DRAMSim3).
        std::uint32_t min_writes_per_switch = 0;
        /// Read-after-write forwarding: a read of a line with a queued write is served from
        /// the write queue (DRAMSim3 AddTransaction: "if in write buffer, use the write buffer
        /// value").
        bool forward_reads = true;
        /// Same-line write merging: a write to a line with a queued write merges into it
        /// (DRAMSim3 AddTransaction: "can not merge writes" unless pending_wr_q_ has it).
        bool merge_writes = true;
        /// Forwarded reads and merged writes complete this many cycles after arrival
        /// (DRAMSim3: complete_cycle = clk_ + 1).
        std::uint32_t forward_latency_cycles = 1;
        /// DRAMSim3's queue structure: behind the transaction queues, per-bank command queues
        /// of this many entries (its configs' cmd_queue_size: 8). A read moves from the read
        /// queue into its bank's command queue while that has room, so a channel holds up to
        /// read_queue + banks × this many reads; the scheduler still sees all of them. 0 =
        /// memsub's single queue (a request keeps its read-queue slot until its data moved).
        std::uint32_t bank_command_queue = 0;
        /// DRAMSim3's two levels for reads and writes together (controller.cc
        /// ScheduleTransaction, command_queue.cc; needs bank_command_queue): requests wait in
        /// the read / write transaction queues (read_queue / write_queue entries) and, one per
        /// cycle after the selection, the first whose bank command queue has room moves into
        /// it: from the write queue while a drain is on, otherwise from the read queue. The
        /// scheduler selects among the command queues' requests only, reads and writes
        /// together, so drained writes interleave with the reads moved before them. A drain
        /// starts at a full write queue (high watermark) or, with every command queue empty,
        /// at write_idle_drain_min writes (DRAMSim3: "write_buffer_.size() > 8 &&
        /// cmd_queue_.QueueEmpty()"); it moves the writes queued at its start (write_draining_)
        /// and stops when the next write has a queued read of its line (R→W dependency; then
        /// no drain until a read has moved or issued [memsub: DRAMSim3 retries at once, and
        /// at a full write queue can wait for ever on a read it no longer moves]). Kept
        /// [memsub]: write_idle_flush_cycles and write_max_wait_cycles start drains too.
        /// Unused here: the low watermark, drain_queued_at_start, min_writes_per_switch,
        /// drained_writes_mix_with_reads, write_when_no_read. false: one level (above).
        bool two_level_queues = false;
        /// With two_level_queues: a miss selected from a command queue has only its PRE / ACT
        /// placed and stays queued; its RD / WR is selected later as a row hit (first-ready,
        /// `issue_at`), as a command-level scheduler issues each command when it is ready
        /// (DRAMSim3 command_queue.cc GetFirstReadyInQueue: the first ready command, ACT or
        /// RD / WR). Its row-hit class is the one at its ACT (the first column command after
        /// an ACT is the miss, as DRAMSim3 counts). false: all its commands at selection.
        bool row_commands_apart = false;
        /// All-bank refresh preempts the rank (DRAMSim3 command_queue.cc FinishRefresh: "we
        /// simply implement an ASAP approach"; GetCommandToIssue skips the rank's queues while
        /// its refresh is pending): a request is not selected if its column command would
        /// issue at or after its rank's next refresh is due; it waits for the refresh. false:
        /// a refresh waits for the commands already placed (JEDEC postponement).
        bool refresh_preempts = false;
        /// An all-bank refresh precharges the rank's open banks one per cycle, then REF tRP
        /// after the last (DRAMSim3 ChannelState::GetReadyCommand: one PRE of the rank per
        /// cycle for the pending REF). false: all open banks precharge at once.
        bool refresh_precharge_one_per_cycle = false;
        /// During a drain the writes go first, but a read queued before the drain started is
        /// served when no drained write can be selected: DRAMSim3 stops moving reads into its
        /// per-bank command queues while it drains, but the reads already there keep issuing
        /// whenever their commands are ready. false: a drain serves writes only (gem5's write
        /// mode). Against DRAMSim3 (tests/data/dramsim3/README.md) it brings the 70/30 mix at
        /// one request per 8 cycles from 0.51× to 0.64× DRAMSim3's bus turnarounds (measured
        /// without write_max_wait_cycles).
        bool drained_writes_mix_with_reads = true;
        /// memsub's earlier policy: in read mode a write is also served whenever no read can
        /// be selected. It defeats batching (3.0× DRAMSim3's bus turnarounds on the 70/30 mix
        /// at one request per 8 cycles, fidelity_test.cpp); kept for the cycle-exact
        /// reference-model tests written against it.
        bool write_when_no_read = false;
    };

    dram_controller(const Mapping& mapping, const params& p)
        : map_(mapping)
        , p_(validated(p))
        , rows_(p.row, p.timing.channels * p.timing.banks_per_channel())
        , heap_(std::size_t{p.timing.channels} *
                (p.read_queue + p.write_queue +
                 std::size_t{p.timing.banks_per_channel()} * p.bank_command_queue)) {
        detail::check_mapping(map_.organisation(), p.timing, component);
        channels_.reserve(p.timing.channels);
        for (std::uint32_t c = 0; c < p.timing.channels; ++c)
            channels_.emplace_back(p_, Scheduler(p.scheduler, p.timing.banks_per_channel()));
        high_ = std::max<std::uint32_t>(1, (p.write_queue * p.write_high_watermark_pct + 99) / 100);
        low_ = p.write_queue * p.write_low_watermark_pct / 100;
        line_shift_ = static_cast<std::uint32_t>(std::countr_zero(p.timing.burst_bytes()));
        capacity_ = p.queue_entries != 0 ? p.queue_entries
                                         : p.read_queue + p.write_queue +
                                               p.timing.banks_per_channel() * p.bank_command_queue;
        stats_.channels = p.timing.channels;
        stats_.peak_bytes_per_cycle = p.timing.peak_bytes_per_cycle();
    }

    [[nodiscard]] std::string_view name() const noexcept { return scheduler_name_; }

    [[nodiscard]] bool can_accept(const mem_request& r) const noexcept {
        return has_room(channels_[map_.map(r.address).channel], r.is_write);
    }

    enqueue_result enqueue(const mem_request& r) noexcept {
        // With one channel a full queue refuses without decoding the address (hosts retry
        // refused requests).
        if (channels_.size() == 1 && !has_room(channels_[0], r.is_write)) {
            ++stats_.refused;
            return enqueue_result::queue_full;
        }
        const dram_address a = map_.map(r.address);
        channel& ch = channels_[a.channel];
        auto& q = r.is_write ? ch.wq : ch.rq;
        if (!has_room(ch, r.is_write)) {
            ++stats_.refused;
            return enqueue_result::queue_full;
        }
        const std::uint64_t visible = std::max(r.arrival_cycle, now_);
        const std::uint32_t bank = flat_bank(a, map_.organisation());
        // Served by a queued write to the same line: forwarding (reads), merging (writes).
        if ((r.is_write ? p_.merge_writes : p_.forward_reads) &&
            (find_line(ch.wq, bank, a.row, r.address) != none ||
             (p_.two_level_queues &&
              find_line(ch.cq, bank, a.row, r.address, of_kind::writes) != none))) {
            ++ch.held;
            ++(r.is_write ? stats_.merged_writes : stats_.forwarded_reads);
            const std::uint64_t done = visible + p_.forward_latency_cycles;
            heap_.push(completion{.id = r.id,
                                  .address = r.address,
                                  .is_write = r.is_write,
                                  .requester = r.requester,
                                  .channel = a.channel,
                                  .bank = bank,
                                  .kind = row_class::hit,
                                  .arrival_cycle = r.arrival_cycle,
                                  .selected_cycle = visible,
                                  .data_cycle = visible,
                                  .done_cycle = done,
                                  .from_queue = true});
            return enqueue_result::accepted;
        }
        if (!r.is_write && q.empty()) ch.reads_absent_since = never;
        if (p_.two_level_queues) {
            // It waits for its move into a command queue (run_channel_two_level).
            q.push_back({.visible_at = visible, .row = a.row, .bank = bank}, r);
            ++ch.per_bank[bank];
            ++ch.held;
            ch.next_decision = std::min(ch.next_decision, std::max(visible, ch.min_decision));
            return enqueue_result::accepted;
        }
        // Beyond its bank's command queue a read counts against the read queue.
        if (!r.is_write && p_.bank_command_queue != 0 &&
            ch.per_bank_kind[0][bank] >= p_.bank_command_queue)
            ++ch.reads_outside;
        q.push_back({.visible_at = visible, .row = a.row, .bank = bank}, r);
        const std::uint64_t bit = std::uint64_t{1} << bank;
        ch.queued_banks |= bit;
        ++ch.per_bank[bank];
        const std::size_t kind = r.is_write ? 1 : 0; // an index, not a branch
        ++ch.per_bank_kind[kind][bank];
        ch.queued_kind[kind] |= bit;
        ++ch.held;
        // It cannot be selected before its bank takes a request (accept cycles only grow).
        ch.next_decision =
            std::min(ch.next_decision, std::max({visible, ch.min_decision, ch.bank_ready[bank]}));
        return enqueue_result::accepted;
    }

    void advance_to(std::uint64_t cycle) noexcept {
        if (cycle < now_) return;
        now_ = cycle;
        for (std::uint32_t c = 0; c < channels_.size(); ++c)
            if (channels_[c].next_decision <= cycle) run_channel(c, cycle);
    }

    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept {
        std::uint64_t t = never;
        for (const channel& ch : channels_) t = std::min(t, ch.next_decision);
        return std::min(t, heap_.next_event_after(now_));
    }

    template <std::invocable<const completion&> Sink>
    std::size_t drain(Sink&& sink) {
        return heap_.drain(
            now_, [this](const completion& c) { retire(c); }, sink);
    }
    std::size_t drain(std::span<completion> out) noexcept {
        return heap_.drain(now_, out, [this](const completion& c) { retire(c); });
    }

    /// Requests accepted and not yet drained.
    [[nodiscard]] std::size_t pending() const noexcept {
        std::size_t n = 0;
        for (const channel& ch : channels_) n += ch.held;
        return n;
    }
    /// Requests waiting in the queues (not yet selected) for the bank holding `a` — the pending
    /// count ReMAP's MAC table wants.
    [[nodiscard]] std::uint32_t queued_at(byte_address a) const noexcept {
        const dram_address d = map_.map(a);
        const channel& ch = channels_[d.channel];
        return ch.per_bank[flat_bank(d, map_.organisation())];
    }

    [[nodiscard]] const controller_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] const Mapping& mapping() const noexcept { return map_; }
    [[nodiscard]] const RowPolicy& row_policy() const noexcept { return rows_; }
    [[nodiscard]] const dram_channel& channel_state(std::uint32_t c) const noexcept {
        return channels_[c].dram;
    }
    [[nodiscard]] const Scheduler& scheduler(std::uint32_t c) const noexcept {
        return channels_[c].sched;
    }
    [[nodiscard]] std::uint64_t now() const noexcept { return now_; }

private:
    using queue = detail::request_queue;

    struct channel {
        channel(const params& p, Scheduler s)
            : dram(p.timing)
            , rq(p.read_queue + std::size_t{p.timing.banks_per_channel()} * p.bank_command_queue)
            , wq(p.write_queue)
            , cq(p.two_level_queues
                     ? std::size_t{p.timing.banks_per_channel()} * p.bank_command_queue
                     : 1)
            , sched(std::move(s)) {
            dram.set_refresh_precharge_one_per_cycle(p.refresh_precharge_one_per_cycle);
            if (p.two_level_queues)
                pend_col.resize(std::size_t{p.timing.banks_per_channel()} * p.bank_command_queue);
            bank_row.fill(dram_channel::no_row); // every bank starts precharged
            bank_close.fill(never);
        }
        dram_channel dram;
        queue rq;
        queue wq;
        queue cq; ///< two_level_queues: the bank command queues' requests, in arrival order
        Scheduler sched;
        /// Mirror of the banks' scheduling state (updated at every commit and refresh): the
        /// cycle each takes a request, its open row and the cycle the row policy closes it.
        std::array<std::uint64_t, 64> bank_ready{};
        std::array<std::uint32_t, 64> bank_row{};
        std::array<std::uint64_t, 64> bank_close{};
        /// Queued requests per bank, in both queues and by kind (index 0 reads, 1 writes),
        /// and the masks of the banks with any.
        std::array<std::uint32_t, 64> per_bank{};
        std::array<std::array<std::uint16_t, 64>, 2> per_bank_kind{};
        std::uint64_t queued_banks = 0;
        std::array<std::uint64_t, 2> queued_kind{};
        std::uint64_t ready_banks = 0; ///< snapshot: banks taking a request at t
        detail::busy_banks busy;       ///< banks whose ready cycle is ahead
        std::uint64_t next_decision = never;
        std::uint64_t min_decision = 0; ///< one selection per cycle: next ≥ last + 1
        std::uint32_t held = 0;
        std::uint32_t reads_outside = 0; ///< reads not in a bank command queue
        bool draining = false;
        /// A drain ended on a read-after-write hazard: no new drain until a read goes.
        bool hazard_hold = false;
        std::uint8_t last_dir = 2;       ///< direction of the last burst retired (2 = none yet)
        std::uint32_t drain_left = 0;    ///< writes the current drain may still serve
        std::uint32_t drain_served = 0;  ///< writes the current drain has served
        std::uint64_t drain_started = 0; ///< decision cycle the current drain started
        std::uint64_t reads_absent_since = 0; ///< the read queue is empty since (never: not)
        // two_level_queues: requests per bank command queue, the banks with any, the reads
        // among them, DRAMSim3's write_draining_ and the end of a refresh hold.
        std::array<std::uint32_t, 64> cq_of_bank{};
        std::uint64_t cq_banks = 0;
        std::uint32_t cq_reads = 0;
        std::uint32_t write_draining = 0;
        std::uint64_t refresh_hold_until = 0;
        /// two_level_queues: the column cycles still ahead of the selected requests, per bank
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

    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    /// Which requests find_line looks for (a command queue holds reads and writes).
    enum class of_kind { reads, writes, either };

    /// The position in `q` of the oldest request to the line of `a` at `bank` and `row`, or
    /// none (the compact keys rule out other rows before a request's address is read).
    [[nodiscard]] std::size_t find_line(const queue& q, std::uint32_t bank, std::uint32_t row,
                                        byte_address a,
                                        of_kind kind = of_kind::either) const noexcept {
        const std::uint64_t line = a.value >> line_shift_;
        auto match = [&](std::size_t i) {
            return q.key_at(i).row == row && (q.request(i).address.value >> line_shift_) == line &&
                   (kind == of_kind::either || q.request(i).is_write == (kind == of_kind::writes));
        };
        if (q.tracks_positions()) {
            for (std::uint64_t m = q.positions_of(bank); m != 0; m &= m - 1) {
                const auto i = static_cast<std::size_t>(std::countr_zero(m));
                if (match(i)) return i;
            }
            return none;
        }
        for (std::size_t i = 0; i < q.size(); ++i)
            if (q.key_at(i).bank == bank && match(i)) return i;
        return none;
    }

    /// Write-drain mode at decision cycle t (see the header comment for the rules and their
    /// sources). Returns the cycle from which a waiting drain condition (the idle flush) holds
    /// when it does not yet (never if none).
    std::uint64_t update_drain(channel& ch, std::uint64_t t) noexcept {
        if (ch.draining) {
            const bool reads_wait = !ch.rq.empty();
            if (ch.wq.size() <= low_ || ch.drain_left == 0 ||
                (p_.min_writes_per_switch != 0 && reads_wait &&
                 ch.drain_served >= p_.min_writes_per_switch))
                ch.draining = false;
            else
                return never;
        }
        if (ch.wq.empty() || ch.hazard_hold) return never;
        bool start = ch.wq.size() >= high_;
        std::uint64_t flush_at = never;
        // (With write_when_no_read, reads absent already let writes go: no idle drains.)
        if (!start && ch.rq.empty() && !p_.write_when_no_read) {
            flush_at = ch.reads_absent_since + p_.write_idle_flush_cycles;
            start = (p_.write_idle_drain_min != 0 && ch.wq.size() >= p_.write_idle_drain_min) ||
                    t >= flush_at;
        }
        if (!start && p_.write_max_wait_cycles != 0 && !p_.write_when_no_read) {
            // The queue is in age order: its first write is the oldest.
            const std::uint64_t aged_at = ch.wq.key_at(0).visible_at + p_.write_max_wait_cycles;
            start = t >= aged_at;
            flush_at = std::min(flush_at, aged_at);
        }
        if (!start) return flush_at;
        ch.draining = true;
        ch.drain_left =
            p_.drain_queued_at_start ? static_cast<std::uint32_t>(ch.wq.size()) : ~std::uint32_t{0};
        ch.drain_served = 0;
        ch.drain_started = t;
        ++stats_.write_drains;
        return never;
    }

    /// What a scheduler sees of one queue at cycle t (bank state from the channel snapshot).
    /// `all_visible`: every entry's visibility cycle has passed (visibility is non-decreasing
    /// along the queue, so the youngest entry decides), and readiness is the bank's alone.
    struct view {
        view(const queue* qq, const channel* c, std::uint64_t now, bool visible, bool w) noexcept
            : q(qq)
            , ch(c)
            , t(now)
            , all_visible(visible)
            , write(w) {}
        [[nodiscard]] std::uint32_t bank(std::size_t i) const noexcept { return q->key_at(i).bank; }
        [[nodiscard]] bool hit(std::size_t i) const noexcept {
            const auto& k = q->key_at(i);
            return ch->bank_row[k.bank] == k.row && ch->bank_close[k.bank] > t;
        }
        [[nodiscard]] std::uint64_t ready_at(std::size_t i) const noexcept {
            const auto& k = q->key_at(i);
            return std::max(ch->bank_ready[k.bank], k.visible_at);
        }
        [[nodiscard]] bool ready(std::size_t i) const noexcept {
            if (all_visible) return ((ch->ready_banks >> q->key_at(i).bank) & 1u) != 0;
            return ready_at(i) <= t;
        }
        [[nodiscard]] std::uint64_t now() const noexcept { return t; }
        /// Bit i set when entry i is ready (queues of up to 64 entries), without a scan: the
        /// entries of the ready banks, less the youngest ones not yet visible.
        [[nodiscard]] std::uint64_t ready_entries() const noexcept {
            std::uint64_t m = q->positions_of_banks(ch->ready_banks & q->banks());
            if (!all_visible) {
                std::size_t visible = q->size(); // visibility is non-decreasing along the queue
                while (visible > 0 && q->key_at(visible - 1).visible_at > t) --visible;
                m &= visible >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << visible) - 1;
            }
            return m;
        }
        [[nodiscard]] bool ready_entries_known() const noexcept { return q->tracks_positions(); }
        /// The earliest `ready_at` of the entries not in `ready_entries()` (never if none).
        /// With every entry visible those are the entries of the busy banks, each ready when
        /// its bank is: one value per bank instead of one per entry.
        [[nodiscard]] std::uint64_t not_ready_wake() const noexcept {
            if (all_visible)
                return ch->busy.first_of(q->banks() & ~ch->ready_banks, ch->bank_ready);
            std::uint64_t w = never;
            const std::size_t n = q->size();
            std::uint64_t rest =
                ~ready_entries() & (n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1);
            for (; rest != 0; rest &= rest - 1)
                w = std::min(w, ready_at(static_cast<std::size_t>(std::countr_zero(rest))));
            return w;
        }
        /// For a row hit: the earliest cycle its column command could issue if selected now
        /// (tCCD, tWTR, turnarounds against the placed commands). Cached per (rank, group)
        /// for banks whose tRCD has passed: the answer is then the same for all of them.
        [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t issue_at(std::size_t i) const noexcept {
            const std::uint32_t b = q->key_at(i).bank;
            const bool w = mixed ? q->request(i).is_write : write;
            const auto& d = ch->dram;
            if (d.bank(b).col_ready > t) return d.column_ready(b, w, t);
            const std::uint32_t rg = d.rank_group_of(b);
            return ((cached[w] >> rg) & 1u) != 0 ? cache[w][rg] : slot(rg, w);
        }
        /// The column slot of rank-group `rg` at t for one direction, computed once per view.
        [[nodiscard]] std::uint64_t slot(std::uint32_t rg, bool w) const noexcept {
            cache[w][rg] = ch->dram.column_slot(rg, w, t);
            cached[w] |= std::uint64_t{1} << rg;
            return cache[w][rg];
        }

        const queue* q;
        const channel* ch;
        std::uint64_t t;
        bool all_visible;
        bool write;         ///< the queue holds writes
        bool mixed = false; ///< the queue holds both (each entry's own direction counts)
        mutable std::array<std::uint64_t, 2> cached{};
        mutable std::array<std::array<std::uint64_t, 64>, 2> cache;
    };

    [[nodiscard]] static view make_view(const queue& q, const channel& ch, std::uint64_t t,
                                        bool write) noexcept {
        view v{&q, &ch, t, q.empty() || q.key_at(q.size() - 1).visible_at <= t, write};
        return v;
    }

    static const params& validated(const params& p) {
        p.timing.validate(component);
        using memsub::detail::require;
        require(p.read_queue >= 1 && p.read_queue <= 4096, component, "read_queue", p.read_queue,
                "must be in 1..4096");
        require(p.write_queue >= 1 && p.write_queue <= 4096, component, "write_queue",
                p.write_queue, "must be in 1..4096");
        require(p.write_high_watermark_pct <= 100 && p.write_high_watermark_pct >= 1, component,
                "write_high_watermark_pct", p.write_high_watermark_pct, "must be in 1..100");
        require(p.write_low_watermark_pct < p.write_high_watermark_pct, component,
                "write_low_watermark_pct", p.write_low_watermark_pct,
                "must be < write_high_watermark_pct");
        require(p.queue_entries <= p.read_queue + p.write_queue, component, "queue_entries",
                p.queue_entries, "must be <= read_queue + write_queue (0 = their sum)");
        require(p.bank_command_queue <= 64, component, "bank_command_queue", p.bank_command_queue,
                "must be <= 64 (0 = none)");
        require(!p.two_level_queues || p.bank_command_queue != 0, component, "bank_command_queue",
                p.bank_command_queue,
                "must be >= 1 with two_level_queues (the command queues' entries)");
        return p;
    }

    [[nodiscard]] std::uint32_t capacity_per_channel() const noexcept { return capacity_; }
    [[nodiscard]] bool has_room(const channel& ch, bool write) const noexcept {
        const bool queue_room =
            write ? !ch.wq.full()
                  : (p_.two_level_queues ? ch.rq.size() < p_.read_queue
                                         : !ch.rq.full() && (p_.bank_command_queue == 0 ||
                                                             ch.reads_outside < p_.read_queue));
        return queue_room && ch.held < capacity_per_channel();
    }

    void retire(const completion& c) noexcept {
        channel& ch = channels_[c.channel];
        --ch.held;
        stats_.record(c, p_.timing.burst_cycles(), p_.timing.burst_bytes());
        // Turnarounds in data-bus order: completions retire in done order, and a channel's
        // bursts never overlap, so this is the order of its bursts on the bus.
        if (!c.from_queue) {
            const auto dir = static_cast<std::uint8_t>(c.is_write);
            stats_.bus_turnarounds += ch.last_dir != 2 && ch.last_dir != dir;
            ch.last_dir = dir;
        }
    }

    /// Performs the refreshes of `ch` due by `t` and updates the banks' mirror.
    void refresh_due(channel& ch, std::uint64_t t) noexcept {
        if (const std::uint64_t n = ch.dram.refresh_until(t); n != 0) {
            stats_.refreshes += n;
            for (std::uint32_t b = 0; b < p_.timing.banks_per_channel(); ++b) sync_bank(ch, b, t);
        }
    }

    void run_channel(std::uint32_t c, std::uint64_t until) noexcept {
        if (p_.two_level_queues) {
            run_channel_two_level(c, until);
            return;
        }
        channel& ch = channels_[c];
        while (ch.next_decision <= until) {
            const std::uint64_t t = ch.next_decision;
            refresh_due(ch, t);
            // Which banks with queued requests take one now? If none, no scheduler can select
            // anything: sleep until the first one can.
            std::uint64_t bank_wake = never;
            const std::uint64_t ready_banks = ready_mask(ch, t, bank_wake);
            if (ready_banks == 0) {
                ch.next_decision = bank_wake; // never when both queues are empty
                continue;
            }
            ch.ready_banks = ready_banks;
            // Read mode or a write drain (header comment): only the queue of the mode is
            // scheduled, so writes go in batches.
            const std::uint64_t flush_at = update_drain(ch, t);
            queue* from = ch.draining ? &ch.wq : &ch.rq;
            const std::uint64_t mask = ch.queued_kind[ch.draining ? 1 : 0];
            // A queue with no request at a ready bank cannot yield a selection: skip its scan;
            // its wake-up is then the first cycle one of its banks (all busy) takes a request.
            selection s{};
            std::uint64_t wake = flush_at;
            if ((mask & ready_banks) != 0) {
                s = ch.sched.select(from->size(), make_view(*from, ch, t, ch.draining));
                wake = std::min(wake, s.wake);
            } else {
                wake = std::min(wake, ch.busy.first_of(mask, ch.bank_ready));
            }
            if (s.index == selection::none && ch.draining && p_.drained_writes_mix_with_reads) {
                // No drained write now: a read queued before the drain started may go (the
                // reads already in DRAMSim3's command queues). Visibility is non-decreasing
                // along the queue, so those reads are a prefix of it.
                std::size_t rn = ch.rq.size();
                while (rn > 0 && ch.rq.key_at(rn - 1).visible_at >= ch.drain_started) --rn;
                if (rn != 0) {
                    if ((ch.queued_kind[0] & ready_banks) != 0) {
                        const selection r = ch.sched.select(rn, make_view(ch.rq, ch, t, false));
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
            if (s.index == selection::none && p_.write_when_no_read) {
                // The earlier policy: the other queue serves when the mode's cannot.
                queue* other = ch.draining ? &ch.rq : &ch.wq;
                const std::uint64_t omask = ch.queued_kind[ch.draining ? 0 : 1];
                if ((omask & ready_banks) != 0) {
                    const selection s2 =
                        ch.sched.select(other->size(), make_view(*other, ch, t, !ch.draining));
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
            if (p_.refresh_preempts && p_.timing.refresh == refresh_mode::all_bank &&
                p_.timing.tREFI != 0) {
                // The request's column command would come at or after its rank's refresh is
                // due: the channel selects nothing more before the refresh (performed at the
                // next decision, which then finds the banks blocked for tRFC). [memsub: with
                // several ranks DRAMSim3 would keep serving the other ranks meanwhile.]
                const auto& k = from->key_at(s.index);
                const std::uint64_t due = ch.dram.refresh_due_of_rank(ch.dram.rank_of(k.bank));
                ch.dram.settle(k.bank, t);
                const command_plan plan =
                    ch.dram.plan(k.bank, k.row, from->request(s.index).is_write, t);
                if (plan.column >= due) {
                    // Its PRE / ACT before the refresh still issue (and hold the refresh).
                    ch.dram.commit_row_commands(k.bank, k.row, plan, due);
                    sync_bank(ch, k.bank, t);
                    ch.next_decision = std::max(due, t + 1);
                    continue;
                }
            }
            if (ch.draining && from == &ch.wq) {
                // DRAMSim3's R→W dependency: a write with an older read of its line queued
                // ends the drain; the read goes first. (write_when_no_read's opportunistic
                // writes are not checked, as before that option existed.)
                if (!p_.write_when_no_read &&
                    find_line(ch.rq, from->key_at(s.index).bank, from->key_at(s.index).row,
                              from->request(s.index).address) != none) {
                    ch.draining = false;
                    ch.hazard_hold = true;
                    continue; // decide again at t in read mode
                }
                --ch.drain_left;
                ++ch.drain_served;
                ++stats_.drained_writes;
            } else if (from == &ch.rq) {
                ch.hazard_hold = false;
            }
            ch.sched.on_selected(make_view(*from, ch, t, from == &ch.wq), s.index);
            const std::uint32_t bank = from->key_at(s.index).bank;
            const bool write = from->request(s.index).is_write;
            issue(c, ch, from->key_at(s.index), from->request(s.index), t);
            from->erase(s.index);
            if (!write && ch.rq.empty()) ch.reads_absent_since = t;
            // The bank leaves the masks when its last request of a kind leaves (no branch).
            const bool none_left = --ch.per_bank[bank] == 0;
            const std::size_t kind = write ? 1 : 0;
            if (!write && p_.bank_command_queue != 0 &&
                ch.per_bank_kind[0][bank] > p_.bank_command_queue)
                --ch.reads_outside; // the oldest outside read moves into the command queue
            const bool none_of_kind = --ch.per_bank_kind[kind][bank] == 0;
            ch.queued_banks &= ~(std::uint64_t{none_left} << bank);
            ch.queued_kind[kind] &= ~(std::uint64_t{none_of_kind} << bank);
            ch.min_decision = t + 1;
            // The next decision: next cycle if a bank with queued requests is ready then,
            // otherwise when the first becomes ready (saves the host an idle round trip).
            std::uint64_t w = never;
            ch.next_decision = ready_mask(ch, t + 1, w) != 0 ? t + 1 : w;
        }
    }

    /// DRAMSim3's two levels (params::two_level_queues): per cycle, the selection among the
    /// command queues' requests (its GetCommandToIssue), then one move from a transaction
    /// queue into a command queue (its ScheduleTransaction, called after the issue in
    /// Controller::ClockTick, so a request moved at t is selectable from t + 1).
    void run_channel_two_level(std::uint32_t c, std::uint64_t until) noexcept {
        channel& ch = channels_[c];
        const std::uint32_t room = p_.bank_command_queue;
        while (ch.next_decision <= until) {
            const std::uint64_t t = ch.next_decision;
            refresh_due(ch, t);
            if (ch.pend_min <= t) purge_columns(ch, t);
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
                    view v = make_view(ch.cq, ch, t, false);
                    v.mixed = true;
                    const selection s = ch.sched.select(ch.cq.size(), v);
                    wake = s.wake;
                    if (s.index != selection::none)
                        selected = select_two_level(c, ch, v, s.index, t, wake);
                }
            }
            // ScheduleTransaction: does a drain start?
            bool drain_changed = false;
            if (ch.write_draining == 0 && !ch.wq.empty() && !ch.hazard_hold) {
                bool start = ch.wq.size() >= high_ || (p_.write_idle_drain_min != 0 &&
                                                       ch.wq.size() >= p_.write_idle_drain_min &&
                                                       ch.cq.empty() && ch.pend_total == 0);
                if (!start && ch.reads_absent_since != never) {
                    // [memsub] no read anywhere for write_idle_flush_cycles
                    const std::uint64_t at = ch.reads_absent_since + p_.write_idle_flush_cycles;
                    start = t >= at;
                    if (!start) wake = std::min(wake, at);
                }
                if (!start && p_.write_max_wait_cycles != 0) {
                    const std::uint64_t at = ch.wq.key_at(0).visible_at + p_.write_max_wait_cycles;
                    start = t >= at;
                    if (!start) wake = std::min(wake, at);
                }
                if (start) {
                    ch.write_draining = static_cast<std::uint32_t>(ch.wq.size());
                    ++stats_.write_drains;
                }
            }
            // The first request of the mode's queue whose bank command queue has room moves.
            bool moved = false;
            queue& src = ch.write_draining != 0 ? ch.wq : ch.rq;
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
                    if (find_line(ch.rq, k.bank, k.row, r.address) != none ||
                        find_line(ch.cq, k.bank, k.row, r.address, of_kind::reads) != none) {
                        ch.write_draining = 0;
                        ch.hazard_hold = true;
                        drain_changed = true;
                        break;
                    }
                    --ch.write_draining;
                    ++stats_.drained_writes;
                } else {
                    ch.hazard_hold = false;
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

    /// Drops the pending column cycles ≤ t (those commands have issued).
    void purge_columns(channel& ch, std::uint64_t t) const noexcept {
        ch.pend_min = never;
        for (std::uint32_t b = 0; b < p_.timing.banks_per_channel(); ++b) {
            std::uint64_t* col = &ch.pend_col[std::size_t{b} * p_.bank_command_queue];
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
    bool select_two_level(std::uint32_t c, channel& ch, const view& v, std::size_t i,
                          std::uint64_t t, std::uint64_t& wake) noexcept {
        const auto k = ch.cq.key_at(i);
        const mem_request r = ch.cq.request(i);
        if (p_.row_commands_apart) {
            ch.dram.settle(k.bank, t);
            const command_plan plan = ch.dram.plan(k.bank, k.row, r.is_write, t);
            if (plan.kind != row_class::hit) {
                // Only its PRE / ACT now (those before a due refresh); it stays queued.
                const bool preempt = p_.refresh_preempts &&
                                     p_.timing.refresh == refresh_mode::all_bank &&
                                     p_.timing.tREFI != 0;
                const std::uint64_t due =
                    preempt ? ch.dram.refresh_due_of_rank(ch.dram.rank_of(k.bank)) : never;
                ch.dram.commit_row_commands(k.bank, k.row, plan, due);
                sync_bank(ch, k.bank, t);
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
        if (p_.refresh_preempts && p_.timing.refresh == refresh_mode::all_bank &&
            p_.timing.tREFI != 0) {
            // As in run_channel: a column command at or after the refresh waits for it; its
            // PRE / ACT before the due cycle still issue. (The moves go on meanwhile.)
            const std::uint64_t due = ch.dram.refresh_due_of_rank(ch.dram.rank_of(k.bank));
            ch.dram.settle(k.bank, t);
            const command_plan plan = ch.dram.plan(k.bank, k.row, r.is_write, t);
            if (plan.column >= due) {
                ch.dram.commit_row_commands(k.bank, k.row, plan, due);
                sync_bank(ch, k.bank, t);
                ch.refresh_hold_until = std::max(due, t + 1);
                wake = std::min(wake, ch.refresh_hold_until);
                return false;
            }
        }
        if (r.is_write) {
            // command_queue.cc HasRWDependency: not before an older read of its line.
            const std::size_t read = find_line(ch.cq, k.bank, k.row, r.address, of_kind::reads);
            if (read != none && read < i) {
                wake = std::min(wake, t + 1);
                return false;
            }
        }
        ch.sched.on_selected(v, i);
        const std::uint64_t column = issue(c, ch, k, r, t);
        if (column > t) {
            // It holds its command-queue slot until the column command issues.
            ch.pend_col[std::size_t{k.bank} * p_.bank_command_queue + ch.pend_n[k.bank]++] = column;
            ++ch.pend_total;
            ch.pend_min = std::min(ch.pend_min, column);
        }
        ch.cq.erase(i);
        --ch.per_bank[k.bank];
        if (--ch.cq_of_bank[k.bank] == 0) ch.cq_banks &= ~(std::uint64_t{1} << k.bank);
        if (!r.is_write) {
            ch.hazard_hold = false; // a read went: drains may start again
            if (--ch.cq_reads == 0 && ch.rq.empty()) ch.reads_absent_since = t;
        }
        return true;
    }

    /// Banks with queued requests that take a request at `t` (t never decreases per channel);
    /// when there are none, `wake` = the earliest cycle one does.
    [[nodiscard]] static std::uint64_t ready_mask(channel& ch, std::uint64_t t,
                                                  std::uint64_t& wake) noexcept {
        ch.busy.advance(t, ch.bank_ready);
        const std::uint64_t ready = ch.queued_banks & ~ch.busy.mask();
        if (ready == 0) wake = std::min(wake, ch.busy.first_of(ch.queued_banks, ch.bank_ready));
        return ready;
    }

    static void sync_bank(channel& ch, std::uint32_t b, std::uint64_t t) noexcept {
        const auto& bs = ch.dram.bank(b);
        const std::uint64_t old = ch.bank_ready[b];
        ch.bank_ready[b] = bs.accept_at;
        ch.bank_row[b] = bs.open_row;
        ch.bank_close[b] = bs.close_at;
        ch.busy.update(b, old, t, ch.bank_ready);
    }

    /// Places the request's commands; returns its column command's cycle.
    std::uint64_t issue(std::uint32_t c, channel& ch, const detail::request_queue::key& k,
                        const mem_request& r, std::uint64_t t) noexcept {
        ch.dram.settle(k.bank, t);
        const command_plan plan = ch.dram.plan(k.bank, k.row, r.is_write, t);
        const std::uint32_t gbank = c * p_.timing.banks_per_channel() + k.bank;
        row_class kind = plan.kind;
        if (const std::uint64_t bit = std::uint64_t{1} << k.bank; (ch.act_pending & bit) != 0) {
            // row_commands_apart: the first column command after the ACT placed for a miss.
            if (kind == row_class::hit) kind = ch.act_kind[k.bank];
            ch.act_pending &= ~bit;
        }
        rows_.observe(gbank, kind, plan.premature_close);
        ch.dram.commit(k.bank, k.row, r.is_write, plan, rows_.close_at(gbank, plan.done));
        sync_bank(ch, k.bank, t);
        heap_.push(completion{.id = r.id,
                              .address = r.address,
                              .is_write = r.is_write,
                              .requester = r.requester,
                              .channel = c,
                              .bank = k.bank,
                              .kind = kind,
                              .arrival_cycle = r.arrival_cycle,
                              .selected_cycle = t,
                              .data_cycle = plan.data,
                              .done_cycle = plan.done});
        return plan.column;
    }

    Mapping map_;
    params p_;
    RowPolicy rows_;
    std::vector<channel> channels_;
    detail::completion_queue heap_;
    std::uint32_t high_ = 1;
    std::uint32_t low_ = 0;
    std::uint32_t capacity_ = 1;   ///< requests a channel holds (queue_entries or both queues)
    std::uint32_t line_shift_ = 6; ///< log2 burst bytes: forwarding and merging per line
    std::uint64_t now_ = 0;
    controller_stats stats_{};
    std::string_view scheduler_name_ = Scheduler{typename Scheduler::params{}, 1}.name();
};

template <row_policy RowPolicy = open_page, address_mapping Mapping = bit_field_mapping>
using fcfs_controller = dram_controller<fcfs, RowPolicy, Mapping>;

template <row_policy RowPolicy = open_page, address_mapping Mapping = bit_field_mapping>
using fr_fcfs_controller = dram_controller<fr_fcfs, RowPolicy, Mapping>;

/// Kim et al.'s HMC vault controller (seed 002; spec §3.6 and G2.4): FR-FCFS, closed page,
/// one 16-entry request queue per vault (reads and writes share its 16 entries).
template <address_mapping Mapping = bit_field_mapping>
using hmc_vault_controller = dram_controller<fr_fcfs, closed_page, Mapping>;

/// Parameters that match DRAMSim3's controller (src/controller.cc, command_queue.cc) as far as
/// memsub models it: its two levels, transaction queues of 32 feeding per-bank command queues
/// of 8 (its configs' cmd_queue_size) with its drain and transfer rules (`two_level_queues`,
/// `row_commands_apart`; memsub's idle flush kept, no write wait bound, as DRAMSim3), its refresh
/// (refresh.cc, command_queue.cc FinishRefresh, channel_state.cc GetReadyCommand:
/// `refresh_preempts`, `refresh_precharge_one_per_cycle`) and, with FR-FCFS, its round-robin
/// over the bank queues (command_queue.cc GetCommandToIssue: `round_robin_hits`,
/// `round_robin_misses`). The fidelity suite (tests/memory/fidelity_test.cpp) runs these against
/// DRAMSim3's own figures.
template <class Controller = dram_controller<fr_fcfs>>
[[nodiscard]] typename Controller::params dramsim3_params(const dram_timing& timing) {
    typename Controller::params p{};
    p.timing = timing;
    p.read_queue = 32;
    p.write_queue = 32;
    p.bank_command_queue = 8;
    p.two_level_queues = true;
    p.row_commands_apart = true;
    p.refresh_preempts = true;
    p.refresh_precharge_one_per_cycle = true;
    p.write_max_wait_cycles = 0; // DRAMSim3 bounds no write's wait
    if constexpr (requires { p.scheduler.round_robin_hits; }) {
        p.scheduler.round_robin_hits = true;
        p.scheduler.round_robin_misses = true;
    }
    return p;
}

/// The parameters of `hmc_vault_controller` for a vault timing (default: presets::hmc_vault).
[[nodiscard]] inline hmc_vault_controller<>::params
hmc_vault_params(const dram_timing& timing = presets::hmc_vault) {
    return {.timing = timing, .read_queue = 16, .write_queue = 16, .queue_entries = 16};
}

static_assert(memory_controller<fcfs_controller<>>);
static_assert(memory_controller<fr_fcfs_controller<>>);

} // namespace memsub::memory
