// AVX-512 (F, CD, DQ, BW, VL) instantiations of the compression SIMD kernels for the
// differential tests (see simd_wide.hpp and simd_wide_avx2.cpp for how this unit is compiled
// for an instruction set the build does not target; run only after a runtime CPU check).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__AVX512BW__)
#pragma GCC target("avx2,avx512f,avx512cd,avx512dq,avx512bw,avx512vl")
#ifndef __AVX2__
#define __SSE3__ 1
#define __SSSE3__ 1
#define __SSE4_1__ 1
#define __SSE4_2__ 1
#define __AVX__ 1
#define __AVX2__ 1
#endif
#define __AVX512F__ 1
#define __AVX512CD__ 1
#define __AVX512DQ__ 1
#define __AVX512BW__ 1
#define __AVX512VL__ 1
#endif

#if defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512CD__) &&                     \
    !defined(__SANITIZE_ADDRESS__)
#include "simd_wide_kernels.hpp"

namespace memsub_test::simd_wide {
namespace {
// Each part is flattened on its own (every call inlined; see simd_wide.hpp).
template <std::uint32_t L, std::size_t Li, part P>
[[gnu::flatten, gnu::noinline]] void run_part(const std::byte* buf, const bdi_configs& cfg,
                                              results& out) noexcept {
    evaluate_part<L, Li, P, xsimd::avx512bw>(buf, cfg, out);
}
[[gnu::flatten, gnu::noinline, gnu::no_sanitize("address", "undefined")]] void
run_transpose(const std::byte* buf, results& out) noexcept {
    evaluate_transpose<xsimd::avx512bw>(buf, out);
}
} // namespace

bool avx512_compiled() noexcept {
    return true;
}
void avx512_evaluate(const std::byte* buf, const bdi_configs& cfg, results& out) noexcept {
    for_each_part(
        [&]<std::uint32_t L, std::size_t Li, part P>() { run_part<L, Li, P>(buf, cfg, out); });
    run_transpose(buf, out);
}
} // namespace memsub_test::simd_wide
#else
#include "simd_wide.hpp"

namespace memsub_test::simd_wide {
bool avx512_compiled() noexcept {
    return false;
}
void avx512_evaluate(const std::byte*, const bdi_configs&, results&) noexcept {}
} // namespace memsub_test::simd_wide
#endif
