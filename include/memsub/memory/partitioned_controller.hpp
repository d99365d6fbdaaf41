// memsub — HTA's partitioned memory controller (PMC): [HTA] §2.1.
//  * Front end (CMC, compute side): for every requester (core cluster) and memory channel a
//    dedicated read FIFO and write FIFO. Contention is confined to one requester's queues.
//  * Back end (MMC, one per channel, next to the DRAM): sees only the head of every CMC queue
//    of its channel, picks one request per cycle by FR-FCFS with round-robin across requesters,
//    and broadcasts (winner, bank); every CMC whose head targets that bank waits until the
//    winner's data has been transferred ("until the response is provided").
// Arbitration: `frfcfs_then_rr` (default) or `rr_then_frfcfs` (the next requester in
// round-robin order with an issuable head). Decision: the paper says requests of different
// requesters "are serviced in a round-robin fashion with an FR-FCFS scheduling policy" without
// saying which rule comes first, so both orders are offered; the default ranks row hits first,
// then the round-robin distance from the pointer, then age, which keeps FR-FCFS's row-hit
// benefit of the baseline it is compared with. The pointer moves past each winner.
// Deviation: under frfcfs_then_rr a requester whose heads are all row hits would otherwise
// starve the others' misses forever; a cap (`max_row_hit_bypasses`, default 16) on consecutive
// hit wins over the round-robin choice bounds every wait, as the FR-FCFS cap does.
// Decision: read/write priority and the write drain are not in the paper; the PMC uses the
// write-drain policy of the shared-queue controller (watermark_write_drain.hpp), over the
// heads of its mode's FIFOs, so writes go in batches. Its watermarks are percentages of the
// channel's write slots with gem5's defaults (85 % / 50 %; the paper names no values), a full
// write FIFO also starts a drain and keeps it on (it blocks its requester; DRAMSim3 drains at a
// full write buffer), its idle condition is "no read queued", and a drain is not bounded by the
// writes queued at its start (the FIFOs, not one queue, hold them). A read of a line with a
// write queued in any write FIFO of the channel is served from it, and a write to such a line
// merges into it (DRAMSim3's AddTransaction), `forward_latency_cycles` after arrival.
// `write_when_no_read` restores the earlier policy (a write head whenever no read head is
// issuable).
// Queue depth: iso-storage by default — depth = max(2, shared_depth / requesters) per
// (requester, channel) queue, so total storage per channel matches a shared `shared_depth`
// queue; or an explicit depth. Decision: the paper gives no depths, only that "the processor's
// total queue size remains unchanged" ([HTA] §2.1); iso-storage keeps that total, and the
// shared baseline's 32 entries per queue are DRAMSim3's default.
// The CMC↔MMC link latency (3 cycles SiPh, 50 electrical: [HTA] §4.2; 0 by default = the
// controller alone) delays visibility of a request at the MMC and the completion's return.
// Decision: the winner's broadcast travels the same link, so it shares that latency.
// Storage: per channel 2·requesters FIFOs of `depth` entries (the same total as the shared
// queue under iso-storage) plus one round-robin pointer (log2 requesters bits) and one bank
// reservation register per bank; the replicated queue-control logic is the only overhead.
// Models `memory_controller`.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/controller_parts_concept.hpp>
#include <memsub/memory/controller_stats.hpp>
#include <memsub/memory/detail/channel_driver.hpp>
#include <memsub/memory/detail/check_mapping.hpp>
#include <memsub/memory/detail/completion_queue.hpp>
#include <memsub/memory/detail/queued_request.hpp>
#include <memsub/memory/detail/ring_buffer.hpp>
#include <memsub/memory/dram_channel.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/open_page.hpp>
#include <memsub/memory/row_policy_concept.hpp>
#include <memsub/memory/watermark_write_drain.hpp>

namespace memsub::memory {

enum class pmc_arbitration : std::uint8_t { frfcfs_then_rr, rr_then_frfcfs };

template <row_policy RowPolicy = open_page, address_mapping Mapping = bit_field_mapping,
          write_drain_policy Drain = watermark_write_drain>
class partitioned_controller
    : public detail::channel_driver<partitioned_controller<RowPolicy, Mapping, Drain>> {
public:
    static constexpr std::string_view component = "memsub::memory::partitioned_controller";

    struct params {
        dram_timing timing = presets::hbm2_4gb_x128;
        /// Requesters (core clusters); `mem_request::requester` must be below it (a request
        /// from another requester is rejected: enqueue_result::rejected).
        std::uint32_t requesters = 16;
        /// Entries of each (requester, channel) read FIFO and write FIFO; 0 = iso-storage.
        std::uint32_t queue_depth = 0;
        /// The shared queue per channel that iso-storage divides (32, header comment).
        std::uint32_t shared_depth = 32;
        pmc_arbitration arbitration = pmc_arbitration::frfcfs_then_rr;
        /// CMC↔MMC latency each way, in controller cycles.
        std::uint32_t link_latency_cycles = 0;
        /// Same-bank heads wait until the winner's data is transferred (the paper); false lets
        /// them compete again once the winner's column command is committed.
        bool reserve_bank_until_data = true;
        /// frfcfs_then_rr: consecutive times a row hit may win over the head that round-robin
        /// would pick next (memsub's starvation cap, as in fr_fcfs; the paper has none).
        std::uint32_t max_row_hit_bypasses = 16;
        /// Write drain between watermarks of the channel's write slots: gem5 MemCtrl's
        /// write_high_thresh_perc / write_low_thresh_perc defaults (85 / 50). With 2-entry
        /// FIFOs only the heads compete, so long drains buy little (figures:
        /// docs/performance/figures_behind_choices.md).
        std::uint32_t write_high_watermark_pct = 85;
        std::uint32_t write_low_watermark_pct = 50;
        typename RowPolicy::params row{};
        /// With no read queued, a drain starts at this many writes (DRAMSim3); 0 = never.
        std::uint32_t write_idle_drain_min = 9;
        /// With no read queued for this many cycles, any queued writes drain (a Deviation
        /// from DRAMSim3: watermark_write_drain.hpp).
        std::uint32_t write_idle_flush_cycles = 256;
        /// A drain also starts (a Deviation: watermark_write_drain.hpp) once a write at a
        /// FIFO head has waited this many
        /// cycles (0 = no bound), so no write waits for ever behind a steady read stream.
        std::uint32_t write_max_wait_cycles = 1024;
        /// gem5 min_writes_per_switch: while reads wait, a drain ends after this many writes
        /// (0 = no such rule).
        std::uint32_t min_writes_per_switch = 0;
        /// Read-after-write forwarding and same-line write merging (DRAMSim3 AddTransaction).
        bool forward_reads = true;
        bool merge_writes = true;
        std::uint32_t forward_latency_cycles = 1;
        /// A drain also starts when a requester's write FIFO is full (DRAMSim3 drains at a
        /// full write buffer; here a full FIFO blocks its requester) and runs until none is
        /// and the low watermark is reached.
        bool drain_on_full_fifo = true;
        /// The earlier policy: a write head is also served whenever no read head is issuable.
        bool write_when_no_read = false;

        /// The write-drain policy's knobs (above; a drain is not bounded by the writes queued
        /// at its start).
        [[nodiscard]] write_drain_knobs drain_knobs() const noexcept {
            return detail::drain_knobs_of(*this, false);
        }

        [[nodiscard]] std::uint32_t depth() const noexcept {
            return queue_depth != 0
                       ? queue_depth
                       : std::max<std::uint32_t>(2, shared_depth / std::max(1u, requesters));
        }
    };

    partitioned_controller(const Mapping& mapping, const params& p)
        : map_(mapping)
        , p_(validated(p))
        , depth_(p.depth())
        , rows_(p.row, p.timing.channels * p.timing.banks_per_channel())
        , heap_(std::size_t{p.timing.channels} * p.requesters * 2 * p.depth()) {
        detail::check_mapping(map_.organisation(), p.timing, component);
        channels_.reserve(p.timing.channels);
        for (std::uint32_t c = 0; c < p.timing.channels; ++c) channels_.emplace_back(p_, depth_);
        line_shift_ = static_cast<std::uint32_t>(std::countr_zero(p.timing.burst_bytes()));
        stats_.channels = p.timing.channels;
        stats_.peak_bytes_per_cycle = p.timing.peak_bytes_per_cycle();
    }

    [[nodiscard]] std::string_view name() const noexcept {
        return p_.arbitration == pmc_arbitration::frfcfs_then_rr ? "pmc (fr-fcfs, rr)"
                                                                 : "pmc (rr, fr-fcfs)";
    }

    [[nodiscard]] bool can_accept(const mem_request& r) const noexcept {
        if (r.requester >= p_.requesters) return false;
        const channel& ch = channels_[map_.map(r.address).channel];
        const queue& q = r.is_write ? ch.wq[r.requester] : ch.rq[r.requester];
        return !q.full() && ch.held < capacity_per_channel();
    }

    /// Back-pressure query of the paper's host interface: is this requester's queue for the
    /// channel holding `a` full?
    [[nodiscard]] bool queue_full(std::uint32_t requester, byte_address a,
                                  bool write) const noexcept {
        return !can_accept(mem_request{.address = a, .is_write = write, .requester = requester});
    }

    enqueue_result enqueue(const mem_request& r) noexcept {
        if (r.requester >= p_.requesters) {
            // An input error, not back-pressure: this request can never be accepted (MC2).
            ++stats_.rejected;
            return enqueue_result::rejected;
        }
        if (!can_accept(r)) {
            ++stats_.refused;
            return enqueue_result::queue_full;
        }
        const dram_address a = map_.map(r.address);
        channel& ch = channels_[a.channel];
        queue& q = r.is_write ? ch.wq[r.requester] : ch.rq[r.requester];
        const std::uint32_t bank = flat_bank(a, map_.organisation());
        // Served by a queued write to the same line: forwarding (reads), merging (writes).
        if ((r.is_write ? p_.merge_writes : p_.forward_reads) && ch.writes != 0 &&
            queued_line(ch.wq, r.address)) {
            ++ch.held;
            ++(r.is_write ? stats_.merged_writes : stats_.forwarded_reads);
            const std::uint64_t at = std::max(r.arrival_cycle, now_) + p_.link_latency_cycles;
            heap_.push(
                completion{.id = r.id,
                           .address = r.address,
                           .is_write = r.is_write,
                           .requester = r.requester,
                           .channel = a.channel,
                           .bank = bank,
                           .kind = row_class::hit,
                           .arrival_cycle = r.arrival_cycle,
                           .selected_cycle = at,
                           .data_cycle = at,
                           .done_cycle = at + p_.forward_latency_cycles + p_.link_latency_cycles,
                           .from_queue = true});
            return enqueue_result::accepted;
        }
        if (!r.is_write && ch.reads == 0) ch.reads_absent_since = never;
        if (r.requester < 64)
            (r.is_write ? ch.busy_w : ch.busy_r) |= std::uint64_t{1} << r.requester;
        const std::uint64_t visible = std::max(r.arrival_cycle, now_) + p_.link_latency_cycles;
        q.push_back(
            detail::queued_request{.req = r, .visible_at = visible, .row = a.row, .bank = bank});
        ++ch.held;
        (r.is_write ? ch.writes : ch.reads) += 1;
        ch.full_fifos += r.is_write && q.full();
        ch.next_decision = std::min(ch.next_decision, std::max(visible, ch.min_decision));
        return enqueue_result::accepted;
    }

    // advance_to, next_event_cycle, drain and pending: detail::channel_driver.
    [[nodiscard]] std::uint32_t queued_at(byte_address a) const noexcept {
        const dram_address d = map_.map(a);
        const channel& ch = channels_[d.channel];
        const std::uint32_t b = flat_bank(d, map_.organisation());
        std::uint32_t n = 0;
        for (std::uint32_t r = 0; r < p_.requesters; ++r) {
            for (std::size_t i = 0; i < ch.rq[r].size(); ++i) n += ch.rq[r][i].bank == b;
            for (std::size_t i = 0; i < ch.wq[r].size(); ++i) n += ch.wq[r][i].bank == b;
        }
        return n;
    }
    [[nodiscard]] const controller_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] std::uint32_t queue_depth() const noexcept { return depth_; }
    [[nodiscard]] const Mapping& mapping() const noexcept { return map_; }
    [[nodiscard]] std::uint64_t now() const noexcept { return now_; }

private:
    friend detail::channel_driver<partitioned_controller>;
    using queue = detail::ring_buffer<detail::queued_request>;

    struct channel {
        channel(const params& p, std::uint32_t depth)
            : dram(p.timing)
            , reserved_until(p.timing.banks_per_channel(), 0)
            , drain(p.drain_knobs(), p.requesters * depth) {
            rq.reserve(p.requesters);
            wq.reserve(p.requesters);
            for (std::uint32_t r = 0; r < p.requesters; ++r) {
                rq.emplace_back(depth);
                wq.emplace_back(depth);
            }
        }
        dram_channel dram;
        std::vector<queue> rq;
        std::vector<queue> wq;
        std::vector<std::uint64_t> reserved_until; ///< MMC broadcast: bank busy until
        /// Requesters (below 64) with a non-empty read / write queue: with up to 64 requesters
        /// the arbiter visits only those.
        std::uint64_t busy_r = 0;
        std::uint64_t busy_w = 0;
        std::uint32_t rr = 0;
        std::uint32_t bypasses = 0; ///< consecutive hit wins over the round-robin choice
        std::uint32_t reads = 0;
        std::uint32_t writes = 0;
        std::uint32_t held = 0;
        std::uint64_t next_decision = never;
        std::uint64_t min_decision = 0;
        Drain drain;                          ///< read mode or a write drain
        std::uint32_t full_fifos = 0;         ///< write FIFOs that are full
        std::uint8_t last_dir = 2;            ///< direction of the last burst retired
        std::uint64_t reads_absent_since = 0; ///< no read queued since (never: some are)
    };

    /// Whether any FIFO of `qs` holds a request to the line of `a`.
    [[nodiscard]] bool queued_line(const std::vector<queue>& qs, byte_address a) const noexcept {
        const std::uint64_t line = a.value >> line_shift_;
        for (const queue& q : qs)
            for (std::size_t i = 0; i < q.size(); ++i)
                if ((q[i].req.address.value >> line_shift_) == line) return true;
        return false;
    }

    /// The write-drain policy's step at decision cycle t; returns the cycle from which a
    /// waiting start condition holds (never if none).
    MEMSUB_ALWAYS_INLINE std::uint64_t update_drain(channel& ch, std::uint64_t t) noexcept {
        const bool no_reads = ch.reads == 0;
        const drain_observation o{.writes = ch.writes,
                                  .reads_wait = !no_reads,
                                  .reads_absent_since = ch.reads_absent_since, // never: reads
                                  .idle = no_reads,
                                  .must_drain = ch.full_fifos != 0 && p_.drain_on_full_fifo,
                                  .writes_when_no_read = p_.write_when_no_read};
        const drain_step d = ch.drain.update(o, t, [&]() noexcept {
            // The oldest write is at a FIFO head.
            std::uint64_t oldest = never;
            for (std::uint32_t r = 0; r < p_.requesters; ++r)
                if (!ch.wq[r].empty()) oldest = std::min(oldest, ch.wq[r].front().visible_at);
            return oldest;
        });
        if (d.started) ++stats_.write_drains;
        return d.wake;
    }

    static const params& validated(const params& p) {
        p.timing.validate(component);
        require(p.requesters >= 1 && p.requesters <= 1024, component, "requesters", p.requesters,
                "must be in 1..1024");
        require(p.queue_depth <= 4096, component, "queue_depth", p.queue_depth,
                "must be <= 4096 (0 = iso-storage)");
        require(p.shared_depth >= 1, component, "shared_depth", p.shared_depth, "must be >= 1");
        require(p.write_high_watermark_pct >= 1 && p.write_high_watermark_pct <= 100, component,
                "write_high_watermark_pct", p.write_high_watermark_pct, "must be in 1..100");
        require(p.write_low_watermark_pct < p.write_high_watermark_pct, component,
                "write_low_watermark_pct", p.write_low_watermark_pct,
                "must be < write_high_watermark_pct");
        return p;
    }

    [[nodiscard]] std::uint32_t capacity_per_channel() const noexcept {
        return 2 * p_.requesters * depth_;
    }

    void retire(const completion& c) noexcept {
        channel& ch = channels_[c.channel];
        --ch.held;
        stats_.record(c, p_.timing.burst_cycles(), p_.timing.burst_bytes());
        if (!c.from_queue) { // turnarounds in data-bus order (completions retire in done order)
            const auto dir = static_cast<std::uint8_t>(c.is_write);
            stats_.bus_turnarounds += ch.last_dir != 2 && ch.last_dir != dir;
            ch.last_dir = dir;
        }
    }

    /// The cycle from which the head `q` may be issued (visibility, bank, broadcast).
    [[nodiscard]] static std::uint64_t ready_at(const channel& ch,
                                                const detail::queued_request& q) noexcept {
        return std::max({q.visible_at, ch.dram.bank(q.bank).accept_at, ch.reserved_until[q.bank]});
    }

    struct pick {
        std::uint32_t requester = 0;
        bool found = false;
        bool bypass = false; ///< a row hit chosen over the round-robin choice
        std::uint64_t wake = never;
    };

    /// One MMC decision over the heads of one queue kind (`nonempty`: the requesters whose
    /// queue of that kind holds requests, when there are at most 64 requesters).
    [[nodiscard]] pick choose(const channel& ch, const std::vector<queue>& qs,
                              std::uint64_t nonempty, std::uint64_t t) const noexcept {
        pick best;
        const std::uint32_t n = p_.requesters;
        // Visits requester r's head; true when the choice is made.
        auto visit = [&](std::uint32_t r) {
            const detail::queued_request& h = qs[r].front();
            const std::uint64_t ready = ready_at(ch, h);
            if (ready > t) {
                best.wake = std::min(best.wake, ready);
                return false;
            }
            if (p_.arbitration == pmc_arbitration::rr_then_frfcfs) {
                // The next requester in round-robin order with an issuable head.
                best.requester = r;
                best.found = true;
                return true;
            }
            // First-ready, then round-robin distance (iteration order); ages of different
            // requesters' heads only break ties of equal distance, which cannot occur.
            if (!best.found) {
                best.requester = r;
                best.found = true;
            }
            if (ch.dram.classify(h.bank, h.row, t) == row_class::hit) {
                if (r == best.requester) return true; // the round-robin choice is a hit
                if (ch.bypasses < p_.max_row_hit_bypasses) {
                    best.requester = r;
                    best.bypass = true;
                }
                return true; // else the cap is reached: the round-robin choice goes first
            }
            return false;
        };
        if (n <= 64) {
            // Round-robin order from the pointer over the non-empty queues only.
            const std::uint64_t from_rr = nonempty & (~std::uint64_t{0} << ch.rr);
            for (std::uint64_t m = from_rr; m != 0; m &= m - 1)
                if (visit(static_cast<std::uint32_t>(std::countr_zero(m)))) return best;
            for (std::uint64_t m = nonempty & ~from_rr; m != 0; m &= m - 1)
                if (visit(static_cast<std::uint32_t>(std::countr_zero(m)))) return best;
            return best;
        }
        for (std::uint32_t k = 0; k < n; ++k) {
            std::uint32_t r = ch.rr + k;
            if (r >= n) r -= n;
            if (!qs[r].empty() && visit(r)) return best;
        }
        return best;
    }

    void run_channel(std::uint32_t c, std::uint64_t until) noexcept {
        channel& ch = channels_[c];
        while (ch.next_decision <= until) {
            const std::uint64_t t = ch.next_decision;
            stats_.refreshes += ch.dram.refresh_until(t);
            const std::uint64_t flush_at = update_drain(ch, t);
            const bool draining = ch.drain.draining();
            std::vector<queue>& first = draining ? ch.wq : ch.rq;
            std::vector<queue>& second = draining ? ch.rq : ch.wq;
            const std::uint64_t first_busy = draining ? ch.busy_w : ch.busy_r;
            const std::uint64_t second_busy = draining ? ch.busy_r : ch.busy_w;
            pick pk = choose(ch, first, first_busy, t);
            std::vector<queue>* from = &first;
            std::uint64_t wake = std::min(pk.wake, flush_at);
            if (!pk.found && p_.write_when_no_read) {
                const pick p2 = choose(ch, second, second_busy, t);
                wake = std::min(wake, p2.wake);
                if (p2.found) {
                    pk = p2;
                    from = &second;
                }
            }
            if (!pk.found) {
                ch.next_decision = std::max(wake, t + 1);
                if (wake == never) ch.next_decision = never;
                continue;
            }
            queue& q = (*from)[pk.requester];
            if (from == &ch.wq && draining) {
                // DRAMSim3's R→W rule: a write with an older read of its line queued ends the
                // drain (the earlier policy did not check).
                if (!p_.write_when_no_read && ch.reads != 0 &&
                    queued_line(ch.rq, q.front().req.address)) {
                    ch.drain.end_on_hazard();
                    continue;
                }
                ch.drain.on_write_served();
                ++stats_.drained_writes;
            } else if (from == &ch.rq) {
                ch.drain.on_read_served();
            }
            ch.bypasses = pk.bypass ? ch.bypasses + 1 : 0;
            issue(c, ch, q.front(), t);
            const bool write = q.front().req.is_write;
            (write ? ch.writes : ch.reads) -= 1;
            if (!write && ch.reads == 0) ch.reads_absent_since = t;
            ch.full_fifos -= write && q.full();
            q.pop_front();
            if (q.empty() && pk.requester < 64)
                (write ? ch.busy_w : ch.busy_r) &= ~(std::uint64_t{1} << pk.requester);
            ch.rr = pk.requester + 1 == p_.requesters ? 0 : pk.requester + 1;
            ch.min_decision = t + 1;
            ch.next_decision = (ch.reads + ch.writes == 0) ? never : t + 1;
        }
    }

    void issue(std::uint32_t c, channel& ch, const detail::queued_request& q,
               std::uint64_t t) noexcept {
        ch.dram.settle(q.bank, t);
        const command_plan plan = ch.dram.plan(q.bank, q.row, q.req.is_write, t);
        const std::uint32_t gbank = c * p_.timing.banks_per_channel() + q.bank;
        rows_.observe(gbank, plan.kind, plan.premature_close);
        ch.dram.commit(q.bank, q.row, q.req.is_write, plan, rows_.close_at(gbank, plan.done));
        if (p_.reserve_bank_until_data) ch.reserved_until[q.bank] = plan.done;
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
                              .done_cycle = plan.done + p_.link_latency_cycles});
    }

    Mapping map_;
    params p_;
    std::uint32_t depth_;
    RowPolicy rows_;
    std::vector<channel> channels_;
    detail::completion_queue heap_;
    std::uint32_t line_shift_ = 6; ///< log2 burst bytes: forwarding and merging per line
    std::uint64_t now_ = 0;
    controller_stats stats_{};
};

static_assert(memory_controller<partitioned_controller<>>);

} // namespace memsub::memory
