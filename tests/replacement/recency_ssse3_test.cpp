// The SSSE3 LRU promotion kernel (core/byte_match.hpp, detail::recency_promote_row16_ssse3)
// against the scalar rule, whatever ISA the build targets. GCC compiles this unit for SSSE3
// through `#pragma GCC target`; its front end lexes the unit before it sees the pragma, so the
// ISA macro by which byte_match.hpp enables the kernel is defined here by hand before any
// include (as tests/compression/simd_wide_avx2.cpp does). A build that already targets SSSE3
// (MEMSUB_NATIVE) needs neither.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SSSE3__)
#pragma GCC target("ssse3")
#define __SSE3__ 1
#define __SSSE3__ 1
#endif

#include <doctest/doctest.h>

#include <memsub/core/byte_match.hpp>
#include <memsub/core/rng.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>

TEST_CASE("recency_promote's SSSE3 kernel equals the scalar rule on every lane of random stacks") {
#if defined(__SSSE3__) && defined(__x86_64__)
    if (!__builtin_cpu_supports("ssse3")) {
        MESSAGE("this CPU has no SSSE3: kernel not run");
        return;
    }
    memsub::xoshiro256ss rng(2026);
    std::uint64_t checked = 0;
    for (std::uint32_t entries = 1; entries <= 16; ++entries) {
        for (int trial = 0; trial < 200; ++trial) {
            // A recency stack: a permutation of 0..entries-1, padding bytes 0xff (lru.hpp's rows).
            std::array<std::uint8_t, 16> row;
            row.fill(0xff);
            std::iota(row.begin(), row.begin() + entries, std::uint8_t{0});
            for (std::uint32_t i = entries; i > 1; --i)
                std::swap(row[i - 1], row[static_cast<std::uint32_t>(rng() % i)]);
            for (std::uint32_t lane = 0; lane < entries; ++lane) {
                std::array<std::uint8_t, 16> want = row;
                for (std::uint32_t i = 0; i < 16; ++i)
                    if (i == lane)
                        want[i] = 0;
                    else if (row[i] < row[lane])
                        ++want[i];
                std::array<std::uint8_t, 16> got = row;
                memsub::detail::recency_promote_row16_ssse3(got.data(), lane);
                CHECK(got == want);
                ++checked;
            }
        }
    }
    CHECK(checked == 200u * 136u);
#else
    MESSAGE("no SSSE3 target on this compiler: kernel not built");
#endif
}
