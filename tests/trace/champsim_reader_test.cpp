// ChampSim's 64-byte instruction records: the field layout, the order ChampSim's core issues an
// instruction's accesses in (checked against an independent model of its `ooo_model_instr`:
// zero addresses dropped, loads then stores), instruction fetches per block, errors at the
// record's byte offset naming its index, batches equal to `next`, and format detection.
#include "trace_test_util.hpp"

#include <memsub/core/rng.hpp>
#include <memsub/trace/champsim_reader.hpp>
#include <memsub/trace/open.hpp>

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

using memsub::access_kind;
using memsub::byte_address;
using memsub::trace::champsim_reader;
using pk = memsub::input_error::position_kind;

namespace {

/// One ChampSim `input_instr`, as its tracer writes it.
struct instr {
    std::uint64_t ip = 0;
    std::uint8_t is_branch = 0, branch_taken = 0;
    std::array<std::uint8_t, 2> destination_registers{};
    std::array<std::uint8_t, 4> source_registers{};
    std::array<std::uint64_t, 2> destination_memory{};
    std::array<std::uint64_t, 4> source_memory{};
};

/// The record's bytes, encoded field by field (independent of the reader's offsets).
std::string encode(const instr& x) {
    std::string s;
    trace_test::le(s, x.ip, 8);
    s.push_back(static_cast<char>(x.is_branch));
    s.push_back(static_cast<char>(x.branch_taken));
    for (const auto r : x.destination_registers) s.push_back(static_cast<char>(r));
    for (const auto r : x.source_registers) s.push_back(static_cast<char>(r));
    for (const auto m : x.destination_memory) trace_test::le(s, m, 8);
    for (const auto m : x.source_memory) trace_test::le(s, m, 8);
    REQUIRE(s.size() == 64);
    return s;
}

struct expected {
    std::uint64_t address, pc;
    access_kind kind;
};

/// What ChampSim's core issues for `x`: its non-zero source addresses (loads), then its
/// non-zero destination addresses (stores), each tagged with the instruction's ip.
std::vector<expected> champsim_model(const instr& x) {
    std::vector<expected> v;
    for (const auto m : x.source_memory)
        if (m != 0) v.push_back({m, x.ip, access_kind::load});
    for (const auto m : x.destination_memory)
        if (m != 0) v.push_back({m, x.ip, access_kind::store});
    return v;
}

instr random_instr(memsub::xoshiro256ss& rng) {
    instr x;
    x.ip = 0x400000 + 4 * (rng() % 4096);
    x.is_branch = static_cast<std::uint8_t>(rng() % 2);
    x.branch_taken = x.is_branch != 0 ? static_cast<std::uint8_t>(rng() % 2) : 0;
    for (auto& r : x.source_registers) r = static_cast<std::uint8_t>(rng());
    for (auto& r : x.destination_registers) r = static_cast<std::uint8_t>(rng());
    // About half the operand slots used, at any position (zeros in between, as traces have).
    for (auto& m : x.source_memory) m = rng() % 2 == 0 ? 0 : 0x7fff0000 + 8 * (rng() % 100000);
    for (auto& m : x.destination_memory) m = rng() % 3 == 0 ? 0x10000000 + 8 * (rng() % 50) : 0;
    return x;
}

} // namespace

TEST_CASE("champsim: a record's loads then stores, pc = ip, zero slots skipped") {
    instr a;
    a.ip = 0x401000;
    a.source_memory = {0, 0x1000, 0, 0x2008};
    a.destination_memory = {0x3000, 0};
    instr b; // no memory operand: no access
    b.ip = 0x401004;
    b.is_branch = 1;
    b.branch_taken = 1;
    instr c;
    c.ip = 0xffff'ffff'ffff'fff0;
    c.destination_memory = {0xdead'beef'0000'0000, 0x40};
    std::istringstream in(encode(a) + encode(b) + encode(c));
    champsim_reader r(in, "cs", {.requester = 3});
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 5);
    CHECK(v[0].address == byte_address{0x1000});
    CHECK(v[0].kind == access_kind::load);
    CHECK(v[1].address == byte_address{0x2008});
    CHECK(v[1].kind == access_kind::load);
    CHECK(v[2].address == byte_address{0x3000});
    CHECK(v[2].kind == access_kind::store);
    for (int i = 0; i < 3; ++i) CHECK(v[i].pc == 0x401000);
    CHECK(v[3].address == byte_address{0xdead'beef'0000'0000});
    CHECK(v[4].address == byte_address{0x40});
    CHECK(v[4].pc == 0xffff'ffff'ffff'fff0);
    for (const auto& x : v) {
        CHECK(x.size == 0);
        CHECK(x.requester == 3);
        CHECK_FALSE(x.read_modify_write);
    }
    CHECK(r.records() == 5);
    CHECK(r.instructions() == 3);
    CHECK(r.position() == memsub::trace::trace_position{pk::byte_offset, 192});
    memsub::access after{};
    CHECK_FALSE(r.next(after));
}

TEST_CASE("champsim: 20,000 random records equal the model of ChampSim's core, in batches too") {
    memsub::xoshiro256ss rng(11);
    std::string bytes;
    std::vector<expected> want;
    for (int i = 0; i < 20000; ++i) {
        const instr x = random_instr(rng);
        bytes += encode(x);
        for (const auto& e : champsim_model(x)) want.push_back(e);
    }
    std::istringstream in(bytes);
    champsim_reader r(in, "cs", {.buffer_bytes = 4096}); // records straddle every refill
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == want.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        CAPTURE(i);
        CHECK(v[i].address == byte_address{want[i].address});
        CHECK(v[i].pc == want[i].pc);
        CHECK(v[i].kind == want[i].kind);
    }
    CHECK(r.instructions() == 20000);

    std::istringstream in2(bytes);
    champsim_reader batched(in2, "cs", {.buffer_bytes = 4096});
    std::vector<memsub::access> got, chunk(97);
    while (const std::size_t n = memsub::trace::next_batch(batched, chunk))
        got.insert(got.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
    REQUIRE(got.size() == v.size());
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(got[i].address == v[i].address);
}

TEST_CASE("champsim: instruction fetches, one per fetch block entered") {
    // ips: 0x1000, 0x1004 (same 64 B block), 0x1040 (next block), 0x1008 (back), 0x1008.
    std::string bytes;
    for (const std::uint64_t ip : {0x1000, 0x1004, 0x1040, 0x1008, 0x1008}) {
        instr x;
        x.ip = ip;
        x.source_memory[0] = ip == 0x1040 ? 0x9000 : 0;
        bytes += encode(x);
    }
    std::istringstream in(bytes);
    champsim_reader r(in, "cs", {.instruction_fetches = true});
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 4);
    CHECK(v[0].kind == access_kind::instruction_fetch);
    CHECK(v[0].address == byte_address{0x1000});
    CHECK(v[1].kind == access_kind::instruction_fetch);
    CHECK(v[1].address == byte_address{0x1040});
    CHECK(v[2].kind == access_kind::load); // the fetch comes before the instruction's data
    CHECK(v[2].address == byte_address{0x9000});
    CHECK(v[3].kind == access_kind::instruction_fetch);
    CHECK(v[3].address == byte_address{0x1008});

    std::istringstream in2(bytes);
    champsim_reader wide(in2, "cs", {.instruction_fetches = true, .fetch_line_bytes = 128});
    CHECK(trace_test::read_all(wide).size() ==
          2); // 0x1000 and the load; 0x1040 is in 0x1000's block

    std::istringstream none("");
    CHECK_THROWS_AS(champsim_reader(none, "cs", {.fetch_line_bytes = 48}), memsub::config_error);
    CHECK_THROWS_AS(champsim_reader(none, "cs", {.fetch_line_bytes = 2}), memsub::config_error);
}

TEST_CASE("champsim: bad records are errors at their offset naming the record") {
    instr good;
    good.ip = 0x400;
    good.source_memory[0] = 0x100;
    const std::string two = encode(good) + encode(good);
    for (std::size_t tail = 1; tail < 64; ++tail) {
        CAPTURE(tail);
        std::istringstream in(two + encode(good).substr(0, tail));
        champsim_reader r(in, "cs", {.buffer_bytes = 64});
        trace_test::expect_error(r, pk::byte_offset, 128, 2, "record 2: truncated record");
    }
    for (const auto& flags : std::array<std::pair<int, int>, 3>{{{2, 0}, {1, 7}, {0, 1}}}) {
        const int branch = flags.first, taken = flags.second; // CAPTURE takes no binding (clang 14)
        CAPTURE(branch);
        CAPTURE(taken);
        instr bad = good;
        bad.is_branch = static_cast<std::uint8_t>(branch);
        bad.branch_taken = static_cast<std::uint8_t>(taken);
        std::istringstream in(two + encode(bad) + encode(good));
        champsim_reader r(in, "cs");
        trace_test::expect_error(r, pk::byte_offset, 128, 2, "record 2: is_branch");
        // Not strict: the same bytes are read as they are.
        std::istringstream in2(two + encode(bad) + encode(good));
        champsim_reader lax(in2, "cs", {.strict_flags = false});
        CHECK(trace_test::read_all(lax).size() == 4);
    }
}

TEST_CASE("champsim: found by name and by --format; compressed files are named as such") {
    using memsub::trace::trace_format;
    CHECK(memsub::trace::parse_format("champsim") == trace_format::champsim);
    CHECK(memsub::trace::to_string(trace_format::champsim) == "champsim");
    instr x;
    x.ip = 0x10;
    x.source_memory[1] = 0x2000;
    trace_test::temp_file f("t.champsimtrace");
    f.write(encode(x) + encode(x));
    CHECK(memsub::trace::detect_format(f.path) == trace_format::champsim);
    auto reader = memsub::trace::open_trace(f.path);
    std::uint64_t n = memsub::trace::for_each_access(
        reader, [](const memsub::access& a) { CHECK(a.address == byte_address{0x2000}); });
    CHECK(n == 2);
    trace_test::temp_file xz("t.champsimtrace.xz");
    xz.write("\xfd"
             "7zXZ");
    CHECK_THROWS_WITH_AS((void)memsub::trace::detect_format(xz.path),
                         doctest::Contains("a compressed ChampSim trace"), memsub::input_error);
    // Unnamed binary content still needs an explicit format, which now lists champsim.
    std::istringstream raw(encode(x));
    CHECK_THROWS_WITH_AS((void)memsub::trace::open_trace(raw, "stdin"),
                         doctest::Contains("champsim"), memsub::input_error);
    std::istringstream raw2(encode(x));
    auto named = memsub::trace::open_trace(raw2, "stdin", trace_format::champsim);
    CHECK(memsub::trace::for_each_access(named, [](const memsub::access&) {}) == 1);
}
