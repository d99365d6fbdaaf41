// memsub::testing — the contract check of a compression mode selector (selection/concept.hpp's
// `mode_selector`: requirements SE1–SE5, optional hooks SO1–SO6, protocol SP1–SP5).
//
//   auto report = memsub::testing::check_selector_contract<my_selector>();
//   if (!report.ok()) std::fputs(report.text().c_str(), stderr);
//
// The check builds two instances alike for `selector_contract_options::shape` and drives both
// through a reference compressed cache that follows the call protocol as `gpu::compressed_l1`
// does (pass "reference cache"): per set an LRU stack of lines within a segment budget
// (`uncompressed_ways` lines of 4 segments; a compressed line takes 1–3, by a hash of its
// address, and a line that would take 4 is stored in mode 0, as SP2 says), 4 × ways tags, and
// the tags of recently evicted lines. Every access gets one SE4 call (SP1): a store, a hit with
// its insertion mode and its hit latency (SP3), a fill in the mode SE3 named (asked once, before
// the line is stored: SP2), or a bypassed miss. A selector that reads the latency tolerance (SO1)
// gets a new estimate every 512 accesses; one that needs stack depths (SO3) gets them and the
// "would have fit" flag; one that honours allowed modes (SO2) has every mode allowed for the
// first half of the run and only mode 0 for the second.
// The violations, each labelled by the rule it breaks:
//   SE2. building the selector for the shape threw.
//   SE3. `insertion_mode(set)` named a mode ≥ the shape's modes (the reference cache then stores
//        the line in mode 0).
//   SE5. `name()` is empty, or differs between two instances or before and after a run.
//   SO2. at the end of the run, after `set_allowed_modes(0b1)` (and, when it counts its
//        decisions, SO5, at least one decision since), every set still inserts in a mode other
//        than 0: the mask is ignored (dedicated sets may keep their own mode, followers may not).
//   SO3. `compressed_mode()` names no compressed mode of the shape.
//   SO5/SO6. `decisions()` or `eps()` went down.
//   K3. determinism: the two instances named different modes, access by access.
//   K6. `storage_bits()` (SO4) changed during a run, or differs between the two instances.
//   K7. the pass did not complete: the selector crashed, exited, threw or hung (as in
//       testing/contract.hpp; the pass runs in a child process where POSIX fork exists).
// A selector without `storage_bits()` gets a note (SO4): a reader cannot compare its budget.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>
#include <memsub/selection/concept.hpp>
#include <memsub/testing/contract_report.hpp>
#include <memsub/testing/detail/isolated_pass.hpp>

namespace memsub::testing {

struct selector_contract_options {
    /// The cache the selector serves: its sets, modes (LATTE-CC's three by default), miss
    /// latency and uncompressed associativity.
    selection::selection_shape shape{};
    /// Accesses per run (the pass has two runs).
    std::uint64_t accesses = 20000;
    std::uint64_t seed = 1;
    /// Distinct lines the stream draws from (more than the cache holds, so it evicts).
    std::uint64_t footprint_lines = 1024;
    /// Cycles of a hit in mode 0 (a compressed hit adds its decompression, queued).
    std::uint32_t base_hit_latency = 28;
    /// Run the pass in a child process (POSIX), so a crash is reported as K7.
    bool isolate_passes = true;
    /// Seconds the pass may run before it is reported as hung (K7); 0 = no limit.
    std::uint32_t pass_time_limit_seconds = 300;
};

namespace detail {

/// The reference compressed cache's view of one set: lines MRU first, then evicted tags.
struct reference_set {
    struct line {
        std::uint64_t address = 0;
        std::uint32_t mode = 0;
        std::uint32_t segments = 4;
    };
    std::vector<line> lines;
    std::vector<std::uint64_t> evicted; ///< tag-only entries, most recent first
};

/// One run: drives `s` and returns the modes it named, in order (SE3 answers and the SO2 probe).
template <selection::mode_selector S>
std::vector<std::uint64_t> drive_selector(S& s, const selector_contract_options& o,
                                          std::string_view pass, contract_report& out) {
    using namespace selection;
    const selection_shape& shape = o.shape;
    const auto modes = static_cast<std::uint32_t>(shape.modes.size());
    const std::uint32_t budget = shape.uncompressed_ways * 4;
    const std::uint32_t tags = shape.uncompressed_ways * 4;
    std::vector<reference_set> sets(shape.sets);
    xoshiro256ss rng(o.seed);
    std::vector<std::uint64_t> named;
    named.reserve(o.accesses / 2);
    std::uint64_t decisions_at_restriction = 0;
    std::uint64_t last_decisions = 0, last_eps = 0;
    notify_allowed_modes(s, (1u << modes) - 1);
    for (std::uint64_t i = 0; i < o.accesses; ++i) {
        if (i % 512 == 0) notify_tolerance(s, static_cast<std::uint32_t>(rng.below(400)));
        if (i == o.accesses / 2) {
            notify_allowed_modes(s, 1u);
            decisions_at_restriction = decisions_of(s);
        }
        const std::uint64_t address = rng.below(o.footprint_lines);
        const auto set_no = static_cast<std::uint32_t>(address % shape.sets);
        reference_set& rs = sets[set_no];
        access_outcome a;
        a.set = set_index{set_no};
        const auto pos = std::find_if(rs.lines.begin(), rs.lines.end(),
                                      [&](const auto& l) { return l.address == address; });
        const auto evicted_at = std::find(rs.evicted.begin(), rs.evicted.end(), address);
        const std::uint32_t tag_depth =
            evicted_at == rs.evicted.end()
                ? no_depth
                : static_cast<std::uint32_t>(rs.lines.size() + (evicted_at - rs.evicted.begin()));
        if (rng.below(8) == 0) { // a store: write-evict
            a.what = access_outcome::kind::store;
            if (pos != rs.lines.end()) rs.lines.erase(pos);
        } else if (pos != rs.lines.end()) {
            a.what = access_outcome::kind::hit;
            a.mode = pos->mode;
            a.compressed = pos->segments < 4;
            const std::uint32_t decompress = shape.modes[pos->mode].decompress_cycles;
            a.hit_latency =
                o.base_hit_latency + decompress * static_cast<std::uint32_t>(1 + rng.below(3));
            a.stack_depth = static_cast<std::uint32_t>(pos - rs.lines.begin());
            const auto hit_line = *pos;
            rs.lines.erase(pos);
            rs.lines.insert(rs.lines.begin(), hit_line);
        } else if (rng.below(32) == 0) { // a bypassed miss
            a.what = access_outcome::kind::miss;
            a.stack_depth = tag_depth;
            a.fits_if_compressed = tag_depth != no_depth && tag_depth < tags;
        } else {
            std::uint32_t m = static_cast<std::uint32_t>(s.insertion_mode(a.set)); // SP2
            named.push_back(m);
            if (m >= modes) {
                out.add("SE3", pass, "SE3: insertion_mode named a mode the cache does not have",
                        "access " + std::to_string(i) + ", set " + std::to_string(set_no) +
                            ": mode " + std::to_string(m) + " of " + std::to_string(modes),
                        1, "answer < selection_shape::modes.size()");
                m = 0;
            }
            // A line's compressibility is its own: 1..4 segments by a hash of its address; one
            // that saves nothing is stored in mode 0 (SP2).
            const auto segments =
                m == 0 ? 4u
                       : 1 + static_cast<std::uint32_t>((address * 0x9E3779B97F4A7C15ull) >> 62);
            if (segments == 4) m = 0;
            std::uint32_t used = segments;
            for (const auto& l : rs.lines) used += l.segments;
            while (!rs.lines.empty() && (used > budget || rs.lines.size() + 1 > tags)) {
                used -= rs.lines.back().segments;
                rs.evicted.insert(rs.evicted.begin(), rs.lines.back().address);
                rs.lines.pop_back();
            }
            if (tag_depth != no_depth) // its tag-only entry becomes the line
                rs.evicted.erase(std::find(rs.evicted.begin(), rs.evicted.end(), address));
            if (rs.evicted.size() > tags) rs.evicted.resize(tags);
            rs.lines.insert(rs.lines.begin(), {address, m, segments});
            a.what = access_outcome::kind::fill;
            a.mode = m;
            a.stack_depth = tag_depth;
            a.fits_if_compressed = tag_depth != no_depth && tag_depth < tags;
        }
        if constexpr (!needs_stack_depth<S>) {
            a.stack_depth = no_depth;
            a.fits_if_compressed = false;
        }
        s.on_access(a); // SP1: one call per access
        if constexpr (counts_decisions<S>) {
            if (s.decisions() < last_decisions)
                out.add("SO5", pass, "SO5: decisions() went down", "access " + std::to_string(i));
            last_decisions = s.decisions();
        }
        if constexpr (counts_epochs<S>) {
            if (s.eps() < last_eps)
                out.add("SO6", pass, "SO6: eps() went down", "access " + std::to_string(i));
            last_eps = s.eps();
        }
    }
    if constexpr (restricts_modes<S>) {
        const bool decided = !counts_decisions<S> || decisions_of(s) > decisions_at_restriction;
        std::uint32_t disallowed = 0;
        for (std::uint32_t set = 0; set < shape.sets; ++set) {
            const auto m = static_cast<std::uint32_t>(s.insertion_mode(set_index{set}));
            named.push_back(m);
            if (m != 0) ++disallowed;
        }
        if (decided && disallowed == shape.sets)
            out.add("SO2", pass, "SO2: every set still inserts in a disallowed mode",
                    std::to_string(o.accesses - o.accesses / 2) +
                        " accesses after set_allowed_modes(0b1)",
                    1, "followers must take an allowed mode at the next decision");
    }
    return named;
}

/// Builds a selector for the shape, reporting a throw as SE2 (nullopt then).
template <selection::mode_selector S>
std::optional<S> build_selector(const typename S::params& params,
                                const selector_contract_options& o, std::string_view pass,
                                contract_report& out) {
    try {
        return std::optional<S>(std::in_place, o.shape, params);
    } catch (const std::exception& e) {
        out.add("SE2", pass, "SE2: building the selector for the shape threw", e.what(), 1,
                "give the check a shape the selector supports (selector_contract_options::shape)");
        return std::nullopt;
    }
}

} // namespace detail

/// Runs the selector checks (SE2, SE3, SE5, SO2, SO3, SO5, SO6, K3, K6, K7) on selector `S`
/// built with `params`.
template <selection::mode_selector S>
[[nodiscard]] contract_report check_selector_contract(const typename S::params& params = {},
                                                      const selector_contract_options& o = {}) {
    contract_report report;
    const std::string pass = "reference cache";
    const detail::pass_spec spec{.name = pass,
                                 .shape = geometry{.sets = o.shape.sets,
                                                   .ways = o.shape.uncompressed_ways,
                                                   .line_bytes = 128,
                                                   .segment_bytes = 32,
                                                   .tags_per_set = 4 * o.shape.uncompressed_ways},
                                 .subject = "selector",
                                 .state = "per-set state",
                                 .runs = 2,
                                 .accesses = o.accesses,
                                 .isolate = o.isolate_passes,
                                 .time_limit = o.pass_time_limit_seconds};
    detail::run_pass(spec, report, [&](contract_report& out, detail::pass_channel&) {
        std::vector<std::uint64_t> named[2];
        std::string names[2][2];
        std::uint64_t storage[2][2]{};
        for (int run = 0; run < 2; ++run) {
            auto s = detail::build_selector<S>(params, o, pass, out);
            if (!s) return;
            if constexpr (selection::needs_stack_depth<S>) {
                const auto m = static_cast<std::uint32_t>(s->compressed_mode());
                if (run == 0 && (m == 0 || m >= o.shape.modes.size()))
                    out.add("SO3", pass, "SO3: compressed_mode() names no compressed mode",
                            "mode " + std::to_string(m) + " of " +
                                std::to_string(o.shape.modes.size()));
            }
            names[run][0] = std::string(s->name());
            storage[run][0] = selection::storage_bits_of(*s);
            // The second run adds only kinds the first did not find: counts are one run's.
            contract_report mine;
            named[run] = detail::drive_selector<S>(*s, o, pass, mine);
            if (run == 0)
                out.merge(mine);
            else
                out.merge_new_kinds(mine);
            names[run][1] = std::string(s->name());
            storage[run][1] = selection::storage_bits_of(*s);
            out.accesses += o.accesses;
        }
        if (names[0][0].empty())
            out.add("SE5", pass, "SE5: name() is empty", "a fresh instance", 1,
                    "return a short stable identifier");
        if (names[0][0] != names[0][1])
            out.add("SE5", pass, "SE5: name() changed during a run",
                    "'" + names[0][0] + "' then '" + names[0][1] + "'");
        if (names[0][0] != names[1][0])
            out.add("SE5", pass, "SE5: two instances built alike have different names",
                    "'" + names[0][0] + "' and '" + names[1][0] + "'");
        if (named[0] != named[1]) {
            std::size_t i = 0;
            while (i < named[0].size() && i < named[1].size() && named[0][i] == named[1][i]) ++i;
            out.add("K3", pass, "two instances fed the same accesses named different modes",
                    "insertion " + std::to_string(i));
        }
        for (int run = 0; run < 2; ++run)
            if (storage[run][0] != storage[run][1])
                out.add("K6", pass, "storage_bits() changed during a run",
                        "run " + std::to_string(run + 1) + ": from " +
                            std::to_string(storage[run][0]) + " to " +
                            std::to_string(storage[run][1]));
        if (storage[0][0] != storage[1][0])
            out.add("K6", pass, "two instances built alike report different storage_bits()",
                    std::to_string(storage[0][0]) + " and " + std::to_string(storage[1][0]));
    });
    if constexpr (!selection::reports_storage<S>)
        report.notes.push_back("SO4: the selector has no `std::uint64_t storage_bits() const`; a "
                               "reader cannot compare its hardware budget with other selectors'");
    return report;
}

} // namespace memsub::testing
