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

MEMSUB_TEST_SIMD_WIDE_UNIT(avx512, xsimd::avx512bw)
#else
#include "simd_wide.hpp"

MEMSUB_TEST_SIMD_WIDE_ABSENT(avx512)
#endif
