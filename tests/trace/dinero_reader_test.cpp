#include "trace_test_util.hpp"

#include <memsub/trace/dinero_reader.hpp>
#include <memsub/trace/writers.hpp>

#include <sstream>
#include <string>

using memsub::access_kind;
using memsub::byte_address;
using memsub::trace::dinero_reader;
using pk = memsub::input_error::position_kind;

namespace {
dinero_reader make(std::istringstream& in, dinero_reader::params p = {}) {
    return dinero_reader(in, "din-snippet", p);
}
} // namespace

TEST_CASE("din: the classic examples (Dinero manual) and every label") {
    // "2 0 / 0 1000 / 0 70f60888 / 2 2cb5 / 1 70f60890 / 1 70f6088c" plus labels 3, 4, 5.
    std::istringstream in("2 0\n0 1000\n0 70f60888\n2 2cb5\n1 70f60890\n1 70f6088c\n"
                          "3 44\n4 0\n5 0\n");
    auto r = make(in, {.emit_instruction_fetches = true});
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 7);
    CHECK(v[0].kind == access_kind::instruction_fetch);
    CHECK(v[0].address == byte_address{0});
    CHECK(v[1].kind == access_kind::load);
    CHECK(v[1].address == byte_address{0x1000});
    CHECK(v[2].address == byte_address{0x70f60888}); // not rounded to a word (documented)
    CHECK(v[3].kind == access_kind::instruction_fetch);
    CHECK(v[3].pc == 0x2cb5);
    CHECK(v[4].kind == access_kind::store);
    CHECK(v[5].address == byte_address{0x70f6088c});
    CHECK(v[6].kind == access_kind::load); // label 3 (unknown type) as a load by default
    CHECK(v[6].address == byte_address{0x44});
    for (const auto& a : v) CHECK(a.size == 0); // no size field
    CHECK(r.instructions() == 2);
    CHECK(r.skipped() == 2); // 4 (flush) and 5 (invalidate)
    CHECK(r.position() == memsub::trace::trace_position{pk::line_number, 9});
}

TEST_CASE("din: defaults skip instruction fetches; misc_as_load=false skips label 3") {
    std::istringstream in("2 0\n0 1000\n3 44\n1 8\n");
    auto r = make(in, {.misc_as_load = false});
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 2);
    CHECK(v[0].address == byte_address{0x1000});
    CHECK(v[1].kind == access_kind::store);
    CHECK(r.instructions() == 1);
    CHECK(r.skipped() == 1);
}

TEST_CASE("din: size field, comments, 0x prefixes, blank lines, tabs") {
    std::istringstream in("0 7fff0010 8\tcomment after the size\n"
                          "1 0x7fff0018 10 d1\n" // p2d style: size in hex, then "d1"
                          "\n"                   // blank: skipped (Dinero would stop)
                          "  0\t0X20 this is a comment\n"
                          "1 40 deadbeef\n"
                          "0 50\r\n");
    auto r = make(in);
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 5);
    CHECK(v[0].size == 8);
    CHECK(v[1].address == byte_address{0x7fff0018});
    CHECK(v[1].size == 0x10);
    CHECK(v[2].address == byte_address{0x20});
    CHECK(v[2].size == 0); // "this" is not hex: a comment
    CHECK(v[3].size == 0xdeadbeef);
    CHECK(v[4].address == byte_address{0x50});
    std::istringstream in2("1 40 deadbeef\n");
    auto r2 = make(in2, {.read_size_field = false});
    CHECK(trace_test::read_all(r2).at(0).size == 0);
}

TEST_CASE("din: malformed lines name their line number; earlier records are delivered") {
    struct bad_case {
        const char* line;
        const char* problem;
    };
    const bad_case cases[] = {
        {"7 1000", "unknown din label 7"},
        {"10 1000", "unknown din label 10"},
        {"x 1000", "bad hex digit 'x' in label"},
        {"# comment", "bad hex digit '#' in label"},
        {"0", "missing address"},
        {"0 0x", "missing address"},
        {"0 10zz", "bad hex digit 'z' in address"},
        {"0 10000000000000000", "address does not fit in 64 bits"},
        {"0 10 100000000", "size does not fit in 32 bits"},
        {"0 10 10000000000000000", "size does not fit in 32 bits"},
        {"ffffffffffffffffff 0", "label does not fit in 64 bits"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.line);
        std::istringstream in(std::string("0 10\n2 20\n1 ffffffffffffffff\n") + c.line +
                              "\n0 30\n");
        auto r = make(in);
        const auto v = trace_test::expect_error(r, pk::line_number, 4, 2, c.problem);
        CHECK(v[1].address == byte_address{~0ULL});
    }
}

TEST_CASE("din: overlong line is an error") {
    std::istringstream in("0 10\n0 " + std::string(300, '1') + "\n");
    auto r = make(in, {.buffer_bytes = 256, .max_line_bytes = 200});
    trace_test::expect_error(r, pk::line_number, 2, 1, "longer than max_line_bytes");
}

TEST_CASE("din: round trip through the writer, across buffer sizes") {
    const auto src = trace_test::random_accesses(4000, 7, true, ~0ULL);
    std::ostringstream os;
    memsub::trace::dinero_writer w(os);
    for (const auto& a : src) w.write(a);
    w.write_label(4, 0, 0); // a flush record: skipped by the reader
    for (const std::size_t buffer : {std::size_t{64}, std::size_t{1000}, std::size_t{1} << 20}) {
        CAPTURE(buffer);
        std::istringstream in(os.str());
        auto r = make(
            in, {.emit_instruction_fetches = true, .buffer_bytes = buffer, .max_line_bytes = 48});
        const auto v = trace_test::read_all(r);
        REQUIRE(v.size() == src.size());
        for (std::size_t i = 0; i < src.size(); ++i) {
            CHECK(v[i].address == src[i].address);
            CHECK(v[i].kind == src[i].kind);
            CHECK(v[i].size == src[i].size);
        }
        CHECK(r.skipped() == 1);
    }
}
