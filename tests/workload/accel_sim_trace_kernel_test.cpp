// simt::accel_sim_trace_kernel (workload/simt/accel_sim_trace_kernel.hpp) on the hand-made
// kernel-1.traceg of tests/data/accel_sim (2 blocks of 64 threads; the reader's own test
// documents its lines): launch shapes from the header, each warp's memory instructions in file
// order with their lanes, loads stalling and stores not, the description, and the errors.
#include <doctest/doctest.h>

#include "../support/data_dir.hpp"

#include <memsub/core/errors.hpp>
#include <memsub/workload/simt/accel_sim_trace_kernel.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace memsub::workload::simt;

namespace {

const fs::path kernel_1 = fs::path(memsub_test::data_dir()) / "accel_sim" / "kernel-1.traceg";

/// The instructions warp `warp` of block `cta` delivers, once started.
std::vector<memsub::warp_instruction> run_warp(accel_sim_trace_kernel& k, std::uint32_t cta,
                                               std::uint32_t warp, std::uint32_t threads) {
    accel_sim_trace_kernel::warp_state w;
    k.start_warp(w, warp_origin{.cta = cta, .warp_in_cta = warp, .threads_per_cta = threads});
    std::vector<memsub::warp_instruction> out;
    memsub::warp_instruction i;
    while (k.step(w, i)) out.push_back(i);
    return out;
}

} // namespace

TEST_CASE("accel_sim_trace_kernel: blocks in file order, each warp's memory instructions") {
    accel_sim_trace_kernel k("vecadd", {kernel_1});
    CHECK(k.name() == "vecadd");
    launch_shape shape{};
    REQUIRE(k.next_launch(shape));
    CHECK(shape.ctas == 2);
    CHECK(shape.threads_per_cta == 64);

    const auto w0 = run_warp(k, 0, 0, 64);
    REQUIRE(w0.size() == 3); // the STS (shared memory) is not delivered
    CHECK(w0[0].pc == 0x50);
    CHECK(w0[0].active_mask == 0xffffffffu);
    CHECK(w0[0].access_bytes == 8);
    CHECK(w0[0].kind == memsub::access_kind::load);
    CHECK(w0[0].stalls); // every load waits for its data
    CHECK(w0[0].lanes[0] == 0x7f0010000000u);
    CHECK(w0[0].lanes[31] == 0x7f0010000000u + 31 * 8);
    CHECK(w0[1].pc == 0x60);
    CHECK(w0[1].active_mask == 0x0000ffffu);
    CHECK(w0[2].pc == 0x80);
    CHECK(w0[2].kind == memsub::access_kind::store);
    CHECK_FALSE(w0[2].stalls); // a store does not
    CHECK(w0[2].active_mask == 0x5u);
    CHECK(w0[2].lanes[0] == 0x7f0010200000u);
    CHECK(w0[2].lanes[2] == 0x7f0010200010u);

    const auto w1 = run_warp(k, 0, 1, 64);
    REQUIRE(w1.size() == 2);
    CHECK(w1[0].active_mask == 0xffff0000u);
    CHECK(w1[0].lanes[16] == 0x7f0010000100u);
    CHECK(w1[1].pc == 0xa0);
    CHECK(w1[1].access_bytes == 1);
    CHECK(w1[1].lanes[31] == 0x7f000200001fu);

    const auto b1 = run_warp(k, 1, 0, 64);
    REQUIRE(b1.size() == 1);
    CHECK(b1[0].access_bytes == 16);
    CHECK(run_warp(k, 1, 1, 64).empty()); // a warp with no memory instruction exits at once

    CHECK_FALSE(k.next_launch(shape));
    REQUIRE(k.fraction_read().has_value());
    CHECK(*k.fraction_read() == doctest::Approx(1.0));
    CHECK(k.describe() == ", 1 launch of _Z6vecAddPdS_S_i; 2 of 2 thread blocks with memory "
                          "instructions; 9 instructions read, 1 memory instruction the L1 does "
                          "not see (shared, constant, texture) skipped");
}

TEST_CASE("accel_sim_trace_kernel: one launch per file, names listed once") {
    accel_sim_trace_kernel k("twice", {kernel_1, kernel_1});
    launch_shape shape{};
    std::uint32_t launches = 0;
    while (k.next_launch(shape)) {
        ++launches;
        for (std::uint32_t cta = 0; cta < shape.ctas; ++cta)
            for (std::uint32_t w = 0; w < 2; ++w) (void)run_warp(k, cta, w, shape.threads_per_cta);
    }
    CHECK(launches == 2);
    CHECK(k.describe().starts_with(", 2 launches of _Z6vecAddPdS_S_i; 4 of 4 thread blocks"));
}

TEST_CASE("accel_sim_trace_kernel: no file is a configuration error; a trace that breaks its "
          "header is an input error") {
    CHECK_THROWS_AS(accel_sim_trace_kernel("none", {}), memsub::config_error);

    // A second block where the grid has one: found when the launch ends.
    const fs::path bad = fs::temp_directory_path() / "memsub_accel_sim_trace_kernel_test.traceg";
    {
        std::ofstream out(bad);
        out << "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
               "-accelsim tracer version = 4\n";
        for (int b = 0; b < 2; ++b)
            out << "#BEGIN_TB\nthread block = " << b
                << ",0,0\nwarp = 0\ninsts = 1\n0050 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4\n"
                   "#END_TB\n";
    }
    accel_sim_trace_kernel k("bad", {bad});
    launch_shape shape{};
    REQUIRE(k.next_launch(shape));
    CHECK(run_warp(k, 0, 0, 32).size() == 1);
    try {
        (void)k.next_launch(shape);
        FAIL("no error for a block beyond the grid");
    } catch (const memsub::input_error& e) {
        CHECK(e.problem() == "more thread blocks than the grid's 1");
    }
    fs::remove(bad);
}
