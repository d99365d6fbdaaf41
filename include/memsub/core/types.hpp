// memsub — strong unsigned types for addresses and indices, and entry masks.
//
// Addresses and indices are distinct types so that a set index can never be passed where a way
// or an address is expected. Each is a thin wrapper over an unsigned integer: `.value` reads it,
// construction is explicit, comparisons and hashing work as for the underlying integer.
#pragma once

#include <bit>
#include <compare>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>

#include <memsub/config.hpp>

namespace memsub {

template <class Tag, std::unsigned_integral Rep>
struct strong_index {
    using rep = Rep;
    Rep value{};

    constexpr strong_index() noexcept = default;
    constexpr explicit strong_index(Rep v) noexcept : value(v) {}

    friend constexpr bool operator==(strong_index, strong_index) noexcept = default;
    friend constexpr auto operator<=>(strong_index, strong_index) noexcept = default;
};

struct byte_address_tag {};
struct line_address_tag {};
struct set_index_tag {};
struct entry_index_tag {};

/// A byte address as the host issues it.
using byte_address = strong_index<byte_address_tag, std::uint64_t>;
/// A byte address divided by the line size (the identity of a cache line).
using line_address = strong_index<line_address_tag, std::uint64_t>;
/// The index of a set in a cache.
using set_index = strong_index<set_index_tag, std::uint32_t>;
/// The index of a tag entry within a set (a "way" in a conventional cache).
using entry_index = strong_index<entry_index_tag, std::uint32_t>;

/// The maximum number of tag entries a set may hold; entry sets are 64-bit masks.
inline constexpr std::uint32_t max_entries_per_set = 64;

/// A set of entries of one set, bit i = entry i.
using entry_mask = std::uint64_t;

/// Mask with the low `n` bits set (n ≤ 64).
[[nodiscard]] constexpr entry_mask low_bits_mask(std::uint32_t n) noexcept {
    return n >= 64 ? ~entry_mask{0} : (entry_mask{1} << n) - 1;
}

/// low_bits_mask for 1 ≤ n ≤ 64 in one shift, without low_bits_mask's compare and select: for
/// hot paths whose count is never 0 (a block's span, a request's bytes or segments).
[[nodiscard]] constexpr std::uint64_t nonzero_low_bits_mask(std::uint32_t n) noexcept {
    return ~std::uint64_t{0} >> (64u - n);
}

/// The lowest entry in a non-empty mask (the optimiser is told it is non-empty: no case for an
/// empty one is compiled into the callers).
[[nodiscard]] constexpr entry_index lowest_entry(entry_mask m) noexcept {
    MEMSUB_ASSUME(m != 0);
    return entry_index{static_cast<std::uint32_t>(std::countr_zero(m))};
}

[[nodiscard]] constexpr bool contains(entry_mask m, entry_index e) noexcept {
    return ((m >> e.value) & 1u) != 0;
}

[[nodiscard]] constexpr entry_mask bit_of(entry_index e) noexcept {
    return entry_mask{1} << e.value;
}

/// log2 of a power of two.
[[nodiscard]] constexpr std::uint32_t log2_exact(std::uint64_t pow2) noexcept {
    return static_cast<std::uint32_t>(std::countr_zero(pow2));
}

/// "No next use" marker for next-use annotations (OPT), and the default of unknown hints.
inline constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();

} // namespace memsub

template <class Tag, class Rep>
struct std::hash<memsub::strong_index<Tag, Rep>> {
    std::size_t operator()(memsub::strong_index<Tag, Rep> v) const noexcept {
        return std::hash<Rep>{}(v.value);
    }
};
