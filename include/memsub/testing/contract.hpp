// memsub::testing — reusable contract checks a host can run on its own replacement policy or
// bypass predictor (this header), and on its own compressor, line-size predictor, page placement
// or CTA scheduler, DRAM request scheduler or compression mode selector (compressor_contract.hpp,
// line_size_contract.hpp, placement_contract.hpp, cta_contract.hpp, scheduler_contract.hpp,
// selector_contract.hpp, which report by the same K labels and their family's concept labels).
//
//   auto report = memsub::testing::check_replacement_contract<my_policy>();
//   if (!report.ok()) std::fputs(report.text().c_str(), stderr);
//   auto bypass = memsub::testing::check_bypass_contract<my_predictor>();
//
// A check drives the subject, wrapped in its recorder (`recording_policy`, or
// `recording_predictor` beside a recorded LRU), through memsub's own cache engine over seeded
// random streams (loads, stores, writebacks, prefetches, invalidations and host bypasses), in
// passes, one per cache organisation:
//   * conventional   — `contract_options::shape` (one block per line, tags = ways); always run;
//   * variable-block — `contract_options::variable_shape` (32 B segments of 128 B lines, 16 tag
//     entries for 4 ways by default), on unless `variable_block_pass = false`. It is where a
//     subject that sizes its state by `ways` instead of `geometry.entries_per_set()` breaks.
// Each pass builds two instances alike and feeds both the same stream. The report lists the
// passes that ran (`contract_report::passes`) and the violations, one line per kind with a
// count and its first occurrence (contract_report.hpp). The checks:
//   K1. the call protocol: replacement P1–P6, P8 and O3 (recording_policy's checks other than
//       R6); for a predictor also Q1–Q3 and T1–T3 (recording_predictor's checks);
//   K2. every victim is a valid entry of the eligible mask (R6; the recorder substitutes the
//       lowest eligible entry, so the run goes on);
//   K3. determinism: the two instances make identical decisions (hit, fill, who bypassed, and
//       the address of every evicted block, access by access);
//   K4. the hit/miss outcome matches an independent residency mirror (a policy can never make a
//       non-resident line hit, nor a resident one miss);
//   K5. no set ever holds a valid entry beyond its tag entries, nor more data segments than its
//       budget;
//   K6. `storage_bits()` (O2, T4) is a hardware budget fixed at construction: it reads the
//       same before and after a run, and for two instances built alike;
//   K7. every pass runs to completion: building its caches does not throw, and the subject does
//       not crash (a signal), exit, or exceed `pass_time_limit_seconds`.
//   K8. a policy's fast forms decide exactly as its plain hooks: with O7 (`replace`), O6
//       (`for_entries`, on compile-time shapes of 4, 16 and 64 entries per set) and O9 (the
//       row-addressed hooks the engine uses on those shapes when it hosts the rows) the engine's
//       outcomes, access by access, equal those of the same policy called through R4–R6 only
//       with a runtime geometry (pass "fast forms", run only for a policy that has either).
// K4 and K5 hold for any subject on memsub's engine (they guard the engine and the recorder's
// victim substitution); `drive_contract_stream` runs them on any cache type with memsub's cache
// interface. Nothing here depends on a test framework.
//
// Crashes. A policy that indexes its own state out of bounds cannot be caught in-process. With
// `isolate_passes` (the default) each pass runs in a child process (POSIX fork,
// testing/detail/isolated_pass.hpp): a crash becomes a K7 violation naming the signal, the pass
// geometry and the access reached — "the policy crashed with signal 11 (SIGSEGV) in the
// variable-block pass (16 entries per set, 4 ways) …: size per-set state by
// geometry.entries_per_set(), not ways" — and the violations the child found before it died
// come back with it. Limits: an out-of-bounds access that does not fault (a write into another
// live heap block) is not a crash and goes unseen unless a sanitizer build reports it (the
// child's sanitizer report is then a K7 "exited early", with the report on stderr); without
// fork, or with `isolate_passes = false` (to debug a crash), a crash ends the host. Call the
// checks from a single thread: the child runs only the calling thread.
//
// Labels. Every rule memsub states carries a label unique across the library, so a diagnostic,
// a report line or a comment that cites one means exactly that rule:
//   family               header                                requirements  optional  protocol
//   replacement_policy   replacement/concept.hpp               R1–R7         O1–O9     P1–P8
//   dueling_candidate    replacement/set_dueling.hpp           D1–D7
//   bypass_predictor     bypass/concept.hpp                    B1–B4         T1–T4     Q1–Q5
//   compressor           compression/concept.hpp               C1–C7                   CP1–CP5
//     invertible_compressor (refinement)                       CI1–CI3
//   compressed storage   compression/stored_size.hpp           CS1–CS7
//   line_size_predictor  linesize/concept.hpp                  LS1–LS4       LO1–LO2   LP1–LP5
//   mode_selector        selection/concept.hpp                 SE1–SE5       SO1–SO6   SP1–SP5
//   address_mapping      memory/concept.hpp                    M1–M2
//     invertible_address_mapping (refinement)                  MI1
//   memory_controller    memory/concept.hpp                    MC1–MC7                 MP1–MP6
//   request_scheduler    memory/scheduler_concept.hpp          MS1–MS4
//   row_policy           memory/row_policy_concept.hpp         RP1–RP4
//   write_drain_policy   memory/controller_parts_concept.hpp   WD1–WD5
//   queue_organisation   memory/controller_parts_concept.hpp   QO1–QO8
//   refresh_rule         memory/controller_parts_concept.hpp   RF1–RF3
//   trace_reader         trace/concept.hpp                     TR1–TR7
//   placement_policy     placement/concept.hpp                 PL1–PL5                 PP1–PP4
//     invertible_placement (refinement)                        PLI1
//   cta_scheduler        cta/concept.hpp                       CT1–CT6                 CTP1–CTP4
//   topology             topology/concept.hpp                  N1–N6
//   set sampler          core/set_sampler.hpp                                          SS1–SS7
//   follower_rule        core/set_sampler.hpp                  FR1–FR6       FRO1
//   fa_order             cache/fully_associative.hpp           FA1–FA6
//   contract checks      testing/contract.hpp                  K1–K8
// Decision: a refinement's requirements carry its base family's prefix followed by the letter
// of the refinement (I for invertible), numbered from 1 — CI1 (invertible_compressor), MI1
// (invertible_address_mapping), PLI1 (invertible_placement) — so a label shows both the family
// and that the rule is needed only by the refinement. Considered: a letter of its own (the
// compressor's former I1–I3, which reads like nothing in particular and is one letter from
// every family) and numbering on from the base family (the mapping's former M2 after M1, M3,
// which hides that the rule is optional for a controller).
// Every concept family has one sub-concept per requirement, and every concept `X` a
// `diagnose_X<T>()` (consteval, in X's namespace) whose static_assert messages, one per broken
// requirement, start with the requirement's label: `replacement::diagnose_replacement_policy`,
// `compression::diagnose_invertible_compressor`, `memory::diagnose_request_scheduler`, …
// Decision: one name per concept, spelled after the concept and nothing shorter, so the check of
// a concept is found by its name and stays unambiguous where a namespace holds several concepts
// (compression, memory, placement). Considered: a short `diagnose<T>()` for a namespace's main
// concept beside the long forms (two spellings of one check, and a namespace that gains a second
// concept has to pick which one the short form means).
// Labels of the mechanism pages (docs/mechanisms/compressors.md's §2.2 B1/B2, §4.2 vectors V1–V6,
// C1/C2 and S1/S2, its P-… pitfalls; docs/mechanisms/multi_module_gpu.md's and
// memory_controllers.md's C5.x, G2.x and G4.x) name those pages' rules, not concept requirements;
// they are cited with the page's name.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include <memsub/bypass/concept.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/testing/contract_report.hpp>
#include <memsub/testing/detail/isolated_pass.hpp>
#include <memsub/testing/recording_policy.hpp>
#include <memsub/testing/recording_predictor.hpp>

namespace memsub::testing {

struct contract_options {
    /// Geometry of the conventional pass (always run): one block per line, tags = ways.
    geometry shape{.sets = 16, .ways = 4, .line_bytes = 64};
    /// Run the variable-block pass. On by default: a policy or predictor meant for memsub's
    /// engine must hold in variable-block and compressed caches too. Turn it off only for a
    /// subject that is conventional-only by design; the report's `passes` then shows one pass.
    bool variable_block_pass = true;
    /// Geometry of the variable-block pass: segments smaller than a line and more tag entries
    /// than ways (entries_per_set() = 16 for 4 ways here), as ID-Cache and compressed caches.
    geometry variable_shape{
        .sets = 16, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    /// Accesses per run (each pass has two runs).
    std::uint64_t accesses = 20000;
    std::uint64_t seed = 1;
    /// Distinct lines the random stream draws from (more than the cache holds, so it evicts).
    std::uint64_t footprint_lines = 256;
    /// Run each pass in a child process (POSIX), so that a crash is reported as K7 instead of
    /// ending the host. Set false to debug a crash in-process; ignored where fork is missing.
    bool isolate_passes = true;
    /// Seconds an isolated pass may run before it is reported as hung (K7); 0 = no limit.
    std::uint32_t pass_time_limit_seconds = 300;
};

namespace detail {
struct no_progress {
    void operator()(std::uint64_t) const noexcept {}
};
} // namespace detail

/// Drives `cache` (memsub's cache interface: `access`, `invalidate`, `free_segments`,
/// `valid_entries`, `variable_blocks`, `result_type`) through the contract's seeded stream on
/// geometry `o.shape`, adding K4 and K5 violations to `report` (pass "conventional" or
/// "variable-block", after the cache type). Returns the outcome of every access (hit, fill and
/// bypass reason bits, eviction count, each evicted block's address) for K3.
/// `max_span_segments` bounds the block sizes drawn for variable-block caches; `progress(n)` is
/// called after each of the `o.accesses` steps with the number done.
template <class Cache, class Progress = detail::no_progress>
std::vector<std::uint64_t>
drive_contract_stream(Cache& cache, const contract_options& o, contract_report& report,
                      std::uint32_t max_span_segments = 1, Progress&& progress = {}) {
    const std::string_view pass = Cache::variable_blocks ? "variable-block" : "conventional";
    std::vector<std::uint64_t> outcomes;
    xoshiro256ss rng(o.seed);
    const std::uint32_t line = o.shape.line_bytes;
    const std::uint32_t seg = o.shape.segment_size();
    const entry_mask entries = low_bits_mask(o.shape.entries_per_set());
    std::unordered_set<std::uint64_t> resident_segments; // K4 mirror, in segment addresses
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
            progress(i + 1);
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
        const std::string at = "access " + std::to_string(i);
        if (r.hit != expected_hit)
            report.add("K4", pass, "the hit/miss outcome differs from the residency mirror",
                       at + ": hit=" + std::to_string(r.hit) + ", the mirror says " +
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
                report.add("K4", pass, "the blocks filled differ from the residency mirror",
                           at + ": filled " + std::to_string(r.blocks_filled) +
                               ", the mirror expects " + std::to_string(pieces));
        }
        outcomes.push_back(std::uint64_t{r.hit} | std::uint64_t{r.filled()} << 1 |
                           std::uint64_t{static_cast<std::uint8_t>(r.bypass)} << 2 |
                           std::uint64_t{r.evictions.size()} << 5);
        for (const auto& e : r.evictions) outcomes.push_back(e.address.value);
        const set_index s = r.set;
        if (cache.free_segments(s) > o.shape.segments_per_set())
            report.add("K5", pass, "a set holds more data segments than its budget",
                       "set " + std::to_string(s.value) + ", " + at);
        if ((cache.valid_entries(s) & ~entries) != 0)
            report.add("K5", pass, "a set has a valid entry beyond its tag entries",
                       "set " + std::to_string(s.value) + ", " + at);
        progress(i + 1);
    }
    return outcomes;
}

namespace detail {

/// Files a recorder's violations: R6 (victim rules) under K2, every other rule under K1.
inline void file_recorded(const std::vector<recorded_violation>& found, std::string_view pass,
                          contract_report& report) {
    for (const auto& v : found)
        report.add(v.rule.starts_with("R6") ? "K2" : "K1", pass, v.rule, v.first, v.count);
}

/// One pass's body: two instances of `Cache` built alike, fed the same stream; K1/K2 (through
/// `subject.collect`), K4/K5 (the stream), then K3 and K6 comparing them. The second run adds
/// only violation kinds the first did not have, so counts are those of one run.
template <class Cache, class Subject>
void two_runs(const Subject& subject, const contract_options& o, const std::string& pass,
              std::uint32_t max_span, contract_report& out, pass_channel& ch) {
    std::vector<std::uint64_t> outcomes[2];
    std::uint64_t storage[2][2]{}; // [run][before, after]
    for (std::uint32_t run = 0; run < 2; ++run) {
        const std::unique_ptr<Cache> c = subject.template make<Cache>(o.shape);
        ch.progress(run + 1, 0);
        contract_report mine;
        const auto add_run = [&](contract_report& to, const contract_report& r) {
            if (run == 0)
                to.merge(r);
            else
                to.merge_new_kinds(r);
        };
        std::size_t kinds = 0;
        // Isolated: at every progress mark and at every new violation kind, send the pass's
        // report so far (a child that dies leaves it behind).
        const auto tick = [&](std::uint64_t done) {
            if (!ch.active()) return;
            const bool mark = done % progress_interval == 0;
            const std::size_t now = mine.violations.size() + subject.kinds(*c);
            if (!mark && now == kinds) return;
            if (mark) ch.progress(run + 1, done);
            kinds = now;
            contract_report sofar = mine;
            subject.collect(*c, pass, sofar);
            contract_report snap = out;
            add_run(snap, sofar);
            ch.snapshot(snap);
        };
        storage[run][0] = subject.storage(*c);
        outcomes[run] = drive_contract_stream(*c, o, mine, max_span, tick);
        storage[run][1] = subject.storage(*c);
        subject.collect(*c, pass, mine);
        add_run(out, mine);
        ch.progress(run + 1, o.accesses);
        ch.snapshot(out);
    }
    if (outcomes[0] != outcomes[1]) {
        std::size_t i = 0;
        while (i < outcomes[0].size() && i < outcomes[1].size() && outcomes[0][i] == outcomes[1][i])
            ++i;
        out.add("K3", pass, "two instances fed the same stream decided differently",
                "outcome word " + std::to_string(i));
    }
    for (int run = 0; run < 2; ++run)
        if (storage[run][0] != storage[run][1])
            out.add("K6", pass, "storage_bits() changed during a run",
                    "run " + std::to_string(run + 1) + ": from " + std::to_string(storage[run][0]) +
                        " to " + std::to_string(storage[run][1]));
    if (storage[0][0] != storage[1][0])
        out.add("K6", pass, "two instances built alike report different storage_bits()",
                std::to_string(storage[0][0]) + " and " + std::to_string(storage[1][0]));
}

/// Runs the conventional pass and, unless turned off, the variable-block pass.
template <class ConventionalCache, class VariableCache, class Subject>
contract_report run_contract(const Subject& subject, const contract_options& o) {
    contract_report report;
    const auto pass = [&]<class Cache>(std::type_identity<Cache>, std::string name,
                                       const geometry& g, std::uint32_t max_span,
                                       bool sizing_hint) {
        contract_options po = o;
        po.shape = g;
        const pass_spec spec{.name = std::move(name),
                             .shape = g,
                             .subject = Subject::noun,
                             .state = Subject::state,
                             .runs = 2,
                             .accesses = o.accesses,
                             .isolate = o.isolate_passes,
                             .time_limit = o.pass_time_limit_seconds,
                             .sizing_hint = sizing_hint && g.entries_per_set() > g.ways};
        run_pass(spec, report, [&](contract_report& out, pass_channel& ch) {
            two_runs<Cache>(subject, po, spec.name, max_span, out, ch);
        });
    };
    pass(std::type_identity<ConventionalCache>{}, "conventional", o.shape, 1, false);
    // A crash only where entries outnumber ways suggests state sized by ways.
    const bool conventional_ran = report.passes.back().status == pass_status::completed;
    if (o.variable_block_pass)
        pass(std::type_identity<VariableCache>{}, "variable-block", o.variable_shape,
             o.variable_shape.segments_per_line(), conventional_ran);
    return report;
}

/// The variable-block caches of the checks take any segments-per-line the geometry allows.
inline constexpr cache::cache_options variable_options{.max_block_segments = 64};

template <replacement::replacement_policy P>
struct replacement_subject {
    using recorder = recording_policy<P>;
    static constexpr std::string_view noun = "policy";
    static constexpr std::string_view state = "per-set state";
    const typename P::params& params;

    template <class Cache>
    std::unique_ptr<Cache> make(const geometry& g) const {
        return std::make_unique<Cache>(
            g, typename recorder::params{.inner = params, .log_capacity = 0});
    }
    template <class Cache>
    void collect(const Cache& c, std::string_view pass, contract_report& r) const {
        file_recorded(c.policy().violations(), pass, r);
    }
    template <class Cache>
    std::size_t kinds(const Cache& c) const {
        return c.policy().violations().size();
    }
    template <class Cache>
    std::uint64_t storage(const Cache& c) const {
        return c.policy().storage_bits();
    }
};

template <bypass::bypass_predictor B>
struct bypass_subject {
    using policy = recording_policy<replacement::lru>;
    using predictor = recording_predictor<B>;
    static constexpr std::string_view noun = "predictor";
    static constexpr std::string_view state = "per-entry state";
    const typename B::params& params;

    template <class Cache>
    std::unique_ptr<Cache> make(const geometry& g) const {
        auto c = std::make_unique<Cache>(g, typename policy::params{.log_capacity = 0},
                                         typename predictor::params{.inner = params,
                                                                    .stores_allocate = true,
                                                                    .log_capacity = 0});
        c->bypass_predictor().observe(c->policy().trace());
        return c;
    }
    template <class Cache>
    void collect(const Cache& c, std::string_view pass, contract_report& r) const {
        file_recorded(c.policy().violations(), pass, r);
        for (const auto& v : c.bypass_predictor().violations())
            r.add("K1", pass, v.rule, v.first, v.count);
    }
    template <class Cache>
    std::size_t kinds(const Cache& c) const {
        return c.policy().violations().size() + c.bypass_predictor().violations().size();
    }
    template <class Cache>
    std::uint64_t storage(const Cache& c) const {
        return c.bypass_predictor().storage_bits();
    }
};

} // namespace detail

namespace detail {

template <class P>
concept has_fast_forms = replacement::fuses_replacement<P> || requires {
    typename P::template for_entries<16>;
};

/// K8: `P` on memsub's engine as a host builds it (O7 used; O6 used with `Geometry` fixed)
/// against `P` behind its recorder, which offers only the plain hooks, on a runtime geometry.
template <replacement::replacement_policy P, class Geometry>
void compare_fast_forms(const typename P::params& params, contract_options o,
                        contract_report& out) {
    Geometry shape{};
    if constexpr (std::same_as<Geometry, geometry>)
        shape = o.shape;
    else
        o.shape = static_cast<geometry>(shape);
    cache::set_associative_cache<P, cache::write_policy::write_back, Geometry> fast(shape, params);
    cache::set_associative_cache<recording_policy<P>> plain(
        o.shape, typename recording_policy<P>::params{.inner = params, .log_capacity = 0});
    contract_report runs; // K4/K5 of these runs are the other passes' business
    const auto a = drive_contract_stream(fast, o, runs);
    const auto b = drive_contract_stream(plain, o, runs);
    out.accesses += runs.accesses;
    out.misses += runs.misses;
    if (a != b) {
        std::size_t i = 0;
        while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
        out.add("K8", "fast forms",
                "the fused replace (O7) or the compile-time shape (O6) decided differently from "
                "victim/on_evict/on_insert",
                std::to_string(o.shape.entries_per_set()) + " entries per set, outcome word " +
                    std::to_string(i));
    }
}

} // namespace detail

/// Runs K1–K8 for replacement policy `P` (constructed with `params`) and returns what it found.
template <replacement::replacement_policy P>
[[nodiscard]] contract_report check_replacement_contract(const typename P::params& params = {},
                                                         const contract_options& o = {}) {
    using subject = detail::replacement_subject<P>;
    using recorder = typename subject::recorder;
    contract_report report =
        detail::run_contract<cache::set_associative_cache<recorder>,
                             cache::basic_cache<recorder, detail::variable_options>>(
            subject{params}, o);
    if constexpr (detail::has_fast_forms<P>) {
        const detail::pass_spec spec{.name = "fast forms",
                                     .shape = o.shape,
                                     .subject = "policy",
                                     .state = "per-set state",
                                     .runs = 8, // four shapes, each run fast and plain
                                     .accesses = o.accesses,
                                     .isolate = o.isolate_passes,
                                     .time_limit = o.pass_time_limit_seconds};
        detail::run_pass(spec, report, [&](contract_report& out, detail::pass_channel&) {
            detail::compare_fast_forms<P, geometry>(params, o, out);
            detail::compare_fast_forms<P, fixed_geometry<16, 4, 64>>(params, o, out);
            detail::compare_fast_forms<P, fixed_geometry<16, 16, 64>>(params, o, out);
            detail::compare_fast_forms<P, fixed_geometry<16, 64, 64>>(params, o, out);
        });
    }
    if constexpr (!replacement::reports_storage<P>)
        report.notes.push_back(
            "O2: the policy has no `std::uint64_t storage_bits() const`; tools show its metadata "
            "as unknown and cannot compare its hardware budget with other policies'");
    return report;
}

/// Runs K1 and K3–K7 for bypass predictor `B` (constructed with `params`) in a write-back cache
/// whose replacement policy is a recorded LRU (its violations count too: K1, K2).
template <bypass::bypass_predictor B>
[[nodiscard]] contract_report check_bypass_contract(const typename B::params& params = {},
                                                    const contract_options& o = {}) {
    using subject = detail::bypass_subject<B>;
    using policy = typename subject::policy;
    using predictor = typename subject::predictor;
    contract_report report = detail::run_contract<
        cache::basic_cache<policy, cache::cache_options{}, geometry, predictor>,
        cache::basic_cache<policy, detail::variable_options, geometry, predictor>>(subject{params},
                                                                                   o);
    if constexpr (!bypass::reports_storage<B>)
        report.notes.push_back(
            "T4: the predictor has no `std::uint64_t storage_bits() const`; tools show its "
            "table budget as unknown");
    return report;
}

} // namespace memsub::testing
