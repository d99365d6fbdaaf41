// memsub — a reservation calendar: rows of cycles at which some kind of command may not be
// placed, as bitmaps over a sliding window of cycles.
//
// Each placed command forbids a span of cycles around itself to other commands (for example,
// a write forbids reads of its rank from a few cycles before it until tWTR after its data).
// `forbid` marks such a span in a row. `first_free` finds the least cycle ≥ a start that is
// free in two rows at once (a command kind is usually constrained by a shared row and one of
// its own) with a bit scan. The window is a ring of 64-cycle words, valid up to the highest
// word marked so far: marking a later word first clears the ring slots it moves into (they
// held words that left the window), and a query above it reads an empty word. `set_floor`
// tells the calendar that nothing below a cycle is queried any more, so after an idle stretch
// only the words from there on are cleared, not every word skipped. The caller guarantees
// that it never marks a cycle ≥ (the earliest cycle it will still query) + `window()` − 128.
// A span of up to 64 cycles is or-ed into the two words from its first one without a branch
// (the second with 0 when the span does not reach it). Storage: (rows rounded up to a power
// of two) × window bits, slot-major (the rows of one word are adjacent, so clearing a word is
// one short fill); allocated once.
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
        , shift_(static_cast<std::uint32_t>(std::countr_zero(std::bit_ceil(rows))))
        , rows_(rows)
        , top_(words_ - 1)
        , bits_(static_cast<std::size_t>(words_) << shift_, 0) {}

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

    /// No cycle below `cycle` is queried from now on (marks may reach 64 cycles below it, and
    /// are never read); the floor never drops.
    MEMSUB_ALWAYS_INLINE void set_floor(std::uint64_t cycle) noexcept {
        floor_word_ = std::max(floor_word_, cycle >> 6);
    }

    /// Readies the words of a batch of `forbid_short` calls whose spans end by cycle `end`.
    MEMSUB_ALWAYS_INLINE void prepare(std::uint64_t end) noexcept {
        MEMSUB_ASSERT(end > 0);
        reach((end - 1) >> 6);
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
        spill(row, first + 1, (bits >> 1) >> (63 - o));
    }

    /// Forbids the cycles base + i for the bits i of `pattern` in `row`, where base + 64 ≤ the
    /// `end` of the last `prepare` (no check of the window: the words are ready).
    MEMSUB_ALWAYS_INLINE void forbid_pattern(std::uint32_t row, std::uint64_t base,
                                             std::uint64_t pattern) noexcept {
        MEMSUB_ASSERT(row < rows_ && base + 64 <= prepared_);
        const std::uint64_t first = base >> 6;
        const auto o = static_cast<unsigned>(base & 63);
        word(row, first) |= pattern << o;
        spill(row, first + 1, (pattern >> 1) >> (63 - o));
    }

    /// The least cycle ≥ `c` that is free in both `row_a` and `row_b`.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t
    first_free(std::uint32_t row_a, std::uint32_t row_b, std::uint64_t c) const noexcept {
        MEMSUB_ASSERT(row_a < rows_ && row_b < rows_);
        std::uint64_t w = c >> 6;
        // Bits below c in its word count as taken.
        const std::uint64_t free0 =
            ~(taken_in(row_a, row_b, w) | ((std::uint64_t{1} << (c & 63)) - 1));
        if (MEMSUB_LIKELY(free0 != 0))
            return (w << 6) + static_cast<std::uint64_t>(std::countr_zero(free0));
        const std::uint64_t free1 = ~taken_in(row_a, row_b, w + 1);
        if (free1 != 0) return ((w + 1) << 6) + static_cast<std::uint64_t>(std::countr_zero(free1));
        w += 2;
        std::uint64_t taken = taken_in(row_a, row_b, w);
        while (taken == ~std::uint64_t{0}) taken = taken_in(row_a, row_b, ++w);
        return (w << 6) + static_cast<std::uint64_t>(std::countr_one(taken));
    }

private:
    /// The taken bits of absolute word `w` in rows a and b (none above the highest word).
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t taken_in(std::uint32_t a, std::uint32_t b,
                                                              std::uint64_t w) const noexcept {
        const std::size_t i = (static_cast<std::size_t>(w) & mask_) << shift_;
        const std::uint64_t t = bits_[i | a] | bits_[i | b];
        return w <= top_ ? t : 0;
    }
    /// Makes the words up to `w` valid: the ring slots of the words above the highest one so
    /// far are cleared (the words they held have left the window).
    MEMSUB_ALWAYS_INLINE void reach(std::uint64_t w) noexcept {
        if (MEMSUB_UNLIKELY(w > top_)) extend(w);
    }
    void extend(std::uint64_t w) noexcept {
        // Words below the floor's word are never queried again: they may keep stale bits (a
        // mark just below the floor may land there; nothing reads it).
        const std::uint64_t from =
            std::max({top_ + 1, w + 1 - std::min(w + 1, words_), floor_word_});
        if (from <= w) {
            // The slots of words from..w: one run of the ring, or two when it wraps.
            const std::size_t first = static_cast<std::size_t>(from) & mask_;
            const std::size_t last = static_cast<std::size_t>(w) & mask_;
            std::uint64_t* const base = bits_.data();
            if (first <= last) {
                std::fill(base + (first << shift_), base + ((last + 1) << shift_), 0);
            } else {
                std::fill(base + (first << shift_), base + bits_.size(), 0);
                std::fill(base, base + ((last + 1) << shift_), 0);
            }
        }
        top_ = w;
    }
    /// Ors `bits` into word `w` of `row`: the word after a span's first, written without a
    /// branch. When it is above the highest valid word `bits` is 0 (the span ends in the first
    /// word), and or-ing 0 into the slot changes nothing.
    MEMSUB_ALWAYS_INLINE void spill(std::uint32_t row, std::uint64_t w,
                                    std::uint64_t bits) noexcept {
        MEMSUB_ASSERT(bits == 0 || (w <= top_ && w + words_ > top_));
        bits_[((static_cast<std::size_t>(w) & mask_) << shift_) | row] |= bits;
    }
    /// Absolute word `w` of `row` (valid: w ≤ the highest word).
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t& word(std::uint32_t row,
                                                           std::uint64_t w) noexcept {
        MEMSUB_ASSERT(w <= top_ && w + words_ > top_);
        return bits_[((static_cast<std::size_t>(w) & mask_) << shift_) | row];
    }

    std::uint64_t words_ = 0;
    std::uint32_t mask_ = 0;  ///< words − 1 (32-bit: stores to the bitmaps cannot alias it)
    std::uint32_t shift_ = 0; ///< log2 of the rows rounded up to a power of two
    std::uint32_t rows_ = 0;
    std::uint64_t prepared_ = 0;      ///< end of the last `prepare` (checked in Debug)
    std::uint64_t floor_word_ = 0;    ///< words below it are never queried again
    std::uint64_t top_ = 0;           ///< the highest valid word (its slot and those below hold
                                      ///< the last `words_` words)
    std::vector<std::uint64_t> bits_; ///< slot-major: bits_[slot << shift_ | row]
};

} // namespace memsub::memory::detail
