// memsub — shared state of the RRIP family: an M-bit re-reference prediction value (RRPV) per
// entry, the victim search with ageing, hit promotion, and BRRIP's bimodal insertion source.
//
// Citation: Jaleel, Theobald, Steely, Emer, "High Performance Cache Replacement Using
// Re-Reference Interval Prediction (RRIP)", ISCA 2010, §3–§4 (SRRIP, BRRIP) and §4.1 (victim
// search: "find the first 'distant' line from the left, else increment all RRPVs and repeat").
// srrip, brrip, drrip, ship (and ReMAP) all use this one implementation.
//
// Hot path: one byte per entry, one contiguous row per set. The victim search is two passes over
// the row (max among eligible, then first eligible equal to it); the repeated "+1 until one is
// distant" ageing is applied in one step as a saturating add of (distant − max). Both forms give
// the same RRPVs: entries outside `eligible` saturate at distant exactly as repeated +1 would.
#pragma once

#include <algorithm>
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
class rrpv_state {
public:
    rrpv_state(const geometry& g, std::uint32_t bits)
        : entries_(g.entries_per_set())
        , bits_(bits)
        , distant_(static_cast<std::uint8_t>((1u << bits) - 1u))
        , rrpv_(g.total_entries(), static_cast<std::uint8_t>((1u << bits) - 1u)) {}

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
        return rrpv_[index(s, e)];
    }
    void set(set_index s, entry_index e, std::uint8_t v) noexcept { rrpv_[index(s, e)] = v; }

    /// RRIP §3.1 hit promotion.
    void promote(set_index s, entry_index e, hit_promotion hp) noexcept {
        std::uint8_t& v = rrpv_[index(s, e)];
        if (hp == hit_promotion::hit_priority)
            v = 0;
        else
            v = static_cast<std::uint8_t>(v - (v != 0));
    }

    /// Ageing step alone: adds 1 to every RRPV of the set (saturating at distant) until an
    /// eligible entry is distant. Returns that (unchanged) maximum before ageing.
    std::uint8_t age(set_index s, entry_mask eligible) noexcept {
        std::uint8_t* r = row(s);
        const std::uint32_t n = entries_;
        std::uint8_t top = 0;
        for (std::uint32_t e = 0; e < n; ++e) {
            const std::uint8_t v = ((eligible >> e) & 1u) ? r[e] : std::uint8_t{0};
            top = v > top ? v : top;
        }
        const std::uint8_t delta = static_cast<std::uint8_t>(distant_ - top);
        if (delta != 0) {
            for (std::uint32_t e = 0; e < n; ++e) {
                const unsigned v = r[e] + delta;
                r[e] = static_cast<std::uint8_t>(v < distant_ ? v : distant_);
            }
        }
        return top;
    }

    /// RRIP §4.1 victim: the first (lowest) eligible entry whose RRPV is distant, ageing the
    /// whole set first when no eligible entry is. `eligible` must be non-empty.
    [[nodiscard]] entry_index find_victim(set_index s, entry_mask eligible) noexcept {
        age(s, eligible);
        const std::uint8_t* r = row(s);
        const std::uint32_t n = entries_;
        entry_mask distant = 0;
        for (std::uint32_t e = 0; e < n; ++e) distant |= entry_mask{r[e] == distant_} << e;
        return lowest_entry(distant & eligible);
    }

    /// Hardware bits: M per entry.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{bits_} * rrpv_.size();
    }

private:
    [[nodiscard]] std::size_t index(set_index s, entry_index e) const noexcept {
        return std::size_t{s.value} * entries_ + e.value;
    }
    [[nodiscard]] std::uint8_t* row(set_index s) noexcept {
        return &rrpv_[std::size_t{s.value} * entries_];
    }

    std::uint32_t entries_;
    std::uint32_t bits_;
    std::uint8_t distant_;
    std::vector<std::uint8_t> rrpv_;
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
