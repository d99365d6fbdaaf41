// memsub — the BPC Delta-BitPlane-XOR (DBX) transform: a scalar reference and an xsimd kernel.
//
// Spec compressors.md §1.4 (Kim, Sullivan, Choukse, Erez, "Bit-Plane Compression", ISCA 2016,
// §4): for a line of n = L/4 little-endian 32-bit words w_0 … w_{n−1},
//   δ_j   = s(w_{j+1}) − s(w_j), j = 0 … n−2, s() the signed 32-bit value, δ_j a 33-bit number;
//   DBP[b] = the (n−1)-bit word whose bit j is bit b of δ_j, b = 0 … 32;
//   DBX[32] = DBP[32], DBX[b] = DBP[b] XOR DBP[b+1] for b = 31 … 0.
//
// `bpc_transform_reference` computes exactly that, bit by bit (the obviously-correct model the
// differential tests compare against). `bpc_transform` is the fast path:
//   * the low 32 bits of δ_j are the modular difference d_j = w_{j+1} − w_j (mod 2^32), and the
//     planes 0…31 are the transpose of the 32 × 32 bit matrix whose rows are d_0 … d_{n−2}
//     (zero-padded to 32 rows); the transpose runs in xsimd batches (`transpose32`),
//   * plane 32 is the sign of the 33-bit δ_j, i.e. s(w_{j+1}) < s(w_j), gathered in scalar code
//     (xsimd 8.1 has no lane-mask extraction; the gather is n−1 compares),
//   * DBX is one XOR of the plane array with itself shifted by one plane.
// Decompression uses the same transpose (a transpose is its own inverse) and a prefix sum.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include <xsimd/xsimd.hpp>

#include <memsub/config.hpp>

namespace memsub::compression::detail {

/// Planes of one line: `dbp[b]` and `dbx[b]` for b = 0 … 32, each an (n−1)-bit word whose bit j
/// belongs to delta j. Unused high bits are zero.
struct bpc_planes {
    alignas(64) std::array<std::uint32_t, 33> dbp{};
    alignas(64) std::array<std::uint32_t, 33> dbx{};
    friend bool operator==(const bpc_planes&, const bpc_planes&) noexcept = default;
};

/// Reads little-endian 32-bit word `i` of a line (spec Notation: words are little-endian).
[[nodiscard]] inline std::uint32_t bpc_load_word(std::span<const std::byte> line,
                                                 std::size_t i) noexcept {
    std::uint32_t w;
    std::memcpy(&w, line.data() + 4 * i, 4);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);
    return w;
}

/// Writes little-endian 32-bit word `i` of a line.
inline void bpc_store_word(std::span<std::byte> line, std::size_t i, std::uint32_t w) noexcept {
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);
    std::memcpy(line.data() + 4 * i, &w, 4);
}

// --- scalar reference ---------------------------------------------------------------------------

/// The DBX transform of §1.4, bit by bit, from the definition. `words` holds n ≤ 32 words.
inline void bpc_transform_reference(std::span<const std::uint32_t> words,
                                    bpc_planes& out) noexcept {
    MEMSUB_ASSERT(words.size() >= 2 && words.size() <= 32);
    out = bpc_planes{};
    for (std::size_t j = 0; j + 1 < words.size(); ++j) {
        const std::int64_t delta = std::int64_t{static_cast<std::int32_t>(words[j + 1])} -
                                   std::int64_t{static_cast<std::int32_t>(words[j])};
        const auto bits33 = static_cast<std::uint64_t>(delta); // two's complement, bits 0…32
        for (unsigned b = 0; b < 33; ++b)
            out.dbp[b] |= static_cast<std::uint32_t>((bits33 >> b) & 1u) << j;
    }
    out.dbx[32] = out.dbp[32];
    for (int b = 31; b >= 0; --b) out.dbx[b] = out.dbp[b] ^ out.dbp[b + 1];
}

/// Scalar 32 × 32 bit-matrix transpose, bit by bit (reference for `transpose32`): afterwards
/// bit r of m[c] is what bit c of m[r] was.
inline void transpose32_reference(std::uint32_t* m) noexcept {
    std::array<std::uint32_t, 32> t{};
    for (unsigned r = 0; r < 32; ++r)
        for (unsigned c = 0; c < 32; ++c) t[c] |= ((m[r] >> c) & 1u) << r;
    std::memcpy(m, t.data(), sizeof t);
}

/// Inverse of the transform from the planes: w_0 = base, w_{j+1} = w_j + δ_j (mod 2^32), with
/// δ_j's low 32 bits read back from DBP[0…31] (bit 32 does not affect the words). Reference.
inline void bpc_inverse_reference(const std::array<std::uint32_t, 33>& dbp, std::uint32_t base,
                                  std::span<std::uint32_t> words) noexcept {
    MEMSUB_ASSERT(words.size() >= 2 && words.size() <= 32);
    words[0] = base;
    for (std::size_t j = 0; j + 1 < words.size(); ++j) {
        std::uint32_t d = 0;
        for (unsigned b = 0; b < 32; ++b) d |= ((dbp[b] >> j) & 1u) << b;
        words[j + 1] = words[j] + d;
    }
}

// --- xsimd kernel -------------------------------------------------------------------------------

namespace bpc_simd {

/// Masks selecting, in each 2j-bit group, the low j bits (the "column bit j clear" half).
[[nodiscard]] constexpr std::uint32_t low_half_mask(unsigned j) noexcept {
    switch (j) {
    case 16:
        return 0x0000FFFFu;
    case 8:
        return 0x00FF00FFu;
    case 4:
        return 0x0F0F0F0Fu;
    case 2:
        return 0x33333333u;
    default:
        return 0x55555555u;
    }
}

template <unsigned J>
struct partner_lane {
    static constexpr std::uint32_t get(unsigned i, unsigned) noexcept { return i ^ J; }
};
template <unsigned J>
struct lower_lane_mask {
    static constexpr std::uint32_t get(unsigned i, unsigned) noexcept {
        return (i & J) != 0 ? 0u : 0xFFFFFFFFu;
    }
};

/// One stage of the recursive block transpose for a block size J smaller than the batch: rows k
/// and k+J are lanes of the same batch. Lower lane (bit J of the lane clear) holds row k, its
/// partner row k+J; the pair exchanges row k's columns c+J with row k+J's columns c.
template <unsigned J, class B>
MEMSUB_ALWAYS_INLINE void in_batch_stage(B& a) noexcept {
    using value_type = typename B::value_type;
    const B p = xsimd::swizzle(a, xsimd::make_batch_constant<B, partner_lane<J>>());
    const B lower = xsimd::make_batch_constant<B, lower_lane_mask<J>>();
    const B m(static_cast<value_type>(low_half_mask(J)));
    const B t_lower = ((a >> J) ^ p) & m; // the swap word seen from row k
    const B t_upper = ((p >> J) ^ a) & m; // the same word seen from row k+J
    a ^= ((t_lower << J) & lower) | (t_upper & ~lower);
}

template <unsigned J, class B, std::size_t R>
MEMSUB_ALWAYS_INLINE void in_batch_stages(std::array<B, R>& v) noexcept {
    if constexpr (J >= 1) {
        for (auto& a : v) in_batch_stage<J>(a);
        in_batch_stages<J / 2>(v);
    }
}

} // namespace bpc_simd

/// 32 × 32 bit-matrix transpose in xsimd batches (Hacker's Delight-style recursive block swap:
/// stage j exchanges bit j of the row index with bit j of the column index; the five stages
/// commute). Row k lives in batch k / lanes, lane k % lanes; stages with j ≥ lanes pair whole
/// batches, the others pair lanes of one batch through a swizzle.
template <class Arch = xsimd::default_arch>
MEMSUB_ALWAYS_INLINE void transpose32(std::uint32_t* m) noexcept {
    using B = xsimd::batch<std::uint32_t, Arch>;
    constexpr std::size_t lanes = B::size;
    static_assert(lanes >= 2 && 32 % lanes == 0, "batch must split 32 rows evenly");
    constexpr std::size_t R = 32 / lanes;
    std::array<B, R> v;
    for (std::size_t r = 0; r < R; ++r) v[r] = B::load_unaligned(m + r * lanes);
    for (unsigned j = 16; j >= lanes; j /= 2) {
        const std::size_t s = j / lanes;
        const B mask(bpc_simd::low_half_mask(j));
        for (std::size_t r = 0; r < R; ++r) {
            if ((r & s) != 0) continue;
            const B t = ((v[r] >> static_cast<int>(j)) ^ v[r + s]) & mask;
            v[r + s] ^= t;
            v[r] ^= t << static_cast<int>(j);
        }
    }
    bpc_simd::in_batch_stages<static_cast<unsigned>(lanes / 2)>(v);
    for (std::size_t r = 0; r < R; ++r) v[r].store_unaligned(m + r * lanes);
}

/// The fast DBX transform (see the file comment). `words` holds n ∈ [2, 32] words.
template <class Arch = xsimd::default_arch>
inline void bpc_transform(std::span<const std::uint32_t> words, bpc_planes& out) noexcept {
    const std::size_t n = words.size();
    MEMSUB_ASSERT(n >= 2 && n <= 32);
    using B = xsimd::batch<std::uint32_t, Arch>;
    constexpr std::size_t lanes = B::size;
    // Words padded to 33 by repeating the last word, so every padded delta is 0.
    alignas(64) std::array<std::uint32_t, 33 + lanes> w;
    std::memcpy(w.data(), words.data(), n * 4);
    for (std::size_t i = n; i < w.size(); ++i) w[i] = words[n - 1];
    alignas(64) std::array<std::uint32_t, 32> d;
    for (std::size_t r = 0; r < 32; r += lanes) {
        const B hi = B::load_unaligned(w.data() + r + 1);
        const B lo = B::load_unaligned(w.data() + r);
        (hi - lo).store_aligned(d.data() + r);
    }
    transpose32<Arch>(d.data());
    std::memcpy(out.dbp.data(), d.data(), sizeof d);
    // Plane 32: the sign of the 33-bit delta.
    std::uint32_t sign = 0;
    for (std::size_t j = 0; j + 1 < n; ++j)
        sign |= static_cast<std::uint32_t>(static_cast<std::int32_t>(w[j + 1]) <
                                           static_cast<std::int32_t>(w[j]))
                << j;
    out.dbp[32] = sign;
    for (std::size_t b = 0; b < 32; b += lanes) {
        const B p0 = B::load_aligned(out.dbp.data() + b);
        const B p1 = B::load_unaligned(out.dbp.data() + b + 1);
        (p0 ^ p1).store_aligned(out.dbx.data() + b);
    }
    out.dbx[32] = sign;
}

/// The fast inverse: words from DBP[0…31] and the base (transpose, then prefix sum).
template <class Arch = xsimd::default_arch>
inline void bpc_inverse(const std::array<std::uint32_t, 33>& dbp, std::uint32_t base,
                        std::span<std::uint32_t> words) noexcept {
    MEMSUB_ASSERT(words.size() >= 2 && words.size() <= 32);
    alignas(64) std::array<std::uint32_t, 32> d;
    std::memcpy(d.data(), dbp.data(), sizeof d);
    transpose32<Arch>(d.data());
    std::uint32_t w = base;
    words[0] = w;
    for (std::size_t j = 0; j + 1 < words.size(); ++j) {
        w += d[j];
        words[j + 1] = w;
    }
}

} // namespace memsub::compression::detail
