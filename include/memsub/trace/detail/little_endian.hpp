// memsub — explicit little-endian decoding for the binary trace formats (host-order independent).
#pragma once

#include <cstddef>
#include <cstdint>

namespace memsub::trace::detail {

/// The unsigned little-endian integer in the `N` bytes (N ≤ 8) starting at `p`.
template <std::size_t N>
[[nodiscard]] constexpr std::uint64_t load_le(const std::byte* p) noexcept {
    static_assert(N >= 1 && N <= 8);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < N; ++i)
        v |= std::uint64_t{std::to_integer<std::uint8_t>(p[i])} << (8 * i);
    return v;
}

} // namespace memsub::trace::detail
