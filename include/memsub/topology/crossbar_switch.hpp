// memsub — `topology::crossbar_switch`: modules joined through one high-radix switch
// (the on-board switch of [MM-Energy] §V; docs/mechanisms/energy.md, 'Multi-module extension').
// Every transfer between two distinct modules crosses the switch once: one logical link (G6.10: one
// logical link plus the switch), so the hop count is constant — 1 between distinct modules, 0 to
// itself — and so is the latency
// (`latency_cycles`, a host parameter; the cited papers give none). Energy: a switched transfer
// pays the link's pJ/bit once plus the switch's (energy::on_board_switched: 10 + 10 pJ/bit).
//
// Links: one directed logical link per ordered pair (src, dst), numbered
// src·(N − 1) + (dst < src ? dst : dst − 1), so per-link byte accounting gives the traffic
// matrix; `link_traffic::bytes_from` / `bytes_into` give a module's switch-port loads.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/topology/concept.hpp>

namespace memsub::topology {

class crossbar_switch {
public:
    struct params {
        std::uint32_t nodes = 4;
        /// Latency of a switched transfer, in the host's cycles.
        std::uint32_t latency_cycles = 32;
    };

    explicit crossbar_switch(const params& p) : n_(p.nodes), latency_(p.latency_cycles) {
        if (p.nodes == 0)
            throw config_error("memsub::topology::crossbar_switch", "nodes", 0, "must be >= 1");
    }

    [[nodiscard]] std::uint32_t nodes() const noexcept { return n_; }
    [[nodiscard]] std::uint32_t links() const noexcept { return n_ * (n_ - 1); }
    [[nodiscard]] topology::link_ends link_ends(std::uint32_t link) const noexcept {
        MEMSUB_ASSERT(link < links());
        const std::uint32_t from = link / (n_ - 1), k = link % (n_ - 1);
        return {from, k < from ? k : k + 1};
    }
    [[nodiscard]] std::uint32_t link_of(std::uint32_t src, std::uint32_t dst) const noexcept {
        MEMSUB_ASSERT(src < n_ && dst < n_ && src != dst);
        return src * (n_ - 1) + (dst < src ? dst : dst - 1);
    }

    [[nodiscard]] std::uint32_t hops(std::uint32_t src, std::uint32_t dst) const noexcept {
        MEMSUB_ASSERT(src < n_ && dst < n_);
        return src == dst ? 0 : 1;
    }
    /// Switch traversals of a transfer (1 between distinct modules).
    [[nodiscard]] std::uint32_t switch_traversals(std::uint32_t src,
                                                  std::uint32_t dst) const noexcept {
        return hops(src, dst);
    }
    [[nodiscard]] std::uint64_t latency_cycles(std::uint32_t src,
                                               std::uint32_t dst) const noexcept {
        return src == dst ? 0 : latency_;
    }

    template <class Visit>
    void route(std::uint32_t src, std::uint32_t dst, Visit&& visit) const {
        MEMSUB_ASSERT(src < n_ && dst < n_);
        if (src != dst) visit(link_of(src, dst));
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "crossbar_switch"; }

private:
    std::uint32_t n_;
    std::uint32_t latency_;
};

static_assert(topology<crossbar_switch>);

} // namespace memsub::topology
