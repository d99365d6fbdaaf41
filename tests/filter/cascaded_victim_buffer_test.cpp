// ReMAP's cascaded victim buffer: shift timing every E/3 insertions, PERD classes by stage.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/filter/all.hpp>

using memsub::filter::cascaded_victim_buffer;
using memsub::filter::reuse_distance;

TEST_CASE("victim buffer: E = entries per set x sets, a stage holds floor(E/3), c bits each") {
    const cascaded_victim_buffer b(1024, {});  // ReMAP-16 on 1024 sets
    CHECK(b.stage_entries() == 16 * 1024 / 3); // 5461
    CHECK(b.storage_bits() == 3ull * 10 * 5461);
    const cascaded_victim_buffer eight(1024, {.entries_per_set = 8});
    CHECK(eight.stage_entries() == 8 * 1024 / 3);
    const cascaded_victim_buffer paper(1024, {.stage_entries = 5 * 1024});
    CHECK(paper.storage_bits() == 153'600); // 18.75 KB
    CHECK(paper.storage_bits() == 18.75 * 1024 * 8);
    const cascaded_victim_buffer tiny(1, {.entries_per_set = 2});
    CHECK(tiny.stage_entries() == 1); // at least one
}

TEST_CASE("victim buffer: stages shift right after every E/3-th insertion") {
    cascaded_victim_buffer b(4, {.entries_per_set = 3}); // E = 12, E/3 = 4
    REQUIRE(b.stage_entries() == 4);
    for (std::uint64_t i = 1; i <= 3; ++i) {
        b.insert(100 + i);
        CHECK(b.shifts() == 0);
        CHECK(b.pending_in_stage1() == i);
    }
    b.insert(104); // the fourth insertion shifts
    CHECK(b.shifts() == 1);
    CHECK(b.pending_in_stage1() == 0);
    CHECK(b.stage_inserted(0) == 0);
    CHECK(b.stage_inserted(1) == 4);
    for (std::uint64_t i = 0; i < 8; ++i) b.insert(200 + i);
    CHECK(b.shifts() == 3);
    CHECK(b.stage_inserted(1) == 4);
    CHECK(b.stage_inserted(2) == 4);
}

TEST_CASE("victim buffer: PERD near / intermediate / far / distant by how many shifts ago") {
    // E/3 = 4. Insert a, then 3 fillers: shift 1 (a is now in stage 2) ...
    cascaded_victim_buffer b(4, {.entries_per_set = 3});
    CHECK(b.classify(1) == reuse_distance::distant); // never evicted
    b.insert(1);
    CHECK(b.classify(1) == reuse_distance::near);
    CHECK(static_cast<int>(b.classify(1)) == 3);
    for (std::uint64_t i = 0; i < 3; ++i) b.insert(1000 + i); // 4th insertion: shift
    CHECK(b.classify(1) == reuse_distance::intermediate);
    for (std::uint64_t i = 0; i < 4; ++i) b.insert(2000 + i);
    CHECK(b.classify(1) == reuse_distance::far);
    for (std::uint64_t i = 0; i < 4; ++i) b.insert(3000 + i);
    CHECK(b.classify(1) == reuse_distance::distant); // stage 3 was discarded
    // Youngest stage wins: an address in stage 3 and stage 1 is near.
    b.insert(3000);
    CHECK(b.classify(3000) == reuse_distance::near);
    b.clear();
    CHECK(b.classify(3000) == reuse_distance::distant);
}

TEST_CASE("victim buffer: bad parameters throw config_error naming the buffer") {
    auto param = [](std::uint32_t sets, cascaded_victim_buffer::params p) -> std::string {
        try {
            cascaded_victim_buffer b(sets, p);
        } catch (const memsub::config_error& e) {
            CHECK(e.component() == "memsub::filter::cascaded_victim_buffer");
            return e.parameter();
        }
        return "<none>";
    };
    CHECK(param(0, {}) == "sets");
    CHECK(param(16, {.entries_per_set = 0}) == "entries_per_set");
    CHECK(param(16, {.bits_per_entry = 0}) == "bits_per_entry");
    CHECK(param(16, {.hashes = 0}) == "hashes");
    CHECK(param(16, {}) == "<none>");
}

TEST_CASE("victim buffer: each stage answers exactly as a bloom_filter fed the same keys") {
    // Independent model: three bloom_filters with the same c, k and size, shifted by hand.
    cascaded_victim_buffer b(64, {.entries_per_set = 3}); // E/3 = 64, 640 bits per stage
    const memsub::filter::bloom_filter::params fp{.entries = 64, .bits_per_entry = 10, .hashes = 7};
    std::vector<memsub::filter::bloom_filter> model(3, memsub::filter::bloom_filter(fp));
    std::uint64_t st = 5;
    std::uint64_t mismatches = 0, positives = 0;
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t key = memsub::splitmix64(st) % 5000;
        b.insert(key);
        model[0].insert(key);
        if (model[0].inserted() == 64) { // shift: 3 dropped, 1 → 2 → 3, empty stage 1
            model[2] = model[1];
            model[1] = model[0];
            model[0].clear();
        }
        for (std::uint64_t probe = 0; probe < 5000; probe += 7)
            for (std::uint32_t age = 0; age < 3; ++age) {
                const bool want = model[age].contains(probe);
                positives += want;
                mismatches += b.stage_contains(age, probe) != want;
            }
        for (std::uint32_t age = 0; age < 3; ++age)
            REQUIRE(b.stage_bits_set(age) == model[age].bits_set());
    }
    CHECK(mismatches == 0);
    CHECK(positives > 10000);
}
