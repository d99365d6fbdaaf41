// The explorer's command line: parsed into `explorer_options` without side effects (no output,
// no exit), so the parser can be unit-tested and fuzzed. explorer_usage is the `--help` text
// (every option and the exit statuses); explorer_status names the exit statuses:
//   0 ok, 1 input error (a trace could not be read; every other result is still reported),
//   2 usage error (bad option or configuration), 3 empty input, 4 out of memory,
//   128 + N interrupted by signal N (130 SIGINT, 143 SIGTERM; partial results are kept).
// Part of the explorer module (memsub::explorer; needs {fmt}).
#pragma once

#include <memsub/core/geometry.hpp>
#include <memsub/trace/open.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/plot.hpp>
#include <memsub/explorer/run_report.hpp>

#include <fmt/core.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace memsub::explorer {

/// The options every trace tool built on the module shares (the explorer, mrc_explorer): its
/// inputs, its result files and its progress. A tool's options derive from it, and its parser
/// hands each argument to parse_shared_option first, so the shared options are spelled,
/// checked and documented once.
struct shared_options {
    std::vector<std::string> traces;
    std::optional<memsub::trace::trace_format> format;
    std::uint64_t limit = 0; // 0 = whole trace
    /// Length of the built-in workload (used when no trace is named).
    std::uint64_t default_accesses = 5'000'000;
    std::uint64_t seed = 2026;
    /// oracleGeneral: bytes per obj_id (address = obj_id x this; 64 = one line per object).
    std::uint64_t object_bytes = 64;
    /// Memory for OPT's line stream before it spills to a temporary file (MiB).
    std::uint64_t opt_memory_mib = 1024;
    std::string csv, json, plot;
    bool progress = true;
};

/// Parses `r.arg()`, which the tool did not recognise as its own option: a shared option
/// (--trace, --format, --limit, --accesses, --seed, --object-bytes, --opt-memory, --csv, --json,
/// --plot, --quiet) or a bare trace name is stored in `o`, its value consumed. Throws
/// option_error for a missing or bad value, a plot file of an unknown format, and any other
/// "--" option (unknown to the tool).
inline void parse_shared_option(option_reader& r, shared_options& o) {
    const std::string_view arg = r.arg();
    if (arg == "--trace")
        o.traces.emplace_back(r.value());
    else if (arg == "--format") {
        const auto v = r.value();
        o.format = memsub::trace::parse_format(v);
        if (!o.format) throw option_error(fmt::format("unknown format '{}'", v));
    } else if (arg == "--limit")
        o.limit = parse_unsigned(arg, r.value());
    else if (arg == "--accesses")
        o.default_accesses = parse_unsigned(arg, r.value());
    else if (arg == "--seed")
        o.seed = parse_unsigned(arg, r.value());
    else if (arg == "--object-bytes")
        o.object_bytes = parse_unsigned(arg, r.value(), 1);
    else if (arg == "--opt-memory")
        o.opt_memory_mib = parse_unsigned(arg, r.value(), 1, std::uint64_t{1} << 40);
    else if (arg == "--csv")
        o.csv = r.value();
    else if (arg == "--json")
        o.json = r.value();
    else if (arg == "--plot") {
        o.plot = r.value();
        (void)plot_terminal_or_throw(arg, o.plot);
    } else if (arg == "--quiet")
        o.progress = false;
    else if (!arg.starts_with("--"))
        o.traces.emplace_back(arg);
    else
        throw option_error(fmt::format("unknown option {}", arg));
}

/// parse_shared_option on `args[i]`; `i` is moved past its value.
inline void parse_shared_option(std::span<const std::string_view> args, std::size_t& i,
                                shared_options& o) {
    option_reader r({args.begin(), args.end()});
    r.seek(i);
    parse_shared_option(r, o);
    i = r.position();
}

/// Checks, before any work, that the result files named in `o` can be written
/// (check_writable). On failure prints "<program>: <why> (nothing was run)" on stderr and returns
/// false: the tool then exits with explorer_status::usage_error.
inline bool outputs_writable(std::string_view program, const shared_options& o) {
    return outputs_writable_or_report(program, [&] {
        check_writable("--csv", o.csv);
        check_writable("--json", o.json);
        check_writable("--plot", o.plot);
    });
}

/// The explorer's options: the shared ones and its own.
struct explorer_options : shared_options {
    enum class action { run, help, list };
    action what = action::run;
    memsub::geometry shape{.sets = 2048, .ways = 16, .line_bytes = 64};
    std::vector<std::string> policies; // empty = all
    bool no_opt = false;
    /// Also run fully associative LRU and FIFO (and OPT) of the same capacity.
    bool fully_associative = false;
    /// Classify every policy's misses as compulsory / capacity / conflict (Hill's 3C).
    bool three_c = false;
    /// Threads the policies run on (the trace is decoded once, on the main thread).
    std::uint32_t jobs = 1;
};

inline constexpr std::string_view explorer_usage =
    "usage: explorer [options] [TRACE ...]\n"
    "  --trace FILE         a trace to replay (repeatable; bare arguments too)\n"
    "  --format NAME        lackey | din | text | u64 | oracleGeneral | champsim\n"
    "                       (default: detect)\n"
    "  --sets N             sets (a power of two, 1..2147483648; default 2048)\n"
    "  --ways N             ways (1..64; default 16)\n"
    "  --line-bytes N       line size (a power of two >= 4; default 64)\n"
    "  --policies A,B,...   policies to run (default: all; --list shows them), each with\n"
    "                       its own settings after a colon if wanted:\n"
    "                       lru,srrip:rrpv_bits=3,promotion=frequency_priority (--list\n"
    "                       --policies P shows P's settings and defaults). Belady's\n"
    "                       OPT bound (opt) is added unless --no-opt; --policies opt\n"
    "                       runs the bound alone\n"
    "  --no-opt             skip Belady's OPT bound\n"
    "  --opt-memory MIB     memory for OPT's line stream, 16 bytes per line touched\n"
    "                       (default 1024); beyond it the stream spills to a temporary\n"
    "                       file in $TMPDIR (8 bytes per line on disk, twice while OPT\n"
    "                       runs). OPT also keeps ~50 bytes per distinct line in memory\n"
    "  --jobs N             run the policies on N threads (default 1; the trace is read\n"
    "                       once for all of them)\n"
    "  --limit N            stop each trace after N accesses\n"
    "  --accesses N         length of the built-in workload (default 5000000)\n"
    "  --seed N             seed of the built-in workload (default 2026)\n"
    "  --csv FILE           also write the results as CSV\n"
    "  --json FILE          also write the results as JSON\n"
    "  --plot FILE          also draw miss ratio per policy with gnuplot; the format follows\n"
    "                       the extension: .png, .svg or .pdf\n"
    "  --fully-associative  also run fully associative LRU, FIFO and OPT caches of the\n"
    "                       same capacity (fa_lru, fa_fifo, fa_opt; one set, a hash index;\n"
    "                       --policies fa_lru runs one alone)\n"
    "  --3c                 split every policy's misses into compulsory, capacity and\n"
    "                       conflict misses (Hill: against a fully associative LRU of the\n"
    "                       same capacity; keeps 8 bytes per distinct line of the trace)\n"
    "  --object-bytes N     oracleGeneral traces: address = obj_id x N (default 64, one\n"
    "                       line per object; 1 when obj_id already is a byte address)\n"
    "  --quiet              no progress on stderr\n"
    "  --list               list the policies and exit (with --policies: their\n"
    "                       settings, defaults and what each takes)\n"
    "Numbers are decimal and checked against their field's range (nothing is truncated).\n"
    "SIGINT / SIGTERM (Ctrl-C): the results so far are printed and written (marked partial;\n"
    "the OPT bound is skipped), then the explorer exits with 128 + the signal number.\n"
    "exit status: 0 success; 1 a trace could not be read or is malformed (the results before\n"
    "the bad record are still printed), or an output file could not be written (every other\n"
    "output and every trace error are still reported); 2 bad usage or configuration, or a\n"
    "policy named in --policies rejects the geometry (the others still run); 3 a trace held\n"
    "no accesses (empty, only comments or blank lines; its all-zero table is printed with a\n"
    "warning); 4 out of memory; 130 / 143 interrupted by SIGINT / SIGTERM.\n";

/// Exit statuses of the explorer (documented in explorer_usage and the README).
namespace explorer_status {
inline constexpr int ok = 0;
inline constexpr int input_error = 1;
inline constexpr int usage_error = 2;
inline constexpr int empty_input = 3;
inline constexpr int out_of_memory = 4;
} // namespace explorer_status

/// Parses the arguments after the program name. Throws option_error (exit status 2) for an
/// unknown option, a missing or bad value, or a plot file of an unknown format.
inline explorer_options parse_explorer_options(std::span<const std::string_view> args) {
    explorer_options o;
    for (option_reader r({args.begin(), args.end()}); r.next();) {
        const std::string_view arg = r.arg();
        const auto value = [&] { return r.value(); };
        if (arg == "--help" || arg == "-h") {
            o.what = explorer_options::action::help;
            return o;
        }
        if (arg == "--sets")
            o.shape.sets = parse_power_of_two(arg, value(), 1, std::uint32_t{1} << 31);
        else if (arg == "--ways")
            o.shape.ways =
                parse_unsigned_as<std::uint32_t>(arg, value(), 1, memsub::max_entries_per_set);
        else if (arg == "--line-bytes")
            o.shape.line_bytes = parse_power_of_two(arg, value(), 4, std::uint32_t{1} << 31);
        else if (arg == "--policies")
            o.policies = split_policy_list(value());
        else if (arg == "--no-opt")
            o.no_opt = true;
        else if (arg == "--fully-associative")
            o.fully_associative = true;
        else if (arg == "--3c")
            o.three_c = true;
        else if (arg == "--jobs")
            o.jobs = parse_unsigned_as<std::uint32_t>(arg, value(), 1, 1024);
        else if (arg == "--list")
            o.what = explorer_options::action::list;
        else
            parse_shared_option(r, o);
    }
    return o;
}

} // namespace memsub::explorer
