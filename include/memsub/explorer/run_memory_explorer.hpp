// memsub::explorer — the memory explorer as a function template:
// run_memory_explorer<Configurations...> (argc, argv) is the memory_explorer tool's whole command
// line (docs/tools/memory_explorer.md), with the user's own DRAM controller configurations (a
// request scheduler and a row policy of their own, see ddr4_configuration) run beside the library's
// nine. The tool itself passes none.
//
// It replays a trace (or the built-in workload) through a memsub LLC and sends its miss /
// writeback stream to several memory-controller configurations; it compares their latency (mean,
// p50, p95, p99), row-hit rate and bandwidth, and plot the latency CDFs.
//
//   memory_explorer                                built-in workload, all configurations
//   memory_explorer app.lackey                     a Valgrind Lackey trace (any memsub format;
//                                                  the same as --trace app.lackey; - is stdin)
//   memory_explorer --configs ddr4-frfcfs,hbm2-pmc --cdf lat.png --csv lat.csv
//
// The LLC counts each reference as valgrind's cachegrind counts it (and as the explorer does):
// a reference whose bytes cross a line boundary touches every line it covers, in address order,
// and is ONE access with at most one miss (basic_cache::access_spanning); every line it missed
// is fetched from memory (each is a real fill), and every dirty line it evicted is written
// back. With --sets 64 --ways 8 (cachegrind's --D1=32768,8,64) a lackey trace gives
// cachegrind's D1 accesses and misses.
//
// Time base: the LLC sees one reference every --access-ns nanoseconds (the host's clock); each
// line fill is a 64 B read and each dirty eviction a 64 B write arriving at that time; each
// controller converts it to its own command clock (tCK) and reports in ns. A request refused by
// a full controller queue waits at the host with its original arrival time, so back-pressure
// counts as queueing. The controllers count cycles in 64 bits: the simulated time is at most
// max_simulated_ns (below), which every configuration's clock holds exactly.
//
// Requesters (what the partitioned controller partitions by; --requesters N, --requester-map):
//   built-in workload  its 16 clusters (cluster mod N with --requesters N);
//   traces             trace readers carry no requester, so by default a trace is ONE requester
//                      and the partitioned controller gets requesters = 1 with the full
//                      iso-storage depth (one 32-entry read FIFO and write FIFO per channel).
//                      --requesters N with --requester-map pc (default) hashes the access's PC
//                      (a stand-in for "which core/thread issued it"), page hashes its 4 KiB page
//                      (threads owning address regions), trace keeps the record's requester and
//                      fails if it is >= N.
//
// Outputs: the table on stdout; --cdf FILE draws the latency CDFs, the format following the
// name (.svg drawn here, .png and .pdf by gnuplot from the script FILE-without-extension.gp,
// which stays for restyling); --csv FILE writes one row per CDF point of each configuration
// with that configuration's figures, the LLC's and the status columns (partial,
// interrupted_by_signal, error) through result_table, like the other tools' CSVs.
//
// Built-in workload (memory-side structure matters here, so it is the tool's own): 16
// clusters issue in turn; each access is, with probability 0.4, the next line of the
// cluster's own sequential stream (row-buffer friendly), 0.3 a uniformly random line of a
// 256 MB region (irregular), 0.3 a line of a 512 KB hot set (LLC hits); a fixed quarter of the
// lines are written. Cluster c's stream starts at 4 GiB + c · (1 GiB + 9 KiB): 1 GiB apart puts the
// streams in different rows, the extra 9 KiB (8 KiB + 1 KiB) in different banks (8 KiB rows)
// and different HBM2 channels (1 KiB interleave), so the streams do not all fight over one bank.
//
// Part of the explorer module (CMake target memsub::explorer; needs {fmt}).
#pragma once

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/trace/open.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/plot.hpp>
#include <memsub/explorer/progress.hpp>
#include <memsub/explorer/result_table.hpp>
#include <memsub/explorer/run_report.hpp>
#include <memsub/explorer/signals.hpp>
#include <memsub/explorer/source.hpp>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memsub::explorer {

/// A memory configuration of your own for run_memory_explorer: a DRAM controller
/// (memsub::memory::dram_controller) with the request scheduler `Scheduler` (modelling
/// memsub::memory::request_scheduler) and the row policy `RowPolicy` (memsub::memory::row_policy),
/// on the DDR4-2400R timing and rorabgbachco mapping of the built-in ddr4-frfcfs, so it compares
/// with ddr4-frfcfs, ddr4-closed and ddr4-timeout directly. Its name in --configs, the table and
/// the CSV is ddr4-<scheduler name>-<row policy name>.
template <class Scheduler, class RowPolicy = memsub::memory::open_page>
struct ddr4_configuration {
    using controller = memsub::memory::dram_controller<Scheduler, RowPolicy>;
    using row_policy = RowPolicy;
};

namespace memory_explorer_detail {

namespace mm = memsub::memory;

/// The name the program speaks in (argv[0]'s file name).
inline std::string program = "memory_explorer";
using clock_type = std::chrono::steady_clock;
using memsub::explorer::chunk_accesses;
using memsub::explorer::option_error;

// ------------------------------------------------------------------ options

struct options {
    std::optional<std::string> trace;
    std::optional<memsub::trace::trace_format> format;
    memsub::geometry shape{.sets = 1024, .ways = 16, .line_bytes = 64}; // ReMAP Table 2.3 L3
    double access_ns = 24.0;
    std::uint64_t accesses = 2'000'000;
    std::uint64_t limit = 0;
    std::uint64_t seed = 2026;
    std::vector<std::string> configs; // empty = all
    std::string cdf = "memory_latency_cdf.svg";
    std::string csv;
    bool progress = true;
    /// Requesters (0 = the default: 16 for the built-in workload, 1 for a trace).
    std::uint32_t requesters = 0;
    enum class requester_map { pc, page, trace } map = requester_map::pc;
    enum class action { run, help, list } what = action::run;
};

/// Largest --access-ns (1000 s between two LLC references) and largest simulated time. The
/// controllers count cycles in 64 bits (at most 1.8e19): 1e19 ns is 1.2e19 cycles of the
/// fastest clock here (DDR4-2400, 0.833 ns), and a double of the time in ns converts to a cycle
/// exactly enough (its rounding, 2 us at 1e19 ns, is far below the time between references that
/// reach it). Decision: 1e19 ns, so that the default 2,000,000 references run at the largest
/// --access-ns (2e18 ns).
inline constexpr double max_access_ns = 1e12;
inline constexpr double max_simulated_ns = 1e19;

/// How many references fit in max_simulated_ns at `access_ns` apart. Saturates: below
/// ~0.54 ns the quotient passes 2^64, where a plain conversion is undefined.
inline std::uint64_t references_fitting(double access_ns) noexcept {
    const double f = max_simulated_ns / access_ns;
    return f >= 0x1p64 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(f);
}

inline constexpr std::string_view usage_text =
    "usage: memory_explorer [options] [TRACE]\n"
    "  TRACE, --trace FILE replay a trace; - is standard input (a pipe or a FIFO loses\n"
    "                      nothing). One trace per run\n"
    "  --format NAME       lackey | din | text | u64 | oracleGeneral | champsim (default:\n"
    "                      detect)\n"
    "  --limit N           stop the trace after N accesses\n"
    "  --accesses N        length of the built-in workload (default 2000000)\n"
    "  --seed N            seed of the built-in workload (default 2026)\n"
    "  --sets N --ways N   LLC shape: sets a power of two in 1..2147483648, ways 1..64 (default\n"
    "                      1024 x 16, 64 B lines: 1 MB, ReMAP Table 2.3)\n"
    "  --access-ns X       ns between two LLC references, in (0, 1e12] (default 24)\n"
    "  --configs A,B,...   configurations to run (default all; --list shows them)\n"
    "  --requesters N      requesters the partitioned controller partitions by, 1..1024\n"
    "                      (default 16 for the built-in workload, 1 for a trace)\n"
    "  --requester-map M   trace accesses -> requester: pc (hash of the PC, default),\n"
    "                      page (hash of the 4 KiB page) or trace (the record's own; one\n"
    "                      not below N is a bad record)\n"
    "  --cdf FILE          latency CDF plot (default memory_latency_cdf.svg; '' = none); the\n"
    "                      format follows the name: .svg, .png or .pdf (.png and .pdf are drawn\n"
    "                      by gnuplot, which must be installed, from FILE's name with .gp, kept)\n"
    "  --csv FILE          the results as CSV: a row per CDF point of each configuration\n"
    "                      (config, latency_ns, cdf; a point is a latency bucket's upper end,\n"
    "                      capped at the largest latency) with that configuration's figures,\n"
    "                      the LLC's (llc_misses, ...) and the status columns partial,\n"
    "                      interrupted_by_signal and error; a configuration without a completed\n"
    "                      request, or an unreadable trace, still has a row\n"
    "  --quiet             no progress on stderr\n"
    "  --list              list the configurations and exit\n"
    "The LLC counts a reference whose bytes cross a line boundary as cachegrind does: every line\n"
    "it covers is accessed (a miss fetches each missing line from memory), and it is one access\n"
    "with at most one miss.\n"
    "Numbers are decimal and checked against each option's range (nothing is truncated); the\n"
    "simulated time (references x --access-ns) is at most 1e19 ns. Every output file is checked\n"
    "before the run.\n"
    "SIGINT / SIGTERM (Ctrl-C): the results so far are printed (marked partial) and the\n"
    "CDF plot and CSV written, then the program exits with 128 + the signal number.\n"
    "exit status: 0 success; 1 the trace could not be read or is malformed (results before\n"
    "the bad record are still printed and written), or an output file could not be written;\n"
    "2 bad usage or configuration (an output that cannot be written, a trace that passes the\n"
    "simulated-time limit: the results before it are kept); 3 the trace held no accesses\n"
    "(warning; all-zero table); 4 out of memory; 130 / 143 interrupted by SIGINT / SIGTERM.\n";

/// Parses the arguments after the program name. Throws option_error (exit status 2) naming the
/// option for an unknown option, a missing or bad value, a second trace or a plot file of an
/// unknown format.
inline options parse_options(std::span<const std::string_view> args) {
    using namespace memsub::explorer;
    options o;
    const auto set_trace = [&](std::string_view file) {
        if (o.trace)
            throw option_error(fmt::format("--trace given twice ('{}' and '{}'); it replays one "
                                           "trace per run",
                                           *o.trace, file));
        o.trace = std::string(file);
    };
    for (option_reader r({args.begin(), args.end()}); r.next();) {
        const std::string_view arg = r.arg();
        const auto value = [&] { return r.value(); };
        if (arg == "--help" || arg == "-h") {
            o.what = options::action::help;
            return o;
        }
        if (arg == "--trace")
            set_trace(value());
        else if (arg == "--format") {
            const std::string_view v = value();
            o.format = memsub::trace::parse_format(v);
            if (!o.format) throw option_error(fmt::format("unknown format '{}'", v));
        } else if (arg == "--limit")
            o.limit = parse_unsigned(arg, value());
        else if (arg == "--accesses")
            o.accesses = parse_unsigned(arg, value());
        else if (arg == "--seed")
            o.seed = parse_unsigned(arg, value());
        else if (arg == "--sets")
            o.shape.sets = parse_power_of_two(arg, value(), 1, std::uint32_t{1} << 31);
        else if (arg == "--ways")
            o.shape.ways =
                parse_unsigned_as<std::uint32_t>(arg, value(), 1, memsub::max_entries_per_set);
        else if (arg == "--access-ns")
            o.access_ns = parse_positive_real(arg, value(), max_access_ns);
        else if (arg == "--configs")
            o.configs = split_list(value());
        else if (arg == "--cdf") {
            o.cdf = value();
            if (!o.cdf.empty()) (void)plot_terminal_or_throw(arg, o.cdf);
        } else if (arg == "--csv")
            o.csv = value();
        else if (arg == "--quiet")
            o.progress = false;
        else if (arg == "--requesters")
            o.requesters = parse_unsigned_as<std::uint32_t>(arg, value(), 1, 1024);
        else if (arg == "--requester-map") {
            const std::string_view v = value();
            if (v == "pc")
                o.map = options::requester_map::pc;
            else if (v == "page")
                o.map = options::requester_map::page;
            else if (v == "trace")
                o.map = options::requester_map::trace;
            else
                throw option_error(
                    fmt::format("--requester-map is pc, page or trace, got '{}'", v));
        } else if (arg == "--list")
            o.what = options::action::list;
        else if (arg.size() > 1 && arg[0] == '-')
            throw option_error(fmt::format("unknown option {} (--help lists them)", arg));
        else
            set_trace(arg); // a bare argument is the trace, as in the explorer ("-" = stdin)
    }
    return o;
}

namespace status {
inline constexpr int ok = 0, input_error = 1, usage_error = 2, empty_input = 3, out_of_memory = 4;
} // namespace status

/// What the program is doing, for the message when memory runs out.
inline std::string memory_use = "starting";

// ------------------------------------------------------------------ memory requests

struct mem_event {
    double t_ns;
    memsub::byte_address address;
    bool write;
    std::uint32_t requester;
    std::uint64_t access; ///< the reference it came from, counted from 1 (for error messages)
};

/// Type erasure of the tool layer (never inside a controller): one virtual call per chunk of
/// requests, not per request.
class runner {
public:
    virtual ~runner() = default;
    [[nodiscard]] virtual std::string_view name() const = 0;
    [[nodiscard]] virtual std::string_view description() const = 0;
    /// Sends `events` to the controller. A request it rejects (enqueue_result::rejected: it
    /// can never be accepted) is dropped, as the controller contract asks; the first one's
    /// description is returned, for the run to stop as at a bad trace record.
    virtual std::optional<std::string> feed(std::span<const mem_event> events) = 0;
    virtual void finish() = 0;
    [[nodiscard]] virtual const mm::controller_stats& stats() const = 0;
    [[nodiscard]] virtual double tck_ns() const = 0;
    [[nodiscard]] virtual double peak_gb_per_s() const = 0;
    double seconds = 0;
};

template <class Controller>
class controller_runner final : public runner {
public:
    controller_runner(std::string name, std::string description, double tck_ns, double peak,
                      Controller c)
        : name_(std::move(name))
        , description_(std::move(description))
        , tck_(tck_ns)
        , peak_(peak)
        , c_(std::move(c)) {}

    [[nodiscard]] std::string_view name() const override { return name_; }
    [[nodiscard]] std::string_view description() const override { return description_; }
    [[nodiscard]] const mm::controller_stats& stats() const override { return c_.stats(); }
    [[nodiscard]] double tck_ns() const override { return tck_; }
    [[nodiscard]] double peak_gb_per_s() const override { return peak_; }

    std::optional<std::string> feed(std::span<const mem_event> events) override {
        const auto t0 = clock_type::now();
        std::optional<std::string> rejected;
        for (const mem_event& ev : events) {
            const auto arrival = static_cast<std::uint64_t>(std::ceil(ev.t_ns / tck_));
            // Everything strictly before the arrival happens first (protocol MP2).
            if (arrival > now_ + 1) advance(arrival - 1);
            const mm::mem_request r{.id = id_++,
                                    .address = ev.address,
                                    .is_write = ev.write,
                                    .requester = ev.requester,
                                    .arrival_cycle = arrival};
            for (mm::enqueue_result e; (e = c_.enqueue(r)) != mm::enqueue_result::accepted;) {
                if (e == mm::enqueue_result::rejected) {
                    if (!rejected)
                        rejected = fmt::format(
                            "access {}: {} rejected a request of requester {} (it has fewer "
                            "requesters): see --requesters / --requester-map",
                            ev.access, name_, r.requester);
                    break;
                }
                // Back-pressure: wait for the controller's next event, then retry.
                const std::uint64_t next = c_.next_event_cycle();
                advance(next == memsub::never || next <= now_ ? now_ + 1 : next);
            }
        }
        seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
        return rejected;
    }

    void finish() override {
        const auto t0 = clock_type::now();
        for (std::uint64_t next; (next = c_.next_event_cycle()) != memsub::never;)
            advance(std::max(next, now_ + 1));
        seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
    }

private:
    void advance(std::uint64_t t) {
        now_ = std::max(now_, t);
        c_.advance_to(now_);
        while (c_.drain(std::span<mm::completion>(buf_)) == buf_.size()) {
        }
    }

    std::string name_, description_;
    double tck_, peak_;
    Controller c_;
    std::uint64_t now_ = 0;
    std::uint64_t id_ = 0;
    std::array<mm::completion, 256> buf_{};
};

struct config_spec {
    std::string_view name;
    std::string_view description;
};

inline constexpr std::array<config_spec, 9> all_configs{{
    {"flat", "flat 45 ns, 12.8 GB/s (DDR3-1600 peak), the fast baseline"},
    {"ddr3-fcfs", "DDR3-1600K, FCFS, open page (ReMAP Table 2.3)"},
    {"ddr3-frfcfs", "DDR3-1600K, FR-FCFS, open page"},
    {"ddr4-frfcfs", "DDR4-2400R, FR-FCFS, open page, rorabgbachco"},
    {"ddr4-closed", "DDR4-2400R, FR-FCFS, closed page"},
    {"ddr4-timeout", "DDR4-2400R, FR-FCFS, timeout-adaptive page, XOR bank hash"},
    {"hbm2-frfcfs", "HBM2 (8 ch), shared-queue FR-FCFS, 32+32 entries/ch (HTA baseline)"},
    {"hbm2-pmc", "HBM2 (8 ch), partitioned controller (HTA), iso-storage FIFOs"},
    {"hmc-closed", "HMC cube (16 vaults, Kim et al.), FR-FCFS, closed page, 16-entry queue "
                   "per vault; 64 B requests as one BL16 transfer on the 32-bit vault bus"},
}};

inline std::unique_ptr<runner> make_runner(std::string_view name, std::uint32_t requesters) {
    const std::string n(name);
    std::string d;
    for (const auto& c : all_configs)
        if (c.name == name) d = std::string(c.description);
    const auto& d3 = mm::presets::ddr3_1600_remap;
    const auto& d4 = mm::presets::ddr4_2400;
    const auto& hb = mm::presets::hbm2_4gb_x128;
    if (name == "flat") {
        // 45 ns at a 1 GHz cycle, bandwidth of one DDR3-1600 channel (12.8 B/ns).
        return std::make_unique<controller_runner<mm::flat_memory>>(
            n, d, 1.0, d3.peak_gb_per_s(),
            mm::flat_memory(mm::flat_memory::params{
                .latency_cycles = 45, .bytes_per_cycle = d3.peak_gb_per_s(), .request_bytes = 64}));
    }
    if (name == "ddr3-fcfs" || name == "ddr3-frfcfs") {
        const auto m = mm::bit_field_mapping::from_order("rorabachco", d3);
        if (name == "ddr3-fcfs")
            return std::make_unique<controller_runner<mm::fcfs_controller<>>>(
                n, d, d3.tck_ns, d3.peak_gb_per_s(), mm::fcfs_controller<>(m, {.timing = d3}));
        return std::make_unique<controller_runner<mm::fr_fcfs_controller<>>>(
            n, d, d3.tck_ns, d3.peak_gb_per_s(), mm::fr_fcfs_controller<>(m, {.timing = d3}));
    }
    if (name == "ddr4-frfcfs") {
        const auto m = mm::bit_field_mapping::from_order("rorabgbachco", d4);
        return std::make_unique<controller_runner<mm::fr_fcfs_controller<>>>(
            n, d, d4.tck_ns, d4.peak_gb_per_s(), mm::fr_fcfs_controller<>(m, {.timing = d4}));
    }
    if (name == "ddr4-closed") {
        const auto m = mm::bit_field_mapping::from_order("rorabgbachco", d4);
        using ctl = mm::fr_fcfs_controller<mm::closed_page>;
        return std::make_unique<controller_runner<ctl>>(n, d, d4.tck_ns, d4.peak_gb_per_s(),
                                                        ctl(m, {.timing = d4}));
    }
    if (name == "ddr4-timeout") {
        const auto m = mm::bit_field_mapping::from_order("rorabgbachco", d4, 48, true);
        using ctl = mm::fr_fcfs_controller<mm::timeout_adaptive>;
        return std::make_unique<controller_runner<ctl>>(n, d, d4.tck_ns, d4.peak_gb_per_s(),
                                                        ctl(m, {.timing = d4}));
    }
    if (name == "hmc-closed") {
        // One HMC cube: 16 vault channels. The LLC's 64 B lines are two of the preset's 32 B
        // bursts back to back on the 32-bit vault bus, i.e. one BL16 transfer (8 cycles).
        mm::dram_timing hmc = mm::presets::hmc_vault;
        hmc.channels = 16;
        hmc.burst_length = 16;
        const auto m = mm::bit_field_mapping::kim_multi_gpu(hmc, 1, 1, 64);
        return std::make_unique<controller_runner<mm::hmc_vault_controller<>>>(
            n, d, hmc.tck_ns, hmc.channels * hmc.peak_gb_per_s(),
            mm::hmc_vault_controller<>(m, mm::hmc_vault_params(hmc)));
    }
    const auto hm = mm::bit_field_mapping::from_order("rorabgbachco", hb);
    const double hb_peak = hb.channels * hb.peak_gb_per_s();
    if (name == "hbm2-frfcfs")
        return std::make_unique<controller_runner<mm::fr_fcfs_controller<>>>(
            n, d, hb.tck_ns, hb_peak, mm::fr_fcfs_controller<>(hm, {.timing = hb}));
    if (name == "hbm2-pmc") {
        // Iso-storage (G4.3): the shared 32-entry queues split over the requesters
        // (max(2, 32 / requesters) entries per FIFO; one requester keeps all 32).
        const mm::partitioned_controller<>::params pp{.timing = hb, .requesters = requesters};
        d += fmt::format(", {} requester(s) x {}-entry FIFOs", requesters, pp.depth());
        return std::make_unique<controller_runner<mm::partitioned_controller<>>>(
            n, d, hb.tck_ns, hb_peak, mm::partitioned_controller<>(hm, pp));
    }
    return nullptr;
}

/// A configuration the program runs: its name (--configs, the table, the CSV), its description
/// (--list) and how to build its runner for a number of requesters.
struct configuration {
    std::string name, description;
    std::unique_ptr<runner> (*make)(std::string_view name, std::uint32_t requesters);
};

/// The row policy's name, as a scheduler's is found: from one built with default params.
template <class RowPolicy>
std::string row_policy_name() {
    return std::string(RowPolicy(typename RowPolicy::params{}, 1).name());
}

/// The scheduler's name: from one built with default params, as dram_controller finds it.
template <class Configuration>
std::string scheduler_name() {
    using scheduler = typename Configuration::controller::scheduler_type;
    return std::string(scheduler(typename scheduler::params{}, 1).name());
}

/// The name of a user's configuration: ddr4-<scheduler>-<row policy>.
template <class Configuration>
std::string name_of() {
    return fmt::format("ddr4-{}-{}", scheduler_name<Configuration>(),
                       row_policy_name<typename Configuration::row_policy>());
}

/// What --list and the table's legend say about a user's configuration.
template <class Configuration>
std::string description_of() {
    return fmt::format("DDR4-2400R, {} scheduler, {} row policy, rorabgbachco (your own)",
                       scheduler_name<Configuration>(),
                       row_policy_name<typename Configuration::row_policy>());
}

/// The runner of a user's configuration: its controller on DDR4-2400R with the rorabgbachco
/// mapping, as ddr4-frfcfs is built.
template <class Configuration>
std::unique_ptr<runner> make_user_runner(std::string_view name, std::uint32_t) {
    using controller = typename Configuration::controller;
    const auto& d4 = mm::presets::ddr4_2400;
    const auto m = mm::bit_field_mapping::from_order("rorabgbachco", d4);
    typename controller::params p{};
    p.timing = d4;
    return std::make_unique<controller_runner<controller>>(
        std::string(name), description_of<Configuration>(), d4.tck_ns, d4.peak_gb_per_s(),
        controller(m, p));
}

/// The library's configurations, then the user's `Configurations`.
template <class... Configurations>
std::vector<configuration> configurations() {
    std::vector<configuration> out;
    for (const auto& c : all_configs)
        out.push_back({std::string(c.name), std::string(c.description), &make_runner});
    (out.push_back({name_of<Configurations>(), description_of<Configurations>(),
                    &make_user_runner<Configurations>}),
     ...);
    return out;
}

// ------------------------------------------------------------------ the access source

/// The built-in workload (see the header comment).
class builtin_workload {
public:
    explicit builtin_workload(std::uint64_t seed) : rng_(seed) {
        // Stream c starts at 4 GiB + c · (1 GiB + 9 KiB) (as a line index): other rows, banks
        // and HBM2 channels for each stream (see the header comment), clear of the random
        // region (2 GiB) and the hot set (3 GiB).
        for (std::uint32_t c = 0; c < clusters; ++c)
            stream_[c] = ((4ull << 30) + std::uint64_t{c} * ((1ull << 30) + 9 * 1024)) / 64;
    }
    memsub::access next() noexcept {
        const auto c = static_cast<std::uint32_t>(n_++ % clusters);
        const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
        std::uint64_t line = 0;
        if (u < 0.4)
            line = stream_[c]++;
        else if (u < 0.7)
            line = (2ull << 30) / 64 + rng_() % ((256ull << 20) / 64);
        else
            line = (3ull << 30) / 64 + rng_() % ((512ull << 10) / 64);
        memsub::access a;
        a.address = memsub::byte_address{line * 64};
        a.requester = c;
        a.kind = ((line * 0x9e3779b97f4a7c15ull) >> 62) == 0 ? memsub::access_kind::store
                                                             : memsub::access_kind::load;
        return a;
    }

private:
    static constexpr std::uint32_t clusters = 16;
    memsub::xoshiro256ss rng_;
    std::array<std::uint64_t, clusters> stream_{};
    std::uint64_t n_ = 0;
};

using source = memsub::explorer::chunked_source<builtin_workload>;

inline source make_source(const options& o) {
    if (o.trace) return source(*o.trace, o.format, o.limit);
    return source(builtin_workload(o.seed),
                  fmt::format("built-in: 16 clusters, 40% streams / 30% random / 30% hot set, "
                              "25% of lines written, seed {}",
                              o.seed),
                  o.accesses, o.limit);
}

// ------------------------------------------------------------------ output

/// A cache capacity for the summary line: whole KiB, or bytes when it is not a whole KiB.
inline std::string capacity_label(std::uint64_t bytes) {
    return bytes % 1024 == 0 ? fmt::format("{} KiB", bytes / 1024) : fmt::format("{} B", bytes);
}

inline double ns(const runner& r, std::uint64_t cycles) {
    return static_cast<double>(cycles) * r.tck_ns();
}

/// The bandwidth a runner delivered over its run (bytes per ns = GB/s); 0 before any cycle.
inline double gb_per_s(const runner& r) {
    const double elapsed_ns = static_cast<double>(r.stats().elapsed_cycles()) * r.tck_ns();
    return elapsed_ns > 0 ? static_cast<double>(r.stats().bytes) / elapsed_ns : 0.0;
}

/// CDF points (latency ns, fraction ≤) from a runner's histogram: a point at each non-empty
/// bucket's upper end (capped at the largest latency recorded), the fraction completed within it.
inline std::vector<std::pair<double, double>> cdf_points(const runner& r) {
    std::vector<std::pair<double, double>> pts;
    const auto& h = r.stats().latency;
    if (h.count() == 0) return pts;
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < mm::latency_histogram::bucket_count; ++b) {
        const std::uint64_t n = h.bucket_count_at(b);
        if (n == 0) continue;
        seen += n;
        // The bucket's upper end, or the largest latency recorded when it is below it.
        const std::uint64_t hi = std::min(h.max(), mm::latency_histogram::bucket_low(b) +
                                                       mm::latency_histogram::bucket_width(b) - 1);
        pts.emplace_back(ns(r, hi), static_cast<double>(seen) / static_cast<double>(h.count()));
    }
    return pts;
}

inline std::string xml_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '&')
            out += "&amp;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

/// The decades the latency axis spans (log10 of its ends), the same in every plot format: an
/// overloaded configuration's tail does not flatten the rest on a logarithmic axis.
struct latency_axis {
    double lo = 0, hi = 1;
};

inline latency_axis axis_of(const std::vector<std::unique_ptr<runner>>& rs) {
    double xmin = 1e300, xmax = 1;
    for (const auto& r : rs) {
        if (r->stats().latency.count() == 0) continue;
        xmin = std::min(xmin, ns(*r, std::max<std::uint64_t>(1, r->stats().latency.min())));
        xmax = std::max(xmax, ns(*r, r->stats().latency.max()));
    }
    if (xmin > xmax) xmin = 1;
    const double lo = std::floor(std::log10(std::max(xmin, 1e-3)));
    return {.lo = lo, .hi = std::max(lo + 1, std::ceil(std::log10(xmax)))};
}

// One colour per configuration (all nine differ), and a dash pattern cycling every three so
// neighbouring curves differ in print too; the same in every plot format.
inline constexpr std::array<const char*, 10> colours{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                     "#9467bd", "#8c564b", "#e377c2", "#17becf",
                                                     "#bcbd22", "#7f7f7f"};
static_assert(colours.size() >= all_configs.size());
inline constexpr std::array<const char*, 3> svg_dashes{"none", "7,3", "2,2"};
inline constexpr std::array<const char*, 3> gnuplot_dashes{"1", "(7,3)", "(2,2)"};

inline constexpr std::string_view x_label =
    "latency (ns, log scale), arrival at the controller to last data beat";

/// Draws the CDFs as SVG. Throws std::runtime_error when `file` cannot be written.
inline void write_svg(const std::string& file, const std::vector<std::unique_ptr<runner>>& rs,
                      const std::string& title) {
    std::ofstream out(file);
    if (!out) throw std::runtime_error("cannot write " + file);
    constexpr double W = 900, H = 520, L = 70, R = 260, T = 40, B = 60;
    const auto axis = axis_of(rs); // not a structured binding: clang 14 cannot capture one
    const double lo = axis.lo, hi = axis.hi;
    auto X = [&](double v) {
        const double l = std::log10(std::max(v, std::pow(10.0, lo)));
        return L + (W - L - R) * (l - lo) / (hi - lo);
    };
    auto Y = [&](double f) { return T + (H - T - B) * (1.0 - f); };
    fmt::print(out,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n",
               W, H);
    fmt::print(out, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    fmt::print(out, "<text x=\"{}\" y=\"22\" font-size=\"14\">Memory latency CDF — {}</text>\n", L,
               xml_escape(title));
    for (int i = 0; i <= 10; ++i) {
        const double f = i / 10.0;
        fmt::print(out,
                   "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                   "stroke=\"#ddd\"/>\n",
                   L, Y(f), W - R, Y(f));
        fmt::print(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.1f}</text>\n",
                   L - 6, Y(f) + 4, f);
    }
    for (double d = lo; d <= hi + 1e-9; d += 1.0)
        for (const double m : {1.0, 2.0, 5.0}) {
            const double x = m * std::pow(10.0, d);
            if (std::log10(x) > hi + 1e-9) break;
            fmt::print(out,
                       "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "stroke=\"#eee\"/>\n",
                       X(x), T, X(x), H - B);
            if (m != 1.0 && hi - lo > 3) continue; // label only decades on wide ranges
            const std::string label = x < 1e3   ? fmt::format("{:g}", x)
                                      : x < 1e6 ? fmt::format("{:g}k", x / 1e3)
                                                : fmt::format("{:g}M", x / 1e6);
            fmt::print(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       X(x), H - B + 16, label);
        }
    fmt::print(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
               (L + W - R) / 2, H - 18, x_label);
    fmt::print(out,
               "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
               "stroke=\"black\"/>\n",
               L, T, W - L - R, H - T - B);
    for (std::size_t i = 0; i < rs.size(); ++i) {
        const auto pts = cdf_points(*rs[i]);
        if (pts.empty()) continue;
        fmt::print(out,
                   "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"{}\" "
                   "stroke-dasharray=\"{}\" points=\"",
                   colours[i % colours.size()], svg_dashes[i % svg_dashes.size()]);
        double prev = 0;
        for (const auto& [x, f] : pts) {
            fmt::print(out, "{:.1f},{:.1f} {:.1f},{:.1f} ", X(x), Y(prev), X(x), Y(f));
            prev = f;
        }
        fmt::print(out, "\"/>\n");
        const double ly = T + 10 + 20.0 * static_cast<double>(i);
        fmt::print(out,
                   "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"{}\" "
                   "stroke-dasharray=\"{}\" stroke-width=\"3\"/>\n",
                   W - R + 15, ly, W - R + 40, ly, colours[i % colours.size()],
                   svg_dashes[i % svg_dashes.size()]);
        fmt::print(out, "<text x=\"{}\" y=\"{:.1f}\">{}</text>\n", W - R + 46, ly + 4,
                   rs[i]->name());
    }
    fmt::print(out, "</svg>\n");
    if (!out.flush()) throw std::runtime_error("error writing " + file);
}

/// Whether the plot file's format (its name's: plot_terminal_or_throw) is drawn by gnuplot: a
/// .png or a .pdf; an .svg is drawn here, without it.
inline bool drawn_by_gnuplot(const std::string& plot) {
    return memsub::explorer::plot_terminal_or_throw("--cdf", plot) != "svg dynamic";
}

/// The gnuplot script that draws `plot` (a .png or .pdf): its name with .gp.
inline std::string gnuplot_script_for(const std::string& plot) {
    return plot.substr(0, plot.find_last_of('.')) + ".gp";
}

/// Draws the CDFs as `plot` (.png or .pdf) with gnuplot: the same curves, colours, dashes and
/// axis as the SVG, from a script (gnuplot_script_for(plot)) that holds the points and stays for
/// restyling. Throws std::runtime_error when the script cannot be written or gnuplot fails.
inline void write_gnuplot(const std::string& plot, const std::vector<std::unique_ptr<runner>>& rs,
                          const std::string& title) {
    const std::string script = gnuplot_script_for(plot);
    const std::string terminal = memsub::explorer::plot_terminal_or_throw("--cdf", plot);
    {
        std::ofstream gp(script);
        if (!gp) throw std::runtime_error("cannot write " + script);
        const auto axis = axis_of(rs); // not a structured binding: clang 14 cannot capture one
        const double lo = axis.lo, hi = axis.hi;
        const bool pdf = terminal.starts_with("pdf");
        fmt::print(gp, "# Memory latency CDF drawn by memory_explorer. Render: gnuplot {}\n",
                   memsub::explorer::gnuplot_quoted(script));
        fmt::print(gp, "set terminal {} size {} font 'Sans,{}'\n", terminal,
                   pdf ? "9in,5.2in" : "900,520", pdf ? 10 : 9);
        fmt::print(gp, "set output {}\nset termoption noenhanced\n",
                   memsub::explorer::gnuplot_quoted(plot));
        fmt::print(gp, "set title {}\n",
                   memsub::explorer::gnuplot_quoted("Memory latency CDF — " + title));
        fmt::print(gp,
                   "set logscale x\nset xrange [{:g}:{:g}]\nset yrange [0:1]\nset ytics 0.1\n"
                   "set grid xtics ytics mxtics\nset xlabel {}\nset ylabel 'fraction of "
                   "requests'\nset key outside right top\n",
                   std::pow(10.0, lo), std::pow(10.0, hi),
                   memsub::explorer::gnuplot_quoted(x_label));
        // Each curve's points as a data block; a step up at each bucket's upper end, from 0.
        std::string plot_command;
        for (std::size_t i = 0; i < rs.size(); ++i) {
            const auto pts = cdf_points(*rs[i]);
            if (pts.empty()) continue;
            fmt::print(gp, "$config{} << EOD\n{:.3f} 0\n", i, pts.front().first);
            for (const auto& [x, f] : pts) fmt::print(gp, "{:.3f} {:.6f}\n", x, f);
            fmt::print(gp, "EOD\n");
            plot_command +=
                fmt::format("{}$config{} using 1:2 with steps lw 2 lc rgb '{}' dt {} title {}",
                            plot_command.empty() ? "plot " : ", \\\n     ", i,
                            colours[i % colours.size()], gnuplot_dashes[i % gnuplot_dashes.size()],
                            memsub::explorer::gnuplot_quoted(rs[i]->name()));
        }
        fmt::print(gp, "{}\n", plot_command);
        if (!gp.flush()) throw std::runtime_error("error writing " + script);
    }
    if (!memsub::explorer::render_with_gnuplot(script, plot))
        throw std::runtime_error(fmt::format("{} not drawn: gnuplot is not installed", plot));
}

/// The results as one table (memsub/explorer/result_table.hpp): a row per CDF point (config,
/// latency_ns, cdf: the fraction of requests completed within latency_ns) of each configuration,
/// with that configuration's figures, the LLC's and the run's status (`partial`: a stop signal,
/// an input error or the simulated-time limit cut the run short; `interrupted_by_signal`;
/// `error`). A configuration without a completed request (an empty or unreadable trace) has one
/// row with no point, so every configuration and every error shows in the file.
struct run_summary {
    std::string label;
    std::uint64_t references = 0;
    std::uint64_t llc_misses = 0;
    std::uint64_t line_fills = 0; ///< reads sent to memory
    std::uint64_t writebacks = 0; ///< writes sent to memory
    std::optional<std::string> error;
    int interrupted_by = 0;
};

inline memsub::explorer::result_table
results_table(const options& o, const run_summary& run,
              const std::vector<std::unique_ptr<runner>>& rs) {
    memsub::explorer::result_table table("memory_explorer");
    for (const auto& r : rs) {
        const auto& s = r->stats();
        const double gbs = gb_per_s(*r);
        const bool any = s.completed() > 0;
        const auto fields = [&](memsub::explorer::result_table::row& row) {
            // Latency figures of a configuration that completed nothing are null, not 0.
            const auto latency = [&](double v) { return any ? std::optional(v) : std::nullopt; };
            row.number("requests", s.completed())
                .optional_number("mean_ns", latency(s.latency.mean() * r->tck_ns()), "{:.3f}")
                .optional_number("p50_ns", latency(ns(*r, s.latency.percentile(0.50))), "{:.3f}")
                .optional_number("p95_ns", latency(ns(*r, s.latency.percentile(0.95))), "{:.3f}")
                .optional_number("p99_ns", latency(ns(*r, s.latency.percentile(0.99))), "{:.3f}")
                .optional_number("q95_ns", latency(ns(*r, s.queueing.percentile(0.95))), "{:.3f}")
                .optional_number("row_hit_rate", latency(s.row_hit_rate()), "{:.6f}")
                .number("bus_utilisation", gbs / r->peak_gb_per_s(), "{:.6f}")
                .number("gb_per_s", gbs, "{:.6f}")
                .text("trace", run.label)
                .number("sets", o.shape.sets)
                .number("ways", o.shape.ways)
                .number("line_bytes", o.shape.line_bytes)
                .number("access_ns", o.access_ns, "{:g}")
                .number("llc_accesses", run.references)
                .number("llc_misses", run.llc_misses)
                .number("llc_miss_ratio",
                        run.references > 0 ? static_cast<double>(run.llc_misses) /
                                                 static_cast<double>(run.references)
                                           : 0.0,
                        "{:.6f}")
                .number("llc_line_fills", run.line_fills)
                .number("llc_writebacks", run.writebacks)
                .boolean("partial", run.interrupted_by != 0 || run.error.has_value())
                .optional_number("interrupted_by_signal", run.interrupted_by != 0
                                                              ? std::optional(run.interrupted_by)
                                                              : std::nullopt)
                .optional_text("error", run.error);
        };
        const auto pts = cdf_points(*r);
        if (pts.empty()) {
            auto& row = table.add_row();
            row.text("config", r->name()).null("latency_ns").null("cdf");
            fields(row);
        }
        for (const auto& [x, f] : pts) {
            auto& row = table.add_row();
            row.text("config", r->name())
                .number("latency_ns", x, "{:.3f}")
                .number("cdf", f, "{:.6f}");
            fields(row);
        }
    }
    return table;
}

/// Checks, before any work, that every output can be written (exit 2 otherwise), and that
/// gnuplot is there when the plot's format needs it. Throws option_error naming the option.
inline void check_outputs(const options& o) {
    memsub::explorer::check_writable("--cdf", o.cdf);
    memsub::explorer::check_writable("--csv", o.csv);
    if (o.cdf.empty() || !drawn_by_gnuplot(o.cdf)) return;
    memsub::explorer::check_writable("--cdf", gnuplot_script_for(o.cdf));
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
        throw option_error(fmt::format("--cdf {}: a .png or .pdf plot is drawn by gnuplot, which "
                                       "is not installed (Debian: gnuplot-nox); install it or "
                                       "name the file .svg",
                                       o.cdf));
}

template <class... Configurations>
int run(int argc, char** argv) {
    const std::vector<std::string_view> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    const options o = memsub::explorer::parse_or_exit(program, [&] { return parse_options(args); });
    if (o.what == options::action::help) {
        // The usage names the program as it was run (memory_explorer, or one built on it).
        std::string usage(usage_text);
        usage.replace(usage.find("memory_explorer"), 15, program);
        fmt::print("{}", usage);
        return status::ok;
    }
    std::vector<configuration> all;
    try {
        all = configurations<Configurations...>();
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "{}: configuration error: {}\n", program, e.what());
        return status::usage_error;
    }
    if (o.what == options::action::list) {
        for (const auto& c : all) fmt::print("{:<14} {}\n", c.name, c.description);
        return status::ok;
    }
    for (const auto& want : o.configs)
        if (std::none_of(all.begin(), all.end(),
                         [&](const configuration& c) { return c.name == want; })) {
            fmt::print(stderr, "{}: unknown configuration '{}' (--list)\n", program, want);
            return status::usage_error;
        }
    if (!o.trace) {
        const std::uint64_t n = o.limit != 0 ? std::min(o.limit, o.accesses) : o.accesses;
        if (static_cast<double>(n) * o.access_ns > max_simulated_ns) {
            fmt::print(stderr,
                       "{}: {} accesses at --access-ns {:g} simulate more than {:g} "
                       "ns, the limit; lower --access-ns or --accesses\n",
                       program, n, o.access_ns, max_simulated_ns);
            return status::usage_error;
        }
    }
    // Every output is checked before the run, so a long run cannot end in an output error
    // that was knowable at its start (the writers still report a failure while writing).
    if (!memsub::explorer::outputs_writable_or_report(program, [&] { check_outputs(o); }))
        return status::usage_error;
    // Built-in workload: its 16 clusters; a trace: one requester unless told otherwise.
    const std::uint32_t requesters = o.requesters != 0 ? o.requesters : (o.trace ? 1u : 16u);
    return memsub::explorer::run_reporting_errors(program, memory_use, [&]() -> int {
        std::vector<std::unique_ptr<runner>> runners;
        memory_use = "building the memory controllers";
        for (const auto& c : all)
            if (o.configs.empty() ||
                std::find(o.configs.begin(), o.configs.end(), c.name) != o.configs.end())
                runners.push_back(c.make(c.name, requesters));

        memory_use = fmt::format(
            "building the LLC of {} sets x {} ways x {} B ({:.2f} GiB of cache): choose a "
            "smaller --sets or --ways",
            o.shape.sets, o.shape.ways, o.shape.line_bytes,
            static_cast<double>(o.shape.capacity_bytes()) / 1073741824.0);
        memsub::cache::set_associative_cache<memsub::replacement::lru> llc(o.shape);
        memory_use = "simulating";

        run_summary run;
        // A trace that cannot be opened still gets its rows (with the error) in the CSV.
        std::optional<source> src;
        try {
            src.emplace(make_source(o));
            run.label = src->label();
        } catch (const memsub::input_error& e) {
            run.label = memsub::explorer::input_label(*o.trace);
            run.error = e.what();
        }
        std::vector<memsub::access> chunk;
        chunk.reserve(chunk_accesses);
        std::vector<mem_event> events;
        events.reserve(4 * chunk_accesses);
        std::optional<std::string> time_limit; // the simulated-time limit stopped a trace
        memsub::explorer::progress_meter progress(o.progress, "");
        const std::uint64_t line = o.shape.line_bytes;
        // Which requester a memory request belongs to (see the header comment).
        const auto requester_of = [&](const memsub::access& a, memsub::byte_address target) {
            if (!o.trace) return a.requester % requesters; // built-in clusters
            switch (o.map) {
            case options::requester_map::pc:
                return static_cast<std::uint32_t>(memsub::mix64(a.pc) % requesters);
            case options::requester_map::page:
                return static_cast<std::uint32_t>(memsub::mix64(target.value >> 12) % requesters);
            case options::requester_map::trace:
                return a.requester; // checked below --requesters by run_chunk
            }
            return 0u;
        };
        auto run_chunk = [&] {
            events.clear();
            // The controllers count cycles in 64 bits: a trace stops at the simulated time they
            // can represent rather than overflow a conversion (the references before it count).
            const std::uint64_t fitting = references_fitting(o.access_ns);
            if (run.references + chunk.size() > fitting) {
                chunk.resize(fitting > run.references ? fitting - run.references : 0);
                time_limit = fmt::format(
                    "the trace goes past the simulated-time limit, {:g} ns at --access-ns {:g}: "
                    "it stopped after {} accesses; lower --access-ns or use --limit",
                    max_simulated_ns, o.access_ns, run.references + chunk.size());
            }
            // A record whose requester is not below --requesters is a bad record: the run
            // stops before it, as at any malformed record, and keeps what came before.
            if (o.trace && o.map == options::requester_map::trace)
                for (std::size_t i = 0; i < chunk.size(); ++i)
                    if (chunk[i].requester >= requesters) {
                        run.error = fmt::format(
                            "access {}: the trace's requester {} is not below --requesters {}",
                            run.references + i + 1, chunk[i].requester, requesters);
                        chunk.resize(i);
                        time_limit.reset(); // the bad record comes before the limit
                        break;
                    }
            for (const memsub::access& a : chunk) {
                const double t = static_cast<double>(run.references++) * o.access_ns;
                // Every line the reference covers, in address order (cachegrind's rule): each
                // line's dirty victims are written back, then the line is fetched if it missed.
                std::uint64_t line_index = a.address.value / line;
                if (llc.access_spanning(a, [&](const auto& r) {
                        for (const auto& ev : r.evictions)
                            if (ev.dirty) {
                                events.push_back({t, ev.address, true, requester_of(a, ev.address),
                                                  run.references});
                                ++run.writebacks;
                            }
                        if (!r.hit && r.bytes_fetched > 0) {
                            const memsub::byte_address fill{line_index * line};
                            events.push_back(
                                {t, fill, false, requester_of(a, fill), run.references});
                            ++run.line_fills;
                        }
                        ++line_index;
                    }))
                    ++run.llc_misses;
            }
            for (auto& r : runners)
                if (auto rejected = r->feed(events); rejected && !run.error)
                    run.error = std::move(rejected);
        };
        int& interrupted_by = run.interrupted_by; // the signal that stopped the run early
        if (src) {
            try {
                memsub::explorer::install_stop_handlers();
                while (!time_limit && !run.error && src->next_chunk(chunk)) {
                    run_chunk();
                    if ((interrupted_by = memsub::explorer::stop_requested()) != 0) break;
                    progress.update(run.references, src->fraction_done());
                }
            } catch (const memsub::input_error& e) {
                run.error = e.what(); // the results cover everything read before it
            }
        }
        if (time_limit && !run.error) run.error = time_limit;
        for (auto& r : runners) r->finish();
        progress.finish();
        // A signal during the last chunk's reading or the controllers' draining still marks the
        // results partial.
        if (interrupted_by == 0) interrupted_by = memsub::explorer::stop_requested();

        const std::uint64_t done = run.references;
        fmt::print("workload: {}{}\n", run.label,
                   interrupted_by != 0
                       ? fmt::format(" (PARTIAL: interrupted by signal {} after {} accesses)",
                                     interrupted_by, done)
                       : std::string());
        const auto& cs = llc.stats();
        fmt::print("LLC {} {}-way {} B lines (LRU): {} accesses, {} misses, miss ratio {:.3f} "
                   "(a reference crossing lines is one access); to memory {} line fills and {} "
                   "writebacks; one access every {:g} ns\n\n",
                   capacity_label(o.shape.capacity_bytes()), o.shape.ways, o.shape.line_bytes,
                   cs.accesses(), cs.misses(), cs.miss_ratio(), run.line_fills, run.writebacks,
                   o.access_ns);
        fmt::print("{:<13} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>6} {:>7} {:>9}\n", "config",
                   "requests", "mean ns", "p50 ns", "p95 ns", "p99 ns", "q95 ns", "row hits",
                   "bus %", "GB/s", "sim M/s");
        for (const auto& r : runners) {
            const auto& s = r->stats();
            const double gbs = gb_per_s(*r);
            fmt::print("{:<13} {:>9} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f}% "
                       "{:>5.1f} {:>7.2f} {:>9.2f}\n",
                       r->name(), s.completed(), s.latency.mean() * r->tck_ns(),
                       ns(*r, s.latency.percentile(0.50)), ns(*r, s.latency.percentile(0.95)),
                       ns(*r, s.latency.percentile(0.99)), ns(*r, s.queueing.percentile(0.95)),
                       100.0 * s.row_hit_rate(), 100.0 * gbs / r->peak_gb_per_s(), gbs,
                       r->seconds > 0 ? static_cast<double>(s.completed()) / r->seconds / 1e6
                                      : 0.0);
        }
        fmt::print("\n");
        for (const auto& r : runners) fmt::print("  {:<13} {}\n", r->name(), r->description());
        fmt::print("  (q95 = 95th percentile of queueing delay; bus % = share of the peak "
                   "data-bus bandwidth over the run)\n");
        // Partitioned vs shared: what this run measured, nothing more (whether partitioning
        // helps depends on the load and the requesters; tests/memory/partitioned_test.cpp
        // measures it at saturation).
        const runner* shared = nullptr;
        const runner* pmc = nullptr;
        for (const auto& r : runners) {
            if (r->name() == "hbm2-frfcfs") shared = r.get();
            if (r->name() == "hbm2-pmc") pmc = r.get();
        }
        if (shared != nullptr && pmc != nullptr && shared->stats().completed() > 0 &&
            pmc->stats().completed() > 0) {
            const auto& a = shared->stats();
            const auto& b = pmc->stats();
            auto change = [](double from, double to) {
                return from > 0 ? fmt::format(" ({:+.0f} %)", 100.0 * (to - from) / from)
                                : std::string();
            };
            const double q_a = ns(*shared, a.queueing.percentile(0.95));
            const double q_b = ns(*pmc, b.queueing.percentile(0.95));
            const double m_a = a.latency.mean() * shared->tck_ns();
            const double m_b = b.latency.mean() * pmc->tck_ns();
            fmt::print("\nHBM2, partitioned (hbm2-pmc) against shared queue (hbm2-frfcfs), {} "
                       "requester(s), this run:\n"
                       "  p95 queueing {:.1f} -> {:.1f} ns{}; mean latency {:.1f} -> {:.1f} ns{}; "
                       "bandwidth {:.2f} -> {:.2f} GB/s ({:.1f} -> {:.1f} % of peak).\n",
                       requesters, q_a, q_b, change(q_a, q_b), m_a, m_b, change(m_a, m_b),
                       gb_per_s(*shared), gb_per_s(*pmc),
                       100.0 * gb_per_s(*shared) / shared->peak_gb_per_s(),
                       100.0 * gb_per_s(*pmc) / pmc->peak_gb_per_s());
        }

        memsub::explorer::output_attempts outputs;
        auto attempt = [&](const std::string& what, const std::string& file, auto&& write) {
            if (outputs.attempt(write)) fmt::print("{}: {}\n", what, file);
        };
        const bool partial = interrupted_by != 0 || run.error.has_value();
        const std::string title = run.label + (partial ? " (partial)" : "");
        const bool any_latency = std::any_of(runners.begin(), runners.end(), [](const auto& r) {
            return r->stats().completed() > 0;
        });
        // Decision: no plot when no request reached memory (an empty or unreadable trace): an
        // empty frame would pass for a result; the CSV still has a row per configuration.
        if (!o.cdf.empty() && !any_latency)
            fmt::print("latency CDF plot: not drawn, no request reached memory\n");
        else if (!o.cdf.empty())
            attempt("latency CDF plot", o.cdf, [&] {
                if (!drawn_by_gnuplot(o.cdf))
                    write_svg(o.cdf, runners, title);
                else
                    write_gnuplot(o.cdf, runners, title);
            });
        if (!o.csv.empty())
            attempt("results (CSV)", o.csv,
                    [&] { results_table(o, run, runners).write_csv(o.csv); });

        if (!run.error && interrupted_by == 0 && done == 0)
            fmt::print(stderr,
                       "{}: warning: {} holds no accesses (an empty input, or only "
                       "comments or blank lines); every figure is 0\n",
                       program, run.label);
        if (time_limit) {
            fmt::print(stderr, "{}: stopped: {}\n", program, *time_limit);
        } else if (run.error) {
            fmt::print(stderr, "{}: trace error: {}\n", program, *run.error);
            if (src)
                fmt::print(stderr, "{}: results cover the {} accesses before it\n", program, done);
        }
        for (const auto& f : outputs.failures())
            fmt::print(stderr, "{}: output error: {}\n", program, f);
        // A signal while the results were written: the status says the run was stopped.
        if (interrupted_by == 0) interrupted_by = memsub::explorer::stop_requested();
        if (interrupted_by != 0) {
            fmt::print(stderr,
                       "{}: interrupted by signal {}: the results above are partial "
                       "({} accesses)\n",
                       program, interrupted_by, done);
            return memsub::explorer::stopped_exit_status(interrupted_by);
        }
        if (time_limit) return status::usage_error;
        if (run.error || !outputs.ok()) return status::input_error;
        if (done == 0) return status::empty_input;
        return status::ok;
    });
}

} // namespace memory_explorer_detail

/// The memory explorer's command line (`--help` lists it) on the library's nine memory
/// configurations and `Configurations` (each a ddr4_configuration<Scheduler, RowPolicy>), all fed
/// the same LLC miss and writeback stream. Returns the exit status (0 success, 1 an input or
/// output error, 2 bad usage or configuration, 3 empty input, 4 out of memory, 128 + N stopped by
/// signal N).
template <class... Configurations>
int run_memory_explorer(int argc, char** argv) {
    memory_explorer_detail::program = program_name(argc, argv, "memory_explorer");
    return memory_explorer_detail::run<Configurations...>(argc, argv);
}

} // namespace memsub::explorer
