// memsub — scaling-efficiency metrics ([Dissertation] Eqs. 6.1–6.3, [MM-Energy] Eqs. 1–3;
// docs/mechanisms/energy.md, 'Scaling-efficiency metrics'):
//
//   PE      = 100 · t₁ / (N · t_N)
//   EDPSE   = 100 · EDP₁ / (N · EDP_N),          EDP = E · t
//   EDⁱPSE  = 100 · EDⁱP₁ / (Nⁱ · EDⁱP_N),       EDⁱP = E · tⁱ
//
// Exact decomposition (follows from the definitions): EDⁱPSE = 100 · (PE/100)ⁱ · (E₁/E_N); i = 0 is
// plain energy scaling. G6.12: against a baseline of M units instead of 1, N is replaced by N/M:
// EDⁱPSE(N vs M) = 100 · E_M·t_Mⁱ·Mⁱ / (Nⁱ · E_N·t_Nⁱ). The papers quote EDPSE changes in
// percentage points (§2.4); `edpse` returns percent, so differences are points.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include <memsub/core/errors.hpp>

namespace memsub::energy {

/// One run of a fixed-size problem: its energy (J), execution time (s) and how many units
/// (modules, GPUs, processors) ran it.
struct run_point {
    double energy_j = 0;
    double seconds = 0;
    double units = 1;
};

namespace detail {
inline void check_run(std::string_view which, const run_point& r) {
    constexpr std::string_view who = "memsub::energy::scaling_metrics";
    const auto positive = [&](std::string_view field, double v) {
        if (!(std::isfinite(v) && v > 0.0))
            throw config_error(who, std::string{which} + "." + std::string{field},
                               std::to_string(v), "must be finite and > 0");
    };
    positive("energy_j", r.energy_j);
    positive("seconds", r.seconds);
    positive("units", r.units);
}
} // namespace detail

/// Parallel efficiency in percent: 100 · t_base · units_base / (units · t). Throws
/// `config_error` for a non-positive or non-finite value.
[[nodiscard]] inline double parallel_efficiency(const run_point& base, const run_point& scaled) {
    detail::check_run("base", base);
    detail::check_run("scaled", scaled);
    return 100.0 * (base.seconds * base.units) / (scaled.units * scaled.seconds);
}

/// EDⁱPSE in percent, i ≥ 0 (i = 1 is EDPSE, i = 2 ED²PSE, i = 0 energy scaling E_base/E).
[[nodiscard]] inline double edipse(const run_point& base, const run_point& scaled, int i) {
    if (i < 0) throw config_error("memsub::energy::edipse", "i", std::to_string(i), "must be >= 0");
    detail::check_run("base", base);
    detail::check_run("scaled", scaled);
    // Computed as the metric is defined (EDⁱP ratio over the unit ratio), not via PE, so that
    // tests of the decomposition compare two different computations.
    const double edip_base = base.energy_j * std::pow(base.seconds, i);
    const double edip_scaled = scaled.energy_j * std::pow(scaled.seconds, i);
    return 100.0 * edip_base / (std::pow(scaled.units / base.units, i) * edip_scaled);
}

/// EDPSE in percent (EDⁱPSE with i = 1).
[[nodiscard]] inline double edpse(const run_point& base, const run_point& scaled) {
    return edipse(base, scaled, 1);
}

} // namespace memsub::energy
