// memsub — FPC per-word pattern classification: scalar reference and xsimd kernel
// (spec compressors.md §1.2).
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

/// FPC prefixes (spec §1.2 table).
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
/// run of r zeros costs ceil(r / 8) tokens (spec §1.2).
[[nodiscard]] constexpr std::uint32_t fpc_zero_tokens(std::uint64_t zero_mask) noexcept {
    std::uint64_t long_runs = zero_mask;
    for (int s = 1; s <= 8; ++s) long_runs &= zero_mask >> s;
    if (long_runs == 0) // no run longer than 8: one token per run start
        return static_cast<std::uint32_t>(std::popcount(zero_mask & ~(zero_mask << 1)));
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
template <std::uint32_t N>
MEMSUB_ALWAYS_INLINE void fpc_classify(const std::byte* p, std::uint32_t* out) noexcept {
    using T = std::uint32_t;
    using B = simd_batch<T>;
    constexpr std::size_t lanes = simd_lanes<T>;
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
template <std::uint32_t N>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t fpc_size(const std::byte* p) noexcept {
    using T = std::uint32_t;
    using B = simd_batch<T>;
    constexpr std::size_t lanes = simd_lanes<T>;
    if constexpr (!simd_enabled || N < lanes || N % lanes != 0) {
        return fpc_size_scalar(p, N);
    } else {
        static_assert(N <= 32);
        const auto* e = reinterpret_cast<const T*>(p);
        B sizes(T{0}), zmask(T{0});
        alignas(64) static constexpr std::array<T, 32> lane_bit = [] {
            std::array<T, 32> a{};
            for (std::size_t i = 0; i < 32; ++i) a[i] = T{1} << i;
            return a;
        }();
        for (std::size_t i = 0; i < N; i += lanes) {
            const B w = B::load_unaligned(e + i);
            const auto t = fpc_tests(w);
            B s(T{35});
            s = xsimd::select(t.two | t.half | t.se16, B(T{19}), s);
            s = xsimd::select(t.rep | t.se8, B(T{11}), s);
            s = xsimd::select(t.se4, B(T{7}), s);
            s = xsimd::select(t.zero, B(T{0}), s);
            sizes += s;
            zmask |= xsimd::select(t.zero, B::load_unaligned(lane_bit.data() + i), B(T{0}));
        }
        // lanes hold disjoint bits, so the horizontal sum is their OR
        const auto zeros = static_cast<std::uint64_t>(xsimd::hadd(zmask));
        return xsimd::hadd(sizes) + 6 * fpc_zero_tokens(zeros);
    }
}

} // namespace memsub::compression::detail
