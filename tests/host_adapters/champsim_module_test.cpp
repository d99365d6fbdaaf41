// memsub's ChampSim module (include/memsub/host/champsim/memsub/) in a stand-in of ChampSim's
// cache (champsim_standin_driver.cpp, C++17 against stand-in headers written from ChampSim's
// public ones): with fills at once it hits, evicts and writes back exactly as memsub's own
// engine on the same stream, for each policy, with and without retried fills; with delayed,
// merged and retried fills it keeps the replacement protocol for every policy; the writeback-
// hit setting reproduces ChampSim's lru; a bad setting stops construction with a message.
#include <doctest/doctest.h>

#include "champsim_standin_driver.hpp"

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/host/host_policies.hpp>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace mc = memsub::cache;
namespace cs = champsim_standin;

constexpr unsigned load = 0, rfo = 1, prefetch = 2, write = 3;

/// 40k requests over 3x the stand-in cache's lines, a hot eighth taking half; loads, RFOs,
/// writebacks and prefetches from 2 cores and 16 instruction pointers (0 for writebacks, as
/// ChampSim sends them).
std::vector<cs::request> make_stream(std::uint64_t seed) {
    memsub::xoshiro256ss rng(seed);
    std::vector<cs::request> s(40'000);
    for (auto& r : s) {
        const std::uint64_t line = rng() % 2 == 0 ? rng() % 192 : rng() % 1536;
        r.address = line * 64 + rng() % 64;
        const std::uint64_t k = rng() % 10;
        r.type = k < 6 ? load : k < 8 ? rfo : k < 9 ? write : prefetch;
        r.ip = r.type == write ? 0 : 0x400000 + 4 * (rng() % 16);
        r.cpu = static_cast<std::uint32_t>(rng() % 2);
    }
    return s;
}

memsub::access_kind kind_of(unsigned type) {
    switch (type) {
    case rfo:
        return memsub::access_kind::store;
    case prefetch:
        return memsub::access_kind::prefetch;
    case write:
        return memsub::access_kind::writeback;
    default:
        return memsub::access_kind::load;
    }
}

/// The environment the module reads, set for one scope.
struct policy_environment {
    policy_environment(const std::string& policy, const char* writeback_hits) {
        ::setenv("MEMSUB_POLICY", policy.c_str(), 1);
        if (writeback_hits != nullptr)
            ::setenv("MEMSUB_WRITEBACK_HITS", writeback_hits, 1);
        else
            ::unsetenv("MEMSUB_WRITEBACK_HITS");
    }
    ~policy_environment() {
        ::unsetenv("MEMSUB_POLICY");
        ::unsetenv("MEMSUB_WRITEBACK_HITS");
    }
};

// With settings too: MEMSUB_POLICY carries them after the name, as the C interface takes them.
const std::vector<std::string> policies{"lru",
                                        "fifo",
                                        "tree_plru",
                                        "nru",
                                        "srrip",
                                        "brrip",
                                        "drrip",
                                        "ship",
                                        "remap",
                                        "srrip_perd",
                                        "srrip_mac",
                                        "srrip:rrpv_bits=3,promotion=frequency_priority",
                                        "drrip:psel_bits=6,source=counter",
                                        "ship:signature_bits=12"};

} // namespace

TEST_CASE("the ChampSim module with fills at once equals memsub's engine, policy by policy") {
    const auto stream = make_stream(7);
    const memsub::geometry g{.sets = 64, .ways = 8, .line_bytes = 64};
    for (const bool retries : {false, true}) {
        for (const auto& name : policies) {
            CAPTURE(name);
            CAPTURE(retries);
            policy_environment env(name, nullptr);
            cs::options o;
            o.retry_dirty_fills = retries;
            const auto got = cs::run(o, stream);
            mc::set_associative_cache<memsub::host::policy_choice> engine(
                g, memsub::host::policy_choice::params_for(g, name));
            std::size_t mismatches = 0, evictions = 0, dirty = 0;
            for (std::size_t i = 0; i < stream.size(); ++i) {
                memsub::access a;
                a.address = memsub::byte_address{stream[i].address};
                a.pc = stream[i].ip;
                a.kind = kind_of(stream[i].type);
                a.requester = stream[i].cpu;
                const auto want = engine.access(a);
                const bool want_evicted = !want.evictions.empty();
                const bool same =
                    got[i].hit == want.hit && got[i].evicted == want_evicted &&
                    (!want_evicted || (got[i].victim_address == want.evictions[0].address.value &&
                                       got[i].victim_dirty == want.evictions[0].dirty));
                evictions += got[i].evicted;
                dirty += got[i].evicted && got[i].victim_dirty;
                if (!same && mismatches++ == 0) FAIL_CHECK("first difference at request " << i);
            }
            CHECK(mismatches == 0);
            CHECK(evictions > 1000); // the stream exercises replacement
            CHECK(dirty > 100);      // and dirty victims, which the retries repeat
        }
    }
}

TEST_CASE("the ChampSim module keeps the protocol with delayed, merged and retried fills") {
    const auto stream = make_stream(11);
    for (const auto& name : policies) {
        CAPTURE(name);
        policy_environment env(name, nullptr);
        cs::options o;
        o.fill_delay = 24;
        o.retry_dirty_fills = true;
        // A broken call sequence would come back from the C interface as an exception.
        std::vector<cs::outcome> got;
        REQUIRE_NOTHROW(got = cs::run(o, stream));
        std::size_t hits = 0;
        for (const auto& r : got) hits += r.hit;
        CHECK(hits > 0);
        CHECK(hits < stream.size());
    }
}

TEST_CASE("MEMSUB_WRITEBACK_HITS=ignore reproduces ChampSim's lru, which skips writeback hits") {
    // ChampSim's lru (replacement/lru): a timestamp per way, set on fills and on hits that are
    // not writebacks; the victim is the oldest way. Written here as the reference.
    const auto stream = make_stream(3);
    constexpr std::uint32_t sets = 64, ways = 8;
    std::vector<std::uint64_t> line(sets * ways), stamp(sets * ways);
    std::vector<bool> valid(sets * ways);
    std::uint64_t clock = 0;
    std::vector<std::uint64_t> reference_victims;
    for (const auto& r : stream) {
        const std::uint64_t l = r.address / 64;
        const std::size_t base = (l % sets) * ways;
        std::size_t way = ways;
        for (std::size_t w = 0; w < ways; ++w)
            if (valid[base + w] && line[base + w] == l) way = w;
        if (way != ways) {
            if (r.type != write) stamp[base + way] = clock++;
            continue;
        }
        for (std::size_t w = 0; w < ways && way == ways; ++w)
            if (!valid[base + w]) way = w;
        if (way == ways) {
            way = 0;
            for (std::size_t w = 1; w < ways; ++w)
                if (stamp[base + w] < stamp[base + way]) way = w;
            reference_victims.push_back(line[base + way] * 64);
        }
        valid[base + way] = true;
        line[base + way] = l;
        stamp[base + way] = clock++;
    }
    auto victims_of = [&](const char* setting) {
        policy_environment env("lru", setting);
        std::vector<std::uint64_t> victims;
        for (const auto& r : cs::run(cs::options{}, stream))
            if (r.evicted) victims.push_back(r.victim_address);
        return victims;
    };
    CHECK(victims_of("ignore") == reference_victims);
    CHECK(victims_of("promote") != reference_victims); // the setting matters on this stream
    CHECK(victims_of(nullptr) == victims_of("promote"));
}

TEST_CASE("the ChampSim module stops at construction on a bad setting, naming it") {
    const auto stream = make_stream(5);
    {
        policy_environment env("no_such_policy", nullptr);
        try {
            (void)cs::run(cs::options{}, stream);
            FAIL("an unknown policy was accepted");
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            CHECK(what.find("LLC") != std::string::npos);
            CHECK(what.find("MEMSUB_POLICY_LLC") != std::string::npos);
            CHECK(what.find("srrip") != std::string::npos); // the names that exist
        }
    }
    {
        policy_environment env("srrip", "sometimes");
        CHECK_THROWS_WITH_AS((void)cs::run(cs::options{}, stream),
                             doctest::Contains("MEMSUB_WRITEBACK_HITS=sometimes"),
                             std::invalid_argument);
    }
    {
        // The cache's own variable wins over MEMSUB_POLICY.
        policy_environment env("no_such_policy", nullptr);
        ::setenv("MEMSUB_POLICY_LLC", "srrip", 1);
        CHECK_NOTHROW((void)cs::run(cs::options{}, stream));
        ::unsetenv("MEMSUB_POLICY_LLC");
    }
}
