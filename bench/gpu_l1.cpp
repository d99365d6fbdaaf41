// GPU L1 throughput: warp memory instructions per second through the coalescer and a GPU L1
// (the target: ID-Cache at least 10 M warp instructions/s on one core), with the hit
// rate and the bytes fetched from the next level, and the baseline L1's rate in the same run.
//
// Two streams of 64 Ki warp instructions each, generated once, replayed as often as the timer
// needs (state carried over: a warm cache):
//   * `mix/`: an irregular kernel mix, eight PCs in turn, each with one pattern:
//   * 3 coalesced streams (lane i reads 4 B at base + 4i: d = 1), one of them stores;
//   * 1 row walk with 8 B per lane (d = 2);
//   * 1 column walk, lane stride 128 B (d = 32; the transposed-matrix pattern);
//   * 2 gathers of 4 B at random indices over 256 KiB and over 16 KiB (CSR column indices,
//     BFS neighbours; d ≈ 29 and ≈ 26), half of the lanes active on one (a divergent branch);
//   * 1 small table read by every lane with a random 4 B index (a histogram's bins: 1 KiB).
//     On average 12.7 line accesses per warp instruction.
//   * `regular/`: the first four PCs only (coalesced and 8 B-per-lane streams: streaming,
//     stencil and tiled-matrix kernels); 1.25 line accesses per warp instruction.
//   * `bfs/`, `spmv/`: the first 64 Ki warp instructions of memsub's SIMT kernels on 15 SMs
//     under the GTO scheduler (workload/simt: BFS on an R-MAT 2^14 graph, scalar CSR SpMV on a
//     32 Ki-row power-law matrix, seed 1), as gpu_l1_explorer runs them: real kernels, real
//     divergence.
// Rows (counters: `warp_inst/s`, `hit_rate` = hits ÷ line accesses, `fetched_B/inst` = bytes
// fetched from the next level per warp instruction; `x_baseline` = the row's warp instructions
// per second ÷ the baseline L1's, measured interleaved pass by pass, the baseline's pass first
// in every other iteration and second in the others, both runners on the heap: with the
// baseline always first and both on the stack, the baseline row divided by itself read
// 0.7-1.6 depending on the stream; now 0.99-1.02):
//   * coalescer_only: coalescing and walking the requests, no cache (the front end's cost);
//   * baseline_l1: Table 3.1's 16 KB L1 (32 sets × 4 ways × 128 B, LRU, write-evict);
//   * id_cache: PC+Div bypass + ALSI on the variable-block L1;
//   * alsi_only, pc_div_bypass_only: each half of ID-Cache on its own.
// Timing rows, `timing/{bfs,spmv,stencil}`: a whole kernel run (BFS on the R-MAT 2^14 graph,
// SpMV on the 32 Ki-row power-law matrix, stencil 512 x 512 × 2 iterations) on 15 SMs, each SM
// with Table 3.1's L1, over Table 3.1's L2 and DRAM (gpu::l2_dram_timing), through
// simt::run_timed, as gpu_l1_explorer's --timing memory runs it. Two passes per iteration,
// interleaved as above (a fresh kernel, scheduler, L1s and memory side each, built outside the
// timed section): the scheduler in latency_mode::constant (every dependent load waits 120
// cycles; the memory side sees the same requests) and in latency_mode::host (loads wait for
// the memory side). Counters: `warp_inst/s` (the timed pass), `x_constant` = the timed pass's
// warp instructions per second ÷ the constant pass's (target ≥ 0.5: time from the memory
// system costs at most half the speed), `cycles_constant` and `cycles_timed` (the kernel's
// cycles in each mode). The row's time is the timed pass's (manual time: the rows are named
// `.../manual_time`).
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"

#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/gpu/timing.hpp>
#include <memsub/linesize/alsi.hpp>
#include <memsub/linesize/static_size.hpp>
#include <memsub/workload/simt/bfs.hpp>
#include <memsub/workload/simt/csr_inputs.hpp>
#include <memsub/workload/simt/gto_scheduler.hpp>
#include <memsub/workload/simt/spmv.hpp>
#include <memsub/workload/simt/stencil.hpp>
#include <memsub/workload/simt/timed_run.hpp>

#include <array>
#include <cstdint>
#include <ctime>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

using memsub::gpu::warp_size;

struct warp_instruction {
    std::array<std::uint64_t, warp_size> lanes;
    std::uint32_t active_mask;
    std::uint32_t access_bytes;
    std::uint64_t pc;
    memsub::access_kind kind;
};

constexpr std::size_t stream_length = 64 * 1024;

std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

enum class stream_kind { mix, regular, bfs, spmv };

/// The first `stream_length` warp instructions of a SIMT kernel on 15 SMs.
template <class Kernel>
std::vector<warp_instruction> kernel_stream(Kernel& kernel) {
    namespace simt = memsub::workload::simt;
    simt::gto_scheduler<Kernel> scheduler(kernel, simt::gto_params{.sms = 15});
    std::vector<warp_instruction> v;
    v.reserve(stream_length);
    memsub::warp_instruction w;
    while (v.size() < stream_length && scheduler.next(w))
        v.push_back({.lanes = w.lanes,
                     .active_mask = w.active_mask,
                     .access_bytes = w.access_bytes,
                     .pc = w.pc,
                     .kind = w.kind});
    return v;
}

template <stream_kind Kind>
const std::vector<warp_instruction>& stream() {
    namespace simt = memsub::workload::simt;
    if constexpr (Kind == stream_kind::bfs) {
        static const std::vector<warp_instruction> s = [] {
            const auto g = simt::make_rmat_graph({.scale = 14, .edge_factor = 8, .seed = 1});
            std::uint32_t source = 0;
            for (std::uint32_t v = 0; v < g.vertices; ++v)
                if (g.degree(v) > g.degree(source)) source = v;
            simt::bfs_kernel k(g, {.source = source});
            return kernel_stream(k);
        }();
        return s;
    } else if constexpr (Kind == stream_kind::spmv) {
        static const std::vector<warp_instruction> s = [] {
            const auto m = simt::make_power_law_matrix(
                {.rows = 32768, .cols = 32768, .max_row_length = 1024, .seed = 1});
            simt::spmv_kernel k(m, {.seed = 1});
            return kernel_stream(k);
        }();
        return s;
    }
    static const std::vector<warp_instruction> s = [] {
        std::vector<warp_instruction> v(stream_length);
        std::uint64_t seed = 2026;
        std::array<std::uint64_t, 8> cursor{};
        const std::size_t pcs = Kind == stream_kind::mix ? 8 : 4;
        for (std::size_t i = 0; i < v.size(); ++i) {
            warp_instruction& w = v[i];
            const auto pc = static_cast<std::uint32_t>(i % pcs);
            w.pc = 0x400 + 16 * pc;
            w.kind = pc == 2 ? memsub::access_kind::store : memsub::access_kind::load;
            w.active_mask = ~0u;
            w.access_bytes = 4;
            const std::uint64_t region = (std::uint64_t{pc} + 1) << 28;
            switch (pc) {
            case 0:
            case 1:
            case 2: // coalesced streams over 4 MiB each
                for (std::uint32_t l = 0; l < warp_size; ++l)
                    w.lanes[l] = region + (cursor[pc] % (4u << 20)) + 4 * l;
                cursor[pc] += 128;
                break;
            case 3: // 8 B per lane: two lines
                w.access_bytes = 8;
                for (std::uint32_t l = 0; l < warp_size; ++l)
                    w.lanes[l] = region + (cursor[pc] % (4u << 20)) + 8 * l;
                cursor[pc] += 256;
                break;
            case 4: // a column walk: one line per lane
                for (std::uint32_t l = 0; l < warp_size; ++l)
                    w.lanes[l] = region + ((cursor[pc] + 128 * l) % (1u << 20));
                cursor[pc] += 4;
                break;
            case 5: // a gather over 256 KiB, half the lanes on a divergent branch
                w.active_mask = (i / pcs) % 2 == 0 ? ~0u : 0x0000ffffu;
                for (std::uint32_t l = 0; l < warp_size; ++l)
                    w.lanes[l] = region + 4 * (splitmix(seed) % (64 * 1024));
                break;
            case 6: // a gather over 16 KiB
                for (std::uint32_t l = 0; l < warp_size; ++l)
                    w.lanes[l] = region + 4 * (splitmix(seed) % (4 * 1024));
                break;
            default: // a 1 KiB table of bins
                for (std::uint32_t l = 0; l < warp_size; ++l)
                    w.lanes[l] = region + 4 * (splitmix(seed) % 256);
                break;
            }
        }
        return v;
    }();
    return s;
}

double thread_cpu_seconds() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Coalescer + cache over the whole stream once; counts line accesses, hits, bytes fetched.
template <class Cache, stream_kind Kind>
struct l1_runner {
    Cache cache;
    memsub::gpu::coalescer coalescer;
    memsub::gpu::coalesced_warp warp;
    std::uint64_t accesses = 0, hits = 0, fetched = 0;

    void pass() {
        for (const warp_instruction& w : stream<Kind>()) {
            coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, warp);
            memsub::access prototype;
            prototype.pc = w.pc;
            prototype.kind = w.kind;
            coalescer.for_each_request(warp, prototype, [&](const memsub::access& a) {
                const auto r = cache.access(a);
                ++accesses;
                hits += r.hit;
                fetched += r.bytes_fetched;
            });
        }
    }
};

/// The front end alone: coalescing and walking the line requests, no cache.
template <stream_kind Kind>
struct coalescer_runner {
    static constexpr bool front_end_only = true;
    memsub::gpu::coalescer coalescer;
    memsub::gpu::coalesced_warp warp;
    std::uint64_t accesses = 0, hits = 0, fetched = 0, checksum = 0;

    void pass() {
        for (const warp_instruction& w : stream<Kind>()) {
            coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, warp);
            memsub::access prototype;
            prototype.pc = w.pc;
            prototype.kind = w.kind;
            coalescer.for_each_request(warp, prototype, [&](const memsub::access& a) {
                ++accesses;
                checksum += a.address.value + a.size;
            });
        }
        benchmark::DoNotOptimize(checksum);
    }
};

template <class Runner>
double timed_pass(Runner& r) {
    const double t0 = thread_cpu_seconds();
    r.pass();
    return thread_cpu_seconds() - t0;
}

template <class Runner, stream_kind Kind>
void bm_l1(benchmark::State& state) {
    const auto subject_ptr = std::make_unique<Runner>();
    const auto baseline_ptr = std::make_unique<l1_runner<memsub::gpu::baseline_l1, Kind>>();
    Runner& subject = *subject_ptr;
    auto& baseline = *baseline_ptr;
    double t_subject = 0, t_baseline = 0;
    std::uint64_t warps = 0;
    bool baseline_first = true;
    for (auto _ : state) {
        if (baseline_first) {
            state.PauseTiming();
            t_baseline += timed_pass(baseline);
            state.ResumeTiming();
            t_subject += timed_pass(subject);
        } else {
            t_subject += timed_pass(subject);
            state.PauseTiming();
            t_baseline += timed_pass(baseline);
            state.ResumeTiming();
        }
        baseline_first = !baseline_first;
        warps += stream<Kind>().size();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(warps));
    state.counters["warp_inst/s"] =
        benchmark::Counter(static_cast<double>(warps), benchmark::Counter::kIsRate);
    if (subject.accesses > 0 && warps > 0) {
        if constexpr (!requires { Runner::front_end_only; })
            state.counters["hit_rate"] =
                static_cast<double>(subject.hits) / static_cast<double>(subject.accesses);
        state.counters["fetched_B/inst"] =
            static_cast<double>(subject.fetched) / static_cast<double>(warps);
        state.counters["accesses/inst"] =
            static_cast<double>(subject.accesses) / static_cast<double>(warps);
    }
    if (t_subject > 0) state.counters["x_baseline"] = t_baseline / t_subject;
}

enum class timing_kernel { bfs, spmv, stencil };

/// A fresh instance of the timing rows' kernel (its input generated once).
template <timing_kernel Kind>
auto make_timing_kernel() {
    namespace simt = memsub::workload::simt;
    if constexpr (Kind == timing_kernel::bfs) {
        static const simt::csr_graph g =
            simt::make_rmat_graph({.scale = 14, .edge_factor = 8, .seed = 1});
        static const std::uint32_t source = [] {
            std::uint32_t s = 0;
            for (std::uint32_t v = 0; v < g.vertices; ++v)
                if (g.degree(v) > g.degree(s)) s = v;
            return s;
        }();
        return simt::bfs_kernel(g, {.source = source});
    } else if constexpr (Kind == timing_kernel::spmv) {
        static const simt::csr_matrix m = simt::make_power_law_matrix(
            {.rows = 32768, .cols = 32768, .max_row_length = 1024, .seed = 1});
        return simt::spmv_kernel(m, {.seed = 1});
    } else {
        return simt::stencil_kernel({.rows = 512, .cols = 512, .iterations = 2});
    }
}

/// One whole kernel run on 15 SMs with baseline L1s over Table 3.1's memory side, the scheduler
/// in `mode`; only run_timed is timed.
template <timing_kernel Kind>
struct timing_pass {
    std::uint64_t instructions = 0;
    std::uint64_t cycles = 0;
    double seconds = 0;

    explicit timing_pass(memsub::workload::simt::latency_mode mode) {
        namespace simt = memsub::workload::simt;
        auto kernel = make_timing_kernel<Kind>();
        simt::gto_scheduler<decltype(kernel)> scheduler(
            kernel, simt::gto_params{.sms = 15, .latency = mode});
        const auto l1 = std::make_unique<std::vector<memsub::gpu::baseline_l1>>(15);
        const auto memory = std::make_unique<memsub::gpu::l2_dram_timing<>>();
        const memsub::gpu::coalescer coalescer;
        memsub::gpu::coalesced_warp warp;
        const auto issue = [&](const memsub::warp_instruction& w) {
            coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, warp);
            memsub::access prototype;
            prototype.pc = w.pc;
            prototype.kind = w.kind;
            prototype.requester = w.sm;
            simt::timed_requests requests(scheduler, *memory, w);
            coalescer.for_each_request(warp, prototype, [&](const memsub::access& a) {
                requests(a, (*l1)[w.sm].access(a));
            });
            requests.finish();
        };
        const double t0 = thread_cpu_seconds();
        const auto r = simt::run_timed(scheduler, issue, *memory);
        seconds = thread_cpu_seconds() - t0;
        instructions = r.instructions;
        cycles = r.cycles;
    }
};

template <timing_kernel Kind>
void bm_timing(benchmark::State& state) {
    using memsub::workload::simt::latency_mode;
    double t_timed = 0, t_constant = 0;
    std::uint64_t warps = 0, cycles_timed = 0, cycles_constant = 0;
    bool constant_first = true;
    for (auto _ : state) {
        // The passes time themselves (thread CPU time of run_timed only, reported as the
        // row's manual time: the timed pass's); the constant pass goes first in every other
        // iteration.
        double iteration = 0;
        const auto run = [&](latency_mode mode) {
            const timing_pass<Kind> p(mode);
            if (mode == latency_mode::host) {
                t_timed += p.seconds;
                iteration = p.seconds;
                cycles_timed = p.cycles;
                warps += p.instructions;
            } else {
                t_constant += p.seconds;
                cycles_constant = p.cycles;
            }
        };
        run(constant_first ? latency_mode::constant : latency_mode::host);
        run(constant_first ? latency_mode::host : latency_mode::constant);
        constant_first = !constant_first;
        state.SetIterationTime(iteration);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(warps));
    if (t_timed > 0) {
        state.counters["warp_inst/s"] = static_cast<double>(warps) / t_timed;
        state.counters["x_constant"] = t_constant / t_timed;
    }
    state.counters["cycles_constant"] = static_cast<double>(cycles_constant);
    state.counters["cycles_timed"] = static_cast<double>(cycles_timed);
}

} // namespace

template <stream_kind Kind>
void register_rows(const std::string& prefix) {
    using namespace memsub::gpu;
    const auto row = [&](const char* name, auto f) {
        benchmark::RegisterBenchmark((prefix + name).c_str(), f)->Unit(benchmark::kMillisecond);
    };
    row("coalescer_only", bm_l1<coalescer_runner<Kind>, Kind>);
    row("baseline_l1", bm_l1<l1_runner<baseline_l1, Kind>, Kind>);
    row("id_cache", bm_l1<l1_runner<id_cache, Kind>, Kind>);
    row("alsi_only", bm_l1<l1_runner<variable_line_l1<memsub::linesize::alsi>, Kind>, Kind>);
    row("pc_div_bypass_only",
        bm_l1<l1_runner<baseline_l1_with<memsub::bypass::pc_divergence>, Kind>, Kind>);
}

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv, [] {
        register_rows<stream_kind::mix>("gpu_l1/mix/");
        register_rows<stream_kind::regular>("gpu_l1/regular/");
        register_rows<stream_kind::bfs>("gpu_l1/bfs/");
        register_rows<stream_kind::spmv>("gpu_l1/spmv/");
        const auto timing_row = [](const char* name, auto f) {
            benchmark::RegisterBenchmark(name, f)->Unit(benchmark::kMillisecond)->UseManualTime();
        };
        timing_row("gpu_l1/timing/bfs", bm_timing<timing_kernel::bfs>);
        timing_row("gpu_l1/timing/spmv", bm_timing<timing_kernel::spmv>);
        timing_row("gpu_l1/timing/stencil", bm_timing<timing_kernel::stencil>);
    });
}
