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

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace memsub::explorer {

struct explorer_options {
    enum class action { run, help, list };
    action what = action::run;
    std::vector<std::string> traces;
    std::optional<memsub::trace::trace_format> format;
    memsub::geometry shape{.sets = 2048, .ways = 16, .line_bytes = 64};
    std::vector<std::string> policies; // empty = all
    bool no_opt = false;
    bool progress = true;
    std::uint64_t limit = 0; // 0 = whole trace
    std::uint64_t default_accesses = 5'000'000;
    std::uint64_t seed = 2026;
    std::string csv, json, plot;
    /// Also run fully associative LRU and FIFO (and OPT) of the same capacity.
    bool fully_associative = false;
    /// Classify every policy's misses as compulsory / capacity / conflict (Hill's 3C).
    bool three_c = false;
    /// oracleGeneral: bytes per obj_id (address = obj_id x this; 64 = one line per object).
    std::uint64_t object_bytes = 64;
    /// Memory for OPT's line stream before it spills to a temporary file (MiB).
    std::uint64_t opt_memory_mib = 1024;
    /// Threads the policies run on (the trace is decoded once, on the main thread).
    std::uint32_t jobs = 1;
};

inline constexpr std::string_view explorer_usage =
    "usage: explorer [options] [TRACE ...]\n"
    "  --trace FILE         a trace to replay (repeatable; bare arguments too)\n"
    "  --format NAME        lackey | din | text | u64 | oracleGeneral (default: detect)\n"
    "  --sets N             sets (a power of two, 1..2147483648; default 2048)\n"
    "  --ways N             ways (1..64; default 16)\n"
    "  --line-bytes N       line size (a power of two >= 4; default 64)\n"
    "  --policies A,B,...   policies to run (default: all; --list shows them). Belady's\n"
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
    "  --list               list the policies and exit\n"
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
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= args.size()) throw option_error(fmt::format("{} needs a value", arg));
            return args[++i];
        };
        if (arg == "--help" || arg == "-h") {
            o.what = explorer_options::action::help;
            return o;
        }
        if (arg == "--trace")
            o.traces.emplace_back(value());
        else if (arg == "--format") {
            const auto v = value();
            o.format = memsub::trace::parse_format(v);
            if (!o.format) throw option_error(fmt::format("unknown format '{}'", v));
        } else if (arg == "--sets")
            o.shape.sets = parse_power_of_two(arg, value(), 1, std::uint32_t{1} << 31);
        else if (arg == "--ways")
            o.shape.ways =
                parse_unsigned_as<std::uint32_t>(arg, value(), 1, memsub::max_entries_per_set);
        else if (arg == "--line-bytes")
            o.shape.line_bytes = parse_power_of_two(arg, value(), 4, std::uint32_t{1} << 31);
        else if (arg == "--policies")
            o.policies = split_list(value());
        else if (arg == "--no-opt")
            o.no_opt = true;
        else if (arg == "--limit")
            o.limit = parse_unsigned(arg, value());
        else if (arg == "--accesses")
            o.default_accesses = parse_unsigned(arg, value());
        else if (arg == "--seed")
            o.seed = parse_unsigned(arg, value());
        else if (arg == "--csv")
            o.csv = value();
        else if (arg == "--json")
            o.json = value();
        else if (arg == "--plot") {
            o.plot = value();
            (void)plot_terminal_or_throw(arg, o.plot);
        } else if (arg == "--fully-associative")
            o.fully_associative = true;
        else if (arg == "--3c")
            o.three_c = true;
        else if (arg == "--object-bytes")
            o.object_bytes = parse_unsigned(arg, value(), 1);
        else if (arg == "--opt-memory")
            o.opt_memory_mib = parse_unsigned(arg, value(), 1, std::uint64_t{1} << 40);
        else if (arg == "--jobs")
            o.jobs = parse_unsigned_as<std::uint32_t>(arg, value(), 1, 1024);
        else if (arg == "--quiet")
            o.progress = false;
        else if (arg == "--list")
            o.what = explorer_options::action::list;
        else if (arg.starts_with("--"))
            throw option_error(fmt::format("unknown option {}", arg));
        else
            o.traces.emplace_back(arg);
    }
    return o;
}

} // namespace memsub::explorer
