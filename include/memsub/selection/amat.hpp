// memsub — LATTE-CC's latency arithmetic: the GPU AMAT that credits latency tolerance
// ([Dissertation] §4.2.1) and the effective hit latency of a compressed line behind a
// decompression queue ([Dissertation] Eq. 4.3).
//
//   AMAT_gpu = (N_hit · max(hit_latency − tolerance, 0) + N_miss · miss_latency)
//              / (N_hit + N_miss)
// Deviation: the printed formula has min(…, 0), which would make every hit cost nothing or
// less; max is the only reading under which the hidden part of a hit's latency costs nothing
// and the rest costs its cycles.
//
//   effective_hit_latency = decompression_latency · (queue_position + 1)        (Eq. 4.3)
// Decision (the arrival model the text leaves open): each mode has one FIFO, non-pipelined
// decompressor per L1. A hit arriving at cycle t while the decompressor is busy until b finds
// ⌈(b − t) / latency⌉ lines ahead of it (the line in service counts as one), so its position is
// that count (0 when idle), and the decompressor is then busy until t + the hit's effective
// latency. The arrival cycle is the host's: a timed host passes its issue cycle; an untimed
// replay passes the warp instruction's index, so the line requests of one instruction arrive
// together and queue behind each other — which is what makes a divergent load pay for SC²'s
// 14-cycle decompression many times over. Rejected: a position from an M/D/1 estimate (it
// hides the per-instruction burst that decides LATTE-CC's choice on divergent kernels).
#pragma once

#include <algorithm>
#include <cstdint>

#include <memsub/core/types.hpp>

namespace memsub::selection {

/// AMAT_gpu in cycles from a mode's counts; 0 when nothing was counted.
[[nodiscard]] constexpr double gpu_amat(std::uint64_t hits, double mean_hit_latency,
                                        std::uint64_t misses, double miss_latency,
                                        double tolerance) noexcept {
    const std::uint64_t n = hits + misses;
    if (n == 0) return 0.0;
    const double exposed = std::max(mean_hit_latency - tolerance, 0.0);
    return (static_cast<double>(hits) * exposed + static_cast<double>(misses) * miss_latency) /
           static_cast<double>(n);
}

/// Eq. 4.3.
[[nodiscard]] constexpr std::uint32_t effective_hit_latency(std::uint32_t decompression_latency,
                                                            std::uint32_t queue_position) noexcept {
    return decompression_latency * (queue_position + 1);
}

/// One FIFO, non-pipelined decompressor (see the header's Decision).
class decompression_queue {
public:
    constexpr decompression_queue() noexcept = default;
    explicit constexpr decompression_queue(std::uint32_t latency) noexcept : latency_(latency) {}

    /// A line arriving at `cycle` enters the queue: returns its effective decompression latency
    /// (Eq. 4.3) and keeps the decompressor busy until it is done. Arrival cycles need not be
    /// monotonic across calls; an earlier one is treated as arriving now.
    constexpr std::uint32_t enter(std::uint64_t cycle) noexcept {
        if (latency_ == 0) return 0;
        const std::uint64_t now = std::max(cycle, last_arrival_);
        last_arrival_ = now;
        const std::uint64_t ahead = busy_until_ > now ? busy_until_ - now : 0;
        const auto position = static_cast<std::uint32_t>((ahead + latency_ - 1) / latency_);
        const std::uint32_t effective = effective_hit_latency(latency_, position);
        busy_until_ = now + effective;
        last_position_ = position;
        return effective;
    }
    [[nodiscard]] constexpr std::uint32_t latency() const noexcept { return latency_; }
    [[nodiscard]] constexpr std::uint32_t last_position() const noexcept { return last_position_; }
    [[nodiscard]] constexpr std::uint64_t busy_until() const noexcept { return busy_until_; }

private:
    std::uint32_t latency_ = 0;
    std::uint32_t last_position_ = 0;
    std::uint64_t busy_until_ = 0;
    std::uint64_t last_arrival_ = 0;
};

} // namespace memsub::selection
