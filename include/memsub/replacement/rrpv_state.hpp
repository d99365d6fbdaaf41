// memsub — shared state of the RRIP family: an M-bit re-reference prediction value (RRPV) per
// entry, the victim search with ageing, hit promotion, and BRRIP's bimodal insertion source.
//
// Citation: Jaleel, Theobald, Steely, Emer, "High Performance Cache Replacement Using
// Re-Reference Interval Prediction (RRIP)", ISCA 2010, §3–§4 (SRRIP, BRRIP) and §4.1 (victim
// search: "find the first 'distant' line from the left, else increment all RRPVs and repeat").
// srrip, brrip, drrip, ship (and ReMAP) all use this one implementation; a policy writer's RRIP
// variant can too (part of the kit, with set_rows.hpp and recency_stack.hpp).
//
// Hot path: one byte per entry, eight entries per 64-bit word, one contiguous 16-byte-padded row
// per set (hosted by the cache engine in its set header when it has room, O5, set_rows.hpp); the
// victim search and the ageing step work on whole rows (see rrpv_kernels).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <memsub/config.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>
#include <memsub/replacement/set_rows.hpp>

namespace memsub::replacement {

/// RRIP hit promotion (RRIP §3.1): HP sets RRPV to 0 on a hit (the paper's default, about twice
/// FP's gain); FP decrements it (unless already 0).
enum class hit_promotion : std::uint8_t { hit_priority, frequency_priority };

/// Names of hit_promotion's values, for params set from text (core/param_text.hpp).
constexpr std::array<std::pair<std::string_view, hit_promotion>, 2>
enum_value_names(hit_promotion) noexcept {
    return {{{"hit_priority", hit_promotion::hit_priority},
             {"frequency_priority", hit_promotion::frequency_priority}}};
}

/// Where BRRIP's infrequent "long" insertions come from (docs/mechanisms/remap.md, 'RRIP family').
enum class bimodal_source : std::uint8_t {
    /// A seeded xoshiro256** owned by the policy: long with probability 1/period.
    prng,
    /// A counter owned by the policy: the n-th bimodal insertion (from 1, all sets together) is
    /// long iff n mod period == 0 (ChampSim's DRRIP; DIP's 5-bit BIP counter).
    counter,
};

/// Names of bimodal_source's values, for params set from text (core/param_text.hpp).
constexpr std::array<std::pair<std::string_view, bimodal_source>, 2>
enum_value_names(bimodal_source) noexcept {
    return {{{"prng", bimodal_source::prng}, {"counter", bimodal_source::counter}}};
}

namespace detail {

/// Whole-row kernels of the RRPV array. A row is `words` 64-bit words, entry e = byte e mod 8 of
/// word e / 8 counted from the least significant byte; RRPVs are ≤ 127.
namespace rrpv_kernels {

inline constexpr std::uint64_t ones = 0x0101010101010101ULL;
inline constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
inline constexpr std::uint64_t high = 0x8080808080808080ULL;

/// High bit of each byte of `w` set where the byte differs from `d` (exact zero-byte test).
[[nodiscard]] constexpr std::uint64_t differs(std::uint64_t w, std::uint8_t d) noexcept {
    const std::uint64_t x = w ^ (ones * d);
    return (((x & low7) + low7) | x) & high;
}

/// SWAR (portable): bit i set iff entry i equals `d`. No byte ever carries into its neighbour.
[[nodiscard]] constexpr entry_mask distant_swar(const aliasing_u64* row, std::uint32_t words,
                                                std::uint8_t d) noexcept {
    entry_mask m = 0;
    for (std::uint32_t k = 0; k < words; ++k) {
        const std::uint64_t eq = ~differs(row[k], d) & high;
        m |= (((eq >> 7) * 0x0102040810204080ULL) >> 56) << (8 * k); // gather the 8 high bits
    }
    return m;
}

/// SWAR: +1 to every entry below `d` (one RRIP ageing step, saturating at `d`).
constexpr void age_once_swar(aliasing_u64* row, std::uint32_t words, std::uint8_t d) noexcept {
    for (std::uint32_t k = 0; k < words; ++k) row[k] += differs(row[k], d) >> 7;
}

#if defined(__SSE2__)
// SSE2 (every x86-64 CPU; x86 is little-endian, so memory byte 8k + j is entry 8k + j): 16
// entries per compare. `words` must be even.
[[nodiscard]] inline entry_mask distant_sse2(const std::uint64_t* row, std::uint32_t words,
                                             std::uint8_t d) noexcept {
    const __m128i dv = _mm_set1_epi8(static_cast<char>(d));
    // words ≥ 2: the first 16 entries need no loop (all of a ≤ 16-entry set).
    entry_mask m = static_cast<std::uint32_t>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row)), dv)));
    for (std::uint32_t k = 2; k < words; k += 2) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k));
        m |= entry_mask{static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, dv)))}
             << (8 * k);
    }
    return m;
}

/// The largest byte of `t` in every byte lane. SSE2 has no byte broadcast, so the maximum is
/// spread by shuffles rather than taken to a general register and broadcast back, a round trip
/// through both register files on every miss into a full set (docs/performance/miss_path.md,
/// "SRRIP's ageing in the vector registers").
MEMSUB_ALWAYS_INLINE __m128i max_epu8_in_every_lane(__m128i t) noexcept {
    t = _mm_max_epu8(t, _mm_shuffle_epi32(t, 0x4e));                              // qwords swapped
    t = _mm_max_epu8(t, _mm_shuffle_epi32(t, 0xb1));                              // dwords swapped
    t = _mm_max_epu8(t, _mm_shufflehi_epi16(_mm_shufflelo_epi16(t, 0xb1), 0xb1)); // words
    return _mm_max_epu8(t, _mm_or_si128(_mm_srli_epi16(t, 8), _mm_slli_epi16(t, 8))); // bytes
}

/// RRIP §4.1 ageing of a whole ≤ 16-entry row in one step, without a loop or a data-dependent
/// branch: repeating "+1 to every RRPV below d" until some entry of the row is distant is the
/// same as adding k = d − max(row) to every entry, saturating at d. Lanes from `entries` on are
/// padding. Returns the distant entries afterwards (never empty). Always inlined: as a call,
/// made on every miss into a full set, it made the access loop save and reload its registers
/// around it (docs/performance/miss_path.md, "SRRIP's replacement in one step").
/// The distant value d is given in every byte lane of `dv`: a policy keeps it so, since
/// broadcasting a run-time byte takes SSE2 four instructions.
MEMSUB_ALWAYS_INLINE entry_mask age_row_to_distant_sse2(std::uint64_t* row, std::uint32_t entries,
                                                        __m128i dv) noexcept {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row));
    const __m128i live =
        _mm_cmplt_epi8(_mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                       _mm_set1_epi8(static_cast<char>(entries)));
    const __m128i top = max_epu8_in_every_lane(_mm_and_si128(x, live)); // padding counts as 0
    // k = d − max ≥ 0 in every lane; padding lanes (holding d) saturate back to d.
    const __m128i y = _mm_min_epu8(_mm_adds_epu8(x, _mm_sub_epi8(dv, top)), dv);
    store_row16(reinterpret_cast<std::uint8_t*>(row), y);
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(y, dv))) &
           low_bits_mask(entries);
}

/// The same with d as a byte.
MEMSUB_ALWAYS_INLINE entry_mask age_row_to_distant_sse2(std::uint64_t* row, std::uint32_t entries,
                                                        std::uint8_t d) noexcept {
    return age_row_to_distant_sse2(row, entries, _mm_set1_epi8(static_cast<char>(d)));
}

inline void age_once_sse2(std::uint64_t* row, std::uint32_t words, std::uint8_t d) noexcept {
    const __m128i dv = _mm_set1_epi8(static_cast<char>(d));
    const __m128i all = _mm_set1_epi8(-1);
    std::uint32_t k = 0;
    do { // words ≥ 2
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k));
        x = _mm_sub_epi8(x, _mm_andnot_si128(_mm_cmpeq_epi8(x, dv), all)); // +1 unless == d
        store_row16(reinterpret_cast<std::uint8_t*>(row + k), x);
        k += 2;
    } while (k < words);
}
#endif

/// The kernels rrpv_state uses (SSE2 when the target has it, SWAR otherwise).
[[nodiscard]] inline entry_mask distant(const std::uint64_t* row, std::uint32_t words,
                                        std::uint8_t d) noexcept {
#if defined(__SSE2__)
    return distant_sse2(row, words, d);
#else
    return distant_swar(row, words, d);
#endif
}
inline void age_once(std::uint64_t* row, std::uint32_t words, std::uint8_t d) noexcept {
#if defined(__SSE2__)
    age_once_sse2(row, words, d);
#else
    age_once_swar(row, words, d);
#endif
}

} // namespace rrpv_kernels

} // namespace detail

/// Per-entry RRPVs of every set: the state of an RRIP-style policy (SRRIP, BRRIP, DRRIP, SHiP)
/// with the RRIP victim search. `bits` (M) must be validated by the owner (1..7,
/// `validate_bits`).
///
/// Guarantees: every RRPV starts distant (2^M − 1); `find_victim` returns the lowest eligible
/// entry that is distant, ageing the whole set first when none is (RRIP §4.1), so it never
/// returns an entry outside `eligible`; nothing allocates after construction; the rows can be
/// hosted by the engine (forward O5 to `row_bytes` / `place_rows`).
///
/// Use (an SRRIP-like policy):
///
///     rrpv_state state_{g, 2};                              // M = 2
///     on_insert: state_.set(s, e, state_.long_interval());  // 2^M − 2
///     on_hit:    state_.promote(s, e, hit_promotion::hit_priority);
///     victim:    return state_.find_victim(s, eligible);
///     replace:   return state_.replace(s, eligible, state_.long_interval());  // O7
///

/// Layout: each set's RRPVs are packed eight per 64-bit word, rows padded to 16 bytes (padding
/// holds distant and is masked off). The victim search and the ageing step work on whole rows
/// (detail::rrpv_kernels): a 16-way set is one 16-byte compare per pass with SSE2, or two words of
/// SWAR arithmetic elsewhere, and at most 2^M − 1 ageing passes, with no per-entry branches.
/// `Entries` ≠ 0 fixes the entries per set at compile time (for a policy's O6 shape); the
/// geometry must then have exactly that many (checked by the owning policy).
template <std::uint32_t Entries = 0>
class basic_rrpv_state {
public:
    basic_rrpv_state(const geometry& g, std::uint32_t bits)
        : entries_(g.entries_per_set())
        , words_(2u * ((g.entries_per_set() + 15u) / 16u))
        , bits_(bits)
        , distant_(static_cast<std::uint8_t>((1u << bits) - 1u))
        , distant_lanes_(filled_lanes(distant_))
        , rows_(g.sets, 8u * words_, distant_) {}

    /// Validates an RRPV width for `component`.
    static void validate_bits(std::uint32_t bits, std::string_view component) {
        memsub::require(bits >= 1 && bits <= 7, component, "rrpv_bits", bits, "must be in 1..7");
    }

    [[nodiscard]] std::uint8_t distant() const noexcept { return distant_; }
    /// "Long" re-reference interval, 2^M − 2 (SRRIP's insertion value; 0 when M = 1: NRU).
    [[nodiscard]] std::uint8_t long_interval() const noexcept {
        return static_cast<std::uint8_t>(distant_ - 1u);
    }
    [[nodiscard]] std::uint32_t bits() const noexcept { return bits_; }
    [[nodiscard]] std::uint32_t entries() const noexcept {
        if constexpr (Entries != 0)
            return Entries;
        else
            return entries_;
    }

    // One entry's RRPV is one byte of its row, read and written as a byte (the kernels read the
    // row as words: byte e of the row is byte e & 7 of word e >> 3 on a little-endian machine,
    // and as a byte of word e >> 3 at the matching shift elsewhere). A byte store is one
    // instruction where a read-modify-write of the word took a shift, a mask and two loads.
    [[nodiscard]] std::uint8_t get(set_index s, entry_index e) const noexcept {
        return *entry_byte(s, e);
    }
    void set(set_index s, entry_index e, std::uint8_t v) noexcept {
        store_row_byte(entry_byte(s, e), v);
    }

    /// RRIP §3.1 hit promotion.
    void promote(set_index s, entry_index e, hit_promotion hp) noexcept {
        promote_in_row(reinterpret_cast<std::byte*>(row(s)), e, hp);
    }

    /// promote() and replace() on a row the caller found (O9: the engine hosting the rows
    /// addresses them itself; `r` is row(s) of the set concerned).
    void promote_in_row(std::byte* r, entry_index e, hit_promotion hp) noexcept {
        std::uint8_t* b = entry_byte(reinterpret_cast<std::uint64_t*>(r), e);
        if (hp == hit_promotion::hit_priority)
            store_row_byte(b, 0);
        else
            store_row_byte(b, static_cast<std::uint8_t>(*b - (*b != 0 ? 1u : 0u)));
    }
    [[nodiscard]] MEMSUB_ALWAYS_INLINE entry_index replace_in_row(std::byte* r, entry_mask eligible,
                                                                  std::uint8_t v) noexcept {
        auto* const words = reinterpret_cast<std::uint64_t*>(r);
        const entry_index e = lowest_entry(age_row(words, eligible));
        store_row_byte(entry_byte(words, e), v);
        return e;
    }

    /// Mask of the entries of set `s` whose RRPV is distant.
    [[nodiscard]] entry_mask distant_entries(set_index s) const noexcept {
        return detail::rrpv_kernels::distant(row(s), words(), distant_) & low_bits_mask(entries());
    }

    /// RRIP §4.1 ageing alone: adds 1 to every RRPV of the set that is not yet distant until an
    /// eligible entry is distant (repeated "+1 to all", saturating). Returns the eligible
    /// distant entries. `eligible` must be non-empty.
    MEMSUB_ALWAYS_INLINE entry_mask age(set_index s, entry_mask eligible) noexcept {
        return age_row(row(s), eligible);
    }

    /// RRIP §4.1 victim: the first (lowest) eligible entry whose RRPV is distant, ageing the
    /// whole set first when no eligible entry is. `eligible` must be non-empty.
    [[nodiscard]] entry_index find_victim(set_index s, entry_mask eligible) noexcept {
        return lowest_entry(age(s, eligible));
    }

    /// find_victim, then set(s, victim, v): one replacement's RRPV work (a policy's O7). The
    /// row's address is read once: after the ageing's vector store, which may alias any member,
    /// set() would have read it again.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE entry_index replace(set_index s, entry_mask eligible,
                                                           std::uint8_t v) noexcept {
        return replace_in_row(reinterpret_cast<std::byte*>(row(s)), eligible, v);
    }

    /// Hardware bits: M per entry.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{bits_} * entries() * rows_.sets();
    }

    /// O5 (for the owning policy to forward): the engine may keep the rows in its set headers.
    [[nodiscard]] std::uint32_t row_bytes() const noexcept { return rows_.row_bytes(); }
    /// row_bytes() of every state of a compile-time shape (a policy's O9).
    [[nodiscard]] static constexpr std::uint32_t row_bytes_for_entries() noexcept
        requires(Entries != 0) {
        return padded_row_bytes(Entries);
    }
    void place_rows(std::byte* first, std::size_t stride) noexcept { rows_.place(first, stride); }

private:
    /// age() on the row at `r`.
    MEMSUB_ALWAYS_INLINE entry_mask age_row(std::uint64_t* r, entry_mask eligible) const noexcept {
        const std::uint8_t d = distant_;
#if defined(__SSE2__)
        // A full conventional set offers every entry: age the row in one step instead of one
        // pass per missing RRPV level, and without testing for a distant entry first (a row
        // that holds one gains 0): whether it does depends on the workload, and the test's
        // mispredictions cost more than the step.
        if (MEMSUB_LIKELY(words() == 2 && eligible == low_bits_mask(entries())))
            return detail::rrpv_kernels::age_row_to_distant_sse2(
                r, entries(),
                _mm_load_si128(reinterpret_cast<const __m128i*>(distant_lanes_.data())));
        return age_row_in_passes_out_of_line(r, eligible, d);
#else
        return age_row_in_passes(r, eligible, d);
#endif
    }
    /// With SSE2 the one-step case above is the common one (every miss into a full set of up
    /// to 16 entries); keeping the passes out of line keeps what is inlined into the access
    /// loop small. Without SSE2 the passes are the only path and stay inline.
    [[gnu::noinline]] entry_mask age_row_in_passes_out_of_line(std::uint64_t* r,
                                                               entry_mask eligible,
                                                               std::uint8_t d) const noexcept {
        return age_row_in_passes(r, eligible, d);
    }
    /// age_row one "+1 to all" pass at a time: sets of more than 16 entries, victims
    /// restricted to some of a set's entries, and every search without SSE2.
    entry_mask age_row_in_passes(std::uint64_t* r, entry_mask eligible,
                                 std::uint8_t d) const noexcept {
        const entry_mask first = detail::rrpv_kernels::distant(r, words(), d) & eligible;
        if (first != 0) return first;
        for (;;) {
            detail::rrpv_kernels::age_once(r, words(), d);
            const entry_mask found = detail::rrpv_kernels::distant(r, words(), d) & eligible;
            if (found != 0) return found;
        }
    }
    /// 64-bit words per row: two per 16 entries.
    [[nodiscard]] std::uint32_t words() const noexcept {
        if constexpr (Entries != 0)
            return 2u * ((Entries + 15u) / 16u);
        else
            return words_;
    }
    /// Where entry `e`'s RRPV byte lies in its row of words.
    [[nodiscard]] static std::uint32_t byte_in_row(entry_index e) noexcept {
        if constexpr (std::endian::native == std::endian::little)
            return e.value;
        else
            return 8u * (e.value >> 3) + (7u - (e.value & 7u));
    }
    [[nodiscard]] static std::array<std::uint8_t, 16> filled_lanes(std::uint8_t d) noexcept {
        std::array<std::uint8_t, 16> lanes;
        lanes.fill(d);
        return lanes;
    }
    [[nodiscard]] static std::uint8_t* entry_byte(std::uint64_t* r, entry_index e) noexcept {
        return reinterpret_cast<std::uint8_t*>(r) + byte_in_row(e);
    }
    [[nodiscard]] std::uint8_t* entry_byte(set_index s, entry_index e) noexcept {
        return entry_byte(row(s), e);
    }
    [[nodiscard]] const std::uint8_t* entry_byte(set_index s, entry_index e) const noexcept {
        return reinterpret_cast<const std::uint8_t*>(row(s)) + byte_in_row(e);
    }
    [[nodiscard]] std::uint64_t* row(set_index s) noexcept {
        return reinterpret_cast<std::uint64_t*>(rows_.row(s));
    }
    [[nodiscard]] const std::uint64_t* row(set_index s) const noexcept {
        return reinterpret_cast<const std::uint64_t*>(rows_.row(s));
    }

    std::uint32_t entries_;
    std::uint32_t words_;
    std::uint32_t bits_;
    std::uint8_t distant_;
    /// distant_ in each of 16 bytes: the one-step ageing's vector operand, loaded in one
    /// instruction where broadcasting the byte would take four.
    alignas(16) std::array<std::uint8_t, 16> distant_lanes_;
    set_rows rows_;
};

/// RRPV rows for any shape (the geometry's entries per set).
using rrpv_state = basic_rrpv_state<>;

/// BRRIP's ε source (RRIP §3.2): answers "is this bimodal insertion long?" with probability
/// 1/period (prng) or on every period-th call (counter). period 0 means "never long" (ε = 0).
/// Deterministic for a given seed; no allocation. Use: `if (throttle_.next_is_long())` insert at
/// `long_interval()`, else at `distant()`.
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

} // namespace memsub::replacement
