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

MEMSUB_TEST_SIMD_WIDE_UNIT(avx2, xsimd::avx2)
#else
#include "simd_wide.hpp"

MEMSUB_TEST_SIMD_WIDE_ABSENT(avx2)
#endif
