// memsub — round-robin page placement: page i → partition i mod P, in page-number order (spec
// §1 C5.7 [R]; the MCM-GPU multi-GPU study's negative baseline: "very low and inconsistent
// performance"). A partition's pages are packed in order: page i is frame i / P of its
// partition; inside a partition channels interleave on the granule (C5.1 within the
// partition). Stateless and invertible; the requester is ignored. Models
// `invertible_placement` (placement/concept.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <memsub/core/types.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/placement/detail/partition_shape.hpp>

namespace memsub::placement {

class round_robin_page {
public:
    static constexpr std::string_view component = "memsub::placement::round_robin_page";

    struct params {
        std::uint32_t partitions = 4;
        std::uint32_t channels_per_partition = 1;
        /// Placement unit (spec G5.1: 4 KiB default; 64 KiB and 2 MiB are tested).
        std::uint32_t page_bytes = 4096;
        /// Channel-interleave unit inside a partition (spec G5.2).
        std::uint32_t granule_bytes = 128;
        /// Physical address width; higher bits are ignored.
        std::uint32_t address_bits = 48;
    };

    round_robin_page() : round_robin_page(params{}) {}
    explicit round_robin_page(const params& p)
        : p_(p)
        , shape_(component, p.partitions, p.channels_per_partition, p.page_bytes, p.granule_bytes) {
        detail::require_address_bits(component, p.address_bits, shape_);
        address_mask_ = (std::uint64_t{1} << p.address_bits) - 1;
        const std::uint64_t pages = std::uint64_t{1} << (p.address_bits - shape_.page_shift());
        partition_bytes_ = ((pages + p.partitions - 1) / p.partitions) << shape_.page_shift();
    }

    [[nodiscard]] location place(byte_address a, std::uint32_t /*requester*/ = 0) const noexcept {
        const std::uint64_t addr = a.value & address_mask_;
        const std::uint64_t page = addr >> shape_.page_shift();
        const std::uint64_t frame = shape_.partition_divider().div(page);
        const auto partition = static_cast<std::uint32_t>(page - frame * p_.partitions);
        return shape_.in_frame(partition, frame, addr & (p_.page_bytes - 1));
    }
    [[nodiscard]] std::optional<location> locate(byte_address a) const noexcept { return place(a); }
    [[nodiscard]] byte_address global_address(std::uint32_t partition,
                                              std::uint64_t local_address) const noexcept {
        const std::uint64_t frame = local_address >> shape_.page_shift();
        return byte_address{((frame * p_.partitions + partition) << shape_.page_shift()) |
                            (local_address & (p_.page_bytes - 1))};
    }

    [[nodiscard]] std::uint32_t partitions() const noexcept { return shape_.partitions(); }
    [[nodiscard]] std::uint32_t channels_per_partition() const noexcept {
        return shape_.channels();
    }
    [[nodiscard]] std::uint32_t page_bytes() const noexcept { return shape_.page_bytes(); }
    [[nodiscard]] std::uint32_t granule_bytes() const noexcept { return shape_.granule_bytes(); }
    [[nodiscard]] std::uint64_t partition_bytes() const noexcept { return partition_bytes_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "round_robin_page"; }

private:
    params p_;
    detail::partition_shape shape_;
    std::uint64_t address_mask_ = 0;
    std::uint64_t partition_bytes_ = 0;
};

static_assert(invertible_placement<round_robin_page>);

} // namespace memsub::placement
