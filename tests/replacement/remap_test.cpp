// ReMAP ([Dissertation] §2.2, docs/mechanisms/remap.md): least-cost victims against a brute-force
// model, PERD classes against an exact model of the victim buffer, MAC classes of Table 2.2 on
// crafted bank/row/pending sequences, the cost-moved selector, the 18.75 KB budget, variants.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/replacement/remap.hpp>
#include <memsub/testing/contract.hpp>

#include "helpers.hpp"

using namespace memsub;
using namespace memsub::replacement;
using cache::set_associative_cache;
using repl_test::line_access;

namespace {

constexpr std::uint32_t row_bytes = 8192, banks = 8;

/// A byte address in `bank`, `row`, at line `col` of the row (the default ReMAP mapping).
std::uint64_t dram_address(std::uint32_t bank, std::uint32_t row, std::uint32_t col) {
    return (std::uint64_t{row} * banks + bank) * row_bytes + std::uint64_t{col} * 64;
}

memsub::access at(std::uint64_t address, bool store = false) {
    memsub::access a{};
    a.address = byte_address{address};
    a.kind = store ? access_kind::store : access_kind::load;
    return a;
}

/// Exact model of the cascaded buffer (no false positives): PERD of `line` after `victims`.
struct buffer_model {
    std::uint64_t stage = 1;
    std::vector<std::uint64_t> victims;
    std::uint32_t perd(std::uint64_t line) const {
        const std::uint64_t now = victims.size() / stage;
        for (std::size_t n = victims.size(); n-- > 0;)
            if (victims[n] == line) {
                const std::uint64_t age = now - n / stage;
                return age <= 2 ? static_cast<std::uint32_t>(3 - age) : 0u;
            }
        return 0;
    }
};

template <class P>
struct harness_params {
    typename P::params base{};
    /// R' = R − min R before the costs (SRRIP's ageing step); false over LRU.
    bool srrip_ageing = true;
};

/// Runs a random stream with a brute-force check of every replacement decision. The caller's
/// victim buffer uses wide filters (64 bits per entry): no false positives, so the PERD model
/// is exact.
template <class P>
void check_least_cost(const harness_params<P>& p, std::uint64_t seed) {
    const geometry g{.sets = 16, .ways = 8, .line_bytes = 64};
    set_associative_cache<P> c(g, p.base);
    const auto& policy = c.policy();
    const auto& dual = policy.dual();
    buffer_model model{.stage = dual.victim_buffer().stage_entries(), .victims = {}};
    std::uint64_t st = seed;
    std::uint64_t checked = 0, perd_checked = 0, charged = 0, writeback_fills = 0;
    std::uint64_t false_positives = 0;
    for (int i = 0; i < 40000; ++i) {
        const std::uint64_t r = splitmix64(st);
        // Lines spread over banks and rows; a hot subset so lines come back.
        const std::uint64_t line = (r % 8 < 5) ? (r >> 8) % 96 : (r >> 8) % 4096;
        memsub::access a = at(line * 64, (r >> 40) % 5 == 0);
        if ((r >> 56) % 7 == 0) a.kind = access_kind::writeback; // from a level above
        if ((r >> 44) % 3 == 0)
            a.hints.memory_cost_class = static_cast<std::uint8_t>((r >> 50) % 4);
        const set_index s = c.set_of(a.address);
        // The brute-force victim, computed before the access from the policy's visible state.
        bool full = true;
        std::vector<std::uint32_t> rec(g.ways), perd(g.ways), mac(g.ways);
        std::vector<bool> confirmed(g.ways);
        for (std::uint32_t w = 0; w < g.ways; ++w) {
            rec[w] = dual.recency(s, entry_index{w});
            perd[w] = dual.perd(s, entry_index{w});
            mac[w] = dual.mac(s, entry_index{w});
            confirmed[w] = dual.confirmed(s, entry_index{w});
        }
        const std::uint32_t side = policy.side_of(s, 0);
        const auto res = c.access(a);
        if (res.hit) {
            // A demand hit confirms the line's PERD; a writeback hit does not.
            REQUIRE(dual.confirmed(res.set, res.entry) ==
                    (confirmed[res.entry.value] || a.kind != access_kind::writeback));
            continue;
        }
        if (!res.filled()) continue;
        if (res.evictions.empty()) full = false;
        if (full) {
            // SRRIP's ageing first (R' = R − min R), LRU has none.
            const std::uint32_t age =
                p.srrip_ageing ? *std::min_element(rec.begin(), rec.end()) : 0u;
            const remap_weights w = dual.weights()[side];
            std::uint32_t best = 0, best_cost = ~0u;
            for (std::uint32_t e = 0; e < g.ways; ++e) {
                const std::uint32_t cost =
                    w.recency * (rec[e] - age) + w.reuse * perd[e] + w.cost * mac[e];
                if (cost < best_cost) {
                    best_cost = cost;
                    best = e;
                }
            }
            REQUIRE(res.evictions[0].entry.value == best);
            model.victims.push_back(res.evictions[0].line.value);
            ++checked;
            // Every other unconfirmed line that outranked the victim only by its PERD term lost
            // one class.
            for (std::uint32_t e = 0; e < g.ways; ++e) {
                if (e == best) continue;
                const std::uint32_t base = w.recency * (rec[e] - age) + w.cost * mac[e];
                const bool spared = w.reuse != 0 && perd[e] != 0 && !confirmed[e] &&
                                    ((base << 6) | e) < ((best_cost << 6) | best);
                INFO("access " << i << " entry " << e);
                REQUIRE(dual.perd(s, entry_index{e}) == perd[e] - (spared ? 1u : 0u));
                charged += spared;
            }
        }
        // PERD of the inserted line = the buffer's class (the buffer has not changed since the
        // lookup), which is the exact model's class up to a Bloom-filter false positive (that
        // can only find the line in a younger stage); a writeback from above is not looked up.
        const std::uint32_t exact = model.perd(line);
        const auto found = static_cast<std::uint32_t>(dual.victim_buffer().classify(line));
        if (found != exact) {
            INFO("access " << i << " line " << line);
            REQUIRE(found > exact);
            ++false_positives;
        }
        const std::uint32_t expected = a.kind == access_kind::writeback ? 0u : found;
        writeback_fills += a.kind == access_kind::writeback && exact != 0;
        INFO("access " << i << " line " << line << " victims " << model.victims.size() << " shifts "
                       << dual.victim_buffer().shifts());
        REQUIRE(policy.perd(res.set, res.entry) == expected);
        REQUIRE_FALSE(policy.confirmed(res.set, res.entry));
        perd_checked += expected != 0;
        // A host class is stored as given.
        if (a.hints.memory_cost_class != host_hints::unknown_class)
            REQUIRE(policy.mac(res.set, res.entry) == a.hints.memory_cost_class);
    }
    CHECK(checked > 10000);
    CHECK(perd_checked > 300);
    CHECK(charged > 100);
    CHECK(writeback_fills > 50); // writeback fills the buffer would have called reused
    CHECK(false_positives <= 2); // rare with 64 bits per entry
}

} // namespace

static_assert(replacement_policy<remap> && replacement_policy<remap_lru>);
static_assert(replacement_policy<srrip_perd> && replacement_policy<srrip_mac>);
static_assert(reports_storage<remap> && observes_misses<remap>);

TEST_CASE("ReMAP names, default weights and the Fig. 2.6 variants") {
    const geometry g{.sets = 1024, .ways = 16, .line_bytes = 64};
    const remap r(g);
    CHECK(r.name() == "remap");
    CHECK(r.dual().weights()[0] == remap_weights{1, 1, 4});
    CHECK(r.dual().weights()[1] == remap_weights{1, 4, 1});
    CHECK(remap_lru(g).name() == "remap_lru");
    const srrip_perd perd(g);
    CHECK(perd.name() == "srrip_perd");
    CHECK(perd.dual().weights()[0] == remap_weights{1, 1, 0});
    CHECK(perd.dual().weights()[1] == remap_weights{1, 4, 0});
    const srrip_mac mac(g);
    CHECK(mac.name() == "srrip_mac");
    CHECK(mac.dual().weights()[0] == remap_weights{1, 0, 4});
    CHECK(mac.dual().weights()[1] == remap_weights{1, 0, 1});
    // 32 + 32 leader sets and a 10-bit PSEL, as DRRIP's.
    int leaders = 0;
    for (std::uint32_t s = 0; s < 1024; ++s) leaders += r.leader_role(set_index{s}) != 0;
    CHECK(leaders == 64);
    CHECK(r.psel_max() == 1023);
    CHECK(r.victim_buffer().stage_entries() == 5461);
}

TEST_CASE("ReMAP storage: the dissertation's 18.75 KB of Bloom filters (1 MB, 16-way, 64 B)") {
    const geometry g{.sets = 1024, .ways = 16, .line_bytes = 64}; // 16384 lines
    remap::params p;
    p.policy.victim_buffer.stage_entries = 5 * 1024; // "5K·c" bits per array (spec)
    const remap r(g, p);
    const std::uint64_t filters = 3ull * 5120 * 10;
    CHECK(filters == 153'600);
    CHECK(r.victim_buffer().storage_bits() == filters);
    CHECK(static_cast<double>(r.victim_buffer().storage_bits()) / 8 / 1024 == 18.75);
    const std::uint64_t lines = 16384;
    const std::uint64_t per_line = lines * (2 /*RRPV*/ + 3 /*PERD, confirmed*/ + 2 /*MAC*/);
    const std::uint64_t mac_table = r.dual().mac_table().storage_bits();
    CHECK(mac_table == 8 * (2 * 16 + 5) + 16 * 3); // 8 banks: two rows, a 0..16 counter; history
    CHECK(r.storage_bits() == filters + per_line + mac_table + 10 /*PSEL*/);
    // With the exact E/3 = 5461 entries per stage the filters take 20 KB (spec).
    const remap exact(g);
    CHECK(exact.victim_buffer().storage_bits() == 3ull * 5461 * 10);
    CHECK(exact.victim_buffer().storage_bits() / 8 / 1024 == 19); // 163830 bits ≈ 20.0 KB
    // Variants drop the per-line bits of the term they do not weigh.
    const srrip_perd perd(g,
                          srrip_perd::params{.policy = {.victim_buffer = {.stage_entries = 5120}}});
    CHECK(perd.storage_bits() == filters + lines * (2 + 3) + mac_table + 10);
    CHECK(remap_lru(g, {.policy = {.victim_buffer = {.stage_entries = 5120}}}).storage_bits() ==
          filters + lines * (4 + 5) + mac_table + 10);
}

TEST_CASE("ReMAP's victim is the least alpha.R + beta.PERD + gamma.MAC (brute force), lines "
          "spared by their PERD pay one class, and PERD matches an exact victim-buffer model "
          "(writebacks from above: distant)") {
    SUBCASE("over SRRIP") {
        harness_params<remap> p;
        p.base.policy.victim_buffer = {.entries_per_set = 3, .bits_per_entry = 64, .hashes = 7};
        check_least_cost<remap>(p, 11);
    }
    SUBCASE("over LRU") {
        harness_params<remap_lru> p;
        p.base.policy.victim_buffer = {.entries_per_set = 3, .bits_per_entry = 64, .hashes = 7};
        p.srrip_ageing = false;
        check_least_cost<remap_lru>(p, 12);
    }
    SUBCASE("fixed weights (2, 3, 5) on both sides") {
        harness_params<remap> p;
        p.base.policy.victim_buffer = {.entries_per_set = 5, .bits_per_entry = 64, .hashes = 7};
        p.base.policy.weights = {remap_weights{2, 3, 5}, remap_weights{2, 3, 5}};
        check_least_cost<remap>(p, 13);
    }
}

TEST_CASE("ReMAP ties: the lowest entry wins (strict < in Algorithm 1)") {
    // One set, 4 ways, all lines inserted alike: equal R, PERD 0, MAC from the host = 1.
    remap::params p;
    p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
    set_associative_cache<remap> c(geometry{.sets = 2, .ways = 4, .line_bytes = 64}, p);
    auto miss = [&](std::uint64_t line) {
        memsub::access a = at(line * 2 * 64); // set 0
        a.hints.memory_cost_class = 1;
        return c.access(a);
    };
    for (std::uint64_t l = 0; l < 4; ++l) REQUIRE(miss(l).evictions.empty());
    const auto r = miss(100);
    REQUIRE(r.evictions.size() == 1);
    CHECK(r.evictions[0].entry.value == 0);
}

TEST_CASE("ReMAP MAC classes (Table 2.2) from crafted bank / row / pending sequences") {
    const geometry g{.sets = 64, .ways = 8, .line_bytes = 64};
    SUBCASE("pending approximated over the last Q = 16 references") {
        set_associative_cache<remap> c(g);
        auto mac_of = [&](std::uint64_t addr) {
            const auto r = c.access(at(addr));
            REQUIRE(r.filled());
            return c.policy().mac(r.set, r.entry);
        };
        // Bank 0 idle, no previous row: no conflict, row miss → 2.
        CHECK(mac_of(dram_address(0, 5, 0)) == 2);
        // One reference to bank 0 in the window (pending 1), row = previous but not the one
        // before: conflict with a row miss among the last three → 3.
        CHECK(mac_of(dram_address(0, 5, 1)) == 3);
        // Pending 2, row = previous = the one before: conflict, row hit → 1.
        CHECK(mac_of(dram_address(0, 5, 2)) == 1);
        // Another row under pending references: 3.
        CHECK(mac_of(dram_address(0, 6, 0)) == 3);
        // An idle bank: 2.
        CHECK(mac_of(dram_address(3, 9, 0)) == 2);
        CHECK(c.policy().dual().mac_table().previous_row(3) == 9);
    }
    SUBCASE("no approximation (window 0): pending is 0, row hit → 0, row miss → 2") {
        remap::params p;
        p.policy.mac_window = 0;
        set_associative_cache<remap> c(g, p);
        auto mac_of = [&](std::uint64_t addr) {
            const auto r = c.access(at(addr));
            REQUIRE(r.filled());
            return c.policy().mac(r.set, r.entry);
        };
        CHECK(mac_of(dram_address(2, 7, 0)) == 2);
        CHECK(mac_of(dram_address(2, 7, 1)) == 0); // same row as the previous reference
        CHECK(mac_of(dram_address(2, 8, 0)) == 2);
        CHECK(mac_of(dram_address(5, 8, 0)) == 2); // another bank: its own history
        CHECK(mac_of(dram_address(2, 8, 3)) == 0);
    }
    SUBCASE("a host-supplied class wins; dirty victims are recorded as writebacks") {
        remap::params p;
        p.policy.mac_window = 0;
        p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
        set_associative_cache<remap> c(geometry{.sets = 2, .ways = 1, .line_bytes = 64}, p);
        memsub::access a = at(dram_address(1, 3, 0), true); // a store: the line becomes dirty
        a.hints.memory_cost_class = 3;
        auto r = c.access(a);
        CHECK(c.policy().mac(r.set, r.entry) == 3);
        CHECK(c.policy().dual().mac_table().previous_row(1) == 3);
        // A line of the same cache set in another bank evicts the dirty line: its writeback is
        // recorded at bank 1 (row 3 again), after the miss to bank 4 was.
        r = c.access(at(dram_address(4, 11, 2)));
        REQUIRE(r.evictions.size() == 1);
        REQUIRE(r.evictions[0].dirty);
        CHECK(c.policy().dual().mac_table().previous_row(4) == 11);
        CHECK(c.policy().dual().mac_table().row_before_previous(1) == 3); // recorded twice
    }
}

TEST_CASE("ReMAP's selector moves by the memory access cost of leader misses, not by count") {
    remap::params p;
    p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
    set_associative_cache<remap> c(geometry{.sets = 8, .ways = 2, .line_bytes = 64}, p);
    const auto& r = c.policy();
    std::uint64_t fresh = 100;
    auto miss_in = [&](std::uint32_t set, std::uint8_t cls, std::uint32_t cycles = 0) {
        memsub::access a = at((8 * fresh++ + set) * 64);
        a.hints.memory_cost_class = cls;
        a.hints.miss_cost_cycles = cycles;
        REQUIRE_FALSE(c.access(a).hit);
    };
    CHECK(r.psel() == 0);
    miss_in(0, 0); // class 0 → cost 1
    CHECK(r.psel() == 1);
    miss_in(0, 3); // class 3 → cost 4: same count, different move
    CHECK(r.psel() == 5);
    miss_in(0, 1, 90); // the host's cycles win over the class
    CHECK(r.psel() == 95);
    miss_in(1, 2); // side-1 leader: −3
    CHECK(r.psel() == 92);
    miss_in(2, 3, 500); // followers never move it
    CHECK(r.psel() == 92);
    // Hits never move it.
    memsub::access again = at((8 * (fresh - 2) + 1) * 64);
    REQUIRE(c.access(again).hit);
    CHECK(r.psel() == 92);
    // Two leader misses of different cost move it differently, where DRRIP moves it by one each.
    CHECK(r.follower_side() == 0);
    for (int i = 0; i < 120; ++i) miss_in(0, 3);
    CHECK(r.psel() == 92 + 480);
    CHECK(r.follower_side() == 1); // PSEL ≥ 512: followers take (1, 4, 1)
    CHECK(r.side_of(set_index{0}) == 0);
    CHECK(r.side_of(set_index{1}) == 1);
}

TEST_CASE("ReMAP's selector without host hints moves by its own MAC estimate + 1") {
    remap::params p;
    p.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}};
    p.policy.mac_window = 0; // pending 0: class 2 on a new row, 0 on the previous row
    set_associative_cache<remap> c(geometry{.sets = 2, .ways = 2, .line_bytes = 64}, p);
    // Set 0 = even lines; a row holds 128 lines, so lines 0, 2 share bank 0 row 0.
    REQUIRE_FALSE(c.access(at(0)).hit);
    CHECK(c.policy().psel() == 3); // class 2 + 1
    REQUIRE_FALSE(c.access(at(2 * 64)).hit);
    CHECK(c.policy().psel() == 4); // class 0 + 1
}

TEST_CASE("ReMAP: bad parameters throw config_error naming them") {
    const geometry g{.sets = 64, .ways = 8, .line_bytes = 64};
    auto param = [&](const remap::params& p) -> std::string {
        try {
            remap r(g, p);
        } catch (const config_error& e) {
            return e.parameter();
        }
        return "<none>";
    };
    remap::params p;
    CHECK(param(p) == "<none>");
    p.policy.dram_banks = 6;
    CHECK(param(p) == "dram_banks");
    p = {};
    p.policy.dram_row_bytes = 1000;
    CHECK(param(p) == "dram_row_bytes");
    p = {};
    p.policy.weights[1].cost = 5000;
    CHECK(param(p) == "weights");
    p = {};
    p.policy.rrip.rrpv_bits = 0;
    CHECK(param(p) == "rrpv_bits");
    p = {};
    p.policy.victim_buffer.entries_per_set = 0;
    CHECK(param(p) == "entries_per_set");
    p = {};
    p.policy.rrip.rrpv_bits = 4; // one byte per line holds RRPV, PERD and MAC
    CHECK(param(p) == "rrpv_bits");
    p = {};
    p.psel_bits = 0;
    CHECK(param(p) == "psel_bits");
}

TEST_CASE("ReMAP variants pass the replacement contract with other knobs") {
    testing::contract_options o;
    auto ok = [&](auto tag, const auto& params) {
        using P = typename decltype(tag)::type;
        const auto report = testing::check_replacement_contract<P>(params, o);
        INFO(report.text());
        CHECK(report.ok());
    };
    remap::params fp;
    fp.policy.rrip = {.rrpv_bits = 3, .promotion = hit_promotion::frequency_priority};
    fp.policy.victim_buffer = {.entries_per_set = 8, .bits_per_entry = 4, .hashes = 3};
    ok(std::type_identity<remap>{}, fp);
    remap::params fixed;
    fixed.policy.weights = {remap_weights{0, 0, 1}, remap_weights{0, 0, 1}}; // MAC alone
    fixed.policy.mac_window = 0;
    ok(std::type_identity<remap>{}, fixed);
    remap::params big_weights; // 32-bit keys (costs ≥ 512)
    big_weights.policy.weights = {remap_weights{200, 3, 1000}, remap_weights{1024, 1024, 1024}};
    ok(std::type_identity<remap>{}, big_weights);
    ok(std::type_identity<remap_lru>{}, remap_lru::params{});
    remap::params ta;
    ta.requesters = 2;
    ok(std::type_identity<remap>{}, ta);
}

TEST_CASE("ReMAP with costs >= 512 (32-bit victim keys) still evicts the least cost") {
    harness_params<remap> p;
    p.base.policy.victim_buffer = {.entries_per_set = 3, .bits_per_entry = 64, .hashes = 7};
    p.base.policy.weights = {remap_weights{200, 3, 1000}, remap_weights{1024, 1, 7}};
    check_least_cost<remap>(p, 14);
}
