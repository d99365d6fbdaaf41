// memsub::testing catches what it claims to catch: every check of check_replacement_contract
// (C1–C6) and every rule recording_policy records is shown failing on a policy, a hook sequence
// or a cache that breaks it, with the expected message. A check that cannot fail proves nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/opt.hpp>
#include <memsub/testing/all.hpp>

using namespace memsub;

namespace {

/// The number of violations starting with `prefix`.
std::size_t count_starting(const std::vector<std::string>& violations, std::string_view prefix) {
    return static_cast<std::size_t>(
        std::count_if(violations.begin(), violations.end(), [&](const std::string& v) {
            return std::string_view(v).starts_with(prefix);
        }));
}

std::string joined(const std::vector<std::string>& violations) {
    std::string out;
    for (const auto& v : violations) out += v + "\n";
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
    void on_evict(set_index, entry_index, const replacement::eviction_info&) noexcept {}
    entry_index victim(set_index, entry_mask m, const memsub::access&) noexcept {
        return lowest_entry(m);
    }
};

/// C2: names the entry just above the highest eligible one (outside the mask; for a full mask
/// of a 4-way set that is entry 4, which does not exist).
struct outside_mask_policy : legal_base {
    using legal_base::legal_base;
    entry_index victim(set_index, entry_mask m, const memsub::access&) noexcept {
        return entry_index{static_cast<std::uint32_t>(std::bit_width(m))};
    }
    std::string_view name() const noexcept { return "outside_mask"; }
};

/// C3: each instance takes a serial number from a global counter; odd instances evict the
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

/// C6: reports as "storage" the number of blocks it has seen inserted — it grows with use.
struct growing_storage_policy : legal_base {
    using legal_base::legal_base;
    void on_insert(set_index, entry_index, const memsub::access&) noexcept { ++inserts_; }
    std::uint64_t storage_bits() const noexcept { return 2 * inserts_; }
    std::string_view name() const noexcept { return "growing_storage"; }
    std::uint64_t inserts_ = 0;
};

/// C6: a budget that depends on how many instances were built before (not on the geometry).
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

static_assert(replacement::replacement_policy<outside_mask_policy>);
static_assert(replacement::replacement_policy<nondeterministic_policy>);
static_assert(replacement::replacement_policy<growing_storage_policy>);
static_assert(replacement::replacement_policy<instance_storage_policy>);
static_assert(replacement::replacement_policy<fixed_victim_policy>);

/// A cache that forwards to a real one but breaks the engine guarantees C4 and C5 watch.
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

TEST_CASE("the contract passes legal policies (the checks do not flag legal behaviour)") {
    for (auto rep : {testing::check_replacement_contract<replacement::lru>(),
                     testing::check_replacement_contract<testing::replacement_archetype>(),
                     testing::check_replacement_contract<replacement::opt>()}) {
        INFO(joined(rep.violations));
        CHECK(rep.ok());
        CHECK(rep.misses > 0);
    }
}

TEST_CASE("C2: a victim outside the eligible mask is reported, and the run still completes") {
    const auto rep = testing::check_replacement_contract<outside_mask_policy>();
    INFO(joined(rep.violations));
    CHECK_FALSE(rep.ok());
    CHECK(count_starting(rep.violations, "C2: R6: victim outside the eligible mask") > 100);
    CHECK(count_starting(rep.violations, "C2 (variable): R6: victim outside the eligible mask") >
          100);
    // The recorder substituted legal victims, so the engine stayed consistent: no C4/C5, and
    // the whole stream ran (2 conventional runs + 1 variable-block run).
    CHECK(count_starting(rep.violations, "C4") == 0);
    CHECK(count_starting(rep.violations, "C5") == 0);
    CHECK(count_starting(rep.violations, "C1") == 0);
    CHECK(rep.accesses > 3 * 19000);
}

TEST_CASE("recording_policy substitutes the lowest eligible entry for an illegal victim") {
    using rec = testing::recording_policy<outside_mask_policy>;
    cache::set_associative_cache<rec> c(geometry{.sets = 1, .ways = 4, .line_bytes = 64});
    for (std::uint64_t l = 0; l < 5; ++l) c.access(at(l * 64)); // the fifth evicts
    const auto& v = c.policy().violations();
    REQUIRE(v.size() == 1);
    CHECK(v[0] == "R6: victim outside the eligible mask (set 0, entry 4, eligible 0xf)");
    CHECK_FALSE(c.contains(byte_address{0})); // entry 0 (line 0) was evicted instead
    CHECK(c.contains(byte_address{4 * 64}));
    CHECK(c.stats().evictions == 1);
}

TEST_CASE("C3: a policy whose decisions differ between identically seeded runs is reported") {
    const auto rep = testing::check_replacement_contract<nondeterministic_policy>();
    INFO(joined(rep.violations));
    REQUIRE(count_starting(rep.violations, "C3: two runs of one stream differ") == 1);
    CHECK(rep.violations.size() == 1); // legal otherwise
    // The deterministic archetype passes the same check.
    CHECK(testing::check_replacement_contract<testing::replacement_archetype>().ok());
}

TEST_CASE("C6: storage_bits() that changes with use or between alike instances is reported") {
    const auto grows = testing::check_replacement_contract<growing_storage_policy>();
    INFO(joined(grows.violations));
    CHECK(count_starting(grows.violations, "C6: storage_bits() changed during a run, from 0 to ") ==
          2);
    CHECK(grows.violations.size() == 2);

    const auto serial = testing::check_replacement_contract<instance_storage_policy>();
    INFO(joined(serial.violations));
    REQUIRE(serial.violations.size() == 1);
    CHECK(serial.violations[0].starts_with(
        "C6: two instances built alike report different storage_bits(): "));
}

TEST_CASE("C4 and C5: drive_contract_stream catches a cache that lies about residency or room") {
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
    CHECK(flipped.violations[0].starts_with("C4: access "));
    CHECK(flipped.violations[0].find("but the mirror says") != std::string::npos);

    const auto overfull = run(liar::lie::segment_budget);
    CHECK(count_starting(overfull.violations, "C5: set ") == overfull.accesses);
    CHECK(overfull.violations.front().ends_with("holds more segments than its budget"));

    const auto beyond = run(liar::lie::entry_range);
    CHECK(count_starting(beyond.violations, "C5: set ") == beyond.accesses);
    CHECK(beyond.violations.front().ends_with("has a valid entry beyond its tag entries"));
}

// ------------------------------------------------------------------ hand-driven hook sequences

namespace {
const geometry two_sets{.sets = 2, .ways = 4, .line_bytes = 64};
const set_index s0{0};
const entry_index e0{0}, e1{1}, e2{2};

replacement::eviction_info evicted(replacement::eviction_reason why) {
    replacement::eviction_info info;
    info.reason = why;
    return info;
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
    r.on_evict(s0, e0, evicted(replacement::eviction_reason::replacement));
    r.on_insert(s0, e0, at(384));
    r.on_evict(s0, e1, evicted(replacement::eviction_reason::invalidated));
    CHECK(r.violations().empty());
    CHECK(r.calls().size() == 11);
}

TEST_CASE("recording_policy: each protocol rule is recorded with its message") {
    using testing::recording_policy;
    SUBCASE("P1: hit on an invalid entry") {
        recording_policy<> r(two_sets);
        r.on_hit(s0, e1, at(0));
        REQUIRE(r.violations().size() == 1);
        CHECK(r.violations()[0] == "P1: on_hit on an entry that is not valid (set 0, entry 1)");
    }
    SUBCASE("P2: in a conventional cache, a hit after a miss of the same access") {
        recording_policy<> r(two_sets);
        r.on_miss(s0, at(64));
        r.on_insert(s0, e0, at(64));
        r.on_miss(s0, at(64 + 8));
        r.on_hit(s0, e0, at(64 + 8));
        REQUIRE(r.violations().size() == 1);
        CHECK(
            r.violations()[0] ==
            "P2: on_hit after on_miss of the same access in a conventional cache (set 0, entry 0)");
    }
    SUBCASE("P2: insert without a miss") {
        recording_policy<> r(two_sets);
        r.on_insert(s0, e0, at(0));
        REQUIRE(r.violations().size() == 1);
        CHECK(r.violations()[0] == "P2: on_insert without a preceding on_miss (set 0, entry 0)");
    }
    SUBCASE("P5: insert into a valid entry, and not into the lowest free one") {
        recording_policy<> r(two_sets);
        r.on_miss(s0, at(0));
        r.on_insert(s0, e0, at(0));
        r.on_miss(s0, at(128));
        r.on_insert(s0, e0, at(128));
        r.on_miss(s0, at(256));
        r.on_insert(s0, e2, at(256)); // entry 1 is free
        REQUIRE(r.violations().size() == 3);
        CHECK(r.violations()[0] == "P5: on_insert into a valid entry (set 0, entry 0)");
        CHECK(r.violations()[1] ==
              "P5: insert did not use the lowest free entry (set 0, entry 0)"); // 0 is not free
        CHECK(r.violations()[2] == "P5: insert did not use the lowest free entry (set 0, entry 2)");
    }
    SUBCASE("P4: victim without a miss, a named victim never evicted, the wrong one evicted") {
        recording_policy<> r(two_sets);
        r.on_miss(s0, at(0));
        r.on_insert(s0, e0, at(0));
        r.on_miss(s0, at(128));
        r.on_insert(s0, e1, at(128));
        (void)r.victim(s0, 0b11, at(256)); // no on_miss of this access
        REQUIRE(r.violations().size() == 1);
        CHECK(r.violations()[0] == "P4: victim without a preceding on_miss (set 0, entry 0)");
        r.on_miss(s0, at(384)); // the victim named above was never evicted
        REQUIRE(r.violations().size() == 2);
        CHECK(r.violations()[1] == "P4: a victim was named but never evicted (set 0, entry 0)");
        const entry_index v = r.victim(s0, 0b11, at(384));
        const entry_index other{1 - v.value};
        r.on_evict(s0, other, evicted(replacement::eviction_reason::replacement));
        REQUIRE(r.violations().size() == 3);
        CHECK(r.violations()[2] == "P4: replacement eviction of an entry victim() did not name "
                                   "(set 0, entry " +
                                       std::to_string(other.value) + ")");
    }
    SUBCASE("P4/P6: evicting an entry that is not valid") {
        recording_policy<> r(two_sets);
        r.on_evict(s0, e2, evicted(replacement::eviction_reason::invalidated));
        REQUIRE(r.violations().size() == 1);
        CHECK(r.violations()[0] ==
              "P4/P6: on_evict of an entry that is not valid (set 0, entry 2)");
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
        CHECK(r.violations()[0] == "R6: victim called with an empty mask (set 0, entry 0)");
        r.on_evict(s0, e0, evicted(replacement::eviction_reason::replacement));
        r.on_miss(s0, at(0));
        r.on_insert(s0, e0, at(0));
        r.on_miss(s0, at(384));
        // Entries 2 and 3 are not valid; the policy's entry 3 is outside what it may choose.
        CHECK(r.victim(s0, 0b1110, at(384)) == e1);
        REQUIRE(r.violations().size() == 3);
        CHECK(r.violations()[1] ==
              "R6: eligible mask holds invalid entries (set 0, entry 0, eligible 0xe)");
        CHECK(r.violations()[2] ==
              "R6: victim outside the eligible mask (set 0, entry 3, eligible 0x2)");
    }
    SUBCASE("O3: a bypass query without a miss") {
        recording_policy<replacement::opt> r(two_sets);
        CHECK_FALSE(r.should_bypass(s0, at(0)));
        REQUIRE(r.violations().size() == 1);
        CHECK(r.violations()[0] ==
              "O3: should_bypass without a preceding on_miss (set 0, entry 0)");
    }
    SUBCASE("out-of-range sets and entries are recorded, not forwarded") {
        recording_policy<> r(two_sets);
        r.on_miss(set_index{7}, at(0));
        r.on_miss(s0, at(0));
        r.on_insert(s0, entry_index{9}, at(0));
        r.on_hit(s0, entry_index{70}, at(0));
        REQUIRE(r.violations().size() == 3);
        CHECK(r.violations()[0] == "range: set out of range (set 7, entry 0)");
        CHECK(r.violations()[1] == "range: entry out of range (set 0, entry 9)");
        CHECK(r.violations()[2] == "range: entry out of range (set 0, entry 70)");
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
        REQUIRE(r.violations().size() == 2);
        CHECK(
            r.violations()[0] ==
            "P2: on_hit after on_miss of the same access in a conventional cache (set 0, entry 0)");
        CHECK(r.violations()[1] == "P2: on_insert without a preceding on_miss (set 0, entry 2)");
    }
}
