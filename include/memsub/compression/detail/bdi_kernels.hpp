// memsub — BDI delta-fit kernels: scalar reference and xsimd (spec compressors.md §1.1).
//
// One (k, d) encoder over a line of n = L/k elements of type T (k = sizeof(T)) succeeds when
//   1. (BΔI only) each element that fits sext(8d) is an immediate (implicit zero base);
//   2. the first non-immediate element (in index order) is the explicit base B
//      (B+Δ: B = element 0 and there are no immediates);
//   3. every other non-immediate v has (v − B) mod 2^(8k) fitting sext(8d).
// The SIMD kernel answers the same yes/no question with two vector passes: "all immediates?",
// then, after a scalar scan for the base, "every lane an immediate or within reach of B?".
#pragma once

#include <cstddef>
#include <cstdint>

#include <memsub/compression/detail/simd.hpp>

namespace memsub::compression::detail {

struct bdi_fit {
    bool ok = false;
    /// Index of the explicit base element; n when every element is an immediate.
    std::uint32_t base_index = 0;
};

/// Scalar reference: does the (sizeof(T), dbits/8) encoder fit the n elements at `p`?
template <class T>
[[nodiscard]] bdi_fit bdi_fits_scalar(const std::byte* p, std::uint32_t n, unsigned dbits,
                                      bool immediates) noexcept {
    std::uint32_t base_index = n;
    T base = 0;
    if (!immediates) {
        base_index = 0;
        base = load_le<T>(p);
    }
    for (std::uint32_t j = 0; j < n; ++j) {
        const T v = load_le<T>(p + j * sizeof(T));
        if (immediates && fits_sext<T>(v, dbits)) continue; // rule 1
        if (base_index == n) {                              // rule 2
            base_index = j;
            base = v;
            continue;
        }
        if (!fits_sext<T>(static_cast<T>(v - base), dbits)) return {false, base_index}; // rule 3
    }
    return {true, base_index};
}

/// Index of the first element that is not an immediate (n if none).
template <class T>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t
bdi_first_non_immediate(const std::byte* p, std::uint32_t n, unsigned dbits) noexcept {
    for (std::uint32_t j = 0; j < n; ++j)
        if (!fits_sext<T>(load_le<T>(p + j * sizeof(T)), dbits)) return j;
    return n;
}

/// SIMD kernel: same answer as `bdi_fits_scalar(p, N, dbits, immediates).ok` for N elements.
/// fits sext(8d) ⇔ ((v + 2^(8d−1)) & ~(2^(8d) − 1)) == 0, computed modulo 2^W per lane. The base
/// is found with a scalar look at element 0 (usually the base) or, when element 0 is an
/// immediate, with one vector "all immediates?" pass and a short scalar scan. The final pass
/// checks "immediate or within reach of B" register by register and stops at the first failure
/// (random data fails in the first register).
template <class T, std::uint32_t N>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool bdi_fits(const std::byte* p, unsigned dbits,
                                                 bool immediates) noexcept {
    using B = simd_batch<T>;
    constexpr std::size_t lanes = simd_lanes<T>;
    if constexpr (!simd_enabled || N < lanes || N % lanes != 0) {
        return bdi_fits_scalar<T>(p, N, dbits, immediates).ok;
    } else {
        const auto* e = reinterpret_cast<const T*>(p);
        const B bias(static_cast<T>(T{1} << (dbits - 1)));
        const B high(static_cast<T>(~static_cast<T>((T{1} << dbits) - 1)));
        const B zero(T{0});
        T base = load_le<T>(p);
        if (immediates && fits_sext<T>(base, dbits)) {
            B acc = (B::load_unaligned(e) + bias) & high;
            for (std::size_t i = lanes; i < N; i += lanes)
                acc |= (B::load_unaligned(e + i) + bias) & high;
            if (xsimd::all(acc == zero)) return true; // every element an immediate
            base = load_le<T>(p + bdi_first_non_immediate<T>(p, N, dbits) * sizeof(T));
        }
        const B b(base);
        for (std::size_t i = 0; i < N; i += lanes) {
            const B v = B::load_unaligned(e + i);
            const auto in_reach = ((v - b + bias) & high) == zero;
            if (immediates) {
                if (!xsimd::all(in_reach | (((v + bias) & high) == zero))) return false;
            } else {
                if (!xsimd::all(in_reach)) return false;
            }
        }
        return true;
    }
}

/// Quick rejection from the first vector register only: true when the (sizeof(T), dbits/8)
/// encoder certainly fails — element 0 is not an immediate (so it is the base B) and some element
/// of the first register is neither an immediate nor within reach of B. False means "maybe".
/// Used to turn away incompressible lines with one combined branch for all base sizes.
template <class T, std::uint32_t N>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool
bdi_first_register_rejects(const std::byte* p, unsigned dbits, bool immediates) noexcept {
    using B = simd_batch<T>;
    constexpr std::size_t lanes = simd_lanes<T>;
    if constexpr (!simd_enabled || N < lanes) {
        return false;
    } else {
        const T e0 = load_le<T>(p);
        if (immediates && fits_sext<T>(e0, dbits)) return false;
        const B bias(static_cast<T>(T{1} << (dbits - 1)));
        const B high(static_cast<T>(~static_cast<T>((T{1} << dbits) - 1)));
        const B zero(T{0});
        const B v = B::load_unaligned(reinterpret_cast<const T*>(p));
        const auto in_reach = ((v - B(e0) + bias) & high) == zero;
        if (immediates) return !xsimd::all(in_reach | (((v + bias) & high) == zero));
        return !xsimd::all(in_reach);
    }
}

/// Runtime-count wrapper of the SIMD kernel (N = 2…64 elements).
template <class T>
[[nodiscard]] bool bdi_fits(const std::byte* p, std::uint32_t n, unsigned dbits,
                            bool immediates) noexcept {
    switch (n) {
    case 64:
        return bdi_fits<T, 64>(p, dbits, immediates);
    case 32:
        return bdi_fits<T, 32>(p, dbits, immediates);
    case 16:
        return bdi_fits<T, 16>(p, dbits, immediates);
    case 8:
        return bdi_fits<T, 8>(p, dbits, immediates);
    case 4:
        return bdi_fits<T, 4>(p, dbits, immediates);
    default:
        return bdi_fits_scalar<T>(p, n, dbits, immediates).ok;
    }
}

/// The smallest delta size d ∈ {1, 2, 4}, d < sizeof(T), for which the (sizeof(T), d) encoder
/// fits, or 0 when none does. Fitting is monotone in d (if (k, d) fits, (k, 2d) fits: the new
/// base and every new non-immediate are within 2^(8d−1) of the old base, so their differences
/// fit sext(8d + 1) ⊆ sext(16d)), so the largest d is tested first and failures stop early.
template <class T, std::uint32_t N>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t bdi_min_delta(const std::byte* p,
                                                               bool immediates) noexcept {
    std::uint32_t best = 0;
    for (std::uint32_t d = sizeof(T) / 2; d >= 1; d /= 2) {
        if (!bdi_fits<T, N>(p, 8 * d, immediates)) break;
        best = d;
    }
    return best;
}

} // namespace memsub::compression::detail
