// memsub — bit counting for the hot paths.
#pragma once

#include <bit>
#include <cstdint>

#include <memsub/config.hpp>

namespace memsub {

/// Population count that stays inline without a POPCNT instruction (the portable build has
/// none; GCC would otherwise call libgcc's __popcountdi2).
[[nodiscard]] MEMSUB_ALWAYS_INLINE constexpr std::uint32_t popcount64(std::uint64_t x) noexcept {
#if defined(__POPCNT__)
    return static_cast<std::uint32_t>(std::popcount(x));
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return static_cast<std::uint32_t>((x * 0x0101010101010101ull) >> 56);
#endif
}

/// Bits set in `x`, which must be one non-empty run of ones (a block's segments in its line):
/// its two ends, found with one bit scan each, where the portable build's popcount64 takes
/// some twenty instructions.
[[nodiscard]] MEMSUB_ALWAYS_INLINE constexpr std::uint32_t run_length64(std::uint64_t x) noexcept {
#if defined(__POPCNT__)
    return static_cast<std::uint32_t>(std::popcount(x));
#else
    // x != 0, so the builtins' zero case never arises.
    return static_cast<std::uint32_t>(64 - __builtin_clzll(x) - __builtin_ctzll(x));
#endif
}

} // namespace memsub
