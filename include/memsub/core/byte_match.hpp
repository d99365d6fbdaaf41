// memsub — byte-lane match masks for the per-set hot loops (tag fingerprints, LRU positions,
// RRPVs).
//
// Per-set metadata that fits a byte is kept in rows padded to a multiple of 16 bytes
// (`padded_row_bytes`), so one 16-byte compare covers 16 entries. xsimd 8.1 (Debian's) has no
// batch_bool → bit-mask conversion, so this kernel uses the SSE2 compare + movemask that every
// x86-64 CPU has (and AVX2 when the build targets it); other targets use the scalar loop, which
// is also the reference the tests compare against.
#pragma once

#include <cstdint>

#include <memsub/config.hpp>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace memsub {

/// A one-byte fingerprint of a key for byte_equal_mask lookups (Swiss-table style): the top
/// byte of key × 2^64/φ, so keys that differ only in high or only in low bits still differ.
[[nodiscard]] constexpr std::uint8_t byte_fingerprint(std::uint64_t key) noexcept {
    return static_cast<std::uint8_t>((key * 0x9e3779b97f4a7c15ULL) >> 56);
}

/// Bytes per set row for `entries` one-byte fields: rounded up to a multiple of 16.
[[nodiscard]] constexpr std::uint32_t padded_row_bytes(std::uint32_t entries) noexcept {
    return (entries + 15u) & ~15u;
}

/// Decision: the stores of the access path into byte rows (a fill's fingerprint, a policy's
/// row on a hit or a replacement) go through `row_byte`, a type of their own, not through
/// unsigned char, std::byte or a vector intrinsic. Those may modify any object, so after each
/// one the compiler loads again from the cache object what the host's loop needs for the next
/// access (the bases of the tag and header arrays, the policy's parameters): a load or more
/// on every access. A `row_byte` store may modify only row bytes, so the bases stay in
/// registers across the host's loop (docs/performance/miss_path.md, "Row stores of their own
/// type"). It stays correct because row memory is read only as bytes (unsigned char), through
/// the vector intrinsics or as `aliasing_u64` words, all of which may read any store, and is
/// written only as `row_byte` (with GCC, vectors of it) or as bytes.
enum class row_byte : std::uint8_t {};

/// A 64-bit word that may alias any object: row memory read or written as words.
#if defined(__GNUC__)
typedef std::uint64_t __attribute__((__may_alias__)) aliasing_u64;
#else
using aliasing_u64 = std::uint64_t;
#endif

/// `*p = v` as a row store (see row_byte).
MEMSUB_ALWAYS_INLINE void store_row_byte(std::uint8_t* p, std::uint8_t v) noexcept {
    *reinterpret_cast<row_byte*>(p) = row_byte{v};
}

#if defined(__SSE2__)
/// The 16 bytes of `x` stored at `p` as a row store (see row_byte). GCC takes a vector of
/// row_byte; Clang accepts no vector of an enum, so there it is the intrinsic store.
MEMSUB_ALWAYS_INLINE void store_row16(std::uint8_t* p, __m128i x) noexcept {
#if defined(__GNUC__) && !defined(__clang__)
    typedef row_byte row16 __attribute__((vector_size(16), aligned(1)));
    *reinterpret_cast<row16*>(p) = (row16)x;
#else
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x);
#endif
}
#endif

#if defined(__SSE2__)
namespace detail {
/// Every byte = `v` in three instructions (SSE2's `_mm_set1_epi8` takes four).
[[nodiscard]] inline __m128i broadcast_byte(std::uint8_t v) noexcept {
    return _mm_set1_epi32(static_cast<int>(std::uint32_t{v} * 0x01010101u));
}
/// Bit i set iff byte i of `row` equals byte i of `value` (16 bits): the kernel of
/// byte_equal_mask, also for rows a caller keeps in a register.
[[nodiscard]] inline std::uint32_t byte_equal_bits(__m128i row, __m128i value) noexcept {
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(row, value)));
}
} // namespace detail
#endif

/// Reference: bit i set iff row[i] == value, for i < padded (≤ 64).
[[nodiscard]] inline std::uint64_t
byte_equal_mask_scalar(const std::uint8_t* row, std::uint32_t padded, std::uint8_t value) noexcept {
    std::uint64_t m = 0;
    for (std::uint32_t i = 0; i < padded; ++i) m |= std::uint64_t{row[i] == value} << i;
    return m;
}

/// Bit i set iff row[i] == value, for i < padded; `padded` is a multiple of 16, at most 64,
/// and `row` must have that many readable bytes. Always inlined: with AVX2 GCC otherwise calls it
/// out of line on every miss of a full set (docs/performance/figures_behind_choices.md).
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t
byte_equal_mask(const std::uint8_t* row, std::uint32_t padded, std::uint8_t value) noexcept {
#if defined(__SSE2__)
    const __m128i v = detail::broadcast_byte(value);
    // Rows of ≤ 16 entries (the common case) take one compare and one well-predicted branch,
    // with or without AVX2 (a 32-byte loop first would cost them a loop set-up and two exits).
    std::uint64_t m =
        detail::byte_equal_bits(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row)), v);
    if (MEMSUB_LIKELY(padded == 16)) return m;
#if defined(__AVX2__)
    const __m256i v32 = _mm256_broadcastb_epi8(v);
    std::uint32_t i = 16;
    for (; i + 32 <= padded; i += 32) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + i));
        m |= std::uint64_t{static_cast<std::uint32_t>(
                 _mm256_movemask_epi8(_mm256_cmpeq_epi8(x, v32)))}
             << i;
    }
    if (i < padded) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i));
        m |= std::uint64_t{detail::byte_equal_bits(x, v)} << i;
    }
#else
    for (std::uint32_t i = 16; i < padded; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i));
        m |= std::uint64_t{detail::byte_equal_bits(x, v)} << i;
    }
#endif
    return m;
#else
    return byte_equal_mask_scalar(row, padded, value);
#endif
}

/// The largest row[i] over the bits i set in `lanes` (0 when none), i < padded: the
/// reference for byte_max_lanes.
[[nodiscard]] inline std::uint8_t byte_max_masked_scalar(const std::uint8_t* row,
                                                         std::uint32_t padded,
                                                         std::uint64_t lanes) noexcept {
    std::uint8_t best = 0;
    for (std::uint32_t i = 0; i < padded; ++i)
        if (((lanes >> i) & 1u) != 0 && row[i] > best) best = row[i];
    return best;
}

#if defined(__SSE2__)
namespace detail {
/// The bytes of `row` whose bit in `lanes` (16 bits) is set, the others 0.
[[nodiscard]] inline __m128i bytes_selected(__m128i row, std::uint32_t lanes) noexcept {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    return _mm_maskz_mov_epi8(static_cast<__mmask16>(lanes), row);
#else
    // Bit i of `lanes` tested in byte i: the low mask byte fills lanes 0-7, the high one 8-15.
    const __m128i bit = _mm_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    __m128i m = _mm_cvtsi32_si128(static_cast<int>(lanes));
    m = _mm_unpacklo_epi8(m, m);
    m = _mm_shuffle_epi32(_mm_unpacklo_epi16(m, m), 0x50);
    return _mm_and_si128(row, _mm_cmpeq_epi8(_mm_and_si128(m, bit), bit));
#endif
}
} // namespace detail
#endif

/// The lanes of `lanes` (non-empty, bits below padded) whose byte is the largest among theirs;
/// same row rules as byte_equal_mask. Branch-free for 16-byte rows: an LRU's victim among the
/// eligible entries (one lane: positions are distinct) when the bottom of the stack is not
/// eligible (basic_lru::victim).
[[nodiscard]] inline std::uint64_t byte_max_lanes(const std::uint8_t* row, std::uint32_t padded,
                                                  std::uint64_t lanes) noexcept {
#if defined(__SSE2__)
    if (MEMSUB_LIKELY(padded == 16)) {
        const __m128i x =
            detail::bytes_selected(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row)),
                                   static_cast<std::uint32_t>(lanes));
        // Every lane ends up holding the maximum: no round trip through a general register.
        __m128i m = _mm_max_epu8(x, _mm_shuffle_epi32(x, 0x4e));
        m = _mm_max_epu8(m, _mm_shuffle_epi32(m, 0xb1));
        m = _mm_max_epu8(m, _mm_shufflehi_epi16(_mm_shufflelo_epi16(m, 0xb1), 0xb1));
        m = _mm_max_epu8(m, _mm_or_si128(_mm_slli_epi16(m, 8), _mm_srli_epi16(m, 8)));
        // Unselected lanes hold 0, as a selected lane at position 0 may: `lanes` tells them apart.
        return detail::byte_equal_bits(x, m) & lanes;
    }
    __m128i x = _mm_setzero_si128();
    for (std::uint32_t i = 0; i < padded; i += 16)
        x = _mm_max_epu8(
            x, detail::bytes_selected(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i)),
                                      static_cast<std::uint32_t>((lanes >> i) & 0xffffu)));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 8));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 4));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 2));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 1));
    return byte_equal_mask(row, padded, static_cast<std::uint8_t>(_mm_cvtsi128_si32(x))) & lanes;
#else
    return byte_equal_mask_scalar(row, padded, byte_max_masked_scalar(row, padded, lanes)) & lanes;
#endif
}

/// Recency-stack update "move `lane` to the top": every byte of `row[0..padded)` below
/// row[lane] gains 1 and row[lane] becomes 0. `padded` is a multiple of 16; the row's entries
/// are distinct (a recency stack is a permutation) and padding bytes are 0xff (never below a
/// position, never equal to one), so the lane is the one byte equal to row[lane] and needs no
/// lane-mask table (and no registers for one). Done with whole-vector stores only, so a
/// following vector load of the row is forwarded from the store buffer instead of stalling on
/// a byte store.
MEMSUB_ALWAYS_INLINE void recency_promote_position(std::uint8_t* row, std::uint32_t padded,
                                                   std::uint8_t old) noexcept;

#if defined(__SSSE3__)
namespace detail {
/// recency_promote of a 16-byte row with SSSE3: the lane's position is broadcast by a byte
/// shuffle of the row itself, not by a scalar load of row[lane] and a broadcast from a general
/// register, which sit on the promotion's critical path of a runtime-shaped LRU
/// (docs/performance/figures_behind_choices.md). Only a build
/// for SSSE3 or later defines it (tests/replacement/recency_ssse3_test.cpp checks it).
inline void recency_promote_row16_ssse3(std::uint8_t* row, std::uint32_t lane) noexcept {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row));
    const __m128i bound = _mm_shuffle_epi8(x, _mm_set1_epi8(static_cast<char>(lane)));
    const __m128i is_lane = _mm_cmpeq_epi8(x, bound);
    x = _mm_add_epi8(x, _mm_min_epu8(_mm_subs_epu8(bound, x), _mm_set1_epi8(1)));
    store_row16(row, _mm_andnot_si128(is_lane, x));
}
} // namespace detail
#endif

#if defined(__SSSE3__)
inline void recency_promote(std::uint8_t* row, std::uint32_t padded, std::uint32_t lane) noexcept {
    if (padded == 16) return detail::recency_promote_row16_ssse3(row, lane);
    recency_promote_position(row, padded, row[lane]);
}
#else
#if defined(__SSE2__)
namespace detail {
/// recency_promote of a 16-byte row with SSE2 only (the portable build).
MEMSUB_ALWAYS_INLINE void recency_promote_row16_sse2(std::uint8_t* row,
                                                     std::uint32_t lane) noexcept {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row));
    const __m128i bound = broadcast_byte(row[lane]);
    const __m128i is_lane = _mm_cmpeq_epi8(x, bound);
    x = _mm_add_epi8(x, _mm_min_epu8(_mm_subs_epu8(bound, x), _mm_set1_epi8(1)));
    store_row16(row, _mm_andnot_si128(is_lane, x));
}
} // namespace detail
#endif
/// Always inlined, with the 16-byte row inline, in the portable build: GCC kept
/// recency_promote_position (with its loop for longer rows) out of line, a call on every hit
/// and fill of an LRU (the ID-Cache's basic_lru<16> included). Not in an SSSE3 build: there
/// forcing it inline made a runtime-shaped LRU loop slower
/// (docs/performance/figures_behind_choices.md).
MEMSUB_ALWAYS_INLINE void recency_promote(std::uint8_t* row, std::uint32_t padded,
                                          std::uint32_t lane) noexcept {
#if defined(__SSE2__)
    if (MEMSUB_LIKELY(padded == 16)) return detail::recency_promote_row16_sse2(row, lane);
#endif
    recency_promote_position(row, padded, row[lane]);
}
#endif

/// recency_promote of the lane holding position `old` (exactly one lane does): every byte below
/// `old` gains 1 and that lane becomes 0. With `old` a constant (the bottom of a fixed-shape
/// stack) no broadcast of a loaded byte is needed.
///
/// Decision: always inlined, in every build. Left to GCC, one `-O3 -march=native` build
/// inlined it into one host loop and called it out of line from another loop of the same shape,
/// and on 32-way caches the two ran up to a third apart: the speed a host saw depended on its own
/// code around the call. Inlined everywhere, the native build's two harnesses agree there and
/// the portable build's speed is unchanged (docs/performance/miss_path.md, "One inlining
/// decision for the recency promotion").
MEMSUB_ALWAYS_INLINE void recency_promote_position(std::uint8_t* row, std::uint32_t padded,
                                                   std::uint8_t old) noexcept {
#if defined(__SSE2__)
    const __m128i bound = detail::broadcast_byte(old);
    const __m128i one = _mm_set1_epi8(1);
    const auto chunk = [&](std::uint32_t i) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i));
        const __m128i is_lane = _mm_cmpeq_epi8(x, bound);
        // old − x saturates to 0 unless x < old, so min(old − x, 1) is the increment.
        x = _mm_add_epi8(x, _mm_min_epu8(_mm_subs_epu8(bound, x), one));
        x = _mm_andnot_si128(is_lane, x); // the lane → 0
        store_row16(row + i, x);
    };
    chunk(0); // padded ≥ 16: rows of ≤ 16 entries need no loop
    for (std::uint32_t i = 16; i < padded; i += 16) chunk(i);
#else
    for (std::uint32_t i = 0; i < padded; ++i)
        row[i] =
            row[i] == old ? std::uint8_t{0} : static_cast<std::uint8_t>(row[i] + (row[i] < old));
#endif
}

/// Recency-stack update "move `lane` to the bottom": bytes above row[lane] and below `bottom + 1`
/// lose 1 and row[lane] becomes `bottom` (= entries − 1). Padding bytes (0xff) are untouched.
/// Same row rules as recency_promote (distinct entries; the lane is the byte equal to its value).
inline void recency_demote(std::uint8_t* row, std::uint32_t padded, std::uint32_t lane,
                           std::uint8_t bottom) noexcept {
    const std::uint8_t old = row[lane];
#if defined(__SSE2__)
    const __m128i at = detail::broadcast_byte(old);
    const __m128i above = _mm_add_epi8(at, _mm_set1_epi8(1));
    const __m128i limit = detail::broadcast_byte(bottom);
    const auto chunk = [&](std::uint32_t i) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i));
        const __m128i is_lane = _mm_cmpeq_epi8(x, at);
        const __m128i gt_old = _mm_cmpeq_epi8(_mm_max_epu8(x, above), x);    // x > old
        const __m128i le_bottom = _mm_cmpeq_epi8(_mm_min_epu8(x, limit), x); // x <= bottom
        x = _mm_add_epi8(x, _mm_and_si128(gt_old, le_bottom));               // −1 (0xff)
        x = _mm_or_si128(_mm_andnot_si128(is_lane, x), _mm_and_si128(is_lane, limit));
        store_row16(row + i, x);
    };
    chunk(0);
    for (std::uint32_t i = 16; i < padded; i += 16) chunk(i);
#else
    for (std::uint32_t i = 0; i < padded; ++i)
        row[i] -= static_cast<std::uint8_t>(row[i] > old && row[i] <= bottom);
    row[lane] = bottom;
#endif
}

} // namespace memsub
