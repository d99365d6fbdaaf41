#include "trace_test_util.hpp"

#include <memsub/core/rng.hpp>
#include <memsub/trace/binary_u64_reader.hpp>
#include <memsub/trace/oracle_general_reader.hpp>
#include <memsub/trace/writers.hpp>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using memsub::access_kind;
using memsub::byte_address;
using memsub::trace::binary_u64_reader;
using memsub::trace::oracle_general_reader;
using pk = memsub::input_error::position_kind;

namespace {
using trace_test::le;
using trace_test::oracle_record;
} // namespace

TEST_CASE("u64: little-endian decoding of known bytes") {
    std::string bytes = std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8) +
                        std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8) + std::string(8, '\0');
    std::istringstream in(bytes);
    binary_u64_reader r(in, "raw");
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 3);
    CHECK(v[0].address == byte_address{0x0807060504030201ULL});
    CHECK(v[1].address == byte_address{~0ULL});
    CHECK(v[2].address == byte_address{0});
    for (const auto& a : v) {
        CHECK(a.kind == access_kind::load);
        CHECK(a.size == 0);
    }
    CHECK(r.position() == memsub::trace::trace_position{pk::byte_offset, 24});
}

TEST_CASE("u64: a truncated final record is reported at its offset after all complete ones") {
    for (std::size_t tail = 1; tail < 8; ++tail) {
        for (const std::size_t buffer : {std::size_t{64}, std::size_t{1} << 20}) {
            CAPTURE(tail);
            CAPTURE(buffer);
            std::string bytes;
            for (std::uint64_t i = 0; i < 21; ++i) le(bytes, i * 64, 8); // 168 bytes
            bytes += std::string(tail, '\x5a');
            std::istringstream in(bytes);
            binary_u64_reader r(in, "raw", {.buffer_bytes = buffer});
            const auto v = trace_test::expect_error(r, pk::byte_offset, 168, 21, "truncated");
            for (std::uint64_t i = 0; i < 21; ++i) CHECK(v[i].address == byte_address{i * 64});
        }
    }
    std::istringstream empty("");
    binary_u64_reader r(empty, "empty");
    memsub::access a{};
    CHECK_FALSE(r.next(a));
    CHECK(r.records() == 0);
}

TEST_CASE("u64: round trip through the writer") {
    memsub::xoshiro256ss rng(3);
    std::vector<std::uint64_t> src(10007);
    for (auto& x : src) x = rng();
    std::ostringstream os(std::ios::binary);
    memsub::trace::binary_u64_writer w(os);
    for (const auto x : src) w.write_address(x);
    for (const std::size_t buffer : {std::size_t{64}, std::size_t{100}, std::size_t{1} << 20}) {
        std::istringstream in(os.str());
        binary_u64_reader r(in, "raw", {.buffer_bytes = buffer});
        const auto v = trace_test::read_all(r);
        REQUIRE(v.size() == src.size());
        for (std::size_t i = 0; i < src.size(); ++i) CHECK(v[i].address.value == src[i]);
    }
}

TEST_CASE("oracleGeneral: field layout, scaling, next-access markers, zero sizes") {
    constexpr auto max64 = std::numeric_limits<std::int64_t>::max();
    const std::string bytes = oracle_record(100, 5, 4096, 7) +         // 0
                              oracle_record(101, 6, 0, 9) +            // 24: size 0, skipped
                              oracle_record(102, 7, 512, -1) +         // 48: never again
                              oracle_record(0xffffffffu, 0, 1, max64); // 72: also never
    std::istringstream in(bytes);
    oracle_general_reader r(in, "og");
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == 3);
    CHECK(v[0].address == byte_address{5 * 64});
    CHECK(v[0].size == 64); // 4096, capped at the object's 64 bytes of address space
    CHECK(v[0].hints.cycle == 100);
    CHECK(v[0].hints.next_use == 7);
    CHECK(v[0].kind == access_kind::load);
    CHECK(v[1].address == byte_address{7 * 64});
    CHECK(v[1].hints.next_use == memsub::never);
    CHECK(v[2].address == byte_address{0});
    CHECK(v[2].hints.cycle == 0xffffffffu);
    CHECK(v[2].hints.next_use == memsub::never);
    CHECK(r.skipped() == 1);
    CHECK(r.position().value == 96);

    std::istringstream in2(bytes);
    oracle_general_reader r2(in2, "og", {.address_scale_bytes = 1, .skip_zero_size = false});
    const auto v2 = trace_test::read_all(r2);
    REQUIRE(v2.size() == 4);
    CHECK(v2[0].address == byte_address{5});
    CHECK(v2[0].size == 4096); // at scale 1 a record is a byte range: its size is kept
    CHECK(v2[2].size == 512);
    CHECK(v2[1].size == 0);
    CHECK(v2[1].hints.next_use == 9);
}

TEST_CASE("oracleGeneral: bad records are reported at their byte offset") {
    const std::string good = oracle_record(1, 1, 8, 3) + oracle_record(2, 2, 8, -1);
    {
        std::istringstream in(good + oracle_record(3, 3, 8, -2));
        oracle_general_reader r(in, "og");
        trace_test::expect_error(r, pk::byte_offset, 48, 2, "negative next_access_vtime -2");
    }
    {
        std::istringstream in(good + oracle_record(3, std::uint64_t{1} << 58, 8, 0));
        oracle_general_reader r(in, "og"); // (2^58) × 64 = 2^64: overflow
        trace_test::expect_error(r, pk::byte_offset, 48, 2, "does not fit in 64 bits");
        std::istringstream in_ok(good + oracle_record(3, (std::uint64_t{1} << 58) - 1, 8, 0));
        oracle_general_reader ok(in_ok, "og");
        CHECK(trace_test::read_all(ok).back().address ==
              byte_address{((std::uint64_t{1} << 58) - 1) * 64});
    }
    for (std::size_t tail = 1; tail < 24; ++tail) {
        CAPTURE(tail);
        std::istringstream in(good + oracle_record(3, 3, 8, 0).substr(0, tail));
        oracle_general_reader r(in, "og", {.buffer_bytes = 64});
        trace_test::expect_error(r, pk::byte_offset, 48, 2, "truncated record");
    }
    std::istringstream in("");
    CHECK_THROWS_AS(oracle_general_reader(in, "og", {.address_scale_bytes = 0}),
                    memsub::config_error);
}

TEST_CASE("oracleGeneral: round trip through the writer") {
    memsub::xoshiro256ss rng(5);
    std::vector<memsub::access> src(5000);
    for (auto& a : src) {
        a.address = byte_address{(rng() >> 8) & ~std::uint64_t{63}}; // multiple of the scale
        // Within the object's 64 bytes: a larger size reads back capped (checked above).
        a.size = static_cast<std::uint32_t>(1 + rng() % 64);
        a.hints.cycle = rng() & 0xffffffffu;
        a.hints.next_use = rng() % 4 == 0 ? memsub::never : rng() >> 2;
    }
    std::ostringstream os(std::ios::binary);
    memsub::trace::oracle_general_writer w(os);
    for (const auto& a : src) w.write(a);
    CHECK(os.str().size() == src.size() * 24);
    std::istringstream in(os.str());
    oracle_general_reader r(in, "og", {.buffer_bytes = 100});
    const auto v = trace_test::read_all(r);
    REQUIRE(v.size() == src.size());
    for (std::size_t i = 0; i < src.size(); ++i) {
        CHECK(v[i].address == src[i].address);
        CHECK(v[i].size == src[i].size);
        CHECK(v[i].hints.cycle == src[i].hints.cycle);
        CHECK(v[i].hints.next_use == src[i].hints.next_use);
    }
    // The writer's bytes equal the naive encoding.
    CHECK(os.str().substr(0, 24) ==
          oracle_record(static_cast<std::uint32_t>(src[0].hints.cycle), src[0].address.value / 64,
                        src[0].size,
                        src[0].hints.next_use == memsub::never
                            ? -1
                            : static_cast<std::int64_t>(src[0].hints.next_use)));
}
