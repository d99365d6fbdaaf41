// One-pass miss-ratio curves (include/memsub/analysis) against one simulation of one geometry,
// on the SAME stream: the explorer's built-in mix (workload::mixed_stream: zipf 55% / loop 30% /
// scan 15% sized for a 2 MiB LLC, seed 2026), 2M references of 64-byte lines, generated once.
// Each row's iteration runs its subject and, where it reports a ratio, its baseline on the same
// stream, both timed in the same iteration (fresh state each pass), alternating which goes first:
//   * mrc/one_geometry/lru_2048x16: set_associative_cache<lru> 2048 sets x 16 ways through
//     access_all_spanning, as the explorer's "lru" row runs it (the baseline of the next row).
//   * mrc/all_associativity_lru/1-65536x32: the whole grid, 17 set counts (2^0 .. 2^16) x 32
//     ways; `x_one_lru` = its time / the one-geometry run's time (target <= 3), `points`.
//   * mrc/all_associativity_lru/1x32: the grid with one set count (one set of 32 ways): what the
//     line index and the per-line state cost with almost no rows; `x_one_lru`.
//   * mrc/grid_memory_floor/{8,4,2}_byte_entries: what the grid costs before any of its logic.
//     Per reference, per set count, the row of 32 entries of the reference's set is read and
//     written (its first and last entry: every host cache line of it) and nothing else is done,
//     with the grid's own prefetching. Entries of 8 bytes (full line addresses: no index
//     needed), 4 bytes (the grid's ids: two 64-byte lines a row) or 2 bytes (one line).
//     `x_one_lru` as above: a floor for any design that keeps a recency row per set per set
//     count, which the grid's 3x target has to meet with its logic and line index included.
//   * mrc/stack_distance_lru/1M: the exact fully associative LRU curve, every capacity up to
//     2^20 lines; `refs/s`, `bytes/line` (its memory per distinct line).
//   * mrc/shards/0.01: SHARDS at R = 0.01 (same curve bound); `x_faster_than_exact` = the exact
//     pass's time / SHARDS' pass's (construction and every reference; reading the 2^20-point
//     curves out afterwards is not timed for either), target >= 20; `mae` = its mean absolute
//     error against the exact curve over capacities 1 .. 2^20.
//   * mrc/shards_on_lines/0.01: the same two passes fed line addresses (8 bytes a reference,
//     access_lines) instead of 80-byte memsub::access records: reading the records is most of
//     SHARDS' time, so this row is the algorithms' ratio.
//   * mrc/opt_curve/64Ki: the fully associative OPT curve up to 2^16 lines, next uses included;
//     `refs/s`.
// Counters are numbers only, so --benchmark_format=json stays valid.
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"

#include <memsub/analysis/all_associativity_lru.hpp>
#include <memsub/analysis/opt_curve.hpp>
#include <memsub/analysis/shards.hpp>
#include <memsub/analysis/stack_distance_lru.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/aligned_allocator.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/workload/synthetic.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

const std::vector<memsub::access>& stream() {
    static const std::vector<memsub::access> s = [] {
        memsub::workload::mixed_stream mix(memsub::workload::mixed_stream::params{});
        std::vector<memsub::access> v(2'000'000);
        for (auto& a : v) a = mix.next();
        return v;
    }();
    return s;
}

/// The stream's line addresses (every reference of the mix lies within one line).
const std::vector<std::uint64_t>& stream_lines() {
    static const std::vector<std::uint64_t> lines = [] {
        std::vector<std::uint64_t> v;
        v.reserve(stream().size());
        for (const auto& a : stream()) v.push_back(a.address.value / 64);
        return v;
    }();
    return lines;
}

template <class F>
double seconds(F&& f) {
    const auto t0 = clock_type::now();
    f();
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// Runs `subject` and `baseline` once per benchmark iteration, alternating which goes first, and
/// returns their total seconds {subject, baseline}.
template <class Subject, class Baseline>
std::pair<double, double> alternated(benchmark::State& state, Subject&& subject,
                                     Baseline&& baseline) {
    double t_subject = 0, t_baseline = 0;
    bool subject_first = true;
    for (auto _ : state) {
        if (subject_first) {
            t_subject += seconds(subject);
            t_baseline += seconds(baseline);
        } else {
            t_baseline += seconds(baseline);
            t_subject += seconds(subject);
        }
        subject_first = !subject_first;
    }
    return {t_subject, t_baseline};
}

std::uint64_t one_lru_run(const std::vector<memsub::access>& s) {
    memsub::cache::set_associative_cache<memsub::replacement::lru> c(
        memsub::geometry{.sets = 2048, .ways = 16, .line_bytes = 64});
    c.access_all_spanning(s, [](const memsub::access&, const auto&) noexcept {});
    return c.stats().misses();
}

constexpr memsub::analysis::all_associativity_lru::params grid_params{
    .line_bytes = 64, .min_sets = 1, .max_sets = 1u << 16, .max_ways = 32};

std::uint64_t grid_run(const std::vector<memsub::access>& s) {
    memsub::analysis::all_associativity_lru grid(grid_params);
    grid.access_all(s);
    return grid.misses(2048, 16);
}

std::uint64_t one_count_grid_run(const std::vector<memsub::access>& s) {
    memsub::analysis::all_associativity_lru grid(
        {.line_bytes = 64, .min_sets = 1, .max_sets = 1, .max_ways = 32});
    grid.access_all(s);
    return grid.misses(1, 32);
}

constexpr std::uint64_t curve_bound = std::uint64_t{1} << 20;

void bm_one_lru(benchmark::State& state) {
    const auto& s = stream();
    for (auto _ : state) benchmark::DoNotOptimize(one_lru_run(s));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

template <std::uint64_t (*Run)(const std::vector<memsub::access>&)>
void bm_grid(benchmark::State& state) {
    const auto& s = stream();
    const auto [t_grid, t_one] = alternated(
        state, [&] { benchmark::DoNotOptimize(Run(s)); },
        [&] { benchmark::DoNotOptimize(one_lru_run(s)); });
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
    state.counters["x_one_lru"] = t_grid / t_one;
    if constexpr (Run == grid_run) {
        state.counters["points"] = 17.0 * 32.0;
        // The grid's point equals the one-geometry run (checked here too: a wrong grid is no
        // speed).
        state.counters["agrees"] = grid_run(s) == one_lru_run(s) ? 1 : 0;
    }
}

/// The rows of every set count touched once per reference (see the file comment), `EntryBytes`
/// bytes per entry, 32 entries per set, sets 2^0 .. 2^16; run() returns a checksum of the
/// entries read.
template <std::size_t EntryBytes>
class grid_memory_floor {
public:
    static constexpr std::uint32_t counts = 17, ways = 32;
    static constexpr std::size_t row_bytes = ways * EntryBytes;

    grid_memory_floor() {
        std::size_t sets = 0;
        for (std::uint32_t k = 0; k < counts; ++k) {
            base_[k] = sets;
            sets += std::size_t{1} << k;
            // Prefetched as the grid does: the counts whose rows outgrow 256 KiB.
            if ((std::size_t{1} << k) * row_bytes > (std::size_t{256} << 10) && first_ == counts)
                first_ = k;
        }
        rows_.assign(sets * row_bytes / sizeof(std::uint64_t), 0);
    }

    std::uint64_t run(const std::vector<std::uint64_t>& lines) {
        constexpr std::size_t ahead = 12; // the grid's distance
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (i + ahead < lines.size())
                for (std::uint32_t k = first_; k < counts; ++k)
                    for (std::size_t o = 0; o < row_bytes; o += 64)
                        __builtin_prefetch(row(k, lines[i + ahead]) + o);
            for (std::uint32_t k = 0; k < counts; ++k) {
                std::byte* r = row(k, lines[i]);
                sum += touch(r) + touch(r + row_bytes - EntryBytes);
            }
        }
        return sum;
    }

private:
    [[nodiscard]] std::byte* row(std::uint32_t k, std::uint64_t line) noexcept {
        const std::size_t set = base_[k] + (line & ((std::uint64_t{1} << k) - 1));
        return reinterpret_cast<std::byte*>(rows_.data()) + set * row_bytes;
    }
    /// Reads the entry at `p` and writes it back plus one.
    static std::uint64_t touch(std::byte* p) noexcept {
        std::uint64_t v = 0;
        std::memcpy(&v, p, EntryBytes);
        const std::uint64_t next = v + 1;
        std::memcpy(p, &next, EntryBytes);
        return v;
    }

    std::array<std::size_t, counts> base_{};
    std::uint32_t first_ = counts;
    std::vector<std::uint64_t, memsub::aligned_allocator<std::uint64_t, 64>> rows_;
};

template <std::size_t EntryBytes>
void bm_grid_floor(benchmark::State& state) {
    const auto& s = stream();
    const auto& lines = stream_lines();
    const auto [t_floor, t_one] = alternated(
        state,
        [&] {
            grid_memory_floor<EntryBytes> f;
            benchmark::DoNotOptimize(f.run(lines));
        },
        [&] { benchmark::DoNotOptimize(one_lru_run(s)); });
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
    state.counters["x_one_lru"] = t_floor / t_one;
}

void bm_stack_distance(benchmark::State& state) {
    const auto& s = stream();
    double bytes_per_line = 0;
    for (auto _ : state) {
        memsub::analysis::stack_distance_lru sd({.max_capacity_lines = curve_bound});
        sd.access_all(s);
        benchmark::DoNotOptimize(sd.misses(32768));
        bytes_per_line = sd.bytes_per_distinct_line();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
    state.counters["refs/s"] = benchmark::Counter(static_cast<double>(s.size()),
                                                  benchmark::Counter::kIsIterationInvariantRate);
    state.counters["bytes/line"] = bytes_per_line;
}

void bm_shards(benchmark::State& state, bool on_lines) {
    const auto& s = stream();
    const auto& lines = stream_lines();
    double t_shards = 0, t_exact = 0, mae = 0;
    bool shards_first = true;
    for (auto _ : state) {
        // The passes are timed; reading each curve out (2^20 points, the same for both) is not.
        std::optional<memsub::analysis::shards> sh;
        std::optional<memsub::analysis::stack_distance_lru> sd;
        const auto approximate = [&] {
            t_shards += seconds([&] {
                sh.emplace(memsub::analysis::shards::params{.max_capacity_lines = curve_bound,
                                                            .rate = 0.01});
                if (on_lines)
                    sh->access_lines(lines);
                else
                    sh->access_all(s);
            });
        };
        const auto exactly = [&] {
            t_exact += seconds([&] {
                sd.emplace(memsub::analysis::stack_distance_lru::params{.max_capacity_lines =
                                                                            curve_bound});
                if (on_lines)
                    sd->access_lines(lines);
                else
                    sd->access_all(s);
            });
        };
        if (shards_first) {
            approximate();
            exactly();
        } else {
            exactly();
            approximate();
        }
        shards_first = !shards_first;
        mae = memsub::analysis::mean_absolute_error(
            memsub::analysis::miss_ratios(sd->miss_curve(), sd->accesses()),
            sh->miss_ratio_curve());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
    state.counters["x_faster_than_exact"] = t_exact / t_shards;
    state.counters["mae"] = mae;
}

void bm_opt_curve(benchmark::State& state) {
    const auto& s = stream();
    for (auto _ : state) {
        const auto curve =
            memsub::analysis::opt_curve::from_references(s, {.max_capacity_lines = 1u << 16});
        benchmark::DoNotOptimize(curve.misses(32768));
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
    state.counters["refs/s"] = benchmark::Counter(static_cast<double>(s.size()),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

} // namespace

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv, [] {
        const auto row = [](const char* name, auto f) {
            benchmark::RegisterBenchmark(name, f)->Unit(benchmark::kMillisecond);
        };
        row("mrc/one_geometry/lru_2048x16", bm_one_lru);
        row("mrc/all_associativity_lru/1-65536x32", bm_grid<grid_run>);
        row("mrc/all_associativity_lru/1x32", bm_grid<one_count_grid_run>);
        row("mrc/grid_memory_floor/8_byte_entries", bm_grid_floor<8>);
        row("mrc/grid_memory_floor/4_byte_entries", bm_grid_floor<4>);
        row("mrc/grid_memory_floor/2_byte_entries", bm_grid_floor<2>);
        row("mrc/stack_distance_lru/1M", bm_stack_distance);
        row("mrc/shards/0.01", [](benchmark::State& st) { bm_shards(st, false); });
        row("mrc/shards_on_lines/0.01", [](benchmark::State& st) { bm_shards(st, true); });
        row("mrc/opt_curve/64Ki", bm_opt_curve);
    });
}
