// memsub — `topology::ring`: the inter-GPM ring of an MCM-GPU (C5.8 in
// docs/mechanisms/multi_module_gpu.md).
//
// A bidirectional ring (Decision G5.13: the papers do not say) of N modules; a transfer takes the
// shorter way round, so the hop count between modules i and j is min(|i − j|, N − |i − j|), and
// each hop costs `cycles_per_hop` (32 cycles at 1 GHz in [MCM-GPU] Table 3: on-die travel to the
// edge, SerDes, wire). Uniform traffic then averages 1.33 (N = 4), 2.29 (8), 4.27 (16) and 8.26
// (32) hops (derived). When both ways are equally long (N even, opposite modules) the route goes
// clockwise (a fixed rule so that routes are deterministic; the cited papers do not say).
//
// Links: clockwise link i runs i → i + 1 (mod N), numbered i; counter-clockwise link i runs
// i → i − 1, numbered N + i. A 2-module ring is one bidirectional link (links 0: 0 → 1 and
// 1: 1 → 0); a 1-module ring has none.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/topology/concept.hpp>

namespace memsub::topology {

class ring {
public:
    struct params {
        std::uint32_t nodes = 4;
        /// Latency of one hop (C5.8: 32 cycles at 1 GHz).
        std::uint32_t cycles_per_hop = 32;
    };

    explicit ring(const params& p) : n_(p.nodes), cycles_per_hop_(p.cycles_per_hop) {
        if (p.nodes == 0) throw config_error("memsub::topology::ring", "nodes", 0, "must be >= 1");
    }

    [[nodiscard]] std::uint32_t nodes() const noexcept { return n_; }
    [[nodiscard]] std::uint32_t links() const noexcept {
        return n_ == 1 ? 0 : n_ == 2 ? 2 : 2 * n_;
    }
    [[nodiscard]] topology::link_ends link_ends(std::uint32_t link) const noexcept {
        MEMSUB_ASSERT(link < links());
        if (link < n_) return {link, next(link)};
        const std::uint32_t from = link - n_;
        return {from, previous(from)};
    }

    [[nodiscard]] std::uint32_t hops(std::uint32_t src, std::uint32_t dst) const noexcept {
        MEMSUB_ASSERT(src < n_ && dst < n_);
        const std::uint32_t cw = clockwise_distance(src, dst);
        return cw <= n_ - cw ? cw : n_ - cw;
    }
    [[nodiscard]] bool goes_clockwise(std::uint32_t src, std::uint32_t dst) const noexcept {
        const std::uint32_t cw = clockwise_distance(src, dst);
        return cw <= n_ - cw;
    }
    [[nodiscard]] std::uint64_t latency_cycles(std::uint32_t src,
                                               std::uint32_t dst) const noexcept {
        return std::uint64_t{hops(src, dst)} * cycles_per_hop_;
    }
    [[nodiscard]] std::uint32_t cycles_per_hop() const noexcept { return cycles_per_hop_; }

    template <class Visit>
    void route(std::uint32_t src, std::uint32_t dst, Visit&& visit) const {
        MEMSUB_ASSERT(src < n_ && dst < n_);
        if (goes_clockwise(src, dst)) {
            for (std::uint32_t at = src; at != dst; at = next(at)) visit(at);
        } else {
            for (std::uint32_t at = src; at != dst; at = previous(at)) visit(n_ + at);
        }
    }

    /// Mean hops over all ordered pairs of distinct modules (uniform traffic); 0 for one module.
    [[nodiscard]] double average_hops() const noexcept {
        if (n_ == 1) return 0.0;
        std::uint64_t sum = 0;
        for (std::uint32_t d = 1; d < n_; ++d) sum += d <= n_ - d ? d : n_ - d;
        return static_cast<double>(sum) / (n_ - 1);
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "ring"; }

private:
    [[nodiscard]] std::uint32_t clockwise_distance(std::uint32_t src,
                                                   std::uint32_t dst) const noexcept {
        return dst >= src ? dst - src : n_ - (src - dst);
    }
    [[nodiscard]] std::uint32_t next(std::uint32_t i) const noexcept {
        return i + 1 == n_ ? 0 : i + 1;
    }
    [[nodiscard]] std::uint32_t previous(std::uint32_t i) const noexcept {
        return i == 0 ? n_ - 1 : i - 1;
    }

    std::uint32_t n_;
    std::uint32_t cycles_per_hop_;
};

static_assert(topology<ring>);

} // namespace memsub::topology
