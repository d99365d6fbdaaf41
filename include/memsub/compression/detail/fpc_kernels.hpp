// memsub — FPC per-word pattern classification: scalar reference and xsimd kernel
// (docs/mechanisms/compressors.md §1.2).
//
// Prefix codes (3 bits) and the normative first-match order for a non-zero word:
// SE4 (001) → SE8 (010) → RepBytes (110) → SE16 (011) → ZeroPaddedHalf (100) → TwoSEBytes (101)
// → Raw (111). Zero words (000) are merged into runs of 1…8 words by the caller.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include <memsub/compression/detail/simd.hpp>

namespace memsub::compression::detail {

/// FPC prefixes (docs/mechanisms/compressors.md §1.2 table).
enum class fpc_prefix : std::uint8_t {
    zero_run = 0,    ///< 000 + 3-bit (run − 1)
    sext4 = 1,       ///< 001 + 4 bits
    sext8 = 2,       ///< 010 + 8 bits
    sext16 = 3,      ///< 011 + 16 bits
    padded_half = 4, ///< 100 + high halfword (low halfword zero)
    two_sext8 = 5,   ///< 101 + high half's low byte, low half's low byte
    rep_bytes = 6,   ///< 110 + the byte
    raw = 7,         ///< 111 + 32 bits
};

/// Payload bits after the 3-bit prefix, by prefix value.
inline constexpr std::array<std::uint32_t, 8> fpc_payload_bits{3, 4, 8, 16, 16, 16, 8, 32};

/// Scalar reference: the prefix of one word (zero words → zero_run).
[[nodiscard]] constexpr fpc_prefix fpc_classify_scalar(std::uint32_t w) noexcept {
    if (w == 0) return fpc_prefix::zero_run;
    if (fits_sext<std::uint32_t>(w, 4)) return fpc_prefix::sext4;
    if (fits_sext<std::uint32_t>(w, 8)) return fpc_prefix::sext8;
    const std::uint32_t b = w & 0xFF;
    if (w == b * 0x01010101u) return fpc_prefix::rep_bytes;
    if (fits_sext<std::uint32_t>(w, 16)) return fpc_prefix::sext16;
    if ((w & 0xFFFF) == 0) return fpc_prefix::padded_half;
    if (fits_sext<std::uint16_t>(static_cast<std::uint16_t>(w >> 16), 8) &&
        fits_sext<std::uint16_t>(static_cast<std::uint16_t>(w), 8))
        return fpc_prefix::two_sext8;
    return fpc_prefix::raw;
}

/// Number of 000 tokens for the zero words in `zero_mask` (bit i = word i is zero): each maximal
/// run of r zeros costs ceil(r / 8) tokens (docs/mechanisms/compressors.md §1.2).
[[nodiscard]] constexpr std::uint32_t fpc_zero_tokens(std::uint64_t zero_mask) noexcept {
    // bit i of `nine` is set when words i … i+8 are all zero (a run longer than 8)
    const std::uint64_t two = zero_mask & (zero_mask >> 1);
    const std::uint64_t four = two & (two >> 2);
    const std::uint64_t eight = four & (four >> 4);
    const std::uint64_t nine = eight & (zero_mask >> 8);
    if (nine == 0) // no run longer than 8: one token per run start
        return popcount64(zero_mask & ~(zero_mask << 1));
    std::uint32_t tokens = 0;
    while (zero_mask != 0) {
        const int start = std::countr_zero(zero_mask);
        const int len = std::countr_one(zero_mask >> start);
        tokens += static_cast<std::uint32_t>(len + 7) / 8;
        zero_mask &= len >= 64 ? 0 : ~(((std::uint64_t{1} << len) - 1) << start);
    }
    return tokens;
}

/// Scalar reference size of N words.
[[nodiscard]] inline std::uint32_t fpc_size_scalar(const std::byte* p, std::uint32_t n) noexcept {
    std::uint32_t bits = 0, run = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto c = fpc_classify_scalar(load_le<std::uint32_t>(p + 4 * i));
        if (c == fpc_prefix::zero_run) {
            if (run == 0) bits += 6;
            run = run == 7 ? 0 : run + 1; // a new token every 8 zeros
            continue;
        }
        run = 0;
        bits += 3 + fpc_payload_bits[static_cast<std::size_t>(c)];
    }
    return bits;
}

template <class Batch>
struct fpc_lane_tests {
    decltype(Batch{} == Batch{}) zero, se4, se8, rep, se16, half, two;
};

template <class B>
[[nodiscard]] MEMSUB_ALWAYS_INLINE fpc_lane_tests<B> fpc_tests(const B& w) noexcept {
    using T = std::uint32_t;
    const B zero(T{0});
    fpc_lane_tests<B> t;
    t.zero = w == zero;
    t.se4 = ((w + B(T{0x8})) & B(~T{0xF})) == zero;
    t.se8 = ((w + B(T{0x80})) & B(~T{0xFF})) == zero;
    t.se16 = ((w + B(T{0x8000})) & B(~T{0xFFFF})) == zero;
    t.half = (w & B(T{0xFFFF})) == zero;
    // each 16-bit half fits sext(8); the two additions are separate so no carry crosses halves
    t.two =
        (((w + B(T{0x80})) & B(T{0xFF00})) | ((w + B(T{0x00800000})) & B(T{0xFF000000}))) == zero;
    // four equal bytes ⇔ (w >> 8) == (w & 0x00FFFFFF)
    t.rep = (w >> 8) == (w & B(T{0x00FFFFFF}));
    return t;
}

/// SIMD kernel: the prefix of each of the N words at `p` into `out` (N a multiple of the lane
/// count; otherwise the scalar reference is used).
template <std::uint32_t N, class Arch = simd_arch>
MEMSUB_ALWAYS_INLINE void fpc_classify(const std::byte* p, std::uint32_t* out) noexcept {
    using T = std::uint32_t;
    using B = simd_batch<T, Arch>;
    constexpr std::size_t lanes = simd_lanes<T, Arch>;
    if constexpr (!simd_enabled || N < lanes || N % lanes != 0) {
        for (std::uint32_t i = 0; i < N; ++i)
            out[i] = static_cast<T>(fpc_classify_scalar(load_le<T>(p + 4 * i)));
    } else {
        const auto* e = reinterpret_cast<const T*>(p);
        for (std::size_t i = 0; i < N; i += lanes) {
            const B w = B::load_unaligned(e + i);
            const auto t = fpc_tests(w);
            // lowest priority first, so later selects implement first-match order
            B c(T{7});
            c = xsimd::select(t.two, B(T{5}), c);
            c = xsimd::select(t.half, B(T{4}), c);
            c = xsimd::select(t.se16, B(T{3}), c);
            c = xsimd::select(t.rep, B(T{6}), c);
            c = xsimd::select(t.se8, B(T{2}), c);
            c = xsimd::select(t.se4, B(T{1}), c);
            c = xsimd::select(t.zero, B(T{0}), c);
            c.store_unaligned(out + i);
        }
    }
}

/// SIMD kernel: exact FPC bits of the N words at `p`.
template <std::uint32_t N, class Arch = simd_arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t fpc_size(const std::byte* p) noexcept {
    using T = std::uint32_t;
    using B = simd_batch<T, Arch>;
    constexpr std::size_t lanes = simd_lanes<T, Arch>;
    if constexpr (!simd_enabled || N < lanes || N % lanes != 0) {
        return fpc_size_scalar(p, N);
    } else {
        static_assert(N <= 32);
        using S = simd_batch<std::int32_t, Arch>;
        const auto* e = reinterpret_cast<const T*>(p);
        alignas(64) static constexpr std::array<T, 32> lane_bit = [] {
            std::array<T, 32> a{};
            for (std::size_t i = 0; i < 32; ++i) a[i] = T{1} << i;
            return a;
        }();
        const B zero(T{0});
        B sizes(T{0}), zmask(T{0});
        for (std::size_t i = 0; i < N; i += lanes) {
            const B w = B::load_unaligned(e + i);
            const S ws = xsimd::bitwise_cast<S>(w);
            // y = w for w ≥ 0, ~w for w < 0: w fits sext(N) ⇔ y < 2^(N−1) (signed compare)
            const S y = ws ^ (ws >> 31);
            const B se4 = xsimd::bitwise_cast<B>(xsimd::bitwise_cast(y < S(8)));
            const B se8 = xsimd::bitwise_cast<B>(xsimd::bitwise_cast(y < S(128)));
            const B se16 = xsimd::bitwise_cast<B>(xsimd::bitwise_cast(y < S(32768)));
            const B z = xsimd::bitwise_cast(w == zero);
            const B half = xsimd::bitwise_cast((w << 16) == zero);
            const B two =
                xsimd::bitwise_cast((((w + B(T{0x80})) & B(T{0xFF00})) |
                                     ((w + B(T{0x00800000})) & B(T{0xFF000000}))) == zero);
            const B rep = xsimd::bitwise_cast((w >> 8) == (w & B(T{0x00FFFFFF})));
            // size = 35 − 16·[≤ 19 bits] − 8·[≤ 11] − 4·[≤ 7] − 7·[zero]; the classes nest by
            // size (zero ⊂ SE4 ⊂ SE8 ⊂ SE16; RepBytes ⊂ "≤ 11" ⊂ "≤ 19")
            const B le19 = two | half | se16 | rep;
            const B le11 = se8 | rep;
            sizes += (le19 & B(T{16})) + (le11 & B(T{8})) + (se4 & B(T{4})) + (z & B(T{7}));
            zmask |= z & B::load_aligned(lane_bit.data() + i);
        }
        const std::uint32_t saved = xsimd::hadd(sizes);
        const auto zeros = static_cast<std::uint64_t>(xsimd::hadd(zmask));
        return 35 * N - saved + 6 * fpc_zero_tokens(zeros);
    }
}

} // namespace memsub::compression::detail
