// C-PACK / C-PACK+Z: docs/mechanisms/compressors.md §1.3, §4.2 C1/C2; naive model; fast kernels vs
// the scalar reference; round trips; corrupt/truncated payloads.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include <memsub/compression/cpack.hpp>
#include <memsub/compression/detail/bit_stream.hpp>

#include "line_generators.hpp"

namespace mc = memsub::compression;
using mc::cpack;
using mc::cpack_push;
using mc::cpack_z;

namespace {
std::vector<std::byte> words(std::initializer_list<std::uint32_t> w, std::size_t L = 64) {
    std::vector<std::byte> l(L);
    std::size_t i = 0;
    for (auto x : w) memsub_test::put32(l, i++, x);
    return l;
}

// Naive model: bytes compared MSB→LSB, FIFO as an explicit slot array; returns total bits.
// `zero_prefilled` models the public-code shortcut compressors.md §1.3 rejects (P-B2): the
// dictionary starts as 16 valid zero-valued entries instead of empty.
std::uint32_t naive_cpack(std::span<const std::byte> l, bool only_unmatched,
                          bool zero_prefilled = false) {
    std::array<std::uint32_t, 16> slot{};
    std::array<bool, 16> used{};
    if (zero_prefilled) used.fill(true);
    int ptr = 0;
    std::uint32_t bits = 0;
    for (std::size_t i = 0; i < l.size() / 4; ++i) {
        std::uint32_t w;
        std::memcpy(&w, l.data() + 4 * i, 4);
        const int b[4] = {int(w >> 24), int((w >> 16) & 0xFF), int((w >> 8) & 0xFF), int(w & 0xFF)};
        if (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0) {
            bits += 2;
            continue;
        }
        if (b[0] == 0 && b[1] == 0 && b[2] == 0) {
            bits += 12;
            continue;
        }
        int best_prefix = 0; // bytes matched from the top
        for (int s = 0; s < 16; ++s) {
            if (!used[s]) continue;
            const std::uint32_t e = slot[s];
            int k = 0;
            while (k < 4 && ((e >> (24 - 8 * k)) & 0xFF) == static_cast<std::uint32_t>(b[k])) ++k;
            best_prefix = std::max(best_prefix, k);
        }
        std::uint32_t cost = 34;
        if (best_prefix == 4)
            cost = 6;
        else if (best_prefix == 3)
            cost = 16;
        else if (best_prefix == 2)
            cost = 24;
        bits += cost;
        if (!only_unmatched || cost == 34) {
            slot[ptr] = w;
            used[ptr] = true;
            ptr = (ptr + 1) % 16;
        }
    }
    return bits;
}
} // namespace

TEST_CASE("cpack: vector C1 (compressors.md §4.2): 146 bits under both push policies") {
    const auto c1 = words({0, 0x000000AB, 0x12345678, 0x12345678, 0x123456FF, 0x1234ABCD,
                           0xCAFEBABE, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    for (auto push : {cpack_push::all_non_zero, cpack_push::only_unmatched}) {
        const cpack c{{.push = push}};
        CHECK(c.size_bits(c1) == 146);
        CHECK(c.size_bits_reference(c1) == 146);
        CHECK(c.compress(c1).bits == 146);
        CHECK(c.compress(c1).bytes() == 19);
    }
    // code stream under the default policy
    const auto cl = cpack{}.compress(c1);
    mc::detail::bit_reader r{cl.data(), cl.bits};
    auto get = [&](unsigned n) {
        std::uint64_t v = 0;
        REQUIRE(r.read(n, v));
        return v;
    };
    CHECK(get(2) == 0b00);   // zzzz
    CHECK(get(4) == 0b1101); // zzzx
    CHECK(get(8) == 0xAB);
    CHECK(get(2) == 0b01); // xxxx → slot 0
    CHECK(get(32) == 0x12345678);
    CHECK(get(2) == 0b10); // mmmm slot 0 → pushed slot 1
    CHECK(get(4) == 0);
    CHECK(get(4) == 0b1110); // mmmx, lowest index 0
    CHECK(get(4) == 0);
    CHECK(get(8) == 0xFF);
    CHECK(get(4) == 0b1100); // mmxx, index 0
    CHECK(get(4) == 0);
    CHECK(get(16) == 0xABCD);
    CHECK(get(2) == 0b01); // xxxx
    CHECK(get(32) == 0xCAFEBABE);
    for (int i = 0; i < 9; ++i) CHECK(get(2) == 0);
    CHECK(r.at_end());
}

TEST_CASE("cpack: vector C2 pins the push policy (122 vs 140 bits)") {
    const auto c2 = words({0x12345678, 0x1234AAAA, 0x1234AAAA, 0x0000ABCD});
    CHECK(cpack{}.size_bits(c2) == 122);
    CHECK(cpack{}.size_bits_reference(c2) == 122);
    CHECK(cpack{}.compress(c2).bytes() == 16);
    const cpack only{{.push = cpack_push::only_unmatched}};
    CHECK(only.size_bits(c2) == 140);
    CHECK(only.compress(c2).bytes() == 18);
    CHECK(naive_cpack(c2, false) == 122);
    CHECK(naive_cpack(c2, true) == 140);
}

TEST_CASE("cpack: vector C2 negative case (compressors.md §4.2): a zero-prefilled "
          "dictionary gives 130 bits") {
    // An implementation that pre-fills the dictionary with zero words and pushes only xxxx
    // codes 0x0000ABCD as mmxx against a zero entry: 34 + 24 + 24 + 24 + 24 = 130 bits. The
    // empty dictionary of §1.3 must not: 140 (push only xxxx) and 122 (default).
    const auto c2 = words({0x12345678, 0x1234AAAA, 0x1234AAAA, 0x0000ABCD});
    CHECK(naive_cpack(c2, true, true) == 130);
    const cpack only{{.push = cpack_push::only_unmatched}};
    CHECK(only.size_bits(c2) == 140);
    CHECK(only.size_bits(c2) != naive_cpack(c2, true, true));
    CHECK(only.size_bits_reference(c2) == 140);
    CHECK(cpack{}.size_bits(c2) == 122);
    // and the payload: word 3 is coded xxxx (prefix 01 + the raw word), not mmxx
    const auto cl = only.compress(c2);
    mc::detail::bit_reader r{cl.data(), cl.bits};
    std::uint64_t v = 0;
    REQUIRE(r.skip(34 + 24 + 24));
    REQUIRE(r.read(2, v));
    CHECK(v == 0b01);
    REQUIRE(r.read(32, v));
    CHECK(v == 0x0000ABCD);
}

TEST_CASE("cpack: zero lines, C-PACK+Z, metadata and parameters") {
    std::vector<std::byte> z(64);
    CHECK(cpack{}.size_bits(z) == 32);
    CHECK(cpack_z{}.size_bits(z) == 0);
    const auto cz = cpack_z{}.compress(z);
    CHECK(cz.bits == 0);
    CHECK(cz.encoding == cpack_z::encoding_zero_block);
    std::array<std::byte, 64> out{};
    out.fill(std::byte{0x55});
    REQUIRE(cpack_z{}.decompress(cz, out).ok());
    CHECK(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0}; }));
    CHECK(cpack_z{}.metadata_bits() == 1);
    CHECK(cpack{}.metadata_bits() == 0);
    CHECK(cpack{}.name() == "cpack");
    CHECK(cpack_z{}.name() == "cpack_z");
    // docs/mechanisms/compressors.md §3: gem5's (L/4)/2 + 5 compression (13 at 64B); decompression
    // 8 [UNVERIFIED], the only published figure, for every line size
    CHECK(cpack{}.compress_latency_cycles() == 13);
    CHECK(cpack{}.decompress_latency_cycles() == 8);
    CHECK(cpack{{.line_bytes = 32}}.compress_latency_cycles() == 9);
    CHECK(cpack_z{{.line_bytes = 128}}.compress_latency_cycles() == 21);
    CHECK(cpack_z{{.line_bytes = 128}}.decompress_latency_cycles() == 8);
    CHECK(cpack{{.line_bytes = 128, .compress_latency_cycles = 13}}.compress_latency_cycles() ==
          13);
    // a non-zero line under C-PACK+Z is plain C-PACK with encoding 0
    const auto c2 = words({0x12345678, 0x1234AAAA, 0x1234AAAA, 0x0000ABCD});
    CHECK(cpack_z{}.compress(c2).encoding == 0);
    CHECK(cpack_z{}.size_bits(c2) == 122);
    // plain cpack does not know encoding 1
    CHECK(cpack{}.decompress(cz, out).status == mc::decode_status::unknown_encoding);
    CHECK_THROWS_AS(cpack{{.line_bytes = 100}}, memsub::config_error);
}

TEST_CASE("cpack: 128-byte lines wrap the 16-entry FIFO (P-G6)") {
    // 17 distinct pushed words, then the first one again: slot 0 was overwritten → xxxx
    std::vector<std::byte> l(128);
    for (int i = 0; i < 17; ++i) memsub_test::put32(l, i, 0x10000000u * (i % 15 + 1) + 0x11111 * i);
    memsub_test::put32(l, 17, 0x10000000u * 1 + 0);
    const cpack c{{.line_bytes = 128}};
    CHECK(c.size_bits(l) == c.size_bits_reference(l));
    CHECK(c.size_bits(l) == naive_cpack(l, false));
    // word 17 = word 0 but word 0 was evicted by the 17th push → not mmmm
    CHECK(c.size_bits(l) == 17 * 34 + 34 + 14 * 2);
}

TEST_CASE("cpack: long zzzz runs decode across window boundaries (128B lines)") {
    // zzzx (12 bits) puts the run at an odd byte offset; 30 zzzz codes (60 bits) then fill the
    // decoder's window to its last stream bit and an xxxx code follows right after it
    std::vector<std::byte> l(128);
    memsub_test::put32(l, 0, 0xAB);
    memsub_test::put32(l, 31, 0x12345678);
    for (auto push : {cpack_push::all_non_zero, cpack_push::only_unmatched})
        for (std::uint32_t first : {0x00u, 0xABu, 0x1234u, 0xCAFEBABEu}) {
            memsub_test::put32(l, 0, first);
            for (std::uint32_t last = 1; last < 32; ++last) { // run lengths 0 … 30
                std::fill(l.begin() + 4, l.end(), std::byte{0});
                memsub_test::put32(l, last, 0x12345678);
                const cpack c{{.line_bytes = 128, .push = push}};
                const auto cl = c.compress(l);
                std::vector<std::byte> out(128);
                CAPTURE(first);
                CAPTURE(last);
                REQUIRE(c.decompress(cl, out).ok());
                CHECK(out == l);
            }
        }
}

TEST_CASE("cpack: naive model, fast kernel = reference, round trips (random lines)") {
    memsub::xoshiro256ss rng{31};
    std::array<std::byte, 128> buf{}, out{};
    std::size_t lines = 0;
    for (std::uint32_t L : {32u, 64u, 128u})
        for (auto push : {cpack_push::all_non_zero, cpack_push::only_unmatched}) {
            const cpack c{{.line_bytes = L, .push = push}};
            const cpack_z cz{{.line_bytes = L, .push = push}};
            const std::span<std::byte> line{buf.data(), L}, o{out.data(), L};
            const int count = memsub_test::scaled(push == cpack_push::all_non_zero ? 80000 : 20000);
            for (int i = 0; i < count; ++i) {
                memsub_test::make_line(
                    static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng,
                    line);
                if (i % 5 == 0) // far repeats: copy earlier words forward
                    for (std::uint32_t k = 0; k < L / 4; ++k)
                        if (rng() % 3 == 0) {
                            const auto from = rng() % (L / 4);
                            std::memcpy(line.data() + 4 * k, line.data() + 4 * from, 4);
                        }
                const std::uint32_t s = c.size_bits(line);
                REQUIRE(s == c.size_bits_reference(line));
                REQUIRE(s == naive_cpack(line, push == cpack_push::only_unmatched));
                const auto cl = c.compress(line);
                REQUIRE(cl.bits == s);
                REQUIRE(c.decompress(cl, o).ok());
                REQUIRE(std::memcmp(out.data(), buf.data(), L) == 0);
                const auto clz = cz.compress(line);
                REQUIRE(clz.bits == cz.size_bits(line));
                REQUIRE(cz.decompress(clz, o).ok());
                REQUIRE(std::memcmp(out.data(), buf.data(), L) == 0);
                ++lines;
            }
        }
    MESSAGE("cpack: " << lines << " lines checked");
}

TEST_CASE("cpack: fast size kernels equal the reference on 600k dictionary-heavy lines") {
    memsub::xoshiro256ss rng{77};
    std::array<std::byte, 128> buf{};
    for (std::uint32_t L : {32u, 64u, 128u}) {
        const cpack c{{.line_bytes = L}};
        const std::span<std::byte> line{buf.data(), L};
        for (int i = 0; i < memsub_test::scaled(200000); ++i) {
            // few distinct high parts, many small words: stresses matches and FIFO wrap
            const std::uint32_t highs = 1 + static_cast<std::uint32_t>(rng() % 24);
            for (std::uint32_t k = 0; k < L / 4; ++k) {
                const auto r = rng() % 8;
                std::uint32_t w = static_cast<std::uint32_t>(rng() % highs) * 0x01F30000u;
                if (r < 2)
                    w = static_cast<std::uint32_t>(rng() % 300);
                else if (r < 4)
                    w |= static_cast<std::uint32_t>(rng() % 3) << 8;
                else if (r < 6)
                    w |= static_cast<std::uint32_t>(rng() % 4);
                memsub_test::put32(line, k, w);
            }
            REQUIRE(c.size_bits(line) == c.size_bits_reference(line));
            REQUIRE(mc::detail::cpack_size_min_xor<32>(buf.data()) ==
                    mc::detail::cpack_size_scalar(buf.data(), 32, false));
        }
    }
}

TEST_CASE("cpack: real files and generated arrays round trip") {
    const memsub_test::real_and_generated corpus(2 << 20);
    const auto& sets = corpus.sets;
    REQUIRE(corpus.real_bytes >= (1u << 20)); // the test executable and its runtime libraries
    std::array<std::byte, 128> out{};
    for (std::uint32_t L : {32u, 64u, 128u})
        for (auto push : {cpack_push::all_non_zero, cpack_push::only_unmatched}) {
            const cpack c{{.line_bytes = L, .push = push}};
            const cpack_z cz{{.line_bytes = L, .push = push}};
            std::uint64_t bits = 0, bytes = 0;
            for (const auto& set : sets) {
                CAPTURE(set.name);
                for (std::size_t off = 0; off + L <= set.bytes.size(); off += L) {
                    const std::span<const std::byte> line{set.bytes.data() + off, L};
                    const auto cl = c.compress(line);
                    REQUIRE(cl.bits == c.size_bits(line));
                    REQUIRE(cl.bits == c.size_bits_reference(line));
                    REQUIRE(c.decompress(cl, std::span<std::byte>{out.data(), L}).ok());
                    REQUIRE(std::memcmp(out.data(), line.data(), L) == 0);
                    const auto clz = cz.compress(line);
                    REQUIRE(clz.bits == cz.size_bits(line));
                    REQUIRE(cz.decompress(clz, std::span<std::byte>{out.data(), L}).ok());
                    REQUIRE(std::memcmp(out.data(), line.data(), L) == 0);
                    bits += cl.bits;
                    bytes += L;
                }
            }
            if (L == 64 && push == cpack_push::all_non_zero)
                MESSAGE("cpack exact ratio on real files + arrays: "
                        << static_cast<double>(bytes * 8) / static_cast<double>(bits));
        }
}

TEST_CASE("cpack: truncated, over-long and corrupted payloads fail cleanly") {
    memsub::xoshiro256ss rng{9};
    std::array<std::byte, 128> buf{}, out{};
    for (std::uint32_t L : {32u, 64u, 128u})
        for (auto push : {cpack_push::all_non_zero, cpack_push::only_unmatched}) {
            const cpack_z c{{.line_bytes = L, .push = push}};
            const std::span<std::byte> line{buf.data(), L}, o{out.data(), L};
            for (int i = 0; i < 200; ++i) {
                memsub_test::make_line(
                    static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng,
                    line);
                const auto cl = c.compress(line);
                REQUIRE_FALSE(memsub_test::accepted_truncation(c, cl, o));
                mc::compressed_line longer = cl;
                longer.bits += 2;
                REQUIRE(c.decompress(longer, o).status == mc::decode_status::trailing_bits);
                for (int f = 0; f < 16 && cl.bits > 0; ++f) {
                    mc::compressed_line bad = cl;
                    const auto bit = rng() % cl.bits;
                    bad.payload[bit / 8] ^=
                        std::byte{static_cast<unsigned char>(0x80 >> (bit % 8))};
                    (void)c.decompress(bad, o);
                }
            }
        }
    // index of an unwritten slot; the unused 1111 prefix
    std::array<std::byte, 64> o{};
    const std::array<std::byte, 1> mmmm_slot3{std::byte{0b10001100}}; // 10 0011
    auto r = cpack{}.decompress(mc::compressed_view{mmmm_slot3, 6}, o);
    CHECK(r.status == mc::decode_status::invalid_code);
    CHECK(r.bit_offset == 0);
    const std::array<std::byte, 1> unused{std::byte{0b00111100}}; // 00 | 1111
    r = cpack{}.decompress(mc::compressed_view{unused, 6}, o);
    CHECK(r.status == mc::decode_status::invalid_code);
    CHECK(r.bit_offset == 2);
}
