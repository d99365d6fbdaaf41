// Differential tests of the SIMD kernels on every x86 width the CPU has: SSE2 (instantiated here,
// explicitly), AVX2 and AVX-512 (instantiated in simd_wide_avx2.cpp / simd_wide_avx512.cpp,
// compiled for those instruction sets, run after a runtime CPU check). Every kernel result is
// compared bit for bit with the scalar references (or, for the quick rejections, checked never to
// reject what the reference accepts). See simd_wide.hpp.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/bpc.hpp>
#include <memsub/compression/detail/bdi_kernels.hpp>
#include <memsub/compression/detail/bpc_transform.hpp>
#include <memsub/compression/detail/cpack_kernels.hpp>
#include <memsub/compression/detail/fpc_kernels.hpp>

#include "line_generators.hpp"
#include "simd_wide.hpp"
#include "simd_wide_kernels.hpp"

namespace mc = memsub::compression;
namespace md = memsub::compression::detail;
namespace sw = memsub_test::simd_wide;

namespace {

struct arch_run {
    std::string name;
    void (*evaluate)(const std::byte*, const sw::bdi_configs&, sw::results&) noexcept;
};

void sse2_evaluate(const std::byte* buf, const sw::bdi_configs& cfg, sw::results& out) noexcept {
    sw::evaluate<xsimd::sse2>(buf, cfg, out);
}

bool cpu_has_avx2() {
    return __builtin_cpu_supports("avx2");
}
bool cpu_has_avx512() {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

/// The architectures this build and this CPU can run (SSE2 always on x86-64).
std::vector<arch_run> runnable_archs() {
    std::vector<arch_run> a{{"sse2", &sse2_evaluate}};
    if (sw::avx2_compiled() && cpu_has_avx2()) a.push_back({"avx2", &sw::avx2_evaluate});
    if (sw::avx512_compiled() && cpu_has_avx512()) a.push_back({"avx512bw", &sw::avx512_evaluate});
    return a;
}

/// BDI configurations whose full `choose_with<Arch>` is compared with `choose_reference`.
struct bdi_set {
    std::vector<mc::bdi> by_line[3];
    sw::bdi_configs cfg;
    bdi_set() {
        const std::array<std::uint32_t, 3> Ls{32, 64, 128};
        for (std::size_t li = 0; li < 3; ++li) {
            const std::uint32_t L = Ls[li];
            auto& v = by_line[li];
            v.push_back(mc::bdi{{.line_bytes = L}});
            v.push_back(mc::bdi{{.line_bytes = L, .encoding_set = mc::bdi_encoding_set::latte_cc}});
            v.push_back(mc::bdi{{.line_bytes = L, .variant = mc::bdi_variant::base_plus_delta}});
            v.push_back(mc::bdi{{.line_bytes = L, .mask = mc::bdi_mask::in_tag}});
            v.push_back(mc::bdi{{.line_bytes = L, .selection = mc::bdi_selection::stored_size}});
            v.push_back(mc::bdi{{.line_bytes = L,
                                 .encoding_set = mc::bdi_encoding_set::latte_cc,
                                 .zero_in_tag = true,
                                 .selection = mc::bdi_selection::stored_size,
                                 .selection_segment_bytes = 16}});
            for (std::size_t c = 0; c < v.size(); ++c) cfg.c[li][c] = &v[c];
            cfg.count = v.size();
        }
    }
};

template <class T, std::uint32_t L, std::size_t Li, std::size_t Ki>
void check_bdi_base_size(const std::byte* p, const sw::results& r) {
    constexpr std::uint32_t n = L / sizeof(T);
    std::uint32_t min_d[2] = {0, 0};
    for (std::size_t di = 0; di < 3; ++di) {
        const unsigned d = 1u << di;
        if (d >= sizeof(T)) continue;
        for (bool imm : {false, true}) {
            CAPTURE(sizeof(T));
            CAPTURE(d);
            CAPTURE(imm);
            const bool ref = md::bdi_fits_scalar<T>(p, n, 8 * d, imm).ok;
            REQUIRE(r.bdi_fits[Li][Ki][di][imm] == ref);
            REQUIRE(r.bdi_test[Li][Ki][di][imm] == ref);
            if (r.bdi_rejects[Li][Ki][di][imm]) REQUIRE_FALSE(ref);
            if (r.bdi_first_fails[Li][Ki][di][imm]) REQUIRE_FALSE(ref);
            if (ref && min_d[imm] == 0) min_d[imm] = d;
        }
    }
    REQUIRE(r.bdi_min_delta[Li][Ki][0] == min_d[0]);
    REQUIRE(r.bdi_min_delta[Li][Ki][1] == min_d[1]);
}

template <std::uint32_t L, std::size_t Li>
void check_line(const std::byte* p, const bdi_set& bdis, const sw::results& r) {
    CAPTURE(L);
    const std::span<const std::byte> line{p, L};
    REQUIRE(r.zero[Li] == md::is_zero_line_scalar(line));
    REQUIRE(r.repeated[Li][0] == md::is_repeated_scalar<std::uint64_t>(line));
    REQUIRE(r.repeated[Li][1] == md::is_repeated_scalar<std::uint32_t>(line));
    REQUIRE(r.repeated[Li][2] == md::is_repeated_scalar<std::uint16_t>(line));
    REQUIRE(r.periodic8[Li] == md::is_repeated_scalar<std::uint64_t>(line));
    REQUIRE(r.periodic4[Li] == md::is_repeated_scalar<std::uint32_t>(line));

    check_bdi_base_size<std::uint64_t, L, Li, 0>(p, r);
    check_bdi_base_size<std::uint32_t, L, Li, 1>(p, r);
    check_bdi_base_size<std::uint16_t, L, Li, 2>(p, r);
    for (unsigned i = 0; i < 6; ++i)
        for (bool imm : {false, true}) {
            const auto [k, d] = mc::bdi::shape(static_cast<mc::bdi_encoding>(i + 2));
            const bool ref = k == 8   ? md::bdi_fits_scalar<std::uint64_t>(p, L / 8, 8 * d, imm).ok
                             : k == 4 ? md::bdi_fits_scalar<std::uint32_t>(p, L / 4, 8 * d, imm).ok
                                      : md::bdi_fits_scalar<std::uint16_t>(p, L / 2, 8 * d, imm).ok;
            CAPTURE(i);
            CAPTURE(imm);
            REQUIRE(r.bdi_encoder[Li][i][imm] == ref);
            if (imm && ((r.bdi_trivial[Li] >> i) & 1u) != 0) REQUIRE(ref);
        }
    for (std::size_t c = 0; c < bdis.cfg.count; ++c) {
        CAPTURE(c);
        REQUIRE(r.bdi_choice[Li][c] == bdis.cfg.c[Li][c]->choose_reference(line));
    }

    REQUIRE(r.fpc_size[Li] == md::fpc_size_scalar(p, L / 4));
    for (std::uint32_t w = 0; w < L / 4; ++w)
        REQUIRE(r.fpc_codes[Li][w] == static_cast<std::uint32_t>(md::fpc_classify_scalar(
                                          md::load_le<std::uint32_t>(p + 4 * w))));
    REQUIRE(r.cpack_size[Li] == md::cpack_size_scalar(p, L / 4, false));

    constexpr std::uint32_t n = L / 4;
    std::array<std::uint32_t, 32> words{};
    std::memcpy(words.data(), p, L);
    md::bpc_planes ref;
    md::bpc_transform_reference(std::span<const std::uint32_t>(words.data(), n), ref);
    REQUIRE(r.bpc_dbp[Li] == ref.dbp);
    REQUIRE(r.bpc_dbx[Li] == ref.dbx);
    for (std::uint32_t w = 0; w < n; ++w) {
        REQUIRE(r.bpc_words[Li][w] == words[w]);
        REQUIRE(r.bpc_kernel_words[Li][w] == words[w]);
    }
    // the planes part of the size = the encoder's bits minus the base code
    const mc::bpc c{{.line_bytes = L}};
    REQUIRE(r.bpc_plane_bits[Li] == c.compress(line).bits - mc::bpc::base_bits(words[0]));
}

void check_all(const std::byte* p, const bdi_set& bdis, const sw::results& r) {
    check_line<32, 0>(p, bdis, r);
    check_line<64, 1>(p, bdis, r);
    check_line<128, 2>(p, bdis, r);
    std::array<std::uint32_t, 32> t{};
    std::memcpy(t.data(), p, 128);
    md::transpose32_reference(t.data());
    REQUIRE(r.transposed == t);
}

} // namespace

TEST_CASE("simd wide: which instruction sets are compiled and run") {
    const auto archs = runnable_archs();
    std::string names;
    for (const auto& a : archs) names += a.name + " ";
    MESSAGE("compiled: avx2 " << sw::avx2_compiled() << ", avx512 " << sw::avx512_compiled()
                              << "; CPU: avx2 " << cpu_has_avx2() << ", avx512 " << cpu_has_avx512()
                              << "; differential tests run: " << names);
    CHECK(archs.front().name == "sse2");
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
    // GCC builds compile the wide units (except under the sanitizers, see simd_wide_avx2.cpp);
    // a CPU that has the set must run them.
    CHECK(sw::avx2_compiled());
    CHECK(sw::avx512_compiled());
    CHECK(archs.size() == 1 + std::size_t{cpu_has_avx2()} + std::size_t{cpu_has_avx512()});
#endif
}

TEST_CASE("simd wide: SSE2, AVX2 and AVX-512 kernels equal the scalar references on 60000 "
          "buffers (x 3 line sizes)") {
    const auto archs = runnable_archs();
    const bdi_set bdis;
    memsub::xoshiro256ss rng{4242};
    alignas(64) std::array<std::byte, 136> buf{};
    sw::results r;
    std::size_t buffers = 0;
    for (int i = 0; i < 60000; ++i) {
        // unaligned starts too: kernels must not assume alignment
        const std::size_t off = (i % 5 == 0) ? 4 : (i % 7 == 0 ? 1 : 0);
        buf.fill(std::byte{0});
        const std::span<std::byte> line{buf.data() + off, 128};
        memsub_test::make_line(
            static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng, line);
        if (i % 3 == 0) // single-element perturbations: lane and offset mistakes show up here
            line[rng() % 128] ^= static_cast<std::byte>(1u << (rng() % 8));
        for (const auto& a : archs) {
            CAPTURE(a.name);
            CAPTURE(i);
            r = sw::results{};
            a.evaluate(line.data(), bdis.cfg, r);
            check_all(line.data(), bdis, r);
        }
        ++buffers;
    }
    CHECK(buffers == 60000);
    MESSAGE(buffers << " buffers on " << archs.size() << " instruction sets");
}

TEST_CASE("simd wide: every single-byte change of zero and repeated lines, every width") {
    const auto archs = runnable_archs();
    const bdi_set bdis;
    sw::results r;
    for (std::uint32_t pos = 0; pos < 128; ++pos)
        for (std::uint8_t delta :
             {std::uint8_t{1}, std::uint8_t{0x7F}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
            alignas(64) std::array<std::byte, 128> rep{}, z{};
            rep.fill(std::byte{0x5A});
            rep[pos] = static_cast<std::byte>(0x5A ^ delta);
            z[pos] = std::byte{delta};
            for (const auto& a : archs) {
                CAPTURE(a.name);
                CAPTURE(pos);
                for (const auto* b : {&rep, &z}) {
                    r = sw::results{};
                    a.evaluate(b->data(), bdis.cfg, r);
                    check_all(b->data(), bdis, r);
                }
            }
        }
}
