// memsub — shared state of the RRIP family: an M-bit re-reference prediction value (RRPV) per
// entry, the victim search with ageing, hit promotion, and BRRIP's bimodal insertion source.
//
// Citation: Jaleel, Theobald, Steely, Emer, "High Performance Cache Replacement Using
// Re-Reference Interval Prediction (RRIP)", ISCA 2010, §3–§4 (SRRIP, BRRIP) and §4.1 (victim
// search: "find the first 'distant' line from the left, else increment all RRPVs and repeat").
// srrip, brrip, drrip, ship (and ReMAP) all use this one implementation.
//
// Hot path: one byte per entry, eight entries per 64-bit word, one contiguous row per set; the
// victim search and the ageing step work on whole words (see rrpv_state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>

namespace memsub::replacement {

/// RRIP hit promotion (RRIP §3.1): HP sets RRPV to 0 on a hit (the paper's default, about twice
/// FP's gain); FP decrements it (unless already 0).
enum class hit_promotion : std::uint8_t { hit_priority, frequency_priority };

/// Where BRRIP's infrequent "long" insertions come from (spec, RRIP family).
enum class bimodal_source : std::uint8_t {
    /// A seeded xoshiro256** owned by the policy: long with probability 1/period.
    prng,
    /// A counter owned by the policy: the n-th bimodal insertion (from 1, all sets together) is
    /// long iff n mod period == 0 (ChampSim's DRRIP; DIP's 5-bit BIP counter).
    counter,
};

namespace detail {

/// Per-entry RRPVs of every set. `bits` must be validated by the owner (1..7).
///
/// Layout: each set's RRPVs are packed eight per 64-bit word (entry e = byte e mod 8 of word
/// e / 8, counted from the least significant byte, so the layout is endian-independent). The
/// victim search works on whole words (SWAR): one XOR + zero-byte test finds the distant entries
/// of eight ways at once, one add ages eight ways at once. RRPVs ≤ 127, so no byte ever carries
/// into its neighbour. A 16-way set is two words: the search is a handful of ALU operations
/// per pass and at most 2^M − 1 ageing passes, with no per-entry branches.
class rrpv_state {
public:
    rrpv_state(const geometry& g, std::uint32_t bits)
        : entries_(g.entries_per_set())
        , words_((g.entries_per_set() + 7u) / 8u)
        , bits_(bits)
        , distant_(static_cast<std::uint8_t>((1u << bits) - 1u))
        , distant_bytes_(ones * distant_)
        , rrpv_(std::size_t{g.sets} * words_, ones * distant_) {}

    /// Validates an RRPV width for `component`.
    static void validate_bits(std::uint32_t bits, std::string_view component) {
        memsub::detail::require(bits >= 1 && bits <= 7, component, "rrpv_bits", bits,
                                "must be in 1..7");
    }

    [[nodiscard]] std::uint8_t distant() const noexcept { return distant_; }
    /// "Long" re-reference interval, 2^M − 2 (SRRIP's insertion value; 0 when M = 1: NRU).
    [[nodiscard]] std::uint8_t long_interval() const noexcept {
        return static_cast<std::uint8_t>(distant_ - 1u);
    }
    [[nodiscard]] std::uint32_t bits() const noexcept { return bits_; }
    [[nodiscard]] std::uint32_t entries() const noexcept { return entries_; }

    [[nodiscard]] std::uint8_t get(set_index s, entry_index e) const noexcept {
        return static_cast<std::uint8_t>(word(s, e) >> shift(e));
    }
    void set(set_index s, entry_index e, std::uint8_t v) noexcept {
        std::uint64_t& w = word(s, e);
        w = (w & ~(std::uint64_t{0xff} << shift(e))) | (std::uint64_t{v} << shift(e));
    }

    /// RRIP §3.1 hit promotion.
    void promote(set_index s, entry_index e, hit_promotion hp) noexcept {
        std::uint64_t& w = word(s, e);
        if (hp == hit_promotion::hit_priority) {
            w &= ~(std::uint64_t{0xff} << shift(e));
        } else {
            const std::uint64_t nonzero = (w >> shift(e)) & 0xff ? 1u : 0u;
            w -= nonzero << shift(e);
        }
    }

    /// Mask of the entries of set `s` whose RRPV is distant.
    [[nodiscard]] entry_mask distant_entries(set_index s) const noexcept {
        const std::uint64_t* r = row(s);
        entry_mask m = 0;
        for (std::uint32_t k = 0; k < words_; ++k) m |= gather(~differs(r[k]) & high) << (8 * k);
        return m & low_bits_mask(entries_);
    }

    /// RRIP §4.1 ageing alone: adds 1 to every RRPV of the set that is not yet distant until an
    /// eligible entry is distant (repeated "+1 to all", saturating). Returns the eligible
    /// distant entries. `eligible` must be non-empty.
    entry_mask age(set_index s, entry_mask eligible) noexcept {
        std::uint64_t* r = row(s);
        for (;;) {
            const entry_mask d = distant_entries(s) & eligible;
            if (d != 0) return d;
            for (std::uint32_t k = 0; k < words_; ++k) r[k] += (differs(r[k]) >> 7);
        }
    }

    /// RRIP §4.1 victim: the first (lowest) eligible entry whose RRPV is distant, ageing the
    /// whole set first when no eligible entry is. `eligible` must be non-empty.
    [[nodiscard]] entry_index find_victim(set_index s, entry_mask eligible) noexcept {
        return lowest_entry(age(s, eligible));
    }

    /// Hardware bits: M per entry.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{bits_} * entries_ * (rrpv_.size() / words_);
    }

private:
    static constexpr std::uint64_t ones = 0x0101010101010101ULL;
    static constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
    static constexpr std::uint64_t high = 0x8080808080808080ULL;

    /// High bit of each byte set where the byte differs from distant (exact zero-byte test).
    [[nodiscard]] std::uint64_t differs(std::uint64_t w) const noexcept {
        const std::uint64_t x = w ^ distant_bytes_;
        return (((x & low7) + low7) | x) & high;
    }
    /// Packs the high bits of the eight bytes into bits 0..7.
    [[nodiscard]] static std::uint64_t gather(std::uint64_t high_bits) noexcept {
        return ((high_bits >> 7) * 0x0102040810204080ULL) >> 56;
    }
    [[nodiscard]] static std::uint32_t shift(entry_index e) noexcept { return 8u * (e.value & 7u); }
    [[nodiscard]] std::uint64_t& word(set_index s, entry_index e) noexcept {
        return rrpv_[std::size_t{s.value} * words_ + (e.value >> 3)];
    }
    [[nodiscard]] const std::uint64_t& word(set_index s, entry_index e) const noexcept {
        return rrpv_[std::size_t{s.value} * words_ + (e.value >> 3)];
    }
    [[nodiscard]] std::uint64_t* row(set_index s) noexcept {
        return &rrpv_[std::size_t{s.value} * words_];
    }
    [[nodiscard]] const std::uint64_t* row(set_index s) const noexcept {
        return &rrpv_[std::size_t{s.value} * words_];
    }

    std::uint32_t entries_;
    std::uint32_t words_;
    std::uint32_t bits_;
    std::uint8_t distant_;
    std::uint64_t distant_bytes_;
    std::vector<std::uint64_t> rrpv_;
};

/// BRRIP's ε source (RRIP §3.2): answers "is this bimodal insertion long?" with probability
/// 1/period (prng) or on every period-th call (counter). period 0 means "never long" (ε = 0).
class bimodal_throttle {
public:
    bimodal_throttle(std::uint32_t period, bimodal_source source, std::uint64_t seed) noexcept
        : rng_(seed)
        , period_(period)
        , countdown_(period)
        , source_(source) {}

    [[nodiscard]] bool next_is_long() noexcept {
        if (period_ == 0) return false;
        if (source_ == bimodal_source::prng) return rng_.below(period_) == 0;
        // Counter: the n-th call is long iff n mod period == 0, kept as a countdown (no division).
        if (--countdown_ != 0) return false;
        countdown_ = period_;
        return true;
    }

    /// Bits of the hardware source: a ⌈log2 period⌉-bit counter; the PRNG is modelled by its
    /// 256-bit state.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        if (period_ == 0) return 0;
        if (source_ == bimodal_source::prng) return 256;
        std::uint64_t b = 0;
        while ((std::uint64_t{1} << b) < period_) ++b;
        return b;
    }

private:
    xoshiro256ss rng_;
    std::uint32_t period_;
    std::uint32_t countdown_;
    bimodal_source source_;
};

} // namespace detail
} // namespace memsub::replacement
