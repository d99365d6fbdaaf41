// Differential tests of the shared xsimd kernels against their scalar references (and of the
// scalar helpers against naive signed arithmetic). Every kernel runs on millions of random and
// structured inputs with the build's architecture (SSE2 in the portable build); the wide paths
// (AVX2, AVX-512) are tested in every build by test_simd_wide.cpp when the CPU has them.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include <memsub/compression/detail/bdi_kernels.hpp>
#include <memsub/compression/detail/cpack_kernels.hpp>
#include <memsub/compression/detail/fpc_kernels.hpp>
#include <memsub/compression/detail/simd.hpp>

#include "line_generators.hpp"

namespace md = memsub::compression::detail;

TEST_CASE("simd: which architecture this build uses") {
    MESSAGE("xsimd default arch: " << std::string(md::simd_arch::name()) << ", u32 lanes "
                                   << md::simd_lanes<std::uint32_t>);
    CHECK(md::simd_lanes<std::uint32_t> >= 4);
}

TEST_CASE("fits_sext and sign_extend against signed arithmetic (exhaustive 16-bit)") {
    for (std::uint32_t v = 0; v < 65536; ++v) {
        const auto s = static_cast<std::int16_t>(v);
        for (unsigned n = 1; n <= 16; ++n) {
            const bool expect = s >= -(1 << (n - 1)) && s <= (1 << (n - 1)) - 1;
            REQUIRE(md::fits_sext<std::uint16_t>(static_cast<std::uint16_t>(v), n) == expect);
        }
        REQUIRE(md::sign_extend<std::uint32_t>(v, 16) ==
                static_cast<std::uint32_t>(static_cast<std::int32_t>(s)));
        REQUIRE(md::sign_extend<std::uint16_t>(v & 0xFF, 8) ==
                static_cast<std::uint16_t>(static_cast<std::int8_t>(v & 0xFF)));
    }
    // 64-bit edges (P-G5: −2^(N−1) fits)
    CHECK(md::fits_sext<std::uint64_t>(static_cast<std::uint64_t>(-128), 8));
    CHECK_FALSE(md::fits_sext<std::uint64_t>(static_cast<std::uint64_t>(-129), 8));
    CHECK(md::fits_sext<std::uint64_t>(0x7FFFFFFF, 32));
    CHECK_FALSE(md::fits_sext<std::uint64_t>(0x80000000, 32));
    CHECK(md::fits_sext<std::uint64_t>(0xFFFFFFFF80000000ull, 32));
    CHECK(md::fits_sext<std::uint64_t>(0x8000000000000000ull, 64));
}

namespace {
template <class T, std::uint32_t N>
void check_bdi_kernel(const std::byte* p) {
    for (unsigned d = 1; d < sizeof(T); d *= 2)
        for (bool imm : {true, false}) {
            const bool fits = md::bdi_fits_scalar<T>(p, N, 8 * d, imm).ok;
            REQUIRE(md::bdi_fits<T, N>(p, 8 * d, imm) == fits);
            // the quick rejection may say "maybe" but never rejects a fitting encoder
            if (md::bdi_first_register_rejects<T, N>(p, 8 * d, imm)) REQUIRE_FALSE(fits);
        }
}
template <std::uint32_t L>
void check_all_kernels(const std::byte* p) {
    const std::span<const std::byte> line{p, L};
    REQUIRE(md::is_zero_line(line) == md::is_zero_line_scalar(line));
    REQUIRE(md::is_repeated<std::uint64_t>(line) == md::is_repeated_scalar<std::uint64_t>(line));
    REQUIRE(md::is_repeated<std::uint32_t>(line) == md::is_repeated_scalar<std::uint32_t>(line));
    REQUIRE(md::is_repeated<std::uint16_t>(line) == md::is_repeated_scalar<std::uint16_t>(line));
    REQUIRE(md::is_periodic<8, L>(p) == md::is_repeated_scalar<std::uint64_t>(line));
    REQUIRE(md::is_periodic<4, L>(p) == md::is_repeated_scalar<std::uint32_t>(line));
    check_bdi_kernel<std::uint64_t, L / 8>(p);
    check_bdi_kernel<std::uint32_t, L / 4>(p);
    check_bdi_kernel<std::uint16_t, L / 2>(p);
    for (bool imm : {true, false}) {
        REQUIRE(md::bdi_min_delta<std::uint64_t, L / 8>(p, imm) ==
                (md::bdi_fits_scalar<std::uint64_t>(p, L / 8, 8, imm).ok    ? 1u
                 : md::bdi_fits_scalar<std::uint64_t>(p, L / 8, 16, imm).ok ? 2u
                 : md::bdi_fits_scalar<std::uint64_t>(p, L / 8, 32, imm).ok ? 4u
                                                                            : 0u));
    }
    REQUIRE(md::fpc_size<L / 4>(p) == md::fpc_size_scalar(p, L / 4));
    std::array<std::uint32_t, 32> codes{};
    md::fpc_classify<L / 4>(p, codes.data());
    for (std::uint32_t i = 0; i < L / 4; ++i)
        REQUIRE(codes[i] == static_cast<std::uint32_t>(
                                md::fpc_classify_scalar(md::load_le<std::uint32_t>(p + 4 * i))));
    const std::uint32_t ref = md::cpack_size_scalar(p, L / 4, false);
    REQUIRE(md::cpack_size<L / 4>(p) == ref);
    REQUIRE(md::cpack_size_min_xor<L / 4>(p) == ref);
#if defined(__SSE2__)
    if constexpr (L <= 64) REQUIRE(md::cpack_size_planes_sse2<L / 4>(p) == ref);
#endif
}
} // namespace

TEST_CASE("simd kernels equal the scalar references on 450k random and structured line evaluations "
          "(x 3 line sizes)") {
    memsub::xoshiro256ss rng{2024};
    alignas(64) std::array<std::byte, 128> buf{};
    std::size_t lines = 0;
    for (int i = 0; i < memsub_test::scaled(150000); ++i) {
        const auto kind = static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count);
        memsub_test::make_line(kind, rng, std::span<std::byte>{buf.data(), 128});
        // unaligned starts too: kernels must not assume alignment
        const std::size_t off = (i % 7 == 0) ? 4 : 0;
        std::array<std::byte, 136> shifted{};
        std::memcpy(shifted.data() + off, buf.data(), 128);
        const std::byte* p = shifted.data() + off;
        check_all_kernels<32>(p);
        check_all_kernels<64>(p);
        check_all_kernels<128>(p);
        lines += 3;
    }
    MESSAGE(lines << " line evaluations");
}

TEST_CASE("simd kernels: single-element perturbations of repeated lines") {
    // Every position, every element width: one differing element must break "repeated" and
    // be seen by every kernel lane (catches lane/offset mistakes).
    for (std::uint32_t pos = 0; pos < 128; ++pos)
        for (std::uint8_t delta : {std::uint8_t{1}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
            alignas(64) std::array<std::byte, 128> buf{};
            for (auto& b : buf) b = std::byte{0x5A};
            buf[pos] = static_cast<std::byte>(0x5A ^ delta);
            check_all_kernels<32>(buf.data());
            check_all_kernels<64>(buf.data());
            check_all_kernels<128>(buf.data());
            std::array<std::byte, 128> z{};
            z[pos] = std::byte{delta};
            check_all_kernels<32>(z.data());
            check_all_kernels<64>(z.data());
            check_all_kernels<128>(z.data());
        }
}
