// memsub::testing catches what it claims to catch: every check of check_replacement_contract
// (K1–K8) and every rule recording_policy records is shown failing on a policy, a hook sequence
// or a cache that breaks it, with the expected message. A check that cannot fail proves nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/opt.hpp>
#include <memsub/replacement/srrip.hpp>
#include <memsub/testing/all.hpp>

#include "guarded_allocator.hpp"

using namespace memsub;

namespace {

/// The violation kinds whose text starts with `prefix`.
std::vector<testing::contract_violation> kinds(const testing::contract_report& r,
                                               std::string_view prefix) {
    std::vector<testing::contract_violation> out;
    for (const auto& v : r.violations)
        if (v.text().starts_with(prefix)) out.push_back(v);
    return out;
}

memsub::access at(std::uint64_t address) {
    memsub::access a;
    a.address = byte_address{address};
    return a;
}

/// Base of the broken policies: legal hooks, lowest-eligible victim.
struct legal_base {
    struct params {};
    legal_base(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const memsub::access&) noexcept {}
    void on_insert(set_index, entry_index, const memsub::access&) noexcept {}
    void on_evict(set_index, entry_index, const memsub::evicted_block&) noexcept {}
    entry_index victim(set_index, entry_mask m, const memsub::access&) noexcept {
        return lowest_entry(m);
    }
};

/// K2: names the entry just above the highest eligible one (outside the mask; for a full mask
/// of a 4-way set that is entry 4, which does not exist).
struct outside_mask_policy : legal_base {
    using legal_base::legal_base;
    entry_index victim(set_index, entry_mask m, const memsub::access&) noexcept {
        return entry_index{static_cast<std::uint32_t>(std::bit_width(m))};
    }
    std::string_view name() const noexcept { return "outside_mask"; }
};

/// K3: each instance takes a serial number from a global counter; odd instances evict the
/// highest eligible entry, even ones the lowest — two identically built and fed instances differ.
struct nondeterministic_policy : legal_base {
    static inline std::uint32_t instances = 0;
    nondeterministic_policy(const geometry& g, const params& p)
        : legal_base(g, p)
        , serial_(instances++) {}
    entry_index victim(set_index, entry_mask m, const memsub::access&) noexcept {
        return serial_ % 2 ? entry_index{static_cast<std::uint32_t>(63 - std::countl_zero(m))}
                           : lowest_entry(m);
    }
    std::string_view name() const noexcept { return "nondeterministic"; }
    std::uint32_t serial_;
};

/// K6: reports as "storage" the number of blocks it has seen inserted — it grows with use.
struct growing_storage_policy : legal_base {
    using legal_base::legal_base;
    void on_insert(set_index, entry_index, const memsub::access&) noexcept { ++inserts_; }
    std::uint64_t storage_bits() const noexcept { return 2 * inserts_; }
    std::string_view name() const noexcept { return "growing_storage"; }
    std::uint64_t inserts_ = 0;
};

/// K6: a budget that depends on how many instances were built before (not on the geometry).
struct instance_storage_policy : legal_base {
    static inline std::uint64_t instances = 0;
    instance_storage_policy(const geometry& g, const params& p)
        : legal_base(g, p)
        , bits_(1000 + instances++) {}
    std::uint64_t storage_bits() const noexcept { return bits_; }
    std::string_view name() const noexcept { return "instance_storage"; }
    std::uint64_t bits_;
};

/// Always names entry 3, whatever the mask.
struct fixed_victim_policy : legal_base {
    using legal_base::legal_base;
    entry_index victim(set_index, entry_mask, const memsub::access&) noexcept {
        return entry_index{3};
    }
    std::string_view name() const noexcept { return "fixed_victim"; }
};

/// K7: supports conventional caches only, and says so with config_error (R2).
struct conventional_only_policy : legal_base {
    conventional_only_policy(const geometry& g, const params& p) : legal_base(g, p) {
        memsub::require(g.entries_per_set() == g.ways, "conventional_only_policy", "tags_per_set",
                        g.tags_per_set, "must equal ways");
    }
    std::string_view name() const noexcept { return "conventional_only"; }
};

/// The natural mistake: LRU whose per-set state is sized `sets * ways` and indexed
/// `set * ways + entry`. In the variable-block pass (16 entries per set, 4 ways) it indexes past
/// its vector. `Alloc` = guarded_allocator makes that fault at once; std::allocator corrupts the
/// heap, which may or may not crash later.
template <template <class> class Alloc>
struct ways_sized_lru {
    struct params {};
    ways_sized_lru(const geometry& g, const params&)
        : ways_(g.ways)
        , stamp_(std::size_t{g.sets} * g.ways) {}
    void on_hit(set_index s, entry_index e, const memsub::access&) noexcept { touch(s, e); }
    void on_insert(set_index s, entry_index e, const memsub::access&) noexcept { touch(s, e); }
    void on_evict(set_index, entry_index, const memsub::evicted_block&) noexcept {}
    entry_index victim(set_index s, entry_mask m, const memsub::access&) noexcept {
        entry_index best = lowest_entry(m);
        for (entry_mask c = m; c != 0; c &= c - 1)
            if (stamp(s, lowest_entry(c)) < stamp(s, best)) best = lowest_entry(c);
        return best;
    }
    std::string_view name() const noexcept { return "ways_sized_lru"; }

    void touch(set_index s, entry_index e) noexcept { stamp_[s.value * ways_ + e.value] = ++now_; }
    std::uint64_t stamp(set_index s, entry_index e) const noexcept {
        return stamp_[s.value * ways_ + e.value];
    }
    std::uint32_t ways_;
    std::vector<std::uint64_t, Alloc<std::uint64_t>> stamp_;
    std::uint64_t now_ = 0;
};

/// Names an illegal victim every time and aborts at its 2000th victim call: the violations
/// found before the crash must come back with the K7.
struct illegal_then_abort_policy : outside_mask_policy {
    using outside_mask_policy::outside_mask_policy;
    entry_index victim(set_index s, entry_mask m, const memsub::access& a) noexcept {
        if (++calls_ == 2000) std::abort();
        return outside_mask_policy::victim(s, m, a);
    }
    std::uint64_t calls_ = 0;
};

/// Never returns from its 100th victim call.
struct hanging_policy : legal_base {
    using legal_base::legal_base;
    entry_index victim(set_index, entry_mask m, const memsub::access&) noexcept {
        if (++calls_ >= 100)
            for (volatile bool forever = true; forever;) {
            }
        return lowest_entry(m);
    }
    std::string_view name() const noexcept { return "hanging"; }
    std::uint64_t calls_ = 0;
};

static_assert(replacement::replacement_policy<outside_mask_policy>);
static_assert(replacement::replacement_policy<nondeterministic_policy>);
static_assert(replacement::replacement_policy<growing_storage_policy>);
static_assert(replacement::replacement_policy<instance_storage_policy>);
static_assert(replacement::replacement_policy<fixed_victim_policy>);
static_assert(replacement::replacement_policy<ways_sized_lru<std::allocator>>);

/// A cache that forwards to a real one but breaks the engine guarantees K4 and K5 watch.
template <class Inner>
class lying_cache {
public:
    enum class lie { none, hit_outcome, segment_budget, entry_range };
    using result_type = typename Inner::result_type;
    static constexpr bool variable_blocks = Inner::variable_blocks;

    lying_cache(const geometry& g, lie l) : cache_(g), lie_(l) {}

    result_type access(const memsub::access& a) noexcept {
        result_type r = cache_.access(a);
        if (lie_ == lie::hit_outcome && ++accesses_ == 100) r.hit = !r.hit;
        return r;
    }
    auto invalidate(byte_address a) noexcept { return cache_.invalidate(a); }
    auto block(set_index s, entry_index e) const noexcept { return cache_.block(s, e); }
    std::uint32_t free_segments(set_index s) const noexcept {
        // An overfull set: used > budget makes free = budget - used wrap around.
        return lie_ == lie::segment_budget ? cache_.free_segments(s) - cache_.shape().ways - 1
                                           : cache_.free_segments(s);
    }
    entry_mask valid_entries(set_index s) const noexcept {
        return cache_.valid_entries(s) | (lie_ == lie::entry_range ? entry_mask{1} << 40 : 0);
    }

private:
    Inner cache_;
    lie lie_;
    std::uint64_t accesses_ = 0;
};

} // namespace

TEST_CASE("the contract passes legal policies, and the report names the passes it ran") {
    for (auto rep : {testing::check_replacement_contract<replacement::lru>(),
                     testing::check_replacement_contract<testing::replacement_archetype>(),
                     testing::check_replacement_contract<replacement::opt>()}) {
        INFO(rep.text());
        CHECK(rep.ok());
        CHECK(rep.misses > 0);
        REQUIRE(rep.passes.size() >= 2);
        CHECK(rep.passes[0].name == "conventional");
        CHECK(rep.passes[0].shape.entries_per_set() == 4);
        CHECK(rep.passes[1].name == "variable-block");
        CHECK(rep.passes[1].shape.entries_per_set() == 16);
        if (rep.passes.size() == 3) CHECK(rep.passes[2].name == "fast forms"); // lru: O6, O7
        for (const auto& p : rep.passes) {
            CHECK(p.status == testing::pass_status::completed);
            const std::uint32_t runs = p.name == "fast forms" ? 8 : 2; // K8: 4 shapes x 2
            CHECK(p.runs == runs);
            CHECK(p.accesses > runs * 19000);
            CHECK(p.isolated == bool(MEMSUB_TESTING_CAN_FORK));
        }
        CHECK(rep.text().find("variable-block pass (16 sets, 4 ways, 16 entries per set, 128 B "
                              "lines, 32 B segments): completed, 2 runs") != std::string::npos);
    }
}

TEST_CASE("the variable-block pass is opt-out, and in-process runs are possible") {
    testing::contract_options o;
    o.variable_block_pass = false;
    const auto one = testing::check_replacement_contract<testing::replacement_archetype>({}, o);
    CHECK(one.ok());
    REQUIRE(one.passes.size() == 1);
    CHECK(one.passes[0].name == "conventional");

    o.variable_block_pass = true;
    o.isolate_passes = false;
    const auto inproc = testing::check_replacement_contract<testing::replacement_archetype>({}, o);
    CHECK(inproc.ok());
    REQUIRE(inproc.passes.size() == 2);
    CHECK_FALSE(inproc.passes[0].isolated);
    CHECK_FALSE(inproc.passes[1].isolated);
    CHECK(inproc.passes[1].text().ends_with("in-process"));
    // Both modes drive the same streams.
    CHECK(inproc.accesses ==
          testing::check_replacement_contract<testing::replacement_archetype>().accesses);
}

TEST_CASE("K2: an illegal victim is one deduplicated line per pass, and the run completes") {
    const auto rep = testing::check_replacement_contract<outside_mask_policy>();
    INFO(rep.text());
    REQUIRE(rep.violations.size() == 2);
    const auto& conv = rep.violations[0];
    CHECK(conv.check == "K2");
    CHECK(conv.pass == "conventional");
    CHECK(conv.rule == "R6: victim outside the eligible mask");
    CHECK(conv.count > 10000); // nearly every victim of one run of 20000 accesses
    CHECK(conv.text() == "K2 [conventional] R6: victim outside the eligible mask \u2014 " +
                             std::to_string(conv.count) + " times, first at " + conv.first);
    CHECK(conv.first.ends_with("entry 4, eligible 0xf"));
    CHECK(rep.violations[1].pass == "variable-block");
    CHECK(rep.violations[1].rule == "R6: victim outside the eligible mask");
    // The recorder substituted legal victims, so the engine stayed consistent: no K1/K4/K5, and
    // both runs of both passes finished.
    CHECK(kinds(rep, "K1").empty());
    CHECK(kinds(rep, "K4").empty());
    CHECK(kinds(rep, "K5").empty());
    CHECK(rep.accesses > 4 * 19000);
}

TEST_CASE("recording_policy substitutes the lowest eligible entry for an illegal victim") {
    using rec = testing::recording_policy<outside_mask_policy>;
    cache::set_associative_cache<rec> c(geometry{.sets = 1, .ways = 4, .line_bytes = 64});
    for (std::uint64_t l = 0; l < 5; ++l) c.access(at(l * 64)); // the fifth evicts
    const auto& v = c.policy().violations();
    REQUIRE(v.size() == 1);
    CHECK(v[0].text() == "R6: victim outside the eligible mask (set 0, entry 4, eligible 0xf)");
    CHECK_FALSE(c.contains(byte_address{0})); // entry 0 (line 0) was evicted instead
    CHECK(c.contains(byte_address{4 * 64}));
    CHECK(c.stats().evictions == 1);

    for (std::uint64_t l = 5; l < 105; ++l) c.access(at(l * 64)); // 100 more illegal victims
    REQUIRE(v.size() == 1);
    CHECK(v[0].count == 101);
    CHECK(v[0].text() == "R6: victim outside the eligible mask \u2014 101 times, first at set 0, "
                         "entry 4, eligible 0xf");
}

TEST_CASE("recording_policy: the call log is bounded and counts what it drops") {
    using rec = testing::recording_policy<>;
    cache::set_associative_cache<rec> c(geometry{.sets = 1, .ways = 4, .line_bytes = 64},
                                        rec::params{.log_capacity = 8});
    for (std::uint64_t l = 0; l < 10; ++l)
        c.access(at(l * 64)); // 4 x (miss, insert), then
                              // 6 x (miss, victim, evict, insert)
    CHECK(c.policy().calls().size() == 8);
    CHECK(c.policy().dropped_calls() == 4 * 2 + 6 * 4 - 8);
    CHECK(c.policy().calls()[0].what == testing::hook::miss);
    c.policy().clear_calls();
    CHECK(c.policy().calls().empty());
    CHECK(c.policy().dropped_calls() == 0);
    c.access(at(0));
    CHECK(c.policy().calls().size() == 4);

    rec unlogged(geometry{.sets = 1, .ways = 4, .line_bytes = 64}, rec::params{.log_capacity = 0});
    unlogged.on_miss(set_index{0}, at(0));
    CHECK(unlogged.calls().empty());
    CHECK(unlogged.dropped_calls() == 1);
}

TEST_CASE("K3: a policy whose decisions differ between identically built instances") {
    const auto rep = testing::check_replacement_contract<nondeterministic_policy>();
    INFO(rep.text());
    REQUIRE(rep.violations.size() == 2); // legal otherwise; once per pass
    for (const auto& v : rep.violations) {
        CHECK(v.check == "K3");
        CHECK(v.rule == "two instances fed the same stream decided differently");
        CHECK(v.first.starts_with("outcome word "));
    }
    // The deterministic archetype passes the same check.
    CHECK(testing::check_replacement_contract<testing::replacement_archetype>().ok());
}

TEST_CASE("K6: storage_bits() that changes with use or between alike instances is reported") {
    const auto grows = testing::check_replacement_contract<growing_storage_policy>();
    INFO(grows.text());
    REQUIRE(grows.violations.size() == 2); // one kind per pass, both runs counted
    for (const auto& v : grows.violations) {
        CHECK(v.check == "K6");
        CHECK(v.rule == "storage_bits() changed during a run");
        CHECK(v.count == 2);
        CHECK(v.first.starts_with("run 1: from 0 to "));
    }

    const auto serial = testing::check_replacement_contract<instance_storage_policy>();
    INFO(serial.text());
    REQUIRE(serial.violations.size() == 2);
    CHECK(serial.violations[0].text().starts_with(
        "K6 [conventional] two instances built alike report different storage_bits() ("));
}

TEST_CASE("K4 and K5: drive_contract_stream catches a cache that lies about residency or room") {
    using lru_cache = cache::set_associative_cache<replacement::lru>;
    using liar = lying_cache<lru_cache>;
    const testing::contract_options o; // 16 sets x 4 ways
    auto run = [&](liar::lie l) {
        liar c(o.shape, l);
        testing::contract_report rep;
        (void)testing::drive_contract_stream(c, o, rep);
        return rep;
    };
    const auto honest = run(liar::lie::none);
    CHECK(honest.ok());
    CHECK(honest.accesses > 19000);

    const auto flipped = run(liar::lie::hit_outcome);
    REQUIRE(flipped.violations.size() == 1);
    CHECK(flipped.violations[0].text().starts_with(
        "K4 [conventional] the hit/miss outcome differs from the residency mirror (access "));

    const auto overfull = run(liar::lie::segment_budget);
    REQUIRE(overfull.violations.size() == 1);
    CHECK(overfull.violations[0].count == overfull.accesses);
    CHECK(overfull.violations[0].rule == "a set holds more data segments than its budget");

    const auto beyond = run(liar::lie::entry_range);
    REQUIRE(beyond.violations.size() == 1);
    CHECK(beyond.violations[0].count == beyond.accesses);
    CHECK(beyond.violations[0].text().starts_with(
        "K5 [conventional] a set has a valid entry beyond its tag entries \u2014 "));
}

TEST_CASE("K7: a constructor that rejects a pass's geometry is reported, isolated or not") {
    for (const bool isolate : {true, false}) {
        testing::contract_options o;
        o.isolate_passes = isolate;
        const auto rep = testing::check_replacement_contract<conventional_only_policy>({}, o);
        INFO(rep.text());
        REQUIRE(rep.violations.size() == 1);
        const auto& v = rep.violations[0];
        CHECK(v.check == "K7");
        CHECK(v.pass == "variable-block");
        CHECK(v.rule == "building the cache of this pass threw config_error");
        CHECK(v.first.find("tags_per_set = 16") != std::string::npos);
        REQUIRE(rep.passes.size() == 2);
        CHECK(rep.passes[0].status == testing::pass_status::completed);
        CHECK(rep.passes[1].status == testing::pass_status::threw);
    }
}

#if MEMSUB_TESTING_CAN_FORK

TEST_CASE("K7: per-set state sized by ways crashes the variable-block pass, which is reported") {
    const auto rep =
        testing::check_replacement_contract<ways_sized_lru<memsub_test::guarded_allocator>>();
    INFO(rep.text());
    REQUIRE(rep.passes.size() == 2);
    CHECK(rep.passes[0].status == testing::pass_status::completed);
    CHECK(rep.passes[1].status == testing::pass_status::crashed);
    REQUIRE(rep.violations.size() == 1); // the conventional pass is clean
    const auto& v = rep.violations[0];
    CHECK(v.check == "K7");
    CHECK(v.rule == "the policy crashed with signal " + std::to_string(SIGSEGV) +
                        " (SIGSEGV) in the variable-block pass (16 entries per set, 4 ways)");
    CHECK(v.first.starts_with("run 1, "));
    CHECK(v.hint.starts_with("size per-set state by geometry.entries_per_set(), not ways"));
    CHECK(v.text().find(": size per-set state by geometry.entries_per_set(), not ways") !=
          std::string::npos);
}

TEST_CASE("K7: the same mistake on a plain std::vector never takes the host down") {
    // Heap corruption faults only sometimes (glibc's checks, a sanitizer's report): whatever the
    // child does, the host survives and the conventional pass is clean. This is the reproducer
    // of the original crash, which used to abort the whole test program.
    const auto rep = testing::check_replacement_contract<ways_sized_lru<std::allocator>>();
    INFO(rep.text());
    REQUIRE(rep.passes.size() == 2);
    CHECK(rep.passes[0].status == testing::pass_status::completed);
    CHECK(kinds(rep, "K7 [conventional]").empty());
    for (const auto& v : kinds(rep, "K7 [variable-block]"))
        CHECK(v.hint.find("geometry.entries_per_set(), not ways") != std::string::npos);
}

TEST_CASE("K7: violations found before a crash come back with it") {
    testing::contract_options o;
    o.variable_block_pass = false;
    const auto rep = testing::check_replacement_contract<illegal_then_abort_policy>({}, o);
    INFO(rep.text());
    REQUIRE(rep.violations.size() == 2);
    CHECK(rep.violations[0].check == "K2");
    CHECK(rep.violations[0].rule == "R6: victim outside the eligible mask");
    // Victims of the accesses up to the last progress mark before the abort (every 256).
    CHECK(rep.violations[0].count > 1000);
    CHECK(rep.violations[0].count < 2000);
    const auto& crash = rep.violations[1];
    CHECK(crash.check == "K7");
    CHECK(crash.rule == "the policy crashed with signal " + std::to_string(SIGABRT) +
                            " (SIGABRT) in the conventional pass (4 entries per set, 4 ways)");
    CHECK(crash.first.starts_with("run 1, during accesses "));
    CHECK(crash.hint.starts_with("rerun with contract_options::isolate_passes = false"));
    CHECK(rep.passes[0].status == testing::pass_status::crashed);
    CHECK(rep.passes[0].accesses > 0);
}

TEST_CASE("K7: a hook that never returns is stopped by the pass time limit") {
    testing::contract_options o;
    o.variable_block_pass = false;
    o.pass_time_limit_seconds = 1;
    const auto rep = testing::check_replacement_contract<hanging_policy>({}, o);
    INFO(rep.text());
    REQUIRE(rep.violations.size() == 1);
    CHECK(rep.violations[0].rule ==
          "the pass exceeded its time limit of 1 s in the conventional pass (4 entries per set, "
          "4 ways)");
    CHECK(rep.passes[0].status == testing::pass_status::timed_out);
}

#endif

// ------------------------------------------------------------------ hand-driven hook sequences

namespace {
const geometry two_sets{.sets = 2, .ways = 4, .line_bytes = 64};
const set_index s0{0};
const entry_index e0{0}, e1{1}, e2{2};

memsub::evicted_block evicted(memsub::eviction_reason why) {
    memsub::evicted_block info;
    info.reason = why;
    return info;
}

/// The recorder's violations as text.
template <class R>
std::vector<std::string> texts(const R& r) {
    std::vector<std::string> out;
    for (const auto& v : r.violations()) out.push_back(v.text());
    return out;
}
} // namespace

TEST_CASE("recording_policy: a legal sequence records no violation") {
    testing::recording_policy<> r(two_sets);
    r.on_miss(s0, at(0));
    r.on_insert(s0, e0, at(0));
    r.on_hit(s0, e0, at(0));
    r.on_miss(s0, at(128));
    r.on_insert(s0, e1, at(128));
    r.on_miss(s0, at(256)); // bypassed (P3): a later miss is fine
    r.on_miss(s0, at(384));
    // LRU: entry 0 was last touched (hit) before entry 1 was filled, so it is the older one.
    CHECK(r.victim(s0, 0b11, at(384)) == e0);
    r.on_evict(s0, e0, evicted(memsub::eviction_reason::replacement));
    r.on_insert(s0, e0, at(384));
    r.on_evict(s0, e1, evicted(memsub::eviction_reason::invalidated));
    CHECK(r.violations().empty());
    CHECK(r.calls().size() == 11);
    CHECK(r.dropped_calls() == 0);
}

TEST_CASE("recording_policy: each protocol rule is recorded with its message") {
    using testing::recording_policy;
    SUBCASE("P1: hit on an invalid entry") {
        recording_policy<> r(two_sets);
        r.on_hit(s0, e1, at(0));
        CHECK(texts(r) == std::vector<std::string>{
                              "P1: on_hit on an entry that is not valid (set 0, entry 1)"});
    }
    SUBCASE("P2: in a conventional cache, a hit after a miss of the same access") {
        recording_policy<> r(two_sets);
        r.on_miss(s0, at(64));
        r.on_insert(s0, e0, at(64));
        r.on_miss(s0, at(64 + 8));
        r.on_hit(s0, e0, at(64 + 8));
        CHECK(texts(r) == std::vector<std::string>{"P2: on_hit after on_miss of the same access "
                                                   "in a conventional cache (set 0, entry 0)"});
    }
    SUBCASE("P2: insert without a miss") {
        recording_policy<> r(two_sets);
        r.on_insert(s0, e0, at(0));
        CHECK(texts(r) == std::vector<std::string>{
                              "P2: on_insert without a preceding on_miss (set 0, entry 0)"});
    }
    SUBCASE("P5: insert into a valid entry, and not into the lowest free one (deduplicated)") {
        recording_policy<> r(two_sets);
        r.on_miss(s0, at(0));
        r.on_insert(s0, e0, at(0));
        r.on_miss(s0, at(128));
        r.on_insert(s0, e0, at(128));
        r.on_miss(s0, at(256));
        r.on_insert(s0, e2, at(256)); // entry 1 is free
        CHECK(texts(r) ==
              std::vector<std::string>{
                  "P5: on_insert into a valid entry (set 0, entry 0)",
                  "P5: insert did not use the lowest free entry \u2014 2 times, first at set 0, "
                  "entry 0"}); // 0 is not free; then entry 2 (not the lowest free)
    }
    SUBCASE("P4: victim without a miss, a named victim never evicted, the wrong one evicted") {
        recording_policy<> r(two_sets);
        r.on_miss(s0, at(0));
        r.on_insert(s0, e0, at(0));
        r.on_miss(s0, at(128));
        r.on_insert(s0, e1, at(128));
        (void)r.victim(s0, 0b11, at(256)); // no on_miss of this access
        REQUIRE(r.violations().size() == 1);
        CHECK(texts(r)[0] == "P4: victim without a preceding on_miss (set 0, entry 0)");
        r.on_miss(s0, at(384)); // the victim named above was never evicted
        REQUIRE(r.violations().size() == 2);
        CHECK(texts(r)[1] == "P4: a victim was named but never evicted (set 0, entry 0)");
        const entry_index v = r.victim(s0, 0b11, at(384));
        const entry_index other{1 - v.value};
        r.on_evict(s0, other, evicted(memsub::eviction_reason::replacement));
        REQUIRE(r.violations().size() == 3);
        CHECK(texts(r)[2] == "P4: replacement eviction of an entry victim() did not name "
                             "(set 0, entry " +
                                 std::to_string(other.value) + ")");
    }
    SUBCASE("P4/P6: evicting an entry that is not valid") {
        recording_policy<> r(two_sets);
        r.on_evict(s0, e2, evicted(memsub::eviction_reason::invalidated));
        CHECK(texts(r) == std::vector<std::string>{
                              "P4/P6: on_evict of an entry that is not valid (set 0, entry 2)"});
    }
    SUBCASE("R6: empty mask, a mask of invalid entries, a victim outside the mask") {
        recording_policy<fixed_victim_policy> r(two_sets);
        r.on_miss(s0, at(0));
        r.on_insert(s0, e0, at(0));
        r.on_miss(s0, at(128));
        r.on_insert(s0, e1, at(128));
        r.on_miss(s0, at(256));
        CHECK(r.victim(s0, 0, at(256)) == e0); // nothing legal: the policy is not asked
        REQUIRE(r.violations().size() == 1);
        CHECK(texts(r)[0] == "R6: victim called with an empty mask (set 0, entry 0)");
        r.on_evict(s0, e0, evicted(memsub::eviction_reason::replacement));
        r.on_miss(s0, at(0));
        r.on_insert(s0, e0, at(0));
        r.on_miss(s0, at(384));
        // Entries 2 and 3 are not valid; the policy's entry 3 is outside what it may choose.
        CHECK(r.victim(s0, 0b1110, at(384)) == e1);
        REQUIRE(r.violations().size() == 3);
        CHECK(texts(r)[1] ==
              "R6: eligible mask holds invalid entries (set 0, entry 0, eligible 0xe)");
        CHECK(texts(r)[2] == "R6: victim outside the eligible mask (set 0, entry 3, eligible 0x2)");
    }
    SUBCASE("O3: a bypass query without a miss") {
        recording_policy<replacement::opt> r(two_sets);
        CHECK_FALSE(r.should_bypass(s0, at(0)));
        CHECK(texts(r) == std::vector<std::string>{
                              "O3: should_bypass without a preceding on_miss (set 0, entry 0)"});
    }
    SUBCASE("out-of-range sets and entries are recorded, not forwarded") {
        recording_policy<> r(two_sets);
        r.on_miss(set_index{7}, at(0));
        r.on_miss(s0, at(0));
        r.on_insert(s0, entry_index{9}, at(0));
        r.on_hit(s0, entry_index{70}, at(0));
        CHECK(texts(r) == std::vector<std::string>{
                              "range: set out of range (set 7, entry 0)",
                              "range: entry out of range \u2014 2 times, first at set 0, entry 9"});
        CHECK(r.calls().size() == 4); // every call is still logged
    }
}

TEST_CASE("recording_policy: partial misses and multi-block fills only in variable-block caches") {
    const memsub::access x = at(0x40);
    SUBCASE("variable-block set: on_hit of the partly resident block and two inserts per miss") {
        testing::recording_policy<> r(geometry{
            .sets = 1, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16});
        r.on_miss(s0, x);
        r.on_insert(s0, e0, x);
        r.on_miss(s0, x);
        r.on_hit(s0, e0, x); // served part of the request
        r.on_insert(s0, e1, x);
        r.on_insert(s0, e2, x);
        CHECK(r.violations().empty());
    }
    SUBCASE("conventional set: the same sequence breaks P2") {
        testing::recording_policy<> r(two_sets);
        r.on_miss(s0, x);
        r.on_insert(s0, e0, x);
        r.on_miss(s0, x);
        r.on_hit(s0, e0, x);
        r.on_insert(s0, e1, x);
        r.on_insert(s0, e2, x);
        CHECK(texts(r) == std::vector<std::string>{
                              "P2: on_hit after on_miss of the same access in a conventional "
                              "cache (set 0, entry 0)",
                              "P2: on_insert without a preceding on_miss (set 0, entry 2)"});
    }
}

namespace {

/// LRU's plain hooks (R3-R6) by forwarding, for the K8 policies below to add a broken fast
/// form to.
class forwarding_lru {
public:
    using params = replacement::lru::params;
    forwarding_lru(const geometry& g, const params& p) : inner_(g, p) {}
    void on_hit(set_index s, entry_index e, const memsub::access& a) noexcept {
        inner_.on_hit(s, e, a);
    }
    void on_insert(set_index s, entry_index e, const memsub::access& a) noexcept {
        inner_.on_insert(s, e, a);
    }
    void on_evict(set_index s, entry_index e, const memsub::evicted_block& b) noexcept {
        inner_.on_evict(s, e, b);
    }
    [[nodiscard]] entry_index victim(set_index s, entry_mask m, const memsub::access& a) noexcept {
        return inner_.victim(s, m, a);
    }

protected:
    replacement::lru inner_;
};

/// LRU whose fused replace (O7) forgets the insertion's promotion: the replaced entry stays at
/// the bottom of the stack, so the next miss evicts it again. Its plain hooks are right.
class forgetful_fused_lru : public forwarding_lru {
public:
    using forwarding_lru::forwarding_lru;
    [[nodiscard]] std::string_view name() const noexcept { return "forgetful_fused_lru"; }
    [[nodiscard]] entry_index replace(set_index s, entry_mask m, const memsub::access& a) noexcept {
        return inner_.victim(s, m, a); // the bug: no on_evict/on_insert bookkeeping
    }
};

/// LRU whose compile-time shape (O6) never promotes on a hit, which the runtime shape does.
template <std::uint32_t Entries = 0>
class shape_liar : public forwarding_lru {
public:
    template <std::uint32_t E>
    using for_entries = shape_liar<E>;
    using forwarding_lru::forwarding_lru;
    [[nodiscard]] std::string_view name() const noexcept { return "shape_liar"; }
    void on_hit(set_index s, entry_index e, const memsub::access& a) noexcept {
        if constexpr (Entries == 0) inner_.on_hit(s, e, a); // the fixed shape skips promotion
    }
};

} // namespace

TEST_CASE("K8: a fused replace or a compile-time shape that decides differently is reported") {
    // The shipped fast forms agree with their hooks.
    for (const auto& rep : {testing::check_replacement_contract<replacement::lru>(),
                            testing::check_replacement_contract<replacement::srrip>()}) {
        INFO(rep.text());
        CHECK(rep.ok());
        REQUIRE(rep.passes.size() == 3);
        CHECK(rep.passes[2].name == "fast forms");
        CHECK(rep.passes[2].status == testing::pass_status::completed);
    }
    const auto fused = testing::check_replacement_contract<forgetful_fused_lru>();
    INFO(fused.text());
    const auto k8 = kinds(fused, "K8");
    REQUIRE(k8.size() == 1);
    CHECK(k8[0].pass == "fast forms");
    CHECK(k8[0].rule.find("fused replace (O7)") != std::string::npos);
    // Every other check passes: the plain hooks are right, only the fused form lies.
    CHECK(fused.violations.size() == 1);

    const auto shaped = testing::check_replacement_contract<shape_liar<>>();
    INFO(shaped.text());
    const auto k8s = kinds(shaped, "K8");
    REQUIRE(k8s.size() == 1);
    CHECK(k8s[0].first.find("entries per set") != std::string::npos);
    CHECK(shaped.violations.size() == 1);
}

TEST_CASE("the report notes a subject without storage_bits(), and only such a subject") {
    // A policy without O2 passes (it is optional) but the report says what a tool will show.
    const auto bare = testing::check_replacement_contract<testing::replacement_archetype>(
        {}, {.variable_block_pass = false});
    INFO(bare.text());
    CHECK(bare.ok());
    REQUIRE(bare.notes.size() == 1);
    CHECK(bare.notes[0].starts_with("O2: the policy has no"));
    CHECK(bare.text().find("note: O2: the policy has no") != std::string::npos);
    CHECK_FALSE(
        replacement::reported_storage_bits(
            testing::replacement_archetype(geometry{.sets = 4, .ways = 2, .line_bytes = 64}, {}))
            .has_value());

    const auto lru =
        testing::check_replacement_contract<replacement::lru>({}, {.variable_block_pass = false});
    CHECK(lru.notes.empty());
    const geometry g{.sets = 4, .ways = 2, .line_bytes = 64};
    CHECK(replacement::reported_storage_bits(replacement::lru(g, {})) ==
          replacement::lru(g, {}).storage_bits());

    const auto predictor = testing::check_bypass_contract<testing::bypass_archetype>(
        {}, {.variable_block_pass = false});
    REQUIRE(predictor.notes.size() == 1);
    CHECK(predictor.notes[0].starts_with("T4: the predictor has no"));
    CHECK(testing::check_bypass_contract<bypass::never>({}, {.variable_block_pass = false})
              .notes.empty());
}
