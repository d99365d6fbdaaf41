// Page placement: the concept (an archetype models it, one type per broken requirement fails
// exactly that requirement), the four policies on crafted access orders — the MCM-GPU paper's
// Figure 11 first-touch example ([MCM-GPU] §5.3; the figure's drawing is not reproduced here,
// so the access order is rebuilt from its prose) — first-touch persistence and capacity
// fallback (G5.6, docs/mechanisms/multi_module_gpu.md), channel interleave inside a partition,
// inverses (property), and configuration errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/placement/all.hpp>

using memsub::byte_address;
using namespace memsub::placement;

namespace {

// ------------------------------------------------------------------ concept archetypes

/// A placement that breaks requirement `Broken` (PL1–PL5 = 1–5; 0 = none; 6 = PLI1 only).
template <int Broken>
struct placement_t {
    struct params {};
    placement_t() = default;
    explicit placement_t(const params&) {}
    [[nodiscard]] std::string_view name() const { return "archetype"; }
    location place(byte_address, std::uint32_t) requires(Broken != 2) { return {}; }
    std::optional<location> locate(byte_address) const noexcept(Broken != 3) { return location{}; }
    std::uint32_t partitions() const noexcept requires(Broken != 4) { return 1; }
    std::uint32_t channels_per_partition() const noexcept { return 1; }
    std::uint32_t page_bytes() const noexcept { return 4096; }
    std::uint32_t granule_bytes() const noexcept { return 128; }
    int partition_bytes() const noexcept requires(Broken == 5) { return 1; }
    std::uint64_t partition_bytes() const noexcept requires(Broken != 5) { return 1; }
    byte_address global_address(std::uint32_t, std::uint64_t) const noexcept requires(Broken != 6) {
        return {};
    }
};
/// PL1 broken: `params` is not default-constructible.
template <>
struct placement_t<1> : placement_t<0> {
    struct params {
        explicit params(int) {}
    };
    explicit placement_t(const params&) {}
};

constexpr unsigned bit(unsigned n) {
    return 1u << n;
}
template <class P>
constexpr unsigned failures() {
    return (pl1_params<P> ? 0 : bit(1)) | (pl2_place<P> ? 0 : bit(2)) |
           (pl3_locate<P> ? 0 : bit(3)) | (pl4_shape<P> ? 0 : bit(4)) |
           (pl5_capacity<P> ? 0 : bit(5)) | (pli1_inverse<P> ? 0 : bit(6));
}
static_assert(failures<placement_t<0>>() == 0);
static_assert(placement_policy<placement_t<0>> && invertible_placement<placement_t<0>>);
static_assert(failures<placement_t<1>>() == bit(1));
static_assert(failures<placement_t<2>>() == bit(2));
static_assert(failures<placement_t<3>>() == bit(3));
static_assert(failures<placement_t<4>>() == bit(4));
static_assert(failures<placement_t<5>>() == bit(5));
static_assert(failures<placement_t<6>>() == bit(6));
static_assert(placement_policy<placement_t<6>> && !invertible_placement<placement_t<6>>);
static_assert(!placement_policy<placement_t<2>> && !placement_policy<placement_t<5>>);
static_assert(diagnose_invertible_placement<fine_grain_interleave>());
static_assert(diagnose_invertible_placement<round_robin_page>());
static_assert(diagnose_invertible_placement<random_page>());
static_assert(diagnose_placement_policy<first_touch>());

byte_address at(std::uint64_t a) {
    return byte_address{a};
}

} // namespace

// ------------------------------------------------------------------ fine-grain interleave

TEST_CASE("fine-grain interleave rotates granules across partitions, then channels (C5.1)") {
    const fine_grain_interleave fg(
        {.partitions = 4, .channels_per_partition = 2, .granule_bytes = 256});
    // Granule g → partition g mod 4, channel (g / 4) mod 2, local (g / 4)·256 + offset.
    for (std::uint64_t g = 0; g < 64; ++g)
        for (std::uint64_t off : {0ull, 1ull, 255ull}) {
            const location l = fg.place(at(g * 256 + off));
            CHECK(l.partition == g % 4);
            CHECK(l.channel == (g / 4) % 2);
            CHECK(l.local_address == (g / 4) * 256 + off);
        }
    // The requester does not matter; locate equals place.
    CHECK(fg.place(at(0x12345), 3) == fg.place(at(0x12345), 0));
    CHECK(fg.locate(at(0x12345)) == fg.place(at(0x12345)));
    CHECK(fg.page_bytes() == 256);
    CHECK(fg.partition_bytes() == (std::uint64_t{1} << 46));
}

TEST_CASE("fine-grain interleave with a partition count that is not a power of two") {
    const fine_grain_interleave fg({.partitions = 3, .channels_per_partition = 3});
    std::vector<int> per(3, 0);
    for (std::uint64_t g = 0; g < 300; ++g) {
        const location l = fg.place(at(g * 128 + 5));
        CHECK(l.partition == g % 3);
        CHECK(l.channel == (g / 3) % 3);
        CHECK(fg.global_address(l.partition, l.local_address).value == g * 128 + 5);
        ++per[l.partition];
    }
    CHECK(per == std::vector<int>{100, 100, 100});
}

// ------------------------------------------------------------------ round robin, random

TEST_CASE("round-robin pages: page i → partition i mod P, frame i / P (C5.7)") {
    const round_robin_page rr(
        {.partitions = 4, .channels_per_partition = 4, .page_bytes = 4096, .granule_bytes = 128});
    for (std::uint64_t page = 0; page < 40; ++page) {
        const location l = rr.place(at(page * 4096 + 130), page % 7);
        CHECK(l.partition == page % 4);
        CHECK(l.local_address == (page / 4) * 4096 + 130);
        CHECK(l.channel == ((page / 4) * 32 + 1) % 4); // 4096 / 128 = 32 granules per page
    }
}

TEST_CASE("random pages: seeded, uniform over partitions, one frame per page (G2.2)") {
    const random_page a({.partitions = 4, .seed = 7});
    const random_page b({.partitions = 4, .seed = 7});
    const random_page c({.partitions = 4, .seed = 8});
    std::vector<int> count(4, 0);
    std::set<std::pair<std::uint32_t, std::uint64_t>> frames;
    int differ = 0;
    constexpr int pages = 8192;
    for (std::uint64_t page = 0; page < pages; ++page) {
        const location l = a.place(at(page * 4096 + 64));
        CHECK(l == b.place(at(page * 4096 + 64))); // same seed, same placement
        differ += l.partition != c.place(at(page * 4096 + 64)).partition;
        ++count[l.partition];
        CHECK(l.local_address % 4096 == 64);
        frames.insert({l.partition, l.local_address / 4096});
        CHECK(a.global_address(l.partition, l.local_address).value == page * 4096 + 64);
    }
    CHECK(frames.size() == pages); // a bijection: no two pages share a frame
    // Chi-square with 3 degrees of freedom: 16.27 is the 0.1 % critical value.
    double chi2 = 0;
    for (int n : count) chi2 += (n - pages / 4.0) * (n - pages / 4.0) / (pages / 4.0);
    CHECK(chi2 < 16.27);
    // Another seed places about 3/4 of the pages elsewhere (independent draws).
    CHECK(differ > pages * 0.70);
    CHECK(differ < pages * 0.80);
}

TEST_CASE("inverse of the stateless placements (property, random addresses)") {
    memsub::xoshiro256ss rng(3);
    const fine_grain_interleave fg({.partitions = 8, .channels_per_partition = 4});
    const round_robin_page rr({.partitions = 6, .page_bytes = 65536});
    const random_page rp({.partitions = 5,
                          .channels_per_partition = 2,
                          .page_bytes = 1u << 21,
                          .granule_bytes = 4096,
                          .address_bits = 40,
                          .seed = 99});
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t a = rng() & ((std::uint64_t{1} << 40) - 1);
        const location x = fg.place(at(a)), y = rr.place(at(a)), z = rp.place(at(a));
        CHECK(fg.global_address(x.partition, x.local_address).value == a);
        CHECK(rr.global_address(y.partition, y.local_address).value == a);
        CHECK(rp.global_address(z.partition, z.local_address).value == a);
        CHECK(x.local_address < fg.partition_bytes());
        CHECK(y.local_address < rr.partition_bytes());
        CHECK(z.local_address < rp.partition_bytes());
        CHECK(z.channel == (z.local_address / 4096) % 2);
    }
}

// ------------------------------------------------------------------ protocol, every policy

TEST_CASE("every placement keeps PP3: one partition per unit, contiguous local addresses") {
    memsub::xoshiro256ss rng(31);
    auto check = [&](auto&& p) {
        CAPTURE(p.name());
        const std::uint64_t unit = p.page_bytes();
        for (int i = 0; i < 3000; ++i) {
            const std::uint64_t base = (rng() % (std::uint64_t{1} << 30)) / unit * unit;
            const auto req = static_cast<std::uint32_t>(rng() % p.partitions());
            const location first = p.place(at(base), req);
            CHECK(p.locate(at(base)) == first); // PL3: locate repeats place
            CHECK(first.local_address % unit == 0);
            for (int k = 0; k < 4; ++k) {
                const std::uint64_t off = rng() % unit;
                const location l = p.place(at(base + off), (req + 1) % p.partitions());
                CHECK(l.partition == first.partition);
                CHECK(l.local_address == first.local_address + off);
                CHECK(l.channel ==
                      (l.local_address / p.granule_bytes()) % p.channels_per_partition());
                CHECK(l.local_address < p.partition_bytes());
            }
        }
    };
    check(fine_grain_interleave({.partitions = 4, .channels_per_partition = 8}));
    check(round_robin_page(
        {.partitions = 3, .channels_per_partition = 4, .page_bytes = 65536, .granule_bytes = 256}));
    check(random_page({.partitions = 8, .channels_per_partition = 2}));
    check(first_touch({.partitions = 4,
                       .channels_per_partition = 8,
                       .partition_bytes = std::uint64_t{1} << 30,
                       .footprint_bytes = std::uint64_t{1} << 26}));
}

// ------------------------------------------------------------------ first touch

TEST_CASE("first touch: the MCM-GPU Figure 11 example (reconstructed from the prose)") {
    // [MCM-GPU] §5.3: "page P0 is first accessed by CTA-X which is executing on GPM0 … P0 being
    // allocated in MP0. Subsequently, pages P1 and P2 are first accessed by CTA-Y executing on
    // GPM1, which maps those pages to MP1. Following this, page P3 is first accessed by CTA-X,
    // which maps the page to MP0." Later references, in any order and from either GPM, keep
    // the mapping ("Regardless of the referencing order …").
    first_touch ft({.partitions = 4,
                    .page_bytes = 4096,
                    .partition_bytes = 1u << 20,
                    .footprint_bytes = 1u << 20});
    constexpr std::uint32_t gpm0 = 0, gpm1 = 1; // CTA-X runs on GPM0, CTA-Y on GPM1
    auto page = [](std::uint64_t i, std::uint64_t off = 0) { return at(i * 4096 + off); };
    CHECK(!ft.locate(page(0)).has_value());
    CHECK(ft.place(page(0, 8), gpm0).partition == 0);   // X → P0
    CHECK(ft.place(page(1, 16), gpm1).partition == 1);  // Y → P1
    CHECK(ft.place(page(2), gpm1).partition == 1);      // Y → P2
    CHECK(ft.place(page(3, 100), gpm0).partition == 0); // X → P3
    // Figure 11(b): MP0 holds P0 and P3, MP1 holds P1 and P2, packed in first-touch order.
    CHECK(ft.locate(page(0))->local_address == 0);
    CHECK(ft.locate(page(3))->local_address == 4096);
    CHECK(ft.locate(page(1))->local_address == 0);
    CHECK(ft.locate(page(2))->local_address == 4096);
    // Regardless of the referencing order afterwards: Y touching P0 and P3, X touching P1.
    CHECK(ft.place(page(0, 4000), gpm1).partition == 0);
    CHECK(ft.place(page(3), gpm1).partition == 0);
    CHECK(ft.place(page(1), gpm0).partition == 1);
    CHECK(ft.place(page(0, 4000), gpm1).local_address == 4000);
    CHECK(ft.pages_in(0) == 2);
    CHECK(ft.pages_in(1) == 2);
    CHECK(ft.stats().pages == 4);
    CHECK(ft.stats().fallbacks == 0);
}

TEST_CASE("first touch persists across kernels; reset forgets") {
    first_touch ft({.partitions = 2, .partition_bytes = 1u << 20, .footprint_bytes = 1u << 20});
    // Kernel 1: module m touches pages 10m … 10m + 9.
    for (std::uint32_t m = 0; m < 2; ++m)
        for (std::uint64_t p = 0; p < 10; ++p) ft.place(at((10 * m + p) * 4096), m);
    // Kernel 2 (a kernel boundary changes nothing): the other module touches them first now.
    for (std::uint32_t m = 0; m < 2; ++m)
        for (std::uint64_t p = 0; p < 10; ++p)
            CHECK(ft.place(at((10 * m + p) * 4096 + 8), 1 - m).partition == m);
    CHECK(ft.stats().pages == 20);
    ft.reset();
    CHECK(!ft.locate(at(0)).has_value());
    CHECK(ft.place(at(0), 1).partition == 1);
    CHECK(ft.stats().pages == 1);
}

TEST_CASE("first touch capacity fallback: nearest partition by ring hops, ties to lowest id") {
    // 4 partitions of 2 pages each on a ring. Module 0 touches 8 pages: 2 local, then its ring
    // neighbours 1 and 3 (1 hop; 1 first as the lower id), then 2 (2 hops).
    first_touch ft(
        {.partitions = 4, .page_bytes = 4096, .partition_bytes = 2 * 4096, .footprint_bytes = 0});
    std::vector<std::uint32_t> got;
    for (std::uint64_t p = 0; p < 8; ++p) got.push_back(ft.place(at(p * 4096), 0).partition);
    CHECK(got == std::vector<std::uint32_t>{0, 0, 1, 1, 3, 3, 2, 2});
    CHECK(ft.stats().fallbacks == 6);
    CHECK(ft.locate(at(5 * 4096))->local_address == 4096); // second frame of partition 3
    // Every frame is used: one more page exceeds the (default = total) footprint.
    CHECK_THROWS_AS(ft.place(at(8 * 4096), 2), capacity_error);
    // Pages already placed still resolve after the failure.
    CHECK(ft.place(at(7 * 4096), 3).partition == 2);
}

TEST_CASE("first touch fallback with a host hop matrix; footprint limit; bad requester") {
    // A line 0 - 1 - 2 (hops |i − j|) instead of a ring: partition 0's neighbour order is 1, 2.
    first_touch ft({.partitions = 3,
                    .partition_bytes = 4096,
                    .footprint_bytes = 2 * 4096,
                    .hops = {0, 1, 2, 1, 0, 1, 2, 1, 0}});
    CHECK(ft.place(at(0), 2).partition == 2);
    CHECK(ft.place(at(4096), 2).partition == 1); // 2 full: nearest is 1 (ring would tie 0, 1)
    CHECK_THROWS_AS(ft.place(at(2 * 4096), 0), capacity_error); // footprint: 2 pages
    first_touch bad({.partitions = 2});
    CHECK(bad.place(at(0), 5).partition == 1); // 5 mod 2
    CHECK(bad.stats().requester_out_of_range == 1);
}

TEST_CASE("first touch interleaves channels inside a partition; large pages") {
    for (std::uint32_t page : {4096u, 65536u, 1u << 21}) {
        first_touch ft({.partitions = 4,
                        .channels_per_partition = 8,
                        .page_bytes = page,
                        .granule_bytes = 128,
                        .partition_bytes = std::uint64_t{page} * 16,
                        .footprint_bytes = std::uint64_t{page} * 16});
        ft.place(at(0), 3);
        for (std::uint64_t off = 0; off < page; off += 128) {
            const location l = ft.place(at(off + 7), 0); // same page: still partition 3
            CHECK(l.partition == 3);
            CHECK(l.channel == (off / 128) % 8);
        }
        // A second page of module 3 continues the rotation from its frame base.
        const location l2 = ft.place(at(std::uint64_t{page} * 5), 3);
        CHECK(l2.local_address == page);
        CHECK(l2.channel == (page / 128) % 8);
    }
}

TEST_CASE("first touch table is sized from the declared footprint at construction") {
    first_touch ft({.partitions = 4,
                    .partition_bytes = std::uint64_t{1} << 30,
                    .footprint_bytes = std::uint64_t{64} << 20});
    CHECK(ft.footprint_pages() == 16384);
    CHECK(ft.table_slots() == 32768); // load ≤ 1/2
    memsub::xoshiro256ss rng(5);
    std::map<std::uint64_t, location> seen; // reference model: a std::map page table
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t page = rng() % 16384 * 977; // 16384 distinct pages, scattered
        const auto req = static_cast<std::uint32_t>(rng() % 4);
        const location l = ft.place(at(page * 4096), req);
        const auto [it, fresh] = seen.try_emplace(page, l);
        if (fresh) CHECK(l.partition == req); // capacity never binds here
        CHECK(it->second == l);
    }
    CHECK(ft.stats().pages == seen.size());
    CHECK(ft.table_slots() == 32768);
}

TEST_CASE("placement configuration errors throw config_error") {
    using memsub::config_error;
    CHECK_THROWS_AS(fine_grain_interleave({.partitions = 0}), config_error);
    CHECK_THROWS_AS(fine_grain_interleave({.granule_bytes = 100}), config_error);
    CHECK_THROWS_AS(fine_grain_interleave({.address_bits = 64}), config_error);
    CHECK_THROWS_AS(round_robin_page({.page_bytes = 64, .granule_bytes = 128}), config_error);
    CHECK_THROWS_AS(round_robin_page({.page_bytes = 3000}), config_error);
    CHECK_THROWS_AS(random_page({.channels_per_partition = 0}), config_error);
    CHECK_THROWS_AS(first_touch({.partition_bytes = 5000}), config_error);
    CHECK_THROWS_AS(
        first_touch({.partitions = 2, .partition_bytes = 4096, .footprint_bytes = 3 * 4096}),
        config_error); // footprint above the total capacity
    CHECK_THROWS_AS(first_touch({.partitions = 2, .hops = {0, 1, 1}}), config_error);
    try {
        first_touch({.page_bytes = 1000});
        FAIL("no throw");
    } catch (const config_error& e) {
        CHECK(e.parameter() == "page_bytes");
        CHECK(e.component() == "memsub::placement::first_touch");
    }
}
