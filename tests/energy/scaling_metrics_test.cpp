// EDPSE and EDⁱPSE (docs/mechanisms/energy.md, 'Scaling-efficiency metrics') and the consistency
// checks of §2.4: the exact decomposition (PE)ⁱ·E₁/E_N, 94 % at 2 GPMs from the 86.8 % incremental
// speedup, the 16→32 step behind 36 % at 32 GPMs, the +8.1-point amortisation example and the
// 18×/+10 % headline.
#include <doctest/doctest.h>

#include <cmath>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/energy/all.hpp>

using namespace memsub;
using namespace memsub::energy;

TEST_CASE("EDPSE definitions on hand-computed values") {
    const run_point one{.energy_j = 10.0, .seconds = 8.0, .units = 1};
    const run_point four{.energy_j = 12.5, .seconds = 2.5, .units = 4};
    CHECK(parallel_efficiency(one, four) == doctest::Approx(80.0)); // 8/(4·2.5)
    CHECK(edpse(one, four) == doctest::Approx(100.0 * 80.0 / (4 * 31.25)));
    CHECK(edipse(one, four, 2) == doctest::Approx(100.0 * 640.0 / (16 * 78.125)));
    CHECK(edipse(one, four, 0) == doctest::Approx(80.0)); // energy scaling E1/EN
    // Linear speedup at constant energy is 100 % (§2.1).
    CHECK(edpse(one, {.energy_j = 10.0, .seconds = 2.0, .units = 4}) == doctest::Approx(100.0));
}

TEST_CASE("property: EDⁱPSE = 100·(PE/100)ⁱ·E₁/E_N exactly, and steps chain (G6.12)") {
    xoshiro256ss rng{12};
    for (int round = 0; round < 500; ++round) {
        const double n = static_cast<double>(1u << (1 + rng() % 5));
        const run_point base{
            .energy_j = 0.1 + rng.uniform() * 100, .seconds = 0.1 + rng.uniform() * 10, .units = 1};
        const run_point scaled{.energy_j = 0.1 + rng.uniform() * 200,
                               .seconds = base.seconds / (0.5 + rng.uniform() * n),
                               .units = n};
        const double pe = parallel_efficiency(base, scaled) / 100.0;
        for (int i = 0; i <= 3; ++i)
            CHECK(edipse(base, scaled, i) ==
                  doctest::Approx(100.0 * std::pow(pe, i) * base.energy_j / scaled.energy_j)
                      .epsilon(1e-12));
        // A baseline of M units: EDPSE(1→2N) = EDPSE(1→N)·EDPSE(N→2N)/100.
        const run_point doubled{.energy_j = scaled.energy_j * (0.8 + rng.uniform()),
                                .seconds = scaled.seconds / (0.5 + rng.uniform() * 1.5),
                                .units = 2 * n};
        CHECK(edpse(base, doubled) ==
              doctest::Approx(edpse(base, scaled) * edpse(scaled, doubled) / 100.0).epsilon(1e-12));
    }
}

TEST_CASE("§2.4: 94 % at 2 GPMs from the 86.8 % incremental speedup with E₂ ≈ E₁") {
    // 1→2 GPMs is 86.8 % faster: t₁/t₂ = 1.868, PE = 93.4 %.
    const run_point one{.energy_j = 1.0, .seconds = 1.868, .units = 1};
    run_point two{.energy_j = 1.0, .seconds = 1.0, .units = 2};
    CHECK(parallel_efficiency(one, two) == doctest::Approx(93.4));
    // EDPSE 94 % then needs E₁/E₂ = 94/93.4 = 1.006 (derived in docs/mechanisms/energy.md,
    // 'Validation targets').
    two.energy_j = 1.0 / 1.006;
    CHECK(edpse(one, two) == doctest::Approx(94.0).epsilon(0.001));
    CHECK(std::round(edpse(one, two)) == 94.0);
}

TEST_CASE("§2.4: 36 % at 32 GPMs; the 16→32 step puts EDPSE₁₆ at 57 %, above the 50 % bar") {
    // 16→32: 47 % incremental speedup, +15.7 % energy. The step factor EDPSE(16→32) is
    // (1.47/2)/1.157 = 63.5 % (G6.12: a 16-unit baseline).
    const run_point sixteen{.energy_j = 1.0, .seconds = 1.47, .units = 16};
    const run_point thirty_two{.energy_j = 1.157, .seconds = 1.0, .units = 32};
    const double step = edpse(sixteen, thirty_two);
    CHECK(step == doctest::Approx(63.53).epsilon(0.0005));
    // With EDPSE₃₂ = 36 %, EDPSE₁₆ = 36/0.635 ≈ 57 %: the 50 % threshold is crossed beyond
    // 16 GPMs, as reported.
    const double edpse_16 = 36.0 / (step / 100.0);
    CHECK(edpse_16 == doctest::Approx(56.7).epsilon(0.001));
    CHECK(edpse_16 > 50.0);
    // Chained from a 1-GPM run with those numbers, the whole is 36 %.
    const run_point one{.energy_j = 1.0, .seconds = 1.0, .units = 1};
    // A 16-GPM run with EDPSE 56.67 % and PE 50 %: E₁₆ = PE/EDPSE·E₁.
    const run_point at_16{.energy_j = 50.0 / edpse_16, .seconds = 1.0 / 8.0, .units = 16};
    const run_point at_32{
        .energy_j = at_16.energy_j * 1.157, .seconds = at_16.seconds / 1.47, .units = 32};
    CHECK(edpse(one, at_16) == doctest::Approx(edpse_16));
    CHECK(edpse(one, at_32) == doctest::Approx(36.0));
}

TEST_CASE("§2.4: amortisation's +8.1 points of EDPSE are percentage points (base ≈ 28.2 %)") {
    // At 32 GPMs, on package, 2x-BW: −22.3 % energy at the same delay. EDPSE scales by 1/0.777
    // = 1.287, so +8.1 points means a base of 28.2 % and a result of 36.3 % — the headline 36 %.
    const run_point one{.energy_j = 1.0, .seconds = 1.0, .units = 1};
    // A 32-GPM run without amortisation whose EDPSE is 28.2 %: PE 40 %, E₃₂ = 0.4/0.282.
    const run_point none{.energy_j = 0.40 / 0.282, .seconds = 1.0 / (32 * 0.40), .units = 32};
    CHECK(edpse(one, none) == doctest::Approx(28.2));
    const run_point half{
        .energy_j = none.energy_j * (1 - 0.223), .seconds = none.seconds, .units = 32};
    CHECK(edpse(one, half) / edpse(one, none) == doctest::Approx(1.287).epsilon(0.001));
    CHECK(edpse(one, half) - edpse(one, none) == doctest::Approx(8.1).epsilon(0.01));
    CHECK(std::round(edpse(one, half)) == 36.0);
    // a = 0.25: −10.4 % energy predicts +3.3 points; the paper reports 3.5 (§2.4 notes the
    // 0.2-point difference; 3.5 is not reproducible from 10.4 % and the 28.2 % base).
    const run_point quarter{
        .energy_j = none.energy_j * (1 - 0.104), .seconds = none.seconds, .units = 32};
    CHECK(edpse(one, quarter) - edpse(one, none) == doctest::Approx(3.27).epsilon(0.01));
}

TEST_CASE("§2.4 headline: 18× strong scaling at +10 % energy on 32 GPMs is ≈ 51 % EDPSE") {
    const run_point one{.energy_j = 1.0, .seconds = 18.0, .units = 1};
    const run_point thirty_two{.energy_j = 1.10, .seconds = 1.0, .units = 32};
    CHECK(edpse(one, thirty_two) == doctest::Approx(51.1).epsilon(0.001));
}

TEST_CASE("the amortised 32-GPM model run reproduces −22.3 % energy and +8.1 points") {
    // End to end through GPUJoule's multi-module extension: a 32-GPM on-package run whose
    // constant energy is 46.04 % of its unamortised total (the fraction §2.3 derives), with
    // a 1-GPM baseline placed so that the unamortised EDPSE is 28.2 %.
    const gpujoule_params k40 = kepler_k40(0.01, 60.0);
    activity act;
    act.add(transaction_class::l2_to_l1, 1'000'000'000);
    const double dynamic = 3.96;
    const double t32 = dynamic * (0.4604 / (1 - 0.4604)) / (32 * 60.0);
    const double e_none = gpujoule{multi_module(k40, on_package(32, 0.0))}.energy(act, t32).total();
    const double e_half = gpujoule{multi_module(k40, on_package(32, 0.5))}.energy(act, t32).total();
    CHECK(1 - e_half / e_none == doctest::Approx(0.223).epsilon(0.001));
    const run_point none{.energy_j = e_none, .seconds = t32, .units = 32};
    const run_point half{.energy_j = e_half, .seconds = t32, .units = 32};
    // Baseline: PE 40 % (t₁ = 12.8·t₃₂) and EDPSE 28.2 % (E₁ = 0.282/0.4·E₃₂).
    const run_point one{.energy_j = e_none * 0.282 / 0.40, .seconds = t32 * 12.8, .units = 1};
    CHECK(edpse(one, none) == doctest::Approx(28.2));
    CHECK(edpse(one, half) - edpse(one, none) == doctest::Approx(8.1).epsilon(0.01));
}

TEST_CASE("scaling metrics reject non-positive or non-finite inputs") {
    const run_point ok{.energy_j = 1, .seconds = 1, .units = 1};
    CHECK_THROWS_AS((void)edpse(ok, {.energy_j = 0, .seconds = 1, .units = 2}), config_error);
    CHECK_THROWS_AS((void)edpse({.energy_j = 1, .seconds = -1, .units = 1}, ok), config_error);
    CHECK_THROWS_AS((void)parallel_efficiency(ok, {.energy_j = 1, .seconds = 1, .units = 0}),
                    config_error);
    CHECK_THROWS_AS((void)edpse(ok, {.energy_j = NAN, .seconds = 1, .units = 2}), config_error);
    CHECK_THROWS_AS((void)edipse(ok, ok, -1), config_error);
    try {
        (void)edpse(ok, {.energy_j = 1, .seconds = 0, .units = 2});
        FAIL("no config_error");
    } catch (const config_error& e) {
        CHECK(e.parameter() == "scaled.seconds");
    }
}
