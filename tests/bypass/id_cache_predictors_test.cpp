// ID-Cache's online bypass predictors, `bypass::pc_only` and `bypass::pc_divergence`: Algorithm 3
// ([Dissertation] §3.2.2; docs/mechanisms/id_cache.md, 'Bypass predictors') on crafted sequences,
// the page's decisions (initial counter, saturation, bins, train_hit_on, recovery sampling),
// storage, an independent reference model of Algorithm 3 on a random stream, and the bypass
// contract.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <vector>

#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/bypass/pc_only.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/testing/contract.hpp>

using namespace memsub;
using bypass::pc_divergence;
using bypass::pc_only;
using cache::bypass_reason;
using replacement::lru;

namespace {

// One set, two 128 B ways: the third distinct line evicts the LRU one.
const geometry tiny{.sets = 1, .ways = 2, .line_bytes = 128};

template <class B>
using tiny_cache = cache::set_associative_cache<lru, cache::write_policy::write_back, geometry, B>;

memsub::access load(std::uint64_t line, std::uint64_t pc, std::uint32_t d = 1) {
    memsub::access a;
    a.address = byte_address{line * 128};
    a.pc = pc;
    a.divergence = d;
    return a;
}

constexpr std::uint64_t pc_a = 0x100; // index (0x100 >> 3) & 127 = 32
constexpr std::uint64_t pc_b = 0x208; // index 65

} // namespace

TEST_CASE("pc_only: index = the low 7 bits of the PC after the alignment bits") {
    const pc_only p(tiny, {});
    CHECK(p.index_of(load(0, 0x100)) == 32);
    CHECK(p.index_of(load(0, 0x100 + 128 * 8)) == 32); // aliases: only 7 bits are kept
    CHECK(p.index_of(load(0, 0x107)) == 32);           // alignment bits dropped
    const pc_only raw(tiny, {.pc_alignment_bits = 0});
    CHECK(raw.index_of(load(0, 0x105)) == 5);
    CHECK(p.table().table_size() == 128);
}

TEST_CASE("Algorithm 3, PC-only: a streaming PC is bypassed after one unreused eviction") {
    tiny_cache<pc_only> c(tiny);
    auto& p = c.bypass_predictor();
    CHECK(p.counter(load(0, pc_a)) == 1); // initial value 1: new PCs insert
    CHECK(c.access(load(0, pc_a)).filled());
    CHECK(c.access(load(1, pc_a)).filled());
    CHECK(p.counter(load(0, pc_a)) == 1);
    // Line 2 evicts line 0, never reused: table[A] 1 -> 0.
    const auto r = c.access(load(2, pc_a));
    CHECK(r.filled());
    REQUIRE(r.evictions.size() == 1);
    CHECK_FALSE(r.evictions[0].reused);
    CHECK(p.counter(load(0, pc_a)) == 0);
    // Miss with table[A] == 0: bypass.
    const auto b = c.access(load(3, pc_a));
    CHECK(b.bypass == bypass_reason::predictor);
    CHECK_FALSE(b.filled());
    // Another PC is unaffected.
    CHECK(c.access(load(4, pc_b)).filled());
    // As printed, A never recovers: its lines are never inserted, so never hit.
    for (std::uint64_t l = 10; l < 40; ++l)
        CHECK(c.access(load(l, pc_a)).bypass == bypass_reason::predictor);
    CHECK(p.counter(load(0, pc_a)) == 0);
}

TEST_CASE("Algorithm 3: hits count up (saturating at 7), reused lines leave without penalty") {
    tiny_cache<pc_only> c(tiny);
    auto& p = c.bypass_predictor();
    c.access(load(0, pc_a));
    for (int i = 0; i < 10; ++i) CHECK(c.access(load(0, pc_a)).hit);
    CHECK(p.counter(load(0, pc_a)) == 7); // 3-bit counter saturates
    c.access(load(1, pc_b));
    const auto r = c.access(load(2, pc_b)); // evicts line 0 (reused)
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].reused);
    CHECK(p.counter(load(0, pc_a)) == 7);
    // Unreused evictions of A's lines count down one each.
    tiny_cache<pc_only> d(tiny, {}, {.initial_counter = 3});
    auto& q = d.bypass_predictor();
    std::uint32_t expected = 3;
    for (std::uint64_t l = 0; l < 6; ++l) {
        const auto x = d.access(load(l, pc_a));
        if (!x.evictions.empty()) --expected;
        CHECK(q.counter(load(0, pc_a)) == expected);
        if (expected == 0) break;
    }
    CHECK(expected == 0);
}

TEST_CASE("train_hit_on: the inserting PC (default, SHiP) or the hitting PC (Alg. 3 literal)") {
    for (const auto mode : {bypass::hit_training::inserting, bypass::hit_training::hitting}) {
        tiny_cache<pc_only> c(tiny, {}, {.train_hit_on = mode});
        auto& p = c.bypass_predictor();
        c.access(load(0, pc_a));            // A inserts line 0
        CHECK(c.access(load(0, pc_b)).hit); // B hits it
        if (mode == bypass::hit_training::inserting) {
            CHECK(p.counter(load(0, pc_a)) == 2);
            CHECK(p.counter(load(0, pc_b)) == 1);
        } else {
            CHECK(p.counter(load(0, pc_a)) == 1);
            CHECK(p.counter(load(0, pc_b)) == 2);
        }
    }
}

TEST_CASE("only replacement evictions train: invalidations and write-evicts do not") {
    cache::set_associative_cache<lru, cache::write_policy::write_evict, geometry, pc_only> c(tiny);
    auto& p = c.bypass_predictor();
    c.access(load(0, pc_a));
    CHECK(c.invalidate(byte_address{0}).has_value()); // unreused, but invalidated: no training
    CHECK(p.counter(load(0, pc_a)) == 1);
    c.access(load(1, pc_a));
    auto st = load(1, pc_b);
    st.kind = access_kind::store;
    const auto r = c.access(st); // a store hit: trains A up, then write-evicts the line
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].reason == memsub::eviction_reason::write_evict);
    CHECK(p.counter(load(0, pc_a)) == 2);
    // A store miss does not allocate (write-no-allocate decides first, Q1): no prediction used.
    auto miss = load(7, pc_a);
    miss.kind = access_kind::store;
    CHECK(c.access(miss).bypass == bypass_reason::write_no_allocate);
}

TEST_CASE("learning_sample_rate N: one in N would-be bypasses inserts, and a PC can recover") {
    tiny_cache<pc_only> c(tiny, {}, {.learning_sample_rate = 4});
    auto& p = c.bypass_predictor();
    c.access(load(0, pc_a));
    c.access(load(1, pc_a));
    c.access(load(2, pc_a)); // evicts 0 unreused -> 0
    REQUIRE(p.counter(load(0, pc_a)) == 0);
    std::vector<bool> filled;
    for (std::uint64_t l = 100; l < 108; ++l) filled.push_back(c.access(load(l, pc_a)).filled());
    CHECK(filled == std::vector<bool>{false, false, false, true, false, false, false, true});
    // The sampled line (107) is hit: A comes back.
    CHECK(c.access(load(107, pc_a)).hit);
    CHECK(p.counter(load(0, pc_a)) == 1);
    CHECK(c.access(load(200, pc_a)).filled());
    // Off by default: no sampled insert ever.
    tiny_cache<pc_only> off(tiny);
    off.access(load(0, pc_a));
    off.access(load(1, pc_a));
    off.access(load(2, pc_a));
    for (std::uint64_t l = 100; l < 200; ++l) CHECK_FALSE(off.access(load(l, pc_a)).filled());
}

TEST_CASE("pc_divergence: bins d = 1 | 2-3 | 4-15 | >= 16, index = PC bits x 4 + bin") {
    const pc_divergence p(tiny, {});
    CHECK(p.bin_of(0) == 0);
    CHECK(p.bin_of(1) == 0);
    CHECK(p.bin_of(2) == 1);
    CHECK(p.bin_of(3) == 1);
    CHECK(p.bin_of(4) == 2);
    CHECK(p.bin_of(15) == 2);
    CHECK(p.bin_of(16) == 3);
    CHECK(p.bin_of(32) == 3);
    CHECK(p.bin_of(64) == 3);
    CHECK(p.index_of(load(0, pc_a, 1)) == 32 * 4 + 0);
    CHECK(p.index_of(load(0, pc_a, 32)) == 32 * 4 + 3);
    CHECK(p.table().table_size() == 512);
    const pc_divergence q(tiny, {.divergence_bin_starts = {3, 8, 9}});
    CHECK(q.bin_of(2) == 0);
    CHECK(q.bin_of(8) == 2);
    CHECK(q.bin_of(9) == 3);
}

TEST_CASE("Algorithm 3, PC+Div: a PC's divergent references are bypassed, its convergent ones "
          "still insert (the case PC-only cannot separate, §3.2.1 ELL PC_3)") {
    tiny_cache<pc_divergence> c(tiny);
    tiny_cache<pc_only> o(tiny);
    // The same PC: convergent references reuse their line, divergent ones stream.
    std::uint64_t stream = 1000;
    for (int round = 0; round < 20; ++round) {
        c.access(load(0, pc_a, 1));
        c.access(load(0, pc_a, 1));
        o.access(load(0, pc_a, 1));
        o.access(load(0, pc_a, 1));
        for (int k = 0; k < 3; ++k) {
            c.access(load(stream, pc_a, 32));
            o.access(load(stream, pc_a, 32));
            ++stream;
        }
    }
    const auto& p = c.bypass_predictor();
    CHECK(p.counter(load(0, pc_a, 32)) == 0);
    CHECK(p.counter(load(0, pc_a, 1)) > 0);
    CHECK(c.access(load(stream++, pc_a, 32)).bypass == bypass_reason::predictor);
    CHECK(c.access(load(5000, pc_a, 1)).filled());
    // With the PC alone the streaming and the reused references share one counter: the
    // streaming evictions outnumber the reuse hits, it reaches 0, and the convergent references
    // that would hit are bypassed too.
    CHECK(o.bypass_predictor().counter(load(0, pc_a, 1)) == 0);
    CHECK(o.access(load(5000, pc_a, 1)).bypass == bypass_reason::predictor);
}

TEST_CASE("storage_bits: table x counter bits + tag entries x index bits (+ sampler)") {
    const geometry l1{.sets = 32, .ways = 4, .line_bytes = 128};
    const geometry var{
        .sets = 32, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    CHECK(pc_only(l1, {}).storage_bits() == 128 * 3 + 128 * 7);
    CHECK(pc_only(var, {}).storage_bits() == 128 * 3 + 512 * 7);
    CHECK(pc_divergence(l1, {}).storage_bits() == 512 * 3 + 128 * 9);
    CHECK(pc_divergence(var, {}).storage_bits() == 512 * 3 + 512 * 9);
    CHECK(pc_only(l1, {.learning_sample_rate = 32}).storage_bits() == 128 * 3 + 128 * 7 + 5);
    CHECK(pc_only(l1, {.counter_bits = 2}).storage_bits() == 128 * 2 + 128 * 7);
}

TEST_CASE("bad params throw config_error") {
    CHECK_THROWS_AS(pc_only(tiny, {.pc_index_bits = 0}), config_error);
    CHECK_THROWS_AS(pc_only(tiny, {.pc_index_bits = 15}), config_error);
    CHECK_THROWS_AS(pc_only(tiny, {.counter_bits = 9}), config_error);
    CHECK_THROWS_AS(pc_only(tiny, {.counter_bits = 2, .initial_counter = 4}), config_error);
    CHECK_THROWS_AS(pc_divergence(tiny, {.divergence_bin_starts = {1, 4, 16}}), config_error);
    CHECK_THROWS_AS(pc_divergence(tiny, {.divergence_bin_starts = {2, 2, 16}}), config_error);
    CHECK_THROWS_AS(pc_divergence(tiny, {.divergence_bin_starts = {2, 4, 4}}), config_error);
}

namespace {

/// An independent model of Algorithm 3 (with memsub's decisions, defaults) beside a conventional
/// cache: the test keeps, per resident line, the inserting index and a reused bit, and its own
/// table.
template <class P>
void check_against_reference(std::uint64_t seed) {
    const geometry g{.sets = 4, .ways = 2, .line_bytes = 128};
    tiny_cache<P> c(g);
    const P& p = c.bypass_predictor();
    std::vector<int> table(p.table().table_size(), 1);
    struct line_state {
        std::uint32_t index;
        bool reused;
    };
    std::map<std::uint64_t, line_state> resident;
    xoshiro256ss r{seed};
    std::uint64_t bypasses = 0, hits = 0;
    for (int i = 0; i < 20000; ++i) {
        // 8 PCs; PCs 0-3 reuse a small footprint, 4-7 stream; divergence varies by PC.
        const std::uint64_t pc_slot = r.below(8);
        const std::uint64_t line = pc_slot < 4 ? r.below(6) : 100 + r.below(4000);
        const auto d = static_cast<std::uint32_t>(pc_slot % 2 == 0 ? 1 : 1 + r.below(32));
        const auto a = load(line, pc_slot * 8, d);
        const std::uint32_t idx = p.index_of(a);
        const bool expect_hit = resident.contains(line);
        const bool expect_bypass = !expect_hit && table[idx] == 0;
        const auto res = c.access(a);
        REQUIRE(res.hit == expect_hit);
        REQUIRE((res.bypass == bypass_reason::predictor) == expect_bypass);
        if (res.hit) {
            ++hits;
            auto& s = resident[line];
            s.reused = true;
            table[s.index] = std::min(table[s.index] + 1, 7);
        }
        bypasses += expect_bypass;
        for (const auto& e : res.evictions) {
            const auto it = resident.find(e.line.value);
            REQUIRE(it != resident.end());
            CHECK(e.reused == it->second.reused);
            if (!it->second.reused)
                table[it->second.index] = std::max(table[it->second.index] - 1, 0);
            resident.erase(it);
        }
        if (res.filled()) resident[line] = {idx, false};
    }
    for (std::uint32_t i = 0; i < table.size(); ++i) REQUIRE(p.table().counter(i) == table[i]);
    CHECK(bypasses > 0); // the stream exercises both outcomes
    CHECK(hits > 0);
}

} // namespace

TEST_CASE("property: pc_only and pc_divergence equal an independent Algorithm 3 model") {
    check_against_reference<pc_only>(1);
    check_against_reference<pc_only>(2);
    check_against_reference<pc_divergence>(3);
    check_against_reference<pc_divergence>(4);
}

TEST_CASE("both predictors pass the bypass contract (K1, K3-K7), with every option") {
    const auto report = [](const testing::contract_report& r) {
        INFO(r.text());
        CHECK(r.ok());
        CHECK(r.passes.size() == 2);
    };
    report(testing::check_bypass_contract<pc_only>());
    report(testing::check_bypass_contract<pc_divergence>());
    report(
        testing::check_bypass_contract<pc_only>({.pc_alignment_bits = 0,
                                                 .learning_sample_rate = 8,
                                                 .train_hit_on = bypass::hit_training::hitting}));
    report(testing::check_bypass_contract<pc_divergence>({.pc_index_bits = 3,
                                                          .pc_alignment_bits = 0,
                                                          .counter_bits = 1,
                                                          .learning_sample_rate = 2}));
}
