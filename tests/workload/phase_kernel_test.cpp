// simt::phase_kernel (workload/simt/phase_kernel.hpp): launches alternate the latency-tolerant
// and the latency-sensitive phase with their own shapes, every load gathers one whole 128 B line
// of its phase's table, the tolerant phase has ALU work between loads, and the configuration
// errors.
#include <doctest/doctest.h>

#include <memsub/core/errors.hpp>
#include <memsub/workload/simt/phase_kernel.hpp>

#include <cstdint>
#include <set>

using namespace memsub::workload::simt;

TEST_CASE("phase_kernel: launches alternate the two phases' shapes") {
    phase_kernel k({.sms = 3, .rounds = 2});
    CHECK(k.name() == "phases");
    CHECK(k.launches() == 4);
    launch_shape shape{};
    for (std::uint32_t launch = 0; launch < 4; ++launch) {
        CAPTURE(launch);
        REQUIRE(k.next_launch(shape));
        const auto& ph = k.phase_of_launch(launch);
        CHECK(ph.name == (launch % 2 == 0 ? "tolerant" : "sensitive"));
        CHECK(shape.ctas == ph.ctas_per_sm * 3);
        CHECK(shape.threads_per_cta == ph.threads_per_cta);
    }
    CHECK_FALSE(k.next_launch(shape));
    CHECK(k.phase_of_launch(0).ctas_per_sm * k.phase_of_launch(0).threads_per_cta / 32 == 16);
    CHECK(k.phase_of_launch(1).ctas_per_sm * k.phase_of_launch(1).threads_per_cta / 32 == 1);
}

TEST_CASE("phase_kernel: each load is one whole line of the phase's table") {
    phase_kernel k({.sms = 1, .scale = 0.01, .rounds = 1});
    launch_shape shape{};
    for (std::uint32_t launch = 0; launch < 2; ++launch) {
        CAPTURE(launch);
        REQUIRE(k.next_launch(shape));
        const auto& ph = k.phase_of_launch(launch);
        phase_kernel::warp_state w;
        k.start_warp(
            w, warp_origin{.cta = 0, .warp_in_cta = 0, .threads_per_cta = shape.threads_per_cta});
        memsub::warp_instruction i;
        std::uint32_t loads = 0;
        std::set<std::uint64_t> lines;
        while (k.step(w, i)) {
            ++loads;
            CHECK(i.kind == memsub::access_kind::load);
            CHECK(i.stalls);
            CHECK(i.active_mask == 0xffffffffu);
            CHECK(i.alu_cycles == ph.alu_cycles);
            CHECK(i.lanes[0] % 128 == 0); // the line's first word
            for (std::uint32_t l = 1; l < 32; ++l) CHECK(i.lanes[l] == i.lanes[0] + 4 * l);
            lines.insert(i.lanes[0] / 128);
        }
        CHECK(loads == ph.loads_per_warp);
        // The lines drawn stay inside the table (a contiguous region of table_lines lines).
        REQUIRE_FALSE(lines.empty());
        CHECK(*lines.rbegin() - *lines.begin() < ph.table_lines);
    }
    CHECK(k.phase_of_launch(0).alu_cycles == 16);
    CHECK(k.phase_of_launch(1).alu_cycles == 0);
}

TEST_CASE("phase_kernel: the same seed gives the same walk; configuration errors throw") {
    auto first_line = [](std::uint64_t seed) {
        phase_kernel k({.sms = 1, .scale = 0.01, .rounds = 1, .seed = seed});
        launch_shape shape{};
        (void)k.next_launch(shape);
        phase_kernel::warp_state w;
        k.start_warp(w, warp_origin{.cta = 0, .warp_in_cta = 0, .threads_per_cta = 256});
        memsub::warp_instruction i;
        (void)k.step(w, i);
        return i.lanes[0];
    };
    CHECK(first_line(7) == first_line(7));
    CHECK_THROWS_AS(phase_kernel({.sms = 0}), memsub::config_error);
    CHECK_THROWS_AS(phase_kernel({.scale = 0.0}), memsub::config_error);
    CHECK_THROWS_AS(phase_kernel({.rounds = 0}), memsub::config_error);
}
