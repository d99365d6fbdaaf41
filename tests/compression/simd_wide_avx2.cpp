// AVX2 instantiations of the compression SIMD kernels for the differential tests (see
// simd_wide.hpp; run only after a runtime CPU check). GCC compiles this unit for AVX2 through
// `#pragma GCC target`; its C++ front end lexes the whole unit before it sees the pragma, so the
// predefined ISA macros, by which xsimd chooses its architectures, are defined here by hand
// before any include. A build that already targets AVX2 (-march=native) needs neither. Under
// AddressSanitizer the unit is left empty: its flattened functions, instrumented, take minutes
// to compile (the dev build runs these tests; the sanitize build runs the baseline ones).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__AVX2__)
#pragma GCC target("avx2")
#define __SSE3__ 1
#define __SSSE3__ 1
#define __SSE4_1__ 1
#define __SSE4_2__ 1
#define __AVX__ 1
#define __AVX2__ 1
#endif

#if defined(__AVX2__) && !defined(__SANITIZE_ADDRESS__)
#include "simd_wide_kernels.hpp"

namespace memsub_test::simd_wide {
namespace {
// Each part is flattened on its own (every call inlined; see simd_wide.hpp).
template <std::uint32_t L, std::size_t Li, part P>
[[gnu::flatten, gnu::noinline]] void run_part(const std::byte* buf, const bdi_configs& cfg,
                                              results& out) noexcept {
    evaluate_part<L, Li, P, xsimd::avx2>(buf, cfg, out);
}
[[gnu::flatten, gnu::noinline, gnu::no_sanitize("address", "undefined")]] void
run_transpose(const std::byte* buf, results& out) noexcept {
    evaluate_transpose<xsimd::avx2>(buf, out);
}
} // namespace

bool avx2_compiled() noexcept {
    return true;
}
void avx2_evaluate(const std::byte* buf, const bdi_configs& cfg, results& out) noexcept {
    for_each_part(
        [&]<std::uint32_t L, std::size_t Li, part P>() { run_part<L, Li, P>(buf, cfg, out); });
    run_transpose(buf, out);
}
} // namespace memsub_test::simd_wide
#else
#include "simd_wide.hpp"

namespace memsub_test::simd_wide {
bool avx2_compiled() noexcept {
    return false;
}
void avx2_evaluate(const std::byte*, const bdi_configs&, results&) noexcept {}
} // namespace memsub_test::simd_wide
#endif
