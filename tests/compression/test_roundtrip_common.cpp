// Properties every compressor in compression/all.hpp must satisfy, for 32/64/128-byte lines:
// the concept; size_bits == compress().bits and decompress(compress(x)) == x on 1 050 000 random
// structured lines per compressor, on real files of this machine and on generated arrays; every
// truncation of a valid payload is an error with an in-range bit offset; random bit flips and
// random payloads decode or fail cleanly; the throwing convenience.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

#include <memsub/compression/all.hpp>

#include "line_generators.hpp"

namespace mc = memsub::compression;

namespace {
template <class C>
C make(std::uint32_t L) {
    typename C::params p{};
    p.line_bytes = L;
    return C{p};
}

/// size_bits == compress().bits and decompress(compress(x)) == x for `per_line_size` random
/// structured lines of each line size; returns the number of lines checked.
template <class C>
std::size_t property_lines(int per_line_size) {
    static_assert(mc::invertible_compressor<C>);
    memsub::xoshiro256ss rng{7};
    std::array<std::byte, 128> buf{}, out{};
    std::size_t lines = 0;
    for (std::uint32_t L : {32u, 64u, 128u}) {
        const C c = make<C>(L);
        const std::span<std::byte> line{buf.data(), L}, o{out.data(), L};
        for (int i = 0; i < per_line_size; ++i) {
            memsub_test::make_line(
                static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng, line);
            const auto cl = c.compress(line);
            if (cl.bits != c.size_bits(line) || !c.decompress(cl, o) ||
                std::memcmp(o.data(), line.data(), L) != 0)
                FAIL("property broken for ", c.name(), " at line ", i, " of size ", L);
            ++lines;
        }
    }
    return lines;
}

template <class C>
void round_trips(const std::vector<std::byte>& real) {
    static_assert(mc::invertible_compressor<C>);
    memsub::xoshiro256ss rng{99};
    std::array<std::byte, 128> buf{}, out{};
    for (std::uint32_t L : {32u, 64u, 128u}) {
        const C c = make<C>(L);
        CAPTURE(c.name());
        CAPTURE(L);
        REQUIRE(c.line_bytes() == L);
        const std::span<std::byte> line{buf.data(), L}, o{out.data(), L};
        auto check_line = [&](std::span<const std::byte> l) {
            const auto cl = c.compress(l);
            REQUIRE(cl.bits == c.size_bits(l));
            REQUIRE(cl.bits <= mc::max_payload_bits);
            const auto r = c.decompress(cl, o);
            REQUIRE(r.ok());
            REQUIRE(std::memcmp(o.data(), l.data(), L) == 0);
            // the raw-bytes path (what fuzzers use) agrees
            const mc::compressed_view raw{std::span<const std::byte>{cl.payload.data(), cl.bytes()},
                                          cl.bits,
                                          cl.encoding,
                                          cl.member,
                                          cl.codebook,
                                          cl.tag_data};
            REQUIRE(c.decompress(raw, o).ok());
            return cl;
        };
        for (int i = 0; i < memsub_test::scaled(20000); ++i) {
            memsub_test::make_line(
                static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng, line);
            const auto cl = check_line(line);
            if (i % 97 == 0) { // exhaustive truncation on a sample
                REQUIRE_FALSE(memsub_test::accepted_truncation(c, cl, o));
            }
            if (i % 5 == 0 && cl.bits > 0) { // bit flips: decode or fail, never crash
                mc::compressed_line bad = cl;
                const auto bit = rng() % cl.bits;
                bad.payload[bit / 8] ^= std::byte{static_cast<unsigned char>(0x80 >> (bit % 8))};
                (void)c.decompress(bad, o);
            }
        }
        for (std::size_t off = 0; off + L <= real.size(); off += L)
            (void)check_line(std::span<const std::byte>{real.data() + off, L});
        // random payloads of every length up to 300 bits, random metadata
        for (int i = 0; i < 3000; ++i) {
            std::array<std::byte, 40> junk{};
            for (auto& b : junk) b = static_cast<std::byte>(rng());
            const auto bits = static_cast<std::uint32_t>(rng() % 321);
            const mc::compressed_view v{junk,
                                        bits,
                                        static_cast<std::uint8_t>(rng() % 17),
                                        static_cast<std::uint16_t>(rng() % 3 == 0 ? rng() % 8 : 0),
                                        0,
                                        rng() % 4 == 0 ? rng() : 0};
            const auto r = c.decompress(v, o);
            if (!r.ok()) REQUIRE(r.bit_offset <= bits);
        }
        // malformed views
        std::array<std::byte, 2> tiny{};
        REQUIRE_FALSE(c.decompress(mc::compressed_view{tiny, 17}, o).ok());
        REQUIRE(c.decompress(c.compress(line), std::span<std::byte>{out.data(), L / 2}).status ==
                mc::decode_status::wrong_output_size);
        CHECK_THROWS_AS(mc::decompress_or_throw(c, mc::compressed_view{tiny, 17}, o),
                        memsub::input_error);
    }
}
} // namespace

TEST_CASE("every compressor in all.hpp: round trip and size_bits == compressed bits on 1 050 000 "
          "random lines each (350 000 per line size)") {
    const int per_size = memsub_test::scaled(350000);
    std::apply(
        [&](auto... c) {
            (
                [&](auto tag) {
                    using C = decltype(tag);
                    const std::size_t lines = property_lines<C>(per_size);
                    CHECK(lines == 3 * static_cast<std::size_t>(per_size));
                    if (memsub_test::full_scale) CHECK(lines == 1050000);
                }(c),
                ...);
        },
        mc::all_compressors{});
    CHECK(property_lines<mc::best_of_classic>(per_size) == 3 * static_cast<std::size_t>(per_size));
}

TEST_CASE("every compressor in all.hpp: real files, generated arrays, truncation, corruption") {
    // Real data (the test executable and the runtime libraries it loaded) must be found.
    std::vector<std::byte> data = memsub_test::real_data(1 << 20);
    REQUIRE(data.size() >= (256u << 10));
    for (const auto& a : memsub_test::generated_arrays(64 << 10))
        data.insert(data.end(), a.bytes.begin(), a.bytes.end());
    std::apply([&](auto... c) { (round_trips<decltype(c)>(data), ...); }, mc::all_compressors{});
    round_trips<mc::best_of_classic>(data);
}

TEST_CASE("every compressor in all.hpp: rejects unsupported line sizes") {
    std::apply(
        [](auto... c) {
            (
                [](auto tag) {
                    using C = decltype(tag);
                    for (std::uint32_t L : {0u, 16u, 48u, 96u, 256u}) {
                        typename C::params p{};
                        p.line_bytes = L;
                        CHECK_THROWS_AS(C{p}, memsub::config_error);
                    }
                }(c),
                ...);
        },
        mc::all_compressors{});
}
