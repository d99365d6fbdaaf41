// Memory-controller simulation speed: simulated requests per second (items_per_second) for
// FR-FCFS on DDR4-2400 with a random-access stream and a streaming one, with the flat memory,
// FCFS and HTA's partitioned controller (HBM2, 16 requesters) alongside. The host keeps the
// queues full and jumps from event to event with next_event_cycle (idle cycles are skipped).
// Quality counters: row-hit rate, data-bus utilisation, mean and p95 latency (cycles).
//
// Target (one core): FR-FCFS on DDR4 ≥ 5 M requests/s.
// Saturated read/write mix: BM_fr_fcfs_ddr4_mix times a read-only stream and a
// 70 / 30 read / write stream in the same run and reports `speed_vs_read_only` (requests/s of
// the mix over the read-only stream's), with the mix's bus turnarounds and writes per drain. A
// refused host waits for the controller's next event before offering again (can_accept and
// next_event_cycle), so refusals cost no retries.
// The `*_dramsim3` rows run the same on `dramsim3_controller` (DRAMSim3's two-level queues, its
// refresh and round-robin: the fidelity suite's configuration) instead of the defaults; the mix
// row also times the default controller's mix in the same run and reports
// `speed_vs_default_mix` (requests/s of the dramsim3_params mix over the default's). The same
// figures against DRAMSim3 itself, on the fidelity traces: tests/data/dramsim3/speed.sh.
// Output: Google Benchmark's reporters; the figures are counters. Its CSV reporter needs the
// same counters in every row, which holds within one function (e.g.
// --benchmark_filter=BM_fr_fcfs_ddr4_mix --benchmark_format=csv), not across them.
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"

#include <array>
#include <cstdint>
#include <ctime>
#include <span>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>

namespace mm = memsub::memory;

namespace {

constexpr std::size_t stream_len = 1u << 16;

/// Addresses of one pattern (cycled): random 64 B blocks over 4 GB, or a sequential stream.
std::vector<memsub::byte_address> pattern(bool random, std::uint64_t seed = 1) {
    std::vector<memsub::byte_address> v(stream_len);
    memsub::xoshiro256ss rng(seed);
    for (std::size_t i = 0; i < stream_len; ++i)
        v[i] = memsub::byte_address{random ? (rng() & ((std::uint64_t{1} << 32) - 1)) & ~63ull
                                           : std::uint64_t{i} * 64};
    return v;
}

/// Pushes `batch` requests per benchmark iteration through `c`, keeping its queues full.
/// Simulates `n` requests through `c`, keeping its queues full: reads only, or with `writes`
/// request k a write when k % 10 ∈ {3, 6, 9} (30 %). Returns the CPU seconds.
template <class Controller>
double saturate(Controller& c, const std::vector<memsub::byte_address>& a, std::uint64_t n,
                bool writes) {
    std::array<mm::completion, 64> buf{};
    std::uint64_t now = 0, id = 0, done = 0;
    const std::clock_t start = std::clock(); // CPU time: the machine may be shared
    while (done < n) {
        for (;;) {
            const std::uint64_t k = id % 10;
            const mm::mem_request r{.id = id,
                                    .address = a[id & (stream_len - 1)],
                                    .is_write = writes && (k == 3 || k == 6 || k == 9),
                                    .arrival_cycle = now};
            // Refused: wait for the next event (nothing frees a slot before one).
            if (!c.can_accept(r) || c.enqueue(r) != mm::enqueue_result::accepted) break;
            ++id;
        }
        const std::uint64_t next = c.next_event_cycle();
        now = next > now ? next : now + 1;
        c.advance_to(now);
        for (std::size_t k; (k = c.drain(std::span<mm::completion>(buf))) != 0;) done += k;
    }
    benchmark::DoNotOptimize(done);
    return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

template <class Controller>
void drive(benchmark::State& state, Controller& c, const std::vector<memsub::byte_address>& a,
           std::uint32_t requesters = 1) {
    constexpr std::size_t batch = 1u << 14;
    std::array<mm::completion, 64> buf{};
    std::uint64_t now = 0;
    std::uint64_t id = 0;
    std::uint64_t completed = 0;
    bool may_enqueue = true;
    for (auto _ : state) {
        std::size_t done = 0;
        while (done < batch) {
            // Fill the queues at the current cycle; after a refusal, wait for a completion
            // (nothing frees a slot before one) instead of retrying every event.
            for (; may_enqueue;) {
                const mm::mem_request r{.id = id,
                                        .address = a[id & (stream_len - 1)],
                                        .is_write = (id % 5) == 4,
                                        .requester = static_cast<std::uint32_t>(id % requesters),
                                        .arrival_cycle = now};
                if (c.enqueue(r) != mm::enqueue_result::accepted) {
                    may_enqueue = false;
                    break;
                }
                ++id;
            }
            const std::uint64_t next = c.next_event_cycle();
            now = next > now ? next : now + 1;
            c.advance_to(now);
            for (std::size_t n; (n = c.drain(std::span<mm::completion>(buf))) != 0;) {
                done += n;
                may_enqueue = true;
            }
        }
        completed += done;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(completed));
    const auto& s = c.stats();
    state.counters["row_hit_rate"] = s.row_hit_rate();
    state.counters["bus_utilisation"] = s.bandwidth_utilisation();
    state.counters["lat_mean"] = s.latency.mean();
    state.counters["lat_p95"] = static_cast<double>(s.latency.percentile(0.95));
    state.counters["sim_cycles_per_req"] =
        completed == 0 ? 0.0 : static_cast<double>(now) / static_cast<double>(completed);
}

const mm::bit_field_mapping& ddr4_map() {
    static const auto m = mm::bit_field_mapping::from_order("rorabgbachco", mm::presets::ddr4_2400);
    return m;
}

/// FR-FCFS on DDR4-2400: the defaults (`fr_fcfs_controller`), or DRAMSim3's structure
/// (`dramsim3_controller` with `dramsim3_params`).
template <bool DRAMSim3>
auto make_ddr4() {
    if constexpr (DRAMSim3)
        return mm::dramsim3_controller<>(ddr4_map(), mm::dramsim3_params(mm::presets::ddr4_2400));
    else
        return mm::fr_fcfs_controller<>(ddr4_map(), {.timing = mm::presets::ddr4_2400});
}

void BM_fr_fcfs_ddr4(benchmark::State& state, bool random, bool dramsim3) {
    const auto a = pattern(random);
    if (dramsim3) {
        auto c = make_ddr4<true>();
        drive(state, c, a);
    } else {
        auto c = make_ddr4<false>();
        drive(state, c, a);
    }
}

/// Saturated 70 / 30 read/write mix against a read-only stream, timed in the same run (with
/// `dramsim3`, both under dramsim3_params, and the default controller's mix timed alongside).
template <bool dramsim3>
void fr_fcfs_ddr4_mix(benchmark::State& state, bool random) {
    const auto a = pattern(random);
    constexpr std::uint64_t n = 1u << 16;
    double read_s = 0, mix_s = 0, default_mix_s = 0;
    std::uint64_t runs = 0;
    mm::controller_stats last{};
    for (auto _ : state) {
        auto reads = make_ddr4<dramsim3>();
        auto mix = make_ddr4<dramsim3>();
        read_s += saturate(reads, a, n, false);
        mix_s += saturate(mix, a, n, true);
        if constexpr (dramsim3) {
            auto default_mix = make_ddr4<false>();
            default_mix_s += saturate(default_mix, a, n, true);
        }
        last = mix.stats();
        ++runs;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>((dramsim3 ? 3 : 2) * n * runs));
    state.counters["speed_vs_read_only"] = mix_s == 0 ? 0.0 : read_s / mix_s;
    // 1 on the default rows (their mix is the default's), so every row has the same counters.
    state.counters["speed_vs_default_mix"] =
        !dramsim3 ? 1.0 : (mix_s == 0 ? 0.0 : default_mix_s / mix_s);
    state.counters["mix_req_per_s"] = mix_s == 0 ? 0.0 : static_cast<double>(n * runs) / mix_s;
    state.counters["read_only_req_per_s"] =
        read_s == 0 ? 0.0 : static_cast<double>(n * runs) / read_s;
    state.counters["bus_turnarounds"] = static_cast<double>(last.bus_turnarounds);
    state.counters["writes_per_drain"] = last.writes_per_drain();
    state.counters["read_lat_mean"] = last.read_latency.mean();
    state.counters["read_lat_p95"] = static_cast<double>(last.read_latency.percentile(0.95));
    state.counters["bus_utilisation"] = last.bandwidth_utilisation();
}

void BM_fr_fcfs_ddr4_mix(benchmark::State& state, bool random, bool dramsim3) {
    if (dramsim3)
        fr_fcfs_ddr4_mix<true>(state, random);
    else
        fr_fcfs_ddr4_mix<false>(state, random);
}

void BM_fcfs_ddr4(benchmark::State& state, bool random) {
    const auto a = pattern(random);
    mm::fcfs_controller<> c(ddr4_map(), {.timing = mm::presets::ddr4_2400});
    drive(state, c, a);
}

void BM_flat(benchmark::State& state, bool random) {
    const auto a = pattern(random);
    mm::flat_memory c(mm::flat_memory::params{.latency_cycles = 100, .bytes_per_cycle = 16.0});
    drive(state, c, a);
}

void BM_partitioned_hbm2(benchmark::State& state, bool random) {
    const auto a = pattern(random);
    static const auto m =
        mm::bit_field_mapping::from_order("rorabgbachco", mm::presets::hbm2_4gb_x128);
    mm::partitioned_controller<> c(m, {.timing = mm::presets::hbm2_4gb_x128, .requesters = 16});
    drive(state, c, a, 16);
}

void BM_fr_fcfs_hbm2(benchmark::State& state, bool random) {
    const auto a = pattern(random);
    static const auto m =
        mm::bit_field_mapping::from_order("rorabgbachco", mm::presets::hbm2_4gb_x128);
    mm::fr_fcfs_controller<> c(m, {.timing = mm::presets::hbm2_4gb_x128});
    drive(state, c, a, 16);
}

} // namespace

BENCHMARK_CAPTURE(BM_fr_fcfs_ddr4, random, true, false);
BENCHMARK_CAPTURE(BM_fr_fcfs_ddr4, streaming, false, false);
BENCHMARK_CAPTURE(BM_fr_fcfs_ddr4, random_dramsim3, true, true);
BENCHMARK_CAPTURE(BM_fr_fcfs_ddr4, streaming_dramsim3, false, true);
BENCHMARK_CAPTURE(BM_fr_fcfs_ddr4_mix, random, true, false);
BENCHMARK_CAPTURE(BM_fr_fcfs_ddr4_mix, streaming, false, false);
BENCHMARK_CAPTURE(BM_fr_fcfs_ddr4_mix, random_dramsim3, true, true);
BENCHMARK_CAPTURE(BM_fr_fcfs_ddr4_mix, streaming_dramsim3, false, true);
BENCHMARK_CAPTURE(BM_fcfs_ddr4, random, true);
BENCHMARK_CAPTURE(BM_fcfs_ddr4, streaming, false);
BENCHMARK_CAPTURE(BM_flat, random, true);
BENCHMARK_CAPTURE(BM_fr_fcfs_hbm2, random, true);
BENCHMARK_CAPTURE(BM_partitioned_hbm2, random, true);

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv);
}
