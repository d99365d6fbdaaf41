// Replacement-policy throughput on memsub's set engine, with each policy's miss ratio.
//
// Setup (foundation issue): 16-way, 2048-set, 64B cache (2 MiB); an in-memory stream of 10 M
// accesses drawn from Zipf(0.9) over 256 Ki lines (8x the cache), 20% stores. Every policy of
// replacement::all_policies runs the same stream, and so does Belady's OPT (its next-use oracle
// precomputed from the stream outside the timed loop); `naive_reference_lru` is a deliberately
// simple array-of-structs LRU cache, so `vs_naive` = memsub accesses/s ÷ naive accesses/s shows
// the engine's cost (or gain) as a ratio measured in the same run.
//
// `policy_fixed_geometry/*` runs the same cache with `fixed_geometry<2048, 16, 64>`, the
// compile-time shape a host that knows its LLC at build time can use.
//
// Throughput is timed over repeated passes of the stream on one warm cache. `miss_ratio` is
// not taken from those passes (a warm cache would make it depend on the iteration count): it
// is the miss ratio of exactly one pass of the stream on a fresh cache, measured once per
// program in an untimed run before the timed loop.
#include <benchmark/benchmark.h>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/workload/synthetic.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

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

inline memsub::access to_access(std::uint64_t x) noexcept {
    memsub::access a;
    a.address = memsub::byte_address{x & ~std::uint64_t{1}};
    a.kind = (x & 1u) ? memsub::access_kind::store : memsub::access_kind::load;
    return a;
}

// accesses/s of the naive reference, measured first; keyed by aggregate name ("" for a plain run,
// "mean"/"median" with --benchmark_repetitions) so each ratio divides like by like.
std::map<std::string, double> naive_rate;

/// The naive reference: per line a tag, a valid bit and a last-use stamp; linear search.
class naive_reference_lru {
public:
    explicit naive_reference_lru(const memsub::geometry& g)
        : sets_(g.sets)
        , ways_(g.ways)
        , lines_(std::size_t{g.sets} * g.ways) {}
    bool access(std::uint64_t address) noexcept {
        const std::uint64_t line = address >> 6;
        line_entry* set = &lines_[(line & (sets_ - 1)) * ways_];
        ++clock_;
        for (std::uint32_t w = 0; w < ways_; ++w)
            if (set[w].valid && set[w].tag == line) {
                set[w].stamp = clock_;
                return true;
            }
        std::uint32_t victim = 0;
        for (std::uint32_t w = 0; w < ways_; ++w) {
            if (!set[w].valid) {
                victim = w;
                break;
            }
            if (set[w].stamp < set[victim].stamp) victim = w;
        }
        set[victim] = {line, clock_, true};
        return false;
    }

private:
    struct line_entry {
        std::uint64_t tag = 0;
        std::uint64_t stamp = 0;
        bool valid = false;
    };
    std::uint64_t sets_, ways_;
    std::vector<line_entry> lines_;
    std::uint64_t clock_ = 0;
};

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

// The hits are summed and published once per pass, as a host would consume them: a
// DoNotOptimize per access is a compiler memory barrier that no host loop has, and it would
// make every access reload what the previous one left in registers.
template <class Cache>
[[gnu::noinline]] void one_pass(Cache& cache, const std::vector<std::uint64_t>& s) {
    std::uint64_t hits = 0;
    for (const auto x : s) hits += cache.access(to_access(x)).hit;
    benchmark::DoNotOptimize(hits);
}

/// OPT: the same loop plus the precomputed next use of each access, offset by `base`.
template <class Cache>
[[gnu::noinline]] void one_opt_pass(Cache& cache, const std::vector<std::uint64_t>& s,
                                    const std::vector<std::uint64_t>& next, std::uint64_t base) {
    std::uint64_t hits = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        memsub::access a = to_access(s[i]);
        a.hints.next_use = base + next[i];
        hits += cache.access(a).hit;
    }
    benchmark::DoNotOptimize(hits);
}

void bm_naive_reference_lru(benchmark::State& state) {
    const auto& s = stream();
    static const double miss_ratio = [&] { // untimed, once: one pass on a fresh cache
        naive_reference_lru fresh(bench_geometry);
        std::uint64_t misses = 0;
        for (const auto x : s) misses += !fresh.access(x);
        return static_cast<double>(misses) / static_cast<double>(s.size());
    }();
    naive_reference_lru cache(bench_geometry);
    std::uint64_t misses = 0, total = 0;
    for (auto _ : state) {
        for (const auto x : s) misses += !cache.access(x);
        total += s.size();
    }
    benchmark::DoNotOptimize(misses);
    state.SetItemsProcessed(static_cast<std::int64_t>(total));
    state.counters["miss_ratio"] = miss_ratio;
    state.counters["accesses/s"] =
        benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
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

template <class Policy, class Geometry = memsub::geometry>
void bm_policy(benchmark::State& state) {
    using cache_type =
        memsub::cache::set_associative_cache<Policy, memsub::cache::write_policy::write_back,
                                             Geometry>;
    const auto& s = stream();
    static const double miss_ratio = [&] { // untimed, once: one pass on a fresh cache
        cache_type fresh(bench_shape<Geometry>());
        one_pass(fresh, s);
        return fresh.stats().miss_ratio();
    }();
    cache_type cache(bench_shape<Geometry>());
    std::uint64_t total = 0;
    for (auto _ : state) {
        one_pass(cache, s);
        total += s.size();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(total));
    state.counters["miss_ratio"] = miss_ratio;
    state.counters["accesses/s"] =
        benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
}

/// OPT: pass k of the timed loop offsets the cyclic next uses by k x length.
void bm_opt(benchmark::State& state) {
    using cache_type = memsub::cache::set_associative_cache<memsub::replacement::opt>;
    const auto& s = stream();
    const auto& next = cyclic_next_use();
    static const double miss_ratio = [&] { // untimed, once: one pass on a fresh cache
        cache_type fresh(bench_geometry);
        one_opt_pass(fresh, s, next, 0);
        return fresh.stats().miss_ratio();
    }();
    cache_type cache(bench_geometry);
    std::uint64_t total = 0;
    for (auto _ : state) {
        one_opt_pass(cache, s, next, total);
        total += s.size();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(total));
    state.counters["miss_ratio"] = miss_ratio;
    state.counters["accesses/s"] =
        benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
}

template <class... Policies>
void register_all(std::tuple<Policies...>*) {
    (benchmark::RegisterBenchmark(
         ("policy/" + std::string(Policies(bench_geometry, {}).name())).c_str(),
         bm_policy<Policies>)
         ->Unit(benchmark::kMillisecond)
         ->MinTime(1.0),
     ...);
    (benchmark::RegisterBenchmark(
         ("policy_fixed_geometry/" + std::string(Policies(bench_geometry, {}).name())).c_str(),
         bm_policy<Policies, bench_fixed_geometry>)
         ->Unit(benchmark::kMillisecond)
         ->MinTime(1.0),
     ...);
}

/// Prints each policy's accesses/s as a ratio of the naive reference measured in this run.
class ratio_reporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const auto& r : runs) {
            // A ratio of spreads (stddev, cv) means nothing: only plain runs, means and medians.
            if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "mean" &&
                r.aggregate_name != "median")
                continue;
            const auto it = r.counters.find("accesses/s");
            if (it == r.counters.end()) continue;
            const double rate = it->second.value;
            if (r.benchmark_name().find("naive_reference") != std::string::npos) {
                naive_rate[r.aggregate_name] = rate;
                continue;
            }
            const auto base = naive_rate.find(r.aggregate_name);
            if (base == naive_rate.end() || base->second <= 0) continue;
            rows_.push_back(r.benchmark_name() + "  " + std::to_string(rate / 1e6) +
                            " M accesses/s  = " + std::to_string(rate / base->second) +
                            " x naive reference LRU");
        }
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        std::fprintf(stdout, "\nThroughput relative to the naive reference LRU (same run):\n");
        for (const auto& row : rows_) std::fprintf(stdout, "  %s\n", row.c_str());
    }

private:
    std::vector<std::string> rows_;
};

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    benchmark::RegisterBenchmark("naive_reference_lru", bm_naive_reference_lru)
        ->Unit(benchmark::kMillisecond)
        ->MinTime(1.0);
    register_all(static_cast<memsub::replacement::all_policies*>(nullptr));
    benchmark::RegisterBenchmark("policy/opt", bm_opt)->Unit(benchmark::kMillisecond)->MinTime(1.0);
    ratio_reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
