// memsub::testing — reusable contract checks a host can run on its own replacement policy.
//
//   auto report = memsub::testing::check_replacement_contract<my_policy>();
//   if (!report.ok()) for (auto& v : report.violations) std::puts(v.c_str());
//
// The check drives the policy, wrapped in `recording_policy`, through memsub's own cache engine
// (conventional and variable-block organisations, loads, stores, writebacks, invalidations and
// host bypasses) over seeded random streams, and verifies (each violation's text starts with
// the check's label):
//   C1. the call protocol P1–P6 (recording_policy's checks other than R6);
//   C2. every victim is a valid entry of the eligible mask (recording_policy's R6 checks; the
//       recorder substitutes the lowest eligible entry, so the run goes on);
//   C3. determinism: two instances fed the same stream make identical decisions (hit, fill,
//       bypass and the full address of every evicted block, access by access);
//   C4. the hit/miss outcome matches an independent residency mirror (a policy can never make a
//       non-resident line hit, nor a resident one miss);
//   C5. no set ever holds a valid entry beyond its tag entries, nor more data segments than its
//       budget;
//   C6. `storage_bits()` (O2) is a hardware budget fixed at construction: it reads the same
//       before and after a run, and for two instances built alike.
// C4 and C5 hold for any policy on memsub's engine (they guard the engine and the recorder's
// victim substitution); `drive_contract_stream` runs them on any cache type with memsub's
// cache interface. It depends on no test framework; it returns a report.
#pragma once

#include <bit>
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

/// Drives `cache` (memsub's cache interface: `access`, `invalidate`, `block`, `free_segments`,
/// `valid_entries`, `variable_blocks`, `result_type`) through the contract's seeded stream on
/// geometry `o.shape`, appending C4 and C5 violations to `report`. Returns the outcome of every
/// access (hit/fill/bypass bits, eviction count, each evicted block's address) for C3.
/// `max_span_segments` bounds the block sizes drawn for variable-block caches.
template <class Cache>
std::vector<std::uint64_t> drive_contract_stream(Cache& cache, const contract_options& o,
                                                 contract_report& report,
                                                 std::uint32_t max_span_segments = 1) {
    std::vector<std::uint64_t> outcomes;
    xoshiro256ss rng(o.seed);
    const std::uint32_t line = o.shape.line_bytes;
    const std::uint32_t seg = o.shape.segment_size();
    const entry_mask entries = low_bits_mask(o.shape.entries_per_set());
    std::unordered_set<std::uint64_t> resident_segments; // C4 mirror, in segment addresses
    for (std::uint64_t i = 0; i < o.accesses; ++i) {
        access a;
        const std::uint64_t l = rng.below(o.footprint_lines);
        a.address = byte_address{l * line + rng.below(line)};
        // A byte range of the line (0 = the whole line), often spanning several segments.
        const std::uint64_t offset = a.address.value % line;
        a.size = rng.below(4) == 0 ? 0u : 1 + static_cast<std::uint32_t>(rng.below(line - offset));
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
        // The requested segments (addresses), and the hit rule: every one of them resident.
        const std::uint64_t line_first = l * line / seg;
        const std::uint64_t lo = a.size == 0 ? line_first : a.address.value / seg;
        const std::uint64_t hi =
            a.size == 0 ? line_first + line / seg - 1 : (a.address.value + a.size - 1) / seg;
        std::uint64_t missing = 0; // bit g - line_first: requested and not resident
        for (std::uint64_t g = lo; g <= hi; ++g)
            if (resident_segments.count(g) == 0) missing |= std::uint64_t{1} << (g - line_first);
        const bool expected_hit = missing == 0;
        typename Cache::result_type r;
        std::uint64_t span = 1; // segments per inserted block
        if constexpr (Cache::variable_blocks) {
            span = 1u << rng.below(std::bit_width(max_span_segments));
            const auto stored = 1 + static_cast<std::uint32_t>(rng.below(span));
            r = cache.access(a, cache::block_spec{static_cast<std::uint32_t>(span), stored});
        } else {
            span = line / seg;
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
        if (r.filled()) {
            // Every aligned span-sized piece holding a missing requested segment is resident now.
            std::uint64_t pieces = 0;
            for (std::uint64_t first = 0; first < line / seg; first += span) {
                if (((missing >> first) & low_bits_mask(static_cast<std::uint32_t>(span))) == 0)
                    continue;
                for (std::uint64_t b = 0; b < span; ++b)
                    resident_segments.insert(line_first + first + b);
                ++pieces;
            }
            if (pieces != r.blocks_filled)
                report.violations.push_back("C4: access " + std::to_string(i) + " filled " +
                                            std::to_string(r.blocks_filled) +
                                            " blocks but the mirror expects " +
                                            std::to_string(pieces));
        }
        outcomes.push_back(std::uint64_t{r.hit} | std::uint64_t{r.filled()} << 1 |
                           std::uint64_t{r.bypassed()} << 2 |
                           std::uint64_t{r.evictions.size()} << 3);
        for (const auto& e : r.evictions) outcomes.push_back(e.address.value);
        const set_index s = r.set;
        if (cache.free_segments(s) > o.shape.segments_per_set())
            report.violations.push_back("C5: set " + std::to_string(s.value) +
                                        " holds more segments than its budget");
        if ((cache.valid_entries(s) & ~entries) != 0)
            report.violations.push_back("C5: set " + std::to_string(s.value) +
                                        " has a valid entry beyond its tag entries");
    }
    return outcomes;
}

namespace detail {

/// Files a recorder violation under C2 (R6, the victim rules) or C1 (the rest).
inline void file_recorder_violations(const std::vector<std::string>& found, std::string_view where,
                                     contract_report& report) {
    for (const auto& v : found)
        report.violations.push_back(std::string(v.starts_with("R6") ? "C2" : "C1") +
                                    std::string(where) + ": " + v);
}

} // namespace detail

/// Runs C1–C6 for policy `P` (constructed with `params`) and returns what it found.
template <replacement::replacement_policy P>
[[nodiscard]] contract_report check_replacement_contract(const typename P::params& params = {},
                                                         contract_options o = {}) {
    using recorder = recording_policy<P>;
    contract_report report;
    std::vector<std::uint64_t> outcomes[2];
    std::uint64_t storage[2][2]{}; // [round][before, after]
    for (int round = 0; round < 2; ++round) {
        cache::set_associative_cache<recorder> c(o.shape, typename recorder::params{params});
        storage[round][0] = c.policy().storage_bits();
        outcomes[round] = drive_contract_stream(c, o, report, 1);
        storage[round][1] = c.policy().storage_bits();
        detail::file_recorder_violations(c.policy().violations(), "", report);
    }
    if (outcomes[0] != outcomes[1]) {
        std::size_t i = 0;
        while (i < outcomes[0].size() && i < outcomes[1].size() && outcomes[0][i] == outcomes[1][i])
            ++i;
        report.violations.push_back("C3: two runs of one stream differ (first at outcome word " +
                                    std::to_string(i) + ")");
    }
    for (int round = 0; round < 2; ++round)
        if (storage[round][0] != storage[round][1])
            report.violations.push_back("C6: storage_bits() changed during a run, from " +
                                        std::to_string(storage[round][0]) + " to " +
                                        std::to_string(storage[round][1]));
    if (storage[0][0] != storage[1][0])
        report.violations.push_back("C6: two instances built alike report different "
                                    "storage_bits(): " +
                                    std::to_string(storage[0][0]) + " and " +
                                    std::to_string(storage[1][0]));

    // Variable-size blocks: 4 segments per line, 4x the tags of a 4-way set (64 entries max).
    contract_options vo = o;
    vo.shape = geometry{.sets = o.shape.sets,
                        .ways = 4,
                        .line_bytes = 128,
                        .segment_bytes = 32,
                        .tags_per_set = 16};
    cache::variable_block_cache<recorder, 4> vc(vo.shape, typename recorder::params{params});
    (void)drive_contract_stream(vc, vo, report, 4);
    detail::file_recorder_violations(vc.policy().violations(), " (variable)", report);
    return report;
}

} // namespace memsub::testing
