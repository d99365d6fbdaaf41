// The bypass-predictor family and the cache's bypass slot: the concept (archetype and broken
// types), never / always, the AND / OR combinators, the order of allocation decisions (Q1), the
// predictor asked once per allocating miss (partial misses included, Q2), training hooks only on
// admitted blocks (Q3), and what a bypassed miss reports (Q4).
#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include <memsub/bypass/all.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>

using namespace memsub;
using cache::bypass_reason;
using replacement::lru;

namespace {

/// A predictor that answers by a rule of the address, counts every call, and mirrors which
/// entries it admitted so it can tell when it is trained on a block it never admitted.
struct counting_predictor {
    struct params {
        std::uint64_t bypass_every = 0; ///< bypass lines whose number is a multiple (0 = never)
    };
    counting_predictor(const geometry& g, const params& p)
        : rule(p.bypass_every)
        , line_shift(log2_exact(g.line_bytes))
        , admitted(g.sets, 0) {}

    bool should_bypass(set_index, const memsub::access& a) noexcept {
        ++asked;
        const std::uint64_t line = a.address.value >> line_shift;
        return rule != 0 && line % rule == 0;
    }
    void on_hit(set_index s, entry_index e, const memsub::access&) noexcept {
        ++hits;
        if (!contains(admitted[s.value], e)) ++violations;
    }
    void on_insert(set_index s, entry_index e, const memsub::access&) noexcept {
        ++inserts;
        if (contains(admitted[s.value], e)) ++violations;
        admitted[s.value] |= bit_of(e);
    }
    void on_evict(set_index s, entry_index e, const memsub::evicted_block& b) noexcept {
        ++evicts;
        if (!contains(admitted[s.value], e) || b.set != s || b.entry != e) ++violations;
        admitted[s.value] &= ~bit_of(e);
    }
    [[nodiscard]] std::string_view name() const noexcept { return "counting"; }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return 7; }

    std::uint64_t rule;
    std::uint32_t line_shift;
    std::vector<entry_mask> admitted;
    std::uint64_t asked = 0, hits = 0, inserts = 0, evicts = 0, violations = 0;
};

/// LRU with an O3 that counts its calls and declines when told to.
struct lru_with_o3 : lru {
    struct params {
        bool decline = false;
    };
    lru_with_o3(const geometry& g, const params& p) : lru(g), decline(p.decline) {}
    bool should_bypass(set_index, const memsub::access&) noexcept {
        ++asked;
        return decline;
    }
    bool decline;
    std::uint64_t asked = 0;
};

/// B3 broken: may throw.
struct throwing_predictor {
    struct params {};
    throwing_predictor(const geometry&, const params&) {}
    bool should_bypass(set_index, const memsub::access&) { return false; }
    std::string_view name() const noexcept { return "broken"; }
};
/// B1 broken: no params.
struct paramless_predictor {
    explicit paramless_predictor(const geometry&) {}
    bool should_bypass(set_index, const memsub::access&) noexcept { return false; }
    std::string_view name() const noexcept { return "broken"; }
};
/// B4 broken: no name.
struct nameless_predictor {
    struct params {};
    nameless_predictor(const geometry&, const params&) {}
    bool should_bypass(set_index, const memsub::access&) noexcept { return false; }
};

memsub::access load(std::uint64_t addr) {
    return memsub::access{.address = byte_address{addr}};
}
memsub::access store(std::uint64_t addr) {
    return memsub::access{.address = byte_address{addr}, .kind = access_kind::store};
}

} // namespace

static_assert(bypass::bypass_predictor<bypass::never>);
static_assert(bypass::bypass_predictor<bypass::always>);
static_assert(bypass::bypass_predictor<counting_predictor>);
static_assert(bypass::bypass_predictor<bypass::all_of<bypass::never, counting_predictor>>);
static_assert(bypass::bypass_predictor<bypass::any_of<bypass::always, counting_predictor>>);
static_assert(bypass::trains_on_evict<bypass::any_of<bypass::never, counting_predictor>>);
static_assert(!bypass::b3_should_bypass<throwing_predictor>);
static_assert(!bypass::bypass_predictor<throwing_predictor>);
static_assert(!bypass::b1_params<paramless_predictor>);
static_assert(!bypass::bypass_predictor<paramless_predictor>);
static_assert(!bypass::b4_name<nameless_predictor>);
static_assert(!bypass::bypass_predictor<nameless_predictor>);
static_assert(bypass::diagnose_bypass_predictor<counting_predictor>());
// `never` is empty and its answer a constant: with [[no_unique_address]] the default slot adds
// nothing to the cache (its cost on the access path is measured by bench_replacement).
static_assert(std::is_empty_v<bypass::never> && std::is_empty_v<bypass::always>);
static_assert(sizeof(cache::set_associative_cache<lru>) ==
              sizeof(cache::set_associative_cache<lru, cache::write_policy::write_back, geometry,
                                                  bypass::always>));
static_assert(std::is_same_v<cache::set_associative_cache<lru>::bypass_type, bypass::never>);

TEST_CASE("bypass::always: every miss reads the next level and nothing is inserted") {
    cache::set_associative_cache<lru, cache::write_policy::write_back, geometry, bypass::always> c(
        geometry{.sets = 4, .ways = 2, .line_bytes = 64});
    auto a = load(0x1000);
    a.size = 8;
    const auto r = c.access(a);
    CHECK_FALSE(r.hit);
    CHECK(r.bypassed());
    CHECK_FALSE(r.filled());
    CHECK(r.bypass == bypass_reason::predictor);
    CHECK(r.bytes_fetched == 8); // Q4: the bytes it reads
    const auto w = c.access(store(0x2000));
    CHECK(w.bypass == bypass_reason::predictor);
    CHECK(w.bytes_written_down == 64);
    CHECK(c.stats().bypasses() == 2);
    CHECK(c.stats().bypasses(bypass_reason::predictor) == 2);
    CHECK(c.stats().fills == 0);
    CHECK_FALSE(c.contains(byte_address{0x1000}));
}

TEST_CASE("Q1: host no_allocate, then write-no-allocate, then the predictor, then O3") {
    using C = cache::set_associative_cache<lru_with_o3, cache::write_policy::write_through,
                                           geometry, counting_predictor>;
    C c(geometry{.sets = 1, .ways = 2, .line_bytes = 64}, {}, {.bypass_every = 3});
    auto a = load(0);
    a.hints.no_allocate = true;
    CHECK(c.access(a).bypass == bypass_reason::host_no_allocate);
    CHECK(c.bypass_predictor().asked == 0); // the host decided first
    CHECK(c.access(store(64)).bypass == bypass_reason::write_no_allocate);
    CHECK(c.bypass_predictor().asked == 0); // a write-through store miss never allocates
    CHECK(c.access(load(0)).bypass == bypass_reason::predictor); // line 0: a multiple of 3
    CHECK(c.bypass_predictor().asked == 1);
    CHECK(c.access(load(64)).filled());
    CHECK(c.access(load(128)).filled());
    CHECK(c.policy().asked == 0); // O3 only when the set lacks room
    CHECK(c.access(load(3 * 64)).bypass == bypass_reason::predictor);
    CHECK(c.policy().asked == 0); // the predictor declined: O3 is not asked
    CHECK(c.access(load(4 * 64)).filled());
    CHECK(c.policy().asked == 1); // full set, predictor admitted: O3 asked, said insert
    c.policy().decline = true;
    CHECK(c.access(load(5 * 64)).bypass == bypass_reason::policy);
    CHECK(c.policy().asked == 2);
    CHECK(c.bypass_predictor().asked == 6); // lines 0, 1, 2, 3, 4, 5
    const auto& s = c.stats();
    CHECK(s.bypasses(bypass_reason::host_no_allocate) == 1);
    CHECK(s.bypasses(bypass_reason::write_no_allocate) == 1);
    CHECK(s.bypasses(bypass_reason::predictor) == 2);
    CHECK(s.bypasses(bypass_reason::policy) == 1);
    CHECK(s.bypasses() == 5);
    CHECK(s.misses() == 8);
    CHECK(s.hits() == 0);
}

TEST_CASE("Q2/Q3: asked once per allocating miss (partial misses too), trained on what it "
          "admitted") {
    // ALSI-like cache: 128B lines of 32B segments; blocks of 1, 2 or 4 segments.
    using C = cache::variable_block_cache<lru, 4, cache::write_policy::write_back, geometry,
                                          counting_predictor>;
    const geometry g{
        .sets = 8, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    C c(g, {}, {.bypass_every = 5});
    xoshiro256ss rng(7);
    std::uint64_t reaching = 0, partial_asked = 0;
    for (int i = 0; i < 50000; ++i) {
        memsub::access a;
        const std::uint64_t line = rng.below(96);
        a.address = byte_address{line * 128 + rng.below(128)};
        a.size = 1 + static_cast<std::uint32_t>(rng.below(16));
        a.kind = rng.below(4) == 0 ? access_kind::store : access_kind::load;
        a.hints.no_allocate = rng.below(20) == 0;
        const std::uint32_t span = 1u << rng.below(3);
        const std::uint64_t asked_before = c.bypass_predictor().asked;
        const auto r = c.access(a, cache::block_spec{span, span});
        const std::uint64_t asked = c.bypass_predictor().asked - asked_before;
        if (r.hit || a.hints.no_allocate) {
            CHECK(asked == 0);
        } else {
            CHECK(asked == 1);
            ++reaching;
            partial_asked += r.partial;
            CHECK(r.bypassed() == (line % 5 == 0));
            if (r.bypassed()) CHECK(r.bypass == bypass_reason::predictor);
        }
        for (std::uint32_t s = 0; s < g.sets; ++s)
            REQUIRE(c.bypass_predictor().admitted[s] == c.valid_entries(set_index{s}));
    }
    CHECK(partial_asked > 100);
    CHECK(c.bypass_predictor().asked == reaching);
    CHECK(c.bypass_predictor().violations == 0);
    CHECK(c.bypass_predictor().inserts == c.stats().fills);
    CHECK(c.bypass_predictor().hits > 0);
    CHECK(c.storage_bits() > 7);
}

TEST_CASE("combinators ask every member and vote AND / OR; they are predictors themselves") {
    const geometry g{.sets = 2, .ways = 2, .line_bytes = 64};
    using and_c = bypass::all_of<counting_predictor, counting_predictor>;
    using or_c = bypass::any_of<counting_predictor, counting_predictor>;
    and_c both(g, {.members = {{.bypass_every = 2}, {.bypass_every = 3}}});
    or_c either(g, {.members = {{.bypass_every = 2}, {.bypass_every = 3}}});
    for (std::uint64_t line = 0; line < 12; ++line) {
        const auto a = load(line * 64);
        const bool by2 = line % 2 == 0, by3 = line % 3 == 0;
        CHECK(both.should_bypass(set_index{0}, a) == (by2 && by3));
        CHECK(either.should_bypass(set_index{0}, a) == (by2 || by3));
    }
    // No short-circuit: every member saw every query.
    CHECK(both.member<0>().asked == 12);
    CHECK(both.member<1>().asked == 12);
    CHECK(either.member<1>().asked == 12);
    CHECK(both.storage_bits() == 14);
    CHECK(both.name() == "all_of(counting,counting)");
    CHECK(either.name() == "any_of(counting,counting)");
    CHECK(bypass::any_of<bypass::never, bypass::always>(g, {}).name() == "any_of(never,always)");

    // In a cache, the training hooks reach every member.
    cache::set_associative_cache<lru, cache::write_policy::write_back, geometry, or_c> c(
        g, {}, {.members = {{.bypass_every = 0}, {.bypass_every = 0}}});
    for (std::uint64_t line = 0; line < 10; ++line) c.access(load(line * 64));
    c.access(load(9 * 64));
    auto& m0 = c.bypass_predictor().member<0>();
    auto& m1 = c.bypass_predictor().member<1>();
    CHECK(m0.inserts == 10);
    CHECK(m1.inserts == 10);
    CHECK(m0.evicts == 6);
    CHECK(m1.hits == 1);
    CHECK(m0.violations + m1.violations == 0);
}

TEST_CASE("all_of / any_of of never and always") {
    const geometry g{.sets = 1, .ways = 1, .line_bytes = 64};
    bypass::all_of<bypass::never, bypass::always> and_c(g, {});
    bypass::any_of<bypass::never, bypass::always> or_c(g, {});
    CHECK_FALSE(and_c.should_bypass(set_index{0}, load(0)));
    CHECK(or_c.should_bypass(set_index{0}, load(0)));
    CHECK(and_c.storage_bits() == 0);
}
