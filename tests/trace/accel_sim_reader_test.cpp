// The Accel-Sim SASS trace reader (trace/accel_sim_reader.hpp) on a hand-made kernel-1.traceg in
// tests/data/accel_sim that follows the documented format (header, thread blocks, warps, the
// three address formats, non-memory and shared-memory instructions), and on malformed inputs:
// each error names the file and line, and every instruction before it has been delivered.
#include <doctest/doctest.h>

#include "../support/data_dir.hpp"

#include <memsub/trace/accel_sim_reader.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

using memsub::trace::accel_sim_reader;
using warp_instruction = memsub::warp_instruction;

namespace {

const std::string data_dir = memsub_test::data_dir();

std::vector<warp_instruction> read_all(accel_sim_reader& r) {
    std::vector<warp_instruction> v;
    warp_instruction w;
    while (r.next(w)) v.push_back(w);
    return v;
}

/// A one-warp kernel around `lines` (instruction lines), `insts` declared.
std::string one_warp(const std::string& lines, int insts) {
    return "-kernel name = k\n-kernel id = 3\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
           "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = " +
           std::to_string(insts) + "\n" + lines + "#END_TB\n";
}

/// The error `text` raises: its line number and problem; delivered = instructions before it.
struct failure {
    std::uint64_t line = 0;
    std::string problem;
    std::size_t delivered = 0;
};
failure error_of(const std::string& text) {
    std::istringstream in(text);
    accel_sim_reader r(in, "t.traceg");
    failure f;
    warp_instruction w;
    try {
        while (r.next(w)) ++f.delivered;
    } catch (const memsub::input_error& e) {
        CHECK(e.source() == "t.traceg");
        CHECK(e.kind() == memsub::input_error::position_kind::line_number);
        f.line = e.position();
        f.problem = e.problem();
        // Sticky: the next call throws the same error.
        CHECK_THROWS_AS(r.next(w), memsub::input_error);
        return f;
    }
    FAIL("no error for: " << text);
    return f;
}

} // namespace

TEST_CASE("accel-sim: the hand-made kernel trace decodes to the documented lanes, sizes and "
          "kinds") {
    accel_sim_reader r(data_dir + "/accel_sim/kernel-1.traceg");
    const auto v = read_all(r);
    const auto& k = r.kernel();
    CHECK(k.name == "_Z6vecAddPdS_S_i");
    CHECK(k.id == 1);
    CHECK(k.grid == std::array<std::uint32_t, 3>{2, 1, 1});
    CHECK(k.block == std::array<std::uint32_t, 3>{64, 1, 1});
    CHECK(k.registers == 16);
    CHECK(k.binary_version == 70);
    CHECK(k.tracer_version == 3);
    CHECK(k.shmem_base == 0x7f0000000000);
    CHECK(k.local_base == 0x7f0002000000);
    CHECK(r.instructions() == 9);
    CHECK(r.skipped_memory() == 1); // the STS
    REQUIRE(v.size() == 6);
    CHECK(r.records() == 6);

    // base_stride: 32 lanes x 8 B from 0x7f0010000000.
    CHECK(v[0].pc == 0x50);
    CHECK(v[0].active_mask == 0xffffffffu);
    CHECK(v[0].access_bytes == 8);
    CHECK(v[0].kind == memsub::access_kind::load);
    for (std::uint32_t l = 0; l < 32; ++l) CHECK(v[0].lanes[l] == 0x7f0010000000 + 8 * l);

    // base_delta over lanes 0..15: +8 each, then -120 for lane 15; inactive lanes read 0.
    CHECK(v[1].active_mask == 0x0000ffffu);
    for (std::uint32_t l = 0; l < 15; ++l) CHECK(v[1].lanes[l] == 0x7f0010100000 + 8 * l);
    CHECK(v[1].lanes[15] == 0x7f0010100000 + 112 - 120);
    for (std::uint32_t l = 16; l < 32; ++l) CHECK(v[1].lanes[l] == 0);

    // list_all on lanes 0 and 2, a store.
    CHECK(v[2].kind == memsub::access_kind::store);
    CHECK(v[2].active_mask == 0x5u);
    CHECK(v[2].lanes[0] == 0x7f0010200000);
    CHECK(v[2].lanes[2] == 0x7f0010200010);
    CHECK(v[2].lanes[1] == 0);

    // Warp 1: base_stride starting at lane 16; 4 B (no size modifier).
    CHECK(v[3].warp_in_cta == 1);
    CHECK(v[3].access_bytes == 4);
    CHECK(v[3].lanes[16] == 0x7f0010000100);
    CHECK(v[3].lanes[31] == 0x7f0010000100 + 4 * 15);
    // LDL.U8: local memory (it reaches the L1D), one byte per lane.
    CHECK(v[4].access_bytes == 1);
    CHECK(v[4].lanes[31] == 0x7f000200001f);

    // CTA 1, 128-bit loads, a delta back of 496 in the middle, a trailing immediate ignored.
    CHECK(v[5].cta == 1);
    CHECK(v[5].warp_in_cta == 0);
    CHECK(v[5].warp_age == 2); // two warps per 64-thread CTA: CTA 1's warp 0 is the third
    CHECK(v[5].access_bytes == 16);
    CHECK(v[5].launch == 0);
    CHECK(v[5].lanes[15] == 0x7f0010000400 + 15 * 16);
    CHECK(v[5].lanes[16] == 0x7f0010000400 + 15 * 16 - 496);
    CHECK(v[5].lanes[31] == 0x7f0010000400 + 15 * 16 - 496 + 15 * 16);
}

TEST_CASE("accel-sim: every memory space is delivered with include_all_memory") {
    accel_sim_reader r(data_dir + "/accel_sim/kernel-1.traceg", {.include_all_memory = true});
    const auto v = read_all(r);
    REQUIRE(v.size() == 7);
    CHECK(v[2].kind == memsub::access_kind::store); // the STS, now delivered
    CHECK(v[2].lanes[31] == 0x7f0000000000 + 4 * 31);
    CHECK(r.skipped_memory() == 0);
}

TEST_CASE("accel-sim: malformed input names the line; earlier instructions are delivered") {
    const std::string good = "0050 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4\n"; // line 10
    // Header lines 1-5, #BEGIN_TB 6, thread block 7, warp 8, insts 9, instructions from 10.
    auto f = error_of(one_warp(good + "0060 ffffffff 1 R4 LDG.E 1 R2 4 7 0x1000 4\n", 2));
    CHECK(f.line == 11);
    CHECK(f.delivered == 1);
    CHECK(f.problem.find("unknown address format 7") != std::string::npos);

    f = error_of(one_warp(good + "0060 0000ff0f 1 R4 LDG.E 1 R2 4 1 0x1000 4\n", 2));
    CHECK(f.line == 11);
    CHECK(f.problem.find("not one run") != std::string::npos);

    f = error_of(one_warp("00g0 ffffffff 0 EXIT 0 0\n", 1));
    CHECK(f.line == 10);
    CHECK(f.problem.find("bad hex digit 'g' in PC") != std::string::npos);

    f = error_of(one_warp(good + "0060 00000003 1 R4 LDG.E 1 R2 4 0 0x1000\n", 2));
    CHECK(f.line == 11);
    CHECK(f.problem.find("missing lane address") != std::string::npos);

    f = error_of(one_warp(good + "0060 00000003 1 R4 LDG.E 1 R2 4 2 0x1000 8 9 10\n", 2));
    CHECK(f.problem.find("unexpected tokens") != std::string::npos);

    f = error_of(one_warp(good, 2)); // declared 2, has 1: found at #END_TB
    CHECK(f.line == 11);
    CHECK(f.delivered == 1);
    CHECK(f.problem.find("declared insts = 2 but has 1") != std::string::npos);

    f = error_of("-grid dim = (2,1)\n");
    CHECK(f.line == 1);
    CHECK(f.problem.find("grid dim must be three numbers") != std::string::npos);

    f = error_of("0050 ffffffff 0 EXIT 0 0\n");
    CHECK(f.line == 1);
    CHECK(f.problem.find("outside a warp") != std::string::npos);

    f = error_of(one_warp("0050 ffffffff 1 R4 LDG.E 1 R2 4 2 0x1000 99999999999999999999\n", 1));
    CHECK(f.problem.find("address delta does not fit in 64 bits") != std::string::npos);

    f = error_of(one_warp("0050 1ffffffff 0 EXIT 0 0\n", 1));
    CHECK(f.problem.find("active mask") != std::string::npos);
}

TEST_CASE("accel-sim: an empty file and a file without instructions deliver nothing") {
    std::istringstream empty("");
    accel_sim_reader a(empty, "empty");
    warp_instruction w;
    CHECK_FALSE(a.next(w));
    CHECK_FALSE(a.next(w));
    std::istringstream header_only("-kernel name = k\n#BEGIN_TB\n#END_TB\n");
    accel_sim_reader b(header_only, "h");
    CHECK_FALSE(b.next(w));
    CHECK(b.kernel().name == "k");
    CHECK(b.instructions() == 0);
}
