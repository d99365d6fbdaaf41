// memsub::testing — reusable contract checks a host can run on its own replacement policy.
//
//   auto report = memsub::testing::check_replacement_contract<my_policy>();
//   if (!report.ok()) for (auto& v : report.violations) std::puts(v.c_str());
//
// The check drives the policy, wrapped in `recording_policy`, through memsub's own cache engine
// (conventional and variable-block organisations, loads, stores, writebacks, invalidations and
// host bypasses) over seeded random streams, and verifies:
//   C1. the call protocol P1–P7 (recording_policy's checks);
//   C2. every victim is a valid entry of the eligible mask;
//   C3. determinism: two instances fed the same stream make identical decisions;
//   C4. the hit/miss outcome matches an independent residency mirror (a policy can never make a
//       non-resident line hit);
//   C5. the cache never holds more blocks than it has entries, nor more segments than its budget.
// It depends on no test framework; it returns a report.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/testing/recording_policy.hpp>

namespace memsub::testing {

struct contract_report {
    std::vector<std::string> violations;
    std::uint64_t accesses = 0;
    std::uint64_t misses = 0;
    [[nodiscard]] bool ok() const noexcept { return violations.empty(); }
};

struct contract_options {
    geometry shape{.sets = 16, .ways = 4, .line_bytes = 64};
    std::uint64_t accesses = 20000;
    std::uint64_t seed = 1;
    /// Distinct lines the random stream draws from (more than the cache holds, so it evicts).
    std::uint64_t footprint_lines = 256;
};

namespace detail {

template <class Cache>
void drive(Cache& cache, const contract_options& o, std::vector<std::uint8_t>& outcomes,
           contract_report& report, std::uint32_t max_span_segments) {
    xoshiro256ss rng(o.seed);
    const std::uint32_t line = o.shape.line_bytes;
    const std::uint32_t seg = o.shape.segment_size();
    std::unordered_set<std::uint64_t> resident_segments; // C4 mirror, in segment addresses
    for (std::uint64_t i = 0; i < o.accesses; ++i) {
        access a;
        const std::uint64_t l = rng.below(o.footprint_lines);
        a.address = byte_address{l * line + rng.below(line)};
        a.pc = 0x400000 + 4 * rng.below(64);
        const std::uint64_t k = rng.below(16);
        a.kind = k < 10 ? access_kind::load
                        : (k < 13 ? access_kind::store
                                  : (k < 14 ? access_kind::writeback : access_kind::prefetch));
        a.hints.no_allocate = rng.below(50) == 0;
        a.hints.next_use = rng.below(4) == 0 ? never : i + 1 + rng.below(1000);
        if (rng.below(200) == 0) {
            if (auto gone = cache.invalidate(a.address)) {
                for (std::uint64_t b = 0; b < gone->bytes / seg; ++b)
                    resident_segments.erase(gone->address.value / seg + b);
            }
            continue;
        }
        const bool expected_hit = resident_segments.count(a.address.value / seg) != 0;
        typename Cache::result_type r;
        if constexpr (Cache::variable_blocks) {
            const std::uint32_t span = 1u << rng.below(std::bit_width(max_span_segments));
            const std::uint32_t stored = 1 + static_cast<std::uint32_t>(rng.below(span));
            r = cache.access(a, cache::block_spec{span, stored});
        } else {
            r = cache.access(a);
        }
        ++report.accesses;
        if (!r.hit) ++report.misses;
        if (r.hit != expected_hit)
            report.violations.push_back("C4: access " + std::to_string(i) +
                                        " hit=" + std::to_string(r.hit) + " but the mirror says " +
                                        std::to_string(expected_hit));
        for (const auto& e : r.evictions)
            for (std::uint64_t b = 0; b < e.bytes / seg; ++b)
                resident_segments.erase(e.address.value / seg + b);
        if (r.filled) {
            const auto v = cache.block(r.set, r.entry);
            for (std::uint64_t b = 0; b < v.bytes / seg; ++b)
                resident_segments.insert(v.address.value / seg + b);
        }
        outcomes.push_back(static_cast<std::uint8_t>(r.hit | (r.filled << 1) | (r.bypassed << 2)));
        outcomes.push_back(static_cast<std::uint8_t>(r.evictions.size()));
        for (const auto& e : r.evictions)
            outcomes.push_back(static_cast<std::uint8_t>(e.address.value));
        const std::uint32_t s = r.set.value;
        if (cache.free_segments(set_index{s}) > o.shape.segments_per_set())
            report.violations.push_back("C5: set " + std::to_string(s) + " exceeds its budget");
    }
}

} // namespace detail

/// Runs C1–C5 for policy `P` (constructed with `params`) and returns what it found.
template <replacement::replacement_policy P>
[[nodiscard]] contract_report check_replacement_contract(const typename P::params& params = {},
                                                         contract_options o = {}) {
    using recorder = recording_policy<P>;
    contract_report report;
    std::vector<std::uint8_t> first, second;
    for (int round = 0; round < 2; ++round) {
        cache::set_associative_cache<recorder> c(o.shape, typename recorder::params{params});
        detail::drive(c, o, round == 0 ? first : second, report, 1);
        for (const auto& v : c.policy().violations()) report.violations.push_back("C1: " + v);
    }
    if (first != second) report.violations.push_back("C3: two runs of one stream differ");

    // Variable-size blocks: 4 segments per line, 4x the tags of a 4-way set (64 entries max).
    contract_options vo = o;
    vo.shape = geometry{.sets = o.shape.sets,
                        .ways = 4,
                        .line_bytes = 128,
                        .segment_bytes = 32,
                        .tags_per_set = 16};
    std::vector<std::uint8_t> vfirst;
    cache::variable_block_cache<recorder, 4> vc(vo.shape, typename recorder::params{params});
    detail::drive(vc, vo, vfirst, report, 4);
    for (const auto& v : vc.policy().violations())
        report.violations.push_back("C1 (variable): " + v);
    return report;
}

} // namespace memsub::testing
