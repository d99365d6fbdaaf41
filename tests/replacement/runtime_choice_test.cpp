// runtime_choice: choosing a policy by name runs exactly that policy (differentially against
// the policy itself, with its own params), names come from the alternatives, and a bad name or
// a rejected geometry fails once at construction with a message naming what could be built.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/replacement/runtime_choice.hpp>
#include <memsub/testing/contract.hpp>

#include "helpers.hpp"

using namespace memsub;
namespace r = memsub::replacement;

namespace {

using choice = r::runtime_choice<r::lru, r::srrip, r::drrip, r::tree_plru, r::opt>;
static_assert(r::replacement_policy<choice>);
static_assert(r::observes_misses<choice>); // drrip has O1
static_assert(r::may_bypass<choice>);      // opt (with bypass) has O3
static_assert(r::reports_storage<choice>);
static_assert(!r::fuses_replacement<choice>); // O7 is not offered
static_assert(std::same_as<choice::for_entries<16>::params, choice::params>);

constexpr geometry shape{.sets = 64, .ways = 8, .line_bytes = 64};

std::vector<memsub::access> seeded_stream(std::uint64_t seed, std::size_t n) {
    xoshiro256ss rng(seed);
    std::vector<std::uint64_t> lines(n), pcs(n);
    for (std::size_t i = 0; i < n; ++i) {
        // a hot set of lines, a loop, and a scan, so the policies disagree
        const auto k = rng.below(10);
        lines[i] = k < 5 ? rng.below(300) : (k < 8 ? 1000 + i % 700 : 100000 + i);
        pcs[i] = 0x400000 + 4 * rng.below(32);
    }
    auto s = repl_test::make_stream(lines, pcs);
    for (std::size_t i = 0; i < n; ++i)
        if (rng.below(5) == 0) s[i].kind = access_kind::store;
    return s;
}

template <class P, class Geometry = geometry>
void same_as_policy(const std::string& name, const typename P::params& own,
                    const Geometry& g = shape) {
    choice::params p{.name = name};
    std::get<typename P::params>(p.alternatives) = own;
    const geometry rg = static_cast<geometry>(g);
    cache::set_associative_cache<choice, cache::write_policy::write_back, Geometry> chosen(g, p);
    cache::set_associative_cache<P> direct(rg, own);
    CHECK(chosen.policy().name() == name);
    CHECK(chosen.policy().storage_bits() == storage_bits_of(direct.policy()));
    const auto stream = seeded_stream(7, 60000);
    const auto a = repl_test::run(chosen, stream);
    const auto b = repl_test::run(direct, stream);
    CHECK(a == b);
    CHECK(chosen.stats().misses() == direct.stats().misses());
    CHECK(chosen.stats().writebacks == direct.stats().writebacks);
}

} // namespace

TEST_CASE("runtime_choice runs exactly the alternative it names, with that alternative's params") {
    same_as_policy<r::lru>("lru", {});
    same_as_policy<r::srrip>("srrip", {});
    same_as_policy<r::srrip>("srrip",
                             {.rrpv_bits = 3, .promotion = r::hit_promotion::frequency_priority});
    same_as_policy<r::drrip>("drrip", {});
    same_as_policy<r::tree_plru>("tree_plru", {});
    same_as_policy<r::opt>("opt", {});
    // a name that depends on the params: OPT with bypass reports "opt_bypass"
    same_as_policy<r::opt>("opt_bypass", {.allow_bypass = true});
    // O6: with a compile-time shape every alternative takes its shaped form, same decisions
    same_as_policy<r::lru>("lru", {}, fixed_geometry<64, 8, 64>{});
    same_as_policy<r::srrip>("srrip", {}, fixed_geometry<64, 8, 64>{});
}

TEST_CASE("runtime_choice: the empty name is the first alternative; the policies disagree") {
    cache::set_associative_cache<choice> first(shape, choice::params{});
    CHECK(first.policy().name() == "lru");
    CHECK(first.policy().index() == 0);
    CHECK(first.policy().get_if<r::lru>() != nullptr);
    CHECK(first.policy().get_if<r::srrip>() == nullptr);
    // The differential test above would pass for any one policy if the alternatives agreed.
    cache::set_associative_cache<choice> lru(shape, {.name = "lru"});
    cache::set_associative_cache<choice> srrip(shape, {.name = "srrip"});
    const auto stream = seeded_stream(9, 30000);
    repl_test::run(lru, stream);
    repl_test::run(srrip, stream);
    CHECK(lru.stats().misses() != srrip.stats().misses());
}

TEST_CASE(
    "runtime_choice: an unknown name or a rejected geometry throws once, naming the choices") {
    CHECK(choice::names(shape, {}) ==
          std::vector<std::string>{"lru", "srrip", "drrip", "tree_plru", "opt"});
    try {
        cache::set_associative_cache<choice> c(shape, {.name = "lfu"});
        FAIL("an unknown name was accepted");
    } catch (const config_error& e) {
        const std::string m = e.what();
        CHECK(m.find("memsub::replacement::runtime_choice: name = lfu") == 0);
        CHECK(m.find("built: lru, srrip, drrip, tree_plru, opt") != std::string::npos);
    }
    // tree-PLRU needs a power-of-two way count: asking for it on 12 ways says why it is missing.
    const geometry twelve{.sets = 64, .ways = 12, .line_bytes = 64};
    CHECK(choice::names(twelve, {}) == std::vector<std::string>{"lru", "srrip", "drrip", "opt"});
    try {
        cache::set_associative_cache<choice> c(twelve, {.name = "tree_plru"});
        FAIL("a rejected alternative was built");
    } catch (const config_error& e) {
        const std::string m = e.what();
        CHECK(m.find("rejected the geometry: memsub::replacement::tree_plru") != std::string::npos);
    }
    // Other alternatives' rejections do not matter when the named one builds.
    cache::set_associative_cache<choice> ok(twelve, {.name = "srrip"});
    CHECK(ok.policy().name() == "srrip");
}

TEST_CASE("runtime_choice passes the replacement contract (K1-K7) as whichever it runs") {
    for (const char* name : {"lru", "srrip", "drrip", "tree_plru"}) {
        CAPTURE(name);
        const auto rep = testing::check_replacement_contract<choice>({.name = name});
        INFO(rep.text());
        CHECK(rep.ok());
    }
}

TEST_CASE("runtime_choice: a spec's settings run the same policy as the params set in code") {
    // "name:key=value,..." (params_for) equals the params written as C++.
    const auto run_spec = [](const std::string& spec) {
        cache::set_associative_cache<choice> c(shape, choice::params_for(shape, spec));
        repl_test::run(c, seeded_stream(11, 40000));
        return std::pair{std::string(c.policy().name()), c.stats().misses()};
    };
    const auto run_params = []<class P>(const typename P::params& own) {
        cache::set_associative_cache<P> c(shape, own);
        repl_test::run(c, seeded_stream(11, 40000));
        return c.stats().misses();
    };
    CHECK(run_spec("srrip:rrpv_bits=3,promotion=frequency_priority").second ==
          run_params.operator()<r::srrip>(
              {.rrpv_bits = 3, .promotion = r::hit_promotion::frequency_priority}));
    CHECK(run_spec("srrip").second == run_params.operator()<r::srrip>({}));
    // The settings matter: three RRPV bits and frequency priority replace differently here.
    CHECK(run_spec("srrip:rrpv_bits=3,promotion=frequency_priority").second !=
          run_spec("srrip").second);
    r::drrip::params d{};
    d.policy.long_period = 16;
    d.policy.source = r::bimodal_source::counter;
    d.psel_bits = 6;
    CHECK(run_spec("drrip:long_period=16,source=counter,psel_bits=6").second ==
          run_params.operator()<r::drrip>(d));
    // A setting that renames the policy: the params carry the new name.
    const auto ta = choice::params_for(shape, "drrip:requesters=4");
    CHECK(ta.name == "ta_drrip");
    CHECK(std::get<r::drrip::params>(ta.alternatives).requesters == 4);
    CHECK(run_spec("opt:allow_bypass=true").first == "opt_bypass");
    // The last of a repeated key wins; an empty setting list is the defaults.
    CHECK(std::get<r::srrip::params>(
              choice::params_for(shape, "srrip:rrpv_bits=3,rrpv_bits=4").alternatives)
              .rrpv_bits == 4);
    CHECK(choice::params_for(shape, "srrip:").name == "srrip");
}

TEST_CASE("runtime_choice: a bad spec throws once, naming the key, the value and the rule") {
    const auto message = [](const std::string& spec) {
        try {
            [[maybe_unused]] const auto p = choice::params_for(shape, spec);
            return std::string("(accepted)");
        } catch (const config_error& e) {
            return std::string(e.what());
        }
    };
    CHECK(message("srrip:rrpv_bits=9") ==
          "memsub::replacement::srrip: rrpv_bits = 9 violates \"must be in 1..7\"");
    CHECK(message("srrip:rrpv_bits=three") ==
          "srrip: rrpv_bits = three violates \"must be an unsigned integer of at most 32 bits\"");
    CHECK(message("srrip:rrpv_bits=4294967296").find("at most 32 bits") != std::string::npos);
    CHECK(message("srrip:psel=3") ==
          "srrip: psel = 3 violates \"names no parameter (there are: rrpv_bits, promotion)\"");
    CHECK(message("lru:x=1").find("has none settable by text") != std::string::npos);
    CHECK(message("srrip:promotion=lru").find("one of hit_priority|frequency_priority") !=
          std::string::npos);
    CHECK(message("srrip:rrpv_bits").find("each setting must be key=value") != std::string::npos);
    CHECK(message("lfu:x=1").find("built: lru, srrip, drrip, tree_plru, opt") != std::string::npos);
}

TEST_CASE("runtime_choice: param_fields_of lists every key with its default, settings applied") {
    const auto keys = [](const std::string& spec) {
        std::string s;
        for (const auto& f : choice::param_fields_of(shape, spec))
            s += (s.empty() ? "" : ",") + f.key + "=" + f.value;
        return s;
    };
    CHECK(keys("srrip") == "rrpv_bits=2,promotion=hit_priority");
    CHECK(keys("srrip:rrpv_bits=3") == "rrpv_bits=3,promotion=hit_priority");
    CHECK(keys("lru").empty());
    CHECK(keys("drrip") == "rrpv_bits=2,promotion=hit_priority,long_period=32,source=prng,seed=1,"
                           "leaders_per_side=0,psel_bits=10,requesters=1");
    CHECK_THROWS_AS((void)choice::param_fields_of(shape, "lfu"), config_error);
    // Every listing is a settings text params_for takes back unchanged (P3: unique keys).
    for (const auto& name : choice::names(shape, {})) {
        const std::string spec = name + ":" + keys(name);
        CHECK(keys(spec) == keys(name));
    }
}
