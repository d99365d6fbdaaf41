// memsub — the multi-module extension of GPUJoule ([Dissertation] §6.4.1, [MM-Energy] §V-A2;
// docs/mechanisms/energy.md, 'Multi-module extension').
//
// Each GPU module (GPM) is K40-like and N modules cost N times one module before process or DVFS
// gains, so the single-module EPI/EPT are reused, with four changes:
//   * HBM instead of GDDR5: DRAM→L2 costs 21.1 pJ/bit (5.40 nJ per 32 B sector);
//   * inter-module links: 0.54 pJ/bit on package, 10 pJ/bit on board, charged per link
//     traversal (G6.9, docs/mechanisms/energy.md);
//   * a high-radix on-board switch adds 10 pJ/bit per switched transfer, independent of
//     distance (G6.10: 10 + 10 = 20 pJ/bit end to end);
//   * constant-energy amortisation: on package only a fraction (1 − a) of each added module's
//     constant power is paid again, `P_const(N) = P_const,1 · (N − a·(N − 1))` (Decision: the
//     closed form consistent with the text; a = 0 on board, 0.5 by default on package, 0.25 in the
//     sensitivity study).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include <memsub/core/errors.hpp>
#include <memsub/energy/gpujoule.hpp>

namespace memsub::energy {

/// Per-bit energies of §2.3, in pJ/bit.
inline constexpr double hbm_dram_to_l2_pj_per_bit = 21.1;
inline constexpr double on_package_link_pj_per_bit = 0.54;
inline constexpr double on_board_link_pj_per_bit = 10.0;
inline constexpr double on_board_switch_pj_per_bit = 10.0;

/// Constant-energy amortisation rates of §2.3.
inline constexpr double on_board_amortisation = 0.0;
inline constexpr double on_package_amortisation = 0.5;
inline constexpr double sensitivity_amortisation = 0.25;

/// How the modules of one GPU are built and joined.
struct multi_module_params {
    std::uint32_t modules = 1;
    /// DRAM→L2 energy per bit (HBM by default).
    double dram_to_l2_pj_per_bit = hbm_dram_to_l2_pj_per_bit;
    /// Energy per bit per inter-module link traversal.
    double link_pj_per_bit = on_package_link_pj_per_bit;
    /// Extra energy per bit of a transfer through a switch (0 without a switch).
    double switch_pj_per_bit = 0.0;
    /// a: the fraction of each added module's constant power that is shared, in [0, 1].
    double amortisation = on_package_amortisation;
};

/// On-package integration (§2.3): 0.54 pJ/bit links, a = 0.5 (0.25 for the sensitivity point).
[[nodiscard]] constexpr multi_module_params
on_package(std::uint32_t modules, double amortisation = on_package_amortisation) noexcept {
    return {.modules = modules,
            .dram_to_l2_pj_per_bit = hbm_dram_to_l2_pj_per_bit,
            .link_pj_per_bit = on_package_link_pj_per_bit,
            .switch_pj_per_bit = 0.0,
            .amortisation = amortisation};
}
/// On-board integration over point-to-point links (a ring): 10 pJ/bit, no amortisation.
[[nodiscard]] constexpr multi_module_params on_board(std::uint32_t modules) noexcept {
    return {.modules = modules,
            .dram_to_l2_pj_per_bit = hbm_dram_to_l2_pj_per_bit,
            .link_pj_per_bit = on_board_link_pj_per_bit,
            .switch_pj_per_bit = 0.0,
            .amortisation = on_board_amortisation};
}
/// On-board integration through a high-radix switch: 10 pJ/bit link + 10 pJ/bit switch.
[[nodiscard]] constexpr multi_module_params on_board_switched(std::uint32_t modules) noexcept {
    multi_module_params p = on_board(modules);
    p.switch_pj_per_bit = on_board_switch_pj_per_bit;
    return p;
}

/// `N − a·(N − 1)`: how many single-module constant powers N modules pay (§2.3).
[[nodiscard]] constexpr double constant_power_scale(std::uint32_t modules,
                                                    double amortisation) noexcept {
    return static_cast<double>(modules) - amortisation * static_cast<double>(modules - 1);
}

/// The GPUJoule coefficients of an N-module GPU built from modules described by `single`
/// (e.g. `kepler_k40(…)`) joined as `m` says. Throws `config_error` for 0 modules, an
/// amortisation outside [0, 1] or a negative or non-finite energy.
[[nodiscard]] inline gpujoule_params multi_module(const gpujoule_params& single,
                                                  const multi_module_params& m) {
    constexpr std::string_view who = "memsub::energy::multi_module";
    if (m.modules == 0) throw config_error(who, "modules", 0, "must be >= 1");
    if (!(m.amortisation >= 0.0 && m.amortisation <= 1.0))
        throw config_error(who, "amortisation", std::to_string(m.amortisation),
                           "must lie in [0, 1]");
    detail::require_energy(who, "dram_to_l2_pj_per_bit", m.dram_to_l2_pj_per_bit);
    detail::require_energy(who, "link_pj_per_bit", m.link_pj_per_bit);
    detail::require_energy(who, "switch_pj_per_bit", m.switch_pj_per_bit);
    // Validate the single-module coefficients first, so a missing EPStall or constant power is
    // reported under its own name.
    (void)gpujoule{single};
    gpujoule_params p = single;
    const auto dram = static_cast<std::size_t>(transaction_class::dram_to_l2);
    p.ept_nj[dram] = m.dram_to_l2_pj_per_bit * 8.0 * p.transaction_bytes[dram] / 1000.0;
    p.constant_power_w = single.constant_power_w * constant_power_scale(m.modules, m.amortisation);
    p.link_pj_per_bit = m.link_pj_per_bit;
    p.switch_pj_per_bit = m.switch_pj_per_bit;
    return p;
}

} // namespace memsub::energy
