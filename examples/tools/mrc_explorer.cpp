// memsub mrc_explorer — miss-ratio curves of traces (or the explorer's built-in workload) in one
// pass: the miss ratio of every cache size at once, where the explorer runs one geometry per run.
//
//   mrc_explorer                                    built-in workload: lru, sa_lru and shards
//   mrc_explorer --curves lru,opt --max-capacity 65536 app.lackey
//   mrc_explorer --sets 64..4096 --ways 16 --csv mrc.csv --plot mrc.svg app.din
//
// Curves (include/memsub/analysis/, docs/mechanisms/miss_ratio_curves.md):
//   lru     fully associative LRU, every capacity 1 .. --max-capacity (exact)
//   sa_lru  set-associative LRU, every power-of-two set count of --sets x every way count
//           1 .. --ways (exact, bit-selection indexing as basic_cache)
//   opt     fully associative Belady/MIN, every capacity 1 .. --max-capacity (exact)
//   sa_opt  set-associative MIN on the same grid as sa_lru (exact)
//   shards  fully associative LRU estimated from a spatially hashed sample of the lines
// An exact point is the explorer's miss count for that geometry, reference by reference:
// `explorer --sets S --ways W --policies lru` (and its opt row; its fa_lru / fa_opt rows with
// --fully-associative are the fully associative points at capacity S x W).
//
// The inputs, their options and the exit statuses are the explorer's: the input is read by the
// same code (memsub/explorer/source.hpp), and OPT's next uses come from the explorer's
// bounded-memory line stream (memsub/explorer/opt_spool.hpp: 16 bytes per line touched up to
// --opt-memory, then a temporary file).
#include <memsub/analysis/all_associativity_lru.hpp>
#include <memsub/analysis/opt_curve.hpp>
#include <memsub/analysis/shards.hpp>
#include <memsub/analysis/stack_distance_lru.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/opt_spool.hpp>
#include <memsub/explorer/options.hpp>
#include <memsub/explorer/plot.hpp>
#include <memsub/explorer/progress.hpp>
#include <memsub/explorer/result_table.hpp>
#include <memsub/explorer/run_report.hpp>
#include <memsub/explorer/signals.hpp>
#include <memsub/explorer/source.hpp>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace ex = memsub::explorer;
namespace analysis = memsub::analysis;
namespace status = memsub::explorer::explorer_status;

std::string program = "mrc_explorer";

constexpr std::string_view curve_names[] = {"lru", "sa_lru", "opt", "sa_opt", "shards"};

/// The explorer's shared options (memsub/explorer/options.hpp: inputs, result files, progress)
/// and the curves' own.
struct options : ex::shared_options {
    bool help = false;
    /// The cache (in lines) the built-in workload is sized for: the explorer's sets x ways.
    std::uint64_t workload_lines = 32768;
    std::uint32_t line_bytes = 64;
    std::uint64_t max_capacity = std::uint64_t{1} << 20;
    std::uint32_t min_sets = 1, max_sets = 16384, ways = 16;
    bool lru = true, sa_lru = true, opt = false, sa_opt = false, shards = true;
    std::optional<double> shards_rate;
    std::uint64_t shards_size = 0;

    [[nodiscard]] bool grid() const { return sa_lru || sa_opt; }
    [[nodiscard]] bool next_uses() const { return opt || sa_opt; }
};

constexpr std::string_view usage =
    "usage: mrc_explorer [options] [TRACE ...]\n"
    "Miss-ratio curves in one pass: the miss ratio of every cache size of a trace.\n"
    "  --trace FILE         a trace to read (repeatable; bare arguments too; - is stdin)\n"
    "  --format NAME        lackey | din | text | u64 | oracleGeneral | champsim\n"
    "                       (default: detect)\n"
    "  --curves A,B,...     curves to compute (default lru,sa_lru,shards):\n"
    "                         lru     fully associative LRU, every capacity (exact)\n"
    "                         sa_lru  set-associative LRU, every --sets x every way\n"
    "                                 count 1..--ways (exact)\n"
    "                         opt     fully associative Belady OPT, every capacity (exact)\n"
    "                         sa_opt  set-associative OPT on the --sets x --ways grid (exact)\n"
    "                         shards  fully associative LRU estimated by SHARDS sampling\n"
    "  --line-bytes N       line size (a power of two >= 4; default 64)\n"
    "  --max-capacity N     largest fully associative capacity, in lines (1..4294967295;\n"
    "                       default 1048576); lru keeps 8 bytes and opt 28-44 bytes per line\n"
    "                       of it, and opt's time per reference grows with it\n"
    "  --sets MIN..MAX      the grid's set counts, powers of two (1..2147483648; N alone is\n"
    "                       N..N; default 1..16384)\n"
    "  --ways W             the grid's largest way count (1..1024; default 16)\n"
    "  --shards-rate R      SHARDS' sampling rate, 0 < R <= 1 (default 0.01; with\n"
    "                       --shards-size, the rate it starts from: default 1)\n"
    "  --shards-size S      SHARDS with at most S sampled lines (fixed size)\n"
    "  --opt-memory MIB     memory for OPT's line stream, 16 bytes per line touched\n"
    "                       (default 1024); beyond it the stream spills to a temporary\n"
    "                       file in $TMPDIR (8 bytes per line on disk, twice while OPT\n"
    "                       runs). OPT also keeps ~50 bytes per distinct line in memory\n"
    "  --limit N            stop each trace after N accesses\n"
    "  --accesses N         length of the built-in workload (default 5000000)\n"
    "  --seed N             seed of the built-in workload (default 2026)\n"
    "  --workload-lines N   the cache the built-in workload is sized for, in lines (the\n"
    "                       explorer's --sets x --ways; default 32768 = 2048 x 16)\n"
    "  --object-bytes N     oracleGeneral traces: address = obj_id x N (default 64, one\n"
    "                       line per object; 1 when obj_id already is a byte address)\n"
    "  --csv FILE           also write every point as CSV\n"
    "  --json FILE          also write every point as JSON\n"
    "  --plot FILE          also draw miss ratio vs cache size with gnuplot (.png, .svg or\n"
    "                       .pdf): a line per way count and per fully associative curve\n"
    "  --quiet              no progress on stderr\n"
    "Each reference counts as the explorer counts it: a reference crossing a line boundary\n"
    "touches every line it covers but is one access with at most one miss; writes allocate.\n"
    "SIGINT / SIGTERM: the curves so far are printed and written (marked partial; OPT is\n"
    "skipped), then the program exits with 128 + the signal number.\n"
    "exit status: as the explorer's: 0 success; 1 a trace could not be read or is malformed\n"
    "(the curves of the accesses before the bad record are still printed), or an output\n"
    "could not be written; 2 bad usage; 3 a trace held no accesses; 4 out of memory;\n"
    "130 / 143 interrupted by SIGINT / SIGTERM.\n";

/// "A..B" or "N" (= N..N): set counts, powers of two in 1..2^31, A <= B.
std::pair<std::uint32_t, std::uint32_t> parse_set_range(std::string_view flag,
                                                        std::string_view text) {
    constexpr std::uint32_t most = std::uint32_t{1} << 31;
    const auto dots = text.find("..");
    if (dots == std::string_view::npos) {
        const auto n = ex::parse_power_of_two(flag, text, 1, most);
        return {n, n};
    }
    const auto lo = ex::parse_power_of_two(flag, text.substr(0, dots), 1, most);
    const auto hi = ex::parse_power_of_two(flag, text.substr(dots + 2), 1, most);
    if (lo > hi)
        throw ex::option_error(
            fmt::format("{} {}: the fewest sets must not exceed the most", flag, text));
    return {lo, hi};
}

options parse_options(std::span<const std::string_view> args) {
    options o;
    for (ex::option_reader r({args.begin(), args.end()}); r.next();) {
        const std::string_view arg = r.arg();
        const auto value = [&] { return r.value(); };
        if (arg == "--help" || arg == "-h") {
            o.help = true;
            return o;
        }
        if (arg == "--curves") {
            o.lru = o.sa_lru = o.opt = o.sa_opt = o.shards = false;
            const auto v = value();
            const auto names = ex::split_list(v);
            if (names.empty()) throw ex::option_error("--curves needs at least one curve");
            for (const auto& n : names) {
                if (n == "lru")
                    o.lru = true;
                else if (n == "sa_lru")
                    o.sa_lru = true;
                else if (n == "opt")
                    o.opt = true;
                else if (n == "sa_opt")
                    o.sa_opt = true;
                else if (n == "shards")
                    o.shards = true;
                else
                    throw ex::option_error(fmt::format(
                        "--curves: unknown curve '{}' (lru, sa_lru, opt, sa_opt, shards)", n));
            }
        } else if (arg == "--line-bytes")
            o.line_bytes = ex::parse_power_of_two(arg, value(), 4, std::uint32_t{1} << 31);
        else if (arg == "--max-capacity")
            o.max_capacity = ex::parse_unsigned(arg, value(), 1, (std::uint64_t{1} << 32) - 1);
        else if (arg == "--sets")
            std::tie(o.min_sets, o.max_sets) = parse_set_range(arg, value());
        else if (arg == "--ways")
            o.ways = ex::parse_unsigned_as<std::uint32_t>(arg, value(), 1, 1024);
        else if (arg == "--shards-rate")
            o.shards_rate = ex::parse_positive_real(arg, value(), 1.0);
        else if (arg == "--shards-size")
            o.shards_size = ex::parse_unsigned(arg, value(), 1, std::uint64_t{1} << 32);
        else if (arg == "--workload-lines")
            o.workload_lines = ex::parse_unsigned(arg, value(), 1, std::uint64_t{1} << 40);
        else
            ex::parse_shared_option(r, o);
    }
    return o;
}

// ------------------------------------------------------------------ one trace

/// The curves of one input: exact miss counts (empty when not computed) and SHARDS' estimate.
struct trace_curves {
    std::string label;
    std::optional<std::string> error;       ///< the input error that ended (or prevented) reading
    std::optional<std::string> opt_problem; ///< why OPT could not run (its temporary file)
    std::uint64_t accesses = 0;
    std::optional<std::size_t> distinct_lines; ///< unknown when only SHARDS ran
    int interrupted_by = 0;
    bool opt_interrupted = false;
    bool read = false;                         ///< the input could be opened
    std::vector<std::uint64_t> lru, opt;       ///< misses per capacity 0 .. --max-capacity
    std::vector<std::uint64_t> sa_lru, sa_opt; ///< [k x ways + w - 1]: min_sets << k sets, w ways
    std::vector<double> shards;                ///< miss ratio per capacity 0 .. --max-capacity
    /// SHARDS' smallest meaningful capacity: 1 / its final rate (below it sampled distances
    /// are too coarse to tell capacities apart, and the estimate is 100% by construction).
    std::uint64_t shards_from = 0;

    [[nodiscard]] bool empty() const { return !error && interrupted_by == 0 && accesses == 0; }
    [[nodiscard]] bool partial() const { return interrupted_by != 0 || error.has_value(); }
};

/// What is being built or read, for the message when memory runs out.
std::string memory_use = "starting";

analysis::shards::params shards_params(const options& o) {
    return {.line_bytes = o.line_bytes,
            .max_capacity_lines = o.max_capacity,
            .rate = o.shards_rate.value_or(o.shards_size != 0 ? 1.0 : 0.01),
            .max_sampled_lines = static_cast<std::size_t>(o.shards_size)};
}

/// OPT's curves from the recorded line stream; false when a stop signal interrupted the pass.
bool run_opt(const options& o, ex::opt_spool& stream, trace_curves& t) {
    memory_use = fmt::format("computing the OPT curves of {} (28-44 bytes per line of "
                             "--max-capacity, 16 x --ways bytes per set of the grid): try a "
                             "smaller --max-capacity or --sets, or --limit N",
                             t.label);
    std::optional<analysis::opt_curve> fully;
    std::optional<analysis::set_associative_opt> grid;
    if (o.opt)
        fully.emplace(analysis::opt_curve::params{.line_bytes = o.line_bytes,
                                                  .max_capacity_lines = o.max_capacity});
    if (o.sa_opt)
        grid.emplace(analysis::set_associative_opt::params{.line_bytes = o.line_bytes,
                                                           .min_sets = o.min_sets,
                                                           .max_sets = o.max_sets,
                                                           .max_ways = o.ways});
    ex::progress_meter progress(o.progress, "OPT curves of " + t.label);
    const bool complete = stream.replay(
        [&](std::uint64_t word, std::uint64_t next_use) {
            const analysis::opt_piece piece{.line = word & ex::opt_spool::line_mask,
                                            .next_use = next_use,
                                            .starts_reference =
                                                (word & ex::opt_spool::continues_flag) == 0};
            if (fully) (void)fully->access(piece);
            if (grid) grid->access(piece);
        },
        [&](double fraction) {
            progress.update(fraction);
            return ex::stop_requested() == 0;
        });
    progress.finish();
    if (!complete) return false;
    if (fully) {
        t.opt = fully->miss_curve();
        t.distinct_lines = fully->distinct_lines();
    }
    if (grid)
        for (std::uint32_t sets = o.min_sets;; sets *= 2) {
            for (std::uint32_t w = 1; w <= o.ways; ++w) t.sa_opt.push_back(grid->misses(sets, w));
            if (sets == o.max_sets) break;
        }
    return true;
}

trace_curves explore(const options& o, const std::optional<std::string>& file) {
    trace_curves t;
    t.label = file ? ex::input_label(*file) : std::string("built-in workload");
    std::optional<ex::explorer_source> src;
    try {
        src.emplace(ex::open_explorer_source({.format = o.format,
                                              .limit = o.limit,
                                              .object_bytes = o.object_bytes,
                                              .workload_lines = o.workload_lines,
                                              .line_bytes = o.line_bytes,
                                              .accesses = o.default_accesses,
                                              .seed = o.seed},
                                             file));
    } catch (const memsub::input_error& e) {
        t.error = e.what(); // could not open or detect: nothing read
        return t;
    }
    t.read = true;
    t.label = src->label();
    memory_use = fmt::format(
        "reading {} (lru: about 50 bytes per distinct line and 8 per line of --max-capacity; "
        "sa_lru: 4 x --ways bytes per set of every set count): try a smaller --sets, "
        "--max-capacity or --limit N",
        t.label);
    std::optional<analysis::stack_distance_lru> lru;
    std::optional<analysis::all_associativity_lru> grid;
    std::optional<analysis::shards> sampled;
    if (o.lru)
        lru.emplace(analysis::stack_distance_lru::params{.line_bytes = o.line_bytes,
                                                         .max_capacity_lines = o.max_capacity});
    if (o.sa_lru)
        grid.emplace(analysis::all_associativity_lru::params{.line_bytes = o.line_bytes,
                                                             .min_sets = o.min_sets,
                                                             .max_sets = o.max_sets,
                                                             .max_ways = o.ways});
    if (o.shards) sampled.emplace(shards_params(o));
    ex::opt_spool lines(o.opt_memory_mib << 20);
    const std::uint32_t line_shift = memsub::log2_exact(o.line_bytes);

    ex::progress_meter progress(o.progress, src->label());
    if (o.next_uses()) progress.set_then("then the OPT curves' pass");
    std::vector<memsub::access> chunk;
    for (;;) {
        try {
            if (!src->next_chunk(chunk)) break;
        } catch (const memsub::input_error& e) {
            t.error = e.what(); // the accesses before the bad record are counted
            break;
        }
        if (lru) lru->access_all(chunk);
        if (grid) grid->access_all(chunk);
        if (sampled) sampled->access_all(chunk);
        if (o.next_uses())
            for (const auto& a : chunk) lines.add(a, line_shift);
        t.accesses += chunk.size();
        if ((t.interrupted_by = ex::stop_requested()) != 0) break;
        progress.update(t.accesses, src->fraction_done());
    }
    progress.finish();
    if (lru) {
        t.lru = lru->miss_curve();
        t.distinct_lines = lru->distinct_lines();
    }
    if (grid) {
        t.sa_lru = grid->miss_grid();
        t.distinct_lines = grid->distinct_lines();
    }
    if (sampled) {
        t.shards = sampled->miss_ratio_curve();
        if (t.accesses == 0) std::fill(t.shards.begin(), t.shards.end(), 0.0); // as the others
        t.shards_from = static_cast<std::uint64_t>(std::ceil(1.0 / sampled->rate()));
    }
    // Interrupted: OPT is skipped (its pass would take as long again), as in the explorer.
    if (o.next_uses() && t.interrupted_by == 0) {
        try {
            if (!run_opt(o, lines, t)) {
                t.interrupted_by = ex::stop_requested();
                t.opt_interrupted = true;
            }
        } catch (const std::runtime_error& e) { // the spill file: the other curves stand
            t.opt_problem = e.what();
        }
    }
    return t;
}

// ------------------------------------------------------------------ points

/// The set counts of the grid.
std::vector<std::uint32_t> grid_sets(const options& o) {
    std::vector<std::uint32_t> out;
    for (std::uint64_t s = o.min_sets; s <= o.max_sets; s *= 2)
        out.push_back(static_cast<std::uint32_t>(s));
    return out;
}

/// The way counts the tables and the plot show: powers of two up to --ways, and --ways.
std::vector<std::uint32_t> shown_ways(const options& o) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t w = 1; w < o.ways; w *= 2) out.push_back(w);
    out.push_back(o.ways);
    return out;
}

/// The fully associative capacities written out: powers of two, the bound, and every grid
/// capacity (sets x ways) within the bound, so each grid point has its fully associative twin.
std::vector<std::uint64_t> written_capacities(const options& o) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t c = 1; c <= o.max_capacity; c *= 2) out.push_back(c);
    out.push_back(o.max_capacity);
    if (o.grid())
        for (const auto sets : grid_sets(o))
            for (std::uint64_t w = 1; w <= o.ways; ++w)
                if (sets * w <= o.max_capacity) out.push_back(sets * w);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// The capacities the table shows: powers of two up to the bound, and the bound.
std::vector<std::uint64_t> shown_capacities(const options& o) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t c = 1; c < o.max_capacity; c *= 2) out.push_back(c);
    out.push_back(o.max_capacity);
    return out;
}

double ratio(std::uint64_t misses, std::uint64_t accesses) {
    return accesses == 0 ? 0.0 : static_cast<double>(misses) / static_cast<double>(accesses);
}

/// "64 B", "32 KiB", "1.5 MiB".
std::string size_text(std::uint64_t bytes) {
    constexpr std::string_view units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    std::size_t u = 0;
    double v = static_cast<double>(bytes);
    while (v >= 1024 && u + 1 < std::size(units)) {
        v /= 1024;
        ++u;
    }
    return v == static_cast<double>(static_cast<std::uint64_t>(v))
               ? fmt::format("{} {}", static_cast<std::uint64_t>(v), units[u])
               : fmt::format("{:.1f} {}", v, units[u]);
}

std::string percent(double x) {
    return fmt::format("{:.2f}%", 100.0 * x);
}

// ------------------------------------------------------------------ output

void print_curves(const options& o, const trace_curves& t) {
    fmt::print("\n{}{}{}\n", t.label,
               !t.error  ? ""
               : !t.read ? " (not read: input error)"
                         : " (truncated by an input error)",
               t.interrupted_by == 0 ? std::string()
               : t.opt_interrupted
                   ? fmt::format(" (PARTIAL: interrupted by signal {} during the OPT curves' "
                                 "pass, after all {} accesses; OPT skipped)",
                                 t.interrupted_by, t.accesses)
                   : fmt::format(" (PARTIAL: interrupted by signal {} after {} accesses; OPT "
                                 "skipped)",
                                 t.interrupted_by, t.accesses));
    if (!t.read) return;
    if (t.empty()) fmt::print("(no accesses were read: every count is 0)\n");
    if (t.distinct_lines)
        fmt::print("{} references, {} distinct {}-byte lines\n", t.accesses, *t.distinct_lines,
                   o.line_bytes);
    else
        fmt::print("{} references ({}-byte lines)\n", t.accesses, o.line_bytes);
    const bool fa = !t.lru.empty() || !t.opt.empty() || !t.shards.empty();
    if (fa) {
        fmt::print("\nfully associative miss ratio by capacity\n");
        fmt::print("{:>12} {:>10}", "lines", "size");
        if (!t.lru.empty()) fmt::print(" {:>9}", "lru");
        if (!t.opt.empty()) fmt::print(" {:>9}", "opt");
        if (!t.shards.empty()) fmt::print(" {:>9}", "shards");
        fmt::print("\n");
        for (const auto c : shown_capacities(o)) {
            fmt::print("{:>12} {:>10}", c, size_text(c * o.line_bytes));
            if (!t.lru.empty()) fmt::print(" {:>9}", percent(ratio(t.lru[c], t.accesses)));
            if (!t.opt.empty()) fmt::print(" {:>9}", percent(ratio(t.opt[c], t.accesses)));
            if (!t.shards.empty())
                fmt::print(" {:>9}", c < t.shards_from ? std::string("-") : percent(t.shards[c]));
            fmt::print("\n");
        }
    }
    const auto grid_table = [&](std::string_view what, const std::vector<std::uint64_t>& grid) {
        if (grid.empty()) return;
        fmt::print("\n{} miss ratio: a row per set count, a column per way count\n", what);
        fmt::print("{:>10} {:>10}", "sets", "size@" + std::to_string(o.ways));
        const auto ways = shown_ways(o);
        for (const auto w : ways)
            fmt::print(" {:>9}", fmt::format("{} way{}", w, w > 1 ? "s" : ""));
        fmt::print("\n");
        const auto sets = grid_sets(o);
        for (std::size_t k = 0; k < sets.size(); ++k) {
            fmt::print("{:>10} {:>10}", sets[k],
                       size_text(std::uint64_t{sets[k]} * o.ways * o.line_bytes));
            for (const auto w : ways)
                fmt::print(" {:>9}", percent(ratio(grid[k * o.ways + w - 1], t.accesses)));
            fmt::print("\n");
        }
    };
    grid_table("set-associative LRU", t.sa_lru);
    grid_table("set-associative OPT", t.sa_opt);
}

/// Every point as one table (memsub/explorer/result_table.hpp): per trace and curve, a row per
/// capacity (fully associative: sets and ways empty) or per grid point, with the explorer's status
/// columns (partial, interrupted_by_signal, error); a trace that could not be read has one row
/// with no curve.
ex::result_table points_table(const options& o, const std::vector<trace_curves>& all) {
    ex::result_table table(program);
    const auto capacities = written_capacities(o);
    const auto sets = grid_sets(o);
    for (const auto& t : all) {
        const auto head = [&](ex::result_table::row& row, std::optional<std::string> curve) {
            row.text("trace", t.label).optional_text("curve", std::move(curve));
        };
        const auto status = [&](ex::result_table::row& row) {
            row.number("accesses_read", t.accesses)
                .boolean("partial", t.partial())
                .optional_number("interrupted_by_signal", t.interrupted_by != 0
                                                              ? std::optional(t.interrupted_by)
                                                              : std::nullopt)
                .optional_text("error", t.error)
                .optional_text("opt_problem", t.opt_problem);
        };
        const auto point = [&](std::string_view curve, std::optional<std::uint32_t> set_count,
                               std::optional<std::uint32_t> ways, std::uint64_t lines,
                               double misses, bool exact) {
            auto& row = table.add_row();
            head(row, std::string(curve));
            row.boolean("exact", exact)
                .optional_number("sets", set_count)
                .optional_number("ways", ways)
                .number("capacity_lines", lines)
                .number("capacity_bytes", lines * o.line_bytes)
                .number("line_bytes", o.line_bytes)
                .number("accesses", t.accesses);
            if (exact)
                row.number("misses", static_cast<std::uint64_t>(misses));
            else
                row.number("misses", misses, "{:.1f}");
            row.number("miss_ratio",
                       t.accesses == 0 ? 0.0 : misses / static_cast<double>(t.accesses), "{:.6f}");
            status(row);
        };
        if (!t.read) {
            auto& row = table.add_row();
            head(row, std::nullopt);
            status(row);
            continue;
        }
        const auto fully = [&](std::string_view name, const std::vector<std::uint64_t>& curve) {
            if (!curve.empty())
                for (const auto c : capacities)
                    point(name, std::nullopt, std::nullopt, c, static_cast<double>(curve[c]), true);
        };
        const auto grid = [&](std::string_view name, const std::vector<std::uint64_t>& g) {
            if (!g.empty())
                for (std::size_t k = 0; k < sets.size(); ++k)
                    for (std::uint32_t w = 1; w <= o.ways; ++w)
                        point(name, sets[k], w, std::uint64_t{sets[k]} * w,
                              static_cast<double>(g[k * o.ways + w - 1]), true);
        };
        fully("lru", t.lru);
        grid("sa_lru", t.sa_lru);
        fully("opt", t.opt);
        grid("sa_opt", t.sa_opt);
        if (!t.shards.empty())
            for (const auto c : capacities)
                point("shards", std::nullopt, std::nullopt, c,
                      t.shards[c] * static_cast<double>(t.accesses), false);
    }
    return table;
}

/// FILE.dat (one block per line of the plot: cache size in bytes, miss ratio in %) and FILE.gp,
/// rendered with gnuplot when it is installed: a line per shown way count of each grid curve and
/// one per fully associative curve, for every trace that was read.
void write_plot(const options& o, const std::vector<trace_curves>& all) {
    const std::string terminal = ex::plot_terminal_or_throw("--plot", o.plot);
    const std::string dat = o.plot + ".dat", script = o.plot + ".gp";
    std::vector<std::string> titles;
    {
        std::ofstream out(dat);
        if (!out) throw std::runtime_error("cannot write " + dat);
        std::size_t shown_traces = 0;
        for (const auto& t : all) shown_traces += t.read ? 1 : 0;
        const auto block = [&](const trace_curves& t, std::string title, auto&& points) {
            if (shown_traces > 1) title = t.label + ": " + title;
            fmt::print(out, "# {}\n", title);
            points();
            fmt::print(out, "\n\n");
            titles.push_back(std::move(title));
        };
        for (const auto& t : all) {
            if (!t.read) continue;
            const auto grid = [&](std::string_view name, const std::vector<std::uint64_t>& g) {
                if (g.empty()) return;
                const auto sets = grid_sets(o);
                for (const auto w : shown_ways(o))
                    block(t, fmt::format("{} {}-way", name, w), [&] {
                        for (std::size_t k = 0; k < sets.size(); ++k)
                            fmt::print(out, "{} {:.6f}\n",
                                       std::uint64_t{sets[k]} * w * o.line_bytes,
                                       100.0 * ratio(g[k * o.ways + w - 1], t.accesses));
                    });
            };
            grid("LRU", t.sa_lru);
            grid("OPT", t.sa_opt);
            const auto fully = [&](std::string title, auto&& miss_ratio, std::uint64_t from = 0) {
                block(t, std::move(title), [&] {
                    for (const auto c : shown_capacities(o))
                        if (c >= from)
                            fmt::print(out, "{} {:.6f}\n", c * o.line_bytes, 100.0 * miss_ratio(c));
                });
            };
            if (!t.lru.empty())
                fully("LRU fully associative",
                      [&](std::uint64_t c) { return ratio(t.lru[c], t.accesses); });
            if (!t.opt.empty())
                fully("OPT fully associative",
                      [&](std::uint64_t c) { return ratio(t.opt[c], t.accesses); });
            if (!t.shards.empty())
                fully(
                    "SHARDS (LRU, sampled)", [&](std::uint64_t c) { return t.shards[c]; },
                    t.shards_from);
        }
        if (!out.flush()) throw std::runtime_error("error writing " + dat);
    }
    {
        std::ofstream gp(script);
        if (!gp) throw std::runtime_error("cannot write " + script);
        fmt::print(gp, "set terminal {} size {} font ',11'\n", terminal,
                   terminal == "pdfcairo" ? "10in,6in" : "1000,600");
        fmt::print(gp, "set output {}\nset termoption noenhanced\n", ex::gnuplot_quoted(o.plot));
        fmt::print(gp, "set title 'Miss-ratio curves ({}-byte lines)'\n", o.line_bytes);
        fmt::print(gp, "set xlabel 'cache size (bytes)'\nset ylabel 'miss ratio (%)'\n");
        fmt::print(gp, "set logscale x 2\nset format x '%.0b%BB'\nset yrange [0:*]\n");
        fmt::print(gp, "set grid\nset key outside right top noenhanced\n");
        if (titles.empty())
            fmt::print(gp, "set label 'no curves' at graph 0.5, 0.5 center\nplot [1:2] NaN "
                           "notitle\n");
        else {
            fmt::print(gp, "plot ");
            for (std::size_t i = 0; i < titles.size(); ++i)
                fmt::print(gp, "{}{} index {} using 1:2 with linespoints title {}",
                           i ? ", \\\n     " : "", ex::gnuplot_quoted(dat), i,
                           ex::gnuplot_quoted(titles[i]));
            fmt::print(gp, "\n");
        }
        if (!gp.flush()) throw std::runtime_error("error writing " + script);
    }
    if (ex::render_with_gnuplot(script, o.plot))
        fmt::print("\nplot written to {} (data {}, script {})\n", o.plot, dat, script);
}

int run(const options& o) {
    memory_use = fmt::format("building the curves ({} lines of --max-capacity: lru and shards keep "
                             "8 bytes per line of it): try a smaller --max-capacity",
                             o.max_capacity);
    // Configuration errors surface here, before any input is read.
    if (o.lru)
        (void)analysis::stack_distance_lru(
            {.line_bytes = o.line_bytes, .max_capacity_lines = o.max_capacity});
    if (o.shards) (void)analysis::shards(shards_params(o));

    ex::install_stop_handlers();
    std::vector<trace_curves> results;
    if (o.traces.empty()) results.push_back(explore(o, std::nullopt));
    const std::vector<std::string> not_run = ex::run_until_stopped(
        o.traces.size(), [&](std::size_t i) { results.push_back(explore(o, o.traces[i])); },
        [&](std::size_t i) { return o.traces[i]; });
    const int signal = ex::stop_requested();
    for (const auto& r : results) print_curves(o, r);

    ex::output_attempts outputs;
    if (!o.csv.empty()) outputs.attempt([&] { points_table(o, results).write_csv(o.csv); });
    if (!o.json.empty()) outputs.attempt([&] { points_table(o, results).write_json(o.json); });
    if (!o.plot.empty()) outputs.attempt([&] { write_plot(o, results); });

    // Problems last, as the explorer reports them.
    bool input_failed = false, empty = false;
    for (const auto& r : results) {
        const auto found = ex::report_trace_outcome(program, {.label = r.label,
                                                              .empty = r.empty(),
                                                              .error = &r.error,
                                                              .read = r.read,
                                                              .accesses = r.accesses,
                                                              .hint = {}});
        input_failed = input_failed || found.input_failed;
        empty = empty || found.empty;
    }
    for (const auto& r : results)
        if (r.opt_problem)
            fmt::print(stderr, "{}: the OPT curves of {} were not computed: {}\n", program, r.label,
                       *r.opt_problem);
    for (const auto& f : outputs.failures())
        fmt::print(stderr, "{}: output error: {}\n", program, f);
    if (signal != 0) return ex::report_interruption(program, signal, not_run, "trace");
    if (input_failed || !outputs.ok()) return status::input_error;
    if (empty) return status::empty_input;
    return status::ok;
}

} // namespace

int main(int argc, char** argv) {
    program = ex::program_name(argc, argv, program);
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    const options o = ex::parse_or_exit(program, [&] { return parse_options(args); });
    if (o.help) {
        fmt::print("{}", usage);
        return status::ok;
    }
    if (!ex::outputs_writable(program, o)) return status::usage_error;
    return ex::run_reporting_errors(program, memory_use, [&] { return run(o); });
}
