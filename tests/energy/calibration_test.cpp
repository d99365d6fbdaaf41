// GPUJoule calibration helpers (docs/mechanisms/energy.md, 'GPUJoule'): Eq 6.5 on hand values, and
// the least-squares EPStall fit recovering known coefficients from synthetic microbenchmark runs.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/energy/all.hpp>

using namespace memsub;
using namespace memsub::energy;

TEST_CASE("Eq 6.5: EPI = (P_active − P_idle)·T / N") {
    // 2880 lanes × 745 MHz of FMAs for 1 s draw 107.28 W above idle at 0.05 nJ per op, so the
    // inverse calculation gives 0.05 nJ back.
    const double ops = 2880.0 * 745e6;
    CHECK(energy_per_event_nj(60.0 + 107.28, 60.0, 1.0, ops) == doctest::Approx(0.05));
    CHECK(energy_per_event_nj(100.0, 40.0, 2e-3, 1e6) == doctest::Approx(120.0)); // 0.12 J / 1e6
    CHECK_THROWS_AS((void)energy_per_event_nj(100.0, 40.0, 0.0, 1e6), config_error);
    CHECK_THROWS_AS((void)energy_per_event_nj(100.0, 40.0, 1.0, 0.0), config_error);
    CHECK_THROWS_AS((void)energy_per_event_nj(NAN, 40.0, 1.0, 1.0), config_error);
}

TEST_CASE("the EPStall fit recovers known coefficients from mixed FADD64/L1D runs") {
    // Synthetic runs: FADD64 (no stalls) and L1D loads mixed in varying ratios; stalls grow
    // with the load share. True EPStall 0.02 nJ, L1D 5.99 nJ (the K40's L1→RF EPT).
    std::vector<stall_sample> exact, noisy, offset;
    xoshiro256ss rng{9};
    for (int i = 0; i < 40; ++i) {
        const double loads = 1e6 * (1 + i);
        const double stalls = loads * (3.0 + 2.0 * rng.uniform()) + 1e5 * rng.uniform();
        const double e = 0.02e-9 * stalls + 5.99e-9 * loads;
        exact.push_back({e, stalls, loads});
        noisy.push_back({e * (1 + 0.01 * (rng.uniform() - 0.5)), stalls, loads});
        offset.push_back({e + 0.003, stalls, loads});
    }
    const stall_fit f = fit_stall_energy(exact);
    CHECK(f.stall_energy_nj == doctest::Approx(0.02).epsilon(1e-6));
    CHECK(f.l1d_energy_nj == doctest::Approx(5.99).epsilon(1e-6));
    CHECK(f.residual_rms_j < 1e-12);
    const stall_fit n = fit_stall_energy(noisy);
    CHECK(n.stall_energy_nj == doctest::Approx(0.02).epsilon(0.5)); // 1 % noise on the total
    CHECK(n.l1d_energy_nj == doctest::Approx(5.99).epsilon(0.01));
    const stall_fit o = fit_stall_energy(offset, true);
    CHECK(o.intercept_j == doctest::Approx(0.003).epsilon(1e-4));
    CHECK(o.stall_energy_nj == doctest::Approx(0.02).epsilon(1e-4));
    CHECK(o.l1d_energy_nj == doctest::Approx(5.99).epsilon(1e-6));
    // Used as GPUJoule's EPStall, the fitted value reproduces the runs' energy.
    const gpujoule model{kepler_k40(f.stall_energy_nj, 0.0)};
    activity a;
    a.stalls = static_cast<std::uint64_t>(exact[7].stalls);
    CHECK(model.energy(a, 0).stall == doctest::Approx(0.02e-9 * a.stalls).epsilon(1e-5));
}

TEST_CASE("the EPStall fit rejects too few samples and collinear counters") {
    const std::vector<stall_sample> one{{1.0, 10, 10}};
    CHECK_THROWS_AS((void)fit_stall_energy(one), config_error);
    // Stalls always 4 × loads: the two coefficients cannot be told apart.
    std::vector<stall_sample> collinear;
    for (int i = 1; i <= 10; ++i) collinear.push_back({1e-3 * i, 4e6 * i, 1e6 * i});
    CHECK_THROWS_AS((void)fit_stall_energy(collinear), config_error);
    std::vector<stall_sample> bad{{1.0, 1, 2}, {NAN, 2, 1}};
    CHECK_THROWS_AS((void)fit_stall_energy(bad), config_error);
}
