// The engine's miss path over a matrix of workloads: every cell is one cache shape (sets x
// ways), one stream whose steady-state LRU miss ratio is near a target, and one memsub cache
// (policy, runtime or compile-time geometry, `access` or `access_all`), timed against the plain
// move-to-front LRU loop of the same shape on the same stream in the same run.
//
// Shared by two harnesses that must agree: bench/miss_path.cpp (Google Benchmark, one row per
// cell) and bench/host/miss_path_host.cpp (a stand-alone program built with a host's ordinary
// -O2 or -O3 and nothing else, whose loops the compiler inlines as it would a host's).
//
// Streams (words: byte address | 1 for a store, 20 % stores): Zipf(exponent) over `footprint`
// lines, plus a share of scan references (lines never seen again in a pass), each line index
// scattered over a 42-bit address space so popular lines spread over the sets. The footprint is
// found by bisection so that the plain loop's miss ratio on a warm cache (the second of two
// passes) is the target: Zipf 0.9 for the targets up to 50 %, Zipf 0.7 with 10 % scans for 70 %
// and 30 % scans for 90 % (Zipf alone needs footprints of thousands of times the cache there).
// The miss ratio reported for a cell is measured, not the target.
//
// Timing: each cell's two loops run the stream in alternating order (the subject first in one
// round, the plain loop first in the next), each on its own warm cache, timed by the thread's
// CPU clock; the ratio divides the summed times, so machine load affects both sides alike.
#pragma once

#include "baselines.hpp"

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/drrip.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/srrip.hpp>
#include <memsub/workload/synthetic.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace memsub_bench::miss_path {

inline constexpr std::array<double, 6> target_miss_ratios{0.05, 0.20, 0.35, 0.50, 0.70, 0.90};
inline constexpr std::array<std::uint32_t, 4> way_counts{4, 8, 16, 32};
inline constexpr std::array<std::uint32_t, 4> set_counts{64, 1024, 16384, 65536};
inline constexpr std::uint32_t line_bytes = 64;
inline constexpr double store_fraction = 0.2;

/// Stream length for a shape: four passes' worth of the cache's lines, 1 Mi..8 Mi accesses.
[[nodiscard]] inline std::size_t stream_length(std::uint64_t cache_lines) noexcept {
    return std::clamp<std::size_t>(4 * cache_lines, std::size_t{1} << 20, std::size_t{1} << 23);
}

struct stream_recipe {
    double exponent = 0.9;
    double scan_share = 0.0;
    std::uint64_t footprint = 1; ///< Zipf lines
};

[[nodiscard]] inline stream_recipe recipe_for(double target) noexcept {
    if (target <= 0.5) return {.exponent = 0.9, .scan_share = 0.0};
    if (target <= 0.75) return {.exponent = 0.7, .scan_share = 0.1};
    return {.exponent = 0.7, .scan_share = 0.3};
}

/// The stream of `length` words for a recipe (deterministic in `seed`).
[[nodiscard]] inline std::vector<std::uint64_t>
make_stream(const stream_recipe& r, std::size_t length, std::uint64_t seed) {
    memsub::workload::zipf_distribution zipf(std::max<std::uint64_t>(r.footprint, 1), r.exponent);
    memsub::xoshiro256ss rng(seed);
    std::vector<std::uint64_t> words(length);
    std::uint64_t scan_position = 0;
    for (auto& w : words) {
        const bool scan = rng.uniform() < r.scan_share;
        const std::uint64_t index =
            scan ? (std::uint64_t{1} << 40) + scan_position++ : zipf(rng) - 1;
        const std::uint64_t line = memsub::mix64(index ^ 0x5ca1ab1eULL) & ((1ULL << 42) - 1);
        const bool store = rng.uniform() < store_fraction;
        w = line * line_bytes | (store ? 1u : 0u);
    }
    return words;
}

/// The plain loop's miss ratio on a warm cache: the second of two passes.
[[nodiscard]] inline double steady_miss_ratio(const memsub::geometry& g,
                                              std::span<const std::uint64_t> words) {
    plain_mtf_lru loop(g);
    for (const auto w : words) (void)loop.access(w);
    std::uint64_t hits = 0;
    for (const auto w : words) hits += loop.access(w);
    return 1.0 - static_cast<double>(hits) / static_cast<double>(words.size());
}

/// A recipe whose stream's steady-state miss ratio on shape `g` is near `target` (bisection on
/// the footprint, in log space, on probe streams as long as the cell's own: the steady miss
/// ratio of a Zipf stream depends on its length, and a shorter probe left the large caches'
/// streams several points above their targets). A probe within half a point of the
/// target ends the search with that probe's footprint; otherwise the search ends with the
/// middle of its last interval, 2^-14 of the first one wide.
[[nodiscard]] inline stream_recipe calibrate(const memsub::geometry& g, double target,
                                             std::uint64_t seed) {
    stream_recipe r = recipe_for(target);
    const std::uint64_t lines = std::uint64_t{g.sets} * g.ways;
    const std::size_t probe = stream_length(lines);
    double lo = std::log2(std::max<double>(1.0, static_cast<double>(lines) / 16));
    double hi = std::log2(static_cast<double>(lines) * 4096.0);
    for (int step = 0; step < 14; ++step) {
        const double mid = 0.5 * (lo + hi);
        r.footprint = static_cast<std::uint64_t>(std::exp2(mid));
        const double m = steady_miss_ratio(g, make_stream(r, probe, seed));
        if (std::abs(m - target) < 0.005) return r;
        (m < target ? lo : hi) = mid;
    }
    r.footprint = static_cast<std::uint64_t>(std::exp2(0.5 * (lo + hi)));
    return r;
}

/// Which entry point a cell times: memsub's `access` or `access_all`, or a hand-written
/// loop's `access(word)` (the design floor).
enum class entry_point { access, access_all, word };

// Every pass is its own function, not inlined into the cell that calls it and starting on a
// 64-byte boundary (the access itself is inlined into the pass's loop, as into a host's loop):
// one copy of each loop per loop type, so every cell of a shape divides by the same machine code
// of the plain loop rather than by a copy whose placement differs from cell to cell.

/// One pass of the stream through a memsub cache, as a host writes it: the hits summed.
template <class Cache>
[[gnu::noinline, gnu::aligned(64)]] std::uint64_t
memsub_pass(Cache& cache, std::span<const std::uint64_t> words) {
    std::uint64_t hits = 0;
    for (const auto w : words) hits += cache.access(to_access(w)).hit;
    return hits;
}

/// The same through `access_all`, the host's accesses built in blocks of 256.
template <class Cache>
[[gnu::noinline, gnu::aligned(64)]] std::uint64_t
memsub_batch_pass(Cache& cache, std::span<const std::uint64_t> words) {
    std::uint64_t hits = 0;
    std::array<memsub::access, 256> block;
    for (std::size_t i = 0; i < words.size(); i += block.size()) {
        const std::size_t n = std::min(block.size(), words.size() - i);
        for (std::size_t j = 0; j < n; ++j) block[j] = to_access(words[i + j]);
        cache.access_all(std::span<const memsub::access>(block.data(), n),
                         [&](const memsub::access&, const auto& r) { hits += r.hit; });
    }
    return hits;
}

template <class Loop>
[[gnu::noinline, gnu::aligned(64)]] std::uint64_t plain_pass(Loop& loop,
                                                             std::span<const std::uint64_t> words) {
    std::uint64_t hits = 0;
    for (const auto w : words) hits += loop.access(w);
    return hits;
}

/// Where a harness pinned itself: the CPU, or -1 and why not.
struct cpu_pin {
    int cpu = -1;
    std::string why_not;
};

/// Binds the calling process to the CPU it is running on.
///
/// Decision: both harnesses pin themselves by default (each has an option not to). Unpinned, on
/// the 2-vCPU machine of docs/performance/miss_path.md, a third of the cells moved by more than
/// 10 % from one run of a harness to the next; pinned, a few in 384 did, and the two harnesses'
/// medians agreed (that document's "The two harnesses, pinned" has the counts). The CPU is the
/// one the process starts on, so a `taskset` the user gave is kept (it already allows only its
/// CPUs).
[[nodiscard]] inline cpu_pin pin_to_current_cpu() {
#if defined(__linux__)
    const int cpu = sched_getcpu();
    if (cpu < 0) return {.cpu = -1, .why_not = "sched_getcpu failed"};
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return {.cpu = -1, .why_not = "sched_setaffinity failed"};
    return {.cpu = cpu, .why_not = {}};
#else
    return {.cpu = -1, .why_not = "pinning is implemented for Linux only"};
#endif
}

/// CPU seconds each side of a cell is timed for at least, in both harnesses.
inline constexpr double default_min_seconds = 0.15;

/// Accesses in each timed block: the subject and the plain loop take turns block by block.
///
/// Decision: the two sides alternate every 64 Ki accesses of the stream (each keeping its own
/// cache), not every whole pass. On a machine whose memory system is shared with other tenants,
/// a side's speed drifts over seconds, even from one pass to the next on the same array: whole
/// passes, up to a second each, caught different phases of that drift, blocks of a few
/// milliseconds catch the same one, and a cell's ratio repeats more closely, within a process
/// and less so between processes (docs/performance/miss_path.md, "Timing in blocks", has the
/// figures). Switching sides more often also leaves each side less of its own data in the
/// CPU's caches and TLBs at a switch, as an engine finds it inside a host's own loop; that
/// moves some cells (the same section). `0` keeps whole passes, the method of the figures
/// measured before the change.
inline constexpr std::size_t default_block_accesses = std::size_t{1} << 16;

/// How a cell is timed.
struct cell_timing {
    /// CPU seconds each side is timed for, at least (and at least two passes).
    double min_seconds = default_min_seconds;
    /// Accesses per timed block (0: whole passes).
    std::size_t block_accesses = default_block_accesses;
};

/// A cell's figures.
struct cell_result {
    double miss_ratio = 0;       ///< the subject's, on a warm cache
    double plain_miss_ratio = 0; ///< the plain loop's (equal for an exact LRU subject)
    /// The policy's miss ratio that a hand-written floor must reproduce (-1: none checked).
    double expected_miss_ratio = -1;
    double x_plain_loop = 0;  ///< plain loop CPU time ÷ subject CPU time
    double subject_rate = 0;  ///< accesses per CPU second
    std::uint64_t passes = 0; ///< timed passes per side
};

/// Times `Cache` (built from `shape`) against `Loop` on `words`, interleaved in blocks of
/// `timing.block_accesses`, whole passes of the stream until each side has at least
/// `timing.min_seconds` of CPU time (and at least two passes).
template <class Cache, class Loop, entry_point Entry = entry_point::access, class Shape>
cell_result run_cell(const Shape& shape, std::span<const std::uint64_t> words,
                     const cell_timing& timing) {
    Cache cache(shape);
    Loop loop(shape);
    auto subject_pass = [&](std::span<const std::uint64_t> part) {
        if constexpr (Entry == entry_point::access_all)
            return memsub_batch_pass(cache, part);
        else if constexpr (Entry == entry_point::word)
            return plain_pass(cache, part);
        else
            return memsub_pass(cache, part);
    };
    // Warm both (and measure the subject's warm miss ratio on the second pass).
    (void)subject_pass(words);
    (void)plain_pass(loop, words);
    cell_result out;
    const std::uint64_t warm_hits = subject_pass(words);
    const std::uint64_t plain_hits = plain_pass(loop, words);
    const auto n = static_cast<double>(words.size());
    out.miss_ratio = 1.0 - static_cast<double>(warm_hits) / n;
    out.plain_miss_ratio = 1.0 - static_cast<double>(plain_hits) / n;
    const std::size_t block = timing.block_accesses != 0 ? timing.block_accesses : words.size();
    double t_subject = 0, t_plain = 0;
    bool subject_first = true;
    while (out.passes < 2 || t_subject < timing.min_seconds || t_plain < timing.min_seconds) {
        for (std::size_t first = 0; first < words.size(); first += block) {
            const auto part = words.subspan(first, std::min(block, words.size() - first));
            for (int side = 0; side < 2; ++side) {
                const bool subject = (side == 0) == subject_first;
                const double t0 = thread_cpu_seconds();
                (void)(subject ? subject_pass(part) : plain_pass(loop, part));
                (subject ? t_subject : t_plain) += thread_cpu_seconds() - t0;
            }
            subject_first = !subject_first;
        }
        ++out.passes;
    }
    out.x_plain_loop = t_subject > 0 ? t_plain / t_subject : 0.0;
    out.subject_rate = static_cast<double>(out.passes * words.size()) / std::max(t_subject, 1e-12);
    return out;
}

/// The subjects of the matrix, by name. `design_floor` and `design_floor_srrip` are not
/// memsub: memsub's LRU and SRRIP designs written by hand for the compile-time shape
/// (baselines.hpp, fingerprint_lru_floor and fingerprint_srrip_floor), timed only with fixed
/// geometry; where memsub's LRU or SRRIP misses the target, they show whether the design or the
/// engine is short.
enum class subject { lru, srrip, drrip, lru_access_all, design_floor, design_floor_srrip };
inline constexpr std::array<subject, 6> all_subjects{
    subject::lru,          subject::srrip,
    subject::drrip,        subject::lru_access_all,
    subject::design_floor, subject::design_floor_srrip};
/// True for the subjects that are exact LRUs (their misses must equal the plain loop's).
[[nodiscard]] constexpr bool is_lru(subject s) noexcept {
    return s == subject::lru || s == subject::lru_access_all || s == subject::design_floor;
}
/// True for the subjects timed only with a compile-time shape.
[[nodiscard]] constexpr bool fixed_only(subject s) noexcept {
    return s == subject::design_floor || s == subject::design_floor_srrip;
}
[[nodiscard]] inline std::string_view name_of(subject s) noexcept {
    switch (s) {
    case subject::lru:
        return "lru";
    case subject::srrip:
        return "srrip";
    case subject::drrip:
        return "drrip";
    case subject::lru_access_all:
        return "lru_access_all";
    case subject::design_floor:
        return "design_floor";
    case subject::design_floor_srrip:
        return "design_floor_srrip";
    }
    return "?";
}

template <class Policy, class Geometry = memsub::geometry>
using cache_of =
    memsub::cache::set_associative_cache<Policy, memsub::cache::write_policy::write_back, Geometry>;

/// Runs one runtime-shaped cell.
inline cell_result run_runtime_cell(subject s, const memsub::geometry& g,
                                    std::span<const std::uint64_t> words,
                                    const cell_timing& timing) {
    using memsub::replacement::drrip;
    using memsub::replacement::lru;
    using memsub::replacement::srrip;
    switch (s) {
    case subject::lru:
        return run_cell<cache_of<lru>, plain_mtf_lru>(g, words, timing);
    case subject::srrip:
        return run_cell<cache_of<srrip>, plain_mtf_lru>(g, words, timing);
    case subject::drrip:
        return run_cell<cache_of<drrip>, plain_mtf_lru>(g, words, timing);
    case subject::lru_access_all:
        return run_cell<cache_of<lru>, plain_mtf_lru, entry_point::access_all>(g, words, timing);
    case subject::design_floor:
    case subject::design_floor_srrip:
        break; // a compile-time shape only
    }
    return {};
}

/// A fixed-shape cache and loop constructible like the runtime ones (from a geometry that must
/// equal the shape; the plain fixed loop ignores it).
template <std::uint32_t Sets, std::uint32_t Ways>
struct fixed_plain_loop : plain_mtf_lru_fixed<Sets, Ways, line_bytes> {
    explicit fixed_plain_loop(const memsub::geometry&) {}
};

/// Runs one compile-time-shaped cell (LRU, SRRIP, DRRIP through `access`).
template <std::uint32_t Sets, std::uint32_t Ways>
cell_result run_fixed_cell(subject s, std::span<const std::uint64_t> words,
                           const cell_timing& timing) {
    using shape = memsub::fixed_geometry<Sets, Ways, line_bytes>;
    using loop = fixed_plain_loop<Sets, Ways>;
    const memsub::geometry g = shape{};
    using memsub::replacement::drrip;
    using memsub::replacement::lru;
    using memsub::replacement::srrip;
    struct fixed_cache_lru : cache_of<lru, shape> {
        explicit fixed_cache_lru(const memsub::geometry&) : cache_of<lru, shape>(shape{}) {}
    };
    struct fixed_cache_srrip : cache_of<srrip, shape> {
        explicit fixed_cache_srrip(const memsub::geometry&) : cache_of<srrip, shape>(shape{}) {}
    };
    struct fixed_cache_drrip : cache_of<drrip, shape> {
        explicit fixed_cache_drrip(const memsub::geometry&) : cache_of<drrip, shape>(shape{}) {}
    };
    struct floor_loop : fingerprint_lru_floor<Sets, Ways, line_bytes> {
        explicit floor_loop(const memsub::geometry&) {}
    };
    struct srrip_floor_loop : fingerprint_srrip_floor<Sets, Ways, line_bytes> {
        explicit srrip_floor_loop(const memsub::geometry&) {}
    };
    switch (s) {
    case subject::design_floor:
        return run_cell<floor_loop, loop, entry_point::word>(g, words, timing);
    case subject::design_floor_srrip: {
        cell_result c = run_cell<srrip_floor_loop, loop, entry_point::word>(g, words, timing);
        // The floor must be memsub's SRRIP access by access: its warm miss ratio is checked
        // against memsub's on the same stream.
        fixed_cache_srrip cache(g);
        (void)memsub_pass(cache, words);
        c.expected_miss_ratio = 1.0 - static_cast<double>(memsub_pass(cache, words)) /
                                          static_cast<double>(words.size());
        return c;
    }
    case subject::lru:
        return run_cell<fixed_cache_lru, loop>(g, words, timing);
    case subject::srrip:
        return run_cell<fixed_cache_srrip, loop>(g, words, timing);
    case subject::drrip:
        return run_cell<fixed_cache_drrip, loop>(g, words, timing);
    case subject::lru_access_all:
        break; // the batch entry point is measured on the runtime shape
    }
    return {};
}

/// Dispatches a fixed cell to its compile-time shape (sets x ways of the matrix).
inline cell_result run_fixed_cell(subject s, const memsub::geometry& g,
                                  std::span<const std::uint64_t> words, const cell_timing& timing) {
    cell_result r;
    auto try_shape = [&]<std::uint32_t S, std::uint32_t W>() {
        if (g.sets == S && g.ways == W) r = run_fixed_cell<S, W>(s, words, timing);
    };
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((try_shape.template operator()<set_counts[I / 4], way_counts[I % 4]>()), ...);
    }
    (std::make_index_sequence<set_counts.size() * way_counts.size()>{});
    return r;
}

/// The value of a harness's block-size option: a count of accesses, 0 for whole passes.
[[nodiscard]] inline std::size_t parse_block_accesses(std::string_view text) {
    std::size_t n = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty())
        throw std::runtime_error("block accesses: a count of accesses (0: whole passes), not '" +
                                 std::string(text) + "'");
    return n;
}

/// How a harness times its cells, in words (printed with its results).
[[nodiscard]] inline std::string timing_text(const cell_timing& t) {
    return t.block_accesses == 0 ? "timed in whole passes, alternating"
                                 : "timed in blocks of " + std::to_string(t.block_accesses) +
                                       " accesses, alternating";
}

/// "a,b,c" → {"a", "b", "c"}: the harnesses' list options.
[[nodiscard]] inline std::vector<std::string> split_list(std::string_view s) {
    std::vector<std::string> out;
    while (!s.empty()) {
        const auto comma = s.find(',');
        out.emplace_back(s.substr(0, comma));
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    return out;
}

/// The numbers of a list option (`--sets 64,1024`), each of which must be one of `allowed`;
/// throws std::runtime_error naming the option and the first that is not.
template <class T, std::size_t N>
[[nodiscard]] std::vector<std::uint32_t>
parse_members(std::string_view arg, const std::array<T, N>& allowed, std::string_view option) {
    std::vector<std::uint32_t> out;
    for (const auto& s : split_list(arg)) {
        const auto v = static_cast<std::uint32_t>(std::stoul(s));
        if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
            throw std::runtime_error(std::string(option) + " " + s +
                                     ": not a shape this program measures");
        out.push_back(v);
    }
    return out;
}

} // namespace memsub_bench::miss_path
