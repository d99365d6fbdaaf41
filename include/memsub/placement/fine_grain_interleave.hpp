// memsub — fine-grain address interleave across memory partitions: the MCM-GPU baseline
// placement (C5.1, docs/mechanisms/multi_module_gpu.md). Consecutive granules rotate across the
// partitions, and the granules of one partition rotate across its channels:
//   granule g = address / G;  partition = g mod P;  channel = (g / P) mod C;
//   local address = (g / P) · G + address mod G.
// The granule G defaults to the L2 line (128 B, G5.2 (docs/mechanisms/multi_module_gpu.md)).
// Stateless and invertible
// (`global_address`); the requester is ignored. Bits at and above `address_bits` are ignored.
// Models `invertible_placement` (placement/concept.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <memsub/core/types.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/placement/detail/page_round_robin.hpp>

namespace memsub::placement {

class fine_grain_interleave : public detail::page_round_robin {
public:
    static constexpr std::string_view component = "memsub::placement::fine_grain_interleave";

    struct params {
        std::uint32_t partitions = 4;
        std::uint32_t channels_per_partition = 1;
        /// Interleave unit across partitions and channels (G5.2,
        /// docs/mechanisms/multi_module_gpu.md: 128 B … 4 KiB).
        std::uint32_t granule_bytes = 128;
        /// Physical address width; higher bits are ignored.
        std::uint32_t address_bits = 48;
    };

    fine_grain_interleave() : fine_grain_interleave(params{}) {}
    explicit fine_grain_interleave(const params& p)
        : page_round_robin(component, p.partitions, p.channels_per_partition, p.granule_bytes,
                           p.granule_bytes, p.address_bits)
        , p_(p) {}

    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return "fine_grain_interleave";
    }

private:
    params p_;
};

static_assert(invertible_placement<fine_grain_interleave>);

} // namespace memsub::placement
