// memsub — `bypass::never`: admit every block (the default bypass predictor of every cache).
//
// An empty type whose answer is a compile-time `false`: stored `[[no_unique_address]]` in the
// cache, it takes no space and its call folds away, so a cache without a bypass predictor runs
// the same code as before the slot existed. Storage: 0 bits.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/bypass/concept.hpp>

namespace memsub::bypass {

struct never {
    struct params {};
    constexpr never() noexcept = default;
    constexpr never(const geometry&, const params&) noexcept {}
    [[nodiscard]] static constexpr bool should_bypass(set_index, const access&) noexcept {
        return false;
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "never"; }
    /// Stateless: no hardware bits.
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 0; }
};

static_assert(bypass_predictor<never>);

} // namespace memsub::bypass
