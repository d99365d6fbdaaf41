// memsub LLC explorer — the multiprogrammed shared-LLC study of ReMAP (seed 001, §2.3): N cores,
// each replaying its own trace, with private L1-D and L2 caches in front of a shared LLC and the
// DDR3 FR-FCFS controller of Table 2.3 behind it; compares LLC replacement policies by LLC misses,
// MPKI, total memory access cost, mean miss latency, per-core throughput, normalised throughput
// and the §2.3.7 fairness metric, plus a victim-buffer size sweep for ReMAP.
//
//   llc_explorer                                  built-in 4-core mix (synthetic streams)
//   llc_explorer --trace a.lackey --trace b.lackey --trace c.lackey --trace d.lackey
//   llc_explorer --csv llc.csv --plot llc.svg
//
// System (spec remap.md "Reference system (Table 2.3)"): 1 GHz cores; per core a private L1-D
// 32 KB 8-way and L2 256 KB 8-way, both LRU, write-back, non-inclusive (a line is filled into
// every level it misses in; nothing is back-invalidated); a shared LLC of 1 MB per core, 16-way,
// 64 B lines, write-back, running the policy under study; DDR3-1600K (tRP = tCL = tRCD =
// 13.75 ns, one channel, 8 banks, 8 KB rows), open page, FR-FCFS, row:bank:column mapping.
// Deviation: the L1-I is not simulated (instruction fetches count as instructions and are
// assumed to hit), and a reference that crosses a line boundary accesses its first line only.
//
// Core and timing model (the host keeps time; a deliberately simple model, not gem5's O3 core):
//  * Each core has a cycle counter. A record carrying k instructions advances it by k × CPI
//    (--cpi, default 0.5: a 4-wide core that rarely issues 4). L1, L2 and LLC hits are assumed
//    hidden by the out-of-order core (part of the base CPI).
//  * An LLC read miss (a load or a store's write-allocate read) goes to the controller at
//    (core cycle + 10 + 30), after the L2 and LLC lookups of Table 2.3, and the core stalls until
//    the controller completes it: its exposed miss cycles are completion − issue (lookups
//    included). One outstanding miss per core, so the memory-level parallelism comes from the
//    cores overlapping each other's misses.
//  * Dirty LLC victims are posted writes: they go to the controller and never stall a core.
//    A request the controller refuses (queue full) waits at the host and is retried.
//  * The cores are interleaved by their cycle counters: the core with the smallest counter runs
//    next, so without stalls this is interleaving by instruction count (scaled by the CPI).
//  * Methodology of §2.3 (Table 2.5 mixes): a core that reaches the end of its trace starts it
//    again and keeps contending until every core has finished once; every statistic is taken
//    over each core's first pass only.
//  * Throughput proxy of core i: IPC_i = instructions_i / (instructions_i × CPI + exposed miss
//    cycles_i). Normalised throughput = GM_i(IPC_i,policy) / GM_i(IPC_i,LRU); fairness (§2.3.7)
//    = min_i IPC_i,policy / IPC_i,LRU. Total memory access cost = the sum over the LLC's read
//    misses of their controller latency (arrival to data, in core cycles); mean miss latency =
//    that sum / read misses.
//  * Hints (what the policies' headers let a host pass): ReMAP and its variants get the MAC class
//    of Table 2.2 from the host's MAC table fed with the controller's real per-bank queue depth
//    (`controller.queued_at`), and use class + 1 as the dueling cost (the miss's cycles are not
//    known when the LLC is accessed). MLP-aware gets the MLP-based cost of each miss from
//    `mlp_cost_meter` (issue / completion of every core's miss) through `update_cost` once the
//    miss completes; at access time its `miss_cost_cycles` hint is the core's previous MLP cost
//    (what SBAR's PSEL reads in a leader set).
//
// Built-in mix (one stream per core; instructions per access fixed per stream; addresses are
// disjoint per core):
//  0 stream   sequential 64 B lines over 64 MB, 2 instructions per access, 25 % stores: perfect
//             row-buffer locality, no reuse (libquantum-like);
//  1 random   uniformly random lines of a 3 MB region (7 of 8) or of a 256 KB hot set, 4
//             instructions per access: reuse at LLC distance, row misses (mcf-like);
//  2 rowloop  a 2 MB loop whose consecutive lines are 8 KB + 64 B apart (a new row and bank at
//             each access: every miss a row miss), 3 instructions per access: cyclic reuse;
//  3 blocks   a 2.5 MB loop walked in 8 KB row-sized blocks in random block order (row hits
//             within a block), plus 1 in 4 accesses random over 32 MB, 5 instructions per access.
// The LLC (4 MB for 4 cores) cannot hold the 7.5 MB of reused data, so the policies differ both
// in what they keep and in which misses (row hits vs. row misses) they cause.
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/dram_controller.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/mac_table.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/trace/lackey_reader.hpp>
#include <memsub/trace/open.hpp>

#include "common/example_support.hpp"

#include <fmt/core.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

namespace mm = memsub::memory;
namespace rp = memsub::replacement;
using memsub::access;
using memsub::access_kind;

constexpr std::string_view program = "llc_explorer";

namespace status {
constexpr int ok = 0, input_error = 1, usage_error = 2, empty_input = 3, out_of_memory = 4;
} // namespace status

// ------------------------------------------------------------------ options

struct options {
    std::vector<std::string> traces;
    std::uint32_t cores = 4;
    std::uint64_t accesses = 200'000; // per core, built-in mix
    std::uint64_t limit = 0;          // per core, traces (0 = whole trace)
    std::uint64_t seed = 2026;
    double cpi = 0.5;
    std::uint32_t llc_kb_per_core = 1024;
    std::vector<std::string> policies; // empty = all
    std::vector<std::uint32_t> sweep{8, 16, 24, 32, 48, 64};
    std::string csv;
    std::string plot;
    bool progress = true;
};

[[noreturn]] void usage(int code) {
    std::fputs(
        "usage: llc_explorer [options]\n"
        "  --trace FILE        a Valgrind Lackey trace for the next core (give one per core;\n"
        "                      the number of --trace options sets the number of cores)\n"
        "  --limit N           use at most N data references of each trace (default: all)\n"
        "  --cores N           cores of the built-in mix (1..8, default 4)\n"
        "  --accesses N        data references per core of the built-in mix (default 200000)\n"
        "  --seed N            seed of the built-in mix (default 2026)\n"
        "  --cpi X             base CPI of the core model (default 0.5)\n"
        "  --llc-kb N          shared LLC size per core in KB (default 1024, Table 2.3)\n"
        "  --policies A,B,...  LLC policies (default all: lru,srrip,drrip,ta_drrip,ship,\n"
        "                      mlp_aware,srrip_perd,srrip_mac,remap; remap_lru, ReMAP over\n"
        "                      LRU, on request); LRU always runs (the normalisation baseline)\n"
        "  --sweep A,B,...     ReMAP victim-buffer entries per set to sweep (default\n"
        "                      8,16,24,32,48,64; '' = no sweep)\n"
        "  --csv FILE          write every figure as CSV\n"
        "  --plot FILE         per-policy bars (normalised throughput, fairness, memory access\n"
        "                      cost vs LRU) rendered with gnuplot (.svg, .png or .pdf)\n"
        "  --quiet             no progress on stderr\n"
        "  --help              this text\n"
        "The core and timing model is described at the top of examples/llc_explorer.cpp.\n"
        "exit status: 0 success; 1 a trace could not be read or is malformed, or an output file\n"
        "could not be written; 2 bad usage or configuration; 3 a trace held no data references;\n"
        "4 out of memory.\n",
        code == 0 ? stdout : stderr);
    std::exit(code);
}

std::uint64_t parse_number(std::string_view flag, std::string_view text, std::uint64_t min = 0,
                           std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
    return memsub_examples::parse_number(program, flag, text, min, max);
}

constexpr std::array<std::string_view, 9> all_policies{
    "lru", "srrip", "drrip", "ta_drrip", "ship", "mlp_aware", "srrip_perd", "srrip_mac", "remap"};
/// Run only when asked for (--policies): ReMAP over LRU (§2.3.6).
constexpr std::array<std::string_view, 1> extra_policies{"remap_lru"};

options parse(int argc, char** argv) {
    options o;
    bool cores_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) {
                fmt::print(stderr, "{}: {} needs a value\n", program, arg);
                std::exit(status::usage_error);
            }
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h")
            usage(0);
        else if (arg == "--trace")
            o.traces.emplace_back(value());
        else if (arg == "--limit")
            o.limit = parse_number(arg, value(), 1);
        else if (arg == "--cores") {
            o.cores = static_cast<std::uint32_t>(parse_number(arg, value(), 1, 8));
            cores_given = true;
        } else if (arg == "--accesses")
            o.accesses = parse_number(arg, value(), 1, 1ull << 34);
        else if (arg == "--seed")
            o.seed = parse_number(arg, value());
        else if (arg == "--cpi") {
            const std::string_view v = value();
            o.cpi = memsub_examples::parse_or_exit(
                program, [&] { return memsub_examples::parse_positive_real(arg, v, 100.0); });
        } else if (arg == "--llc-kb")
            o.llc_kb_per_core = static_cast<std::uint32_t>(parse_number(arg, value(), 64, 1 << 20));
        else if (arg == "--policies") {
            o.policies = memsub_examples::split_list(value());
            for (const auto& p : o.policies)
                if (std::find(all_policies.begin(), all_policies.end(), p) == all_policies.end() &&
                    std::find(extra_policies.begin(), extra_policies.end(), p) ==
                        extra_policies.end()) {
                    fmt::print(stderr, "{}: unknown policy '{}' (see --help)\n", program, p);
                    std::exit(status::usage_error);
                }
        } else if (arg == "--sweep") {
            o.sweep.clear();
            for (const auto& s : memsub_examples::split_list(value()))
                o.sweep.push_back(static_cast<std::uint32_t>(parse_number("--sweep", s, 1, 1024)));
        } else if (arg == "--csv")
            o.csv = value();
        else if (arg == "--plot") {
            o.plot = value();
            if (!memsub_examples::gnuplot_terminal_for(o.plot)) {
                fmt::print(stderr, "{}: --plot {}: the file must end in .svg, .png or .pdf\n",
                           program, o.plot);
                std::exit(status::usage_error);
            }
        } else if (arg == "--quiet")
            o.progress = false;
        else {
            fmt::print(stderr, "{}: unknown option '{}' (see --help)\n", program, arg);
            std::exit(status::usage_error);
        }
    }
    if (!o.traces.empty()) {
        if (cores_given && o.cores != o.traces.size()) {
            fmt::print(stderr, "{}: --cores {} but {} --trace files (one per core)\n", program,
                       o.cores, o.traces.size());
            std::exit(status::usage_error);
        }
        if (o.traces.size() > 8) {
            fmt::print(stderr, "{}: at most 8 --trace files (cores)\n", program);
            std::exit(status::usage_error);
        }
        o.cores = static_cast<std::uint32_t>(o.traces.size());
    }
    if (!std::has_single_bit(o.cores)) {
        fmt::print(stderr,
                   "{}: {} cores: the LLC's set count must be a power of two, so use "
                   "1, 2, 4 or 8 cores\n",
                   program, o.cores);
        std::exit(status::usage_error);
    }
    if (o.policies.empty()) o.policies.assign(all_policies.begin(), all_policies.end());
    if (std::find(o.policies.begin(), o.policies.end(), "lru") == o.policies.end())
        o.policies.insert(o.policies.begin(), "lru");
    return o;
}

// ------------------------------------------------------------------ per-core reference streams

/// One data reference of a core, with the instructions executed since the previous one.
struct record {
    std::uint64_t address;
    std::uint32_t pc;
    std::uint16_t instructions;
    access_kind kind;
    bool read_modify_write;
};

struct core_trace {
    std::string name;
    std::vector<record> records;
    std::uint64_t instructions = 0;
};

/// The built-in mix's stream of core `c` (see the header comment).
core_trace synthetic_stream(std::uint32_t c, std::uint64_t n, std::uint64_t seed) {
    memsub::xoshiro256ss rng(seed * 0x9e3779b97f4a7c15ull + c + 1);
    core_trace t;
    // Disjoint 512 MiB physical regions per core, inside the DDR3 preset's 4 GiB (the
    // controller's mapping ignores address bits above its capacity).
    const std::uint64_t base = std::uint64_t{c} << 29;
    const std::uint32_t kind = c % 4;
    static constexpr std::array<std::string_view, 4> names{"stream", "random", "rowloop", "blocks"};
    static constexpr std::array<std::uint16_t, 4> ipa{2, 4, 3, 5};
    t.name = fmt::format("core{}:{}", c, names[kind]);
    t.records.reserve(n);
    std::uint64_t seq = 0;
    std::uint64_t block = 0, in_block = 0;
    const std::uint64_t blocks = (5ull << 19) / 8192; // 2.5 MB of 8 KB blocks
    for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t off = 0;
        std::uint32_t pc = 0x400000 + kind * 0x100;
        switch (kind) {
        case 0:
            off = (seq++ % ((64ull << 20) / 64)) * 64;
            break;
        case 1:
            if (rng() % 8 != 0) {
                off = (rng() % ((3ull << 20) / 64)) * 64;
                pc += 4;
            } else {
                off = (64ull << 20) + (rng() % ((256ull << 10) / 64)) * 64;
                pc += 8;
            }
            break;
        case 2: {
            const std::uint64_t lines = (2ull << 20) / 64;
            const std::uint64_t k = seq++ % lines;
            off = (k * (8192 + 64)) % (256ull << 20);
            break;
        }
        default:
            if (rng() % 4 == 0) {
                off = (128ull << 20) + (rng() % ((32ull << 20) / 64)) * 64;
                pc += 4;
            } else {
                if (in_block == 0) block = rng() % blocks;
                off = block * 8192 + in_block * 64;
                in_block = (in_block + 1) % 128;
            }
            break;
        }
        const bool store = ((i * 0x9e3779b97f4a7c15ull) >> 62) == 0;
        t.records.push_back(record{base + off, pc, ipa[kind],
                                   store ? access_kind::store : access_kind::load, false});
        t.instructions += ipa[kind];
    }
    return t;
}

/// Virtual → physical translation of the traced programs: each core is its own process, so
/// its 4 KiB pages get physical frames of their own, allocated in first-touch order from one
/// frame counter shared by every core (a freshly booted OS handing out free frames in order).
/// Without it, programs would share lines at equal virtual addresses, and the controller, which
/// maps only the 4 GiB it has, would fold the 37-bit virtual addresses onto the same rows.
class page_allocator {
public:
    std::uint64_t translate(std::uint32_t core, std::uint64_t address) {
        const std::uint64_t page = address >> 12;
        auto [it, added] = frames_[core].try_emplace(page, next_frame_);
        if (added) {
            if (++next_frame_ > (std::uint64_t{4} << 30) >> 12)
                throw std::runtime_error("the traces touch more than 4 GiB of pages (the DDR3 "
                                         "preset's capacity): use --limit");
        }
        return (it->second << 12) | (address & 4095);
    }

private:
    std::array<std::unordered_map<std::uint64_t, std::uint64_t>, 8> frames_;
    std::uint64_t next_frame_ = 0;
};

/// Reads a Lackey trace: I records count instructions, L/S/M records become data references
/// (addresses translated to core `core`'s physical frames).
core_trace read_lackey(const std::string& file, std::uint64_t limit, bool progress,
                       std::uint32_t core, page_allocator& pages) {
    memsub::trace::lackey_reader reader(file, {.emit_instruction_fetches = true});
    core_trace t;
    t.name = file;
    std::vector<access> chunk(memsub_examples::chunk_accesses);
    std::uint64_t pending_instructions = 0;
    memsub_examples::progress_meter meter(progress, "reading " + file);
    for (;;) {
        chunk.resize(memsub_examples::chunk_accesses);
        const std::size_t n = memsub::trace::next_batch(reader, std::span<access>(chunk));
        if (n == 0) break;
        for (std::size_t i = 0; i < n; ++i) {
            const access& a = chunk[i];
            if (a.kind == access_kind::instruction_fetch) {
                ++pending_instructions;
                continue;
            }
            if (limit != 0 && t.records.size() >= limit) break;
            // Instructions since the previous data reference (an instruction with several
            // data references charges them to its first one).
            const auto k = static_cast<std::uint16_t>(std::min<std::uint64_t>(
                pending_instructions, std::numeric_limits<std::uint16_t>::max()));
            t.instructions += k;
            pending_instructions -= k;
            t.records.push_back(record{pages.translate(core, a.address.value),
                                       static_cast<std::uint32_t>(a.pc), k, a.kind,
                                       a.read_modify_write});
        }
        if (limit != 0 && t.records.size() >= limit) break;
        meter.update(t.records.size(), std::nullopt);
    }
    meter.finish();
    return t;
}

// ------------------------------------------------------------------ the study

/// What one policy run measured.
struct run_result {
    std::string policy;
    bool interrupted = false;     // stopped by SIGINT / SIGTERM before every core finished
    std::uint32_t vb_entries = 0; // ReMAP victim-buffer entries per set (0 = n/a)
    std::uint64_t llc_accesses = 0;
    std::uint64_t llc_misses = 0;              // demand (read) misses to memory, first passes
    std::uint64_t memory_cost = 0;             // sum of their latencies, core cycles
    std::uint64_t memory_writes = 0;           // dirty LLC victims written to memory
    std::uint64_t instructions = 0;            // all cores, first passes
    std::array<std::uint64_t, 3> read_class{}; // measured read misses: row hit / empty / conflict
    double row_hit_rate = 0;                   // every DRAM access (reads and writes, all passes)
    std::vector<double> ipc;                   // per core
    std::vector<std::uint64_t> per_core_misses;
    [[nodiscard]] double mpki() const {
        return instructions == 0 ? 0.0 : 1000.0 * static_cast<double>(llc_misses) / instructions;
    }
    [[nodiscard]] double mean_latency() const {
        return llc_misses == 0 ? 0.0 : static_cast<double>(memory_cost) / llc_misses;
    }
};

using l_cache = memsub::cache::set_associative_cache<rp::lru>;
using controller = mm::fr_fcfs_controller<>;

// Core cycles (1 GHz) ↔ DRAM command cycles (tCK = 1.25 ns): 4 core cycles = 5/... exact in
// integers: 1 DRAM cycle = 5/4 core cycles.
constexpr std::uint64_t to_dram(std::uint64_t core_cycle) {
    return (core_cycle * 4 + 4) / 5; // ceil(c · 4 / 5)
}
constexpr std::uint64_t to_core(std::uint64_t dram_cycle) {
    return (dram_cycle * 5 + 3) / 4; // ceil(d · 5 / 4)
}
constexpr std::uint64_t l2_latency = 10, llc_latency = 30; // Table 2.3

template <class Policy>
class study {
public:
    study(const options& o, std::span<const core_trace> traces,
          const typename Policy::params& params)
        : o_(o)
        , traces_(traces)
        , llc_(memsub::geometry{.sets = o.cores * o.llc_kb_per_core * 1024 / (16 * 64),
                                .ways = 16,
                                .line_bytes = 64},
               params)
        , map_(mm::bit_field_mapping::from_order("rorabachco", mm::presets::ddr3_1600_remap))
        , mem_(map_, {.timing = mm::presets::ddr3_1600_remap})
        , mac_(mm::mac_table::for_organisation(map_.organisation()))
        , meter_(o.cores) {
        for (std::uint32_t c = 0; c < o.cores; ++c) {
            l1_.emplace_back(memsub::geometry{.sets = 64, .ways = 8, .line_bytes = 64});
            l2_.emplace_back(memsub::geometry{.sets = 512, .ways = 8, .line_bytes = 64});
        }
        cores_.resize(o.cores);
    }

    run_result run(std::string name, memsub_examples::progress_meter& meter) {
        std::uint32_t unfinished = o_.cores;
        std::uint64_t steps = 0;
        while (unfinished > 0) {
            // The next core to run: the runnable one with the smallest cycle counter.
            std::uint32_t next = o_.cores;
            for (std::uint32_t c = 0; c < o_.cores; ++c)
                if (!cores_[c].stalled &&
                    (next == o_.cores || cores_[c].cycle < cores_[next].cycle))
                    next = c;
            if (outstanding_ > 0 || !backlog_.empty()) {
                // Let memory catch up to that time (or to its next event when every core waits).
                std::uint64_t target = 0;
                if (next == o_.cores) {
                    const std::uint64_t e = mem_.next_event_cycle();
                    target = e == memsub::never ? dram_now_ + 1 : std::max(e, dram_now_ + 1);
                } else {
                    target = to_dram(cores_[next].cycle);
                }
                advance_memory(target);
                if (next == o_.cores || completed_any_) {
                    completed_any_ = false;
                    continue; // a core may have become runnable earlier than `next`
                }
            }
            if (next == o_.cores) continue;
            step(next, unfinished);
            if ((++steps & 0xffff) == 0) {
                meter.update(steps, first_pass_fraction());
                if (memsub_examples::stop_requested() != 0) {
                    run_result r;
                    r.policy = std::move(name);
                    r.interrupted = true;
                    return r; // a partial run is not comparable: the caller drops it
                }
            }
        }
        // Let the last writes finish (they cost no core time).
        run_result r;
        r.policy = std::move(name);
        r.llc_misses = misses_;
        r.memory_cost = cost_;
        r.memory_writes = writes_;
        r.llc_accesses = llc_accesses_;
        r.read_class = read_class_;
        r.row_hit_rate = mem_.stats().row_hit_rate();
        for (std::uint32_t c = 0; c < o_.cores; ++c) {
            const core_state& k = cores_[c];
            r.instructions += k.first_instructions;
            const double t = static_cast<double>(k.first_instructions) * o_.cpi +
                             static_cast<double>(k.first_exposed);
            r.ipc.push_back(t > 0 ? static_cast<double>(k.first_instructions) / t : 0.0);
            r.per_core_misses.push_back(k.first_misses);
        }
        return r;
    }

    [[nodiscard]] const Policy& policy() const { return llc_.policy(); }

    /// How far the cores are through their first passes (the part that is measured).
    [[nodiscard]] double first_pass_fraction() const {
        double f = 0;
        for (std::uint32_t c = 0; c < o_.cores; ++c)
            f += cores_[c].first_pass ? static_cast<double>(cores_[c].next) /
                                            static_cast<double>(traces_[c].records.size())
                                      : 1.0;
        return f / o_.cores;
    }

private:
    struct core_state {
        std::uint64_t cycle = 0;
        double fraction = 0;  // instructions × CPI not yet a whole cycle
        std::size_t next = 0; // next record
        bool first_pass = true;
        bool stalled = false;
        std::uint64_t first_instructions = 0;
        std::uint64_t first_exposed = 0;
        std::uint64_t first_misses = 0;
        std::uint64_t miss_issue = 0; // core cycle the stalling miss was issued
        std::uint64_t last_mlp_cost = 0;
        // Where the stalling miss was filled in the LLC (for MLP-aware's update_cost).
        memsub::set_index fill_set{};
        memsub::entry_index fill_entry{};
        std::uint64_t fill_line = 0;
        bool filled = false;
        bool counted = false; // the stalling miss belongs to the first pass
    };
    struct waiting {
        mm::mem_request request;
    };
    // Request ids carry the issuing core in their low 4 bits (at most one read per core is
    // outstanding); writes carry no_core.
    static constexpr std::uint32_t no_core = 15;

    void step(std::uint32_t c, std::uint32_t& unfinished) {
        core_state& k = cores_[c];
        const core_trace& t = traces_[c];
        const record& rec = t.records[k.next];
        // Whole cycles of instructions × CPI; the fraction carries over (rounding each record
        // would turn CPI 0.5 into 1 for one-instruction records).
        k.fraction += rec.instructions * o_.cpi;
        const double whole = std::floor(k.fraction);
        k.cycle += static_cast<std::uint64_t>(whole);
        k.fraction -= whole;
        if (k.first_pass) k.first_instructions += rec.instructions;
        if (++k.next == t.records.size()) {
            k.next = 0;
            if (k.first_pass) {
                k.first_pass = false;
                --unfinished;
            }
        }
        const bool counted = k.first_pass || k.next == 0;
        access a;
        a.address = memsub::byte_address{rec.address & ~std::uint64_t{63}};
        a.pc = rec.pc;
        a.kind = rec.kind;
        a.read_modify_write = rec.read_modify_write;
        a.requester = c;
        const auto r1 = l1_[c].access(a);
        for (const auto& e : r1.evictions)
            if (e.dirty) writeback_to_l2(c, e.address.value);
        if (r1.hit) return;
        access down = a;
        down.kind = access_kind::load; // the L1's fill request reads the line
        down.read_modify_write = false;
        const auto r2 = l2_[c].access(down);
        for (const auto& e : r2.evictions)
            if (e.dirty) writeback_to_llc(c, e.address.value);
        if (r2.hit) return;
        // The LLC: the hints the policies may use (see the header comment).
        const mm::dram_address d = map_.map(down.address);
        const std::uint32_t bank = mm::mac_table::bank_id(d, map_.organisation());
        down.hints.memory_cost_class = mac_.estimate(bank, d.row, mem_.queued_at(down.address));
        if constexpr (std::is_same_v<Policy, rp::mlp_aware>)
            down.hints.miss_cost_cycles = static_cast<std::uint32_t>(k.last_mlp_cost);
        ++llc_accesses_;
        const auto r3 = llc_.access(down);
        for (const auto& e : r3.evictions)
            if (e.dirty) memory_write(e.address.value, k.cycle + l2_latency + llc_latency);
        if (r3.hit) return;
        mac_.record(bank, d.row);
        // A read miss: the core stalls until memory returns the line.
        k.stalled = true;
        k.counted = counted;
        k.miss_issue = k.cycle;
        k.filled = r3.filled();
        k.fill_set = r3.set;
        k.fill_entry = r3.entry;
        k.fill_line = down.address.value >> 6;
        const std::uint64_t arrival = k.cycle + l2_latency + llc_latency;
        enqueue(mm::mem_request{.id = 0,
                                .address = down.address,
                                .is_write = false,
                                .requester = 0,
                                .arrival_cycle = to_dram(arrival)},
                c);
        meter_.issue(c, arrival);
        ++outstanding_;
    }

    void writeback_to_l2(std::uint32_t c, std::uint64_t address) {
        access w;
        w.address = memsub::byte_address{address};
        w.kind = access_kind::writeback;
        w.requester = c;
        const auto r = l2_[c].access(w);
        for (const auto& e : r.evictions)
            if (e.dirty) writeback_to_llc(c, e.address.value);
    }
    void writeback_to_llc(std::uint32_t c, std::uint64_t address) {
        access w;
        w.address = memsub::byte_address{address};
        w.kind = access_kind::writeback;
        w.requester = c;
        const auto r = llc_.access(w);
        for (const auto& e : r.evictions)
            if (e.dirty) memory_write(e.address.value, cores_[c].cycle + llc_latency);
    }
    void memory_write(std::uint64_t address, std::uint64_t core_cycle) {
        const mm::dram_address d = map_.map(memsub::byte_address{address});
        mac_.record(mm::mac_table::bank_id(d, map_.organisation()), d.row);
        ++writes_;
        enqueue(mm::mem_request{.id = 0,
                                .address = memsub::byte_address{address},
                                .is_write = true,
                                .requester = 0,
                                .arrival_cycle = to_dram(core_cycle)},
                no_core);
    }

    void enqueue(mm::mem_request r, std::uint32_t core) {
        r.id = (next_id_++ << 4) | core;
        // Arrivals must not decrease (protocol MP2); a core that resumed late issues "now".
        r.arrival_cycle = std::max({r.arrival_cycle, last_arrival_, dram_now_});
        if (!backlog_.empty() || mem_.enqueue(r) != mm::enqueue_result::accepted) {
            backlog_.push_back(waiting{r});
            return;
        }
        last_arrival_ = r.arrival_cycle;
    }

    void advance_memory(std::uint64_t target) {
        while (!backlog_.empty()) {
            waiting& w = backlog_.front();
            w.request.arrival_cycle = std::max({w.request.arrival_cycle, last_arrival_, dram_now_});
            if (mem_.enqueue(w.request) != mm::enqueue_result::accepted) break;
            last_arrival_ = w.request.arrival_cycle;
            backlog_.pop_front();
        }
        if (target <= dram_now_) return;
        dram_now_ = target;
        mem_.advance_to(dram_now_);
        mem_.drain([&](const mm::completion& done) {
            const auto c = static_cast<std::uint32_t>(done.id & 15u);
            if (c == no_core) return;
            core_state& k = cores_[c];
            const std::uint64_t done_core = to_core(done.done_cycle);
            const std::uint64_t latency = to_core(done.done_cycle - done.arrival_cycle);
            const std::uint64_t mlp = meter_.complete(c, std::max(done_core, k.miss_issue));
            k.last_mlp_cost = mlp;
            if constexpr (std::is_same_v<Policy, rp::mlp_aware>) {
                if (k.filled) {
                    const auto b = llc_.block(k.fill_set, k.fill_entry);
                    if (b.valid && (b.address.value >> 6) == k.fill_line)
                        llc_.policy().update_cost(k.fill_set, k.fill_entry, mlp);
                }
            }
            const std::uint64_t resume = std::max(done_core, k.cycle);
            if (k.counted) {
                k.first_exposed += resume - k.miss_issue;
                ++k.first_misses;
                ++misses_;
                cost_ += latency;
                ++read_class_[static_cast<std::size_t>(done.kind)];
            }
            k.cycle = resume;
            k.stalled = false;
            --outstanding_;
            completed_any_ = true;
        });
        // Backlogged requests may fit now.
        while (!backlog_.empty()) {
            waiting& w = backlog_.front();
            w.request.arrival_cycle = std::max({w.request.arrival_cycle, last_arrival_, dram_now_});
            if (mem_.enqueue(w.request) != mm::enqueue_result::accepted) break;
            last_arrival_ = w.request.arrival_cycle;
            backlog_.pop_front();
        }
    }

    const options& o_;
    std::span<const core_trace> traces_;
    std::vector<l_cache> l1_, l2_;
    memsub::cache::set_associative_cache<Policy> llc_;
    mm::bit_field_mapping map_;
    controller mem_;
    mm::mac_table mac_;
    rp::mlp_cost_meter meter_;
    std::vector<core_state> cores_;
    std::deque<waiting> backlog_;
    std::uint64_t next_id_ = 0;
    std::uint64_t dram_now_ = 0;
    std::uint64_t last_arrival_ = 0;
    std::uint32_t outstanding_ = 0;
    bool completed_any_ = false;
    std::uint64_t misses_ = 0, cost_ = 0, writes_ = 0, llc_accesses_ = 0;
    std::array<std::uint64_t, 3> read_class_{};
};

template <class Policy>
run_result run_policy(const options& o, std::span<const core_trace> traces, std::string name,
                      const typename Policy::params& params, std::uint32_t vb = 0) {
    memsub_examples::progress_meter meter(o.progress, name);
    study<Policy> s(o, traces, params);
    run_result r = s.run(std::move(name), meter);
    meter.finish();
    r.vb_entries = vb;
    return r;
}

template <class Remap>
typename Remap::params remap_params(std::uint32_t entries_per_set) {
    typename Remap::params p{};
    p.policy.victim_buffer.entries_per_set = entries_per_set;
    return p;
}

run_result run_named(const options& o, std::span<const core_trace> traces, std::string_view name,
                     std::uint32_t vb = 16) {
    const std::string n(name);
    if (name == "lru") return run_policy<rp::lru>(o, traces, n, {});
    if (name == "srrip") return run_policy<rp::srrip>(o, traces, n, {});
    if (name == "drrip") return run_policy<rp::drrip>(o, traces, n, {});
    if (name == "ta_drrip") {
        rp::drrip::params p{};
        p.requesters = o.cores;
        return run_policy<rp::drrip>(o, traces, n, p);
    }
    if (name == "ship") return run_policy<rp::ship>(o, traces, n, {});
    if (name == "mlp_aware") return run_policy<rp::mlp_aware>(o, traces, n, {});
    if (name == "srrip_perd")
        return run_policy<rp::srrip_perd>(o, traces, n, remap_params<rp::srrip_perd>(vb), vb);
    if (name == "srrip_mac")
        return run_policy<rp::srrip_mac>(o, traces, n, remap_params<rp::srrip_mac>(vb), vb);
    if (name == "remap_lru")
        return run_policy<rp::remap_lru>(o, traces, n, remap_params<rp::remap_lru>(vb), vb);
    return run_policy<rp::remap>(o, traces, n, remap_params<rp::remap>(vb), vb);
}

// ------------------------------------------------------------------ reporting

std::uint64_t distinct_lines(const core_trace& t) {
    std::vector<std::uint64_t> lines;
    lines.reserve(t.records.size());
    for (const record& r : t.records) lines.push_back(r.address >> 6);
    std::sort(lines.begin(), lines.end());
    return static_cast<std::uint64_t>(std::unique(lines.begin(), lines.end()) - lines.begin());
}

double geomean(const std::vector<double>& v) {
    double s = 0;
    for (const double x : v) s += std::log(std::max(x, 1e-300));
    return v.empty() ? 0.0 : std::exp(s / static_cast<double>(v.size()));
}
double normalised_throughput(const run_result& r, const run_result& lru) {
    return geomean(r.ipc) / geomean(lru.ipc);
}
double fairness(const run_result& r, const run_result& lru) {
    double m = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < r.ipc.size(); ++i) m = std::min(m, r.ipc[i] / lru.ipc[i]);
    return m;
}

void print_table(const std::vector<run_result>& rs, const run_result& lru, std::uint32_t cores) {
    std::string head = fmt::format("{:<12} {:>10} {:>7} {:>14} {:>9} {:>8}", "policy", "LLC misses",
                                   "MPKI", "mem cost (cyc)", "mean lat", "cost/LRU");
    for (std::uint32_t c = 0; c < cores; ++c)
        head += fmt::format(" {:>6}", fmt::format("IPC{}", c));
    head += fmt::format(" {:>8} {:>8}", "norm thr", "fairness");
    fmt::print("{}\n{}\n", head, std::string(head.size(), '-'));
    for (const auto& r : rs) {
        std::string line = fmt::format("{:<12} {:>10} {:>7.2f} {:>14} {:>9.1f} {:>8.4f}", r.policy,
                                       r.llc_misses, r.mpki(), r.memory_cost, r.mean_latency(),
                                       static_cast<double>(r.memory_cost) /
                                           std::max<double>(1.0, lru.memory_cost));
        for (const double x : r.ipc) line += fmt::format(" {:>6.3f}", x);
        line += fmt::format(" {:>8.4f} {:>8.4f}", normalised_throughput(r, lru), fairness(r, lru));
        fmt::print("{}\n", line);
    }
}

void write_csv(const std::string& file, const std::vector<run_result>& rs,
               const std::vector<run_result>& sweep, const run_result& lru) {
    std::ofstream out(file);
    if (!out) throw std::runtime_error("cannot write " + file);
    fmt::print(out, "section,policy,vb_entries_per_set,llc_misses,mpki,memory_cost_cycles,"
                    "mean_miss_latency,cost_vs_lru,normalised_throughput,fairness");
    for (std::size_t c = 0; c < lru.ipc.size(); ++c) fmt::print(out, ",ipc_core{}", c);
    fmt::print(out, "\n");
    auto row = [&](std::string_view section, const run_result& r) {
        fmt::print(out, "{},{},{},{},{:.4f},{},{:.3f},{:.5f},{:.5f},{:.5f}", section, r.policy,
                   r.vb_entries, r.llc_misses, r.mpki(), r.memory_cost, r.mean_latency(),
                   static_cast<double>(r.memory_cost) / std::max<double>(1.0, lru.memory_cost),
                   normalised_throughput(r, lru), fairness(r, lru));
        for (const double x : r.ipc) fmt::print(out, ",{:.5f}", x);
        fmt::print(out, "\n");
    };
    for (const auto& r : rs) row("policies", r);
    for (const auto& r : sweep) row("remap_vb_sweep", r);
    if (!out.flush()) throw std::runtime_error("cannot write " + file);
}

void write_plot(const std::string& file, const std::vector<run_result>& rs, const run_result& lru) {
    const std::string base = file.substr(0, file.find_last_of('.'));
    {
        std::ofstream dat(base + ".dat");
        if (!dat) throw std::runtime_error("cannot write " + base + ".dat");
        fmt::print(dat, "# policy normalised_throughput fairness memory_cost_vs_lru\n");
        for (const auto& r : rs)
            fmt::print(dat, "{} {:.5f} {:.5f} {:.5f}\n", r.policy, normalised_throughput(r, lru),
                       fairness(r, lru),
                       static_cast<double>(r.memory_cost) / std::max<double>(1.0, lru.memory_cost));
        if (!dat.flush()) throw std::runtime_error("cannot write " + base + ".dat");
    }
    {
        std::ofstream gp(base + ".gp");
        if (!gp) throw std::runtime_error("cannot write " + base + ".gp");
        fmt::print(gp,
                   "set terminal {} size 900,450\nset termoption noenhanced\nset output {}\n"
                   "set title 'Shared LLC: policies vs LRU (1.0 = LRU)'\n"
                   "set style data histograms\nset style histogram clustered gap 1\n"
                   "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
                   "set xtics rotate by -30\nset grid ytics\nset key outside right top\n"
                   "set yrange [0:*]\n"
                   "plot {} using 2:xtic(1) title 'normalised throughput', "
                   "'' using 3 title 'fairness (min)', '' using 4 title 'memory access cost'\n",
                   *memsub_examples::gnuplot_terminal_for(file),
                   memsub_examples::gnuplot_quoted(file),
                   memsub_examples::gnuplot_quoted(base + ".dat"));
        if (!gp.flush()) throw std::runtime_error("cannot write " + base + ".gp");
    }
    memsub_examples::render_with_gnuplot(base + ".gp", file);
}

int run(const options& o) {
    std::vector<core_trace> traces;
    if (o.traces.empty()) {
        for (std::uint32_t c = 0; c < o.cores; ++c)
            traces.push_back(synthetic_stream(c, o.accesses, o.seed));
    } else {
        page_allocator pages;
        for (const auto& f : o.traces) {
            traces.push_back(read_lackey(f, o.limit, o.progress,
                                         static_cast<std::uint32_t>(traces.size()), pages));
            if (traces.back().records.empty()) {
                fmt::print(stderr, "{}: warning: {} holds no data references\n", program, f);
                return status::empty_input;
            }
        }
    }
    fmt::print("LLC study: {} cores, shared LLC {} KB 16-way 64 B, private L1-D 32 KB 8-way and "
               "L2 256 KB 8-way (LRU), DDR3-1600K FR-FCFS (Table 2.3), CPI {}\n",
               o.cores, o.cores * o.llc_kb_per_core, o.cpi);
    // Every line's first reference misses at every level: the sum of distinct lines is the floor
    // no LLC policy can go below (cold misses), shown to read how much of the miss count a
    // replacement policy can influence at all.
    std::uint64_t floor = 0;
    for (const auto& t : traces) {
        const std::uint64_t lines = distinct_lines(t);
        floor += lines;
        fmt::print("  {}: {} data references, {} instructions, {} distinct lines ({:.1f} MB)\n",
                   t.name, t.records.size(), t.instructions, lines,
                   static_cast<double>(lines) * 64 / (1 << 20));
    }
    fmt::print("  cold-miss floor of the LLC (distinct lines, all cores): {}\n", floor);
    // SIGINT / SIGTERM: the policies finished so far are printed (and written); the one under
    // way is dropped (its counts would cover a different part of the traces).
    memsub_examples::install_stop_handlers();
    std::vector<run_result> results;
    for (const auto& p : o.policies) {
        if (memsub_examples::stop_requested() != 0) break;
        run_result r = run_named(o, traces, p);
        if (r.interrupted) break;
        results.push_back(std::move(r));
    }
    const int signal = memsub_examples::stop_requested();
    if (results.empty()) {
        fmt::print(stderr,
                   "{}: interrupted by signal {} before the first policy (LRU) finished; "
                   "nothing to report\n",
                   program, signal);
        return memsub_examples::stopped_exit_status(signal);
    }
    const run_result& lru = results.front();
    fmt::print("\n");
    print_table(results, lru, o.cores);
    // Where the cost comes from: the row-buffer outcome of the measured read misses, the dirty
    // victims written to memory (all passes) and the controller's row-hit rate over everything.
    fmt::print("\nMemory side: measured read misses by row-buffer outcome; LLC writebacks\n");
    fmt::print("{:<12} {:>10} {:>10} {:>10} {:>10} {:>12}\n", "policy", "row hits", "row empty",
               "conflicts", "writebacks", "row-hit rate");
    for (const auto& r : results)
        fmt::print("{:<12} {:>10} {:>10} {:>10} {:>10} {:>12.3f}\n", r.policy, r.read_class[0],
                   r.read_class[1], r.read_class[2], r.memory_writes, r.row_hit_rate);
    std::vector<run_result> sweep;
    if (!o.sweep.empty()) {
        fmt::print("\nReMAP victim-buffer sweep (entries per set; ReMAP-16 is the default)\n");
        fmt::print("{:>8} {:>10} {:>14} {:>8} {:>8} {:>8}\n", "entries", "LLC misses",
                   "mem cost (cyc)", "cost/LRU", "norm thr", "fairness");
        for (const std::uint32_t vb : o.sweep) {
            if (memsub_examples::stop_requested() != 0) break;
            run_result swept = run_named(o, traces, "remap", vb);
            if (swept.interrupted) break;
            sweep.push_back(std::move(swept));
            const run_result& r = sweep.back();
            fmt::print("{:>8} {:>10} {:>14} {:>8.4f} {:>8.4f} {:>8.4f}\n", vb, r.llc_misses,
                       r.memory_cost,
                       static_cast<double>(r.memory_cost) / std::max<double>(1.0, lru.memory_cost),
                       normalised_throughput(r, lru), fairness(r, lru));
        }
    }
    if (!o.csv.empty()) write_csv(o.csv, results, sweep, lru);
    if (!o.plot.empty()) write_plot(o.plot, results, lru);
    if (const int sig = memsub_examples::stop_requested(); sig != 0) {
        fmt::print(stderr,
                   "{}: interrupted by signal {}: the results above are partial ({} of {} "
                   "policies{})\n",
                   program, sig, results.size(), o.policies.size(),
                   o.sweep.empty()
                       ? std::string()
                       : fmt::format(", {} of {} sweep points", sweep.size(), o.sweep.size()));
        return memsub_examples::stopped_exit_status(sig);
    }
    return status::ok;
}

} // namespace

int main(int argc, char** argv) {
    const options o = parse(argc, argv);
    try {
        return run(o);
    } catch (const memsub::input_error& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return status::input_error;
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return status::usage_error;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "{}: out of memory\n", program);
        return status::out_of_memory;
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return status::input_error;
    }
}
