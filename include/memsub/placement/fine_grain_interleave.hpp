// memsub — fine-grain address interleave across memory partitions: the MCM-GPU baseline
// placement (spec §1 C5.1). Consecutive granules rotate across the partitions, and the
// granules of one partition rotate across its channels:
//   granule g = address / G;  partition = g mod P;  channel = (g / P) mod C;
//   local address = (g / P) · G + address mod G.
// The granule G defaults to the L2 line (128 B, spec G5.2). Stateless and invertible
// (`global_address`); the requester is ignored. Bits at and above `address_bits` are ignored.
// Models `invertible_placement` (placement/concept.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <memsub/core/types.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/placement/detail/partition_shape.hpp>

namespace memsub::placement {

class fine_grain_interleave {
public:
    static constexpr std::string_view component = "memsub::placement::fine_grain_interleave";

    struct params {
        std::uint32_t partitions = 4;
        std::uint32_t channels_per_partition = 1;
        /// Interleave unit across partitions and channels (spec G5.2: 128 B … 4 KiB).
        std::uint32_t granule_bytes = 128;
        /// Physical address width; higher bits are ignored.
        std::uint32_t address_bits = 48;
    };

    fine_grain_interleave() : fine_grain_interleave(params{}) {}
    explicit fine_grain_interleave(const params& p)
        : p_(p)
        , shape_(component, p.partitions, p.channels_per_partition, p.granule_bytes,
                 p.granule_bytes) {
        detail::require_address_bits(component, p.address_bits, shape_);
        address_mask_ = (std::uint64_t{1} << p.address_bits) - 1;
        const std::uint64_t granules = std::uint64_t{1} << (p.address_bits - shape_.page_shift());
        partition_bytes_ = ((granules + p.partitions - 1) / p.partitions) << shape_.page_shift();
    }

    [[nodiscard]] location place(byte_address a, std::uint32_t /*requester*/ = 0) const noexcept {
        const std::uint64_t addr = a.value & address_mask_;
        const std::uint64_t g = addr >> shape_.granule_shift();
        const std::uint64_t q = shape_.partition_divider().div(g);
        const auto partition = static_cast<std::uint32_t>(g - q * p_.partitions);
        return shape_.in_frame(partition, q, addr & (p_.granule_bytes - 1));
    }
    [[nodiscard]] std::optional<location> locate(byte_address a) const noexcept { return place(a); }
    [[nodiscard]] byte_address global_address(std::uint32_t partition,
                                              std::uint64_t local_address) const noexcept {
        const std::uint64_t q = local_address >> shape_.granule_shift();
        return byte_address{((q * p_.partitions + partition) << shape_.granule_shift()) |
                            (local_address & (p_.granule_bytes - 1))};
    }

    [[nodiscard]] std::uint32_t partitions() const noexcept { return shape_.partitions(); }
    [[nodiscard]] std::uint32_t channels_per_partition() const noexcept {
        return shape_.channels();
    }
    [[nodiscard]] std::uint32_t page_bytes() const noexcept { return shape_.page_bytes(); }
    [[nodiscard]] std::uint32_t granule_bytes() const noexcept { return shape_.granule_bytes(); }
    [[nodiscard]] std::uint64_t partition_bytes() const noexcept { return partition_bytes_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return "fine_grain_interleave";
    }

private:
    params p_;
    detail::partition_shape shape_;
    std::uint64_t address_mask_ = 0;
    std::uint64_t partition_bytes_ = 0;
};

static_assert(invertible_placement<fine_grain_interleave>);

} // namespace memsub::placement
