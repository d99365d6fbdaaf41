// memsub — the shared body of [MemNet]'s sliced and distributor-based flattened butterflies
// (docs/mechanisms/multi_module_gpu.md, 'Memory-network topologies'): G GPUs, each with S local
// memory cubes (HMCs, its cluster). Slice s is the set of HMCs with local index s in every cluster,
// joined as a flattened butterfly over the G clusters (1-D for 4 GPUs, 2 × 4 for 8, 4 × 4 for 16).
// A GPU reaches its S local HMCs directly ("distribution": 2 channels to each of 4). The
// distributor-based form (dFBFLY) also fully connects the S HMCs inside each cluster; the sliced
// form (sFBFLY) removes those intra-cluster channels.
//
// Nodes: GPU g is node g; HMC (cluster c, slice s) is node G + c·S + s.
// Links (directed; a GPU↔HMC "channel" here is the logical link, whatever its physical width):
//   [0, GS)                GPU g → HMC(g, s):   g·S + s
//   [GS, 2GS)              HMC(g, s) → GPU g:   GS + g·S + s
//   [2GS, 2GS + S·F)       slice s, FBFLY link k (F = the slice FBFLY's directed links)
//   then (dFBFLY only)     HMC(c, a) → HMC(c, b): c·S(S−1) + a(S−1) + (b < a ? b : b − 1)
// Routes (derived from [MemNet] §3.5; the route choice is a decision): GPU g → HMC(c, s) goes g →
// HMC(g, s) → minimal FBFLY route in slice s to HMC(c, s), so hops = 1 + (FBFLY coordinates in
// which g and c differ); the reply takes the reverse path. HMC → HMC in one slice: the slice route.
// Across slices: the dFBFLY takes the intra-cluster link first; the sFBFLY has none and goes
// through the source cluster's GPU
// ([MemNet]: "the packet would need to be routed through the GPU"). GPU → GPU (not a traffic
// class of [MemNet]; given so every pair has a route): through slice 0. Every route is minimal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/topology/concept.hpp>
#include <memsub/topology/flattened_butterfly.hpp>

namespace memsub::topology::detail {

struct memory_network_params {
    std::uint32_t gpus = 4;
    /// S: local HMCs per GPU (4 in [MemNet]), the number of slices.
    std::uint32_t hmcs_per_gpu = 4;
    /// Extents of each slice's FBFLY over the G clusters; empty = 1-D {gpus}. Their product
    /// must be `gpus` ([MemNet]: 1-D at 4 GPUs, 4 × 4 at 16; derived: 2 × 4 at 8).
    std::vector<std::uint32_t> slice_extents{};
    /// Physical channels a GPU uses to each local HMC ([MemNet]: 2).
    std::uint32_t gpu_channels_per_hmc = 2;
    /// Channels per GPU and per HMC ([MemNet]: 8).
    std::uint32_t channels_per_device = 8;
};

template <bool IntraCluster>
class memory_network {
public:
    using params = memory_network_params;

    explicit memory_network(const params& p)
        : g_(checked(p).gpus)
        , s_(p.hmcs_per_gpu)
        , gpu_channels_per_hmc_(p.gpu_channels_per_hmc)
        , channels_per_device_(p.channels_per_device)
        , slice_(flattened_butterfly::params{
              p.slice_extents.empty() ? std::vector<std::uint32_t>{p.gpus} : p.slice_extents}) {
        if (slice_.nodes() != g_)
            throw config_error(component(), "slice_extents", slice_.nodes(),
                               "their product must equal gpus = " + std::to_string(g_));
    }

    // ------------------------------------------------------------ counts ([MemNet], Fig. 12)

    [[nodiscard]] std::uint32_t gpus() const noexcept { return g_; }
    [[nodiscard]] std::uint32_t hmcs_per_gpu() const noexcept { return s_; }
    [[nodiscard]] std::uint32_t hmcs() const noexcept { return g_ * s_; }
    [[nodiscard]] const flattened_butterfly& slice() const noexcept { return slice_; }

    /// Bidirectional HMC↔HMC channels: S·channels(slice FBFLY), plus G·C(S, 2) intra-cluster
    /// channels in the dFBFLY.
    [[nodiscard]] std::uint32_t inter_hmc_channels() const noexcept {
        return s_ * slice_.channels() + (IntraCluster ? g_ * (s_ * (s_ - 1) / 2) : 0);
    }
    /// Physical GPU↔HMC channels (G·S·gpu_channels_per_hmc).
    [[nodiscard]] std::uint32_t gpu_channels() const noexcept {
        return g_ * s_ * gpu_channels_per_hmc_;
    }
    /// Channels one HMC uses: its slice FBFLY degree, its intra-cluster links (dFBFLY) and its
    /// GPU channels.
    [[nodiscard]] std::uint32_t hmc_degree() const noexcept {
        return slice_.degree() + (IntraCluster ? s_ - 1 : 0) + gpu_channels_per_hmc_;
    }
    /// Whether every HMC and GPU needs at most `channels_per_device` channels ([MemNet]: 8).
    [[nodiscard]] bool fits_channel_budget() const noexcept {
        return hmc_degree() <= channels_per_device_ &&
               s_ * gpu_channels_per_hmc_ <= channels_per_device_;
    }

    // ------------------------------------------------------------ the topology concept

    [[nodiscard]] std::uint32_t gpu_node(std::uint32_t gpu) const noexcept { return gpu; }
    [[nodiscard]] std::uint32_t hmc_node(std::uint32_t cluster,
                                         std::uint32_t slice) const noexcept {
        return g_ + cluster * s_ + slice;
    }
    [[nodiscard]] bool is_gpu(std::uint32_t node) const noexcept { return node < g_; }

    [[nodiscard]] std::uint32_t nodes() const noexcept { return g_ + g_ * s_; }
    [[nodiscard]] std::uint32_t links() const noexcept {
        return intra_base() + (IntraCluster ? g_ * s_ * (s_ - 1) : 0);
    }

    [[nodiscard]] topology::link_ends link_ends(std::uint32_t link) const noexcept {
        MEMSUB_ASSERT(link < links());
        const std::uint32_t gs = g_ * s_;
        if (link < gs) return {link / s_, g_ + link};
        if (link < 2 * gs) return {g_ + (link - gs), (link - gs) / s_};
        if (link < intra_base()) {
            const std::uint32_t k = link - 2 * gs, f = slice_.links();
            const std::uint32_t slice = k / f;
            const topology::link_ends e = slice_.link_ends(k % f);
            return {hmc_node(e.from, slice), hmc_node(e.to, slice)};
        }
        const std::uint32_t k = link - intra_base(), per_cluster = s_ * (s_ - 1);
        const std::uint32_t c = k / per_cluster, a = k % per_cluster / (s_ - 1),
                            j = k % per_cluster % (s_ - 1);
        return {hmc_node(c, a), hmc_node(c, j < a ? j : j + 1)};
    }

    [[nodiscard]] std::uint32_t hops(std::uint32_t src, std::uint32_t dst) const noexcept {
        std::uint32_t h = 0;
        route(src, dst, [&h](std::uint32_t) noexcept { ++h; });
        return h;
    }

    template <class Visit>
    void route(std::uint32_t src, std::uint32_t dst, Visit&& visit) const {
        MEMSUB_ASSERT(src < nodes() && dst < nodes());
        if (src == dst) return;
        if (is_gpu(src) && is_gpu(dst)) {
            visit(src * s_); // GPU → HMC(src, 0)
            slice_route(0, src, dst, visit);
            visit(g_ * s_ + dst * s_); // HMC(dst, 0) → GPU
            return;
        }
        if (is_gpu(src)) {
            const std::uint32_t c = cluster_of(dst), s = slice_of(dst);
            visit(src * s_ + s);
            slice_route(s, src, c, visit);
            return;
        }
        if (is_gpu(dst)) {
            const std::uint32_t c = cluster_of(src), s = slice_of(src);
            slice_route(s, c, dst, visit);
            visit(g_ * s_ + dst * s_ + s);
            return;
        }
        const std::uint32_t c1 = cluster_of(src), s1 = slice_of(src);
        const std::uint32_t c2 = cluster_of(dst), s2 = slice_of(dst);
        if (s1 != s2) {
            if constexpr (IntraCluster) {
                visit(intra_base() + c1 * s_ * (s_ - 1) + s1 * (s_ - 1) + (s2 < s1 ? s2 : s2 - 1));
            } else {
                visit(g_ * s_ + c1 * s_ + s1); // HMC(c1, s1) → GPU c1
                visit(c1 * s_ + s2);           // GPU c1 → HMC(c1, s2)
            }
        }
        slice_route(s2, c1, c2, visit);
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return IntraCluster ? "distributor_flattened_butterfly" : "sliced_flattened_butterfly";
    }

private:
    static constexpr std::string_view component() noexcept {
        return IntraCluster ? "memsub::topology::distributor_flattened_butterfly"
                            : "memsub::topology::sliced_flattened_butterfly";
    }
    static const params& checked(const params& p) {
        if (p.gpus == 0) throw config_error(component(), "gpus", 0, "must be >= 1");
        if (p.hmcs_per_gpu == 0) throw config_error(component(), "hmcs_per_gpu", 0, "must be >= 1");
        if (p.gpus > 4096 || p.hmcs_per_gpu > 64)
            throw config_error(component(), "gpus", p.gpus,
                               "must be <= 4096 with hmcs_per_gpu <= 64");
        return p;
    }
    [[nodiscard]] std::uint32_t cluster_of(std::uint32_t hmc) const noexcept {
        return (hmc - g_) / s_;
    }
    [[nodiscard]] std::uint32_t slice_of(std::uint32_t hmc) const noexcept {
        return (hmc - g_) % s_;
    }
    [[nodiscard]] std::uint32_t intra_base() const noexcept {
        return 2 * g_ * s_ + s_ * slice_.links();
    }
    template <class Visit>
    void slice_route(std::uint32_t slice, std::uint32_t from_cluster, std::uint32_t to_cluster,
                     Visit& visit) const {
        const std::uint32_t base = 2 * g_ * s_ + slice * slice_.links();
        slice_.route(from_cluster, to_cluster, [&](std::uint32_t k) { visit(base + k); });
    }

    std::uint32_t g_;
    std::uint32_t s_;
    std::uint32_t gpu_channels_per_hmc_;
    std::uint32_t channels_per_device_;
    flattened_butterfly slice_;
};

} // namespace memsub::topology::detail
