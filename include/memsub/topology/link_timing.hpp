// memsub — FCFS ports: the queueing a host adds to a shared resource (an L2 bank's data port,
// a directed interconnect link) without a clock inside memsub.
//
// `port` is one first-come-first-served server. The host reserves it in the order it issues
// requests: service starts at max(arrival, the end of the previous reservation) and holds the
// port for the request's occupancy (bytes / bandwidth). Occupancy is kept in 1/65536 cycle, as
// memory/flat_memory.hpp's bandwidth pipe, so a 32 B flit at 64 B per cycle takes half a cycle
// and the bandwidth is never exceeded; times are whole cycles and a 16-bit fraction held apart,
// so any 64-bit cycle stays exact. The start a host sees is rounded up to a whole cycle (never
// earlier than the port is free).
//
// `link_timing<T>` puts one port on every directed link of a topology (topology/concept.hpp)
// and times a transfer along its route: on each link it waits for the link, holds it for
// bytes / link bandwidth and then travels the hop ([MCM-GPU] Table 3: 32 cycles per hop).
// Store-and-forward at the granularity of a transfer; [memsub] the cited papers give no flow
// control, and a transfer reserves each link when it reaches it, in the order the host calls
// `transfer`. Call order is service order: a reservation whose arrival lies beyond those of later
// calls (a reply booked for when its DRAM data will be back) holds the link until then for every
// later call, even one that arrives earlier. Hosts must therefore reserve in arrival order; one
// that cannot needs per-cycle capacity instead (ring_links in memsub/gpu/mcm_memory_side.hpp
// keeps such a calendar). No allocation after construction; `reserve` and `transfer` never throw.
#pragma once

#include <algorithm>
#include <cmath>
#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/topology/concept.hpp>

namespace memsub::topology {

class port {
public:
    /// Occupancies are in 1/2^fraction_bits cycle.
    static constexpr std::uint32_t fraction_bits = 16;
    static constexpr std::uint64_t units_per_cycle = std::uint64_t{1} << fraction_bits;

    /// The occupancy of `amount` items (bytes, flits) at `per_cycle` items per cycle (> 0),
    /// rounded up to 1/65536 cycle; 0 items occupy nothing.
    [[nodiscard]] static constexpr std::uint64_t occupancy(std::uint64_t amount,
                                                           std::uint64_t per_cycle) noexcept {
        MEMSUB_ASSERT(per_cycle != 0);
        // amount / per_cycle whole cycles, then the remainder's fraction (no overflow for any
        // amount below 2^48 cycles' worth).
        const std::uint64_t whole = amount / per_cycle;
        const std::uint64_t rest = amount % per_cycle;
        return whole * units_per_cycle + (rest * units_per_cycle + per_cycle - 1) / per_cycle;
    }
    /// The occupancy of `amount` items at a fractional rate `per_cycle` (> 0), rounded up.
    [[nodiscard]] static std::uint64_t occupancy(double amount, double per_cycle) noexcept {
        MEMSUB_ASSERT(per_cycle > 0.0);
        return static_cast<std::uint64_t>(
            std::ceil(amount / per_cycle * static_cast<double>(units_per_cycle)));
    }

    /// Reserves the port for a request arriving at `arrival_cycle` that holds it for
    /// `occupancy_units` (1/65536 cycle). Returns the whole cycle its service starts:
    /// max(arrival, when the previous reservation ends), rounded up.
    std::uint64_t reserve(std::uint64_t arrival_cycle, std::uint64_t occupancy_units) noexcept {
        const fine_time start = std::max(fine_time{.cycles = arrival_cycle}, free_);
        free_ = start + fine_time::of(occupancy_units);
        busy_units_ += occupancy_units;
        ++reservations_;
        return start.cycles + (start.fraction != 0 ? 1 : 0);
    }

    /// The first whole cycle at which a new arrival would start at once.
    [[nodiscard]] std::uint64_t free_cycle() const noexcept {
        return free_.cycles + (free_.fraction != 0 ? 1 : 0);
    }
    /// Total occupancy reserved, in 1/65536 cycle (utilisation = busy / elapsed).
    [[nodiscard]] std::uint64_t busy_units() const noexcept { return busy_units_; }
    [[nodiscard]] double busy_cycles() const noexcept {
        return static_cast<double>(busy_units_) / static_cast<double>(units_per_cycle);
    }
    [[nodiscard]] std::uint64_t reservations() const noexcept { return reservations_; }

private:
    struct fine_time {
        std::uint64_t cycles = 0;
        std::uint32_t fraction = 0; ///< < 2^16

        static constexpr fine_time of(std::uint64_t units) noexcept {
            return {.cycles = units >> fraction_bits,
                    .fraction = static_cast<std::uint32_t>(units & (units_per_cycle - 1))};
        }
        friend constexpr auto operator<=>(const fine_time&, const fine_time&) = default;
        friend constexpr fine_time operator+(fine_time a, fine_time b) noexcept {
            const std::uint32_t fraction = a.fraction + b.fraction; // < 2^17
            return {.cycles = a.cycles + b.cycles + (fraction >> fraction_bits),
                    .fraction = fraction & static_cast<std::uint32_t>(units_per_cycle - 1)};
        }
    };

    fine_time free_{};
    std::uint64_t busy_units_ = 0;
    std::uint64_t reservations_ = 0;
};

/// One FCFS port per directed link of a topology; times transfers along their routes.
template <topology T>
class link_timing {
public:
    static constexpr std::string_view component = "memsub::topology::link_timing";

    struct params {
        /// Cycles a transfer takes to cross one link once it holds it ([MCM-GPU] Table 3: 32).
        std::uint32_t cycles_per_hop = 32;
        /// Bandwidth of each directed link in bytes per cycle (> 0).
        double link_bytes_per_cycle = 64.0;
    };

    link_timing(const T& t, const params& p) : topology_(t), p_(p), links_(t.links()) {
        memsub::require(p.cycles_per_hop >= 1, component, "cycles_per_hop", p.cycles_per_hop,
                        "must be >= 1");
        if (!(p.link_bytes_per_cycle > 0.0 && p.link_bytes_per_cycle <= 1e9))
            throw config_error(component, "link_bytes_per_cycle",
                               std::to_string(p.link_bytes_per_cycle),
                               "must be a finite number in (0, 1e9]");
    }

    /// A transfer of `bytes` leaving node `src` for `dst` at `depart_cycle`: returns the cycle
    /// it arrives (depart_cycle itself when src == dst).
    std::uint64_t transfer(std::uint32_t src, std::uint32_t dst, std::uint64_t depart_cycle,
                           std::uint64_t bytes) noexcept {
        const std::uint64_t units =
            port::occupancy(static_cast<double>(bytes), p_.link_bytes_per_cycle);
        std::uint64_t at = depart_cycle;
        topology_.route(src, dst, [&](std::uint32_t link) {
            at = links_[link].reserve(at, units) + p_.cycles_per_hop;
        });
        return at;
    }
    /// The latency of a transfer on idle links: hops × cycles_per_hop.
    [[nodiscard]] std::uint64_t unloaded_cycles(std::uint32_t src,
                                                std::uint32_t dst) const noexcept {
        return std::uint64_t{topology_.hops(src, dst)} * p_.cycles_per_hop;
    }

    [[nodiscard]] const port& link(std::uint32_t l) const noexcept {
        MEMSUB_ASSERT(l < links_.size());
        return links_[l];
    }
    [[nodiscard]] const T& topology() const noexcept { return topology_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }

private:
    T topology_;
    params p_;
    std::vector<port> links_;
};

} // namespace memsub::topology
