// memsub — GPU time from the memory system: when a line request's data is back at its SM, on
// Table 3.1's memory side ([Dissertation] Table 3.1): the six-bank L2 of
// gpu/l2.hpp, each bank with an FCFS data port, over one DRAM controller per bank. Time stays
// the host's (no cache has a clock): the host issues warp instructions, gives each line request
// that leaves its L1 to `read` or `write` with the issue cycle, and advances the memory side
// between issues; queueing happens at the bank ports and in the controllers.
//
// How one request's latency composes (t = issue cycle, F = ⌈reply bytes / flit⌉):
//   * L1 hit: t + l1_hit_cycles (the host's L1; `latency_params::l1_hit_ready`).
//   * L1 miss or bypass: the request reaches its L2 bank at t + to_l2_cycles and reserves the
//     bank's port for F / bank_flits_per_cycle cycles (FCFS in issue order: the reply's flits
//     leave through it, so a smaller fetch, such as ID-Cache's, holds the bank for less);
//     s = the start of that reservation.
//       - Fill owed (the bank's MSHRs hold the line: its DRAM fill is in flight, waits for an
//         MSHR, or completed after s): no DRAM read; data back at max(s, the fill's
//         completion) + (l2_hit_cycles − to_l2_cycles), reported through `advance_to` with the
//         read's own tag, or returned at once when the completion is already known.
//       - L2 hit: data back at s + (l2_hit_cycles − to_l2_cycles); unloaded t + 120.
//       - L2 miss: the line's fill takes an MSHR and its DRAM read arrives at the bank's
//         partition at s; data back at the controller's completion + (l2_hit_cycles −
//         to_l2_cycles); unloaded with the default flat DRAM t + 40 + 100 + 80 = t + 220
//         (`dram_cycles`). `read` returns memsub::never and `advance_to` reports the
//         completion later, with the host's tag. With every MSHR of the bank taken, the fill
//         waits (FIFO) and arrives when a completion frees one.
//   * Store: reserves its bank the same way; nobody waits. An L2 write-allocate miss with no
//     fill owed reads DRAM (through an MSHR, like a load's), and every dirty L2 victim (of a
//     load or a store) is a DRAM write at s.
//   * A line is line_bytes / request bytes controller requests at consecutive addresses, all
//     arriving together (DDR4's 64 B bursts: two); its fill completes with the last of them.
// Arrivals at each controller are the starts of its bank's reservations, which never decrease
// whatever the issue order (a reservation starts no earlier than the previous one ends), or,
// for a fill that waited for an MSHR, the cycle one freed; a request sent after such a fill
// arrives no earlier than it, so the controllers' MP2 (memory/concept.hpp) holds by
// construction.
//
// Usage (a host whose scheduler takes completions; tag = the waiting warp):
//   gpu::l2_dram_timing<> memory;  // Table 3.1 with flat DRAM partitions
//   load, L1 hit:  ready = memory.latency().l1_hit_ready(t);
//   load, L1 miss: ready = memory.read(t, warp, line, l1_result.bytes_fetched);
//                  if (ready == memsub::never) the warp waits for a completion;
//   store:         memory.write(t, line, bytes);
//   blocked:       memory.advance_to(memory.next_event_cycle(), on_completion);
//                  on_completion(tag, ready) hands the warp its data's cycle.
// A request a controller rejects for good (MC2 `rejected`) is lost: `stats().rejected` (a
// lost fill keeps its MSHR and its waiting reads).
//
// Decisions:
//   * Decision: one DRAM partition per L2 bank (memory-side L2 slices, as GPGPU-Sim's
//     memory partitions each hold an L2 slice); a partition's controller sees the partition's
//     own dense address space (the 8 KB granules of its bank, packed), so a mapping's row and
//     bank bits are not spent on the partition index. Considered: one controller for all six
//     banks, which would leave the bank ports as the only parallelism.
//   * A controller's `queue_full` is absorbed by a per-partition overflow ring, sized at
//     construction (`overflow_entries`), which keeps each request's arrival (MP2 allows it)
//     and is retried, in order, at every controller event `advance_to` passes. A host that
//     outgrows it (a store flood while the DRAM queue stays full) makes it double, an
//     allocation outside the steady state counted in `stats().overflow_growths`: chosen over
//     dropping a request (a lost read would leave its warp waiting for ever) or throwing on the
//     hot path.
//   * MSHRs (`mshr_entries` per bank, 64: see timing_params): a fill that finds them all
//     taken waits in a FIFO and is sent when a completion frees one, at that completion's
//     cycle; later fills of the bank queue behind it, but L2 hits and reads merged into a
//     waiting fill do not (the bank's port is not held: GPGPU-Sim stalls its L2 input queue
//     instead, which also delays hits behind a miss). Chosen over dropping or retrying the
//     request (a host would have to resend it). Merges per MSHR are not limited: GPGPU-Sim's
//     limit (4) stalls the fifth request until the fill returns, and then it hits, the same
//     ready cycle as merging here. The waiting reads and lines live in per-bank pools sized at
//     construction (`mshr_waiters`) that double if outgrown (`stats().mshr_growths`).
//   * A bank keeps its last `mshr_entries` completed fills, so a host that issues behind the
//     memory's time (a request whose bank start precedes a fill already reported) still waits
//     for that fill rather than hitting early; one older than that hits at its bank start.
//   * Tags are the host's, any 64-bit value: controller requests carry the fill's MSHR index
//     (the waiting tags stay in the bank's MSHRs), victims' writes a fixed id.
//   * A load's demand read is sent before its dirty victim's write (the warp waits for the
//     read; an FR-FCFS controller may still reorder them).
//   * Controllers that count in their own clock (memory::dram_controller, in tCK) get a
//     core → controller `clock_ratio`; arrivals, completions and the next event are rounded
//     up to the next cycle of the other clock (and `advance_to` down), so no latency shrinks.
//   * Requests per line: a controller with a DRAM timing moves one burst per request
//     (`parameters().timing.burst_bytes()`), so a 128 B line is 128 / burst requests;
//     flat_memory, which has no burst, gets one request per line (it moves its own
//     `request_bytes`, the line in `table_3_1_flat_dram`); `dram_request_bytes` overrides
//     both (a controller wrapped in a type without `parameters()`).
// Deviations:
//   * The L2's contents are updated when the request is issued (a miss installs its line at
//     once); the MSHRs, not the L2, say whether its data is there yet.
//   * Completions are reported when `advance_to` passes the DRAM completion; the ready cycle
//     they carry (+ the return to the SM) is later than that, and the host applies it.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/gpu/detail/line_index.hpp>
#include <memsub/gpu/l2.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/detail/ring_buffer.hpp>
#include <memsub/memory/flat_memory.hpp>
#include <memsub/topology/link_timing.hpp>

namespace memsub::gpu {

using topology::port;

/// Latencies of the Table 3.1 machine, in core cycles, and the L2 banks' data ports.
struct latency_params {
    /// Decision: L1 hit latency 20: no source gives one (Table 3.1 lists the L2's and DRAM's
    /// minima only). Decision: 20 cycles, GPGPU-Sim's Fermi-class L1 data-cache latency order;
    /// the constant-latency scheduler's 120 for every load was the alternative, which makes an
    /// L1 hit cost as much as an L2 hit. Print it with the results; sweep it to see what holds.
    std::uint32_t l1_hit_cycles = 20;
    /// Decision: from issue to the L2 bank, part of the L2's 120 (the rest is the return).
    std::uint32_t to_l2_cycles = 40;
    /// [Dissertation] Table 3.1: "Min. L2 Access Latency 120 cycles".
    std::uint32_t l2_hit_cycles = 120;
    /// [Dissertation] Table 3.1: "Min. DRAM Access Latency 220 cycles" (the default flat DRAM gets
    /// dram_cycles − l2_hit_cycles = 100).
    std::uint32_t dram_cycles = 220;
    /// [Dissertation] §3.1 (Fig. 3.1's text): the interconnect moves "32B Flits".
    std::uint32_t flit_bytes = 32;
    /// Decision: flits an L2 bank's port moves per cycle: 2 (64 B/cycle per bank, 384 B for
    /// six, above the DRAM's 253 B/cycle so the DRAM stays the bottleneck it is on Fermi).
    std::uint32_t bank_flits_per_cycle = 2;

    /// When an L1 hit issued at `issue_cycle` has its data.
    [[nodiscard]] constexpr std::uint64_t l1_hit_ready(std::uint64_t issue_cycle) const noexcept {
        return issue_cycle + l1_hit_cycles;
    }
    /// Cycles from the L2 bank back to the SM.
    [[nodiscard]] constexpr std::uint32_t l2_return_cycles() const noexcept {
        return l2_hit_cycles - to_l2_cycles;
    }
    /// The DRAM's own unloaded latency (the flat partitions' latency_cycles).
    [[nodiscard]] constexpr std::uint32_t dram_only_cycles() const noexcept {
        return dram_cycles - l2_hit_cycles;
    }
    /// Flits of a reply of `bytes` (⌈bytes / flit_bytes⌉).
    [[nodiscard]] constexpr std::uint64_t flits(std::uint32_t bytes) const noexcept {
        return (std::uint64_t{bytes} + flit_bytes - 1) / flit_bytes;
    }
    /// Occupancy of a bank port by a transfer of `bytes`, in 1/65536 cycle.
    [[nodiscard]] constexpr std::uint64_t bank_occupancy(std::uint32_t bytes) const noexcept {
        return port::occupancy(flits(bytes), bank_flits_per_cycle);
    }

    /// Throws `config_error` naming the first broken rule.
    void validate(std::string_view component) const {
        require(l1_hit_cycles >= 1, component, "l1_hit_cycles", l1_hit_cycles, "must be >= 1");
        require(l1_hit_cycles <= l2_hit_cycles, component, "l1_hit_cycles", l1_hit_cycles,
                "must be <= l2_hit_cycles (" + std::to_string(l2_hit_cycles) + ")");
        require(to_l2_cycles >= 1, component, "to_l2_cycles", to_l2_cycles, "must be >= 1");
        require(to_l2_cycles < l2_hit_cycles, component, "to_l2_cycles", to_l2_cycles,
                "must be < l2_hit_cycles (" + std::to_string(l2_hit_cycles) +
                    "): it is the part before the bank, the rest is the return");
        require(dram_cycles > l2_hit_cycles, component, "dram_cycles", dram_cycles,
                "must be > l2_hit_cycles (" + std::to_string(l2_hit_cycles) + ")");
        require(flit_bytes >= 1, component, "flit_bytes", flit_bytes, "must be >= 1");
        require(bank_flits_per_cycle >= 1, component, "bank_flits_per_cycle", bank_flits_per_cycle,
                "must be >= 1");
    }
};

/// Every latency in one line, for a table header or a CSV comment.
[[nodiscard]] inline std::string describe(const latency_params& l) {
    return "L1 hit " + std::to_string(l.l1_hit_cycles) + ", to L2 " +
           std::to_string(l.to_l2_cycles) + ", L2 hit " + std::to_string(l.l2_hit_cycles) +
           ", DRAM " + std::to_string(l.dram_cycles) + " core cycles; " +
           std::to_string(l.flit_bytes) + " B flits, " + std::to_string(l.bank_flits_per_cycle) +
           " flits/cycle per L2 bank";
}

/// `controller_cycles` controller cycles pass in `core_cycles` core cycles (1:1 for a
/// controller that counts core cycles, as flat_memory does here).
struct clock_ratio {
    std::uint32_t controller_cycles = 1;
    std::uint32_t core_cycles = 1;

    /// The ratio of a controller with clock period `tck_ns` under a core at `core_ghz`: the
    /// fraction with the smallest denominator (up to 1000) within 0.1 % of it. Clock periods are
    /// published rounded (DDR4-2400's tCK "0.833 ns" is 1 / 1.2 GHz): 0.7 GHz and 0.833 ns give
    /// 12 / 7, not 1715 / 1000.
    [[nodiscard]] static clock_ratio of_clocks(double core_ghz, double tck_ns) {
        if (!(core_ghz > 0.0 && core_ghz <= 1e3 && tck_ns > 0.0 && tck_ns <= 1e3))
            throw config_error("memsub::gpu::clock_ratio", "core_ghz / tck_ns",
                               std::to_string(core_ghz) + " / " + std::to_string(tck_ns),
                               "must be finite numbers in (0, 1000]");
        const double x = 1.0 / (tck_ns * core_ghz); // controller cycles per core cycle
        if (!(x >= 1e-3 && x <= 1e3))
            throw config_error("memsub::gpu::clock_ratio", "core_ghz / tck_ns",
                               std::to_string(core_ghz) + " / " + std::to_string(tck_ns),
                               "must give 0.001 to 1000 controller cycles per core cycle");
        for (std::uint32_t den = 1;; ++den) {
            const double num = std::max(1.0, std::round(x * den));
            if (std::abs(num / den - x) <= 1e-3 * x || den == 1000)
                return {.controller_cycles = static_cast<std::uint32_t>(num), .core_cycles = den};
        }
    }
    /// The first controller cycle at or after core cycle `core` (an arrival).
    [[nodiscard]] constexpr std::uint64_t to_controller_up(std::uint64_t core) const noexcept {
        return scale_up(core, controller_cycles, core_cycles);
    }
    /// The last controller cycle at or before core cycle `core` (how far to advance).
    [[nodiscard]] constexpr std::uint64_t to_controller_down(std::uint64_t core) const noexcept {
        if (core == never || identity()) return core;
        return core / core_cycles * controller_cycles +
               core % core_cycles * controller_cycles / core_cycles;
    }
    /// The first core cycle at or after controller cycle `cycle` (a completion, an event).
    [[nodiscard]] constexpr std::uint64_t to_core_up(std::uint64_t cycle) const noexcept {
        return scale_up(cycle, core_cycles, controller_cycles);
    }
    [[nodiscard]] constexpr bool identity() const noexcept {
        return controller_cycles == core_cycles;
    }

private:
    // ⌈v · num / den⌉ without overflow for num, den < 2^32 (never stays never).
    static constexpr std::uint64_t scale_up(std::uint64_t v, std::uint64_t num,
                                            std::uint64_t den) noexcept {
        if (v == never || num == den) return v; // 1:1 (the flat partitions) costs no division
        return v / den * num + (v % den * num + den - 1) / den;
    }
};

/// Fermi's DRAM bandwidth, [Dissertation] Table 5.1 (GTX480: 177 GB/s).
inline constexpr double fermi_dram_gb_per_s = 177.0;
/// Decision: [GPGPU-Sim]'s GTX480 configuration clocks the SMs at 700 MHz; Table 3.1 gives no
/// clock, and the DRAM bandwidth per core cycle needs one.
inline constexpr double gtx480_core_ghz = 0.7;

/// The default DRAM partition behind each L2 bank: flat latency dram − l2_hit (100 cycles)
/// and the Fermi bandwidth split over the banks, 177 GB/s / 0.7 GHz / 6 = 42.1 B per core
/// cycle, one 128 B line per request.
[[nodiscard]] inline memory::flat_memory::params table_3_1_flat_dram(const latency_params& l = {},
                                                                     std::uint32_t capacity = 256) {
    return {.latency_cycles = l.dram_only_cycles(),
            .bytes_per_cycle = fermi_dram_gb_per_s / gtx480_core_ghz / l2_banks,
            .request_bytes = l2_bank_geometry::line_bytes,
            .capacity = capacity};
}

namespace detail {

/// One L2 bank's miss status holding registers: the lines whose DRAM fill is owed (in flight,
/// or waiting for a free entry), the reads waiting on each, and the fills completed last (a host
/// may issue a request whose bank start precedes a fill already reported). Every pool is sized
/// at construction and doubles only when outgrown (`growths`); a line is found through an
/// open-addressed index with linear probing. No allocation in the steady state.
class line_fill_table {
public:
    static constexpr std::uint32_t none = 0xffffffffu;

    enum class fill_state : std::uint8_t { free, queued, in_flight, filled };

    struct fill {
        std::uint64_t line = 0;       ///< line number (address / line bytes)
        std::uint64_t bank_start = 0; ///< core cycle its first request started at the bank
        std::uint64_t done = 0;       ///< controller cycle its last burst completed
        std::uint32_t requester = 0;
        std::uint32_t bursts_left = 0;
        std::uint32_t first_waiter = none;
        std::uint32_t last_waiter = none;
        std::uint32_t next = none;    ///< the free list or the queue for an entry
        std::uint32_t generation = 0; ///< completions so far (tells stale `recent_` slots)
        fill_state state = fill_state::free;
    };

    struct waiter {
        std::uint64_t tag = 0;
        std::uint64_t bank_start = 0; ///< core cycle the read started at the bank
        std::uint32_t next = none;
    };

    /// `entries` fills in flight at once; room for `waiting` reads (and lines) at first.
    line_fill_table(std::uint32_t entries, std::uint32_t waiting)
        : entries_(entries)
        , recent_(entries) {
        grow_fills(std::size_t{entries} * 2 + waiting);
        grow_waiters(waiting);
    }

    /// The fill owed or last completed for `line`, or `none`.
    [[nodiscard]] std::uint32_t find(std::uint64_t line) const noexcept {
        return index_.find(line, line_of());
    }
    [[nodiscard]] fill& operator[](std::uint32_t f) noexcept { return fills_[f]; }
    [[nodiscard]] const fill& operator[](std::uint32_t f) const noexcept { return fills_[f]; }

    /// A new fill for `line` (not in the table), `queued` until the caller dispatches it.
    std::uint32_t allocate(std::uint64_t line, std::uint64_t& growths) {
        if (free_ == none) reclaim_recent();
        if (free_ == none) {
            ++growths;
            grow_fills(fills_.size() * 2);
        }
        const std::uint32_t f = free_;
        free_ = fills_[f].next;
        fills_[f] =
            fill{.line = line, .generation = fills_[f].generation, .state = fill_state::queued};
        index_.insert(line, f);
        return f;
    }

    void add_waiter(std::uint32_t f, std::uint64_t tag, std::uint64_t bank_start,
                    std::uint64_t& growths) {
        if (free_waiter_ == none) {
            ++growths;
            grow_waiters(waiters_.size() * 2);
        }
        const std::uint32_t w = free_waiter_;
        free_waiter_ = waiters_[w].next;
        waiters_[w] = {.tag = tag, .bank_start = bank_start, .next = none};
        fill& x = fills_[f];
        (x.last_waiter == none ? x.first_waiter : waiters_[x.last_waiter].next) = w;
        x.last_waiter = w;
    }

    /// Calls `each(tag, bank_start)` for the reads waiting on `f`, in arrival order, and frees
    /// them.
    template <class Each>
    void release_waiters(std::uint32_t f, Each&& each) {
        fill& x = fills_[f];
        for (std::uint32_t w = x.first_waiter; w != none;) {
            const waiter v = waiters_[w];
            waiters_[w].next = free_waiter_;
            free_waiter_ = w;
            each(v.tag, v.bank_start);
            w = v.next;
        }
        x.first_waiter = x.last_waiter = none;
    }

    [[nodiscard]] bool has_free_entry() const noexcept { return in_flight_ < entries_; }
    [[nodiscard]] std::uint32_t in_flight() const noexcept { return in_flight_; }
    void mark_in_flight(std::uint32_t f) noexcept {
        fills_[f].state = fill_state::in_flight;
        ++in_flight_;
    }
    /// `f`'s last burst completed: its entry is free; it is kept, as `filled`, among the last
    /// `entries` fills completed.
    void mark_filled(std::uint32_t f) noexcept {
        fill& x = fills_[f];
        x.state = fill_state::filled;
        ++x.generation;
        --in_flight_;
        if (recent_.full()) {
            release_if_filled(recent_.front());
            recent_.pop_front();
        }
        recent_.push_back({f, x.generation});
    }

    /// The queue for a free entry (FIFO).
    void enqueue(std::uint32_t f) noexcept {
        fills_[f].state = fill_state::queued;
        fills_[f].next = none;
        (queue_tail_ == none ? queue_head_ : fills_[queue_tail_].next) = f;
        queue_tail_ = f;
        ++queued_;
    }
    [[nodiscard]] std::uint32_t queued() const noexcept { return queued_; }
    std::uint32_t dequeue() noexcept {
        const std::uint32_t f = queue_head_;
        queue_head_ = fills_[f].next;
        if (queue_head_ == none) queue_tail_ = none;
        --queued_;
        return f;
    }

private:
    struct recent_fill {
        std::uint32_t fill;
        std::uint32_t generation;
    };

    /// The line of a fill, for the index.
    struct fill_line {
        const std::vector<fill>* fills;
        std::uint64_t operator()(std::uint32_t f) const noexcept { return (*fills)[f].line; }
    };
    [[nodiscard]] fill_line line_of() const noexcept { return {&fills_}; }

    // Frees the oldest completed fills until one is free (none left: the caller grows).
    void reclaim_recent() noexcept {
        while (free_ == none && !recent_.empty()) {
            release_if_filled(recent_.front());
            recent_.pop_front();
        }
    }

    // A recent_ slot whose fill has since been reused or completed again is stale.
    void release_if_filled(const recent_fill& r) noexcept {
        fill& x = fills_[r.fill];
        if (x.state != fill_state::filled || x.generation != r.generation) return;
        index_.erase(x.line, r.fill, line_of());
        x.state = fill_state::free;
        x.next = free_;
        free_ = r.fill;
    }

    // Resizes the fill pool to `n` (new fills join the free list) and rebuilds the index at
    // no more than half full.
    void grow_fills(std::size_t n) {
        const auto old = static_cast<std::uint32_t>(fills_.size());
        fills_.resize(n);
        for (auto f = static_cast<std::uint32_t>(n); f-- > old;) {
            fills_[f].next = free_;
            free_ = f;
        }
        index_.reset(n);
        for (std::uint32_t f = 0; f < old; ++f)
            if (fills_[f].state != fill_state::free) index_.insert(fills_[f].line, f);
    }

    void grow_waiters(std::size_t n) {
        const auto old = static_cast<std::uint32_t>(waiters_.size());
        waiters_.resize(n);
        for (auto w = static_cast<std::uint32_t>(n); w-- > old;) {
            waiters_[w].next = free_waiter_;
            free_waiter_ = w;
        }
    }

    std::uint32_t entries_;
    std::uint32_t in_flight_ = 0;
    std::vector<fill> fills_;
    std::vector<waiter> waiters_;
    line_index index_;
    std::uint32_t free_ = none;
    std::uint32_t free_waiter_ = none;
    std::uint32_t queue_head_ = none;
    std::uint32_t queue_tail_ = none;
    std::uint32_t queued_ = 0;
    memory::detail::ring_buffer<recent_fill> recent_;
};

} // namespace detail

/// What the memory side did (requests, not cycles; the ports and controllers keep their own).
/// reads = l2_read_hits + merged_reads + dram_reads.
struct timing_stats {
    std::uint64_t reads = 0;        ///< `read` calls
    std::uint64_t l2_read_hits = 0; ///< of which the L2 held the line, no fill owed
    std::uint64_t dram_reads = 0;   ///< of which missed with no fill owed: a line fill from DRAM
    std::uint64_t writes = 0;       ///< `write` calls
    std::uint64_t fill_reads = 0;   ///< line fills for store write-allocate misses
    std::uint64_t dram_writes = 0;  ///< dirty L2 victims (lines) written to DRAM
    std::uint64_t completed = 0;    ///< waited reads reported through `advance_to`
    std::uint64_t overflowed = 0;   ///< controller requests refused at first (queue_full)
    std::uint64_t overflow_growths = 0; ///< times an overflow ring had to double
    std::uint64_t rejected = 0;         ///< controller requests never accepted (lost)
    std::uint64_t merged_reads = 0;     ///< reads of a line whose fill was owed: no DRAM read
    std::uint64_t merged_writes = 0;    ///< stores to a line whose fill was owed: no second fill
    std::uint64_t mshr_waits = 0;       ///< fills that found every MSHR of their bank taken
    std::uint64_t mshr_growths = 0;     ///< times a bank's fill or waiter pool had to double
};

/// Sizing and clocks of `l2_dram_timing` (latencies in core cycles).
struct timing_params {
    latency_params latency{};
    /// Core → controller clock (1:1 for the flat partitions).
    clock_ratio dram_clock{};
    /// Requests each partition holds while its controller refuses them: Table 3.1's 15 SMs ×
    /// 48 warps × 64 requests, spread over the 6 partitions.
    std::uint32_t overflow_entries = 15 * 48 * 64 / l2_banks;
    /// Line fills each L2 bank has in flight at once (its MSHRs). Decision: 64, GPGPU-Sim's
    /// GTX480 configuration (-gpgpu_cache:dl2 "64:128:8,L:B:m:W:L,A:32:4,4:0,32": 32 MSHRs per
    /// L2 slice, with -gpgpu_n_sub_partition_per_mchannel 2 slices per memory partition of
    /// 128 KB, the size of one bank here). Considered: 32 (one slice's, with half of Fermi's
    /// entries per bank) and no limit (hides the stall that bounds a GPU's memory parallelism).
    std::uint32_t mshr_entries = 64;
    /// Reads each bank holds while they wait on a fill (merged or not), the initial size of its
    /// pool (lines waiting for an MSHR take from a pool of this size too); one that outgrows it
    /// doubles, counted in `stats().mshr_growths`. Table 3.1's 15 SMs × 48 warps × 64 requests
    /// over the 6 banks, as `overflow_entries`.
    std::uint32_t mshr_waiters = 15 * 48 * 64 / l2_banks;
    /// Bytes one controller request moves; a line is line_bytes / this many requests. 0 = the
    /// controller's: its DRAM burst (`parameters().timing.burst_bytes()`: 64 B for DDR4), or the
    /// whole line for a controller without a DRAM timing (flat_memory, whose requests move its
    /// own `request_bytes`).
    std::uint32_t dram_request_bytes = 0;
};

/// The bytes one request to controller `c` moves: its DRAM burst, or 0 when it has none.
template <class Controller>
[[nodiscard]] constexpr std::uint32_t controller_burst_bytes(const Controller& c) noexcept {
    if constexpr (requires {
                      { c.parameters().timing.burst_bytes() } -> std::convertible_to<std::uint32_t>;
                  })
        return c.parameters().timing.burst_bytes();
    else
        return 0;
}

/// Table 3.1's memory side: six L2 banks with their ports and MSHRs, over one `Dram` per bank.
template <memory::memory_controller Dram = memory::flat_memory>
class l2_dram_timing {
public:
    static constexpr std::string_view component = "memsub::gpu::l2_dram_timing";
    static constexpr std::uint32_t partitions = l2_banks;
    static constexpr std::uint32_t line_bytes = l2_bank_geometry::line_bytes;

    /// The default machine: flat DRAM partitions from `table_3_1_flat_dram(p.latency)`.
    l2_dram_timing() requires std::same_as<Dram, memory::flat_memory>
        : l2_dram_timing(timing_params{}) {}
    explicit l2_dram_timing(const timing_params& p) requires std::same_as<Dram, memory::flat_memory>
        : l2_dram_timing(p, [&p](std::uint32_t) {
            return memory::flat_memory(table_3_1_flat_dram(p.latency));
        }) {}

    /// Any controller: `make_controller(partition)` builds partition 0 … 5's.
    template <class MakeController>
    requires std::is_invocable_r_v<Dram, MakeController&, std::uint32_t>
    l2_dram_timing(const timing_params& p, MakeController&& make_controller)
        : p_(validated(p))
        , banks_(partitions)
        , ports_(partitions)
        , next_event_(partitions, never)
        , last_arrival_(partitions, 0) {
        controllers_.reserve(partitions);
        overflow_.reserve(partitions);
        mshrs_.reserve(partitions);
        for (std::uint32_t i = 0; i < partitions; ++i) {
            controllers_.push_back(make_controller(i));
            overflow_.emplace_back(p.overflow_entries);
            mshrs_.emplace_back(p.mshr_entries, p.mshr_waiters);
        }
        std::uint32_t bytes = p.dram_request_bytes;
        if (bytes == 0) bytes = controller_burst_bytes(controllers_[0]);
        if (bytes == 0 || bytes > line_bytes) bytes = line_bytes;
        memsub::require(line_bytes % bytes == 0, component, "dram_request_bytes", bytes,
                        "must divide the 128 B line (or be 0: the controller's burst)");
        request_bytes_ = bytes;
        requests_per_line_ = line_bytes / bytes;
    }

    /// A load's line request (L1 miss or bypass) issued at `issue_cycle`, whose reply carries
    /// `reply_bytes` (the L1's bytes_fetched). Returns the cycle its data is back at the SM, or
    /// memsub::never when it waits for DRAM: `advance_to` then reports `tag` once.
    std::uint64_t read(std::uint64_t issue_cycle, std::uint64_t tag, const memsub::access& line,
                       std::uint32_t reply_bytes) {
        ++stats_.reads;
        const std::uint32_t b = l2_bank_router(line);
        memsub::access a = line;
        if (is_write(a.kind)) a.kind = access_kind::load;
        const auto r = banks_[b].access(a);
        const std::uint64_t start = ports_[b].reserve(issue_cycle + p_.latency.to_l2_cycles,
                                                      p_.latency.bank_occupancy(reply_bytes));
        auto& mshr = mshrs_[b];
        std::uint64_t ready = never;
        std::uint32_t f = mshr.find(line_number(line.address));
        if (f != fill_table::none && fill_owed(mshr[f], start)) {
            ++stats_.merged_reads;
            if (mshr[f].state == fill_state::filled)
                ready = p_.dram_clock.to_core_up(mshr[f].done) + p_.latency.l2_return_cycles();
            else
                wait_on(b, f, tag, start);
        } else if (r.hit) {
            ++stats_.l2_read_hits;
            ready = start + p_.latency.l2_return_cycles();
        } else {
            ++stats_.dram_reads;
            f = new_fill(b, f, line, start);
            wait_on(b, f, tag, start);
            dispatch(b, f);
        }
        write_back_victims(b, r, line.requester, start);
        return ready;
    }

    /// A store of `bytes` issued at `issue_cycle` (the L1 is write-evict and sends every store
    /// down): occupies its bank's port; nobody waits.
    void write(std::uint64_t issue_cycle, const memsub::access& store, std::uint32_t bytes) {
        ++stats_.writes;
        const std::uint32_t b = l2_bank_router(store);
        memsub::access a = store;
        if (!is_write(a.kind)) a.kind = access_kind::store;
        const auto r = banks_[b].access(a);
        const std::uint64_t start = ports_[b].reserve(issue_cycle + p_.latency.to_l2_cycles,
                                                      p_.latency.bank_occupancy(bytes));
        const std::uint32_t f = mshrs_[b].find(line_number(store.address));
        if (f != fill_table::none && fill_owed(mshrs_[b][f], start)) {
            ++stats_.merged_writes;
        } else if (r.bytes_fetched != 0) {
            ++stats_.fill_reads;
            dispatch(b, new_fill(b, f, store, start));
        }
        write_back_victims(b, r, store.requester, start);
    }

    /// The earliest core cycle at which `advance_to` reports or changes anything, or
    /// memsub::never when every controller is idle. Cached: O(1).
    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept { return earliest_; }

    /// Advances every controller to core cycle `cycle` (non-decreasing across calls) and calls
    /// `done(tag, ready_cycle)` once for every waited read whose line fill completed by then:
    /// partitions in index order, each in its fills' completion order, a fill's reads in their
    /// arrival order. `ready_cycle` (> the fill's completion) is when the data is back at the
    /// SM. `done` must not call `read` or `write`.
    template <class Done>
    requires std::invocable<Done&, std::uint64_t, std::uint64_t>
    void advance_to(std::uint64_t cycle, Done&& done) {
        if (cycle < earliest_) return; // nothing completes or retries before it
        const std::uint64_t target = p_.dram_clock.to_controller_down(cycle);
        for (std::uint32_t i = 0; i < partitions; ++i) {
            if (next_event_[i] > cycle) continue;
            advance_partition(i, target, done);
        }
    }

    /// Waited reads not yet reported.
    [[nodiscard]] std::uint64_t outstanding_reads() const noexcept { return waiting_reads_; }
    [[nodiscard]] const timing_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] const latency_params& latency() const noexcept { return p_.latency; }
    [[nodiscard]] const timing_params& parameters() const noexcept { return p_; }
    [[nodiscard]] const l2_bank& bank(std::uint32_t b) const noexcept {
        MEMSUB_ASSERT(b < partitions);
        return banks_[b];
    }
    [[nodiscard]] const port& bank_port(std::uint32_t b) const noexcept {
        MEMSUB_ASSERT(b < partitions);
        return ports_[b];
    }
    [[nodiscard]] const Dram& controller(std::uint32_t partition) const noexcept {
        MEMSUB_ASSERT(partition < partitions);
        return controllers_[partition];
    }
    /// Requests of `partition` waiting for room in its controller.
    [[nodiscard]] std::size_t overflowing(std::uint32_t partition) const noexcept {
        MEMSUB_ASSERT(partition < partitions);
        return overflow_[partition].size();
    }
    /// Line fills of bank `b` in flight (holding an MSHR) and waiting for one.
    [[nodiscard]] std::uint32_t fills_in_flight(std::uint32_t b) const noexcept {
        MEMSUB_ASSERT(b < partitions);
        return mshrs_[b].in_flight();
    }
    [[nodiscard]] std::uint32_t fills_waiting(std::uint32_t b) const noexcept {
        MEMSUB_ASSERT(b < partitions);
        return mshrs_[b].queued();
    }
    /// Controller requests per 128 B line (a line's fill completes with the last of them), and
    /// the bytes each moves.
    [[nodiscard]] std::uint32_t requests_per_line() const noexcept { return requests_per_line_; }
    [[nodiscard]] std::uint32_t dram_request_bytes() const noexcept { return request_bytes_; }

    /// The partition-local address a controller sees for `address`: the bank's 8 KB granules
    /// packed (granule / banks, then the offset in the granule).
    [[nodiscard]] static constexpr byte_address local_address(byte_address address) noexcept {
        const std::uint64_t granule = l2_bank_router.granule_bytes;
        const std::uint64_t g = address.value / granule;
        return byte_address{g / partitions * granule + address.value % granule};
    }

private:
    using result_type = typename l2_bank::result_type;
    using overflow_ring = memory::detail::ring_buffer<memory::mem_request>;
    using fill_table = detail::line_fill_table;
    using fill_state = fill_table::fill_state;
    /// Controller request ids: a fill's bursts carry its index in its bank's table; victims'
    /// writes carry this (their completions are not looked at).
    static constexpr std::uint64_t write_back_id = ~std::uint64_t{0};

    static timing_params validated(const timing_params& p) {
        p.latency.validate(component);
        require(p.dram_clock.controller_cycles >= 1, component, "dram_clock.controller_cycles",
                p.dram_clock.controller_cycles, "must be >= 1");
        require(p.dram_clock.core_cycles >= 1, component, "dram_clock.core_cycles",
                p.dram_clock.core_cycles, "must be >= 1");
        require(p.overflow_entries >= 1, component, "overflow_entries", p.overflow_entries,
                "must be >= 1");
        require(p.mshr_entries >= 1, component, "mshr_entries", p.mshr_entries, "must be >= 1");
        require(p.mshr_waiters >= 1, component, "mshr_waiters", p.mshr_waiters, "must be >= 1");
        return p;
    }

    static constexpr std::uint64_t line_number(byte_address a) noexcept {
        return a.value / line_bytes;
    }

    // Does a request starting at the bank at `start` get its line from fill `x`: one queued or
    // in flight, or one that completed after `start` (a host issuing behind the memory's time)?
    bool fill_owed(const fill_table::fill& x, std::uint64_t start) const noexcept {
        return x.state != fill_state::filled || p_.dram_clock.to_core_up(x.done) > start;
    }

    // A fill for `line`, in the slot of its completed fill `old` if the table still has one.
    std::uint32_t new_fill(std::uint32_t b, std::uint32_t old, const memsub::access& line,
                           std::uint64_t start) {
        auto& mshr = mshrs_[b];
        const std::uint32_t f = old != fill_table::none
                                    ? old
                                    : mshr.allocate(line_number(line.address), stats_.mshr_growths);
        mshr[f].bank_start = start;
        mshr[f].requester = line.requester;
        mshr[f].done = 0;
        return f;
    }

    void wait_on(std::uint32_t b, std::uint32_t f, std::uint64_t tag, std::uint64_t start) {
        mshrs_[b].add_waiter(f, tag, start, stats_.mshr_growths);
        ++waiting_reads_;
    }

    // Sends fill f to DRAM if its bank has a free MSHR and no fill waits for one; else queues.
    void dispatch(std::uint32_t b, std::uint32_t f) {
        auto& mshr = mshrs_[b];
        if (mshr.has_free_entry() && mshr.queued() == 0) {
            start_fill(b, f, 0);
            return;
        }
        ++stats_.mshr_waits;
        mshr.enqueue(f);
    }

    // The line's requests, consecutive addresses, arriving together: at the bank start, or at
    // controller cycle `free_at` when the fill waited for an MSHR freed then.
    void start_fill(std::uint32_t b, std::uint32_t f, std::uint64_t free_at) {
        auto& mshr = mshrs_[b];
        mshr.mark_in_flight(f);
        auto& x = mshr[f];
        x.bursts_left = requests_per_line_;
        const std::uint64_t base = local_address(byte_address{x.line * line_bytes}).value;
        const std::uint64_t arrival =
            std::max(p_.dram_clock.to_controller_up(x.bank_start), free_at);
        for (std::uint32_t k = 0; k < requests_per_line_; ++k)
            send(b, {.id = f,
                     .address = byte_address{base + std::uint64_t{k} * request_bytes_},
                     .is_write = false,
                     .requester = x.requester,
                     .arrival_cycle = arrival});
    }

    void write_back_victims(std::uint32_t b, const result_type& r, std::uint32_t requester,
                            std::uint64_t start) {
        for (const auto& e : r.evictions) {
            if (!e.dirty) continue;
            ++stats_.dram_writes;
            const std::uint64_t line = e.address.value & ~std::uint64_t{line_bytes - 1};
            const std::uint64_t base = local_address(byte_address{line}).value;
            for (std::uint32_t k = 0; k < requests_per_line_; ++k)
                send(b, {.id = write_back_id,
                         .address = byte_address{base + std::uint64_t{k} * request_bytes_},
                         .is_write = true,
                         .requester = requester,
                         .arrival_cycle = p_.dram_clock.to_controller_up(start)});
        }
    }

    // Enqueues in order: behind any request already waiting in the overflow ring. Arrivals are
    // kept non-decreasing (MP2): a fill that waited for an MSHR arrives when the MSHR freed,
    // possibly later than the bank start of a request sent after it.
    void send(std::uint32_t i, memory::mem_request r) {
        r.arrival_cycle = std::max(r.arrival_cycle, last_arrival_[i]);
        last_arrival_[i] = r.arrival_cycle;
        if (overflow_[i].empty()) {
            const auto result = controllers_[i].enqueue(r);
            if (result == memory::enqueue_result::accepted) {
                refresh(i);
                return;
            }
            if (result == memory::enqueue_result::rejected) {
                ++stats_.rejected;
                return;
            }
        }
        ++stats_.overflowed;
        if (overflow_[i].full()) grow(overflow_[i]);
        overflow_[i].push_back(r);
    }

    void grow(overflow_ring& ring) {
        ++stats_.overflow_growths;
        overflow_ring bigger(ring.capacity() * 2);
        for (std::size_t k = 0; k < ring.size(); ++k) bigger.push_back(ring[k]);
        ring = std::move(bigger);
    }

    // One controller request of fill f completed at controller cycle `done_cycle`; after the
    // line's last, its reads are reported and its MSHR is free.
    template <class Done>
    void finish_request(std::uint32_t i, std::uint32_t f, std::uint64_t done_cycle, Done& done) {
        auto& mshr = mshrs_[i];
        auto& x = mshr[f];
        x.done = std::max(x.done, done_cycle);
        if (--x.bursts_left != 0) return;
        const std::uint64_t filled = p_.dram_clock.to_core_up(x.done);
        mshr.release_waiters(f, [&](std::uint64_t tag, std::uint64_t bank_start) {
            ++stats_.completed;
            --waiting_reads_;
            done(tag, std::max(filled, bank_start) + p_.latency.l2_return_cycles());
        });
        mshr.mark_filled(f);
    }

    // Advances partition i to controller cycle `target`, event by event while requests wait
    // in its overflow ring or for an MSHR, so each is retried (or sent) as soon as a
    // completion frees room.
    template <class Done>
    void advance_partition(std::uint32_t i, std::uint64_t target, Done& done) {
        Dram& c = controllers_[i];
        overflow_ring& waiting = overflow_[i];
        auto& mshr = mshrs_[i];
        bool straight_to_target = false;
        for (;;) {
            const std::uint64_t event = c.next_event_cycle();
            const bool stepping = !waiting.empty() || mshr.queued() != 0;
            const std::uint64_t step =
                !stepping || straight_to_target ? target : std::min(event, target);
            c.advance_to(step);
            const std::size_t drained = c.drain([&](const memory::completion& k) {
                if (k.is_write) return;
                finish_request(i, static_cast<std::uint32_t>(k.id), k.done_cycle, done);
            });
            std::size_t retried = 0;
            while (!waiting.empty()) {
                const auto result = c.enqueue(waiting.front());
                if (result == memory::enqueue_result::queue_full) break;
                if (result == memory::enqueue_result::rejected) ++stats_.rejected;
                waiting.pop_front();
                ++retried;
            }
            while (mshr.has_free_entry() && mshr.queued() != 0) {
                start_fill(i, mshr.dequeue(), step);
                ++retried;
            }
            if (step == target) break;
            // A controller that changes nothing at its own next event breaks MC5; finish at the
            // target rather than spin.
            straight_to_target = drained == 0 && retried == 0 && c.next_event_cycle() <= step;
        }
        refresh(i);
    }

    // Recomputes partition i's next event and the minimum over all (six compares).
    void refresh(std::uint32_t i) noexcept {
        next_event_[i] = p_.dram_clock.to_core_up(controllers_[i].next_event_cycle());
        earliest_ = *std::min_element(next_event_.begin(), next_event_.end());
    }

    timing_params p_;
    std::vector<l2_bank> banks_;
    std::vector<port> ports_;
    std::vector<Dram> controllers_;
    std::vector<overflow_ring> overflow_;
    std::vector<fill_table> mshrs_;
    std::vector<std::uint64_t> next_event_;   ///< per partition, core cycles
    std::vector<std::uint64_t> last_arrival_; ///< per partition, controller cycles
    std::uint64_t earliest_ = never;          ///< min of next_event_
    std::uint64_t waiting_reads_ = 0;
    std::uint32_t request_bytes_ = line_bytes;
    std::uint32_t requests_per_line_ = 1;
    timing_stats stats_{};
};

} // namespace memsub::gpu
