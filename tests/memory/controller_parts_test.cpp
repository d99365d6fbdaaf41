// The controllers' compile-time parts (memory/controller_parts_concept.hpp): a minimal archetype of
// each concept models it, one broken in a single requirement fails exactly that requirement (its
// label), and the write-drain policy's rules on a hand-driven channel.
#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>
#include <type_traits>

#include <memsub/memory/bank_command_queues.hpp>
#include <memsub/memory/controller_parts_concept.hpp>
#include <memsub/memory/dram_refresh.hpp>
#include <memsub/memory/dramsim3_controller.hpp>
#include <memsub/memory/shared_queues.hpp>
#include <memsub/memory/watermark_write_drain.hpp>

namespace {

using namespace memsub;
using namespace memsub::memory;

constexpr unsigned bit(int i) {
    return 1u << i;
}

// -------------------------------------------------------------- write_drain_policy WD1–WD5

/// A write-drain policy that breaks requirement `Broken` (WD1–WD5 = 1–5; 0 = none).
template <int Broken>
struct drain_t {
    drain_t(const write_drain_knobs&, std::uint32_t) requires(Broken != 1) {}
    explicit drain_t(int) {}
    template <class Oldest>
    drain_step update(const drain_observation&, std::uint64_t, Oldest&&) noexcept(Broken != 2) {
        return {};
    }
    bool draining() const noexcept { return false; }
    std::uint64_t started_at() const noexcept requires(Broken != 3) { return 0; }
    void on_write_served() noexcept {}
    void on_read_served() noexcept(Broken != 4) {}
    void end_on_hazard() noexcept requires(Broken != 5) {}
};

template <class D>
constexpr unsigned wd_failures() {
    return (wd1_construct<D> ? 0 : bit(1)) | (wd2_update<D> ? 0 : bit(2)) |
           (wd3_mode<D> ? 0 : bit(3)) | (wd4_served<D> ? 0 : bit(4)) | (wd5_hazard<D> ? 0 : bit(5));
}

static_assert(wd_failures<drain_t<0>>() == 0);
static_assert(wd_failures<drain_t<1>>() == bit(1));
static_assert(wd_failures<drain_t<2>>() == bit(2));
static_assert(wd_failures<drain_t<3>>() == bit(3));
static_assert(wd_failures<drain_t<4>>() == bit(4));
static_assert(wd_failures<drain_t<5>>() == bit(5));
static_assert(diagnose_write_drain_policy<drain_t<0>>());
static_assert(diagnose_write_drain_policy<watermark_write_drain>());
static_assert(!write_drain_policy<drain_t<3>>);

// -------------------------------------------------------------- queue_organisation QO1–QO5

struct constant_flag {
    static constexpr bool command_queues = false;
};
struct variable_flag {
    static inline bool command_queues = false; // not a constant
};

struct queue_knobs {};
struct knobs_without_default {
    explicit knobs_without_default(int) {}
};
struct queue_channel {
    queue_channel(std::uint32_t, std::uint32_t) {}
};

/// A queue organisation that breaks requirement `Broken` (QO1–QO8 = 1–8; 0 = none).
template <int Broken>
struct queues_t : std::conditional_t<Broken == 2, variable_flag, constant_flag> {
    using params = std::conditional_t<Broken == 6, knobs_without_default, queue_knobs>;
    using channel_state = std::conditional_t<Broken == 7, queue_knobs, queue_channel>;
    template <class Ctl>
    static bool holds_write(const Ctl&, std::uint32_t, std::uint32_t, std::uint32_t,
                            byte_address) noexcept(Broken != 8) {
        return false;
    }
    static constexpr std::conditional_t<Broken == 1, int, std::string_view> name{};
    template <class Ctl>
    static bool has_room(const Ctl&, std::uint32_t, bool) noexcept(Broken != 3) {
        return true;
    }
    template <class Ctl>
    static void place(Ctl&, std::uint32_t, const mem_request&, std::uint32_t, std::uint32_t,
                      std::uint64_t) noexcept requires(Broken != 4) {}
    template <class Ctl>
    static int run_channel(Ctl&, std::uint32_t, std::uint64_t) noexcept requires(Broken == 5) {
        return 0;
    }
    template <class Ctl>
    static void run_channel(Ctl&, std::uint32_t, std::uint64_t) noexcept requires(Broken != 5) {}
};

template <class Q>
constexpr unsigned qo_failures() {
    return (qo1_name<Q> ? 0 : bit(1)) | (qo2_command_queues<Q> ? 0 : bit(2)) |
           (qo3_has_room<Q> ? 0 : bit(3)) | (qo4_place<Q> ? 0 : bit(4)) |
           (qo5_run_channel<Q> ? 0 : bit(5)) | (qo6_params<Q> ? 0 : bit(6)) |
           (qo7_channel_state<Q> ? 0 : bit(7)) | (qo8_holds_write<Q> ? 0 : bit(8));
}

static_assert(qo_failures<queues_t<0>>() == 0);
static_assert(qo_failures<queues_t<1>>() == bit(1));
static_assert(qo_failures<queues_t<2>>() == bit(2));
static_assert(qo_failures<queues_t<3>>() == bit(3));
static_assert(qo_failures<queues_t<4>>() == bit(4));
static_assert(qo_failures<queues_t<5>>() == bit(5));
static_assert(qo_failures<queues_t<6>>() == bit(6));
static_assert(qo_failures<queues_t<7>>() == bit(7));
static_assert(qo_failures<queues_t<8>>() == bit(8));
static_assert(diagnose_queue_organisation<queues_t<0>>());
static_assert(diagnose_queue_organisation<shared_queues>());
static_assert(diagnose_queue_organisation<bank_command_queues>());
static_assert(!queue_organisation<queues_t<2>>);
// The named DRAMSim3 configuration is the controller with bank command queues.
static_assert(dramsim3_controller<>::queues_type::command_queues);
static_assert(!fr_fcfs_controller<>::queues_type::command_queues);

// -------------------------------------------------------------- refresh_rule RF1–RF3

struct constant_precharge {
    static constexpr refresh_precharge precharge = refresh_precharge::all_at_once;
};
struct variable_precharge {
    static inline refresh_precharge precharge = refresh_precharge::all_at_once; // not a constant
};

/// A refresh rule that breaks requirement `Broken` (RF1–RF3 = 1–3; 0 = none).
template <int Broken>
struct refresh_t : std::conditional_t<Broken == 2, variable_precharge, constant_precharge> {
    static constexpr std::conditional_t<Broken == 1, int, std::string_view> name{};
    static std::uint64_t preempt_deadline(const dram_channel&,
                                          std::uint32_t) noexcept(Broken != 3) {
        return never;
    }
};

template <class R>
constexpr unsigned rf_failures() {
    return (rf1_name<R> ? 0 : bit(1)) | (rf2_precharge<R> ? 0 : bit(2)) |
           (rf3_preempt_deadline<R> ? 0 : bit(3));
}

static_assert(rf_failures<refresh_t<0>>() == 0);
static_assert(rf_failures<refresh_t<1>>() == bit(1));
static_assert(rf_failures<refresh_t<2>>() == bit(2));
static_assert(rf_failures<refresh_t<3>>() == bit(3));
static_assert(diagnose_refresh_rule<refresh_t<0>>());
static_assert(diagnose_refresh_rule<jedec_postponed_refresh>());
static_assert(diagnose_refresh_rule<dramsim3_refresh>());
static_assert(!refresh_rule<refresh_t<3>>);
// The named DRAMSim3 configuration preempts for refresh; the default controllers postpone.
static_assert(std::is_same_v<dramsim3_controller<>::refresh_type, dramsim3_refresh>);
static_assert(std::is_same_v<fr_fcfs_controller<>::refresh_type, jedec_postponed_refresh>);

/// Drives the policy one decision: `writes` queued, reads queued or not.
drain_step step(watermark_write_drain& d, std::uint32_t writes, bool reads, std::uint64_t t,
                std::uint64_t reads_absent_since = never, std::uint64_t oldest = 0) {
    return d.update(drain_observation{.writes = writes,
                                      .reads_wait = reads,
                                      .reads_absent_since = reads ? never : reads_absent_since,
                                      .idle = !reads},
                    t, [oldest]() noexcept { return oldest; });
}

TEST_CASE("watermark_write_drain: a drain starts at the high watermark and ends at the low") {
    // 10 write slots, 80 / 20 %: starts at 8 writes, ends at 2 or fewer.
    watermark_write_drain d({.high_watermark_pct = 80,
                             .low_watermark_pct = 20,
                             .idle_drain_min = 0,
                             .max_wait_cycles = 0,
                             .drain_queued_at_start = false},
                            10);
    CHECK_FALSE(step(d, 7, true, 1).started);
    CHECK_FALSE(d.draining());
    CHECK(step(d, 8, true, 2).started);
    CHECK(d.draining());
    CHECK(d.started_at() == 2);
    CHECK_FALSE(step(d, 3, true, 3).started);
    CHECK(d.draining());
    step(d, 2, true, 4);
    CHECK_FALSE(d.draining());
}

TEST_CASE("watermark_write_drain: the writes queued at the start bound a drain") {
    watermark_write_drain d({.high_watermark_pct = 50, .max_wait_cycles = 0}, 8);
    CHECK(step(d, 4, true, 1).started);
    for (int i = 0; i < 4; ++i) d.on_write_served();
    step(d, 4, true, 2); // 4 writes arrived meanwhile: the drain still ends, then restarts
    CHECK(d.draining());
    CHECK(d.started_at() == 2);
}

TEST_CASE("watermark_write_drain: a R->W hazard holds drains until a read is served") {
    watermark_write_drain d({.high_watermark_pct = 50, .max_wait_cycles = 0}, 8);
    CHECK(step(d, 4, true, 1).started);
    d.end_on_hazard();
    CHECK_FALSE(d.draining());
    CHECK_FALSE(step(d, 8, true, 2).started);
    d.on_read_served();
    CHECK(step(d, 8, true, 3).started);
}

TEST_CASE("watermark_write_drain: idle drains, the idle flush and the age bound") {
    const write_drain_knobs k{.idle_drain_min = 3, .idle_flush_cycles = 40, .max_wait_cycles = 100};
    watermark_write_drain idle(k, 32);
    CHECK(step(idle, 3, false, 5, 0).started); // no read: 3 writes are enough
    watermark_write_drain flush(k, 32);
    const drain_step w = step(flush, 2, false, 5, 0);
    CHECK_FALSE(w.started);
    CHECK(w.wake == 40); // no read since 0: the flush holds from 40
    CHECK(step(flush, 2, false, 40, 0).started);
    watermark_write_drain aged(k, 32);
    const drain_step a = step(aged, 1, true, 50, never, 7);
    CHECK_FALSE(a.started);
    CHECK(a.wake == 107); // reads keep coming: the oldest write (visible at 7) bounds the wait
    CHECK(step(aged, 1, true, 107, never, 7).started);
    // A controller that serves writes whenever no read can go has no idle or age starts.
    watermark_write_drain opportunistic(k, 32);
    CHECK_FALSE(
        opportunistic
            .update(
                {.writes = 3, .reads_absent_since = 0, .idle = true, .writes_when_no_read = true},
                500, [] { return std::uint64_t{0}; })
            .started);
}

} // namespace
