// memsub — `topology::flattened_butterfly`: a flattened butterfly (FBFLY) of routers
// (docs/mechanisms/multi_module_gpu.md, 'Memory-network topologies'; Kim et al.'s memory networks,
// [MemNet]): routers sit on an n-D grid of extents k₀ × … × k_{n−1} and every router is linked to
// every other router that differs from it in exactly one coordinate (fully connected along each row
// and each column). Minimal routing corrects the differing coordinates one at a time, in dimension
// order, so the hop count is the number of coordinates in which two routers differ.
//
// Counts: degree Σ(k_d − 1) per router; bidirectional channels Σ_d (nodes/k_d)·C(k_d, 2)
// = nodes·degree/2; directed links twice that. A 1-D FBFLY over G routers is the complete graph
// (C(G, 2) channels), the slice of the sliced FBFLY at 4 GPUs; 2 × 4 is its slice at 8 GPUs.
//
// Nodes are numbered in mixed radix, coordinate 0 least significant. The directed link leaving
// router r along dimension d towards coordinate value v is numbered
// r·degree + offset_d + (v < c_d ? v : v − 1), offset_d = Σ_{e<d}(k_e − 1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/topology/concept.hpp>

namespace memsub::topology {

class flattened_butterfly {
public:
    struct params {
        /// Grid extents, one per dimension (each ≥ 1; a 1 adds nothing).
        std::vector<std::uint32_t> extents{4};
    };

    explicit flattened_butterfly(const params& p) : extents_(p.extents) {
        constexpr std::string_view who = "memsub::topology::flattened_butterfly";
        if (extents_.empty()) throw config_error(who, "extents", "{}", "must name >= 1 dimension");
        std::uint64_t nodes = 1;
        for (std::size_t d = 0; d < extents_.size(); ++d) {
            if (extents_[d] == 0)
                throw config_error(who, "extents[" + std::to_string(d) + "]", 0, "must be >= 1");
            nodes *= extents_[d];
            if (nodes > (std::uint64_t{1} << 24))
                throw config_error(who, "extents", nodes, "the product must be <= 2^24 routers");
        }
        nodes_ = static_cast<std::uint32_t>(nodes);
        offsets_.resize(extents_.size());
        strides_.resize(extents_.size());
        std::uint32_t stride = 1;
        for (std::size_t d = 0; d < extents_.size(); ++d) {
            offsets_[d] = degree_;
            strides_[d] = stride;
            degree_ += extents_[d] - 1;
            stride *= extents_[d];
        }
    }

    [[nodiscard]] std::uint32_t nodes() const noexcept { return nodes_; }
    [[nodiscard]] std::uint32_t degree() const noexcept { return degree_; }
    [[nodiscard]] std::uint32_t links() const noexcept { return nodes_ * degree_; }
    /// Bidirectional channels (the count [MemNet]'s Fig. 12 compares).
    [[nodiscard]] std::uint32_t channels() const noexcept { return links() / 2; }
    [[nodiscard]] const std::vector<std::uint32_t>& extents() const noexcept { return extents_; }

    [[nodiscard]] std::uint32_t coordinate(std::uint32_t node, std::size_t d) const noexcept {
        return node / strides_[d] % extents_[d];
    }

    [[nodiscard]] topology::link_ends link_ends(std::uint32_t link) const noexcept {
        MEMSUB_ASSERT(link < links());
        const std::uint32_t from = link / degree_, k = link % degree_;
        std::size_t d = 0;
        while (d + 1 < extents_.size() && k >= offsets_[d + 1]) ++d;
        const std::uint32_t c = coordinate(from, d), j = k - offsets_[d];
        const std::uint32_t v = j < c ? j : j + 1;
        return {from, from - c * strides_[d] + v * strides_[d]};
    }

    [[nodiscard]] std::uint32_t hops(std::uint32_t src, std::uint32_t dst) const noexcept {
        MEMSUB_ASSERT(src < nodes_ && dst < nodes_);
        std::uint32_t h = 0;
        for (std::size_t d = 0; d < extents_.size(); ++d)
            h += coordinate(src, d) != coordinate(dst, d);
        return h;
    }

    /// Minimal dimension-order route.
    template <class Visit>
    void route(std::uint32_t src, std::uint32_t dst, Visit&& visit) const {
        MEMSUB_ASSERT(src < nodes_ && dst < nodes_);
        std::uint32_t at = src;
        for (std::size_t d = 0; d < extents_.size(); ++d) {
            const std::uint32_t c = coordinate(at, d), v = coordinate(dst, d);
            if (c == v) continue;
            visit(at * degree_ + offsets_[d] + (v < c ? v : v - 1));
            at = at - c * strides_[d] + v * strides_[d];
        }
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return "flattened_butterfly";
    }

private:
    std::vector<std::uint32_t> extents_;
    std::vector<std::uint32_t> offsets_;
    std::vector<std::uint32_t> strides_;
    std::uint32_t nodes_ = 0;
    std::uint32_t degree_ = 0;
};

static_assert(topology<flattened_butterfly>);

} // namespace memsub::topology
