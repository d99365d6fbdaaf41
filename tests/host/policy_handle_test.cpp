// The C interface's replacement-policy handle (memsub_policy_*, for hosts that keep their own
// tag array) against memsub's own engine: a minimal host tag array written here, driving the
// handle by the protocol H1-H6 of memsub_host.h, must hit, miss and evict exactly as
// set_associative_cache<host::policy_choice> on the same stream, for every policy the handle
// offers; and calls that break the protocol are refused without changing anything.
#include <doctest/doctest.h>

#include "../support/name_list.hpp"

#include <memsub/host/memsub_host.h>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/host/host_policies.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

namespace mc = memsub::cache;

struct policy_deleter {
    void operator()(memsub_policy* p) const noexcept { memsub_policy_destroy(p); }
};
using policy_ptr = std::unique_ptr<memsub_policy, policy_deleter>;

constexpr memsub_policy_config shape{.sets = 64, .ways = 8, .line_bytes = 64, .reserved = 0};

policy_ptr make_policy(const char* name) {
    memsub_policy* out = nullptr;
    memsub_error error{};
    const memsub_status s = memsub_policy_create(name, &shape, &out, &error);
    INFO(name, ": ", std::string(error.message));
    REQUIRE(s == MEMSUB_OK);
    return policy_ptr(out);
}

std::vector<std::string> handle_policy_names() {
    std::size_t needed = 0;
    REQUIRE(memsub_policy_names(&shape, nullptr, 0, &needed, nullptr) == MEMSUB_BUFFER_TOO_SMALL);
    std::string buffer(needed, '\0');
    REQUIRE(memsub_policy_names(&shape, buffer.data(), buffer.size(), nullptr, nullptr) ==
            MEMSUB_OK);
    buffer.resize(needed - 1);
    return memsub_test::split_name_list(buffer);
}

/// 60k accesses over 1,536 lines (3x the cache), a hot eighth taking half of them; loads,
/// stores, writebacks and prefetches from 16 PCs, each with its next use (for OPT).
std::vector<memsub_access> make_stream(std::uint64_t seed) {
    memsub::xoshiro256ss rng(seed);
    std::vector<memsub_access> s(60'000);
    for (auto& a : s) {
        a = memsub_access{};
        const std::uint64_t line = rng() % 2 == 0 ? rng() % 192 : rng() % 1536;
        a.address = line * shape.line_bytes + rng() % shape.line_bytes;
        const std::uint64_t k = rng() % 10;
        a.kind = k < 6   ? MEMSUB_ACCESS_LOAD
                 : k < 8 ? MEMSUB_ACCESS_STORE
                 : k < 9 ? MEMSUB_ACCESS_WRITEBACK
                         : MEMSUB_ACCESS_PREFETCH;
        a.pc = 0x400000 + 4 * (rng() % 16);
        a.hints = MEMSUB_HINT_NEXT_USE;
    }
    std::unordered_map<std::uint64_t, std::uint64_t> next;
    for (std::size_t i = s.size(); i-- > 0;) {
        const std::uint64_t line = s[i].address / shape.line_bytes;
        const auto it = next.find(line);
        s[i].next_use = it == next.end() ? UINT64_MAX : it->second;
        next[line] = i;
    }
    return s;
}

/// A host's own tag array (write-back, write-allocate) that asks the handle which way to
/// replace: what ChampSim, gem5 or GPGPU-Sim keep on their side.
class host_tag_array {
public:
    explicit host_tag_array(memsub_policy* policy)
        : policy_(policy)
        , lines_(std::size_t{shape.sets} * shape.ways) {}

    struct outcome {
        bool hit = false;
        bool evicted = false;
        std::uint64_t evicted_address = 0;
        bool evicted_dirty = false;
    };

    outcome access(const memsub_access& a) {
        outcome o;
        const std::uint64_t line = a.address / shape.line_bytes;
        const auto set = static_cast<std::uint32_t>(line % shape.sets);
        line_state* row = &lines_[std::size_t{set} * shape.ways];
        const bool writes = a.kind == MEMSUB_ACCESS_STORE || a.kind == MEMSUB_ACCESS_WRITEBACK;
        for (std::uint32_t w = 0; w < shape.ways; ++w) {
            if (row[w].valid && row[w].line == line) { // H1
                REQUIRE(memsub_policy_on_hit(policy_, set, w, &a) == MEMSUB_OK);
                row[w].dirty |= writes;
                row[w].reused = true;
                o.hit = true;
                return o;
            }
        }
        REQUIRE(memsub_policy_on_miss(policy_, set, &a) == MEMSUB_OK); // H2
        std::uint32_t way = shape.ways;
        std::uint64_t valid = 0;
        for (std::uint32_t w = 0; w < shape.ways; ++w) {
            if (row[w].valid)
                valid |= std::uint64_t{1} << w;
            else if (way == shape.ways)
                way = w;
        }
        std::uint64_t tracked = 0;
        REQUIRE(memsub_policy_valid_ways(policy_, set, &tracked) == MEMSUB_OK);
        REQUIRE(tracked == valid);
        if (way == shape.ways) {
            std::uint8_t bypass = 0; // H3
            REQUIRE(memsub_policy_should_bypass(policy_, set, &a, &bypass) == MEMSUB_OK);
            if (bypass != 0) return o;
            REQUIRE(memsub_policy_victim(policy_, set, valid, &a, &way) == MEMSUB_OK); // H4
            REQUIRE(way < shape.ways);
            memsub_evicted_block b{};
            b.address = row[way].line * shape.line_bytes;
            b.dirty = row[way].dirty;
            b.reused = row[way].reused;
            b.reason = MEMSUB_EVICTION_REPLACEMENT;
            REQUIRE(memsub_policy_on_evict(policy_, set, way, &b) == MEMSUB_OK);
            o.evicted = true;
            o.evicted_address = b.address;
            o.evicted_dirty = row[way].dirty;
            row[way] = line_state{};
        }
        REQUIRE(memsub_policy_on_insert(policy_, set, way, &a) == MEMSUB_OK); // H5
        row[way] = line_state{.line = line, .valid = true, .dirty = writes, .reused = false};
        return o;
    }

private:
    struct line_state {
        std::uint64_t line = 0;
        bool valid = false;
        bool dirty = false;
        bool reused = false;
    };
    memsub_policy* policy_;
    std::vector<line_state> lines_;
};

memsub::access to_access(const memsub_access& c) {
    memsub::access a;
    a.address = memsub::byte_address{c.address};
    a.pc = c.pc;
    a.kind = static_cast<memsub::access_kind>(c.kind);
    a.hints.next_use = c.next_use;
    return a;
}

} // namespace

TEST_CASE("the policy handle in a host's tag array replaces as memsub's own engine, policy by "
          "policy") {
    auto names = handle_policy_names();
    // Every policy of the set-associative C cache is offered alone too.
    CHECK(names.size() >= 15);
    // ... and with settings after its name.
    for (const char* spec :
         {"srrip:rrpv_bits=3,promotion=frequency_priority", "drrip:requesters=2,psel_bits=6",
          "ship:sampled_sets=16", "remap_lru:side1.reuse=2,mac_window=4"})
        names.emplace_back(spec);
    const auto stream = make_stream(2026);
    const memsub::geometry g{
        .sets = shape.sets, .ways = shape.ways, .line_bytes = shape.line_bytes};
    for (const auto& name : names) {
        CAPTURE(name);
        auto handle = make_policy(name.c_str());
        const char* reported = nullptr;
        REQUIRE(memsub_policy_name(handle.get(), &reported) == MEMSUB_OK);
        host_tag_array host(handle.get());
        mc::set_associative_cache<memsub::host::policy_choice> engine(
            g, memsub::host::policy_choice::params_for(g, name));
        CHECK(std::string(reported) == engine.policy().name());
        if (name.find(':') == std::string::npos) CHECK(std::string(reported) == name);
        std::uint64_t hits = 0, evictions = 0, mismatches = 0;
        for (std::size_t i = 0; i < stream.size(); ++i) {
            const auto mine = host.access(stream[i]);
            const auto theirs = engine.access(to_access(stream[i]));
            hits += mine.hit;
            evictions += mine.evicted;
            const bool theirs_evicted = !theirs.evictions.empty();
            const bool same =
                mine.hit == theirs.hit && mine.evicted == theirs_evicted &&
                (!mine.evicted || (mine.evicted_address == theirs.evictions[0].address.value &&
                                   mine.evicted_dirty == theirs.evictions[0].dirty));
            if (!same && mismatches++ == 0) FAIL_CHECK("first difference at access " << i);
        }
        CHECK(mismatches == 0);
        CHECK(hits == engine.stats().hits());
        CHECK(evictions == engine.stats().evictions);
        // A stream three times the cache, with a hot set: both outcomes occur.
        CHECK(hits > 0);
        CHECK(evictions > 0);
        std::uint64_t bits = 0;
        REQUIRE(memsub_policy_storage_bits(handle.get(), &bits) == MEMSUB_OK);
        CHECK(bits == engine.policy().storage_bits());
    }
}

TEST_CASE("the policy handle refuses calls that break the protocol and changes nothing") {
    auto p = make_policy("srrip");
    memsub_access a{};
    a.address = 0x1000;
    const std::uint32_t set = (0x1000 / 64) % shape.sets;
    memsub_evicted_block b{};
    b.address = 0x1000;
    std::uint32_t way = 99;
    // Nothing is valid yet: no hit, no eviction, no victim.
    CHECK(memsub_policy_on_hit(p.get(), set, 0, &a) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_policy_on_evict(p.get(), set, 0, &b) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_policy_victim(p.get(), set, 1, &a, &way) == MEMSUB_INVALID_ARGUMENT);
    CHECK(way == 99);
    REQUIRE(memsub_policy_on_insert(p.get(), set, 3, &a) == MEMSUB_OK);
    CHECK(memsub_policy_on_insert(p.get(), set, 3, &a) == MEMSUB_INVALID_ARGUMENT); // twice
    std::uint64_t valid = 0;
    REQUIRE(memsub_policy_valid_ways(p.get(), set, &valid) == MEMSUB_OK);
    CHECK(valid == 0b1000);
    // An eligible mask with an invalid way, an empty one, out-of-range set and way.
    CHECK(memsub_policy_victim(p.get(), set, 0b1001, &a, &way) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_policy_victim(p.get(), set, 0, &a, &way) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_policy_on_hit(p.get(), shape.sets, 3, &a) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_policy_on_hit(p.get(), set, shape.ways, &a) == MEMSUB_INVALID_ARGUMENT);
    memsub_access bad = a;
    bad.kind = 7;
    CHECK(memsub_policy_on_hit(p.get(), set, 3, &bad) == MEMSUB_INVALID_ARGUMENT);
    b.reason = 9;
    CHECK(memsub_policy_on_evict(p.get(), set, 3, &b) == MEMSUB_INVALID_ARGUMENT);
    REQUIRE(memsub_policy_valid_ways(p.get(), set, &valid) == MEMSUB_OK);
    CHECK(valid == 0b1000);
    // The valid way is a victim, and an invalidation (H6) frees it.
    REQUIRE(memsub_policy_victim(p.get(), set, 0b1000, &a, &way) == MEMSUB_OK);
    CHECK(way == 3);
    b.reason = MEMSUB_EVICTION_INVALIDATED;
    REQUIRE(memsub_policy_on_evict(p.get(), set, 3, &b) == MEMSUB_OK);
    REQUIRE(memsub_policy_valid_ways(p.get(), set, &valid) == MEMSUB_OK);
    CHECK(valid == 0);
    CHECK(memsub_policy_on_hit(nullptr, set, 3, &a) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_policy_on_miss(p.get(), set, nullptr) == MEMSUB_INVALID_ARGUMENT);
}

TEST_CASE("policy handle configuration errors name the parameter or the names that exist") {
    memsub_policy* out = nullptr;
    memsub_error error{};
    CHECK(memsub_policy_create("no_such_policy", &shape, &out, &error) == MEMSUB_CONFIG_ERROR);
    CHECK(out == nullptr);
    CHECK(error.code == MEMSUB_CONFIG_ERROR);
    CHECK(std::string(error.message).find("srrip") != std::string::npos);
    memsub_policy_config odd = shape;
    odd.sets = 48;
    CHECK(memsub_policy_create("lru", &odd, &out, &error) == MEMSUB_CONFIG_ERROR);
    CHECK(std::string(error.message).find("sets") != std::string::npos);
    odd = shape;
    odd.reserved = 1;
    CHECK(memsub_policy_create("lru", &odd, &out, &error) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_policy_create("lru", nullptr, &out, &error) == MEMSUB_INVALID_ARGUMENT);
    CHECK(out == nullptr);
    // Settings after the name: a refused one names its key; a good one builds.
    CHECK(memsub_policy_create("srrip:rrpv_bits=8", &shape, &out, &error) == MEMSUB_CONFIG_ERROR);
    CHECK(std::string(error.message).find("rrpv_bits = 8") != std::string::npos);
    CHECK(out == nullptr);
    REQUIRE(memsub_policy_create("drrip:requesters=2", &shape, &out, &error) == MEMSUB_OK);
    const char* reported = nullptr;
    REQUIRE(memsub_policy_name(out, &reported) == MEMSUB_OK);
    CHECK(std::string(reported) == "ta_drrip");
    CHECK(memsub_policy_destroy(out) == MEMSUB_OK);
    out = nullptr;
    char settings[256];
    std::size_t needed = 0;
    REQUIRE(memsub_policy_params("ship:counter_bits=2", &shape, settings, sizeof settings, &needed,
                                 &error) == MEMSUB_OK);
    CHECK(std::string(settings) ==
          "rrpv_bits=2,signature_bits=14,counter_bits=2,initial_counter=1,sampled_sets=0");
    CHECK(needed == std::strlen(settings) + 1);
    std::uint32_t revision = 0;
    REQUIRE(memsub_host_abi_revision(&revision) == MEMSUB_OK);
    CHECK(revision == MEMSUB_HOST_ABI_REVISION);
    CHECK(revision >= 1);
}
