// GPU time from the memory system (gpu/timing.hpp, topology/link_timing.hpp): Table 3.1's
// latencies composed by hand (an L1 hit, an L2 hit and an L2 miss queued behind it in one
// bank; reads and stores merged into a fill in flight; a full MSHR table; a DDR4 line in two
// bursts), FCFS ports in 1/65536 cycle, and the L2/DRAM timing under random host streams
// against independent reference models and the controllers' call protocol (memory/concept.hpp
// MP2).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/gpu/timing.hpp>
#include <memsub/memory/dram_controller.hpp>
#include <memsub/memory/flat_memory.hpp>
#include <memsub/topology/link_timing.hpp>
#include <memsub/topology/ring.hpp>

using namespace memsub;

namespace {

memsub::access line_at(std::uint64_t address, std::uint32_t sm = 0,
                       access_kind kind = access_kind::load) {
    memsub::access a;
    a.address = byte_address{address};
    a.kind = kind;
    a.requester = sm;
    return a;
}

/// The bank (= DRAM partition) of an address: 8 KB granules over six banks.
std::uint32_t bank_of(std::uint64_t address) {
    return static_cast<std::uint32_t>(address / 8192 % 6);
}

/// Flat DRAM partitions of `latency` cycles and `bytes_per_cycle`, 128 B per request.
memory::flat_memory::params flat(std::uint32_t latency, double bytes_per_cycle,
                                 std::uint32_t capacity = 256) {
    return {.latency_cycles = latency,
            .bytes_per_cycle = bytes_per_cycle,
            .request_bytes = 128,
            .capacity = capacity};
}

gpu::l2_dram_timing<> timing_with(const memory::flat_memory::params& dram,
                                  const gpu::timing_params& p = {}) {
    return gpu::l2_dram_timing<>(p, [&](std::uint32_t) { return memory::flat_memory(dram); });
}

/// Advances `m` through every event up to `cycle`, as a host whose scheduler stops at the
/// memory's next event does; collects (tag, ready) in report order.
template <class Timing>
void run_until(Timing& m, std::uint64_t cycle,
               std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) {
    while (m.next_event_cycle() <= cycle)
        m.advance_to(m.next_event_cycle(),
                     [&](std::uint64_t tag, std::uint64_t ready) { out.emplace_back(tag, ready); });
}

/// A controller that forwards to `Inner` and records what the timing does to it: the arrival
/// of every accepted request (MP2: non-decreasing) and every advance (MP3: non-decreasing).
template <class Inner>
class recording_controller {
public:
    using params = typename Inner::params;

    explicit recording_controller(Inner inner) : inner_(std::move(inner)) {}

    [[nodiscard]] bool can_accept(const memory::mem_request& r) const noexcept {
        return inner_.can_accept(r);
    }
    memory::enqueue_result enqueue(const memory::mem_request& r) noexcept {
        const auto result = inner_.enqueue(r);
        if (result == memory::enqueue_result::accepted) {
            if (r.arrival_cycle < last_arrival_) ++arrival_decreases_;
            last_arrival_ = r.arrival_cycle;
            ++accepted_;
        } else {
            ++refused_;
        }
        return result;
    }
    void advance_to(std::uint64_t cycle) noexcept {
        if (cycle < last_advance_) ++advance_decreases_;
        last_advance_ = cycle;
        inner_.advance_to(cycle);
    }
    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept {
        return inner_.next_event_cycle();
    }
    template <class Sink>
    std::size_t drain(Sink&& sink) {
        return inner_.drain(sink);
    }
    std::size_t drain(std::span<memory::completion> out) noexcept { return inner_.drain(out); }
    [[nodiscard]] const auto& stats() const noexcept { return inner_.stats(); }
    [[nodiscard]] std::size_t pending() const noexcept { return inner_.pending(); }
    [[nodiscard]] std::string_view name() const noexcept { return inner_.name(); }
    [[nodiscard]] const auto& parameters() const noexcept { return inner_.parameters(); }

    std::uint64_t arrival_decreases_ = 0;
    std::uint64_t advance_decreases_ = 0;
    std::uint64_t accepted_ = 0;
    std::uint64_t refused_ = 0;

private:
    Inner inner_;
    std::uint64_t last_arrival_ = 0;
    std::uint64_t last_advance_ = 0;
};

static_assert(memory::memory_controller<recording_controller<memory::flat_memory>>);

memory::dram_timing ddr4_no_refresh() {
    memory::dram_timing t = memory::presets::ddr4_2400;
    t.tREFI = 0;
    t.tRFC = 0;
    return t;
}

using ddr4_controller = memory::fr_fcfs_controller<>;

ddr4_controller make_ddr4(std::uint32_t queue = 32) {
    const auto t = ddr4_no_refresh();
    return ddr4_controller(memory::bit_field_mapping::from_order("rorabgbachco", t),
                           {.timing = t, .read_queue = queue, .write_queue = queue});
}

/// One request of a random host stream.
struct host_request {
    std::uint64_t cycle;
    std::uint64_t address;
    std::uint32_t sm;
    std::uint32_t bytes;
    bool store;
};

/// Issue cycles rise by 0–3 per request, with up to 60 cycles of jitter either way (requests
/// of different SMs, handed over out of order); addresses over `footprint` bytes (4 MB: over
/// five times the L2), one store in four, replies of 32–128 B.
std::vector<host_request> random_stream(std::uint64_t seed, std::size_t n,
                                        std::uint64_t footprint = 4u << 20) {
    xoshiro256ss rng(seed);
    std::vector<host_request> s;
    std::uint64_t base = 1000;
    for (std::size_t i = 0; i < n; ++i) {
        base += rng() % 4;
        const std::uint64_t jitter = rng() % 121;
        const std::uint64_t cycle = base + jitter >= 60 ? base + jitter - 60 : 0;
        s.push_back({.cycle = cycle,
                     .address = (rng() % footprint) & ~std::uint64_t{3},
                     .sm = static_cast<std::uint32_t>(rng() % 15),
                     .bytes = 32u * static_cast<std::uint32_t>(1 + rng() % 4),
                     .store = rng() % 4 == 0});
    }
    return s;
}

struct stream_outcome {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> reported; ///< (tag, ready), in order
    std::vector<std::uint64_t> issue_of_tag;
    std::vector<std::uint64_t> ready_now; ///< per tag: ready returned by read, or never
};

/// Plays a random stream into `m`: before issuing at its cycle, the host advances the memory
/// through every event up to the request's nominal (un-jittered) time.
template <class Timing>
stream_outcome play(Timing& m, const std::vector<host_request>& stream) {
    stream_outcome o;
    std::uint64_t advanced = 0;
    for (const host_request& r : stream) {
        advanced = std::max(advanced, r.cycle);
        run_until(m, advanced, o.reported);
        const memsub::access a =
            line_at(r.address, r.sm, r.store ? access_kind::store : access_kind::load);
        if (r.store) {
            m.write(r.cycle, a, r.bytes);
            continue;
        }
        const std::uint64_t tag = o.issue_of_tag.size();
        o.issue_of_tag.push_back(r.cycle);
        o.ready_now.push_back(m.read(r.cycle, tag, a, r.bytes));
    }
    run_until(m, never - 1, o.reported);
    return o;
}

template <class Timing>
void check_protocol(const Timing& m, const stream_outcome& o, std::uint64_t min_dram_latency) {
    // Every waited read is reported exactly once, never before issue + an L2 hit's latency; one
    // reported before issue + the unloaded DRAM latency waited on a fill another request sent
    // (merged), since the fill's own read starts it at the bank.
    std::vector<int> seen(o.issue_of_tag.size(), 0);
    std::uint64_t early = 0, before_dram = 0;
    for (const auto& [tag, ready] : o.reported) {
        REQUIRE(tag < seen.size());
        ++seen[tag];
        CHECK(o.ready_now[tag] == never);
        early += ready < o.issue_of_tag[tag] + m.latency().l2_hit_cycles;
        before_dram += ready < o.issue_of_tag[tag] + min_dram_latency;
    }
    std::uint64_t waited = 0, twice = 0, missing = 0, early_hits = 0;
    for (std::size_t tag = 0; tag < seen.size(); ++tag) {
        if (o.ready_now[tag] == never) {
            ++waited;
            missing += seen[tag] == 0;
            twice += seen[tag] > 1;
        } else {
            early_hits += o.ready_now[tag] < o.issue_of_tag[tag] + m.latency().l2_hit_cycles;
        }
    }
    const auto& s = m.stats();
    CHECK(early == 0);
    CHECK(early_hits == 0);
    CHECK(missing == 0);
    CHECK(twice == 0);
    CHECK(before_dram <= s.merged_reads);
    CHECK(s.reads == seen.size());
    CHECK(s.reads == s.l2_read_hits + s.merged_reads + s.dram_reads);
    // Each L2 read miss with no fill owed waits; a merged read waits unless its fill was
    // already reported (then its cycle is known at once).
    CHECK(waited >= s.dram_reads);
    CHECK(waited <= s.dram_reads + s.merged_reads);
    CHECK(s.completed == waited);
    CHECK(m.outstanding_reads() == 0);
    CHECK(m.next_event_cycle() == never);
    std::uint64_t accepted = 0;
    for (std::uint32_t p = 0; p < 6; ++p) {
        CHECK(m.controller(p).arrival_decreases_ == 0); // MP2
        CHECK(m.controller(p).advance_decreases_ == 0); // MP3
        CHECK(m.overflowing(p) == 0);
        CHECK(m.controller(p).pending() == 0);
        CHECK(m.fills_in_flight(p) == 0);
        CHECK(m.fills_waiting(p) == 0);
        accepted += m.controller(p).accepted_;
    }
    // Every line a fill or a write-back moves costs requests_per_line controller requests.
    CHECK(s.rejected == 0);
    CHECK(accepted ==
          (s.dram_reads + s.fill_reads + s.dram_writes) * std::uint64_t{m.requests_per_line()});
}

} // namespace

// ------------------------------------------------------------------------ latency_params

TEST_CASE("latency_params: Table 3.1's latencies, the derived parts, and validation") {
    const gpu::latency_params l{};
    CHECK(l.l1_hit_cycles == 20);
    CHECK(l.to_l2_cycles == 40);
    CHECK(l.l2_hit_cycles == 120);
    CHECK(l.dram_cycles == 220);
    CHECK(l.flit_bytes == 32);
    CHECK(l.bank_flits_per_cycle == 2);
    CHECK(l.l1_hit_ready(1000) == 1020);
    CHECK(l.l2_return_cycles() == 80);
    CHECK(l.dram_only_cycles() == 100);
    CHECK(l.flits(128) == 4);
    CHECK(l.flits(33) == 2);
    // 4 flits at 2 per cycle: 2 cycles; 1 flit: half a cycle (1/65536 units).
    CHECK(l.bank_occupancy(128) == 2 * 65536);
    CHECK(l.bank_occupancy(32) == 32768);
    CHECK(gpu::describe(l) ==
          "L1 hit 20, to L2 40, L2 hit 120, DRAM 220 core cycles; 32 B flits, 2 flits/cycle per "
          "L2 bank");

    // The default flat partition: 100 cycles, 177 GB/s / 0.7 GHz / 6 banks, 128 B lines.
    const auto f = gpu::table_3_1_flat_dram();
    CHECK(f.latency_cycles == 100);
    CHECK(f.bytes_per_cycle == doctest::Approx(42.142857));
    CHECK(f.request_bytes == 128);

    auto throws_on = [](gpu::latency_params bad, std::string_view field) {
        try {
            gpu::l2_dram_timing<> m(gpu::timing_params{.latency = bad});
            FAIL("no config_error for " << field);
        } catch (const config_error& e) {
            CHECK(e.parameter() == field);
        }
    };
    throws_on({.l1_hit_cycles = 0}, "l1_hit_cycles");
    throws_on({.l1_hit_cycles = 121}, "l1_hit_cycles");
    throws_on({.to_l2_cycles = 120}, "to_l2_cycles");
    throws_on({.to_l2_cycles = 0}, "to_l2_cycles");
    throws_on({.dram_cycles = 120}, "dram_cycles");
    throws_on({.flit_bytes = 0}, "flit_bytes");
    throws_on({.bank_flits_per_cycle = 0}, "bank_flits_per_cycle");
    CHECK_THROWS_AS(gpu::l2_dram_timing<>(gpu::timing_params{.dram_clock = {0, 1}}), config_error);
    CHECK_THROWS_AS(gpu::l2_dram_timing<>(gpu::timing_params{.overflow_entries = 0}), config_error);
}

// ------------------------------------------------------------------------------ port

TEST_CASE("port: FCFS in 1/65536 cycle; starts are whole cycles, never early") {
    topology::port p;
    CHECK(topology::port::occupancy(std::uint64_t{4}, std::uint64_t{2}) == 2 * 65536);
    CHECK(topology::port::occupancy(std::uint64_t{1}, std::uint64_t{3}) == 21846); // ⌈65536/3⌉
    CHECK(topology::port::occupancy(std::uint64_t{0}, std::uint64_t{2}) == 0);
    CHECK(topology::port::occupancy(128.0, 42.0) == 199729); // ⌈128 / 42 · 65536⌉
    // Idle: starts at its arrival.
    CHECK(p.reserve(100, 65536) == 100);
    // Arrives while busy: starts when the previous one ends.
    CHECK(p.reserve(100, 32768) == 101);
    // Free at 101.5: the next start is rounded up to 102, but the port's own time keeps the
    // half cycle, so two half-cycle requests take one cycle, not two.
    CHECK(p.reserve(101, 32768) == 102);
    CHECK(p.reserve(101, 65536) == 102);
    CHECK(p.free_cycle() == 103);
    // Arriving after it is free: no queueing.
    CHECK(p.reserve(200, 65536) == 200);
    CHECK(p.reservations() == 5);
    CHECK(p.busy_cycles() == doctest::Approx(4.0));
    // Far cycles stay exact (no fixed-point overflow).
    topology::port far;
    CHECK(far.reserve(never - 10, 65536 * 3) == never - 10);
    CHECK(far.reserve(0, 1) == never - 7);
}

TEST_CASE("link_timing: a transfer waits for each link of its route, then travels the hop") {
    const topology::ring r({.nodes = 4, .cycles_per_hop = 32});
    topology::link_timing<topology::ring> links(
        r, {.cycles_per_hop = 32, .link_bytes_per_cycle = 64.0});
    // 0 → 2 crosses links 0 (0→1) and 1 (1→2): unloaded 64 cycles.
    CHECK(links.unloaded_cycles(0, 2) == 64);
    CHECK(links.transfer(0, 2, 1000, 128) == 1064);
    // A second 128 B transfer at the same time waits 2 cycles (128 B / 64 B per cycle) on link
    // 0, reaches node 1 at 1034, where link 1 is free again (1032–1034): arrives at 1066.
    CHECK(links.transfer(0, 2, 1000, 128) == 1066);
    // 1 → 2 at 1032 finds link 1 busy until 1036 (two transfers of 2 cycles from 1032/1034).
    CHECK(links.transfer(1, 2, 1032, 128) == 1036 + 32);
    CHECK(links.transfer(3, 3, 5, 128) == 5);
    CHECK(links.link(0).reservations() == 2);
    CHECK_THROWS_AS(topology::link_timing<topology::ring>(r, {.link_bytes_per_cycle = 0.0}),
                    config_error);
}

// ------------------------------------------------------------------------- T-LAT

TEST_CASE("T-LAT: an L1 hit, an L2 hit and an L2 miss queued behind it in one bank") {
    // 1 SM; latencies 20/40/120/220; 32 B flits at 2 per cycle; flat DRAM of 100 cycles with
    // unlimited bandwidth; the ports idle at t = 1000.
    constexpr std::uint64_t b_line = 0x0;   // bank 0
    constexpr std::uint64_t c_same = 0x80;  // bank 0, another line
    constexpr std::uint64_t c_other = 8192; // bank 1
    REQUIRE(bank_of(b_line) == 0);
    REQUIRE(bank_of(c_same) == 0);
    REQUIRE(bank_of(c_other) == 1);

    for (const bool same_bank : {true, false}) {
        CAPTURE(same_bank);
        auto m = timing_with(flat(100, 1e6));
        std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
        // Warm the L2 with B (an L2 miss at t = 0), well before t = 1000.
        CHECK(m.read(0, 7, line_at(b_line), 128) == never);
        CHECK(m.next_event_cycle() == 140); // bank 40, DRAM 40 → 140
        run_until(m, 999, done);
        REQUIRE(done.size() == 1);
        CHECK(done[0] == std::pair<std::uint64_t, std::uint64_t>{7, 220});
        done.clear();

        // A: the L1 hit is the host's; the helper gives its cycle.
        CHECK(m.latency().l1_hit_ready(1000) == 1020);
        // B: L2 hit, bank busy 1040–1042, data back at 1040 + 80.
        CHECK(m.read(1000, 1, line_at(b_line), 128) == 1120);
        CHECK(m.bank_port(0).free_cycle() == 1042);
        // C: L2 miss.
        const std::uint64_t c = same_bank ? c_same : c_other;
        CHECK(m.read(1000, 2, line_at(c), 128) == never);
        const std::uint64_t bank_start = same_bank ? 1042 : 1040;
        CHECK(m.next_event_cycle() == bank_start + 100); // DRAM completes
        run_until(m, 2000, done);
        REQUIRE(done.size() == 1);
        CHECK(done[0].first == 2);
        // The stalling instruction's warp resumes at the latest of its requests.
        const std::uint64_t resume =
            std::max({std::uint64_t{1020}, std::uint64_t{1120}, done[0].second});
        CHECK(resume == (same_bank ? 1222 : 1220));
        CHECK(m.stats().reads == 3);
        CHECK(m.stats().l2_read_hits == 1);
        CHECK(m.stats().dram_reads == 2);
        CHECK(m.outstanding_reads() == 0);
    }
}

TEST_CASE("queueing: requests to one bank serialise by their reply's occupancy") {
    auto m = timing_with(flat(100, 1e6));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
    // Twelve lines of bank 0, read once (misses) and again at t = 5000 (L2 hits).
    for (std::uint64_t i = 0; i < 12; ++i) CHECK(m.read(0, i, line_at(i * 128), 128) == never);
    run_until(m, 4999, done);
    CHECK(done.size() == 12);
    // 128 B replies: 4 flits at 2 per cycle, 2 cycles each: the i-th is back at 5120 + 2i.
    for (std::uint64_t i = 0; i < 12; ++i)
        CHECK(m.read(5000, 100 + i, line_at(i * 128), 128) == 5120 + 2 * i);
    // 32 B replies: half a cycle each (the port keeps the fraction), from 6040.
    const std::vector<std::uint64_t> want = {6120, 6121, 6121, 6122, 6122, 6123};
    for (std::uint64_t i = 0; i < want.size(); ++i)
        CHECK(m.read(6000, 200 + i, line_at(i * 128), 32) == want[i]);
    // Another bank is not delayed by bank 0's queue.
    CHECK(m.read(6000, 300, line_at(8192), 128) == never);
    CHECK(m.next_event_cycle() == 6140);
    // Stores hold the bank too, and nobody waits on them: a store of 128 B at 7000 pushes a
    // following load's start to 7042 (a hit: back at 7122).
    run_until(m, 6999, done);
    m.write(7000, line_at(0, 0, access_kind::store), 128);
    CHECK(m.read(7000, 400, line_at(128), 128) == 7122);
}

TEST_CASE("queueing matches a reference FCFS model of the bank ports, MSHRs and flat partitions") {
    // Independent model: per bank a port whose free time is kept in half cycles (a flit takes
    // half a cycle), per partition a pipe in 1/65536 cycle (flat_memory's documented rounding:
    // 128 B at 42 B per cycle occupy ⌈128 · 65536 / 42⌉ units); only L2 misses of distinct
    // lines, so every read is a fill. With E MSHRs per bank the j-th fill of a bank waits for
    // the (j − E)-th to complete (a flat partition completes in arrival order, so that one
    // frees the first entry): it arrives at max(bank start, that completion).
    for (const std::uint32_t entries : {4096u, 64u, 5u}) {
        CAPTURE(entries);
        auto m = timing_with(flat(100, 42.0), {.mshr_entries = entries});
        constexpr std::uint64_t unit = 65536, pipe_occupancy = (128 * unit + 41) / 42;
        xoshiro256ss rng(11);
        std::vector<std::uint64_t> port_free_halves(6, 0), pipe_free(6, 0);
        std::vector<std::vector<std::uint64_t>> fills_done(6);
        std::map<std::uint64_t, std::uint64_t> expected;
        std::uint64_t t = 100;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
        for (std::uint64_t tag = 0; tag < 3000; ++tag) {
            t += rng() % 3;
            const std::uint64_t address = tag * 128 * 7 % (64u << 20); // distinct lines
            const std::uint32_t bytes = 32u * static_cast<std::uint32_t>(1 + rng() % 4);
            const std::uint32_t b = bank_of(address);
            run_until(m, t, done);
            const std::uint64_t start_halves = std::max(2 * (t + 40), port_free_halves[b]);
            port_free_halves[b] = start_halves + bytes / 32; // one flit = half a cycle
            std::uint64_t arrival = (start_halves + 1) / 2;
            auto& fills = fills_done[b];
            if (fills.size() >= entries) arrival = std::max(arrival, fills[fills.size() - entries]);
            const std::uint64_t dram_start = std::max(arrival * unit, pipe_free[b]);
            pipe_free[b] = dram_start + pipe_occupancy;
            fills.push_back((dram_start + unit - 1) / unit + 100);
            expected[tag] = fills.back() + 80;
            REQUIRE(m.read(t, tag, line_at(address, 3), bytes) == never);
        }
        run_until(m, never - 1, done);
        REQUIRE(done.size() == expected.size());
        std::uint64_t mismatches = 0;
        for (const auto& [tag, ready] : done) mismatches += ready != expected[tag];
        CHECK(mismatches == 0);
        CHECK(m.stats().dram_reads == 3000);
        CHECK(m.stats().merged_reads == 0);
        // 3000 reads over about 3000 cycles, 500 per bank, a fill every 6 cycles per bank at
        // 220 cycles: about 37 in flight per bank on average, so 64 MSHRs never fill and 5 do.
        if (entries >= 64) CHECK(m.stats().mshr_waits == 0);
        if (entries == 5) CHECK(m.stats().mshr_waits > 2000);
        MESSAGE("MSHRs " << entries << ": " << m.stats().mshr_waits << " fills waited");
    }
}

// ------------------------------------------------------------------------------ MSHRs

TEST_CASE("MSHR merging: a read of a line whose fill is in flight waits for that fill") {
    // Flat DRAM of 100 cycles, unlimited bandwidth; the ports idle.
    auto m = timing_with(flat(100, 1e6));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
    // Two reads of line 0, 10 cycles apart: the first misses (bank 1040–1042, DRAM 1040–1140);
    // the second starts at the bank at 1050, finds the fill in flight and waits for it: back
    // at the fill's 1140 + its own 80, not at 1010 + 120 as an L2 hit.
    CHECK(m.read(1000, 1, line_at(0x00), 128) == never);
    CHECK(m.read(1010, 2, line_at(0x40), 128) == never); // same 128 B line
    CHECK(m.stats().dram_reads == 1);
    CHECK(m.stats().merged_reads == 1);
    CHECK(m.stats().l2_read_hits == 0);
    CHECK(m.controller(0).pending() == 1); // one DRAM read
    CHECK(m.fills_in_flight(0) == 1);
    CHECK(m.outstanding_reads() == 2);
    CHECK(m.next_event_cycle() == 1140);
    run_until(m, 1140, done);
    CHECK(done == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{1, 1220}, {2, 1220}});
    CHECK(m.stats().completed == 2);
    CHECK(m.fills_in_flight(0) == 0);
    // A read the host issues behind the memory's time, starting at the bank at 1090 (before
    // the fill it already reported): the fill's cycle is known, so its ready cycle is given
    // at once.
    CHECK(m.read(1050, 3, line_at(0x00), 128) == 1140 + 80);
    // After the fill: an L2 hit at its own bank start, 1150 + 80.
    CHECK(m.read(1110, 4, line_at(0x00), 128) == 1230);
    CHECK(m.stats().merged_reads == 2);
    CHECK(m.stats().l2_read_hits == 1);
    CHECK(m.stats().dram_reads == 1);
    CHECK(m.controller(0).stats().reads == 1);
    CHECK(m.outstanding_reads() == 0);
    CHECK(m.next_event_cycle() == never);

    // Line 0x80: a read that starts at the bank at 2145, after the fill completed at 2140 but
    // before the host advanced past it, still takes its data from the fill: its own 2145 + 80.
    done.clear();
    CHECK(m.read(2000, 5, line_at(0x80), 128) == never);
    CHECK(m.read(2105, 6, line_at(0x80), 128) == never);
    run_until(m, never - 1, done);
    CHECK(done == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{5, 2220}, {6, 2225}});
    CHECK(m.stats().merged_reads == 3);
    CHECK(m.stats().dram_reads == 2);
}

TEST_CASE("MSHR merging: stores to a line in flight need no second fill; reads wait on a store's") {
    auto m = timing_with(flat(100, 1e6));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
    // Line 0x000: a read miss, then a 4 B store to it 3 cycles later: no write-allocate read.
    CHECK(m.read(1000, 1, line_at(0x000), 128) == never);    // bank 1040–1042 → 1140
    m.write(1003, line_at(0x010, 0, access_kind::store), 4); // bank 1043
    CHECK(m.stats().fill_reads == 0);
    CHECK(m.stats().merged_writes == 1);
    // Line 0x080: a 4 B store misses (its write-allocate fill arrives at its bank start, 1044),
    // then a read of it (bank start 1045) waits on that fill: back at 1044 + 100 + 80.
    m.write(1004, line_at(0x080, 0, access_kind::store), 4);
    CHECK(m.stats().fill_reads == 1);
    CHECK(m.read(1005, 2, line_at(0x0c0), 128) == never);
    CHECK(m.stats().merged_reads == 1);
    CHECK(m.stats().dram_reads == 1);
    CHECK(m.controller(0).pending() == 2);
    run_until(m, never - 1, done);
    CHECK(done ==
          std::vector<std::pair<std::uint64_t, std::uint64_t>>{{1, 1220}, {2, 1044 + 100 + 80}});
    CHECK(m.controller(0).stats().reads == 2);
}

TEST_CASE("MSHR full: a fill waits for a free entry, in order, and nothing is dropped") {
    auto m = timing_with(flat(100, 1e6), {.mshr_entries = 2});
    std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
    // Warm line 0x1000 (bank 0) long before.
    CHECK(m.read(0, 9, line_at(0x1000), 128) == never);
    run_until(m, 999, done);
    done.clear();
    // At t = 1000, bank 0: lines A, B, C, C again and the warm line; bank starts 1040, 1042,
    // 1044, 1046, 1048. A and B take the two MSHRs (DRAM done 1140, 1142); C finds none and
    // waits; the second C merges into C's waiting fill; the warm line is an L2 hit, not held
    // up by the full table.
    CHECK(m.read(1000, 0, line_at(0x000), 128) == never);
    CHECK(m.read(1000, 1, line_at(0x080), 128) == never);
    CHECK(m.read(1000, 2, line_at(0x100), 128) == never);
    CHECK(m.stats().mshr_waits == 1);
    CHECK(m.fills_in_flight(0) == 2);
    CHECK(m.fills_waiting(0) == 1);
    CHECK(m.controller(0).pending() == 2);
    CHECK(m.read(1000, 3, line_at(0x140), 128) == never);
    CHECK(m.stats().merged_reads == 1);
    CHECK(m.read(1000, 4, line_at(0x1000), 128) == 1048 + 80);
    // A's completion at 1140 frees an entry: C's fill arrives then and completes at 1240;
    // both reads of C are back at 1240 + 80.
    run_until(m, never - 1, done);
    CHECK(done == std::vector<std::pair<std::uint64_t, std::uint64_t>>{
                      {0, 1220}, {1, 1222}, {2, 1320}, {3, 1320}});
    CHECK(m.stats().mshr_waits == 1);
    CHECK(m.stats().dram_reads == 4); // the warm-up, A, B, C
    CHECK(m.fills_waiting(0) == 0);
    CHECK(m.outstanding_reads() == 0);

    // A host that advances in one call, far past the first completion, gets the same cycles:
    // the waiting fill is sent when the entry frees, not at the call's cycle.
    auto once = timing_with(flat(100, 1e6), {.mshr_entries = 1});
    for (std::uint64_t k = 0; k < 4; ++k)
        REQUIRE(once.read(1000, k, line_at(k * 128), 128) == never); // starts 1040 + 2k
    CHECK(once.fills_waiting(0) == 3);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> at_once;
    once.advance_to(
        100000, [&](std::uint64_t tag, std::uint64_t ready) { at_once.emplace_back(tag, ready); });
    CHECK(at_once == std::vector<std::pair<std::uint64_t, std::uint64_t>>{
                         {0, 1220}, {1, 1320}, {2, 1420}, {3, 1520}});
}

TEST_CASE("controller requests per line: DRAM bursts, flat partitions, an override") {
    // flat_memory has no DRAM timing: one request per line (it moves its own request_bytes).
    auto flat_timing = timing_with(flat(100, 1e6));
    CHECK(flat_timing.requests_per_line() == 1);
    CHECK(flat_timing.dram_request_bytes() == 128);
    // An explicit 32 B: four requests per line, consecutive addresses; the data is back when
    // the last completes.
    auto m = timing_with(
        {.latency_cycles = 100, .bytes_per_cycle = 32.0, .request_bytes = 32, .capacity = 64},
        {.dram_request_bytes = 32});
    CHECK(m.requests_per_line() == 4);
    REQUIRE(m.read(1000, 7, line_at(8192 * 6 + 0x80), 128) == never); // bank 0, local 8192 + 128
    CHECK(m.controller(0).pending() == 4);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
    run_until(m, never - 1, done);
    // Each 32 B request holds the pipe 1 cycle: starts 1040 … 1043, done 1140 … 1143.
    CHECK(done == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{7, 1143 + 80}});
    CHECK(m.controller(0).stats().reads == 4);
    CHECK(m.controller(0).stats().bytes == 128);
    // DDR4's burst is 64 B.
    gpu::l2_dram_timing<ddr4_controller> ddr4({}, [](std::uint32_t) { return make_ddr4(); });
    CHECK(ddr4.requests_per_line() == 2);
    CHECK(ddr4.dram_request_bytes() == 64);
    CHECK_THROWS_AS(timing_with(flat(100, 1e6), {.dram_request_bytes = 48}), config_error);
    CHECK_THROWS_AS(timing_with(flat(100, 1e6), {.mshr_entries = 0}), config_error);
    CHECK_THROWS_AS(timing_with(flat(100, 1e6), {.mshr_waiters = 0}), config_error);
}

// ---------------------------------------------------------------- protocol properties

TEST_CASE("random host streams: MP2 at every controller, each read reported once, never early") {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        // A small DRAM queue (8) makes queue_full and the overflow rings part of the run.
        gpu::l2_dram_timing<recording_controller<memory::flat_memory>> m({}, [](std::uint32_t) {
            return recording_controller<memory::flat_memory>(
                memory::flat_memory(gpu::table_3_1_flat_dram({}, 8)));
        });
        const auto stream = random_stream(seed, 20000);
        const stream_outcome o = play(m, stream);
        check_protocol(m, o, 220);
        CHECK(m.requests_per_line() == 1);
        CHECK(m.stats().overflowed > 0);
        CHECK(m.stats().l2_read_hits > 0);
        CHECK(m.stats().dram_writes > 0); // dirty victims
        CHECK(m.stats().fill_reads > 0);  // store write-allocate misses
        MESSAGE("reads " << m.stats().reads << ": " << m.stats().l2_read_hits << " hits, "
                         << m.stats().merged_reads << " merged, " << m.stats().dram_reads
                         << " DRAM; " << m.stats().mshr_waits << " fills waited for an MSHR");
    }
}

TEST_CASE("random host streams with merging and full MSHR tables: each read reported once") {
    // A 1 MB footprint (8192 lines, over the L2's 6144) keeps lines in flight when they are
    // touched again; 3 MSHRs per bank and tiny pools make fills wait for entries and the pools
    // grow; a 4-entry DRAM queue keeps the overflow rings busy.
    for (const std::uint64_t seed : {21u, 22u, 23u}) {
        CAPTURE(seed);
        gpu::l2_dram_timing<recording_controller<memory::flat_memory>> m(
            {.overflow_entries = 2, .mshr_entries = 3, .mshr_waiters = 2}, [](std::uint32_t) {
                return recording_controller<memory::flat_memory>(
                    memory::flat_memory(gpu::table_3_1_flat_dram({}, 4)));
            });
        const auto stream = random_stream(seed, 20000, 1u << 20);
        const stream_outcome o = play(m, stream);
        check_protocol(m, o, 220);
        CHECK(m.stats().merged_reads > 100);
        CHECK(m.stats().merged_writes > 10);
        CHECK(m.stats().mshr_waits > 1000);
        CHECK(m.stats().mshr_growths > 0);
        CHECK(m.stats().overflowed > 0);
        MESSAGE("reads " << m.stats().reads << ": " << m.stats().l2_read_hits << " hits, "
                         << m.stats().merged_reads << " merged, " << m.stats().dram_reads
                         << " DRAM; " << m.stats().mshr_waits << " fills waited for an MSHR");
    }
}

TEST_CASE("a DDR4 FR-FCFS controller in its own clock: MP2, every read once, no latency shrinks") {
    // DDR4-2400 (tCK 0.833 ns) under a 700 MHz core: 12 controller cycles per 7 core cycles.
    const auto ratio = gpu::clock_ratio::of_clocks(0.7, 0.833);
    CHECK(ratio.controller_cycles == 12);
    CHECK(ratio.core_cycles == 7);
    CHECK(ratio.to_controller_up(1040) == 1783); // ⌈1040 · 12/7⌉ = ⌈1782.86⌉
    CHECK(ratio.to_controller_down(1040) == 1782);
    CHECK(ratio.to_core_up(1783) == 1041); // ⌈1783 · 7/12⌉ = ⌈1040.08⌉
    CHECK(ratio.to_core_up(never) == never);

    // One read, by hand: the same request on a standalone controller fixes the DRAM time.
    {
        gpu::l2_dram_timing<ddr4_controller> m({.dram_clock = ratio},
                                               [](std::uint32_t) { return make_ddr4(); });
        const std::uint64_t address = 3 * 8192 * 6 + 256; // bank 0, local address 3 · 8192 + 256
        CHECK(decltype(m)::local_address(byte_address{address}).value == 3 * 8192 + 256);
        // DDR4's 64 B bursts: the 128 B line is two controller requests, consecutive
        // addresses, arriving together; its data is back when the later one completes.
        CHECK(m.requests_per_line() == 2);
        CHECK(m.dram_request_bytes() == 64);
        REQUIRE(m.read(1000, 5, line_at(address), 128) == never);
        CHECK(m.controller(0).pending() == 2);
        auto alone = make_ddr4();
        for (const std::uint64_t offset : {0u, 64u})
            REQUIRE(alone.enqueue({.id = 5,
                                   .address = byte_address{3 * 8192 + 256 + offset},
                                   .arrival_cycle = 1783}) == memory::enqueue_result::accepted);
        std::vector<std::uint64_t> dram_done;
        while (alone.next_event_cycle() != never) {
            alone.advance_to(alone.next_event_cycle());
            alone.drain([&](const memory::completion& k) { dram_done.push_back(k.done_cycle); });
        }
        REQUIRE(dram_done.size() == 2);
        // Empty bank: tRCD 16 + tCL 16 + BL/2 4 = 36; the second burst, a row hit in the same
        // bank group, reads tCCD_L 6 later.
        CHECK(dram_done[0] - 1783 == 36);
        CHECK(dram_done[1] - 1783 == 42);
        std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
        run_until(m, never - 1, done);
        REQUIRE(done.size() == 1);
        // ⌈dram_done · 7/12⌉ + 80 of the later burst; and not less than the unrounded path (no
        // shrinking).
        CHECK(done[0].second == (dram_done[1] * 7 + 11) / 12 + 80);
        CHECK(done[0].second == 1145);
        CHECK(done[0].second >= 1000 + 40 + 42 * 7 / 12 + 80);
        CHECK(m.controller(0).stats().reads == 2);
    }
    // Random streams with a 4-entry queue.
    for (const std::uint64_t seed : {4u, 5u}) {
        CAPTURE(seed);
        gpu::l2_dram_timing<recording_controller<ddr4_controller>> m(
            {.dram_clock = ratio},
            [](std::uint32_t) { return recording_controller<ddr4_controller>(make_ddr4(4)); });
        const auto stream = random_stream(seed, 8000);
        const stream_outcome o = play(m, stream);
        // Unloaded: 40 to the bank, at least one core cycle in DRAM (a read forwarded from the
        // write queue takes 1 tCK, rounded up to a core cycle), 80 back.
        check_protocol(m, o, 40 + 1 + 80);
        CHECK(m.requests_per_line() == 2);
        CHECK(m.stats().overflowed > 0);
    }
}

TEST_CASE("queue_full: a two-entry DRAM queue still completes every read, in order") {
    auto m = timing_with(flat(100, 1e6, 2));
    for (std::uint64_t k = 0; k < 50; ++k)
        REQUIRE(m.read(1000, k, line_at(k * 128), 128) == never); // bank 0, starts 1040 + 2k
    CHECK(m.stats().overflowed == 48);
    CHECK(m.overflowing(0) == 48);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
    run_until(m, never - 1, done);
    REQUIRE(done.size() == 50);
    // Request k waits for k − 2 to leave the queue: by hand, 0 → 1140, 1 → 1142, 2 starts at
    // 1140 → 1240, 3 at 1142 → 1242, …: done = 1040 + 100 (k/2 + 1) + 2 (k mod 2), +80 back.
    for (std::uint64_t k = 0; k < 50; ++k) {
        CAPTURE(k);
        CHECK(done[k].first == k);
        CHECK(done[k].second == 1040 + 100 * (k / 2 + 1) + 2 * (k % 2) + 80);
    }
    CHECK(m.overflowing(0) == 0);
    CHECK(m.stats().overflow_growths == 0);

    // A host that advances in one call, far past the first completion, gets the same cycles:
    // each waiting request is retried when a completion frees room, not at the call's cycle.
    auto once = timing_with(flat(100, 1e6, 2));
    for (std::uint64_t k = 0; k < 50; ++k)
        REQUIRE(once.read(1000, k, line_at(k * 128), 128) == never);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> at_once;
    once.advance_to(
        100000, [&](std::uint64_t tag, std::uint64_t ready) { at_once.emplace_back(tag, ready); });
    CHECK(at_once == done);
    CHECK(once.next_event_cycle() == never);
}

TEST_CASE("queue_full: an overflow ring that fills doubles and loses nothing") {
    auto m = timing_with(flat(100, 1e6, 1), {.overflow_entries = 2});
    for (std::uint64_t k = 0; k < 20; ++k) REQUIRE(m.read(1000, k, line_at(k * 128), 128) == never);
    CHECK(m.stats().overflow_growths == 4); // 2 → 4 → 8 → 16 → 32 for 19 waiting
    std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
    run_until(m, never - 1, done);
    REQUIRE(done.size() == 20);
    for (std::uint64_t k = 0; k < 20; ++k) CHECK(done[k] == std::pair{k, 1140 + 100 * k + 80});
}

// ------------------------------------------------------------------------------ T-SLOW

TEST_CASE("T-SLOW: slower DRAM slows a stream of misses in proportion; L2 hits are unaffected") {
    // 600 distinct lines, one issued per cycle from t = 0, round robin over the six banks
    // (line i in bank i mod 6, set (i / 6) mod 64), then the first 96 again (L2 hits) at
    // t = 100000.
    auto address = [](std::uint64_t i) { return i * 8192 + i / 6 % 64 * 128; };
    auto run = [&](const memory::flat_memory::params& dram, std::uint32_t mshr_entries) {
        auto m = timing_with(dram, {.mshr_entries = mshr_entries});
        std::vector<std::pair<std::uint64_t, std::uint64_t>> done;
        for (std::uint64_t i = 0; i < 600; ++i) {
            run_until(m, i, done);
            REQUIRE(m.read(i, i, line_at(address(i)), 128) == never);
        }
        run_until(m, 99999, done);
        REQUIRE(done.size() == 600);
        double latency = 0;
        for (const auto& [tag, ready] : done) latency += static_cast<double>(ready - tag);
        std::vector<std::uint64_t> hits;
        for (std::uint64_t i = 0; i < 96; ++i)
            hits.push_back(m.read(100000, 1000 + i, line_at(address(i)), 128));
        return std::pair{latency / 600.0, hits};
    };
    const auto base = gpu::table_3_1_flat_dram();
    auto slow = base;
    slow.latency_cycles *= 10;
    slow.bytes_per_cycle /= 4;
    // 128 MSHRs per bank hold all 100 fills of a bank at once: the DRAM alone sets the time.
    const auto [fast_latency, fast_hits] = run(base, 128);
    const auto [slow_latency, slow_hits] = run(slow, 128);
    // Reference by hand: per bank 100 requests 6 cycles apart (one per cycle over six banks);
    // at 42.1 B/cycle a 128 B line takes 3.04 cycles (< 6): no DRAM queueing, mean latency =
    // 220 + bank queueing (0). At 10.5 B/cycle it takes 12.2 cycles: the k-th of a bank waits
    // about 6.2 k, mean ≈ 6.2 · 49.5 ≈ 306 plus the unloaded 1120.
    CHECK(fast_latency == doctest::Approx(220.0).epsilon(0.01));
    CHECK(slow_latency == doctest::Approx(1120.0 + 6.17 * 49.5).epsilon(0.02));
    CHECK(slow_latency > 5.0 * fast_latency);
    CHECK(fast_hits == slow_hits);
    for (std::uint64_t i = 0; i < 96; ++i) CHECK(fast_hits[i] != never);

    // The default 64 MSHRs: the fast DRAM keeps about 220 / 6 ≈ 37 fills of a bank in flight
    // and never fills them; the slow one needs 1120 / 6 ≈ 187, so fill k ≥ 64 of a bank waits
    // for fill k − 64 to complete and then takes the unloaded 1000: done_k ≈ 2040 + 12.17
    // (k − 64) against 1040 + 12.17 k for k < 64. Mean latency by hand: (64 · (1120 + 6.17 ·
    // 31.5) + 36 · (2120 + 12.17 · 17.5 − 6 · 81.5)) / 100 ≈ 1505 (the bank-port offsets of
    // the six banks add under a cycle).
    const auto [fast_64, fast_64_hits] = run(base, 64);
    const auto [slow_64, slow_64_hits] = run(slow, 64);
    CHECK(fast_64 == fast_latency);
    CHECK(slow_64 ==
          doctest::Approx((64 * (1120 + 6.17 * 31.5) + 36 * (2120 + 12.17 * 17.5 - 6 * 81.5)) / 100)
              .epsilon(0.01));
    CHECK(slow_64 > slow_latency + 50);
    CHECK(slow_64_hits == slow_hits);
}

// ------------------------------------------------------------------------- determinism

TEST_CASE("determinism: the same stream gives the same completions, in the same order") {
    const auto stream = random_stream(9, 15000);
    auto make = [] {
        return gpu::l2_dram_timing<recording_controller<memory::flat_memory>>(
            {}, [](std::uint32_t) {
                return recording_controller<memory::flat_memory>(
                    memory::flat_memory(gpu::table_3_1_flat_dram({}, 16)));
            });
    };
    auto a = make();
    auto b = make();
    const stream_outcome oa = play(a, stream);
    const stream_outcome ob = play(b, stream);
    CHECK(oa.reported == ob.reported);
    CHECK(oa.ready_now == ob.ready_now);
    CHECK(oa.reported.size() > 1000);
    // A different stream gives different completions (the comparison can fail).
    auto c = make();
    const stream_outcome oc = play(c, random_stream(10, 15000));
    CHECK(oc.reported != oa.reported);
}
