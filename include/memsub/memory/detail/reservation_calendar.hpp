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
// no data-dependent branch. Storage: rows × window bits, row-major (a row's words are
// adjacent: the two words of a span or a search are neighbours); allocated once.
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
        , mask_(static_cast<std::uint32_t>(words_ - 1))
        , shift_(static_cast<std::uint32_t>(std::countr_zero(words_)))
        , rows_(rows)
        , top_(words_ - 1)
        , bits_(static_cast<std::size_t>(words_) * rows, 0) {}

    /// Cycles the window spans.
    [[nodiscard]] std::uint64_t window() const noexcept { return words_ * 64; }

    /// Forbids cycles [lo, hi) in `row`. A span of up to 64 cycles, 1..64 bits from bit o of
    /// its first word, spills into the next word when o + length > 64 (that word is or-ed
    /// with 0 otherwise).
    MEMSUB_ALWAYS_INLINE void forbid(std::uint32_t row, std::uint64_t lo,
                                     std::uint64_t hi) noexcept {
        MEMSUB_ASSERT(row < rows_);
        if (lo >= hi) return;
        const std::uint64_t first = lo >> 6;
        if (MEMSUB_LIKELY(hi - lo <= 64)) {
            prepare(hi);
            forbid_short(row, lo, hi);
            return;
        }
        const std::uint64_t last = (hi - 1) >> 6;
        reach(last);
        word(row, first) |= ~std::uint64_t{0} << (lo & 63);
        for (std::uint64_t w = first + 1; w < last; ++w) word(row, w) = ~std::uint64_t{0};
        word(row, last) |= ~std::uint64_t{0} >> (63 - ((hi - 1) & 63));
    }

    /// Readies the words of a batch of `forbid_short` calls whose spans end by cycle `end`.
    MEMSUB_ALWAYS_INLINE void prepare(std::uint64_t end) noexcept {
        MEMSUB_ASSERT(end > 0);
        reach(((end - 1) >> 6) + 1);
        prepared_ = end;
    }
    /// Forbids cycles [lo, hi) in `row`, where 1 ≤ hi − lo ≤ 64 and hi ≤ the `end` of the
    /// last `prepare` (no check of the window: the words are ready).
    MEMSUB_ALWAYS_INLINE void forbid_short(std::uint32_t row, std::uint64_t lo,
                                           std::uint64_t hi) noexcept {
        MEMSUB_ASSERT(row < rows_ && lo < hi && hi - lo <= 64 && hi <= prepared_);
        const std::uint64_t first = lo >> 6;
        const auto o = static_cast<unsigned>(lo & 63);
        const std::uint64_t bits = ~std::uint64_t{0} >> (64 - (hi - lo));
        word(row, first) |= bits << o;
        word(row, first + 1) |= (bits >> 1) >> (63 - o);
    }

    /// Forbids the cycles base + i for the bits i of `pattern` in `row`, where base + 64 ≤ the
    /// `end` of the last `prepare` (no check of the window: the words are ready).
    MEMSUB_ALWAYS_INLINE void forbid_pattern(std::uint32_t row, std::uint64_t base,
                                             std::uint64_t pattern) noexcept {
        MEMSUB_ASSERT(row < rows_ && base + 64 <= prepared_);
        const std::uint64_t first = base >> 6;
        const auto o = static_cast<unsigned>(base & 63);
        word(row, first) |= pattern << o;
        word(row, first + 1) |= (pattern >> 1) >> (63 - o);
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
            const std::uint64_t in1 = free0 == 0 ? ~std::uint64_t{0} : 0; // all ones or none
            const std::uint64_t x = (free0 & ~in1) | (free1 & in1) | (std::uint64_t{1} << 63);
            return (w << 6) + (in1 & 64) + static_cast<std::uint64_t>(std::countr_zero(x));
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
        const std::size_t i = static_cast<std::size_t>(w) & mask_;
        const std::uint64_t t =
            bits_[(std::size_t{a} << shift_) | i] | bits_[(std::size_t{b} << shift_) | i];
        return w <= top_ ? t : 0;
    }
    /// Makes the words up to `w` valid: the ring slots of the words above the highest one so
    /// far are cleared (the words they held have left the window).
    MEMSUB_ALWAYS_INLINE void reach(std::uint64_t w) noexcept {
        if (MEMSUB_UNLIKELY(w > top_)) extend(w);
    }
    void extend(std::uint64_t w) noexcept {
        const std::uint64_t from = std::max(top_ + 1, w + 1 - std::min(w + 1, words_));
        for (std::uint64_t x = from; x <= w; ++x)
            for (std::uint32_t r = 0; r < rows_; ++r)
                bits_[(std::size_t{r} << shift_) | (static_cast<std::size_t>(x) & mask_)] = 0;
        top_ = w;
    }
    /// Absolute word `w` of `row` (valid: w ≤ the highest word).
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t& word(std::uint32_t row,
                                                           std::uint64_t w) noexcept {
        MEMSUB_ASSERT(w <= top_ && w + words_ > top_);
        return bits_[(std::size_t{row} << shift_) | (static_cast<std::size_t>(w) & mask_)];
    }

    std::uint64_t words_ = 0;
    std::uint32_t mask_ = 0;  ///< words − 1 (32-bit: stores to the bitmaps cannot alias it)
    std::uint32_t shift_ = 0; ///< log2 words
    std::uint32_t rows_ = 0;
    std::uint64_t prepared_ = 0;      ///< end of the last `prepare` (checked in Debug)
    std::uint64_t top_ = 0;           ///< the highest valid word (its slot and those below hold
                                      ///< the last `words_` words)
    std::vector<std::uint64_t> bits_; ///< row-major: bits_[row << shift_ | slot]
};

} // namespace memsub::memory::detail
