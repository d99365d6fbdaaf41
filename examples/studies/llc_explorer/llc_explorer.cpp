// memsub LLC explorer — the multiprogrammed shared-LLC study of ReMAP ([Dissertation] §2.3): N
// cores, each replaying its own trace, with private L1-D and L2 caches in front of a shared LLC and
// the DDR3 FR-FCFS controller of Table 2.3 behind it; compares LLC replacement policies by LLC
// misses, MPKI, total memory access cost, mean miss latency, per-core throughput, normalised
// throughput and the §2.3.7 fairness metric, plus a victim-buffer size sweep for ReMAP.
//
//   llc_explorer                                  built-in 4-core mix (synthetic streams)
//   llc_explorer a.lackey b.lackey c.lackey       one Valgrind Lackey trace per core ('-' is
//                                                 standard input; --trace FILE works too)
//   llc_explorer --csv llc.csv --plot llc.svg
//
// System ([Dissertation] Table 2.3): 1 GHz cores; per core a private L1-D
// 32 KB 8-way and L2 256 KB 8-way, both LRU, write-back, non-inclusive (a line is filled into
// every level it misses in; nothing is back-invalidated); a shared LLC of 1 MB per core
// (--llc-kb), 16-way, 64 B lines, write-back, running the policy under study; DDR3-1600K (tRP =
// tCL = tRCD = 13.75 ns, one channel, 8 banks, 8 KB rows, 4 GiB), open page, FR-FCFS,
// row:bank:column mapping.
//
// Core counts 1..8. With 1, 2, 4 or 8 cores the LLC is one cache whose sets (1024 per MB) are
// indexed by the low line-address bits, as in the paper. With 3, 5, 6 or 7 cores the set count
// (3072 for 3 MB) is not a power of two and cannot be indexed by address bits; processors with
// such core counts slice their LLC, one slice per core, and spread the lines over the slices by a
// hash of the address. So does this model: one slice per core, each the per-core size, 16-way,
// running its own instance of the policy under study, a line's slice a hash of its line address
// above the slice's set index. Decision: the per-core capacity and the 16 ways of Table 2.3 are
// kept; the price is that a policy's global state (DRRIP's PSEL, SHiP's table, ReMAP's duel) is
// per slice with those core counts.
//
// Line crossing (valgrind cachegrind's rule, the one rule of every memsub example that simulates
// caches from a CPU trace): a reference whose bytes cross a line boundary touches every line it
// covers, at every level (L1-D, L2, LLC), and counts as one access with at most one miss per
// level, so the L1-D's counts equal cachegrind's D1 counts for the same L1 shape
// (--D1=32768,8,64; tests/cachegrind/llc_agreement.sh checks it). Each of its lines that misses in
// the LLC is read from memory (real traffic). Decision: the core waits for the last of them; the
// reference is one LLC miss whose latency (in the memory access cost) is that of its slowest
// line, while the row-buffer table counts every DRAM read.
// Deviation: the L1-I is not simulated (instruction fetches count as instructions and are
// assumed to hit).
//
// Lackey traces: each data reference (L, S, M) carries the I records since the previous one (an
// instruction with several data references charges itself to its first); the I records after the
// last data reference are the trace's tail, executed after it. Every I record is counted, so a
// whole-program trace's instruction count equals cachegrind's "I refs". Each core's virtual pages
// get physical frames of their own (see page_allocator); a reference that crosses a page boundary
// is translated page by page. Decision: with --limit N a trace ends at its N-th data reference
// (the instructions after it belong to references left out and are not counted).
// A trace that ends in an input error keeps the references before it, as in the explorer:
// Decision: the study runs on them, every row marked partial with the error, exit status 1 (a
// trace with no reference before its error, or none at all, stops the study: every core needs
// references).
//
// Core and timing model (the host keeps time; a deliberately simple model, not gem5's O3 core):
//  * Each core has a cycle counter. A reference carrying k instructions advances it by k × CPI
//    (--cpi, default 0.5: a 4-wide core that rarely issues 4). L1, L2 and LLC hits are assumed
//    hidden by the out-of-order core (part of the base CPI).
//  * An LLC read miss (a load or a store's write-allocate read) goes to the controller at
//    (core cycle + 10 + 30), after the L2 and LLC lookups of Table 2.3, and the core stalls until
//    the controller completes it: its exposed miss cycles are completion − issue (lookups
//    included). One outstanding reference miss per core, so the memory-level parallelism comes
//    from the cores overlapping each other's misses.
//  * Dirty LLC victims are posted writes: they go to the controller and never stall a core.
//    A request the controller refuses (queue full) waits at the host and is retried.
//  * The cores are interleaved by their cycle counters: the core with the smallest counter runs
//    next, so without stalls this is interleaving by instruction count (scaled by the CPI).
//  * Methodology of §2.3 (Table 2.5 mixes): a core that reaches the end of its trace starts it
//    again and keeps contending until every core has finished once; every statistic is taken
//    over each core's first pass only. The misses still in flight when the last core finishes
//    its first pass are completed and counted.
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
// Built-in mix (one stream per core, core c runs stream c mod 4; instructions per access fixed per
// stream; addresses are disjoint per core):
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
#include <memsub/trace/page_allocator.hpp>

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
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

namespace mm = memsub::memory;
namespace rp = memsub::replacement;
using memsub::access;
using memsub::access_kind;
using memsub::explorer::option_error;

constexpr std::string_view program = "llc_explorer";

namespace status {
constexpr int ok = 0, input_error = 1, usage_error = 2, empty_input = 3, out_of_memory = 4;
} // namespace status

constexpr std::uint32_t max_cores = 8;
constexpr std::uint32_t line_bytes = 64;
constexpr std::uint32_t llc_ways = 16;
/// The DDR3 preset's capacity (4 GiB): the physical memory behind the LLC.
constexpr std::uint64_t memory_bytes = [] {
    const auto& t = mm::presets::ddr3_1600_remap;
    return std::uint64_t{t.channels} * t.ranks * t.bank_groups * t.banks_per_group * t.rows *
           t.row_bytes;
}();

/// What the program is doing, for the message when memory runs out.
std::string memory_use = "starting";

/// "4 GiB", "3 MiB", "512 KiB": a power-of-two multiple of KiB as people write it.
std::string size_text(std::uint64_t bytes) {
    if (bytes >= (std::uint64_t{1} << 30) && bytes % (std::uint64_t{1} << 30) == 0)
        return fmt::format("{} GiB", bytes >> 30);
    if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0)
        return fmt::format("{} MiB", bytes >> 20);
    return fmt::format("{} KiB", bytes >> 10);
}

// ------------------------------------------------------------------ options

struct options {
    std::vector<std::string> traces;
    std::uint32_t cores = 4;
    bool cores_given = false;
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
        "usage: llc_explorer [options] [TRACE ...]\n"
        "  --trace FILE        a Valgrind Lackey trace for the next core (one per core; bare\n"
        "                      arguments too; '-' is standard input); the number of traces\n"
        "                      sets the number of cores, 1..8\n"
        "  --limit N           use at most N data references of each trace (default: all)\n"
        "  --cores N           cores of the built-in mix, 1..8 (default 4); with traces it must\n"
        "                      equal their number\n"
        "  --accesses N        data references per core of the built-in mix, 1..17179869184\n"
        "                      (default 200000)\n"
        "  --seed N            seed of the built-in mix (default 2026)\n"
        "  --cpi X             base CPI of the core model, in (0, 100] (default 0.5)\n"
        "  --llc-kb N          shared LLC size per core in KB, a power of two in 64..1048576\n"
        "                      (default 1024, Table 2.3); the whole LLC (N KB x cores) must be\n"
        "                      smaller than the 4 GiB of DDR3 memory behind it\n"
        "  --policies A,B,...  LLC policies (default all: lru,srrip,drrip,ta_drrip,ship,\n"
        "                      mlp_aware,srrip_perd,srrip_mac,remap; remap_lru, ReMAP over\n"
        "                      LRU, on request); LRU always runs (the normalisation baseline)\n"
        "  --sweep A,B,...     ReMAP victim-buffer entries per set to sweep, each 1..1024\n"
        "                      (default 8,16,24,32,48,64; '' = no sweep)\n"
        "  --csv FILE          write every figure as CSV (a row per policy and sweep point, a\n"
        "                      row per core with its L1-D counts; status columns partial,\n"
        "                      interrupted_by_signal and error)\n"
        "  --plot FILE         per-policy bars (normalised throughput, fairness, memory access\n"
        "                      cost vs LRU) rendered with gnuplot; the format follows the name:\n"
        "                      .png, .svg or .pdf\n"
        "  --quiet             no progress on stderr\n"
        "  --help              this text\n"
        "With 1, 2, 4 or 8 cores the LLC is one cache; with 3, 5, 6 or 7 cores it is one slice\n"
        "per core (each --llc-kb KB, 16-way, with its own instance of the policy), a line's\n"
        "slice chosen by a hash of its address, as processors with a sliced LLC do.\n"
        "A reference that crosses a line boundary touches every line it covers and counts as\n"
        "one access with at most one miss at each level (cachegrind's rule).\n"
        "The core and timing model is described at the top of "
        "examples/studies/llc_explorer/llc_explorer.cpp.\n"
        "SIGINT / SIGTERM (Ctrl-C): the policies finished so far are printed and written, then\n"
        "the program exits with 128 + the signal number.\n"
        "exit status: 0 success; 1 a trace could not be read or is malformed (the study then\n"
        "covers the references before the bad record, marked partial; it does not run when a\n"
        "trace could not be read at all), or an output file could not be written; 2 bad usage\n"
        "or configuration (checked before any trace is read); 3 a trace held no data\n"
        "references; 4 out of memory; 130 / 143 interrupted by SIGINT / SIGTERM.\n",
        code == 0 ? stdout : stderr);
    std::exit(code);
}

constexpr std::array<std::string_view, 9> all_policies{
    "lru", "srrip", "drrip", "ta_drrip", "ship", "mlp_aware", "srrip_perd", "srrip_mac", "remap"};
/// Run only when asked for (--policies): ReMAP over LRU (§2.3.6).
constexpr std::array<std::string_view, 1> extra_policies{"remap_lru"};

/// The shared LLC's organisation (see the header comment): one cache when the total set count is
/// a power of two, otherwise one slice per core.
struct llc_layout {
    std::uint32_t slices = 1;
    std::uint32_t sets_per_slice = 0;

    [[nodiscard]] std::uint64_t bytes() const {
        return std::uint64_t{slices} * sets_per_slice * llc_ways * line_bytes;
    }
    [[nodiscard]] memsub::geometry slice_geometry() const {
        return memsub::geometry{.sets = sets_per_slice, .ways = llc_ways, .line_bytes = line_bytes};
    }
    /// "4096 sets x 16 ways x 64 B" or "3 slices x 1024 sets x 16 ways x 64 B".
    [[nodiscard]] std::string shape() const {
        return fmt::format("{}{} sets x {} ways x {} B",
                           slices > 1 ? fmt::format("{} slices x ", slices) : std::string(),
                           sets_per_slice, llc_ways, line_bytes);
    }
};

llc_layout layout_of(const options& o) {
    // A set is 16 ways x 64 B = 1 KiB, so a core's share of the LLC has --llc-kb sets.
    const std::uint64_t sets_per_core =
        std::uint64_t{o.llc_kb_per_core} * 1024 / (std::uint64_t{llc_ways} * line_bytes);
    if (std::has_single_bit(o.cores))
        return {1, static_cast<std::uint32_t>(sets_per_core * o.cores)};
    return {o.cores, static_cast<std::uint32_t>(sets_per_core)};
}

/// "--cores 4" or "4 cores (4 traces)": how the user set the core count, for messages.
std::string cores_text(const options& o) {
    if (!o.traces.empty()) return fmt::format("{} cores ({} traces)", o.cores, o.traces.size());
    return o.cores_given ? fmt::format("--cores {}", o.cores)
                         : fmt::format("{} cores (the default)", o.cores);
}

/// The options; throws option_error (exit status 2) for anything wrong with them, the LLC's
/// size against the memory behind it included, so that no trace is read for a run that cannot
/// start.
options parse(int argc, char** argv) {
    using memsub::explorer::parse_unsigned;
    options o;
    for (memsub::explorer::option_reader r(argc, argv); r.next();) {
        const std::string_view arg = r.arg();
        const auto value = [&] { return r.value(); };
        if (arg == "--help" || arg == "-h")
            usage(0);
        else if (arg == "--trace")
            o.traces.emplace_back(value());
        else if (arg == "--limit")
            o.limit = parse_unsigned(arg, value(), 1);
        else if (arg == "--cores") {
            o.cores =
                memsub::explorer::parse_unsigned_as<std::uint32_t>(arg, value(), 1, max_cores);
            o.cores_given = true;
        } else if (arg == "--accesses")
            o.accesses = parse_unsigned(arg, value(), 1, std::uint64_t{1} << 34);
        else if (arg == "--seed")
            o.seed = parse_unsigned(arg, value());
        else if (arg == "--cpi")
            o.cpi = memsub::explorer::parse_positive_real(arg, value(), 100.0);
        else if (arg == "--llc-kb")
            o.llc_kb_per_core =
                memsub::explorer::parse_power_of_two(arg, value(), 64, std::uint32_t{1} << 20);
        else if (arg == "--policies") {
            o.policies = memsub::explorer::split_list(value());
            for (const auto& p : o.policies)
                if (std::find(all_policies.begin(), all_policies.end(), p) == all_policies.end() &&
                    std::find(extra_policies.begin(), extra_policies.end(), p) ==
                        extra_policies.end())
                    throw option_error(fmt::format("unknown policy '{}' (see --help)", p));
        } else if (arg == "--sweep") {
            o.sweep.clear();
            for (const auto& s : memsub::explorer::split_list(value()))
                o.sweep.push_back(
                    memsub::explorer::parse_unsigned_as<std::uint32_t>("--sweep", s, 1, 1024));
        } else if (arg == "--csv")
            o.csv = value();
        else if (arg == "--plot") {
            o.plot = value();
            (void)memsub::explorer::plot_terminal_or_throw(arg, o.plot);
        } else if (arg == "--quiet")
            o.progress = false;
        else if (arg.starts_with("--"))
            throw option_error(fmt::format("unknown option '{}' (see --help)", arg));
        else
            o.traces.emplace_back(arg); // a bare argument is a trace, as in the explorer
    }
    if (!o.traces.empty()) {
        if (o.traces.size() > max_cores)
            throw option_error(
                fmt::format("{} traces: at most {} (one per core)", o.traces.size(), max_cores));
        if (o.cores_given && o.cores != o.traces.size())
            throw option_error(
                fmt::format("--cores {} but {} traces (one per core)", o.cores, o.traces.size()));
        if (std::count(o.traces.begin(), o.traces.end(), memsub::explorer::stdin_name) > 1)
            throw option_error("standard input ('-') can be the trace of one core only");
        o.cores = static_cast<std::uint32_t>(o.traces.size());
    }
    // The LLC against the memory behind it, in 64 bits (cores x 1 GiB does not fit in 32).
    const std::uint64_t llc_bytes = layout_of(o).bytes();
    if (llc_bytes >= memory_bytes) {
        std::uint64_t largest = 64; // the largest --llc-kb (a power of two) that fits
        while (std::uint64_t{o.cores} * (largest * 2) * 1024 < memory_bytes) largest *= 2;
        throw option_error(fmt::format(
            "--llc-kb {} with {}: a {} LLC is not smaller than the {} of DDR3 memory behind "
            "it; use --llc-kb {} or less",
            o.llc_kb_per_core, cores_text(o), size_text(llc_bytes), size_text(memory_bytes),
            largest));
    }
    if (o.policies.empty()) o.policies.assign(all_policies.begin(), all_policies.end());
    if (std::find(o.policies.begin(), o.policies.end(), "lru") == o.policies.end())
        o.policies.insert(o.policies.begin(), "lru");
    return o;
}

// ------------------------------------------------------------------ per-core reference streams

/// One line of a data reference, with the instructions executed since the previous reference.
/// A reference that crosses line boundaries is one record per line it touches: the first
/// carries its instructions, the others are marked `continues` (16 bytes a record either way).
struct record {
    std::uint64_t address; // physical: the reference's first byte, or a continuation line's start
    std::uint32_t pc;
    std::uint16_t instructions;
    access_kind kind;
    std::uint8_t flags;

    static constexpr std::uint8_t read_modify_write = 1, continues = 2;
    [[nodiscard]] bool is_read_modify_write() const { return (flags & read_modify_write) != 0; }
    [[nodiscard]] bool is_continuation() const { return (flags & continues) != 0; }
};
static_assert(sizeof(record) == 16);

struct core_trace {
    std::string name;
    std::vector<record> records;
    std::uint64_t references = 0;        // data references (records minus continuations)
    std::uint64_t crossing = 0;          // references that cross a line boundary
    std::uint64_t instructions = 0;      // every instruction of the trace, the tail included
    std::uint64_t tail_instructions = 0; // after the last data reference
    std::uint64_t distinct_lines = 0;    // lines its references touch
    /// The input error that ended the reading: the records are the references before it.
    std::optional<std::string> error;
    /// The stop signal that ended the reading (0: none).
    int interrupted_by = 0;
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
    t.references = n;
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
        t.records.push_back(
            record{base + off, pc, ipa[kind], store ? access_kind::store : access_kind::load, 0});
        t.instructions += ipa[kind];
    }
    return t;
}

/// Virtual → physical translation of the traced programs, each core its own process.
using page_allocator = memsub::trace::page_allocator;

/// Appends the data reference `a` of core `core` to `t`: one record per line it touches, each
/// line translated through its own page; the first carries the `pending` instructions (at most
/// 65535 a record: the rest stay pending for the next reference or the tail).
void add_reference(core_trace& t, const access& a, std::uint64_t& pending, std::uint32_t core,
                   page_allocator& pages) {
    const auto instructions = static_cast<std::uint16_t>(
        std::min<std::uint64_t>(pending, std::numeric_limits<std::uint16_t>::max()));
    pending -= instructions;
    t.instructions += instructions;
    ++t.references;
    const std::uint64_t first = a.address.value;
    const std::uint64_t bytes = std::max<std::uint64_t>(a.size, 1);
    const std::uint64_t last = bytes - 1 > ~first ? ~std::uint64_t{0} : first + bytes - 1;
    const std::uint64_t first_line = first / line_bytes, last_line = last / line_bytes;
    if (last_line != first_line) ++t.crossing;
    const auto pc = static_cast<std::uint32_t>(a.pc);
    const std::uint8_t rmw = a.read_modify_write ? record::read_modify_write : 0;
    t.records.push_back(record{pages.translate(core, first), pc, instructions, a.kind, rmw});
    for (std::uint64_t line = first_line + 1; line <= last_line; ++line)
        t.records.push_back(record{pages.translate(core, line * line_bytes), pc, 0, a.kind,
                                   static_cast<std::uint8_t>(rmw | record::continues)});
}

/// Reads the Lackey trace `file` ("-": standard input) for core `core`: I records count
/// instructions, L/S/M records become data references (see "Lackey traces" in the header
/// comment). Reads the input once, front to back (a pipe works; the size of a regular file only
/// scales the progress). An input error keeps the references before it (`error` says why); a
/// stop signal ends the reading (`interrupted_by`).
core_trace read_lackey(const std::string& file, const options& o, std::uint32_t core,
                       page_allocator& pages) {
    namespace fs = std::filesystem;
    core_trace t;
    t.name = memsub::explorer::input_label(file);
    memory_use = fmt::format("reading the trace {} (16 bytes per data reference and line it "
                             "crosses into; --limit takes fewer)",
                             t.name);
    const memsub::trace::lackey_reader_params params{.emit_instruction_fetches = true};
    std::optional<memsub::trace::lackey_reader> reader;
    std::optional<std::uint64_t> file_bytes; // known for a regular file only
    try {
        if (file == memsub::explorer::stdin_name) {
            std::ios::sync_with_stdio(false); // cin reads in blocks, not through stdio
            reader.emplace(std::cin, t.name, params);
        } else {
            std::error_code ec;
            if (fs::is_directory(file, ec))
                throw memsub::input_error(file, memsub::input_error::position_kind::byte_offset, 0,
                                          "is a directory, not a trace file");
            if (fs::is_regular_file(file, ec)) {
                const auto size = fs::file_size(file, ec);
                if (!ec && size > 0) file_bytes = size;
            }
            reader.emplace(file, params);
        }
    } catch (const memsub::input_error& e) {
        t.error = e.what();
        return t;
    }
    memsub::explorer::progress_meter meter(o.progress, "reading " + t.name);
    meter.set_unit("data references");
    if (const std::size_t after = o.traces.size() - core - 1; after != 0)
        meter.set_then(fmt::format("then {} more trace{}", after, after == 1 ? "" : "s"));
    std::vector<access> chunk(memsub::explorer::chunk_accesses);
    std::uint64_t pending = 0; // instructions since the previous data reference
    bool limited = false;
    try {
        while (!limited) {
            const std::size_t n = reader->next_batch(std::span<access>(chunk));
            if (n == 0) break;
            for (std::size_t i = 0; i < n; ++i) {
                const access& a = chunk[i];
                if (a.kind == access_kind::instruction_fetch) {
                    ++pending;
                    continue;
                }
                if (o.limit != 0 && t.references == o.limit) {
                    limited = true;
                    break;
                }
                add_reference(t, a, pending, core, pages);
            }
            std::optional<double> fraction;
            if (o.limit != 0)
                fraction = static_cast<double>(t.references) / static_cast<double>(o.limit);
            if (file_bytes) {
                const double by_bytes = static_cast<double>(reader->bytes_consumed()) /
                                        static_cast<double>(*file_bytes);
                fraction = fraction ? std::max(*fraction, by_bytes) : by_bytes;
            }
            if (fraction) fraction = std::min(*fraction, 1.0);
            meter.update(t.references, fraction);
            if (const int sig = memsub::explorer::stop_requested(); sig != 0) {
                t.interrupted_by = sig;
                break;
            }
        }
    } catch (const memsub::input_error& e) {
        t.error = e.what();
    }
    meter.finish();
    // The instructions after the last data reference (with --limit: after the N-th, which
    // belong to the references left out).
    if (!limited) {
        t.tail_instructions = pending;
        t.instructions += pending;
    }
    return t;
}

// ------------------------------------------------------------------ the study

/// A core's L1-D counts over its first pass, as cachegrind counts its D1: reads are loads and
/// read-modify-writes (lackey's L and M), writes are stores (S); a reference is one access and
/// at most one miss however many lines it touches.
struct l1_counts {
    std::uint64_t reads = 0, writes = 0, read_misses = 0, write_misses = 0;
};

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
    std::array<std::uint64_t, 3> read_class{}; // their DRAM reads: row hit / empty / conflict
    double row_hit_rate = 0;                   // every DRAM access (reads and writes, all passes)
    std::vector<double> ipc;                   // per core
    std::vector<std::uint64_t> per_core_misses;
    std::vector<l1_counts> l1; // per core
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

/// The LLC of a run: its slices (one, or one per core; see the header comment).
template <class Policy>
using llc_slices = std::vector<std::unique_ptr<memsub::cache::set_associative_cache<Policy>>>;

/// Builds the LLC of `layout` for `Policy` (memory_use names it, for an out-of-memory message).
template <class Policy>
llc_slices<Policy> build_llc(const llc_layout& layout, std::string_view policy,
                             const typename Policy::params& params) {
    memory_use = fmt::format("building the LLC of {} ({}, a {} LLC): choose a smaller --llc-kb",
                             policy, layout.shape(), size_text(layout.bytes()));
    llc_slices<Policy> slices;
    for (std::uint32_t s = 0; s < layout.slices; ++s)
        slices.push_back(std::make_unique<memsub::cache::set_associative_cache<Policy>>(
            layout.slice_geometry(), params));
    return slices;
}

template <class Policy>
class study {
public:
    study(const options& o, std::span<const core_trace> traces, std::string_view name,
          const typename Policy::params& params)
        : o_(o)
        , traces_(traces)
        , llc_(build_llc<Policy>(layout_of(o), name, params))
        , slice_set_bits_(static_cast<std::uint32_t>(std::countr_zero(layout_of(o).sets_per_slice)))
        , map_(mm::bit_field_mapping::from_order("rorabachco", mm::presets::ddr3_1600_remap))
        , mem_(map_, {.timing = mm::presets::ddr3_1600_remap})
        , mac_(mm::mac_table::for_organisation(map_.organisation()))
        , meter_(o.cores) {
        for (std::uint32_t c = 0; c < o.cores; ++c) {
            l1_.emplace_back(memsub::geometry{.sets = 64, .ways = 8, .line_bytes = line_bytes});
            l2_.emplace_back(memsub::geometry{.sets = 512, .ways = 8, .line_bytes = line_bytes});
        }
        cores_.resize(o.cores);
    }

    run_result run(std::string name, memsub::explorer::progress_meter& meter) {
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
                if (memsub::explorer::stop_requested() != 0) {
                    run_result r;
                    r.policy = std::move(name);
                    r.interrupted = true;
                    return r; // a partial run is not comparable: the caller drops it
                }
            }
        }
        // The last references' misses are still in flight (the last core issued its final one
        // as it finished): complete them, so that they count with their stalls and latencies.
        while (outstanding_ > 0) {
            const std::uint64_t e = mem_.next_event_cycle();
            advance_memory(e == memsub::never ? dram_now_ + 1 : std::max(e, dram_now_ + 1));
        }
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
            r.l1.push_back(k.l1);
        }
        return r;
    }

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
    /// Where a line of the stalling miss was filled in the LLC (for MLP-aware's update_cost).
    struct fill {
        std::uint32_t slice;
        memsub::set_index set;
        memsub::entry_index entry;
        std::uint64_t line;
    };
    struct core_state {
        std::uint64_t cycle = 0;
        double fraction = 0;  // instructions × CPI not yet a whole cycle
        std::size_t next = 0; // next record (the first of a reference)
        bool first_pass = true;
        bool stalled = false;
        std::uint64_t carried_instructions = 0; // the trace's tail, run before the next pass
        std::uint64_t first_instructions = 0;
        std::uint64_t first_exposed = 0;
        std::uint64_t first_misses = 0;
        l1_counts l1;
        std::uint64_t last_mlp_cost = 0;
        // The stalling miss: when it was issued, its DRAM reads still to come (one per line that
        // missed), the latest completion and the longest latency among them, its LLC fills.
        std::uint64_t miss_issue = 0;
        std::uint32_t pending_reads = 0;
        std::uint64_t miss_done = 0;
        std::uint64_t miss_latency = 0;
        std::vector<fill> fills;
        bool counted = false; // the stalling miss belongs to the first pass
    };
    struct waiting {
        mm::mem_request request;
    };
    // Request ids carry the issuing core in their low 4 bits (one reference's reads per core are
    // outstanding); writes carry no_core.
    static constexpr std::uint32_t no_core = 15;

    /// The LLC slice of the line holding `address`: a hash of the line-address bits above the
    /// slice's set index (the bits a slice does not index by), so every set of every slice is
    /// used; always 0 with one slice.
    [[nodiscard]] std::uint32_t slice_of(std::uint64_t address) const noexcept {
        if (llc_.size() == 1) return 0;
        const std::uint64_t above = (address / line_bytes) >> slice_set_bits_;
        return static_cast<std::uint32_t>(((above * 0x9e3779b97f4a7c15ull) >> 32) % llc_.size());
    }

    /// Runs core `c`'s next data reference: each line it touches through L1-D, L2 and the LLC,
    /// one access and at most one miss per level (the header comment's line-crossing rule).
    /// Not basic_cache::access_spanning: the lines are physical, a page-crossing reference's
    /// lines lie in different frames, and each line that misses goes down a level on its own;
    /// the rule's counts (first pass only) are kept here.
    void step(std::uint32_t c, std::uint32_t& unfinished) {
        core_state& k = cores_[c];
        const core_trace& t = traces_[c];
        const std::size_t first = k.next;
        std::size_t end = first + 1;
        while (end < t.records.size() && t.records[end].is_continuation()) ++end;
        const record& rec = t.records[first];
        const bool counted = k.first_pass; // the reference belongs to the core's first pass
        // Whole cycles of instructions × CPI; the fraction carries over (rounding each record
        // would turn CPI 0.5 into 1 for one-instruction records).
        const std::uint64_t instructions =
            rec.instructions + std::exchange(k.carried_instructions, std::uint64_t{0});
        k.fraction += static_cast<double>(instructions) * o_.cpi;
        const double whole = std::floor(k.fraction);
        k.cycle += static_cast<std::uint64_t>(whole);
        k.fraction -= whole;
        if (counted) k.first_instructions += rec.instructions;
        k.next = end;
        if (k.next == t.records.size()) {
            k.next = 0;
            // The instructions after the last data reference run before the next pass's first
            // reference; the first pass counts them.
            k.carried_instructions = t.tail_instructions;
            if (k.first_pass) {
                k.first_pass = false;
                k.first_instructions += t.tail_instructions;
                --unfinished;
            }
        }
        access a;
        a.pc = rec.pc;
        a.kind = rec.kind;
        a.read_modify_write = rec.is_read_modify_write();
        a.requester = c;
        bool l1_missed = false, reached_llc = false;
        std::uint32_t reads = 0;
        const std::uint64_t arrival = k.cycle + l2_latency + llc_latency;
        k.fills.clear();
        for (std::size_t i = first; i < end; ++i) {
            a.address = memsub::byte_address{t.records[i].address & ~std::uint64_t{line_bytes - 1}};
            const auto r1 = l1_[c].access(a);
            for (const auto& e : r1.evictions)
                if (e.dirty) writeback_to_l2(c, e.address.value);
            if (r1.hit) continue;
            l1_missed = true;
            access down = a;
            down.kind = access_kind::load; // the L1's fill request reads the line
            down.read_modify_write = false;
            const auto r2 = l2_[c].access(down);
            for (const auto& e : r2.evictions)
                if (e.dirty) writeback_to_llc(c, e.address.value);
            if (r2.hit) continue;
            reached_llc = true;
            // The LLC: the hints the policies may use (see the header comment).
            const mm::dram_address d = map_.map(down.address);
            const std::uint32_t bank = mm::mac_table::bank_id(d, map_.organisation());
            down.hints.memory_cost_class = mac_.estimate(bank, d.row, mem_.queued_at(down.address));
            if constexpr (std::is_same_v<Policy, rp::mlp_aware>)
                down.hints.miss_cost_cycles = static_cast<std::uint32_t>(k.last_mlp_cost);
            const std::uint32_t s = slice_of(down.address.value);
            const auto r3 = llc_[s]->access(down);
            for (const auto& e : r3.evictions)
                if (e.dirty) memory_write(e.address.value, arrival);
            if (r3.hit) continue;
            mac_.record(bank, d.row);
            if (r3.filled())
                k.fills.push_back(fill{s, r3.set, r3.entry, down.address.value / line_bytes});
            enqueue(mm::mem_request{.id = 0,
                                    .address = down.address,
                                    .is_write = false,
                                    .requester = 0,
                                    .arrival_cycle = to_dram(arrival)},
                    c);
            ++reads;
        }
        if (counted) {
            const bool write = rec.kind == access_kind::store;
            ++(write ? k.l1.writes : k.l1.reads);
            if (l1_missed) ++(write ? k.l1.write_misses : k.l1.read_misses);
        }
        if (reached_llc) ++llc_accesses_;
        if (reads == 0) return;
        // A read miss: the core stalls until memory returns every line that missed.
        k.stalled = true;
        k.counted = counted;
        k.miss_issue = k.cycle;
        k.pending_reads = reads;
        k.miss_done = 0;
        k.miss_latency = 0;
        meter_.issue(c, arrival);
        outstanding_ += reads;
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
        const auto r = llc_[slice_of(address)]->access(w);
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

    /// Hands the controller the backlogged requests, oldest first, while it accepts them.
    void admit_backlog() {
        while (!backlog_.empty()) {
            waiting& w = backlog_.front();
            w.request.arrival_cycle = std::max({w.request.arrival_cycle, last_arrival_, dram_now_});
            if (mem_.enqueue(w.request) != mm::enqueue_result::accepted) break;
            last_arrival_ = w.request.arrival_cycle;
            backlog_.pop_front();
        }
    }

    void advance_memory(std::uint64_t target) {
        admit_backlog();
        if (target <= dram_now_) return;
        dram_now_ = target;
        mem_.advance_to(dram_now_);
        mem_.drain([&](const mm::completion& done) {
            const auto c = static_cast<std::uint32_t>(done.id & 15u);
            if (c == no_core) return;
            core_state& k = cores_[c];
            --outstanding_;
            k.miss_done = std::max(k.miss_done, to_core(done.done_cycle));
            k.miss_latency =
                std::max(k.miss_latency, to_core(done.done_cycle - done.arrival_cycle));
            if (k.counted) ++read_class_[static_cast<std::size_t>(done.kind)];
            if (--k.pending_reads > 0) return; // the reference waits for its other lines
            const std::uint64_t mlp = meter_.complete(c, std::max(k.miss_done, k.miss_issue));
            k.last_mlp_cost = mlp;
            if constexpr (std::is_same_v<Policy, rp::mlp_aware>) {
                for (const fill& f : k.fills) {
                    const auto b = llc_[f.slice]->block(f.set, f.entry);
                    if (b.valid && b.address.value / line_bytes == f.line)
                        llc_[f.slice]->policy().update_cost(f.set, f.entry, mlp);
                }
            }
            const std::uint64_t resume = std::max(k.miss_done, k.cycle);
            if (k.counted) {
                k.first_exposed += resume - k.miss_issue;
                ++k.first_misses;
                ++misses_;
                cost_ += k.miss_latency;
            }
            k.cycle = resume;
            k.stalled = false;
            completed_any_ = true;
        });
        admit_backlog(); // backlogged requests may fit now
    }

    const options& o_;
    std::span<const core_trace> traces_;
    std::vector<l_cache> l1_, l2_;
    llc_slices<Policy> llc_;
    std::uint32_t slice_set_bits_;
    mm::bit_field_mapping map_;
    controller mem_;
    mm::mac_table mac_;
    rp::mlp_cost_meter meter_;
    std::vector<core_state> cores_;
    std::deque<waiting> backlog_;
    std::uint64_t next_id_ = 0;
    std::uint64_t dram_now_ = 0;
    std::uint64_t last_arrival_ = 0;
    std::uint32_t outstanding_ = 0; // DRAM reads of stalled cores not yet completed
    bool completed_any_ = false;
    std::uint64_t misses_ = 0, cost_ = 0, writes_ = 0, llc_accesses_ = 0;
    std::array<std::uint64_t, 3> read_class_{};
};

template <class Remap>
typename Remap::params remap_params(std::uint32_t entries_per_set) {
    typename Remap::params p{};
    p.policy.victim_buffer.entries_per_set = entries_per_set;
    return p;
}

/// Calls `f.template operator()<Policy>(params, vb)` with the policy named `name` (its victim
/// buffer of `vb` entries per set for the ReMAP family, 0 otherwise) and returns its result.
template <class F>
decltype(auto) with_policy(const options& o, std::string_view name, std::uint32_t vb, F&& f) {
    if (name == "lru") return f.template operator()<rp::lru>(rp::lru::params{}, 0u);
    if (name == "srrip") return f.template operator()<rp::srrip>(rp::srrip::params{}, 0u);
    if (name == "drrip") return f.template operator()<rp::drrip>(rp::drrip::params{}, 0u);
    if (name == "ta_drrip") {
        rp::drrip::params p{};
        p.requesters = o.cores;
        return f.template operator()<rp::drrip>(p, 0u);
    }
    if (name == "ship") return f.template operator()<rp::ship>(rp::ship::params{}, 0u);
    if (name == "mlp_aware")
        return f.template operator()<rp::mlp_aware>(rp::mlp_aware::params{}, 0u);
    if (name == "srrip_perd")
        return f.template operator()<rp::srrip_perd>(remap_params<rp::srrip_perd>(vb), vb);
    if (name == "srrip_mac")
        return f.template operator()<rp::srrip_mac>(remap_params<rp::srrip_mac>(vb), vb);
    if (name == "remap_lru")
        return f.template operator()<rp::remap_lru>(remap_params<rp::remap_lru>(vb), vb);
    return f.template operator()<rp::remap>(remap_params<rp::remap>(vb), vb);
}

/// The default victim buffer of the ReMAP family in the policy table (ReMAP-16).
constexpr std::uint32_t default_vb = 16;

/// Builds the LLC of every policy the run will use (once each, then freed), before any trace
/// is read: a policy that rejects the LLC is a configuration error (exit 2), an LLC too large
/// for memory is found now (exit 4) rather than after minutes of reading traces.
void check_llc(const options& o) {
    const llc_layout layout = layout_of(o);
    auto check = [&](std::string_view name, std::uint32_t vb, const std::string& label) {
        with_policy(
            o, name, vb, [&]<class Policy>(const typename Policy::params& p, std::uint32_t) {
                try {
                    (void)build_llc<Policy>(layout, label, p);
                } catch (const memsub::config_error& e) {
                    throw option_error(fmt::format("--llc-kb {} with {}: the policy {} rejects the "
                                                   "LLC ({}): {}",
                                                   o.llc_kb_per_core, cores_text(o), label,
                                                   layout.shape(), e.what()));
                }
            });
    };
    for (const auto& p : o.policies) check(p, default_vb, p);
    for (const std::uint32_t vb : o.sweep)
        check("remap", vb, fmt::format("remap (--sweep {})", vb));
    memory_use = "starting";
}

/// Runs the policy `name` (its ReMAP victim buffer `vb` entries per set), shown as `label` in
/// the progress line with `then`, the runs that follow it.
run_result run_named(const options& o, std::span<const core_trace> traces, std::string_view name,
                     std::uint32_t vb, const std::string& label, std::string_view then) {
    return with_policy(
        o, name, vb, [&]<class Policy>(const typename Policy::params& p, std::uint32_t entries) {
            memsub::explorer::progress_meter meter(o.progress, label);
            meter.set_unit("data references");
            meter.set_then(then);
            study<Policy> s(o, traces, name, p);
            memory_use = fmt::format("running {} (its LLC: {})", label, layout_of(o).shape());
            run_result r = s.run(std::string(name), meter);
            meter.finish();
            r.vb_entries = entries;
            return r;
        });
}

// ------------------------------------------------------------------ reporting

/// The lines a trace's references touch (continuation records included).
std::uint64_t distinct_lines(const core_trace& t) {
    std::vector<std::uint64_t> lines;
    lines.reserve(t.records.size());
    for (const record& r : t.records) lines.push_back(r.address / line_bytes);
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

double cost_vs_lru(const run_result& r, const run_result& lru) {
    return static_cast<double>(r.memory_cost) / std::max<double>(1.0, lru.memory_cost);
}

void print_table(const std::vector<run_result>& rs, const run_result& lru, std::uint32_t cores) {
    std::string head = fmt::format("{:<12} {:>10} {:>7} {:>14} {:>9} {:>8}", "policy", "LLC misses",
                                   "MPKI", "mem cost (cyc)", "mean lat", "cost/LRU");
    for (std::uint32_t c = 0; c < cores; ++c)
        head += fmt::format(" {:>6}", fmt::format("IPC{}", c));
    head += fmt::format(" {:>8} {:>8}", "norm thr", "fairness");
    fmt::print("{}\n{}\n", head, std::string(head.size(), '-'));
    for (const auto& r : rs) {
        std::string line =
            fmt::format("{:<12} {:>10} {:>7.2f} {:>14} {:>9.1f} {:>8.4f}", r.policy, r.llc_misses,
                        r.mpki(), r.memory_cost, r.mean_latency(), cost_vs_lru(r, lru));
        for (const double x : r.ipc) line += fmt::format(" {:>6.3f}", x);
        line += fmt::format(" {:>8.4f} {:>8.4f}", normalised_throughput(r, lru), fairness(r, lru));
        fmt::print("{}\n", line);
    }
}

/// Each core's first pass: its instructions, its L1-D counts (the same under every policy: the
/// L1-D is private and sees only its core's references) and its LLC misses under LRU.
void print_per_core(const std::vector<core_trace>& traces, const run_result& lru) {
    fmt::print("\nPer core, first pass: L1-D 32 KB 8-way 64 B as cachegrind counts D1 (a "
               "reference is one access);\nLLC misses under LRU\n");
    fmt::print("{:>4} {:>14} {:>12} {:>12} {:>12} {:>12} {:>11}  {}\n", "core", "instructions",
               "L1-D reads", "L1-D writes", "read misses", "write misses", "LLC misses", "trace");
    for (std::size_t c = 0; c < traces.size() && c < lru.l1.size(); ++c) {
        const l1_counts& l = lru.l1[c];
        fmt::print("{:>4} {:>14} {:>12} {:>12} {:>12} {:>12} {:>11}  {}\n", c,
                   traces[c].instructions, l.reads, l.writes, l.read_misses, l.write_misses,
                   lru.per_core_misses[c], traces[c].name);
    }
}

/// The CSV's rows (memsub/explorer/result_table.hpp). Every row has every column, in one order: a
/// row per policy (section "policies") and per ReMAP sweep point ("remap_vb_sweep") with the
/// study's figures, and a row per core ("core") with its trace, data references, instructions,
/// distinct lines and first-pass L1-D counts. Status columns on every row: `partial` — the row
/// covers less than asked: a trace error cut a trace short (every row: they all rest on the
/// traces), or, on a core row, the reading stopped or the study did not get to its L1-D counts;
/// `interrupted_by_signal` — a stop signal ended the program (Decision: a policy row written
/// then is whole, as only finished policies are kept, so it is not partial; the policies and
/// sweep points after it are missing); `error` — the trace errors (on a core row, its own).
memsub::explorer::result_table results_table(const options& o,
                                             const std::vector<core_trace>& traces,
                                             const std::vector<run_result>& rs,
                                             const std::vector<run_result>& sweep, int signal) {
    using row_type = memsub::explorer::result_table::row;
    memsub::explorer::result_table table{std::string(program)};
    std::optional<std::string> errors;
    for (const auto& t : traces)
        if (t.error) errors = errors ? *errors + "; " + *t.error : *t.error;
    const std::optional<int> interrupted = signal != 0 ? std::optional(signal) : std::nullopt;
    const auto start = [&](std::string_view section) -> row_type& {
        row_type& row = table.add_row();
        row.text("section", section);
        for (const char* column :
             {"policy", "vb_entries_per_set", "llc_misses", "mpki", "memory_cost_cycles",
              "mean_miss_latency", "cost_vs_lru", "normalised_throughput", "fairness"})
            row.null(column);
        for (std::uint32_t c = 0; c < o.cores; ++c) row.null(fmt::format("ipc_core{}", c));
        for (const char* column :
             {"core", "trace", "data_references", "crossing_references", "instructions",
              "distinct_lines", "l1_reads", "l1_writes", "l1_read_misses", "l1_write_misses",
              "partial", "interrupted_by_signal", "error"})
            row.null(column);
        return row;
    };
    const run_result* lru = rs.empty() ? nullptr : &rs.front();
    const auto policy_row = [&](std::string_view section, const run_result& r) {
        row_type& row = start(section);
        row.text("policy", r.policy)
            .number("vb_entries_per_set", r.vb_entries)
            .number("llc_misses", r.llc_misses)
            .number("mpki", r.mpki(), "{:.4f}")
            .number("memory_cost_cycles", r.memory_cost)
            .number("mean_miss_latency", r.mean_latency(), "{:.3f}")
            .number("cost_vs_lru", cost_vs_lru(r, *lru), "{:.5f}")
            .number("normalised_throughput", normalised_throughput(r, *lru), "{:.5f}")
            .number("fairness", fairness(r, *lru), "{:.5f}");
        for (std::size_t c = 0; c < r.ipc.size(); ++c)
            row.number(fmt::format("ipc_core{}", c), r.ipc[c], "{:.5f}");
        row.boolean("partial", errors.has_value())
            .optional_number("interrupted_by_signal", interrupted)
            .optional_text("error", errors);
    };
    for (const auto& r : rs) policy_row("policies", r);
    for (const auto& r : sweep) policy_row("remap_vb_sweep", r);
    for (std::uint32_t c = 0; c < o.cores; ++c) {
        row_type& row = start("core");
        row.number("core", c);
        const core_trace* t = c < traces.size() ? &traces[c] : nullptr;
        if (t == nullptr) { // not read: a signal stopped the reading before it
            row.text("trace", memsub::explorer::input_label(o.traces[c]));
        } else {
            row.text("trace", t->name)
                .number("data_references", t->references)
                .number("crossing_references", t->crossing)
                .number("instructions", t->instructions)
                .number("distinct_lines", t->distinct_lines);
        }
        if (lru != nullptr) {
            const l1_counts& l = lru->l1[c];
            row.number("l1_reads", l.reads)
                .number("l1_writes", l.writes)
                .number("l1_read_misses", l.read_misses)
                .number("l1_write_misses", l.write_misses);
        }
        const bool cut = t == nullptr || t->error.has_value() || t->interrupted_by != 0;
        row.boolean("partial", cut || lru == nullptr)
            .optional_number("interrupted_by_signal", interrupted)
            .optional_text("error", t != nullptr ? t->error : std::nullopt);
    }
    return table;
}

void write_plot(const std::string& file, const std::vector<run_result>& rs, const run_result& lru) {
    const std::string base = file.substr(0, file.find_last_of('.'));
    {
        std::ofstream dat(base + ".dat");
        if (!dat) throw std::runtime_error("cannot write " + base + ".dat");
        fmt::print(dat, "# policy normalised_throughput fairness memory_cost_vs_lru\n");
        for (const auto& r : rs)
            fmt::print(dat, "{} {:.5f} {:.5f} {:.5f}\n", r.policy, normalised_throughput(r, lru),
                       fairness(r, lru), cost_vs_lru(r, lru));
        if (!dat.flush()) throw std::runtime_error("error writing " + base + ".dat");
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
                   memsub::explorer::plot_terminal_or_throw("--plot", file),
                   memsub::explorer::gnuplot_quoted(file),
                   memsub::explorer::gnuplot_quoted(base + ".dat"));
        if (!gp.flush()) throw std::runtime_error("error writing " + base + ".gp");
    }
    memsub::explorer::render_with_gnuplot(base + ".gp", file);
}

/// The files --plot writes: the plot, and its data and gnuplot script next to it.
std::vector<std::string> plot_files(const std::string& plot) {
    if (plot.empty()) return {};
    const std::string base = plot.substr(0, plot.find_last_of('.'));
    return {plot, base + ".dat", base + ".gp"};
}

/// Writes the CSV and the plot (when LRU finished); a failure of one is reported and the other
/// is still written. Returns whether every output was written.
bool write_outputs(const options& o, const std::vector<core_trace>& traces,
                   const std::vector<run_result>& rs, const std::vector<run_result>& sweep,
                   int signal) {
    bool ok = true;
    memsub::explorer::output_attempts outputs;
    const auto attempt = [&](auto&& write) {
        if (!outputs.attempt(write)) {
            fmt::print(stderr, "{}: output error: {}\n", program, outputs.failures().back());
            ok = false;
        }
    };
    memory_use = "writing the results";
    if (!o.csv.empty())
        attempt([&] { results_table(o, traces, rs, sweep, signal).write_csv(o.csv); });
    if (!o.plot.empty() && !rs.empty()) attempt([&] { write_plot(o.plot, rs, rs.front()); });
    return ok;
}

int run(const options& o) {
    // SIGINT / SIGTERM: the traces read and the policies finished so far are printed and
    // written; the policy under way is dropped (its counts would cover a different part of the
    // traces).
    memsub::explorer::install_stop_handlers();
    std::vector<core_trace> traces;
    if (o.traces.empty()) {
        memory_use = fmt::format("generating the built-in mix ({} data references per core, 16 "
                                 "bytes each): choose a smaller --accesses",
                                 o.accesses);
        for (std::uint32_t c = 0; c < o.cores; ++c)
            traces.push_back(synthetic_stream(c, o.accesses, o.seed));
    } else {
        page_allocator pages({.processes = max_cores, .memory_bytes = memory_bytes});
        for (const auto& f : o.traces) {
            traces.push_back(read_lackey(f, o, static_cast<std::uint32_t>(traces.size()), pages));
            if (traces.back().interrupted_by != 0) break;
        }
    }
    memory_use = "counting the distinct lines of the traces";
    for (auto& t : traces) t.distinct_lines = distinct_lines(t);

    // What was read: trace errors (the study covers the references before them), empty traces.
    bool input_failed = false, runnable = true;
    for (const auto& t : traces) {
        if (t.error) {
            input_failed = true;
            fmt::print(stderr, "{}: trace error: {}\n", program, *t.error);
            if (t.references == 0)
                fmt::print(stderr, "{}: {} was not read\n", program, t.name);
            else
                fmt::print(stderr,
                           "{}: the study covers the {} data reference{} of {} before it "
                           "(marked partial)\n",
                           program, t.references, t.references == 1 ? "" : "s", t.name);
        } else if (t.references == 0 && t.interrupted_by == 0) {
            fmt::print(stderr, "{}: warning: {} holds no data references\n", program, t.name);
        }
        if (t.references == 0) runnable = false;
    }
    if (const int sig = memsub::explorer::stop_requested(); sig != 0 || !runnable) {
        if (sig != 0)
            fmt::print(stderr,
                       "{}: interrupted by signal {} while reading the traces; nothing was "
                       "simulated\n",
                       program, sig);
        else
            fmt::print(stderr, "{}: every core needs data references; nothing was simulated\n",
                       program);
        const bool written = write_outputs(o, traces, {}, {}, sig);
        if (sig != 0) return memsub::explorer::stopped_exit_status(sig);
        return input_failed || !written ? status::input_error : status::empty_input;
    }

    const llc_layout layout = layout_of(o);
    fmt::print("LLC study: {} cores, shared LLC {} KB 16-way 64 B{}, private L1-D 32 KB 8-way and "
               "L2 256 KB 8-way (LRU), DDR3-1600K FR-FCFS (Table 2.3), CPI {}\n",
               o.cores, layout.bytes() / 1024,
               layout.slices > 1
                   ? fmt::format(" ({} slices of {} KB, a line's slice by a hash of its address)",
                                 layout.slices, o.llc_kb_per_core)
                   : std::string(),
               o.cpi);
    // Every line's first reference misses at every level: the sum of distinct lines is the floor
    // no LLC policy can go below (cold misses), shown to read how much of the miss count a
    // replacement policy can influence at all.
    std::uint64_t floor = 0;
    for (const auto& t : traces) {
        floor += t.distinct_lines;
        fmt::print("  {}: {} data reference{}{}, {} instructions, {} distinct lines ({:.1f} MB)\n",
                   t.name, t.references, t.references == 1 ? "" : "s",
                   t.crossing != 0 ? fmt::format(" ({} cross a line boundary)", t.crossing)
                                   : std::string(),
                   t.instructions, t.distinct_lines,
                   static_cast<double>(t.distinct_lines) * line_bytes / (1 << 20));
    }
    fmt::print("  cold-miss floor of the LLC (distinct lines, all cores): {}\n", floor);
    if (input_failed)
        fmt::print("PARTIAL: a trace error cut a trace short (see stderr): the study covers its "
                   "data references before the error\n");

    const std::size_t runs = o.policies.size() + o.sweep.size();
    std::size_t started = 0;
    const auto then = [&] {
        const std::size_t left = runs - started;
        return left == 0 ? std::string()
                         : fmt::format("then {} more run{}", left, left == 1 ? "" : "s");
    };
    std::vector<run_result> results;
    for (const auto& p : o.policies) {
        if (memsub::explorer::stop_requested() != 0) break;
        ++started;
        run_result r = run_named(o, traces, p, default_vb, p, then());
        if (r.interrupted) break;
        results.push_back(std::move(r));
    }
    if (results.empty()) {
        const int signal = memsub::explorer::stop_requested();
        fmt::print(stderr,
                   "{}: interrupted by signal {} before the first policy (LRU) finished; "
                   "nothing to report\n",
                   program, signal);
        (void)write_outputs(o, traces, {}, {}, signal);
        return memsub::explorer::stopped_exit_status(signal);
    }
    const run_result& lru = results.front();
    fmt::print("\n");
    print_table(results, lru, o.cores);
    // Where the cost comes from: the row-buffer outcome of the measured misses' DRAM reads, the
    // dirty victims written to memory (all passes) and the controller's row-hit rate over
    // everything.
    fmt::print("\nMemory side: DRAM reads of the measured LLC misses by row-buffer outcome (a "
               "line-crossing miss\nreads each line it misses); LLC writebacks\n");
    fmt::print("{:<12} {:>10} {:>10} {:>10} {:>10} {:>12}\n", "policy", "row hits", "row empty",
               "conflicts", "writebacks", "row-hit rate");
    for (const auto& r : results)
        fmt::print("{:<12} {:>10} {:>10} {:>10} {:>10} {:>12.3f}\n", r.policy, r.read_class[0],
                   r.read_class[1], r.read_class[2], r.memory_writes, r.row_hit_rate);
    print_per_core(traces, lru);
    std::vector<run_result> sweep;
    if (!o.sweep.empty() && memsub::explorer::stop_requested() == 0) {
        fmt::print("\nReMAP victim-buffer sweep (entries per set; ReMAP-16 is the default)\n");
        fmt::print("{:>8} {:>10} {:>14} {:>8} {:>8} {:>8}\n", "entries", "LLC misses",
                   "mem cost (cyc)", "cost/LRU", "norm thr", "fairness");
        for (const std::uint32_t vb : o.sweep) {
            if (memsub::explorer::stop_requested() != 0) break;
            ++started;
            run_result swept =
                run_named(o, traces, "remap", vb, fmt::format("remap vb {}", vb), then());
            if (swept.interrupted) break;
            sweep.push_back(std::move(swept));
            const run_result& r = sweep.back();
            fmt::print("{:>8} {:>10} {:>14} {:>8.4f} {:>8.4f} {:>8.4f}\n", vb, r.llc_misses,
                       r.memory_cost, cost_vs_lru(r, lru), normalised_throughput(r, lru),
                       fairness(r, lru));
        }
    }
    const int signal = memsub::explorer::stop_requested();
    const bool written = write_outputs(o, traces, results, sweep, signal);
    if (signal != 0) {
        fmt::print(stderr,
                   "{}: interrupted by signal {}: the results above are partial ({} of {} "
                   "policies{})\n",
                   program, signal, results.size(), o.policies.size(),
                   o.sweep.empty()
                       ? std::string()
                       : fmt::format(", {} of {} sweep points", sweep.size(), o.sweep.size()));
        return memsub::explorer::stopped_exit_status(signal);
    }
    if (input_failed || !written) return status::input_error;
    return status::ok;
}

} // namespace

int main(int argc, char** argv) {
    options o;
    try {
        o = parse(argc, argv);
    } catch (const option_error& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return status::usage_error;
    }
    try {
        // Before any work: every output can be written and every policy accepts the LLC (a
        // long run must not end in an error that was knowable at its start).
        memsub::explorer::check_writable("--csv", o.csv);
        for (const auto& f : plot_files(o.plot)) memsub::explorer::check_writable("--plot", f);
        check_llc(o);
    } catch (const option_error& e) {
        fmt::print(stderr, "{}: {} (nothing was run)\n", program, e.what());
        return status::usage_error;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "{}: out of memory while {} (nothing was run)\n", program, memory_use);
        return status::out_of_memory;
    }
    // An input error, like any error but a configuration's, is status 1.
    return memsub::explorer::run_reporting_errors(program, memory_use, [&] { return run(o); });
}
