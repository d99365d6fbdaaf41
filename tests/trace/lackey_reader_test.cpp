#include "../support/data_dir.hpp"
#include "trace_test_util.hpp"

#include <memsub/core/rng.hpp>
#include <memsub/trace/lackey_reader.hpp>
#include <memsub/trace/writers.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using memsub::access_kind;
using memsub::byte_address;
using memsub::input_error;
using memsub::trace::lackey_reader;
using pk = memsub::input_error::position_kind;

namespace {
lackey_reader make(std::istringstream& in, lackey_reader::params p = {}) {
    return lackey_reader(in, "snippet", p);
}
} // namespace

TEST_CASE("lackey: a real-looking snippet with banners, I, L, S and an M record") {
    std::istringstream in("==123== Lackey, an example Valgrind tool\n"
                          "==123== Command: ./a.out\n"
                          "==123== \n"
                          "I  0400d7d4,8\n"
                          " S 7ff000398,8\n"
                          "I  0400d7dc,3\n"
                          " L 04010a50,8\n"
                          "I  0421e3a0,4\n"
                          " M 0421e3a8,4\n"
                          "--123-- WARNING: something\n"
                          "==123== \n"
                          "==123== Counted 3 calls to main()\n");
    auto r = make(in);
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 3);
    CHECK(v[0].kind == access_kind::store);
    CHECK(v[0].address == byte_address{0x7ff000398});
    CHECK(v[0].size == 8);
    CHECK(v[0].pc == 0x0400d7d4);
    CHECK(v[1].kind == access_kind::load);
    CHECK(v[1].address == byte_address{0x04010a50});
    CHECK(v[1].pc == 0x0400d7dc);
    // M: one access, a load that also writes its bytes (cachegrind: one data read).
    CHECK_FALSE(v[0].read_modify_write);
    CHECK_FALSE(v[1].read_modify_write);
    CHECK(v[2].kind == access_kind::load);
    CHECK(v[2].read_modify_write);
    CHECK(v[2].address == byte_address{0x0421e3a8});
    CHECK(v[2].size == 4);
    CHECK(v[2].pc == 0x0421e3a0);
    CHECK(r.instructions() == 3);
    CHECK(r.records() == 3);
    CHECK(r.position() ==
          memsub::trace::trace_position{pk::line_number, 12}); // all 12 lines consumed
    memsub::access a{};
    CHECK_FALSE(r.next(a)); // stays at end
    CHECK_FALSE(r.next(a));
}

TEST_CASE("lackey: instruction fetches are delivered on request and always counted") {
    const std::string text = "I  10,4\n L 20,8\nI  14,2\n";
    std::istringstream in1(text), in2(text);
    auto data_only = make(in1);
    CHECK(trace_test::read_all(data_only).size() == 1);
    CHECK(data_only.instructions() == 2);
    auto all = make(in2, {.emit_instruction_fetches = true});
    const auto v = trace_test::read_all(all);
    REQUIRE(v.size() == 3);
    CHECK(v[0].kind == access_kind::instruction_fetch);
    CHECK(v[0].pc == 0x10);
    CHECK(v[0].size == 4);
    CHECK(v[2].address == byte_address{0x14});
    CHECK(all.instructions() == 2);
}

TEST_CASE("lackey: CRLF endings, blank lines, tabs and a last line without newline") {
    std::istringstream in("I  10,4\r\n\r\n\t L\t20,8  \r\n S 30,2");
    auto r = make(in);
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 2);
    CHECK(v[0].address == byte_address{0x20});
    CHECK(v[1].address == byte_address{0x30});
    CHECK(v[1].kind == access_kind::store);
    CHECK(r.position().value == 4);
}

TEST_CASE("lackey: malformed lines name their line number; earlier records are delivered") {
    struct bad_case {
        const char* line;
        const char* problem;
    };
    const bad_case cases[] = {
        {" X 1000,8", "not a Lackey record"},
        {"hello world", "not a Lackey record"},
        {" L 10g0,8", "bad hex digit 'g' in address"},
        {" L 1000;8", "missing ','"},
        {" L 1000,", "missing size"},
        {" L ,8", "missing address"},
        {" L 1000,8x", "bad decimal digit 'x' in size"},
        {" L 1ffffffffffffffff,8", "address does not fit in 64 bits"},
        {" L 1000,4294967296", "size does not fit in 32 bits"},
        {" L 1000,18446744073709551616", "size does not fit in 64 bits"},
        {" L 1000,8 extra", "unexpected text"},
        {" LL 1000,8", "not a Lackey record"},
        {" L 10\x01"
         "0,8",
         "byte 0x01"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.line);
        std::istringstream in(std::string("==7== banner\nI  400,4\n L ffffffffffffffff,8\n") +
                              c.line + "\n L 2000,8\n");
        auto r = make(in);
        const auto v = trace_test::expect_error(r, pk::line_number, 4, 1, c.problem);
        REQUIRE(v.size() == 1);
        CHECK(v[0].address == byte_address{0xffffffffffffffffULL}); // 16 hex digits: the max
    }
}

TEST_CASE("lackey: skip_unknown_lines tolerates interleaved program output") {
    std::istringstream in("I  10,4\nprogram says hi\n L 20,8\n");
    auto r = make(in, {.skip_unknown_lines = true});
    CHECK(trace_test::read_all(r).size() == 1);
    // Malformed records are still errors: the option only skips lines that are not records.
    std::istringstream in2("I  10,4\n L 2z,8\n");
    auto r2 = make(in2, {.skip_unknown_lines = true});
    trace_test::expect_error(r2, pk::line_number, 2, 0, "bad hex digit");
}

TEST_CASE("lackey: a line longer than max_line_bytes is an error, never an overrun") {
    for (const std::size_t buffer : {std::size_t{128}, std::size_t{1} << 20}) {
        CAPTURE(buffer);
        const lackey_reader::params p{.buffer_bytes = buffer, .max_line_bytes = 100};
        const std::string ok_line = " L " + std::string(90, '0') + "1,8"; // 96 bytes: accepted
        const std::string long_line = " L " + std::string(200, '0') + "1,8";
        std::istringstream in("I  4,4\n" + ok_line + "\n" + long_line + "\n L 8,8\n");
        auto r = make(in, p);
        trace_test::expect_error(r, pk::line_number, 3, 1, "longer than max_line_bytes");
        // The same at end of input without a newline.
        std::istringstream in2("I  4,4\n" + long_line);
        auto r2 = make(in2, p);
        trace_test::expect_error(r2, pk::line_number, 2, 0, "longer than max_line_bytes");
    }
}

TEST_CASE("lackey: bad params are config errors") {
    std::istringstream in("");
    CHECK_THROWS_AS(make(in, {.buffer_bytes = 100, .max_line_bytes = 100}), memsub::config_error);
    CHECK_THROWS_AS(make(in, {.buffer_bytes = 10}), memsub::config_error);
    CHECK_THROWS_AS(lackey_reader("/nonexistent/memsub/trace.txt"), memsub::input_error);
}

TEST_CASE("lackey: round trip through the writer, across buffer sizes") {
    const auto src = trace_test::random_accesses(5000, 42, true, ~0ULL);
    std::ostringstream os;
    memsub::trace::lackey_writer w(os);
    w.write_banner(99, "Lackey, an example Valgrind tool");
    for (const auto& a : src) w.write(a);
    w.write_modify(0xabc0, 16);
    w.write_banner(99, "");
    for (const std::size_t buffer :
         {std::size_t{64}, std::size_t{100}, std::size_t{4096}, std::size_t{1} << 20}) {
        CAPTURE(buffer);
        std::istringstream in(os.str());
        auto r = make(
            in, {.emit_instruction_fetches = true, .buffer_bytes = buffer, .max_line_bytes = 40});
        const auto v = trace_test::read_all(r);
        REQUIRE(v.size() == src.size() + 1);
        std::uint64_t pc = 0, ifetches = 0;
        for (std::size_t i = 0; i < src.size(); ++i) {
            CHECK(v[i].address == src[i].address);
            CHECK(v[i].kind == src[i].kind);
            CHECK(v[i].size == src[i].size);
            if (src[i].kind == access_kind::instruction_fetch) {
                pc = src[i].address.value;
                ++ifetches;
            }
            CHECK(v[i].pc == pc);
        }
        CHECK(v[src.size()].kind == access_kind::load);
        CHECK(v[src.size()].read_modify_write);
        CHECK(v[src.size()].address == byte_address{0xabc0});
        CHECK(v[src.size()].size == 16);
        CHECK(r.instructions() == ifetches);
    }
}

TEST_CASE("lackey: parses a real Valgrind 3.19 capture (valgrind --tool=lackey /bin/true)") {
    const std::string path = std::string(memsub_test::data_dir()) + "/lackey_true_excerpt.txt";
    // Independent reference: classify the lines naively.
    std::ifstream ref(path);
    REQUIRE(ref.is_open());
    std::string line;
    std::uint64_t n_i = 0, n_l = 0, n_s = 0, n_m = 0, n_banner = 0, n_lines = 0;
    while (std::getline(ref, line)) {
        ++n_lines;
        if (line.rfind("==", 0) == 0)
            ++n_banner;
        else if (line.rfind("I  ", 0) == 0)
            ++n_i;
        else if (line.rfind(" L ", 0) == 0)
            ++n_l;
        else if (line.rfind(" S ", 0) == 0)
            ++n_s;
        else if (line.rfind(" M ", 0) == 0)
            ++n_m;
    }
    REQUIRE(n_i + n_l + n_s + n_m + n_banner == n_lines); // every line is one of these
    REQUIRE(n_m >= 1);
    REQUIRE(n_banner >= 5);

    lackey_reader r{std::filesystem::path(path)};
    std::uint64_t loads = 0, stores = 0, modifies = 0;
    memsub::access a{};
    std::vector<memsub::access> first;
    while (r.next(a)) {
        if (first.size() < 3) first.push_back(a);
        (a.kind == access_kind::load ? loads : stores) += 1;
        modifies += a.read_modify_write;
        CHECK((!a.read_modify_write || a.kind == access_kind::load));
        CHECK(a.kind != access_kind::instruction_fetch);
    }
    CHECK(r.instructions() == n_i);
    CHECK(loads == n_l + n_m);
    CHECK(stores == n_s);
    CHECK(modifies == n_m);
    CHECK(r.records() == n_l + n_s + n_m);
    CHECK(r.position().value == n_lines);
    // The capture starts "I  0401ab70,3 / I  0401ab73,5 /  S 1fff000708,8".
    REQUIRE(first.size() == 3);
    CHECK(first[0].kind == access_kind::store);
    CHECK(first[0].address == byte_address{0x1fff000708});
    CHECK(first[0].size == 8);
    CHECK(first[0].pc == 0x0401ab73);
}

TEST_CASE("lackey: the exact-layout fast path and the lenient path agree") {
    memsub::xoshiro256ss rng(8);
    std::string exact, lenient;
    const char tags[] = {'I', 'L', 'S', 'M'};
    for (int i = 0; i < 2000; ++i) {
        const char t = tags[rng() % 4];
        // Addresses of 1..16 digits (with leading zeros sometimes), sizes of 1..10 digits.
        const int digits = 1 + static_cast<int>(rng() % 16);
        std::string addr;
        for (int d = 0; d < digits; ++d) addr += "0123456789abcdefABCDEF"[rng() % 22];
        const std::uint64_t size = rng() % 3 == 0 ? rng() % 4294967296ULL : rng() % 100;
        const std::string fields = addr + "," + std::to_string(size);
        exact += (t == 'I' ? std::string("I  ") : std::string(" ") + t + " ") + fields + "\n";
        lenient += std::string("\t") + t + " \t" + fields + " \t\n";
    }
    std::istringstream a(exact), b(lenient);
    auto ra = make(a, {.emit_instruction_fetches = true});
    auto rb = make(b, {.emit_instruction_fetches = true});
    const auto va = trace_test::read_all(ra), vb = trace_test::read_all(rb);
    REQUIRE(va.size() == vb.size());
    for (std::size_t i = 0; i < va.size(); ++i) {
        CHECK(va[i].address == vb[i].address);
        CHECK(va[i].size == vb[i].size);
        CHECK(va[i].kind == vb[i].kind);
        CHECK(va[i].pc == vb[i].pc);
    }
    CHECK(ra.instructions() == rb.instructions());
}
