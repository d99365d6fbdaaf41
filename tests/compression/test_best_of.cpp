// best_of<Selector, Compressors...>: concept preservation, selection against an independent
// minimum, tie-breaks, metadata/latency accounting, nesting, round trips and decode errors.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/best_of.hpp>
#include <memsub/compression/cpack.hpp>
#include <memsub/compression/fpc.hpp>
#include <memsub/compression/none.hpp>

#include "line_generators.hpp"

namespace mc = memsub::compression;

using trio = mc::best_of<mc::smallest_bits, mc::bdi, mc::fpc, mc::cpack_z>;
static_assert(mc::invertible_compressor<trio>);
static_assert(mc::invertible_compressor<mc::best_of<mc::smallest_stored, mc::bdi, mc::none>>);
using nested =
    mc::best_of<mc::smallest_bits, mc::best_of<mc::smallest_bits, mc::bdi, mc::fpc>, mc::cpack>;
static_assert(mc::invertible_compressor<nested>);
static_assert(nested::member_path_count == 4);

TEST_CASE("best_of: name, metadata, latencies, energies") {
    const trio t{};
    CHECK(t.name() == "best_of(bdi,fpc,cpack_z)");
    CHECK(t.metadata_bits() == 2 + 4); // 2 bits member id + BDI's 4-bit enc
    // docs/mechanisms/compressors.md §3 (gem5 Multi): +1 to select the winner, +1 to decompress by
    // default
    CHECK(t.parameters().select_compress_cycles == 1);
    CHECK(t.parameters().select_decompress_cycles == 1);
    CHECK(t.compress_latency_cycles() == 13 + 1);
    CHECK(t.decompress_latency_cycles() == 8 + 1);
    // the switch: a member id read with the tag costs nothing (gem5's BDI configuration)
    const trio tag_id{{.select_decompress_cycles = 0}};
    CHECK(tag_id.decompress_latency_cycles() == 8);
    CHECK(t.compress_energy_nj() == doctest::Approx(0.192));
    CHECK(t.decompress_energy_nj() == doctest::Approx(0.056));
    CHECK(mc::best_of<mc::smallest_bits, mc::bdi>{}.metadata_bits() == 4);
    CHECK(nested{}.name() == "best_of(best_of(bdi,fpc),cpack)");
    CHECK_THROWS_AS(trio{{.line_bytes = 48}}, memsub::config_error);
    // members take the combinator's line size
    const trio t128{{.line_bytes = 128}};
    CHECK(t128.member<0>().line_bytes() == 128);
    CHECK(t128.member<2>().line_bytes() == 128);
    // member params are forwarded
    trio::params p;
    std::get<0>(p.members).encoding_set = mc::bdi_encoding_set::latte_cc;
    std::get<1>(p.members).decompress_latency_cycles = 9;
    const trio custom{p};
    CHECK(custom.member<0>().parameters().encoding_set == mc::bdi_encoding_set::latte_cc);
    CHECK(custom.decompress_latency_cycles() == 9 + 1);
}

TEST_CASE("best_of: selectors on candidate lists") {
    const std::array<mc::candidate, 3> c{{{136, 2, 4}, {110, 5, 0}, {110, 1, 1}}};
    CHECK(mc::smallest_bits{}(c) == 1);              // tie → first listed
    CHECK(mc::smallest_bits_then_fastest{}(c) == 2); // tie → faster decompression
    // stored sizes with 8B segments: 136 bits = 17 B → 24 B; 110 bits = 14 B → 16 B
    CHECK(mc::smallest_stored{}(c) == 2);
    // stored ties broken by bits: 120 bits (15 B) and 128 bits (16 B) both take 16 B
    const std::array<mc::candidate, 2> d{{{128, 1, 0}, {120, 9, 0}}};
    CHECK(mc::smallest_stored{}(d) == 1);
    // with 32B segments, 17 B and 14 B both take 32 B: fewer bits, then faster decompression
    CHECK(mc::smallest_stored{{.line_bytes = 128, .segment_bytes = 32}}(c) == 2);
    const std::array<mc::candidate, 2> e{{{136, 1, 0}, {110, 9, 0}}};
    CHECK(mc::smallest_stored{{.line_bytes = 128, .segment_bytes = 32}}(e) == 1);
    // inside best_of the selector's rule takes the combinator's line size (and its CS3 segment)
    using stored_trio = mc::best_of<mc::smallest_stored, mc::bdi, mc::fpc, mc::cpack_z>;
    const stored_trio s128{{.line_bytes = 128}};
    CHECK(s128.parameters().selector.rule.line_bytes == 128);
    CHECK(s128.parameters().selector.rule.segment() == 32);
    CHECK(s128.parameters().selector.rule == mc::default_storage_rule(128));
    CHECK_THROWS_AS((stored_trio{{.line_bytes = 64, .selector = {{.segment_bytes = 3}}}}),
                    memsub::config_error);
}

TEST_CASE("best_of: picks the minimum over members; round trips; member ids") {
    memsub::xoshiro256ss rng{41};
    std::array<std::byte, 128> buf{}, out{};
    std::array<int, 3> wins{};
    for (std::uint32_t L : {32u, 64u, 128u}) {
        const trio t{{.line_bytes = L}};
        const mc::bdi b{{.line_bytes = L}};
        const mc::fpc f{{.line_bytes = L}};
        const mc::cpack_z z{{.line_bytes = L}};
        const std::span<std::byte> line{buf.data(), L}, o{out.data(), L};
        for (int i = 0; i < memsub_test::scaled(60000); ++i) {
            memsub_test::make_line(
                static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng, line);
            const std::array<std::uint32_t, 3> s{b.size_bits(line), f.size_bits(line),
                                                 z.size_bits(line)};
            std::uint32_t expect = 0;
            for (std::uint32_t k = 1; k < 3; ++k)
                if (s[k] < s[expect]) expect = k;
            const auto ch = t.choose(line);
            REQUIRE(ch.member == expect);
            REQUIRE(ch.bits == s[expect]);
            REQUIRE(t.size_bits(line) == s[expect]);
            ++wins[expect];
            const auto cl = t.compress(line);
            REQUIRE(cl.bits == s[expect]);
            REQUIRE(cl.member == expect);
            REQUIRE(t.decompress_latency_cycles(cl) ==
                    t.member<0>().decompress_latency_cycles() * (expect == 0) +
                        t.member<1>().decompress_latency_cycles() * (expect == 1) +
                        t.member<2>().decompress_latency_cycles() * (expect == 2) + 1);
            REQUIRE(t.decompress(cl, o).ok());
            REQUIRE(std::memcmp(out.data(), buf.data(), L) == 0);
        }
    }
    MESSAGE("wins bdi/fpc/cpack_z: " << wins[0] << "/" << wins[1] << "/" << wins[2]);
    CHECK(wins[0] > 0);
    CHECK(wins[1] > 0);
    CHECK(wins[2] > 0);
}

TEST_CASE("best_of: nesting keeps member paths decodable") {
    memsub::xoshiro256ss rng{43};
    std::array<std::byte, 64> buf{}, out{};
    const nested t{};
    for (int i = 0; i < memsub_test::scaled(30000); ++i) {
        memsub_test::make_line(
            static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng, buf);
        const auto cl = t.compress(buf);
        REQUIRE(cl.member < nested::member_path_count);
        REQUIRE(cl.bits == t.size_bits(buf));
        REQUIRE(t.decompress(cl, out).ok());
        REQUIRE(out == buf);
    }
}

TEST_CASE("best_of: corrupt member ids, truncation and wrong sizes fail cleanly") {
    const trio t{};
    std::array<std::byte, 64> line{}, out{};
    for (int i = 0; i < 16; ++i) memsub_test::put32(line, i, 0x1000u + 3u * i);
    const auto cl = t.compress(line);
    mc::compressed_line bad = cl;
    bad.member = 3;
    CHECK(t.decompress(bad, out).status == mc::decode_status::unknown_encoding);
    for (std::uint32_t b = 0; b < cl.bits; ++b) {
        mc::compressed_view v = cl.view();
        v.bits = b;
        CHECK_FALSE(t.decompress(v, out).ok());
    }
    std::array<std::byte, 32> small{};
    CHECK(t.decompress(cl, small).status == mc::decode_status::wrong_output_size);
    CHECK_THROWS_AS(mc::decompress_or_throw(t, bad, out), memsub::input_error);
}
