// Tests for memsub::compression::bpc (docs/mechanisms/compressors.md §1.4, §4.2 BPC vectors) and
// its DBX transform kernels (xsimd vs scalar reference, bit for bit).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/bpc.hpp>
#include <memsub/compression/stored_size.hpp>
#include <memsub/core/rng.hpp>

#include "line_generators.hpp"

namespace mc = memsub::compression;

namespace {

using words_t = std::vector<std::uint32_t>;

using memsub_test::bin;
using memsub_test::bits_of;
using memsub_test::to_line;

// Independent reference encoder, written from docs/mechanisms/compressors.md §1.4 as plainly as
// possible. With `one_bit_first` it tests the two one-bit classes before zero-DBP (the Compresso
// order compressors.md §1.4 rejects), for the negative test of the priority rule.
std::string reference_encode(const words_t& w, bool one_bit_first = false) {
    const std::size_t n = w.size();
    const unsigned pw = n == 32 ? 5 : (n == 16 ? 4 : 3);
    std::string out;
    const auto base = static_cast<std::int32_t>(w[0]);
    if (base == 0)
        out += "000";
    else if (base >= -8 && base <= 7)
        out += "001" + bin(static_cast<std::uint32_t>(base), 4);
    else if (base >= -128 && base <= 127)
        out += "010" + bin(static_cast<std::uint32_t>(base), 8);
    else if (base >= -32768 && base <= 32767)
        out += "011" + bin(static_cast<std::uint32_t>(base), 16);
    else
        out += "1" + bin(w[0], 32);
    std::array<std::uint64_t, 33> dbp{}, dbx{};
    for (std::size_t j = 0; j + 1 < n; ++j) {
        const std::int64_t d =
            std::int64_t{static_cast<std::int32_t>(w[j + 1])} - static_cast<std::int32_t>(w[j]);
        for (unsigned b = 0; b < 33; ++b)
            if ((static_cast<std::uint64_t>(d) >> b) & 1u) dbp[b] |= std::uint64_t{1} << j;
    }
    for (unsigned b = 0; b < 33; ++b) dbx[b] = b == 32 ? dbp[32] : (dbp[b] ^ dbp[b + 1]);
    const std::uint64_t full = (std::uint64_t{1} << (n - 1)) - 1;
    auto flush = [&](unsigned run) {
        if (run == 1) out += "001";
        if (run >= 2) out += "01" + bin(run - 2, 5);
    };
    unsigned run = 0;
    for (int b = 32; b >= 0; --b) {
        const std::uint64_t x = dbx[static_cast<std::size_t>(b)];
        if (x == 0) {
            ++run;
            continue;
        }
        flush(run);
        run = 0;
        int ones = 0, low = -1;
        for (unsigned j = 0; j < n - 1; ++j)
            if ((x >> j) & 1u) {
                ++ones;
                if (low < 0) low = static_cast<int>(j);
            }
        const bool adjacent = ones == 2 && ((x >> (low + 1)) & 1u);
        const bool zero_dbp = dbp[static_cast<std::size_t>(b)] == 0;
        if (x == full)
            out += "00000";
        else if (one_bit_first && adjacent)
            out += "00010" + bin(static_cast<unsigned>(low), pw);
        else if (one_bit_first && ones == 1)
            out += "00011" + bin(static_cast<unsigned>(low), pw);
        else if (zero_dbp)
            out += "00001";
        else if (adjacent)
            out.append("00010").append(bin(static_cast<unsigned>(low), pw));
        else if (ones == 1)
            out.append("00011").append(bin(static_cast<unsigned>(low), pw));
        else
            out.append("1").append(bin(x, static_cast<unsigned>(n - 1)));
    }
    flush(run);
    return out;
}

// Structured line generators (the shapes BPC is meant for and the ones that stress it).
words_t generate(memsub::xoshiro256ss& rng, std::size_t n, unsigned kind) {
    words_t w(n);
    auto any = [&] { return static_cast<std::uint32_t>(rng()); };
    switch (kind % 10) {
    case 0:
        for (auto& x : w) x = any();
        break; // random
    case 1:
        std::fill(w.begin(), w.end(), rng.below(4) == 0 ? 0u : any());
        break; // zero/repeat
    case 2: {  // arithmetic
        const std::uint32_t base = any(), stride = static_cast<std::uint32_t>(rng.below(64)) - 32;
        for (std::size_t i = 0; i < n; ++i) w[i] = base + stride * static_cast<std::uint32_t>(i);
        break;
    }
    case 3: { // smooth random walk with small steps, occasional outlier
        std::uint32_t v = any() >> static_cast<unsigned>(rng.below(32));
        for (auto& x : w) {
            v += static_cast<std::uint32_t>(rng.below(17)) - 8;
            x = rng.below(16) == 0 ? any() : v;
        }
        break;
    }
    case 4: // 64-bit pointers into one region
        for (std::size_t i = 0; i + 1 < n; i += 2) {
            const std::uint64_t p = 0x00007F3A12340000ULL + 8 * rng.below(4096);
            w[i] = static_cast<std::uint32_t>(p);
            w[i + 1] = static_cast<std::uint32_t>(p >> 32);
        }
        break;
    case 5: { // floats of a smooth function
        const float f0 = static_cast<float>(rng.uniform() * 100.0);
        for (std::size_t i = 0; i < n; ++i) {
            const float f = f0 + 0.25f * static_cast<float>(i);
            std::memcpy(&w[i], &f, 4);
        }
        break;
    }
    case 6: // sparse: mostly zero
        for (auto& x : w) x = rng.below(6) == 0 ? any() >> static_cast<unsigned>(rng.below(32)) : 0;
        break;
    case 7: { // sign-extension boundaries and extreme deltas
        static constexpr std::uint32_t edge[] = {
            0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0,   1,      7,           0xFFFFFFF8u,
            8,           0xFFFFFF80u, 127,         128, 0x7FFF, 0xFFFF8000u, 0x8000};
        for (auto& x : w) x = edge[rng.below(std::size(edge))];
        break;
    }
    case 8: // small signed integers
        for (auto& x : w)
            x = static_cast<std::uint32_t>(static_cast<std::int32_t>(rng.below(256)) - 128);
        break;
    default: // a single set bit walking
        for (std::size_t i = 0; i < n; ++i) w[i] = rng.below(2) ? (1u << rng.below(32)) : w[i];
        break;
    }
    return w;
}

void check_round_trip(const mc::bpc& c, const std::vector<std::byte>& line) {
    const mc::compressed_line z = c.compress(line);
    REQUIRE(z.bits == c.size_bits(line));
    std::array<std::byte, 128> back{};
    const std::span<std::byte> out(back.data(), line.size());
    const mc::decode_result r = c.decompress(z, out);
    REQUIRE(r.ok());
    REQUIRE(std::equal(line.begin(), line.end(), back.begin()));
}

} // namespace

static_assert(mc::compressor<mc::bpc>);
static_assert(mc::invertible_compressor<mc::bpc>);

TEST_CASE("bpc: compressors.md §4.2 worked vectors (128B lines)") {
    const mc::bpc c(mc::bpc::params{.line_bytes = 128});
    CHECK(c.position_bits() == 5);

    words_t zero(32, 0);
    CHECK(c.size_bits(to_line(zero)) == 10);
    CHECK(bits_of(c.compress(to_line(zero))) == "000" + std::string("01") + "11111");

    words_t rep(32, 0x12345678u);
    CHECK(c.size_bits(to_line(rep)) == 40);

    words_t ramp(32);
    for (std::uint32_t i = 0; i < 32; ++i) ramp[i] = i;
    CHECK(c.size_bits(to_line(ramp)) == 15);
    CHECK(bits_of(c.compress(to_line(ramp))) == "000" + std::string("01") + bin(30, 5) + "00000");

    words_t stride(32);
    for (std::uint32_t i = 0; i < 32; ++i) stride[i] = 1000 + 4 * i;
    CHECK(c.size_bits(to_line(stride)) == 39);
    CHECK(bits_of(c.compress(to_line(stride))) ==
          "011" + bin(1000, 16) + "01" + bin(28, 5) + "00000" + "00000" + "001");

    words_t outlier = stride;
    outlier[10] += 1u << 20;
    CHECK(c.size_bits(to_line(outlier)) == 71);
    CHECK(reference_encode(outlier).size() == 71);
    // Negative test of the priority rule: one-bit classes before zero-DBP would give 76 bits.
    CHECK(reference_encode(outlier, true).size() == 76);
    CHECK(bits_of(c.compress(to_line(outlier))) == reference_encode(outlier));

    for (const auto* v : {&zero, &rep, &ramp, &stride, &outlier}) check_round_trip(c, to_line(*v));
}

TEST_CASE("bpc: symbol widths for 32B and 64B lines (generalisation of §1.4)") {
    const mc::bpc c32(mc::bpc::params{.line_bytes = 32});
    const mc::bpc c64(mc::bpc::params{.line_bytes = 64});
    CHECK(c32.position_bits() == 3);
    CHECK(c64.position_bits() == 4);
    // All-zero: 3 + 7 bits at every size.
    CHECK(c32.size_bits(to_line(words_t(8, 0))) == 10);
    CHECK(c64.size_bits(to_line(words_t(16, 0))) == 10);
    // A raw plane is 1 + (n−1) bits: random words on 32B lines.
    words_t w{0x80000000u, 0x7FFFFFFFu, 0x80000000u, 0x7FFFFFFFu,
              0x80000000u, 0x7FFFFFFFu, 0x80000000u, 0x7FFFFFFFu};
    CHECK(c32.size_bits(to_line(w)) == reference_encode(w).size());
    CHECK(bits_of(c32.compress(to_line(w))) == reference_encode(w));
    // The size never exceeds the worst case of §1.4: raw base and 33 raw planes.
    memsub::xoshiro256ss rng(7);
    for (int i = 0; i < 2000; ++i) {
        const words_t r = generate(rng, 8, 0);
        CHECK(c32.size_bits(to_line(r)) <= 33u + 33u * 8u);
    }
}

TEST_CASE("bpc: the fast transform equals the scalar reference bit for bit") {
    memsub::xoshiro256ss rng(2024);
    for (int it = 0; it < 20000; ++it) {
        std::array<std::uint32_t, 32> m, r;
        for (auto& x : m)
            x = static_cast<std::uint32_t>(rng()) & (rng.below(2) ? ~0u : 0x00FF00F1u);
        r = m;
        mc::detail::transpose32(m.data());
        mc::detail::transpose32_reference(r.data());
        REQUIRE(m == r);
    }
    for (const std::size_t n : {std::size_t{8}, std::size_t{16}, std::size_t{32}}) {
        for (int it = 0; it < 30000; ++it) {
            const words_t w = generate(rng, n, static_cast<unsigned>(it));
            mc::detail::bpc_planes fast, ref;
            mc::detail::bpc_transform(std::span<const std::uint32_t>(w), fast);
            mc::detail::bpc_transform_reference(std::span<const std::uint32_t>(w), ref);
            REQUIRE(fast == ref);
            words_t back_fast(n), back_ref(n);
            mc::detail::bpc_inverse(fast.dbp, w[0], back_fast);
            mc::detail::bpc_inverse_reference(ref.dbp, w[0], back_ref);
            REQUIRE(back_fast == w);
            REQUIRE(back_ref == w);
        }
    }
}

TEST_CASE("bpc: payload equals the independent reference encoder (all line sizes)") {
    memsub::xoshiro256ss rng(99);
    for (const std::uint32_t L : {32u, 64u, 128u}) {
        const mc::bpc c(mc::bpc::params{.line_bytes = L});
        for (int it = 0; it < 20000; ++it) {
            const words_t w = generate(rng, L / 4, static_cast<unsigned>(it));
            const auto line = to_line(w);
            const std::string ref = reference_encode(w);
            const mc::compressed_line z = c.compress(line);
            REQUIRE(z.bits == ref.size());
            REQUIRE(bits_of(z) == ref);
        }
    }
}

TEST_CASE("bpc: round trip and size_bits == compressed bits on 1 050 000 structured lines") {
    memsub::xoshiro256ss rng(12345);
    std::uint64_t lines = 0;
    for (const std::uint32_t L : {32u, 64u, 128u}) {
        for (const auto codes :
             {mc::bpc::symbol_codes::spec, mc::bpc::symbol_codes::authors_comment}) {
            const mc::bpc c(mc::bpc::params{.line_bytes = L, .codes = codes});
            const int count =
                memsub_test::scaled(codes == mc::bpc::symbol_codes::spec ? 320000 : 30000);
            std::array<std::byte, 128> back{};
            for (int it = 0; it < count; ++it) {
                const auto line = to_line(generate(rng, L / 4, static_cast<unsigned>(it)));
                const mc::compressed_line z = c.compress(line);
                const std::span<std::byte> out(back.data(), L);
                if (z.bits != c.size_bits(line) || !c.decompress(z, out) ||
                    !std::equal(line.begin(), line.end(), back.begin()))
                    FAIL("round trip failed at line ", it, " of size ", L);
                ++lines;
            }
        }
    }
    CHECK(lines ==
          3 * static_cast<std::uint64_t>(memsub_test::scaled(320000) + memsub_test::scaled(30000)));
    if (memsub_test::full_scale) CHECK(lines == 1050000);
}

TEST_CASE("bpc: both symbol-code assignments give identical sizes, different bits") {
    memsub::xoshiro256ss rng(5);
    const mc::bpc a(mc::bpc::params{.line_bytes = 128});
    const mc::bpc b(
        mc::bpc::params{.line_bytes = 128, .codes = mc::bpc::symbol_codes::authors_comment});
    words_t ramp(32);
    for (std::uint32_t i = 0; i < 32; ++i) ramp[i] = i;
    CHECK(a.size_bits(to_line(ramp)) == b.size_bits(to_line(ramp)));
    CHECK(bits_of(a.compress(to_line(ramp))) != bits_of(b.compress(to_line(ramp))));
    // The all-ones plane is 00000 under the default codes and 00011 under the authors' comment.
    CHECK(bits_of(b.compress(to_line(ramp))).substr(10) == "00011");
    for (int it = 0; it < 5000; ++it) {
        const auto line = to_line(generate(rng, 32, static_cast<unsigned>(it)));
        REQUIRE(a.size_bits(line) == b.size_bits(line));
    }
}

TEST_CASE("bpc: real files and generated arrays round trip (all line sizes)") {
    const memsub_test::real_and_generated corpus(4 << 20);
    const auto& sets = corpus.sets;
    REQUIRE(corpus.real_bytes >= (1u << 20)); // the test executable and its runtime libraries
    const mc::bpc c32(mc::bpc::params{.line_bytes = 32}), c64(mc::bpc::params{.line_bytes = 64}),
        c128(mc::bpc::params{.line_bytes = 128});
    std::uint64_t lines = 0, bits128 = 0;
    for (const auto& set : sets) {
        CAPTURE(set.name);
        const std::byte* p = set.bytes.data();
        for (std::size_t off = 0; off + 128 <= set.bytes.size(); off += 128) {
            const std::span<const std::byte> l(p + off, 128);
            check_round_trip(c128, {l.begin(), l.end()});
            check_round_trip(c64, {l.begin(), l.begin() + 64});
            check_round_trip(c32, {l.begin() + 64, l.begin() + 96});
            bits128 += c128.size_bits(l);
            ++lines;
        }
    }
    MESSAGE("real files + arrays: ", lines, " lines, BPC 128B payload bits: ", bits128);
    CHECK(lines > 0);
}

TEST_CASE("bpc: loose band of compressors.md §4.1 — BPC >= BDI on a synthetic "
          "integer array") {
    // "a synthetic integer-array workload should put BPC ≥ BDI" (aggregate ratios, §2 stored
    // sizes with the CS3 default segments, both line sizes of the papers). BPC codes deltas of
    // 32-bit words (§1.4), so the workload is a 32-bit array (a 64-bit one alternates low and
    // high words, which BPC is not designed for).
    for (const auto& a : memsub_test::generated_arrays(512 << 10)) {
        if (a.name != "sorted int32") continue;
        for (const std::uint32_t L : {64u, 128u}) {
            const mc::bpc b{{.line_bytes = L}};
            const mc::bdi d{{.line_bytes = L}};
            const mc::storage_rule rule = mc::default_storage_rule(L);
            mc::ratio_accumulator rb{rule}, rd{rule};
            for (std::size_t off = 0; off + L <= a.bytes.size(); off += L) {
                const std::span<const std::byte> l(a.bytes.data() + off, L);
                rb.add(mc::stored_size_of(b.size_bits(l), rule), rule);
                rd.add(mc::stored_size_of(d.size_bits(l), rule), rule);
            }
            CAPTURE(a.name);
            CAPTURE(L);
            MESSAGE(a.name << ", " << L << "B lines: BPC " << rb.ratio() << ", BDI " << rd.ratio());
            CHECK(rb.ratio() >= rd.ratio());
            CHECK(rb.ratio() > 1.5); // integer arrays compress
        }
    }
}

TEST_CASE("bpc: truncated, over-long and corrupt payloads are reported, never trusted") {
    memsub::xoshiro256ss rng(77);
    for (const std::uint32_t L : {32u, 64u, 128u}) {
        const mc::bpc c(mc::bpc::params{.line_bytes = L});
        for (int it = 0; it < 400; ++it) {
            const auto line = to_line(generate(rng, L / 4, static_cast<unsigned>(it)));
            const mc::compressed_line z = c.compress(line);
            // Canaries around the output detect any write outside the line.
            std::array<std::byte, 128 + 32> guard;
            guard.fill(std::byte{0xA5});
            const std::span<std::byte> out(guard.data() + 16, L);
            for (std::uint32_t t = 0; t < z.bits; ++t) {
                const mc::decode_result r = c.decompress(mc::compressed_view{z.data(), t}, out);
                REQUIRE(r.status == mc::decode_status::truncated);
                REQUIRE(r.bit_offset <= t);
            }
            // One bit too many (the payload array has room): trailing bits.
            const mc::decode_result tr = c.decompress(
                mc::compressed_view{std::span<const std::byte>(z.payload), z.bits + 1}, out);
            CHECK(tr.status == mc::decode_status::trailing_bits);
            CHECK(tr.bit_offset == z.bits);
            // Every single-bit flip: an error with an in-range offset, or some line.
            for (std::uint32_t bit = 0; bit < z.bits; ++bit) {
                mc::compressed_line f = z;
                f.payload[bit / 8] ^= static_cast<std::byte>(0x80u >> (bit % 8));
                const mc::decode_result r = c.decompress(f, out);
                if (!r) REQUIRE(r.bit_offset <= z.bits);
            }
            for (std::size_t i = 0; i < 16; ++i) {
                REQUIRE(guard[i] == std::byte{0xA5});
                REQUIRE(guard[16 + L + i] == std::byte{0xA5});
            }
        }
    }
}

TEST_CASE("bpc: specific invalid codes") {
    const mc::bpc c(mc::bpc::params{.line_bytes = 128});
    std::array<std::byte, 128> out{};
    auto decode = [&](const std::string& bits) {
        std::array<std::byte, 64> buf{};
        for (std::size_t i = 0; i < bits.size(); ++i)
            if (bits[i] == '1') buf[i / 8] |= static_cast<std::byte>(0x80u >> (i % 8));
        return c.decompress(mc::compressed_view{std::span<const std::byte>(buf),
                                                static_cast<std::uint32_t>(bits.size())},
                            out);
    };
    CHECK(decode("0000111111").ok()); // the all-zero line
    // A zero run of 33 planes after one plane has been coded: longer than the 32 planes left.
    auto r = decode("000"
                    "001"
                    "0111111");
    CHECK(r.status == mc::decode_status::invalid_code);
    CHECK(r.bit_offset == 6);
    // Single one at position 31 (n−1 = 31 bits: positions 0…30 exist).
    r = decode("000"
               "00011"
               "11111"
               "0111111");
    CHECK(r.status == mc::decode_status::invalid_code);
    CHECK(r.bit_offset == 8);
    // Two adjacent ones with the lower at 30 would need bit 31.
    r = decode("000"
               "00010"
               "11110"
               "0111111");
    CHECK(r.status == mc::decode_status::invalid_code);
    CHECK(decode("000"
                 "00010"
                 "11101"
                 "0111110")
              .ok()); // lower at 29: bits 29, 30; run 32
    CHECK(decode("").status == mc::decode_status::truncated);
    // View and output checks.
    const mc::compressed_line z = c.compress(std::span<const std::byte>(out));
    CHECK(c.decompress(z, std::span<std::byte>(out.data(), 64)).status ==
          mc::decode_status::wrong_output_size);
    mc::compressed_view v = z;
    v.encoding = 3;
    CHECK(c.decompress(v, out).status == mc::decode_status::unknown_encoding);
    v = z;
    v.bits = static_cast<std::uint32_t>(v.payload.size() * 8 + 1);
    CHECK(c.decompress(v, out).status == mc::decode_status::bad_view);
    CHECK_THROWS_AS(mc::decompress_or_throw(c, mc::compressed_view{v.payload, 3}, out),
                    memsub::input_error);
}

TEST_CASE("bpc: params are validated") {
    CHECK_THROWS_AS(mc::bpc(mc::bpc::params{.line_bytes = 48}), memsub::config_error);
    CHECK_THROWS_AS(mc::bpc(mc::bpc::params{.line_bytes = 256}), memsub::config_error);
    CHECK_NOTHROW(mc::bpc(mc::bpc::params{.line_bytes = 32}));
    const mc::bpc c;
    CHECK(c.name() == "bpc");
    CHECK(c.line_bytes() == 64);
    CHECK(c.decompress_latency_cycles() == 11);
    CHECK(c.metadata_bits() == 0);
}
