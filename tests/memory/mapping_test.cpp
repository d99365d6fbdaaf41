// Tests of the bit-field address mapper: field placement against hand-computed layouts, map /
// unmap round trips (property), XOR hashing as a bijection, presets, and configuration errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/dram_timing.hpp>

using memsub::byte_address;
using memsub::config_error;
using namespace memsub::memory;

namespace {
// Reference decode: walk an MSB→LSB list of (kind, bits) fields by hand, naively.
dram_address naive_decode(std::uint64_t a, std::uint32_t offset_bits,
                          std::initializer_list<address_field> fields) {
    std::uint64_t rest = a >> offset_bits;
    std::uint32_t v[6] = {};
    std::uint32_t filled[6] = {};
    std::vector<address_field> f(fields);
    for (auto it = f.rbegin(); it != f.rend(); ++it) {
        const std::uint64_t piece = rest & ((std::uint64_t{1} << it->bits) - 1);
        rest >>= it->bits;
        const auto k = static_cast<std::size_t>(it->kind);
        v[k] |= static_cast<std::uint32_t>(piece << filled[k]);
        filled[k] += it->bits;
    }
    return {v[0], v[1], v[2], v[3], v[4], v[5]};
}
} // namespace

TEST_CASE("rorabgbachco on DDR4-2400 places fields MSB to LSB") {
    const auto m = bit_field_mapping::from_order("rorabgbachco", presets::ddr4_2400);
    const auto& o = m.organisation();
    CHECK(o.channels == 1);
    CHECK(o.bank_groups == 4);
    CHECK(o.banks_per_group == 4);
    CHECK(o.columns == 128); // 8 KB row / 64 B bursts
    CHECK(o.burst_bytes == 64);
    CHECK(o.rows == 65536);
    // Offset 6 bits, column 7 bits (6..12), bank 2 bits (13..14), bank group 2 (15..16),
    // rank 0, row 16 bits (17..32).
    const std::uint64_t addr =
        (std::uint64_t{0x1234} << 17) | (2u << 15) | (3u << 13) | (0x55u << 6) | 0x3fu;
    const dram_address d = m.map(byte_address{addr});
    CHECK(d.row == 0x1234);
    CHECK(d.bank_group == 2);
    CHECK(d.bank == 3);
    CHECK(d.column == 0x55);
    CHECK(d.channel == 0);
    CHECK(m.unmap(d).value == (addr & ~std::uint64_t{0x3f}));
}

TEST_CASE("Ramulator-style names are case-insensitive and order matters") {
    dram_timing flat_hbm = presets::hbm2_4gb_x128; // 16 banks without bank groups
    flat_hbm.bank_groups = 1;
    flat_hbm.banks_per_group = 16;
    const auto a = bit_field_mapping::from_order("RoBaRaCoCh", flat_hbm);
    const auto b = bit_field_mapping::from_order("robaracoch", flat_hbm);
    CHECK(a.organisation() == b.organisation());
    // HBM2: channel is the lowest field above the 64 B burst offset.
    for (std::uint32_t ch = 0; ch < 8; ++ch)
        CHECK(a.map(byte_address{std::uint64_t{ch} * 64}).channel == ch);
    // RoBaRaCoCh has no bank-group token: the preset has 4 bank groups, so it must throw.
    CHECK_THROWS_AS((void)bit_field_mapping::from_order("RoBaRaCoCh", presets::ddr4_2400),
                    config_error);
    CHECK_NOTHROW((void)bit_field_mapping::from_order("RoBgBaRaCoCh", presets::ddr4_2400));
}

TEST_CASE("map matches a naive decoder and unmap inverts it (property)") {
    memsub::xoshiro256ss rng(42);
    bit_field_mapping::params p;
    p.offset_bits = 5;
    p.fields = {{field_kind::row, 14},    {field_kind::column, 2},    {field_kind::bank, 3},
                {field_kind::channel, 2}, {field_kind::rank, 1},      {field_kind::channel, 1},
                {field_kind::column, 3},  {field_kind::bank_group, 1}};
    const bit_field_mapping m(p);
    CHECK(m.organisation().channels == 8);
    CHECK(m.organisation().columns == 32);
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t a = rng() & ((std::uint64_t{1} << 32) - 1);
        const dram_address d = m.map(byte_address{a});
        CHECK(d == naive_decode(a, 5,
                                {{field_kind::row, 14},
                                 {field_kind::column, 2},
                                 {field_kind::bank, 3},
                                 {field_kind::channel, 2},
                                 {field_kind::rank, 1},
                                 {field_kind::channel, 1},
                                 {field_kind::column, 3},
                                 {field_kind::bank_group, 1}}));
        CHECK(m.unmap(d).value == (a & ~std::uint64_t{31}));
    }
}

TEST_CASE("XOR bank and channel hashing are bijections that spread a bank's rows") {
    auto m = bit_field_mapping::from_order("rochrabgbaco", presets::hbm2_4gb_x128, 48, true, true);
    const auto plain = bit_field_mapping::from_order("rochrabgbaco", presets::hbm2_4gb_x128);
    memsub::xoshiro256ss rng(7);
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t a = (rng() & ((std::uint64_t{1} << 31) - 1)) & ~std::uint64_t{63};
        const dram_address d = m.map(byte_address{a});
        CHECK(m.unmap(d).value == a);
        const dram_address q = plain.map(byte_address{a});
        CHECK(d.row == q.row);
        CHECK(d.column == q.column);
        const std::uint32_t idx_plain = q.bank_group * 4 + q.bank;
        const std::uint32_t idx_hash = d.bank_group * 4 + d.bank;
        CHECK(idx_hash == (idx_plain ^ (q.row & 15)));
    }
    // The same (channel, bank) with 16 consecutive rows lands in 16 different banks.
    std::set<std::uint32_t> banks;
    for (std::uint32_t row = 0; row < 16; ++row) {
        const byte_address a = plain.unmap(dram_address{.row = row});
        const dram_address d = m.map(a);
        banks.insert(d.bank_group * 4 + d.bank);
    }
    CHECK(banks.size() == 16);
}

TEST_CASE("Kim et al. multi-GPU layout RW:CLH:BK:CT:VL:LC:CLL:BY ([MemNet] §3.4)") {
    const auto m = bit_field_mapping::kim_multi_gpu(presets::hmc_vault, 4, 4, 128);
    // BY 5 (32 B bursts) + CLL 2 = 7 bits = one 128 B line; LC 2, VL 4, CT 2, BK 4, CLH 1.
    CHECK(m.bits(field_kind::channel) == 8);
    CHECK(m.bits(field_kind::bank) == 4);
    CHECK(m.bits(field_kind::column) == 3);
    // Consecutive 128 B lines go to consecutive local HMCs (LC, channel bits 0..1).
    for (std::uint32_t line = 0; line < 4; ++line)
        CHECK(m.map(byte_address{line * 128ull}).channel == line);
    // The bytes of one line stay in one channel, columns 0..3.
    for (std::uint32_t b = 0; b < 4; ++b) {
        const auto d = m.map(byte_address{b * 32ull});
        CHECK(d.channel == 0);
        CHECK(d.column == b);
    }
    // Bits below CT total 13 >= 12: a 4 KB page never spans two clusters (decision G2.1,
    // docs/mechanisms/multi_module_gpu.md).
    for (std::uint64_t page = 0; page < 64; ++page) {
        const std::uint32_t cluster = m.map(byte_address{page * 4096}).channel >> 6;
        for (std::uint64_t off = 0; off < 4096; off += 128)
            CHECK((m.map(byte_address{page * 4096 + off}).channel >> 6) == cluster);
    }
    // Vault field: bits 9..12.
    CHECK(((m.map(byte_address{1ull << 9}).channel >> 2) & 15) == 1);
}

TEST_CASE("bad mapping configuration throws a clear config_error") {
    SUBCASE("non-power-of-two banks") {
        dram_timing t = presets::ddr3_1600_remap;
        t.banks_per_group = 6;
        try {
            (void)bit_field_mapping::from_order("rorabachco", t);
            FAIL("no throw");
        } catch (const config_error& e) {
            CHECK(e.parameter() == "banks_per_group");
            CHECK(e.value() == "6");
            CHECK(std::string(e.what()).find("power of two") != std::string::npos);
        }
    }
    SUBCASE("non-power-of-two channels") {
        dram_timing t = presets::hbm2_4gb_x128;
        t.channels = 3;
        CHECK_THROWS_AS((void)bit_field_mapping::from_order("rorabgbachco", t), config_error);
    }
    SUBCASE("mapping wider than the address") {
        try {
            (void)bit_field_mapping::from_order("rorabgbachco", presets::ddr4_2400, 32);
            FAIL("no throw");
        } catch (const config_error& e) {
            CHECK(e.parameter() == "fields");
            CHECK(std::string(e.what()).find("wider than the address") != std::string::npos);
        }
        bit_field_mapping::params p;
        p.offset_bits = 6;
        p.address_bits = 20;
        p.fields = {{field_kind::row, 15}};
        CHECK_THROWS_AS(bit_field_mapping{p}, config_error);
    }
    SUBCASE("unknown, repeated or missing tokens") {
        CHECK_THROWS_AS((void)bit_field_mapping::from_order("roxxbgbachco", presets::ddr4_2400),
                        config_error);
        CHECK_THROWS_AS((void)bit_field_mapping::from_order("rorobgbachco", presets::ddr4_2400),
                        config_error);
        CHECK_THROWS_AS((void)bit_field_mapping::from_order("robgbaco", presets::hbm2_4gb_x128),
                        config_error);
        CHECK_THROWS_AS((void)bit_field_mapping::from_order("rorabgbachc", presets::ddr4_2400),
                        config_error);
    }
    SUBCASE("too many banks per channel") {
        bit_field_mapping::params p;
        p.fields = {{field_kind::row, 10}, {field_kind::bank, 5}, {field_kind::rank, 2}};
        CHECK_THROWS_AS(bit_field_mapping{p}, config_error);
    }
    SUBCASE("byte offset of 32 bits or more (the burst size would overflow)") {
        for (const std::uint32_t off : {31u, 32u, 40u, 63u}) {
            CAPTURE(off);
            bit_field_mapping::params p;
            p.offset_bits = off;
            p.address_bits = 64;
            p.fields = {{field_kind::row, 1}};
            if (off <= 31) {
                CHECK(bit_field_mapping{p}.organisation().burst_bytes == 1u << 31);
                continue;
            }
            try {
                (void)bit_field_mapping{p};
                FAIL("no throw");
            } catch (const config_error& e) {
                CHECK(e.parameter() == "offset_bits");
            }
        }
    }
    SUBCASE("more than 16 fields is a config_error, not bad_alloc") {
        bit_field_mapping::params p;
        p.offset_bits = 2;
        for (int i = 0; i < 17; ++i) p.fields.push_back({field_kind::column, 1});
        try {
            (void)bit_field_mapping{p};
            FAIL("no throw");
        } catch (const config_error& e) {
            CHECK(e.parameter() == "fields");
            CHECK(e.value() == "17");
        }
        p.fields.resize(16); // 16 single-bit pieces of one column field are fine
        CHECK(bit_field_mapping{p}.organisation().columns == 1u << 16);
    }
}

TEST_CASE("timing presets validate and carry the seed values") {
    for (const dram_timing* t : {&presets::ddr3_1600_remap, &presets::ddr4_2400,
                                 &presets::hbm2_4gb_x128, &presets::hmc_vault})
        CHECK_NOTHROW(t->validate());
    // ReMAP Table 2.3: tRP = tCL = tRCD = 13.75 ns, 8 banks, 8 KB rows.
    const auto& d3 = presets::ddr3_1600_remap;
    CHECK(d3.tCL * d3.tck_ns == doctest::Approx(13.75));
    CHECK(d3.tRCD * d3.tck_ns == doctest::Approx(13.75));
    CHECK(d3.tRP * d3.tck_ns == doctest::Approx(13.75));
    CHECK(d3.banks_per_channel() == 8);
    CHECK(d3.row_bytes == 8192);
    CHECK(d3.to_cycles(13.75) == 11);
    // [MemNet] HMC vault, in tCK = 1.25 ns.
    const auto& h = presets::hmc_vault;
    CHECK(h.tRP == 11);
    CHECK(h.tCCD_S == 4);
    CHECK(h.tRCD == 11);
    CHECK(h.tCL == 11);
    CHECK(h.tWR == 12);
    CHECK(h.tRAS == 22);
    CHECK(h.banks_per_channel() == 16);
    // HBM2: 8 ch × 128 bit at 2 Gb/s per pin = 256 GB/s per stack ([DRAMSim3] HBM2_4Gb_x128).
    const auto& hb = presets::hbm2_4gb_x128;
    CHECK(hb.channels * hb.peak_gb_per_s() == doctest::Approx(256.0));
    CHECK(hb.burst_bytes() == 64);
    // DDR4-2400: 19.2 GB/s per 64-bit channel.
    CHECK(presets::ddr4_2400.peak_gb_per_s() == doctest::Approx(19.2).epsilon(0.01));
    dram_timing bad = presets::ddr4_2400;
    bad.tRFC = bad.tREFI;
    CHECK_THROWS_AS(bad.validate(), config_error);
}
