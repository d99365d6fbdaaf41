// Differential tests of the SIMD kernels on every x86 width: what each architecture's kernels
// say about one buffer, filled by `evaluate<Arch>`. The portable build compiles the SSE2
// baseline only, so the AVX2 and AVX-512 instantiations live in their own translation units
// (simd_wide_avx2.cpp, simd_wide_avx512.cpp) compiled for those instruction sets with
// `#pragma GCC target`; test_simd_wide.cpp runs them when the CPU has them and compares every
// result with the scalar references, bit for bit.
//
// Each wide unit's entry point is `flatten`ed: every call is inlined into it, so the unit defines
// no inline function that another unit also defines (no wide code can replace a baseline copy at
// link time) and no 256/512-bit value crosses a function boundary (whose ABI GCC 12 does not
// derive consistently from the pragma for out-of-line template instances at -O1).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <memsub/compression/bdi.hpp>

namespace memsub_test::simd_wide {

inline constexpr std::size_t max_bdi_configs = 8;

/// Every kernel result for the three line sizes (index 0/1/2 = 32/64/128 B; a line of L bytes is
/// the first L bytes of the buffer).
struct results {
    // shared helpers
    std::array<bool, 3> zero{}, periodic8{}, periodic4{};
    std::array<std::array<bool, 3>, 3> repeated{}; // [L][u64, u32, u16]
    // BDI kernels: [L][k: 8, 4, 2][d: 1, 2, 4][immediates]
    std::array<std::array<std::array<std::array<bool, 2>, 3>, 3>, 3> bdi_fits{}, bdi_rejects{},
        bdi_test{}, bdi_first_fails{};
    std::array<std::array<std::array<std::uint32_t, 2>, 3>, 3> bdi_min_delta{}; // [L][k][imm]
    std::array<std::array<std::array<bool, 2>, 6>, 3> bdi_encoder{}; // [L][enc − 2][imm]
    std::array<unsigned, 3> bdi_trivial{};
    std::array<std::array<memsub::compression::bdi::choice, max_bdi_configs>, 3> bdi_choice{};
    // FPC
    std::array<std::uint32_t, 3> fpc_size{};
    std::array<std::array<std::uint32_t, 32>, 3> fpc_codes{};
    // C-PACK (AllNonZero size kernel)
    std::array<std::uint32_t, 3> cpack_size{};
    // BPC: the planes part of the size, the transform, both inverses, a 32×32 transpose
    std::array<std::uint32_t, 3> bpc_plane_bits{};
    std::array<std::array<std::uint32_t, 33>, 3> bpc_dbp{}, bpc_dbx{};
    std::array<std::array<std::uint32_t, 32>, 3> bpc_words{}, bpc_kernel_words{};
    std::array<std::uint32_t, 32> transposed{};
};

/// BDI compressors (one per line size) whose `choose_with<Arch>` is evaluated.
struct bdi_configs {
    std::array<std::array<const memsub::compression::bdi*, max_bdi_configs>, 3> c{};
    std::size_t count = 0;
};

/// Implemented in the wide translation units (false/no-op when the compiler could not target
/// the instruction set there, or under AddressSanitizer, see simd_wide_avx2.cpp).
bool avx2_compiled() noexcept;
void avx2_evaluate(const std::byte* buf, const bdi_configs& cfg, results& out) noexcept;
bool avx512_compiled() noexcept;
void avx512_evaluate(const std::byte* buf, const bdi_configs& cfg, results& out) noexcept;

} // namespace memsub_test::simd_wide

/// The entry points of a wide unit that could not be compiled for its instruction set (or is
/// left empty under AddressSanitizer): `<Name>_compiled()` is false and nothing is evaluated.
#define MEMSUB_TEST_SIMD_WIDE_ABSENT(Name)                                                         \
    namespace memsub_test::simd_wide {                                                             \
    bool Name##_compiled() noexcept {                                                              \
        return false;                                                                              \
    }                                                                                              \
    void Name##_evaluate(const std::byte*, const bdi_configs&, results&) noexcept {}               \
    }
