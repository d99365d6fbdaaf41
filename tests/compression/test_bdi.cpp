// BDI: docs/mechanisms/compressors.md §1.1, §2.2 B1/B2, §4.2 V1–V6; independent naive size model;
// SIMD-vs-scalar differential; round trips; corrupt/truncated payloads.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/stored_size.hpp>

#include "line_generators.hpp"

namespace mc = memsub::compression;
using mc::bdi;
using mc::bdi_encoding;
using enc = mc::bdi_encoding;

namespace {

std::vector<std::byte> u64_line(std::initializer_list<std::uint64_t> v) {
    std::vector<std::byte> l(v.size() * 8);
    std::size_t i = 0;
    for (auto x : v) memsub_test::put64(l, i++, x);
    return l;
}

// ---- independent naive model (compressors.md §1.1, written without the implementation's
// structure) ----
std::int64_t as_signed(std::uint64_t v, unsigned w) {
    if (w == 64) return static_cast<std::int64_t>(v);
    v &= (std::uint64_t{1} << w) - 1;
    if (v >> (w - 1)) return static_cast<std::int64_t>(v) - (std::int64_t{1} << w);
    return static_cast<std::int64_t>(v);
}
bool naive_fits(std::uint64_t v, unsigned w, unsigned n) {
    const std::int64_t s = as_signed(v, w);
    const std::int64_t lo = -(std::int64_t{1} << (n - 1)), hi = (std::int64_t{1} << (n - 1)) - 1;
    return s >= lo && s <= hi;
}
std::uint64_t elem(std::span<const std::byte> l, unsigned k, std::size_t i) {
    std::uint64_t v = 0;
    for (unsigned b = 0; b < k; ++b) v |= std::to_integer<std::uint64_t>(l[k * i + b]) << (8 * b);
    return v;
}
struct naive_cfg {
    bool latte = false, mask_in_payload = true, immediates = true, zero_in_tag = false;
    std::uint32_t stored_segment = 0; ///< 0: select by exact bits; S: by stored size (CS3/CS4)
};
std::pair<std::uint32_t, int> naive_bdi_exact(std::span<const std::byte> l, naive_cfg c);
std::pair<std::uint32_t, int> naive_bdi_exact(std::span<const std::byte> l, naive_cfg c, int only);
// Returns {bits, enc}: every encoding evaluated, the minimum (size, enc) taken, size = exact bits
// or, when selecting by stored size, ceil(bytes / S)·S with encodings saving nothing excluded.
std::pair<std::uint32_t, int> naive_bdi(std::span<const std::byte> l, naive_cfg c) {
    if (c.stored_segment == 0) return naive_bdi_exact(l, c);
    const auto L = static_cast<std::uint32_t>(l.size());
    std::pair<std::uint32_t, int> best{L, 15}; // (stored bytes, enc): uncompressed
    std::uint32_t best_bits = 8 * L;
    for (int e = 0; e < 15; ++e) {
        // the exact model restricted to one encoding: ask it with every other one excluded
        const auto r = naive_bdi_exact(l, c, e);
        if (r.second != e) continue; // does not fit
        const std::uint32_t bytes = (r.first + 7) / 8;
        const std::uint32_t stored =
            (bytes + c.stored_segment - 1) / c.stored_segment * c.stored_segment;
        if (stored >= L) continue; // CS4: saves nothing, stored raw
        if (std::pair<std::uint32_t, int>{stored, e} < best) {
            best = {stored, e};
            best_bits = r.first;
        }
    }
    return {best_bits, best.second};
}
// Exact-size model; with `only` ≥ 0 the encodings other than `only` are not considered.
std::pair<std::uint32_t, int> naive_bdi_exact(std::span<const std::byte> l, naive_cfg c, int only) {
    const std::size_t L = l.size();
    std::vector<std::pair<std::uint32_t, int>> cands;
    cands.push_back({static_cast<std::uint32_t>(8 * L), 15});
    if (std::all_of(l.begin(), l.end(), [](std::byte b) { return b == std::byte{0}; }))
        cands.push_back({c.zero_in_tag ? 0u : 8u, 0});
    auto repeated = [&](unsigned k) {
        for (std::size_t i = 1; i < L / k; ++i)
            if (elem(l, k, i) != elem(l, k, 0)) return false;
        return true;
    };
    if (repeated(8)) cands.push_back({64, 1});
    if (c.latte && repeated(4)) cands.push_back({32, 8});
    if (c.latte && repeated(2)) cands.push_back({16, 9});
    const std::array<std::array<unsigned, 3>, 6> bd{
        {{2, 8, 1}, {3, 8, 2}, {4, 8, 4}, {5, 4, 1}, {6, 4, 2}, {7, 2, 1}}};
    for (auto [e, k, d] : bd) {
        const std::size_t n = L / k;
        const unsigned w = 8 * k;
        bool ok = true, have_base = !c.immediates;
        std::uint64_t base = c.immediates ? 0 : elem(l, k, 0);
        for (std::size_t i = 0; i < n && ok; ++i) {
            const std::uint64_t v = elem(l, k, i);
            if (c.immediates && naive_fits(v, w, 8 * d)) continue;
            if (!have_base) {
                have_base = true;
                base = v;
                continue;
            }
            ok = naive_fits(v - base, w, 8 * d);
        }
        if (ok)
            cands.push_back({static_cast<std::uint32_t>(
                                 8 * k + n * 8 * d + (c.immediates && c.mask_in_payload ? n : 0)),
                             static_cast<int>(e)});
    }
    if (only >= 0)
        for (auto& x : cands)
            if (x.second != only) x.first = ~0u;
    return *std::min_element(cands.begin(), cands.end());
}
std::pair<std::uint32_t, int> naive_bdi_exact(std::span<const std::byte> l, naive_cfg c) {
    return naive_bdi_exact(l, c, -1);
}

bdi make(std::uint32_t L, naive_cfg c) {
    return bdi{
        {.line_bytes = L,
         .encoding_set = c.latte ? mc::bdi_encoding_set::latte_cc : mc::bdi_encoding_set::pact12,
         .mask = c.mask_in_payload ? mc::bdi_mask::in_payload : mc::bdi_mask::in_tag,
         .variant = c.immediates ? mc::bdi_variant::base_delta_immediate
                                 : mc::bdi_variant::base_plus_delta,
         .zero_in_tag = c.zero_in_tag,
         .selection =
             c.stored_segment != 0 ? mc::bdi_selection::stored_size : mc::bdi_selection::exact_bits,
         .selection_segment_bytes = c.stored_segment}};
}

const std::array<naive_cfg, 9> configs{{{false, true, true, false, 0},
                                        {true, true, true, false, 0},
                                        {false, false, true, false, 0},
                                        {true, false, true, true, 0},
                                        {false, true, false, false, 0},
                                        {true, true, false, true, 0},
                                        {false, true, true, false, 8},
                                        {true, true, true, true, 32},
                                        {true, false, false, false, 16}}};

} // namespace

TEST_CASE("bdi: paper table sizes (mask in tag) for 32/64/128B lines, "
          "compressors.md §1.1") {
    // enc: 32B, 64B, 128B sizes in bytes (compressors.md §1.1 table)
    const std::array<std::array<std::uint32_t, 4>, 9> table{{{0, 1, 1, 1},
                                                             {1, 8, 8, 8},
                                                             {2, 12, 16, 24},
                                                             {3, 16, 24, 40},
                                                             {4, 24, 40, 72},
                                                             {5, 12, 20, 36},
                                                             {6, 20, 36, 68},
                                                             {7, 18, 34, 66},
                                                             {15, 32, 64, 128}}};
    const std::array<std::uint32_t, 3> Ls{32, 64, 128};
    for (std::size_t li = 0; li < 3; ++li) {
        const bdi c{{.line_bytes = Ls[li], .mask = mc::bdi_mask::in_tag}};
        for (auto row : table) CHECK(c.bits_of(static_cast<enc>(row[0])) == 8 * row[li + 1]);
        // docs/mechanisms/compressors.md §2.2 B2: mask in payload adds n bits to Base-k encodings
        const bdi m{{.line_bytes = Ls[li]}};
        CHECK(m.bits_of(enc::base8_delta1) == 8 * table[2][li + 1] + Ls[li] / 8);
        CHECK(m.bits_of(enc::base2_delta1) == 8 * table[7][li + 1] + Ls[li] / 2);
        CHECK_FALSE(m.supports(enc::repeated2));
        const bdi lat{{.line_bytes = Ls[li], .encoding_set = mc::bdi_encoding_set::latte_cc}};
        CHECK(lat.bits_of(enc::repeated4) == 32);
        CHECK(lat.bits_of(enc::repeated2) == 16);
    }
    CHECK(bdi{}.metadata_bits() == 4);
    CHECK(bdi{{.mask = mc::bdi_mask::in_tag}}.metadata_bits() == 4 + 32);
    CHECK(bdi{}.decompress_latency_cycles() == 2);
    CHECK(bdi{}.compress_energy_nj() == doctest::Approx(0.192));
    CHECK_THROWS_AS(bdi{{.line_bytes = 16}}, memsub::config_error);
}

TEST_CASE("bdi: worked vectors V1-V6 (compressors.md §4.2)") {
    const bdi c{};
    const bdi tag{{.mask = mc::bdi_mask::in_tag}};
    // V1
    std::vector<std::byte> z(64);
    CHECK(c.choose(z) == bdi::choice{enc::zeros, 8});
    CHECK(bdi{{.zero_in_tag = true}}.size_bits(z) == 0);
    // V2
    std::vector<std::byte> v2(64);
    for (int i = 0; i < 8; ++i) memsub_test::put64(v2, i, 0x00007FFFABCD0000ull + 8 * i);
    CHECK(c.choose(v2) == bdi::choice{enc::base8_delta1, 17 * 8});
    CHECK(tag.size_bits(v2) == 16 * 8);
    CHECK(c.encoder_fits(enc::base8_delta2, v2));
    CHECK(c.encoder_fits(enc::base8_delta4, v2));
    CHECK(c.encoder_fits(enc::base4_delta2, v2));
    CHECK_FALSE(c.encoder_fits(enc::base4_delta1, v2));
    CHECK_FALSE(c.encoder_fits(enc::base2_delta1, v2));
    CHECK(c.bits_of(enc::base8_delta2) == 25 * 8);
    CHECK(c.bits_of(enc::base8_delta4) == 41 * 8);
    CHECK(c.bits_of(enc::base4_delta2) == 38 * 8);
    // V3
    std::vector<std::byte> v3(64);
    for (int i = 0; i < 16; ++i) memsub_test::put32(v3, i, static_cast<std::uint32_t>(i));
    CHECK(c.choose(v3) == bdi::choice{enc::base4_delta1, 22 * 8});
    CHECK(tag.size_bits(v3) == 20 * 8);
    // V4
    const std::array<std::int32_t, 8> v4w{-1, 5,          0x40000000, 0x40000010,
                                          3,  0x3FFFFFF0, -7,         0x40000001};
    std::vector<std::byte> v4(64);
    for (int i = 0; i < 16; ++i) memsub_test::put32(v4, i, static_cast<std::uint32_t>(v4w[i % 8]));
    CHECK(c.choose(v4) == bdi::choice{enc::base4_delta1, 22 * 8});
    const bdi bpd{{.variant = mc::bdi_variant::base_plus_delta}};
    CHECK_FALSE(bpd.encoder_fits(enc::base4_delta1, v4)); // single base fails
    // V5: −128 must fit (P-G5)
    auto v5 =
        u64_line({0x1000, 0x1000 - 128, 0x1000 + 127, 0x1005, 0x1000, 0x1000, 0x1000, 0x1000});
    CHECK(c.choose(v5) == bdi::choice{enc::base8_delta1, 17 * 8});
    // V6
    std::vector<std::byte> v6(64);
    for (int i = 0; i < 32; ++i) memsub_test::put16(v6, i, 0xABCD);
    CHECK(c.choose(v6) == bdi::choice{enc::repeated8, 64});
    const bdi lat{{.encoding_set = mc::bdi_encoding_set::latte_cc}};
    CHECK(lat.choose(v6) == bdi::choice{enc::repeated2, 16});
    CHECK(lat.compress(v6).encoding == 9);
    // [X, 0, X, 0, …] is not Repeated 8B
    auto x0 = u64_line({0x123456789, 0, 0x123456789, 0, 0x123456789, 0, 0x123456789, 0});
    CHECK(c.choose(x0).encoding != enc::repeated8);
    // round trips of all vectors under every configuration
    for (const auto& cfg : configs) {
        const bdi b = make(64, cfg);
        for (const std::vector<std::byte>* l : {&z, &v2, &v3, &v4, &v5, &v6, &x0}) {
            const auto cl = b.compress(*l);
            CHECK(cl.bits == b.size_bits(*l));
            std::vector<std::byte> out(64);
            REQUIRE(b.decompress(cl, out).ok());
            CHECK(out == *l);
        }
    }
}

TEST_CASE("bdi: payload layout of V2 (reference layout: B, mask, deltas, MSB-first)") {
    std::vector<std::byte> v2(64);
    for (int i = 0; i < 8; ++i) memsub_test::put64(v2, i, 0x00007FFFABCD0000ull + 8 * i);
    const auto cl = bdi{}.compress(v2);
    REQUIRE(cl.bits == 136);
    const std::array<std::uint8_t, 17> expect{0x00, 0x00, 0x7F, 0xFF, 0xAB, 0xCD, 0x00, 0x00,
                                              0xFF, // mask: all use B
                                              0,    8,    16,   24,   32,   40,   48,   56};
    for (std::size_t i = 0; i < expect.size(); ++i)
        CHECK(std::to_integer<std::uint8_t>(cl.payload[i]) == expect[i]);
}

TEST_CASE("bdi: sizes equal the naive model; SIMD equals scalar; round trips (random lines)") {
    memsub::xoshiro256ss rng{7};
    std::array<std::byte, 128> buf{}, out{};
    std::size_t lines = 0;
    for (std::uint32_t L : {32u, 64u, 128u})
        for (const auto& cfg : configs) {
            const bdi b = make(L, cfg);
            const std::span<std::byte> line{buf.data(), L};
            for (int i = 0; i < memsub_test::scaled(12000); ++i) {
                memsub_test::make_line(
                    static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng,
                    line);
                const auto ch = b.choose(line);
                REQUIRE(ch == b.choose_reference(line));
                const auto nv = naive_bdi(line, cfg);
                REQUIRE(ch.bits == nv.first);
                REQUIRE(static_cast<int>(ch.encoding) == nv.second);
                const auto cl = b.compress(line);
                REQUIRE(cl.bits == ch.bits);
                REQUIRE(b.decompress(cl, std::span<std::byte>{out.data(), L}).ok());
                REQUIRE(std::memcmp(out.data(), buf.data(), L) == 0);
                ++lines;
            }
        }
    MESSAGE("bdi: " << lines << " lines checked against the naive model");
}

TEST_CASE("bdi: SIMD choice equals the scalar reference on 1 050 000 lines (+ 262 500 B+Δ)") {
    memsub::xoshiro256ss rng{11};
    std::array<std::byte, 128> buf{};
    for (std::uint32_t L : {32u, 64u, 128u}) {
        const bdi b{{.line_bytes = L, .encoding_set = mc::bdi_encoding_set::latte_cc}};
        const bdi bpd{{.line_bytes = L, .variant = mc::bdi_variant::base_plus_delta}};
        const std::span<std::byte> line{buf.data(), L};
        for (int i = 0; i < memsub_test::scaled(350000); ++i) {
            memsub_test::make_line(
                static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng, line);
            REQUIRE(b.choose(line) == b.choose_reference(line));
            if (i % 4 == 0) REQUIRE(bpd.choose(line) == bpd.choose_reference(line));
        }
    }
}

TEST_CASE("bdi: real files and generated arrays round trip; a sanity ratio band on real data") {
    const memsub_test::real_and_generated corpus(2 << 20);
    const auto& sets = corpus.sets;
    const std::size_t real_bytes = corpus.real_bytes;
    REQUIRE(real_bytes >= (1u << 20)); // the test executable and its runtime libraries
    std::array<std::byte, 128> out{};
    std::uint64_t real_bits = 0;
    for (std::uint32_t L : {32u, 64u, 128u}) {
        const bdi b{{.line_bytes = L}};
        for (std::size_t s = 0; s < sets.size(); ++s) {
            CAPTURE(sets[s].name);
            const auto& data = sets[s].bytes;
            for (std::size_t off = 0; off + L <= data.size(); off += L) {
                const std::span<const std::byte> line{data.data() + off, L};
                const auto cl = b.compress(line);
                REQUIRE(cl.bits == b.size_bits(line));
                REQUIRE(b.choose(line) == b.choose_reference(line));
                REQUIRE(b.decompress(cl, std::span<std::byte>{out.data(), L}).ok());
                REQUIRE(std::memcmp(out.data(), line.data(), L) == 0);
                if (L == 64 && s < corpus.real_count) real_bits += cl.bits;
            }
        }
    }
    const double ratio = static_cast<double>(real_bytes * 8) / static_cast<double>(real_bits);
    MESSAGE("bdi exact ratio on " << real_bytes << " B of real files: " << ratio);
    CHECK(ratio > 1.0);
    CHECK(ratio < 8.0);
}

TEST_CASE("bdi: truncated, over-long and corrupted payloads fail cleanly") {
    memsub::xoshiro256ss rng{3};
    std::array<std::byte, 128> buf{}, out{};
    for (const auto& cfg : configs)
        for (std::uint32_t L : {32u, 64u, 128u}) {
            const bdi b = make(L, cfg);
            const std::span<std::byte> line{buf.data(), L}, o{out.data(), L};
            for (int i = 0; i < memsub_test::scaled(300); ++i) {
                memsub_test::make_line(
                    static_cast<memsub_test::line_kind>(i % memsub_test::line_kind_count), rng,
                    line);
                const auto cl = b.compress(line);
                // every shorter bit length is an error (exhaustive truncation)
                REQUIRE_FALSE(memsub_test::accepted_truncation(b, cl, o));
                // one bit too long
                {
                    mc::compressed_line longer = cl;
                    longer.bits += 1;
                    REQUIRE(b.decompress(longer, o).status == mc::decode_status::trailing_bits);
                }
                // random bit flips: decode to something or fail; never crash
                for (int f = 0; f < 8 && cl.bits > 0; ++f) {
                    mc::compressed_line bad = cl;
                    const auto bit = rng() % cl.bits;
                    bad.payload[bit / 8] ^=
                        std::byte{static_cast<unsigned char>(0x80 >> (bit % 8))};
                    (void)b.decompress(bad, o);
                }
                // wrong encoding id
                mc::compressed_line wrong = cl;
                wrong.encoding = 12;
                REQUIRE(b.decompress(wrong, o).status == mc::decode_status::unknown_encoding);
            }
        }
    // bits larger than the span, wrong output size
    const bdi b{};
    std::array<std::byte, 4> tiny{};
    CHECK(b.decompress(mc::compressed_view{tiny, 64, 1}, std::span<std::byte>{out.data(), 64})
              .status == mc::decode_status::bad_view);
    CHECK(b.decompress(mc::compressed_view{tiny, 8, 0}, std::span<std::byte>{out.data(), 32})
              .status == mc::decode_status::wrong_output_size);
    // Zeros with a non-zero byte is invalid; throwing convenience reports the offset
    const std::array<std::byte, 1> one{std::byte{1}};
    CHECK(
        b.decompress(mc::compressed_view{one, 8, 0}, std::span<std::byte>{out.data(), 64}).status ==
        mc::decode_status::invalid_code);
    try {
        mc::decompress_or_throw(b, mc::compressed_view{one, 5, 2},
                                std::span<std::byte>{out.data(), 64});
        FAIL("expected input_error");
    } catch (const memsub::input_error& e) {
        CHECK(e.source() == "bdi");
        CHECK(e.kind() == memsub::input_error::position_kind::bit_offset);
        CHECK(e.position() == 0);
    }
}

TEST_CASE("bdi: B2 segment claims (compressors.md §2.2): the mask moves only Base8 "
          "encodings on 64B/S=8") {
    const mc::storage_rule cpu{.line_bytes = 64, .segment_bytes = 8};
    const bdi with{{.line_bytes = 64}}, without{{.line_bytes = 64, .mask = mc::bdi_mask::in_tag}};
    for (auto e : {enc::base8_delta1, enc::base8_delta2, enc::base8_delta4, enc::base4_delta1,
                   enc::base4_delta2, enc::base2_delta1}) {
        const auto a = mc::stored_size_of(with.bits_of(e), cpu).segments;
        const auto b = mc::stored_size_of(without.bits_of(e), cpu).segments;
        const bool base8 =
            e == enc::base8_delta1 || e == enc::base8_delta2 || e == enc::base8_delta4;
        CAPTURE(static_cast<int>(e));
        CHECK((a == b + 1) == base8);
        CHECK((a == b) == !base8);
    }
    CHECK(mc::stored_size_of(with.bits_of(enc::base8_delta1), cpu).segments == 3);    // 17 B
    CHECK(mc::stored_size_of(without.bits_of(enc::base8_delta1), cpu).segments == 2); // 16 B
    const mc::storage_rule gpu{.line_bytes = 128, .segment_bytes = 32};
    const bdi w128{{.line_bytes = 128}}, wo128{{.line_bytes = 128, .mask = mc::bdi_mask::in_tag}};
    for (auto e : {enc::base8_delta1, enc::base8_delta2, enc::base8_delta4, enc::base4_delta1,
                   enc::base4_delta2, enc::base2_delta1})
        CHECK(mc::stored_size_of(w128.bits_of(e), gpu).segments ==
              mc::stored_size_of(wo128.bits_of(e), gpu).segments);
}

TEST_CASE("bdi: selection by stored size (compressors.md §1.1 'after the segment "
          "rounding of §2')") {
    // 16 × u64 = 2^32 + s, s alternating −127 / +127: in the 4-byte view every element is an
    // immediate (Base4-Δ1 fits, 40 B on 128B lines); the 8-byte deltas reach ±254 (Base8-Δ2
    // fits, 42 B; Base8-Δ1 does not). Exact bits pick Base4-Δ1; with the CS3 default of 32-byte
    // segments both take 64 B and the tie goes to the lower enc, Base8-Δ2.
    std::vector<std::byte> l(128);
    for (int i = 0; i < 16; ++i)
        memsub_test::put64(
            l, i, (std::uint64_t{1} << 32) + static_cast<std::uint64_t>(i % 2 ? 127 : -127));
    const bdi exact{{.line_bytes = 128}};
    CHECK(exact.parameters().selection == mc::bdi_selection::exact_bits); // the default
    CHECK(exact.choose(l) == bdi::choice{enc::base4_delta1, 40 * 8});
    CHECK_FALSE(exact.encoder_fits(enc::base8_delta1, l));
    const bdi stored{{.line_bytes = 128, .selection = mc::bdi_selection::stored_size}};
    CHECK(stored.choose(l) == bdi::choice{enc::base8_delta2, 42 * 8});
    CHECK(stored.choose_reference(l) == stored.choose(l));
    CHECK(mc::stored_size_of(stored.size_bits(l), mc::default_storage_rule(128)).stored_bytes ==
          mc::stored_size_of(exact.size_bits(l), mc::default_storage_rule(128)).stored_bytes);
    // round trip under stored selection
    const auto cl = stored.compress(l);
    CHECK(cl.encoding == 3);
    std::vector<std::byte> out(128);
    REQUIRE(stored.decompress(cl, out).ok());
    CHECK(out == l);
    // explicit segments: 8-byte segments keep the exact order here (40 B < 48 B)
    const bdi s8{{.line_bytes = 128,
                  .selection = mc::bdi_selection::stored_size,
                  .selection_segment_bytes = 8}};
    CHECK(s8.choose(l).encoding == enc::base4_delta1);
    // segments as large as the line: nothing saves a segment, every line is uncompressed
    // (CS4) except a zero line whose Zeros payload is tag-only
    const bdi whole{{.line_bytes = 32,
                     .zero_in_tag = true,
                     .selection = mc::bdi_selection::stored_size,
                     .selection_segment_bytes = 32}};
    std::vector<std::byte> z(32), rep(32);
    for (int i = 0; i < 4; ++i) memsub_test::put64(rep, i, 0x0102030405060708ull);
    CHECK(whole.choose(z).encoding == enc::zeros);
    CHECK(whole.choose(rep).encoding == enc::uncompressed);
    CHECK(whole.choose_reference(rep).encoding == enc::uncompressed);
    CHECK_THROWS_AS((bdi{{.line_bytes = 64, .selection_segment_bytes = 3}}), memsub::config_error);
    CHECK_THROWS_AS((bdi{{.line_bytes = 64, .selection_segment_bytes = 128}}),
                    memsub::config_error);
}

TEST_CASE("bdi: the LATTE-CC Repeated 4B/2B codes are a switch ([UNVERIFIED] 1000/1001 default)") {
    std::vector<std::byte> v6(64), r4(64);
    for (int i = 0; i < 32; ++i) memsub_test::put16(v6, i, 0xABCD);
    for (int i = 0; i < 16; ++i) memsub_test::put32(r4, i, 0x12345678u);
    const bdi def{{.encoding_set = mc::bdi_encoding_set::latte_cc}};
    CHECK(def.code_of(enc::repeated4) == 0b1000);
    CHECK(def.code_of(enc::repeated2) == 0b1001);
    CHECK(def.compress(r4).encoding == 0b1000);
    CHECK(def.compress(v6).encoding == 0b1001);
    const bdi alt{{.encoding_set = mc::bdi_encoding_set::latte_cc,
                   .repeated4_code = 0b1100,
                   .repeated2_code = 0b1011}};
    CHECK(alt.code_of(enc::repeated4) == 0b1100);
    CHECK(alt.code_of(enc::base8_delta1) == 2); // the paper's codes are fixed
    std::vector<std::byte> out(64);
    for (const auto* l : {&v6, &r4}) {
        const auto cl = alt.compress(*l);
        CHECK(cl.encoding == (l == &v6 ? 0b1011 : 0b1100));
        REQUIRE(alt.decompress(cl, out).ok());
        CHECK(out == *l);
        mc::compressed_line moved = cl;
        moved.encoding = l == &v6 ? 0b1001 : 0b1000; // the default codes mean nothing here
        CHECK(alt.decompress(moved, out).status == mc::decode_status::unknown_encoding);
    }
    // Pact12 knows neither code
    mc::compressed_line cl = def.compress(v6);
    CHECK(bdi{}.decompress(cl, out).status == mc::decode_status::unknown_encoding);
    // the codes must be free 4-bit codes (8…14) and distinct
    for (const std::uint8_t bad :
         {std::uint8_t{2}, std::uint8_t{7}, std::uint8_t{15}, std::uint8_t{16}})
        CHECK_THROWS_AS(
            (bdi{{.encoding_set = mc::bdi_encoding_set::latte_cc, .repeated4_code = bad}}),
            memsub::config_error);
    CHECK_THROWS_AS((bdi{{.encoding_set = mc::bdi_encoding_set::latte_cc,
                          .repeated4_code = 10,
                          .repeated2_code = 10}}),
                    memsub::config_error);
    // ignored (not validated) under Pact12, which has no such encodings
    CHECK_NOTHROW(bdi{{.repeated4_code = 3}});
}
