// memsub::testing — the contract check of a line-size predictor (linesize/concept.hpp).
//
//   auto report = memsub::testing::check_line_size_contract<my_predictor>();
//   if (!report.ok()) std::fputs(report.text().c_str(), stderr);
//
// The concept `line_size_predictor` checks signatures at compile time; this check holds a
// predictor to the protocol at run time. It performs LP1–LP5 — one `block_bytes` per access
// before the lookup (more often than the engine, which asks only when an access stores data, so
// every answer the predictor could give is checked), the answer as `block_spec{span, span}`,
// every departure passed to `on_evict` (LO1) in the order the cache reports it — on memsub's
// variable-block engine (LRU replacement), over a seeded stream of loads and stores with
// divergence degrees 0–32, partial-line sizes and sector masks. One pass per geometry: first
// `line_size_contract_options::shape` (ID-Cache's 16 KB L1: 32 sets × 4 ways × 128 B lines,
// 32 B segments, 16 tags per set), which the predictor must accept, then `other_shapes`, each of
// which it may refuse with `config_error` (a note) — LS2 asks it to check its sizes against the
// geometry — but once built must answer only sizes that geometry can insert. Each pass builds
// two predictors alike (each with its own cache), feeds both the same stream and runs in a child
// process where the platform has fork. A violation is labelled by the rule it breaks:
//   LS2  the predictor refuses the main shape, or throws something other than `config_error`.
//   LS4  `name()` is non-empty and the same for both instances.
//   LP2  every answer is a power of two, at least the segment size and at most the line size
//        (an illegal answer is replaced by the line size, so the run goes on).
//   K3   determinism: the two instances answer alike, access by access.
//   K6   `storage_bits()` (LO2) is fixed at construction: the same before and after a run, and
//        for both instances.
//   K7   every pass runs to completion (no crash, no throw from a noexcept hook, no hang).
// A predictor without `storage_bits()` gets a note (LO2).
#pragma once

#include <bit>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/linesize/concept.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/testing/contract.hpp>
#include <memsub/testing/contract_report.hpp>
#include <memsub/testing/detail/isolated_pass.hpp>

namespace memsub::testing {

struct line_size_contract_options {
    /// The geometry the predictor must accept: ID-Cache's variable-block L1.
    geometry shape{
        .sets = 32, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    /// Geometries the predictor may refuse (config_error) but, once built, must answer for.
    std::vector<geometry> other_shapes{
        {.sets = 32, .ways = 4, .line_bytes = 128, .segment_bytes = 64, .tags_per_set = 8},
        {.sets = 32, .ways = 4, .line_bytes = 64, .segment_bytes = 16, .tags_per_set = 16},
        {.sets = 32, .ways = 4, .line_bytes = 32, .segment_bytes = 32}};
    /// Accesses per run (each pass has two runs).
    std::uint64_t accesses = 20000;
    std::uint64_t seed = 1;
    /// Distinct lines the stream draws from (more than the cache holds, so it evicts).
    std::uint64_t footprint_lines = 1024;
    /// Run each pass in a child process (POSIX), so that a crash is reported as K7.
    bool isolate_passes = true;
    /// Seconds an isolated pass may run before it is reported as hung (K7); 0 = no limit.
    std::uint32_t pass_time_limit_seconds = 300;
};

namespace detail {

/// The pass's name: "128 B lines, 32 B segments".
[[nodiscard]] inline std::string line_size_pass_name(const geometry& g) {
    return std::to_string(g.line_bytes) + " B lines, " + std::to_string(g.segment_size()) +
           " B segments";
}

/// Why `bytes` cannot be inserted in a cache of shape `g` (LP2), or empty.
[[nodiscard]] inline std::string_view illegal_block_bytes(const geometry& g, std::uint32_t bytes) {
    if (!std::has_single_bit(bytes))
        return "block_bytes answered a size that is not a power of two";
    if (bytes < g.segment_size()) return "block_bytes answered a size smaller than a segment";
    if (bytes > g.line_bytes) return "block_bytes answered a size larger than the line";
    return {};
}

/// One run: `s` on its own variable-block cache over the seeded stream; returns an outcome word
/// per access (the answer, hit, evictions) for K3.
template <linesize::line_size_predictor S>
std::vector<std::uint64_t>
line_size_run(S& s, const geometry& g, const line_size_contract_options& o, bool main_shape,
              std::uint32_t run, const std::string& pass, contract_report& out, pass_channel& ch) {
    cache::basic_cache<replacement::lru, variable_options> c(g);
    std::vector<std::uint64_t> outcomes;
    outcomes.reserve(o.accesses);
    xoshiro256ss rng(o.seed);
    const std::uint32_t line = g.line_bytes;
    const std::uint32_t seg = g.segment_size();
    const std::uint32_t segments = g.segments_per_line();
    for (std::uint64_t i = 0; i < o.accesses; ++i) {
        access a;
        const std::uint64_t base = rng.below(o.footprint_lines) * line;
        a.pc = 0x400000 + 8 * rng.below(64);
        a.kind = rng.below(5) == 0 ? access_kind::store : access_kind::load;
        a.requester = static_cast<std::uint32_t>(rng.below(16));
        // Divergence: mostly few line requests per warp instruction, sometimes 0 (unset).
        const std::uint64_t d = rng.below(20);
        a.divergence = static_cast<std::uint32_t>(d == 0   ? 0
                                                  : d < 12 ? 1 + rng.below(4)
                                                           : 1 + rng.below(32));
        if (segments > 1 && segments <= 16 && rng.below(4) == 0) {
            // A coalescer's line request: the touched segments, address in the lowest.
            const auto mask = static_cast<std::uint16_t>(1 + rng.below((1u << segments) - 1));
            a.sector_mask = mask;
            a.address = byte_address{base + seg * std::countr_zero(mask)};
            a.size = seg;
        } else {
            const std::uint64_t offset = rng.below(line);
            a.address = byte_address{base + offset};
            a.size =
                rng.below(4) == 0 ? 0u : 1 + static_cast<std::uint32_t>(rng.below(line - offset));
        }
        std::uint32_t bytes = s.block_bytes(c.set_of(a.address), a); // LP1
        std::uint64_t outcome = bytes;
        if (const std::string_view why = illegal_block_bytes(g, bytes); !why.empty()) {
            out.add("LP2", pass, why,
                    "run " + std::to_string(run) + ", access " + std::to_string(i) + ": " +
                        std::to_string(bytes) + " B for " + line_size_pass_name(g),
                    1,
                    main_shape ? "answer a power of two between the segment size and the line "
                                 "size"
                               : "LS2: refuse a geometry you cannot answer for in the "
                                 "constructor (linesize::require_block_bytes)");
            bytes = line;
        }
        const std::uint32_t span = bytes / seg;
        const auto r = c.access(a, cache::block_spec{span, span, 0}); // LP3
        outcome |= std::uint64_t{r.hit} << 32 | std::uint64_t{r.evictions.size()} << 33;
        outcomes.push_back(outcome);
        for (const auto& e : r.evictions) linesize::notify_evict(s, e.set, e.entry, e); // LP4
        ++out.accesses;
        if (!r.hit) ++out.misses;
        if ((i + 1) % progress_interval == 0) { // a child that dies leaves this report behind
            ch.progress(run, i + 1);
            ch.snapshot(out);
        }
    }
    return outcomes;
}

/// One pass: two predictors built alike for `g`, the same stream; LP2, then K3, K6 and LS4.
template <linesize::line_size_predictor S>
void line_size_pass(const geometry& g, const typename S::params& params,
                    const line_size_contract_options& o, bool main_shape, const std::string& pass,
                    contract_report& out, pass_channel& ch) {
    std::vector<std::uint64_t> outcomes[2];
    std::uint64_t storage[2][2]{}; // [run][before, after]
    std::string names[2];
    for (std::uint32_t run = 0; run < 2; ++run) {
        S s(g, params);
        ch.progress(run + 1, 0);
        names[run] = std::string(std::string_view(s.name()));
        storage[run][0] = linesize::storage_bits_of(s);
        contract_report mine;
        outcomes[run] = line_size_run(s, g, o, main_shape, run + 1, pass, mine, ch);
        storage[run][1] = linesize::storage_bits_of(s);
        if (run == 0)
            out.merge(mine);
        else
            out.merge_new_kinds(mine);
        ch.snapshot(out);
    }
    if (names[0].empty()) out.add("LS4", pass, "name() is empty", "at construction");
    if (names[0] != names[1])
        out.add("LS4", pass, "two instances built alike report different names",
                "\"" + names[0] + "\" and \"" + names[1] + "\"");
    if (outcomes[0] != outcomes[1]) {
        std::size_t i = 0;
        while (i < outcomes[0].size() && i < outcomes[1].size() && outcomes[0][i] == outcomes[1][i])
            ++i;
        out.add("K3", pass, "two instances fed the same stream answered differently",
                "access " + std::to_string(i) + ": " +
                    std::to_string(outcomes[0][i] & 0xffffffffu) + " B and " +
                    std::to_string(outcomes[1][i] & 0xffffffffu) + " B");
    }
    if constexpr (linesize::reports_storage<S>) {
        for (int run = 0; run < 2; ++run)
            if (storage[run][0] != storage[run][1])
                out.add("K6", pass, "storage_bits() changed during a run",
                        "run " + std::to_string(run + 1) + ": from " +
                            std::to_string(storage[run][0]) + " to " +
                            std::to_string(storage[run][1]));
        if (storage[0][0] != storage[1][0])
            out.add("K6", pass, "two instances built alike report different storage_bits()",
                    std::to_string(storage[0][0]) + " and " + std::to_string(storage[1][0]));
    }
    ch.snapshot(out);
}

} // namespace detail

/// Runs LS2, LS4, LP2, K3, K6 and K7 for line-size predictor `S` (constructed with `params`)
/// on `o.shape` and `o.other_shapes`, and returns what it found.
template <linesize::line_size_predictor S>
[[nodiscard]] contract_report check_line_size_contract(const typename S::params& params = {},
                                                       const line_size_contract_options& o = {}) {
    contract_report report;
    std::vector<geometry> shapes{o.shape};
    shapes.insert(shapes.end(), o.other_shapes.begin(), o.other_shapes.end());
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        const geometry& g = shapes[k];
        const bool main_shape = k == 0;
        const std::string pass = detail::line_size_pass_name(g);
        try {
            const S probe(g, params);
        } catch (const config_error& e) {
            if (main_shape)
                report.add("LS2", pass, "the predictor refused the check's main shape", e.what(), 1,
                           "give the check a shape it supports (line_size_contract_options"
                           "::shape)");
            else
                report.notes.push_back("LS2: not built for " + pass + ": " + e.what());
            continue;
        } catch (const std::exception& e) {
            report.add("LS2", pass, "the constructor threw something other than config_error",
                       e.what());
            continue;
        }
        const detail::pass_spec spec{.name = pass,
                                     .shape = g,
                                     .subject = "predictor",
                                     .state = "per-set state",
                                     .runs = 2,
                                     .accesses = o.accesses,
                                     .isolate = o.isolate_passes,
                                     .time_limit = o.pass_time_limit_seconds};
        detail::run_pass(spec, report, [&](contract_report& out, detail::pass_channel& ch) {
            detail::line_size_pass<S>(g, params, o, main_shape, pass, out, ch);
        });
    }
    if constexpr (!linesize::reports_storage<S>)
        report.notes.push_back("LO2: the predictor has no `std::uint64_t storage_bits() const`; "
                               "adaptive_line_cache::storage_bits() counts its table as 0 bits");
    return report;
}

} // namespace memsub::testing
