// The miss-path matrix as a host measures it: a stand-alone program built with a host's
// ordinary flags (CMake builds it twice, -O2 and -O3, with no loop alignment or other tuning;
// `memsub_host_miss_path_O2` / `_O3`), calling the engine from its own loops, which the
// compiler inlines as it would in a host simulator. It prints, for every cell of the matrix
// (bench/miss_path_matrix.hpp), the same-run ratio of memsub's accesses/s to the plain LRU loop
// of the same shape, so the figure a host sees is the one published beside Google Benchmark's.
//
//   memsub_host_miss_path_O3 [--min-seconds S] [--subjects lru,srrip,...] [--geometry runtime|
//                            fixed|both] [--sets 64,1024] [--ways 16] [--targets 0.05,0.5]
//                            [--csv FILE] [--quick] [--no-pin]
//
// It pins itself to the CPU it starts on (bench/miss_path_matrix.hpp, pin_to_current_cpu, says
// why); --no-pin leaves it to the scheduler.
#include "../miss_path_matrix.hpp"

#include <fmt/core.h>
#include <fmt/os.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace memsub_bench::miss_path;

/// How far a cell's measured miss ratio may be from its target before the harness lists it.
constexpr double off_target_points = 5.0;

struct options {
    cell_timing timing;
    std::vector<subject> subjects{all_subjects.begin(), all_subjects.end()};
    bool runtime = true, fixed = true;
    std::vector<std::uint32_t> sets{set_counts.begin(), set_counts.end()};
    std::vector<std::uint32_t> ways{way_counts.begin(), way_counts.end()};
    std::vector<double> targets{target_miss_ratios.begin(), target_miss_ratios.end()};
    std::string csv;
    bool pin = true;
};

[[noreturn]] void usage_error(const std::string& what) {
    std::fprintf(stderr, "miss_path_host: %s\n", what.c_str());
    std::exit(2);
}

options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", a));
            return argv[++i];
        };
        try {
            if (a == "--min-seconds") {
                o.timing.min_seconds = std::stod(std::string(value()));
            } else if (a == "--block-accesses") {
                o.timing.block_accesses = parse_block_accesses(value());
            } else if (a == "--quick") {
                o.timing.min_seconds = 0.02;
                o.sets = {64, 16384};
                o.ways = {4, 16};
                o.targets = {0.05, 0.5, 0.9};
            } else if (a == "--subjects") {
                o.subjects.clear();
                for (const auto& s : split_list(value())) {
                    const auto it = std::find_if(all_subjects.begin(), all_subjects.end(),
                                                 [&](subject x) { return name_of(x) == s; });
                    if (it == all_subjects.end()) usage_error("unknown subject " + s);
                    o.subjects.push_back(*it);
                }
            } else if (a == "--geometry") {
                const std::string_view g = value();
                o.runtime = g == "runtime" || g == "both";
                o.fixed = g == "fixed" || g == "both";
                if (!o.runtime && !o.fixed) usage_error("--geometry runtime|fixed|both");
            } else if (a == "--sets") {
                o.sets = parse_members(value(), set_counts, "--sets");
            } else if (a == "--ways") {
                o.ways = parse_members(value(), way_counts, "--ways");
            } else if (a == "--targets") {
                o.targets.clear();
                for (const auto& s : split_list(value())) o.targets.push_back(std::stod(s));
            } else if (a == "--no-pin") {
                o.pin = false;
            } else if (a == "--csv") {
                o.csv = std::string(value());
            } else if (a == "--help") {
                std::puts("usage: miss_path_host [--min-seconds S] [--block-accesses N (0: whole "
                          "passes)] [--quick]\n       [--subjects "
                          "lru,srrip,drrip,lru_access_all,design_floor,design_floor_srrip]\n"
                          "       [--geometry runtime|fixed|both] [--sets 64,1024,16384,65536] "
                          "[--ways 4,8,16,32]\n"
                          "       [--targets 0.05,0.2,...] [--csv FILE] [--no-pin]");
                std::exit(0);
            } else {
                usage_error(fmt::format("unknown option {}", a));
            }
        } catch (const std::runtime_error& e) {
            usage_error(e.what());
        } catch (const std::logic_error&) {
            usage_error(fmt::format("bad value for {}", a));
        }
    }
    return o;
}

} // namespace

int main(int argc, char** argv) {
    const options o = parse(argc, argv);
    if (o.pin) {
        const cpu_pin p = pin_to_current_cpu();
        if (p.cpu >= 0)
            fmt::print("pinned to CPU {}\n", p.cpu);
        else
            fmt::print("not pinned: {}\n", p.why_not);
    } else {
        fmt::print("not pinned (--no-pin)\n");
    }
    fmt::print("{}\n", timing_text(o.timing));
    std::optional<fmt::ostream> csv;
    if (!o.csv.empty()) {
        csv.emplace(fmt::output_file(o.csv));
        csv->print("subject,geometry,sets,ways,target_miss_ratio,miss_ratio,x_plain_loop,"
                   "accesses_per_second,plain_accesses_per_second,passes\n");
    }
    // Macc/s: the subject's accesses per CPU second; plain: the plain loop's, in the same cell.
    fmt::print("{:<18} {:<8} {:>6} {:>4} {:>7} {:>7} {:>8} {:>9} {:>9}\n", "subject", "geometry",
               "sets", "ways", "target", "misses", "x_plain", "Macc/s", "plain");
    double worst = 1e9;
    std::string worst_cell;
    std::vector<std::string> off_target; // cells whose stream missed the target
    for (const auto sets : o.sets)
        for (const auto ways : o.ways) {
            const memsub::geometry g{.sets = sets, .ways = ways, .line_bytes = line_bytes};
            for (const double target : o.targets) {
                const stream_recipe r = calibrate(g, target, 2026);
                const std::vector<std::uint64_t> words =
                    make_stream(r, stream_length(std::uint64_t{sets} * ways), 2027);
                std::optional<double> plain_misses; // the plain loop's, the same in every row
                for (const subject s : o.subjects)
                    for (const bool fixed : {false, true}) {
                        if (fixed ? !o.fixed : !o.runtime) continue;
                        if (fixed ? s == subject::lru_access_all : fixed_only(s)) continue;
                        const cell_result c = fixed ? run_fixed_cell(s, g, words, o.timing)
                                                    : run_runtime_cell(s, g, words, o.timing);
                        const char* kind = fixed ? "fixed" : "runtime";
                        if (is_lru(s) && c.miss_ratio != c.plain_miss_ratio) {
                            std::fprintf(stderr,
                                         "miss_path_host: %s %s %ux%u: misses differ from the "
                                         "plain loop's: not an LRU\n",
                                         std::string(name_of(s)).c_str(), kind, sets, ways);
                            return 1;
                        }
                        if (c.expected_miss_ratio >= 0 && c.miss_ratio != c.expected_miss_ratio) {
                            std::fprintf(stderr,
                                         "miss_path_host: %s %ux%u: misses differ from memsub's "
                                         "policy's\n",
                                         std::string(name_of(s)).c_str(), sets, ways);
                            return 1;
                        }
                        fmt::print("{:<18} {:<8} {:>6} {:>4} {:>6.0f}% {:>6.1f}% {:>7.2f}x "
                                   "{:>9.1f} {:>9.1f}\n",
                                   name_of(s), kind, sets, ways, 100 * target, 100 * c.miss_ratio,
                                   c.x_plain_loop, c.subject_rate / 1e6,
                                   c.subject_rate / c.x_plain_loop / 1e6);
                        std::fflush(stdout);
                        if (csv)
                            csv->print("{},{},{},{},{},{:.4f},{:.4f},{:.0f},{:.0f},{}\n",
                                       name_of(s), kind, sets, ways, target, c.miss_ratio,
                                       c.x_plain_loop, c.subject_rate,
                                       c.subject_rate / c.x_plain_loop, c.passes);
                        plain_misses = c.plain_miss_ratio;
                        if ((s == subject::lru || s == subject::srrip) && c.x_plain_loop < worst) {
                            worst = c.x_plain_loop;
                            worst_cell = fmt::format("{} {} {}x{} at {:.0f}% misses", name_of(s),
                                                     kind, sets, ways, 100 * c.miss_ratio);
                        }
                    }
                if (plain_misses && std::abs(*plain_misses - target) > off_target_points / 100)
                    off_target.push_back(fmt::format("{}x{} at {:.0f}%: {:.1f}%", sets, ways,
                                                     100 * target, 100 * *plain_misses));
            }
        }
    if (!off_target.empty()) {
        fmt::print("\nstreams off their target by more than {:.0f} points (the plain loop's "
                   "misses):\n",
                   off_target_points);
        for (const auto& c : off_target) fmt::print("  {}\n", c);
    }
    if (!worst_cell.empty())
        fmt::print("\nlowest LRU/SRRIP cell: {:.2f}x the plain loop ({})\n", worst, worst_cell);
    return 0;
}
