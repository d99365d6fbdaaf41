// memsub — the DRAM controller: per channel the queues of a queue organisation, a request
// scheduler (FCFS, FR-FCFS), a row policy and a write-drain policy, over the timing model of
// `dram_channel`. Models `memory_controller` (memory/concept.hpp).
//
// Composition: `dram_controller<Scheduler, RowPolicy, Mapping, Queues, Drain, Refresh>`, the
// last three compile-time parts of memory/controller_parts_concept.hpp:
//   * Queues — `shared_queues` (shared_queues.hpp; the default): one read queue and one write
//     queue per channel shared by all requesters, the baseline of [HTA] §3.1; or
//     `bank_command_queues` (bank_command_queues.hpp): DRAMSim3's transaction queues feeding
//     per-bank command queues ([DRAMSim3]; `dramsim3_controller`, dramsim3_controller.hpp).
//   * Drain — `watermark_write_drain` (watermark_write_drain.hpp; the default): read mode or a
//     write drain between watermarks, with DRAMSim3's and gem5's rules, each a knob below.
//   * Refresh — `jedec_postponed_refresh` (dram_refresh.hpp; the default): a due refresh waits
//     for the commands already placed, open banks precharge at once; or `dramsim3_refresh`: it
//     preempts the rank, one PRE per cycle.
// A knob only one organisation reads lives in its own params (`params::queues`), and its
// per-channel state in the channel (`channel::q`), so neither organisation carries the other's.
// Aliases: `fcfs_controller`, `fr_fcfs_controller`, and `hmc_vault_controller` /
// `hmc_vault_params`, the HMC vault controller of [MemNet] Table I (FR-FCFS, closed page, one
// 16-entry request queue per vault). ReMAP's DDR3 controller ([Dissertation] Table 2.3) is
// `fcfs_controller`.
//
// Both organisations share what is here: read-after-write forwarding and same-line write
// merging (a read of a line with a queued write is served from it and a write to such a line
// merges into it, DRAMSim3 AddTransaction, `forward_latency_cycles` after arrival), the refresh
// (performed at each decision, by the Refresh part's rules), the scheduler's view of a queue and
// the placing of a selected request's commands. Those commands are placed against the whole command
// history of the channel (dram_channel.hpp), so banks work in parallel and a later row hit may use
// an earlier idle bus slot. The view offered to the scheduler reports when a row hit's column
// command could issue (`issue_at`), which FR-FCFS uses to be first-ready. Idle time is skipped:
// `next_event_cycle` names the next cycle where anything can happen (already drainable completions
// are not events). Deviations from a command-level model (DRAMSim3): see dram_channel.hpp (command
// bus modelled only for column commands; a request's commands are fixed when it is selected, except
// with bank_command_queues' `row_commands_apart`). Decision: forwarding and merging
// (`forward_reads`, `merge_writes`) stay runtime knobs of the controller's own params, not parts:
// both organisations honour them the same way (the lookup covers the write queue and, through QO8,
// any other place a write waits), they act once per arrival rather than per decision, and the
// reference-model tests turn them off on either organisation. A part per combination was
// considered; it would add types with no difference in the scheduling code. Storage (hardware
// view): the organisation's queue entries — a request keeps its slot until its data is transferred
// — one open-row register and one timing state per bank, the write-drain policy's per-channel
// state, plus the scheduler's state (FR-FCFS: one bypass counter per bank) and the row policy's
// (timeout-adaptive: one timer per bank).
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
#include <memsub/memory/controller_parts_concept.hpp>
#include <memsub/memory/controller_stats.hpp>
#include <memsub/memory/detail/busy_banks.hpp>
#include <memsub/memory/detail/channel_driver.hpp>
#include <memsub/memory/detail/check_mapping.hpp>
#include <memsub/memory/detail/completion_queue.hpp>
#include <memsub/memory/detail/request_queue.hpp>
#include <memsub/memory/dram_channel.hpp>
#include <memsub/memory/dram_refresh.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/fcfs.hpp>
#include <memsub/memory/fr_fcfs.hpp>
#include <memsub/memory/open_page.hpp>
#include <memsub/memory/row_policy_concept.hpp>
#include <memsub/memory/scheduler_concept.hpp>
#include <memsub/memory/shared_queues.hpp>
#include <memsub/memory/watermark_write_drain.hpp>

namespace memsub::memory {

template <request_scheduler Scheduler, row_policy RowPolicy = open_page,
          address_mapping Mapping = bit_field_mapping, queue_organisation Queues = shared_queues,
          write_drain_policy Drain = watermark_write_drain,
          refresh_rule Refresh = jedec_postponed_refresh>
class dram_controller
    : public detail::channel_driver<
          dram_controller<Scheduler, RowPolicy, Mapping, Queues, Drain, Refresh>> {
public:
    static constexpr std::string_view component = "memsub::memory::dram_controller";
    using scheduler_type = Scheduler;
    using queues_type = Queues;
    using drain_type = Drain;
    using refresh_type = Refresh;

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
        /// With no read queued for this many cycles, the queued writes are drained whatever
        /// their number (a Deviation from DRAMSim3: watermark_write_drain.hpp).
        std::uint32_t write_idle_flush_cycles = 256;
        /// A drain also starts once the oldest queued write has waited this many cycles (0 = no
        /// bound, as DRAMSim3; a Deviation: watermark_write_drain.hpp).
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
        /// DRAMSim3's per-bank command queues of this many entries (its configs'
        /// cmd_queue_size: 8). With shared_queues, extra read capacity: a read moves from the
        /// read queue into its bank's command queue while that has room, so a channel holds up
        /// to read_queue + banks × this many reads; the scheduler still sees all of them (0 =
        /// none: a request keeps its read-queue slot until its data moved). With
        /// bank_command_queues, the command queues the scheduler selects from (≥ 1).
        std::uint32_t bank_command_queue = 0;
        /// The knobs only the queue organisation reads (shared_queues:
        /// `drained_writes_mix_with_reads`, `write_when_no_read`; bank_command_queues:
        /// `row_commands_apart`).
        typename Queues::params queues{};

        /// The write-drain policy's knobs (above).
        [[nodiscard]] write_drain_knobs drain_knobs() const noexcept {
            return detail::drain_knobs_of(*this, drain_queued_at_start);
        }
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
        line_shift_ = static_cast<std::uint32_t>(std::countr_zero(p.timing.burst_bytes()));
        capacity_ = p.queue_entries != 0 ? p.queue_entries
                                         : p.read_queue + p.write_queue +
                                               p.timing.banks_per_channel() * p.bank_command_queue;
        stats_.channels = p.timing.channels;
        stats_.peak_bytes_per_cycle = p.timing.peak_bytes_per_cycle();
    }

    [[nodiscard]] std::string_view name() const noexcept { return scheduler_name_; }

    [[nodiscard]] bool can_accept(const mem_request& r) const noexcept {
        return has_room(map_.map(r.address).channel, r.is_write);
    }

    enqueue_result enqueue(const mem_request& r) noexcept {
        // With one channel a full queue refuses without decoding the address (hosts retry
        // refused requests).
        if (channels_.size() == 1 && !has_room(0, r.is_write)) {
            ++stats_.refused;
            return enqueue_result::queue_full;
        }
        const dram_address a = map_.map(r.address);
        channel& ch = channels_[a.channel];
        if (!has_room(a.channel, r.is_write)) {
            ++stats_.refused;
            return enqueue_result::queue_full;
        }
        const std::uint64_t visible = std::max(r.arrival_cycle, now_);
        const std::uint32_t bank = flat_bank(a, map_.organisation());
        // Served by a queued write to the same line: forwarding (reads), merging (writes).
        if ((r.is_write ? p_.merge_writes : p_.forward_reads) &&
            (find_line(ch.wq, bank, a.row, r.address) != none ||
             Queues::holds_write(*this, a.channel, bank, a.row, r.address))) {
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
        if (!r.is_write && ch.rq.empty()) ch.reads_absent_since = never;
        ++ch.held;
        Queues::place(*this, a.channel, r, a.row, bank, visible);
        return enqueue_result::accepted;
    }

    // advance_to, next_event_cycle, drain and pending: detail::channel_driver.
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
    friend Queues; // the organisation runs the channels on the controller's state
    friend detail::channel_driver<dram_controller>;
    using queue = detail::request_queue;

    struct channel {
        channel(const params& p, Scheduler s)
            : dram(p.timing)
            , rq(p.read_queue + std::size_t{p.timing.banks_per_channel()} * p.bank_command_queue)
            , wq(p.write_queue)
            , sched(std::move(s))
            , drain(p.drain_knobs(), p.write_queue)
            , q(p.timing.banks_per_channel(), p.bank_command_queue) {
            bank_row.fill(dram_channel::no_row); // every bank starts precharged
            bank_close.fill(never);
        }
        dram_channel dram;
        queue rq;
        queue wq;
        Scheduler sched;
        Drain drain; ///< read mode or a write drain
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
        std::uint8_t last_dir = 2; ///< direction of the last burst retired (2 = none yet)
        std::uint64_t reads_absent_since = 0; ///< the read queue is empty since (never: not)
        typename Queues::channel_state q;     ///< the organisation's own per-channel state
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
        require(!Queues::command_queues || p.bank_command_queue != 0, component,
                "bank_command_queue", p.bank_command_queue,
                "must be >= 1 with bank_command_queues (the command queues' entries)");
        return p;
    }

    [[nodiscard]] std::uint32_t capacity_per_channel() const noexcept { return capacity_; }
    [[nodiscard]] bool has_room(std::uint32_t c, bool write) const noexcept {
        return Queues::has_room(*this, c, write) && channels_[c].held < capacity_per_channel();
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
        if (const std::uint64_t n = ch.dram.refresh_until(t, Refresh::precharge); n != 0) {
            stats_.refreshes += n;
            for (std::uint32_t b = 0; b < p_.timing.banks_per_channel(); ++b) sync_bank(ch, b, t);
        }
    }

    void run_channel(std::uint32_t c, std::uint64_t until) noexcept {
        Queues::run_channel(*this, c, until);
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

    /// Places the request's commands; returns its column command's cycle. A row hit counts as
    /// `hit_counts_as` (bank_command_queues' row_commands_apart: the class of the ACT it placed
    /// for this request).
    std::uint64_t issue(std::uint32_t c, channel& ch, const detail::request_queue::key& k,
                        const mem_request& r, std::uint64_t t,
                        row_class hit_counts_as = row_class::hit) noexcept {
        ch.dram.settle(k.bank, t);
        const command_plan plan = ch.dram.plan(k.bank, k.row, r.is_write, t);
        const std::uint32_t gbank = c * p_.timing.banks_per_channel() + k.bank;
        const row_class kind = plan.kind == row_class::hit ? hit_counts_as : plan.kind;
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

/// Kim et al.'s HMC vault controller ([MemNet] Table I): FR-FCFS, one 16-entry request queue
/// per vault (reads and writes share its 16 entries: `hmc_vault_params`), closed page.
/// Decision: closed page, as [MemNet] names no row policy; an HMC vault's rows are small (256 B
/// in the HMC specification) and its traffic is interleaved over 16 banks, so an open row is
/// rarely hit again. Any row policy can be given instead (open_page, timeout_adaptive).
template <address_mapping Mapping = bit_field_mapping>
using hmc_vault_controller = dram_controller<fr_fcfs, closed_page, Mapping>;

/// The parameters of `hmc_vault_controller` for a vault timing (default: presets::hmc_vault).
[[nodiscard]] inline hmc_vault_controller<>::params
hmc_vault_params(const dram_timing& timing = presets::hmc_vault) {
    return {.timing = timing, .read_queue = 16, .write_queue = 16, .queue_entries = 16};
}

static_assert(memory_controller<fcfs_controller<>>);
static_assert(memory_controller<fr_fcfs_controller<>>);

} // namespace memsub::memory
