// memsub::explorer — the GPU L1 study as a function template:
// run_gpu_l1_explorer<L1s...>(argc, argv) is the gpu_l1_explorer program's whole command line
// (docs/tools/gpu_l1_explorer.md), with the user's own GPU L1 types run beside the library's ten
// configurations on the same streams: each an L1 of the cache engine (cache::basic_cache) holding
// the user's bypass predictor, line-size predictor (the Sizer of a variable-block L1), or both,
// e.g. gpu::baseline_l1_with<my_bypass> or gpu::variable_line_l1<my_sizer, my_bypass>. Each is
// named after its predictors' name() (l1_name below) and is one more row of the table, the CSV
// and the plot, and one more name for --configs. The program itself passes none.
//
// Part of the explorer module (CMake target memsub::explorer; needs {fmt}).
//
// The study:
//
// gpu_l1_explorer — ID-Cache's comparison points ([Dissertation] ch. 3) on SIMT
// kernel workloads: each kernel's warps run on N SMs under a GTO scheduler
// (memsub/workload/simt), every warp instruction goes through the coalescer into each SM's
// private L1, and every L1 configuration issues the same warp instructions:
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
// Units: an "access" is one L1 lookup: one coalesced line request with the mask of its touched
// 32 B sectors (gpu::coalescer::for_each_request; GPGPU-Sim's sectored L1 likewise looks a line
// request up once), loads and stores alike; hit% and the hit split are per access, so two pieces
// of one line in one warp instruction are one access, never a hit on each other; bypass% counts
// misses that inserted nothing (store misses of the write-evict L1 included); 0-reuse% and the
// utilisation are over blocks leaving the L1 (the L1s are flushed at the end so resident blocks
// count too); MB fetched is the L1→L2 read traffic (profile::l1_statistics: fills in whole blocks,
// bypassed reads in 32 B flits).
//
// Time (--timing):
//  * memory (the default): every configuration runs its own stream (a fresh kernel, a
//    host-latency-mode scheduler, that configuration's L1s and its own Table 3.1 memory side,
//    gpu::l2_dram_timing: six L2 banks with ports and MSHRs over flat DRAM partitions), through
//    simt::run_timed. An L1 hit's data is back after latency_params::l1_hit_cycles; an L1 miss
//    or bypass reads its bytes_fetched from the L2 / DRAM; stores are written down. A warp waits
//    for all of its outstanding loads, so cycles, warp instructions per cycle and the speedup
//    over the baseline (baseline cycles / the configuration's) come from the memory system.
//    A kernel's per-thread references do not depend on the issue order, so every configuration
//    issues the same warp instructions (the interleaving, and so the hit rates, differ). The
//    baseline runs first (whatever --configs says: it is every ratio's reference): its count
//    makes the other passes' progress exact, and each SM's reuse distances over its stream
//    (profile::reuse_distance_profile over its L1's 32 sets) train that SM's offline table
//    (§3.2.2; bypass/offline_trainer.hpp: median above 8 bypasses a PC, above 6 in a
//    divergence bin bypasses the PC's higher bins), frozen while the offline configurations
//    run.
//  * constant: no memory side. One stream feeds every configuration, and every dependent
//    load waits the scheduler's constant 120 cycles, so cycles are the same for every
//    configuration (no speedup); the offline tables come from a profiling pass over the same
//    kernel run first.
// The kernels issue memory instructions only: "warp instr/cycle" counts those, not an IPC.
//
// Inputs: BFS runs on a generated graph (--graph-gen: R-MAT by default, Barabási–Albert,
// Erdős–Rényi or a 2-D grid) or on --graph FILE (an edge list, or a Matrix Market file read as
// the adjacency matrix), SpMV on a generated matrix (--matrix-gen: power-law by default, banded,
// uniform-random or a 2-D Laplacian) or on --matrix FILE; "-" reads standard input. Generated
// inputs follow --scale unless their size options are given; the table header names the input.
// Every given file is checked before any work (a missing one is an error), and one whose kernel is
// not run is named as unused. --traceg replays Accel-Sim SASS traces (kernel-N.traceg) through the
// same scheduler, coalescer and L1s (workload/simt/accel_sim_trace_kernel.hpp). Results: a table
// per workload on stdout; --csv writes one row per workload and configuration that ran, with the
// status columns partial, interrupted_by_signal and error (a workload whose input could not be
// read has one row with its error). Progress on stderr: the profiling pass counts warp
// instructions (its total is known only for a trace, by bytes read), the measured pass shows its
// percentage and time left, since the profiling pass counted its warp instructions (--timing
// memory: the baseline's pass counts, the other configurations' passes show the percentage and
// time left).
//
//   gpu_l1_explorer                                  every kernel, built-in inputs
//   gpu_l1_explorer --kernels bfs,spmv --sms 15 --plot traffic.svg
//   gpu_l1_explorer --kernels bfs --graph g.txt      BFS on an edge list (or a .mtx)
//   gpu_l1_explorer --kernels spmv --matrix m.mtx    SpMV on a Matrix Market file
//   gpu_l1_explorer --kernels bfs --graph-gen ba --vertices 65536 --edges-per-vertex 4
//   gpu_l1_explorer --kernels spmv --matrix-gen banded --half-bandwidth 16
//   gpu_l1_explorer --traceg traces/                 an application's kernel-N.traceg files
//   gpu_l1_explorer --kernels stencil --dram-latency 1120 --configs id_cache
//   gpu_l1_explorer --timing constant                the shared stream, 120-cycle loads
#pragma once

#include <memsub/bypass/never.hpp>
#include <memsub/bypass/offline_trainer.hpp>
#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/bypass/pc_only.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/gpu/timing.hpp>
#include <memsub/linesize/alsi.hpp>
#include <memsub/linesize/static_size.hpp>
#include <memsub/linesize/whole_line.hpp>
#include <memsub/profile/l1_statistics.hpp>
#include <memsub/profile/reuse_distance_profile.hpp>
#include <memsub/trace/accel_sim_reader.hpp>
#include <memsub/workload/simt/accel_sim_trace_kernel.hpp>
#include <memsub/workload/simt/all.hpp>
#include <memsub/workload/simt/timed_run.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/options.hpp>
#include <memsub/explorer/plot.hpp>
#include <memsub/explorer/progress.hpp>
#include <memsub/explorer/result_table.hpp>
#include <memsub/explorer/run_report.hpp>
#include <memsub/explorer/signals.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace memsub::explorer {

namespace gpu_l1_detail {

using memsub::explorer::gnuplot_quoted;

namespace simt = memsub::workload::simt;
namespace gpu = memsub::gpu;
namespace fs = std::filesystem;
using memsub::explorer::option_error;

inline constexpr std::string_view program = "gpu_l1_explorer";

namespace status = memsub::explorer::explorer_status;

inline constexpr std::array<std::string_view, 7> all_kernels{
    "bfs", "spmv", "kmeans", "stencil", "matmul", "saxpy", "histogram"};

/// The library's configurations, in the order they run and are reported; the user's follow.
inline constexpr std::size_t library_config_count = 10;
inline constexpr std::array<std::string_view, library_config_count> library_config_names{
    "baseline_16KB", "2x_32KB",     "static_32B", "static_64B", "pc_only",
    "pc_div",        "pc_only_off", "pc_div_off", "alsi",       "id_cache"};

/// Where a dependent load's wait comes from (see the header comment).
enum class timing_mode : std::uint8_t { memory, constant };

struct options {
    std::vector<std::string> kernels{all_kernels.begin(), all_kernels.end()};
    bool kernels_given = false;
    std::vector<std::string> traceg; // files or directories, one workload each
    std::uint32_t sms = 15;
    std::uint64_t seed = 1;
    double scale = 1.0;
    std::optional<std::string> graph, matrix, csv, plot;
    std::string plot_terminal;
    bool quiet = false;
    bool reuse = false;
    // The generated BFS graph and SpMV matrix (when no --graph / --matrix file is given): the
    // generator and the sizes given; a size not given follows --scale.
    std::string graph_gen = "rmat", matrix_gen = "power-law";
    std::optional<std::uint32_t> vertices, edge_factor, edges_per_vertex;
    std::optional<double> mean_degree;
    std::optional<std::pair<std::uint32_t, std::uint32_t>> grid_size;
    std::optional<std::uint32_t> rows, half_bandwidth, nonzeros_per_row;
    std::optional<std::pair<std::uint32_t, std::uint32_t>> laplacian_size;
    /// The generator options given, in order (--graph-gen and the graph's sizes; the matrix's).
    std::vector<std::string> graph_options, matrix_options;
    timing_mode timing = timing_mode::memory;
    simt::sm_order sm_order = simt::sm_order::rotating;
    simt::warp_order warp_order = simt::warp_order::gto;
    /// Every configuration's name: the library's, then the user's (run_gpu_l1_explorer's types).
    std::vector<std::string> config_names{library_config_names.begin(), library_config_names.end()};
    /// The configurations run (--configs), one flag per name; the baseline always runs.
    std::vector<bool> selected = std::vector<bool>(config_names.size(), true);
    /// --dram-latency: Table 3.1's minimum DRAM latency, core cycles (220).
    std::optional<std::uint32_t> dram_latency;
    /// --dram-bandwidth: the DRAM's total bandwidth, GB/s (Fermi's 177).
    std::optional<double> dram_bandwidth;

    [[nodiscard]] bool runs(std::string_view kernel) const {
        return std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
    }
};

[[noreturn]] inline void usage(int code, const std::vector<std::string>& config_names) {
    std::FILE* const to = code == 0 ? stdout : stderr;
    fmt::print(
        to,
        "usage: gpu_l1_explorer [options]\n"
        "Runs SIMT kernels on N SMs (GTO warp scheduling, Table 3.1's 48 warps and 8 CTAs per\n"
        "SM) and compares GPU L1 configurations on the same warp instructions: the\n"
        "16 KB baseline, 32 KB, static 32 B / 64 B lines, PC-only and PC+Div bypass (online\n"
        "and offline-trained), ALSI and ID-Cache.\n"
        "Units: an access is one L1 lookup, a coalesced line request with its touched 32 B\n"
        "sectors: hit% is per line request (the CSV's sector_runs counts the requests' runs\n"
        "of touched sectors, for comparison).\n"
        "  --kernels a,b,...   of bfs, spmv, kmeans, stencil, matmul, saxpy, histogram\n"
        "                      (default: all, or none when --traceg is given)\n"
        "  --sms N             SMs, each with a private L1 (1..1024; default 15, Table 3.1)\n"
        "  --seed S            input generator seed (default 1)\n"
        "  --scale X           input size multiplier (up to 1000, and 0.0003 or more when\n"
        "                      kmeans runs; default 1; 0.1 for a quick run); the sizes\n"
        "                      below, when given, override it for their input\n"
        "  --graph FILE        BFS on this graph instead of a generated one: an edge list ('u v'\n"
        "                      per line, 0-based), or a Matrix Market file (its '%%MatrixMarket'\n"
        "                      banner detected), read as the adjacency matrix: every stored\n"
        "                      entry is an edge, a symmetric file's in both directions; '-' is\n"
        "                      standard input. Not with --graph-gen or its sizes\n"
        "  --graph-gen G       BFS's generated graph (undirected, no self-loops), of\n"
        "                      rmat      R-MAT, Graph500's a, b, c (default)\n"
        "                      ba        Barabasi-Albert preferential attachment\n"
        "                      er        Erdos-Renyi G(n, p)\n"
        "                      grid      2-D grid, 4 neighbours\n"
        "                      (rmat, ba and er default to the same vertex count)\n"
        "  --vertices N        rmat, ba, er: vertices (16..16777216, rmat a power of two;\n"
        "                      default 16384 x --scale, rounded to a power of two)\n"
        "  --edge-factor N     rmat: edges drawn per vertex, before duplicates and self-loops\n"
        "                      are dropped, each stored both ways (1..64; default 8)\n"
        "  --edges-per-vertex M  ba: edges each new vertex adds (1..32, below --vertices;\n"
        "                      default 8: mean degree about 16)\n"
        "  --mean-degree D     er: expected degree (a real in (0, 64], at most --vertices - 1;\n"
        "                      default 16)\n"
        "  --grid-size RxC     grid: rows x columns (each 1 or more, 16777216 vertices at\n"
        "                      most; default a square of the rmat vertex count, 128x128)\n"
        "  --matrix FILE       SpMV on this Matrix Market coordinate file instead of a\n"
        "                      generated matrix; '-' is standard input. Not with --matrix-gen\n"
        "                      or its sizes\n"
        "  --matrix-gen M      SpMV's generated matrix (square, values in [-1, 1) but the\n"
        "                      Laplacian's), of\n"
        "                      power-law  power-law row lengths (1..1024), skewed columns\n"
        "                                 (default)\n"
        "                      banded     a band around the diagonal\n"
        "                      uniform    the same number of uniformly random columns per row\n"
        "                      laplacian  the 5-point 2-D Laplacian of a grid (4, -1)\n"
        "  --rows N            power-law, banded, uniform: rows = columns (1..16777216;\n"
        "                      default 32768 x --scale)\n"
        "  --half-bandwidth H  banded: non-zeros at columns row - H .. row + H (0..64, below\n"
        "                      --rows; default 8: 17 per row)\n"
        "  --nonzeros-per-row K  uniform: non-zeros per row (1..64, at most --rows; default 16)\n"
        "  --laplacian-size XxY  laplacian: grid points, a row per point (each 1 or more,\n"
        "                      16777216 points at most; default the square nearest the\n"
        "                      --rows default, 181x181)\n"
        "  --traceg PATH       replay an Accel-Sim SASS trace: a kernel-N.traceg file, or a\n"
        "                      directory whose kernel-N.traceg files run in the order of N as\n"
        "                      successive launches, the L1s kept across them (repeatable:\n"
        "                      one workload each). Thread blocks go to SMs as the built-in\n"
        "                      kernels' do, in file order; every load stalls its warp (a\n"
        "                      trace has no dependences); a file is read more than once\n"
        "                      (--timing memory: once per configuration; constant:\n"
        "                      profiling, then measuring), so it cannot be standard input\n"
        "  --csv FILE          every counter, one row per workload and configuration that\n"
        "                      ran, with the columns partial, interrupted_by_signal and\n"
        "                      error (a workload with no figures, e.g. an unreadable input,\n"
        "                      has one row with its error); config_partial = 1 marks a\n"
        "                      configuration stopped part-way, which has no ratio to the\n"
        "                      baseline\n"
        "  --plot FILE         bytes fetched relative to the baseline, per workload and\n"
        "                      configuration (.svg, .png or .pdf; needs gnuplot; the data\n"
        "                      and script are written beside it)\n"
        "  --reuse             per-PC reuse distances (p25 / median / p75, SM 0's L1 sets)\n"
        "  --timing T          where a load's latency comes from:\n"
        "                      memory    each configuration runs its own stream against its\n"
        "                                own Table 3.1 L2 (6 banks) and DRAM: L1 hit 20 cycles,\n"
        "                                L2 hit 120, DRAM 220, queueing at the L2 banks and\n"
        "                                the DRAM (default); the table adds kcycles, warp\n"
        "                                instructions per cycle and the speedup over the\n"
        "                                baseline\n"
        "                      constant  one stream feeds every configuration and every\n"
        "                                dependent load waits 120 cycles (no memory side:\n"
        "                                the same cycles for every configuration)\n"
        "  --configs a,b,...   the configurations to run, of baseline_16KB, 2x_32KB,\n"
        "                      static_32B, static_64B, pc_only, pc_div, pc_only_off,\n"
        "                      pc_div_off, alsi, id_cache (default: all); the baseline always\n"
        "                      runs (every ratio's reference)\n");
    // The user's own configurations (run_gpu_l1_explorer's types), when there are any.
    std::string yours;
    for (std::size_t i = library_config_count; i < config_names.size(); ++i)
        yours += (yours.empty() ? "" : ", ") + config_names[i];
    if (!yours.empty()) fmt::print(to, "                      and the program's own: {}\n", yours);
    fmt::print(
        to,
        "  --sm-order O        the SM each cycle's issue visit starts from: rotating (default),\n"
        "                      seeded or fixed (SM 0 first, the order before rotating)\n"
        "  --warp-order O      each SM's warp order: gto (greedy then oldest, default), lrr\n"
        "                      (loose round robin) or gtrr (greedy then round robin)\n"
        "  --dram-latency N    --timing memory: the minimum DRAM latency in core cycles,\n"
        "                      121..100000 (default 220, Table 3.1; the L2's 120 included)\n"
        "  --dram-bandwidth B  --timing memory: the DRAM bandwidth in GB/s at a 700 MHz core,\n"
        "                      over the 6 partitions (default 177, Fermi)\n"
        "  --quiet             no progress on stderr (the first pass, the baseline's or with\n"
        "                      --timing constant the profiling pass, counts warp\n"
        "                      instructions, with a percentage for a trace, by bytes read;\n"
        "                      the later passes show their percentage and time left; no\n"
        "                      estimate covers the workloads after it)\n"
        "  --help              this text\n"
        "Every output is checked before the run, and every input file too: a given file\n"
        "that cannot be read is an error; one whose kernel is not run draws a warning.\n"
        "exit status: 0 ok; 1 an input file could not be read (the other workloads still run\n"
        "and are written; a file missing at the start stops the run before any work) or an\n"
        "output could not be written; 2 bad usage or an output that cannot be created\n"
        "(checked first); 3 an input held no warp instruction (a warning names it); 4 out\n"
        "of memory. An error that ends a workload (2, 4, or 1 for any other) ends the run:\n"
        "the workloads before it are still written. On SIGINT / SIGTERM the running\n"
        "workload stops, its partial figures are printed and written (partial = 1; a\n"
        "configuration stopped part-way has no rel or speedup), and the program exits with\n"
        "128 + the signal number\n");
    std::exit(code);
}

// ------------------------------------------------------------------ Accel-Sim traces

/// The kernel-N.traceg files of a --traceg PATH: the file itself, or a directory's
/// kernel-N.traceg files in the order of N (Accel-Sim numbers them by kernel id, the launch
/// order). Throws memsub::input_error when there is none.
inline std::vector<fs::path> traceg_files(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return {fs::path(path)};
    std::vector<std::pair<std::uint64_t, fs::path>> found;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
        const std::string name = entry.path().filename().string();
        constexpr std::string_view prefix = "kernel-", suffix = ".traceg";
        if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) ||
            !name.ends_with(suffix))
            continue;
        const std::string digits =
            name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        if (digits.size() > 18 ||
            !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        found.emplace_back(std::stoull(digits), entry.path());
    }
    if (ec)
        throw memsub::input_error(path, memsub::input_error::position_kind::byte_offset, 0,
                                  "cannot list the directory: " + ec.message());
    if (found.empty())
        throw memsub::input_error(path, memsub::input_error::position_kind::byte_offset, 0,
                                  "the directory holds no kernel-N.traceg file");
    std::sort(found.begin(), found.end());
    std::vector<fs::path> files;
    for (auto& f : found) files.push_back(std::move(f.second));
    return files;
}

using accel_sim_kernel = simt::accel_sim_trace_kernel;

// ------------------------------------------------------------------ configurations

using l1_32kb = memsub::cache::set_associative_cache<memsub::replacement::lru,
                                                     memsub::cache::write_policy::write_evict,
                                                     memsub::fixed_geometry<64, 4, 128>>;
static_assert(memsub::fixed_geometry<64, 4, 128>::capacity_bytes() == 32 * 1024);

/// One configuration: a private L1 per SM and its statistics observer.
template <class Cache>
struct config_run {
    std::vector<Cache> caches;
    std::vector<profile::l1_statistics> stats;

    config_run(std::uint32_t sms, std::uint32_t max_blocks)
        : caches(sms)
        , stats(sms, profile::l1_statistics(
                         profile::l1_statistics::params{.max_resident_blocks = max_blocks})) {}
    /// One L1 per element of `bypass`, each with its own bypass predictor params.
    template <class BypassParams>
    config_run(const std::vector<BypassParams>& bypass, std::uint32_t max_blocks)
        : stats(bypass.size(), profile::l1_statistics(profile::l1_statistics::params{
                                   .max_resident_blocks = max_blocks})) {
        caches.reserve(bypass.size());
        for (const auto& b : bypass)
            caches.emplace_back(gpu::l1_geometry{}, typename Cache::policy_params{}, b);
    }

    /// SM `sm`'s L1 looks `a` up; its result (for the memory side) is returned.
    auto access(std::uint32_t sm, const memsub::access& a) {
        auto r = caches[sm].access(a);
        stats[sm].record(a, r);
        return r;
    }
    /// Empties every L1 so that blocks still resident count in the departure statistics.
    void finish() {
        for (std::size_t s = 0; s < caches.size(); ++s) {
            const auto sink = [&](const memsub::evicted_block& b) { stats[s].record_departure(b); };
            caches[s].flush(sink);
        }
    }
    [[nodiscard]] profile::l1_statistics::counters totals() const {
        profile::l1_statistics::counters t{};
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

/// A configuration's name from its L1 type's predictors: the bypass predictor's name(), the
/// line-size predictor's (a variable-block L1's Sizer), or both as "sizer+bypass" when the L1
/// has both; the names come from a default-built L1, since name() is an instance's.
template <class Cache>
std::string l1_name() {
    constexpr bool sized = !std::same_as<typename Cache::sizer_type, memsub::linesize::whole_line>;
    constexpr bool bypassed = !std::same_as<typename Cache::bypass_type, memsub::bypass::never>;
    const Cache l1;
    const std::string bypass(l1.bypass_predictor().name());
    const std::string sizer(l1.sizer().name());
    if (sized && bypassed) return sizer + "+" + bypass;
    return sized ? sizer : bypass;
}

/// The L1 types a run_gpu_l1_explorer runs: the library's ten configurations, then `Extras`
/// (each an L1 of the cache engine, run on the same streams as the library's).
template <class... Extras>
struct l1_configs {
    static constexpr std::size_t count = library_config_count + sizeof...(Extras);

    /// Every configuration's name, in run order.
    static std::vector<std::string> names() {
        std::vector<std::string> out(library_config_names.begin(), library_config_names.end());
        (out.push_back(l1_name<Extras>()), ...);
        return out;
    }

    /// A user L1's most resident blocks: its geometry's tags.
    template <class Cache>
    static std::uint32_t max_blocks() {
        return static_cast<std::uint32_t>(Cache::geometry_type::total_entries());
    }

    /// Every configuration at once (--timing constant: one stream feeds them all).
    struct all {
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
        std::tuple<config_run<Extras>...> extras;

        all(std::uint32_t sms, const std::vector<offline_pc_only::params>& only_tables,
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
            , id_cache(sms, 32 * 16)
            , extras(config_run<Extras>(sms, max_blocks<Extras>())...) {}

        /// fn(configuration, its index) for every configuration.
        template <class Fn>
        void each(Fn&& fn) {
            std::size_t i = 0;
            const auto call = [&](auto& c) { fn(c, i++); };
            call(baseline);
            call(doubled);
            call(static_32);
            call(static_64);
            call(pc_only);
            call(pc_div);
            call(pc_only_off);
            call(pc_div_off);
            call(alsi);
            call(id_cache);
            std::apply([&](auto&... e) { (call(e), ...); }, extras);
        }
    };

    /// Calls fn(run) with a fresh run of configuration `index` alone (its L1s on `sms` SMs; the
    /// offline configurations' tables from `only_tables` / `div_tables`), as `all` builds it.
    template <class Fn>
    static void with(std::size_t index, std::uint32_t sms,
                     const std::vector<offline_pc_only::params>& only_tables,
                     const std::vector<offline_pc_div::params>& div_tables, Fn&& fn) {
        const auto run = [&](auto&& c) { fn(c); };
        switch (index) {
        case 0:
            return run(config_run<gpu::baseline_l1>(sms, 32 * 4));
        case 1:
            return run(config_run<l1_32kb>(sms, 64 * 4));
        case 2:
            return run(
                config_run<gpu::variable_line_l1<memsub::linesize::static_size<32>>>(sms, 32 * 16));
        case 3:
            return run(
                config_run<gpu::variable_line_l1<memsub::linesize::static_size<64>>>(sms, 32 * 16));
        case 4:
            return run(config_run<gpu::baseline_l1_with<memsub::bypass::pc_only>>(sms, 32 * 4));
        case 5:
            return run(
                config_run<gpu::baseline_l1_with<memsub::bypass::pc_divergence>>(sms, 32 * 4));
        case 6:
            return run(config_run<gpu::baseline_l1_with<offline_pc_only>>(only_tables, 32 * 4));
        case 7:
            return run(config_run<gpu::baseline_l1_with<offline_pc_div>>(div_tables, 32 * 4));
        case 8:
            return run(config_run<gpu::variable_line_l1<memsub::linesize::alsi>>(sms, 32 * 16));
        case 9:
            return run(config_run<gpu::id_cache>(sms, 32 * 16));
        default:
            break;
        }
        // The user's: the one at index - library_config_count.
        std::size_t i = library_config_count;
        [[maybe_unused]] const auto user = [&]<class Cache>(std::type_identity<Cache>) {
            if (i++ == index) run(config_run<Cache>(sms, max_blocks<Cache>()));
        };
        (user(std::type_identity<Extras>{}), ...);
    }
};

/// One configuration's own stream under --timing memory.
struct config_timing {
    /// Its stream ran (to the end, or until a stop signal or an input error).
    bool ran = false;
    /// A stop signal ended its stream part-way.
    bool stopped = false;
    std::uint64_t warp_instructions = 0;
    std::uint64_t cycles = 0;
    gpu::timing_stats memory{};
};

struct kernel_result {
    std::string kernel;
    std::string input;
    timing_mode timing = timing_mode::memory;
    /// --timing memory: each configuration's stream.
    std::vector<config_timing> timed;
    /// --timing constant: the shared stream's cycles.
    std::uint64_t constant_cycles = 0;
    std::uint64_t warp_instructions = 0;
    std::uint64_t line_requests = 0;
    /// Maximal runs of touched sectors over the line requests (as many as line requests when
    /// every request's sectors are contiguous): what counting per sector run would have
    /// counted as accesses. Reported only as a CSV column.
    std::uint64_t sector_runs = 0;
    std::vector<profile::l1_statistics::counters> configs;
    std::vector<std::tuple<std::uint64_t, profile::reuse_distance_profile::summary,
                           std::array<std::optional<profile::reuse_distance_profile::summary>, 4>>>
        reuse;
    /// The measured pass ran (not when the input could not be read, nor when a signal came
    /// during the profiling pass).
    bool measured = false;
    /// The input error that stopped the workload: its input could not be read (nothing
    /// measured), or a trace is malformed further on (the figures cover what came before).
    std::optional<std::string> error;
    /// The signal that stopped the workload (0: none).
    int interrupted_by = 0;

    /// Figures were measured: the configurations' counters mean something (all 0 for an empty
    /// input, as the other tools print it).
    [[nodiscard]] bool has_figures() const noexcept {
        return measured && (warp_instructions > 0 || (!error && interrupted_by == 0));
    }
    /// The input held no warp instruction (e.g. a trace of headers alone): read to its end,
    /// nothing issued.
    [[nodiscard]] bool empty() const noexcept {
        return measured && warp_instructions == 0 && !partial();
    }
    /// A stop signal or an input error cut the workload short.
    [[nodiscard]] bool partial() const noexcept { return interrupted_by != 0 || error; }
};

/// Moves SM 0's reuse-distance summaries into `out` (the --reuse table).
inline void collect_reuse(kernel_result& out, const profile::reuse_distance_profile& reuse) {
    for (const std::uint64_t pc : reuse.pcs()) {
        std::array<std::optional<profile::reuse_distance_profile::summary>, 4> bins{};
        for (std::uint32_t b = 0; b < 4; ++b) {
            const auto s = reuse.of_pc_bin(pc, b);
            if (s && s->references != 0) bins[b] = s;
        }
        out.reuse.emplace_back(pc, *reuse.of_pc(pc), bins);
    }
}

/// The scheduler of every pass: --sms, --sm-order, --warp-order and the latency mode.
inline simt::gto_params scheduler_params(const options& o, simt::latency_mode latency) {
    return {.sms = o.sms, .latency = latency, .warps = o.warp_order, .order = o.sm_order};
}

/// --timing memory's latencies: Table 3.1's, with --dram-latency.
inline gpu::timing_params memory_params(const options& o) {
    gpu::timing_params p;
    if (o.dram_latency) p.latency.dram_cycles = *o.dram_latency;
    return p;
}

/// The DRAM's bandwidth in GB/s (--dram-bandwidth, or Fermi's).
inline double dram_gb_per_s(const options& o) {
    return o.dram_bandwidth.value_or(gpu::fermi_dram_gb_per_s);
}

/// Each flat DRAM partition behind an L2 bank: dram − L2 hit cycles, and the bandwidth over
/// the six partitions at the 700 MHz core (gpu::table_3_1_flat_dram).
inline memsub::memory::flat_memory::params dram_params(const options& o) {
    auto d = gpu::table_3_1_flat_dram(memory_params(o).latency);
    d.bytes_per_cycle = dram_gb_per_s(o) / gpu::gtx480_core_ghz / gpu::l2_banks;
    return d;
}

/// Which workload of how many is running, for the progress lines, and what the run is doing
/// (the run's own text, for the message when memory runs out).
struct run_slot {
    std::size_t index = 0, count = 1;
    std::string* memory_use = nullptr;
    /// "then 3 more workloads" after the last pass of this one (empty for the last).
    [[nodiscard]] std::string then_rest() const {
        const std::size_t rest = count - index - 1;
        return rest == 0 ? std::string()
                         : fmt::format("then {} more workload{}", rest, rest == 1 ? "" : "s");
    }
};

/// A workload's name as the progress lines show it: a trace's file or directory name.
inline std::string short_name(const std::string& name) {
    const fs::path p = fs::path(name).lexically_normal();
    const std::string last = p.filename().string();
    if (!last.empty()) return last;
    const std::string parent = p.parent_path().filename().string();
    return parent.empty() ? name : parent;
}

/// How far a kernel's replay has read its input, when that is known (a trace, by bytes).
template <class Kernel>
std::optional<double> fraction_read(const Kernel& kernel) {
    if constexpr (requires { kernel.fraction_read(); })
        return kernel.fraction_read();
    else
        return std::nullopt;
}

/// The offline predictors' tables, from a profiling pass over the kernel (--timing constant)
/// or the baseline's pass (--timing memory).
struct offline_tables {
    std::vector<offline_pc_only::params> pc_only;
    std::vector<offline_pc_div::params> pc_div;
    /// Warp instructions the pass issued: the measured pass issues the same (the kernels and a
    /// trace's replay are deterministic), which gives its percentage.
    std::uint64_t warp_instructions = 0;
    /// The signal that stopped the pass (0: none).
    int interrupted_by = 0;
    /// The input error that ended the pass (a malformed trace; the tables cover what came
    /// before, and the measured pass stops at the same place).
    std::optional<std::string> error;
};

/// Trains one PC-only and one PC+Div table per SM from each SM's reuse distances.
inline void train_tables(offline_tables& t,
                         const std::vector<profile::reuse_distance_profile>& profiles) {
    for (const auto& p : profiles) {
        t.pc_only.push_back(
            {.base = {}, .table = memsub::bypass::train(p, memsub::bypass::pc_only::params{})});
        t.pc_div.push_back(
            {.base = {},
             .table = memsub::bypass::train(p, memsub::bypass::pc_divergence::params{})});
    }
}

/// A reuse-distance profile over one SM's L1 sets, sized to a kernel's memory instructions (PCs
/// beyond share an untrained row): the offline tables' and --reuse's alike, so --reuse shows
/// every PC the tables train.
inline profile::reuse_distance_profile sm_profile() {
    return profile::reuse_distance_profile({.sets = 32, .line_bytes = 128, .max_pcs = 256});
}

/// One sm_profile per SM.
inline std::vector<profile::reuse_distance_profile> sm_profiles(std::uint32_t sms) {
    return std::vector<profile::reuse_distance_profile>(sms, sm_profile());
}

/// The offline predictors' tables: a profiling pass over the kernel (a fresh instance from
/// `make`), each SM's line requests profiled over its own L1's sets, one table per SM.
template <class MakeKernel>
offline_tables train_offline(MakeKernel& make, const options& o, const std::string& name,
                             const run_slot& slot) {
    offline_tables t;
    auto kernel = make();
    simt::gto_scheduler<decltype(kernel)> scheduler(
        kernel, scheduler_params(o, simt::latency_mode::constant));
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    std::vector<profile::reuse_distance_profile> profiles = sm_profiles(o.sms);
    memsub::explorer::progress_meter progress(
        !o.quiet,
        fmt::format("{} ({} of {}), profiling", short_name(name), slot.index + 1, slot.count));
    progress.set_unit("warp instructions");
    const std::string rest = slot.then_rest();
    progress.set_then(rest.empty() ? std::string("then the measured pass")
                                   : "then the measured pass, " + rest);
    memsub::warp_instruction w;
    std::uint64_t& n = t.warp_instructions;
    try {
        while (scheduler.next(w)) {
            coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
            for (const auto& r : lines.lines())
                (void)profiles[w.sm].reference(w.pc, lines.count, r.line_base.value);
            if ((++n & 0xffff) == 0) {
                progress.update(n, fraction_read(kernel));
                if ((t.interrupted_by = memsub::explorer::stop_requested()) != 0) break;
            }
        }
    } catch (const memsub::input_error& e) {
        t.error = e.what();
    }
    progress.finish();
    train_tables(t, profiles);
    return t;
}

/// --timing constant: one stream through every selected configuration (after a profiling pass
/// for the offline predictors); the scheduler's constant latency gives the cycles.
template <class Configs, class MakeKernel, class Describe>
void run_constant(kernel_result& out, MakeKernel& make, const options& o, const run_slot& slot,
                  Describe& describe) {
    const offline_tables tables = train_offline(make, o, out.kernel, slot);
    if (tables.interrupted_by != 0) {
        out.interrupted_by = tables.interrupted_by; // nothing measured yet
        return;
    }
    auto kernel = make();
    simt::gto_scheduler<decltype(kernel)> scheduler(
        kernel, scheduler_params(o, simt::latency_mode::constant));
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    typename Configs::all configs(o.sms, tables.pc_only, tables.pc_div);
    profile::reuse_distance_profile reuse = sm_profile();
    memsub::warp_instruction w;
    memsub::explorer::progress_meter progress(
        !o.quiet, fmt::format("{} ({} of {})", short_name(out.kernel), slot.index + 1, slot.count));
    progress.set_unit("warp instructions");
    progress.set_then(slot.then_rest());
    const double total = static_cast<double>(std::max<std::uint64_t>(tables.warp_instructions, 1));
    out.measured = true;
    try {
        while (scheduler.next(w)) {
            coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
            ++out.warp_instructions;
            out.line_requests += lines.count;
            out.sector_runs += lines.sector_runs();
            if (w.sm == 0)
                for (const auto& r : lines.lines())
                    reuse.reference(w.pc, lines.count, r.line_base.value);
            const memsub::access proto = memsub::request_prototype(w);
            coalescer.for_each_request(lines, proto, [&](const memsub::access& a) {
                configs.each([&](auto& c, std::size_t i) {
                    if (o.selected[i]) (void)c.access(w.sm, a);
                });
            });
            if ((out.warp_instructions & 0xffff) == 0) {
                progress.update(out.warp_instructions,
                                std::min(1.0, static_cast<double>(out.warp_instructions) / total));
                if ((out.interrupted_by = memsub::explorer::stop_requested()) != 0) break;
            }
        }
    } catch (const memsub::input_error& e) {
        out.error = e.what();
    }
    progress.finish();
    out.constant_cycles = scheduler.cycle();
    if (!out.error && tables.error) out.error = tables.error; // the same record stops both
    out.input += describe(kernel);
    configs.each([&](auto& c, std::size_t i) {
        c.finish();
        out.configs[i] = c.totals();
    });
    collect_reuse(out, reuse);
}

/// Progress over a kernel's --timing memory passes: the baseline's pass counts its warp
/// instructions; the others issue as many each, which gives their share done.
struct timed_progress {
    memsub::explorer::progress_meter& meter;
    /// Warp instructions of the passes before this one, and of all passes after the
    /// baseline's (0 during the baseline's: not known yet).
    std::uint64_t done_before = 0;
    std::uint64_t total = 0;
};

/// Runs configuration `index` (`c`, fresh) on its own stream: a fresh kernel from `make`, a
/// host-latency scheduler, `c`'s L1s and its own memory side, through simt::run_timed.
/// `observe(w, lines)` sees each instruction's line requests first; `finished(kernel)` the
/// kernel at the end. A stop signal (checked every 64 Ki warp instructions) ends the pass; an
/// input error ends it at the bad record.
template <class Config, class MakeKernel, class Observe, class Finished>
void run_config_timed(Config& c, std::size_t index, MakeKernel& make, const options& o,
                      kernel_result& out, timed_progress progress, Observe&& observe,
                      Finished&& finished) {
    config_timing& t = out.timed[index];
    t.ran = true;
    auto kernel = make();
    simt::gto_scheduler<decltype(kernel)> scheduler(kernel,
                                                    scheduler_params(o, simt::latency_mode::host));
    const memsub::memory::flat_memory::params dram = dram_params(o);
    gpu::l2_dram_timing<> memory(memory_params(o),
                                 [&](std::uint32_t) { return memsub::memory::flat_memory(dram); });
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    const auto issue = [&](const memsub::warp_instruction& w) {
        coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        observe(w, lines);
        const memsub::access proto = memsub::request_prototype(w);
        simt::timed_requests requests(scheduler, memory, w);
        coalescer.for_each_request(
            lines, proto, [&](const memsub::access& a) { requests(a, c.access(w.sm, a)); });
        requests.finish();
        if ((++t.warp_instructions & 0xffff) != 0) return true;
        const std::uint64_t done = progress.done_before + t.warp_instructions;
        progress.meter.update(
            done, progress.total == 0
                      ? fraction_read(kernel)
                      : std::optional(std::min(1.0, static_cast<double>(done) /
                                                        static_cast<double>(progress.total))));
        if ((out.interrupted_by = memsub::explorer::stop_requested()) == 0) return true;
        t.stopped = true;
        return false;
    };
    try {
        t.cycles = simt::run_timed(scheduler, issue, memory).cycles;
    } catch (const memsub::input_error& e) {
        if (!out.error) out.error = e.what();
        t.cycles = scheduler.cycle();
    }
    t.memory = memory.stats();
    finished(kernel);
    c.finish();
    out.configs[index] = c.totals();
}

/// --timing memory: the baseline's stream first (its counts, SM 0's reuse distances and the
/// offline tables' profiles), then every other selected configuration's own stream.
template <class Configs, class MakeKernel, class Describe>
void run_memory_timed(kernel_result& out, MakeKernel& make, const options& o, const run_slot& slot,
                      Describe& describe) {
    std::size_t others = 0;
    for (std::size_t i = 1; i < o.selected.size(); ++i) others += o.selected[i] ? 1 : 0;
    const bool offline = o.selected[6] || o.selected[7];
    std::vector<profile::reuse_distance_profile> profiles =
        offline ? sm_profiles(o.sms) : std::vector<profile::reuse_distance_profile>{};
    profile::reuse_distance_profile reuse = sm_profile();
    const std::string label =
        fmt::format("{} ({} of {})", short_name(out.kernel), slot.index + 1, slot.count);
    const std::string rest = slot.then_rest();
    out.measured = true;
    {
        memsub::explorer::progress_meter meter(!o.quiet, label + ", baseline");
        meter.set_unit("warp instructions");
        const std::string next = others == 0 ? std::string()
                                             : fmt::format("then {} more configuration{}", others,
                                                           others == 1 ? "" : "s");
        meter.set_then(next.empty() ? rest : rest.empty() ? next : next + ", " + rest);
        const auto observe = [&](const memsub::warp_instruction& w,
                                 const gpu::coalesced_warp& lines) {
            ++out.warp_instructions;
            out.line_requests += lines.count;
            out.sector_runs += lines.sector_runs();
            for (const auto& r : lines.lines()) {
                if (w.sm == 0) reuse.reference(w.pc, lines.count, r.line_base.value);
                if (offline) (void)profiles[w.sm].reference(w.pc, lines.count, r.line_base.value);
            }
        };
        Configs::with(0, o.sms, {}, {}, [&](auto& c) {
            run_config_timed(c, 0, make, o, out, {meter}, observe,
                             [&](const auto& kernel) { out.input += describe(kernel); });
        });
        meter.finish();
    }
    collect_reuse(out, reuse);
    if (out.interrupted_by != 0 || others == 0) return;
    offline_tables tables;
    if (offline) train_tables(tables, profiles);
    memsub::explorer::progress_meter meter(!o.quiet, label);
    meter.set_unit("warp instructions");
    meter.set_then(rest);
    const std::uint64_t total = out.warp_instructions * others;
    std::uint64_t done = 0;
    for (std::size_t i = 1; i < o.selected.size() && out.interrupted_by == 0; ++i) {
        if (!o.selected[i]) continue;
        Configs::with(i, o.sms, tables.pc_only, tables.pc_div, [&](auto& c) {
            run_config_timed(
                c, i, make, o, out, {meter, done, std::max<std::uint64_t>(total, 1)},
                [](const memsub::warp_instruction&, const gpu::coalesced_warp&) {},
                [](const auto&) {});
        });
        done += out.timed[i].warp_instructions;
    }
    meter.finish();
}

/// Runs the kernel `make` builds on `sms` SMs through every selected configuration, timed as
/// --timing says; `describe(kernel)` adds to the input label afterwards. A malformed trace ends
/// the run at its bad record (the figures cover what came before); a stop signal ends it at the
/// next check (every 64 Ki warp instructions).
template <class Configs, class MakeKernel, class Describe>
kernel_result run_kernel(std::string name, MakeKernel&& make, std::string input, const options& o,
                         const run_slot& slot, Describe&& describe) {
    kernel_result out;
    out.kernel = std::move(name);
    out.input = std::move(input);
    out.timing = o.timing;
    out.timed.resize(o.config_names.size());
    out.configs.resize(o.config_names.size());
    *slot.memory_use =
        fmt::format("running {} on {} SMs (its input and {} L1 configurations per SM): "
                    "try a smaller --scale or fewer --sms",
                    out.kernel, o.sms, o.config_names.size());
    if (o.timing == timing_mode::constant)
        run_constant<Configs>(out, make, o, slot, describe);
    else
        run_memory_timed<Configs>(out, make, o, slot, describe);
    return out;
}

template <class Configs, class MakeKernel>
kernel_result run_kernel(std::string name, MakeKernel&& make, std::string input, const options& o,
                         const run_slot& slot) {
    return run_kernel<Configs>(std::move(name), std::forward<MakeKernel>(make), std::move(input), o,
                               slot, [](const auto&) { return std::string(); });
}

using memsub::explorer::scaled;

/// kmeans's points at --scale.
inline std::uint32_t kmeans_points(const options& o) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(16384, o.scale), 1u << 24));
}

// ------------------------------------------------------------------ generated inputs

inline constexpr std::array<std::string_view, 4> graph_generators{"rmat", "ba", "er", "grid"};
inline constexpr std::array<std::string_view, 4> matrix_generators{"power-law", "banded", "uniform",
                                                                   "laplacian"};
/// The most vertices of a generated graph and rows of a generated matrix (as --scale's caps).
inline constexpr std::uint32_t max_generated_size = 1u << 24;

/// A size option and the generators it sizes.
struct size_option {
    std::string_view flag;
    std::array<std::string_view, 3> generators;
};
inline constexpr std::array<size_option, 9> size_options{{
    {"--vertices", {"rmat", "ba", "er"}},
    {"--edge-factor", {"rmat"}},
    {"--edges-per-vertex", {"ba"}},
    {"--mean-degree", {"er"}},
    {"--grid-size", {"grid"}},
    {"--rows", {"power-law", "banded", "uniform"}},
    {"--half-bandwidth", {"banded"}},
    {"--nonzeros-per-row", {"uniform"}},
    {"--laplacian-size", {"laplacian"}},
}};

/// "a", "a or b", "a, b or c".
std::string either(const auto& names) {
    std::vector<std::string_view> named;
    for (const std::string_view n : names)
        if (!n.empty()) named.push_back(n);
    std::string out;
    for (std::size_t i = 0; i < named.size(); ++i)
        out += fmt::format("{}{}", i == 0 ? "" : i + 1 == named.size() ? " or " : ", ", named[i]);
    return out;
}

/// `text` if it is one of `names`, else option_error naming `flag` and the choices.
std::string one_of(std::string_view flag, std::string_view text, const auto& names) {
    if (std::find(names.begin(), names.end(), text) == names.end())
        throw option_error(
            fmt::format("{}: unknown generator '{}' ({})", flag, text, either(names)));
    return std::string(text);
}

/// Two sizes written `form` ("RxC", "XxY"): whole numbers, each 1 or more, whose product is at
/// most `max_product`; else option_error naming `flag` and the text given.
inline std::pair<std::uint32_t, std::uint32_t> parse_dimensions(std::string_view flag,
                                                                std::string_view form,
                                                                std::string_view text,
                                                                std::uint64_t max_product) {
    const auto digits = [](std::string_view t) {
        return !t.empty() && t.size() <= 18 &&
               std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const auto x = text.find('x');
    if (x == std::string_view::npos || !digits(text.substr(0, x)) || !digits(text.substr(x + 1)))
        throw option_error(fmt::format("{} expects {}, two whole numbers (e.g. 128x128), got '{}'",
                                       flag, form, text));
    const std::uint64_t a = std::stoull(std::string(text.substr(0, x)));
    const std::uint64_t b = std::stoull(std::string(text.substr(x + 1)));
    if (a == 0 || b == 0 || a > max_product || b > max_product || a * b > max_product)
        throw option_error(fmt::format("{} = {} is out of range: each size must be 1 or more and "
                                       "their product at most {}",
                                       flag, text, max_product));
    return {static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
}

/// A generated graph: its generator and every size, the options given or --scale's.
struct graph_recipe {
    std::string generator;
    std::uint32_t vertices = 0;
    std::uint32_t edge_factor = 8;      // rmat
    std::uint32_t edges_per_vertex = 8; // ba
    double mean_degree = 16.0;          // er
    std::uint32_t grid_rows = 0, grid_cols = 0;
};

/// A generated matrix likewise.
struct matrix_recipe {
    std::string generator;
    std::uint32_t rows = 0;
    std::uint32_t half_bandwidth = 8;    // banded
    std::uint32_t nonzeros_per_row = 16; // uniform
    std::uint32_t nx = 0, ny = 0;        // laplacian
};

/// The graph that --graph-gen and its sizes describe. Throws option_error when the sizes given
/// do not fit together (a size that depends on another is checked against it).
inline graph_recipe graph_recipe_of(const options& o) {
    graph_recipe r;
    r.generator = o.graph_gen;
    // --scale's size: R-MAT 2^14 at --scale 1, the other generators as many vertices.
    const auto rmat_scale =
        static_cast<std::uint32_t>(std::clamp(std::lround(14 + std::log2(o.scale)), 4L, 24L));
    r.vertices = o.vertices.value_or(1u << rmat_scale);
    if (r.generator == "rmat" && !std::has_single_bit(r.vertices))
        throw option_error(fmt::format("--vertices = {} is not a power of two, as --graph-gen "
                                       "rmat needs (try {} or {})",
                                       r.vertices, std::bit_floor(r.vertices),
                                       std::uint64_t{std::bit_floor(r.vertices)} * 2));
    r.edge_factor = o.edge_factor.value_or(r.edge_factor);
    // A default that would not fit the vertices given shrinks to fit; one given must fit.
    r.edges_per_vertex = o.edges_per_vertex.value_or(std::min(r.edges_per_vertex, r.vertices - 1));
    if (r.generator == "ba" && r.edges_per_vertex >= r.vertices)
        throw option_error(fmt::format("--edges-per-vertex = {} needs more vertices: it must be "
                                       "below --vertices ({})",
                                       r.edges_per_vertex, r.vertices));
    r.mean_degree = o.mean_degree.value_or(std::min(r.mean_degree, r.vertices - 1.0));
    if (r.generator == "er" && r.mean_degree > r.vertices - 1.0)
        throw option_error(fmt::format("--mean-degree = {:g} needs more vertices: it must be at "
                                       "most --vertices - 1 ({})",
                                       r.mean_degree, r.vertices - 1));
    const auto side = static_cast<std::uint32_t>(std::lround(std::sqrt(1u << rmat_scale)));
    std::tie(r.grid_rows, r.grid_cols) = o.grid_size.value_or(std::pair{side, side});
    return r;
}

/// The matrix that --matrix-gen and its sizes describe; throws option_error as graph_recipe_of.
inline matrix_recipe matrix_recipe_of(const options& o) {
    matrix_recipe r;
    r.generator = o.matrix_gen;
    r.rows = o.rows.value_or(
        static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(32768, o.scale), 1u << 24)));
    // A default that would not fit a tiny --scale's rows shrinks to fit; one given must fit.
    r.half_bandwidth = o.half_bandwidth.value_or(std::min(r.half_bandwidth, r.rows - 1));
    if (r.generator == "banded" && r.half_bandwidth >= r.rows)
        throw option_error(fmt::format("--half-bandwidth = {} needs more rows: it must be below "
                                       "--rows ({})",
                                       r.half_bandwidth, r.rows));
    r.nonzeros_per_row = o.nonzeros_per_row.value_or(std::min(r.nonzeros_per_row, r.rows));
    if (r.generator == "uniform" && r.nonzeros_per_row > r.rows)
        throw option_error(fmt::format("--nonzeros-per-row = {} needs more rows: it must be at "
                                       "most --rows ({})",
                                       r.nonzeros_per_row, r.rows));
    const auto side = static_cast<std::uint32_t>(std::max(1L, std::lround(std::sqrt(r.rows))));
    std::tie(r.nx, r.ny) = o.laplacian_size.value_or(std::pair{side, side});
    return r;
}

/// ", seed S" for a random generator run with a seed other than the default 1 (the default run's
/// labels name no seed).
inline std::string seed_note(std::uint64_t seed) {
    return seed == 1 ? std::string() : fmt::format(", seed {}", seed);
}

/// Generates the graph of `r`; `label` names it in the table header (the generator and the
/// parameters that shape it).
inline simt::csr_graph make_graph(const graph_recipe& r, std::uint64_t seed, std::string& label) {
    if (r.generator == "ba") {
        label = fmt::format("Barabasi-Albert, {} edges per new vertex{}", r.edges_per_vertex,
                            seed_note(seed));
        return simt::make_barabasi_albert_graph(
            {.vertices = r.vertices, .edges_per_vertex = r.edges_per_vertex, .seed = seed});
    }
    if (r.generator == "er") {
        label = fmt::format("Erdos-Renyi, mean degree {:g}{}", r.mean_degree, seed_note(seed));
        return simt::make_erdos_renyi_graph(
            {.vertices = r.vertices, .mean_degree = r.mean_degree, .seed = seed});
    }
    if (r.generator == "grid") {
        label = fmt::format("{} x {} grid, 4 neighbours", r.grid_rows, r.grid_cols);
        return simt::make_grid_graph({.rows = r.grid_rows, .cols = r.grid_cols});
    }
    label = fmt::format("R-MAT 2^{}{}{}", std::countr_zero(r.vertices),
                        r.edge_factor == 8 ? std::string()
                                           : fmt::format(", edge factor {}", r.edge_factor),
                        seed_note(seed));
    return simt::make_rmat_graph({.scale = static_cast<std::uint32_t>(std::countr_zero(r.vertices)),
                                  .edge_factor = r.edge_factor,
                                  .seed = seed});
}

/// Generates the matrix of `r`, as make_graph.
inline simt::csr_matrix make_matrix(const matrix_recipe& r, std::uint64_t seed,
                                    std::string& label) {
    if (r.generator == "banded") {
        label = fmt::format("banded, half-bandwidth {}{}", r.half_bandwidth, seed_note(seed));
        return simt::make_banded_matrix(
            {.rows = r.rows, .half_bandwidth = r.half_bandwidth, .seed = seed});
    }
    if (r.generator == "uniform") {
        label = fmt::format("uniform, {} non-zeros per row{}", r.nonzeros_per_row, seed_note(seed));
        return simt::make_uniform_matrix(
            {.rows = r.rows, .cols = r.rows, .nonzeros_per_row = r.nonzeros_per_row, .seed = seed});
    }
    if (r.generator == "laplacian") {
        label = fmt::format("2-D Laplacian of a {} x {} grid, 5-point", r.nx, r.ny);
        return simt::make_laplacian_matrix({.nx = r.nx, .ny = r.ny});
    }
    label = "power-law" + seed_note(seed);
    return simt::make_power_law_matrix(
        {.rows = r.rows, .cols = r.rows, .max_row_length = std::min(r.rows, 1024u), .seed = seed});
}

/// Checks the generator options together, once all are parsed: none with a --graph / --matrix
/// file, each size with a generator it sizes, and the sizes that depend on each other.
inline void check_generator_options(const options& o) {
    const auto check = [](const std::vector<std::string>& given, std::string_view input,
                          const std::optional<std::string>& file, std::string_view gen_flag,
                          const std::string& generator) {
        for (const std::string& flag : given) {
            if (file)
                throw option_error(fmt::format(
                    "{} and --{} FILE are mutually exclusive: {} {} a generated {}, --{} reads "
                    "the {} from a file",
                    flag, input, flag, flag == gen_flag ? "chooses" : "sizes", input, input,
                    input));
            if (flag == gen_flag) continue;
            const auto s = std::find_if(size_options.begin(), size_options.end(),
                                        [&](const size_option& x) { return x.flag == flag; });
            if (std::find(s->generators.begin(), s->generators.end(), generator) ==
                s->generators.end())
                throw option_error(fmt::format("{} does not apply to {} {}: it sizes {} {}", flag,
                                               gen_flag, generator, gen_flag,
                                               either(s->generators)));
        }
    };
    check(o.graph_options, "graph", o.graph, "--graph-gen", o.graph_gen);
    check(o.matrix_options, "matrix", o.matrix, "--matrix-gen", o.matrix_gen);
    if (!o.graph) (void)graph_recipe_of(o);
    if (!o.matrix) (void)matrix_recipe_of(o);
}

/// The inputs read from --graph and --matrix (read before any kernel runs), or why not.
struct file_inputs {
    std::optional<simt::csr_graph> graph;
    std::string graph_label;
    std::optional<simt::csr_matrix> matrix;
    std::string matrix_label;
    std::optional<std::string> graph_error, matrix_error;
};

/// Reads `file` ("-": standard input) with `read(stream, label)`.
template <class Read>
auto read_input(const std::string& file, Read&& read) {
    const std::string label = memsub::explorer::input_label(file);
    if (file == memsub::explorer::stdin_name) return read(std::cin, label);
    std::ifstream in(file);
    if (!in)
        throw memsub::input_error(label, memsub::input_error::position_kind::line_number, 0,
                                  "cannot open for reading");
    return read(in, label);
}

/// Reads the --graph and --matrix files of the kernels that run; an unreadable one is kept as
/// its error (its kernel's row shows it), not thrown.
inline file_inputs read_inputs(const options& o, std::string& memory_use) {
    file_inputs in;
    if (o.graph && o.runs("bfs")) {
        memory_use = fmt::format("reading --graph {}", *o.graph);
        try {
            simt::graph_file_format format = simt::graph_file_format::edge_list;
            in.graph = read_input(*o.graph, [&](std::istream& s, const std::string& label) {
                return simt::read_graph(s, label, &format);
            });
            in.graph_label = memsub::explorer::input_label(*o.graph) +
                             (format == simt::graph_file_format::matrix_market
                                  ? " (Matrix Market, read as the adjacency matrix)"
                                  : "");
        } catch (const memsub::input_error& e) {
            in.graph_error = e.what();
        }
    }
    if (o.matrix && o.runs("spmv")) {
        memory_use = fmt::format("reading --matrix {}", *o.matrix);
        try {
            in.matrix = read_input(*o.matrix, [](std::istream& s, const std::string& label) {
                return simt::read_matrix_market(s, label);
            });
            in.matrix_label = memsub::explorer::input_label(*o.matrix);
        } catch (const memsub::input_error& e) {
            in.matrix_error = e.what();
        }
    }
    return in;
}

/// A row for a workload whose input could not be read: nothing was run.
inline kernel_result unread(std::string kernel, std::string input, std::string error) {
    kernel_result r;
    r.kernel = std::move(kernel);
    r.input = std::move(input);
    r.error = std::move(error);
    return r;
}

template <class Configs>
kernel_result run_named(std::string_view name, const options& o, const file_inputs& files,
                        const run_slot& slot) {
    const std::string kernel(name);
    *slot.memory_use =
        fmt::format("building the input of {}: try a smaller --scale or input size", kernel);
    if (name == "bfs") {
        if (files.graph_error) return unread(kernel, *o.graph, *files.graph_error);
        simt::csr_graph generated;
        std::string label;
        if (!files.graph) generated = make_graph(graph_recipe_of(o), o.seed, label);
        const simt::csr_graph& g = files.graph ? *files.graph : generated;
        if (files.graph) label = files.graph_label;
        // Source: the vertex of largest degree (R-MAT leaves some vertices isolated).
        std::uint32_t source = 0;
        for (std::uint32_t v = 0; v < g.vertices; ++v)
            if (g.degree(v) > g.degree(source)) source = v;
        return run_kernel<Configs>(
            kernel, [&] { return simt::bfs_kernel(g, {.source = source}); },
            fmt::format("{}: {} vertices, {} edges", label, g.vertices, g.edges()), o, slot,
            [](const simt::bfs_kernel& k) { return fmt::format(", {} levels", k.levels()); });
    }
    if (name == "spmv") {
        if (files.matrix_error) return unread(kernel, *o.matrix, *files.matrix_error);
        simt::csr_matrix generated;
        std::string label;
        if (!files.matrix) generated = make_matrix(matrix_recipe_of(o), o.seed, label);
        const simt::csr_matrix& m = files.matrix ? *files.matrix : generated;
        if (files.matrix) label = files.matrix_label;
        return run_kernel<Configs>(
            kernel, [&] { return simt::spmv_kernel(m, {.seed = o.seed}); },
            fmt::format("{}: {} x {}, {} non-zeros", label, m.rows, m.cols, m.nonzeros()), o, slot);
    }
    if (name == "kmeans") {
        const std::uint32_t points = kmeans_points(o);
        return run_kernel<Configs>(
            kernel, [&] { return simt::kmeans_kernel({.points = points, .seed = o.seed}); },
            fmt::format("{} points x 34 features, 5 clusters, point-major", points), o, slot);
    }
    if (name == "stencil") {
        const auto side = static_cast<std::uint32_t>(
            std::clamp<std::uint64_t>(scaled(512, std::sqrt(o.scale)), 16, 16384));
        return run_kernel<Configs>(
            kernel,
            [&] { return simt::stencil_kernel({.rows = side, .cols = side, .seed = o.seed}); },
            fmt::format("{} x {} grid, 2 iterations", side, side), o, slot);
    }
    if (name == "matmul") {
        const auto side = static_cast<std::uint32_t>(
            std::clamp<std::uint64_t>(scaled(256, std::cbrt(o.scale)) / 16 * 16, 16, 4096));
        return run_kernel<Configs>(
            kernel,
            [&] {
                return simt::matmul_kernel(
                    {.height_a = side, .width_a = side, .width_b = side, .seed = o.seed});
            },
            fmt::format("{0} x {0} x {0}, 16 x 16 tiles", side), o, slot);
    }
    if (name == "saxpy") {
        const auto n = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(scaled(1u << 20, o.scale), 1u << 28));
        return run_kernel<Configs>(
            kernel, [&] { return simt::saxpy_kernel({.elements = n, .seed = o.seed}); },
            fmt::format("{} elements", n), o, slot);
    }
    const auto words =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(1u << 18, o.scale), 1u << 28));
    return run_kernel<Configs>(
        kernel, [&] { return simt::histogram_kernel({.words = words, .seed = o.seed}); },
        fmt::format("{} bytes, 256 bins, global atomics", 4ull * words), o, slot);
}

/// Replays the Accel-Sim trace at `path` (a file or a directory of kernel-N.traceg).
template <class Configs>
kernel_result run_traceg(const std::string& path, const options& o, const run_slot& slot) {
    std::vector<fs::path> files;
    try {
        files = traceg_files(path);
    } catch (const memsub::input_error& e) {
        return unread(path, "Accel-Sim trace", e.what());
    }
    const std::string input =
        files.size() == 1 ? std::string("Accel-Sim trace")
                          : fmt::format("Accel-Sim trace, {} kernel-N.traceg files", files.size());
    return run_kernel<Configs>(
        path, [&] { return accel_sim_kernel(path, files); }, input, o, slot,
        [](const accel_sim_kernel& k) { return k.describe(); });
}

// ------------------------------------------------------------------ output

inline double pct(double x) {
    return 100.0 * x;
}

/// The configuration's figures compare with the baseline's: it saw the same warp instructions
/// (--timing memory: its own stream issued as many as the baseline's and was not stopped
/// part-way; a stream cut short would compare a part of the workload with the whole).
inline bool comparable(const kernel_result& r, std::size_t config) {
    if (r.timing == timing_mode::constant || config == 0) return true;
    const config_timing& t = r.timed[config];
    return t.ran && !t.stopped && t.warp_instructions == r.timed[0].warp_instructions;
}

/// Bytes fetched relative to the baseline's, when the baseline fetched any and the
/// configuration is comparable with it.
inline std::optional<double> relative_bytes(const kernel_result& r, std::size_t config) {
    const auto base = r.configs[0].bytes_fetched;
    if (base == 0 || !comparable(r, config)) return std::nullopt;
    return static_cast<double>(r.configs[config].bytes_fetched) / static_cast<double>(base);
}

/// A configuration's cycles: its own stream's (--timing memory) or the shared stream's.
inline std::uint64_t cycles_of(const kernel_result& r, std::size_t config) {
    return r.timing == timing_mode::memory ? r.timed[config].cycles : r.constant_cycles;
}

/// Warp instructions per cycle (memory instructions: the kernels issue no other kind).
inline std::optional<double> instructions_per_cycle(const kernel_result& r, std::size_t config) {
    const std::uint64_t cycles = cycles_of(r, config);
    const std::uint64_t n =
        r.timing == timing_mode::memory ? r.timed[config].warp_instructions : r.warp_instructions;
    if (cycles == 0) return std::nullopt;
    return static_cast<double>(n) / static_cast<double>(cycles);
}

/// Baseline cycles / the configuration's (--timing memory only: constant time is the same for
/// every configuration).
inline std::optional<double> speedup(const kernel_result& r, std::size_t config) {
    if (r.timing != timing_mode::memory || r.timed[config].cycles == 0 || r.timed[0].cycles == 0 ||
        !comparable(r, config))
        return std::nullopt;
    return static_cast<double>(r.timed[0].cycles) / static_cast<double>(r.timed[config].cycles);
}

/// The configurations that have figures: the selected ones (--timing memory: whose stream ran).
inline bool shown(const kernel_result& r, const options& o, std::size_t config) {
    return o.selected[config] && (r.timing == timing_mode::constant || r.timed[config].ran);
}

/// The time model, for the table header (two lines): the mode and orders, then the latencies
/// and the DRAM (or the constant latency).
inline std::string timing_description(const options& o) {
    const std::string orders = fmt::format(
        "{} warp order, {} SM order", simt::order_name(o.warp_order), simt::order_name(o.sm_order));
    if (o.timing == timing_mode::constant)
        return fmt::format("time: --timing constant, one stream for every configuration ({})\n"
                           "latency: every dependent load waits {} cycles (no L2 or DRAM)",
                           orders, simt::gto_params{}.load_latency);
    return fmt::format("time: --timing memory, each configuration its own stream ({})\n"
                       "latency: {}; DRAM {:g} GB/s over {} flat partitions at a {:g} MHz core",
                       orders, gpu::describe(memory_params(o).latency), dram_gb_per_s(o),
                       gpu::l2_banks, gpu::gtx480_core_ghz * 1000);
}

/// L2 read hits (no fill owed) over reads, in %.
inline std::optional<double> l2_hit_pct(const gpu::timing_stats& m) {
    if (m.reads == 0) return std::nullopt;
    return 100.0 * static_cast<double>(m.l2_read_hits) / static_cast<double>(m.reads);
}

/// Bytes moved between the L2 and the DRAM, in MB: line fills (loads' and stores') and dirty
/// victims, 128 B each.
inline double dram_mb(const gpu::timing_stats& m) {
    return static_cast<double>((m.dram_reads + m.fill_reads + m.dram_writes) *
                               gpu::l2_dram_timing<>::line_bytes) /
           1e6;
}

inline void print_table(const kernel_result& r, const options& o) {
    if (!r.measured) {
        fmt::print("\n{} ({}): {}\n", r.kernel, r.input,
                   r.error ? std::string("not run: its input could not be read (see the error "
                                         "below)")
                           : fmt::format("PARTIAL: interrupted by signal {} during the profiling "
                                         "pass; nothing was measured",
                                         r.interrupted_by));
        return;
    }
    std::string state;
    if (r.interrupted_by != 0)
        state = fmt::format(" (PARTIAL: interrupted by signal {} after {} warp instructions)",
                            r.interrupted_by, r.warp_instructions);
    else if (r.error)
        state = fmt::format(" (PARTIAL: an input error after {} warp instructions, see below)",
                            r.warp_instructions);
    else if (r.empty())
        state = " (an empty input: nothing to compare, see the warning below)";
    fmt::print("\n{} ({}), {} SMs: {} warp instructions, {} line requests{}\n", r.kernel, r.input,
               o.sms, r.warp_instructions, r.line_requests, state);
    if (!r.has_figures()) return;
    fmt::print("{}\n", timing_description(o));
    // The config column fits the longest name (a user's "sizer+bypass" may pass the 14 of the
    // library's names).
    std::size_t width = 14;
    for (const auto& name : o.config_names) width = std::max(width, name.size());
    fmt::print("{:<{}} {:>7} {:>7} {:>7} {:>6} {:>6} {:>7} {:>8} {:>8} {:>7} {:>10} {:>6} {:>9} "
               "{:>15} {:>7}\n",
               "config", width, "hit%", "temp%", "spat%", "mixed%", "part%", "bypass%", "0-reuse%",
               "util<=25", "util", "MB fetched", "rel", "kcycles", "warp instr/cyc", "speedup");
    std::string not_run, cut;
    for (std::size_t i = 0; i < o.config_names.size(); ++i) {
        if (!shown(r, o, i)) {
            if (o.selected[i])
                not_run += fmt::format("{}{}", not_run.empty() ? "" : ", ", o.config_names[i]);
            continue;
        }
        if (!comparable(r, i))
            cut += fmt::format("{}{} ({} warp instructions)", cut.empty() ? "" : ", ",
                               o.config_names[i], r.timed[i].warp_instructions);
        const auto& c = r.configs[i];
        const double n = static_cast<double>(std::max<std::uint64_t>(c.accesses, 1));
        const auto rel = relative_bytes(r, i);
        const auto ipc = instructions_per_cycle(r, i);
        const auto up = speedup(r, i);
        fmt::print("{:<{}} {:>7.2f} {:>7.2f} {:>7.2f} {:>6.2f} {:>6.2f} {:>7.2f} {:>8.2f} {:>8.2f} "
                   "{:>7.2f} {:>10.2f} {:>6} {:>9.1f} {:>15} {:>7}\n",
                   o.config_names[i], width, pct(c.hit_rate()), pct(c.temporal_hits / n),
                   pct(c.spatial_hits / n), pct(c.mixed_hits / n), pct(c.partial_misses / n),
                   pct(c.bypassed_misses / n), pct(c.zero_reuse_fraction()),
                   pct(c.utilisation_fraction(0)), pct(c.mean_utilisation()),
                   static_cast<double>(c.bytes_fetched) / 1e6,
                   rel ? fmt::format("{:.3f}", *rel) : std::string("-"),
                   static_cast<double>(cycles_of(r, i)) / 1e3,
                   ipc ? fmt::format("{:.3f}", *ipc) : std::string("-"),
                   up ? fmt::format("{:.3f}", *up) : std::string("-"));
    }
    if (!cut.empty())
        fmt::print("partial (stopped part-way, so no rel or speedup against the baseline's {} warp "
                   "instructions): {}\n",
                   r.timed[0].warp_instructions, cut);
    if (!not_run.empty()) fmt::print("not run (the run was stopped first): {}\n", not_run);
    if (o.reuse) {
        fmt::print("reuse distances of SM 0's line requests (distinct lines in the set between "
                   "references; '>64' = beyond 64 or first): p25/median/p75\n");
        fmt::print("{:>8} {:>10} {:>14} {:>14} {:>14} {:>14} {:>14}\n", "pc", "refs", "all", "d=1",
                   "d=2-3", "d=4-15", "d>=16");
        const auto dist = [](std::uint32_t d) {
            return d > 64 ? std::string(">64") : std::to_string(d);
        };
        const auto trio = [&](const profile::reuse_distance_profile::summary& s) {
            return fmt::format("{}/{}/{}", dist(s.p25), dist(s.median), dist(s.p75));
        };
        for (const auto& [pc, all, bins] : r.reuse) {
            fmt::print("{:>#8x} {:>10} {:>14}", pc, all.references, trio(all));
            for (const auto& b : bins) fmt::print(" {:>14}", b ? trio(*b) : std::string("-"));
            fmt::print("\n");
        }
    }
}

/// The results as one table (memsub/explorer/result_table.hpp): a row per workload and
/// configuration, and one row without a configuration for a workload with no figures (its input
/// could not be read, or a signal came during its profiling pass). Every row has the status
/// columns: partial (a stop signal or an input error cut the workload short), interrupted_by_signal
/// and error.
inline memsub::explorer::result_table results_table(const std::vector<kernel_result>& results,
                                                    const options& o) {
    memsub::explorer::result_table table(std::string{program});
    for (const auto& r : results) {
        const auto common = [&](memsub::explorer::result_table::row& row) {
            row.text("input", r.input)
                .number("sms", o.sms)
                .number("warp_instructions", r.warp_instructions)
                .number("line_requests", r.line_requests)
                .boolean("partial", r.partial())
                .optional_number("interrupted_by_signal", r.interrupted_by != 0
                                                              ? std::optional(r.interrupted_by)
                                                              : std::nullopt)
                .optional_text("error", r.error);
        };
        if (!r.has_figures()) {
            auto& row = table.add_row();
            row.text("kernel", r.kernel).null("config");
            common(row);
            continue;
        }
        for (std::size_t i = 0; i < o.config_names.size(); ++i) {
            if (!shown(r, o, i)) continue; // not selected, or not run (a stop signal came first)
            const auto& c = r.configs[i];
            auto& row = table.add_row();
            row.text("kernel", r.kernel).text("config", o.config_names[i]);
            common(row);
            row.number("accesses", c.accesses)
                .number("hits", c.hits())
                .number("temporal_hits", c.temporal_hits)
                .number("spatial_hits", c.spatial_hits)
                .number("mixed_hits", c.mixed_hits)
                .number("full_misses", c.full_misses)
                .number("partial_misses", c.partial_misses)
                .number("bypassed_misses", c.bypassed_misses)
                .number("blocks_inserted", c.blocks_inserted)
                .number("departures", c.departures)
                .number("zero_reuse_departures", c.zero_reuse_departures)
                .number("util_0_25", c.utilisation[0])
                .number("util_25_50", c.utilisation[1])
                .number("util_50_75", c.utilisation[2])
                .number("util_75_100", c.utilisation[3])
                .number("bytes_fetched", c.bytes_fetched)
                .optional_number("bytes_relative", relative_bytes(r, i), "{:.6f}")
                // Last: the columns before it keep their places.
                .number("sector_runs", r.sector_runs);
            const bool timed = r.timing == timing_mode::memory;
            const config_timing& t = r.timed[i];
            const auto timed_number = [&](std::uint64_t v) {
                return timed ? std::optional(v) : std::nullopt;
            };
            const gpu::latency_params lat = memory_params(o).latency;
            row.text("timing", timed ? "memory" : "constant")
                .text("sm_order", simt::order_name(o.sm_order))
                .text("warp_order", simt::order_name(o.warp_order))
                .number("config_warp_instructions",
                        timed ? t.warp_instructions : r.warp_instructions)
                .number("cycles", cycles_of(r, i))
                .optional_number("warp_instructions_per_cycle", instructions_per_cycle(r, i),
                                 "{:.6f}")
                .optional_number("speedup", speedup(r, i), "{:.6f}")
                .optional_number("l2_reads", timed_number(t.memory.reads))
                .optional_number("l2_hit_pct", timed ? l2_hit_pct(t.memory) : std::nullopt,
                                 "{:.4f}")
                .optional_number("l2_merged_reads", timed_number(t.memory.merged_reads))
                .optional_number("dram_line_reads",
                                 timed_number(t.memory.dram_reads + t.memory.fill_reads))
                .optional_number("dram_line_writes", timed_number(t.memory.dram_writes))
                .optional_number("dram_mb", timed ? std::optional(dram_mb(t.memory)) : std::nullopt,
                                 "{:.6f}")
                .optional_number("constant_load_cycles",
                                 timed ? std::nullopt
                                       : std::optional(simt::gto_params{}.load_latency))
                .optional_number("l1_hit_cycles", timed_number(lat.l1_hit_cycles))
                .optional_number("to_l2_cycles", timed_number(lat.to_l2_cycles))
                .optional_number("l2_hit_cycles", timed_number(lat.l2_hit_cycles))
                .optional_number("dram_cycles", timed_number(lat.dram_cycles))
                .optional_number("dram_gb_per_s",
                                 timed ? std::optional(dram_gb_per_s(o)) : std::nullopt, "{:g}")
                .boolean("config_partial", !comparable(r, i));
        }
    }
    return table;
}

/// Writes FILE.dat and FILE.gp beside the plot and renders it; a workload without figures, or
/// whose baseline fetched nothing, has no bars, and a plot with no bar at all is not drawn (a
/// note says why). A configuration that did not run, or was stopped part-way, has no bar ('?'
/// in the data); one with no bar at all has no column. Returns false when not drawn.
inline bool write_plot(const std::string& file, const std::string& terminal,
                       const std::vector<kernel_result>& results, const options& o) {
    const std::vector<std::string>& config_names = o.config_names;
    std::vector<const kernel_result*> drawn;
    for (const auto& r : results) {
        if (!r.has_figures()) {
            fmt::print("note: --plot {}: {} has no bars ({})\n", file, r.kernel,
                       r.measured ? "no warp instruction was measured" : "nothing was measured");
        } else if (r.configs[0].bytes_fetched == 0) {
            fmt::print("note: --plot {}: {} has no bars (its baseline fetched no byte, so no "
                       "ratio to it)\n",
                       file, r.kernel);
        } else {
            drawn.push_back(&r);
        }
    }
    if (drawn.empty()) {
        fmt::print("note: --plot {} not drawn: no workload has bytes fetched to compare\n", file);
        return false;
    }
    // gnuplot rejects a histogram column without a valid point: a configuration no drawn
    // workload ran to the end (a stop signal came first) is left out.
    const auto bar = [&](const kernel_result& r, std::size_t i) {
        return shown(r, o, i) ? relative_bytes(r, i) : std::nullopt;
    };
    std::vector<bool> selected(config_names.size(), false);
    for (std::size_t i = 0; i < config_names.size(); ++i)
        for (const kernel_result* r : drawn) selected[i] = selected[i] || bar(*r, i).has_value();
    const std::string dat = file + ".dat", gp = file + ".gp";
    {
        std::ofstream out(dat);
        out << "kernel";
        for (std::size_t i = 0; i < config_names.size(); ++i)
            if (selected[i]) out << ' ' << config_names[i];
        out << "\n";
        for (const kernel_result* r : drawn) {
            // One word per label (gnuplot splits the data on blanks); a partial row says so.
            std::string label = short_name(r->kernel);
            for (char& c : label)
                if (c == ' ' || c == '"') c = '_';
            out << '"' << label << (r->partial() ? " (partial)" : "") << '"';
            for (std::size_t i = 0; i < config_names.size(); ++i) {
                if (!selected[i]) continue;
                const auto rel = bar(*r, i);
                out << (rel ? fmt::format(" {:.4f}", *rel) : std::string(" ?"));
            }
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
                   fmt::format("GPU L1 traffic relative to the 16 KB baseline, {} SMs", o.sms))
            << " noenhanced\n"
            << "set style data histograms\nset style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
               "set datafile missing '?'\n"
               "set ylabel 'bytes fetched / baseline'\nset yrange [0:*]\nset grid ytics\n"
               "set key outside right noenhanced\nset xtics scale 0 noenhanced\n"
            << "plot " << gnuplot_quoted(dat) << " using 2:xtic(1) title columnheader";
        const auto columns =
            static_cast<std::size_t>(std::count(selected.begin(), selected.end(), true));
        for (std::size_t i = 3; i <= columns + 1; ++i)
            out << ", '' using " << i << " title columnheader";
        out << "\n";
        if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", gp));
    }
    if (memsub::explorer::render_with_gnuplot(gp, file)) fmt::print("plot: {}\n", file);
    return true;
}

/// Parses the command line; `config_names` are every configuration's names (the library's, then
/// the user's).
inline options parse(int argc, char** argv, std::vector<std::string> config_names) {
    options o;
    o.selected.assign(config_names.size(), true);
    o.config_names = std::move(config_names);
    for (memsub::explorer::option_reader r(argc, argv); r.next();) {
        const std::string_view arg = r.arg();
        const auto value = [&] { return r.value(); };
        if (arg == "--help" || arg == "-h") {
            usage(0, o.config_names);
        } else if (arg == "--kernels") {
            o.kernels = memsub::explorer::parse_known_names(arg, value(), all_kernels, "kernel");
            o.kernels_given = true;
        } else if (arg == "--sms") {
            o.sms = memsub::explorer::parse_unsigned_as<std::uint32_t>("--sms", value(), 1, 1024);
        } else if (arg == "--seed") {
            o.seed = memsub::explorer::parse_unsigned("--seed", value());
        } else if (arg == "--scale") {
            o.scale = memsub::explorer::parse_positive_real("--scale", value(), 1000.0);
        } else if (arg == "--graph") {
            o.graph = std::string(value());
        } else if (arg == "--matrix") {
            o.matrix = std::string(value());
        } else if (arg == "--graph-gen") {
            o.graph_gen = one_of(arg, value(), graph_generators);
            o.graph_options.emplace_back(arg);
        } else if (arg == "--vertices") {
            o.vertices = memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 16,
                                                                            max_generated_size);
            o.graph_options.emplace_back(arg);
        } else if (arg == "--edge-factor") {
            o.edge_factor = memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 1, 64);
            o.graph_options.emplace_back(arg);
        } else if (arg == "--edges-per-vertex") {
            o.edges_per_vertex =
                memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 1, 32);
            o.graph_options.emplace_back(arg);
        } else if (arg == "--mean-degree") {
            o.mean_degree = memsub::explorer::parse_positive_real(arg, value(), 64.0);
            o.graph_options.emplace_back(arg);
        } else if (arg == "--grid-size") {
            o.grid_size = parse_dimensions(arg, "RxC", value(), max_generated_size);
            o.graph_options.emplace_back(arg);
        } else if (arg == "--matrix-gen") {
            o.matrix_gen = one_of(arg, value(), matrix_generators);
            o.matrix_options.emplace_back(arg);
        } else if (arg == "--rows") {
            o.rows = memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 1,
                                                                        max_generated_size);
            o.matrix_options.emplace_back(arg);
        } else if (arg == "--half-bandwidth") {
            o.half_bandwidth =
                memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 0, 64);
            o.matrix_options.emplace_back(arg);
        } else if (arg == "--nonzeros-per-row") {
            o.nonzeros_per_row =
                memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 1, 64);
            o.matrix_options.emplace_back(arg);
        } else if (arg == "--laplacian-size") {
            o.laplacian_size = parse_dimensions(arg, "XxY", value(), max_generated_size);
            o.matrix_options.emplace_back(arg);
        } else if (arg == "--traceg") {
            const std::string path(value());
            // A trace is read more than once: once per configuration (--timing memory), or by
            // the profiling pass and then the measured pass (--timing constant).
            if (path == memsub::explorer::stdin_name)
                throw option_error("--traceg -: a trace is read more than once (once per "
                                   "configuration with --timing memory, the offline predictors' "
                                   "profiling pass and then the measured pass with --timing "
                                   "constant), so it must be a file or a directory, not "
                                   "standard input");
            o.traceg.push_back(path);
        } else if (arg == "--csv") {
            o.csv = std::string(value());
        } else if (arg == "--plot") {
            o.plot = std::string(value());
            o.plot_terminal = memsub::explorer::plot_terminal_or_throw("--plot", *o.plot);
        } else if (arg == "--quiet") {
            o.quiet = true;
        } else if (arg == "--reuse") {
            o.reuse = true;
        } else if (arg == "--timing") {
            const std::string_view t = value();
            if (t != "memory" && t != "constant")
                throw option_error(
                    fmt::format("--timing: unknown timing '{}' (memory or constant)", t));
            o.timing = t == "memory" ? timing_mode::memory : timing_mode::constant;
        } else if (arg == "--sm-order") {
            const std::string_view t = value();
            const auto order = simt::sm_order_named(t);
            if (!order)
                throw option_error(
                    fmt::format("--sm-order: unknown order '{}' (rotating, seeded or fixed)", t));
            o.sm_order = *order;
        } else if (arg == "--warp-order") {
            const std::string_view t = value();
            const auto order = simt::warp_order_named(t);
            if (!order)
                throw option_error(
                    fmt::format("--warp-order: unknown order '{}' (gto, lrr or gtrr)", t));
            o.warp_order = *order;
        } else if (arg == "--configs") {
            const auto names = memsub::explorer::split_list(value());
            if (names.empty()) throw option_error("--configs needs at least one configuration");
            o.selected.assign(o.selected.size(), false);
            o.selected[0] = true; // every ratio's reference
            for (const auto& n : names) {
                const auto f = std::find(o.config_names.begin(), o.config_names.end(), n);
                if (f == o.config_names.end())
                    throw option_error(fmt::format("--configs: unknown configuration '{}' ({})", n,
                                                   either(o.config_names)));
                o.selected[static_cast<std::size_t>(f - o.config_names.begin())] = true;
            }
        } else if (arg == "--dram-latency") {
            o.dram_latency =
                memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 121, 100000);
        } else if (arg == "--dram-bandwidth") {
            o.dram_bandwidth = memsub::explorer::parse_positive_real(arg, value(), 100000.0);
        } else {
            throw option_error(fmt::format("unknown option '{}' (--help lists them)", arg));
        }
    }
    // Decision: --traceg alone replays the traces only; --kernels adds built-in kernels to them.
    if (!o.traceg.empty() && !o.kernels_given) o.kernels.clear();
    if (o.timing == timing_mode::constant && (o.dram_latency || o.dram_bandwidth))
        throw option_error(fmt::format("{} applies to --timing memory: --timing constant has no "
                                       "memory side",
                                       o.dram_latency ? "--dram-latency" : "--dram-bandwidth"));
    if (o.timing == timing_mode::memory) {
        // A flat partition's latency must cover one line's transfer at its bandwidth.
        const auto dram = dram_params(o);
        const double transfer = dram.request_bytes / dram.bytes_per_cycle;
        if (transfer > dram.latency_cycles)
            throw option_error(fmt::format(
                "--dram-bandwidth = {:g} GB/s is too low for a DRAM latency of {} cycles: a "
                "128 B line takes {:.0f} cycles on one of the {} partitions, more than the DRAM's "
                "own {} (DRAM - L2 hit latency); raise --dram-latency or the bandwidth",
                dram_gb_per_s(o), memory_params(o).latency.dram_cycles, std::ceil(transfer),
                gpu::l2_banks, dram.latency_cycles));
    }
    if (o.graph && o.matrix && *o.graph == memsub::explorer::stdin_name &&
        *o.matrix == memsub::explorer::stdin_name)
        throw option_error("--graph - and --matrix -: standard input can be read only once");
    check_generator_options(o);
    // Refused here, before any work, rather than when kmeans's turn comes after other workloads.
    if (const std::uint32_t clusters = simt::kmeans_kernel::params{}.clusters;
        o.runs("kmeans") && kmeans_points(o) < clusters)
        throw option_error(fmt::format("--scale = {:g} is too small for kmeans: it leaves {} "
                                       "point{} for its {} clusters (--scale {:g} or more)",
                                       o.scale, kmeans_points(o), kmeans_points(o) == 1 ? "" : "s",
                                       clusters, clusters / 16384.0));
    return o;
}

/// A problem with an input file found before any work.
class input_problem : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Checks that the input `file` given with `flag` can be read ("-", standard input, always can;
/// `directory_ok` for --traceg). Throws input_problem naming the option, the file and why not.
inline void check_readable(std::string_view flag, const std::string& file, bool directory_ok) {
    if (file == memsub::explorer::stdin_name) return;
    std::error_code ec;
    if (fs::is_directory(file, ec)) {
        if (!directory_ok)
            throw input_problem(fmt::format("{} {}: is a directory, not a file", flag, file));
        try {
            (void)traceg_files(file);
        } catch (const memsub::input_error& e) {
            throw input_problem(fmt::format("{} {}: {}", flag, file, e.problem()));
        }
        return;
    }
    errno = 0;
    const std::ifstream in(file);
    if (!in)
        throw input_problem(fmt::format("{} {}: cannot read it: {}", flag, file,
                                        errno != 0 ? std::strerror(errno) : "cannot open it"));
}

/// The built-in kernels that run, for messages: "bfs, spmv" or "none".
inline std::string kernels_run(const options& o) {
    std::string s;
    for (const auto& k : o.kernels) s += (s.empty() ? "" : ", ") + k;
    return s.empty() ? std::string("none: --traceg without --kernels runs the traces only") : s;
}

/// The program: run_gpu_l1_explorer's body with the configurations `Configs` (l1_configs<...>).
template <class Configs>
int run(int argc, char** argv) {
    std::vector<std::string> names = Configs::names();
    for (std::size_t i = 0; i < names.size(); ++i)
        if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
            names.begin() + static_cast<std::ptrdiff_t>(i)) {
            fmt::print(stderr,
                       "{}: two configurations are named '{}': give each L1 type a predictor of "
                       "its own name (a configuration is named after its predictors' name())\n",
                       program, names[i]);
            return status::usage_error;
        }
    const options o = memsub::explorer::parse_or_exit(
        program, [&] { return parse(argc, argv, std::move(names)); });
    // Every output and every input file is checked before any work, so a long run cannot end
    // in an error that was knowable at its start.
    if (!memsub::explorer::outputs_writable_or_report(program, [&] {
            if (o.csv) memsub::explorer::check_writable("--csv", *o.csv);
            if (o.plot)
                for (const std::string suffix : {"", ".dat", ".gp"})
                    memsub::explorer::check_writable("--plot", *o.plot + suffix);
        }))
        return status::usage_error;
    try {
        if (o.graph) check_readable("--graph", *o.graph, false);
        if (o.matrix) check_readable("--matrix", *o.matrix, false);
        for (const auto& t : o.traceg) check_readable("--traceg", t, true);
    } catch (const input_problem& e) {
        fmt::print(stderr, "{}: {} (nothing was run)\n", program, e.what());
        return status::input_error;
    }
    // A readable file whose kernel does not run would be ignored: say so.
    if (o.graph && !o.runs("bfs"))
        fmt::print(stderr, "{}: warning: --graph {} is unused: bfs is not run (kernels run: {})\n",
                   program, memsub::explorer::input_label(*o.graph), kernels_run(o));
    if (o.matrix && !o.runs("spmv"))
        fmt::print(stderr,
                   "{}: warning: --matrix {} is unused: spmv is not run (kernels run: {})\n",
                   program, memsub::explorer::input_label(*o.matrix), kernels_run(o));
    const auto unused_generator = [&](const std::vector<std::string>& given,
                                      std::string_view kernel) {
        if (given.empty() || o.runs(kernel)) return;
        std::string flags;
        for (const auto& f : given)
            if (flags.find(f) == std::string::npos) flags += (flags.empty() ? "" : ", ") + f;
        fmt::print(stderr, "{}: warning: {} unused: {} is not run (kernels run: {})\n", program,
                   flags, kernel, kernels_run(o));
    };
    unused_generator(o.graph_options, "bfs");
    unused_generator(o.matrix_options, "spmv");
    memsub::explorer::install_stop_handlers();
    std::vector<kernel_result> results;
    std::vector<std::string> not_run; // workloads left out by a stop signal
    const std::size_t count = o.kernels.size() + o.traceg.size();
    const auto name = [&](std::size_t i) -> const std::string& {
        return i < o.kernels.size() ? o.kernels[i] : o.traceg[i - o.kernels.size()];
    };
    // What escapes a workload (a configuration its input does not allow, memory running out,
    // any other error) ends the run, with run_reporting_errors' statuses; the workloads that
    // finished are still written, and the error is reported last.
    std::string memory_use = "reading the input files";
    std::string running; // the workload running, for the error
    std::optional<std::pair<int, std::string>> failure;
    const auto naming = [&](std::string_view what) {
        return running.empty() ? std::string(what) : fmt::format("{}: {}", running, what);
    };
    try {
        const file_inputs files = read_inputs(o, memory_use);
        not_run = memsub::explorer::run_until_stopped(
            count,
            [&](std::size_t i) {
                running = name(i);
                const run_slot slot{i, count, &memory_use};
                results.push_back(i < o.kernels.size() ? run_named<Configs>(name(i), o, files, slot)
                                                       : run_traceg<Configs>(name(i), o, slot));
                print_table(results.back(), o);
            },
            name);
    } catch (const memsub::config_error& e) {
        failure.emplace(status::usage_error, naming(e.what()));
    } catch (const std::bad_alloc&) {
        failure.emplace(status::out_of_memory, "out of memory while " + memory_use);
    } catch (const std::exception& e) {
        failure.emplace(status::input_error, naming(e.what()));
    }
    const int signal = memsub::explorer::stop_requested();
    if (signal != 0 && !failure)
        fmt::print("PARTIAL: interrupted by signal {} ({}workloads not run: {})\n", signal,
                   !results.empty() && results.back().partial()
                       ? "the last workload's figures are partial; "
                       : "",
                   not_run.size());

    // Partial results are written too; an output that fails does not stop the others.
    memsub::explorer::output_attempts outputs;
    const auto attempt = [&](auto&& write) { outputs.attempt(write); };
    if (o.csv) attempt([&] { results_table(results, o).write_csv(*o.csv); });
    if (o.plot) attempt([&] { (void)write_plot(*o.plot, o.plot_terminal, results, o); });

    // Problems come last, so they are what a user sees: input errors, outputs, the signal.
    bool input_failed = false;
    for (const auto& r : results) {
        if (!r.error) continue;
        input_failed = true;
        fmt::print(stderr, "{}: input error: {}\n", program, *r.error);
        if (!r.measured)
            fmt::print(stderr, "{}: {} was not run\n", program, r.kernel);
        else
            fmt::print(stderr,
                       "{}: the figures of {} cover the {} warp instructions issued "
                       "before it\n",
                       program, r.kernel, r.warp_instructions);
    }
    // An input of no warp instruction is not an error, but its figures are all 0: warn.
    bool empty = false;
    for (const auto& r : results) {
        if (!r.empty()) continue;
        const memsub::explorer::trace_outcome outcome{.label = r.kernel,
                                                      .empty = true,
                                                      .error = nullptr,
                                                      .read = true,
                                                      .accesses = 0,
                                                      .hint = {}};
        empty = memsub::explorer::report_trace_outcome(program, outcome).empty;
    }
    for (const auto& f : outputs.failures())
        fmt::print(stderr, "{}: output error: {}\n", program, f);
    if (failure) {
        const std::size_t left = count - results.size() - (running.empty() ? 0 : 1);
        fmt::print(stderr, "{}: {}{}\n", program, failure->second,
                   left == 0 ? std::string()
                             : fmt::format(" (the {} workload{} after it {} not run)", left,
                                           left == 1 ? "" : "s", left == 1 ? "was" : "were"));
        return failure->first;
    }
    if (signal != 0) return memsub::explorer::report_interruption(program, signal, not_run);
    if (input_failed || !outputs.ok()) return status::input_error;
    if (empty) return status::empty_input;
    return status::ok;
}

} // namespace gpu_l1_detail

/// The gpu_l1_explorer program with `L1s` run beside the library's configurations: each an L1
/// of the cache engine (a cache::basic_cache, default-constructible, whose bypass predictor
/// and line-size predictor are default-built), named after its predictors' name(). Returns the
/// program's exit status (docs/tools/gpu_l1_explorer.md).
template <class... L1s>
int run_gpu_l1_explorer(int argc, char** argv) {
    static_assert((requires {
                      typename L1s::bypass_type;
                      typename L1s::sizer_type;
                      typename L1s::geometry_type;
                  } &&
                   ...),
                  "run_gpu_l1_explorer takes L1 types of the cache engine (cache::basic_cache, "
                  "e.g. gpu::baseline_l1_with<my_bypass> or gpu::variable_line_l1<my_sizer>)");
    return gpu_l1_detail::run<gpu_l1_detail::l1_configs<L1s...>>(argc, argv);
}

} // namespace memsub::explorer
