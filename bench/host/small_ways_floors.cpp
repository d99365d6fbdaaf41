// Small associativity: how close can any cache design come to the plain move-to-front loop?
//
// At 4 and 8 ways and high miss ratios memsub's LRU, and its own design written by hand
// (`design_floor`), run well below the plain loop (docs/performance/miss_path.md). This program
// times, on the miss-path matrix's own streams and against the same plain loop, three designs
// written by hand for the compile-time shape (bench/baselines.hpp), all of which keep what a
// cache engine must report — entries that keep their index, the dirty bit of each — and none of
// which carries the engine's statistics, eviction report or policy interface:
//
//   design_floor   memsub's layout: fingerprint row, recency row, tag array (fingerprint_lru_floor)
//   direct_tags    no fingerprints: the tags compared one by one, recency as a nibble order list
//                  (direct_tag_lru_floor)
//   shift_order    the plain loop's own shift-ordered tags, with each position's entry and the
//                  dirty bits by entry kept beside them (shift_order_lru_floor)
//
// and memsub's fixed-geometry LRU beside them. Each figure is x_plain_loop (the plain loop's CPU
// time ÷ the subject's, same run, passes alternating). Every floor must miss exactly as the plain
// loop does, or the program fails. Built as the host harness is (-O3, no tuning flags).
//
//   memsub_host_small_ways [--min-seconds S] [--sets 64,1024,16384,65536] [--ways 4,8,16]
//                          [--targets 0.05,0.5,...] [--no-pin]
#include "../miss_path_matrix.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace memsub_bench;
using namespace memsub_bench::miss_path;

constexpr std::array<std::uint32_t, 3> small_way_counts{4, 8, 16};

/// A hand-written floor constructible as run_cell builds its subjects (from the geometry, which
/// the compile-time shape makes redundant).
template <class Floor>
struct from_geometry : Floor {
    explicit from_geometry(const memsub::geometry&) {}
};

struct row {
    cell_result memsub, design, direct, shift;
};

template <std::uint32_t Sets, std::uint32_t Ways>
row run_shape(std::span<const std::uint64_t> words, const cell_timing& timing) {
    using shape = memsub::fixed_geometry<Sets, Ways, line_bytes>;
    using loop = fixed_plain_loop<Sets, Ways>;
    struct memsub_lru : cache_of<memsub::replacement::lru, shape> {
        explicit memsub_lru(const memsub::geometry&)
            : cache_of<memsub::replacement::lru, shape>(shape{}) {}
    };
    const memsub::geometry g = shape{};
    row r;
    r.memsub = run_cell<memsub_lru, loop>(g, words, timing);
    r.design = run_cell<from_geometry<fingerprint_lru_floor<Sets, Ways, line_bytes>>, loop,
                        entry_point::word>(g, words, timing);
    r.direct = run_cell<from_geometry<direct_tag_lru_floor<Sets, Ways, line_bytes>>, loop,
                        entry_point::word>(g, words, timing);
    r.shift = run_cell<from_geometry<shift_order_lru_floor<Sets, Ways, line_bytes>>, loop,
                       entry_point::word>(g, words, timing);
    return r;
}

row run_shape(const memsub::geometry& g, std::span<const std::uint64_t> words,
              const cell_timing& timing) {
    row r;
    auto try_shape = [&]<std::uint32_t S, std::uint32_t W>() {
        if (g.sets == S && g.ways == W) r = run_shape<S, W>(words, timing);
    };
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((try_shape.template operator()<set_counts[I / 3], small_way_counts[I % 3]>()), ...);
    }
    (std::make_index_sequence<set_counts.size() * small_way_counts.size()>{});
    return r;
}

[[noreturn]] void usage_error(const std::string& what) {
    std::fprintf(stderr, "small_ways: %s\n", what.c_str());
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    cell_timing timing;
    std::vector<std::uint32_t> sets{set_counts.begin(), set_counts.end()};
    std::vector<std::uint32_t> ways{small_way_counts.begin(), small_way_counts.end()};
    std::vector<double> targets{target_miss_ratios.begin(), target_miss_ratios.end()};
    bool pin = true;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", a));
            return argv[++i];
        };
        try {
            if (a == "--min-seconds") {
                timing.min_seconds = std::stod(std::string(value()));
            } else if (a == "--block-accesses") {
                timing.block_accesses = parse_block_accesses(value());
            } else if (a == "--sets") {
                sets = parse_members(value(), set_counts, "--sets");
            } else if (a == "--ways") {
                ways = parse_members(value(), small_way_counts, "--ways");
            } else if (a == "--targets") {
                targets.clear();
                for (const auto& s : split_list(value())) targets.push_back(std::stod(s));
            } else if (a == "--no-pin") {
                pin = false;
            } else if (a == "--help") {
                std::puts(
                    "usage: small_ways [--min-seconds S] [--block-accesses N (0: whole passes)]\n"
                    "       [--sets 64,1024,16384,65536] "
                    "[--ways 4,8,16] [--targets 0.05,0.2,...] [--no-pin]");
                return 0;
            } else {
                usage_error(fmt::format("unknown option {}", a));
            }
        } catch (const std::runtime_error& e) {
            usage_error(e.what());
        } catch (const std::logic_error&) {
            usage_error(fmt::format("bad value for {}", a));
        }
    }
    if (pin) {
        const cpu_pin p = pin_to_current_cpu();
        if (p.cpu >= 0)
            fmt::print("pinned to CPU {}\n", p.cpu);
        else
            fmt::print("not pinned: {}\n", p.why_not);
    }
    fmt::print("{}\n", timing_text(timing));
    fmt::print("x_plain_loop (above 1.00: faster than the plain loop), fixed geometry, -O3\n");
    fmt::print("{:>6} {:>4} {:>7} {:>7} {:>8} {:>13} {:>12} {:>12}\n", "sets", "ways", "target",
               "misses", "memsub", "design_floor", "direct_tags", "shift_order");
    double best_high_miss = 0; // the best floor at 4-8 ways and >= 50 % misses
    for (const auto s : sets)
        for (const auto w : ways) {
            const memsub::geometry g{.sets = s, .ways = w, .line_bytes = line_bytes};
            for (const double target : targets) {
                // The host harness's seeds: the same streams as its cells.
                const std::vector<std::uint64_t> words = make_stream(
                    calibrate(g, target, 2026), stream_length(std::uint64_t{s} * w), 2027);
                const row r = run_shape(g, words, timing);
                for (const cell_result* c : {&r.memsub, &r.design, &r.direct, &r.shift})
                    if (c->miss_ratio != c->plain_miss_ratio) {
                        std::fprintf(stderr,
                                     "small_ways: %ux%u at %.0f%%: a subject's misses differ from "
                                     "the plain loop's: not an LRU\n",
                                     s, w, 100 * target);
                        return 1;
                    }
                fmt::print("{:>6} {:>4} {:>6.0f}% {:>6.1f}% {:>8.2f} {:>13.2f} {:>12.2f} "
                           "{:>12.2f}\n",
                           s, w, 100 * target, 100 * r.memsub.plain_miss_ratio,
                           r.memsub.x_plain_loop, r.design.x_plain_loop, r.direct.x_plain_loop,
                           r.shift.x_plain_loop);
                std::fflush(stdout);
                if (w <= 8 && target >= 0.5)
                    best_high_miss = std::max({best_high_miss, r.design.x_plain_loop,
                                               r.direct.x_plain_loop, r.shift.x_plain_loop});
            }
        }
    if (best_high_miss > 0)
        fmt::print("\nbest floor at 4-8 ways and >= 50% misses: {:.2f}x the plain loop\n",
                   best_high_miss);
    return 0;
}
