// Replacement-policy throughput on memsub's set engine, with each policy's miss ratio, as a
// same-run ratio of a plain move-to-front LRU loop.
//
// Setup (foundation issue): 16-way, 2048-set, 64B cache (2 MiB); an in-memory stream of 10 M
// accesses drawn from Zipf(0.9) over 256 Ki lines (8x the cache), 20% stores. Every policy of
// replacement::all_policies runs the same stream, and so does Belady's OPT (its next-use oracle
// precomputed from the stream outside the timed loop).
//
// The baseline: `baseline/plain_mtf_loop`, the loop a competent simulator author writes for an
// LRU cache — per set a contiguous array of `ways` 64-bit line addresses in recency order (an
// empty way holds an address no line has), a hit at way 0 returns at once, otherwise one pass
// scans for the line while shifting each way it passes down by one, and the line is written at
// the front; a miss drops the last (least recent) way. Of the three shapes measured for it (scan
// then memmove, scan then a copy loop, shift while scanning) the last was the fastest in both the
// portable and the -march=native build, so it is the one used. It is a correct LRU: its one-pass
// miss count must equal memsub's lru (checked; the row fails otherwise).
// No dirty bits: memsub's write-back cache does keep them (and reused bits and its statistics),
// which a like-for-like loop would have to pay for too (a dirty bit in bit 0 of each stored tag
// cost the plain loop about 4% when measured) — leaving them out makes the baseline faster and
// every ratio below conservative. The loop sees the same 20%-stores stream and ignores the kind.
//
// Fair comparison for `policy_fixed_geometry/*` (memsub with `fixed_geometry<2048, 16, 64>`, the
// compile-time shape a host that knows its cache at build time can use): the same host would
// also compile its own loop for that shape, so those rows are compared with
// `baseline/plain_mtf_loop_fixed` (the same loop with the sets and ways as template constants:
// the scan has a constant trip count, the set index a constant mask) in `x_plain_loop_fixed`,
// and with the runtime-shaped loop in `x_plain_loop` (the engine's speed target is stated against
// it).
//
// Counters: `accesses/s` (CPU time), `miss_ratio`, and `x_plain_loop` (and `x_plain_loop_fixed`)
// = the row's accesses/s ÷ the plain loop's. The ratio is measured interleaved: every timed pass
// of the row follows an untimed pass of the plain loop(s) on their own warm caches, and the
// ratio divides the summed thread CPU times — so both sides see the same machine load, which on
// a shared machine moves far more than the ratio does. The reference passes go first in every
// other iteration and last in the others: with them always first, the plain loop timed against
// itself read 0.94 (a pass's position in the iteration alone moved it by 6 %);
// `baseline/plain_mtf_loop_vs_itself` is that calibration row, kept so each run shows its own
// noise floor. `baseline/stamp_lru_array_of_structs` is
// the older, deliberately simple reference (per line a tag, valid bit and last-use stamp; linear
// search for the hit and for the smallest stamp), kept as what it is: slower than the plain loop.
//
// `ceiling/fingerprint_lru_fixed` is neither a baseline nor memsub: the engine's own LRU design
// written by hand for the fixed shape, with no statistics, eviction report or policy interface.
// Its `x_plain_loop` is how far that design can go; `policy_fixed_geometry/lru` divided by it is
// what the engine costs over the design's floor. It must be an exact LRU (checked).
//
// Throughput is timed over repeated passes of the stream on one warm cache. `miss_ratio` is
// not taken from those passes (a warm cache would make it depend on the iteration count): it
// is the miss ratio of exactly one pass of the stream on a fresh cache, measured once per
// program in an untimed run before the timed loop.
//
// `vs_srrip/*` rows (ReMAP, its variants, MLP-aware): the same interleaving with an untimed pass
// of memsub's SRRIP before each timed pass; `x_srrip` = SRRIP's CPU time ÷ the row's, so ReMAP's
// speed against SRRIP is a same-run ratio (target: ≥ 0.4).
//
// Output: the standard Google Benchmark reporters (console, --benchmark_format=json|csv,
// --benchmark_out=file --benchmark_out_format=…); the ratios are ordinary counters.
#include <benchmark/benchmark.h>

#include "baselines.hpp"
#include "run_benchmarks.hpp"

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/workload/synthetic.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

using memsub_bench::no_line;
using memsub_bench::plain_mtf_lru;
using memsub_bench::plain_mtf_lru_fixed;
using memsub_bench::stamp_lru_array_of_structs;
using memsub_bench::thread_cpu_seconds;
using memsub_bench::to_access;

constexpr memsub::geometry bench_geometry{.sets = 2048, .ways = 16, .line_bytes = 64};
constexpr std::size_t stream_length = 10'000'000;

/// Addresses with bit 0 = store (lines are 64B aligned, so the low bits are free).
const std::vector<std::uint64_t>& stream() {
    static const std::vector<std::uint64_t> s = [] {
        memsub::workload::zipf_stream z(
            memsub::workload::stream_params{.lines = 256 * 1024, .store_fraction = 0.2, .seed = 42},
            0.9);
        std::vector<std::uint64_t> v(stream_length);
        for (auto& x : v) {
            const auto a = z.next();
            x = a.address.value | (a.kind == memsub::access_kind::store ? 1u : 0u);
        }
        return v;
    }();
    return s;
}

/// The ceiling row's design (baselines.hpp) for the bench's 16-way shape.
template <std::uint32_t Sets, std::uint32_t LineBytes>
using fingerprint_lru_fixed = memsub_bench::fingerprint_lru_floor<Sets, 16, LineBytes>;

/// Next use of each access in the stream repeated forever: the next position of the same line,
/// wrapping to its first position in the next pass (+ stream_length) after its last occurrence
/// in this one. Pass k of the timed loop adds k x stream_length, so OPT's stored next uses stay
/// comparable across passes. In a single pass from a fresh cache this oracle gives exactly the
/// one-pass OPT miss count: a line not used again in the pass has a next use beyond every
/// position of the pass, like `never`, and which dead line goes first cannot change a count.
const std::vector<std::uint64_t>& cyclic_next_use() {
    static const std::vector<std::uint64_t> next = [] {
        const auto& s = stream();
        std::vector<memsub::line_address> lines(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) lines[i] = memsub::line_address{s[i] >> 6};
        std::vector<std::uint64_t> n = memsub::replacement::next_use_positions(lines);
        std::unordered_map<std::uint64_t, std::uint64_t> first;
        for (std::size_t i = 0; i < s.size(); ++i) first.try_emplace(lines[i].value, i);
        for (std::size_t i = 0; i < s.size(); ++i)
            if (n[i] == memsub::never) n[i] = s.size() + first.at(lines[i].value);
        return n;
    }();
    return next;
}

// One pass of the stream: the timed loops call these, and so does the untimed fresh-cache pass
// that measures the miss ratio. Keeping the engine's `access` to this one call site leaves its
// inlining (and so the timed per-access work) as it was when the loop sat in the benchmark.

// Code placement: every pass function starts on a 64-byte boundary and the program is built
// with -falign-loops=64 (bench/CMakeLists.txt), so each loop head sits on a 64-byte boundary
// whatever the rest of the binary looks like. Without that, a change anywhere in the library
// moved the plain loop's scan across a 64-byte fetch boundary or back, and with it every ratio
// (docs/performance/figures_behind_choices.md).

// The hits are summed and returned once per pass, as a host would consume them: a
// DoNotOptimize per access is a compiler memory barrier that no host loop has, and it would
// make every access reload what the previous one left in registers.
template <class Cache>
[[gnu::noinline, gnu::aligned(64)]] std::uint64_t one_pass(Cache& cache,
                                                           const std::vector<std::uint64_t>& s) {
    std::uint64_t hits = 0;
    for (const auto x : s) hits += cache.access(to_access(x)).hit;
    return hits;
}

/// The same for the hand-written loops, which take the raw stream word.
template <class Loop>
[[gnu::noinline, gnu::aligned(64)]] std::uint64_t
one_plain_pass(Loop& loop, const std::vector<std::uint64_t>& s) {
    std::uint64_t hits = 0;
    for (const auto x : s) hits += loop.access(x);
    return hits;
}

/// OPT: the same loop plus the precomputed next use of each access, offset by `base`.
template <class Cache>
[[gnu::noinline, gnu::aligned(64)]] std::uint64_t
one_opt_pass(Cache& cache, const std::vector<std::uint64_t>& s,
             const std::vector<std::uint64_t>& next, std::uint64_t base) {
    std::uint64_t hits = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        memsub::access a = to_access(s[i]);
        a.hints.next_use = base + next[i];
        hits += cache.access(a).hit;
    }
    return hits;
}

/// The same shape as a compile-time geometry: every index mask and loop bound of the engine
/// folds to a constant (the policies keep their runtime shape).
using bench_fixed_geometry = memsub::fixed_geometry<2048, 16, 64>;
static_assert(bench_fixed_geometry::sets == bench_geometry.sets &&
              bench_fixed_geometry::ways == bench_geometry.ways &&
              bench_fixed_geometry::line_bytes == bench_geometry.line_bytes);

template <class Geometry>
Geometry bench_shape() {
    if constexpr (std::is_same_v<Geometry, memsub::geometry>)
        return bench_geometry;
    else
        return Geometry{};
}

// ------------------------------------------------------------------------ runners
// A runner owns one warm cache; `pass()` runs the stream once through it and returns the hits;
// `one_pass_misses()` is the miss count of one pass on a fresh cache (computed once, untimed).

template <class Loop>
struct plain_runner {
    Loop loop = make();
    static Loop make() {
        if constexpr (std::is_constructible_v<Loop, const memsub::geometry&>)
            return Loop(bench_geometry);
        else
            return Loop{};
    }
    std::uint64_t pass() { return one_plain_pass(loop, stream()); }
    static std::uint64_t one_pass_misses() {
        static const std::uint64_t misses = [] {
            Loop fresh = make();
            return stream().size() - one_plain_pass(fresh, stream());
        }();
        return misses;
    }
};

using plain_loop = plain_runner<plain_mtf_lru>;
using plain_loop_fixed = plain_runner<plain_mtf_lru_fixed<2048, 16, 64>>;
using stamp_lru = plain_runner<stamp_lru_array_of_structs>;
using fingerprint_lru_ceiling = plain_runner<fingerprint_lru_fixed<2048, 64>>;

template <class Policy, class Geometry = memsub::geometry>
struct memsub_runner {
    using cache_type =
        memsub::cache::set_associative_cache<Policy, memsub::cache::write_policy::write_back,
                                             Geometry>;
    static constexpr bool fixed_shape = !std::is_same_v<Geometry, memsub::geometry>;
    cache_type cache{bench_shape<Geometry>()};
    std::uint64_t pass() { return one_pass(cache, stream()); }
    static std::uint64_t one_pass_misses() {
        static const std::uint64_t misses = [] {
            cache_type fresh(bench_shape<Geometry>());
            one_pass(fresh, stream());
            return fresh.stats().misses();
        }();
        return misses;
    }
};

/// OPT: pass k of the timed loop offsets the cyclic next uses by k x length.
struct opt_runner {
    using cache_type = memsub::cache::set_associative_cache<memsub::replacement::opt>;
    static constexpr bool fixed_shape = false;
    cache_type cache{bench_geometry};
    std::uint64_t base = 0;
    std::uint64_t pass() {
        const std::uint64_t hits = one_opt_pass(cache, stream(), cyclic_next_use(), base);
        base += stream().size();
        return hits;
    }
    static std::uint64_t one_pass_misses() {
        static const std::uint64_t misses = [] {
            cache_type fresh(bench_geometry);
            one_opt_pass(fresh, stream(), cyclic_next_use(), 0);
            return fresh.stats().misses();
        }();
        return misses;
    }
};

template <class Runner>
struct fixed_shape_of : std::false_type {};
template <class Policy, class Geometry>
struct fixed_shape_of<memsub_runner<Policy, Geometry>>
    : std::bool_constant<memsub_runner<Policy, Geometry>::fixed_shape> {};
template <std::uint32_t Sets, std::uint32_t LineBytes>
struct fixed_shape_of<plain_runner<memsub_bench::fingerprint_lru_floor<Sets, 16, LineBytes>>>
    : std::true_type {};

template <class Runner>
double timed_pass(Runner& r, std::uint64_t& hits) {
    const double t0 = thread_cpu_seconds();
    hits += r.pass();
    return thread_cpu_seconds() - t0;
}

void set_common_counters(benchmark::State& state, std::uint64_t total, std::uint64_t misses) {
    state.SetItemsProcessed(static_cast<std::int64_t>(total));
    state.counters["miss_ratio"] =
        static_cast<double>(misses) / static_cast<double>(stream().size());
    state.counters["accesses/s"] =
        benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
}

/// True when a hand-written loop is an exact LRU (the same one-pass misses as memsub's lru);
/// otherwise the row is skipped with an error.
template <class Runner>
bool is_exact_lru(benchmark::State& state) {
    if (Runner::one_pass_misses() == memsub_runner<memsub::replacement::lru>::one_pass_misses())
        return true;
    state.SkipWithError("the loop's misses differ from memsub's lru: not an LRU");
    return false;
}

/// A baseline alone. The plain loops must be exact LRUs.
template <class Runner>
void bm_baseline(benchmark::State& state) {
    if (!is_exact_lru<Runner>(state)) return;
    const std::uint64_t misses = Runner::one_pass_misses();
    Runner r;
    std::uint64_t total = 0, hits = 0;
    for (auto _ : state) {
        hits += r.pass();
        total += stream().size();
    }
    benchmark::DoNotOptimize(hits);
    set_common_counters(state, total, misses);
}

/// A row timed against the plain loop(s), interleaved pass by pass (see the header comment).
template <class Runner>
void bm_vs_plain(benchmark::State& state) {
    constexpr bool fixed = fixed_shape_of<Runner>::value;
    const std::uint64_t misses = Runner::one_pass_misses();
    Runner subject;
    plain_loop plain;
    plain_loop_fixed plain_fixed;
    double t_subject = 0, t_plain = 0, t_plain_fixed = 0;
    std::uint64_t total = 0, hits = 0;
    bool reference_first = true; // alternates: see "The ratio is measured interleaved" above
    for (auto _ : state) {
        if (!reference_first) t_subject += timed_pass(subject, hits);
        state.PauseTiming();
        t_plain += timed_pass(plain, hits);
        if constexpr (fixed) t_plain_fixed += timed_pass(plain_fixed, hits);
        state.ResumeTiming();
        if (reference_first) t_subject += timed_pass(subject, hits);
        reference_first = !reference_first;
        total += stream().size();
    }
    benchmark::DoNotOptimize(hits);
    set_common_counters(state, total, misses);
    if (t_subject > 0) {
        state.counters["x_plain_loop"] = t_plain / t_subject;
        if constexpr (fixed) state.counters["x_plain_loop_fixed"] = t_plain_fixed / t_subject;
    }
}

/// bm_vs_plain for a hand-written loop that must be an exact LRU (as bm_baseline checks).
template <class Runner>
void bm_vs_plain_checked(benchmark::State& state) {
    if (is_exact_lru<Runner>(state)) bm_vs_plain<Runner>(state);
}

/// A row timed against memsub's SRRIP on the same engine, interleaved the same way: every timed
/// pass of the row follows an untimed SRRIP pass on its own warm cache; `x_srrip` = SRRIP's CPU
/// time ÷ the row's (ReMAP's issue target: ≥ 0.4). The plain loop's ratio is kept too.
template <class Runner>
void bm_vs_srrip(benchmark::State& state) {
    const std::uint64_t misses = Runner::one_pass_misses();
    Runner subject;
    memsub_runner<memsub::replacement::srrip> reference;
    plain_loop plain;
    double t_subject = 0, t_reference = 0, t_plain = 0;
    std::uint64_t total = 0, hits = 0;
    bool reference_first = true;
    for (auto _ : state) {
        if (!reference_first) t_subject += timed_pass(subject, hits);
        state.PauseTiming();
        t_reference += timed_pass(reference, hits);
        t_plain += timed_pass(plain, hits);
        state.ResumeTiming();
        if (reference_first) t_subject += timed_pass(subject, hits);
        reference_first = !reference_first;
        total += stream().size();
    }
    benchmark::DoNotOptimize(hits);
    set_common_counters(state, total, misses);
    if (t_subject > 0) {
        state.counters["x_srrip"] = t_reference / t_subject;
        state.counters["x_plain_loop"] = t_plain / t_subject;
    }
}

template <class F>
void register_row(const std::string& name, F f) {
    benchmark::RegisterBenchmark(name.c_str(), f)->Unit(benchmark::kMillisecond)->MinTime(1.0);
}

template <class... Policies>
void register_all(std::tuple<Policies...>*) {
    (register_row("policy/" + std::string(Policies(bench_geometry, {}).name()),
                  bm_vs_plain<memsub_runner<Policies>>),
     ...);
    (register_row("policy_fixed_geometry/" + std::string(Policies(bench_geometry, {}).name()),
                  bm_vs_plain<memsub_runner<Policies, bench_fixed_geometry>>),
     ...);
}

void register_rows() {
    register_row("baseline/plain_mtf_loop", bm_baseline<plain_loop>);
    register_row("baseline/plain_mtf_loop_fixed", bm_baseline<plain_loop_fixed>);
    register_row("baseline/stamp_lru_array_of_structs", bm_vs_plain<stamp_lru>);
    register_row("ceiling/fingerprint_lru_fixed", bm_vs_plain_checked<fingerprint_lru_ceiling>);
    // Calibration: the plain loop timed against a second instance of itself (x_plain_loop
    // should read 1.00; how far it strays is the noise floor of every ratio in the run).
    register_row("baseline/plain_mtf_loop_vs_itself", bm_vs_plain<plain_loop>);
    register_all(static_cast<memsub::replacement::all_policies*>(nullptr));
    register_row("policy/opt", bm_vs_plain<opt_runner>);
    // ReMAP, its Fig. 2.6 variants and the MLP-aware baseline against SRRIP, same run.
    register_row("vs_srrip/remap", bm_vs_srrip<memsub_runner<memsub::replacement::remap>>);
    register_row("vs_srrip/remap_lru", bm_vs_srrip<memsub_runner<memsub::replacement::remap_lru>>);
    register_row("vs_srrip/srrip_perd",
                 bm_vs_srrip<memsub_runner<memsub::replacement::srrip_perd>>);
    register_row("vs_srrip/srrip_mac", bm_vs_srrip<memsub_runner<memsub::replacement::srrip_mac>>);
    register_row("vs_srrip/mlp_aware", bm_vs_srrip<memsub_runner<memsub::replacement::mlp_aware>>);
}

} // namespace

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv, register_rows);
}
