// memsub — a flat-latency, bandwidth-limited memory: the fast baseline with the controller
// interface (models `memory_controller`).
//
// Every request costs the same latency; requests share one pipe whose bandwidth is
// `bytes_per_cycle`, so a request starts when the pipe is free (its queueing delay) and
// completes `latency_cycles` later. The pipe is tracked in 1/65536 cycles, so a request takes
// exactly request_bytes / bytes_per_cycle of it (rounded up to 1/65536 cycle: 64 B at 24 B per
// cycle occupy 2.67 cycles, not 3), and the bandwidth is never exceeded. Its times are whole
// cycles and a 16-bit fraction held apart, so every cycle a host can name (any 64-bit one) is
// exact: one 64-bit fixed-point word would overflow at 2^48 cycles (78 hours at 1 GHz). A request
// starts no earlier than its arrival and the last `advance_to` cycle (a retried request keeps its
// old arrival, but never completes in the past). Completions are in arrival order. MCM-GPU
// ([Dissertation] Ch. 5) models its DRAM partitions this way (100 ns flat latency, 768 GB/s per
// partition), and HTA's multi-GPU study sets MGPUSim's flat DRAM latency to a measured average
// ([HTA] §4.3).
// Every request is reported as `row_class::empty` (the flat model has no row buffers).
#pragma once

#include <algorithm>
#include <cmath>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/controller_stats.hpp>
#include <memsub/memory/detail/ring_buffer.hpp>

namespace memsub::memory {

class flat_memory {
public:
    static constexpr std::string_view component = "memsub::memory::flat_memory";

    struct params {
        /// Cycles from the start of service to completion (includes the transfer, so it is at
        /// least request_bytes / bytes_per_cycle).
        std::uint32_t latency_cycles = 100;
        /// Pipe bandwidth in bytes per cycle (> 0).
        double bytes_per_cycle = 64.0;
        /// Bytes each request moves.
        std::uint32_t request_bytes = 64;
        /// Requests accepted and not yet drained.
        std::uint32_t capacity = 256;
    };

    flat_memory() : flat_memory(params{}) {}
    explicit flat_memory(const params& p) : p_(p), ring_(p.capacity) {
        require(p.latency_cycles >= 1, component, "latency_cycles", p.latency_cycles,
                "must be >= 1");
        // Checked before any conversion: NaN, negative or huge values would make the casts
        // below undefined. The message shows the value as given.
        if (!(p.bytes_per_cycle > 0.0 && p.bytes_per_cycle <= 1e9))
            throw config_error(component, "bytes_per_cycle", fmt_real(p.bytes_per_cycle),
                               "must be a finite number in (0, 1e9]");
        require(p.request_bytes >= 1, component, "request_bytes", p.request_bytes, "must be >= 1");
        require(p.capacity >= 1, component, "capacity", p.capacity, "must be >= 1");
        // Checked in floating point before the conversion below (a transfer of more than
        // 2^32 cycles, at a tiny bandwidth, would not fit it).
        const double transfer_cycles = static_cast<double>(p.request_bytes) / p.bytes_per_cycle;
        require(transfer_cycles <= static_cast<double>(p.latency_cycles), component,
                "latency_cycles", p.latency_cycles,
                "must cover the transfer: >= request_bytes / bytes_per_cycle (" +
                    fmt_real(std::ceil(transfer_cycles)) + ")");
        // Occupancy of the pipe per request, in 1/65536 cycles, rounded up (at most
        // latency_cycles · 2^16 < 2^48).
        const auto occupancy = std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>(std::ceil(transfer_cycles * 65536.0)));
        occupancy_ = pipe_time{.cycles = occupancy >> 16,
                               .fraction = static_cast<std::uint32_t>(occupancy & 0xffff)};
        stats_.channels = 1;
        stats_.peak_bytes_per_cycle = p.bytes_per_cycle;
    }

    [[nodiscard]] std::string_view name() const noexcept { return "flat"; }

    [[nodiscard]] bool can_accept(const mem_request&) const noexcept { return !ring_.full(); }

    enqueue_result enqueue(const mem_request& r) noexcept {
        if (ring_.full()) {
            ++stats_.refused;
            return enqueue_result::queue_full;
        }
        // Start = max(arrival, last advance_to cycle, pipe free), to the 1/65536 cycle.
        const pipe_time start_fine =
            std::max(pipe_time{.cycles = std::max(r.arrival_cycle, now_)}, pipe_free_);
        pipe_free_ = start_fine + occupancy_;
        const std::uint64_t start = start_fine.cycles + (start_fine.fraction != 0 ? 1 : 0);
        completion c{.id = r.id,
                     .address = r.address,
                     .is_write = r.is_write,
                     .requester = r.requester,
                     .channel = 0,
                     .bank = 0,
                     .kind = row_class::empty,
                     .arrival_cycle = r.arrival_cycle,
                     .selected_cycle = start,
                     .data_cycle = start,
                     .done_cycle = start + p_.latency_cycles};
        ring_.push_back(c);
        return enqueue_result::accepted;
    }

    void advance_to(std::uint64_t cycle) noexcept { now_ = std::max(now_, cycle); }

    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept {
        const std::size_t i = undrained_ready();
        return i < ring_.size() ? ring_[i].done_cycle : never;
    }

    template <std::invocable<const completion&> Sink>
    std::size_t drain(Sink&& sink) {
        std::size_t n = 0;
        while (!ring_.empty() && ring_.front().done_cycle <= now_) {
            const completion c = ring_.front();
            ring_.pop_front();
            record(c);
            sink(c);
            ++n;
        }
        return n;
    }

    std::size_t drain(std::span<completion> out) noexcept {
        std::size_t n = 0;
        while (n < out.size() && !ring_.empty() && ring_.front().done_cycle <= now_) {
            out[n] = ring_.front();
            ring_.pop_front();
            record(out[n]);
            ++n;
        }
        return n;
    }

    [[nodiscard]] std::size_t pending() const noexcept { return ring_.size(); }
    [[nodiscard]] const controller_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }

private:
    /// A time (or a duration) on the pipe: whole cycles and 1/65536 cycles.
    struct pipe_time {
        std::uint64_t cycles = 0;
        std::uint32_t fraction = 0; ///< < 65536

        friend constexpr auto operator<=>(const pipe_time&, const pipe_time&) = default;
        friend constexpr pipe_time operator+(pipe_time a, pipe_time b) noexcept {
            const std::uint32_t fraction = a.fraction + b.fraction; // < 2^17
            return {.cycles = a.cycles + b.cycles + (fraction >> 16),
                    .fraction = fraction & 0xffff};
        }
    };

    static std::string fmt_real(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        return buf;
    }
    // Index of the first completion not yet ready at now_ (completions are in done order).
    [[nodiscard]] std::size_t undrained_ready() const noexcept {
        std::size_t i = 0;
        while (i < ring_.size() && ring_[i].done_cycle <= now_) ++i;
        return i;
    }
    void record(const completion& c) noexcept {
        // The pipe's busy time stands for the data-bus occupancy (whole cycles, rounded down).
        stats_.record(c, 0, p_.request_bytes);
        busy_ = busy_ + occupancy_;
        stats_.data_bus_cycles = busy_.cycles;
    }

    params p_;
    detail::ring_buffer<completion> ring_;
    pipe_time occupancy_{.cycles = 0, .fraction = 1};
    pipe_time pipe_free_{};
    pipe_time busy_{}; ///< pipe occupancy of the drained requests
    std::uint64_t now_ = 0;
    controller_stats stats_{};
};

static_assert(memory_controller<flat_memory>);

} // namespace memsub::memory
