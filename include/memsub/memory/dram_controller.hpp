// memsub — the shared-queue DRAM controller: per channel one read queue and one write queue
// shared by all requesters, a request scheduler (FCFS, FR-FCFS) and a row policy, over the
// timing model of `dram_channel`. Models `memory_controller` (memory/concept.hpp).
//
// Composition: `dram_controller<Scheduler, RowPolicy, Mapping>`; aliases `fcfs_controller` and
// `fr_fcfs_controller`. This is the baseline of HTA (seed 004 §4.1: "one read queue and one
// write queue shared by all requesters … FR-FCFS"), the HMC vault controller of Kim et al.
// (seed 002: FR-FCFS, 16-entry queue) and ReMAP's FCFS DDR3 controller (seed 001, Table 2.3).
//
// Per channel and per cycle the controller selects at most one request (spec G4.8). Reads go
// first; writes are served when no read can be selected, and exclusively while the write
// queue drains from the high watermark down to the low one (spec G4.5 resolution: 80 % / 20 %).
// A bank takes a new request once the column command of its previous one is committed, so
// row hits to one bank pipeline at tCCD while FR-FCFS still sees a full queue to reorder.
// Idle time is skipped: `next_event_cycle` names the next cycle where anything can happen.
#pragma once

#include <algorithm>
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
#include <memsub/memory/concept.hpp>
#include <memsub/memory/controller_stats.hpp>
#include <memsub/memory/detail/ring_buffer.hpp>
#include <memsub/memory/dram_channel.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/fcfs.hpp>
#include <memsub/memory/fr_fcfs.hpp>
#include <memsub/memory/open_page.hpp>
#include <memsub/memory/row_policy.hpp>
#include <memsub/memory/scheduler.hpp>

namespace memsub::memory {

namespace detail {

/// A request waiting in a controller queue, with its decoded coordinates.
struct queued_request {
    mem_request req{};
    std::uint64_t visible_at = 0; ///< first cycle the scheduler may consider it
    std::uint32_t row = 0;
    std::uint32_t bank = 0; ///< flat bank within the channel
};

/// Checks that a mapping's organisation matches a timing preset.
inline void check_mapping(const dram_organisation& o, const dram_timing& t,
                          std::string_view component) {
    using memsub::detail::require;
    require(o.channels == t.channels, component, "mapping channels", o.channels,
            "must equal timing.channels (" + std::to_string(t.channels) + ")");
    require(o.ranks == t.ranks, component, "mapping ranks", o.ranks,
            "must equal timing.ranks (" + std::to_string(t.ranks) + ")");
    require(o.bank_groups == t.bank_groups, component, "mapping bank_groups", o.bank_groups,
            "must equal timing.bank_groups (" + std::to_string(t.bank_groups) + ")");
    require(o.banks_per_group == t.banks_per_group, component, "mapping banks_per_group",
            o.banks_per_group,
            "must equal timing.banks_per_group (" + std::to_string(t.banks_per_group) + ")");
    require(o.burst_bytes == t.burst_bytes(), component, "mapping burst_bytes", o.burst_bytes,
            "must equal timing burst bytes (" + std::to_string(t.burst_bytes()) + ")");
    require(o.columns <= t.columns(), component, "mapping columns", o.columns,
            "must be <= the bursts per row (" + std::to_string(t.columns()) + ")");
}

/// Min-heap of completions by done cycle (storage reserved at construction).
class completion_heap {
public:
    completion_heap() = default;
    explicit completion_heap(std::size_t capacity) { v_.reserve(capacity); }
    void push(const completion& c) noexcept {
        MEMSUB_ASSERT(v_.size() < v_.capacity());
        v_.push_back(c);
        std::push_heap(v_.begin(), v_.end(), later);
    }
    [[nodiscard]] bool empty() const noexcept { return v_.empty(); }
    [[nodiscard]] std::size_t size() const noexcept { return v_.size(); }
    [[nodiscard]] const completion& top() const noexcept { return v_.front(); }
    completion pop() noexcept {
        std::pop_heap(v_.begin(), v_.end(), later);
        const completion c = v_.back();
        v_.pop_back();
        return c;
    }

private:
    static bool later(const completion& a, const completion& b) noexcept {
        return a.done_cycle != b.done_cycle ? a.done_cycle > b.done_cycle : a.id > b.id;
    }
    std::vector<completion> v_;
};

} // namespace detail

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
        /// Write drain starts when the write queue holds ≥ high % of its entries and stops at
        /// ≤ low %.
        std::uint32_t write_high_watermark_pct = 80;
        std::uint32_t write_low_watermark_pct = 20;
        typename Scheduler::params scheduler{};
        typename RowPolicy::params row{};
    };

    dram_controller(const Mapping& mapping, const params& p)
        : map_(mapping)
        , p_(validated(p))
        , rows_(p.row, p.timing.channels * p.timing.banks_per_channel())
        , heap_(std::size_t{p.timing.channels} * (p.read_queue + p.write_queue)) {
        detail::check_mapping(map_.organisation(), p.timing, component);
        channels_.reserve(p.timing.channels);
        for (std::uint32_t c = 0; c < p.timing.channels; ++c)
            channels_.emplace_back(p_, Scheduler(p.scheduler, p.timing.banks_per_channel()));
        high_ = std::max<std::uint32_t>(1, (p.write_queue * p.write_high_watermark_pct + 99) / 100);
        low_ = p.write_queue * p.write_low_watermark_pct / 100;
        stats_.channels = p.timing.channels;
    }

    [[nodiscard]] std::string_view name() const noexcept { return scheduler_name_; }

    [[nodiscard]] bool can_accept(const mem_request& r) const noexcept {
        const channel& ch = channels_[map_.map(r.address).channel];
        return r.is_write ? !ch.wq.full() && ch.held < capacity_per_channel()
                          : !ch.rq.full() && ch.held < capacity_per_channel();
    }

    enqueue_result enqueue(const mem_request& r) noexcept {
        const dram_address a = map_.map(r.address);
        channel& ch = channels_[a.channel];
        auto& q = r.is_write ? ch.wq : ch.rq;
        if (q.full() || ch.held >= capacity_per_channel()) {
            ++stats_.refused;
            return enqueue_result::queue_full;
        }
        const std::uint64_t visible = std::max(r.arrival_cycle, now_);
        q.push_back(detail::queued_request{.req = r,
                                           .visible_at = visible,
                                           .row = a.row,
                                           .bank = flat_bank(a, map_.organisation())});
        ++ch.held;
        ch.next_decision = std::min(ch.next_decision, std::max(visible, ch.min_decision));
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
        if (!heap_.empty()) t = std::min(t, std::max(heap_.top().done_cycle, now_ + 0));
        return t;
    }

    template <std::invocable<const completion&> Sink>
    std::size_t drain(Sink&& sink) {
        std::size_t n = 0;
        while (!heap_.empty() && heap_.top().done_cycle <= now_) {
            const completion c = heap_.pop();
            retire(c);
            sink(c);
            ++n;
        }
        return n;
    }

    std::size_t drain(std::span<completion> out) noexcept {
        std::size_t n = 0;
        while (n < out.size() && !heap_.empty() && heap_.top().done_cycle <= now_) {
            out[n] = heap_.pop();
            retire(out[n]);
            ++n;
        }
        return n;
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
        const std::uint32_t b = flat_bank(d, map_.organisation());
        std::uint32_t n = 0;
        for (std::size_t i = 0; i < ch.rq.size(); ++i) n += ch.rq[i].bank == b;
        for (std::size_t i = 0; i < ch.wq.size(); ++i) n += ch.wq[i].bank == b;
        return n;
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
    using queue = detail::ring_buffer<detail::queued_request>;

    struct channel {
        channel(const params& p, Scheduler s)
            : dram(p.timing)
            , rq(p.read_queue)
            , wq(p.write_queue)
            , sched(std::move(s)) {}
        dram_channel dram;
        queue rq;
        queue wq;
        Scheduler sched;
        std::uint64_t next_decision = never;
        std::uint64_t min_decision = 0; ///< one selection per cycle: next ≥ last + 1
        std::uint32_t held = 0;
        bool draining = false;
    };

    /// What a scheduler sees of one queue at cycle t.
    struct view {
        const queue* q;
        const dram_channel* dram;
        std::uint64_t t;
        [[nodiscard]] std::uint32_t bank(std::size_t i) const noexcept { return (*q)[i].bank; }
        [[nodiscard]] bool hit(std::size_t i) const noexcept {
            return dram->classify((*q)[i].bank, (*q)[i].row, t) == row_class::hit;
        }
        [[nodiscard]] std::uint64_t ready_at(std::size_t i) const noexcept {
            return std::max(dram->bank((*q)[i].bank).accept_at, (*q)[i].visible_at);
        }
        [[nodiscard]] bool ready(std::size_t i) const noexcept { return ready_at(i) <= t; }
    };

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
        return p;
    }

    [[nodiscard]] std::uint32_t capacity_per_channel() const noexcept {
        return p_.read_queue + p_.write_queue;
    }

    void retire(const completion& c) noexcept {
        --channels_[c.channel].held;
        stats_.record(c, p_.timing.burst_cycles(), p_.timing.burst_bytes());
    }

    void run_channel(std::uint32_t c, std::uint64_t until) noexcept {
        channel& ch = channels_[c];
        while (ch.next_decision <= until) {
            const std::uint64_t t = ch.next_decision;
            stats_.refreshes += ch.dram.refresh_until(t);
            // Write-drain mode (G4.5): enter at the high watermark, leave at the low one.
            if (!ch.draining && ch.wq.size() >= high_) ch.draining = true;
            if (ch.draining && ch.wq.size() <= low_) ch.draining = false;
            queue& first = ch.draining ? ch.wq : ch.rq;
            queue& second = ch.draining ? ch.rq : ch.wq;
            selection s = ch.sched.select(first.size(), view{&first, &ch.dram, t});
            queue* from = &first;
            std::uint64_t wake = s.wake;
            if (s.index == selection::none) {
                const selection s2 = ch.sched.select(second.size(), view{&second, &ch.dram, t});
                wake = std::min(wake, s2.wake);
                if (s2.index != selection::none) {
                    s = s2;
                    from = &second;
                }
            }
            if (s.index == selection::none) {
                ch.next_decision = wake; // never when both queues are empty
                continue;
            }
            ch.sched.on_selected(view{from, &ch.dram, t}, s.index);
            issue(c, ch, (*from)[s.index], t);
            from->erase(s.index);
            ch.min_decision = t + 1;
            ch.next_decision = (ch.rq.empty() && ch.wq.empty()) ? never : t + 1;
        }
    }

    void issue(std::uint32_t c, channel& ch, const detail::queued_request& q,
               std::uint64_t t) noexcept {
        ch.dram.settle(q.bank, t);
        const command_plan plan = ch.dram.plan(q.bank, q.row, q.req.is_write, t);
        const std::uint32_t gbank = c * p_.timing.banks_per_channel() + q.bank;
        rows_.observe(gbank, plan.kind, plan.premature_close);
        ch.dram.commit(q.bank, q.row, q.req.is_write, plan, rows_.close_at(gbank, plan.done));
        heap_.push(completion{.id = q.req.id,
                              .address = q.req.address,
                              .is_write = q.req.is_write,
                              .requester = q.req.requester,
                              .channel = c,
                              .bank = q.bank,
                              .kind = plan.kind,
                              .arrival_cycle = q.req.arrival_cycle,
                              .selected_cycle = t,
                              .data_cycle = plan.data,
                              .done_cycle = plan.done});
    }

    Mapping map_;
    params p_;
    RowPolicy rows_;
    std::vector<channel> channels_;
    detail::completion_heap heap_;
    std::uint32_t high_ = 1;
    std::uint32_t low_ = 0;
    std::uint64_t now_ = 0;
    controller_stats stats_{};
    std::string_view scheduler_name_ = Scheduler{typename Scheduler::params{}, 1}.name();
};

template <row_policy RowPolicy = open_page, address_mapping Mapping = bit_field_mapping>
using fcfs_controller = dram_controller<fcfs, RowPolicy, Mapping>;

template <row_policy RowPolicy = open_page, address_mapping Mapping = bit_field_mapping>
using fr_fcfs_controller = dram_controller<fr_fcfs, RowPolicy, Mapping>;

static_assert(memory_controller<fcfs_controller<>>);
static_assert(memory_controller<fr_fcfs_controller<>>);

} // namespace memsub::memory
