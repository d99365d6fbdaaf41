// memsub — shared scalar and xsimd helpers for the line compressors.
//
// Every SIMD kernel in compression/detail has a scalar reference beside it; the differential
// tests (tests/compression/test_simd_common.cpp and the per-algorithm tests) assert that both
// agree bit for bit. Every kernel takes the xsimd architecture as a template parameter (`Arch`,
// default `simd_arch` = xsimd's default architecture: SSE2 in the portable build, AVX2/AVX-512
// with -march=native), so the differential tests can also instantiate the wide paths explicitly
// (tests/compression/simd_wide_*.cpp) and run them when the CPU has them. The SIMD path is
// used only on little-endian hosts (compressors.md 'Notation' reads words little-endian, so a lane
// load is then exactly such a word); elsewhere the scalar code runs.
//
// Lane loads go through xsimd's unaligned load on the line's bytes: the pointer is only handed
// to the load intrinsic (which may alias anything), never dereferenced as T.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

// GCC 12 reports -W(maybe-)uninitialized inside its own AVX-512 intrinsic headers (the
// `_mm512_undefined_*` placeholders, GCC PR 105593) whenever xsimd's AVX-512 kernels are
// inlined; the diagnostic state at the intrinsic's location decides, so it is silenced here,
// around the include only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <xsimd/xsimd.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <memsub/config.hpp>
#include <memsub/core/bits.hpp>

namespace memsub::compression::detail {

/// memsub::popcount64 (core/bits.hpp): inline without a POPCNT instruction.
using memsub::popcount64;

/// True when the xsimd kernels may be used (little-endian host).
inline constexpr bool simd_enabled = std::endian::native == std::endian::little;

/// The architecture the compressors use (the build's best).
using simd_arch = xsimd::default_arch;
template <class T, class Arch = simd_arch>
using simd_batch = xsimd::batch<T, Arch>;
template <class T, class Arch = simd_arch>
inline constexpr std::size_t simd_lanes = simd_batch<T, Arch>::size;

/// Bit i = lane i of a comparison result (xsimd 8.1 has no mask extraction): one movemask on
/// x86 (a mask register is already one on AVX-512), a store and a loop elsewhere.
template <class T, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t
lane_mask(const xsimd::batch_bool<T, Arch>& b) noexcept {
    constexpr std::size_t lanes = xsimd::batch_bool<T, Arch>::size;
    constexpr std::uint64_t all = lanes >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << lanes) - 1;
#if defined(__x86_64__) || defined(__i386__)
    if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>) {
        using R = typename xsimd::batch_bool<T, Arch>::register_type;
        return static_cast<std::uint64_t>(static_cast<R>(b)) & all;
    } else if constexpr (std::is_base_of_v<xsimd::avx, Arch> && std::is_integral_v<T>) {
        const __m256i r = b;
        const __m128i lo = _mm256_castsi256_si128(r), hi = _mm256_extractf128_si256(r, 1);
        if constexpr (sizeof(T) == 8)
            return static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(r)));
        else if constexpr (sizeof(T) == 4)
            return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(r)));
        else if constexpr (sizeof(T) == 2)
            return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)));
        else
            return static_cast<std::uint32_t>(_mm_movemask_epi8(lo)) |
                   (std::uint64_t{static_cast<std::uint32_t>(_mm_movemask_epi8(hi))} << 16);
    } else if constexpr (std::is_base_of_v<xsimd::sse2, Arch> && std::is_integral_v<T>) {
        const __m128i r = b;
        if constexpr (sizeof(T) == 8)
            return static_cast<std::uint32_t>(_mm_movemask_pd(_mm_castsi128_pd(r)));
        else if constexpr (sizeof(T) == 4)
            return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(r)));
        else if constexpr (sizeof(T) == 2)
            return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(r, r))) & 0xFFu;
        else
            return static_cast<std::uint32_t>(_mm_movemask_epi8(r));
    } else
#endif
    {
        alignas(64) std::array<bool, lanes> t{};
        b.store_aligned(t.data());
        std::uint64_t m = 0;
        for (std::size_t i = 0; i < lanes; ++i) m |= std::uint64_t{t[i]} << i;
        return m;
    }
}

/// `Arch`, or a narrower x86 architecture (SSE2) when a register of `Arch` is wider than
/// `Bytes` (an AVX-512 register holds 64 bytes, a 32-byte line half of one).
template <class Arch, std::size_t Bytes, class = void>
struct arch_for_bytes {
    using type = Arch;
};
#if defined(__x86_64__) || defined(__i386__)
template <class Arch, std::size_t Bytes>
struct arch_for_bytes<Arch, Bytes,
                      std::enable_if_t<(xsimd::batch<std::uint8_t, Arch>::size > Bytes)>> {
    using type = xsimd::sse2;
};
#endif
template <class Arch, std::size_t Bytes>
using arch_for_bytes_t = typename arch_for_bytes<Arch, Bytes>::type;

/// Element i of width sizeof(T) of a line, read little-endian (docs/mechanisms/compressors.md,
/// 'Notation').
template <class T>
[[nodiscard]] MEMSUB_ALWAYS_INLINE T load_le(const std::byte* p) noexcept {
    static_assert(std::is_unsigned_v<T>);
    if constexpr (std::endian::native == std::endian::little) {
        T v;
        std::memcpy(&v, p, sizeof(T));
        return v;
    } else {
        T v = 0;
        for (std::size_t i = sizeof(T); i-- > 0;)
            v = static_cast<T>((v << 8) | std::to_integer<T>(p[i]));
        return v;
    }
}

/// Stores `v` little-endian at `p`.
template <class T>
MEMSUB_ALWAYS_INLINE void store_le(std::byte* p, T v) noexcept {
    static_assert(std::is_unsigned_v<T>);
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(p, &v, sizeof(T));
    } else {
        for (std::size_t i = 0; i < sizeof(T); ++i)
            p[i] = static_cast<std::byte>(static_cast<std::uint8_t>(v >> (8 * i)));
    }
}

/// "fits sext(N)" for an unsigned W-bit value v (docs/mechanisms/compressors.md, 'Notation'): as a
/// signed W-bit number, −2^(N−1) ≤ v ≤ 2^(N−1)−1 — the full two's-complement range (P-G5). 1 ≤ N ≤
/// W.
template <class T>
[[nodiscard]] constexpr bool fits_sext(T v, unsigned n) noexcept {
    static_assert(std::is_unsigned_v<T>);
    constexpr unsigned w = sizeof(T) * 8;
    if (n >= w) return true;
    const T bias = static_cast<T>(T{1} << (n - 1));
    return static_cast<T>(static_cast<T>(v + bias) >> n) == 0;
}

/// Sign-extends the low `n` bits of `v` to T (1 ≤ n ≤ W).
template <class T>
[[nodiscard]] constexpr T sign_extend(std::uint64_t v, unsigned n) noexcept {
    static_assert(std::is_unsigned_v<T>);
    if (n >= 64) return static_cast<T>(v);
    const std::uint64_t m = std::uint64_t{1} << (n - 1);
    v &= (std::uint64_t{1} << n) - 1;
    return static_cast<T>((v ^ m) - m);
}

// ---- zero / repeat detection ------------------------------------------------------------------

/// Scalar reference: all bytes of the line are zero.
[[nodiscard]] inline bool is_zero_line_scalar(std::span<const std::byte> line) noexcept {
    for (std::byte b : line)
        if (b != std::byte{0}) return false;
    return true;
}

/// Scalar reference: all elements of width sizeof(T) are equal (line size a multiple of T).
template <class T>
[[nodiscard]] bool is_repeated_scalar(std::span<const std::byte> line) noexcept {
    const T first = load_le<T>(line.data());
    for (std::size_t i = sizeof(T); i < line.size(); i += sizeof(T))
        if (load_le<T>(line.data() + i) != first) return false;
    return true;
}

/// SIMD: all bytes zero. Line size a multiple of 8.
template <class Arch = simd_arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool is_zero_line(std::span<const std::byte> line) noexcept {
    using B = simd_batch<std::uint64_t, Arch>;
    constexpr std::size_t lanes = simd_lanes<std::uint64_t, Arch>;
    const std::size_t n = line.size() / 8;
    if constexpr (!simd_enabled) return is_zero_line_scalar(line);
    if (n < lanes || n % lanes != 0) return is_zero_line_scalar(line);
    const auto* p = reinterpret_cast<const std::uint64_t*>(line.data());
    B acc = B::load_unaligned(p);
    for (std::size_t i = lanes; i < n; i += lanes) acc |= B::load_unaligned(p + i);
    return xsimd::all(acc == B(std::uint64_t{0}));
}

/// SIMD: all elements of width sizeof(T) equal.
template <class T, class Arch = simd_arch>
[[nodiscard]] bool is_repeated(std::span<const std::byte> line) noexcept {
    using B = simd_batch<T, Arch>;
    constexpr std::size_t lanes = simd_lanes<T, Arch>;
    const std::size_t n = line.size() / sizeof(T);
    if constexpr (!simd_enabled) return is_repeated_scalar<T>(line);
    if (n < lanes || n % lanes != 0) return is_repeated_scalar<T>(line);
    const auto* p = reinterpret_cast<const T*>(line.data());
    const B first(load_le<T>(line.data()));
    auto eq = B::load_unaligned(p) == first;
    for (std::size_t i = lanes; i < n; i += lanes) eq = eq & (B::load_unaligned(p + i) == first);
    return xsimd::all(eq);
}

/// SIMD: the line repeats with period `Period` bytes (line[i] == line[i + Period] for every i),
/// i.e. all `Period`-byte elements are equal. L is the line size; compares the line with itself
/// shifted by `Period` bytes, a register of bytes at a time.
template <std::uint32_t Period, std::uint32_t L, class Arch = simd_arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool is_periodic(const std::byte* p) noexcept {
    using B = simd_batch<std::uint8_t, Arch>;
    constexpr std::size_t lanes = simd_lanes<std::uint8_t, Arch>;
    if constexpr (!simd_enabled || lanes > L - Period) {
        static_assert(L - Period >= 8);
        // 8-byte chunks covering bytes [0, L − Period); the last one may overlap
        for (std::uint32_t i = 0; i + 8 <= L - Period; i += 8)
            if (load_le<std::uint64_t>(p + i) != load_le<std::uint64_t>(p + i + Period))
                return false;
        constexpr std::uint32_t tail = L - Period - 8;
        return load_le<std::uint64_t>(p + tail) == load_le<std::uint64_t>(p + tail + Period);
    } else {
        const auto* b = reinterpret_cast<const std::uint8_t*>(p);
        constexpr std::size_t last = L - Period - lanes;
        auto eq = B::load_unaligned(b + last) == B::load_unaligned(b + last + Period);
        for (std::size_t k = 0; k < last; k += lanes)
            eq = eq & (B::load_unaligned(b + k) == B::load_unaligned(b + k + Period));
        return xsimd::all(eq);
    }
}

} // namespace memsub::compression::detail
