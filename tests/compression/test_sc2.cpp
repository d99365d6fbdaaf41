// Tests for memsub::compression::sc2 and value_frequency_table (docs/mechanisms/compressors.md
// §1.5, §2.2, §4.2 S1/S2 line vectors): goldens, VFT behaviour, round trips on millions of lines
// and on real data, code-book mismatch, truncation and corruption.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <memsub/compression/sc2.hpp>
#include <memsub/core/rng.hpp>

#include "line_generators.hpp"
#include "sc2_reference.hpp"

namespace mc = memsub::compression;
using book_t = mc::huffman_code_book;

namespace {

using memsub_test::bin;
using memsub_test::bits_of;
using memsub_test::to_line;

// Lines whose words come from a skewed value population (what SC² exploits), plus random and
// zero-heavy lines.
std::vector<std::uint32_t> generate(memsub::xoshiro256ss& rng, std::size_t n, unsigned kind,
                                    const std::vector<std::uint32_t>& popular) {
    std::vector<std::uint32_t> w(n);
    for (auto& x : w) {
        switch (kind % 5) {
        case 0:
            x = static_cast<std::uint32_t>(rng());
            break;
        case 1:
            x = rng.below(3) == 0 ? 0u : popular[rng.below(popular.size())];
            break;
        case 2:
            x = popular[std::min<std::size_t>(rng.below(8) * rng.below(popular.size()) / 8,
                                              popular.size() - 1)];
            break;
        case 3:
            x = rng.below(8) == 0 ? static_cast<std::uint32_t>(rng()) : popular[rng.below(32)];
            break;
        default:
            x = rng.below(6) == 0 ? static_cast<std::uint32_t>(rng.below(1000)) : 0u;
            break;
        }
    }
    return w;
}

std::shared_ptr<const book_t> s1_book() {
    const std::vector<mc::value_count> counts{
        {0x00000000u, 40}, {0xFFFFFFFFu, 20}, {0x00000001u, 10}, {0x3F800000u, 10}};
    return std::make_shared<const book_t>(counts, 100);
}

} // namespace

static_assert(mc::compressor<mc::sc2>);
static_assert(mc::invertible_compressor<mc::sc2>);

TEST_CASE("sc2: compressors.md §4.2 S1 line (32B) = 50 bits") {
    const mc::sc2 c(mc::sc2::params{.line_bytes = 32, .code_book = s1_book()});
    const auto line = to_line({0, 0, 1, 0xFFFFFFFFu, 0x3F800000u, 0x12345678u, 0, 0});
    CHECK(c.size_bits(line) == 50);
    const mc::compressed_line z = c.compress(line);
    CHECK(z.bits == 50);
    CHECK(z.bytes() == 7);
    CHECK(bits_of(z) == "00"
                        "00"
                        "110"
                        "01"
                        "111"
                        "10" +
                            bin(0x12345678u, 32) +
                            "00"
                            "00");
    CHECK(z.codebook == c.code_book().id());
    std::array<std::byte, 32> out{};
    REQUIRE(c.decompress(z, out).ok());
    CHECK(std::equal(line.begin(), line.end(), out.begin()));
}

TEST_CASE("sc2: compressors.md §4.2 S2 line = 53 bits (54 unlimited)") {
    const std::vector<mc::value_count> counts{{0, 8}, {1, 5}, {2, 3}, {3, 2}, {4, 1}};
    const auto limited =
        std::make_shared<const book_t>(counts, 20, book_t::params{.max_code_length_bits = 4});
    const auto unlimited = std::make_shared<const book_t>(counts, 20);
    const auto line = to_line({0, 0, 1, 2, 3, 4, 0x12345678u, 0});
    CHECK(mc::sc2(mc::sc2::params{.line_bytes = 32, .code_book = limited}).size_bits(line) == 53);
    CHECK(mc::sc2(mc::sc2::params{.line_bytes = 32, .code_book = unlimited}).size_bits(line) == 54);
}

TEST_CASE("sc2: untrained compressor uses the escape-only book") {
    const mc::sc2 c;
    CHECK(c.name() == "sc2");
    CHECK(c.line_bytes() == 64);
    CHECK(c.metadata_bits() == 1);
    CHECK(c.compress_latency_cycles() == 6);
    CHECK(c.decompress_latency_cycles() == 14);
    CHECK(c.compress_energy_nj() == doctest::Approx(0.42));
    CHECK(c.decompress_energy_nj() == doctest::Approx(0.336));
    std::array<std::byte, 64> line{};
    CHECK(c.size_bits(line) == 16 * 33);
    CHECK_THROWS_AS(mc::sc2(mc::sc2::params{.line_bytes = 16}), memsub::config_error);
}

TEST_CASE("sc2: value-frequency table sampling") {
    mc::value_frequency_table vft(
        mc::value_frequency_table::params{.entries = 8, .ways = 2, .counter_bits = 3});
    CHECK(vft.storage_bits() == 8 * (32 + 3));
    CHECK(mc::value_frequency_table{}.storage_bits() == 1024 * 44); // 5.5 KB (dissertation)
    for (int i = 0; i < 5; ++i) vft.sample(7);
    vft.sample(9);
    CHECK(vft.total_sampled_words() == 6);
    auto counts = vft.counts();
    REQUIRE(counts.size() == 2);
    CHECK(counts[0] == mc::value_count{7, 5});
    CHECK(counts[1] == mc::value_count{9, 1});
    // Saturation at 2^3 − 1.
    for (int i = 0; i < 10; ++i) vft.sample(7);
    CHECK(vft.counts()[0].count == 7);
    vft.forget(7);
    vft.forget(12345); // absent: no effect
    CHECK(vft.counts()[0].count == 6);
    vft.forget(9);
    CHECK(vft.counts().size() == 1); // count 0 = free entry
    CHECK(vft.total_sampled_words() == 16);

    // LFU victim within a set: fill one set beyond its 2 ways with values that hash alike.
    mc::value_frequency_table one(
        mc::value_frequency_table::params{.entries = 2, .ways = 2, .counter_bits = 12});
    one.sample(1);
    one.sample(1);
    one.sample(2);
    one.sample(3); // evicts 2 (count 1 < 2)
    counts = one.counts();
    REQUIRE(counts.size() == 2);
    CHECK(counts[0] == mc::value_count{1, 2});
    CHECK(counts[1] == mc::value_count{3, 1});

    // Lines: every word sampled; eviction decrements.
    mc::value_frequency_table t;
    const auto line = to_line({5, 5, 5, 6, 0, 0, 0, 0});
    t.on_insert(line);
    t.on_insert(line);
    t.on_evict(line);
    counts = t.counts();
    REQUIRE(counts.size() == 3);
    CHECK(counts[0] == mc::value_count{0, 4});
    CHECK(counts[1] == mc::value_count{5, 3});
    CHECK(counts[2] == mc::value_count{6, 1});
    CHECK(t.total_sampled_words() == 16);
    t.clear();
    CHECK(t.counts().empty());

    CHECK_THROWS_AS(mc::value_frequency_table(mc::value_frequency_table::params{.entries = 1000}),
                    memsub::config_error);
    CHECK_THROWS_AS(mc::value_frequency_table(mc::value_frequency_table::params{.counter_bits = 0}),
                    memsub::config_error);
}

TEST_CASE("sc2: VFT-trained book compresses skewed data; round trips on 1 320 000 lines") {
    memsub::xoshiro256ss rng(2718);
    std::vector<std::uint32_t> popular;
    for (int i = 0; i < 3000; ++i) popular.push_back(static_cast<std::uint32_t>(rng()) >> (i % 24));
    std::uint64_t lines = 0;
    for (const std::uint32_t L : {32u, 64u, 128u}) {
        mc::value_frequency_table vft;
        for (int i = 0; i < 4000; ++i)
            vft.on_insert(to_line(generate(rng, L / 4, static_cast<unsigned>(i), popular)));
        for (const std::uint32_t max_len : {16u, 12u}) {
            const mc::sc2 c(mc::sc2::params{
                .line_bytes = L,
                .code_book = vft.build_code_book(book_t::params{.max_code_length_bits = max_len})});
            CHECK(c.code_book().symbol_count() > 100);
            std::uint64_t in_bits = 0, out_bits = 0;
            std::array<std::byte, 128> back{};
            const int count = memsub_test::scaled(max_len == 16 ? 400000 : 40000);
            for (int it = 0; it < count; ++it) {
                const auto line = to_line(generate(rng, L / 4, static_cast<unsigned>(it), popular));
                const mc::compressed_line z = c.compress(line);
                const std::span<std::byte> out(back.data(), L);
                if (z.bits != c.size_bits(line) || !c.decompress(z, out) ||
                    !std::equal(line.begin(), line.end(), back.begin()))
                    FAIL("round trip failed at line ", it, " of size ", L);
                if (it % 5 != 0) { // skewed lines only
                    in_bits += 8 * L;
                    out_bits += z.bits;
                }
                ++lines;
            }
            // Skewed data must compress (loose band, docs/mechanisms/compressors.md §4.1: use
            // bands, not exact values).
            CHECK(static_cast<double>(in_bits) / static_cast<double>(out_bits) > 1.5);
        }
    }
    CHECK(lines ==
          3 * static_cast<std::uint64_t>(memsub_test::scaled(400000) + memsub_test::scaled(40000)));
    if (memsub_test::full_scale) CHECK(lines == 1320000);
}

TEST_CASE("sc2: real files and generated arrays (book sampled from the first 10 % of each)") {
    const memsub_test::real_and_generated corpus(4 << 20);
    const auto& sets = corpus.sets;
    REQUIRE(corpus.real_bytes >= (1u << 20)); // the test executable and its runtime libraries
    std::uint64_t lines = 0, bits = 0, bytes = 0;
    for (const auto& set : sets) {
        CAPTURE(set.name);
        const std::span<const std::byte> data(set.bytes);
        // Train on the first 10 % of lines (sampling), then compress everything.
        mc::value_frequency_table vft;
        for (std::size_t off = 0; off < data.size() / 10; off += 64)
            vft.on_insert(data.subspan(off, 64));
        const auto book = vft.build_code_book();
        for (const std::uint32_t L : {32u, 64u, 128u}) {
            const mc::sc2 c(mc::sc2::params{.line_bytes = L, .code_book = book});
            std::array<std::byte, 128> back{};
            for (std::size_t off = 0; off + L <= data.size(); off += L) {
                const auto line = data.subspan(off, L);
                const mc::compressed_line z = c.compress(line);
                REQUIRE(z.bits == c.size_bits(line));
                REQUIRE(c.decompress(z, std::span<std::byte>(back.data(), L)).ok());
                REQUIRE(std::equal(line.begin(), line.end(), back.begin()));
                if (L == 64) {
                    bits += z.bits;
                    bytes += L;
                }
                ++lines;
            }
        }
    }
    MESSAGE("real files + arrays: ", lines, " lines, SC² 64B exact ratio ",
            static_cast<double>(bytes * 8) / static_cast<double>(bits));
    CHECK(lines > 0);
}

TEST_CASE("sc2: code-book mismatch, truncation and corruption are reported") {
    memsub::xoshiro256ss rng(4);
    std::vector<std::uint32_t> popular;
    for (int i = 0; i < 200; ++i) popular.push_back(static_cast<std::uint32_t>(rng()));
    mc::value_frequency_table vft;
    for (int i = 0; i < 1000; ++i) vft.on_insert(to_line(generate(rng, 16, 2, popular)));
    const auto book = vft.build_code_book();
    const mc::sc2 c(mc::sc2::params{.line_bytes = 64, .code_book = book});
    const mc::sc2 other(mc::sc2::params{.line_bytes = 64, .code_book = s1_book()});
    const mc::sc2 same(mc::sc2::params{.line_bytes = 64, .code_book = book});
    for (int it = 0; it < 500; ++it) {
        const auto line = to_line(generate(rng, 16, static_cast<unsigned>(it), popular));
        const mc::compressed_line z = c.compress(line);
        std::array<std::byte, 64 + 32> guard;
        guard.fill(std::byte{0x5A});
        const std::span<std::byte> out(guard.data() + 16, 64);
        REQUIRE(same.decompress(z, out).ok()); // a second compressor sharing the book
        REQUIRE(other.decompress(z, out).status == mc::decode_status::codebook_mismatch);
        for (std::uint32_t t = 0; t < z.bits; ++t) {
            mc::compressed_view v = z;
            v.bits = t;
            const mc::decode_result r = c.decompress(v, out);
            REQUIRE(r.status == mc::decode_status::truncated);
            REQUIRE(r.bit_offset <= t);
        }
        mc::compressed_view longer{std::span<const std::byte>(z.payload), z.bits + 3, 0, 0,
                                   z.codebook};
        const mc::decode_result tr = c.decompress(longer, out);
        CHECK(tr.status == mc::decode_status::trailing_bits);
        CHECK(tr.bit_offset == z.bits);
        for (std::uint32_t bit = 0; bit < z.bits; ++bit) {
            mc::compressed_line f = z;
            f.payload[bit / 8] ^= static_cast<std::byte>(0x80u >> (bit % 8));
            const mc::decode_result r = c.decompress(f, out);
            if (!r) REQUIRE(r.bit_offset <= z.bits);
        }
        for (std::size_t i = 0; i < 16; ++i) {
            REQUIRE(guard[i] == std::byte{0x5A});
            REQUIRE(guard[16 + 64 + i] == std::byte{0x5A});
        }
    }
    std::array<std::byte, 64> out{};
    mc::compressed_view v = c.compress(out);
    CHECK(c.decompress(v, std::span<std::byte>(out.data(), 32)).status ==
          mc::decode_status::wrong_output_size);
    v.encoding = 1;
    CHECK(c.decompress(v, out).status == mc::decode_status::unknown_encoding);
    v.encoding = 0;
    v.bits = static_cast<std::uint32_t>(v.payload.size()) * 8 + 1;
    CHECK(c.decompress(v, out).status == mc::decode_status::bad_view);
}

// ---- the reorganised VFT, the in-place book build and the size path against the reference ----

namespace {

namespace ref = memsub_test::sc2_reference;

// Lines of every generator kind, plus runs of a few popular words (runs cross saturation).
std::vector<std::byte> mixed_line(memsub::xoshiro256ss& rng, std::uint32_t L,
                                  const std::vector<std::uint32_t>& popular) {
    std::vector<std::byte> line(L);
    const auto kind = rng.below(memsub_test::line_kind_count + 2);
    if (kind < static_cast<std::uint64_t>(memsub_test::line_kind_count)) {
        memsub_test::make_line(static_cast<memsub_test::line_kind>(kind), rng, line);
        return line;
    }
    for (std::size_t i = 0; i < L / 4;) { // runs of 1..12 equal words
        const std::uint32_t v = popular[rng.below(popular.size())];
        for (std::uint64_t r = 1 + rng.below(12); r > 0 && i < L / 4; --r, ++i)
            memsub_test::put32(line, i, v);
    }
    return line;
}

bool same_counts(const mc::value_frequency_table& a, const ref::value_frequency_table_v0& b) {
    return a.counts() == b.counts() && a.total_sampled_words() == b.total_sampled_words();
}

template <class A, class B>
bool same_code(const A& a, const B& b) {
    return a.bits == b.bits && a.length == b.length;
}

// Every observable of two books: canonical symbols, codes, decode tables and id.
template <class A, class B>
bool same_book(const A& a, const B& b) {
    if (a.symbol_count() != b.symbol_count() || a.id() != b.id() ||
        !same_code(a.escape_code(), b.escape_code()) || a.kraft_numerator() != b.kraft_numerator())
        return false;
    for (std::size_t i = 0; i < a.symbol_count(); ++i) {
        const auto& x = a.canonical_symbols()[i];
        const auto& y = b.canonical_symbols()[i];
        if (x.escape != y.escape || x.value != y.value || x.weight != y.weight ||
            x.unlimited_length != y.unlimited_length || !same_code(x.codeword, y.codeword))
            return false;
    }
    for (std::uint32_t l = 1; l <= a.max_code_length(); ++l)
        if (a.count_of_length(l) != b.count_of_length(l) ||
            (a.count_of_length(l) != 0 && (a.first_codeword(l) != b.first_codeword(l) ||
                                           a.offset_of_length(l) != b.offset_of_length(l))))
            return false;
    return true;
}

} // namespace

TEST_CASE("sc2: VFT counts equal the reference table's after 240 000 random operations") {
    // Configurations: the default 1024 × 16 (the packed layout), small sets that evict
    // constantly, 3-bit counters that saturate inside one run, 16 ways with counters too wide for
    // the packed layout (the general layout's 16-way path), and way counts on the generic paths.
    const std::array<mc::value_frequency_table::params, 8> configs{{{1024, 16, 12},
                                                                    {64, 16, 3},
                                                                    {256, 16, 13},
                                                                    {32, 4, 12},
                                                                    {64, 8, 2},
                                                                    {64, 64, 5},
                                                                    {16, 1, 12},
                                                                    {128, 2, 32}}};
    memsub::xoshiro256ss rng(77);
    std::vector<std::uint32_t> popular;
    for (int i = 0; i < 300; ++i) popular.push_back(static_cast<std::uint32_t>(rng()) >> (i % 28));
    std::uint64_t operations = 0;
    for (const auto& p : configs) {
        CAPTURE(p.entries);
        CAPTURE(p.ways);
        CAPTURE(p.counter_bits);
        mc::value_frequency_table t(p);
        ref::value_frequency_table_v0 r({p.entries, p.ways, p.counter_bits});
        std::vector<std::vector<std::byte>> resident; // lines "in the cache", evicted later
        const int steps = memsub_test::scaled(240000 / static_cast<int>(configs.size()));
        for (int step = 0; step < steps; ++step) {
            const auto op = rng.below(100);
            if (op < 55 || resident.empty()) {
                const std::uint32_t L = 32u << rng.below(3);
                auto line = mixed_line(rng, L, popular);
                t.on_insert(line);
                r.on_insert(line);
                resident.push_back(std::move(line));
            } else if (op < 90) {
                const std::size_t i = rng.below(resident.size());
                t.on_evict(resident[i]);
                r.on_evict(resident[i]);
                resident[i] = std::move(resident.back());
                resident.pop_back();
            } else if (op < 99) {
                const std::uint32_t v = popular[rng.below(popular.size())];
                if (rng.below(2) == 0) {
                    t.sample(v);
                    r.sample(v);
                } else {
                    t.forget(v);
                    r.forget(v);
                }
            } else {
                t.clear();
                r.clear();
                resident.clear();
            }
            ++operations;
            if (step % 97 == 0 && !same_counts(t, r)) FAIL("counts differ after step ", step);
        }
        CHECK(same_counts(t, r));
    }
    CHECK(operations == configs.size() * static_cast<std::uint64_t>(memsub_test::scaled(
                                             240000 / static_cast<int>(configs.size()))));
}

TEST_CASE("sc2: VFT counts equal the reference table's on real files (on_insert and on_evict)") {
    const memsub_test::real_and_generated corpus(1 << 20);
    for (const auto& set : corpus.sets) {
        CAPTURE(set.name);
        mc::value_frequency_table t;
        ref::value_frequency_table_v0 r;
        const std::span<const std::byte> data(set.bytes);
        const std::size_t lines = data.size() / 128;
        for (std::size_t i = 0; i < lines; ++i) {
            t.on_insert(data.subspan(128 * i, 128));
            r.on_insert(data.subspan(128 * i, 128));
            if (i >= 64) { // a 64-line cache: the line inserted 64 lines ago leaves
                t.on_evict(data.subspan(128 * (i - 64), 128));
                r.on_evict(data.subspan(128 * (i - 64), 128));
            }
        }
        REQUIRE(same_counts(t, r));
    }
}

TEST_CASE("sc2: build_code_book_into rebuilds one book in place, equal to a fresh build and to "
          "the reference builder") {
    const std::array<book_t::params, 5> book_params{
        {{},
         {.max_code_length_bits = 11},
         {.max_code_length_bits = 12, .limit = book_t::length_limit::drop},
         {.escape = book_t::esc_weight::max},
         {.max_code_length_bits = 24, .version = 7}}};
    memsub::xoshiro256ss rng(5);
    std::vector<std::uint32_t> popular;
    for (int i = 0; i < 4000; ++i) popular.push_back(static_cast<std::uint32_t>(rng()) >> (i % 30));
    book_t book = book_t::escape_only();
    mc::value_frequency_table t;
    ref::value_frequency_table_v0 r;
    int builds = 0;
    for (int round = 0; round < 60; ++round) {
        // Tables of every fill: cleared (ESC only), a few symbols, full.
        if (round % 7 == 0) {
            t.clear();
            r.clear();
        }
        const auto lines = rng.below(4) == 0 ? rng.below(3) : rng.below(600);
        for (std::uint64_t i = 0; i < lines; ++i) {
            const auto line = mixed_line(rng, 128, popular);
            t.on_insert(line);
            r.on_insert(line);
        }
        for (const auto& bp : book_params) {
            t.build_code_book_into(book, bp);
            const auto fresh = t.build_code_book(bp);
            const auto old =
                r.build_code_book({bp.max_code_length_bits,
                                   bp.escape == book_t::esc_weight::max
                                       ? ref::huffman_code_book_v0::esc_weight::max
                                       : ref::huffman_code_book_v0::esc_weight::residual,
                                   bp.limit == book_t::length_limit::drop
                                       ? ref::huffman_code_book_v0::length_limit::drop
                                       : ref::huffman_code_book_v0::length_limit::clamp_fix,
                                   bp.version});
            REQUIRE(same_book(book, *fresh));
            REQUIRE(same_book(book, *old));
            // The rebuilt book codes lines as the fresh one does, and decodes them.
            const mc::sc2 in_place(mc::sc2::params{
                .line_bytes = 128,
                .code_book = std::shared_ptr<const book_t>(&book, [](const book_t*) {})});
            const mc::sc2 fresh_c(mc::sc2::params{.line_bytes = 128, .code_book = fresh});
            std::array<std::byte, 128> back{};
            for (int i = 0; i < 20; ++i) {
                const auto line = mixed_line(rng, 128, popular);
                const auto z = in_place.compress(line);
                REQUIRE(z.bits == fresh_c.compress(line).bits);
                REQUIRE(z.bits == ref::size_bits_v0(*old, line));
                REQUIRE(in_place.decompress(z, back).ok());
                REQUIRE(std::equal(line.begin(), line.end(), back.begin()));
            }
            ++builds;
        }
    }
    CHECK(builds == 300);
}

TEST_CASE("sc2: size_bits equals the reference size path on real files and generated lines") {
    const memsub_test::real_and_generated corpus(2 << 20);
    std::uint64_t lines = 0;
    for (const auto& set : corpus.sets) {
        CAPTURE(set.name);
        const std::span<const std::byte> data(set.bytes);
        mc::value_frequency_table t;
        ref::value_frequency_table_v0 r;
        for (std::size_t off = 0; off + 128 <= data.size() / 10; off += 128) {
            t.on_insert(data.subspan(off, 128));
            r.on_insert(data.subspan(off, 128));
        }
        for (const std::uint32_t max_len : {16u, 11u}) {
            const auto old = r.build_code_book({.max_code_length_bits = max_len});
            for (const std::uint32_t L : {32u, 64u, 128u}) {
                const mc::sc2 c(mc::sc2::params{
                    .line_bytes = L,
                    .code_book = t.build_code_book({.max_code_length_bits = max_len})});
                for (std::size_t off = 0; off + L <= data.size(); off += L) {
                    const auto line = data.subspan(off, L);
                    if (c.size_bits(line) != ref::size_bits_v0(*old, line))
                        FAIL("size differs at byte ", off, ", ", L, " B lines");
                    ++lines;
                }
            }
        }
    }
    // Generated lines of every kind, including words absent from the book that hash next to
    // present ones (the encoder's free slots hold the word 0).
    memsub::xoshiro256ss rng(31);
    std::vector<std::uint32_t> popular{0};
    for (int i = 0; i < 700; ++i) popular.push_back(static_cast<std::uint32_t>(rng.below(5000)));
    for (const bool zero_in_book : {true, false}) {
        mc::value_frequency_table t;
        ref::value_frequency_table_v0 r;
        for (int i = 0; i < 2000; ++i) {
            auto line = mixed_line(rng, 128, popular);
            if (!zero_in_book)
                for (std::size_t w = 0; w < 32; ++w)
                    if (memsub_test::sc2_reference::value_frequency_table_v0::load_word(line, w) ==
                        0)
                        memsub_test::put32(line, w, 1);
            t.on_insert(line);
            r.on_insert(line);
        }
        const mc::sc2 c(mc::sc2::params{.line_bytes = 128, .code_book = t.build_code_book()});
        const auto old = r.build_code_book();
        CHECK(c.code_book().code_of(0).has_value() == zero_in_book);
        for (int i = 0; i < memsub_test::scaled(100000); ++i) {
            const auto line = mixed_line(rng, 128, popular);
            if (c.size_bits(line) != ref::size_bits_v0(*old, line)) FAIL("size differs, line ", i);
            ++lines;
        }
    }
    CHECK(lines > 100000);
}

TEST_CASE("sc2: VFT on_insert equals the reference on lines of any length and run layout") {
    // The run finder compares four words at a time when the line holds a multiple of four words
    // and word by word otherwise, in chunks of 64 words: lengths 1..140 words, runs of 1..9 equal
    // words over a handful of values (runs straddle every 4-word and 64-word boundary), and
    // repeats that are not adjacent (A B A), which are separate runs (the packed layout probes
    // a run's set again after the previous run's update only when both share it). 16 ways with
    // 12-bit counters (the packed layout), with 16-bit ones (the general layout's vector path),
    // and 8 ways (the generic path).
    memsub::xoshiro256ss rng(2024);
    for (const mc::value_frequency_table::params p :
         {mc::value_frequency_table::params{}, mc::value_frequency_table::params{64, 16, 16},
          mc::value_frequency_table::params{64, 8, 4}}) {
        CAPTURE(p.ways);
        mc::value_frequency_table t(p);
        ref::value_frequency_table_v0 r({p.entries, p.ways, p.counter_bits});
        int lines = 0;
        for (int round = 0; round < 6; ++round)
            for (std::uint32_t words = 1; words <= 140; ++words) {
                std::vector<std::byte> line(4 * words);
                const auto distinct = 1 + rng.below(round < 3 ? 3 : 200);
                for (std::uint32_t i = 0; i < words;) {
                    const auto v = static_cast<std::uint32_t>(rng.below(distinct) * 0x01010101u);
                    for (auto k = 1 + rng.below(9); k > 0 && i < words; --k, ++i)
                        memsub_test::put32(line, i, v);
                }
                t.on_insert(line);
                r.on_insert(line);
                if (!same_counts(t, r)) FAIL("counts differ after a line of ", words, " words");
                ++lines;
            }
        CHECK(lines == 6 * 140);
        CHECK(same_counts(t, r));
    }
}

TEST_CASE("sc2: a line's bits are the sum of its words' encoded_bits for any word count") {
    // encoded_bits_of_words sums masked window payloads in a vector: check it against the word
    // by word sum for 0..64 words, with books of every fill (escape only, a few symbols, a
    // table's worth), the word 0 in and out of the book, and words absent from the book that
    // share windows with present ones.
    memsub::xoshiro256ss rng(404);
    std::vector<std::uint32_t> values;
    for (int i = 0; i < 3000; ++i) values.push_back(static_cast<std::uint32_t>(rng.below(6000)));
    int checked = 0;
    for (const std::size_t symbols :
         {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{300}, std::size_t{1023}}) {
        for (const bool zero_in_book : {true, false}) {
            std::vector<mc::value_count> counts;
            for (std::uint32_t v = zero_in_book ? 0 : 1; counts.size() < symbols; v += 3)
                counts.push_back({v, 1 + rng.below(500)});
            const book_t book(counts, 4 * symbols + 10);
            for (int trial = 0; trial < 40; ++trial) {
                const auto n = static_cast<std::size_t>(rng.below(65));
                std::vector<std::byte> words(4 * n + 4);
                std::uint32_t expected = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    const std::uint32_t v =
                        rng.below(4) == 0 ? 0 : values[rng.below(values.size())];
                    memsub_test::put32(words, i, v);
                    expected += book.encoded_bits(v);
                }
                if (book.encoded_bits_of_words(words.data(), n) != expected)
                    FAIL("bits differ: ", symbols, " symbols, ", n, " words");
                ++checked;
            }
        }
    }
    CHECK(checked == 5 * 2 * 40);
}

TEST_CASE("sc2: shared state samples only while on, swaps two live books by generation") {
    mc::sc2_shared_state s;
    CHECK(s.generation() == 1);
    CHECK(s.current()->id() == 1);
    CHECK(s.current()->symbol_count() == 1); // escape-only
    CHECK(s.previous() == nullptr);
    CHECK(s.book_of(1) == s.current().get());
    CHECK(s.book_of(0) == nullptr);
    CHECK(s.book_of(3) == nullptr);
    CHECK(s.storage_bits() == 1024 * 44 + s.current()->storage_bits());

    const auto line = to_line({7, 7, 7, 7, 9, 9, 0, 0});
    s.on_insert(line); // sampling is off
    CHECK(s.table().total_sampled_words() == 0);
    s.start_sampling();
    CHECK(s.sampling());
    s.on_insert(line);
    s.on_insert(line);
    s.on_evict(line);
    CHECK(s.table().counts() ==
          std::vector<mc::value_count>{{0, 2}, {7, 4}, {9, 2}}); // 16 sampled, 8 uncounted
    s.stop_sampling();
    s.on_insert(line);
    CHECK(s.table().total_sampled_words() == 16);

    CHECK(s.rebuild() == 2);
    const auto g2 = s.current();
    CHECK(g2->id() == 2);
    CHECK(s.previous()->id() == 1);
    CHECK(s.book_of(2) == g2.get());
    CHECK(s.book_of(1) == s.previous().get());
    CHECK(g2->code_of(7).has_value());
    // A compressor built on generation 2 marks its lines with id 2.
    const mc::sc2 c2(mc::sc2::params{.line_bytes = 32, .code_book = g2});
    const auto z = c2.compress(line);
    CHECK(z.codebook == 2);
    CHECK(s.book_of(z.codebook) == g2.get());

    // Generation 3 replaces generation 1 (nothing else holds it: rebuilt in place).
    const book_t* slot_of_1 = s.book_of(1);
    s.start_sampling(); // clears the table
    CHECK(s.table().total_sampled_words() == 0);
    s.on_insert(to_line({5, 5, 5, 5, 5, 5, 5, 6}));
    CHECK(s.rebuild() == 3);
    CHECK(s.current().get() == slot_of_1);
    CHECK(s.book_of(1) == nullptr);
    CHECK(s.book_of(2) == g2.get());
    CHECK(s.book_of(3)->code_of(5).has_value());
    CHECK(!s.book_of(3)->code_of(7).has_value());

    // Generation 4 would replace generation 2, which `g2` and `c2` still hold: a new object is
    // built and generation 2's book is left as it was.
    CHECK(s.rebuild() == 4);
    CHECK(s.current().get() != g2.get());
    CHECK(s.book_of(2) == nullptr);
    CHECK(g2->id() == 2);
    std::array<std::byte, 32> back{};
    CHECK(c2.decompress(z, back).ok());
    CHECK(std::equal(line.begin(), line.end(), back.begin()));
    CHECK(s.book_of(z.codebook) == nullptr); // the host finds generation 2 retired
}
