// memsub — the body fine_grain_interleave and round_robin_page share: consecutive placement
// units (pages; a fine-grain interleave's page is its granule) rotate across the partitions,
// and a partition's units lie back to back in its local address space:
//   unit u = address / U;  partition = u mod P;  local address = (u / P) · U + address mod U,
// with the channel interleave inside the partition from partition_shape. Stateless and
// invertible. Bits at and above `address_bits` are ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <memsub/core/types.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/placement/detail/partition_shape.hpp>

namespace memsub::placement::detail {

class page_round_robin {
public:
    [[nodiscard]] location place(byte_address a, std::uint32_t /*requester*/ = 0) const noexcept {
        const std::uint64_t addr = a.value & address_mask_;
        const std::uint64_t unit = addr >> shape_.page_shift();
        const std::uint64_t frame = shape_.partition_divider().div(unit);
        const auto partition = static_cast<std::uint32_t>(unit - frame * shape_.partitions());
        return shape_.in_frame(partition, frame, addr & (shape_.page_bytes() - 1));
    }
    [[nodiscard]] std::optional<location> locate(byte_address a) const noexcept { return place(a); }
    [[nodiscard]] byte_address global_address(std::uint32_t partition,
                                              std::uint64_t local_address) const noexcept {
        const std::uint64_t frame = local_address >> shape_.page_shift();
        return byte_address{((frame * shape_.partitions() + partition) << shape_.page_shift()) |
                            (local_address & (shape_.page_bytes() - 1))};
    }

    [[nodiscard]] std::uint32_t partitions() const noexcept { return shape_.partitions(); }
    [[nodiscard]] std::uint32_t channels_per_partition() const noexcept {
        return shape_.channels();
    }
    [[nodiscard]] std::uint32_t page_bytes() const noexcept { return shape_.page_bytes(); }
    [[nodiscard]] std::uint32_t granule_bytes() const noexcept { return shape_.granule_bytes(); }
    [[nodiscard]] std::uint64_t partition_bytes() const noexcept { return partition_bytes_; }

protected:
    /// Validates the shape (config_error naming `component`).
    page_round_robin(std::string_view component, std::uint32_t partitions, std::uint32_t channels,
                     std::uint32_t unit_bytes, std::uint32_t granule_bytes,
                     std::uint32_t address_bits)
        : shape_(component, partitions, channels, unit_bytes, granule_bytes) {
        require_address_bits(component, address_bits, shape_);
        address_mask_ = (std::uint64_t{1} << address_bits) - 1;
        const std::uint64_t units = std::uint64_t{1} << (address_bits - shape_.page_shift());
        partition_bytes_ = ((units + partitions - 1) / partitions) << shape_.page_shift();
    }

private:
    partition_shape shape_;
    std::uint64_t address_mask_ = 0;
    std::uint64_t partition_bytes_ = 0;
};

} // namespace memsub::placement::detail
