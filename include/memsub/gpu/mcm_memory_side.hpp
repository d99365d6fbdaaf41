// memsub — the memory side of a multi-module GPU (MCM-GPU): where each L1 miss of a module's SMs
// goes and, in the timed mode, when its data is back. [MCM-GPU]; [Dissertation] ch. 5.
//
// memory_side<Placement> holds, for M modules on a bidirectional ring:
//   * the page placement (Placement: placement::fine_grain_interleave or first_touch) that
//     names each address's home module;
//   * per module a memory-side L2 slice (caches only addresses homed there; write-back, 16-way,
//     64 KB per SM, halved beside an L1.5) and optionally a remote-only L1.5 (write-through,
//     16-way, 32 KB per SM, flushed once per kernel launch boundary);
//   * the ring's per-link byte counters (topology::link_traffic), and, timed
//     (timing_mode::memory): the ring's directed links with their bandwidth per cycle
//     (ring_links), a flat DRAM partition per module fed in arrival order (dram_partition), the
//     fills each slice owes with the reads waiting on them (fill_table, an MSHR table), and when
//     each private cache's line is there (inflight_line).
// A host (a SIMT scheduler) calls request() for every L1 miss and store, l1_hit() for every L1
// hit, advance_to() to move the DRAM partitions on, and end_launch() at each kernel boundary;
// finish() returns the counts (config_result). Untimed (timing_mode::constant), request() only
// counts traffic and end_launch() applies an analytic bandwidth / latency bound per launch.
//
// Timed latencies (mcm_latency; core cycles at 1 GHz): a local L2 slice hit is back at
// t + l2_hit_cycles; a remote one adds hop_cycles per ring hop for the request and again for the
// reply (path_crossings = 2), plus the reply's queueing on the links; with an L1.5, a remote
// request pays l15_lookup_cycles first, and an L1.5 hit is back l15_hit_cycles after the lookup.
// An L2 miss waits for its DRAM fill (request() returns memsub::never; advance_to() reports the
// time).
//
// This is a study's model, not a cycle-accurate simulator: no request headers, no coherence
// beyond the launch-boundary flush, unlimited MSHRs (Decision in fill_table). It allocates as
// its tables grow (doubling), not per request in the steady state.
#pragma once

#include <memsub/bypass/remote_only.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/sync_epoch_invalidator.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>
#include <memsub/core/warp_instruction.hpp>
#include <memsub/energy/gpujoule.hpp>
#include <memsub/gpu/detail/line_index.hpp>
#include <memsub/gpu/timing.hpp>
#include <memsub/memory/flat_memory.hpp>
#include <memsub/placement/first_touch.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/topology/link_traffic.hpp>
#include <memsub/topology/ring.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <type_traits>
#include <vector>

namespace memsub::gpu::mcm {

/// How a launch's time is found: from the memory system (`memory`: a host-mode scheduler whose
/// loads complete when memory_side says) or a per-launch analytic bound (`constant`).
enum class timing_mode : std::uint8_t { memory, constant };

/// The timed machine's latencies, in core cycles at 1 GHz (mcm_explorer prints them in every
/// table header and CSV row).
struct mcm_latency {
    /// Decision: gpu::latency_params' 20 (no source gives an L1 hit latency).
    std::uint32_t l1_hit_cycles = gpu::latency_params{}.l1_hit_cycles;
    /// From issue to the module's L2 slice (part of the slice hit; the rest is the return).
    std::uint32_t to_l2_cycles = gpu::latency_params{}.to_l2_cycles;
    /// Decision: a local L2 slice hit costs [Dissertation] Table 3.1's "Min. L2 Access Latency 120
    /// cycles"; Table 5.3 gives no L2 latency for the MCM-GPU, and the Fermi figure keeps the
    /// two GPU studies of this library on one scale.
    std::uint32_t l2_hit_cycles = gpu::latency_params{}.l2_hit_cycles;
    /// [MCM-GPU] Table 3: "32 cycles/hop".
    std::uint32_t hop_cycles = 32;
    /// Decision: crossings of the ring path per remote load: the request and the reply each
    /// cross it (2). [MCM-GPU] and [Dissertation] say "32 cycles per hop" without saying whether a
    /// round trip pays it once; the analytic model (timing_mode::constant) counts the hops once.
    /// Stores cross once (requester → home) either way.
    std::uint32_t path_crossings = 2;
    /// The L1.5 lookup latency applies to every remote request (Decision: 10 cycles; [MCM-GPU]
    /// gives none).
    std::uint32_t l15_lookup_cycles = 10;
    /// The L1.5 hit latency is not published ([MCM-GPU] §4); Decision: the L2 slice's (an L1.5
    /// is a module-side cache of the slice's size class), paid after the lookup.
    std::uint32_t l15_hit_cycles = gpu::latency_params{}.l2_hit_cycles;
    /// [Dissertation] Table 5.3: "DRAM latency 100 ns (flat)" at the 1 GHz clock.
    std::uint32_t dram_cycles = 100;

    [[nodiscard]] std::uint32_t l2_return_cycles() const noexcept {
        return l2_hit_cycles - to_l2_cycles;
    }
};

constexpr std::uint32_t line_bytes = 128;
constexpr std::uint32_t warps_per_sm = 48; // gto_params default ([Dissertation] Table 3.1)
constexpr double clock_hz = 1e9;
/// Bandwidths of [Dissertation] ch. 5's machine, for a 64-SM GPM: a ring link and a module's
/// DRAM partition, in GB/s.
constexpr double published_link_gbps = 768, published_dram_gbps_per_partition = 768,
                 published_sms_per_gpm = 64;

struct machine {
    std::uint32_t modules = 4;
    std::uint32_t sms_per_module = 8;
    [[nodiscard]] std::uint32_t sms() const { return modules * sms_per_module; }
    /// Bytes per cycle of one ring link / one DRAM partition ([Dissertation] ch. 5, per 64-SM GPM,
    /// scaled by S).
    [[nodiscard]] double link_bytes_per_cycle() const {
        return published_link_gbps * 1e9 / clock_hz * sms_per_module / published_sms_per_gpm;
    }
    [[nodiscard]] double dram_bytes_per_cycle() const {
        return published_dram_gbps_per_partition * 1e9 / clock_hz * sms_per_module /
               published_sms_per_gpm;
    }
    /// A module's L2 slice: 64 KB per SM (4 MB per 64-SM GPM), halved beside an L1.5; 16 ways.
    [[nodiscard]] memsub::geometry l2_geometry(bool with_l15) const {
        return {.sets = sets_for(with_l15 ? 32768 : 65536), .ways = 16, .line_bytes = line_bytes};
    }
    /// A module's L1.5: 32 KB per SM, 16 ways.
    [[nodiscard]] memsub::geometry l15_geometry() const {
        return {.sets = sets_for(32768), .ways = 16, .line_bytes = line_bytes};
    }

private:
    /// Sets of a 16-way cache of `bytes_per_sm` per SM of a module (a power of two, rounded down).
    [[nodiscard]] std::uint32_t sets_for(std::uint64_t bytes_per_sm) const {
        return static_cast<std::uint32_t>(std::max<std::uint64_t>(
            1, std::bit_floor(bytes_per_sm * sms_per_module / (line_bytes * 16))));
    }
};

/// Everything measured for one configuration on one machine.
struct config_result {
    std::uint64_t warp_instructions = 0, lane_operations = 0, launches = 0;
    std::uint64_t l1_load_accesses = 0, l1_load_hits = 0, l1_fill_bytes = 0, store_bytes = 0;
    std::uint64_t sector_runs = 0; // runs of touched sectors over the line requests
    std::uint64_t local_requests = 0, remote_requests = 0, ring_requests = 0;
    std::uint64_t l15_lookups = 0, l15_hits = 0, l15_flushes = 0, l15_sync_commands = 0;
    std::uint64_t ring_payload_bytes = 0, inter_module_bytes = 0; // payload; Σ over links
    std::uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
    std::uint64_t issue_cycles = 0, dram_bound_cycles = 0, link_bound_cycles = 0;
    double latency_cycles = 0, cycles = 0;
    /// The busiest DRAM partition's and ring link's busy time over `cycles`.
    double dram_utilisation = 0, link_utilisation = 0;
    /// First touch: pages placed in each partition (empty for the fine-grain interleave).
    std::vector<std::uint64_t> pages_per_partition;
    energy::energy_breakdown joules{};
    [[nodiscard]] double seconds() const { return cycles / clock_hz; }
    [[nodiscard]] double l15_hit_rate() const {
        return l15_lookups == 0 ? 0.0 : static_cast<double>(l15_hits) / l15_lookups;
    }
};

// ------------------------------------------------------------------ timed memory side

/// The line fills one L2 slice owes (the DRAM read queued or in flight) and the reads waiting on
/// each, an MSHR table: a read to a line whose fill is owed waits for that fill instead of
/// reading DRAM again (the slice installed the line when the first miss was issued).
/// Decision: entries are not limited (the sources give the MCM-GPU's L2 no MSHR count; a limit
/// would add a parameter no source sets); gpu/timing.hpp's Table 3.1 machine limits them to 64
/// per bank. Open addressing with backward-shift deletion; the pools double when outgrown, so the
/// steady state allocates nothing.
class fill_table {
public:
    static constexpr std::uint32_t none = 0xffffffffu;

    /// A read waiting on a fill: its data is back at its SM at
    /// max(floor, max(fill done, after) + extra).
    struct waiter {
        warp_id warp{};
        std::uint64_t after = 0; ///< when the read reached the slice
        std::uint64_t floor = 0;
        std::uint64_t extra = 0; ///< slice → SM: the return, ring hops and link queueing
        /// The in-flight entries (an L1's, an L1.5's) the reply fills in, or none.
        std::uint32_t l1_entry = none, l15_entry = none;
        std::uint32_t next = none;
    };
    struct fill {
        std::uint64_t line = 0;
        std::uint64_t nominal_done = 0; ///< when the fill would complete on an idle DRAM
        std::uint32_t first = none, last = none;
        std::uint32_t next_free = none;
    };

    fill_table() { index_.reset(512); }

    [[nodiscard]] std::uint32_t find(std::uint64_t line) const noexcept {
        return index_.find(line, line_of());
    }
    [[nodiscard]] const fill& operator[](std::uint32_t f) const noexcept { return fills_[f]; }

    /// A new fill of `line` (not in the table).
    std::uint32_t insert(std::uint64_t line, std::uint64_t nominal_done) {
        if (size_ + 1 > index_.capacity()) index_.grow(2 * index_.capacity(), line_of());
        std::uint32_t f = free_fill_;
        if (f == none) {
            f = static_cast<std::uint32_t>(fills_.size());
            fills_.emplace_back();
        } else {
            free_fill_ = fills_[f].next_free;
        }
        fills_[f] = fill{.line = line, .nominal_done = nominal_done};
        index_.insert(line, f);
        ++size_;
        return f;
    }

    void add_waiter(std::uint32_t f, const waiter& w) {
        std::uint32_t i = free_waiter_;
        if (i == none) {
            i = static_cast<std::uint32_t>(waiters_.size());
            waiters_.emplace_back();
        } else {
            free_waiter_ = waiters_[i].next;
        }
        waiters_[i] = w;
        waiters_[i].next = none;
        fill& x = fills_[f];
        (x.last == none ? x.first : waiters_[x.last].next) = i;
        x.last = i;
    }

    /// Fill `f` completed: calls `each(waiter)` for its reads in arrival order and frees it.
    template <class Each>
    void complete(std::uint32_t f, Each&& each) {
        for (std::uint32_t i = fills_[f].first; i != none;) {
            const waiter w = waiters_[i];
            waiters_[i].next = free_waiter_;
            free_waiter_ = i;
            each(w);
            i = w.next;
        }
        erase(f);
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

private:
    /// The line of a fill, for the index.
    struct fill_line {
        const std::vector<fill>* fills;
        std::uint64_t operator()(std::uint32_t f) const noexcept { return (*fills)[f].line; }
    };
    [[nodiscard]] fill_line line_of() const noexcept { return {&fills_}; }
    void erase(std::uint32_t f) noexcept {
        index_.erase(fills_[f].line, f, line_of());
        fills_[f].next_free = free_fill_;
        free_fill_ = f;
        --size_;
    }

    memsub::gpu::detail::line_index index_;
    std::vector<fill> fills_;
    std::vector<waiter> waiters_;
    std::uint32_t free_fill_ = none, free_waiter_ = none;
    std::size_t size_ = 0;
};

/// One module's DRAM partition: a flat_memory ([Dissertation] Table 5.3: 100 ns flat; the machine's
/// bandwidth) fed in arrival order. Requests are issued in issue order but reach the slice at
/// different times (a remote one crosses the ring first), so each waits in a min-heap on its
/// arrival and enters the controller when the host's time reaches it: every request that arrives
/// earlier has been issued by then (an arrival is at least to_l2_cycles after its issue), so the
/// controller's FCFS pipe serves exactly in arrival order (MP2).
class dram_partition {
public:
    /// Read requests carry their fill's index; writes (dirty victims) this.
    static constexpr std::uint64_t write_id = ~std::uint64_t{0};

    explicit dram_partition(const memsub::memory::flat_memory::params& p) : controller_(p) {
        pending_.reserve(256);
    }

    void send(std::uint64_t arrival, std::uint64_t id, memsub::byte_address address,
              std::uint32_t requester) {
        pending_.push_back({arrival, sequence_++,
                            memsub::memory::mem_request{.id = id,
                                                        .address = address,
                                                        .is_write = id == write_id,
                                                        .requester = requester,
                                                        .arrival_cycle = arrival}});
        std::push_heap(pending_.begin(), pending_.end(), later);
    }

    /// The earliest cycle at which `advance_to` changes anything.
    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept {
        const std::uint64_t done = controller_.next_event_cycle();
        if (pending_.empty() || !controller_.can_accept(pending_.front().request)) return done;
        return std::min(done, pending_.front().arrival);
    }

    /// Moves the controller to `cycle`: requests that arrived by then enter it (in arrival
    /// order; a full controller takes them as completions free room), and `read_done(id,
    /// done_cycle)` is called for every read completed by then.
    template <class ReadDone>
    void advance_to(std::uint64_t cycle, ReadDone&& read_done) {
        for (;;) {
            while (!pending_.empty() && pending_.front().arrival <= cycle &&
                   controller_.can_accept(pending_.front().request)) {
                std::pop_heap(pending_.begin(), pending_.end(), later);
                (void)controller_.enqueue(pending_.back().request);
                pending_.pop_back();
            }
            const bool stuck = !pending_.empty() && pending_.front().arrival <= cycle;
            const std::uint64_t step =
                stuck ? std::min(cycle, controller_.next_event_cycle()) : cycle;
            controller_.advance_to(step);
            controller_.drain([&](const memsub::memory::completion& c) {
                if (!c.is_write) read_done(c.id, c.done_cycle);
            });
            if (step >= cycle) return;
        }
    }

    [[nodiscard]] const memsub::memory::flat_memory& controller() const noexcept {
        return controller_;
    }
    [[nodiscard]] fill_table& fills() noexcept { return fills_; }

private:
    struct pending_request {
        std::uint64_t arrival = 0, sequence = 0;
        memsub::memory::mem_request request{};
    };
    static bool later(const pending_request& a, const pending_request& b) noexcept {
        return a.arrival != b.arrival ? a.arrival > b.arrival : a.sequence > b.sequence;
    }

    memsub::memory::flat_memory controller_;
    std::vector<pending_request> pending_; // min-heap on (arrival, sequence)
    std::uint64_t sequence_ = 0;
    fill_table fills_;
};

/// The ring's directed links, timed by a calendar of the bytes each link moves in each cycle
/// (its bandwidth per cycle at most). A transfer departing at cycle d starts on a link at the
/// first cycle from d with room, fills the room of the cycles from there until its bytes are
/// sent, and reaches the next module cycles_per_hop after its start ([MCM-GPU] Table 3),
/// store-and-forward per transfer as topology::link_timing times it. Decision: a calendar rather
/// than link_timing's FCFS ports. The host reserves a reply when it issues the load, at the reply's
/// departure, and departures are not in issue order: a DRAM miss's reply leaves about 100 cycles
/// after an L2 hit's issued a cycle later. An FCFS port makes every later reservation wait behind
/// the latest one, so one miss held the hits behind it for its whole DRAM latency (a 256 x 256
/// stencil under distributed scheduling took 52.7 kcycles with FCFS ports, 7.3 with the calendar);
/// the calendar lets a reservation use the room left at its own time. A reply that waits for DRAM
/// is reserved in issue order at its departure on an idle DRAM and keeps the queueing it found
/// there, though it leaves later (an approximation either way: it may have taken room another
/// transfer then needed, and misses what the link carries when it leaves).
class ring_links {
public:
    ring_links(const topology::ring& r, std::uint32_t bytes_per_cycle, std::uint32_t hop_cycles)
        : ring_(r)
        , capacity_(std::max(1u, bytes_per_cycle))
        , hop_cycles_(hop_cycles)
        , used_(std::size_t{r.links()} << window_bits, 0) {}

    /// A transfer of `bytes` from module `src` to `dst` departing at `depart` (>= `now`, the
    /// host's cycle, which never decreases): the cycle it reaches `dst`.
    std::uint64_t transfer(std::uint32_t src, std::uint32_t dst, std::uint64_t depart,
                           std::uint64_t bytes, std::uint64_t now) {
        forget_before(now);
        std::uint64_t at = depart;
        ring_.route(src, dst,
                    [&](std::uint32_t link) { at = reserve(link, at, bytes) + hop_cycles_; });
        return at;
    }
    /// Cycles a transfer from `src` to `dst` takes on idle links.
    [[nodiscard]] std::uint64_t unloaded_cycles(std::uint32_t src, std::uint32_t dst) const {
        return std::uint64_t{ring_.hops(src, dst)} * hop_cycles_;
    }
    /// Transfers that found no room within the calendar's window (sent at its end).
    [[nodiscard]] std::uint64_t overflows() const noexcept { return overflows_; }

private:
    static constexpr std::uint32_t window_bits = 16; // cycles ahead of the host's clock
    static constexpr std::uint64_t window = std::uint64_t{1} << window_bits;

    // The start cycle of `bytes` on `link` from `depart`.
    std::uint64_t reserve(std::uint32_t link, std::uint64_t depart, std::uint64_t bytes) {
        std::uint32_t* cycles = used_.data() + (std::size_t{link} << window_bits);
        const std::uint64_t limit = base_ + window - 1;
        std::uint64_t c = std::min(depart, limit);
        while (c < limit && cycles[c & (window - 1)] >= capacity_) ++c;
        const std::uint64_t start = c;
        while (bytes != 0) {
            std::uint32_t& used = cycles[c & (window - 1)];
            const std::uint64_t take =
                std::min<std::uint64_t>(capacity_ - std::min(used, capacity_), bytes);
            used += static_cast<std::uint32_t>(take);
            bytes -= take;
            if (bytes == 0) break;
            if (c == limit) {
                ++overflows_;
                break;
            }
            ++c;
        }
        return start;
    }

    // Cycles before `now` take no more reservations: their slots are cleared for reuse.
    void forget_before(std::uint64_t now) {
        if (now <= base_) return;
        if (now - base_ >= window) {
            std::fill(used_.begin(), used_.end(), 0u);
        } else {
            for (std::uint32_t l = 0; l < ring_.links(); ++l)
                for (std::uint64_t c = base_; c < now; ++c)
                    used_[(std::size_t{l} << window_bits) + (c & (window - 1))] = 0;
        }
        base_ = now;
    }

    topology::ring ring_;
    std::uint32_t capacity_;
    std::uint32_t hop_cycles_;
    std::vector<std::uint32_t> used_; // per link, per cycle mod window: bytes reserved
    std::uint64_t base_ = 0;          // the oldest cycle still reservable
    std::uint64_t overflows_ = 0;
};

// ------------------------------------------------------------------ memory side

/// The home function the L1.5's remote-only filter consults: the placement's decision (the
/// host places an address before it routes it, so `locate` has it).
template <class Placement>
struct home_of {
    const Placement* p = nullptr;
    std::uint32_t operator()(memsub::byte_address a) const noexcept {
        const auto l = p->locate(a);
        return l ? l->partition : 0;
    }
};

/// When the data of a line a private cache (an L1 or an L1.5) installed at issue is there: a
/// cache's contents change when the request is issued, so a hit on a line whose reply is still
/// on its way waits for that reply. Direct-mapped, four entries per line of the cache.
/// Decision: an entry another line's miss overwrote leaves its line's later hits at the hit
/// latency (a rare early hit) rather than searching a tag-exact table on every hit.
struct inflight_line {
    static constexpr std::uint64_t no_line = ~std::uint64_t{0};
    std::uint64_t line = no_line;
    /// When the reply is back (memsub::never: it waits on the DRAM fill of `line` at `home`,
    /// and a hit joins that fill with the first request's `after` and `extra`).
    std::uint64_t ready = 0;
    std::uint64_t after = 0, extra = 0;
    std::uint32_t home = 0;
};

/// One memory-side configuration: placement, per-module L1.5 (optional) and L2 slices, the
/// ring's link counters, and either the per-launch analytic time model (`timing_mode::constant`)
/// or the timed machine (`timing_mode::memory`): the ring's directed links with their
/// bandwidth (ring_links), a DRAM partition per module, MSHRs per slice, and when each private
/// cache's line is there.
template <class Placement>
class memory_side {
public:
    using l15_cache = memsub::cache::set_associative_cache<
        memsub::replacement::lru, memsub::cache::write_policy::write_through, memsub::geometry,
        memsub::bypass::remote_only<home_of<Placement>>>;
    using l2_cache = memsub::cache::set_associative_cache<
        memsub::replacement::lru, memsub::cache::write_policy::write_back, memsub::geometry>;
    using waiter = fill_table::waiter;

    memory_side(const machine& m, const typename Placement::params& pp, bool with_l15,
                timing_mode timing = timing_mode::constant, const mcm_latency& latency = {},
                std::uint32_t l1_lines = 0)
        : m_(m)
        , placement_(pp)
        , ring_({.nodes = m.modules, .cycles_per_hop = 32})
        , links_(ring_)
        , timed_(timing == timing_mode::memory)
        , lat_(latency)
        , ring_links_(ring_, static_cast<std::uint32_t>(std::lround(m.link_bytes_per_cycle())),
                      latency.hop_cycles)
        , with_l15_(with_l15)
        , dram_(m.modules, 0)
        , dram_total_(m.modules, 0) {
        const memsub::geometry l2g = m.l2_geometry(with_l15);
        const memsub::geometry l15g = m.l15_geometry();
        for (std::uint32_t g = 0; g < m.modules; ++g) {
            l2_.emplace_back(l2g);
            if (with_l15)
                l15_.emplace_back(l15g, typename l15_cache::policy_params{},
                                  typename memsub::bypass::remote_only<home_of<Placement>>::params{
                                      .home_of = {&placement_}, .module = g, .modules = m.modules});
        }
        invalidators_.resize(with_l15 ? m.modules : 0);
        if (!timed_) return;
        for (std::uint32_t g = 0; g < m.modules; ++g)
            partitions_.emplace_back(
                memsub::memory::flat_memory::params{.latency_cycles = latency.dram_cycles,
                                                    .bytes_per_cycle = m.dram_bytes_per_cycle(),
                                                    .request_bytes = line_bytes,
                                                    .capacity = 1024});
        next_event_.assign(m.modules, memsub::never);
        l1_slots_ = std::bit_ceil(std::max(4 * l1_lines, 1u));
        l15_slots_ = with_l15 ? std::bit_ceil(4 * l15g.sets * l15g.ways) : 0;
        l1_lines_.resize(std::size_t{l1_slots_} * m.sms());
        l15_lines_.resize(std::size_t{l15_slots_} * m.modules);
    }
    memory_side(const memory_side&) = delete;
    memory_side& operator=(const memory_side&) = delete;

    /// Whether this configuration is simulated in the current run (the EDPSE runs need only
    /// the baseline and all three).
    [[nodiscard]] bool active() const noexcept { return active_; }
    void set_active(bool on) noexcept { active_ = on; }

    void begin_instruction() noexcept { instruction_hops_ = 0; }
    void end_instruction(bool stalling_load) noexcept {
        if (stalling_load) exposed_hops_ += instruction_hops_;
    }

    /// A request leaving an L1 of module `g`: a line read (`load`, `bytes` = the fill) or a
    /// store of `bytes` (write-evict L1: every store goes down). Timed: issued at cycle `t` by
    /// `warp`; returns when a load's data is back at the SM, memsub::never if it waits for a
    /// DRAM fill (reported through `advance_to`), 0 for a store; `l1_entry` is the L1's
    /// in-flight entry the reply fills in. Untimed: returns 0.
    std::uint64_t request(std::uint32_t g, const memsub::access& a, std::uint32_t bytes,
                          std::uint64_t t = 0, warp_id warp = {},
                          std::uint32_t l1_entry = fill_table::none) {
        const std::uint32_t home = placement_.place(a.address, g).partition;
        const bool load = a.kind == memsub::access_kind::load;
        now_ = std::max(now_, t);
        if (home == g) {
            ++r_.local_requests;
            if (!timed_) {
                l2(home, a);
                return 0;
            }
            const std::uint64_t arrive = t + lat_.to_l2_cycles;
            return load ? l2_load(home, g, a, bytes, arrive, warp, l1_entry, fill_table::none).ready
                        : l2_store(home, a, arrive);
        }
        ++r_.remote_requests;
        std::uint64_t leave = t; // when the request leaves its module
        if (with_l15_) {
            leave += lat_.l15_lookup_cycles;
            if (load) ++r_.l15_lookups;
            const auto res = l15_[g].access(a);
            if (load && res.hit) {
                ++r_.l15_hits;
                return timed_ ? l15_hit(g, a, leave + lat_.l15_hit_cycles, warp, l1_entry) : 0;
            }
            if (!load) bytes = res.bytes_written_down; // write-through: the store goes home
        }
        ++r_.ring_requests;
        if (load) {
            links_.record(home, g, bytes);
            instruction_hops_ = std::max(instruction_hops_, ring_.hops(home, g));
        } else {
            links_.record(g, home, bytes);
        }
        if (!timed_) {
            l2(home, a);
            return 0;
        }
        if (!load) // the payload crosses the ring; nobody waits for it
            return l2_store(home, a,
                            ring_links_.transfer(g, home, leave, bytes, now_) + lat_.to_l2_cycles);
        // A load's request carries no payload (headers are not modelled): it takes the hops,
        // not link bandwidth; the reply's payload reserves the links on its way back.
        const std::uint64_t request_hops =
            lat_.path_crossings == 2 ? ring_links_.unloaded_cycles(g, home) : 0;
        const std::uint32_t l15_entry = with_l15_ ? l15_slot(g, a) : fill_table::none;
        const slice_reply reply = l2_load(
            home, g, a, bytes, leave + request_hops + lat_.to_l2_cycles, warp, l1_entry, l15_entry);
        if (l15_entry != fill_table::none)
            l15_lines_[l15_entry] = {.line = line_of(a),
                                     .ready = reply.ready,
                                     .after = reply.after,
                                     .extra = reply.extra,
                                     .home = home};
        return reply.ready;
    }

    /// Timed: an L1 hit of `sm` at cycle `t`: its data is there after the hit latency, or when
    /// the reply that installed the line arrives (memsub::never: that reply waits for a DRAM
    /// fill, which `warp` now waits for too).
    std::uint64_t l1_hit(std::uint32_t sm, const memsub::access& a, std::uint64_t t, warp_id warp) {
        const std::uint64_t line = line_of(a);
        const inflight_line& e = l1_lines_[l1_slot(sm, line)];
        return e.line == line ? join(e, t + lat_.l1_hit_cycles, warp, fill_table::none)
                              : t + lat_.l1_hit_cycles;
    }
    /// Timed: the L1 entry for an L1 miss of `sm` (pass it to `request`), recorded as the reply
    /// `ready` (from `request`) once known.
    [[nodiscard]] std::uint32_t l1_slot(std::uint32_t sm, std::uint64_t line) const noexcept {
        return sm * l1_slots_ + static_cast<std::uint32_t>(hash(line) & (l1_slots_ - 1));
    }
    void note_l1_miss(std::uint32_t entry, const memsub::access& line_access,
                      std::uint64_t ready) noexcept {
        // A reply waiting for DRAM (never) is filled in when the fill completes.
        l1_lines_[entry] = ready == memsub::never
                               ? pending_
                               : inflight_line{.line = line_of(line_access), .ready = ready};
    }

    /// Timed: the earliest cycle at which `advance_to` reports or changes anything.
    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept { return earliest_; }

    /// Timed: the DRAM partitions advance to `cycle`; `complete(warp, ready)` for every read
    /// waiting on a fill that completed by then.
    template <class Complete>
    void advance_to(std::uint64_t cycle, Complete&& complete) {
        if (cycle < earliest_) return;
        for (std::uint32_t p = 0; p < partitions_.size(); ++p) {
            if (next_event_[p] > cycle) continue;
            dram_partition& part = partitions_[p];
            part.advance_to(cycle, [&](std::uint64_t id, std::uint64_t done) {
                const auto f = static_cast<std::uint32_t>(id);
                const std::uint64_t line = part.fills()[f].line;
                part.fills().complete(f, [&](const waiter& w) {
                    const std::uint64_t ready =
                        std::max(w.floor, std::max(done, w.after) + w.extra);
                    settle(l1_lines_, w.l1_entry, line, ready);
                    settle(l15_lines_, w.l15_entry, line, ready);
                    complete(w.warp, ready);
                });
            });
            next_event_[p] = part.next_event_cycle();
        }
        earliest_ = *std::min_element(next_event_.begin(), next_event_.end());
    }

    /// Kernel-launch boundary, `cycles` after the previous one (timed: the scheduler's cycles;
    /// untimed: its issue cycles, and the launch's time is the analytic model's), then the L1.5
    /// sync (every SM of a module sends it, the module's L1.5 flushes once).
    void end_launch(std::uint64_t cycles, std::uint64_t sync_id) {
        const double dram_cycles =
            static_cast<double>(*std::max_element(dram_.begin(), dram_.end())) /
            m_.dram_bytes_per_cycle();
        const double link_cycles =
            static_cast<double>(links_.max_link_bytes()) / m_.link_bytes_per_cycle();
        const double latency =
            static_cast<double>(exposed_hops_) * ring_.cycles_per_hop() / (m_.sms() * warps_per_sm);
        r_.issue_cycles += cycles;
        r_.dram_bound_cycles += static_cast<std::uint64_t>(dram_cycles);
        r_.link_bound_cycles += static_cast<std::uint64_t>(link_cycles);
        if (timed_) {
            r_.cycles += static_cast<double>(cycles);
        } else {
            r_.latency_cycles += latency;
            r_.cycles +=
                std::max({static_cast<double>(cycles), dram_cycles, link_cycles}) + latency;
        }
        r_.ring_payload_bytes += links_.total_bytes();
        r_.inter_module_bytes += links_.byte_hops();
        for (std::uint32_t l = 0; l < ring_.links(); ++l) link_total_[l] += links_.bytes_on(l);
        ++r_.launches;
        links_.reset();
        std::fill(dram_.begin(), dram_.end(), 0);
        exposed_hops_ = 0;
        for (std::uint32_t g = 0; g < l15_.size(); ++g)
            for (std::uint32_t s = 0; s < m_.sms_per_module; ++s)
                invalidators_[g].on_sync(sync_id, l15_[g]);
        // The private caches are empty now: forget their lines in flight.
        std::fill(l1_lines_.begin(), l1_lines_.end(), inflight_line{});
        std::fill(l15_lines_.begin(), l15_lines_.end(), inflight_line{});
    }

    [[nodiscard]] config_result& result() noexcept { return r_; }
    [[nodiscard]] config_result finish() {
        for (const auto& inv : invalidators_) {
            r_.l15_flushes += inv.stats().flushes;
            r_.l15_sync_commands += inv.stats().commands;
        }
        // Utilisation: the busiest DRAM partition's and ring link's busy time over the run.
        if (r_.cycles > 0) {
            r_.dram_utilisation =
                static_cast<double>(*std::max_element(dram_total_.begin(), dram_total_.end())) /
                m_.dram_bytes_per_cycle() / r_.cycles;
            // One module has no links.
            const std::uint64_t busiest_link =
                link_total_.empty() ? 0 : *std::max_element(link_total_.begin(), link_total_.end());
            r_.link_utilisation =
                static_cast<double>(busiest_link) / m_.link_bytes_per_cycle() / r_.cycles;
        }
        if constexpr (std::is_same_v<Placement, placement::first_touch>)
            for (std::uint32_t p = 0; p < m_.modules; ++p)
                r_.pages_per_partition.push_back(placement_.pages_in(p));
        return r_;
    }

private:
    /// A load's reply from its home slice: `ready` (memsub::never: it waits for a DRAM fill),
    /// and, for a private cache that installed the line, when it reached the slice and how long
    /// its way back took.
    struct slice_reply {
        std::uint64_t ready = 0, after = 0, extra = 0;
    };

    static std::uint64_t line_of(const memsub::access& a) noexcept {
        return a.address.value / line_bytes;
    }
    static std::uint64_t hash(std::uint64_t line) noexcept {
        return (line * 0x9e3779b97f4a7c15ull) >> 24;
    }
    [[nodiscard]] std::uint32_t l15_slot(std::uint32_t g, const memsub::access& a) const noexcept {
        return g * l15_slots_ + static_cast<std::uint32_t>(hash(line_of(a)) & (l15_slots_ - 1));
    }
    // The reply for `line` is back at `ready`: its entry, unless another line took it since.
    static void settle(std::vector<inflight_line>& lines, std::uint32_t entry, std::uint64_t line,
                       std::uint64_t ready) noexcept {
        if (entry != fill_table::none && lines[entry].line == line &&
            lines[entry].ready == memsub::never)
            lines[entry].ready = ready;
    }

    // A hit (data at `hit_ready` if the line were there) on a line installed by `e`'s request.
    std::uint64_t join(const inflight_line& e, std::uint64_t hit_ready, warp_id warp,
                       std::uint32_t l1_entry) {
        if (e.ready != memsub::never) return std::max(hit_ready, e.ready);
        fill_table& fills = partitions_[e.home].fills();
        const std::uint32_t f = fills.find(e.line);
        MEMSUB_ASSERT(f != fill_table::none); // a pending entry's fill is still owed
        fills.add_waiter(f, {.warp = warp,
                             .after = e.after,
                             .floor = hit_ready,
                             .extra = e.extra,
                             .l1_entry = l1_entry});
        return memsub::never;
    }

    std::uint64_t l15_hit(std::uint32_t g, const memsub::access& a, std::uint64_t hit_ready,
                          warp_id warp, std::uint32_t l1_entry) {
        const inflight_line& e = l15_lines_[l15_slot(g, a)];
        if (e.line != line_of(a)) return hit_ready;
        pending_ = e; // the L1 entry of a hit on a pending line waits on the same fill
        return join(e, hit_ready, warp, l1_entry);
    }

    // A load reaching slice `home` at `arrive` for module `g`.
    slice_reply l2_load(std::uint32_t home, std::uint32_t g, const memsub::access& a,
                        std::uint32_t bytes, std::uint64_t arrive, warp_id warp,
                        std::uint32_t l1_entry, std::uint32_t l15_entry) {
        const auto res = l2_[home].access(a);
        count_dram(home, res);
        dram_partition& part = partitions_[home];
        fill_table& fills = part.fills();
        std::uint32_t f = fills.find(line_of(a));
        std::uint64_t depart = arrive; // when the data leaves the slice, on an idle DRAM
        if (f != fill_table::none) {
            depart = std::max(arrive, fills[f].nominal_done);
        } else if (!res.hit) {
            depart = arrive + lat_.dram_cycles;
            f = fills.insert(line_of(a), depart);
            send(home, arrive, f, a);
        }
        write_back(home, res, arrive, a.requester);
        // The reply reserves the ring links now, at its departure on an idle DRAM (see
        // ring_links).
        std::uint64_t extra = lat_.l2_return_cycles();
        if (home != g) extra += ring_links_.transfer(home, g, depart, bytes, now_) - depart;
        pending_ = {.line = line_of(a),
                    .ready = memsub::never,
                    .after = arrive,
                    .extra = extra,
                    .home = home};
        if (f == fill_table::none) return {depart + extra, arrive, extra};
        fills.add_waiter(f, {.warp = warp,
                             .after = arrive,
                             .floor = 0,
                             .extra = extra,
                             .l1_entry = l1_entry,
                             .l15_entry = l15_entry});
        return {memsub::never, arrive, extra};
    }

    // A store reaching slice `home` at `arrive`: nobody waits; a write-allocate miss reads the
    // line (through an MSHR, so later loads wait for it) and a dirty victim is written.
    std::uint64_t l2_store(std::uint32_t home, const memsub::access& a, std::uint64_t arrive) {
        const auto res = l2_[home].access(a);
        count_dram(home, res);
        fill_table& fills = partitions_[home].fills();
        if (res.bytes_fetched != 0 && fills.find(line_of(a)) == fill_table::none)
            send(home, arrive, fills.insert(line_of(a), arrive + lat_.dram_cycles), a);
        write_back(home, res, arrive, a.requester);
        return 0;
    }

    void send(std::uint32_t home, std::uint64_t arrive, std::uint64_t id, const memsub::access& a) {
        partitions_[home].send(arrive, id, memsub::byte_address{line_of(a) * line_bytes},
                               a.requester);
        next_event_[home] = partitions_[home].next_event_cycle();
        earliest_ = std::min(earliest_, next_event_[home]);
    }

    template <class Result>
    void write_back(std::uint32_t home, const Result& res, std::uint64_t arrive,
                    std::uint32_t requester) {
        for (const auto& e : res.evictions)
            if (e.dirty) {
                partitions_[home].send(arrive, dram_partition::write_id, e.address, requester);
                next_event_[home] = partitions_[home].next_event_cycle();
                earliest_ = std::min(earliest_, next_event_[home]);
            }
    }

    template <class Result>
    void count_dram(std::uint32_t home, const Result& res) {
        dram_[home] += res.bytes_fetched;
        dram_total_[home] += res.bytes_fetched;
        r_.dram_read_bytes += res.bytes_fetched;
        for (const auto& e : res.evictions)
            if (e.dirty) {
                dram_[home] += e.bytes;
                dram_total_[home] += e.bytes;
                r_.dram_write_bytes += e.bytes;
            }
    }

    void l2(std::uint32_t home, const memsub::access& a) { count_dram(home, l2_[home].access(a)); }

    machine m_;
    Placement placement_;
    topology::ring ring_;
    topology::link_traffic<topology::ring> links_;
    bool timed_;
    mcm_latency lat_;
    ring_links ring_links_;
    std::uint64_t now_ = 0; // the host's cycle: the latest issue or advance
    bool with_l15_;
    bool active_ = true;
    std::deque<l2_cache> l2_;
    std::deque<l15_cache> l15_;
    std::vector<memsub::cache::sync_epoch_invalidator> invalidators_;
    std::vector<std::uint64_t> dram_;       // bytes per partition in this launch
    std::vector<std::uint64_t> dram_total_; // bytes per partition in the run
    std::vector<std::uint64_t> link_total_ = std::vector<std::uint64_t>(ring_.links(), 0);
    std::uint32_t instruction_hops_ = 0;
    std::uint64_t exposed_hops_ = 0;
    // Timed only.
    std::deque<dram_partition> partitions_;
    std::vector<std::uint64_t> next_event_; // per partition
    std::uint64_t earliest_ = memsub::never;
    std::uint32_t l1_slots_ = 0, l15_slots_ = 0;
    std::vector<inflight_line> l1_lines_, l15_lines_;
    inflight_line pending_{}; // the fill a request answered `never` waits on
    config_result r_;
};

} // namespace memsub::gpu::mcm
