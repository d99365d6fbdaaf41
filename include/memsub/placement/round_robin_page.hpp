// memsub — round-robin page placement: page i → partition i mod P, in page-number order (C5.7
// in docs/mechanisms/multi_module_gpu.md; the MCM-GPU multi-GPU study's negative baseline: "very
// low and inconsistent performance"). A partition's pages are packed in order: page i is frame i /
// P of its partition; inside a partition channels interleave on the granule (C5.1 within the
// partition). Stateless and invertible; the requester is ignored. Models
// `invertible_placement` (placement/concept.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <memsub/core/types.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/placement/detail/page_round_robin.hpp>

namespace memsub::placement {

class round_robin_page : public detail::page_round_robin {
public:
    static constexpr std::string_view component = "memsub::placement::round_robin_page";

    struct params {
        std::uint32_t partitions = 4;
        std::uint32_t channels_per_partition = 1;
        /// Placement unit (G5.1, docs/mechanisms/multi_module_gpu.md: 4 KiB default; 64 KiB and 2
        /// MiB are tested).
        std::uint32_t page_bytes = 4096;
        /// Channel-interleave unit inside a partition (G5.2, docs/mechanisms/multi_module_gpu.md).
        std::uint32_t granule_bytes = 128;
        /// Physical address width; higher bits are ignored.
        std::uint32_t address_bits = 48;
    };

    round_robin_page() : round_robin_page(params{}) {}
    explicit round_robin_page(const params& p)
        : page_round_robin(component, p.partitions, p.channels_per_partition, p.page_bytes,
                           p.granule_bytes, p.address_bits)
        , p_(p) {}

    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "round_robin_page"; }

private:
    params p_;
};

static_assert(invertible_placement<round_robin_page>);

} // namespace memsub::placement
