// Every policy models the concept and passes memsub::testing's protocol contract; bad params
// throw config_error naming the parameter.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/testing/all.hpp>

#include "helpers.hpp"

using namespace memsub;
using namespace memsub::replacement;

namespace {

template <class P>
void check_contract(const typename P::params& p = {}, std::uint64_t seed = 1) {
    testing::contract_options o;
    o.seed = seed;
    const auto report = testing::check_replacement_contract<P>(p, o);
    INFO(std::string(P(geometry{.sets = 16, .ways = 4, .line_bytes = 64}, p).name()));
    INFO(report.text());
    CHECK(report.ok());
    // conventional and variable-block, and "fast forms" (K8) for a policy with O6 or O7
    CHECK(report.passes.size() == (testing::detail::has_fast_forms<P> ? 3u : 2u));
    CHECK(report.misses > 0);
    CHECK(report.misses < report.accesses);
}

template <class Tuple, std::size_t... I>
void check_all(std::index_sequence<I...>) {
    (check_contract<std::tuple_element_t<I, Tuple>>(), ...);
}

template <class P>
std::string param_of_error(const typename P::params& p,
                           geometry g = geometry{.sets = 1024, .ways = 16, .line_bytes = 64}) {
    try {
        P policy(g, p);
    } catch (const config_error& e) {
        return e.parameter();
    }
    return "<no error>";
}

} // namespace

static_assert(replacement_policy<fifo>);
static_assert(replacement_policy<memsub::replacement::random>);
static_assert(replacement_policy<tree_plru>);
static_assert(replacement_policy<nru>);
static_assert(replacement_policy<srrip>);
static_assert(replacement_policy<brrip>);
static_assert(replacement_policy<drrip>);
static_assert(replacement_policy<ship>);
static_assert(replacement_policy<opt>);
static_assert(replacement_policy<set_dueling<dual_of<lru, fifo>>>);
static_assert(replacement_policy<set_dueling<rrip_dual, hinted_miss_cost>>);
static_assert(observes_misses<drrip>);
static_assert(may_bypass<opt>);
static_assert(!may_bypass<drrip>);
static_assert(may_bypass<set_dueling<dual_of<lru, opt>>>); // O3 survives the combinator
static_assert(reports_storage<drrip> && reports_storage<ship> && reports_storage<fifo>);
static_assert(dueling_candidate<rrip_dual>);
static_assert(dueling_candidate<dual_of<srrip, brrip>>);
static_assert(!dueling_candidate<srrip>); // a plain policy has no sides
static_assert(std::tuple_size_v<all_policies> == 14);

TEST_CASE("every policy of all_policies passes the replacement contract") {
    check_all<all_policies>(std::make_index_sequence<std::tuple_size_v<all_policies>>{});
}

TEST_CASE("contract: OPT (both variants), variants of the RRIP family, combinators") {
    check_contract<opt>({});
    check_contract<opt>({.allow_bypass = true});
    check_contract<srrip>({.rrpv_bits = 3, .promotion = hit_promotion::frequency_priority});
    check_contract<brrip>({.source = bimodal_source::counter});
    check_contract<ship>({.sampled_sets = 4});
    check_contract<ship>({.counter_bits = 2, .initial_counter = 0});
    check_contract<memsub::replacement::random>({.seed = 99}, 7);
    check_contract<set_dueling<dual_of<lru, fifo>>>({});
    check_contract<set_dueling<dual_of<srrip, nru>>>(
        {.leaders = {{.set = 0, .side = 0}, {.set = 1, .side = 1}}});
    check_contract<set_dueling<dual_of<lru, opt>>>({});
    check_contract<set_dueling<rrip_dual, hinted_miss_cost>>({.psel_bits = 4});
    drrip::params ta;
    ta.requesters = 2;
    ta.leaders = {{.set = 0, .side = 0, .requester = 0},
                  {.set = 1, .side = 1, .requester = 0},
                  {.set = 2, .side = 0, .requester = 1},
                  {.set = 3, .side = 1, .requester = 1}};
    check_contract<drrip>(ta);
}

TEST_CASE("config_error for bad params names the parameter") {
    CHECK(param_of_error<srrip>({.rrpv_bits = 0}) == "rrpv_bits");
    CHECK(param_of_error<srrip>({.rrpv_bits = 8}) == "rrpv_bits");
    CHECK(param_of_error<brrip>({.rrpv_bits = 0}) == "rrpv_bits");
    CHECK(param_of_error<ship>({.rrpv_bits = 9}) == "rrpv_bits");
    CHECK(param_of_error<ship>({.signature_bits = 0}) == "signature_bits");
    CHECK(param_of_error<ship>({.signature_bits = 17}) == "signature_bits");
    CHECK(param_of_error<ship>({.counter_bits = 0}) == "counter_bits");
    CHECK(param_of_error<ship>({.counter_bits = 2, .initial_counter = 4}) == "initial_counter");
    CHECK(param_of_error<ship>({.sampled_sets = 3}) == "sampled_sets");
    CHECK(param_of_error<ship>({.sampled_sets = 2048}) == "sampled_sets");
    CHECK(param_of_error<tree_plru>({}, geometry{.sets = 4, .ways = 12, .line_bytes = 64}) ==
          "entries_per_set");
    CHECK(param_of_error<tree_plru>({}, geometry{.sets = 4, .ways = 16, .line_bytes = 64}) ==
          "<no error>");

    drrip::params d;
    d.psel_bits = 0;
    CHECK(param_of_error<drrip>(d) == "psel_bits");
    d.psel_bits = 32;
    CHECK(param_of_error<drrip>(d) == "psel_bits");
    d = {};
    d.policy.rrpv_bits = 0;
    CHECK(param_of_error<drrip>(d) == "rrpv_bits");
    d = {};
    d.leaders_per_side = 64; // 64^2 > 1024 sets
    CHECK(param_of_error<drrip>(d) == "leaders_per_side");
    d.leaders_per_side = 3; // does not divide the set count
    CHECK(param_of_error<drrip>(d) == "leaders_per_side");
    d.leaders_per_side = 32;
    CHECK(param_of_error<drrip>(d) == "<no error>");
    d.requesters = 0;
    CHECK(param_of_error<drrip>(d) == "requesters");
    d.requesters = 17; // 17 requesters' shifted leaders no longer fit in 32-set regions
    CHECK(param_of_error<drrip>(d) == "leaders");
    d.requesters = 16;
    CHECK(param_of_error<drrip>(d) == "<no error>");
    d = {};
    d.leaders = {{.set = 5, .side = 0}, {.set = 5, .side = 1}};
    CHECK(param_of_error<drrip>(d) == "leaders");
    d.leaders = {{.set = 1024, .side = 0}};
    CHECK(param_of_error<drrip>(d) == "leaders[].set");
    d.leaders = {{.set = 1, .side = 2}};
    CHECK(param_of_error<drrip>(d) == "leaders[].side");
    d.leaders = {{.set = 1, .side = 0, .requester = 1}};
    CHECK(param_of_error<drrip>(d) == "leaders[].requester");
    // A single set cannot host both sides' leaders.
    CHECK(param_of_error<drrip>({}, geometry{.sets = 1, .ways = 4, .line_bytes = 64}) ==
          "geometry.sets");
    CHECK(param_of_error<drrip>({}, geometry{.sets = 2, .ways = 4, .line_bytes = 64}) ==
          "<no error>");
    // K = 2 on 8 sets: region 4 holds 2 requesters' leaders exactly (shift 2t); a third
    // requester's offsets (shift 4 = 0 mod 4) coincide with requester 0's.
    d = {};
    d.leaders_per_side = 2;
    d.requesters = 2;
    CHECK(param_of_error<drrip>(d, geometry{.sets = 8, .ways = 4, .line_bytes = 64}) ==
          "<no error>");
    d.requesters = 3;
    CHECK(param_of_error<drrip>(d, geometry{.sets = 8, .ways = 4, .line_bytes = 64}) == "leaders");

    std::vector<memsub::access> s(3);
    CHECK_THROWS_AS(annotate_next_use(s, 48), config_error);

    // The message carries component, parameter, value and rule.
    try {
        srrip p(geometry{.sets = 4, .ways = 4, .line_bytes = 64}, {.rrpv_bits = 0});
        FAIL("no exception");
    } catch (const config_error& e) {
        CHECK(e.component() == "memsub::replacement::srrip");
        CHECK(e.value() == "0");
        CHECK(std::string(e.what()).find("1..7") != std::string::npos);
    }
}

TEST_CASE("storage budgets") {
    const geometry llc{.sets = 1024, .ways = 16, .line_bytes = 64}; // 1 MB
    const std::uint64_t lines = 16384;
    CHECK(fifo(llc).storage_bits() == lines * 4);
    CHECK(tree_plru(llc).storage_bits() == 1024 * 15);
    CHECK(nru(llc).storage_bits() == lines);
    CHECK(srrip(llc).storage_bits() == lines * 2);
    CHECK(srrip(llc, {.rrpv_bits = 3}).storage_bits() == lines * 3);
    CHECK(brrip(llc, {.source = bimodal_source::counter}).storage_bits() == lines * 2 + 5);
    CHECK(drrip(llc, drrip::params{.policy = {.source = bimodal_source::counter}}).storage_bits() ==
          lines * 2 + 5 + 10);
    drrip::params ta{.policy = {.source = bimodal_source::counter}};
    ta.requesters = 4;
    CHECK(drrip(llc, ta).storage_bits() == lines * 2 + 5 + 40);
    // SHiP-PC: RRPVs + (14-bit signature + outcome + has-signature) per line + 16K x 3-bit
    // SHCT = 42 KB.
    CHECK(ship(llc).storage_bits() == lines * 2 + lines * 16 + 16384 * 3);
    CHECK(ship(llc).storage_bits() == 42 * 1024 * 8);
    // SHiP-PC-S-R2: 64 sampled sets of 1024, 2-bit counters.
    CHECK(ship(llc, {.counter_bits = 2, .sampled_sets = 64}).storage_bits() ==
          lines * 2 + 64 * 16 * 16 + 16384 * 2);
    CHECK(set_dueling<dual_of<lru, fifo>>(llc).storage_bits() ==
          lru(llc).storage_bits() + fifo(llc).storage_bits() + 10);
}

TEST_CASE("names") {
    const geometry g{.sets = 64, .ways = 4, .line_bytes = 64};
    CHECK(fifo(g).name() == "fifo");
    CHECK(memsub::replacement::random(g).name() == "random");
    CHECK(tree_plru(g).name() == "tree_plru");
    CHECK(nru(g).name() == "nru");
    CHECK(srrip(g).name() == "srrip");
    CHECK(brrip(g).name() == "brrip");
    CHECK(drrip(g).name() == "drrip");
    drrip::params ta;
    ta.requesters = 2;
    CHECK(drrip(g, ta).name() == "ta_drrip");
    CHECK(ship(g).name() == "ship");
    CHECK(opt(g).name() == "opt");
}

TEST_CASE("victims respect the eligible mask: tree-PLRU fallback, random uniformity") {
    const geometry g{.sets = 1, .ways = 8, .line_bytes = 64};
    const set_index s{0};
    const memsub::access a{};
    tree_plru t(g);
    for (std::uint32_t e = 0; e < 8; ++e) t.on_insert(s, entry_index{e}, a);
    CHECK(t.victim(s, 0xff, a) == entry_index{0}); // plain PLRU: the oldest
    // Entry 0 not eligible: same half (0–3), same quarter (0–1), then the other leaf.
    CHECK(t.victim(s, 0xfe, a) == entry_index{1});
    // Whole left half ineligible: the walk crosses to the right half and follows its bits.
    CHECK(t.victim(s, 0xf0, a) == entry_index{4});
    t.on_hit(s, entry_index{4}, a);
    CHECK(t.victim(s, 0xf0, a) == entry_index{6});
    CHECK(t.victim(s, 0x80, a) == entry_index{7});
    // A hit on 0 turns the root to the right half.
    t.on_hit(s, entry_index{0}, a);
    CHECK(t.victim(s, 0xff, a) == entry_index{6});

    nru n(g);
    for (std::uint32_t e = 0; e < 8; ++e) n.on_insert(s, entry_index{e}, a);
    CHECK(n.victim(s, 0x0c, a) == entry_index{2}); // all bits 0: all set to 1, first eligible
    CHECK(n.nru_bit(s, entry_index{0}));
    n.on_hit(s, entry_index{2}, a);
    CHECK(n.victim(s, 0x0c, a) == entry_index{3});

    fifo f(g);
    for (std::uint32_t e : {3u, 1u, 2u, 0u, 4u, 5u, 6u, 7u}) f.on_insert(s, entry_index{e}, a);
    CHECK(f.victim(s, 0xff, a) == entry_index{3});
    CHECK(f.victim(s, 0xf7, a) == entry_index{1});
    f.on_hit(s, entry_index{3}, a); // hits do not matter
    CHECK(f.victim(s, 0xff, a) == entry_index{3});

    memsub::replacement::random r(g, {.seed = 5});
    std::array<int, 8> count{};
    const entry_mask eligible = 0b1011'0110; // entries 1, 2, 4, 5, 7
    for (int i = 0; i < 50000; ++i) ++count[r.victim(s, eligible, a).value];
    for (std::uint32_t e = 0; e < 8; ++e) {
        INFO("entry " << e);
        if (contains(eligible, entry_index{e})) {
            CHECK(count[e] > 9000); // expectation 10000, σ ≈ 90
            CHECK(count[e] < 11000);
        } else {
            CHECK(count[e] == 0);
        }
    }

    srrip sr(g);
    for (std::uint32_t e = 0; e < 8; ++e) sr.on_insert(s, entry_index{e}, a);
    sr.on_hit(s, entry_index{5}, a);
    // Eligible {5, 6}: 6 is the first with the largest RRPV; the set ages by one.
    CHECK(sr.victim(s, 0x60, a) == entry_index{6});
    CHECK(sr.rrpv(s, entry_index{6}) == 3);
    CHECK(sr.rrpv(s, entry_index{5}) == 1);
    CHECK(sr.rrpv(s, entry_index{0}) == 3);
}
