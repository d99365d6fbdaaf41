// memsub — the compile-time parts of the DRAM controllers: `write_drain_policy` (when a channel
// stops serving reads to drain its queued writes in a batch, and when it goes back),
// `queue_organisation` (how a controller's requests wait between arrival and selection) and
// `refresh_rule` (how a due refresh meets the requests still to be placed).
//
// Each requirement below is also a concept of its own (`wd1_construct` … `wd5_hazard`,
// `qo1_name` … `qo8_holds_write`, `rf1_name` … `rf3_preempt_deadline`), and
// `diagnose_write_drain_policy<D>()`, `diagnose_queue_organisation<Q>()` and
// `diagnose_refresh_rule<R>()` name the broken ones (labels: docs/concepts.md).
//
// write_drain_policy — a type D models it when (one object per channel):
//   WD1. `D(const write_drain_knobs&, std::uint32_t write_slots)` constructs it: the knobs the
//        controller's params carry, and the write entries of the channel the watermarks are
//        percentages of. It starts in read mode.
//   WD2. `d.update(const drain_observation&, t, oldest_write)` noexcept -> `drain_step`: called
//        once per decision cycle t (non-decreasing) before the controller selects; it ends or
//        starts a drain and returns whether it started one and the first cycle at which a
//        waiting start condition (an idle flush, a write's age) would hold (never if none).
//        `oldest_write()` -> std::uint64_t, the visibility cycle of the oldest queued write; the
//        policy calls it only when it needs it (a controller may have to search its queues).
//   WD3. `d.draining()` const noexcept -> bool: the channel serves writes first;
//        `d.started_at()` const noexcept -> std::uint64_t: the decision cycle the drain began.
//   WD4. `d.on_write_served()` and `d.on_read_served()` noexcept: the controller served
//        (selected, or moved into a command queue) a write during a drain / any read.
//   WD5. `d.end_on_hazard()` noexcept: the drain ends because the write about to be served has
//        an older read of its line queued; the read goes first.
//
// queue_organisation — a type Q models it when (all static; the controller is `ctl`, which
// makes Q a friend, and its channels are named by index):
//   QO1. `Q::name` -> std::string_view.
//   QO2. `Q::command_queues` is a constant bool: the scheduler selects among per-bank command
//        queues fed from the transaction queues (the controller then sizes command-queue
//        storage and requires `bank_command_queue` ≥ 1).
//   QO3. `Q::has_room(ctl, channel, write)` noexcept -> bool: the channel's queues take a
//        request of that direction (the controller adds its own in-flight limit).
//   QO4. `Q::place(ctl, channel, request, row, bank, visible_at)` noexcept: a request not
//        served from the write queue (forwarding, merging) joins the queues.
//   QO5. `Q::run_channel(ctl, channel, until)` noexcept: performs the channel's decisions due
//        up to cycle `until` (MC4 of memory/concept.hpp, for one channel).
//   QO6. `typename Q::params` is a default-constructible aggregate of the knobs only this
//        organisation reads; the controller's params carry it as `queues`.
//   QO7. `typename Q::channel_state` is constructible from (std::uint32_t banks,
//        std::uint32_t bank_command_queue): the per-channel state only this organisation
//        keeps; the controller's channel carries it as `q`.
//   QO8. `Q::holds_write(ctl, channel, bank, row, address)` noexcept -> bool: a write to the
//        line of `address` waits in the organisation outside the write queue (forwarding and
//        merging serve from it as from the write queue).
//
// refresh_rule — a type R models it when (all static):
//   RF1. `R::name` -> std::string_view.
//   RF2. `R::precharge` is a constant `refresh_precharge`: how an all-bank refresh precharges
//        its rank's open banks (dram_channel.hpp).
//   RF3. `R::preempt_deadline(const dram_channel&, bank)` noexcept -> std::uint64_t: a request
//        at `bank` whose column command would issue at or after this cycle is not selected
//        before the refresh (its PRE / ACT before that cycle still issue); never = the refresh
//        waits for the commands already placed.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/dram_channel.hpp>

namespace memsub::memory {

/// The write-drain knobs a controller's params carry (each controller keeps its own defaults:
/// dram_controller DRAMSim3's, partitioned_controller gem5's watermarks).
struct write_drain_knobs {
    /// A drain starts when the queued writes reach this percentage of the write slots (or more).
    std::uint32_t high_watermark_pct = 100;
    /// A drain may end once the queued writes are down to this percentage of the write slots.
    std::uint32_t low_watermark_pct = 0;
    /// With the idle condition (no read waiting), a drain starts at this many writes; 0 = never.
    std::uint32_t idle_drain_min = 9;
    /// With no read queued for this many cycles, the queued writes drain whatever their number.
    std::uint32_t idle_flush_cycles = 256;
    /// A drain starts once the oldest write has waited this many cycles (0 = no bound).
    std::uint32_t max_wait_cycles = 1024;
    /// A drain serves at most the writes queued when it started.
    bool drain_queued_at_start = true;
    /// While reads wait, a drain ends after this many writes (0 = no such rule).
    std::uint32_t min_writes_per_switch = 0;
};

namespace detail {
/// The write-drain knobs of a controller's flat `params` (its `write_*` fields and
/// `min_writes_per_switch`, kept flat so a host sets them by designated initializer).
template <class Params>
[[nodiscard]] write_drain_knobs drain_knobs_of(const Params& p,
                                               bool drain_queued_at_start) noexcept {
    return {.high_watermark_pct = p.write_high_watermark_pct,
            .low_watermark_pct = p.write_low_watermark_pct,
            .idle_drain_min = p.write_idle_drain_min,
            .idle_flush_cycles = p.write_idle_flush_cycles,
            .max_wait_cycles = p.write_max_wait_cycles,
            .drain_queued_at_start = drain_queued_at_start,
            .min_writes_per_switch = p.min_writes_per_switch};
}
} // namespace detail

/// What a controller observes of one channel at a decision cycle, for its write-drain policy.
struct drain_observation {
    std::uint32_t writes = 0;                 ///< writes queued (not yet served)
    bool reads_wait = false;                  ///< reads queued
    std::uint64_t reads_absent_since = never; ///< no read queued since (never: some are)
    /// The controller's idle condition for `idle_drain_min` (shared queues: no read queued;
    /// DRAMSim3's two levels: every command queue empty).
    bool idle = false;
    /// The controller's own reason to drain now and not to stop (a full write FIFO that blocks
    /// its requester).
    bool must_drain = false;
    /// The controller serves writes whenever no read can go, so absent reads already let
    /// writes through: the idle and age starts are off.
    bool writes_when_no_read = false;
};

/// The outcome of `write_drain_policy::update`.
struct drain_step {
    std::uint64_t wake = never; ///< a waiting start condition holds from this cycle
    bool started = false;       ///< a drain started at this decision
};

namespace detail {
struct oldest_write_archetype {
    std::uint64_t operator()() const noexcept { return 0; }
};
/// Stands for the controller a queue organisation works on: QO3–QO5 are checked as
/// declarations (their bodies are instantiated by the controller itself).
struct queue_host_archetype {};
} // namespace detail

// ------------------------------------------------------------ one concept per requirement

/// WD1: `D(knobs, write_slots)` constructs the policy of one channel, in read mode.
template <class D>
concept wd1_construct = std::constructible_from<D, const write_drain_knobs&, std::uint32_t>;

/// WD2: `d.update(observation, t, oldest_write)` noexcept, once per decision cycle, starts or
/// ends a drain and says when a waiting start condition would hold.
template <class D>
concept wd2_update = requires(D& d, const drain_observation& o, std::uint64_t t,
                              detail::oldest_write_archetype oldest) {
    { d.update(o, t, oldest) }
    noexcept->std::same_as<drain_step>;
};

/// WD3: `d.draining()` (the channel serves writes first) and `d.started_at()` (the decision
/// cycle the drain began), const noexcept.
template <class D>
concept wd3_mode = requires(const D& d) {
    { d.draining() }
    noexcept->std::same_as<bool>;
    { d.started_at() }
    noexcept->std::same_as<std::uint64_t>;
};

/// WD4: `d.on_write_served()` and `d.on_read_served()` noexcept count what the controller served.
template <class D>
concept wd4_served = requires(D& d) {
    { d.on_write_served() }
    noexcept;
    { d.on_read_served() }
    noexcept;
};

/// WD5: `d.end_on_hazard()` noexcept ends the drain so that an older read of the line about
/// to be written goes first.
template <class D>
concept wd5_hazard = requires(D& d) {
    { d.end_on_hazard() }
    noexcept;
};

/// A channel's write-drain policy (WD1–WD5): when the channel stops serving reads to drain its
/// queued writes in a batch, and when it goes back.
template <class D>
concept write_drain_policy =
    wd1_construct<D> && wd2_update<D> && wd3_mode<D> && wd4_served<D> && wd5_hazard<D>;

/// QO1: `Q::name` names the organisation.
template <class Q>
concept qo1_name = requires {
    { Q::name } -> std::convertible_to<std::string_view>;
};

/// QO2: `Q::command_queues`, a constant bool: whether the scheduler selects among per-bank
/// command queues fed from the transaction queues.
template <class Q>
concept qo2_command_queues = requires {
    { Q::command_queues } -> std::convertible_to<bool>;
    typename std::integral_constant<bool, Q::command_queues>; // a constant
};

/// QO3: static `Q::has_room(ctl, channel, write)` noexcept: the channel's queues take a request
/// of that direction.
template <class Q>
concept qo3_has_room = requires(const detail::queue_host_archetype& ctl, std::uint32_t c,
                                bool write) {
    { Q::has_room(ctl, c, write) }
    noexcept->std::same_as<bool>;
};

/// QO4: static `Q::place(ctl, channel, request, row, bank, visible_at)` noexcept: a request joins
/// the channel's queues.
template <class Q>
concept qo4_place = requires(detail::queue_host_archetype& ctl, std::uint32_t c,
                             const mem_request& r, std::uint32_t row, std::uint32_t bank,
                             std::uint64_t visible) {
    { Q::place(ctl, c, r, row, bank, visible) }
    noexcept;
};

/// QO5: static `Q::run_channel(ctl, channel, until)` noexcept performs the channel's decisions
/// due up to cycle `until`.
template <class Q>
concept qo5_run_channel = requires(detail::queue_host_archetype& ctl, std::uint32_t c,
                                   std::uint64_t until) {
    { Q::run_channel(ctl, c, until) }
    noexcept->std::same_as<void>;
};

/// QO6: `Q::params`, a default-constructible aggregate of the knobs only this organisation
/// reads; the controller's params carry it as `queues`.
template <class Q>
concept qo6_params = requires {
    typename Q::params;
}
&&std::default_initializable<typename Q::params>;

/// QO7: `Q::channel_state`, constructible from (banks, bank_command_queue): the per-channel
/// state only this organisation keeps; the controller's channel carries it as `q`.
template <class Q>
concept qo7_channel_state = requires {
    typename Q::channel_state;
}
&&std::constructible_from<typename Q::channel_state, std::uint32_t, std::uint32_t>;

/// QO8: static `Q::holds_write(ctl, channel, bank, row, address)` noexcept: a write to the line
/// of `address` waits in the organisation outside the write queue (forwarding and merging serve
/// from it as from the write queue).
template <class Q>
concept qo8_holds_write = requires(const detail::queue_host_archetype& ctl, std::uint32_t c,
                                   std::uint32_t bank, std::uint32_t row, byte_address a) {
    { Q::holds_write(ctl, c, bank, row, a) }
    noexcept->std::same_as<bool>;
};

/// How a controller's requests wait between arrival and selection (QO1–QO8): shared transaction
/// queues, or those plus per-bank command queues. All static; the controller makes Q a friend.
template <class Q>
concept queue_organisation =
    qo1_name<Q> && qo2_command_queues<Q> && qo3_has_room<Q> && qo4_place<Q> && qo5_run_channel<Q> &&
    qo6_params<Q> && qo7_channel_state<Q> && qo8_holds_write<Q>;

/// RF1: `R::name` names the refresh rule.
template <class R>
concept rf1_name = requires {
    { R::name } -> std::convertible_to<std::string_view>;
};

/// RF2: `R::precharge`, a constant `refresh_precharge`: how an all-bank refresh precharges its
/// rank's open banks, all at once or one per cycle.
template <class R>
concept rf2_precharge = requires {
    { R::precharge } -> std::convertible_to<refresh_precharge>;
    typename std::integral_constant<refresh_precharge, R::precharge>; // a constant
};

/// RF3: static `R::preempt_deadline(channel, bank)` noexcept: a request at `bank` whose column
/// command would issue at or after this cycle is not selected before the refresh; `never` = the
/// refresh waits for the commands already placed.
template <class R>
concept rf3_preempt_deadline = requires(const dram_channel& ch, std::uint32_t bank) {
    { R::preempt_deadline(ch, bank) }
    noexcept->std::same_as<std::uint64_t>;
};

/// How a controller refreshes around its requests (RF1–RF3): JEDEC postponement or DRAMSim3's
/// rank preemption (memory/dram_refresh.hpp).
template <class R>
concept refresh_rule = rf1_name<R> && rf2_precharge<R> && rf3_preempt_deadline<R>;

/// Fails to compile with one message per broken requirement (WD1–WD5).
template <class D>
consteval bool diagnose_write_drain_policy() {
    static_assert(wd1_construct<D>, "WD1: D(const write_drain_knobs&, std::uint32_t write_slots) "
                                    "must construct it");
    static_assert(wd2_update<D>, "WD2: d.update(const drain_observation&, std::uint64_t, "
                                 "oldest_write) must be noexcept and return drain_step");
    static_assert(wd3_mode<D>, "WD3: d.draining() -> bool and d.started_at() -> std::uint64_t "
                               "const noexcept must exist");
    static_assert(wd4_served<D>, "WD4: d.on_write_served() and d.on_read_served() must be "
                                 "noexcept");
    static_assert(wd5_hazard<D>, "WD5: d.end_on_hazard() must be noexcept");
    return write_drain_policy<D>;
}

/// Fails to compile with one message per broken requirement (QO1–QO8).
template <class Q>
consteval bool diagnose_queue_organisation() {
    static_assert(qo1_name<Q>, "QO1: Q::name must convert to std::string_view");
    static_assert(qo2_command_queues<Q>, "QO2: Q::command_queues must be a constant bool");
    static_assert(qo3_has_room<Q>, "QO3: Q::has_room(const controller&, std::uint32_t, bool) "
                                   "must be static, noexcept and return bool");
    static_assert(qo4_place<Q>, "QO4: Q::place(controller&, std::uint32_t, const mem_request&, "
                                "row, bank, visible_at) must be static and noexcept");
    static_assert(qo5_run_channel<Q>, "QO5: Q::run_channel(controller&, std::uint32_t, "
                                      "std::uint64_t) must be static, noexcept and return void");
    static_assert(qo6_params<Q>, "QO6: typename Q::params must be default-constructible");
    static_assert(qo7_channel_state<Q>, "QO7: typename Q::channel_state must be constructible "
                                        "from (std::uint32_t banks, std::uint32_t "
                                        "bank_command_queue)");
    static_assert(qo8_holds_write<Q>, "QO8: Q::holds_write(const controller&, std::uint32_t, "
                                      "bank, row, byte_address) must be static, noexcept and "
                                      "return bool");
    return queue_organisation<Q>;
}

/// Fails to compile with one message per broken requirement (RF1–RF3).
template <class R>
consteval bool diagnose_refresh_rule() {
    static_assert(rf1_name<R>, "RF1: R::name must convert to std::string_view");
    static_assert(rf2_precharge<R>, "RF2: R::precharge must be a constant refresh_precharge");
    static_assert(rf3_preempt_deadline<R>, "RF3: R::preempt_deadline(const dram_channel&, "
                                           "std::uint32_t) must be static, noexcept and return "
                                           "std::uint64_t");
    return refresh_rule<R>;
}

} // namespace memsub::memory
