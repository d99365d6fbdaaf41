#include "trace_test_util.hpp"

#include <memsub/trace/text_reader.hpp>
#include <memsub/trace/writers.hpp>

#include <sstream>
#include <string>

using memsub::access_kind;
using memsub::byte_address;
using memsub::trace::number_base;
using memsub::trace::text_reader;
using pk = memsub::input_error::position_kind;

namespace {
text_reader make(std::istringstream& in, text_reader::params p = {}) {
    return text_reader(in, "addresses", p);
}
} // namespace

TEST_CASE("text: automatic base, kinds, comments and blank lines") {
    std::istringstream in("# a header comment\n"
                          "0x1000\n"
                          "4096 W\n"
                          "\n"
                          "0X7fffABCD r   # trailing comment\n"
                          "\t 12 w\r\n"
                          "0x40 I\n"
                          "18446744073709551615\n"
                          "0xffffffffffffffff R");
    auto r = make(in);
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 7);
    CHECK(v[0].address == byte_address{0x1000});
    CHECK(v[0].kind == access_kind::load);
    CHECK(v[1].address == byte_address{4096});
    CHECK(v[1].kind == access_kind::store);
    CHECK(v[2].address == byte_address{0x7fffabcd});
    CHECK(v[2].kind == access_kind::load);
    CHECK(v[3].address == byte_address{12});
    CHECK(v[3].kind == access_kind::store);
    CHECK(v[4].kind == access_kind::instruction_fetch);
    CHECK(v[4].pc == 0x40);
    CHECK(v[5].address == byte_address{~0ULL});
    CHECK(v[6].address == byte_address{~0ULL});
    for (const auto& a : v) CHECK(a.size == 0);
    CHECK(r.position().value == 9);
}

TEST_CASE("text: explicit bases") {
    std::istringstream hex("10\n0x10\nff\n");
    auto rh = make(hex, {.base = number_base::hex});
    const auto vh = trace_test::read_all(rh);
    REQUIRE(vh.size() == 3);
    CHECK(vh[0].address == byte_address{16});
    CHECK(vh[1].address == byte_address{16});
    CHECK(vh[2].address == byte_address{255});
    std::istringstream dec("10\n0x10\n");
    auto rd = make(dec, {.base = number_base::decimal});
    trace_test::expect_error(rd, pk::line_number, 2, 1, "bad decimal digit 'x'");
}

TEST_CASE("text: malformed lines name their line number; earlier records are delivered") {
    struct bad_case {
        const char* line;
        const char* problem;
    };
    const bad_case cases[] = {
        {"7ffe1000", "bad decimal digit 'f' in address"}, // bare hex needs base = hex
        {"0x", "missing address"},
        {"0x12g", "bad hex digit 'g'"},
        {"18446744073709551616", "address does not fit in 64 bits"},
        {"0x10000000000000000", "address does not fit in 64 bits"},
        {"12 Q", "bad access kind 'Q'"},
        {"12 RW", "bad access kind 'RW'"},
        {"12 R extra", "unexpected third field"},
        {"-5", "bad decimal digit '-'"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.line);
        std::istringstream in(std::string("1\n# c\n2 W\n") + c.line + "\n3\n");
        auto r = make(in);
        trace_test::expect_error(r, pk::line_number, 4, 2, c.problem);
    }
    std::istringstream in("1\n" + std::string(5000, '7') + "\n");
    auto r = make(in);
    trace_test::expect_error(r, pk::line_number, 2, 1, "longer than max_line_bytes");
}

TEST_CASE("text: round trips in hex and decimal, with and without kinds") {
    const auto src = trace_test::random_accesses(3000, 11, true, ~0ULL);
    for (const bool hex : {true, false}) {
        for (const bool kinds : {true, false}) {
            CAPTURE(hex);
            CAPTURE(kinds);
            std::ostringstream os;
            memsub::trace::text_writer w(os, {.hex = hex, .with_kind = kinds});
            for (const auto& a : src) w.write(a);
            std::istringstream in(os.str());
            auto r = make(in, {.buffer_bytes = 128, .max_line_bytes = 64});
            const auto v = trace_test::read_all(r);
            REQUIRE(v.size() == src.size());
            for (std::size_t i = 0; i < src.size(); ++i) {
                CHECK(v[i].address == src[i].address);
                CHECK(v[i].kind == (kinds ? src[i].kind : access_kind::load));
            }
        }
    }
}
