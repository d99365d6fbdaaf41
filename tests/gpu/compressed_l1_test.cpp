// gpu::compressed_l1 and gpu::shared_code_book ([Dissertation] §4.3.1, §4.3.3): occupancy, the
// code-book lifecycle across every L1, Eq. 4.3 at the cache, Adaptive-CMP's tag-only entries,
// and lossless storage of real kernel data.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/compressed_l1.hpp>
#include <memsub/selection/all.hpp>
#include <memsub/workload/simt/all.hpp>

using namespace memsub;
using memsub::compression::bdi;
using memsub::compression::sc2;

namespace {

/// A memory image with a byte pattern per line chosen by the test.
struct pattern_image {
    enum class kind { zeros, small_ints, random };
    kind what = kind::small_ints;
    void read(std::uint64_t address, std::span<std::byte> out) const noexcept {
        xoshiro256ss rng(address / 128 + 1);
        for (std::size_t i = 0; i < out.size(); i += 4) {
            std::uint32_t w = 0;
            if (what == kind::small_ints) w = static_cast<std::uint32_t>((address / 128) % 7 + 1);
            if (what == kind::random) w = static_cast<std::uint32_t>(rng());
            std::memcpy(out.data() + i, &w, 4);
        }
    }
};

memsub::access load(std::uint64_t line) {
    memsub::access a;
    a.address = byte_address{line * 128};
    a.size = 4;
    a.kind = access_kind::load;
    return a;
}
memsub::access store(std::uint64_t line) {
    memsub::access a = load(line);
    a.kind = access_kind::store;
    return a;
}

/// Lines of set 0 (32 sets of 128 B lines).
std::uint64_t set0_line(std::uint64_t i) {
    return i * 32;
}

template <class L1>
void check_occupancy(const L1& l1) {
    const auto& e = l1.engine();
    std::uint32_t lines = 0;
    for (std::uint32_t s = 0; s < L1::sets; ++s) {
        std::uint32_t segs = 0, tags = 0;
        for (std::uint32_t i = 0; i < L1::tags_per_set; ++i) {
            const auto v = e.block(set_index{s}, entry_index{i});
            if (!v.valid) continue;
            ++tags;
            segs += v.stored_segments;
            CHECK(v.stored_segments <= L1::segments_per_line);
        }
        CHECK(segs <= L1::segments_per_set);
        CHECK(segs + e.free_segments(set_index{s}) == L1::segments_per_set);
        CHECK(tags <= L1::tags_per_set);
        lines += tags;
    }
    CHECK(lines == l1.resident_lines());
}

using static_bdi_l1 = gpu::compressed_l1<selection::static_mode, bdi, sc2>;

} // namespace

TEST_CASE("shared_code_book: samples in period 1's EP 1 and every period's last EP, installs a "
          "book at their ends") {
    gpu::shared_code_book book({.l1s = 2, .ep_accesses = 4, .eps_per_period = 3});
    std::array<std::byte, 128> line{};
    for (std::size_t i = 0; i < 128; i += 4) line[i] = std::byte{7};
    auto run_ep = [&] {
        for (int i = 0; i < 8; ++i) {
            book.on_insert(line);
            book.tick();
        }
    };
    CHECK(book.sampling());
    CHECK_FALSE(book.has_book());
    run_ep(); // period 1, EP 1: sampled, installed
    CHECK(book.generation() == 1);
    CHECK(book.sampled_lines() == 8);
    CHECK_FALSE(book.sampling());
    run_ep(); // EP 2: not sampled; EP 3 (the last) will be
    CHECK(book.sampled_lines() == 8);
    CHECK(book.sampling());
    run_ep(); // EP 3: sampled; installed as period 2 starts
    CHECK(book.generation() == 2);
    CHECK(book.sampled_lines() == 16);
    run_ep();
    run_ep();
    CHECK(book.generation() == 2);
    CHECK(book.sampling());
    run_ep();
    CHECK(book.generation() == 3);
    // The book codes the sampled words: a line of them compresses well below 128 B.
    CHECK(book.compressor().size_bits(line) < 8 * 64);
    CHECK(book.storage_bits() > book.vft().storage_bits());
}

TEST_CASE("compressed_l1: BDI lines take fewer segments, occupancy never exceeds the set") {
    gpu::shared_code_book book;
    static_bdi_l1 l1({.verify_round_trip = true}, {.mode = 1}, &book);
    const pattern_image image{pattern_image::kind::small_ints};
    // 12 lines of set 0: uncompressed only 4 would fit.
    for (int round = 0; round < 3; ++round)
        for (std::uint64_t i = 0; i < 12; ++i) {
            const auto r = l1.access(load(set0_line(i)), i, image);
            if (round > 0) CHECK(r.hit());
        }
    CHECK(l1.stats().fills_by_mode[1] == 12);
    CHECK(l1.stats().round_trip_failures == 0);
    CHECK(l1.stats().round_trip_checks == 12);
    CHECK(l1.resident_lines() == 12);
    CHECK(l1.effective_capacity() == doctest::Approx(12.0 * 128 / 16384));
    check_occupancy(l1);
    // Random bytes do not compress: stored raw (mode 0), so 4 fit per set.
    const pattern_image noise{pattern_image::kind::random};
    static_bdi_l1 raw({}, {.mode = 1}, &book);
    for (std::uint64_t i = 0; i < 6; ++i) raw.access(load(set0_line(i)), i, noise);
    CHECK(raw.stats().stored_raw[1] == 6);
    CHECK(raw.stats().fills_by_mode[0] == 6);
    CHECK(raw.resident_lines() == 4);
    check_occupancy(raw);
}

TEST_CASE("compressed_l1: zero lines are tag-only, 16 fit in a set") {
    gpu::shared_code_book book;
    static_bdi_l1 l1({}, {.mode = 1}, &book);
    const pattern_image zeros{pattern_image::kind::zeros};
    for (std::uint64_t i = 0; i < 16; ++i) l1.access(load(set0_line(i)), i, zeros);
    // BDI's zeros encoding is 0 payload bits only if the compressor says so; count what it did.
    const std::uint32_t zero_segments = l1.engine().segments_for_bits(
        bdi(bdi::params{.line_bytes = 128}).size_bits(std::array<std::byte, 128>{}));
    if (zero_segments == 0) {
        CHECK(l1.stats().tag_only_fills == 16);
        CHECK(l1.resident_lines() == 16);
    } else {
        CHECK(l1.resident_lines() == 16 / zero_segments);
    }
    check_occupancy(l1);
}

TEST_CASE("compressed_l1: the line's bytes from access::data equal the image's") {
    gpu::shared_code_book book_a, book_b;
    static_bdi_l1 from_image({.verify_round_trip = true}, {.mode = 1}, &book_a);
    static_bdi_l1 from_data({.verify_round_trip = true}, {.mode = 1}, &book_b);
    const pattern_image image;
    std::array<std::byte, 128> line{};
    for (std::uint64_t i = 0; i < 40; ++i) {
        const std::uint64_t l = set0_line(i % 13) + i % 3;
        const auto a = from_image.access(load(l), i, image);
        memsub::access with_data = load(l);
        image.read(l * 128, line);
        with_data.data = line;
        const auto b = from_data.access(with_data, i);
        CHECK(a.hit() == b.hit());
        CHECK(a.mode == b.mode);
        CHECK(a.stored_segments == b.stored_segments);
    }
    CHECK(from_data.stats().fills_by_mode[1] == from_image.stats().fills_by_mode[1]);
    CHECK(from_data.stats().fills_by_mode[1] > 0);
    CHECK(from_data.stats().round_trip_failures == 0);
}

TEST_CASE("compressed_l1: evictions during a sampling EP leave the VFT (Decision)") {
    gpu::shared_code_book book({.l1s = 1, .ep_accesses = 64});
    using none_l1 = gpu::compressed_l1<selection::static_mode, bdi, sc2>;
    none_l1 l1({}, {.mode = 0}, &book);
    const pattern_image image;
    compression::value_frequency_table inserted_only;
    std::array<std::byte, 128> line{};
    for (std::uint64_t i = 0; i < 40; ++i) { // 40 lines of one set: 36 evictions
        l1.access(load(set0_line(i)), i, image);
        image.read(set0_line(i) * 128, line);
        inserted_only.on_insert(line);
    }
    REQUIRE(book.sampling());
    CHECK(l1.engine().stats().evictions == 36);
    CHECK(book.sampled_lines() == 40);
    CHECK(book.vft().counts() == inserted_only.counts());
}

TEST_CASE("compressed_l1: a store invalidates its line (write-evict)") {
    gpu::shared_code_book book;
    static_bdi_l1 l1({}, {.mode = 1}, &book);
    const pattern_image image;
    l1.access(load(5), 0, image);
    CHECK(l1.access(load(5), 1, image).hit());
    const auto w = l1.access(store(5), 2, image);
    CHECK(w.engine.evictions.size() == 1);
    CHECK(l1.resident_lines() == 0);
    CHECK_FALSE(l1.access(load(5), 3, image).hit());
}

TEST_CASE("compressed_l1: hits of one instruction queue at the decompressor (Eq. 4.3)") {
    gpu::shared_code_book book({.l1s = 1, .ep_accesses = 4});
    using l1_type = gpu::compressed_l1<selection::static_mode, bdi, sc2>;
    l1_type l1({.base_hit_latency = 1}, {.mode = 1}, &book);
    const pattern_image image;
    for (std::uint64_t i = 0; i < 3; ++i) l1.access(load(i), 0, image);
    // Three BDI hits arriving in cycle 100: 1 + 2, 1 + 4, 1 + 6.
    CHECK(l1.access(load(0), 100, image).hit_latency == 3);
    CHECK(l1.access(load(1), 100, image).hit_latency == 5);
    CHECK(l1.access(load(2), 100, image).hit_latency == 7);
    CHECK(l1.access(load(2), 200, image).hit_latency == 3);
    CHECK(l1.stats().decompressions[1] == 4);
    CHECK(l1.stats().decompression_energy_nj == doctest::Approx(4 * 0.056));
    CHECK(l1.stats().compression_energy_nj == doctest::Approx(3 * 0.192));
}

TEST_CASE("compressed_l1: one code book for every L1, old-book lines retired in each") {
    gpu::shared_code_book book({.l1s = 2, .ep_accesses = 8, .eps_per_period = 3});
    using sc_l1 = gpu::compressed_l1<selection::static_mode, bdi, sc2>;
    sc_l1 a({.verify_round_trip = true}, {.mode = 2}, &book);
    sc_l1 b({.verify_round_trip = true}, {.mode = 2}, &book);
    const pattern_image image;
    // GPU EP 1 (16 accesses): no book yet, SC² lines are stored raw (mode 0).
    for (std::uint64_t i = 0; i < 8; ++i) {
        a.access(load(i), i, image);
        b.access(load(100 + i), i, image);
    }
    CHECK(book.generation() == 1);
    CHECK(a.stats().stored_raw[2] + a.stats().fills_by_mode[0] >= 8);
    CHECK(a.stats().fills_by_mode[2] == 0);
    // GPU EPs 2 and 3: new lines are SC² lines of book 1.
    for (std::uint64_t i = 8; i < 24; ++i) {
        a.access(load(i), i, image);
        b.access(load(100 + i), i, image);
    }
    CHECK(a.stats().fills_by_mode[2] > 0);
    CHECK(b.stats().fills_by_mode[2] > 0);
    CHECK(book.generation() == 2);
    std::uint32_t gen1 = 0;
    for (std::uint32_t s = 0; s < 32; ++s)
        for (std::uint32_t e = 0; e < 16; ++e) {
            const auto v = a.engine().block(set_index{s}, entry_index{e});
            gen1 +=
                v.valid && sc_l1::mode_of(v.payload) == 2 && sc_l1::generation_of(v.payload) == 1;
        }
    CHECK(gen1 > 0);
    // The next access of each L1 retires its book-1 lines first.
    a.access(load(1000), 100, image);
    b.access(load(1000), 100, image);
    CHECK(a.stats().retired == gen1);
    CHECK(b.stats().retired > 0);
    CHECK(a.engine().stats().removed(memsub::eviction_reason::retired) == gen1);
    for (std::uint32_t s = 0; s < 32; ++s)
        for (std::uint32_t e = 0; e < 16; ++e) {
            const auto v = a.engine().block(set_index{s}, entry_index{e});
            CHECK_FALSE((v.valid && sc_l1::mode_of(v.payload) == 2 &&
                         sc_l1::generation_of(v.payload) != 2));
        }
    CHECK(a.stats().round_trip_failures == 0);
    check_occupancy(a);
    check_occupancy(b);
}

TEST_CASE("compressed_l1: LATTE-CC may not choose SC² before the first code book") {
    gpu::shared_code_book book({.l1s = 1});
    using latte_l1 = gpu::compressed_l1<selection::latte_cc, bdi, sc2>;
    latte_l1 l1({}, {}, &book);
    CHECK(l1.selector().allowed_modes() == 0b011);
    const pattern_image image;
    for (std::uint64_t i = 0; i < 256; ++i) l1.access(load(i % 64), i, image);
    CHECK(book.has_book());
    l1.access(load(0), 256, image);
    CHECK(l1.selector().allowed_modes() == 0b111);
}

TEST_CASE("compressed_l1: Adaptive-CMP sees tag-only entries of evicted lines") {
    gpu::shared_code_book book;
    using cmp_l1 = gpu::compressed_l1<selection::adaptive_cmp, bdi, sc2>;
    // Incompressible lines: the counter stays at 0, lines are stored raw, 4 per set.
    {
        cmp_l1 l1({}, {.compressed_mode = 1}, &book);
        const pattern_image noise{pattern_image::kind::random};
        for (std::uint64_t i = 0; i < 5; ++i) l1.access(load(set0_line(i)), i, noise);
        CHECK(l1.resident_lines() == 4);
        l1.access(load(set0_line(0)), 10, noise);     // line 0 was evicted: a tag-only entry
        CHECK(l1.selector().avoidable_misses() == 0); // would not have fit compressed either
        CHECK(l1.selector().counter() == 0);
    }
    // Compressible lines stored raw (the counter starts at 0): the fifth line's eviction of
    // line 0 was avoidable, so its return counts +120 and the cache starts compressing.
    {
        cmp_l1 l1({}, {.compressed_mode = 1}, &book);
        const pattern_image image;
        for (std::uint64_t i = 0; i < 5; ++i) l1.access(load(set0_line(i)), i, image);
        CHECK(l1.stats().fills_by_mode[0] == 5);
        l1.access(load(set0_line(0)), 10, image);
        CHECK(l1.selector().avoidable_misses() == 1);
        CHECK(l1.selector().counter() == 120);
        // Now new lines are compressed; a hit to line 0 (uncompressed, MRU) changes nothing.
        l1.access(load(set0_line(5)), 11, image);
        CHECK(l1.stats().fills_by_mode[1] == 1);
        CHECK(l1.access(load(set0_line(0)), 12, image).hit());
        CHECK(l1.selector().counter() == 120);
        // A hit to the BDI line just inserted, at depth 1: a penalized hit (−2).
        CHECK(l1.access(load(set0_line(5)), 13, image).hit());
        CHECK(l1.selector().penalized_hits() == 1);
        CHECK(l1.selector().counter() == 118);
        check_occupancy(l1);
    }
}

TEST_CASE("compressed_l1: every stored line of real kernel data decompresses to its bytes") {
    using namespace memsub::workload::simt;
    const csr_graph g = make_rmat_graph({.scale = 12, .edge_factor = 8, .seed = 3});
    bfs_kernel k(g);
    gto_scheduler<bfs_kernel> sched(k, gto_params{.sms = 2});
    gpu::shared_code_book book({.l1s = 2, .ep_accesses = 64});
    using latte_l1 = gpu::compressed_l1<selection::latte_cc, bdi, sc2>;
    std::vector<latte_l1> l1s;
    l1s.reserve(2);
    for (int i = 0; i < 2; ++i)
        l1s.emplace_back(gpu::compressed_l1_params{.verify_round_trip = true},
                         selection::latte_cc::params{}, &book);
    const gpu::coalescer co;
    gpu::coalesced_warp cw;
    warp_instruction w;
    std::uint64_t n = 0;
    while (sched.next(w) && n < 200000) {
        auto& l1 = l1s[w.sm];
        co.coalesce(w.lanes, w.active_mask, w.access_bytes, cw);
        memsub::access proto;
        proto.kind = w.kind;
        proto.pc = w.pc;
        co.for_each_request(cw, proto,
                            [&](const memsub::access& a) { l1.access(a, n, k.memory()); });
        ++n;
    }
    std::uint64_t checks = 0;
    for (auto& l1 : l1s) {
        CHECK(l1.stats().round_trip_failures == 0);
        checks += l1.stats().round_trip_checks;
        check_occupancy(l1);
    }
    CHECK(checks > 1000);
    CHECK(book.generation() >= 2);
}

TEST_CASE("compressed_l1: bad configuration throws config_error naming the rule") {
    auto what = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const config_error& e) {
            return e.what();
        }
        return "no error";
    };
    CHECK(what([] { static_bdi_l1 l1({}, {.mode = 1}, nullptr); }).find("code_book") !=
          std::string::npos);
    CHECK(what([] { gpu::shared_code_book book({.ep_accesses = 0}); }).find("ep_accesses") !=
          std::string::npos);
    CHECK(what([] {
              gpu::shared_code_book book;
              gpu::compressed_l1<selection::latte_cc, bdi, sc2> l1(
                  {}, {.schedule = {.ep_accesses = 0}}, &book);
          }).find("ep_accesses") != std::string::npos);
}
