// memsub — BDI delta-fit kernels: scalar reference and xsimd (docs/mechanisms/compressors.md §1.1).
//
// One (k, d) encoder over a line of n = L/k elements of type T (k = sizeof(T)) succeeds when
//   1. (BΔI only) each element that fits sext(8d) is an immediate (implicit zero base);
//   2. the first non-immediate element (in index order) is the explicit base B
//      (B+Δ: B = element 0 and there are no immediates);
//   3. every other non-immediate v has (v − B) mod 2^(8k) fitting sext(8d).
// The SIMD kernel answers the same yes/no question with two vector passes: "all immediates?",
// then, after a scalar scan for the base, "every lane an immediate or within reach of B?".
// The size path (`bdi::choose`) has two shapes, both exact:
//   * dense lines: per base size the smallest fitting d, largest d first (monotone), with
//     `bdi_test` — compile-time sizes, the base found from a lane mask of the immediates (one
//     count-trailing-zeros), no data-dependent branch inside an encoder — after a first-register
//     rejection (`bdi_first_register_fails`);
//   * mostly-zero lines: per-byte sign-extension flags (`bdi_line`) give every encoder's
//     immediates and base at once; an encoder with at most one non-immediate fits without a
//     reach test (`bdi_trivially_fitting`), the others need one pass (`bdi_encoder_fits`).
#pragma once

#include <array>
#include <bit>
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
template <class T, std::uint32_t N, class Arch = simd_arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool bdi_fits(const std::byte* p, unsigned dbits,
                                                 bool immediates) noexcept {
    using B = simd_batch<T, Arch>;
    constexpr std::size_t lanes = simd_lanes<T, Arch>;
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
template <class T, std::uint32_t N, class Arch = simd_arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool
bdi_first_register_rejects(const std::byte* p, unsigned dbits, bool immediates) noexcept {
    using B = simd_batch<T, Arch>;
    constexpr std::size_t lanes = simd_lanes<T, Arch>;
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
template <class T, class Arch = simd_arch>
[[nodiscard]] bool bdi_fits(const std::byte* p, std::uint32_t n, unsigned dbits,
                            bool immediates) noexcept {
    switch (n) {
    case 64:
        return bdi_fits<T, 64, Arch>(p, dbits, immediates);
    case 32:
        return bdi_fits<T, 32, Arch>(p, dbits, immediates);
    case 16:
        return bdi_fits<T, 16, Arch>(p, dbits, immediates);
    case 8:
        return bdi_fits<T, 8, Arch>(p, dbits, immediates);
    case 4:
        return bdi_fits<T, 4, Arch>(p, dbits, immediates);
    default:
        return bdi_fits_scalar<T>(p, n, dbits, immediates).ok;
    }
}

/// The smallest delta size d ∈ {1, 2, 4}, d < sizeof(T), for which the (sizeof(T), d) encoder
/// fits, or 0 when none does. Fitting is monotone in d (if (k, d) fits, (k, 2d) fits: the new
/// base and every new non-immediate are within 2^(8d−1) of the old base, so their differences
/// fit sext(8d + 1) ⊆ sext(16d)), so the largest d is tested first and failures stop early.
template <class T, std::uint32_t N, class Arch = simd_arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t bdi_min_delta(const std::byte* p,
                                                               bool immediates) noexcept {
    std::uint32_t best = 0;
    for (std::uint32_t d = sizeof(T) / 2; d >= 1; d /= 2) {
        if (!bdi_fits<T, N, Arch>(p, 8 * d, immediates)) break;
        best = d;
    }
    return best;
}

// ---- the size path: one encoder, compile-time sizes, no scalar scans ----------------------

/// Lanes equal to zero. On plain SSE2 the 64-bit compare is spelled out (xsimd emulates it in a
/// function GCC does not always inline).
template <class T, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE xsimd::batch_bool<T, Arch>
bdi_is_zero(const simd_batch<T, Arch>& x) noexcept {
#if defined(__x86_64__) || defined(__i386__)
    if constexpr (sizeof(T) == 8 && std::is_base_of_v<xsimd::sse2, Arch> &&
                  !std::is_base_of_v<xsimd::sse4_1, Arch>) {
        const __m128i z = _mm_cmpeq_epi32(x, _mm_setzero_si128());
        return xsimd::batch_bool<T, Arch>(_mm_and_si128(z, _mm_shuffle_epi32(z, 0xB1)));
    } else
#endif
    {
        return x == simd_batch<T, Arch>(T{0});
    }
}

/// (k, d) encoder constants: fits sext(8d) ⇔ ((v + bias) & high) == 0 (modulo 2^(8k)).
template <class T, unsigned D>
struct bdi_delta_constants {
    static constexpr T bias = static_cast<T>(T{1} << (8 * D - 1));
    static constexpr T high = static_cast<T>(~static_cast<T>((T{1} << (8 * D)) - 1));
};

/// True when the (sizeof(T), D) encoder certainly fails, judged from the first register of
/// elements: the first non-immediate in it is the line's base, and some element of the register
/// is neither an immediate nor within its reach. False means "maybe" (also when the register
/// holds only immediates).
template <class T, std::uint32_t N, unsigned D, bool Imm, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool bdi_first_register_fails(const std::byte* p) noexcept {
    using B = simd_batch<T, Arch>;
    constexpr std::size_t lanes = simd_lanes<T, Arch>;
    static_assert(N >= lanes);
    using K = bdi_delta_constants<T, D>;
    const B v = B::load_unaligned(reinterpret_cast<const T*>(p));
    std::uint32_t j = 0;
    xsimd::batch_bool<T, Arch> imm{};
    if constexpr (Imm) {
        imm = bdi_is_zero<T, Arch>((v + B(K::bias)) & B(K::high));
        // element 0 not an immediate (dense data): it is the base, known before the mask
        if (!fits_sext<T>(load_le<T>(p), 8 * D))
            j = 0;
        else
            j = static_cast<std::uint32_t>(
                std::countr_zero(~lane_mask(imm) | (std::uint64_t{1} << (lanes - 1))));
    }
    const B base(static_cast<T>(load_le<T>(p + std::size_t{j} * sizeof(T)) - K::bias));
    auto ok = bdi_is_zero<T, Arch>((v - base) & B(K::high));
    if constexpr (Imm) ok = ok | imm;
    return !xsimd::all(ok);
}

/// Same answer as `bdi_fits_scalar(p, N, 8·D, Imm).ok`: immediates as a lane mask, the base
/// found with one count-trailing-zeros (element 0 directly when it is no immediate, a branch that
/// follows the data's density), then "immediate or within reach" for every lane.
template <class T, std::uint32_t N, unsigned D, bool Imm, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool bdi_test(const std::byte* p) noexcept {
    using B = simd_batch<T, Arch>;
    constexpr std::size_t lanes = simd_lanes<T, Arch>;
    static_assert(N % lanes == 0 && N <= 64);
    constexpr std::size_t R = N / lanes;
    using K = bdi_delta_constants<T, D>;
    const auto* e = reinterpret_cast<const T*>(p);
    std::array<B, R> v;
    for (std::size_t r = 0; r < R; ++r) v[r] = B::load_unaligned(e + r * lanes);
    std::uint32_t j = 0;
    std::array<xsimd::batch_bool<T, Arch>, R> imm{};
    if constexpr (Imm) {
        std::uint64_t m = 0;
        for (std::size_t r = 0; r < R; ++r) {
            imm[r] = bdi_is_zero<T, Arch>((v[r] + B(K::bias)) & B(K::high));
            m |= lane_mask(imm[r]) << (r * lanes);
        }
        // the first non-immediate is the base; none: every lane is an immediate (any base)
        // element 0 not an immediate (dense data): it is the base, known before the mask
        if (!fits_sext<T>(load_le<T>(p), 8 * D))
            j = 0;
        else
            j = static_cast<std::uint32_t>(std::countr_zero(~m | (std::uint64_t{1} << (N - 1))));
    }
    const B base(static_cast<T>(load_le<T>(p + std::size_t{j} * sizeof(T)) - K::bias));
    auto ok = bdi_is_zero<T, Arch>((v[0] - base) & B(K::high));
    if constexpr (Imm) ok = ok | imm[0];
    for (std::size_t r = 1; r < R; ++r) {
        auto o = bdi_is_zero<T, Arch>((v[r] - base) & B(K::high));
        if constexpr (Imm) o = o | imm[r];
        ok = ok & o;
    }
    return xsimd::all(ok);
}

/// The (sizeof(T), D) encoder: a quick first-register rejection, then the full test.
template <class T, std::uint32_t N, unsigned D, bool Imm, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool bdi_fits_fast(const std::byte* p) noexcept {
    if constexpr (N > simd_lanes<T, Arch>)
        if (bdi_first_register_fails<T, N, D, Imm, Arch>(p)) return false;
    return bdi_test<T, N, D, Imm, Arch>(p);
}

/// The smallest delta size d ∈ {1, 2, 4} (d < sizeof(T)) whose encoder fits, 0 if none
/// (monotone in d, see `bdi_min_delta`: the largest d is tested first, a failure stops). The
/// caller has already run the first-register test of the largest d.
template <class T, std::uint32_t N, bool Imm, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t bdi_smallest_delta(const std::byte* p) noexcept {
    if constexpr (sizeof(T) == 8) {
        if (!bdi_test<T, N, 4, Imm, Arch>(p)) return 0;
        if (!bdi_fits_fast<T, N, 2, Imm, Arch>(p)) return 4;
        return bdi_fits_fast<T, N, 1, Imm, Arch>(p) ? 1 : 2;
    } else if constexpr (sizeof(T) == 4) {
        if (!bdi_test<T, N, 2, Imm, Arch>(p)) return 0;
        return bdi_fits_fast<T, N, 1, Imm, Arch>(p) ? 1 : 2;
    } else {
        return bdi_test<T, N, 1, Imm, Arch>(p) ? 1 : 0;
    }
}

// ---- every encoder of a line from sign-extension flags ------------------------------------

/// Sign-extension flags of one register of bytes: bit i set when byte i equals the sign
/// extension of byte i−1 (0x00 after a byte < 0x80, 0xFF after one ≥ 0x80). An element of k
/// bytes fits sext(8d) exactly when the flags of its bytes d … k−1 are set. Bits at multiples of
/// 8 compare with a zero byte and are never used (no element starts elsewhere).
template <class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t
sext_flags(const simd_batch<std::uint8_t, Arch>& x) noexcept {
    using U64 = simd_batch<std::uint64_t, Arch>;
    using I8 = simd_batch<std::int8_t, Arch>;
    // byte i−1 moved to byte i inside each 8-byte lane
    const I8 prev = xsimd::bitwise_cast<I8>(xsimd::bitwise_cast<U64>(x) << 8);
    const I8 ext = xsimd::bitwise_cast(prev < I8(std::int8_t{0}));
    return lane_mask(xsimd::bitwise_cast<I8>(x) == ext);
}

/// `bits` (a K-bit pattern) repeated over a 64-bit word.
template <unsigned K>
[[nodiscard]] constexpr std::uint64_t bdi_repeat(std::uint64_t bits) noexcept {
    std::uint64_t m = 0;
    for (unsigned i = 0; i < 64; i += K) m |= bits << i;
    return m;
}

/// For K-bit groups: the top bit (K−1) of a group is set in the result iff bits D … K−1 of the
/// group are all set in `x` (D = 0: the whole group).
template <unsigned K, unsigned D>
[[nodiscard]] MEMSUB_ALWAYS_INLINE constexpr std::uint64_t
bdi_groups_set(std::uint64_t x) noexcept {
    constexpr std::uint64_t need =
        bdi_repeat<K>(((std::uint64_t{1} << K) - 1) & ~((std::uint64_t{1} << D) - 1));
    constexpr std::uint64_t low = bdi_repeat<K>((std::uint64_t{1} << (K - 1)) - 1);
    constexpr std::uint64_t top = bdi_repeat<K>(std::uint64_t{1} << (K - 1));
    const std::uint64_t missing = ~x & need;
    // a group with a missing bit carries into (or already has) its top bit
    return ~(((missing & low) + low) | missing) & top;
}

/// A line's registers and sign-extension flags (what the per-encoder tests below share).
template <std::uint32_t L, class Arch>
struct bdi_line {
    using B8 = simd_batch<std::uint8_t, Arch>;
    static constexpr std::size_t bytes = B8::size;
    static_assert(L % bytes == 0 && bytes <= 64);
    static constexpr std::size_t regs = L / bytes;
    static constexpr std::uint32_t words = (L + 63) / 64;
    std::array<B8, regs> reg;
    std::array<std::uint64_t, words> flags{}; ///< sign-extension flags (immediates only)

    template <bool Imm>
    MEMSUB_ALWAYS_INLINE void load(const std::byte* p) noexcept {
        for (std::size_t r = 0; r < regs; ++r)
            reg[r] = B8::load_unaligned(reinterpret_cast<const std::uint8_t*>(p) + r * bytes);
        if constexpr (Imm)
            for (std::size_t r = 0; r < regs; ++r)
                flags[r * bytes / 64] |= sext_flags<Arch>(reg[r]) << (r * bytes % 64);
    }
};

/// The immediates of the (sizeof(T), D) encoder as group top bits, and the index of its first
/// non-immediate element (its base; n − 1 when there is none, then any base will do).
template <class T, unsigned D, std::uint32_t L, class Arch>
MEMSUB_ALWAYS_INLINE void bdi_immediates(const bdi_line<L, Arch>& line,
                                         std::array<std::uint64_t, (L + 63) / 64>& imm,
                                         std::uint32_t& first, bool& at_most_one) noexcept {
    constexpr unsigned k = sizeof(T);
    constexpr std::uint32_t n = L / k, W = (L + 63) / 64;
    constexpr std::uint64_t valid =
        L >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (L % 64)) - 1;
    constexpr std::uint64_t top = bdi_repeat<k>(std::uint64_t{1} << (k - 1)) & valid;
    // The sentinel bit 63 keeps the count free of a zero test (and of a branch).
    constexpr std::uint64_t sentinel = std::uint64_t{1} << 63;
    for (std::uint32_t w = 0; w < W; ++w) imm[w] = bdi_groups_set<k, D>(line.flags[w]);
    const std::uint64_t non0 = ~imm[0] & top;
    auto pos = static_cast<std::uint32_t>(std::countr_zero(non0 | sentinel));
    bool few = (non0 & (non0 - 1)) == 0;
    if constexpr (W > 1) {
        const std::uint64_t non1 = ~imm[1] & top;
        const auto pos1 = 64 + static_cast<std::uint32_t>(std::countr_zero(non1 | sentinel));
        pos = non0 == 0 ? pos1 : pos;
        few = non0 == 0 ? (non1 & (non1 - 1)) == 0 : few && non1 == 0;
    }
    first = pos / k;
    if constexpr (L < 64) first = first < n ? first : n - 1;
    at_most_one = few;
}

/// Whether the (sizeof(T), D) encoder fits the line: immediates and base from the flags, then
/// one pass of "delta to the base fits" (no data-dependent branch).
template <class T, unsigned D, std::uint32_t L, bool Imm, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool bdi_encoder_fits(const std::byte* p,
                                                         const bdi_line<L, Arch>& line) noexcept {
    using B = simd_batch<T, Arch>;
    using B8 = simd_batch<std::uint8_t, Arch>;
    using Line = bdi_line<L, Arch>;
    constexpr unsigned k = sizeof(T);
    constexpr std::uint32_t W = Line::words;
    constexpr std::uint64_t valid =
        L >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (L % 64)) - 1;
    constexpr std::uint64_t top = bdi_repeat<k>(std::uint64_t{1} << (k - 1)) & valid;
    using K = bdi_delta_constants<T, D>;
    std::array<std::uint64_t, W> imm{};
    std::uint32_t j = 0;
    if constexpr (Imm) {
        bool few;
        bdi_immediates<T, D, L, Arch>(line, imm, j, few);
    }
    const B base(static_cast<T>(load_le<T>(p + std::size_t{j} * k) - K::bias));
    std::array<std::uint64_t, W> reach{};
    for (std::size_t r = 0; r < Line::regs; ++r) {
        const B x = (xsimd::bitwise_cast<B>(line.reg[r]) - base) & B(K::high);
        // an in-reach lane is all zero bytes
        reach[r * Line::bytes / 64] |= lane_mask(xsimd::bitwise_cast<B8>(x) == B8(std::uint8_t{0}))
                                       << (r * Line::bytes % 64);
    }
    bool all = true;
    for (std::uint32_t w = 0; w < W; ++w)
        all = all && ((bdi_groups_set<k, 0>(reach[w]) | imm[w]) & top) == top;
    return all;
}

/// Encoder i (encoding i + 2: 0 = Base8-Δ1 … 5 = Base2-Δ1) of the line.
template <std::uint32_t L, bool Imm, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE bool bdi_encoder_fits(unsigned i, const std::byte* p,
                                                         const bdi_line<L, Arch>& line) noexcept {
    switch (i) {
    case 0:
        return bdi_encoder_fits<std::uint64_t, 1, L, Imm, Arch>(p, line);
    case 1:
        return bdi_encoder_fits<std::uint64_t, 2, L, Imm, Arch>(p, line);
    case 2:
        return bdi_encoder_fits<std::uint64_t, 4, L, Imm, Arch>(p, line);
    case 3:
        return bdi_encoder_fits<std::uint32_t, 1, L, Imm, Arch>(p, line);
    case 4:
        return bdi_encoder_fits<std::uint32_t, 2, L, Imm, Arch>(p, line);
    default:
        return bdi_encoder_fits<std::uint16_t, 1, L, Imm, Arch>(p, line);
    }
}

/// Encoders that fit without a reach test: at most one element is not an immediate (bit i as
/// in `bdi_encoder_fits`).
template <std::uint32_t L, class Arch>
[[nodiscard]] MEMSUB_ALWAYS_INLINE unsigned
bdi_trivially_fitting(const bdi_line<L, Arch>& line) noexcept {
    std::array<std::uint64_t, (L + 63) / 64> imm{};
    std::uint32_t j = 0;
    unsigned out = 0;
    bool few = false;
    bdi_immediates<std::uint64_t, 1, L, Arch>(line, imm, j, few);
    out |= unsigned{few} << 0;
    bdi_immediates<std::uint64_t, 2, L, Arch>(line, imm, j, few);
    out |= unsigned{few} << 1;
    bdi_immediates<std::uint64_t, 4, L, Arch>(line, imm, j, few);
    out |= unsigned{few} << 2;
    bdi_immediates<std::uint32_t, 1, L, Arch>(line, imm, j, few);
    out |= unsigned{few} << 3;
    bdi_immediates<std::uint32_t, 2, L, Arch>(line, imm, j, few);
    out |= unsigned{few} << 4;
    bdi_immediates<std::uint16_t, 1, L, Arch>(line, imm, j, few);
    out |= unsigned{few} << 5;
    return out;
}

} // namespace memsub::compression::detail
