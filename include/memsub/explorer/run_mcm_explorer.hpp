// memsub::explorer — the MCM-GPU study as a function template: run_mcm_explorer<Extras...>(argc,
// argv) is the mcm_explorer study's whole command line (docs/tools/mcm_explorer.md), with the
// user's own page placements (placement::placement_policy) and CTA schedulers
// (cta::cta_scheduler) run as extra configurations beside the library's eight, each named by its
// `name()`. The study itself passes none.
//
// An extra type replaces one part of the baseline (no L1.5): a placement runs under the
// centralised round robin, a CTA scheduler over the fine-grain interleave. Extras run on the main
// machine (--modules); the EDPSE module counts run the library's baseline and all three only.
// A placement is built from `typename P::params{}` with, where P::params has them, `partitions`
// = the module count, `granule_bytes` = 128 (the line) and `footprint_bytes` = twice the
// kernel's arrays + 1 MiB; a scheduler from `typename S::params{}` with `modules` and
// `sms_per_module` set (CT1 requires them).
//
// The MCM-GPU study ([MCM-GPU]; [Dissertation] ch. 5) on SIMT kernel
// workloads, scaled down: M GPU modules (GPMs) of S SMs (default 4 × 8), joined by a ring.
//
// Machine (per module, after Table 5.3 / C5.1–C5.8, capacities scaled by SMs):
//   * per SM a 16 KB L1 (gpu::baseline_l1: 32 sets × 4 ways × 128 B, LRU, write-evict);
//   * optional GPM-side L1.5, remote-only (bypass::remote_only, C5.3), write-through, 16-way,
//     32 KB per SM (T5's 2 MB per 64-SM GPM), invalidated once per kernel launch boundary
//     (cache::sync_epoch_invalidator: every SM of the module sends the sync, it flushes once);
//   * a memory-side L2 slice (C5.2: caches only addresses homed in this module), write-back,
//     16-way, 64 KB per SM (T5's 4 MB per GPM); with the L1.5 the slice is halved (the
//     iso-transistor "8 MB L1.5 + 8 MB L2" design of §1.3);
//   * the home of an address comes from the page placement: fine-grain interleave on 128 B
//     (C5.1) or first touch on 4 KB pages (C5.6; placed when an L1 miss first reaches it);
//   * CTAs placed by the centralised round robin (C5.4) or distributed contiguous batches
//     (C5.5), through simt::gto_scheduler's cta_scheduler parameter (same CTA → same module
//     in every launch of a kernel);
//   * ring: shortest way round, 32 cycles per hop (C5.8); topology::link_traffic counts the
//     bytes on every directed link.
// Eight configurations: baseline (RR + fine-grain interleave, no L1.5), each mechanism alone,
// each pair, all three. Under --timing constant the same warp instruction stream (per CTA
// scheduler) feeds all four memory-side configurations of that scheduler; the L1s depend only
// on the stream. --launch-mapping shuffled gives each CTA another data block at every launch
// after the first (simt::cta_remap), so the traffic cut that rests on a CTA touching the same
// data every launch can be told apart.
//
// Inter-module traffic counts data payload only (request and acknowledgement headers are not
// modelled): a remote L1 miss moves the 128 B line home → requester (unless the L1.5 hits), a
// remote store moves its bytes requester → home (write-through L1.5 or none). "Inter-module
// bytes" is the sum over ring links (bytes × links crossed); "ring payload" counts a transfer
// once.
//
// Time from the memory system (--timing memory, the default): every configuration runs its own
// stream (a fresh kernel, a host-latency simt::gto_scheduler with the --sm-order SM order, its
// own L1s and memory side), so the memory's latencies decide the issue order, and first touch
// places a page when a request is issued, in that order. A launch takes the scheduler's cycles.
// A line request's data is back at its SM (t = issue; mcm_latency, printed with every table):
//   * L1 hit t + 20 (or when the reply that installed the line arrives);
//   * local L2 slice: reached at t + 40, hit back at t + 120 (Table 3.1 reused: Decision);
//   * remote: + 10 for the L1.5 lookup when there is an L1.5 ([MCM-GPU] §4; a hit then costs +
//   120),
//     + 32 cycles per hop each way ([MCM-GPU] Table 3; request and reply both cross: Decision), the
//     reply's payload queued on each directed link at 768 GB/s × S / 64 (ring_links); a store's
//     payload crosses once and nobody waits for it;
//   * L2 miss: the slice's DRAM partition, a flat_memory of 100 cycles (Table 5.3 "100 ns")
//     and 768 GB/s × S / 64, served in arrival order; a request to a line whose fill is owed
//     waits for it (MSHRs); unloaded t + 220 locally.
// A warp waits for all its loads before a dependent one (the scheduler's host mode). Stores
// and write-backs still in flight when a launch ends are not charged to it.
// Analytic time model (--timing constant; per launch, launches back to back; 1 GHz):
//   t_launch = max(T_issue, DRAM_max / B_dram, LINK_max / B_link) + L_remote / W
//   * T_issue: the GTO scheduler's cycles for the launch (one memory instruction per SM per
//     cycle, a fixed 120-cycle load latency for stalling loads, CTA placement and tail effects);
//   * DRAM_max: the most DRAM bytes (L2 fills + dirty write-backs) of any partition in the
//     launch; B_dram = 768 GB/s per partition (3 TB/s for 4 GPMs);
//   * LINK_max: the most bytes on any directed ring link; B_link = 768 GB/s;
//     both bandwidths are T5's for 64-SM GPMs and are scaled by S / 64 (per-SM balance kept,
//     as T5's scaling study scales bandwidth with SMs): 96 GB/s each at S = 8;
//   * L_remote: Σ over stalling warp load instructions of the largest hop count among their
//     line requests that crossed the ring, × 32 cycles; W = resident warp slots (SMs × 48):
//     the extra latency is hidden by the other warps except for this share.
// Energy: GPUJoule's multi-module extension (energy/multi_module.hpp, on-package: 0.54 pJ/bit
// per link traversal, HBM 21.1 pJ/bit, constant-power amortisation a = 0.5) on K40 EPI/EPTs:
// each warp memory instruction counts its active lanes as int_other operations (address
// arithmetic; no ALU instructions are simulated), L1 accesses as L1→RF transactions, L1 fill
// bytes as L2→L1 sectors, DRAM reads as DRAM→L2 sectors, stores and write-backs as writes.
// Units: an L1 access is one L1 lookup, a coalesced line request with the mask of its touched
// 32 B sectors (gpu::coalescer::for_each_request), so l1_load_accesses / l1_load_hits count line
// requests, a store sends one request per run of touched sectors (the bytes the write-evict L1
// writes down), and the CSV's last column, sector_runs, counts the
// requests' runs of touched sectors (what counting per sector run would have called accesses).
// EPStall and the constant power are not published (G6.2, G6.3): stalls are not counted
// (EPStall term 0) and the constant power per module is this host's assumption
// (--constant-power, default 20 W per 8-SM module, not from the sources). EDPSE (§2.1) compares
// N modules of S SMs against one module running the same kernel in the baseline configuration
// (a monolithic module with its whole L2), for every configuration.
//
// Outputs: the tables on stdout; --csv (one row per kernel, module count and configuration that
// ran, with the status columns partial, interrupted_by_signal and error); --plot, two panels:
// the traffic relative to the baseline (nothing to show when the baseline moves no byte between
// modules, e.g. --modules 1) and EDPSE over module counts (nothing to show without a 1-module
// run: --scaling none, or a list without 1); a panel with nothing to show is left out with a
// note, and a plot with neither is not drawn. Every output is checked before any work.
// Progress (stderr): per kernel, the share of its streams done, each stream weighted by 6 + the
// memory-side configurations it feeds (--timing constant: 4 in the main run, 1 in an EDPSE
// run; --timing memory: 1, every configuration has a stream of its own); a stream's length
// is its warp instructions, the same for every stream of a kernel (counted by its first), or its
// launches while the first runs (BFS's are not known beforehand: no percentage then).
//
//   mcm_explorer                               stencil, spmv, bfs, kmeans on 4 × 8 SMs
//   mcm_explorer --kernels stencil --scale 0.25 --plot mcm.svg --csv mcm.csv

#pragma once

#include <memsub/bypass/remote_only.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/sync_epoch_invalidator.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/cta/centralized_round_robin.hpp>
#include <memsub/cta/concept.hpp>
#include <memsub/cta/contiguous_batches.hpp>
#include <memsub/energy/gpujoule.hpp>
#include <memsub/energy/multi_module.hpp>
#include <memsub/energy/scaling_metrics.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/mcm_memory_side.hpp>
#include <memsub/gpu/timing.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/placement/fine_grain_interleave.hpp>
#include <memsub/placement/first_touch.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/topology/ring.hpp>
#include <memsub/workload/simt/all.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/plot.hpp>
#include <memsub/explorer/progress.hpp>
#include <memsub/explorer/result_table.hpp>
#include <memsub/explorer/run_report.hpp>
#include <memsub/explorer/signals.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace memsub::explorer {

namespace mcm_explorer_detail {

using memsub::explorer::gnuplot_quoted;

namespace simt = memsub::workload::simt;
namespace gpu = memsub::gpu;
namespace cta = memsub::cta;
namespace placement = memsub::placement;
namespace topology = memsub::topology;
namespace energy = memsub::energy;
using memsub::explorer::option_error;

inline std::string program = "mcm_explorer";

namespace status {
constexpr int ok = 0, input_error = 1, usage_error = 2, out_of_memory = 4;
} // namespace status

constexpr std::array<std::string_view, 4> all_kernels{"stencil", "spmv", "bfs", "kmeans"};

// The machine's model (its latencies, the timed memory side: placement, L1.5 and L2 slices,
// ring links, DRAM partitions) lives in the library: memsub/gpu/mcm_memory_side.hpp.
using namespace memsub::gpu::mcm;

/// The latencies as every table header and CSV row print them.
inline std::string describe(const mcm_latency& l) {
    return fmt::format("L1 hit {}, local L2 slice hit {} (to slice {}), +{} per hop x {} "
                       "crossing{}, L1.5 lookup {} on remote requests, L1.5 hit +{}, DRAM "
                       "+{} core cycles at 1 GHz",
                       l.l1_hit_cycles, l.l2_hit_cycles, l.to_l2_cycles, l.hop_cycles,
                       l.path_crossings, l.path_crossings == 1 ? "" : "s", l.l15_lookup_cycles,
                       l.l15_hit_cycles, l.dram_cycles);
}

[[nodiscard]] constexpr std::string_view mapping_name(simt::launch_mapping m) noexcept {
    return m == simt::launch_mapping::same ? "same" : "shuffled";
}
using simt::order_name;

/// The library's configurations; the user's extras follow them (options::configs).
constexpr std::size_t library_config_count = 8;
struct library_config {
    std::string_view name;
    bool distributed, first_touch, l15;
};
constexpr std::array<library_config, library_config_count> library_configs{{
    {"baseline", false, false, false},
    {"+L1.5", false, false, true},
    {"+DS", true, false, false},
    {"+FT", false, true, false},
    {"L1.5+DS", true, false, true},
    {"L1.5+FT", false, true, true},
    {"DS+FT", true, true, false},
    {"L1.5+DS+FT", true, true, true},
}};
constexpr std::size_t all_three = 7;

/// A configuration of a run: the library's, or a user's type (`extra`: its name(), and the
/// flags all false but the part it replaces, which the flags do not describe).
struct config_desc {
    std::string name;
    bool distributed = false, first_touch = false, l15 = false;
    bool extra = false;
};

/// The configuration index of (distributed, first touch, L1.5) among the library's.
constexpr std::size_t config_index(bool ds, bool ft, bool l15) {
    for (std::size_t i = 0; i < library_config_count; ++i)
        if (library_configs[i].distributed == ds && library_configs[i].first_touch == ft &&
            library_configs[i].l15 == l15)
            return i;
    return library_config_count;
}

struct options {
    std::vector<std::string> kernels{all_kernels.begin(), all_kernels.end()};
    std::uint32_t modules = 4;
    std::uint32_t sms_per_module = 8;
    std::vector<std::uint32_t> scaling{1, 2, 4, 8, 16, 32};
    std::uint32_t launches = 4;
    std::uint64_t seed = 1;
    double scale = 1.0;
    double constant_power_w = 20.0;
    timing_mode timing = timing_mode::memory;
    mcm_latency latency{};
    std::vector<simt::launch_mapping> mappings{simt::launch_mapping::same};
    simt::sm_order order = simt::sm_order::rotating;
    std::optional<std::string> csv, plot;
    std::string plot_terminal;
    bool quiet = false;
    /// The library's eight configurations, then one per extra type (run_mcm_explorer).
    std::vector<config_desc> configs;
};

[[noreturn]] inline void usage(int code) {
    fmt::print(
        code == 0 ? stdout : stderr,
        "usage: mcm_explorer [options]\n"
        "Runs iterative SIMT kernels on a multi-module GPU (modules of SMs on a ring, per-SM\n"
        "L1, memory-side L2 slices) and compares the MCM-GPU mechanisms: remote-only L1.5,\n"
        "distributed CTA scheduling (contiguous batches) and first-touch page placement, alone,\n"
        "in pairs and all three, against the baseline (centralised round robin, fine-grain\n"
        "interleave). Reports inter-module traffic, local / remote accesses, L1.5 hit rate,\n"
        "time (from the memory system by default), the energy breakdown and EDPSE over module\n"
        "counts. An L1 access is one L1 lookup: a coalesced line request with its touched\n"
        "32 B sectors (the CSV's sector_runs counts the requests' runs of touched sectors).\n"
        "  --kernels a,b,...    of stencil, spmv, bfs, kmeans (default: all)\n"
        "  --modules M          modules of the main machine (default 4)\n"
        "  --sms-per-module S   SMs per module (default 8)\n"
        "  --scaling a,b,...    module counts of the EDPSE study (default 1,2,4,8,16,32;\n"
        "                       'none' skips it)\n"
        "  --launches N         launches of stencil / spmv / kmeans (default 4; BFS runs its\n"
        "                       levels)\n"
        "  --scale X            input size multiplier (default 1; 0.1 for a quick run)\n"
        "  --seed S             input generator seed (default 1)\n"
        "  --constant-power W   constant power per module in W for the energy model (default\n"
        "                       20; not published in the sources)\n"
        "  --timing MODE        memory (default): each configuration runs its own stream and a\n"
        "                       launch takes the scheduler's cycles, its loads completing when\n"
        "                       the memory side (L1, L2 slice, ring links, L1.5, DRAM) says;\n"
        "                       constant: the analytic model (fixed 120-cycle loads, max of\n"
        "                       issue, DRAM and link bounds)\n"
        "  --launch-mapping M   same (default), shuffled (each launch after the first gives\n"
        "                       every CTA another data block) or both (every kernel under\n"
        "                       same, then shuffled; the closing tables once for each)\n"
        "  --sm-order O         rotating (default), seeded or fixed (SMs 0..N-1 every cycle:\n"
        "                       the older streams, whose first touch favours module 0)\n"
        "  --l1-hit-cycles N    L1 hit latency of --timing memory (default 20)\n"
        "  --path-crossings N   2 (default): a remote load's request and reply each take 32\n"
        "                       cycles per hop; 1: only the reply\n"
        "  --csv FILE           every counter, one row per kernel, module count and config,\n"
        "                       with the columns partial, interrupted_by_signal and error\n"
        "  --plot FILE          relative inter-module traffic per config and EDPSE vs modules\n"
        "                       (.svg, .png or .pdf; needs gnuplot; data and script beside it)\n"
        "  --quiet              no progress on stderr (the running kernel's share done and\n"
        "                       time left, its main and EDPSE runs; not the kernels after\n"
        "                       it; BFS's first stream shows no percentage: its levels are\n"
        "                       not known beforehand)\n"
        "  --help               this text\n"
        "Outputs are checked before any work. A plot panel with nothing to show (the traffic\n"
        "panel when the baseline moves no byte between modules, e.g. --modules 1; the EDPSE\n"
        "panel without a 1-module run, e.g. --scaling none) is left out with a note.\n"
        "exit status: 0 ok, 1 an output could not be written or a run failed (what finished\n"
        "is printed and written), 2 bad usage or an output that cannot be created (checked\n"
        "first), 4 out of memory; on SIGINT / SIGTERM the run stops\n"
        "within 64 Ki warp instructions, prints and writes what it has (partial = 1 in the\n"
        "CSV) and exits with 128 + the signal number\n");
    std::exit(code);
}

// ------------------------------------------------------------------ one machine run

struct machine_result {
    machine m;
    std::vector<config_result> configs; // one per options::configs
    std::vector<bool> ran;
    /// Per configuration: a stop signal cut its stream short (its figures cover part of the run).
    std::vector<bool> stopped;
    std::uint64_t warp_instructions_simulated = 0; // over all its streams
    std::uint64_t footprint_bytes = 0;             // the kernel's arrays
    double wall_seconds = 0, cpu_seconds = 0;
    bool partial = false;
    int interrupted_by = 0; // the signal that cut it short (partial)
};

/// One kernel's progress on stderr: warp instructions simulated and, when it can be known, the
/// share of the kernel's work done and the time left. The work is its streams (--timing
/// constant: two per machine run, one per CTA scheduler; --timing memory: one per
/// configuration), each weighted by its cost per warp instruction: 6 + the memory-side
/// configurations it feeds (constant: 4 in the main run, 1 in an EDPSE run; memory: 1; measured on
/// stencil, Release and Debug builds alike: a main-run stream takes 1.4-1.5 times an EDPSE
/// stream, so the scheduler, coalescer and L1s cost about six memory sides). A
/// stream's length is its warp instructions, the same for every stream of a kernel (the CTA
/// placement and the module count change their order, not their number), once the first stream
/// has counted them; during the first, its launches when the kernel's launch count is known.
class study_progress {
public:
    study_progress(const options& o, const std::string& kernel, std::size_t index,
                   std::size_t count, std::optional<std::uint32_t> launches)
        : meter_(!o.quiet, fmt::format("{} ({} of {})", kernel, index + 1, count))
        , launches_(launches) {
        meter_.set_unit("warp instructions");
        const std::size_t rest = count - index - 1;
        if (rest != 0)
            meter_.set_then(fmt::format("then {} more kernel{}", rest, rest == 1 ? "" : "s"));
        // Timed: a stream per configuration (eight and the extras in the main run, two in an
        // EDPSE run).
        // Constant: two streams of four memory sides; an extra type's stream feeds one.
        const bool timed = o.timing == timing_mode::memory;
        const std::size_t extras = o.configs.size() - library_config_count;
        total_ = timed ? static_cast<double>(o.configs.size()) * weight(1)
                       : 2 * weight(4) + static_cast<double>(extras) * weight(1);
        for (const std::uint32_t n : o.scaling)
            if (n != o.modules) total_ += 2 * weight(1);
    }

    /// A stream feeding `sides` memory-side configurations starts.
    void begin_stream(std::size_t sides) { weight_ = weight(sides); }
    /// The running stream has issued `instructions`; it is in launch `launch` (0, 1, ...).
    void update(std::uint64_t instructions, std::uint32_t launch) {
        std::optional<double> within;
        if (per_stream_)
            within =
                std::min(1.0, static_cast<double>(instructions) /
                                  static_cast<double>(std::max<std::uint64_t>(*per_stream_, 1)));
        else if (launches_)
            within = std::min(1.0, static_cast<double>(launch) / *launches_);
        std::optional<double> fraction;
        if (within) fraction = std::min(1.0, (done_ + weight_ * *within) / total_);
        meter_.update(simulated_ + instructions, fraction);
    }
    /// The running stream has ended after `instructions`.
    void end_stream(std::uint64_t instructions) {
        done_ += weight_;
        simulated_ += instructions;
        if (!per_stream_) per_stream_ = instructions;
    }
    void finish() { meter_.finish(); }

private:
    static double weight(std::size_t sides) { return 6.0 + static_cast<double>(sides); }

    memsub::explorer::progress_meter meter_;
    std::optional<std::uint32_t> launches_;
    std::optional<std::uint64_t> per_stream_;
    double total_ = 1, done_ = 0, weight_ = 1;
    std::uint64_t simulated_ = 0;
};

/// The placements' parameters on machine `m` for a kernel of `footprint` bytes: fine-grain
/// interleave on 128 B lines (C5.1), first touch on 4 KB pages (C5.6).
inline placement::fine_grain_interleave::params interleave_params(const machine& m, std::uint64_t) {
    return {.partitions = m.modules, .granule_bytes = line_bytes};
}
inline placement::first_touch::params first_touch_params(const machine& m,
                                                         std::uint64_t footprint) {
    placement::first_touch::params ft{.partitions = m.modules};
    ft.page_bytes = 4096;
    ft.granule_bytes = line_bytes;
    ft.partition_bytes = std::uint64_t{1} << 32;
    ft.footprint_bytes = 2 * footprint + (std::uint64_t{1} << 20);
    return ft;
}

/// The parameters of placement `P` on machine `m` for a kernel of `footprint` bytes: the
/// library's as above; a user's type from its default params with `partitions`,
/// `granule_bytes` and `footprint_bytes` set where it has them (first touch's rules).
template <class P>
typename P::params placement_params(const machine& m, std::uint64_t footprint) {
    if constexpr (std::is_same_v<P, placement::first_touch>) {
        return first_touch_params(m, footprint);
    } else if constexpr (std::is_same_v<P, placement::fine_grain_interleave>) {
        return interleave_params(m, footprint);
    } else {
        typename P::params pp{};
        if constexpr (requires { pp.partitions = m.modules; }) pp.partitions = m.modules;
        if constexpr (requires { pp.granule_bytes = line_bytes; }) pp.granule_bytes = line_bytes;
        if constexpr (requires { pp.footprint_bytes = footprint; })
            pp.footprint_bytes = 2 * footprint + (std::uint64_t{1} << 20);
        return pp;
    }
}

/// The parameters of CTA scheduler `S` on machine `m`: its default params with the shape set.
template <class S>
typename S::params cta_scheduler_params(const machine& m) {
    typename S::params sp{};
    sp.modules = m.modules;
    sp.sms_per_module = m.sms_per_module;
    return sp;
}

/// The counters of a stream's front end (scheduler, coalescer, L1s), the same for every
/// configuration it feeds.
inline void store_front(config_result& r, const config_result& front) {
    r.warp_instructions = front.warp_instructions;
    r.lane_operations = front.lane_operations;
    r.l1_load_accesses = front.l1_load_accesses;
    r.l1_load_hits = front.l1_load_hits;
    r.sector_runs = front.sector_runs;
    r.l1_fill_bytes = front.l1_fill_bytes;
    r.store_bytes = front.store_bytes;
}

/// What both timing loops do first with an issued warp instruction: coalesce its lanes into
/// `lines`, count it in `front`, and return the prototype its line requests copy.
inline memsub::access start_instruction(const memsub::warp_instruction& w,
                                        const gpu::coalescer& coalescer, gpu::coalesced_warp& lines,
                                        config_result& front) {
    coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
    ++front.warp_instructions;
    front.lane_operations += static_cast<std::uint64_t>(std::popcount(w.active_mask));
    front.sector_runs += lines.sector_runs();
    return memsub::request_prototype(w);
}

/// The whole-line fill request a missing L1 access `a` sends from `module`.
inline memsub::access line_request(const memsub::access& a, std::uint32_t module) {
    memsub::access line = a;
    line.address = memsub::byte_address{a.address.value & ~std::uint64_t{line_bytes - 1}};
    line.size = line_bytes;
    line.sector_mask = 0; // the whole line
    line.requester = module;
    return line;
}

/// Every 65,536 instructions: reports progress and returns false once a stop signal arrived
/// (recorded in `out.interrupted_by`).
inline bool still_running(const config_result& front, const memsub::warp_instruction& w,
                          study_progress& progress, machine_result& out) {
    if ((front.warp_instructions & 0xffff) != 0) return true;
    progress.update(front.warp_instructions, w.launch);
    out.interrupted_by = memsub::explorer::stop_requested();
    return out.interrupted_by == 0;
}

/// The scheduler's parameters: `m`'s SMs, the SM order of the options, and the latency mode.
inline simt::gto_params scheduler_params(const machine& m, const options& o,
                                         simt::latency_mode mode) {
    return simt::gto_params{.sms = m.sms(), .latency = mode, .order = o.order};
}

/// Runs configuration `config` on its own stream with time from the memory system: a fresh
/// kernel, a host-latency scheduler and the configuration's memory side, so the memory's
/// latencies decide the issue order (and with it first touch). The host loop: issue until the
/// memory's next event (the horizon); when nothing can issue before it, advance the memory to
/// the earlier of its next event and the scheduler's next issue, delivering completions.
/// Returns false if a stop signal arrived.
template <class Sched, class Placement, class Kernel>
bool run_timed_stream(Kernel& kernel, const machine& m, std::size_t config, const options& o,
                      machine_result& out, study_progress& progress) {
    const std::uint64_t footprint = kernel.memory().footprint_bytes();
    const typename Placement::params pp = placement_params<Placement>(m, footprint);
    constexpr std::uint32_t l1_lines = gpu::l1_geometry::capacity_bytes() / line_bytes;
    memory_side<Placement> side(m, pp, o.configs[config].l15, timing_mode::memory, o.latency,
                                l1_lines);
    progress.begin_stream(1);

    Sched sched(cta_scheduler_params<Sched>(m));
    simt::gto_scheduler<Kernel, Sched> gto(kernel, scheduler_params(m, o, simt::latency_mode::host),
                                           sched);
    std::vector<gpu::baseline_l1> l1(m.sms());
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    memsub::warp_instruction w;
    config_result front;
    std::uint32_t launch = 0;
    std::uint64_t launch_start_cycle = 0;
    bool stopped = false;
    const auto end_launch = [&](std::uint64_t now) {
        side.end_launch(now - launch_start_cycle, launch);
        launch_start_cycle = now;
        for (auto& c : l1) c.flush([](const memsub::evicted_block&) {});
    };
    const auto complete = [&](memsub::warp_id id, std::uint64_t ready) { gto.complete(id, ready); };
    for (;;) {
        const simt::issue_status status = gto.next(w, side.next_event_cycle());
        if (status == simt::issue_status::finished) break;
        if (status == simt::issue_status::blocked) {
            const std::uint64_t t = std::min(side.next_event_cycle(), gto.next_issue_cycle());
            if (t == memsub::never)
                throw std::logic_error(fmt::format(
                    "{}: internal error: every warp of {} waits for a load and no memory event "
                    "is due ({} completions owed)",
                    program, kernel.name(), gto.outstanding()));
            side.advance_to(t, complete);
            continue;
        }
        while (w.launch != launch) { // a launch with no instruction still ends (and syncs)
            end_launch(gto.launch_start_cycle());
            ++launch;
        }
        const memsub::access proto = start_instruction(w, coalescer, lines, front);
        const std::uint32_t module = w.sm / m.sms_per_module;
        const std::uint64_t t = w.issue_cycle;
        std::uint64_t data_ready = 0; // the latest reply known now
        std::uint32_t waits = 0;      // replies that wait for a DRAM fill
        const auto to_l1 = [&](const memsub::access& a) {
            const auto r = l1[w.sm].access(a);
            if (a.kind != memsub::access_kind::load) {
                front.store_bytes += r.bytes_written_down;
                memsub::access store = a;
                store.requester = module;
                side.request(module, store, r.bytes_written_down, t, w.warp);
                return;
            }
            ++front.l1_load_accesses;
            std::uint64_t ready;
            if (r.hit) {
                ++front.l1_load_hits;
                ready = side.l1_hit(w.sm, a, t, w.warp);
            } else {
                front.l1_fill_bytes += r.bytes_fetched;
                const memsub::access line = line_request(a, module);
                const std::uint32_t entry = side.l1_slot(w.sm, line.address.value / line_bytes);
                ready = side.request(module, line, r.bytes_fetched, t, w.warp, entry);
                side.note_l1_miss(entry, line, ready);
            }
            if (ready == memsub::never)
                ++waits;
            else
                data_ready = std::max(data_ready, ready);
        };
        if (w.kind == memsub::access_kind::load) {
            coalescer.for_each_request(lines, proto, to_l1);
            // The instruction owes one completion: one more per reply still waiting for DRAM,
            // and the replies known now are paid at once.
            for (std::uint32_t k = 0; k < waits; ++k) gto.hold(w.warp);
            gto.complete(w.warp, data_ready);
        } else {
            coalescer.for_each_access(lines, proto, to_l1);
        }
        if (!still_running(front, w, progress, out)) {
            stopped = true;
            break;
        }
    }
    end_launch(gto.cycle());
    progress.end_stream(front.warp_instructions);
    out.warp_instructions_simulated += front.warp_instructions;
    out.ran[config] = true;
    out.stopped[config] = stopped;
    config_result r = side.finish();
    store_front(r, front);
    out.configs[config] = std::move(r);
    return !stopped;
}

/// Runs one stream (kernel under CTA scheduler `Sched`) and feeds the memory sides `sides` (those
/// active), timed by the analytic model. Returns the stream's front-end counters; `stopped` says
/// whether a stop signal arrived.
template <class Sched, class Kernel, class... Sides>
config_result feed_stream(Kernel& kernel, const machine& m, const options& o, machine_result& out,
                          study_progress& progress, bool& stopped, Sides&... all_sides) {
    const auto each = [&](auto&& fn) { ((all_sides.active() ? fn(all_sides) : void()), ...); };
    std::size_t sides = 0;
    each([&](const auto&) { ++sides; });
    progress.begin_stream(sides);

    Sched sched(cta_scheduler_params<Sched>(m));
    simt::gto_scheduler<Kernel, Sched> gto(
        kernel, scheduler_params(m, o, simt::latency_mode::constant), sched);
    std::vector<gpu::baseline_l1> l1(m.sms());
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    memsub::warp_instruction w;
    config_result front; // the stream's own counters (the same for every memory side it feeds)
    std::uint32_t launch = 0;
    std::uint64_t launch_start_cycle = 0;
    const auto end_launch = [&] {
        const std::uint64_t now = gto.cycle();
        each([&](auto& side) { side.end_launch(now - launch_start_cycle, launch); });
        launch_start_cycle = now;
        for (auto& c : l1) c.flush([](const memsub::evicted_block&) {});
    };
    while (gto.next(w)) {
        while (w.launch != launch) { // a launch with no instruction still ends (and syncs)
            end_launch();
            ++launch;
        }
        const memsub::access proto = start_instruction(w, coalescer, lines, front);
        const std::uint32_t module = w.sm / m.sms_per_module;
        each([](auto& side) { side.begin_instruction(); });
        const auto to_l1 = [&](const memsub::access& a) {
            const auto r = l1[w.sm].access(a);
            if (a.kind == memsub::access_kind::load) {
                ++front.l1_load_accesses;
                if (r.hit) {
                    ++front.l1_load_hits;
                    return;
                }
                front.l1_fill_bytes += r.bytes_fetched;
                const memsub::access line = line_request(a, module);
                each([&](auto& side) { side.request(module, line, r.bytes_fetched); });
            } else {
                front.store_bytes += r.bytes_written_down;
                memsub::access store = a;
                store.requester = module;
                each([&](auto& side) { side.request(module, store, r.bytes_written_down); });
            }
        };
        // A load is one L1 lookup per line request; a store (the write-evict L1 allocates
        // nothing) writes each run of touched sectors down, so its traffic is those bytes,
        // not the span from the request's first to last byte.
        if (w.kind == memsub::access_kind::load)
            coalescer.for_each_request(lines, proto, to_l1);
        else
            coalescer.for_each_access(lines, proto, to_l1);
        const bool stalling = w.kind == memsub::access_kind::load && w.stalls;
        each([&](auto& side) { side.end_instruction(stalling); });
        if (!still_running(front, w, progress, out)) {
            stopped = true;
            break;
        }
    }
    end_launch();
    progress.end_stream(front.warp_instructions);
    out.warp_instructions_simulated += front.warp_instructions;
    return front;
}

/// Runs one stream (kernel under CTA scheduler `Sched`) and feeds the four memory-side
/// configurations of that scheduler, timed by the analytic model. Returns false if a stop
/// signal arrived.
template <class Sched, class Kernel>
bool run_stream(Kernel& kernel, const machine& m, bool distributed, bool edpse_only,
                const options& o, machine_result& out, study_progress& progress) {
    const std::uint64_t footprint = kernel.memory().footprint_bytes();
    const auto fgi = interleave_params(m, footprint);
    const auto ft = first_touch_params(m, footprint);
    memory_side<placement::fine_grain_interleave> fgi_plain(m, fgi, false), fgi_l15(m, fgi, true);
    memory_side<placement::first_touch> ft_plain(m, ft, false), ft_l15(m, ft, true);
    if (edpse_only) { // the baseline on the RR stream, all three on the distributed one
        fgi_l15.set_active(false);
        ft_plain.set_active(false);
        if (distributed)
            fgi_plain.set_active(false);
        else
            ft_l15.set_active(false);
    }
    bool stopped = false;
    const config_result front = feed_stream<Sched>(kernel, m, o, out, progress, stopped, fgi_plain,
                                                   fgi_l15, ft_plain, ft_l15);
    const auto store_result = [&](auto& side, bool ft_on, bool l15_on) {
        if (!side.active()) return;
        out.ran[config_index(distributed, ft_on, l15_on)] = true;
        out.stopped[config_index(distributed, ft_on, l15_on)] = stopped;
        config_result r = side.finish();
        store_front(r, front);
        out.configs[config_index(distributed, ft_on, l15_on)] = std::move(r);
    };
    store_result(fgi_plain, false, false);
    store_result(fgi_l15, false, true);
    store_result(ft_plain, true, false);
    store_result(ft_l15, true, true);
    return !stopped;
}

/// Runs an extra configuration `config` (CTA scheduler `Sched`, placement `Placement`, no
/// L1.5) on a stream of its own, timed by the analytic model. Returns false if a stop signal
/// arrived.
template <class Sched, class Placement, class Kernel>
bool run_single_stream(Kernel& kernel, const machine& m, std::size_t config, const options& o,
                       machine_result& out, study_progress& progress) {
    memory_side<Placement> side(
        m, placement_params<Placement>(m, kernel.memory().footprint_bytes()), false);
    bool stopped = false;
    const config_result front = feed_stream<Sched>(kernel, m, o, out, progress, stopped, side);
    out.ran[config] = true;
    out.stopped[config] = stopped;
    config_result r = side.finish();
    store_front(r, front);
    out.configs[config] = std::move(r);
    return !stopped;
}

/// GPUJoule energy of a configuration's run on `modules` modules (on package).
inline energy::energy_breakdown energy_of(const config_result& r, std::uint32_t modules,
                                          double constant_power_w) {
    // EPStall: stalls are not counted here (0 by this host's choice, G6.2).
    const energy::gpujoule model(energy::multi_module(energy::kepler_k40(0.0, constant_power_w),
                                                      energy::on_package(modules)));
    using energy::transaction_class;
    energy::activity a;
    a.add(energy::instruction_class::int_other, r.lane_operations);
    a.add(transaction_class::l1_to_rf, r.l1_load_accesses);
    a.add_write(transaction_class::l1_to_rf, r.store_bytes);
    a.add(transaction_class::l2_to_l1, r.l1_fill_bytes / 32);
    a.add_write(transaction_class::l2_to_l1, r.store_bytes);
    a.add(transaction_class::dram_to_l2, r.dram_read_bytes / 32);
    a.add_write(transaction_class::dram_to_l2, r.dram_write_bytes);
    a.link_byte_hops = r.inter_module_bytes;
    return model.energy(a, r.seconds());
}

/// Runs a kernel (a fresh one from `make` per stream) on machine `m`: all eight configs and one
/// per type of `Extras` (options::configs), or only the baseline and all three (`edpse_only`).
template <class... Extras, class Make>
machine_result run_machine(Make&& make, const machine& m, const options& o, bool edpse_only,
                           study_progress& progress) {
    machine_result out;
    out.m = m;
    out.configs.resize(o.configs.size());
    out.ran.assign(o.configs.size(), false);
    out.stopped.assign(o.configs.size(), false);
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    bool complete = true;
    out.footprint_bytes = make()->memory().footprint_bytes();
    if (o.timing == timing_mode::memory) {
        using rr = cta::centralized_round_robin;
        using ds = cta::contiguous_batches;
        using fgi = placement::fine_grain_interleave;
        using ft = placement::first_touch;
        for (std::size_t c = 0; c < library_config_count && complete; ++c) {
            if (edpse_only && c != 0 && c != all_three) continue;
            auto kernel = make();
            const config_desc& d = o.configs[c];
            if (d.distributed)
                complete = d.first_touch
                               ? run_timed_stream<ds, ft>(*kernel, m, c, o, out, progress)
                               : run_timed_stream<ds, fgi>(*kernel, m, c, o, out, progress);
            else
                complete = d.first_touch
                               ? run_timed_stream<rr, ft>(*kernel, m, c, o, out, progress)
                               : run_timed_stream<rr, fgi>(*kernel, m, c, o, out, progress);
        }
    } else {
        {
            auto kernel = make();
            complete = run_stream<cta::centralized_round_robin>(*kernel, m, false, edpse_only, o,
                                                                out, progress);
        }
        if (complete) {
            auto kernel = make();
            complete =
                run_stream<cta::contiguous_batches>(*kernel, m, true, edpse_only, o, out, progress);
        }
    }
    // The user's types, one stream each, after the library's (main machine only).
    if (!edpse_only) {
        std::size_t c = library_config_count;
        [[maybe_unused]] const auto run_extra = [&]<class Extra>() {
            const std::size_t config = c++;
            if (!complete) return;
            using sched =
                std::conditional_t<cta::cta_scheduler<Extra>, Extra, cta::centralized_round_robin>;
            using place = std::conditional_t<cta::cta_scheduler<Extra>,
                                             placement::fine_grain_interleave, Extra>;
            auto kernel = make();
            complete = o.timing == timing_mode::memory
                           ? run_timed_stream<sched, place>(*kernel, m, config, o, out, progress)
                           : run_single_stream<sched, place>(*kernel, m, config, o, out, progress);
        };
        (run_extra.template operator()<Extras>(), ...);
    }
    out.partial = !complete;
    out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    for (auto& c : out.configs) c.joules = energy_of(c, m.modules, o.constant_power_w);
    return out;
}

struct kernel_study {
    std::string kernel, input;
    simt::launch_mapping mapping = simt::launch_mapping::same;
    machine_result main;
    std::vector<machine_result> scaling; // o.scaling order
    bool partial = false;
};

using memsub::explorer::scaled;

/// Builds extra placement `Extra` as a run on machine `m` builds it for a kernel of `footprint`
/// bytes (its constructor validates its params) and checks it has one partition per module;
/// throws config_error. Nothing for a CTA scheduler.
template <class Extra>
void check_extra_placement(const machine& m, std::uint64_t footprint) {
    if constexpr (placement::placement_policy<Extra> && !cta::cta_scheduler<Extra>) {
        const Extra p(placement_params<Extra>(m, footprint));
        // Every partition the placement names must be a module of the machine.
        memsub::require(p.partitions() == m.modules, "mcm_explorer", "partitions()", p.partitions(),
                        "an extra placement must have one partition per "
                        "module (--modules)");
    }
}

/// Which kernel of how many is running, for the progress line.
struct study_slot {
    std::size_t index = 0, count = 1;
};

/// The kernel `make` builds on the main machine (all eight configurations and the extras), then on
/// every
/// --scaling module count (the baseline and all three); `launches` is its launch count when
/// known beforehand (for the progress).
template <class... Extras, class Make>
kernel_study study(std::string name, std::string input, simt::launch_mapping mapping, Make&& make,
                   const options& o, const study_slot& slot, std::optional<std::uint32_t> launches,
                   bool probe) {
    kernel_study s{std::move(name), std::move(input), mapping, {}, {}, false};
    if (probe) { // only check the extra placements against this kernel's footprint
        [[maybe_unused]] const machine m{o.modules, o.sms_per_module};
        [[maybe_unused]] const std::uint64_t footprint = make()->memory().footprint_bytes();
        (check_extra_placement<Extras>(m, footprint), ...);
        return s;
    }
    study_progress progress(
        o, o.mappings.size() > 1 ? fmt::format("{} {}", s.kernel, mapping_name(mapping)) : s.kernel,
        slot.index, slot.count, launches);
    s.main = run_machine<Extras...>(make, {o.modules, o.sms_per_module}, o, false, progress);
    s.partial = s.main.partial;
    for (const std::uint32_t n : o.scaling) {
        if (s.partial) break;
        if (n == o.modules) {
            s.scaling.push_back(s.main);
            continue;
        }
        s.scaling.push_back(run_machine<Extras...>(make, {n, o.sms_per_module}, o, true, progress));
        s.partial = s.scaling.back().partial;
    }
    progress.finish();
    return s;
}

/// Runs kernel `name`'s study; with `probe`, only builds its input and checks the extra
/// placements against its footprint (check_extra_placement).
template <class... Extras>
kernel_study run_named(std::string_view name, simt::launch_mapping mapping, const options& o,
                       const study_slot& slot, bool probe = false) {
    const simt::cta_remap_params remap{.mapping = mapping, .seed = o.seed};
    if (name == "stencil") {
        const auto side = static_cast<std::uint32_t>(
            std::clamp<std::uint64_t>(scaled(512, std::sqrt(o.scale)), 16, 16384));
        return study<Extras...>(
            "stencil", fmt::format("{} x {} grid, {} iterations", side, side, o.launches), mapping,
            [&] {
                return std::make_unique<simt::stencil_kernel>(
                    simt::stencil_kernel::params{.rows = side,
                                                 .cols = side,
                                                 .iterations = o.launches,
                                                 .seed = o.seed,
                                                 .remap = remap});
            },
            o, slot, o.launches, probe);
    }
    if (name == "spmv") {
        const auto rows =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(32768, o.scale), 1u << 24));
        // Rows of at most 128 non-zeros: with gpu_l1_explorer's 1024, one lane's dependent chain
        // over the longest row sets every launch's time, whatever the memory system does.
        auto m = std::make_shared<simt::csr_matrix>(simt::make_power_law_matrix(
            {.rows = rows, .cols = rows, .max_row_length = std::min(rows, 128u), .seed = o.seed}));
        return study<Extras...>(
            "spmv",
            fmt::format("power-law {} x {}, rows <= 128, {} non-zeros, {} launches", rows, rows,
                        m->nonzeros(), o.launches),
            mapping,
            [&, m] {
                return std::make_unique<simt::spmv_kernel>(
                    *m, simt::spmv_kernel::params{
                            .seed = o.seed, .launches = o.launches, .remap = remap});
            },
            o, slot, o.launches, probe);
    }
    if (name == "bfs") {
        const auto scale =
            static_cast<std::uint32_t>(std::clamp(std::lround(14 + std::log2(o.scale)), 4L, 24L));
        auto g = std::make_shared<simt::csr_graph>(
            simt::make_rmat_graph({.scale = scale, .edge_factor = 8, .seed = o.seed}));
        std::uint32_t source = 0;
        for (std::uint32_t v = 0; v < g->vertices; ++v)
            if (g->degree(v) > g->degree(source)) source = v;
        return study<Extras...>(
            "bfs", fmt::format("R-MAT 2^{}: {} vertices, {} edges", scale, g->vertices, g->edges()),
            mapping,
            [&, g, source] {
                return std::make_unique<simt::bfs_kernel>(
                    *g, simt::bfs_kernel::params{.source = source, .remap = remap});
            },
            o, slot, std::nullopt, probe); // BFS runs until its frontier is empty
    }
    const auto points =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(16384, o.scale), 1u << 24));
    return study<Extras...>(
        "kmeans",
        fmt::format("{} points x 34 features, 5 clusters, {} iterations", points, o.launches),
        mapping,
        [&] {
            return std::make_unique<simt::kmeans_kernel>(simt::kmeans_kernel::params{
                .points = points, .seed = o.seed, .iterations = o.launches, .remap = remap});
        },
        o, slot, o.launches, probe);
}

// ------------------------------------------------------------------ output

inline double pct(double x) {
    return 100.0 * x;
}
inline double mb(std::uint64_t bytes) {
    return static_cast<double>(bytes) / 1e6;
}
inline double ratio(double a, double b) {
    return b == 0 ? 0.0 : a / b;
}
inline double mib(std::uint64_t bytes) {
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

/// Whether configuration `i` of `r` ran to its end: a stream a stop signal cut short has too
/// few cycles and bytes for a speedup or a traffic cut.
inline bool complete(const machine_result& r, std::size_t i) {
    return r.ran[i] && !r.stopped[i];
}

/// The inter-module traffic cut of `c` against `base` (baseline bytes / config bytes): 1 when
/// neither moves a byte (one module), infinite when only the baseline does.
inline double traffic_cut(const config_result& c, const config_result& base) {
    const double bytes = double(c.inter_module_bytes), base_bytes = double(base.inter_module_bytes);
    return bytes == 0 ? (base_bytes == 0 ? 1.0 : INFINITY) : base_bytes / bytes;
}

/// A ratio as the tables print it: "1.23x", or "inf".
inline std::string ratio_text(double x) {
    return std::isfinite(x) ? fmt::format("{:.2f}x", x) : std::string("inf");
}

/// The L1.5 capacity of one module of `m` (32 KB per SM, rounded down to whole sets as the
/// memory side builds it).
inline std::uint64_t l15_bytes_per_module(const machine& m) {
    return m.l15_geometry().capacity_bytes();
}

/// "193/195/192/188": pages per partition.
inline std::string pages_text(const std::vector<std::uint64_t>& pages) {
    std::string text;
    for (const std::uint64_t p : pages) {
        // Appended piece by piece: `"/" + std::to_string(p)` draws a false -Wrestrict from
        // g++ 12's libstdc++.
        if (!text.empty()) text += '/';
        text += std::to_string(p);
    }
    return text;
}

/// The main table's header (the ctest check looks for it).
constexpr std::string_view traffic_header =
    "config        inter-MB    rel    cut  local%  remote-req   ring-req  L1.5hit%   DRAM-MB"
    "  time-us  speedup";

/// EDPSE of config `c` at every scaling point, against the 1-module run if it was done.
inline std::vector<std::optional<double>> edpse_row(const kernel_study& s, std::size_t c,
                                                    const options& o) {
    std::vector<std::optional<double>> row(s.scaling.size());
    const auto base_it = std::find(o.scaling.begin(), o.scaling.end(), 1u);
    if (base_it == o.scaling.end()) return row;
    const std::size_t b = static_cast<std::size_t>(base_it - o.scaling.begin());
    if (b >= s.scaling.size()) return row;
    // The base is one module of the baseline configuration (a monolithic module: no remote data,
    // its whole L2 budget as L2) for every configuration, so EDPSE compares each N-module
    // design with the same single module.
    const auto& base = s.scaling[b].configs[0];
    if (s.scaling[b].partial) return row; // a run cut short is no base
    const energy::run_point bp{base.joules.total(), base.seconds(), 1};
    for (std::size_t i = 0; i < s.scaling.size(); ++i) {
        const auto& r = s.scaling[i].configs[c];
        if (s.scaling[i].partial || !s.scaling[i].ran[c] || r.cycles <= 0 || base.cycles <= 0)
            continue;
        row[i] = energy::edpse(bp, {r.joules.total(), r.seconds(), double(s.scaling[i].m.modules)});
    }
    return row;
}

/// The inputs' size against the L1.5s', in binary units (KiB, MiB) throughout.
inline std::string footprint_line(const machine_result& r) {
    const std::uint64_t l15_per_module = l15_bytes_per_module(r.m);
    return fmt::format("footprint {:.2f} MiB; L1.5 {} KiB per module ({:.2f} MiB on {} modules): "
                       "the inputs {} the L1.5s",
                       mib(r.footprint_bytes), l15_per_module / 1024,
                       mib(l15_per_module * r.m.modules), r.m.modules,
                       r.footprint_bytes > l15_per_module * r.m.modules ? "outgrow" : "fit in");
}

inline void print_study(const kernel_study& s, const options& o) {
    const machine_result& r = s.main;
    const config_result& b = r.configs[0];
    fmt::print("\n{} ({}), {} modules x {} SMs: {} warp instructions, {} launches{}\n", s.kernel,
               s.input, r.m.modules, r.m.sms_per_module, b.warp_instructions, b.launches,
               r.partial ? fmt::format(" (PARTIAL: interrupted by signal {}; the "
                                       "configurations marked 'not run' did not run)",
                                       r.interrupted_by)
                         : std::string());
    fmt::print("launch mapping {}, SM order {}, timing {}: {}\n", mapping_name(s.mapping),
               order_name(o.order), o.timing == timing_mode::memory ? "memory" : "constant",
               o.timing == timing_mode::memory
                   ? describe(o.latency)
                   : std::string("analytic (max of issue, DRAM and link bounds + exposed hops)"));
    fmt::print("{}\n", footprint_line(r));
    fmt::print("{}\n", traffic_header);
    for (std::size_t i = 0; i < o.configs.size(); ++i) {
        const config_result& c = r.configs[i];
        if (!r.ran[i]) {
            fmt::print("{:<12} (not run)\n", o.configs[i].name);
            continue;
        }
        // A stream cut short (or a baseline cut short) has no ratio to the baseline.
        const bool compared = complete(r, i) && complete(r, 0);
        const std::uint64_t requests = c.local_requests + c.remote_requests;
        fmt::print(
            "{:<12} {:>9.2f} {:>6} {:>6} {:>7.2f} {:>11} {:>10} {:>9} {:>9.2f} {:>8.1f} "
            "{:>8}{}\n",
            o.configs[i].name, mb(c.inter_module_bytes),
            compared ? fmt::format("{:.3f}", 1.0 / traffic_cut(c, b)) : std::string("-"),
            compared ? ratio_text(traffic_cut(c, b)) : std::string("-"),
            pct(ratio(double(c.local_requests), double(requests))), c.remote_requests,
            c.ring_requests, o.configs[i].l15 ? fmt::format("{:.2f}", pct(c.l15_hit_rate())) : "-",
            mb(c.dram_read_bytes + c.dram_write_bytes), c.seconds() * 1e6,
            compared ? fmt::format("{:.3f}", ratio(b.seconds(), c.seconds())) : std::string("-"),
            r.stopped[i] ? " (partial)" : "");
    }
    const bool timed = o.timing == timing_mode::memory;
    if (timed)
        fmt::print("time (kcycles): the launches' cycles / the busiest DRAM partition's and ring "
                   "link's busy time, and their utilisation %; energy (mJ, on-package, {} W "
                   "constant per module)\n",
                   o.constant_power_w);
    else
        fmt::print("time model bounds (kcycles): issue / DRAM / link / +latency; energy (mJ, "
                   "on-package, {} W constant per module)\n",
                   o.constant_power_w);
    fmt::print("{:<12} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}\n",
               "config", timed ? "cycles" : "issue", "DRAM", "link", timed ? "DRAM/lnk" : "latency",
               "compute", "L1", "L2->L1", "DRAM", "links", "const", "total mJ");
    for (std::size_t i = 0; i < o.configs.size(); ++i) {
        const config_result& c = r.configs[i];
        const auto& e = c.joules;
        if (!r.ran[i]) continue;
        fmt::print(
            "{:<12} {:>7.1f} {:>7.1f} {:>7.1f} {:>8} {:>8.4f} {:>8.4f} {:>8.4f} {:>8.4f} "
            "{:>8.4f} {:>8.4f} {:>9.4f}\n",
            o.configs[i].name, c.issue_cycles / 1e3, c.dram_bound_cycles / 1e3,
            c.link_bound_cycles / 1e3,
            timed ? fmt::format("{:.0f}/{:.0f}%", pct(c.dram_utilisation), pct(c.link_utilisation))
                  : fmt::format("{:.1f}", c.latency_cycles / 1e3),
            e.compute * 1e3, e.l1_shared * 1e3, e.l2_to_l1 * 1e3, e.dram_to_l2 * 1e3,
            e.inter_module * 1e3, e.constant * 1e3, e.total() * 1e3);
    }
    for (std::size_t i = 0; i < o.configs.size(); ++i)
        if (r.ran[i] && !r.configs[i].pages_per_partition.empty())
            fmt::print("{:<12} first-touch pages per partition: {}\n", o.configs[i].name,
                       pages_text(r.configs[i].pages_per_partition));
    if (s.scaling.empty()) return;
    fmt::print("EDPSE % / speedup, both vs the baseline on 1 module of {} SMs (same kernel)\n",
               o.sms_per_module);
    fmt::print("{:<12}", "config");
    for (const auto& p : s.scaling) fmt::print(" {:>14}", fmt::format("{} mod", p.m.modules));
    fmt::print("\n");
    // The 1-module run, when it was done and finished (a stop signal ends the scaling runs at
    // the first partial one, so s.scaling may be shorter than o.scaling).
    const config_result* base = nullptr;
    if (const auto base_it = std::find(o.scaling.begin(), o.scaling.end(), 1u);
        base_it != o.scaling.end()) {
        const std::size_t k = static_cast<std::size_t>(base_it - o.scaling.begin());
        if (k < s.scaling.size() && !s.scaling[k].partial) base = &s.scaling[k].configs[0];
    }
    for (const std::size_t c : {std::size_t{0}, all_three}) {
        const auto row = edpse_row(s, c, o);
        fmt::print("{:<12}", o.configs[c].name);
        for (std::size_t i = 0; i < s.scaling.size(); ++i) {
            std::string speed = "-";
            if (base != nullptr)
                speed = fmt::format("{:.2f}x",
                                    ratio(base->seconds(), s.scaling[i].configs[c].seconds()));
            fmt::print(" {:>14}", row[i] ? fmt::format("{:.1f}/{}", *row[i], speed) : "-");
        }
        fmt::print("\n");
    }
}

/// A kernel × configuration table of `value(study, config)` (baseline / config ratios, "inf" when
/// infinite; "-" for a configuration not run or cut short) with the geometric mean over the
/// kernels that have every ratio.
template <class Value>
void print_ratio_table(const std::vector<const kernel_study*>& studies, const options& o,
                       Value&& value) {
    fmt::print("{:<10}", "kernel");
    for (const auto& c : o.configs) fmt::print(" {:>11}", c.name);
    fmt::print("\n");
    std::vector<double> log_sum(o.configs.size());
    std::size_t counted = 0;
    for (const kernel_study* s : studies) {
        fmt::print("{:<10}", s->kernel);
        bool all_finite = !s->main.partial; // a partial run stays out of the mean
        std::vector<double> row(o.configs.size());
        for (std::size_t i = 0; i < o.configs.size(); ++i) {
            if (!complete(s->main, i) || !complete(s->main, 0)) { // not run, or cut short
                fmt::print(" {:>11}", "-");
                all_finite = false;
                continue;
            }
            row[i] = value(*s, i);
            all_finite = all_finite && row[i] > 0 && std::isfinite(row[i]);
            fmt::print(" {:>11}", ratio_text(row[i]));
        }
        fmt::print("\n");
        if (all_finite) {
            ++counted;
            for (std::size_t i = 0; i < o.configs.size(); ++i) log_sum[i] += std::log(row[i]);
        }
    }
    if (counted > 1) {
        fmt::print("{:<10}", "geomean");
        for (std::size_t i = 0; i < o.configs.size(); ++i)
            fmt::print(" {:>11}", fmt::format("{:.2f}x", std::exp(log_sum[i] / counted)));
        fmt::print("\n");
    }
}

/// The closing tables, once per launch mapping run: the inter-module traffic cut and the
/// speedup of every configuration over the baseline, and EDPSE on the main machine.
inline void print_summary(const std::vector<kernel_study>& studies, const options& o,
                          double sim_seconds, double cpu_seconds, std::uint64_t simulated) {
    if (studies.empty()) return;
    const std::uint32_t modules = studies.front().main.m.modules;
    for (const simt::launch_mapping mapping : o.mappings) {
        std::vector<const kernel_study*> group;
        for (const auto& s : studies)
            if (s.mapping == mapping) group.push_back(&s);
        if (group.empty()) continue;
        const std::string tag =
            fmt::format("{} modules, {} timing, launch mapping {}, SM order {}", modules,
                        o.timing == timing_mode::memory ? "memory" : "constant",
                        mapping_name(mapping), order_name(o.order));
        fmt::print("\ninter-module traffic cut vs baseline (baseline bytes / config bytes), {}\n",
                   tag);
        print_ratio_table(group, o, [](const kernel_study& s, std::size_t i) {
            return traffic_cut(s.main.configs[i], s.main.configs[0]);
        });
        fmt::print("speedup vs baseline (baseline time / config time), {}\n", tag);
        print_ratio_table(group, o, [](const kernel_study& s, std::size_t i) {
            return ratio(s.main.configs[0].seconds(), s.main.configs[i].seconds());
        });
        const auto at = std::find(o.scaling.begin(), o.scaling.end(), modules);
        if (at != o.scaling.end()) {
            fmt::print("EDPSE % on {} modules vs 1 module (baseline / L1.5+DS+FT):", modules);
            for (const kernel_study* s : group) {
                const std::size_t k = static_cast<std::size_t>(at - o.scaling.begin());
                const auto b = edpse_row(*s, 0, o), a = edpse_row(*s, all_three, o);
                const auto text = [&](const std::vector<std::optional<double>>& r) {
                    return k < r.size() && r[k] ? fmt::format("{:.1f}", *r[k]) : std::string("-");
                };
                fmt::print(" {} {}/{};", s->kernel, text(b), text(a));
            }
            fmt::print("\n");
        }
    }
    fmt::print("simulated {} warp instructions in {:.2f} s ({:.2f} s CPU): {:.2f} M warp "
               "instructions/s wall, {:.2f} M/s CPU ({})\n",
               simulated, sim_seconds, cpu_seconds,
               sim_seconds > 0 ? simulated / sim_seconds / 1e6 : 0.0,
               cpu_seconds > 0 ? simulated / cpu_seconds / 1e6 : 0.0,
               o.timing == timing_mode::memory
                   ? "one stream per configuration, each with its memory side"
                   : "4-module runs: L1s + four memory-side configurations per stream; EDPSE "
                     "runs: one");
}

/// An error that ended the run in a kernel's study: that kernel has no figures.
struct run_failure {
    std::string kernel;
    simt::launch_mapping mapping = simt::launch_mapping::same;
    std::string error;
};

/// The results as one table (memsub/explorer/result_table.hpp): a row per kernel, module count and
/// configuration that ran (the EDPSE runs simulate the baseline and all three), the main run's
/// module count first. Every row has the status columns partial (a stop signal cut its run
/// short), interrupted_by_signal and error (empty: the kernels read no input file). A run ended
/// by an error (`failed`) adds a row for the kernel it stopped in: partial, the error, no figures.
inline memsub::explorer::result_table results_table(const std::vector<kernel_study>& studies,
                                                    const options& o,
                                                    const std::optional<run_failure>& failed = {}) {
    memsub::explorer::result_table table(std::string{program});
    const auto rows = [&](const kernel_study& s, const machine_result& m) {
        const std::string& k = s.kernel;
        for (std::size_t i = 0; i < o.configs.size(); ++i) {
            if (!m.ran[i]) continue;
            const auto& c = m.configs[i];
            const auto& e = c.joules;
            table.add_row()
                .text("kernel", k)
                .number("modules", m.m.modules)
                .number("sms_per_module", m.m.sms_per_module)
                .text("config", o.configs[i].name)
                .number("distributed", int(o.configs[i].distributed))
                .number("first_touch", int(o.configs[i].first_touch))
                .number("l15", int(o.configs[i].l15))
                .number("warp_instructions", c.warp_instructions)
                .number("launches", c.launches)
                .number("l1_load_accesses", c.l1_load_accesses)
                .number("l1_load_hits", c.l1_load_hits)
                .number("local_requests", c.local_requests)
                .number("remote_requests", c.remote_requests)
                .number("ring_requests", c.ring_requests)
                .number("l15_lookups", c.l15_lookups)
                .number("l15_hits", c.l15_hits)
                .number("l15_flushes", c.l15_flushes)
                .number("ring_payload_bytes", c.ring_payload_bytes)
                .number("inter_module_bytes", c.inter_module_bytes)
                .number("dram_read_bytes", c.dram_read_bytes)
                .number("dram_write_bytes", c.dram_write_bytes)
                .number("issue_cycles", c.issue_cycles)
                .number("dram_bound_cycles", c.dram_bound_cycles)
                .number("link_bound_cycles", c.link_bound_cycles)
                .number("latency_cycles", c.latency_cycles, "{:.3f}")
                .number("cycles", c.cycles, "{:.3f}")
                .number("energy_compute_j", e.compute, "{:.6e}")
                .number("energy_l1_j", e.l1_shared, "{:.6e}")
                .number("energy_l2_to_l1_j", e.l2_to_l1, "{:.6e}")
                .number("energy_dram_j", e.dram_to_l2, "{:.6e}")
                .number("energy_links_j", e.inter_module, "{:.6e}")
                .number("energy_constant_j", e.constant, "{:.6e}")
                .number("energy_total_j", e.total(), "{:.6e}")
                .boolean("partial", m.partial)
                .optional_number("interrupted_by_signal", m.interrupted_by != 0
                                                              ? std::optional(m.interrupted_by)
                                                              : std::nullopt)
                .null("error")
                // Appended: the columns before them keep their places.
                .number("sector_runs", c.sector_runs)
                .text("timing", o.timing == timing_mode::memory ? "memory" : "constant")
                .text("launch_mapping", mapping_name(s.mapping))
                .text("sm_order", order_name(o.order))
                .number("l1_hit_cycles", o.latency.l1_hit_cycles)
                .number("to_l2_cycles", o.latency.to_l2_cycles)
                .number("l2_hit_cycles", o.latency.l2_hit_cycles)
                .number("hop_cycles", o.latency.hop_cycles)
                .number("path_crossings", o.latency.path_crossings)
                .number("l15_lookup_cycles", o.latency.l15_lookup_cycles)
                .number("l15_hit_cycles", o.latency.l15_hit_cycles)
                .number("dram_cycles", o.latency.dram_cycles)
                .number("dram_utilisation", c.dram_utilisation, "{:.4f}")
                .number("link_utilisation", c.link_utilisation, "{:.4f}")
                .text("ft_pages_per_partition", pages_text(c.pages_per_partition))
                .number("footprint_bytes", m.footprint_bytes)
                .number("l15_bytes_per_module", l15_bytes_per_module(m.m))
                .number("l15_sync_commands", c.l15_sync_commands);
        }
    };
    for (const auto& s : studies) {
        rows(s, s.main);
        for (const auto& m : s.scaling)
            if (m.m.modules != s.main.m.modules) rows(s, m);
    }
    if (failed)
        table.add_row()
            .text("kernel", failed->kernel)
            .boolean("partial", true)
            .text("error", failed->error)
            .text("launch_mapping", mapping_name(failed->mapping));
    return table;
}

/// A study's name in the plot: the kernel, and its launch mapping when several ran.
inline std::string plot_label(const kernel_study& s, const options& o, std::string_view separator) {
    return o.mappings.size() > 1
               ? fmt::format("{}{}{}", s.kernel, separator, mapping_name(s.mapping))
               : s.kernel;
}

/// Writes FILE.traffic.dat, FILE.edpse.dat and FILE.gp beside the plot and renders it: the
/// inter-module traffic relative to the baseline per kernel and configuration, and EDPSE over
/// module counts. A panel with nothing to show is left out, and the plot is not drawn when
/// neither has anything; a note on stdout says which and why. Returns whether it was drawn.
inline bool write_plot(const std::string& file, const std::string& terminal,
                       const std::vector<kernel_study>& studies, const options& o) {
    const auto note = [&](const std::string& text) {
        fmt::print("note: --plot {}: {}\n", file, text);
    };
    // Traffic: a kernel whose baseline moved no byte between modules has no ratio to show.
    std::vector<const kernel_study*> traffic;
    for (const auto& s : studies) {
        if (s.main.ran[0] && s.main.configs[0].inter_module_bytes > 0)
            traffic.push_back(&s);
        else if (o.modules > 1)
            note(fmt::format("{} has no bars in the traffic panel: its baseline moved no byte "
                             "between modules",
                             s.kernel));
    }
    std::string traffic_gone;
    if (traffic.empty())
        traffic_gone = o.modules == 1 ? "one module (--modules 1) moves no byte between modules, "
                                        "so there is no traffic relative to the baseline"
                                      : "no kernel's baseline moved a byte between modules";
    // EDPSE: the (kernel, configuration) series with at least one point.
    struct series {
        std::string title;
        std::vector<std::optional<double>> points; // o.scaling order
    };
    std::vector<series> edpse;
    for (const auto& s : studies)
        for (const std::size_t c : {std::size_t{0}, all_three}) {
            auto row = edpse_row(s, c, o);
            if (std::any_of(row.begin(), row.end(), [](const auto& v) { return v.has_value(); }))
                edpse.push_back(
                    {fmt::format("{}_{}", plot_label(s, o, "_"), c == 0 ? "baseline" : "all_three"),
                     std::move(row)});
        }
    std::string edpse_gone;
    if (edpse.empty())
        edpse_gone = o.scaling.empty() ? "--scaling none runs no module counts"
                     : std::find(o.scaling.begin(), o.scaling.end(), 1u) == o.scaling.end()
                         ? "--scaling has no 1-module run, which EDPSE is measured against (add 1)"
                         : "no scaling run completed (interrupted)";
    if (traffic.empty() && edpse.empty()) {
        note(fmt::format("not drawn: both panels are empty: {}; {}", traffic_gone, edpse_gone));
        return false;
    }
    if (traffic.empty()) note("the traffic panel is left out: " + traffic_gone);
    if (edpse.empty()) note("the EDPSE panel is left out: " + edpse_gone);
    // A configuration no kernel ran (a stop signal before the distributed-scheduling stream)
    // has no bars: gnuplot rejects a histogram column without a valid point.
    std::vector<bool> shown(o.configs.size());
    std::string missing;
    for (std::size_t i = 0; i < o.configs.size(); ++i) {
        for (const kernel_study* s : traffic) shown[i] = shown[i] || s->main.ran[i];
        if (!traffic.empty() && !shown[i])
            missing += (missing.empty() ? "" : ", ") + std::string(o.configs[i].name);
    }
    if (!missing.empty())
        note("the traffic panel has no bars for " + missing + " (not run: interrupted)");

    const std::string traffic_dat = file + ".traffic.dat", edpse_dat = file + ".edpse.dat",
                      gp = file + ".gp";
    if (!traffic.empty()) {
        std::ofstream out(traffic_dat);
        out << "kernel";
        for (const auto& c : o.configs) out << ' ' << c.name;
        out << "\n";
        for (const kernel_study* s : traffic) {
            const double base = double(s->main.configs[0].inter_module_bytes);
            out << '"' << plot_label(*s, o, " ") << (s->main.partial ? " (partial)" : "") << '"';
            for (std::size_t i = 0; i < o.configs.size(); ++i)
                out << (s->main.ran[i]
                            ? fmt::format(" {:.4f}",
                                          double(s->main.configs[i].inter_module_bytes) / base)
                            : std::string(" NaN"));
            out << "\n";
        }
        if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", traffic_dat));
    }
    std::uint32_t lo = 0, hi = 0; // the module counts with an EDPSE point
    if (!edpse.empty()) {
        std::ofstream out(edpse_dat);
        out << "modules";
        for (const auto& e : edpse) out << ' ' << e.title;
        out << "\n";
        for (std::size_t i = 0; i < o.scaling.size(); ++i) {
            bool any = false;
            std::string line = std::to_string(o.scaling[i]);
            for (const auto& e : edpse) {
                const auto& v = i < e.points.size() ? e.points[i] : std::nullopt;
                any = any || v.has_value();
                line += v ? fmt::format(" {:.3f}", *v) : std::string(" NaN");
            }
            if (!any) continue;
            lo = lo == 0 ? o.scaling[i] : std::min(lo, o.scaling[i]);
            hi = std::max(hi, o.scaling[i]);
            out << line << "\n";
        }
        if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", edpse_dat));
    }
    {
        const bool both = !traffic.empty() && !edpse.empty();
        std::ofstream out(gp);
        out << "# mcm_explorer: inter-module traffic relative to the baseline; EDPSE vs modules\n"
            << "set terminal " << terminal << " size " << (both ? "1400,560" : "760,560") << "\n"
            << "set output " << gnuplot_quoted(file) << "\n";
        if (both) out << "set multiplot layout 1,2\n";
        if (!traffic.empty()) {
            out << "set title "
                << gnuplot_quoted(fmt::format("inter-module bytes / baseline, {} x {} SMs",
                                              o.modules, o.sms_per_module))
                << " noenhanced\n"
                << "set style data histograms\nset style histogram clustered gap 1\n"
                   "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
                   "set ylabel 'relative inter-module bytes'\nset yrange [0:*]\nset grid ytics\n"
                   "set key outside bottom center horizontal noenhanced\n"
                   "set xtics scale 0 noenhanced\n"
                << "plot " << gnuplot_quoted(traffic_dat) << " using 2:xtic(1) title columnheader";
            for (std::size_t i = 1; i < o.configs.size(); ++i) // the baseline's column is 2
                if (shown[i]) out << ", '' using " << i + 2 << " title columnheader";
            out << "\n";
        }
        if (!edpse.empty()) {
            // An explicit x range: gnuplot rejects the empty range of a single module count on
            // a log scale.
            out << "set title " << gnuplot_quoted("EDPSE vs modules (100 = ideal)") << "\n"
                << "set style data linespoints\nset logscale x 2\nset xlabel 'modules'\n"
                << fmt::format("set xrange [{}:{}]\n", lo / 1.5, hi * 1.5)
                << "set ylabel 'EDPSE %'\nset yrange [0:*]\nset xtics auto\n"
                   "set key outside bottom center horizontal noenhanced\n"
                << "plot " << gnuplot_quoted(edpse_dat) << " using 1:2 title columnheader";
            for (std::size_t i = 3; i <= edpse.size() + 1; ++i)
                out << ", '' using 1:" << i << " title columnheader";
            out << "\n";
        }
        if (both) out << "unset multiplot\n";
        if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", gp));
    }
    if (memsub::explorer::render_with_gnuplot(gp, file)) fmt::print("plot: {}\n", file);
    return true;
}

inline options parse(int argc, char** argv) {
    options o;
    for (memsub::explorer::option_reader r(argc, argv); r.next();) {
        const std::string_view arg = r.arg();
        const auto value = [&] { return r.value(); };
        if (arg == "--help" || arg == "-h") {
            usage(0);
        } else if (arg == "--kernels") {
            o.kernels = memsub::explorer::parse_known_names(arg, value(), all_kernels, "kernel");
        } else if (arg == "--modules") {
            o.modules =
                memsub::explorer::parse_unsigned_as<std::uint32_t>("--modules", value(), 1, 64);
        } else if (arg == "--sms-per-module") {
            o.sms_per_module = memsub::explorer::parse_unsigned_as<std::uint32_t>(
                "--sms-per-module", value(), 1, 256);
        } else if (arg == "--scaling") {
            const std::string_view v = value();
            o.scaling.clear();
            if (v != "none")
                for (const auto& n : memsub::explorer::split_list(v))
                    o.scaling.push_back(
                        memsub::explorer::parse_unsigned_as<std::uint32_t>("--scaling", n, 1, 64));
            o.scaling = memsub::explorer::without_repeats(std::move(o.scaling));
        } else if (arg == "--launches") {
            o.launches =
                memsub::explorer::parse_unsigned_as<std::uint32_t>("--launches", value(), 1, 1000);
        } else if (arg == "--seed") {
            o.seed = memsub::explorer::parse_unsigned("--seed", value());
        } else if (arg == "--scale") {
            o.scale = memsub::explorer::parse_positive_real("--scale", value(), 100.0);
        } else if (arg == "--constant-power") {
            o.constant_power_w =
                memsub::explorer::parse_positive_real("--constant-power", value(), 10000.0);
        } else if (arg == "--csv") {
            o.csv = std::string(value());
        } else if (arg == "--plot") {
            o.plot = std::string(value());
            o.plot_terminal = memsub::explorer::plot_terminal_or_throw("--plot", *o.plot);
        } else if (arg == "--timing") {
            const std::string_view v = value();
            if (v == "memory")
                o.timing = timing_mode::memory;
            else if (v == "constant")
                o.timing = timing_mode::constant;
            else
                throw option_error(
                    fmt::format("--timing: unknown mode '{}' (memory or constant)", v));
        } else if (arg == "--launch-mapping") {
            const std::string_view v = value();
            if (v == "same")
                o.mappings = {simt::launch_mapping::same};
            else if (v == "shuffled")
                o.mappings = {simt::launch_mapping::shuffled};
            else if (v == "both")
                o.mappings = {simt::launch_mapping::same, simt::launch_mapping::shuffled};
            else
                throw option_error(fmt::format(
                    "--launch-mapping: unknown mapping '{}' (same, shuffled or both)", v));
        } else if (arg == "--sm-order") {
            const std::string_view v = value();
            const auto order = simt::sm_order_named(v);
            if (!order)
                throw option_error(
                    fmt::format("--sm-order: unknown order '{}' (rotating, seeded or fixed)", v));
            o.order = *order;
        } else if (arg == "--l1-hit-cycles") {
            o.latency.l1_hit_cycles = memsub::explorer::parse_unsigned_as<std::uint32_t>(
                "--l1-hit-cycles", value(), 1, o.latency.l2_hit_cycles);
        } else if (arg == "--path-crossings") {
            o.latency.path_crossings = memsub::explorer::parse_unsigned_as<std::uint32_t>(
                "--path-crossings", value(), 1, 2);
        } else if (arg == "--quiet") {
            o.quiet = true;
        } else {
            throw option_error(fmt::format("unknown option '{}' (--help lists them)", arg));
        }
    }
    return o;
}

/// An extra type's configuration, named by an instance built for the main machine `m` (its
/// construction validates the type's parameters: a config_error here is a usage error).
template <class Extra>
config_desc extra_config(const machine& m) {
    static_assert(placement::placement_policy<Extra> || cta::cta_scheduler<Extra>,
                  "run_mcm_explorer: each extra type must model placement::placement_policy or "
                  "cta::cta_scheduler (diagnose_placement_policy / diagnose_cta_scheduler name "
                  "the broken requirement)");
    static_assert(!(placement::placement_policy<Extra> && cta::cta_scheduler<Extra>),
                  "run_mcm_explorer: an extra type cannot be both a placement and a CTA scheduler");
    if constexpr (cta::cta_scheduler<Extra>) {
        const Extra s(cta_scheduler_params<Extra>(m));
        return {.name = std::string(s.name()), .extra = true};
    } else {
        // Its name; run() checks it against every kernel's footprint before any work.
        const Extra p(placement_params<Extra>(m, 0));
        check_extra_placement<Extra>(m, 0);
        return {.name = std::string(p.name()), .extra = true};
    }
}

/// The library's eight configurations, then one per extra type; throws config_error when an
/// extra's name is empty or repeats another configuration's.
template <class... Extras>
std::vector<config_desc> configurations(const machine& m) {
    std::vector<config_desc> out;
    for (const library_config& c : library_configs)
        out.push_back({std::string(c.name), c.distributed, c.first_touch, c.l15, false});
    (out.push_back(extra_config<Extras>(m)), ...);
    for (std::size_t i = library_config_count; i < out.size(); ++i) {
        memsub::require(!out[i].name.empty(), "mcm_explorer", "name()", i,
                        "an extra type's name() must not be empty");
        for (std::size_t j = 0; j < i; ++j)
            if (out[j].name == out[i].name)
                throw memsub::config_error("mcm_explorer", "name()", out[i].name,
                                           "names another configuration already: every "
                                           "configuration needs a name of its own");
    }
    return out;
}

template <class... Extras>
int run(int argc, char** argv) {
    options o = memsub::explorer::parse_or_exit(program, [&] { return parse(argc, argv); });
    try {
        o.configs = configurations<Extras...>({o.modules, o.sms_per_module});
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return status::usage_error;
    }
    // Every output is checked before the run, so a long run cannot end in an output error that
    // was knowable at its start (the writers still report a failure while writing).
    if (!memsub::explorer::outputs_writable_or_report(program, [&] {
            if (o.csv) memsub::explorer::check_writable("--csv", *o.csv);
            if (o.plot)
                for (const std::string suffix : {"", ".traffic.dat", ".edpse.dat", ".gp"})
                    memsub::explorer::check_writable("--plot", *o.plot + suffix);
        }))
        return status::usage_error;
    // An extra placement is built for each kernel's footprint when it runs: each is checked
    // against every kernel's footprint now (the inputs are built, nothing is simulated), so a
    // params error does not end the run after the library's streams.
    if constexpr ((placement::placement_policy<Extras> || ...)) {
        const int probed =
            memsub::explorer::run_reporting_errors(program, "building the kernels' inputs", [&] {
                for (std::size_t k = 0; k < o.kernels.size(); ++k)
                    (void)run_named<Extras...>(o.kernels[k], o.mappings.front(), o,
                                               {k, o.kernels.size()}, true);
                return status::ok;
            });
        if (probed != status::ok) return probed;
    }
    memsub::explorer::install_stop_handlers();
    std::vector<kernel_study> studies;
    std::vector<std::string> not_run; // kernels left out by a stop signal
    double sim_seconds = 0, cpu_seconds = 0;
    std::uint64_t simulated = 0;
    // An error in a kernel's runs ends the run, but the kernels finished before it are still
    // printed and written (the error in a row of its own), and the status says what went wrong.
    std::optional<run_failure> failed;
    std::string running;
    simt::launch_mapping failed_mapping = o.mappings.front();
    std::string memory_use =
        fmt::format("simulating {} modules of {} SMs", o.modules, o.sms_per_module);
    const int failed_status = memsub::explorer::run_reporting_errors(program, memory_use, [&] {
        try {
            // Every kernel under the first launch mapping, then under the next.
            const std::size_t runs = o.mappings.size() * o.kernels.size();
            const auto mapping_of = [&](std::size_t i) { return o.mappings[i / o.kernels.size()]; };
            const auto kernel_of = [&](std::size_t i) -> const std::string& {
                return o.kernels[i % o.kernels.size()];
            };
            const auto run_one = [&](std::size_t i) {
                running = kernel_of(i);
                failed_mapping = mapping_of(i);
                studies.push_back(run_named<Extras...>(kernel_of(i), mapping_of(i), o, {i, runs}));
                const auto& s = studies.back();
                const auto count = [&](const machine_result& m) {
                    sim_seconds += m.wall_seconds;
                    cpu_seconds += m.cpu_seconds;
                    simulated += m.warp_instructions_simulated;
                };
                count(s.main);
                for (const auto& m : s.scaling)
                    if (m.m.modules != s.main.m.modules) count(m);
                print_study(s, o);
            };
            not_run = memsub::explorer::run_until_stopped(runs, run_one, [&](std::size_t i) {
                return o.mappings.size() > 1 ? fmt::format("{} ({} mapping)", kernel_of(i),
                                                           mapping_name(mapping_of(i)))
                                             : kernel_of(i);
            });
        } catch (const placement::capacity_error& e) { // a page table too small: a configuration's
            failed = run_failure{running, failed_mapping, e.what()};
            fmt::print(stderr, "{}: {}\n", program, e.what());
            return status::usage_error;
        } catch (const std::bad_alloc&) {
            failed = run_failure{running, failed_mapping, "out of memory while " + memory_use};
            throw;
        } catch (const std::exception& e) {
            failed = run_failure{running, failed_mapping, e.what()};
            throw;
        }
        return status::ok;
    });
    if (const int signal = memsub::explorer::stop_requested(); signal != 0)
        fmt::print("PARTIAL: interrupted by signal {} ({}kernels not run: {})\n", signal,
                   !studies.empty() && studies.back().partial
                       ? fmt::format("the {} figures are partial; ", studies.back().kernel)
                       : std::string(),
                   not_run.size());
    print_summary(studies, o, sim_seconds, cpu_seconds, simulated);
    // Partial results are written too; an output that fails does not stop the others.
    memsub::explorer::output_attempts outputs;
    const auto attempt = [&](auto&& write) { outputs.attempt(write); };
    if (o.csv) attempt([&] { results_table(studies, o, failed).write_csv(*o.csv); });
    if (o.plot) attempt([&] { (void)write_plot(*o.plot, o.plot_terminal, studies, o); });
    for (const auto& f : outputs.failures())
        fmt::print(stderr, "{}: output error: {}\n", program, f);
    if (failed_status != status::ok) return failed_status;
    if (const int signal = memsub::explorer::stop_requested(); signal != 0)
        return memsub::explorer::report_interruption(program, signal, not_run);
    return outputs.ok() ? status::ok : status::input_error;
}

} // namespace mcm_explorer_detail

/// The mcm_explorer study's command line (`--help` lists it) on the library's eight
/// configurations and one more per type of `Extras` (each a placement::placement_policy or a
/// cta::cta_scheduler), named by its name(); an extra replaces the baseline's placement or CTA
/// scheduler. Returns the exit status (0 success, 1 an output could not be written or a run
/// failed, 2 bad usage or configuration, 4 out of memory, 128 + N stopped by signal N); a run
/// ended by an error still prints and writes the kernels finished before it.
template <class... Extras>
int run_mcm_explorer(int argc, char** argv) {
    mcm_explorer_detail::program = program_name(argc, argv, "mcm_explorer");
    return mcm_explorer_detail::run<Extras...>(argc, argv);
}

} // namespace memsub::explorer
