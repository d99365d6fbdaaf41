// memsub::explorer — the LATTE-CC study as a function template: run_latte_explorer<Selectors...>
// (argc, argv) is the latte_explorer study's whole command line (docs/tools/latte_explorer.md),
// with the user's own mode selectors (selection/concept.hpp) run beside the library's
// configurations, each named by its name(). The study itself passes none.
//
// latte_explorer — the LATTE-CC study ([Dissertation] §4.3.4–§4.3.7, Fig. 4.15): SIMT kernels on
// a GPU of N SMs (15 by default, [Dissertation] Table 4.2: 48 warps per SM, GTO, minimum L2
// latency 120 cycles), each SM with its own compressed 16 KB L1D (gpu::compressed_l1), through
// one configuration at a time:
//
//   none                static mode 0: every line uncompressed (the 16 KB baseline)
//   static_bdi          Static-BDI: every line in BDI (low latency, 2 cycles)
//   static_sc           Static-SC: every line in SC² (high capacity, 14 cycles)
//   adaptive_hit_count  set sampling, followers take the mode with the most hits (§4.3.6)
//   adaptive_cmp        Alameldeen & Wood's global predictor, SC² as its compressed mode
//   latte_cc            LATTE-CC: the mode with the least AMAT_gpu given the latency tolerance
//   latte_cc_bdi_bpc    LATTE-CC with BPC instead of SC² as the high-capacity mode (§4.3.7)
//
// and, to classify each kernel, an uncompressed 64 KB L1 (a conventional set-associative LRU
// write-evict cache of 128 sets × 4 ways × 128 B, 4× the baseline's sets): a kernel is
// cache-sensitive (C-Sens) when that L1 runs it more than 20 % faster than `none` (§4.3.4).
// Decision: the 16 KB reference of the classification is the `none` pass (mode 0 of the
// compressed L1 keeps 4 uncompressed lines per set, LRU, write-evict: the conventional 16 KB L1's
// behaviour), so the classification costs one extra pass, not two. Considered: a conventional
// 16 KB pass too; it would only re-measure `none`.
//
// Time: every configuration runs its own timed pass (a fresh kernel, a host-latency GTO
// scheduler, its own Table 3.1 memory side — gpu::l2_dram_timing — and its own SC² code book,
// gpu::shared_code_book shared by the pass's L1s), through simt::run_timed. An L1 hit's data is
// back after the L1 hit latency (20 cycles) plus the decompression the compressed L1 reports
// (Eq. 4.3, `extra_hit_cycles`, which simt::timed_requests adds), so decompression queueing feeds
// the warps' load latency.
// Latency tolerance: each SM has a selection::latency_tolerance_estimator (GTO source) over the
// pass's scheduler, sampled at every warp instruction the SM issues, closed at every
// experimental phase (EP: 256 accesses of that SM's L1, the selector's own EP when it counts
// EPs); the tolerance is its mean available warps × the mean issue run in issue slots (the
// scheduler's slot runs: a warp's arithmetic counts, a wait ends the run;
// `--tolerance-runs instructions` counts memory instructions instead), and goes to the L1
// (`set_latency_tolerance`). The same estimators run in every
// pass, so every configuration reports its mean tolerance.
//
// Per kernel × configuration the table shows cycles and the speedup over none, L1 load misses
// and their change vs none, the mean hit latency, the mean tolerance, AMAT_gpu (selection::
// gpu_amat from the pass's hits, misses at 120 cycles, mean hit latency and mean tolerance), the
// mean effective capacity, the followers' mode time-shares (accesses while each mode was the
// one inserted lines take), compression + decompression energy, SC² code-book builds and the
// lines retired with old books. A kernel of several launches (BFS levels, the phase-changing
// run) also gets a per-launch table: cycles per configuration, LATTE-CC's mean tolerance and
// mode shares in that launch; and Kernel-OPT (§4.3.5): per launch the static mode (none, BDI,
// SC²) with the fewest cycles in that launch, summed.
//
// The phase-changing run (`phases`, simt::phase_kernel): launches that alternate a
// latency-tolerant phase (16 warps per SM gathering whole 128 B lines of a 48 KB table that only a
// compressed L1 holds, with ALU work between loads) and a latency-sensitive phase (one warp per SM
// chasing through a 22 KB table, nothing between loads), so LATTE-CC should take SC² in the first
// and fall back in the second. Its tables hold integers from a skewed set of 16 values (SC²
// codes them in a few bits each; BDI needs 2-byte deltas).
//
//   latte_explorer                               the default kernels (about 20 s on 2 cores)
//   latte_explorer --configs none,static_sc,latte_cc phases
//   latte_explorer --scale 4 --plot latte.svg --plot-kernel phases
//   latte_explorer --csv study.csv --json study.json
//
// A user's selector (run_latte_explorer<mine>) is one more configuration after latte_cc_bdi_bpc,
// on the L1 LATTE-CC uses (none / BDI / SC²), with the same rows, columns and per-launch cycles.
//
// Part of the explorer module (CMake target memsub::explorer; needs {fmt}).
#pragma once

#include <memsub/cache/basic_cache.hpp>
#include <memsub/compression/bdi.hpp>
#include <memsub/compression/bpc.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/compressed_l1.hpp>
#include <memsub/gpu/shared_code_book.hpp>
#include <memsub/gpu/timing.hpp>
#include <memsub/selection/all.hpp>
#include <memsub/workload/simt/all.hpp>
#include <memsub/workload/simt/phase_kernel.hpp>
#include <memsub/workload/simt/timed_run.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/plot.hpp>
#include <memsub/explorer/progress.hpp>
#include <memsub/explorer/result_table.hpp>
#include <memsub/explorer/run_report.hpp>
#include <memsub/explorer/signals.hpp>

#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace memsub::explorer::latte_explorer_detail {

namespace simt = memsub::workload::simt;
namespace gpu = memsub::gpu;
namespace sel = memsub::selection;
namespace cmp = memsub::compression;
using memsub::explorer::option_error;

/// The name the program speaks in (argv[0]'s file name).
inline std::string program = "latte_explorer";

namespace status {
inline constexpr int ok = 0, output_error = 1, usage_error = 2, out_of_memory = 4;
}

inline constexpr std::array<std::string_view, 8> all_kernels{
    "bfs", "spmv", "kmeans", "stencil", "matmul", "saxpy", "histogram", "phases"};
inline constexpr std::string_view default_kernels = "bfs,spmv,kmeans,stencil,phases";

/// The library's configurations (the user's follow them, see options::config_names).
inline constexpr std::size_t config_count = 7;
inline constexpr std::array<std::string_view, config_count> library_config_names{
    "none",         "static_bdi", "static_sc",       "adaptive_hit_count",
    "adaptive_cmp", "latte_cc",   "latte_cc_bdi_bpc"};
inline constexpr std::array<std::string_view, config_count> library_config_labels{
    "none",         "Static-BDI", "Static-SC",       "Adaptive-Hit-Count",
    "Adaptive-CMP", "LATTE-CC",   "LATTE-CC-BDI-BPC"};
inline constexpr std::size_t none_config = 0, latte_config = 5;
/// The static configurations Kernel-OPT picks from, by mode.
inline constexpr std::array<std::size_t, 3> static_configs{0, 1, 2};
inline constexpr std::string_view big_l1_name = "uncompressed_64KB";
/// Modes of the compressed L1s: none, BDI, and SC² (BPC for latte_cc_bdi_bpc).
inline constexpr std::size_t modes = 3;

/// [Dissertation] §4.3.3's EP (accesses per L1), which the estimators follow.
inline constexpr std::uint32_t ep_accesses = 256;
/// [Dissertation] §4.3.4: C-Sens when the 4× L1 gains more than this.
inline constexpr double c_sens_threshold = 1.20;

struct options {
    std::vector<std::string> kernels;
    /// Every configuration: the library's `config_count`, then the user's selectors, each named
    /// (in --configs, the CSV and the table) by its selector's name().
    std::vector<std::string> config_names, config_labels;
    std::vector<bool> selected;
    std::uint32_t sms = 15;
    double scale = 1.0;
    std::uint64_t seed = 1;
    bool classify = true;
    /// A warp's issue run counted in issue slots (instructions and their ALU cycles) or in
    /// memory instructions only (selection::run_unit).
    bool slot_runs = true;
    /// EPs per SC² code-book period (the book's rebuild and retirement interval).
    std::uint32_t book_eps = 10;
    bool quiet = false;
    std::optional<std::string> csv, json, plot;
    std::string plot_terminal;
    std::optional<std::string> plot_kernel;

    [[nodiscard]] std::size_t configs() const noexcept { return config_names.size(); }
    [[nodiscard]] bool runs(std::string_view k) const {
        return std::find(kernels.begin(), kernels.end(), k) != kernels.end();
    }
};

// ------------------------------------------------------------------ the phase-changing run

using simt::phase_kernel; // the phase-changing run (see the header comment)

// ------------------------------------------------------------------ configurations

using latte_l1_of = gpu::compressed_l1<sel::latte_cc, cmp::bdi, cmp::sc2>;
template <class Selector>
using bdi_sc2_l1 = gpu::compressed_l1<Selector, cmp::bdi, cmp::sc2>;
using bdi_bpc_l1 = gpu::compressed_l1<sel::latte_cc, cmp::bdi, cmp::bpc>;
/// 4× the baseline L1's sets: 64 KB, uncompressed (the C-Sens reference).
using l1_64kb = memsub::cache::set_associative_cache<memsub::replacement::lru,
                                                     memsub::cache::write_policy::write_evict,
                                                     memsub::fixed_geometry<128, 4, 128>>;
static_assert(memsub::fixed_geometry<128, 4, 128>::capacity_bytes() == 64 * 1024);

/// A compressed L1's selector type.
template <class L1>
using selector_of = std::remove_cvref_t<decltype(std::declval<const L1&>().selector())>;

/// Whether the study can ask `Selector` which mode inserted lines take now: the library's
/// selectors say it as follower_mode() (LATTE-CC, Adaptive-Hit-Count), counter() (Adaptive-CMP)
/// or mode() (a static mode); a user's selector may offer any of them.
template <class Selector>
concept tells_current_mode = requires(const Selector& s) {
    s.follower_mode();
}
|| requires(const Selector& s) {
    s.counter();
    s.compressed_mode();
}
|| requires(const Selector& s) {
    s.mode();
};

/// The mode inserted lines take now (what the time-shares count). A user's selector may answer
/// anything: a mode past the L1's `modes` is a config_error naming the selector and the call
/// (it would index the per-mode counters), checked once per answer.
template <tells_current_mode Selector>
std::uint32_t current_mode(const Selector& s) {
    std::uint32_t m = 0;
    std::string_view asked;
    if constexpr (requires { s.follower_mode(); }) {
        m = s.follower_mode();
        asked = "follower_mode()";
    } else if constexpr (requires { s.counter(); }) {
        m = s.counter() > 0 ? s.compressed_mode() : 0u;
        asked = "compressed_mode()";
    } else {
        m = s.mode();
        asked = "mode()";
    }
    if (m >= modes) [[unlikely]]
        throw memsub::config_error(s.name(), asked, m,
                                   "must be a mode of the L1 (0 none, 1 BDI, 2 SC2)");
    return m;
}

/// Figures of one launch of one pass.
struct launch_figures {
    std::uint64_t start_cycle = 0, end_cycle = 0;
    std::uint64_t accesses = 0, load_hits = 0, load_misses = 0;
    std::array<std::uint64_t, modes> mode_accesses{};
    double tolerance_sum = 0.0;
    std::uint64_t epochs = 0;
    [[nodiscard]] std::uint64_t cycles() const noexcept { return end_cycle - start_cycle; }
};

/// One EP sample of SM 0's L1 (the plot's time line).
struct timeline_point {
    std::uint64_t cycle = 0;
    double capacity = 0.0;
    std::uint32_t mode = 0;
    std::uint32_t tolerance = 0;
    std::uint32_t launch = 0;
};

/// One configuration's pass.
struct pass_result {
    bool ran = false;
    bool stopped = false;
    std::uint64_t cycles = 0, warp_instructions = 0;
    std::uint64_t accesses = 0, load_hits = 0, load_misses = 0, hit_latency_cycles = 0;
    double tolerance_sum = 0.0;
    std::uint64_t epochs = 0;
    double mean_capacity = 0.0; ///< mean over SMs of each L1's mean effective capacity
    std::array<std::uint64_t, modes> mode_accesses{};
    double compression_nj = 0.0, decompression_nj = 0.0;
    std::uint64_t book_builds = 0, retired = 0;
    bool adaptive = false;
    std::vector<launch_figures> launches;
    std::vector<timeline_point> timeline;

    [[nodiscard]] std::optional<double> mean_hit_latency() const {
        if (load_hits == 0) return std::nullopt;
        return static_cast<double>(hit_latency_cycles) / static_cast<double>(load_hits);
    }
    [[nodiscard]] std::optional<double> mean_tolerance() const {
        if (epochs == 0) return std::nullopt;
        return tolerance_sum / static_cast<double>(epochs);
    }
    /// AMAT_gpu over the whole pass, misses at the L2's 120 cycles (as the selector weighs them).
    [[nodiscard]] std::optional<double> amat() const {
        if (load_hits + load_misses == 0) return std::nullopt;
        return sel::gpu_amat(load_hits, mean_hit_latency().value_or(0.0), load_misses,
                             gpu::latency_params{}.l2_hit_cycles, mean_tolerance().value_or(0.0));
    }
};

struct kernel_result {
    std::string kernel;
    std::string input;
    /// One per configuration (options::config_names), then the 64 KB classification pass.
    std::vector<pass_result> passes;
    /// Phase names of the launches (the phase-changing run), else empty.
    std::vector<std::string> launch_labels;
    int interrupted_by = 0;
    /// The classification pass's index (after the configurations).
    [[nodiscard]] std::size_t big_l1() const noexcept { return passes.size() - 1; }
};

/// Progress over a kernel's passes: each issues about as many warp instructions as the first.
struct pass_progress {
    memsub::explorer::progress_meter& meter;
    std::uint64_t done_before = 0;
    std::uint64_t total = 0; ///< 0: unknown (the first pass)
};

/// Runs one configuration's pass: `make()` a fresh kernel; `make_l1(book)` one SM's L1.
template <class MakeKernel, class MakeL1>
pass_result run_pass(MakeKernel& make, MakeL1&& make_l1, const options& o, bool timeline,
                     pass_progress progress, int& interrupted_by) {
    pass_result out;
    out.ran = true;
    auto kernel = make();
    using kernel_type = decltype(kernel);
    using scheduler_type = simt::gto_scheduler<kernel_type>;
    scheduler_type scheduler(kernel,
                             simt::gto_params{.sms = o.sms, .latency = simt::latency_mode::host});
    gpu::l2_dram_timing<> memory;
    gpu::shared_code_book book(
        {.l1s = o.sms, .ep_accesses = ep_accesses, .eps_per_period = o.book_eps});
    using l1_type = std::decay_t<decltype(make_l1(book))>;
    constexpr bool compressed = requires(l1_type & l) {
        l.selector();
    };
    std::vector<l1_type> l1s;
    l1s.reserve(o.sms);
    for (std::uint32_t s = 0; s < o.sms; ++s) l1s.push_back(make_l1(book));
    std::vector<sel::latency_tolerance_estimator<scheduler_type>> estimators;
    estimators.reserve(o.sms);
    for (std::uint32_t s = 0; s < o.sms; ++s)
        estimators.emplace_back(
            &scheduler, s,
            sel::latency_tolerance_params{.runs = o.slot_runs ? sel::run_unit::slots
                                                              : sel::run_unit::instructions});
    std::vector<std::uint32_t> in_epoch(o.sms, 0);
    // Decision: a selector that does not tell its current mode (tells_current_mode) is taken to
    // be in the mode its L1's latest fill was stored in: the one mode the study sees it choose.
    // It reads mode 0 when that fill's compressor saved nothing. Considered: asking
    // insertion_mode() for a set, which may advance the selector's own state.
    std::vector<std::uint32_t> last_fill_mode(o.sms, 0);
    const auto mode_now = [&](const l1_type& l1, std::uint32_t sm) -> std::uint32_t {
        if constexpr (requires { current_mode(l1.selector()); })
            return current_mode(l1.selector());
        else
            return last_fill_mode[sm];
    };
    const auto close_epoch = [&](std::uint32_t sm) -> std::uint32_t {
        return estimators[sm].end_epoch();
    };

    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    std::uint32_t launch = 0;
    out.launches.emplace_back();
    const auto issue = [&](const memsub::warp_instruction& w) {
        while (w.launch != launch) { // launches run one after another
            out.launches.back().end_cycle = w.issue_cycle;
            out.launches.emplace_back().start_cycle = w.issue_cycle;
            ++launch;
        }
        launch_figures& lf = out.launches.back();
        estimators[w.sm].sample();
        coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        const memsub::access proto = memsub::request_prototype(w);
        simt::timed_requests requests(scheduler, memory, w);
        auto& l1 = l1s[w.sm];
        coalescer.for_each_request(lines, proto, [&](const memsub::access& a) {
            ++lf.accesses;
            if constexpr (compressed) {
                const std::uint32_t mode = mode_now(l1, w.sm);
                ++lf.mode_accesses[mode];
                const auto r = l1.access(a, w.issue_cycle, kernel.memory());
                if (r.filled()) last_fill_mode[w.sm] = r.mode;
                requests(a, r);
                if (a.kind == memsub::access_kind::load)
                    ++(r.hit() ? lf.load_hits : lf.load_misses);
                bool epoch_end = r.epoch_ended;
                if constexpr (!sel::counts_epochs<selector_of<l1_type>>)
                    epoch_end = ++in_epoch[w.sm] == ep_accesses;
                if (epoch_end) {
                    in_epoch[w.sm] = 0;
                    const std::uint32_t t = close_epoch(w.sm);
                    l1.set_latency_tolerance(t);
                    lf.tolerance_sum += t;
                    ++lf.epochs;
                    if (timeline && w.sm == 0)
                        out.timeline.push_back({w.issue_cycle, l1.effective_capacity(),
                                                mode_now(l1, w.sm), t, launch});
                }
            } else {
                const auto r = l1.access(a);
                requests(a, r);
                if (a.kind == memsub::access_kind::load) ++(r.hit ? lf.load_hits : lf.load_misses);
            }
        });
        requests.finish();
        if ((++out.warp_instructions & 0xffff) != 0) return true;
        const std::uint64_t done = progress.done_before + out.warp_instructions;
        progress.meter.update(
            done, progress.total == 0
                      ? std::nullopt
                      : std::optional(std::min(1.0, static_cast<double>(done) /
                                                        static_cast<double>(progress.total))));
        return (interrupted_by = memsub::explorer::stop_requested()) == 0;
    };
    const auto run = simt::run_timed(scheduler, issue, memory);
    out.cycles = run.cycles;
    out.stopped = run.stopped;
    out.launches.back().end_cycle = run.cycles;
    for (const auto& lf : out.launches) {
        out.accesses += lf.accesses;
        out.load_hits += lf.load_hits;
        out.load_misses += lf.load_misses;
        out.tolerance_sum += lf.tolerance_sum;
        out.epochs += lf.epochs;
        for (std::size_t m = 0; m < modes; ++m) out.mode_accesses[m] += lf.mode_accesses[m];
    }
    if constexpr (compressed) {
        out.adaptive = !std::same_as<selector_of<l1_type>, sel::static_mode>;
        for (const auto& l1 : l1s) {
            const gpu::compressed_l1_stats& st = l1.stats();
            out.hit_latency_cycles += st.hit_latency_cycles;
            out.compression_nj += st.compression_energy_nj;
            out.decompression_nj += st.decompression_energy_nj;
            out.retired += st.retired;
            out.mean_capacity += l1.mean_effective_capacity() / o.sms;
        }
        if constexpr (l1_type::shares_code_book) out.book_builds = book.build_count();
    } else {
        out.hit_latency_cycles = out.load_hits * gpu::latency_params{}.l1_hit_cycles;
        out.mean_capacity = 4.0; // 64 KB of uncompressed lines over the 16 KB baseline
    }
    return out;
}

/// The L1 params every compressed configuration uses: hits cost the memory side's L1 hit
/// latency before decompression, misses the L2's 120 cycles (the selectors' AMAT).
inline gpu::compressed_l1_params l1_params() {
    const gpu::latency_params l{};
    return {.base_hit_latency = l.l1_hit_cycles, .miss_latency = l.l2_hit_cycles};
}

/// Runs configuration `index` of `make`'s kernel: the library's, the user's `Selectors` (from
/// index config_count on) or, past them, the 64 KB classification L1.
template <class... Selectors, class MakeKernel>
pass_result run_config(std::size_t index, MakeKernel& make, const options& o, bool timeline,
                       pass_progress progress, int& interrupted_by) {
    const auto go = [&](auto&& make_l1) {
        return run_pass(make, make_l1, o, timeline, progress, interrupted_by);
    };
    switch (index) {
    case 0:
    case 1:
    case 2:
        return go([index](gpu::shared_code_book& b) {
            return bdi_sc2_l1<sel::static_mode>(l1_params(),
                                                {.mode = static_cast<std::uint32_t>(index)}, &b);
        });
    case 3:
        return go([](gpu::shared_code_book& b) {
            return bdi_sc2_l1<sel::adaptive_hit_count>(l1_params(), {}, &b);
        });
    case 4:
        return go([](gpu::shared_code_book& b) {
            return bdi_sc2_l1<sel::adaptive_cmp>(l1_params(), {.compressed_mode = 2}, &b);
        });
    case 5:
        return go([](gpu::shared_code_book& b) { return latte_l1_of(l1_params(), {}, &b); });
    case 6:
        return go([](gpu::shared_code_book&) { return bdi_bpc_l1(l1_params(), {}, nullptr); });
    default:
        break;
    }
    if (index == o.configs()) return go([](gpu::shared_code_book&) { return l1_64kb(); });
    // Decision: a user's selector runs on the L1 LATTE-CC runs on (none / BDI / SC², default
    // params, the pass's shared code book), so its figures compare directly with LATTE-CC's and
    // the static modes'. Considered: letting the user choose the compressors too; the tables,
    // CSV mode names and Kernel-OPT assume none / BDI / SC², so that waits for a study that needs
    // it.
    pass_result out;
    std::size_t user = config_count;
    ((user++ == index ? (void)(out = go([](gpu::shared_code_book& b) {
                                   return bdi_sc2_l1<Selectors>(l1_params(), {}, &b);
                               }))
                      : void()),
     ...);
    return out;
}

/// Every selected configuration of one kernel, then the 64 KB classification pass.
template <class... Selectors, class MakeKernel>
kernel_result run_kernel(std::string name, std::string input, MakeKernel&& make, const options& o,
                         std::size_t slot, std::size_t slots) {
    kernel_result out;
    out.kernel = std::move(name);
    out.input = std::move(input);
    std::vector<std::size_t> order;
    out.passes.resize(o.configs() + 1);
    for (std::size_t i = 0; i < o.configs(); ++i)
        if (o.selected[i]) order.push_back(i);
    if (o.classify) order.push_back(out.big_l1());
    memsub::explorer::progress_meter meter(
        !o.quiet, fmt::format("{} ({} of {})", out.kernel, slot + 1, slots));
    meter.set_unit("warp instructions");
    if (slot + 1 < slots)
        meter.set_then(fmt::format("then {} more kernel{}", slots - slot - 1,
                                   slots - slot - 1 == 1 ? "" : "s"));
    const bool plotted = o.plot && o.plot_kernel.value_or(std::string()) == out.kernel;
    std::uint64_t done = 0, per_pass = 0;
    for (const std::size_t i : order) {
        if (out.interrupted_by != 0) break;
        out.passes[i] =
            run_config<Selectors...>(i, make, o, plotted && i == latte_config,
                                     {meter, done, per_pass * order.size()}, out.interrupted_by);
        done += out.passes[i].warp_instructions;
        if (per_pass == 0) per_pass = out.passes[i].warp_instructions;
    }
    meter.finish();
    return out;
}

using memsub::explorer::scaled;

template <class... Selectors>
kernel_result run_named(std::string_view name, const options& o, std::size_t slot,
                        std::size_t slots) {
    const std::string kernel(name);
    const double s = o.scale;
    if (name == "bfs") {
        const auto scale =
            static_cast<std::uint32_t>(std::clamp(std::lround(14 + std::log2(s)), 4L, 22L));
        const simt::csr_graph g =
            simt::make_rmat_graph({.scale = scale, .edge_factor = 8, .seed = o.seed});
        std::uint32_t source = 0;
        for (std::uint32_t v = 0; v < g.vertices; ++v)
            if (g.degree(v) > g.degree(source)) source = v;
        kernel_result r = run_kernel<Selectors...>(
            kernel, fmt::format("R-MAT 2^{}: {} vertices, {} edges", scale, g.vertices, g.edges()),
            [&] { return simt::bfs_kernel(g, {.source = source}); }, o, slot, slots);
        for (std::size_t l = 0; l < r.passes[0].launches.size(); ++l)
            r.launch_labels.push_back(
                fmt::format("level {} {}", l / 2, l % 2 ? "update" : "expand"));
        return r;
    }
    if (name == "spmv") {
        const auto rows =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(32768, s), 1u << 22));
        const simt::csr_matrix m = simt::make_power_law_matrix(
            {.rows = rows, .cols = rows, .max_row_length = std::min(rows, 1024u), .seed = o.seed});
        return run_kernel<Selectors...>(
            kernel, fmt::format("power-law: {} x {}, {} non-zeros", m.rows, m.cols, m.nonzeros()),
            [&] { return simt::spmv_kernel(m, {.seed = o.seed}); }, o, slot, slots);
    }
    if (name == "kmeans") {
        const auto points =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(8192, s), 1u << 22));
        return run_kernel<Selectors...>(
            kernel, fmt::format("{} points x 34 features, 5 clusters", points),
            [&] { return simt::kmeans_kernel({.points = points, .seed = o.seed}); }, o, slot,
            slots);
    }
    if (name == "stencil") {
        const auto side = static_cast<std::uint32_t>(
            std::clamp<std::uint64_t>(scaled(512, std::sqrt(s)) / 16 * 16, 16, 8192));
        return run_kernel<Selectors...>(
            kernel, fmt::format("{0} x {0} grid, 2 iterations", side),
            [&] { return simt::stencil_kernel({.rows = side, .cols = side, .seed = o.seed}); }, o,
            slot, slots);
    }
    if (name == "matmul") {
        const auto side = static_cast<std::uint32_t>(
            std::clamp<std::uint64_t>(scaled(256, std::cbrt(s)) / 16 * 16, 16, 2048));
        return run_kernel<Selectors...>(
            kernel, fmt::format("{0} x {0} x {0}", side),
            [&] {
                return simt::matmul_kernel(
                    {.height_a = side, .width_a = side, .width_b = side, .seed = o.seed});
            },
            o, slot, slots);
    }
    if (name == "saxpy") {
        const auto n =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(1u << 20, s), 1u << 26));
        return run_kernel<Selectors...>(
            kernel, fmt::format("{} elements", n),
            [&] { return simt::saxpy_kernel({.elements = n, .seed = o.seed}); }, o, slot, slots);
    }
    if (name == "histogram") {
        const auto words =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled(1u << 18, s), 1u << 26));
        return run_kernel<Selectors...>(
            kernel, fmt::format("{} bytes, 256 bins", 4ull * words),
            [&] { return simt::histogram_kernel({.words = words, .seed = o.seed}); }, o, slot,
            slots);
    }
    const phase_kernel::params pp{.sms = o.sms, .scale = s, .seed = o.seed};
    const phase_kernel probe(pp);
    const auto& t = probe.phase_of_launch(0);
    const auto& u = probe.phase_of_launch(1);
    kernel_result r = run_kernel<Selectors...>(
        kernel,
        fmt::format("{} launches alternating tolerant ({} warps/SM, {} KB table, {} loads/warp, "
                    "{} ALU cycles/load) and sensitive ({} warp/SM, {} KB table, {} loads/warp)",
                    probe.launches(), t.ctas_per_sm * t.threads_per_cta / 32,
                    t.table_lines * 128 / 1024, t.loads_per_warp, t.alu_cycles,
                    u.ctas_per_sm * u.threads_per_cta / 32, u.table_lines * 128 / 1024,
                    u.loads_per_warp),
        [&] { return phase_kernel(pp); }, o, slot, slots);
    for (std::uint32_t l = 0; l < probe.launches(); ++l)
        r.launch_labels.emplace_back(probe.phase_of_launch(l).name);
    return r;
}

// ------------------------------------------------------------------ output

inline std::optional<double> ratio(double num, double den) {
    if (den == 0.0) return std::nullopt;
    return num / den;
}

inline std::string opt_fmt(std::optional<double> v, std::string_view spec,
                           std::string_view none = "-") {
    return v ? fmt::format(fmt::runtime(spec), *v) : std::string(none);
}

/// The names of a configuration's modes.
inline std::array<std::string_view, modes> mode_names(std::size_t config) {
    if (config == 6) return {"none", "bdi", "bpc"};
    return {"none", "bdi", "sc2"};
}

inline std::optional<double> speedup(const kernel_result& r, std::size_t i) {
    const auto& base = r.passes[none_config];
    if (!base.ran || !r.passes[i].ran || r.passes[i].cycles == 0) return std::nullopt;
    return static_cast<double>(base.cycles) / static_cast<double>(r.passes[i].cycles);
}

inline std::optional<double> misses_change(const kernel_result& r, std::size_t i) {
    const auto& base = r.passes[none_config];
    if (!base.ran || !r.passes[i].ran || base.load_misses == 0) return std::nullopt;
    return static_cast<double>(r.passes[i].load_misses) / static_cast<double>(base.load_misses) -
           1.0;
}

inline std::optional<double> percent(std::optional<double> x) {
    if (!x) return std::nullopt;
    return 100.0 * *x;
}

/// The C-Sens class; none when the 64 KB pass or the `none` pass it is measured against was cut
/// short by a stop signal (its cycles would give any ratio).
inline std::optional<bool> cache_sensitive(const kernel_result& r) {
    if (r.passes[r.big_l1()].stopped || r.passes[none_config].stopped) return std::nullopt;
    const auto s = speedup(r, r.big_l1());
    if (!s) return std::nullopt;
    return *s > c_sens_threshold;
}

inline std::string shares_text(const pass_result& p) {
    if (p.accesses == 0) return "-";
    std::string out;
    for (std::size_t m = 0; m < modes; ++m)
        out += fmt::format("{}{:.0f}", m ? "/" : "",
                           100.0 * static_cast<double>(p.mode_accesses[m]) /
                               static_cast<double>(p.accesses));
    return out;
}

/// Kernel-OPT (§4.3.5): per launch the static configuration with the fewest cycles there.
struct kernel_opt {
    std::uint64_t cycles = 0;
    std::vector<std::size_t> choice; ///< per launch
};
inline std::optional<kernel_opt> kernel_opt_of(const kernel_result& r) {
    kernel_opt k;
    const std::size_t n = r.passes[none_config].launches.size();
    for (const std::size_t c : static_configs)
        if (!r.passes[c].ran || r.passes[c].stopped || r.passes[c].launches.size() != n)
            return std::nullopt;
    for (std::size_t l = 0; l < n; ++l) {
        std::size_t best = static_configs[0];
        for (const std::size_t c : static_configs)
            if (r.passes[c].launches[l].cycles() < r.passes[best].launches[l].cycles()) best = c;
        k.choice.push_back(best);
        k.cycles += r.passes[best].launches[l].cycles();
    }
    return k;
}

inline void print_table(const kernel_result& r, const options& o) {
    fmt::print("\n{} ({}), {} SMs\n", r.kernel, r.input, o.sms);
    if (r.interrupted_by != 0)
        fmt::print("PARTIAL: interrupted by signal {} (the figures cover the passes so far)\n",
                   r.interrupted_by);
    fmt::print("{:<20}{:>11}{:>8}{:>11}{:>8}{:>8}{:>7}{:>8}{:>7}{:>13}{:>10}{:>7}{:>9}\n", "config",
               "cycles", "speedup", "L1 misses", "vs none", "hit lat", "tol", "AMAT", "cap",
               "modes n/b/s%", "energy uJ", "books", "retired");
    fmt::print("{}\n", std::string(129, '-'));
    const auto row = [&](std::size_t i, std::string_view label) {
        const pass_result& p = r.passes[i];
        if (!p.ran) return;
        fmt::print("{:<20}{:>11}{:>8}{:>11}{:>8}{:>8}{:>7}{:>8}{:>7}{:>13}{:>10}{:>7}{:>9}{}\n",
                   label, p.cycles, opt_fmt(speedup(r, i), "{:.3f}"), p.load_misses,
                   opt_fmt(percent(misses_change(r, i)), "{:+.1f}%"),
                   opt_fmt(p.mean_hit_latency(), "{:.1f}"),
                   i == r.big_l1() ? "-" : opt_fmt(p.mean_tolerance(), "{:.1f}"),
                   i == r.big_l1() ? "-" : opt_fmt(p.amat(), "{:.1f}"),
                   fmt::format("{:.2f}x", p.mean_capacity),
                   i == r.big_l1() || !p.adaptive ? "-" : shares_text(p),
                   i == r.big_l1()
                       ? "-"
                       : fmt::format("{:.1f}", (p.compression_nj + p.decompression_nj) / 1000.0),
                   i == r.big_l1() ? "-" : fmt::format("{}", p.book_builds),
                   i == r.big_l1() ? "-" : fmt::format("{}", p.retired),
                   p.stopped ? " (partial)" : "");
    };
    for (std::size_t i = 0; i < o.configs(); ++i) row(i, o.config_labels[i]);
    if (o.classify) row(r.big_l1(), "uncompressed 64 KB");
    if (const auto k = kernel_opt_of(r); k && k->cycles != 0)
        fmt::print("{:<20}{:>11}{:>8}   (per launch the fastest static mode)\n", "Kernel-OPT",
                   k->cycles,
                   opt_fmt(ratio(static_cast<double>(r.passes[none_config].cycles),
                                 static_cast<double>(k->cycles)),
                           "{:.3f}"));
    if (const auto cs = cache_sensitive(r))
        fmt::print("class: {} (64 KB uncompressed vs none: {:.3f}x, threshold {:.2f}x)\n",
                   *cs ? "C-Sens" : "C-InSens", *speedup(r, r.big_l1()), c_sens_threshold);
    else if (r.passes[r.big_l1()].ran)
        fmt::print("class: unknown (a pass it is measured from was cut short)\n");

    // Per launch: the phases (or BFS levels) as the adaptive configurations saw them.
    const pass_result& latte = r.passes[latte_config];
    const std::size_t launches = r.passes[none_config].launches.size();
    if (launches < 2 || launches > 64) return;
    fmt::print("\nper launch: cycles by configuration; LATTE-CC's mean tolerance and mode shares "
               "(none/bdi/sc2 %)\n");
    fmt::print("{:>6} {:<18}", "launch", "phase");
    for (std::size_t i = 0; i < o.configs(); ++i)
        if (r.passes[i].ran)
            fmt::print("{:>12}", std::string_view(o.config_names[i]).substr(0, 11));
    fmt::print("{:>8}{:>13}\n", "tol", "LATTE modes");
    for (std::size_t l = 0; l < launches; ++l) {
        fmt::print("{:>6} {:<18}", l, l < r.launch_labels.size() ? r.launch_labels[l] : "");
        for (std::size_t i = 0; i < o.configs(); ++i)
            if (r.passes[i].ran)
                fmt::print("{:>12}", l < r.passes[i].launches.size()
                                         ? fmt::format("{}", r.passes[i].launches[l].cycles())
                                         : std::string("-"));
        if (latte.ran && l < latte.launches.size()) {
            const launch_figures& lf = latte.launches[l];
            pass_result one;
            one.accesses = lf.accesses;
            one.mode_accesses = lf.mode_accesses;
            fmt::print(
                "{:>8}{:>13}\n",
                opt_fmt(lf.epochs ? std::optional(lf.tolerance_sum / lf.epochs) : std::nullopt,
                        "{:.1f}"),
                shares_text(one));
        } else {
            fmt::print("\n");
        }
    }
}

/// An error that ended the run in a kernel's passes: that kernel has no result of its own.
struct run_failure {
    std::string kernel, error;
};

/// One row per kernel and configuration that ran; a run ended by an error adds a row for the
/// kernel it stopped in, with the error and no figures.
inline memsub::explorer::result_table results_table(const std::vector<kernel_result>& results,
                                                    const options& o,
                                                    const std::optional<run_failure>& failed = {}) {
    memsub::explorer::result_table t(std::string{program});
    for (const kernel_result& r : results) {
        const auto cs = cache_sensitive(r);
        for (std::size_t i = 0; i <= o.configs(); ++i) {
            const pass_result& p = r.passes[i];
            if (!p.ran) continue;
            auto& row = t.add_row();
            const bool big = i == r.big_l1();
            const auto names = mode_names(i);
            row.text("kernel", r.kernel)
                .text("config", big ? big_l1_name : std::string_view(o.config_names[i]))
                .text("input", r.input)
                .number("sms", o.sms)
                .number("cycles", p.cycles)
                .optional_number("speedup", speedup(r, i), "{:.6f}")
                .number("warp_instructions", p.warp_instructions)
                .number("accesses", p.accesses)
                .number("load_hits", p.load_hits)
                .number("load_misses", p.load_misses)
                .optional_number("misses_change", misses_change(r, i), "{:.6f}")
                .optional_number("mean_hit_latency", p.mean_hit_latency(), "{:.4f}")
                .optional_number("mean_tolerance", big ? std::nullopt : p.mean_tolerance(),
                                 "{:.4f}")
                .optional_number("amat_gpu", big ? std::nullopt : p.amat(), "{:.4f}")
                .number("mean_effective_capacity", p.mean_capacity, "{:.4f}")
                .text("modes", big ? "" : fmt::format("{}/{}/{}", names[0], names[1], names[2]));
            for (std::size_t m = 0; m < modes; ++m)
                row.optional_number(fmt::format("share_mode{}", m),
                                    big || p.accesses == 0
                                        ? std::nullopt
                                        : std::optional(static_cast<double>(p.mode_accesses[m]) /
                                                        static_cast<double>(p.accesses)),
                                    "{:.6f}");
            row.number("compression_energy_nj", p.compression_nj, "{:.3f}")
                .number("decompression_energy_nj", p.decompression_nj, "{:.3f}")
                .number("book_builds", p.book_builds)
                .number("retired_lines", p.retired)
                .number("launches", p.launches.size());
            if (cs)
                row.boolean("c_sens", *cs);
            else
                row.null("c_sens");
            row.boolean("partial", p.stopped || r.interrupted_by != 0)
                .optional_number("interrupted_by_signal",
                                 r.interrupted_by ? std::optional(r.interrupted_by) : std::nullopt)
                .null("error")
                // Appended: the columns before it keep their places.
                .number("book_eps", o.book_eps);
        }
    }
    if (failed)
        t.add_row()
            .text("kernel", failed->kernel)
            .boolean("partial", true)
            .text("error", failed->error)
            .number("book_eps", o.book_eps);
    return t;
}

/// Fig. 4.15's view of one kernel: SM 0's effective capacity and LATTE-CC's mode at every EP.
inline bool write_plot(const std::string& plot, const std::string& terminal,
                       const kernel_result& r) {
    const pass_result& p = r.passes[latte_config];
    const std::string data = plot + ".dat", script = plot + ".gp";
    {
        std::ofstream d(data);
        if (!d) throw std::runtime_error("cannot write " + data);
        fmt::print(d, "# cycle effective_capacity mode tolerance launch (SM 0, every EP)\n");
        for (const auto& s : p.timeline)
            fmt::print(d, "{} {:.4f} {} {} {}\n", s.cycle, s.capacity, s.mode, s.tolerance,
                       s.launch);
        if (!d.flush()) throw std::runtime_error("error writing " + data);
    }
    {
        std::ofstream g(script);
        if (!g) throw std::runtime_error("cannot write " + script);
        fmt::print(g,
                   "set terminal {} size 900,600\nset output {}\n"
                   "set multiplot layout 2,1 title {}\n"
                   "set lmargin 12\nset rmargin 12\nset key top left\nset format x '%.1s%c'\n"
                   "set ylabel 'effective capacity (x 16 KB)'\nset yrange [0:*]\n"
                   "set y2label 'mode'\nset y2range [-0.2:2.2]\nset ytics nomirror\n"
                   "set y2tics ('none' 0, 'BDI' 1, 'SC2' 2)\n"
                   "plot {} using 1:2 with lines lw 2 title 'effective capacity', "
                   "'' using 1:3 axes x1y2 with steps lw 1 title 'mode'\n"
                   "unset y2tics\nunset y2label\nset xlabel 'cycle'\n"
                   "set ylabel 'latency tolerance (cycles)'\n"
                   "plot {} using 1:4 with steps lw 1 title 'tolerance at each EP'\n"
                   "unset multiplot\n",
                   terminal, memsub::explorer::gnuplot_quoted(plot),
                   memsub::explorer::gnuplot_quoted(
                       fmt::format("LATTE-CC on {} (SM 0, sampled every EP)", r.kernel)),
                   memsub::explorer::gnuplot_quoted(data), memsub::explorer::gnuplot_quoted(data));
        if (!g.flush()) throw std::runtime_error("error writing " + script);
    }
    return memsub::explorer::render_with_gnuplot(script, plot);
}

// ------------------------------------------------------------------ options

inline void usage(std::FILE* to, std::span<const std::string> user_names) {
    const std::string yours = user_names.empty() ? std::string()
                                                 : fmt::format("                   and yours: {}\n",
                                                               fmt::join(user_names, ", "));
    fmt::print(to,
               "usage: {} [options] [kernels...]\n"
               "  The LATTE-CC study: each kernel through each configuration on its own timed\n"
               "  pass, plus an uncompressed 64 KB L1 to classify it (C-Sens: > 20% faster).\n"
               "  --kernels LIST   {} (default {}); kernels may also be given as arguments\n"
               "  --configs LIST   none, static_bdi, static_sc, adaptive_hit_count,\n"
               "                   adaptive_cmp, latte_cc, latte_cc_bdi_bpc (default: all)\n{}"
               "  --sms N          SMs, 1..120 (default 15)\n"
               "  --scale X        input size factor, (0, 1000] (default 1: about 20 s)\n"
               "  --seed N         inputs' seed (default 1)\n"
               "  --no-classify    skip the 64 KB pass (no C-Sens class)\n"
               "  --tolerance-runs slots|instructions   a warp's issue run in issue slots\n"
               "                   (instructions + their ALU cycles, default) or instructions\n"
               "  --book-eps N     EPs per SC2 code-book period, 2..1000000 (default 10)\n"
               "  --csv FILE, --json FILE   one row per kernel and configuration\n"
               "  --plot FILE      .png/.svg/.pdf: LATTE-CC's capacity and mode every EP\n"
               "  --plot-kernel K  the kernel plotted (default: phases if run, else the first)\n"
               "  --quiet          no progress on stderr\n"
               "  --help\n",
               program, fmt::format("{}", fmt::join(all_kernels, ", ")), default_kernels, yours);
}

inline std::vector<std::string> parse_kernels(std::string_view flag, std::string_view text) {
    std::vector<std::string> out;
    for (const auto& k : memsub::explorer::split_list(text)) {
        if (std::find(all_kernels.begin(), all_kernels.end(), k) == all_kernels.end())
            throw option_error(
                fmt::format("{}: unknown kernel '{}' ({})", flag, k, fmt::join(all_kernels, ", ")));
        if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
    if (out.empty()) throw option_error(fmt::format("{}: no kernel given", flag));
    return out;
}

/// The command line; `user_names` are the user's selectors' names (after the library's).
inline options parse(int argc, char** argv, std::span<const std::string> user_names) {
    options o;
    o.config_names.assign(library_config_names.begin(), library_config_names.end());
    o.config_labels.assign(library_config_labels.begin(), library_config_labels.end());
    o.config_names.insert(o.config_names.end(), user_names.begin(), user_names.end());
    o.config_labels.insert(o.config_labels.end(), user_names.begin(), user_names.end());
    o.selected.assign(o.configs(), true);
    std::vector<std::string> positional;
    std::optional<std::vector<std::string>> kernels;
    for (memsub::explorer::option_reader r(argc, argv); r.next();) {
        const std::string_view arg = r.arg();
        const auto value = [&] { return r.value(); };
        if (arg == "--help" || arg == "-h") {
            usage(stdout, user_names);
            std::exit(status::ok);
        } else if (arg == "--kernels") {
            kernels = parse_kernels(arg, value());
        } else if (arg == "--configs") {
            o.selected.assign(o.configs(), false);
            const std::string_view text = value();
            const auto names = memsub::explorer::split_list(text);
            if (names.empty()) throw option_error("--configs: no configuration given");
            for (const auto& n : names) {
                const auto it = std::find(o.config_names.begin(), o.config_names.end(), n);
                if (it == o.config_names.end())
                    throw option_error(fmt::format("--configs: unknown configuration '{}' ({})", n,
                                                   fmt::join(o.config_names, ", ")));
                o.selected[static_cast<std::size_t>(it - o.config_names.begin())] = true;
            }
        } else if (arg == "--sms") {
            o.sms = memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 1, 120);
        } else if (arg == "--scale") {
            o.scale = memsub::explorer::parse_positive_real(arg, value(), 1000.0);
        } else if (arg == "--seed") {
            o.seed = memsub::explorer::parse_unsigned(arg, value());
        } else if (arg == "--tolerance-runs") {
            const std::string_view v = value();
            if (v != "slots" && v != "instructions")
                throw option_error(
                    fmt::format("--tolerance-runs: unknown unit '{}' (slots or instructions)", v));
            o.slot_runs = v == "slots";
        } else if (arg == "--book-eps") {
            o.book_eps =
                memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 2, 1000000);
        } else if (arg == "--no-classify") {
            o.classify = false;
        } else if (arg == "--csv") {
            o.csv = std::string(value());
        } else if (arg == "--json") {
            o.json = std::string(value());
        } else if (arg == "--plot") {
            o.plot = std::string(value());
            o.plot_terminal = memsub::explorer::plot_terminal_or_throw(arg, *o.plot);
        } else if (arg == "--plot-kernel") {
            o.plot_kernel = parse_kernels(arg, value()).front();
        } else if (arg == "--quiet") {
            o.quiet = true;
        } else if (!arg.empty() && arg[0] == '-') {
            throw option_error(fmt::format("unknown option {} (--help lists them)", arg));
        } else {
            for (auto& k : parse_kernels("kernel", arg)) positional.push_back(std::move(k));
        }
    }
    if (kernels && !positional.empty())
        throw option_error("--kernels and kernel arguments: give one or the other");
    o.kernels = kernels              ? *kernels
                : positional.empty() ? parse_kernels("--kernels", default_kernels)
                                     : memsub::explorer::without_repeats(std::move(positional));
    // Every ratio is over none: it always runs.
    o.selected[none_config] = true;
    if (o.plot_kernel && !o.runs(*o.plot_kernel))
        throw option_error(fmt::format("--plot-kernel {}: that kernel is not run", *o.plot_kernel));
    if (o.plot && !o.plot_kernel) o.plot_kernel = o.runs("phases") ? "phases" : o.kernels.front();
    if (o.plot && !o.selected[latte_config])
        throw option_error("--plot draws LATTE-CC's modes: add latte_cc to --configs");
    return o;
}

/// A user's selector's name(): from one built for the study's L1 (32 sets, none / BDI / SC²)
/// with default params, as the L1 would build it.
template <class Selector>
std::string selector_name() {
    return std::string(Selector(sel::selection_shape{}, typename Selector::params{}).name());
}

/// The user's selectors' names; throws config_error when one cannot be a --configs name (empty,
/// a comma or a space in it) or is taken by the library's configurations or another selector.
template <class... Selectors>
std::vector<std::string> user_selector_names() {
    std::vector<std::string> names{selector_name<Selectors>()...};
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string& n = names[i];
        if (n.empty() || n.find_first_of(", \t") != std::string::npos)
            throw memsub::config_error(program, "selector name()", n,
                                       "must be a non-empty name without commas or spaces (it "
                                       "is given to --configs)");
        const auto before = names.begin() + static_cast<std::ptrdiff_t>(i);
        if (std::find(library_config_names.begin(), library_config_names.end(), n) !=
                library_config_names.end() ||
            std::find(names.begin(), before, n) != before)
            throw memsub::config_error(program, "selector name()", n,
                                       "names another configuration: each selector needs a "
                                       "name of its own");
    }
    return names;
}

template <class... Selectors>
int run(int argc, char** argv) {
    std::vector<std::string> user_names;
    try {
        user_names = user_selector_names<Selectors...>();
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return status::usage_error;
    }
    const options o =
        memsub::explorer::parse_or_exit(program, [&] { return parse(argc, argv, user_names); });
    if (!memsub::explorer::outputs_writable_or_report(program, [&] {
            if (o.csv) memsub::explorer::check_writable("--csv", *o.csv);
            if (o.json) memsub::explorer::check_writable("--json", *o.json);
            if (o.plot)
                for (const std::string suffix : {"", ".dat", ".gp"})
                    memsub::explorer::check_writable("--plot", *o.plot + suffix);
        }))
        return status::usage_error;
    memsub::explorer::install_stop_handlers();
    std::vector<kernel_result> results;
    std::vector<std::string> not_run;
    fmt::print("LATTE-CC study: 16 KB L1D per SM (32 sets x 4 ways x 128 B, 16 tags and 16 x 32 B "
               "segments per set when compressed), {} SMs, GTO, 48 warps/SM\n"
               "time: {}; EP {} accesses per L1, {} EPs per period\n",
               o.sms, gpu::describe(gpu::latency_params{}), ep_accesses, o.book_eps);
    // An error in a kernel's passes ends the run, but the kernels finished before it are still
    // printed and written (the error in its own row), and the status says what went wrong.
    std::optional<run_failure> failed;
    std::string running, memory_use;
    const int failed_status = memsub::explorer::run_reporting_errors(program, memory_use, [&] {
        try {
            not_run = memsub::explorer::run_until_stopped(
                o.kernels.size(),
                [&](std::size_t i) {
                    running = o.kernels[i];
                    memory_use =
                        fmt::format("running {} (try a smaller --scale or fewer --sms)", running);
                    results.push_back(
                        run_named<Selectors...>(o.kernels[i], o, i, o.kernels.size()));
                    print_table(results.back(), o);
                },
                [&](std::size_t i) { return o.kernels[i]; });
        } catch (const std::bad_alloc&) {
            failed = run_failure{running, "out of memory while " + memory_use};
            throw;
        } catch (const std::exception& e) {
            failed = run_failure{running, e.what()};
            throw;
        }
        return status::ok;
    });
    const int signal = memsub::explorer::stop_requested();
    if (signal != 0)
        fmt::print("PARTIAL: interrupted by signal {} (kernels not run: {})\n", signal,
                   not_run.size());

    memsub::explorer::output_attempts outputs;
    const auto attempt = [&](auto&& write) { outputs.attempt(write); };
    if (o.csv) attempt([&] { results_table(results, o, failed).write_csv(*o.csv); });
    if (o.json) attempt([&] { results_table(results, o, failed).write_json(*o.json); });
    if (o.plot) {
        const auto it = std::find_if(results.begin(), results.end(), [&](const kernel_result& r) {
            return r.kernel == *o.plot_kernel;
        });
        if (it == results.end())
            fmt::print(stderr, "{}: --plot {}: {} was not run, nothing to plot\n", program, *o.plot,
                       *o.plot_kernel);
        else if (it->passes[latte_config].timeline.empty())
            // gnuplot fails on an empty data file: LATTE-CC's pass did not run (a stop signal
            // came first) or SM 0 never closed an EP (a tiny input).
            fmt::print("note: --plot {}: not drawn: LATTE-CC on {} has no EP sample to plot ({})\n",
                       *o.plot, it->kernel,
                       it->passes[latte_config].ran ? "SM 0 closed no EP" : "its pass did not run");
        else
            attempt([&] { (void)write_plot(*o.plot, o.plot_terminal, *it); });
    }
    for (const auto& f : outputs.failures()) fmt::print(stderr, "{}: {}\n", program, f);
    if (failed_status != 0) return failed_status;
    if (signal != 0) return memsub::explorer::stopped_exit_status(signal);
    return outputs.ok() ? status::ok : status::output_error;
}

} // namespace memsub::explorer::latte_explorer_detail

namespace memsub::explorer {

/// The LATTE-CC study's command line (`--help` lists it) on the library's seven configurations
/// and `Selectors` (each a selection::mode_selector), each of which runs on the compressed L1
/// LATTE-CC runs on (none / BDI / SC², default params) and is named by its name() in --configs,
/// the table and the CSV / JSON. Returns the exit status (0 success, 1 an output error or a
/// failed run, 2 bad usage or configuration, 4 out of memory, 128 + N stopped by signal N); a
/// run ended by an error still prints and writes the kernels finished before it.
template <class... Selectors>
int run_latte_explorer(int argc, char** argv) {
    static_assert((selection::diagnose_mode_selector<Selectors>() && ...),
                  "run_latte_explorer takes mode selectors (selection/concept.hpp)");
    latte_explorer_detail::program = program_name(argc, argv, "latte_explorer");
    return latte_explorer_detail::run<Selectors...>(argc, argv);
}

} // namespace memsub::explorer
