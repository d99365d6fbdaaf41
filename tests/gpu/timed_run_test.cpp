// simt::run_timed and simt::timed_requests (workload/simt/timed_run.hpp): the host loop that
// connects a host-mode gto_scheduler, the host's L1s and gpu::l2_dram_timing.
//  * T-LAT: one warp's stalling load whose requests hit the L1, hit the L2 and miss to DRAM
//    resumes at the cycle Table 3.1's latencies give by hand (the arithmetic is in the test).
//  * T-SLOW: a memory-bound kernel (stencil) slows with the DRAM, a compute-bound crafted
//    kernel does not.
//  * T-EQUIV through the loop: a memory that completes every load at issue + load_latency, at
//    once or through its events, reproduces constant mode's stream and cycles.
//  * The loop's errors and early stop.
#include <doctest/doctest.h>

#include <memsub/compression/bdi.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/compressed_l1.hpp>
#include <memsub/gpu/timing.hpp>
#include <memsub/selection/static_mode.hpp>
#include <memsub/workload/simt/all.hpp>
#include <memsub/workload/simt/timed_run.hpp>

#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace memsub;
using namespace memsub::workload::simt;

namespace {

/// One crafted instruction: lane i reads or writes 4 B at addresses[i].
struct scripted {
    access_kind kind = access_kind::load;
    bool stalls = true;
    std::uint32_t alu_cycles = 0;
    std::vector<std::uint64_t> addresses;
};

/// A crafted kernel: `warps` warps in one CTA, warp w issuing `script(w)`.
struct script_kernel {
    std::function<std::vector<scripted>(std::uint32_t)> script;
    std::uint32_t warps = 1;
    bool launched = false;
    struct warp_state {
        std::vector<scripted> steps;
        std::size_t next = 0;
    };
    static constexpr std::string_view name() { return "script"; }
    bool next_launch(launch_shape& s) {
        if (launched) return false;
        launched = true;
        s = {1, warps * warp_lanes};
        return true;
    }
    void start_warp(warp_state& w, const warp_origin& o) const { w = {script(o.warp_in_cta), 0}; }
    bool step(warp_state& w, warp_instruction& out) const {
        if (w.next == w.steps.size()) return false;
        const scripted& s = w.steps[w.next++];
        out.pc = 8 * w.next;
        out.kind = s.kind;
        out.stalls = s.stalls;
        out.alu_cycles = s.alu_cycles;
        out.access_bytes = 4;
        out.active_mask = 0;
        for (std::uint32_t l = 0; l < s.addresses.size(); ++l) {
            out.lanes[l] = s.addresses[l];
            out.active_mask |= 1u << l;
        }
        return true;
    }
};
static_assert(simt_kernel<script_kernel>);

/// The host of the explorer's timed mode: each SM's baseline L1, the coalescer's line
/// requests, and `memory` behind them. Records every instruction's issue cycle.
template <class Kernel, class Memory>
struct l1_host {
    gto_scheduler<Kernel>& scheduler;
    Memory& memory;
    std::vector<gpu::baseline_l1> l1;
    gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    std::vector<std::uint64_t> issue_cycles;

    l1_host(gto_scheduler<Kernel>& s, Memory& m) : scheduler(s), memory(m), l1(s.params().sms) {}

    void operator()(const warp_instruction& w) {
        issue_cycles.push_back(w.issue_cycle);
        coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        memsub::access proto{};
        proto.pc = w.pc;
        proto.kind = w.kind;
        proto.requester = w.sm;
        timed_requests requests(scheduler, memory, w);
        coalescer.for_each_request(
            lines, proto, [&](const memsub::access& a) { requests(a, l1[w.sm].access(a)); });
        requests.finish();
    }
};

constexpr std::uint64_t line_a = 0x0;             // bank 0, L1 set 0
constexpr std::uint64_t line_b = 6 * 8192 + 128;  // bank 0 (8 KB granules over 6 banks), set 1
constexpr std::uint64_t line_c = 12 * 8192 + 256; // bank 0, set 2
constexpr std::uint64_t line_c_other_bank = 8192 + 256; // bank 1, set 2

/// T-LAT's warp: warm A (L1 + L2) and B (L2 only: the write-evict L1 drops it on the store),
/// then one stalling load of A, B and `c`, then a store whose issue cycle is the answer.
std::vector<scripted> t_lat_script(std::uint64_t c) {
    return {{.addresses = {line_a}},
            {.addresses = {line_b}},
            {.kind = access_kind::store, .stalls = false, .addresses = {line_b}},
            {.addresses = {line_a, line_b, c}},
            {.kind = access_kind::store, .stalls = false, .addresses = {line_a + 64}}};
}

std::vector<std::uint64_t> t_lat_issue_cycles(std::uint64_t c) {
    script_kernel k{.script = [c](std::uint32_t) { return t_lat_script(c); }};
    gto_scheduler<script_kernel> s(k, {.sms = 1, .latency = latency_mode::host});
    gpu::l2_dram_timing<> memory; // Table 3.1: 20 / 40 / 120 / 220, 32 B flits, 2 per cycle
    l1_host host(s, memory);
    const timed_run_result r = run_timed(s, host, memory);
    CHECK(r.instructions == 5);
    CHECK_FALSE(r.stopped);
    CHECK(s.outstanding() == 0);
    CHECK(memory.outstanding_reads() == 0);
    CHECK(memory.stats().dram_reads == 3);   // A, B, C: each line once
    CHECK(memory.stats().l2_read_hits == 1); // B in the measured instruction
    return host.issue_cycles;
}

} // namespace

TEST_CASE("T-LAT: an L1 hit, an L2 hit and a DRAM miss of one stalling load, by hand") {
    // Table 3.1 latencies (gpu::latency_params defaults): L1 hit 20, issue -> L2 bank 40,
    // L2 hit 120 (so 80 back to the SM), DRAM 220 (flat partitions of 100 cycles); a 128 B
    // reply is 4 flits at 2 per cycle: a bank port busy 2 cycles; a 4 B store 1 flit: 0.5.
    //  cycle 0:   load A, L1 miss, L2 miss: bank 0 at 0+40, DRAM 40 -> 140, back 140+80 = 220.
    //  cycle 220: load B likewise: bank at 260, DRAM 260 -> 360, back at 440.
    //  cycle 440: store B: the write-evict L1 drops B; the store holds bank 0 480 -> 480.5.
    //  cycle 441: the store does not stall; load A, B, C:
    //             A: L1 hit, 441 + 20 = 461;
    //             B: L1 miss, L2 hit: bank from max(441+40, 480.5) = 481 to 483, 481+80 = 561;
    //             C: L1 miss, L2 miss: bank free at 483 (queued 2), DRAM 483 -> 583, 663.
    //  The warp waits for all three: its store issues at max(461, 561, 663) = 663.
    const std::vector<std::uint64_t> same_bank = t_lat_issue_cycles(line_c);
    CHECK(same_bank == std::vector<std::uint64_t>{0, 220, 440, 441, 663});
    // C in bank 1: no queueing behind B, DRAM 481 -> 581, back at 661.
    const std::vector<std::uint64_t> own_bank = t_lat_issue_cycles(line_c_other_bank);
    CHECK(own_bank == std::vector<std::uint64_t>{0, 220, 440, 441, 661});
}

namespace {

/// Table 3.1's machine with the flat DRAM's own latency (100 cycles) times `latency_factor` and
/// its bandwidth divided by `bandwidth_divisor`.
template <class MakeKernel>
std::uint64_t cycles_with_dram(MakeKernel make, std::uint32_t latency_factor,
                               double bandwidth_divisor, std::uint32_t sms) {
    using Kernel = decltype(make());
    gpu::timing_params p;
    p.latency.dram_cycles = p.latency.l2_hit_cycles + latency_factor * p.latency.dram_only_cycles();
    auto dram = gpu::table_3_1_flat_dram(p.latency);
    dram.bytes_per_cycle /= bandwidth_divisor;
    Kernel k = make();
    gto_scheduler<Kernel> s(k, {.sms = sms, .latency = latency_mode::host});
    gpu::l2_dram_timing<> memory(p, [&](std::uint32_t) { return memory::flat_memory(dram); });
    l1_host host(s, memory);
    const timed_run_result r = run_timed(s, host, memory);
    CHECK(s.outstanding() == 0);
    CHECK(memory.outstanding_reads() == 0);
    CHECK(r.cycles == s.cycle());
    return r.cycles;
}

} // namespace

namespace {

/// Every line holds one repeated word: BDI stores it in one 32 B segment.
struct repeated_word_image {
    void read(std::uint64_t, std::span<std::byte> out) const noexcept {
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = i % 4 == 0 ? std::byte{0x2a} : std::byte{0};
    }
};

/// T-LAT's host with compressed L1s storing every line in `mode` (0 none, 1 BDI).
std::vector<std::uint64_t> compressed_issue_cycles(std::uint32_t mode) {
    script_kernel k{.script = [](std::uint32_t) {
        return std::vector<scripted>{
            {.addresses = {line_a}},
            {.addresses = {line_a}},
            {.kind = access_kind::store, .stalls = false, .addresses = {line_b}}};
    }};
    gto_scheduler<script_kernel> s(k, {.sms = 1, .latency = latency_mode::host});
    gpu::l2_dram_timing<> memory;
    gpu::compressed_l1<selection::static_mode, compression::bdi> l1({}, {.mode = mode});
    const repeated_word_image image;
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    std::vector<std::uint64_t> issue_cycles;
    const auto issue = [&](const warp_instruction& w) {
        issue_cycles.push_back(w.issue_cycle);
        coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        memsub::access proto{};
        proto.kind = w.kind;
        timed_requests requests(s, memory, w);
        coalescer.for_each_request(lines, proto, [&](const memsub::access& a) {
            requests(a, l1.access(a, w.issue_cycle, image));
        });
        requests.finish();
    };
    run_timed(s, issue, memory);
    CHECK(l1.stats().load_hits == 1);
    CHECK(l1.stats().fills_by_mode[mode] == 1);
    return issue_cycles;
}

} // namespace

TEST_CASE("timed_requests: a compressed L1 hit's decompression delays the warp (Eq. 4.3)") {
    // A misses to DRAM (back at 220, as T-LAT); the second load hits the L1: ready at
    // 220 + 20, plus BDI's 2-cycle decompression when the line is stored compressed.
    CHECK(compressed_issue_cycles(0) == std::vector<std::uint64_t>{0, 220, 240});
    CHECK(compressed_issue_cycles(1) == std::vector<std::uint64_t>{0, 220, 242});
}

TEST_CASE("T-SLOW: a memory-bound kernel slows with the DRAM, a compute-bound one does not") {
    SUBCASE("stencil 128 x 128 on 4 SMs: DRAM latency x10 at least doubles its cycles") {
        const auto k = [] { return stencil_kernel({.rows = 128, .cols = 128, .iterations = 2}); };
        const std::uint64_t base = cycles_with_dram(k, 1, 1.0, 4);
        const std::uint64_t slow = cycles_with_dram(k, 10, 1.0, 4);
        const std::uint64_t narrow = cycles_with_dram(k, 1, 4.0, 4);
        MESSAGE("stencil cycles: Table 3.1 ", base, ", DRAM latency x10 ", slow,
                ", DRAM bandwidth / 4 ", narrow);
        CHECK(slow >= 2 * base);
        CHECK(10 * narrow >= 13 * base);
    }
    SUBCASE("1 SM, 48 warps of 64-cycle arithmetic, one stalling load in 4: under 5 %") {
        // Every instruction keeps the SM busy 65 cycles, so each warp issues once per
        // 48 x 65 = 3120 cycles, more than even a 1120-cycle DRAM miss: the loads hide.
        const script_kernel k{
            .script =
                [](std::uint32_t w) {
                    std::vector<scripted> steps;
                    for (std::uint32_t i = 0; i < 16; ++i)
                        steps.push_back({.stalls = i % 4 == 3,
                                         .alu_cycles = 64,
                                         .addresses = {0x1000'0000 + (w * 16 + i) * 4096ull}});
                    return steps;
                },
            .warps = 48};
        const auto make = [&] { return k; };
        const std::uint64_t base = cycles_with_dram(make, 1, 1.0, 1);
        const std::uint64_t slow = cycles_with_dram(make, 10, 1.0, 1);
        MESSAGE("compute-bound cycles: Table 3.1 ", base, ", DRAM latency x10 ", slow);
        CHECK(base >= 48 * 16 * 65);
        CHECK(static_cast<double>(slow) < 1.05 * static_cast<double>(base));
    }
}

namespace {

/// A memory whose every load completes `latency` cycles after issue: at once (`read` returns
/// the cycle) or, when `deferred`, through `advance_to` (read returns never), in cycle order.
class constant_memory {
public:
    struct latencies {
        std::uint32_t latency;
        [[nodiscard]] std::uint64_t l1_hit_ready(std::uint64_t t) const noexcept {
            return t + latency;
        }
    };
    constant_memory(std::uint32_t latency, bool deferred) : l_{latency}, deferred_(deferred) {}

    [[nodiscard]] const latencies& latency() const noexcept { return l_; }
    std::uint64_t read(std::uint64_t t, std::uint64_t tag, const memsub::access&, std::uint32_t) {
        ++reads;
        if (!deferred_) return t + l_.latency;
        q_.push({t + l_.latency, seq_++, tag});
        return never;
    }
    void write(std::uint64_t, const memsub::access&, std::uint32_t) { ++writes; }
    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept {
        return q_.empty() ? never : std::get<0>(q_.top());
    }
    template <class Done>
    void advance_to(std::uint64_t t, Done&& done) {
        while (!q_.empty() && std::get<0>(q_.top()) <= t) {
            const auto [ready, seq, tag] = q_.top();
            q_.pop();
            done(tag, ready);
        }
    }
    [[nodiscard]] bool idle() const noexcept { return q_.empty(); }

    std::uint64_t reads = 0, writes = 0;

private:
    using entry = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;
    std::priority_queue<entry, std::vector<entry>, std::greater<>> q_;
    std::uint64_t seq_ = 0;
    latencies l_;
    bool deferred_;
};
static_assert(timed_memory<constant_memory>);

struct issued {
    std::uint32_t sm, warp;
    std::uint64_t pc, issue_cycle;
    friend bool operator==(const issued&, const issued&) = default;
};

template <class MakeKernel>
std::pair<std::vector<issued>, std::uint64_t> constant_stream(MakeKernel make) {
    auto k = make();
    gto_scheduler<decltype(k)> s(k, {.sms = 4});
    std::vector<issued> out;
    warp_instruction w;
    while (s.next(w)) out.push_back({w.sm, w.warp.value, w.pc, w.issue_cycle});
    return {out, s.cycle()};
}

/// The same kernel through run_timed in `mode`, the memory completing at issue + 120.
template <class MakeKernel>
std::pair<std::vector<issued>, std::uint64_t> looped_stream(MakeKernel make, latency_mode mode,
                                                            bool deferred) {
    auto k = make();
    gto_scheduler<decltype(k)> s(k, {.sms = 4, .latency = mode});
    constant_memory memory(120, deferred);
    std::vector<issued> out;
    std::vector<gpu::baseline_l1> l1(4);
    const gpu::coalescer coalescer;
    gpu::coalesced_warp lines;
    std::uint64_t requests_waiting = 0;
    const auto issue = [&](const warp_instruction& w) {
        out.push_back({w.sm, w.warp.value, w.pc, w.issue_cycle});
        coalescer.coalesce(w.lanes, w.active_mask, w.access_bytes, lines);
        memsub::access proto{};
        proto.pc = w.pc;
        proto.kind = w.kind;
        timed_requests requests(s, memory, w);
        coalescer.for_each_request(lines, proto, [&](const memsub::access& a) {
            const auto r = l1[w.sm].access(a);
            requests_waiting += w.kind == access_kind::load && !r.hit && deferred;
            requests(a, r);
        });
        requests.finish();
    };
    const timed_run_result r = run_timed(s, issue, memory);
    CHECK(r.instructions == out.size());
    CHECK(s.outstanding() == 0);
    CHECK(memory.reads + memory.writes > 0);
    if (mode == latency_mode::host) CHECK(memory.idle());
    if (deferred) CHECK(requests_waiting == memory.reads);
    return {out, r.cycles};
}

template <class MakeKernel>
void check_equivalent(MakeKernel k) {
    const auto [reference, cycles] = constant_stream(k);
    for (const bool deferred : {false, true}) {
        CAPTURE(deferred);
        const auto [host, host_cycles] = looped_stream(k, latency_mode::host, deferred);
        CHECK(host_cycles == cycles);
        CHECK(host == reference);
        // Constant mode through the loop: the memory's reports are dropped.
        const auto [constant, constant_cycles] = looped_stream(k, latency_mode::constant, deferred);
        CHECK(constant_cycles == cycles);
        CHECK(constant == reference);
    }
}

} // namespace

TEST_CASE("T-EQUIV through run_timed: completions at issue + load_latency give constant mode") {
    SUBCASE("bfs") {
        const csr_graph g = make_rmat_graph({.scale = 10, .edge_factor = 8, .seed = 3});
        check_equivalent([&] { return bfs_kernel(g, {.source = 0}); });
    }
    SUBCASE("spmv") {
        const csr_matrix m =
            make_power_law_matrix({.rows = 3000, .cols = 3000, .max_row_length = 200, .seed = 2});
        check_equivalent([&] { return spmv_kernel(m, {.seed = 1}); });
    }
    SUBCASE("stencil") {
        check_equivalent([] { return stencil_kernel({.rows = 96, .cols = 80}); });
    }
}

TEST_CASE("run_timed: a completion nobody will report is a logic_error naming the state") {
    // The host holds a second completion for a one-request load but never reads: nothing is
    // pending in the memory, and the warp waits for ever.
    script_kernel k{.script = [](std::uint32_t) {
        return std::vector<scripted>{{.addresses = {0x100}}, {.addresses = {0x200}}};
    }};
    gto_scheduler<script_kernel> s(k, {.sms = 1, .latency = latency_mode::host});
    constant_memory memory(120, true);
    const auto forgetful = [&](const warp_instruction& w) { s.hold(w.warp); };
    std::string message;
    try {
        (void)run_timed(s, forgetful, memory);
    } catch (const std::logic_error& e) {
        message = e.what();
    }
    CHECK(message.find("run_timed: blocked at cycle 1 with 2 load completions owed and no "
                       "memory event pending") != std::string::npos);
}

TEST_CASE("run_timed: an issue function returning false stops the run") {
    script_kernel k{.script = [](std::uint32_t) {
        return std::vector<scripted>(10, scripted{.addresses = {0x100}});
    }};
    gto_scheduler<script_kernel> s(k, {.sms = 1, .latency = latency_mode::host});
    gpu::l2_dram_timing<> memory;
    l1_host host(s, memory);
    std::uint64_t n = 0;
    const timed_run_result r = run_timed(
        s,
        [&](const warp_instruction& w) {
            host(w);
            return ++n < 3;
        },
        memory);
    CHECK(r.stopped);
    CHECK(r.instructions == 3);
    // Load 1 misses to DRAM (0 -> 220), loads 2 and 3 hit the L1 (+20 each).
    CHECK(host.issue_cycles == std::vector<std::uint64_t>{0, 220, 240});
}
