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
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"

#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/linesize/alsi.hpp>
#include <memsub/linesize/static_size.hpp>
#include <memsub/workload/simt/bfs.hpp>
#include <memsub/workload/simt/csr_inputs.hpp>
#include <memsub/workload/simt/gto_scheduler.hpp>
#include <memsub/workload/simt/spmv.hpp>

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
    simt::warp_instruction w;
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
    });
}
