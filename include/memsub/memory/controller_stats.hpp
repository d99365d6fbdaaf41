// memsub — statistics every memory controller keeps (memory/concept.hpp, MC7).
//
// Per request: latency (arrival → last data beat), queueing delay (arrival → selected by the
// scheduler) and row class. Aggregates: row-hit rate, bandwidth utilisation (bytes moved over
// what the channels' peak bandwidth could move in the elapsed cycles), latency mean and
// percentiles, read latency alone. Write scheduling (dram_controller.hpp): bus turnarounds
// (read↔write switches between consecutive data bursts of a channel), write drains and the
// writes they served, reads forwarded from the write queue, writes merged into a queued one.
// Requests served by the write queue (`completion::from_queue`) count as reads / writes and in
// the latencies, but move no data and have no row class.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/latency_histogram.hpp>

namespace memsub::memory {

struct controller_stats {
    /// Requesters tracked individually for fairness (higher ids share the last slot).
    static constexpr std::uint32_t tracked_requesters = 64;

    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    /// Completed requests by row class (index = row_class).
    std::array<std::uint64_t, 3> by_class{};
    /// Enqueue attempts refused with queue_full.
    std::uint64_t refused = 0;
    /// Requests rejected as invalid (enqueue_result::rejected).
    std::uint64_t rejected = 0;
    std::uint64_t refreshes = 0;
    /// Read↔write direction changes between consecutive data bursts of a channel (counted as
    /// completions are drained, in data-bus order).
    std::uint64_t bus_turnarounds = 0;
    /// Write drains started, and the writes they served.
    std::uint64_t write_drains = 0;
    std::uint64_t drained_writes = 0;
    /// Reads served from a queued write to their line (read-after-write forwarding).
    std::uint64_t forwarded_reads = 0;
    /// Writes merged into a queued write to their line.
    std::uint64_t merged_writes = 0;
    std::uint64_t bytes = 0;
    /// Sum over channels of cycles their data bus carried data.
    std::uint64_t data_bus_cycles = 0;
    /// First arrival and last completion seen (the measured window).
    std::uint64_t first_arrival = never;
    std::uint64_t last_done = 0;
    /// Channels of the memory (for utilisation).
    std::uint32_t channels = 1;
    /// Peak bytes per cycle of one channel (DRAM: 2 · bus bytes; flat memory: its pipe).
    double peak_bytes_per_cycle = 16.0;

    latency_histogram latency;
    latency_histogram queueing;
    /// Latency of reads alone (arrival → last data beat; forwarded reads included).
    latency_histogram read_latency;
    /// Per-requester completed count and latency sum (fairness).
    std::array<std::uint64_t, tracked_requesters> requester_count{};
    std::array<std::uint64_t, tracked_requesters> requester_latency{};

    void record(const completion& c, std::uint32_t burst_cycles,
                std::uint32_t burst_bytes) noexcept {
        writes += c.is_write ? 1u : 0u; // no branch on the kind
        reads += c.is_write ? 0u : 1u;
        const std::uint64_t dram = c.from_queue ? 0u : 1u;
        by_class[static_cast<std::size_t>(c.kind)] += dram;
        bytes += burst_bytes * dram;
        data_bus_cycles += burst_cycles * dram;
        first_arrival = std::min(first_arrival, c.arrival_cycle);
        last_done = std::max(last_done, c.done_cycle);
        latency.record(c.latency());
        queueing.record(c.queueing_delay());
        if (!c.is_write) read_latency.record(c.latency());
        const std::uint32_t r = std::min(c.requester, tracked_requesters - 1);
        requester_count[r] += 1;
        requester_latency[r] += c.latency();
    }

    [[nodiscard]] std::uint64_t completed() const noexcept { return reads + writes; }
    [[nodiscard]] std::uint64_t row_hits() const noexcept { return by_class[0]; }
    [[nodiscard]] std::uint64_t row_empties() const noexcept { return by_class[1]; }
    [[nodiscard]] std::uint64_t row_conflicts() const noexcept { return by_class[2]; }
    /// Requests that accessed DRAM (every completion but those served by the write queue).
    [[nodiscard]] std::uint64_t dram_accesses() const noexcept {
        return by_class[0] + by_class[1] + by_class[2];
    }
    [[nodiscard]] double row_hit_rate() const noexcept {
        return dram_accesses() == 0
                   ? 0.0
                   : static_cast<double>(row_hits()) / static_cast<double>(dram_accesses());
    }
    /// Mean writes served per write drain.
    [[nodiscard]] double writes_per_drain() const noexcept {
        return write_drains == 0
                   ? 0.0
                   : static_cast<double>(drained_writes) / static_cast<double>(write_drains);
    }
    /// Cycles from the first arrival to the last completion.
    [[nodiscard]] std::uint64_t elapsed_cycles() const noexcept {
        return completed() == 0 || last_done < first_arrival ? 0 : last_done - first_arrival;
    }
    /// Fraction of the peak bandwidth of all channels used over the measured window: bytes
    /// moved / (elapsed cycles · channels · peak bytes per cycle). For a DRAM channel this is
    /// its busy data-bus cycles over the elapsed cycles.
    [[nodiscard]] double bandwidth_utilisation() const noexcept {
        const std::uint64_t e = elapsed_cycles();
        return e == 0 ? 0.0
                      : static_cast<double>(bytes) /
                            (static_cast<double>(e) * static_cast<double>(channels) *
                             peak_bytes_per_cycle);
    }
    /// Bytes per cycle delivered over the measured window.
    [[nodiscard]] double bytes_per_cycle() const noexcept {
        const std::uint64_t e = elapsed_cycles();
        return e == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(e);
    }
};

} // namespace memsub::memory
