// Tests of the compression family's foundations: the concepts (positive and negative), the bit
// streams, the §2 stored-size rules, and the identity compressor.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/fpc.hpp>
#include <memsub/compression/none.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/compression/stored_size.hpp>
#include <memsub/core/rng.hpp>

namespace mc = memsub::compression;
using mc::detail::bit_reader;
using mc::detail::bit_writer;

namespace {
// Negative archetypes: each misses exactly one requirement.
struct no_params_c {
    std::string_view name() const { return "x"; }
    std::uint32_t line_bytes() const { return 64; }
    std::uint32_t size_bits(std::span<const std::byte>) const noexcept { return 0; }
    std::uint32_t metadata_bits() const noexcept { return 0; }
    std::uint32_t compress_latency_cycles() const noexcept { return 0; }
    std::uint32_t decompress_latency_cycles() const noexcept { return 0; }
    double compress_energy_nj() const noexcept { return 0; }
    double decompress_energy_nj() const noexcept { return 0; }
};
struct throwing_size_c : no_params_c {
    struct params {
        std::uint32_t line_bytes = 64;
    };
    explicit throwing_size_c(const params&) {}
    std::uint32_t size_bits(std::span<const std::byte>) const { return 0; } // not noexcept
};
struct size_only_c : no_params_c {
    struct params {
        std::uint32_t line_bytes = 64;
    };
    explicit size_only_c(const params&) {}
};
} // namespace

TEST_CASE("concept: positive and negative archetypes") {
    static_assert(mc::invertible_compressor<mc::none>);
    static_assert(!mc::compressor<no_params_c>);
    static_assert(!mc::compressor<throwing_size_c>);
    static_assert(mc::compressor<size_only_c>);
    static_assert(!mc::invertible_compressor<size_only_c>);
    static_assert(sizeof(mc::compressed_line) <= 280);
}

TEST_CASE("bit_writer/bit_reader: MSB-first layout") {
    std::array<std::byte, 8> buf{};
    bit_writer w{buf};
    w.put(0b101, 3);
    w.put(0xF, 4);
    w.put(1, 1);
    w.put(0xABCD, 16);
    w.put(0b01, 2);
    CHECK(w.finish() == 26);
    CHECK(buf[0] == std::byte{0b10111111});
    CHECK(buf[1] == std::byte{0xAB});
    CHECK(buf[2] == std::byte{0xCD});
    CHECK(buf[3] == std::byte{0b01000000}); // zero padded

    bit_reader r{buf, 26};
    std::uint64_t v = 0;
    REQUIRE(r.read(3, v));
    CHECK(v == 0b101);
    CHECK(r.peek(4) == 0xF);
    REQUIRE(r.read(5, v));
    CHECK(v == 0x1F);
    REQUIRE(r.read(16, v));
    CHECK(v == 0xABCD);
    CHECK(r.remaining() == 2);
    CHECK(r.peek(5) == 0b01000); // zero padded past the end
    CHECK_FALSE(r.read(3, v));   // truncation reported, no move
    CHECK(r.position() == 24);
    REQUIRE(r.read(2, v));
    CHECK(v == 1);
    CHECK(r.at_end());
}

TEST_CASE("bit streams: random round trip against a naive bit vector") {
    memsub::xoshiro256ss rng{42};
    for (int trial = 0; trial < 2000; ++trial) {
        std::array<std::byte, 64> buf{};
        bit_writer w{buf};
        std::vector<bool> ref;
        std::vector<std::pair<std::uint64_t, unsigned>> fields;
        while (true) {
            const unsigned n = static_cast<unsigned>(rng() % 65);
            if (ref.size() + n > 512) break;
            std::uint64_t val = rng();
            if (n < 64) val &= (std::uint64_t{1} << n) - 1;
            w.put(val, n);
            for (unsigned i = n; i-- > 0;) ref.push_back(((val >> i) & 1) != 0);
            fields.emplace_back(val, n);
        }
        const std::uint32_t bits = w.finish();
        REQUIRE(bits == ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i)
            REQUIRE((((std::to_integer<unsigned>(buf[i / 8]) >> (7 - i % 8)) & 1) != 0) == ref[i]);
        // a reader over exactly the used bytes (exercises the slow tail path)
        bit_reader r{std::span<const std::byte>{buf.data(), (bits + 7) / 8}, bits};
        for (auto [val, n] : fields) {
            std::uint64_t got = 0;
            REQUIRE(r.read_wide(n, got));
            REQUIRE(got == val);
        }
        CHECK(r.at_end());
    }
}

TEST_CASE("bit_reader: never reads past the byte span even if bits says so") {
    std::array<std::byte, 2> buf{std::byte{0xFF}, std::byte{0x00}};
    bit_reader r{buf, 1000};
    CHECK(r.size() == 16);
    std::uint64_t v = 0;
    CHECK_FALSE(r.read(17, v));
    CHECK(r.read(16, v));
    CHECK(v == 0xFF00);
}

TEST_CASE("stored_size_of: CS2-CS5, CS7") {
    const mc::storage_rule cpu{.line_bytes = 64, .segment_bytes = 8};
    // FPC worked vector: 110 bits -> 14 B -> 2 segments of 8 B (docs/mechanisms/compressors.md
    // §4.2)
    auto s = mc::stored_size_of(110, cpu);
    CHECK(s.payload_bytes == 14);
    CHECK(s.segments == 2);
    CHECK(s.stored_bytes == 16);
    CHECK_FALSE(s.raw);
    // CS2 ceil, never floor (P-G1)
    CHECK(mc::bytes_for_bits(129) == 17);
    CHECK(mc::bytes_for_bits(0) == 0);
    // docs/mechanisms/compressors.md §2.2 B2: Base8-Δ1 17 B -> 3 segments
    CHECK(mc::stored_size_of(17 * 8, cpu).segments == 3);
    // CS4: 57 B -> 8 segments = L -> raw
    s = mc::stored_size_of(57 * 8, cpu);
    CHECK(s.raw);
    CHECK(s.stored_bytes == 64);
    CHECK(s.segments == 8);
    // CS4: FPC worst case 560 bits > 512 -> raw
    CHECK(mc::stored_size_of(560, cpu).raw);
    // 56 B saves one segment
    CHECK_FALSE(mc::stored_size_of(56 * 8, cpu).raw);
    // CS3 GPU: 128B lines, 32B segments: 40 B -> 2 segments; 97 B -> raw
    const mc::storage_rule gpu{.line_bytes = 128, .segment_bytes = 32};
    CHECK(mc::stored_size_of(40 * 8, gpu).segments == 2);
    CHECK(mc::stored_size_of(97 * 8, gpu).raw);
    CHECK(mc::stored_size_of(96 * 8, gpu).stored_bytes == 96);
    // CS5 threshold 50 %: 33 B raw, 32 B kept
    mc::storage_rule half = cpu;
    half.threshold_percent = 50;
    CHECK(mc::stored_size_of(33 * 8, half).raw);
    CHECK_FALSE(mc::stored_size_of(32 * 8, half).raw);
    // CS7 zero payload
    CHECK(mc::stored_size_of(0, cpu).segments == 0);
    mc::storage_rule one = cpu;
    one.zero_payload_is_tag_only = false;
    CHECK(mc::stored_size_of(0, one).segments == 1);
    // S = 1 (SC², byte aligned): 50 bits -> 7 B
    CHECK(mc::stored_size_of(50, {.line_bytes = 32, .segment_bytes = 1}).stored_bytes == 7);
    // size field: 8 segments -> 3 + 1 bits
    CHECK(mc::size_field_bits(cpu) == 4);
    CHECK(mc::size_field_bits(gpu) == 3);
}

TEST_CASE("stored_size_of: property against a naive model") {
    for (std::uint32_t L : {32u, 64u, 128u})
        for (std::uint32_t S = 1; S <= L; S *= 2)
            for (std::uint32_t bits = 0; bits <= 8 * L + 100; ++bits) {
                const mc::storage_rule rule{.line_bytes = L, .segment_bytes = S};
                const auto s = mc::stored_size_of(bits, rule);
                const std::uint32_t bytes = (bits + 7) / 8;
                std::uint32_t segs = 0;
                while (segs * S < bytes) ++segs;
                const bool raw = bits > 8 * L || segs * S >= L;
                REQUIRE(s.raw == raw);
                REQUIRE(s.stored_bytes == (raw ? L : segs * S));
                REQUIRE(s.stored_bytes <= L);
            }
}

TEST_CASE("storage_rule::validate and ratio_accumulator") {
    CHECK_THROWS_AS((mc::storage_rule{.line_bytes = 48}.validate()), memsub::config_error);
    CHECK_THROWS_AS((mc::storage_rule{.line_bytes = 64, .segment_bytes = 3}.validate()),
                    memsub::config_error);
    CHECK_THROWS_AS((mc::storage_rule{.line_bytes = 64, .segment_bytes = 128}.validate()),
                    memsub::config_error);
    CHECK_THROWS_AS((mc::storage_rule{.threshold_percent = 0}.validate()), memsub::config_error);
    CHECK_NOTHROW(mc::storage_rule{}.validate());

    mc::ratio_accumulator acc{8};
    acc.add(64, 16);
    acc.add(64, 0); // tag-only line counted as 8 B
    acc.add(64, 64);
    CHECK(acc.ratio() == doctest::Approx(192.0 / 88.0)); // CS6: Σ/Σ, not a mean of ratios
    CHECK(mc::ratio_accumulator{}.ratio() == 1.0);
}

TEST_CASE("stored size: CS3 defaults per line size, CS7 floor of one segment") {
    // CS3: 8-byte segments for 64-byte CPU lines (and 32-byte ones), 32 B for 128-byte GPU lines
    CHECK(mc::default_segment_bytes(32) == 8);
    CHECK(mc::default_segment_bytes(64) == 8);
    CHECK(mc::default_segment_bytes(128) == 32);
    CHECK(mc::default_storage_rule(128).segment_bytes == 32);
    CHECK(mc::default_storage_rule(64) == mc::storage_rule{});
    // a rule left at segment_bytes = 0 uses the CS3 default of its line size
    const mc::storage_rule gpu{.line_bytes = 128};
    CHECK(gpu.segment() == 32);
    CHECK(gpu.segments_per_line() == 4);
    CHECK(gpu == mc::default_storage_rule(128));
    CHECK(mc::stored_size_of(40 * 8, gpu).stored_bytes == 64); // not 40 (8-byte segments)
    CHECK(mc::size_field_bits(gpu) == 3);
    CHECK_NOTHROW(gpu.validate());
    // SC² is byte-aligned; everything else takes the CS3 default of its line size
    const mc::sc2 sc{{.line_bytes = 128}};
    CHECK(mc::default_storage_rule(sc).segment() == 1);
    CHECK(mc::default_storage_rule(mc::fpc{{.line_bytes = 128}}).segment() == 32);
    CHECK(mc::default_storage_rule(mc::bdi{}) == mc::default_storage_rule(64));
    CHECK(mc::byte_aligned_storage_rule(32).segment() == 1);

    // CS7: a tag-only (0-byte) line counts as one segment of the rule it is stored under — for
    // add(s, rule) the rule's, not the accumulator's
    mc::ratio_accumulator acc; // default: one 8-byte segment
    acc.add(mc::stored_size_of(0, gpu), gpu);
    CHECK(acc.stored_bytes() == 32);
    CHECK(acc.original_bytes() == 128);
    acc.add(mc::stored_size_of(0, mc::byte_aligned_storage_rule(64)),
            mc::byte_aligned_storage_rule(64));
    CHECK(acc.stored_bytes() == 32 + 1);
    acc.add(64, 0); // no rule: the accumulator's floor, one 8-byte segment
    CHECK(acc.stored_bytes() == 32 + 1 + 8);
    mc::ratio_accumulator by_rule{gpu}; // floor = one segment of the rule
    by_rule.add(128, 0);
    CHECK(by_rule.ratio() == doctest::Approx(128.0 / 32.0));
    mc::ratio_accumulator zero_floor{0}; // 0 counts as 1 byte
    zero_floor.add(64, 0);
    CHECK(zero_floor.ratio() == doctest::Approx(64.0));
    // non-tag-only lines are counted as stored
    mc::ratio_accumulator plain;
    plain.add(mc::stored_size_of(110, mc::storage_rule{}), mc::storage_rule{});
    CHECK(plain.stored_bytes() == 16);
}

TEST_CASE("none: identity compressor round trip and errors") {
    CHECK_THROWS_AS(mc::none{{.line_bytes = 48}}, memsub::config_error);
    for (std::uint32_t L : {32u, 64u, 128u}) {
        const mc::none c{{.line_bytes = L}};
        std::vector<std::byte> line(L), out(L);
        for (std::uint32_t i = 0; i < L; ++i) line[i] = std::byte(i * 37 + 1);
        const auto cl = c.compress(line);
        CHECK(cl.bits == c.size_bits(line));
        CHECK(c.decompress(cl, out).ok());
        CHECK(out == line);
        // truncation at every byte boundary is an error; never a crash
        for (std::uint32_t b = 0; b < 8 * L; ++b) {
            const mc::compressed_view v{cl.data(), b};
            CHECK_FALSE(c.decompress(v, out).ok());
        }
        std::vector<std::byte> small(L - 1);
        CHECK(c.decompress(cl, small).status == mc::decode_status::wrong_output_size);
        CHECK_THROWS_AS(mc::decompress_or_throw(c, mc::compressed_view{cl.data(), 8}, out),
                        memsub::input_error);
    }
}

#include <memsub/compression/zero.hpp>

TEST_CASE("zero: zero blocks cost 0 bits (or 8), everything else is raw") {
    const mc::zero z{};
    std::vector<std::byte> line(64), out(64);
    CHECK(z.size_bits(line) == 0);
    auto cl = z.compress(line);
    CHECK(cl.encoding == mc::zero::encoding_zero);
    out[5] = std::byte{1};
    REQUIRE(z.decompress(cl, out).ok());
    CHECK(out == line);
    CHECK(z.metadata_bits() == 1);
    const mc::zero z8{{.zero_line_bits = 8}};
    CHECK(z8.size_bits(line) == 8);
    REQUIRE(z8.decompress(z8.compress(line), out).ok());
    line[63] = std::byte{7};
    CHECK(z.size_bits(line) == 512);
    cl = z.compress(line);
    CHECK(cl.encoding == mc::zero::encoding_raw);
    REQUIRE(z.decompress(cl, out).ok());
    CHECK(out == line);
    const std::array<std::byte, 1> nonzero{std::byte{3}};
    CHECK(z8.decompress(mc::compressed_view{nonzero, 8, mc::zero::encoding_zero}, out).status ==
          mc::decode_status::invalid_code);
    CHECK(z.decompress(mc::compressed_view{nonzero, 8, mc::zero::encoding_zero}, out).status ==
          mc::decode_status::trailing_bits);
    CHECK_THROWS_AS(mc::zero{{.zero_line_bits = 3}}, memsub::config_error);
}
