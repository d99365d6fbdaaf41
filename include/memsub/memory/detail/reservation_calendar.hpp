// memsub — a reservation calendar: rows of cycles at which some kind of command may not be
// placed, as bitmaps over a sliding window of cycles.
//
// Each placed command forbids a span of cycles around itself to other commands (for example,
// a write forbids reads of its rank from a few cycles before it until tWTR after its data).
// `forbid` marks such a span in a row. `first_free` finds the least cycle ≥ a start that is
// free in two rows at once (a command kind is usually constrained by a shared row and one of
// its own) with a bit scan. The window is a ring of 64-cycle words. Every ring slot carries
// the absolute word it currently holds (a tag), so the words of cycles that left the window
// are cleared lazily when their slot is reused, and a query never sees them. The caller
// guarantees that it never marks a cycle ≥ (the earliest cycle it will still query) +
// `window()` − 64. Storage: rows × window bits, slot-major (the rows of one word are adjacent),
// plus one tag per word; allocated once.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <memsub/config.hpp>

namespace memsub::memory::detail {

class reservation_calendar {
public:
    reservation_calendar() = default;
    /// `rows` bitmaps over a window of at least `min_window` cycles.
    reservation_calendar(std::uint32_t rows, std::uint64_t min_window)
        : words_(std::bit_ceil((min_window + 63) / 64 + 2))
        , mask_(words_ - 1)
        , rows_(rows)
        , bits_(static_cast<std::size_t>(words_) * rows, 0)
        , tags_(words_, ~std::uint64_t{0}) {}

    /// Cycles the window spans.
    [[nodiscard]] std::uint64_t window() const noexcept { return words_ * 64; }

    /// Forbids cycles [lo, hi) in `row`.
    MEMSUB_ALWAYS_INLINE void forbid(std::uint32_t row, std::uint64_t lo,
                                     std::uint64_t hi) noexcept {
        MEMSUB_ASSERT(row < rows_);
        if (lo >= hi) return;
        const std::uint64_t first = lo >> 6, last = (hi - 1) >> 6;
        const std::uint64_t head = ~std::uint64_t{0} << (lo & 63);
        const std::uint64_t tail = ~std::uint64_t{0} >> (63 - ((hi - 1) & 63));
        if (MEMSUB_LIKELY(first == last)) {
            slot(first)[row] |= head & tail;
            return;
        }
        slot(first)[row] |= head;
        for (std::uint64_t w = first + 1; w < last; ++w) slot(w)[row] = ~std::uint64_t{0};
        slot(last)[row] |= tail;
    }

    /// The least cycle ≥ `c` that is free in both `row_a` and `row_b`.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t
    first_free(std::uint32_t row_a, std::uint32_t row_b, std::uint64_t c) const noexcept {
        MEMSUB_ASSERT(row_a < rows_ && row_b < rows_);
        std::uint64_t w = c >> 6;
        // Bits below c in its word count as taken.
        std::uint64_t taken = taken_in(row_a, row_b, w) | ((std::uint64_t{1} << (c & 63)) - 1);
        while (taken == ~std::uint64_t{0}) taken = taken_in(row_a, row_b, ++w);
        return (w << 6) + static_cast<std::uint64_t>(std::countr_one(taken));
    }

private:
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t taken_in(std::uint32_t a, std::uint32_t b,
                                                              std::uint64_t w) const noexcept {
        const std::size_t i = static_cast<std::size_t>(w & mask_);
        if (tags_[i] != w) return 0;
        const std::uint64_t* s = &bits_[i * rows_];
        return s[a] | s[b];
    }
    /// The rows of absolute word `w`, cleared if the slot held another word.
    MEMSUB_ALWAYS_INLINE std::uint64_t* slot(std::uint64_t w) noexcept {
        const std::size_t i = static_cast<std::size_t>(w & mask_);
        std::uint64_t* s = &bits_[i * rows_];
        if (tags_[i] != w) {
            tags_[i] = w;
            std::fill(s, s + rows_, std::uint64_t{0});
        }
        return s;
    }

    std::uint64_t words_ = 0;
    std::uint64_t mask_ = 0;
    std::uint32_t rows_ = 0;
    std::vector<std::uint64_t> bits_; ///< slot-major: bits_[slot * rows_ + row]
    std::vector<std::uint64_t> tags_;
};

} // namespace memsub::memory::detail
