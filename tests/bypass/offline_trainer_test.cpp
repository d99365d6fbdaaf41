// The offline-trained ID-Cache predictors (bypass/offline_trainer.hpp; [Dissertation] §3.2.2,
// docs/mechanisms/id_cache.md, 'Offline-trained variant'): the rules on crafted reuse-distance
// profiles (a streaming PC, a hot PC, a PC whose divergent references reuse too far), table
// aliasing by majority, construction from the trained table (frozen or as a starting point), and
// errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include <memsub/bypass/offline_trainer.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/profile/reuse_distance_profile.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/testing/contract.hpp>

using namespace memsub;
using bypass::offline_training_params;
using bypass::pc_divergence;
using bypass::pc_only;

namespace {

constexpr std::uint64_t stream_pc = 0x100; // pc_only index (0x100 >> 3) & 127 = 32
constexpr std::uint64_t hot_pc = 0x208;    // index 65
constexpr std::uint64_t mixed_pc = 0x310;  // index 98

const geometry l1{.sets = 32, .ways = 4, .line_bytes = 128};

/// `n` references of `pc` with divergence `d` cycling over `lines` distinct lines of set 0:
/// after the first pass each reference has distance lines − 1.
void cycle(profile::reuse_distance_profile& p, std::uint64_t pc, std::uint32_t d,
           std::uint64_t first_line, std::uint32_t lines, int n) {
    for (int i = 0; i < n; ++i)
        (void)p.reference(pc, d, (first_line + 32 * static_cast<std::uint64_t>(i % lines)) * 128);
}

profile::reuse_distance_profile crafted_profile() {
    profile::reuse_distance_profile p;
    // Streaming: 400 references to distinct lines (never reused: "beyond").
    for (int i = 0; i < 400; ++i) (void)p.reference(stream_pc, 1, (100000 + 32 * i) * 128ull);
    // Hot: 2 lines cycled (distance 1) in set 0.
    cycle(p, hot_pc, 1, 1000, 2, 400);
    // Mixed: convergent references reuse at distance 2; d = 2..3 references cycle over 10 lines
    // (distance 9 > 6); its d >= 16 references cycle over 3 lines (distance 2, yet bypassed by
    // the divergence rule because a lower bin reused too far).
    cycle(p, mixed_pc, 1, 2000, 3, 300);
    cycle(p, mixed_pc, 2, 3000, 10, 300);
    cycle(p, mixed_pc, 20, 4000, 3, 300);
    return p;
}

template <class Base>
using trained = bypass::offline<Base>;

memsub::access load(std::uint64_t line, std::uint64_t pc, std::uint32_t d = 1) {
    memsub::access a;
    a.address = byte_address{line * 128};
    a.pc = pc;
    a.divergence = d;
    return a;
}

} // namespace

TEST_CASE("offline PC-only: a PC whose median reuse distance is above 8 is bypassed") {
    const auto profile = crafted_profile();
    CHECK(profile.of_pc(stream_pc)->median == profile.beyond());
    CHECK(profile.of_pc(hot_pc)->median == 1);
    const auto t = bypass::train(profile, pc_only::params{});
    CHECK(t.index_bits == 7);
    REQUIRE(t.counters.size() == 128);
    CHECK(t.counters[32] == 0); // streaming: bypass
    CHECK(t.counters[65] == 1); // hot: insert
    // mixed_pc's references: 300 at distance 2, 300 at 9, 300 at 2 → median 2: inserted.
    CHECK(t.counters[98] == 1);
    CHECK(t.counters[0] == 1); // no profiled PC: insert
    CHECK(t.frozen);

    pc_only p(l1, pc_only::params{}, t);
    CHECK(p.should_bypass(set_index{0}, load(1, stream_pc)));
    CHECK_FALSE(p.should_bypass(set_index{0}, load(1, hot_pc)));
}

TEST_CASE("offline PC+Div: bins above a bin that reuses beyond 6 are bypassed") {
    const auto profile = crafted_profile();
    const auto t = bypass::train(profile, pc_divergence::params{});
    CHECK(t.index_bits == 9);
    const auto at = [&](std::uint32_t pc_index, std::uint32_t bin) {
        return t.counters[(pc_index << 2) | bin];
    };
    CHECK(at(32, 0) == 0); // streaming PC: every bin it used
    CHECK(at(65, 0) == 1);
    CHECK(at(98, 0) == 1); // convergent: median 2
    CHECK(at(98, 1) == 1); // the bin that reuses too far is itself kept ("greater than d")
    CHECK(at(98, 2) == 0); // never profiled, but above bin 1: bypassed
    CHECK(at(98, 3) == 0); // distance 2, yet above bin 1: bypassed
    // Thresholds are params: at 9 the d = 2..3 bin no longer triggers the filter.
    const auto loose = bypass::train(profile, pc_divergence::params{},
                                     offline_training_params{.divergence_distance_above = 9});
    CHECK(loose.counters[(98u << 2) | 3] == 1);
}

TEST_CASE("offline tables: PCs sharing an entry take the majority of their references") {
    profile::reuse_distance_profile p;
    const std::uint64_t alias = stream_pc + (128u << 3); // same low 7 bits after alignment
    for (int i = 0; i < 100; ++i) (void)p.reference(stream_pc, 1, (50000 + 32 * i) * 128ull);
    cycle(p, alias, 1, 1000, 2, 300); // 300 hot references outvote 100 streaming ones
    CHECK(bypass::train(p, pc_only::params{}).counters[32] == 1);
    for (int i = 0; i < 400; ++i) (void)p.reference(stream_pc, 1, (90000 + 32 * i) * 128ull);
    CHECK(bypass::train(p, pc_only::params{}).counters[32] == 0); // now 500 against 300
}

TEST_CASE("a frozen trained table never learns; an unfrozen one starts from it") {
    const auto profile = crafted_profile();
    auto t = bypass::train(profile, pc_only::params{});
    using cache_type =
        cache::set_associative_cache<replacement::lru, cache::write_policy::write_back, geometry,
                                     trained<pc_only>>;
    const geometry tiny{.sets = 1, .ways = 2, .line_bytes = 128};
    {
        cache_type c(tiny, {}, {.base = {}, .table = t});
        for (std::uint64_t line = 0; line < 50; ++line) (void)c.access(load(line, hot_pc));
        CHECK(c.bypass_predictor().counter(load(0, hot_pc)) == 1); // no eviction trained it
        CHECK(c.bypass_predictor().table().frozen());
    }
    t.frozen = false;
    {
        cache_type c(tiny, {}, {.base = {}, .table = t});
        for (std::uint64_t line = 0; line < 50; ++line) (void)c.access(load(line, hot_pc));
        CHECK(c.bypass_predictor().counter(load(0, hot_pc)) == 0);    // unreused evictions
        CHECK(c.bypass_predictor().counter(load(0, stream_pc)) == 0); // trained start
    }
}

TEST_CASE("offline training errors: table shape, counters, bins and insert value") {
    const auto profile = crafted_profile();
    auto t = bypass::train(profile, pc_only::params{});
    CHECK_THROWS_AS(pc_divergence(l1, pc_divergence::params{}, t), config_error); // 7 != 9 bits
    t.counters[3] = 9; // beyond 3 counter bits
    CHECK_THROWS_AS(pc_only(l1, pc_only::params{}, t), config_error);
    CHECK_THROWS_AS((void)bypass::train(profile, pc_only::params{},
                                        offline_training_params{.insert_counter = 0}),
                    config_error);
    pc_divergence::params other_bins;
    other_bins.divergence_bin_starts = {2, 8, 16};
    CHECK_THROWS_AS((void)bypass::train(profile, other_bins), config_error);
}

TEST_CASE("offline-trained predictors pass the bypass contract") {
    const auto profile = crafted_profile();
    const auto only = bypass::train(profile, pc_only::params{});
    const auto div = bypass::train(profile, pc_divergence::params{});
    const auto report = [](const testing::contract_report& r) {
        INFO(r.text());
        CHECK(r.ok());
        CHECK(r.passes.size() == 2);
    };
    report(testing::check_bypass_contract<trained<pc_only>>({.base = {}, .table = only}));
    report(testing::check_bypass_contract<trained<pc_divergence>>({.base = {}, .table = div}));
    auto learning = div;
    learning.frozen = false;
    report(testing::check_bypass_contract<trained<pc_divergence>>({.base = {}, .table = learning}));
}

TEST_CASE("offline PC-only and PC+Div decide alike unless a PC spans divergence bins") {
    // Both tables are trained from the same profile; they differ only where a PC has references
    // in a bin above one whose median distance passes 6, and the PC as a whole does not pass 8.
    const auto profile = crafted_profile();
    trained<pc_only> only(l1, {.base = {}, .table = bypass::train(profile, pc_only::params{})});
    trained<pc_divergence> div(
        l1, {.base = {}, .table = bypass::train(profile, pc_divergence::params{})});
    const auto both = [&](std::uint64_t pc, std::uint32_t d) {
        return std::pair{only.should_bypass(set_index{0}, load(1, pc, d)),
                         div.should_bypass(set_index{0}, load(1, pc, d))};
    };
    // mixed_pc's d >= 16 references: PC-only inserts them (the PC's median is 2), PC+Div
    // bypasses them (its d = 2..3 bin reuses at 9).
    CHECK(both(mixed_pc, 20) == std::pair{false, true});
    CHECK(both(mixed_pc, 1) == std::pair{false, false});
    // PCs whose references fall in one bin get one decision from both.
    CHECK(both(stream_pc, 1) == std::pair{true, true});
    CHECK(both(hot_pc, 1) == std::pair{false, false});
    // A PC of one bin whose median passes 6 but not 8: no higher bin to bypass, so both insert.
    profile::reuse_distance_profile one_bin;
    cycle(one_bin, hot_pc, 20, 5000, 8, 400); // distance 7, every reference d = 20
    trained<pc_only> only7(l1, {.base = {}, .table = bypass::train(one_bin, pc_only::params{})});
    trained<pc_divergence> div7(
        l1, {.base = {}, .table = bypass::train(one_bin, pc_divergence::params{})});
    CHECK_FALSE(only7.should_bypass(set_index{0}, load(1, hot_pc, 20)));
    CHECK_FALSE(div7.should_bypass(set_index{0}, load(1, hot_pc, 20)));
}
