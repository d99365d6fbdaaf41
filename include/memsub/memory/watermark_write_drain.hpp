// memsub — the write-drain policy of memsub's DRAM controllers (models `write_drain_policy`,
// memory/controller_parts_concept.hpp): a channel is in read mode or in a write drain, and serves
// the queue of its mode, so writes go to the DRAM in batches and the bus turns around rarely.
//
// Decision: the sources leave read/write arbitration open ([HTA] names none; for its baseline
// memsub takes "reads first, watermark write drain"), so memsub follows the simulators the
// DRAM figures are checked against: DRAMSim3's controller ([DRAMSim3], src/controller.cc
// ScheduleTransaction, commit 2981759) and gem5's MemCtrl ([gem5], write_high_thresh_perc,
// write_low_thresh_perc, min_writes_per_switch). A first-come mix of reads and writes was
// considered and kept only as a controller option (`write_when_no_read`): it turns the bus
// around about 3× as often as DRAMSim3 on a 70/30 mix (tests/memory/fidelity_test.cpp).
//
// A drain starts, unless the last one ended on a hazard and no read has been served since:
//   * when the queued writes reach the high watermark (DRAMSim3: a full write buffer, 100 %;
//     gem5: 85 %), or the controller must drain (a full FIFO blocks its requester);
//   * in the controller's idle condition, at `idle_drain_min` writes (DRAMSim3:
//     "write_buffer_.size() > 8 && cmd_queue_.QueueEmpty()");
//   * Deviation: when no read has been queued for `idle_flush_cycles`, whatever the number of
//     writes. DRAMSim3 acknowledges a write at once and may leave up to 8 queued for ever;
//     memsub completes a write at its data transfer, so a write must not wait unboundedly;
//   * Deviation: when the oldest write has waited `max_wait_cycles` (0 = no bound, as in
//     DRAMSim3): with reads always queued and fewer writes than the watermark, DRAMSim3's
//     rules would hold a write for ever.
// It ends at the next decision after one of:
//   * the queued writes fall to the low watermark (gem5: 50 %; DRAMSim3 has none: 0 %) and
//     the controller no longer must drain;
//   * it has served the writes queued when it started (`drain_queued_at_start`; DRAMSim3's
//     write_draining_ = write_buffer_.size() at the switch, one less per write);
//   * reads wait and it has served `min_writes_per_switch` writes (gem5; 0 = no such rule);
// or at once when the write about to be served has an older read of its line queued
// (DRAMSim3's R→W dependency, command_queue.cc HasRWDependency): the read goes first, and no
// drain starts until a read has been served. Deviation: DRAMSim3 retries at once, and at a full
// write queue can wait for ever on a read it no longer moves.
// Storage (hardware view): per channel a mode bit, a hazard bit, the writes left and served in
// the drain (counters of log2(write slots) bits) and its start cycle.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>

#include <memsub/config.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/controller_parts_concept.hpp>

namespace memsub::memory {

class watermark_write_drain {
public:
    watermark_write_drain(const write_drain_knobs& k, std::uint32_t write_slots) noexcept
        : high_(std::max<std::uint32_t>(1, (write_slots * k.high_watermark_pct + 99) / 100))
        , low_(write_slots * k.low_watermark_pct / 100)
        , idle_drain_min_(k.idle_drain_min)
        , idle_flush_cycles_(k.idle_flush_cycles)
        , max_wait_cycles_(k.max_wait_cycles)
        , min_writes_per_switch_(k.min_writes_per_switch)
        , drain_queued_at_start_(k.drain_queued_at_start) {}

    /// Ends or starts a drain at decision cycle t (header comment for the rules).
    template <std::invocable OldestWrite>
    MEMSUB_ALWAYS_INLINE drain_step update(const drain_observation& o, std::uint64_t t,
                                           OldestWrite&& oldest_write) noexcept {
        if (draining_) {
            if ((o.writes <= low_ && !o.must_drain) || left_ == 0 ||
                (min_writes_per_switch_ != 0 && o.reads_wait && served_ >= min_writes_per_switch_))
                draining_ = false;
            else
                return {};
        }
        if (o.writes == 0 || hazard_hold_) return {};
        bool start = o.writes >= high_ || o.must_drain;
        std::uint64_t wake = never;
        if (!start && !o.writes_when_no_read) {
            if (idle_drain_min_ != 0 && o.idle && o.writes >= idle_drain_min_) {
                start = true;
            } else if (o.reads_absent_since != never) {
                const std::uint64_t at = o.reads_absent_since + idle_flush_cycles_;
                start = t >= at;
                if (!start) wake = at;
            }
            if (!start && max_wait_cycles_ != 0) {
                const std::uint64_t aged_at = oldest_write() + max_wait_cycles_;
                start = t >= aged_at;
                wake = std::min(wake, aged_at);
            }
        }
        if (!start) return {.wake = wake};
        draining_ = true;
        left_ = drain_queued_at_start_ ? o.writes : ~std::uint32_t{0};
        served_ = 0;
        started_at_ = t;
        return {.started = true};
    }

    [[nodiscard]] bool draining() const noexcept { return draining_; }
    [[nodiscard]] std::uint64_t started_at() const noexcept { return started_at_; }
    void on_write_served() noexcept {
        --left_;
        ++served_;
    }
    void on_read_served() noexcept { hazard_hold_ = false; }
    void end_on_hazard() noexcept {
        draining_ = false;
        hazard_hold_ = true;
    }

private:
    std::uint32_t high_;
    std::uint32_t low_;
    std::uint32_t idle_drain_min_;
    std::uint32_t idle_flush_cycles_;
    std::uint32_t max_wait_cycles_;
    std::uint32_t min_writes_per_switch_;
    bool drain_queued_at_start_;
    bool draining_ = false;
    bool hazard_hold_ = false; ///< a drain ended on a R→W hazard: none until a read goes
    std::uint32_t left_ = 0;   ///< writes the drain may still serve
    std::uint32_t served_ = 0; ///< writes the drain has served
    std::uint64_t started_at_ = 0;
};

static_assert(write_drain_policy<watermark_write_drain>);

} // namespace memsub::memory
