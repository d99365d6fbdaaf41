// The bypass side of memsub::testing: check_bypass_contract passes memsub's predictors and a
// legal training predictor, and reports broken ones (a throw from a noexcept hook, per-entry
// state sized by ways); recording_predictor records each rule it claims to (Q1–Q3, T1–T3).
#include <doctest/doctest.h>

#include <array>
#include <csignal>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/bypass/all.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/testing/all.hpp>

#include "guarded_allocator.hpp"

using namespace memsub;

namespace {

memsub::access at(std::uint64_t address, std::uint64_t pc = 0) {
    memsub::access a;
    a.address = byte_address{address};
    a.pc = pc;
    return a;
}

/// A small reuse predictor: a 2-bit counter per PC slot, trained by whether the blocks a PC
/// inserted were hit before they left. Per-entry state (the inserting PC) is sized by
/// entries_per_set — or, with `ByWays`, by ways (the mistake); `Alloc` as in contract_kit_test.
template <bool ByWays = false, template <class> class Alloc = std::allocator>
class reuse_predictor {
public:
    struct params {
        std::uint32_t slots = 64;
    };
    reuse_predictor(const geometry& g, const params& p)
        : per_set_(ByWays ? g.ways : g.entries_per_set())
        , slots_(p.slots)
        , counter_(p.slots, 1)
        , pc_of_(std::size_t{g.sets} * per_set_, 0) {}

    bool should_bypass(set_index, const memsub::access& a) noexcept {
        return counter_[slot(a.pc)] == 0;
    }
    void on_insert(set_index s, entry_index e, const memsub::access& a) noexcept {
        pc_of_[s.value * per_set_ + e.value] = slot(a.pc);
    }
    void on_hit(set_index s, entry_index e, const memsub::access&) noexcept {
        auto& c = counter_[pc_of_[s.value * per_set_ + e.value]];
        if (c < 3) ++c;
    }
    void on_evict(set_index s, entry_index e, const memsub::evicted_block& b) noexcept {
        auto& c = counter_[pc_of_[s.value * per_set_ + e.value]];
        if (!b.reused && c > 0) --c;
    }
    std::uint64_t storage_bits() const noexcept { return 2 * slots_ + 6 * pc_of_.size(); }
    std::string_view name() const noexcept { return "reuse"; }

private:
    std::uint32_t slot(std::uint64_t pc) const noexcept {
        return static_cast<std::uint32_t>((pc >> 2) % slots_);
    }
    std::uint32_t per_set_;
    std::uint32_t slots_;
    std::vector<std::uint8_t> counter_;
    std::vector<std::uint32_t, Alloc<std::uint32_t>> pc_of_;
};

/// Indexes a 64-entry table with the PC's low byte through `at()`: the first PC beyond the
/// table throws std::out_of_range out of a noexcept hook, and the process terminates.
struct throwing_predictor {
    struct params {};
    throwing_predictor(const geometry&, const params&) {}
    bool should_bypass(set_index, const memsub::access& a) noexcept {
        return table_.at(a.pc & 0xff) != 0;
    }
    std::string_view name() const noexcept { return "throwing"; }
    std::vector<std::uint8_t> table_ = std::vector<std::uint8_t>(64, 0);
};

static_assert(bypass::bypass_predictor<reuse_predictor<>>);
static_assert(bypass::trains_on_hit<reuse_predictor<>> &&
              bypass::reports_storage<reuse_predictor<>>);
static_assert(bypass::bypass_predictor<throwing_predictor>);

template <class B>
void check_legal(const typename B::params& p = {}) {
    const auto rep = testing::check_bypass_contract<B>(p);
    INFO(rep.text());
    CHECK(rep.ok());
    REQUIRE(rep.passes.size() == 2);
    CHECK(rep.passes[0].name == "conventional");
    CHECK(rep.passes[1].name == "variable-block");
    for (const auto& pass : rep.passes) CHECK(pass.status == testing::pass_status::completed);
    CHECK(rep.misses > 0);
}

} // namespace

TEST_CASE("check_bypass_contract passes memsub's predictors, their combinations and a trainer") {
    check_legal<bypass::never>();
    check_legal<bypass::always>();
    check_legal<bypass::all_of<bypass::never, bypass::always>>();
    check_legal<bypass::any_of<bypass::never, bypass::always>>();
    check_legal<bypass::any_of<reuse_predictor<>, bypass::never>>();
    check_legal<testing::bypass_archetype>();
    check_legal<reuse_predictor<>>();
    check_legal<reuse_predictor<>>({.slots = 7});
}

TEST_CASE("K7: a predictor that throws from should_bypass is reported in every pass") {
    testing::contract_options o;
    o.isolate_passes = bool(MEMSUB_TESTING_CAN_FORK); // in-process it would end this program
    if (!o.isolate_passes) return;
    const auto rep = testing::check_bypass_contract<throwing_predictor>({}, o);
    INFO(rep.text());
    REQUIRE(rep.violations.size() == 2);
    for (const auto& v : rep.violations) {
        CHECK(v.check == "K7");
        CHECK(v.rule.starts_with("the predictor crashed with signal " + std::to_string(SIGABRT) +
                                 " (SIGABRT) in the "));
        CHECK(v.first == "run 1, during accesses 0\u2013255");
    }
    CHECK(rep.violations[0].pass == "conventional");
    CHECK(rep.violations[1].pass == "variable-block");
    // The conventional pass crashed too, so ways-sized state is not the suspect.
    for (const auto& v : rep.violations)
        CHECK(v.hint.starts_with("rerun with contract_options::isolate_passes = false"));
}

#if MEMSUB_TESTING_CAN_FORK
TEST_CASE("K7: per-entry state sized by ways crashes the variable-block pass, which is reported") {
    const auto rep =
        testing::check_bypass_contract<reuse_predictor<true, memsub_test::guarded_allocator>>();
    INFO(rep.text());
    REQUIRE(rep.passes.size() == 2);
    CHECK(rep.passes[0].status == testing::pass_status::completed);
    CHECK(rep.passes[1].status == testing::pass_status::crashed);
    REQUIRE(rep.violations.size() == 1);
    CHECK(rep.violations[0].text().starts_with(
        "K7 [variable-block] the predictor crashed with signal " + std::to_string(SIGSEGV) +
        " (SIGSEGV) in the variable-block pass (16 entries per set, 4 ways) (run 1, during "
        "accesses "));
    CHECK(rep.violations[0].hint.starts_with(
        "size per-entry state by geometry.entries_per_set(), not ways"));
}
#endif

// ------------------------------------------------------------------ recording_predictor by hand

namespace {
const geometry four_ways{.sets = 2, .ways = 4, .line_bytes = 64};
const set_index s0{0};
const entry_index e0{0}, e1{1};

template <class R>
std::vector<std::string> texts(const R& r) {
    std::vector<std::string> out;
    for (const auto& v : r.violations()) out.push_back(v.text());
    return out;
}
} // namespace

TEST_CASE("recording_predictor: each rule it checks alone is recorded with its message") {
    using rec = testing::recording_predictor<>;
    SUBCASE("a legal sequence") {
        rec r(four_ways);
        CHECK_FALSE(r.should_bypass(s0, at(0)));
        r.on_insert(s0, e0, at(0));
        r.on_hit(s0, e0, at(0));
        r.on_evict(s0, e0, {});
        CHECK(r.violations().empty());
        CHECK(r.calls().size() == 4);
    }
    SUBCASE("Q1: asked on a host no_allocate miss, and on a store miss that cannot allocate") {
        rec r(four_ways, rec::params{.stores_allocate = false});
        memsub::access a = at(0);
        a.hints.no_allocate = true;
        (void)r.should_bypass(s0, a);
        memsub::access st = at(64);
        st.kind = access_kind::store;
        (void)r.should_bypass(s0, st);
        CHECK(texts(r) == std::vector<std::string>{
                              "Q1: should_bypass on a host no_allocate miss (set 0)",
                              "Q1: should_bypass on a store miss of a cache whose stores do not "
                              "allocate (set 0)"});
    }
    SUBCASE("T2: an insert it did not admit (not asked, or it said bypass)") {
        testing::recording_predictor<bypass::always> r(four_ways);
        r.on_insert(s0, e0, at(0));
        CHECK(r.should_bypass(s0, at(64)));
        r.on_insert(s0, e1, at(64));
        CHECK(texts(r) == std::vector<std::string>{
                              "T2: on_insert of a block the predictor did not admit \u2014 2 "
                              "times, first at set 0, entry 0"});
    }
    SUBCASE("T2: an insert into an entry it holds; T1 and T3 on entries it does not hold") {
        rec r(four_ways);
        (void)r.should_bypass(s0, at(0));
        r.on_insert(s0, e0, at(0));
        (void)r.should_bypass(s0, at(128));
        r.on_insert(s0, e0, at(128));
        r.on_hit(s0, e1, at(64));
        r.on_evict(s0, e1, {});
        CHECK(texts(r) == std::vector<std::string>{
                              "T2: on_insert into an entry it already holds (set 0, entry 0)",
                              "T1: on_hit of an entry it does not hold (set 0, entry 1)",
                              "T3: on_evict of an entry it does not hold (set 0, entry 1)"});
    }
    SUBCASE("out-of-range calls are recorded, not forwarded") {
        rec r(four_ways);
        (void)r.should_bypass(set_index{5}, at(0));
        r.on_hit(s0, entry_index{4}, at(0));
        CHECK(texts(r) == std::vector<std::string>{"range: set out of range (set 5)",
                                                   "range: entry out of range (set 0, entry 4)"});
    }
}

TEST_CASE("recording_predictor paired with recording_policy: Q1 once per miss, Q2, Q3") {
    using policy = testing::recording_policy<>;
    using rec = testing::recording_predictor<>;
    policy p(four_ways);
    rec r(four_ways);
    r.observe(p.trace());
    SUBCASE("a legal miss, insert, hit and eviction") {
        p.on_miss(s0, at(0));
        (void)r.should_bypass(s0, at(0));
        p.on_insert(s0, e0, at(0));
        r.on_insert(s0, e0, at(0));
        p.on_hit(s0, e0, at(0));
        r.on_hit(s0, e0, at(0));
        memsub::evicted_block gone;
        gone.reason = memsub::eviction_reason::invalidated;
        p.on_evict(s0, e0, gone);
        r.on_evict(s0, e0, gone);
        CHECK(r.violations().empty());
        CHECK(p.violations().empty());
    }
    SUBCASE("Q2: asked with no miss open; Q1: asked twice for one miss") {
        (void)r.should_bypass(s0, at(0));
        p.on_miss(s0, at(64));
        (void)r.should_bypass(s0, at(64));
        (void)r.should_bypass(s0, at(64));
        CHECK(texts(r) ==
              std::vector<std::string>{"Q2: should_bypass outside a miss (on a hit, or before the "
                                       "policy's on_miss) (set 0)",
                                       "Q1: should_bypass asked twice for one miss (set 0)"});
    }
    SUBCASE("Q3: training hooks that do not follow the policy's hook of the same entry") {
        p.on_miss(s0, at(0));
        (void)r.should_bypass(s0, at(0));
        p.on_insert(s0, e1, at(0)); // P5 broken too, but that is the policy recorder's business
        r.on_insert(s0, e0, at(0));
        r.on_hit(s0, e0, at(0));
        CHECK(texts(r) ==
              std::vector<std::string>{
                  "Q3: on_insert not right after the policy's on_insert of the same entry (set "
                  "0, entry 0)",
                  "Q3: on_hit not right after the policy's on_hit of the same entry (set 0, "
                  "entry 0)"});
    }
}

TEST_CASE("recording_predictor in a write-through cache: store misses never reach it") {
    using policy = testing::recording_policy<>;
    using rec = testing::recording_predictor<>;
    using wt_cache =
        cache::set_associative_cache<policy, cache::write_policy::write_through, geometry, rec>;
    wt_cache c(four_ways, {}, rec::params{.stores_allocate = false});
    c.bypass_predictor().observe(c.policy().trace());
    for (std::uint64_t i = 0; i < 64; ++i) {
        memsub::access a = at((i % 12) * 64, i);
        a.kind = i % 3 == 0 ? access_kind::store : access_kind::load;
        a.hints.no_allocate = i % 7 == 0;
        (void)c.access(a);
    }
    CHECK(c.bypass_predictor().violations().empty());
    CHECK(c.policy().violations().empty());
    std::uint64_t asked = 0;
    for (const auto& call : c.bypass_predictor().calls())
        asked += call.what == testing::hook::bypass_query;
    const auto& st = c.stats();
    CHECK(asked == st.misses() - st.bypasses(cache::bypass_reason::host_no_allocate) -
                       st.bypasses(cache::bypass_reason::write_no_allocate));
    CHECK(st.bypasses(cache::bypass_reason::write_no_allocate) > 0);
}
