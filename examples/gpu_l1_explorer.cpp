// gpu_l1_explorer — ID-Cache's comparison points (seed 001 chapter 3; spec id-cache.md) on SIMT
// kernel workloads: each kernel's warps run on N SMs under a GTO scheduler
// (memsub/workload/simt), every warp instruction goes through the coalescer into each SM's
// private L1, and every L1 configuration sees the same instruction stream:
//
//   baseline_16KB  Table 3.1's L1: 32 sets × 4 ways × 128 B, LRU, write-evict
//   2x_32KB        64 sets × 4 ways × 128 B
//   static_32B     32 B lines on the variable-block L1 (same 16 KB data budget)
//   static_64B     64 B lines likewise
//   pc_only        the baseline with the online PC-only bypass predictor
//   pc_div         the baseline with the online PC+Div bypass predictor
//   pc_only_off    the baseline with the offline-trained PC-only predictor
//   pc_div_off     the baseline with the offline-trained PC+Div predictor
//   alsi           ALSI line sizes on the variable-block L1
//   id_cache       PC+Div bypass + ALSI (Algorithm 5)
//
// Per kernel it prints hit rate, the hit split of Fig. 3.9, the zero-reuse fraction (Fig. 3.2),
// spatial utilisation (Fig. 3.3) and the bytes fetched from L2 (the interconnect traffic) with
// their ratio to the baseline; optionally a CSV, a relative-traffic plot (gnuplot) and the
// per-PC reuse distances (Figs. 3.6–3.8) of SM 0's stream.
// Units: an "access" is what the coalescer hands an L1 (one per run of touched 32 B sectors of a
// line request), loads and stores alike; hit% and the hit split are per access; bypass% counts
// misses that inserted nothing (store misses of the write-evict L1 included); 0-reuse% and the
// utilisation are over blocks leaving the L1 (the L1s are flushed at the end so resident blocks
// count too); MB fetched is the L1→L2 read traffic (gpu::l1_statistics: fills in whole blocks,
// bypassed reads in 32 B flits). The offline-trained predictors (§3.2.2) come from a profiling
// pass over the same kernel run first: each SM's reuse distances (gpu::reuse_distance_profile
// over its L1's 32 sets) train that SM's table (bypass/offline_trainer.hpp: median above 8
// bypasses a PC, above 6 in a divergence bin bypasses the PC's higher bins), frozen while the
// measured run replays the kernel. No L2 or timing is modelled here: the paper's speedups and
// interconnect stalls are not reported.
//
//   gpu_l1_explorer                                  every kernel, built-in inputs
//   gpu_l1_explorer --kernels bfs,spmv --sms 15 --plot traffic.svg
//   gpu_l1_explorer --kernels bfs --graph g.txt      BFS on an edge list
//   gpu_l1_explorer --kernels spmv --matrix m.mtx    SpMV on a Matrix Market file

#include <memsub/bypass/offline_trainer.hpp>
#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/bypass/pc_only.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/gpu/l1_statistics.hpp>
#include <memsub/linesize/alsi.hpp>
#include <memsub/linesize/static_size.hpp>
#include <memsub/workload/simt/all.hpp>

#include "common/example_support.hpp"

#include <fmt/core.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

using memsub_examples::gnuplot_quoted;

namespace simt = memsub::workload::simt;
namespace gpu = memsub::gpu;
using memsub_examples::option_error;

namespace status {
constexpr int ok = 0, input_error = 1, usage_error = 2, out_of_memory = 4;
} // namespace status

constexpr std::array<std::string_view, 7> all_kernels{"bfs",    "spmv",  "kmeans",   "stencil",
                                                      "matmul", "saxpy", "histogram"};

struct options {
    std::vector<std::string> kernels{all_kernels.begin(), all_kernels.end()};
    std::uint32_t sms = 15;
    std::uint64_t seed = 1;
    double scale = 1.0;
    std::optional<std::string> graph, matrix, csv, plot;
    bool quiet = false;
    bool reuse = false;
};

[[noreturn]] void usage(int code) {
    fmt::print(
        code == 0 ? stdout : stderr,
        "usage: gpu_l1_explorer [options]\n"
        "Runs SIMT kernels on N SMs (GTO warp scheduling, Table 3.1's 48 warps and 8 CTAs per\n"
        "SM) and compares GPU L1 configurations on the same warp instruction stream: the\n"
        "16 KB baseline, 32 KB, static 32 B / 64 B lines, PC-only and PC+Div bypass (online),\n"
        "ALSI and ID-Cache.\n"
        "  --kernels a,b,...   of bfs, spmv, kmeans, stencil, matmul, saxpy, histogram\n"
        "                      (default: all)\n"
        "  --sms N             SMs, each with a private L1 (default 15, Table 3.1)\n"
        "  --seed S            input generator seed (default 1)\n"
        "  --scale X           input size multiplier (default 1; 0.1 for a quick run)\n"
        "  --graph FILE        BFS on this edge list ('u v' per line, 0-based) instead of\n"
        "                      an R-MAT graph\n"
        "  --matrix FILE       SpMV on this Matrix Market coordinate file instead of a\n"
        "                      power-law matrix\n"
        "  --csv FILE          every counter, one row per kernel and configuration\n"
        "  --plot FILE         bytes fetched relative to the baseline, per kernel and\n"
        "                      configuration (.svg, .png or .pdf; needs gnuplot; the data\n"
        "                      and script are written beside it)\n"
        "  --reuse             per-PC reuse distances (p25 / median / p75, SM 0's L1 sets)\n"
        "  --quiet             no progress on stderr\n"
        "  --help              this text\n"
        "exit status: 0 ok, 1 bad input file or unwritable output, 2 bad usage, 4 out of\n"
        "memory; on SIGINT / SIGTERM the running kernel stops, its partial figures are\n"
        "printed and written, and the program exits with 128 + the signal number\n");
    std::exit(code);
}

// ------------------------------------------------------------------ configurations

constexpr std::size_t config_count = 10;
constexpr std::array<std::string_view, config_count> config_names{
    "baseline_16KB", "2x_32KB",     "static_32B", "static_64B", "pc_only",
    "pc_div",        "pc_only_off", "pc_div_off", "alsi",       "id_cache"};

using l1_32kb = memsub::cache::set_associative_cache<memsub::replacement::lru,
                                                     memsub::cache::write_policy::write_evict,
                                                     memsub::fixed_geometry<64, 4, 128>>;
static_assert(memsub::fixed_geometry<64, 4, 128>::capacity_bytes() == 32 * 1024);

/// One configuration: a private L1 per SM and its statistics observer.
template <class Cache>
struct config_run {
    std::vector<Cache> caches;
    std::vector<gpu::l1_statistics> stats;

    config_run(std::uint32_t sms, std::uint32_t max_blocks)
        : caches(sms)
        , stats(sms,
                gpu::l1_statistics(gpu::l1_statistics::params{.max_resident_blocks = max_blocks})) {
    }
    /// One L1 per element of `bypass`, each with its own bypass predictor params.
    template <class BypassParams>
    config_run(const std::vector<BypassParams>& bypass, std::uint32_t max_blocks)
        : stats(bypass.size(),
                gpu::l1_statistics(gpu::l1_statistics::params{.max_resident_blocks = max_blocks})) {
        caches.reserve(bypass.size());
        for (const auto& b : bypass)
            caches.emplace_back(gpu::l1_geometry{}, typename Cache::policy_params{}, b);
    }

    void access(std::uint32_t sm, const memsub::access& a) {
        const auto r = caches[sm].access(a);
        stats[sm].record(a, r);
    }
    /// Empties every L1 so that blocks still resident count in the departure statistics.
    void finish() {
        for (std::size_t s = 0; s < caches.size(); ++s) {
            const auto sink = [&](const memsub::replacement::evicted_block& b) {
                stats[s].record_departure(b);
            };
            if constexpr (requires { caches[s].underlying(); })
                caches[s].underlying().flush(sink);
            else
                caches[s].flush(sink);
        }
    }
    [[nodiscard]] gpu::l1_statistics::counters totals() const {
        gpu::l1_statistics::counters t{};
        for (const auto& s : stats) {
            const auto& c = s.totals();
            t.accesses += c.accesses;
            t.temporal_hits += c.temporal_hits;
            t.spatial_hits += c.spatial_hits;
            t.mixed_hits += c.mixed_hits;
            t.full_misses += c.full_misses;
            t.partial_misses += c.partial_misses;
            t.bypassed_misses += c.bypassed_misses;
            t.blocks_inserted += c.blocks_inserted;
            t.bytes_fetched += c.bytes_fetched;
            t.departures += c.departures;
            t.zero_reuse_departures += c.zero_reuse_departures;
            for (std::size_t b = 0; b < t.utilisation.size(); ++b)
                t.utilisation[b] += c.utilisation[b];
        }
        return t;
    }
};

using offline_pc_only = memsub::bypass::offline<memsub::bypass::pc_only>;
using offline_pc_div = memsub::bypass::offline<memsub::bypass::pc_divergence>;

struct all_configs {
    config_run<gpu::baseline_l1> baseline;
    config_run<l1_32kb> doubled;
    config_run<gpu::variable_line_l1<memsub::linesize::static_size<32>>> static_32;
    config_run<gpu::variable_line_l1<memsub::linesize::static_size<64>>> static_64;
    config_run<gpu::baseline_l1_with<memsub::bypass::pc_only>> pc_only;
    config_run<gpu::baseline_l1_with<memsub::bypass::pc_divergence>> pc_div;
    config_run<gpu::baseline_l1_with<offline_pc_only>> pc_only_off;
    config_run<gpu::baseline_l1_with<offline_pc_div>> pc_div_off;
    config_run<gpu::variable_line_l1<memsub::linesize::alsi>> alsi;
    config_run<gpu::id_cache> id_cache;

    all_configs(std::uint32_t sms, const std::vector<offline_pc_only::params>& only_tables,
                const std::vector<offline_pc_div::params>& div_tables)
        : baseline(sms, 32 * 4)
        , doubled(sms, 64 * 4)
        , static_32(sms, 32 * 16)
        , static_64(sms, 32 * 16)
        , pc_only(sms, 32 * 4)
        , pc_div(sms, 32 * 4)
        , pc_only_off(only_tables, 32 * 4)
        , pc_div_off(div_tables, 32 * 4)
        , alsi(sms, 32 * 16)
        , id_cache(sms, 32 * 16) {}

    template <class Fn>
    void each(Fn&& fn) {
        fn(baseline);
        fn(doubled);
        fn(static_32);
        fn(static_64);
        fn(pc_only);
        fn(pc_div);
        fn(pc_only_off);
        fn(pc_div_off);
        fn(alsi);
        fn(id_cache);
    }
};

struct kernel_result {
    std::string kernel;
    std::string input;
    std::uint64_t warp_instructions = 0;
    std::uint64_t line_requests = 0;
    std::array<gpu::l1_statistics::counters, config_count> configs{};
    std::vector<std::tuple<std::uint64_t, gpu::reuse_distance_profile::summary,
                           std::array<std::optional<gpu::reuse_distance_profile::summary>, 4>>>
        reuse;
};

/// The offline predictors' tables: a profiling pass over the kernel (a fresh instance from
/// `make`), each SM's line requests profiled over its own L1's sets, one table per SM.
template <class MakeKernel>
std::pair<std::vector<offline_pc_only::params>, std::vector<offline_pc_div::params>>
train_offline(MakeKernel& make, const options& o) {
    auto kernel = make();
    simt::gto_scheduler<decltype(kernel)> scheduler(kernel, simt::gto_params{.sms = o.sms});
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    // Sized to the kernel's memory instructions (PCs beyond share an untrained row).
    std::vector<gpu::reuse_distance_profile> profiles(
        o.sms, gpu::reuse_distance_profile({.sets = 32, .line_bytes = 128, .max_pcs = 256}));
    simt::warp_instruction w;
    std::uint64_t n = 0;
    while (scheduler.next(w)) {
        coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        for (const auto& r : lines.lines())
            (void)profiles[w.sm].reference(w.pc, lines.count, r.line_base.value);
        if ((++n & 0xffff) == 0 && memsub_examples::stop_requested() != 0) break;
    }
    std::pair<std::vector<offline_pc_only::params>, std::vector<offline_pc_div::params>> t;
    for (const auto& p : profiles) {
        t.first.push_back(
            {.base = {}, .table = memsub::bypass::train(p, memsub::bypass::pc_only::params{})});
        t.second.push_back(
            {.base = {},
             .table = memsub::bypass::train(p, memsub::bypass::pc_divergence::params{})});
    }
    return t;
}

/// Runs the kernel `make` builds on `sms` SMs through every configuration (after a profiling
/// pass for the offline predictors); `describe(kernel)` adds to the input label afterwards.
template <class MakeKernel, class Describe>
kernel_result run_kernel(MakeKernel&& make, std::string input, const options& o,
                         Describe&& describe) {
    const auto tables = train_offline(make, o);
    auto kernel = make();
    kernel_result out;
    out.kernel = std::string(kernel.name());
    out.input = std::move(input);
    simt::gto_scheduler<decltype(kernel)> scheduler(kernel, simt::gto_params{.sms = o.sms});
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    all_configs configs(o.sms, tables.first, tables.second);
    gpu::reuse_distance_profile reuse;
    simt::warp_instruction w;
    memsub_examples::progress_meter progress(!o.quiet, out.kernel);
    while (scheduler.next(w)) {
        coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        ++out.warp_instructions;
        out.line_requests += lines.count;
        if (w.sm == 0)
            for (const auto& r : lines.lines())
                reuse.reference(w.pc, lines.count, r.line_base.value);
        memsub::access proto{};
        proto.pc = w.pc;
        proto.kind = w.kind;
        proto.requester = w.sm;
        coalescer.for_each_access(lines, proto, [&](const memsub::access& a) {
            configs.each([&](auto& c) { c.access(w.sm, a); });
        });
        if ((out.warp_instructions & 0xffff) == 0) {
            progress.update(out.line_requests, std::nullopt);
            if (memsub_examples::stop_requested() != 0) break;
        }
    }
    progress.finish();
    out.input += describe(kernel);
    std::size_t i = 0;
    configs.each([&](auto& c) {
        c.finish();
        out.configs[i++] = c.totals();
    });
    for (const std::uint64_t pc : reuse.pcs()) {
        std::array<std::optional<gpu::reuse_distance_profile::summary>, 4> bins{};
        for (std::uint32_t b = 0; b < 4; ++b) {
            const auto s = reuse.of_pc_bin(pc, b);
            if (s && s->references != 0) bins[b] = s;
        }
        out.reuse.emplace_back(pc, *reuse.of_pc(pc), bins);
    }
    return out;
}

template <class MakeKernel>
kernel_result run_kernel(MakeKernel&& make, std::string input, const options& o) {
    return run_kernel(std::forward<MakeKernel>(make), std::move(input), o,
                      [](const auto&) { return std::string(); });
}

std::uint64_t scaled(double base, double scale) {
    return static_cast<std::uint64_t>(std::max(1.0, std::round(base * scale)));
}

kernel_result run_named(std::string_view name, const options& o) {
    if (name == "bfs") {
        simt::csr_graph g;
        std::string label;
        if (o.graph) {
            g = simt::read_edge_list(*o.graph);
            label = *o.graph;
        } else {
            const auto scale = static_cast<std::uint32_t>(
                std::clamp(std::lround(14 + std::log2(o.scale)), 4L, 24L));
            g = simt::make_rmat_graph({.scale = scale, .edge_factor = 8, .seed = o.seed});
            label = fmt::format("R-MAT 2^{}", scale);
        }
        // Source: the vertex of largest degree (R-MAT leaves some vertices isolated).
        std::uint32_t source = 0;
        for (std::uint32_t v = 0; v < g.vertices; ++v)
            if (g.degree(v) > g.degree(source)) source = v;
        return run_kernel(
            [&] { return simt::bfs_kernel(g, {.source = source}); },
            fmt::format("{}: {} vertices, {} edges", label, g.vertices, g.edges()), o,
            [](const simt::bfs_kernel& k) { return fmt::format(", {} levels", k.levels()); });
    }
    if (name == "spmv") {
        simt::csr_matrix m;
        std::string label;
        if (o.matrix) {
            m = simt::read_matrix_market(*o.matrix);
            label = *o.matrix;
        } else {
            const auto rows = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(scaled(32768, o.scale), 1u << 24));
            m = simt::make_power_law_matrix({.rows = rows,
                                             .cols = rows,
                                             .max_row_length = std::min(rows, 1024u),
                                             .seed = o.seed});
            label = "power-law";
        }
        return run_kernel(
            [&] { return simt::spmv_kernel(m, {.seed = o.seed}); },
            fmt::format("{}: {} x {}, {} non-zeros", label, m.rows, m.cols, m.nonzeros()), o);
    }
    if (name == "kmeans") {
        const auto points =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(16384, o.scale), 1u << 24));
        return run_kernel([&] { return simt::kmeans_kernel({.points = points, .seed = o.seed}); },
                          fmt::format("{} points x 34 features, 5 clusters, point-major", points),
                          o);
    }
    if (name == "stencil") {
        const auto side = static_cast<std::uint32_t>(
            std::clamp<std::uint64_t>(scaled(512, std::sqrt(o.scale)), 16, 16384));
        return run_kernel(
            [&] { return simt::stencil_kernel({.rows = side, .cols = side, .seed = o.seed}); },
            fmt::format("{} x {} grid, 2 iterations", side, side), o);
    }
    if (name == "matmul") {
        const auto side = static_cast<std::uint32_t>(
            std::clamp<std::uint64_t>(scaled(256, std::cbrt(o.scale)) / 16 * 16, 16, 4096));
        return run_kernel(
            [&] {
                return simt::matmul_kernel(
                    {.height_a = side, .width_a = side, .width_b = side, .seed = o.seed});
            },
            fmt::format("{0} x {0} x {0}, 16 x 16 tiles", side), o);
    }
    if (name == "saxpy") {
        const auto n = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(scaled(1u << 20, o.scale), 1u << 28));
        return run_kernel([&] { return simt::saxpy_kernel({.elements = n, .seed = o.seed}); },
                          fmt::format("{} elements", n), o);
    }
    const auto words =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(1u << 18, o.scale), 1u << 28));
    return run_kernel([&] { return simt::histogram_kernel({.words = words, .seed = o.seed}); },
                      fmt::format("{} bytes, 256 bins, global atomics", 4ull * words), o);
}

// ------------------------------------------------------------------ output

double pct(double x) {
    return 100.0 * x;
}

void print_table(const kernel_result& r, const options& o) {
    fmt::print("\n{} ({}), {} SMs: {} warp instructions, {} line requests\n", r.kernel, r.input,
               o.sms, r.warp_instructions, r.line_requests);
    fmt::print("{:<14} {:>7} {:>7} {:>7} {:>6} {:>6} {:>7} {:>8} {:>8} {:>7} {:>10} {:>6}\n",
               "config", "hit%", "temp%", "spat%", "mixed%", "part%", "bypass%", "0-reuse%",
               "util<=25", "util", "MB fetched", "rel");
    const double base = static_cast<double>(r.configs[0].bytes_fetched);
    for (std::size_t i = 0; i < config_count; ++i) {
        const auto& c = r.configs[i];
        const double n = static_cast<double>(std::max<std::uint64_t>(c.accesses, 1));
        fmt::print("{:<14} {:>7.2f} {:>7.2f} {:>7.2f} {:>6.2f} {:>6.2f} {:>7.2f} {:>8.2f} {:>8.2f} "
                   "{:>7.2f} {:>10.2f} {:>6.3f}\n",
                   config_names[i], pct(c.hit_rate()), pct(c.temporal_hits / n),
                   pct(c.spatial_hits / n), pct(c.mixed_hits / n), pct(c.partial_misses / n),
                   pct(c.bypassed_misses / n), pct(c.zero_reuse_fraction()),
                   pct(c.utilisation_fraction(0)), pct(c.mean_utilisation()),
                   static_cast<double>(c.bytes_fetched) / 1e6,
                   base == 0 ? 0.0 : static_cast<double>(c.bytes_fetched) / base);
    }
    if (o.reuse) {
        fmt::print("reuse distances of SM 0's line requests (distinct lines in the set between "
                   "references; '>64' = beyond 64 or first): p25/median/p75\n");
        fmt::print("{:>8} {:>10} {:>14} {:>14} {:>14} {:>14} {:>14}\n", "pc", "refs", "all", "d=1",
                   "d=2-3", "d=4-15", "d>=16");
        const auto dist = [](std::uint32_t d) {
            return d > 64 ? std::string(">64") : std::to_string(d);
        };
        const auto trio = [&](const gpu::reuse_distance_profile::summary& s) {
            return fmt::format("{}/{}/{}", dist(s.p25), dist(s.median), dist(s.p75));
        };
        for (const auto& [pc, all, bins] : r.reuse) {
            fmt::print("{:>#8x} {:>10} {:>14}", pc, all.references, trio(all));
            for (const auto& b : bins) fmt::print(" {:>14}", b ? trio(*b) : std::string("-"));
            fmt::print("\n");
        }
    }
}

void write_csv(const std::string& file, const std::vector<kernel_result>& results) {
    std::ofstream out(file);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", file));
    out << "kernel,config,accesses,hits,temporal_hits,spatial_hits,mixed_hits,full_misses,"
           "partial_misses,bypassed_misses,blocks_inserted,departures,zero_reuse_departures,"
           "util_0_25,util_25_50,util_50_75,util_75_100,bytes_fetched,bytes_relative\n";
    for (const auto& r : results) {
        const double base = static_cast<double>(r.configs[0].bytes_fetched);
        for (std::size_t i = 0; i < config_count; ++i) {
            const auto& c = r.configs[i];
            out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6f}\n",
                               r.kernel, config_names[i], c.accesses, c.hits(), c.temporal_hits,
                               c.spatial_hits, c.mixed_hits, c.full_misses, c.partial_misses,
                               c.bypassed_misses, c.blocks_inserted, c.departures,
                               c.zero_reuse_departures, c.utilisation[0], c.utilisation[1],
                               c.utilisation[2], c.utilisation[3], c.bytes_fetched,
                               base == 0 ? 0.0 : static_cast<double>(c.bytes_fetched) / base);
        }
    }
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", file));
}

void write_plot(const std::string& file, const std::string& terminal,
                const std::vector<kernel_result>& results, std::uint32_t sms) {
    const std::string dat = file + ".dat", gp = file + ".gp";
    {
        std::ofstream out(dat);
        out << "kernel";
        for (const auto n : config_names) out << ' ' << n;
        out << "\n";
        for (const auto& r : results) {
            const double base =
                static_cast<double>(std::max<std::uint64_t>(r.configs[0].bytes_fetched, 1));
            out << r.kernel;
            for (const auto& c : r.configs)
                out << fmt::format(" {:.4f}", static_cast<double>(c.bytes_fetched) / base);
            out << "\n";
        }
        if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", dat));
    }
    {
        std::ofstream out(gp);
        out << "# Bytes fetched from L2 relative to the 16 KB baseline (gpu_l1_explorer)\n"
            << "set terminal " << terminal << " size 1100,520\n"
            << "set output " << gnuplot_quoted(file) << "\n"
            << "set title "
            << gnuplot_quoted(
                   fmt::format("GPU L1 traffic relative to the 16 KB baseline, {} SMs", sms))
            << " noenhanced\n"
            << "set style data histograms\nset style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
               "set ylabel 'bytes fetched / baseline'\nset yrange [0:*]\nset grid ytics\n"
               "set key outside right noenhanced\nset xtics scale 0 noenhanced\n"
            << "plot " << gnuplot_quoted(dat) << " using 2:xtic(1) title columnheader";
        for (std::size_t i = 3; i <= config_count + 1; ++i)
            out << ", '' using " << i << " title columnheader";
        out << "\n";
        if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", gp));
    }
    if (memsub_examples::render_with_gnuplot(gp, file)) fmt::print("plot: {}\n", file);
}

options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) throw option_error(fmt::format("{} needs a value", arg));
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            usage(0);
        } else if (arg == "--kernels") {
            o.kernels = memsub_examples::split_list(value());
            if (o.kernels.empty()) throw option_error("--kernels needs at least one kernel");
            for (const auto& k : o.kernels)
                if (std::find(all_kernels.begin(), all_kernels.end(), k) == all_kernels.end())
                    throw option_error(fmt::format("--kernels: unknown kernel '{}' (bfs, spmv, "
                                                   "kmeans, stencil, matmul, saxpy, histogram)",
                                                   k));
        } else if (arg == "--sms") {
            o.sms = memsub_examples::parse_unsigned_as<std::uint32_t>("--sms", value(), 1, 1024);
        } else if (arg == "--seed") {
            o.seed = memsub_examples::parse_unsigned("--seed", value());
        } else if (arg == "--scale") {
            o.scale = memsub_examples::parse_positive_real("--scale", value(), 1000.0);
        } else if (arg == "--graph") {
            o.graph = std::string(value());
        } else if (arg == "--matrix") {
            o.matrix = std::string(value());
        } else if (arg == "--csv") {
            o.csv = std::string(value());
        } else if (arg == "--plot") {
            o.plot = std::string(value());
            if (!memsub_examples::gnuplot_terminal_for(*o.plot))
                throw option_error(fmt::format(
                    "--plot {}: unknown plot format (use a name ending in .png, .svg or .pdf)",
                    *o.plot));
        } else if (arg == "--quiet") {
            o.quiet = true;
        } else if (arg == "--reuse") {
            o.reuse = true;
        } else {
            throw option_error(fmt::format("unknown option '{}' (--help lists them)", arg));
        }
    }
    return o;
}

} // namespace

int main(int argc, char** argv) {
    const options o =
        memsub_examples::parse_or_exit("gpu_l1_explorer", [&] { return parse(argc, argv); });
    memsub_examples::install_stop_handlers();
    std::vector<kernel_result> results;
    int stopped_by = 0;
    try {
        for (const auto& k : o.kernels) {
            results.push_back(run_named(k, o));
            print_table(results.back(), o);
            if ((stopped_by = memsub_examples::stop_requested()) != 0) {
                // The last kernel's figures cover the instructions run before the signal.
                fmt::print("PARTIAL: interrupted by signal {} (the {} figures are partial; "
                           "kernels not run: {})\n",
                           stopped_by, results.back().kernel, o.kernels.size() - results.size());
                fmt::print(stderr, "gpu_l1_explorer: interrupted by signal {}\n", stopped_by);
                break;
            }
        }
    } catch (const memsub::input_error& e) {
        fmt::print(stderr, "gpu_l1_explorer: input error: {}\n", e.what());
        return status::input_error;
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "gpu_l1_explorer: {}\n", e.what());
        return status::usage_error;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "gpu_l1_explorer: out of memory\n");
        return status::out_of_memory;
    }
    try { // partial results are written too
        if (o.csv) write_csv(*o.csv, results);
        if (o.plot)
            write_plot(*o.plot, *memsub_examples::gnuplot_terminal_for(*o.plot), results, o.sms);
    } catch (const std::exception& e) {
        fmt::print(stderr, "gpu_l1_explorer: output error: {}\n", e.what());
        return status::input_error;
    }
    return stopped_by != 0 ? memsub_examples::stopped_exit_status(stopped_by) : status::ok;
}
