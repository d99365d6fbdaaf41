// Multi-module GPU decisions per second: page placement and CTA scheduling, one
// core. A host loop runs an iterative kernel on a 4-module GPU (4 × 64 SMs, 8 CTAs per SM,
// 32768 CTAs per launch): SMs free up in start order (a FIFO of running CTAs, all CTAs equally
// long), the scheduler starts a CTA on each free slot, and each started CTA makes 16 memory
// accesses that the placement resolves to (partition, channel): 12 to its own two pages, 4 to
// a 64 MiB region shared by all CTAs. A decision is one CTA start or one placement.
//
// Target: ≥ 50 M decisions/s on one core. Same-run baseline, timed in the same iterations with
// the same host loop and address stream: what a simulator writes by hand for the MCM-GPU
// baseline — the next CTA in order to the SM that freed up (a counter) and a modulo interleave
// of 128 B granules over partitions and channels (shifts and masks). `speed_vs_baseline` =
// library decisions/s ÷ baseline decisions/s (CPU time, std::clock: the machine may be
// shared); `loadavg_1m` is the 1-minute load average read at the end, so a reader can judge
// the run. First touch keeps its table across launches (PP2): after the first launch its
// placements are table lookups, the steady state of a convergence loop.
// Placement-only and scheduling-only variants isolate the two halves.
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"

#include <array>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/cta/all.hpp>
#include <memsub/placement/all.hpp>

namespace pl = memsub::placement;
namespace ct = memsub::cta;

namespace {

constexpr std::uint32_t modules = 4, sms_per_module = 64, slots = 8, ctas = 1u << 15;
constexpr std::uint32_t accesses_per_cta = 16, own_accesses = 12;
constexpr std::uint32_t channels = 8;
constexpr std::uint64_t shared_base = std::uint64_t{1} << 30, shared_bytes = 64u << 20;

/// The accesses of every CTA: 12 random lines of its own two pages, 4 of the shared region.
const std::vector<std::uint64_t>& addresses() {
    static const std::vector<std::uint64_t> a = [] {
        std::vector<std::uint64_t> v(std::size_t{ctas} * accesses_per_cta);
        memsub::xoshiro256ss rng(12);
        for (std::uint32_t c = 0; c < ctas; ++c)
            for (std::uint32_t j = 0; j < accesses_per_cta; ++j)
                v[std::size_t{c} * accesses_per_cta + j] =
                    j < own_accesses ? std::uint64_t{c} * 8192 + rng() % 8192 / 128 * 128
                                     : shared_base + rng() % shared_bytes / 128 * 128;
        return v;
    }();
    return a;
}

double load_average() {
    std::ifstream f("/proc/loadavg");
    double l = -1;
    f >> l;
    return l;
}

/// A FIFO of running CTAs' SMs (completion order = start order).
struct running_fifo {
    std::vector<std::uint32_t> ring = std::vector<std::uint32_t>(modules * sms_per_module * slots);
    std::size_t head = 0, n = 0;
    void push(std::uint32_t sm) noexcept {
        ring[(head + n) % ring.size()] = sm;
        ++n;
    }
    std::uint32_t pop() noexcept {
        const std::uint32_t sm = ring[head];
        head = (head + 1) % ring.size();
        --n;
        return sm;
    }
};

/// One launch through the library: returns decisions; `sink` absorbs the results.
template <class Scheduler, class Placement>
std::uint64_t library_launch(Scheduler& s, Placement& p, running_fifo& q, std::uint64_t& sink,
                             bool place) {
    const std::uint64_t* addr = addresses().data();
    std::uint64_t decisions = 0;
    s.launch({.ctas = ctas, .max_ctas_per_sm = slots, .kernel_id = 1});
    auto fill = [&] {
        while (const auto a = s.dispatch()) {
            ++decisions;
            q.push(a->sm);
            if (!place) continue;
            const std::uint64_t* x = addr + std::size_t{a->cta} * accesses_per_cta;
            for (std::uint32_t j = 0; j < accesses_per_cta; ++j) {
                const pl::location l = p.place(memsub::byte_address{x[j]}, a->module);
                sink += l.partition ^ l.channel;
            }
            decisions += accesses_per_cta;
        }
    };
    fill();
    while (q.n != 0) {
        s.on_cta_complete(q.pop());
        fill();
    }
    return decisions;
}

/// The hand-written baseline: next CTA to the SM that freed up; modulo interleave.
std::uint64_t baseline_launch(running_fifo& q, std::uint64_t& sink, bool place) {
    const std::uint64_t* addr = addresses().data();
    constexpr std::uint32_t sms = modules * sms_per_module;
    std::uint64_t decisions = 0;
    std::uint32_t next = 0;
    auto start = [&](std::uint32_t sm) {
        const std::uint32_t cta = next++;
        ++decisions;
        q.push(sm);
        if (!place) return;
        const std::uint32_t module = sm / sms_per_module;
        const std::uint64_t* x = addr + std::size_t{cta} * accesses_per_cta;
        for (std::uint32_t j = 0; j < accesses_per_cta; ++j) {
            const std::uint64_t g = x[j] >> 7;
            const auto partition = static_cast<std::uint32_t>(g & (modules - 1));
            const auto channel = static_cast<std::uint32_t>((g >> 2) & (channels - 1));
            sink += (partition ^ channel) + (partition == module);
        }
        decisions += accesses_per_cta;
    };
    for (std::uint32_t k = 0; k < slots && next < ctas; ++k)
        for (std::uint32_t sm = 0; sm < sms && next < ctas; ++sm) start(sm);
    while (q.n != 0) {
        const std::uint32_t sm = q.pop();
        if (next < ctas) start(sm);
    }
    return decisions;
}

double cpu_seconds(std::clock_t a, std::clock_t b) {
    return static_cast<double>(b - a) / CLOCKS_PER_SEC;
}

pl::first_touch make_first_touch() {
    return pl::first_touch({.partitions = modules,
                            .channels_per_partition = channels,
                            .partition_bytes = std::uint64_t{1} << 30,
                            .footprint_bytes = std::uint64_t{512} << 20});
}

template <class Scheduler, class Placement>
void run(benchmark::State& state, Placement p, bool place) {
    Scheduler s({.modules = modules, .sms_per_module = sms_per_module});
    running_fifo q;
    std::uint64_t sink = 0, lib_decisions = 0, base_decisions = 0;
    double lib_s = 0, base_s = 0;
    library_launch(s, p, q, sink, place); // warm up (first touch fills its table)
    for (auto _ : state) {
        std::clock_t t0 = std::clock();
        lib_decisions += library_launch(s, p, q, sink, place);
        std::clock_t t1 = std::clock();
        base_decisions += baseline_launch(q, sink, place);
        std::clock_t t2 = std::clock();
        lib_s += cpu_seconds(t0, t1);
        base_s += cpu_seconds(t1, t2);
        state.SetIterationTime(cpu_seconds(t0, t1));
    }
    benchmark::DoNotOptimize(sink);
    state.SetItemsProcessed(static_cast<std::int64_t>(lib_decisions));
    const double lib_rate = lib_s > 0 ? static_cast<double>(lib_decisions) / lib_s : 0;
    const double base_rate = base_s > 0 ? static_cast<double>(base_decisions) / base_s : 0;
    state.counters["decisions_per_s"] = lib_rate;
    state.counters["baseline_decisions_per_s"] = base_rate;
    state.counters["speed_vs_baseline"] = base_rate > 0 ? lib_rate / base_rate : 0;
    state.counters["loadavg_1m"] = load_average();
    state.counters["stolen_per_launch"] =
        static_cast<double>(s.stats().stolen) / static_cast<double>(state.iterations() + 1);
}

/// Placement-only: the same address stream in CTA order, place() per access.
template <class Placement>
void run_placement(benchmark::State& state, Placement p) {
    const std::vector<std::uint64_t>& a = addresses();
    std::uint64_t sink = 0, n = 0;
    double lib_s = 0, base_s = 0;
    auto lib = [&] {
        for (std::size_t i = 0; i < a.size(); ++i) {
            const pl::location l =
                p.place(memsub::byte_address{a[i]},
                        static_cast<std::uint32_t>(i / accesses_per_cta) % modules);
            sink += l.partition ^ l.channel;
        }
    };
    lib(); // warm up
    for (auto _ : state) {
        std::clock_t t0 = std::clock();
        lib();
        std::clock_t t1 = std::clock();
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::uint64_t g = a[i] >> 7;
            sink += (g & (modules - 1)) ^ ((g >> 2) & (channels - 1));
        }
        std::clock_t t2 = std::clock();
        lib_s += cpu_seconds(t0, t1);
        base_s += cpu_seconds(t1, t2);
        n += a.size();
        state.SetIterationTime(cpu_seconds(t0, t1));
    }
    benchmark::DoNotOptimize(sink);
    state.SetItemsProcessed(static_cast<std::int64_t>(n));
    const double lib_rate = lib_s > 0 ? static_cast<double>(n) / lib_s : 0;
    const double base_rate = base_s > 0 ? static_cast<double>(n) / base_s : 0;
    state.counters["decisions_per_s"] = lib_rate;
    state.counters["baseline_decisions_per_s"] = base_rate;
    state.counters["speed_vs_baseline"] = base_rate > 0 ? lib_rate / base_rate : 0;
    state.counters["loadavg_1m"] = load_average();
}

// ------------------------------------------------------------------ placement + scheduling

void BM_system_centralized_fine_grain(benchmark::State& state) {
    run<ct::centralized_round_robin>(
        state,
        pl::fine_grain_interleave({.partitions = modules, .channels_per_partition = channels}),
        true);
}
void BM_system_contiguous_first_touch(benchmark::State& state) {
    run<ct::contiguous_batches>(state, make_first_touch(), true);
}
void BM_system_stealing_first_touch(benchmark::State& state) {
    run<ct::batches_with_stealing>(state, make_first_touch(), true);
}
void BM_system_adaptive_first_touch(benchmark::State& state) {
    run<ct::adaptive_batches>(state, make_first_touch(), true);
}
void BM_system_fine_grain_rr_round_robin_page(benchmark::State& state) {
    run<ct::fine_grain_round_robin>(
        state, pl::round_robin_page({.partitions = modules, .channels_per_partition = channels}),
        true);
}
void BM_system_contiguous_random_page(benchmark::State& state) {
    run<ct::contiguous_batches>(
        state, pl::random_page({.partitions = modules, .channels_per_partition = channels}), true);
}

// ------------------------------------------------------------------ scheduling only

template <class Scheduler>
void BM_scheduling(benchmark::State& state) {
    run<Scheduler>(state, pl::fine_grain_interleave({.partitions = modules}), false);
}

// ------------------------------------------------------------------ placement only

void BM_placement_fine_grain(benchmark::State& state) {
    run_placement(state, pl::fine_grain_interleave(
                             {.partitions = modules, .channels_per_partition = channels}));
}
void BM_placement_first_touch(benchmark::State& state) {
    run_placement(state, make_first_touch());
}
void BM_placement_round_robin_page(benchmark::State& state) {
    run_placement(
        state, pl::round_robin_page({.partitions = modules, .channels_per_partition = channels}));
}
void BM_placement_random_page(benchmark::State& state) {
    run_placement(state,
                  pl::random_page({.partitions = modules, .channels_per_partition = channels}));
}

} // namespace

BENCHMARK(BM_system_centralized_fine_grain)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_system_contiguous_first_touch)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_system_stealing_first_touch)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_system_adaptive_first_touch)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_system_fine_grain_rr_round_robin_page)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_system_contiguous_random_page)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_scheduling<ct::centralized_round_robin>)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_scheduling<ct::fine_grain_round_robin>)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_scheduling<ct::contiguous_batches>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_scheduling<ct::batches_with_stealing>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_scheduling<ct::adaptive_batches>)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_placement_fine_grain)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_placement_first_touch)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_placement_round_robin_page)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_placement_random_page)->UseManualTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv);
}
