// `evaluate<Arch>`: every SIMD kernel of the compression family instantiated for one xsimd
// architecture, run on one 128-byte buffer for 32/64/128-byte lines (see simd_wide.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/detail/bdi_kernels.hpp>
#include <memsub/compression/detail/bpc_transform.hpp>
#include <memsub/compression/detail/cpack_kernels.hpp>
#include <memsub/compression/detail/fpc_kernels.hpp>
#include <memsub/compression/detail/simd.hpp>

#include "simd_wide.hpp"

namespace memsub_test::simd_wide {

namespace md = memsub::compression::detail;

template <class T, std::uint32_t L, std::size_t Li, std::size_t Ki, class Arch>
void evaluate_bdi_base_size(const std::byte* p, results& r) {
    constexpr std::uint32_t n = L / sizeof(T);
    // registers must not be wider than the line (as inside bdi::choose)
    using A = md::arch_for_bytes_t<Arch, L>;
    auto per_d = [&]<unsigned D, std::size_t Di>() {
        if constexpr (D < sizeof(T)) {
            for (bool imm : {false, true}) {
                r.bdi_fits[Li][Ki][Di][imm] = md::bdi_fits<T, n, Arch>(p, 8 * D, imm);
                r.bdi_rejects[Li][Ki][Di][imm] =
                    md::bdi_first_register_rejects<T, n, Arch>(p, 8 * D, imm);
            }
            r.bdi_test[Li][Ki][Di][0] = md::bdi_test<T, n, D, false, A>(p);
            r.bdi_test[Li][Ki][Di][1] = md::bdi_test<T, n, D, true, A>(p);
            r.bdi_first_fails[Li][Ki][Di][0] = md::bdi_first_register_fails<T, n, D, false, A>(p);
            r.bdi_first_fails[Li][Ki][Di][1] = md::bdi_first_register_fails<T, n, D, true, A>(p);
        }
    };
    per_d.template operator()<1, 0>();
    per_d.template operator()<2, 1>();
    per_d.template operator()<4, 2>();
    r.bdi_min_delta[Li][Ki][0] = md::bdi_min_delta<T, n, Arch>(p, false);
    r.bdi_min_delta[Li][Ki][1] = md::bdi_min_delta<T, n, Arch>(p, true);
}

/// The kernels are evaluated in parts (each small enough to compile quickly when flattened, see
/// simd_wide.hpp).
enum class part { shared, bdi8, bdi4, bdi2, bdi_line, bdi_choice, fpc_cpack, bpc };

template <std::uint32_t L, std::size_t Li, part P, class Arch>
void evaluate_part(const std::byte* p, const bdi_configs& cfg, results& r) {
    const std::span<const std::byte> line{p, L};
    using A = md::arch_for_bytes_t<Arch, L>;
    if constexpr (P == part::shared) {
        r.zero[Li] = md::is_zero_line<Arch>(line);
        r.repeated[Li][0] = md::is_repeated<std::uint64_t, Arch>(line);
        r.repeated[Li][1] = md::is_repeated<std::uint32_t, Arch>(line);
        r.repeated[Li][2] = md::is_repeated<std::uint16_t, Arch>(line);
        r.periodic8[Li] = md::is_periodic<8, L, Arch>(p);
        r.periodic4[Li] = md::is_periodic<4, L, Arch>(p);
    } else if constexpr (P == part::bdi8) {
        evaluate_bdi_base_size<std::uint64_t, L, Li, 0, Arch>(p, r);
    } else if constexpr (P == part::bdi4) {
        evaluate_bdi_base_size<std::uint32_t, L, Li, 1, Arch>(p, r);
    } else if constexpr (P == part::bdi2) {
        evaluate_bdi_base_size<std::uint16_t, L, Li, 2, Arch>(p, r);
    } else if constexpr (P == part::bdi_line) {
        for (bool imm : {false, true}) {
            md::bdi_line<L, A> bl;
            if (imm)
                bl.template load<true>(p);
            else
                bl.template load<false>(p);
            for (unsigned i = 0; i < 6; ++i)
                r.bdi_encoder[Li][i][imm] = imm ? md::bdi_encoder_fits<L, true, A>(i, p, bl)
                                                : md::bdi_encoder_fits<L, false, A>(i, p, bl);
            if (imm) r.bdi_trivial[Li] = md::bdi_trivially_fitting<L, A>(bl);
        }
    } else if constexpr (P == part::bdi_choice) {
        // one part for every line size: choose_with<Arch> dispatches on the line size itself
        if constexpr (Li == 0)
            for (std::size_t li = 0; li < 3; ++li)
                for (std::size_t c = 0; c < cfg.count; ++c)
                    r.bdi_choice[li][c] = cfg.c[li][c]->template choose_with<Arch>(
                        std::span<const std::byte>{p, cfg.c[li][c]->line_bytes()});
    } else if constexpr (P == part::fpc_cpack) {
        r.fpc_size[Li] = md::fpc_size<L / 4, Arch>(p);
        md::fpc_classify<L / 4, Arch>(p, r.fpc_codes[Li].data());
        r.cpack_size[Li] = md::cpack_size<L / 4, Arch>(p);
    } else {
        constexpr std::uint32_t n = L / 4;
        const auto position_bits = static_cast<std::uint32_t>(std::bit_width(n - 2));
        r.bpc_plane_bits[Li] = md::bpc_kernel<Arch>::size_bits(p, n, position_bits);
        std::array<std::uint32_t, 32> words{};
        std::memcpy(words.data(), p, L);
        md::bpc_planes planes;
        md::bpc_transform<Arch>(std::span<const std::uint32_t>(words.data(), n), planes);
        r.bpc_dbp[Li] = planes.dbp;
        r.bpc_dbx[Li] = planes.dbx;
        md::bpc_inverse<Arch>(planes.dbp, words[0],
                              std::span<std::uint32_t>(r.bpc_words[Li].data(), n));
        std::array<std::byte, 128> back{};
        md::bpc_kernel<Arch>::inverse(planes.dbp, n, words[0], back.data());
        std::memcpy(r.bpc_kernel_words[Li].data(), back.data(), L);
    }
}

/// The 32 × 32 transpose of the buffer's words.
template <class Arch>
void evaluate_transpose(const std::byte* buf, results& r) {
    std::memcpy(r.transposed.data(), buf, 128);
    md::transpose32<Arch>(r.transposed.data());
}

/// Calls `run.template operator()<L, Li, P>()` for every line size and part.
template <class F>
void for_each_part(F&& run) {
    auto parts = [&]<std::uint32_t L, std::size_t Li>() {
        run.template operator()<L, Li, part::shared>();
        run.template operator()<L, Li, part::bdi8>();
        run.template operator()<L, Li, part::bdi4>();
        run.template operator()<L, Li, part::bdi2>();
        run.template operator()<L, Li, part::bdi_line>();
        run.template operator()<L, Li, part::bdi_choice>();
        run.template operator()<L, Li, part::fpc_cpack>();
        run.template operator()<L, Li, part::bpc>();
    };
    parts.template operator()<32, 0>();
    parts.template operator()<64, 1>();
    parts.template operator()<128, 2>();
}

/// All kernels of `Arch` on the 128-byte buffer `buf` (the baseline unit's entry point; the wide
/// units run the same parts through flattened wrappers).
template <class Arch>
void evaluate(const std::byte* buf, const bdi_configs& cfg, results& r) {
    for_each_part([&]<std::uint32_t L, std::size_t Li, part P>() {
        evaluate_part<L, Li, P, Arch>(buf, cfg, r);
    });
    evaluate_transpose<Arch>(buf, r);
}

} // namespace memsub_test::simd_wide

/// Defines the entry points `<Name>_compiled()` (true) and `<Name>_evaluate()` of one wide unit
/// for the xsimd architecture `Arch`: each part is flattened on its own (every call inlined,
/// see simd_wide.hpp), in an anonymous namespace so no wide code is shared with another unit.
#define MEMSUB_TEST_SIMD_WIDE_UNIT(Name, Arch)                                                     \
    namespace memsub_test::simd_wide {                                                             \
    namespace {                                                                                    \
    template <std::uint32_t L, std::size_t Li, part P>                                             \
    [[gnu::flatten, gnu::noinline, gnu::noclone]] void                                             \
    run_part(const std::byte* buf, const bdi_configs& cfg, results& out) noexcept {                \
        evaluate_part<L, Li, P, Arch>(buf, cfg, out);                                              \
    }                                                                                              \
    [[gnu::flatten, gnu::noinline, gnu::no_sanitize("address", "undefined")]] void                 \
    run_transpose(const std::byte* buf, results& out) noexcept {                                   \
        evaluate_transpose<Arch>(buf, out);                                                        \
    }                                                                                              \
    }                                                                                              \
    bool Name##_compiled() noexcept {                                                              \
        return true;                                                                               \
    }                                                                                              \
    void Name##_evaluate(const std::byte* buf, const bdi_configs& cfg, results& out) noexcept {    \
        for_each_part([&]<std::uint32_t L, std::size_t Li, part P>() {                             \
            run_part<L, Li, P>(buf, cfg, out);                                                     \
        });                                                                                        \
        run_transpose(buf, out);                                                                   \
    }                                                                                              \
    }
