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

/// SIMD kernel: same answer as `bdi_fits_scalar(...).ok`.
template <class T>
[[nodiscard]] bool bdi_fits(const std::byte* p, std::uint32_t n, unsigned dbits,
                            bool immediates) noexcept {
    using B = simd_batch<T>;
    constexpr std::size_t lanes = simd_lanes<T>;
    if constexpr (!simd_enabled) return bdi_fits_scalar<T>(p, n, dbits, immediates).ok;
    if (n < lanes || n % lanes != 0) return bdi_fits_scalar<T>(p, n, dbits, immediates).ok;

    const auto* e = reinterpret_cast<const T*>(p);
    // fits sext(N) ⇔ ((v + 2^(N−1)) & ~(2^N − 1)) == 0, computed modulo 2^W per lane.
    const B bias(static_cast<T>(T{1} << (dbits - 1)));
    const B high(static_cast<T>(~static_cast<T>((T{1} << dbits) - 1)));
    const B zero(T{0});
    T base;
    if (immediates) {
        auto imm = ((B::load_unaligned(e) + bias) & high) == zero;
        for (std::size_t i = lanes; i < n; i += lanes)
            imm = imm & (((B::load_unaligned(e + i) + bias) & high) == zero);
        if (xsimd::all(imm)) return true;
        base = load_le<T>(p + bdi_first_non_immediate<T>(p, n, dbits) * sizeof(T));
    } else {
        base = load_le<T>(p);
    }
    const B b(base);
    if (immediates) {
        auto ok = zero == zero;
        for (std::size_t i = 0; i < n; i += lanes) {
            const B v = B::load_unaligned(e + i);
            ok = ok & ((((v + bias) & high) == zero) | (((v - b + bias) & high) == zero));
        }
        return xsimd::all(ok);
    }
    auto ok = ((B::load_unaligned(e) - b + bias) & high) == zero;
    for (std::size_t i = lanes; i < n; i += lanes)
        ok = ok & (((B::load_unaligned(e + i) - b + bias) & high) == zero);
    return xsimd::all(ok);
}

} // namespace memsub::compression::detail
