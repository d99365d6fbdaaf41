// The mode selectors and LATTE-CC's latency arithmetic ([Dissertation] §4.2, §4.3): worked
// examples computed by hand, the learning schedule over a period, and config errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include <memsub/selection/all.hpp>

using namespace memsub;
using namespace memsub::selection;

namespace {

using kind = access_outcome::kind;

access_outcome hit(std::uint32_t set, std::uint32_t mode, std::uint32_t latency) {
    return access_outcome{.set = set_index{set},
                          .what = kind::hit,
                          .mode = mode,
                          .hit_latency = latency,
                          .compressed = mode != 0};
}
access_outcome fill(std::uint32_t set, std::uint32_t mode) {
    return access_outcome{.set = set_index{set}, .what = kind::fill, .mode = mode};
}
access_outcome store(std::uint32_t set) {
    return access_outcome{.set = set_index{set}, .what = kind::store};
}

// LATTE-CC's dedicated sets on the 32-set L1D (complement-select, 4 per mode).
constexpr std::uint32_t leader_of_mode[3] = {0, 7, 2};
constexpr std::uint32_t a_follower = 1;

template <class F>
std::string config_error_of(F&& f) {
    try {
        f();
    } catch (const config_error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("gpu_amat: the max form credits the hidden part of a hit's latency") {
    // 10 hits of 14 cycles, 5 misses of 120, tolerance 4: (10·10 + 5·120) / 15.
    CHECK(gpu_amat(10, 14.0, 5, 120.0, 4.0) == doctest::Approx(700.0 / 15.0));
    // Tolerance above the hit latency: the hits cost nothing (not a negative amount).
    CHECK(gpu_amat(10, 14.0, 5, 120.0, 20.0) == doctest::Approx(600.0 / 15.0));
    // The printed min(…, 0) would give (10·min(10,0) + 600) / 15 = 40 for tolerance 4 as well;
    // the max form differs there.
    CHECK(gpu_amat(10, 14.0, 5, 120.0, 4.0) != doctest::Approx(40.0));
    CHECK(gpu_amat(0, 0.0, 0, 120.0, 0.0) == 0.0);
    CHECK(gpu_amat(0, 0.0, 3, 120.0, 0.0) == doctest::Approx(120.0));
}

TEST_CASE("decompression_queue: Eq. 4.3, latency × (queue position + 1)") {
    CHECK(effective_hit_latency(14, 0) == 14);
    CHECK(effective_hit_latency(14, 2) == 42);
    decompression_queue q(14);
    // Three lines arriving together (one warp instruction's requests) queue behind each other.
    CHECK(q.enter(0) == 14);
    CHECK(q.last_position() == 0);
    CHECK(q.enter(0) == 28);
    CHECK(q.enter(0) == 42);
    CHECK(q.last_position() == 2);
    // Idle again by cycle 100.
    CHECK(q.enter(100) == 14);
    // Busy until 114; at 105 one line is still ahead (⌈9 / 14⌉ = 1).
    CHECK(q.enter(105) == 28);
    CHECK(q.busy_until() == 133);
    // Mode 0 has no decompressor.
    decompression_queue none(0);
    CHECK(none.enter(5) == 0);
}

TEST_CASE("latte_cc: dedicated sets lead only in the learning EP of each period") {
    latte_cc s(selection_shape{}, {.schedule = {.ep_accesses = 8, .eps_per_period = 3}});
    for (std::uint32_t m = 0; m < 3; ++m)
        CHECK(s.insertion_mode(set_index{leader_of_mode[m]}) == m);
    CHECK(s.insertion_mode(set_index{a_follower}) == 0);
    CHECK(s.learning());
    // Only followers' accesses: nothing is counted, no mode has samples, the mode stays 0.
    for (int i = 0; i < 8; ++i) s.on_access(store(a_follower));
    CHECK_FALSE(s.learning());
    CHECK(s.ep_in_period() == 1);
    CHECK(s.decisions() == 1);
    for (std::uint32_t m = 0; m < 3; ++m)
        CHECK(s.insertion_mode(set_index{leader_of_mode[m]}) == s.follower_mode());
    for (int i = 0; i < 16; ++i) s.on_access(store(a_follower));
    // A new period: learning again.
    CHECK(s.learning());
    CHECK(s.periods() == 1);
    CHECK(s.insertion_mode(set_index{leader_of_mode[2]}) == 2);
}

TEST_CASE("latte_cc: N_miss counts learning-EP insertions, N_hit counts into EP 2, by the "
          "block's mode") {
    latte_cc s(selection_shape{}, {.schedule = {.ep_accesses = 4, .eps_per_period = 4}});
    // EP 1 (learning).
    s.on_access(fill(leader_of_mode[2], 2));    // N_miss[2]
    s.on_access(fill(leader_of_mode[2], 0));    // stored raw: not mode 2's insertion
    s.on_access(hit(leader_of_mode[2], 2, 14)); // N_hit[2]
    s.on_access(hit(leader_of_mode[1], 0, 0));  // a follower line in mode 1's set
    CHECK(s.counts(2).misses == 1);
    CHECK(s.counts(2).hits == 1);
    CHECK(s.counts(2).hit_cost == 14);
    CHECK(s.counts(1).samples() == 0);
    CHECK(s.counts(0).samples() == 0);
    // EP 2: hits still count, insertions no longer.
    s.on_access(hit(leader_of_mode[2], 2, 28));
    s.on_access(fill(leader_of_mode[1], 1));
    s.on_access(hit(a_follower, 2, 14)); // not a dedicated set
    s.on_access(store(leader_of_mode[2]));
    CHECK(s.counts(2).hits == 2);
    CHECK(s.counts(2).hit_cost == 42);
    CHECK(s.counts(1).misses == 0);
    // EP 3: nothing counts.
    s.on_access(hit(leader_of_mode[2], 2, 14));
    CHECK(s.counts(2).hits == 2);
}

namespace {
// Learning-EP counts for the tolerance example: mode 1 (BDI) 5 hits of 2 cycles and 3 misses;
// mode 2 (SC²) 6 hits of 100 cycles (queued decompression) and 2 misses; mode 0 4 hits, 4
// misses. AMAT at tolerance 0: mode 0 60, mode 1 46.25, mode 2 105 → BDI. At tolerance 100:
// mode 0 60, mode 1 45, mode 2 30 → SC².
template <class S>
void feed_tolerance_example(S& s) {
    for (int i = 0; i < 4; ++i) s.on_access(fill(leader_of_mode[0], 0));
    for (int i = 0; i < 4; ++i) s.on_access(hit(leader_of_mode[0], 0, 0));
    for (int i = 0; i < 3; ++i) s.on_access(fill(leader_of_mode[1], 1));
    for (int i = 0; i < 5; ++i) s.on_access(hit(leader_of_mode[1], 1, 2));
    for (int i = 0; i < 2; ++i) s.on_access(fill(leader_of_mode[2], 2));
    for (int i = 0; i < 6; ++i) s.on_access(hit(leader_of_mode[2], 2, 100));
}
} // namespace

TEST_CASE("latte_cc: the latency tolerance decides between BDI and SC²") {
    for (const std::uint32_t tolerance : {0u, 100u}) {
        CAPTURE(tolerance);
        latte_cc s(selection_shape{}, {.schedule = {.ep_accesses = 24, .eps_per_period = 10}});
        s.set_latency_tolerance(tolerance);
        feed_tolerance_example(s);
        CHECK(s.decisions() == 1);
        CHECK(s.amat(0) == doctest::Approx(60.0));
        if (tolerance == 0) {
            CHECK(s.amat(1) == doctest::Approx(46.25));
            CHECK(s.amat(2) == doctest::Approx(105.0));
            CHECK(s.follower_mode() == 1);
        } else {
            CHECK(s.amat(1) == doctest::Approx(45.0));
            CHECK(s.amat(2) == doctest::Approx(30.0));
            CHECK(s.follower_mode() == 2);
        }
    }
}

TEST_CASE("latte_cc: a disallowed mode (SC² before its first code book) is never chosen") {
    latte_cc s(selection_shape{}, {.schedule = {.ep_accesses = 24, .eps_per_period = 10}});
    s.set_latency_tolerance(100);
    s.set_allowed_modes(0b011);
    feed_tolerance_example(s);
    CHECK(s.follower_mode() == 1);
}

TEST_CASE("latte_cc: ties go to the lower mode, a mode without samples is never chosen") {
    latte_cc s(selection_shape{}, {.schedule = {.ep_accesses = 4, .eps_per_period = 10}});
    // Mode 1 and mode 2 both: one insertion, one hit of 0 cycles → equal AMAT; mode 0 unsampled.
    s.on_access(fill(leader_of_mode[2], 2));
    s.on_access(hit(leader_of_mode[2], 2, 0));
    s.on_access(fill(leader_of_mode[1], 1));
    s.on_access(hit(leader_of_mode[1], 1, 0));
    CHECK(s.amat(1) == doctest::Approx(s.amat(2)));
    CHECK(s.follower_mode() == 1);
}

TEST_CASE("adaptive_hit_count: the most hits wins, whatever their latency") {
    adaptive_hit_count s(selection_shape{},
                         {.schedule = {.ep_accesses = 24, .eps_per_period = 10}});
    feed_tolerance_example(s);
    CHECK(s.follower_mode() == 2); // 6 hits, though at 100 cycles each
}

TEST_CASE("adaptive_cmp: the global counter on a worked example") {
    adaptive_cmp s(selection_shape{}, {});
    CHECK(s.insertion_mode(set_index{0}) == 0); // counter 0: not positive
    auto at = [](kind k, std::uint32_t mode, std::uint32_t depth, bool compressed, bool fits) {
        return access_outcome{.set = set_index{3},
                              .what = k,
                              .mode = mode,
                              .compressed = compressed,
                              .stack_depth = depth,
                              .fits_if_compressed = fits};
    };
    s.on_access(at(kind::fill, 0, 6, false, true)); // avoidable miss: +120
    CHECK(s.counter() == 120);
    CHECK(s.insertion_mode(set_index{0}) == 2);
    s.on_access(at(kind::fill, 0, 9, false, false));        // tag held but would not fit: nothing
    s.on_access(at(kind::miss, 0, no_depth, false, false)); // no tag: nothing
    CHECK(s.counter() == 120);
    s.on_access(at(kind::hit, 2, 1, true, false));  // penalized hit: −14 (SC² decompression)
    s.on_access(at(kind::hit, 1, 0, true, false));  // penalized hit: −2 (BDI)
    s.on_access(at(kind::hit, 0, 2, false, false)); // uncompressed hit above depth 4: nothing
    CHECK(s.counter() == 104);
    s.on_access(at(kind::hit, 2, 5, true, false)); // avoided miss: +120
    CHECK(s.counter() == 224);
    for (int i = 0; i < 17; ++i) s.on_access(at(kind::hit, 2, 0, true, false));
    CHECK(s.counter() == 224 - 17 * 14);
    CHECK(s.insertion_mode(set_index{0}) == 0);
    CHECK(s.avoided_misses() == 1);
    CHECK(s.avoidable_misses() == 1);
    CHECK(s.penalized_hits() == 19);
    s.on_access(store(3)); // stores leave it
    CHECK(s.counter() == 224 - 17 * 14);
}

TEST_CASE("adaptive_cmp: the counter saturates") {
    adaptive_cmp s(selection_shape{}, {.compressed_mode = 1, .counter_bits = 8});
    for (int i = 0; i < 10; ++i)
        s.on_access(access_outcome{.set = set_index{0},
                                   .what = kind::hit,
                                   .mode = 1,
                                   .compressed = true,
                                   .stack_depth = 7});
    CHECK(s.counter() == 127);
}

namespace {
struct fake_scheduler {
    struct counts {
        std::uint64_t instructions = 0, runs = 0;
    };
    std::uint32_t ready = 0;
    counts stats{};
    std::uint32_t ready_warps(std::uint32_t) const noexcept { return ready; }
    const counts& issue_stats(std::uint32_t) const noexcept { return stats; }
};
} // namespace

TEST_CASE("latency_tolerance_estimator: round robin, GTO and host sources") {
    fake_scheduler sched;
    latency_tolerance_estimator<fake_scheduler> rr(&sched, 0,
                                                   {.source = tolerance_source::round_robin});
    latency_tolerance_estimator<fake_scheduler> gto(
        &sched, 0, {.source = tolerance_source::gto, .run_weight = 0.5});
    latency_tolerance_estimator<fake_scheduler> two(
        &sched, 0, {.source = tolerance_source::gto, .run_weight = 1.0, .schedulers_per_sm = 2});
    for (const std::uint32_t r : {6u, 10u}) {
        sched.ready = r;
        rr.sample();
        gto.sample();
        two.sample();
    }
    sched.stats = {.instructions = 40, .runs = 10}; // mean run 4
    CHECK(rr.end_epoch() == 8);                     // mean ready 8
    CHECK(gto.end_epoch() == 32);                   // 8 × 4
    CHECK(two.end_epoch() == 16);                   // 8 × 4 / 2
    // Next epoch: runs of 2; the EWMA (weight 0.5) gives 3; no samples: the mean ready stays.
    sched.stats = {.instructions = 60, .runs = 20};
    CHECK(gto.end_epoch() == 24);
    // A scheduler that counts issue slots: the run is slots / slot_runs unless asked otherwise.
    struct slot_scheduler {
        struct counts {
            std::uint64_t instructions = 0, runs = 0, slots = 0, slot_runs = 0;
        };
        counts stats{};
        std::uint32_t ready_warps(std::uint32_t) const noexcept { return 5; }
        const counts& issue_stats(std::uint32_t) const noexcept { return stats; }
    } slot_sched;
    latency_tolerance_estimator<slot_scheduler> by_slots(&slot_sched, 0, {.run_weight = 1.0});
    latency_tolerance_estimator<slot_scheduler> by_instr(
        &slot_sched, 0, {.run_weight = 1.0, .runs = run_unit::instructions});
    by_slots.sample();
    by_instr.sample();
    slot_sched.stats = {.instructions = 10, .runs = 1, .slots = 60, .slot_runs = 5};
    CHECK(by_slots.end_epoch() == 60); // 5 ready × 12 slots per run
    CHECK(by_instr.end_epoch() == 50); // 5 ready × 10 instructions per run

    host_latency_tolerance host({.source = tolerance_source::host});
    host.set_host_tolerance(17);
    CHECK(host.end_epoch() == 17);
}

TEST_CASE("selection: bad configurations throw config_error naming the rule") {
    CHECK(config_error_of([] {
              latte_cc s(selection_shape{}, {.schedule = {.ep_accesses = 0}});
          }).find("ep_accesses") != std::string::npos);
    CHECK(config_error_of([] {
              selection_shape shape;
              shape.modes[2].decompress_cycles = 0;
              latte_cc s(shape, {});
          }).find("modes[].decompress_cycles") != std::string::npos);
    CHECK(config_error_of([] {
              latency_tolerance_estimator<fake_scheduler> e(nullptr, 0, {});
          }).find("scheduler") != std::string::npos);
    CHECK(config_error_of([] { static_mode s(selection_shape{}, {.mode = 3}); }).find("mode") !=
          std::string::npos);
    CHECK(config_error_of([] {
              adaptive_cmp s(selection_shape{}, {.compressed_mode = 0});
          }).find("compressed_mode") != std::string::npos);
    CHECK(config_error_of([] {
              latte_cc s(selection_shape{}, {.schedule = {.leaders_per_mode = 5}});
          }) != "no error"); // 5 does not divide 32 sets
}
