// memsub — `bypass::always`: admit nothing (the cache level is switched off: every miss reads
// or writes the next level directly, as GPGPU-Sim's "L1D off" configuration in ID-Cache §3.3).
// Storage: 0 bits.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/bypass/concept.hpp>

namespace memsub::bypass {

struct always {
    struct params {};
    constexpr always() noexcept = default;
    constexpr always(const geometry&, const params&) noexcept {}
    [[nodiscard]] static constexpr bool should_bypass(set_index, const access&) noexcept {
        return true;
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "always"; }
    /// Stateless: no hardware bits.
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 0; }
};

static_assert(bypass_predictor<always>);

} // namespace memsub::bypass
