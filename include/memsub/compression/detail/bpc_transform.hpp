// memsub — the BPC Delta-BitPlane-XOR (DBX) transform: a scalar reference and an xsimd kernel.
//
// docs/mechanisms/compressors.md §1.4 (Kim, Sullivan, Choukse, Erez, "Bit-Plane Compression", ISCA
// 2016, §4): for a line of n = L/4 little-endian 32-bit words w_0 … w_{n−1},
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

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include <memsub/compression/detail/simd.hpp> // xsimd, with GCC 12's AVX-512 false positives silenced
#include <memsub/config.hpp>

namespace memsub::compression::detail {

/// Planes of one line: `dbp[b]` and `dbx[b]` for b = 0 … 32, each an (n−1)-bit word whose bit j
/// belongs to delta j. Unused high bits are zero.
struct bpc_planes {
    // No initialisers: the transforms write every element (the hot path skips a memset).
    alignas(64) std::array<std::uint32_t, 33> dbp;
    alignas(64) std::array<std::uint32_t, 33> dbx;
    friend bool operator==(const bpc_planes&, const bpc_planes&) noexcept = default;
};

/// Reads little-endian 32-bit word `i` of a line (docs/mechanisms/compressors.md, 'Notation': words
/// are little-endian).
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
    out.dbp.fill(0);
    out.dbx.fill(0);
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
/// Lane i takes lane i+1 (the last lane wraps; callers blend it).
struct next_lane {
    static constexpr std::uint32_t get(unsigned i, unsigned n) noexcept { return (i + 1) % n; }
};
struct last_lane_mask {
    static constexpr std::uint32_t get(unsigned i, unsigned n) noexcept {
        return i + 1 == n ? 0xFFFFFFFFu : 0u;
    }
};
struct first_lane_mask {
    static constexpr std::uint32_t get(unsigned i, unsigned) noexcept {
        return i == 0 ? 0xFFFFFFFFu : 0u;
    }
};
/// 1 << i for i < 32, else 0: the bit of plane (or row) i in a 32-bit mask.
alignas(64) inline constexpr std::array<std::uint32_t, 64> pow2 = [] {
    std::array<std::uint32_t, 64> t{};
    for (unsigned i = 0; i < 32; ++i) t[i] = std::uint32_t{1} << i;
    return t;
}();

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

/// Recursive block transpose of `Rows` 32-bit rows (Rows ∈ {8, 16, 32}, Rows ≥ lanes), row k in
/// batch k / lanes, lane k % lanes. Stage j (j = Rows/2 … 1) exchanges bit j of the row index
/// with bit j of the column index (the stages commute); stages with j ≥ lanes pair whole
/// batches, the others pair lanes of one batch through a swizzle. Afterwards row i holds, in its
/// bit field q (bits Rows·q … Rows·q + Rows − 1), what was bit Rows·q + i of rows 0 … Rows−1;
/// for Rows = 32 that is the plain transpose. The map is an involution.
template <unsigned Rows, class B, std::size_t R>
MEMSUB_ALWAYS_INLINE void transpose_rows(std::array<B, R>& v) noexcept {
    constexpr std::size_t lanes = B::size;
    static_assert(Rows == R * lanes, "rows must fill the batches");
    for (unsigned j = Rows / 2; j >= lanes && j >= 1; j /= 2) {
        const std::size_t s = j / lanes;
        const B mask(low_half_mask(j));
        for (std::size_t r = 0; r < R; ++r) {
            if ((r & s) != 0) continue;
            const B t = ((v[r] >> static_cast<int>(j)) ^ v[r + s]) & mask;
            v[r + s] ^= t;
            v[r] ^= t << static_cast<int>(j);
        }
    }
    in_batch_stages<static_cast<unsigned>(std::min<std::size_t>(lanes, Rows) / 2)>(v);
}

} // namespace bpc_simd

/// 32 × 32 bit-matrix transpose in xsimd batches: afterwards bit r of m[c] is what bit c of m[r]
/// was.
template <class Arch = xsimd::default_arch>
MEMSUB_ALWAYS_INLINE void transpose32(std::uint32_t* m) noexcept {
    using B = xsimd::batch<std::uint32_t, Arch>;
    constexpr std::size_t lanes = B::size;
    static_assert(lanes >= 2 && 32 % lanes == 0, "batch must split 32 rows evenly");
    std::array<B, 32 / lanes> v;
    for (std::size_t r = 0; r < v.size(); ++r) v[r] = B::load_unaligned(m + r * lanes);
    bpc_simd::transpose_rows<32>(v);
    for (std::size_t r = 0; r < v.size(); ++r) v[r].store_unaligned(m + r * lanes);
}

/// The BPC kernel for one line size, in registers: DBP planes as K batches of 32-bit lanes
/// (plane b in batch b / lanes, lane b % lanes; lanes past plane 32 are zero).
template <class Arch = xsimd::default_arch>
struct bpc_kernel {
    using B = xsimd::batch<std::uint32_t, Arch>;
    static constexpr std::size_t lanes = B::size;
    static constexpr std::size_t K = (33 + lanes - 1) / lanes; ///< plane batches
    using planes_t = std::array<B, K>;

    /// DBP planes of a line of `n` = 8, 16 or 32 little-endian words.
    MEMSUB_ALWAYS_INLINE static void dbp(const std::byte* line, std::uint32_t n,
                                         planes_t& P) noexcept {
        if (n == 32) {
            if constexpr (32 >= lanes) return dbp_rows<32>(line, P);
        } else if (n == 16) {
            if constexpr (16 >= lanes) return dbp_rows<16>(line, P);
        } else {
            if constexpr (8 >= lanes) return dbp_rows<8>(line, P);
        }
        // Lines with fewer words than a batch has lanes: widen into a padded copy (the extra
        // words repeat the last one, so their deltas are 0 and masked anyway).
        if constexpr (lanes > 8) {
            alignas(64) std::array<std::uint32_t, 64> w;
            std::memcpy(w.data(), line, std::size_t{n} * 4);
            for (std::size_t i = n; i < w.size(); ++i) w[i] = w[n - 1];
            constexpr unsigned rows = lanes >= 32 ? 32u : static_cast<unsigned>(lanes);
            dbp_rows<rows>(reinterpret_cast<const std::byte*>(w.data()), P, n);
        }
    }

    /// DBX planes: DBX[b] = DBP[b] XOR DBP[b+1] (DBP[33] = 0).
    MEMSUB_ALWAYS_INLINE static void dbx(const planes_t& P, planes_t& X) noexcept {
        const B last = xsimd::make_batch_constant<B, bpc_simd::last_lane_mask>();
        B rot_next = xsimd::swizzle(P[0], xsimd::make_batch_constant<B, bpc_simd::next_lane>());
        for (std::size_t k = 0; k < K; ++k) {
            const B rot = rot_next;
            rot_next =
                k + 1 < K
                    ? xsimd::swizzle(P[k + 1], xsimd::make_batch_constant<B, bpc_simd::next_lane>())
                    : B(0u);
            const B up = (rot & ~last) | (rot_next & last);
            X[k] = P[k] ^ up;
        }
    }

    /// Exact BPC bits of a line (§1.4), branch-free over the planes.
    static std::uint32_t size_bits(const std::byte* line, std::uint32_t n,
                                   std::uint32_t position_bits) noexcept {
        planes_t P, X;
        dbp(line, n, P);
        dbx(P, X);
        const std::uint32_t full = (std::uint32_t{1} << (n - 1)) - 1;
        const B vfull(full), zero(0u), one(1u), five(5u), short_sym(5 + position_bits),
            raw(n); // raw plane: 1 + (n − 1) bits
        B acc(0u), zmask(0u);
        for (std::size_t k = 0; k < K; ++k) {
            // Lanes past plane 32 have P = X = 0: they cost 0 bits and their pow2 entry is 0.
            const B x = X[k], p = P[k];
            const auto z = x == zero;
            const auto f = (x == vfull) || (p == zero);
            const B y = x & (x - one);
            const auto single = y == zero;
            const auto pair = ((y & (y - one)) == zero) && ((x & (x >> 1)) != zero);
            B bits = xsimd::select(single || pair, short_sym, raw);
            bits = xsimd::select(f, five, bits);
            acc += xsimd::select(z, zero, bits);
            // Zero-plane flags of planes 0…31 as a bit mask (plane 32 is handled below).
            zmask |= xsimd::select(z, B::load_aligned(bpc_simd::pow2.data() + k * lanes), zero);
        }
        const std::uint64_t z32 = xsimd::hadd(zmask);
        const std::uint64_t Z = z32 | (std::uint64_t{last_plane(X) == 0} << 32);
        // Maximal zero runs in scan order b = 32 → 0: a run starts at b when b+1 is not zero.
        const std::uint64_t starts = Z & ~(Z >> 1);
        const std::uint64_t singles = starts & ~(Z << 1);
        const std::uint32_t runs = popcount64(starts);
        const std::uint32_t single_runs = popcount64(singles);
        return xsimd::hadd(acc) + 7 * runs - 4 * single_runs;
    }

    /// DBX[32] (= DBP[32]).
    [[nodiscard]] static std::uint32_t last_plane(const planes_t& X) noexcept {
        alignas(64) std::array<std::uint32_t, lanes> t;
        X[32 / lanes].store_aligned(t.data());
        return t[32 % lanes];
    }

    static void store(const planes_t& P, std::array<std::uint32_t, 33>& out) noexcept {
        alignas(64) std::array<std::uint32_t, K * lanes> t;
        for (std::size_t k = 0; k < K; ++k) P[k].store_aligned(t.data() + k * lanes);
        std::memcpy(out.data(), t.data(), sizeof out);
    }

    /// The inverse transform: `n` words from DBP[0…31] (each at most n−1 bits) and the base,
    /// written little-endian to `out` (transpose back, then prefix sum).
    static void inverse(const std::array<std::uint32_t, 33>& dbp, std::uint32_t n,
                        std::uint32_t base, std::byte* out) noexcept {
        alignas(64) std::array<std::uint32_t, 32> d;
        if (n == 32) {
            inverse_rows<32>(dbp, d);
        } else if (n == 16 && 16 >= lanes) {
            if constexpr (16 >= lanes) inverse_rows<16>(dbp, d);
        } else if (n == 8 && 8 >= lanes) {
            if constexpr (8 >= lanes) inverse_rows<8>(dbp, d);
        } else {
            std::memcpy(d.data(), dbp.data(), sizeof d);
            transpose32<Arch>(d.data());
        }
        std::uint32_t w = base;
        std::memcpy(out, &w, 4);
        for (std::uint32_t j = 0; j + 1 < n; ++j) {
            w += d[j];
            std::memcpy(out + 4 * (j + 1), &w, 4);
        }
    }

private:
    /// Loads `Rows` words (the line has `n` ≤ Rows valid words, n = Rows unless widened),
    /// computes the modular deltas d_j = w_{j+1} − w_j in registers (the next word of a lane
    /// comes from a lane rotation blended with the next batch), transposes, and spreads the
    /// plane fields into plane batches; plane 32 is the sign of the 33-bit delta.
    template <unsigned Rows>
    MEMSUB_ALWAYS_INLINE static void dbp_rows(const std::byte* line, planes_t& P,
                                              std::uint32_t n = Rows) noexcept {
        constexpr std::size_t R = Rows / lanes;
        const auto* w = reinterpret_cast<const std::uint32_t*>(line);
        std::array<B, R> lo, d;
        for (std::size_t r = 0; r < R; ++r) lo[r] = B::load_unaligned(w + r * lanes);
        const B last = xsimd::make_batch_constant<B, bpc_simd::last_lane_mask>();
        const auto next = xsimd::make_batch_constant<B, bpc_simd::next_lane>();
        const std::uint32_t full = (std::uint32_t{1} << (n - 1)) - 1;
        B sign(0u);
        for (std::size_t r = 0; r < R; ++r) {
            const B rot = xsimd::swizzle(lo[r], next);
            const B hi = r + 1 < R ? (rot & ~last) | (xsimd::swizzle(lo[r + 1], next) & last) : rot;
            d[r] = hi - lo[r];
            // Sign of the 33-bit delta: s(w_{j+1}) < s(w_j).
            const B bias(0x80000000u); // signed order as unsigned order of the biased words
            const auto lt = (hi ^ bias) < (lo[r] ^ bias);
            sign |= xsimd::select(lt, B::load_aligned(bpc_simd::pow2.data() + r * lanes), B(0u));
        }
        bpc_simd::transpose_rows<Rows>(d);
        const B vfull(full);
        constexpr std::size_t fields = 32 / Rows;
        for (std::size_t q = 0; q < fields; ++q)
            for (std::size_t r = 0; r < R; ++r)
                P[q * R + r] = (d[r] >> static_cast<int>(q * Rows)) & vfull;
        const B first = xsimd::make_batch_constant<B, bpc_simd::first_lane_mask>();
        P[32 / lanes] = B(xsimd::hadd(sign) & full) & first;
        for (std::size_t k = 32 / lanes + 1; k < K; ++k) P[k] = B(0u);
    }

    /// Rows for the inverse: row i = plane i | plane Rows+i << Rows | …, the image of the
    /// deltas under `transpose_rows<Rows>`, which is an involution.
    template <unsigned Rows>
    MEMSUB_ALWAYS_INLINE static void inverse_rows(const std::array<std::uint32_t, 33>& dbp,
                                                  std::array<std::uint32_t, 32>& d) noexcept {
        constexpr std::size_t R = Rows / lanes;
        std::array<B, R> v;
        for (std::size_t r = 0; r < R; ++r) {
            B row = B::load_unaligned(dbp.data() + r * lanes);
            for (std::size_t q = 1; q < 32 / Rows; ++q)
                row |= B::load_unaligned(dbp.data() + q * Rows + r * lanes)
                       << static_cast<int>(q * Rows);
            v[r] = row;
        }
        bpc_simd::transpose_rows<Rows>(v);
        for (std::size_t r = 0; r < R; ++r) v[r].store_aligned(d.data() + r * lanes);
    }
};

/// The fast DBX transform (see the file comment). `words` holds n ∈ {8, 16, 32} words.
template <class Arch = xsimd::default_arch>
inline void bpc_transform(std::span<const std::uint32_t> words, bpc_planes& out) noexcept {
    const auto n = static_cast<std::uint32_t>(words.size());
    MEMSUB_ASSERT(n == 8 || n == 16 || n == 32);
    using K = bpc_kernel<Arch>;
    typename K::planes_t P, X;
    K::dbp(reinterpret_cast<const std::byte*>(words.data()), n, P);
    K::dbx(P, X);
    K::store(P, out.dbp);
    K::store(X, out.dbx);
}

/// The fast inverse: words from DBP[0…31] and the base (transpose, then prefix sum).
template <class Arch = xsimd::default_arch>
inline void bpc_inverse(const std::array<std::uint32_t, 33>& dbp, std::uint32_t base,
                        std::span<std::uint32_t> words) noexcept {
    MEMSUB_ASSERT(words.size() == 8 || words.size() == 16 || words.size() == 32);
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
