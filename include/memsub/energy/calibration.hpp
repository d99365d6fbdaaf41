// memsub — GPUJoule calibration helpers ([Dissertation] §6.3; docs/mechanisms/energy.md,
// 'GPUJoule'): for hosts with their own hardware measurements, since EPStall and the constant power
// are not published (G6.2, G6.3).
//
//  * [Dissertation] Eq. 6.5 / [MM-Energy] Eq. 5: EPI = (Power_active − Power_idle) · ExecTime /
//    NumInstructions; EPTs are derived the same way from data-movement microbenchmarks.
//  * EPStall by least squares (as the [GPUJoule-release] README describes): microbenchmarks mixing
//    FADD64 (no stalls) and L1D loads in varying ratios, energy ~ stalls + L1D accesses. The fit
//    here is `energy = EPStall·stalls + EPL1D·l1d_accesses (+ intercept)`, by the normal equations.
// Offline helpers: they validate their inputs and throw `config_error` naming the offending one.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/errors.hpp>

namespace memsub::energy {

/// Eq 6.5: energy per event in nJ from active and idle power (W), the run time (s) and the
/// number of events (instructions or transactions) the run executed.
[[nodiscard]] inline double energy_per_event_nj(double active_power_w, double idle_power_w,
                                                double seconds, double events) {
    constexpr std::string_view who = "memsub::energy::energy_per_event_nj";
    if (!std::isfinite(active_power_w) || !std::isfinite(idle_power_w))
        throw config_error(who, "power", "not finite", "powers must be finite");
    if (!(std::isfinite(seconds) && seconds > 0))
        throw config_error(who, "seconds", std::to_string(seconds), "must be finite and > 0");
    if (!(std::isfinite(events) && events > 0))
        throw config_error(who, "events", std::to_string(events), "must be finite and > 0");
    return (active_power_w - idle_power_w) * seconds / events * 1e9;
}

/// One calibration run: its measured energy (J, after subtracting what is already known, such
/// as idle power × time and the FADD64 instructions' EPI) and its counters.
struct stall_sample {
    double energy_j = 0;
    double stalls = 0;
    double l1d_accesses = 0;
};

/// The least-squares fit.
struct stall_fit {
    double stall_energy_nj = 0; ///< EPStall
    double l1d_energy_nj = 0;   ///< energy per L1D access
    double intercept_j = 0;     ///< 0 unless fitted
    double residual_rms_j = 0;  ///< root-mean-square residual
};

/// Fits EPStall (and the L1D energy, and optionally an intercept) to `samples`. Throws
/// `config_error` when there are fewer samples than unknowns, a value is not finite, or the
/// counters are collinear (the ratios must vary, as the microbenchmark design requires).
[[nodiscard]] inline stall_fit fit_stall_energy(std::span<const stall_sample> samples,
                                                bool with_intercept = false) {
    constexpr std::string_view who = "memsub::energy::fit_stall_energy";
    const std::size_t k = with_intercept ? 3 : 2;
    if (samples.size() < k)
        throw config_error(who, "samples", samples.size(),
                           "need at least as many samples as unknowns (" + std::to_string(k) + ")");
    std::array<std::array<double, 4>, 3> m{}; // the normal equations, augmented
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const stall_sample& s = samples[i];
        if (!std::isfinite(s.energy_j) || !std::isfinite(s.stalls) ||
            !std::isfinite(s.l1d_accesses))
            throw config_error(who, "samples[" + std::to_string(i) + "]", "not finite",
                               "energy and counters must be finite");
        const std::array<double, 3> x{s.stalls, s.l1d_accesses, 1.0};
        for (std::size_t r = 0; r < k; ++r) {
            for (std::size_t c = 0; c < k; ++c) m[r][c] += x[r] * x[c];
            m[r][3] += x[r] * s.energy_j;
        }
    }
    // Columns scaled to unit norm (stalls run to 1e8, the intercept's column is 1), then
    // Gaussian elimination with partial pivoting; a pivot that vanishes in the scaled system
    // means the counters do not determine the coefficients.
    std::array<double, 3> norm{};
    for (std::size_t r = 0; r < k; ++r) {
        norm[r] = std::sqrt(m[r][r]);
        if (!(norm[r] > 0))
            throw config_error(who, "samples", "an all-zero counter",
                               "stalls and L1D accesses must vary independently");
    }
    for (std::size_t r = 0; r < k; ++r) {
        for (std::size_t c = 0; c < k; ++c) m[r][c] /= norm[r] * norm[c];
        m[r][3] /= norm[r];
    }
    for (std::size_t col = 0; col < k; ++col) {
        std::size_t pivot = col;
        for (std::size_t r = col + 1; r < k; ++r)
            if (std::abs(m[r][col]) > std::abs(m[pivot][col])) pivot = r;
        if (!(std::abs(m[pivot][col]) > 1e-9))
            throw config_error(who, "samples", "collinear counters",
                               "stalls and L1D accesses must vary independently");
        std::swap(m[col], m[pivot]);
        for (std::size_t r = 0; r < k; ++r) {
            if (r == col) continue;
            const double f = m[r][col] / m[col][col];
            for (std::size_t c = col; c < 4; ++c) m[r][c] -= f * m[col][c];
        }
    }
    stall_fit fit;
    const double a = m[0][3] / m[0][0] / norm[0], b = m[1][3] / m[1][1] / norm[1];
    const double c = with_intercept ? m[2][3] / m[2][2] / norm[2] : 0.0;
    fit.stall_energy_nj = a * 1e9;
    fit.l1d_energy_nj = b * 1e9;
    fit.intercept_j = c;
    double sq = 0;
    for (const stall_sample& s : samples) {
        const double e = s.energy_j - (a * s.stalls + b * s.l1d_accesses + c);
        sq += e * e;
    }
    fit.residual_rms_j = std::sqrt(sq / static_cast<double>(samples.size()));
    return fit;
}

} // namespace memsub::energy
