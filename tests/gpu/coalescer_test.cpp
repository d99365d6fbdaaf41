// gpu::coalescer on crafted lane patterns (d = 1, 2, 32, inactive lanes, a lane straddling a
// line boundary), the accesses it hands a cache, and a property test against an independent
// byte-set model ([Dissertation] §3.1; docs/mechanisms/id_cache.md, 'Inputs from the host').
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/gpu/coalescer.hpp>

using namespace memsub;
using gpu::coalescer;
using gpu::warp_size;

namespace {

using lanes_t = std::array<std::uint64_t, warp_size>;

lanes_t strided(std::uint64_t base, std::uint64_t stride) {
    lanes_t l{};
    for (std::uint32_t i = 0; i < warp_size; ++i) l[i] = base + i * stride;
    return l;
}

constexpr std::uint32_t all_lanes = 0xffff'ffffu;

} // namespace

TEST_CASE("d = 1: 32 lanes × 4 B consecutive fill one 128 B line") {
    const coalescer c;
    const auto w = c.coalesce(strided(0x1000, 4), all_lanes, 4);
    REQUIRE(w.divergence() == 1);
    const auto& r = w.lines()[0];
    CHECK(r.line_base == byte_address{0x1000});
    CHECK(r.byte_mask[0] == ~std::uint64_t{0});
    CHECK(r.byte_mask[1] == ~std::uint64_t{0});
    CHECK(r.sector_mask == 0xfu);
    CHECK(r.lanes == all_lanes);
    CHECK(r.touched_bytes() == 128);
}

TEST_CASE("d = 2: 32 lanes × 8 B consecutive cover two lines, lanes 0-15 and 16-31") {
    const coalescer c;
    const auto w = c.coalesce(strided(0x2000, 8), all_lanes, 8);
    REQUIRE(w.divergence() == 2);
    CHECK(w.lines()[0].line_base == byte_address{0x2000});
    CHECK(w.lines()[1].line_base == byte_address{0x2080});
    CHECK(w.lines()[0].lanes == 0x0000'ffffu);
    CHECK(w.lines()[1].lanes == 0xffff'0000u);
    CHECK(w.lines()[0].touched_bytes() == 128);
    CHECK(w.lines()[1].sector_mask == 0xfu);
}

TEST_CASE("d = 2 from a misaligned convergent access: 32 × 4 B starting mid-line") {
    const coalescer c;
    const auto w = c.coalesce(strided(0x1040, 4), all_lanes, 4); // bytes 0x1040..0x10bf
    REQUIRE(w.divergence() == 2);
    CHECK(w.lines()[0].sector_mask == 0xcu); // sectors 2, 3 of 0x1000
    CHECK(w.lines()[1].sector_mask == 0x3u); // sectors 0, 1 of 0x1080
    CHECK(w.lines()[0].byte_mask[0] == 0);
    CHECK(w.lines()[1].byte_mask[1] == 0);
}

TEST_CASE("d = 32: a stride of one line gives one request per lane, 4 bytes each") {
    const coalescer c;
    const auto w = c.coalesce(strided(0x10'0000, 128), all_lanes, 4);
    REQUIRE(w.divergence() == 32);
    for (std::uint32_t i = 0; i < warp_size; ++i) {
        const auto& r = w.lines()[i];
        CHECK(r.line_base == byte_address{0x10'0000 + i * 128});
        CHECK(r.lanes == (1u << i));
        CHECK(r.sector_mask == 0x1u);
        CHECK(r.byte_mask[0] == 0xfu);
        CHECK(r.touched_bytes() == 4);
    }
}

TEST_CASE("requests come in the order of the first lane touching each line") {
    const coalescer c;
    lanes_t l{};
    for (std::uint32_t i = 0; i < warp_size; ++i) l[i] = 0x8000 - (i % 4) * 128 + i; // 4 lines
    const auto w = c.coalesce(l, all_lanes, 1);
    REQUIRE(w.divergence() == 4);
    CHECK(w.lines()[0].line_base == byte_address{0x8000});
    CHECK(w.lines()[1].line_base == byte_address{0x7f80});
    CHECK(w.lines()[2].line_base == byte_address{0x7f00});
    CHECK(w.lines()[3].line_base == byte_address{0x7e80});
    CHECK(w.lines()[1].lanes == 0x2222'2222u);
}

TEST_CASE("inactive lanes touch nothing and do not count in d") {
    const coalescer c;
    const auto l = strided(0x4000, 128);
    CHECK(c.coalesce(l, 0x0000'ffffu, 4).divergence() == 16);
    CHECK(c.coalesce(l, 0x8000'0001u, 4).divergence() == 2);
    const auto none = c.coalesce(l, 0, 4);
    CHECK(none.divergence() == 0);
    CHECK(none.lines().empty());
    // Inactive lanes holding garbage addresses are ignored.
    lanes_t g = strided(0x1000, 4);
    for (std::uint32_t i = 16; i < warp_size; ++i) g[i] = 0xdead'beef'0000 + i * 4096;
    const auto w = c.coalesce(g, 0x0000'ffffu, 4);
    REQUIRE(w.divergence() == 1);
    CHECK(w.lines()[0].byte_mask[0] == ~std::uint64_t{0});
    CHECK(w.lines()[0].byte_mask[1] == 0);
    CHECK(w.lines()[0].sector_mask == 0x3u);
}

TEST_CASE("a lane straddling a line boundary touches both lines, the lower first") {
    const coalescer c;
    lanes_t l = strided(0x1000, 0); // every lane reads the same word…
    l[5] = 0x107e;                  // …except lane 5: bytes 0x107e..0x1081
    const auto w = c.coalesce(l, all_lanes, 4);
    REQUIRE(w.divergence() == 2);
    const auto& lo = w.lines()[0];
    const auto& hi = w.lines()[1];
    CHECK(lo.line_base == byte_address{0x1000});
    CHECK(hi.line_base == byte_address{0x1080});
    CHECK(lo.lanes == all_lanes);
    CHECK(hi.lanes == (1u << 5));
    CHECK(lo.byte_mask[0] == 0xfu);                     // bytes 0..3 (the other lanes)
    CHECK(lo.byte_mask[1] == (std::uint64_t{3} << 62)); // bytes 126, 127
    CHECK(lo.sector_mask == 0x9u);
    CHECK(hi.byte_mask[0] == 0x3u); // bytes 0, 1
    CHECK(hi.sector_mask == 0x1u);
    // Every lane straddling: up to 64 requests.
    const auto all = c.coalesce(strided(0x2000 + 120, 256), all_lanes, 16);
    CHECK(all.divergence() == 64);
}

TEST_CASE("for_each_access: one access per run of touched sectors, carrying d") {
    const coalescer c;
    lanes_t l = strided(0x3000, 0);
    l[1] = 0x3044;                         // sector 2
    l[2] = 0x3100;                         // another line
    const auto w = c.coalesce(l, 0x7u, 4); // sectors 0 and 2 of 0x3000; 0x3100
    REQUIRE(w.divergence() == 2);
    memsub::access proto;
    proto.pc = 0x88;
    proto.kind = access_kind::store;
    std::vector<memsub::access> got;
    c.for_each_access(w, proto, [&](const memsub::access& a) { got.push_back(a); });
    REQUIRE(got.size() == 3);
    CHECK(got[0].address == byte_address{0x3000});
    CHECK(got[0].size == 4);
    CHECK(got[1].address == byte_address{0x3044});
    CHECK(got[1].size == 4);
    CHECK(got[2].address == byte_address{0x3100});
    for (const auto& a : got) {
        CHECK(a.divergence == 2);
        CHECK(a.pc == 0x88);
        CHECK(a.kind == access_kind::store);
    }
    // A contiguous run covers its first to last touched byte only.
    const auto conv = c.coalesce(strided(0x5010, 4), 0xffu, 4); // bytes 0x10..0x2f
    got.clear();
    c.for_each_access(conv, proto, [&](const memsub::access& a) { got.push_back(a); });
    REQUIRE(got.size() == 1);
    CHECK(got[0].address == byte_address{0x5010});
    CHECK(got[0].size == 32);
    CHECK(got[0].divergence == 1);
}

TEST_CASE("errors: bad params and a bad access size throw config_error naming the field") {
    CHECK_THROWS_AS(coalescer(coalescer::params{.line_bytes = 256}), config_error);
    CHECK_THROWS_AS(coalescer(coalescer::params{.line_bytes = 96}), config_error);
    CHECK_THROWS_AS(coalescer(coalescer::params{.sector_bytes = 2}), config_error);
    const coalescer c;
    const auto l = strided(0, 4);
    CHECK_THROWS_AS((void)c.coalesce(l, all_lanes, 0), config_error);
    try {
        (void)c.coalesce(l, all_lanes, 129);
        FAIL("no throw");
    } catch (const config_error& e) {
        CHECK(e.parameter() == "access_bytes");
    }
}

namespace {
/// Checks `c`'s requests for (l, active, size) against an independent byte-set model: line ->
/// set of touched byte offsets, the lanes touching it, and the order of first touch.
void check_against_model(const coalescer& c, const lanes_t& l, std::uint32_t active,
                         std::uint32_t size) {
    const std::uint32_t line = c.line_bytes();
    std::map<std::uint64_t, std::set<std::uint32_t>> bytes;
    std::map<std::uint64_t, std::uint32_t> lanes;
    std::vector<std::uint64_t> order;
    for (std::uint32_t i = 0; i < warp_size; ++i) {
        if (((active >> i) & 1u) == 0) continue;
        for (std::uint64_t b = l[i]; b < l[i] + size; ++b) {
            const std::uint64_t base = b / line * line;
            if (!bytes.contains(base)) order.push_back(base);
            bytes[base].insert(static_cast<std::uint32_t>(b - base));
            lanes[base] |= 1u << i;
        }
    }
    const auto w = c.coalesce(l, active, size);
    REQUIRE(w.divergence() == order.size());
    for (std::uint32_t k = 0; k < w.divergence(); ++k) {
        const auto& q = w.lines()[k];
        REQUIRE(q.line_base.value == order[k]);
        CHECK(q.lanes == lanes[order[k]]);
        std::uint32_t sectors = 0;
        for (std::uint32_t b = 0; b < line; ++b) {
            const bool in = bytes[order[k]].contains(b);
            REQUIRE(q.touches_byte(b) == in);
            if (in) sectors |= 1u << (b / c.sector_bytes());
        }
        CHECK(q.sector_mask == sectors);
    }
}
} // namespace

TEST_CASE("property: requests equal an independent byte-set model on random warps") {
    xoshiro256ss r{2024};
    for (const std::uint32_t line : {128u, 64u, 32u}) {
        const coalescer c({.line_bytes = line, .sector_bytes = line / 4});
        for (int trial = 0; trial < 2000; ++trial) {
            const std::uint32_t size = 1u << r.below(5); // 1..16
            const auto active = static_cast<std::uint32_t>(r());
            const std::uint64_t spread = 1u << r.below(14);
            lanes_t l{};
            for (auto& a : l) a = 0x10'0000 + r.below(spread);
            check_against_model(c, l, active, size);
        }
    }
}

TEST_CASE("property: unit-stride warps (the fast path) equal the model, and near misses too") {
    // Lane i of a run of active lanes reads `size` bytes at start + i x size: one contiguous
    // range (the coalescer's fast path). A run with a hole, or one lane off the stride, takes
    // the general path: both must agree with the model.
    xoshiro256ss r{77};
    for (const std::uint32_t line : {128u, 64u, 32u}) {
        const coalescer c({.line_bytes = line, .sector_bytes = line / 4});
        for (int trial = 0; trial < 3000; ++trial) {
            const std::uint32_t size = std::min<std::uint32_t>(1u << r.below(5), line);
            const auto first = static_cast<std::uint32_t>(r.below(warp_size));
            const auto count = 1 + static_cast<std::uint32_t>(r.below(warp_size - first));
            std::uint32_t active = static_cast<std::uint32_t>(memsub::low_bits_mask(count))
                                   << first;
            const std::uint64_t start = 0x20'0000 + r.below(4 * line);
            lanes_t l{};
            for (std::uint32_t i = 0; i < warp_size; ++i)
                l[i] = start + (i >= first ? std::uint64_t{i - first} * size : 0);
            switch (trial % 4) {
            case 0: // the pattern exactly
                break;
            case 1: // an inactive lane inside the run
                if (count > 2) active &= ~(1u << (first + 1));
                break;
            case 2: // one lane off the stride
                l[first + count - 1] += 1;
                break;
            default: // inactive lanes hold garbage
                for (std::uint32_t i = 0; i < warp_size; ++i)
                    if (((active >> i) & 1u) == 0) l[i] = r();
            }
            check_against_model(c, l, active, size);
        }
    }
    // The range ends at the top of the address space.
    const coalescer c;
    lanes_t l{};
    for (std::uint32_t i = 0; i < warp_size; ++i) l[i] = ~std::uint64_t{0} - 127 + 4 * i;
    const auto w = c.coalesce(l, ~0u, 4);
    REQUIRE(w.divergence() == 1);
    CHECK(w.lines()[0].line_base.value == ~std::uint64_t{0} - 127);
}

TEST_CASE("property: for_each_access gives each run of touched sectors' first to last byte") {
    // Random warps (gathers, straddling lanes, bytes in either half of a line) against a model
    // built byte by byte from the requests: the walk finds the first and last touched byte of a
    // request without branches on which 64-byte half holds them.
    xoshiro256ss r{4242};
    for (const std::uint32_t line : {128u, 64u, 32u}) {
        const coalescer c({.line_bytes = line, .sector_bytes = line / 4});
        for (int trial = 0; trial < 2000; ++trial) {
            const std::uint32_t size = std::min<std::uint32_t>(1u << r.below(7), line); // 1..64
            const auto active = static_cast<std::uint32_t>(r());
            const std::uint64_t spread = 1u << r.below(14);
            lanes_t l{};
            for (auto& a : l) a = 0x40'0000 + r.below(spread);
            const auto w = c.coalesce(l, active, size);
            std::vector<std::pair<std::uint64_t, std::uint32_t>> expected; // address, size
            for (const auto& q : w.lines()) {
                const std::uint32_t sector = c.sector_bytes();
                for (std::uint32_t s = 0; s < line / sector;) {
                    if (((q.sector_mask >> s) & 1u) == 0) {
                        ++s;
                        continue;
                    }
                    std::uint32_t e = s; // the run of touched sectors s..e
                    while (e + 1 < line / sector && ((q.sector_mask >> (e + 1)) & 1u) != 0) ++e;
                    std::uint32_t first = s * sector, last = (e + 1) * sector - 1;
                    while (!q.touches_byte(first)) ++first;
                    while (!q.touches_byte(last)) --last;
                    expected.emplace_back(q.line_base.value + first, last - first + 1);
                    s = e + 1;
                }
            }
            std::vector<std::pair<std::uint64_t, std::uint32_t>> got;
            c.for_each_access(w, memsub::access{}, [&](const memsub::access& a) {
                CHECK(a.divergence == w.divergence());
                got.emplace_back(a.address.value, a.size);
            });
            REQUIRE(got == expected);
        }
    }
}

TEST_CASE("for_each_request: one access per line request, its touched sectors as the mask") {
    // Lane 0 reads bytes 0-3 and lane 1 bytes 96-99 of one line (sectors 0 and 3); lane 2 reads
    // another line. for_each_access makes three accesses (two runs, then the other line).
    const coalescer c;
    lanes_t l = strided(0x3000, 0);
    l[1] = 0x3060;
    l[2] = 0x3104;
    const auto w = c.coalesce(l, 0x7u, 4);
    REQUIRE(w.divergence() == 2);
    memsub::access proto;
    proto.pc = 0x88;
    proto.kind = access_kind::load;
    proto.requester = 5;
    proto.sector_mask = 0xffff; // overwritten per request
    std::vector<memsub::access> got;
    c.for_each_request(w, proto, [&](const memsub::access& a) { got.push_back(a); });
    REQUIRE(got.size() == 2);
    CHECK(got[0].address == byte_address{0x3000});
    CHECK(got[0].size == 100); // first to last touched byte
    CHECK(got[0].sector_mask == 0b1001);
    CHECK(got[1].address == byte_address{0x3104});
    CHECK(got[1].size == 4);
    CHECK(got[1].sector_mask == 0b0001);
    for (const auto& a : got) {
        CHECK(a.divergence == 2);
        CHECK(a.pc == 0x88);
        CHECK(a.requester == 5);
        CHECK(a.kind == access_kind::load);
    }
    // A whole line: address its base, size 128, every sector.
    const auto whole = c.coalesce(strided(0x5000, 4), all_lanes, 4);
    got.clear();
    c.for_each_request(whole, proto, [&](const memsub::access& a) { got.push_back(a); });
    REQUIRE(got.size() == 1);
    CHECK(got[0].address == byte_address{0x5000});
    CHECK(got[0].size == 128);
    CHECK(got[0].sector_mask == 0b1111);
    CHECK(got[0].divergence == 1);
    // for_each_access carries no mask, whatever the prototype's.
    got.clear();
    c.for_each_access(w, proto, [&](const memsub::access& a) { got.push_back(a); });
    REQUIRE(got.size() == 3);
    for (const auto& a : got) CHECK(a.sector_mask == 0);
}

TEST_CASE("for_each_request: a line of more than 16 sectors throws config_error naming "
          "sector_bytes") {
    const coalescer fine({.line_bytes = 128, .sector_bytes = 4}); // 32 sectors: valid to coalesce
    const auto w = fine.coalesce(strided(0, 4), all_lanes, 4);
    CHECK(w.lines()[0].sector_mask == 0xffff'ffffu);
    try {
        fine.for_each_request(w, memsub::access{}, [](const memsub::access&) {});
        FAIL("no throw");
    } catch (const config_error& e) {
        CHECK(e.parameter() == "sector_bytes");
    }
    const coalescer sixteen({.line_bytes = 64, .sector_bytes = 4}); // 16 sectors: fits
    int calls = 0;
    sixteen.for_each_request(sixteen.coalesce(strided(0, 4), 0xffffu, 4), memsub::access{},
                             [&](const memsub::access& a) {
                                 CHECK(a.sector_mask == 0xffff);
                                 ++calls;
                             });
    CHECK(calls == 1);
}

TEST_CASE("property: for_each_request gives each request's first to last byte and its sectors") {
    // Random warps against a model built byte by byte from the requests' byte masks: one access
    // per request in request order, its first to last touched byte, and bit s of the mask iff a
    // byte of sector s is touched.
    xoshiro256ss r{777};
    for (const std::uint32_t line : {128u, 64u, 32u}) {
        for (const std::uint32_t sectors : {4u, 16u}) {
            const coalescer c({.line_bytes = line, .sector_bytes = line / sectors});
            for (int trial = 0; trial < 1000; ++trial) {
                const std::uint32_t size = std::min<std::uint32_t>(1u << r.below(7), line);
                const auto active = static_cast<std::uint32_t>(r());
                const std::uint64_t spread = 1u << r.below(14);
                lanes_t l{};
                for (auto& a : l) a = 0x40'0000 + r.below(spread);
                const auto w = c.coalesce(l, active, size);
                struct expected_access {
                    std::uint64_t address;
                    std::uint32_t size;
                    std::uint32_t mask;
                    bool operator==(const expected_access&) const = default;
                };
                std::vector<expected_access> expected, got;
                for (const auto& q : w.lines()) {
                    std::uint32_t first = line, last = 0, mask = 0;
                    for (std::uint32_t b = 0; b < line; ++b) {
                        if (!q.touches_byte(b)) continue;
                        first = std::min(first, b);
                        last = b;
                        mask |= 1u << (b / c.sector_bytes());
                    }
                    expected.push_back({q.line_base.value + first, last - first + 1, mask});
                }
                c.for_each_request(w, memsub::access{}, [&](const memsub::access& a) {
                    CHECK(a.divergence == w.divergence());
                    got.push_back({a.address.value, a.size, a.sector_mask});
                });
                REQUIRE(got == expected);
            }
        }
    }
}
