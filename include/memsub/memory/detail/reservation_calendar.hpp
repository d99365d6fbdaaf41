// memsub — a reservation calendar: rows of cycles at which some kind of command may not be
// placed, as bitmaps over a sliding window of cycles.
//
// Each placed command forbids a span of cycles around itself to other commands (for example,
// a write forbids reads of its rank from a few cycles before it until tWTR after its data).
// `forbid` marks such a span in a row. `first_free` finds the least cycle ≥ a start that is
// free in two rows at once (a command kind is usually constrained by a shared row and one of
// its own) with a bit scan. The window is a ring of 64-cycle words, valid up to the highest
// word marked so far: marking a later word first clears the ring slots it moves into (they
// held words that left the window), and a query above it reads an empty word. The caller
// guarantees that it never marks a cycle ≥ (the earliest cycle it will still query) +
// `window()` − 128 (a short span is written to the two words from its first one, the second
// possibly unchanged). Spans of up to 64 cycles and searches that end within two words take
// no data-dependent branch. Storage: rows × window bits, slot-major (the rows of one word are
// adjacent); allocated once.
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
        , top_(words_ - 1)
        , bits_(static_cast<std::size_t>(words_) * rows, 0) {}

    /// Cycles the window spans.
    [[nodiscard]] std::uint64_t window() const noexcept { return words_ * 64; }

    /// Forbids cycles [lo, hi) in `row`.
    MEMSUB_ALWAYS_INLINE void forbid(std::uint32_t row, std::uint64_t lo,
                                     std::uint64_t hi) noexcept {
        MEMSUB_ASSERT(row < rows_);
        if (lo >= hi) return;
        const std::uint64_t first = lo >> 6;
        if (MEMSUB_LIKELY(hi - lo <= 64)) {
            // The span's bits, 1..64 of them from bit o of word `first`, spill into the next
            // word when o + length > 64 (that word is or-ed with 0 otherwise).
            const auto o = static_cast<unsigned>(lo & 63);
            const std::uint64_t bits = ~std::uint64_t{0} >> (64 - (hi - lo));
            reach(first + 1);
            word(first)[row] |= bits << o;
            word(first + 1)[row] |= (bits >> 1) >> (63 - o);
            return;
        }
        const std::uint64_t last = (hi - 1) >> 6;
        reach(last);
        word(first)[row] |= ~std::uint64_t{0} << (lo & 63);
        for (std::uint64_t w = first + 1; w < last; ++w) word(w)[row] = ~std::uint64_t{0};
        word(last)[row] |= ~std::uint64_t{0} >> (63 - ((hi - 1) & 63));
    }

    /// The least cycle ≥ `c` that is free in both `row_a` and `row_b`.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t
    first_free(std::uint32_t row_a, std::uint32_t row_b, std::uint64_t c) const noexcept {
        MEMSUB_ASSERT(row_a < rows_ && row_b < rows_);
        std::uint64_t w = c >> 6;
        // Bits below c in its word count as taken. The first two words are searched together.
        const std::uint64_t free0 =
            ~(taken_in(row_a, row_b, w) | ((std::uint64_t{1} << (c & 63)) - 1));
        const std::uint64_t free1 = ~taken_in(row_a, row_b, w + 1);
        if (MEMSUB_LIKELY((free0 | free1) != 0)) {
            // The lowest free bit of the 128: in word w when it has one, else in w + 1 (the
            // top bit keeps the scanned value non-zero without changing its lowest set bit).
            const bool in0 = free0 != 0;
            const std::uint64_t x = (in0 ? free0 : free1) | (std::uint64_t{1} << 63);
            return (w << 6) + (in0 ? 0 : 64) + static_cast<std::uint64_t>(std::countr_zero(x));
        }
        w += 2;
        std::uint64_t taken = taken_in(row_a, row_b, w);
        while (taken == ~std::uint64_t{0}) taken = taken_in(row_a, row_b, ++w);
        return (w << 6) + static_cast<std::uint64_t>(std::countr_one(taken));
    }

private:
    /// The taken bits of absolute word `w` in rows a and b (none above the highest word).
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t taken_in(std::uint32_t a, std::uint32_t b,
                                                              std::uint64_t w) const noexcept {
        const std::uint64_t* s = &bits_[static_cast<std::size_t>(w & mask_) * rows_];
        const std::uint64_t t = s[a] | s[b];
        return w <= top_ ? t : 0;
    }
    /// Makes the words up to `w` valid: the ring slots of the words above the highest one so
    /// far are cleared (the words they held have left the window).
    MEMSUB_ALWAYS_INLINE void reach(std::uint64_t w) noexcept {
        if (MEMSUB_UNLIKELY(w > top_)) extend(w);
    }
    void extend(std::uint64_t w) noexcept {
        const std::uint64_t from = std::max(top_ + 1, w + 1 - std::min(w + 1, words_));
        for (std::uint64_t x = from; x <= w; ++x) {
            std::uint64_t* s = &bits_[static_cast<std::size_t>(x & mask_) * rows_];
            std::fill(s, s + rows_, std::uint64_t{0});
        }
        top_ = w;
    }
    /// The rows of absolute word `w` (valid: w ≤ the highest word).
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t* word(std::uint64_t w) noexcept {
        MEMSUB_ASSERT(w <= top_ && w + words_ > top_);
        return &bits_[static_cast<std::size_t>(w & mask_) * rows_];
    }

    std::uint64_t words_ = 0;
    std::uint64_t mask_ = 0;
    std::uint32_t rows_ = 0;
    std::uint64_t top_ = 0;           ///< the highest valid word (its slot and those below hold
                                      ///< the last `words_` words)
    std::vector<std::uint64_t> bits_; ///< slot-major: bits_[slot * rows_ + row]
};

} // namespace memsub::memory::detail
