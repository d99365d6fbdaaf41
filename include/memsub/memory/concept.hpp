// memsub — the memory-side concepts: `address_mapping` and `memory_controller`, with their
// vocabulary (DRAM coordinates, requests, completions) and call protocols.
//
// memsub decides and models state; the host owns the clock. A
// controller is advanced to a cycle the host gives and hands back the requests that completed.
//
// Each requirement below is also a concept of its own (`m1_map` … `m2_organisation`,
// `mc1_params` … `mc7_observers`), and `diagnose_address_mapping<M>()`,
// `diagnose_invertible_address_mapping<M>()` and `diagnose_memory_controller<C>()` name the broken
// ones (labels: testing/contract.hpp).
//
// address_mapping — a type M models it when:
//   M1. `m.map(byte_address)` noexcept -> `dram_address` (channel, rank, bank group, bank, row,
//       column). Total: every address maps; bits above the mapping are ignored.
//   M2. `m.organisation()` -> `const dram_organisation&`: the field counts (channels, ranks,
//       bank groups, banks per group, rows, columns), so controllers size themselves.
// `map` may read state shared with other objects (a page table filled at run time, held by
// reference: placement/placed_mapping.hpp) as long as it is const and noexcept; a controller
// calls it when a request is enqueued (and in can_accept), never later, so a mapping whose
// answer for an address can change (a page not yet placed) is read at enqueue time.
//
// invertible_address_mapping — the refinement; M models it when it models address_mapping and:
//   MI1. `m.unmap(dram_address)` noexcept -> `byte_address`, the lowest byte address mapping to
//       those coordinates (map(unmap(d)) == d for every in-range d).
// Controllers need only address_mapping (they never call unmap); tests and hosts that build
// addresses from coordinates need the refinement. bit_field_mapping models both. (MI1 is a
// refinement, not part of address_mapping, so that a placement stage with a run-time page
// table — first touch, not invertible without a reverse table — can sit in front of a
// controller's mapping.)
//
// memory_controller — a type C models it when:
//   MC1. `typename C::params` is a default-constructible aggregate of its knobs; construction
//        validates it (and the timing preset) and throws `memsub::config_error`.
//   MC2. `c.enqueue(const mem_request&)` noexcept -> `enqueue_result`: accepted; queue_full (a
//        refused request leaves no trace; the host retries later: back-pressure); or rejected:
//        the request can never be accepted (an input error, e.g. a requester id ≥ the
//        partitioned controller's `requesters`); it is counted in stats().rejected and the host
//        must not retry it.
//   MC3. `c.can_accept(const mem_request&)` const noexcept -> bool: would enqueue accept it now.
//   MC4. `c.advance_to(cycle)` noexcept: performs every decision and state change with cycle
//        ≤ `cycle`.
//   MC5. `c.next_event_cycle()` const noexcept -> std::uint64_t: the earliest cycle at which
//        advancing changes anything (a request selected, a request completing), or
//        `memsub::never` when nothing is outstanding. A host may jump straight to it. It is
//        never earlier than the last advanced cycle, and completions that are already
//        drainable are not events: a host that does not drain still moves forward.
//   MC6. `c.drain(sink)` with sink invocable as `sink(const completion&)`: hands every completed,
//        not yet drained request to `sink` in completion-cycle order and returns their count;
//        `c.drain(std::span<completion>)` fills a caller buffer and returns how many it wrote
//        (the rest stay for the next call). Neither allocates.
//   MC7. `c.stats()` -> `const controller_stats&` (memory/controller_stats.hpp); `c.pending()`
//        -> requests accepted and not yet drained; `c.name()` -> std::string_view.
//
// Call protocol:
//   MP1. Request ids are chosen by the host and returned unchanged in the completion.
//   MP2. `request.arrival_cycle` is the cycle the request reaches the controller; arrivals are
//        non-decreasing across enqueues. A request is considered from max(arrival, last
//        `advance_to` cycle) on, so a request arriving at t is enqueued before `advance_to(t)`
//        to take part in the decision of cycle t. A host may keep the original (earlier)
//        arrival of a request it retries after `queue_full`, so the wait counts as queueing.
//   MP3. Calls to `advance_to` use non-decreasing cycles. A completion with `done_cycle` ≤ the
//        last advanced cycle is drainable.
//   MP4. A completed request keeps its slot until drained; a host that never drains eventually
//        sees queue_full (capacity = queues + in-flight limit).
//   MP5. Per request the path is: enqueue (arrival) → selected by the scheduler (queueing delay
//        = selected − arrival) → DRAM commands → data transfer ends (done). Latency = done −
//        arrival. The class (row hit / empty / conflict) is the bank state found when the
//        scheduler selected it.
//   MP6. enqueue, advance_to, next_event_cycle and drain never allocate and never throw.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <memsub/core/types.hpp>

/// The memory side: address mappings (M1–M2, MI1), DRAM controllers (MC1–MC7, call protocol
/// MP1–MP6) and their parts (request schedulers, row policies, write drain, queue
/// organisations), DRAM timing presets and the multi-partition memory of a multi-module GPU.
namespace memsub::memory {

/// The field counts of a DRAM system (all powers of two).
struct dram_organisation {
    /// Independent channels, each with its own controller state and data bus.
    std::uint32_t channels = 1;
    /// Ranks per channel.
    std::uint32_t ranks = 1;
    /// Bank groups per rank (1 for DRAM without bank groups).
    std::uint32_t bank_groups = 1;
    /// Banks in each bank group.
    std::uint32_t banks_per_group = 8;
    /// Rows per bank.
    std::uint32_t rows = 65536;
    /// Columns in burst units (a request moves one burst).
    std::uint32_t columns = 128;
    /// Bytes of one burst (the byte-offset field below the column).
    std::uint32_t burst_bytes = 64;

    /// Banks in one rank: bank groups × banks per group.
    [[nodiscard]] constexpr std::uint32_t banks_per_rank() const noexcept {
        return bank_groups * banks_per_group;
    }
    /// Banks in one channel (the range of `flat_bank`): ranks × banks per rank.
    [[nodiscard]] constexpr std::uint32_t banks_per_channel() const noexcept {
        return ranks * banks_per_rank();
    }
    /// Equal when every field count is equal.
    friend constexpr bool operator==(const dram_organisation&, const dram_organisation&) = default;
};

/// Where an address lives in DRAM. `bank` is the bank within its bank group.
struct dram_address {
    /// Channel, 0 … channels − 1.
    std::uint32_t channel = 0;
    /// Rank within the channel.
    std::uint32_t rank = 0;
    /// Bank group within the rank.
    std::uint32_t bank_group = 0;
    /// Bank within the bank group (`flat_bank` gives the index within the channel).
    std::uint32_t bank = 0;
    /// Row within the bank.
    std::uint32_t row = 0;
    /// Column within the row, in bursts.
    std::uint32_t column = 0;

    /// Equal when every coordinate is equal.
    friend constexpr bool operator==(const dram_address&, const dram_address&) = default;
};

/// Flat bank index within a channel: (rank, bank group, bank) → 0 … banks_per_channel − 1.
[[nodiscard]] constexpr std::uint32_t flat_bank(const dram_address& a,
                                                const dram_organisation& o) noexcept {
    return (a.rank * o.bank_groups + a.bank_group) * o.banks_per_group + a.bank;
}

/// The row-buffer state a request found ([Dissertation] §2.1's cost scale: a row hit costs a
/// column access, an empty bank an activation too, a conflict a precharge as well).
enum class row_class : std::uint8_t {
    hit,      ///< the bank had the request's row open: column access only
    empty,    ///< the bank was precharged: ACT + column access
    conflict, ///< another row was open: PRE + ACT + column access
};

/// The class's name ("hit", "empty", "conflict"), for reports.
[[nodiscard]] constexpr std::string_view to_string(row_class c) noexcept {
    switch (c) {
    case row_class::hit:
        return "hit";
    case row_class::empty:
        return "empty";
    case row_class::conflict:
        return "conflict";
    }
    return "?";
}

/// One memory request (one burst) as the host sends it.
struct mem_request {
    /// Chosen by the host, returned in the completion (MP1).
    std::uint64_t id = 0;
    /// The byte address the mapping decodes (M1); the request moves the burst holding it.
    byte_address address{};
    /// A write (data from the host) rather than a read.
    bool is_write = false;
    /// Which requester (core cluster, SM, core) sent it; partitioned controllers queue by it.
    std::uint32_t requester = 0;
    /// The host's cycle when the request reaches the controller (MP2).
    std::uint64_t arrival_cycle = 0;
};

/// A finished request.
struct completion {
    /// The request's id, unchanged (MP1).
    std::uint64_t id = 0;
    /// The request's address.
    byte_address address{};
    /// Whether the request was a write.
    bool is_write = false;
    /// The request's requester.
    std::uint32_t requester = 0;
    /// The channel that served it.
    std::uint32_t channel = 0;
    /// Flat bank within the channel.
    std::uint32_t bank = 0;
    /// The row-buffer state the request found when selected (MP5); meaningless when
    /// `from_queue`.
    row_class kind = row_class::hit;
    /// The request's arrival cycle, as enqueued (MP2).
    std::uint64_t arrival_cycle = 0;
    /// When the scheduler picked it (end of queueing).
    std::uint64_t selected_cycle = 0;
    /// First cycle of its data burst on the bus.
    std::uint64_t data_cycle = 0;
    /// Last data beat transferred: the request is complete.
    std::uint64_t done_cycle = 0;
    /// Served by the controller's write queue without a DRAM access: a read forwarded from a
    /// queued write to its line, or a write merged into one (no data-bus cycles, no row class).
    bool from_queue = false;

    /// Cycles from arrival to the last data beat (MP5: done − arrival).
    [[nodiscard]] constexpr std::uint64_t latency() const noexcept {
        return done_cycle - arrival_cycle;
    }
    /// Cycles the request waited to be selected (MP5: selected − arrival).
    [[nodiscard]] constexpr std::uint64_t queueing_delay() const noexcept {
        return selected_cycle - arrival_cycle;
    }
};

/// What `enqueue` did with a request (MC2).
enum class enqueue_result : std::uint8_t {
    accepted,   ///< queued: it will complete and be drained
    queue_full, ///< back-pressure: retry later
    rejected,   ///< never acceptable (bad request): do not retry
};

// ------------------------------------------------------------ one concept per requirement

/// M1: `m.map(address)` noexcept decodes any byte address into DRAM coordinates (total).
template <class M>
concept m1_map = requires(const M& m, byte_address a) {
    { m.map(a) }
    noexcept->std::same_as<dram_address>;
};

/// MI1: `m.unmap(coordinates)` noexcept gives the lowest byte address that maps to them.
template <class M>
concept mi1_unmap = requires(const M& m, const dram_address& d) {
    { m.unmap(d) }
    noexcept->std::same_as<byte_address>;
};

/// M2: `m.organisation()` gives the field counts controllers size themselves by.
template <class M>
concept m2_organisation = requires(const M& m) {
    { m.organisation() } -> std::convertible_to<const dram_organisation&>;
};

/// An address mapping (M1–M2): decodes byte addresses into DRAM coordinates, const and
/// noexcept; a controller calls it at enqueue time only.
template <class M>
concept address_mapping = m1_map<M> && m2_organisation<M>;

/// An `address_mapping` that also encodes coordinates back into an address (MI1):
/// map(unmap(d)) == d for every in-range d.
template <class M>
concept invertible_address_mapping = address_mapping<M> && mi1_unmap<M>;

namespace detail {
struct completion_sink_archetype {
    void operator()(const completion&) const noexcept {}
};
} // namespace detail

/// MC1: `C::params` is a default-constructible aggregate, validated at construction.
template <class C>
concept mc1_params = std::default_initializable<typename C::params>;

/// MC2: `c.enqueue(request)` noexcept accepts the request, refuses it for now (queue_full) or
/// rejects it for good.
template <class C>
concept mc2_enqueue = requires(C& c, const mem_request& r) {
    { c.enqueue(r) }
    noexcept->std::same_as<enqueue_result>;
};

/// MC3: `c.can_accept(request)` const noexcept says whether `enqueue` would accept it now.
template <class C>
concept mc3_can_accept = requires(const C& c, const mem_request& r) {
    { c.can_accept(r) }
    noexcept->std::same_as<bool>;
};

/// MC4: `c.advance_to(cycle)` noexcept performs every decision and state change up to `cycle`.
template <class C>
concept mc4_advance_to = requires(C& c, std::uint64_t t) {
    { c.advance_to(t) }
    noexcept;
};

/// MC5: `c.next_event_cycle()` const noexcept gives the earliest cycle at which advancing changes
/// anything (`memsub::never` when nothing is outstanding).
template <class C>
concept mc5_next_event_cycle = requires(const C& c) {
    { c.next_event_cycle() }
    noexcept->std::same_as<std::uint64_t>;
};

/// MC6: `c.drain(sink)` and `c.drain(buffer)` hand over completed requests in completion-cycle
/// order and return how many, without allocating.
template <class C>
concept mc6_drain = requires(C& c, std::span<completion> buf,
                             detail::completion_sink_archetype sink) {
    { c.drain(sink) } -> std::convertible_to<std::size_t>;
    { c.drain(buf) }
    noexcept->std::convertible_to<std::size_t>;
};

/// MC7: `c.stats()`, `c.pending()` (accepted, not yet drained) and `c.name()`.
template <class C>
concept mc7_observers = requires(const C& c) {
    { c.stats().completed() } -> std::convertible_to<std::uint64_t>;
    { c.pending() }
    noexcept->std::convertible_to<std::size_t>;
    { c.name() } -> std::convertible_to<std::string_view>;
};

/// A DRAM memory controller (MC1–MC7) that the host drives by cycle (MP1–MP6): requests are
/// enqueued, the controller advanced to a cycle, completions drained.
template <class C>
concept memory_controller = mc1_params<C> && mc2_enqueue<C> && mc3_can_accept<C> &&
    mc4_advance_to<C> && mc5_next_event_cycle<C> && mc6_drain<C> && mc7_observers<C>;

/// Fails to compile with one message per broken requirement (M1, M2).
template <class M>
consteval bool diagnose_address_mapping() {
    static_assert(m1_map<M>, "M1: m.map(byte_address) const must be noexcept and return "
                             "dram_address");
    static_assert(m2_organisation<M>, "M2: m.organisation() const must return "
                                      "const dram_organisation&");
    return address_mapping<M>;
}

/// `diagnose_address_mapping<M>()` and then MI1 (the invertible refinement).
template <class M>
consteval bool diagnose_invertible_address_mapping() {
    static_assert(diagnose_address_mapping<M>());
    static_assert(mi1_unmap<M>, "MI1: m.unmap(const dram_address&) const must be noexcept and "
                                "return byte_address");
    return invertible_address_mapping<M>;
}

/// Fails to compile with one message per broken requirement (MC1–MC7).
template <class C>
consteval bool diagnose_memory_controller() {
    static_assert(mc1_params<C>, "MC1: C::params must be a default-constructible aggregate");
    static_assert(mc2_enqueue<C>, "MC2: c.enqueue(const mem_request&) must be noexcept and "
                                  "return enqueue_result");
    static_assert(mc3_can_accept<C>, "MC3: c.can_accept(const mem_request&) const must be "
                                     "noexcept and return bool");
    static_assert(mc4_advance_to<C>, "MC4: c.advance_to(std::uint64_t) must be noexcept");
    static_assert(mc5_next_event_cycle<C>, "MC5: c.next_event_cycle() const must be noexcept "
                                           "and return std::uint64_t");
    static_assert(mc6_drain<C>, "MC6: c.drain(sink) and c.drain(std::span<completion>) "
                                "(noexcept) must return the count drained");
    static_assert(mc7_observers<C>, "MC7: c.stats() (controller_stats), c.pending() (noexcept) "
                                    "and c.name() const must exist");
    return memory_controller<C>;
}

} // namespace memsub::memory
