// The engine's miss path over a matrix of miss ratios, shapes, policies and entry points
// (bench/miss_path_matrix.hpp says how each cell's stream is made and timed). One row per cell:
//   miss_path/<subject>/<runtime|fixed>/s<sets>/w<ways>/m<target %>
// Counters: `x_plain_loop` (the plain move-to-front LRU loop's CPU time ÷ the row's on the same
// stream, interleaved, same run: the runtime-shaped loop for runtime rows, the same loop with a
// compile-time shape for fixed rows), `miss_ratio` (the row's own, on a warm cache) and
// `accesses/s` (the row's own CPU time; the wall time also holds the plain loop's passes). The
// stand-alone harness bench/host/miss_path_host.cpp prints the same cells as a host compiles them.
// Like it, this pins itself to the CPU it starts on (the context's `pinned_cpu`); `--no-pin`,
// taken off the command line before Google Benchmark reads it, leaves it to the scheduler, and
// `--block-accesses=N` sets the timed block (miss_path_matrix.hpp, cell_timing; 0: whole passes).
#include <benchmark/benchmark.h>

#include "miss_path_matrix.hpp"
#include "run_benchmarks.hpp"

#include <fmt/core.h>

#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace {

using namespace memsub_bench::miss_path;

/// Each (shape, target)'s stream, calibrated once and shared by its rows.
const std::vector<std::uint64_t>& cell_stream(std::uint32_t sets, std::uint32_t ways,
                                              double target) {
    static std::map<std::tuple<std::uint32_t, std::uint32_t, double>, std::vector<std::uint64_t>>
        streams;
    auto& s = streams[{sets, ways, target}];
    if (s.empty()) {
        const memsub::geometry g{.sets = sets, .ways = ways, .line_bytes = line_bytes};
        s = make_stream(calibrate(g, target, 2026), stream_length(std::uint64_t{sets} * ways),
                        2027);
    }
    return s;
}

/// How the rows time their cells (`--block-accesses=N` on the command line).
cell_timing timing;

void bm_cell(benchmark::State& state, subject s, bool fixed, std::uint32_t sets, std::uint32_t ways,
             double target) {
    const auto& words = cell_stream(sets, ways, target);
    const memsub::geometry g{.sets = sets, .ways = ways, .line_bytes = line_bytes};
    double miss_ratio = 0, x_sum = 0, rate_sum = 0;
    std::uint64_t cells = 0;
    for (auto _ : state) {
        // One interleaved measurement per iteration, timed as the host harness times it.
        const cell_result c =
            fixed ? run_fixed_cell(s, g, words, timing) : run_runtime_cell(s, g, words, timing);
        if (is_lru(s) && c.miss_ratio != c.plain_miss_ratio) {
            state.SkipWithError("the subject's misses differ from the plain loop's: not an LRU");
            return;
        }
        if (c.expected_miss_ratio >= 0 && c.miss_ratio != c.expected_miss_ratio) {
            state.SkipWithError("the floor's misses differ from memsub's policy's");
            return;
        }
        x_sum += c.x_plain_loop;
        rate_sum += c.subject_rate;
        miss_ratio = c.miss_ratio;
        ++cells;
    }
    const double n = cells ? static_cast<double>(cells) : 1.0;
    state.counters["miss_ratio"] = miss_ratio;
    state.counters["x_plain_loop"] = x_sum / n;
    // The subject's own CPU time (the row's wall time also holds the plain loop's passes).
    state.counters["accesses/s"] = rate_sum / n;
}

void register_rows() {
    for (const auto sets : set_counts)
        for (const auto ways : way_counts)
            for (const double target : target_miss_ratios)
                for (const subject s : all_subjects)
                    for (const bool fixed : {false, true}) {
                        if (fixed ? s == subject::lru_access_all : fixed_only(s)) continue;
                        benchmark::RegisterBenchmark(
                            fmt::format("miss_path/{}/{}/s{}/w{}/m{:.0f}", name_of(s),
                                        fixed ? "fixed" : "runtime", sets, ways, 100 * target)
                                .c_str(),
                            bm_cell, s, fixed, sets, ways, target)
                            ->Unit(benchmark::kMillisecond)
                            ->Iterations(1);
                    }
}

} // namespace

int main(int argc, char** argv) {
    bool pin = true;
    int kept = 1;
    constexpr std::string_view block_option = "--block-accesses=";
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--no-pin") {
            pin = false;
        } else if (a.starts_with(block_option)) {
            try {
                timing.block_accesses = parse_block_accesses(a.substr(block_option.size()));
            } catch (const std::runtime_error& e) {
                fmt::print(stderr, "bench_miss_path: {}\n", e.what());
                return 2;
            }
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = nullptr;
    std::string pinned = "no (--no-pin)";
    if (pin) {
        const cpu_pin p = pin_to_current_cpu();
        pinned = p.cpu >= 0 ? std::to_string(p.cpu) : "no (" + p.why_not + ")";
    }
    benchmark::AddCustomContext("pinned_cpu", pinned);
    benchmark::AddCustomContext("timing", timing_text(timing));
    return memsub_bench::run_benchmarks(argc, argv, register_rows);
}
