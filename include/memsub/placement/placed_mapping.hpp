// memsub — a placement stage in front of a partition's DRAM mapping: the `address_mapping` a
// partition's controller holds when the machine has several memory partitions.
//
// `placed_mapping<Placement, Inner>` holds the placement by reference (a pointer: every
// partition's controller shares one placement, e.g. one first-touch table filled at run time)
// and the partition's own mapping by value. `map(global address)` = Inner::map(the
// partition-local address the placement gave), so a controller keeps working on global
// addresses (its completions carry the address the host issued) while its DRAM coordinates
// come from the partition-local address space. Controllers copy their mapping; copies share
// the placement. The placement must outlive every copy.
//
// Host protocol (placement/concept.hpp PP1): `auto l = placement.place(address, module);` then
// enqueue the request at the controller of partition `l.partition`. The controller's
// `map` (called at enqueue, memory/concept.hpp) `locate`s the address. An address whose page no
// `place` has decided (a host that skipped PP1) maps as the raw address through Inner: a
// defined answer, not a meaningful one.
// Invertibility: `unmap` exists only when both stages are invertible (a stateless placement
// and an invertible inner mapping): then the pair models `invertible_address_mapping`. With
// first touch it models `address_mapping` only — the reason MI1 is a refinement.
// Construction checks that the inner mapping has the placement's channels per partition and
// interleaves them on the placement's granule (local granule k → channel k mod channels),
// so `location::channel` and the controller's channel agree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/placement/concept.hpp>

namespace memsub::placement {

template <placement_policy Placement, memory::address_mapping Inner>
class placed_mapping {
public:
    static constexpr std::string_view component = "memsub::placement::placed_mapping";

    /// The mapping of partition `partition` of `placement`, with `inner` decoding the
    /// partition-local addresses.
    placed_mapping(const Placement& placement, Inner inner, std::uint32_t partition)
        : placement_(&placement)
        , inner_(std::move(inner))
        , partition_(partition) {
        require(partition < placement.partitions(), component, "partition", partition,
                "must be below the placement's partitions (" +
                    std::to_string(placement.partitions()) + ")");
        const std::uint32_t channels = placement.channels_per_partition();
        require(inner_.organisation().channels == channels, component, "inner channels",
                inner_.organisation().channels,
                "must equal the placement's channels_per_partition (" + std::to_string(channels) +
                    ")");
        for (std::uint64_t k = 0; k < 2 * std::uint64_t{channels}; ++k) {
            const std::uint64_t local = k * placement.granule_bytes();
            require(inner_.map(byte_address{local}).channel == k % channels, component,
                    "inner channel field", inner_.map(byte_address{local}).channel,
                    "the inner mapping must interleave channels on the placement's granule (" +
                        std::to_string(placement.granule_bytes()) + " B): local granule " +
                        std::to_string(k) + " must map to channel " + std::to_string(k % channels));
        }
    }

    // ------------------------------------------------------------------ address_mapping

    [[nodiscard]] memory::dram_address map(byte_address a) const noexcept {
        if (const auto l = placement_->locate(a)) return inner_.map(byte_address{l->local_address});
        return inner_.map(a); // never placed (PP1 not followed): defined, not meaningful
    }

    [[nodiscard]] const memory::dram_organisation& organisation() const noexcept {
        return inner_.organisation();
    }

    /// MI1, only for a stateless placement and an invertible inner mapping.
    [[nodiscard]] byte_address unmap(const memory::dram_address& d) const noexcept requires
        invertible_placement<Placement> && memory::invertible_address_mapping<Inner> {
        return placement_->global_address(partition_, inner_.unmap(d).value);
    }

    [[nodiscard]] std::uint32_t partition() const noexcept { return partition_; }
    [[nodiscard]] const Placement& placement() const noexcept { return *placement_; }
    [[nodiscard]] const Inner& inner() const noexcept { return inner_; }

private:
    const Placement* placement_;
    Inner inner_;
    std::uint32_t partition_;
};

} // namespace memsub::placement
