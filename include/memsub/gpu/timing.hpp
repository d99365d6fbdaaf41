// memsub — GPU time from the memory system: when a line request's data is back at its SM, on
// Table 3.1's memory side (seed 001; spec id-cache.md, "Reference GPU"): the six-bank L2 of
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
//       - L2 hit: data back at s + (l2_hit_cycles − to_l2_cycles); unloaded t + 120.
//       - L2 miss: the DRAM read arrives at the bank's partition at s; data back at the
//         controller's completion + (l2_hit_cycles − to_l2_cycles); unloaded with the default
//         flat DRAM t + 40 + 100 + 80 = t + 220 (`dram_cycles`). `read` returns
//         memsub::never and `advance_to` reports the completion later, with the host's tag.
//   * Store: reserves its bank the same way; nobody waits. An L2 write-allocate miss reads
//     DRAM, and every dirty L2 victim (of a load or a store) is a DRAM write, both at s.
// Arrivals at each controller are the starts of its bank's reservations, which never decrease
// whatever the issue order (a reservation starts no earlier than the previous one ends): the
// controllers' MP2 (memory/concept.hpp) holds by construction.
//
// Usage (a host whose scheduler takes completions; tag = the waiting warp):
//   gpu::l2_dram_timing<> memory;  // Table 3.1 with flat DRAM partitions
//   load, L1 hit:  ready = memory.latency().l1_hit_ready(t);
//   load, L1 miss: ready = memory.read(t, warp, line, l1_result.bytes_fetched);
//                  if (ready == memsub::never) the warp waits for a completion;
//   store:         memory.write(t, line, bytes);
//   blocked:       memory.advance_to(memory.next_event_cycle(), on_completion);
//                  on_completion(tag, ready) hands the warp its data's cycle.
// A request a controller rejects for good (MC2 `rejected`) is lost: `stats().rejected`.
//
// Decisions:
//   * [resolution] One DRAM partition per L2 bank (memory-side L2 slices, as GPGPU-Sim's
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
//   * Tags are the host's, below 2^63: requests the timing makes for itself (a store's
//     write-allocate read) carry the top bit, so completions need no lookup table.
//   * A load's demand read is sent before its dirty victim's write (the warp waits for the
//     read; an FR-FCFS controller may still reorder them).
//   * Controllers that count in their own clock (memory::dram_controller, in tCK) get a
//     core → controller `clock_ratio`; arrivals, completions and the next event are rounded
//     up to the next cycle of the other clock (and `advance_to` down), so no latency shrinks.
// Deviations:
//   * The L2 is updated when the request is issued: a second request to a line whose DRAM
//     fill is still in flight is timed as an L2 hit (no MSHR merging at the L2).
//   * One controller request per line: a controller whose burst is smaller than 128 B moves
//     one burst for it (flat_memory moves `request_bytes`).
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
#include <memsub/gpu/l2.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/detail/ring_buffer.hpp>
#include <memsub/memory/flat_memory.hpp>
#include <memsub/topology/link_timing.hpp>

namespace memsub::gpu {

using topology::port;

/// Latencies of the Table 3.1 machine, in core cycles, and the L2 banks' data ports.
struct latency_params {
    /// [resolution] L1 hit latency: no seed gives one (Table 3.1 lists the L2's and DRAM's
    /// minima only). Decision: 20 cycles, GPGPU-Sim's Fermi-class L1 data-cache latency order;
    /// the constant-latency scheduler's 120 for every load was the alternative, which makes an
    /// L1 hit cost as much as an L2 hit. Print it with the results; sweep it to see what holds.
    std::uint32_t l1_hit_cycles = 20;
    /// [resolution] From issue to the L2 bank, part of the L2's 120 (the rest is the return).
    std::uint32_t to_l2_cycles = 40;
    /// Seed 001 Table 3.1: "Min. L2 Access Latency 120 cycles".
    std::uint32_t l2_hit_cycles = 120;
    /// Seed 001 Table 3.1: "Min. DRAM Access Latency 220 cycles" (the default flat DRAM gets
    /// dram_cycles − l2_hit_cycles = 100).
    std::uint32_t dram_cycles = 220;
    /// Seed 001 §3.1 (Fig. 3.1's text): the interconnect moves "32B Flits".
    std::uint32_t flit_bytes = 32;
    /// [resolution] Flits an L2 bank's port moves per cycle: 2 (64 B/cycle per bank, 384 B for
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
        using memsub::detail::require;
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

/// Fermi's DRAM bandwidth, seed 001 Table 5.1 (GTX480: 177 GB/s).
inline constexpr double fermi_dram_gb_per_s = 177.0;
/// [resolution] GPGPU-Sim's GTX480 configuration clocks the SMs at 700 MHz; Table 3.1 gives no
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

/// What the memory side did (requests, not cycles; the ports and controllers keep their own).
struct timing_stats {
    std::uint64_t reads = 0;            ///< `read` calls
    std::uint64_t l2_read_hits = 0;     ///< of which the L2 held the line
    std::uint64_t dram_reads = 0;       ///< reads a host waits for (L2 read misses)
    std::uint64_t writes = 0;           ///< `write` calls
    std::uint64_t fill_reads = 0;       ///< DRAM reads of store write-allocate misses
    std::uint64_t dram_writes = 0;      ///< dirty L2 victims written to DRAM
    std::uint64_t completed = 0;        ///< waited reads reported through `advance_to`
    std::uint64_t overflowed = 0;       ///< requests a controller refused at first (queue_full)
    std::uint64_t overflow_growths = 0; ///< times an overflow ring had to double
    std::uint64_t rejected = 0;         ///< requests a controller can never accept (lost)
};

/// Sizing and clocks of `l2_dram_timing` (latencies in core cycles).
struct timing_params {
    latency_params latency{};
    /// Core → controller clock (1:1 for the flat partitions).
    clock_ratio dram_clock{};
    /// Requests each partition holds while its controller refuses them: Table 3.1's 15 SMs ×
    /// 48 warps × 64 requests, spread over the 6 partitions.
    std::uint32_t overflow_entries = 15 * 48 * 64 / l2_banks;
};

/// Table 3.1's memory side: six L2 banks with their ports, over one `Dram` per bank.
template <memory::memory_controller Dram = memory::flat_memory>
class l2_dram_timing {
public:
    static constexpr std::string_view component = "memsub::gpu::l2_dram_timing";
    /// Requests the timing sends for itself carry this bit in their id; host tags are below.
    static constexpr std::uint64_t own_request_bit = std::uint64_t{1} << 63;
    static constexpr std::uint32_t partitions = l2_banks;

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
        , next_event_(partitions, never) {
        controllers_.reserve(partitions);
        overflow_.reserve(partitions);
        for (std::uint32_t i = 0; i < partitions; ++i) {
            controllers_.push_back(make_controller(i));
            overflow_.emplace_back(p.overflow_entries);
        }
    }

    /// A load's line request (L1 miss or bypass) issued at `issue_cycle`, whose reply carries
    /// `reply_bytes` (the L1's bytes_fetched). Returns the cycle its data is back at the SM, or
    /// memsub::never when it waits for DRAM: `advance_to` then reports `tag` (< 2^63) once.
    std::uint64_t read(std::uint64_t issue_cycle, std::uint64_t tag, const memsub::access& line,
                       std::uint32_t reply_bytes) {
        MEMSUB_ASSERT(tag < own_request_bit);
        ++stats_.reads;
        const std::uint32_t b = l2_bank_router(line);
        memsub::access a = line;
        if (is_write(a.kind)) a.kind = access_kind::load;
        const auto r = banks_[b].access(a);
        const std::uint64_t start = ports_[b].reserve(issue_cycle + p_.latency.to_l2_cycles,
                                                      p_.latency.bank_occupancy(reply_bytes));
        std::uint64_t ready = never;
        if (r.hit) {
            ++stats_.l2_read_hits;
            ready = start + p_.latency.l2_return_cycles();
        } else {
            ++stats_.dram_reads;
            send(b, request(tag, line.address, false, line.requester, start));
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
        if (r.bytes_fetched != 0) {
            ++stats_.fill_reads;
            send(b, request(own_request_bit, store.address, false, store.requester, start));
        }
        write_back_victims(b, r, store.requester, start);
    }

    /// The earliest core cycle at which `advance_to` reports or changes anything, or
    /// memsub::never when every controller is idle. Cached: O(1).
    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept { return earliest_; }

    /// Advances every controller to core cycle `cycle` (non-decreasing across calls) and calls
    /// `done(tag, ready_cycle)` once for every waited read whose DRAM access completed by then:
    /// partitions in index order, each in its controller's completion order. `ready_cycle`
    /// (> the DRAM completion) is when the data is back at the SM. `done` must not call
    /// `read` or `write`.
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

    /// Waited reads sent to DRAM and not yet reported.
    [[nodiscard]] std::uint64_t outstanding_reads() const noexcept {
        return stats_.dram_reads - stats_.completed;
    }
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

    static timing_params validated(const timing_params& p) {
        using memsub::detail::require;
        p.latency.validate(component);
        require(p.dram_clock.controller_cycles >= 1, component, "dram_clock.controller_cycles",
                p.dram_clock.controller_cycles, "must be >= 1");
        require(p.dram_clock.core_cycles >= 1, component, "dram_clock.core_cycles",
                p.dram_clock.core_cycles, "must be >= 1");
        require(p.overflow_entries >= 1, component, "overflow_entries", p.overflow_entries,
                "must be >= 1");
        return p;
    }

    memory::mem_request request(std::uint64_t id, byte_address address, bool write,
                                std::uint32_t requester, std::uint64_t bank_start) const noexcept {
        const std::uint64_t line = address.value & ~std::uint64_t{l2_bank_geometry::line_bytes - 1};
        return {.id = id,
                .address = local_address(byte_address{line}),
                .is_write = write,
                .requester = requester,
                .arrival_cycle = p_.dram_clock.to_controller_up(bank_start)};
    }

    void write_back_victims(std::uint32_t b, const result_type& r, std::uint32_t requester,
                            std::uint64_t start) {
        for (const auto& e : r.evictions) {
            if (!e.dirty) continue;
            ++stats_.dram_writes;
            send(b, request(own_request_bit, e.address, true, requester, start));
        }
    }

    // Enqueues in order: behind any request already waiting in the overflow ring.
    void send(std::uint32_t i, const memory::mem_request& r) {
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

    // Advances partition i to controller cycle `target`, event by event while requests wait
    // in its overflow ring, so each is retried as soon as a completion frees room.
    template <class Done>
    void advance_partition(std::uint32_t i, std::uint64_t target, Done& done) {
        Dram& c = controllers_[i];
        overflow_ring& waiting = overflow_[i];
        bool straight_to_target = false;
        for (;;) {
            const std::uint64_t event = c.next_event_cycle();
            const std::uint64_t step =
                waiting.empty() || straight_to_target ? target : std::min(event, target);
            c.advance_to(step);
            const std::size_t drained = c.drain([&](const memory::completion& k) {
                if (k.is_write || (k.id & own_request_bit) != 0) return;
                ++stats_.completed;
                done(k.id, p_.dram_clock.to_core_up(k.done_cycle) + p_.latency.l2_return_cycles());
            });
            std::size_t retried = 0;
            while (!waiting.empty()) {
                const auto result = c.enqueue(waiting.front());
                if (result == memory::enqueue_result::queue_full) break;
                if (result == memory::enqueue_result::rejected) ++stats_.rejected;
                waiting.pop_front();
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
    std::vector<std::uint64_t> next_event_; ///< per partition, core cycles
    std::uint64_t earliest_ = never;        ///< min of next_event_
    timing_stats stats_{};
};

} // namespace memsub::gpu
