// Compressed GPU L1 throughput: line accesses per second through 15 per-SM L1s, the compressed
// L1 of LATTE-CC (gpu::compressed_l1 with selection::latte_cc over BDI and SC², one shared SC²
// code book) against the conventional Fermi L1 (gpu::baseline_l1), on the same coalesced line
// stream in the same run, with the quality figures beside it.
//
// Streams: the first 256 Ki warp instructions of memsub's BFS (R-MAT scale 14), SpMV (power-law
// 32 Ki rows) and k-means (16 Ki points × 34 features) on 15 SMs (gto_scheduler, constant
// latency), coalesced once into (SM, line request) records; the line contents come from the
// kernel's device memory, read by the compressed L1 only when it fills a line.
// Counters:
//   * `accesses/s` and `x_baseline` = the baseline's time ÷ this row's on the same records,
//     measured in alternating passes (target for LATTE-CC ≥ 0.3);
//   * `hit_rate`, `eff_capacity` (mean resident lines × 128 B ÷ 16 KB), `sc_share` / `bdi_share`
//     (the fraction of fills stored in each mode), `book_builds`;
//   * `vft_book_share`: the share of the row's time spent on SC² sampling and book builds. It is
//     measured in the same run, not estimated: the lines the pass sampled and the books it built
//     are redone alone (the same lines into a fresh VFT, the same number of builds from it) and
//     timed, then divided by the row's pass time.
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"

#include <array>
#include <cstdint>
#include <ctime>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/compressed_l1.hpp>
#include <memsub/gpu/shared_code_book.hpp>
#include <memsub/selection/all.hpp>
#include <memsub/workload/simt/all.hpp>

namespace {

namespace simt = memsub::workload::simt;
namespace gpu = memsub::gpu;

constexpr std::uint32_t sms = 15;
constexpr std::size_t stream_instructions = 256 * 1024;

struct line_record {
    memsub::access access;
    std::uint32_t sm;
    std::uint64_t instruction;
};

/// A kernel kept alive (its device memory is the L1s' image) and its coalesced line stream.
struct kernel_stream {
    std::unique_ptr<simt::bfs_kernel> bfs;
    std::unique_ptr<simt::spmv_kernel> spmv;
    std::unique_ptr<simt::kmeans_kernel> kmeans;
    std::vector<line_record> records;

    [[nodiscard]] const simt::device_memory& memory() const {
        return bfs ? bfs->memory() : spmv ? spmv->memory() : kmeans->memory();
    }
};

template <class Kernel>
void record(Kernel& k, kernel_stream& out) {
    simt::gto_scheduler<Kernel> scheduler(k, simt::gto_params{.sms = sms});
    const gpu::coalescer co;
    gpu::coalesced_warp lines;
    memsub::warp_instruction w;
    for (std::uint64_t i = 0; i < stream_instructions && scheduler.next(w); ++i) {
        co.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        memsub::access proto;
        proto.pc = w.pc;
        proto.kind = w.kind;
        co.for_each_request(lines, proto, [&](const memsub::access& a) {
            out.records.push_back({a, w.sm, i});
        });
    }
}

enum class kernel_kind { bfs, spmv, kmeans };

template <kernel_kind Kind>
const kernel_stream& stream() {
    static const kernel_stream s = [] {
        kernel_stream out;
        if constexpr (Kind == kernel_kind::bfs) {
            static const auto g = simt::make_rmat_graph({.scale = 14, .edge_factor = 8, .seed = 1});
            std::uint32_t source = 0;
            for (std::uint32_t v = 0; v < g.vertices; ++v)
                if (g.degree(v) > g.degree(source)) source = v;
            out.bfs =
                std::make_unique<simt::bfs_kernel>(g, simt::bfs_kernel::params{.source = source});
            record(*out.bfs, out);
        } else if constexpr (Kind == kernel_kind::spmv) {
            static const auto m = simt::make_power_law_matrix(
                {.rows = 32768, .cols = 32768, .max_row_length = 1024, .seed = 1});
            out.spmv = std::make_unique<simt::spmv_kernel>(m, simt::spmv_kernel::params{.seed = 1});
            record(*out.spmv, out);
        } else {
            out.kmeans = std::make_unique<simt::kmeans_kernel>();
            record(*out.kmeans, out);
        }
        return out;
    }();
    return s;
}

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// 15 baseline L1s over the records.
struct baseline_runner {
    std::vector<gpu::baseline_l1> l1s = std::vector<gpu::baseline_l1>(sms);
    std::uint64_t accesses = 0, hits = 0;

    void pass(const kernel_stream& s) {
        for (const line_record& r : s.records) {
            const auto res = l1s[r.sm].access(r.access);
            ++accesses;
            hits += res.hit;
        }
    }
};

/// 15 compressed L1s and the GPU's code book over the records. A fresh set per pass, so every
/// pass runs the same learning schedule from the start (construction is outside the timer).
template <auto SelectorParams, class Selector, class... Compressors>
struct compressed_runner {
    using l1_type = gpu::compressed_l1<Selector, Compressors...>;
    std::unique_ptr<gpu::shared_code_book> book;
    std::vector<l1_type> l1s;
    std::uint64_t accesses = 0, hits = 0, fills = 0, sc_fills = 0, bdi_fills = 0, builds = 0,
                  sampled = 0;
    double resident_line_accesses = 0;
    std::uint64_t compressions = 0;
    std::array<std::uint64_t, 8> follower_accesses{};

    void reset() {
        book = std::make_unique<gpu::shared_code_book>(gpu::shared_code_book::params{.l1s = sms});
        l1s.clear();
        l1s.reserve(sms);
        for (std::uint32_t i = 0; i < sms; ++i)
            l1s.emplace_back(gpu::compressed_l1_params{}, SelectorParams(), book.get());
    }
    void pass(const kernel_stream& s) {
        const simt::device_memory& image = s.memory();
        for (const line_record& r : s.records) {
            const auto res = l1s[r.sm].access(r.access, r.instruction, image);
            hits += res.hit();
        }
    }
    void collect() {
        for (const auto& l1 : l1s) {
            const auto& st = l1.stats();
            accesses += st.accesses;
            resident_line_accesses += static_cast<double>(st.resident_line_accesses);
            for (std::uint32_t m = 0; m < l1_type::mode_count; ++m) fills += st.fills_by_mode[m];
            bdi_fills += st.fills_by_mode[1];
            sc_fills += st.fills_by_mode[2];
            for (std::uint32_t m = 1; m < l1_type::mode_count; ++m)
                compressions += st.compressions[m];
            if constexpr (requires { l1.selector().mode_accesses(); })
                for (std::uint32_t m = 0; m < l1_type::mode_count; ++m)
                    follower_accesses[m] += l1.selector().mode_accesses()[m];
        }
        builds += book->build_count();
        sampled += book->sampled_lines();
    }
};

/// The compressed L1's engine alone (16 tags, 16 segments of 32 B, LRU, whole-line blocks, no
/// compression, no selector): the floor of the compressed organisation on memsub's engine.
struct engine_runner {
    using cache_type =
        gpu::compressed_l1<memsub::selection::static_mode, memsub::compression::bdi>::cache_type;
    std::vector<cache_type> l1s = std::vector<cache_type>(sms);
    std::uint64_t accesses = 0, hits = 0;

    void pass(const kernel_stream& s) {
        for (const line_record& r : s.records) {
            memsub::access whole = r.access;
            whole.size = 0;
            whole.sector_mask = 0;
            const auto res = l1s[r.sm].access(whole, [](const memsub::access&) noexcept {
                return memsub::cache::block_spec{4, 4, 0};
            });
            ++accesses;
            hits += res.hit;
        }
    }
};

/// The SC² work of a pass redone alone: `lines` sampled lines of the stream into a VFT and
/// `builds` book builds from it.
double sc2_work_seconds(const kernel_stream& s, std::uint64_t lines, std::uint64_t builds) {
    memsub::compression::value_frequency_table vft;
    std::array<std::byte, 128> buffer{};
    const double t0 = thread_cpu_seconds();
    std::uint64_t done = 0;
    for (std::size_t i = 0; done < lines; i = (i + 1) % s.records.size(), ++done) {
        s.memory().read(s.records[i].access.address.value & ~std::uint64_t{127}, buffer);
        vft.on_insert(buffer);
    }
    for (std::uint64_t b = 0; b < builds; ++b) benchmark::DoNotOptimize(vft.build_code_book());
    return thread_cpu_seconds() - t0;
}

template <kernel_kind Kind, auto SelectorParams, class Selector, class... Compressors>
void bm_compressed(benchmark::State& state) {
    const kernel_stream& s = stream<Kind>();
    auto baseline = std::make_unique<baseline_runner>();
    auto subject = std::make_unique<compressed_runner<SelectorParams, Selector, Compressors...>>();
    double t_subject = 0, t_baseline = 0;
    std::uint64_t passes = 0;
    bool baseline_first = true;
    for (auto _ : state) {
        state.PauseTiming();
        subject->reset();
        if (baseline_first) {
            const double t0 = thread_cpu_seconds();
            baseline->pass(s);
            t_baseline += thread_cpu_seconds() - t0;
        }
        state.ResumeTiming();
        const double t0 = thread_cpu_seconds();
        subject->pass(s);
        t_subject += thread_cpu_seconds() - t0;
        state.PauseTiming();
        subject->collect();
        if (!baseline_first) {
            const double t1 = thread_cpu_seconds();
            baseline->pass(s);
            t_baseline += thread_cpu_seconds() - t1;
        }
        state.ResumeTiming();
        baseline_first = !baseline_first;
        ++passes;
    }
    const double records = static_cast<double>(s.records.size() * passes);
    state.SetItemsProcessed(static_cast<std::int64_t>(records));
    state.counters["accesses/s"] = benchmark::Counter(records, benchmark::Counter::kIsRate);
    if (t_subject > 0) state.counters["x_baseline"] = t_baseline / t_subject;
    if (subject->accesses > 0) {
        const double n = static_cast<double>(subject->accesses);
        state.counters["hit_rate"] = static_cast<double>(subject->hits) / n;
        state.counters["baseline_hit_rate"] =
            static_cast<double>(baseline->hits) / static_cast<double>(baseline->accesses);
        state.counters["eff_capacity"] = subject->resident_line_accesses / n * 128.0 / 16384.0;
    }
    if (subject->fills > 0) {
        state.counters["bdi_share"] =
            static_cast<double>(subject->bdi_fills) / static_cast<double>(subject->fills);
        state.counters["sc_share"] =
            static_cast<double>(subject->sc_fills) / static_cast<double>(subject->fills);
    }
    state.counters["book_builds"] = static_cast<double>(subject->builds) / passes;
    if (subject->accesses > 0) {
        const double n = static_cast<double>(subject->accesses);
        state.counters["compressions/access"] = static_cast<double>(subject->compressions) / n;
        if (subject->follower_accesses[2] + subject->follower_accesses[1] > 0) {
            state.counters["time_bdi"] = static_cast<double>(subject->follower_accesses[1]) / n;
            state.counters["time_sc"] = static_cast<double>(subject->follower_accesses[2]) / n;
        }
    }
    if (t_subject > 0 && (subject->sampled > 0 || subject->builds > 0))
        state.counters["vft_book_share"] =
            sc2_work_seconds(s, subject->sampled, subject->builds) / t_subject;
}

template <kernel_kind Kind>
void bm_engine(benchmark::State& state) {
    const kernel_stream& s = stream<Kind>();
    auto baseline = std::make_unique<baseline_runner>();
    double t_subject = 0, t_baseline = 0;
    std::uint64_t passes = 0;
    std::uint64_t hits = 0, accesses = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto subject = std::make_unique<engine_runner>();
        double t0 = thread_cpu_seconds();
        baseline->pass(s);
        t_baseline += thread_cpu_seconds() - t0;
        state.ResumeTiming();
        t0 = thread_cpu_seconds();
        subject->pass(s);
        t_subject += thread_cpu_seconds() - t0;
        hits += subject->hits;
        accesses += subject->accesses;
        ++passes;
    }
    const double records = static_cast<double>(s.records.size() * passes);
    state.SetItemsProcessed(static_cast<std::int64_t>(records));
    state.counters["accesses/s"] = benchmark::Counter(records, benchmark::Counter::kIsRate);
    if (t_subject > 0) state.counters["x_baseline"] = t_baseline / t_subject;
    if (accesses > 0)
        state.counters["hit_rate"] = static_cast<double>(hits) / static_cast<double>(accesses);
}

template <kernel_kind Kind>
void register_rows(const std::string& prefix) {
    namespace sel = memsub::selection;
    using memsub::compression::bdi;
    using memsub::compression::sc2;
    const auto row = [&](const char* name, auto f) {
        benchmark::RegisterBenchmark((prefix + name).c_str(), f)->Unit(benchmark::kMillisecond);
    };
    constexpr auto latte = [] { return sel::latte_cc::params{}; };
    constexpr auto none = [] { return sel::static_mode::params{.mode = 0}; };
    constexpr auto bdi_only = [] { return sel::static_mode::params{.mode = 1}; };
    row("latte_cc", bm_compressed<Kind, latte, sel::latte_cc, bdi, sc2>);
    row("static_bdi", bm_compressed<Kind, bdi_only, sel::static_mode, bdi>);
    row("none", bm_compressed<Kind, none, sel::static_mode, bdi>);
    row("engine_only", bm_engine<Kind>);
}

} // namespace

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv, [] {
        register_rows<kernel_kind::bfs>("compressed_l1/bfs/");
        register_rows<kernel_kind::spmv>("compressed_l1/spmv/");
        register_rows<kernel_kind::kmeans>("compressed_l1/kmeans/");
    });
}
