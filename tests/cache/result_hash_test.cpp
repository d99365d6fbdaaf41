// Every access result of the conventional engine, hashed, against the hash recorded before the
// miss path was reorganised: the engine's speed work may change how a miss is computed, never
// what it reports. One digest per (policy, geometry kind, entry point) over a stream that hits,
// misses, stores, reuses and writes back (the explorer's mixed workload on a small cache), so a
// changed victim, eviction record, dirty or reused bit, byte count, statistic or policy call
// order shows up as a different digest. The digests were printed by this test (set
// MEMSUB_PRINT_RESULT_HASHES=1) on the engine as it was before; a deliberate behaviour change
// must re-record them and say why in its commit.
#include <doctest/doctest.h>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/workload/synthetic.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using memsub::geometry;

constexpr geometry hash_shape{.sets = 64, .ways = 16, .line_bytes = 64};
using hash_fixed_shape = memsub::fixed_geometry<64, 16, 64>;

struct digest {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    void add(std::uint64_t x) noexcept {
        for (int i = 0; i < 8; ++i) {
            h ^= (x >> (8 * i)) & 0xff;
            h *= 0x100000001b3ULL;
        }
    }
};

const std::vector<memsub::access>& hash_stream() {
    static const std::vector<memsub::access> s = [] {
        memsub::workload::mixed_stream m(memsub::workload::mixed_stream::params{
            .cache_lines = hash_shape.sets * hash_shape.ways, .seed = 7});
        std::vector<memsub::access> v(200'000);
        for (auto& a : v) a = m.next();
        return v;
    }();
    return s;
}

template <class Result>
void add_result(digest& d, const Result& r) {
    d.add(std::uint64_t{r.hit} | std::uint64_t{r.blocks_filled} << 8 |
          std::uint64_t{static_cast<std::uint8_t>(r.bypass)} << 16 |
          std::uint64_t{r.set.value} << 24);
    d.add(r.entry.value);
    d.add(std::uint64_t{r.bytes_fetched} << 32 | r.bytes_written_down);
    d.add(r.evictions.size());
    for (const auto& e : r.evictions) {
        d.add(e.line.value);
        d.add(e.address.value);
        d.add(std::uint64_t{e.bytes} << 32 | e.stored_segments);
        d.add(std::uint64_t{e.set.value} << 32 | e.entry.value);
        d.add(std::uint64_t{e.dirty} | std::uint64_t{e.reused} << 1 |
              std::uint64_t{static_cast<std::uint8_t>(e.reason)} << 2);
        d.add(e.touched_segments);
        d.add(e.payload);
    }
}

template <class Cache>
void add_stats(digest& d, const Cache& c) {
    const auto& s = c.stats();
    d.add(s.accesses());
    d.add(s.misses());
    d.add(s.fills);
    d.add(s.evictions);
    d.add(s.writebacks);
    d.add(s.invalidations);
    d.add(s.bytes_fetched);
    d.add(s.bytes_written_down);
    d.add(s.bytes_written_back);
    for (const auto b : s.bypasses_by_reason) d.add(b);
}

/// The digest of `access` one by one, or of `access_all` when `batch`.
template <class Policy, class Geometry>
std::uint64_t run_digest(bool batch) {
    using cache_type = memsub::cache::set_associative_cache<Policy>;
    using fixed_cache_type =
        memsub::cache::set_associative_cache<Policy, memsub::cache::write_policy::write_back,
                                             Geometry>;
    using C = std::conditional_t<std::is_same_v<Geometry, geometry>, cache_type, fixed_cache_type>;
    C cache{[] {
        if constexpr (std::is_same_v<Geometry, geometry>)
            return hash_shape;
        else
            return Geometry{};
    }()};
    digest d;
    if (batch) {
        cache.access_all(hash_stream(),
                         [&](const memsub::access&, const auto& r) { add_result(d, r); });
    } else {
        for (const auto& a : hash_stream()) add_result(d, cache.access(a));
    }
    add_stats(d, cache);
    return d.h;
}

struct recorded {
    const char* name;
    std::uint64_t runtime, runtime_batch, fixed;
};

// Recorded on the engine before the miss path was reorganised (see the file comment).
constexpr recorded expected[] = {
#include "result_hash_expected.inc"
};

template <class Policy>
void check_policy() {
    const std::string name{Policy(hash_shape, {}).name()};
    const recorded got{nullptr, run_digest<Policy, geometry>(false),
                       run_digest<Policy, geometry>(true),
                       run_digest<Policy, hash_fixed_shape>(false)};
    if (std::getenv("MEMSUB_PRINT_RESULT_HASHES") != nullptr) {
        std::printf("    {\"%s\", 0x%016llxULL, 0x%016llxULL, 0x%016llxULL},\n", name.c_str(),
                    static_cast<unsigned long long>(got.runtime),
                    static_cast<unsigned long long>(got.runtime_batch),
                    static_cast<unsigned long long>(got.fixed));
        return;
    }
    const recorded* want = nullptr;
    for (const auto& r : expected)
        if (name == r.name) want = &r;
    INFO("policy ", name);
    REQUIRE(want != nullptr);
    CHECK(got.runtime == want->runtime);
    CHECK(got.runtime_batch == want->runtime_batch);
    CHECK(got.fixed == want->fixed);
    // One pass, three entry points: one behaviour.
    CHECK(got.runtime == got.runtime_batch);
    CHECK(got.runtime == got.fixed);
}

template <class... P>
void check_all(std::tuple<P...>*) {
    (check_policy<P>(), ...);
}

} // namespace

TEST_CASE("every conventional access result equals the recorded digest, per policy") {
    check_all(static_cast<memsub::replacement::all_policies*>(nullptr));
}
