// memsub — `topology::link_traffic<T>`: per-link byte accounting over a topology
// (per-link byte accounting over [MCM-GPU]'s ring and [MemNet]'s networks).
//
// The host calls `record(src, dst, bytes)` for every transfer; the counter walks the topology's
// route and adds the bytes to each directed link it crosses. It keeps the totals an energy model
// needs — payload bytes, and bytes × link traversals (`byte_hops`, GPUJoule's
// `activity::link_byte_hops`, G6.9) — and the per-link loads a bandwidth model needs
// (`bytes_on`, `max_link_bytes`, `bytes_from`, `bytes_into`). No allocation after construction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <memsub/topology/concept.hpp>

namespace memsub::topology {

template <topology T>
class link_traffic {
public:
    explicit link_traffic(const T& t) : topology_(t), bytes_(t.links(), 0) {}

    /// A transfer of `bytes` from node `src` to node `dst`. Throws `std::out_of_range` naming
    /// the node when either id is not a node of the topology.
    void record(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
        if (src >= topology_.nodes() || dst >= topology_.nodes())
            throw std::out_of_range("memsub::topology::link_traffic::record: node " +
                                    std::to_string(src >= topology_.nodes() ? src : dst) +
                                    " is not below nodes() = " + std::to_string(topology_.nodes()));
        ++transfers_;
        total_bytes_ += bytes;
        topology_.route(src, dst, [&](std::uint32_t link) {
            bytes_[link] += bytes;
            byte_hops_ += bytes;
        });
    }

    [[nodiscard]] const T& topology() const noexcept { return topology_; }
    [[nodiscard]] std::uint64_t transfers() const noexcept { return transfers_; }
    /// Payload bytes recorded (a transfer counts once, however many links it crosses).
    [[nodiscard]] std::uint64_t total_bytes() const noexcept { return total_bytes_; }
    /// Σ bytes × links crossed: the link-energy count (G6.9).
    [[nodiscard]] std::uint64_t byte_hops() const noexcept { return byte_hops_; }
    [[nodiscard]] std::uint64_t bytes_on(std::uint32_t link) const { return bytes_.at(link); }
    [[nodiscard]] const std::vector<std::uint64_t>& per_link() const noexcept { return bytes_; }
    /// The busiest link's bytes (0 without links).
    [[nodiscard]] std::uint64_t max_link_bytes() const noexcept {
        return bytes_.empty() ? 0 : *std::max_element(bytes_.begin(), bytes_.end());
    }
    /// Bytes on the links leaving / entering `node` (forwarded traffic included).
    [[nodiscard]] std::uint64_t bytes_from(std::uint32_t node) const {
        std::uint64_t sum = 0;
        for (std::uint32_t l = 0; l < bytes_.size(); ++l)
            if (topology_.link_ends(l).from == node) sum += bytes_[l];
        return sum;
    }
    [[nodiscard]] std::uint64_t bytes_into(std::uint32_t node) const {
        std::uint64_t sum = 0;
        for (std::uint32_t l = 0; l < bytes_.size(); ++l)
            if (topology_.link_ends(l).to == node) sum += bytes_[l];
        return sum;
    }

    void reset() noexcept {
        std::fill(bytes_.begin(), bytes_.end(), 0);
        transfers_ = total_bytes_ = byte_hops_ = 0;
    }

private:
    T topology_;
    std::vector<std::uint64_t> bytes_;
    std::uint64_t transfers_ = 0;
    std::uint64_t total_bytes_ = 0;
    std::uint64_t byte_hops_ = 0;
};

} // namespace memsub::topology
