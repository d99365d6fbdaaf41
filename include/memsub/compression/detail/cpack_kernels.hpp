// memsub — C-PACK dictionary matching: the scalar reference (full dictionary simulation with
// code choice and index), and the fast size kernels (docs/mechanisms/compressors.md §1.3).
//
// Codes: zzzz 00 (2) · xxxx 01 + word (34) · mmmm 10 + idx (6) · mmxx 1100 + idx + 2 B (24) ·
// zzzx 1101 + byte (12) · mmmx 1110 + idx + byte (16). 16-entry FIFO dictionary, empty at the
// start of every line; zzzz/zzzx words never touch it.
//
// Fast size path (push policy AllNonZero): a word w ≥ 256 is coded against the valid entries;
// its code depends only on m = min over entries of (entry XOR w) (unsigned): m = 0 → mmmm,
// m < 2^8 → mmmx, m < 2^16 → mmxx, else xxxx — because "the top 3 (2) bytes match" is exactly
// "the XOR is below 2^8 (2^16)". Indices do not influence sizes, so the size kernels track only
// the dictionary's words. Under AllNonZero every word ≥ 256 is pushed, so the dictionary seen by
// word j is the last ≤ 16 words ≥ 256 before j; the SIMD kernel compares each word with the
// words s = 1, 2, … positions earlier (shifted loads), masked to pushed words within the FIFO's
// reach, and keeps the lane-wise unsigned minimum.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <memsub/compression/detail/simd.hpp>

namespace memsub::compression::detail {

enum class cpack_code : std::uint8_t { zzzz, xxxx, mmmm, mmxx, zzzx, mmmx };

/// Code bits (prefix + index + literal bytes) by `cpack_code`.
inline constexpr std::array<std::uint32_t, 6> cpack_code_bits{2, 34, 6, 24, 12, 16};

/// The 16-entry FIFO dictionary (slot = index; round-robin write pointer from slot 0).
struct cpack_dictionary {
    std::array<std::uint32_t, 16> entry{};
    std::uint32_t valid = 0; ///< number of valid slots (0…16)
    std::uint32_t next = 0;  ///< slot the next push writes

    void push(std::uint32_t w) noexcept {
        entry[next] = w;
        next = (next + 1) & 15;
        if (valid < 16) ++valid;
    }
};

struct cpack_match {
    cpack_code code = cpack_code::xxxx;
    std::uint32_t index = 0;
};

/// Scalar reference: the code for word `w` against dictionary `d` (docs/mechanisms/compressors.md
/// §1.3 check order zzzz → zzzx → dictionary; best code full > 3-byte prefix > 2-byte prefix, ties
/// → lowest index).
[[nodiscard]] inline cpack_match cpack_match_scalar(std::uint32_t w,
                                                    const cpack_dictionary& d) noexcept {
    if (w == 0) return {cpack_code::zzzz, 0};
    if (w < 256) return {cpack_code::zzzx, 0};
    cpack_match best{cpack_code::xxxx, 0};
    std::uint32_t best_bits = 34;
    for (std::uint32_t i = 0; i < d.valid; ++i) {
        const std::uint32_t e = d.entry[i];
        cpack_code c;
        if (e == w)
            c = cpack_code::mmmm;
        else if ((e >> 8) == (w >> 8))
            c = cpack_code::mmmx;
        else if ((e >> 16) == (w >> 16))
            c = cpack_code::mmxx;
        else
            continue;
        const std::uint32_t b = cpack_code_bits[static_cast<std::size_t>(c)];
        if (b < best_bits) { // strict: ties keep the lower index
            best = {c, i};
            best_bits = b;
        }
    }
    return best;
}

/// Whether a word coded with `c` is pushed under the policy (`only_unmatched` = push only xxxx).
[[nodiscard]] constexpr bool cpack_pushes(cpack_code c, bool only_unmatched) noexcept {
    if (c == cpack_code::zzzz || c == cpack_code::zzzx) return false;
    return !only_unmatched || c == cpack_code::xxxx;
}

/// Scalar reference size of the n words at `p`.
[[nodiscard]] inline std::uint32_t cpack_size_scalar(const std::byte* p, std::uint32_t n,
                                                     bool only_unmatched) noexcept {
    cpack_dictionary d;
    std::uint32_t bits = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t w = load_le<std::uint32_t>(p + 4 * i);
        const cpack_match m = cpack_match_scalar(w, d);
        bits += cpack_code_bits[static_cast<std::size_t>(m.code)];
        if (cpack_pushes(m.code, only_unmatched)) d.push(w);
    }
    return bits;
}

/// Bits of a word ≥ 256 whose minimum XOR against the dictionary is `m` (2^32−1 if empty).
[[nodiscard]] MEMSUB_ALWAYS_INLINE constexpr std::uint32_t
cpack_bits_from_min_xor(std::uint32_t m) noexcept {
    return m == 0 ? 6 : m < 256 ? 16 : m < 65536 ? 24 : 34;
}

/// Fast scalar size kernel for AllNonZero: keeps only the dictionary's words (a ring of the last
/// 16 words ≥ 256) and the minimum XOR per word.
template <std::uint32_t N>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t cpack_size_min_xor(const std::byte* p) noexcept {
    std::array<std::uint32_t, 16> ring{};
    std::uint32_t count = 0, bits = 0;
    for (std::uint32_t j = 0; j < N; ++j) {
        const std::uint32_t w = load_le<std::uint32_t>(p + 4 * j);
        if (w < 256) {
            bits += w == 0 ? 2 : 12;
            continue;
        }
        const std::uint32_t valid = count < 16 ? count : 16;
        std::uint32_t m0 = ~0u, m1 = ~0u; // two chains for instruction-level parallelism
        std::uint32_t i = 0;
        for (; i + 1 < valid; i += 2) {
            const std::uint32_t a = ring[i] ^ w, b = ring[i + 1] ^ w;
            m0 = a < m0 ? a : m0;
            m1 = b < m1 ? b : m1;
        }
        if (i < valid) {
            const std::uint32_t a = ring[i] ^ w;
            m0 = a < m0 ? a : m0;
        }
        bits += cpack_bits_from_min_xor(m0 < m1 ? m0 : m1);
        ring[count & 15] = w;
        ++count;
    }
    return bits;
}

#if defined(__SSE2__)
/// SSE2 size kernel for AllNonZero on 8 or 16 words ("byte planes"): the words are transposed
/// into four 16-byte registers (plane k = byte k of every word) plus a "pushed" mask (word
/// ≥ 256). For every distance s = 1…N−1 the planes are compared with themselves shifted by s
/// words (byte shifts: lane j sees word j − s; lanes j < s see zero bytes and an
/// unpushed mask), which yields for all 16 words at once whether an earlier pushed word matches the
/// top 2, 3 or 4 bytes. Without wrap-around (N ≤ 16 words never overwrite a slot before the last
/// word) every earlier pushed word is in the dictionary, so
///   bits = 34·pushed + 12·small + 2·zero − 10·#(2-byte) − 8·#(3-byte) − 10·#(full)
/// (34 → 24 → 16 → 6). SSE2 has no unsigned 32-bit minimum, which makes the min-XOR kernels
/// slow there; byte lanes compare 16 words per instruction.
template <std::uint32_t N>
[[nodiscard]] inline std::uint32_t cpack_size_planes_sse2(const std::byte* p) noexcept {
    static_assert(N == 8 || N == 16);
    const __m128i zero = _mm_setzero_si128();
    const __m128i lo8 = _mm_set1_epi32(0xFF);
    __m128i w[4];
    for (std::uint32_t r = 0; r < 4; ++r)
        w[r] = r < N / 4 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * r)) : zero;
    auto plane = [&](int shift) {
        __m128i b[4];
        for (int r = 0; r < 4; ++r) b[r] = _mm_and_si128(_mm_srli_epi32(w[r], shift), lo8);
        return _mm_packus_epi16(_mm_packs_epi32(b[0], b[1]), _mm_packs_epi32(b[2], b[3]));
    };
    const __m128i b0 = plane(0), b1 = plane(8), b2 = plane(16), b3 = plane(24);
    const __m128i high = _mm_or_si128(_mm_or_si128(b1, b2), b3);
    const __m128i pushed = _mm_andnot_si128(_mm_cmpeq_epi8(high, zero), _mm_set1_epi8(-1));
    const __m128i is_zero = _mm_cmpeq_epi8(_mm_or_si128(high, b0), zero);
    __m128i a16 = zero, a24 = zero, a32 = zero;
    // s = 1 … N−1, unrolled: pslldq needs an immediate; lanes j < s receive zero bytes, and the
    // shifted pushed mask is zero there, so they never match.
    [&]<std::size_t... S>(std::index_sequence<S...>) {
        (
            [&] {
                constexpr int sh = static_cast<int>(S) + 1;
                const __m128i m16 =
                    _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(b3, _mm_slli_si128(b3, sh)),
                                                _mm_cmpeq_epi8(b2, _mm_slli_si128(b2, sh))),
                                  _mm_slli_si128(pushed, sh));
                const __m128i m24 = _mm_and_si128(m16, _mm_cmpeq_epi8(b1, _mm_slli_si128(b1, sh)));
                const __m128i m32 = _mm_and_si128(m24, _mm_cmpeq_epi8(b0, _mm_slli_si128(b0, sh)));
                a16 = _mm_or_si128(a16, m16);
                a24 = _mm_or_si128(a24, m24);
                a32 = _mm_or_si128(a32, m32);
            }(),
            ...);
    }
    (std::make_index_sequence<N - 1>{});
    constexpr std::uint32_t lanes = (1u << N) - 1;
    auto count = [&](__m128i m) {
        return popcount64(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_and_si128(m, pushed))) &
                          lanes);
    };
    const std::uint32_t np = count(pushed);
    const std::uint32_t nz =
        popcount64(static_cast<std::uint32_t>(_mm_movemask_epi8(is_zero)) & lanes);
    const std::uint32_t ns = N - np - nz;
    return 34 * np + 12 * ns + 2 * nz - 10 * count(a16) - 8 * count(a24) - 10 * count(a32);
}
#endif

/// SIMD size kernel for AllNonZero (shifted-load formulation, see the file comment). Used when
/// the batch holds at least 8 lanes of 32 bits (AVX2, AVX-512); with narrower batches the scalar
/// min-XOR kernel is faster (SSE2 has no unsigned 32-bit minimum) and is used instead.
template <std::uint32_t N, class Arch = simd_arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t cpack_size(const std::byte* p) noexcept {
    using T = std::uint32_t;
    using B = simd_batch<T, Arch>;
    constexpr std::size_t lanes = simd_lanes<T, Arch>;
#if defined(__SSE2__)
    if constexpr (simd_enabled && lanes == 4 && (N == 8 || N == 16))
        return cpack_size_planes_sse2<N>(p);
#endif
    if constexpr (!simd_enabled || lanes < 8 || lanes > 16 || N % lanes != 0) {
        return cpack_size_min_xor<N>(p);
    } else {
        // w[16 + j] = word j; blk[16 + j] = all-ones unless word j is pushed (≥ 256);
        // ord[16 + j] = number of pushed words before j (the FIFO slot order).
        // The 16 leading pad slots are never valid.
        alignas(64) std::array<T, 16 + N> w{}, blk{}, ord{};
        for (std::size_t i = 0; i < 16; ++i) blk[i] = ~T{0};
        T pushed = 0;
        for (std::uint32_t j = 0; j < N; ++j) {
            const T v = load_le<T>(p + 4 * j);
            w[16 + j] = v;
            blk[16 + j] = v < 256 ? ~T{0} : T{0};
            ord[16 + j] = pushed;
            pushed += v >= 256 ? 1 : 0;
        }
        std::uint32_t bits = 0;
        const B c256(T{256}), big(~T{0});
        for (std::size_t j0 = 0; j0 < N; j0 += lanes) {
            const B wj = B::load_aligned(w.data() + 16 + j0);
            const B oj = B::load_aligned(ord.data() + 16 + j0);
            B m = big;
            // Entry i = j − s is valid for word j iff word i was pushed and not yet overwritten:
            // ord[j] − ord[i] ≤ 16 (always true for s ≤ 16). Lanes with i < 0 read the pad.
            // Valid shifts satisfy s ≤ j ≤ j0 + lanes − 1, so loads start at ≥ 17 − lanes ≥ 1.
            const std::uint32_t max_shift =
                static_cast<std::uint32_t>(j0 + lanes - 1 < N - 1 ? j0 + lanes - 1 : N - 1);
            for (std::uint32_t s = 1; s <= max_shift; ++s) {
                const std::size_t at = 16 + j0 - s;
                const B wi = B::load_unaligned(w.data() + at);
                const B bi = B::load_unaligned(blk.data() + at);
                B x = (wi ^ wj) | bi;
                if (s > 16) {
                    const B oi = B::load_unaligned(ord.data() + at);
                    x = xsimd::select((oj - oi) > B(T{16}), big, x);
                }
                m = xsimd::min(m, x);
            }
            // per-lane bits: small words by value, others by the min XOR
            B b = xsimd::select(m == B(T{0}), B(T{6}),
                                xsimd::select(m < c256, B(T{16}),
                                              xsimd::select(m < B(T{65536}), B(T{24}), B(T{34}))));
            b = xsimd::select(wj < c256, xsimd::select(wj == B(T{0}), B(T{2}), B(T{12})), b);
            bits += xsimd::hadd(b);
        }
        return bits;
    }
}

} // namespace memsub::compression::detail
