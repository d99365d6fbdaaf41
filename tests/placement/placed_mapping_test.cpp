// The placement stage in front of a partition's DRAM mapping (placement/placed_mapping.hpp):
// four partitions' FR-FCFS controllers (HBM2) share one first-touch table, held by reference,
// filled at run time; each controller decodes the partition-local address with an unchanged
// bit_field_mapping. With a stateless placement the pair is an invertible mapping.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>
#include <memsub/placement/all.hpp>

#include "../memory/helpers.hpp"

using memsub::byte_address;
using namespace memsub::placement;
namespace mm = memsub::memory;

namespace {

/// One HBM2 partition (8 channels, 4 × 4 banks, 16384 rows of 1 KiB, 64 B bursts): channels
/// interleave on 128 B (two bursts), above them the rest of the column, bank, bank group, row.
mm::bit_field_mapping partition_mapping() {
    using mm::field_kind;
    return mm::bit_field_mapping({.fields = {{field_kind::row, 14},
                                             {field_kind::bank_group, 2},
                                             {field_kind::bank, 2},
                                             {field_kind::column, 3},
                                             {field_kind::channel, 3},
                                             {field_kind::column, 1}},
                                  .offset_bits = 6});
}

using ft_mapping = placed_mapping<first_touch, mm::bit_field_mapping>;
using fg_mapping = placed_mapping<fine_grain_interleave, mm::bit_field_mapping>;
static_assert(mm::address_mapping<ft_mapping>);
static_assert(!mm::invertible_address_mapping<ft_mapping>); // a run-time table: no unmap
// Every controller takes the placed mapping (they need only address_mapping).
static_assert(mm::memory_controller<mm::fr_fcfs_controller<mm::open_page, ft_mapping>>);
static_assert(mm::memory_controller<mm::fcfs_controller<mm::closed_page, ft_mapping>>);
static_assert(mm::memory_controller<mm::partitioned_controller<mm::open_page, ft_mapping>>);
static_assert(mm::memory_controller<mm::hmc_vault_controller<fg_mapping>>);
static_assert(mm::diagnose_invertible_address_mapping<fg_mapping>());
static_assert(
    mm::diagnose_invertible_address_mapping<placed_mapping<random_page, mm::bit_field_mapping>>());

} // namespace

TEST_CASE("four partitions' controllers share one first-touch table") {
    first_touch ft({.partitions = 4,
                    .channels_per_partition = 8,
                    .page_bytes = 4096,
                    .granule_bytes = 128,
                    .partition_bytes = std::uint64_t{1} << 31,
                    .footprint_bytes = std::uint64_t{64} << 20});
    using controller = mm::fr_fcfs_controller<mm::open_page, ft_mapping>;
    std::vector<controller> partitions;
    partitions.reserve(4);
    for (std::uint32_t p = 0; p < 4; ++p)
        partitions.emplace_back(ft_mapping(ft, partition_mapping(), p),
                                controller::params{.timing = mm::presets::hbm2_4gb_x128});
    // The table is shared, not copied: every controller's mapping sees the same placement.
    for (const auto& c : partitions) CHECK(&c.mapping().placement() == &ft);

    // Two phases (kernels): module m first touches pages 64m … 64m + 63 (random lines), then
    // every module reads random lines of every module's pages. The host routes each request
    // by place() (PP1) to its partition's controller.
    memsub::xoshiro256ss rng(11);
    std::vector<std::vector<mm::mem_request>> queue(4);
    std::vector<location> where;
    std::vector<std::uint64_t> issued;
    std::uint64_t id = 0, local = 0, remote = 0;
    auto issue = [&](std::uint32_t module, std::uint64_t page, std::uint64_t cycle) {
        const std::uint64_t addr = (page * 4096) | (rng() % 64 * 64);
        const location l = ft.place(byte_address{addr}, module);
        (l.partition == module ? local : remote) += 1;
        queue[l.partition].push_back({.id = id++,
                                      .address = byte_address{addr},
                                      .requester = module,
                                      .arrival_cycle = cycle});
        where.push_back(l);
        issued.push_back(addr);
    };
    for (std::uint64_t i = 0; i < 256; ++i)
        for (std::uint32_t m = 0; m < 4; ++m) issue(m, 64 * m + i % 64, i * 4);
    CHECK(remote == 0); // first touch: every page went to its toucher's partition
    CHECK(ft.stats().pages == 256);
    for (std::uint64_t i = 0; i < 512; ++i)
        for (std::uint32_t m = 0; m < 4; ++m) issue(m, rng() % 256, 1024 + i * 4);
    // Random pages of all four modules: about 3/4 remote.
    CHECK(remote > 2048 * 0.70);
    CHECK(remote < 2048 * 0.80);

    std::uint64_t completed = 0;
    for (std::uint32_t p = 0; p < 4; ++p) {
        const auto done = memtest::run(partitions[p], queue[p]);
        CHECK(done.size() == queue[p].size());
        completed += done.size();
        for (const mm::completion& c : done) {
            const location& l = where[c.id];
            CHECK(l.partition == p);
            // The controller decoded the partition-local address with the unchanged mapping,
            // and its channel is the placement's channel.
            const mm::dram_address d = partition_mapping().map(byte_address{l.local_address});
            CHECK(c.channel == l.channel);
            CHECK(c.channel == d.channel);
            CHECK(c.bank == mm::flat_bank(d, partition_mapping().organisation()));
            CHECK(c.address.value == issued[c.id]); // the completion keeps the global address
            CHECK(ft.locate(c.address)->partition == p);
        }
    }
    CHECK(completed == id);
    // Module m's first pages are packed in partition m: 64 pages in 64 frames.
    for (std::uint32_t p = 0; p < 4; ++p) CHECK(ft.pages_in(p) == 64);
}

TEST_CASE("placed mapping over a stateless placement inverts (property)") {
    const fine_grain_interleave fg(
        {.partitions = 4, .channels_per_partition = 8, .address_bits = 33});
    const fg_mapping m(fg, partition_mapping(), 2);
    memsub::xoshiro256ss rng(4);
    int checked = 0;
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t a = rng() & ((std::uint64_t{1} << 33) - 1) & ~std::uint64_t{63};
        if (fg.place(byte_address{a}).partition != 2) continue;
        const mm::dram_address d = m.map(byte_address{a});
        CHECK(d.channel == fg.place(byte_address{a}).channel);
        CHECK(m.unmap(d).value == a);
        ++checked;
    }
    CHECK(checked > 4000);
}

TEST_CASE("placed mapping checks the inner mapping against the placement") {
    using memsub::config_error;
    const fine_grain_interleave fg8({.partitions = 4, .channels_per_partition = 8});
    const fine_grain_interleave fg4({.partitions = 4, .channels_per_partition = 4});
    CHECK_NOTHROW(fg_mapping(fg8, partition_mapping(), 3));
    CHECK_THROWS_AS(fg_mapping(fg8, partition_mapping(), 4), config_error); // no partition 4
    CHECK_THROWS_AS(fg_mapping(fg4, partition_mapping(), 0), config_error); // 4 ≠ 8 channels
    // DRAMSim3's "rorabgbachco" puts the channel above the whole column (1 KiB): it does not
    // interleave channels on the placement's 128 B granule.
    const auto coarse =
        mm::bit_field_mapping::from_order("rorabgbachco", mm::presets::hbm2_4gb_x128);
    CHECK_THROWS_AS(fg_mapping(fg8, coarse, 0), config_error);
    const fine_grain_interleave fg8k(
        {.partitions = 4, .channels_per_partition = 8, .granule_bytes = 1024});
    CHECK_NOTHROW(fg_mapping(fg8k, coarse, 0)); // with a 1 KiB granule it does
}

TEST_CASE("placed mapping of a page never placed maps the raw address (defined)") {
    first_touch ft({.partitions = 4,
                    .channels_per_partition = 8,
                    .partition_bytes = 1u << 20,
                    .footprint_bytes = 1u << 20});
    const ft_mapping m(ft, partition_mapping(), 1);
    CHECK(m.map(byte_address{0x4080}) == partition_mapping().map(byte_address{0x4080}));
    ft.place(byte_address{0x4000}, 3); // another partition touched it: frame 0 of partition 3
    CHECK(m.map(byte_address{0x4080}) == partition_mapping().map(byte_address{0x80}));
}
