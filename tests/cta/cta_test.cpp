// CTA schedulers: the concept (archetype, one broken requirement per type), exact assignments
// for the centralised and fine-grain round robins, remainder cases of the contiguous ranges
// (grid not divisible by modules or SMs, fewer CTAs than modules), determinism across launches,
// stealing from the most-loaded module's tail, the adaptive group size, every CTA started
// exactly once (property, scheduler- and SM-driven hosts), and errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/cta/all.hpp>

#include "host.hpp"

using namespace memsub::cta;
using ctatest::run_kernel;

namespace {

// ------------------------------------------------------------------ concept archetypes

/// A scheduler that breaks requirement `Broken` (CT1–CT6 = 1–6; 0 = none).
template <int Broken>
struct scheduler_t {
    struct params {};
    scheduler_t() = default;
    explicit scheduler_t(const params&) {}
    std::string_view name() const { return "archetype"; }
    void launch(const kernel_launch&) requires(Broken != 2) {}
    std::optional<cta_assignment> dispatch() noexcept(Broken != 3) { return std::nullopt; }
    std::uint32_t next_cta(std::uint32_t) noexcept requires(Broken != 4) { return no_cta; }
    void on_cta_complete(std::uint32_t) noexcept(Broken != 5) {}
    std::uint32_t modules() const noexcept { return 1; }
    std::uint32_t sms() const noexcept { return 1; }
    std::uint32_t unstarted() const noexcept { return 0; }
    std::uint32_t running() const noexcept { return 0; }
    std::uint32_t running_on(std::uint32_t) const noexcept { return 0; }
    bool finished() const noexcept requires(Broken != 6) { return true; }
    const cta_stats& stats() const noexcept { return s; }
    cta_stats s;
};
template <>
struct scheduler_t<1> : scheduler_t<0> {
    struct params {
        explicit params(int) {}
    };
    explicit scheduler_t(const params&) {}
};

constexpr unsigned bit(unsigned n) {
    return 1u << n;
}
template <class S>
constexpr unsigned failures() {
    return (ct1_params<S> ? 0 : bit(1)) | (ct2_launch<S> ? 0 : bit(2)) |
           (ct3_dispatch<S> ? 0 : bit(3)) | (ct4_next_cta<S> ? 0 : bit(4)) |
           (ct5_complete<S> ? 0 : bit(5)) | (ct6_observers<S> ? 0 : bit(6));
}
static_assert(failures<scheduler_t<0>>() == 0 && cta_scheduler<scheduler_t<0>>);
static_assert(failures<scheduler_t<1>>() == bit(1));
static_assert(failures<scheduler_t<2>>() == bit(2));
static_assert(failures<scheduler_t<3>>() == bit(3));
static_assert(failures<scheduler_t<4>>() == bit(4));
static_assert(failures<scheduler_t<5>>() == bit(5));
static_assert(failures<scheduler_t<6>>() == bit(6));
static_assert(diagnose_cta_scheduler<centralized_round_robin>());
static_assert(diagnose_cta_scheduler<fine_grain_round_robin>());
static_assert(diagnose_cta_scheduler<contiguous_batches>());
static_assert(diagnose_cta_scheduler<batches_with_stealing>());
static_assert(diagnose_cta_scheduler<adaptive_batches>());

std::uint64_t unit(std::uint32_t) {
    return 10;
}

/// CTA → SM pairs of a run, in start order.
std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs(const ctatest::run_result& r) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> v;
    for (const auto& a : r.order) v.emplace_back(a.cta, a.sm);
    return v;
}

} // namespace

TEST_CASE("flatten: x fastest (G5.4)") {
    CHECK(flatten(0, 0, 0, 4, 3) == 0);
    CHECK(flatten(3, 0, 0, 4, 3) == 3);
    CHECK(flatten(0, 1, 0, 4, 3) == 4);
    CHECK(flatten(1, 2, 1, 4, 3) == 1 + 8 + 12);
}

TEST_CASE("centralised round robin: first batch in CTA order across modules, then as SMs free") {
    // 2 modules × 2 SMs (SMs 0, 1 on module 0; 2, 3 on module 1), 2 slots each, 10 CTAs.
    centralized_round_robin s({.modules = 2, .sms_per_module = 2});
    s.launch({.ctas = 10, .max_ctas_per_sm = 2});
    std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
    while (const auto a = s.dispatch()) {
        got.emplace_back(a->cta, a->sm);
        CHECK(a->module == a->sm / 2);
    }
    // Visit order SM 0, 2, 1, 3 (module-interleaved): consecutive CTAs on different modules.
    using p = std::pair<std::uint32_t, std::uint32_t>;
    CHECK(got == std::vector<p>{{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 0}, {5, 2}, {6, 1}, {7, 3}});
    CHECK(s.unstarted() == 2);
    CHECK(s.running() == 8);
    s.on_cta_complete(2);
    CHECK(s.dispatch() == cta_assignment{8, 2, 1});
    CHECK(!s.dispatch().has_value());
    s.on_cta_complete(0);
    s.on_cta_complete(1);
    // Round robin continues after SM 2 (position 1): position 2 is SM 1.
    CHECK(s.dispatch() == cta_assignment{9, 1, 0});
    CHECK(!s.dispatch().has_value());
    CHECK(s.unstarted() == 0);
    CHECK(!s.finished());
}

TEST_CASE("fine-grain round robin: CTA i on SM position i mod N, remainders, waits for its SM") {
    fine_grain_round_robin s({.modules = 2, .sms_per_module = 2});
    s.launch({.ctas = 10, .max_ctas_per_sm = 1});
    std::vector<std::uint32_t> first;
    while (const auto a = s.dispatch()) first.push_back(a->cta);
    CHECK(first == std::vector<std::uint32_t>{0, 1, 2, 3});
    // SM 1 is position 2: its next CTA is 6, not 4 (4 waits for position 0, SM 0).
    s.on_cta_complete(1);
    CHECK(s.dispatch() == cta_assignment{6, 1, 0});
    CHECK(s.next_cta(0) == no_cta); // SM 0 is full
    // Run to the end: positions 0, 1 get 3 CTAs (10 = 2·4 + 2), positions 2, 3 get 2.
    fine_grain_round_robin t({.modules = 2, .sms_per_module = 2});
    const auto r = run_kernel(t, {.ctas = 10, .max_ctas_per_sm = 1}, unit);
    std::vector<int> per_sm(4, 0);
    for (const auto& a : r.order) {
        ++per_sm[a.sm];
        const std::uint32_t pos = (a.sm % 2) * 2 + a.sm / 2;
        CHECK(a.cta % 4 == pos);
        CHECK(a.module == a.cta % 2); // C5.7: CTA i → module i mod M
    }
    CHECK(per_sm == std::vector<int>{3, 2, 3, 2}); // SM 0 = pos 0, SM 1 = pos 2, SM 2 = pos 1
}

TEST_CASE("contiguous batches: balanced ranges for remainder cases (C5.5, G5.3)") {
    struct shape {
        std::uint32_t ctas, modules, sms, slots;
    };
    for (const shape sh : {shape{10, 4, 3, 2}, shape{64, 4, 2, 1}, shape{3, 4, 2, 2},
                           shape{7, 3, 5, 1}, shape{1000, 8, 7, 3}, shape{0, 4, 1, 1}}) {
        CAPTURE(sh.ctas);
        CAPTURE(sh.modules);
        contiguous_batches s({.modules = sh.modules, .sms_per_module = sh.sms});
        const auto r = run_kernel(s, {.ctas = sh.ctas, .max_ctas_per_sm = sh.slots}, unit);
        CHECK(r.order.size() == sh.ctas);
        std::vector<std::uint32_t> count(sh.modules, 0);
        for (std::uint32_t c = 0; c < sh.ctas; ++c) {
            // Independent rule: module g holds [floor(g·C/M), floor((g+1)·C/M)).
            std::uint32_t g = 0;
            while ((std::uint64_t{g} + 1) * sh.ctas / sh.modules <= c) ++g;
            CHECK(r.module_of[c] == g);
            CHECK(contiguous_batches::module_of_cta(c, sh.ctas, sh.modules) == g);
            ++count[g];
        }
        const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
        CHECK(*hi - *lo <= 1);
        CHECK(s.finished());
    }
    // 10 CTAs on 4 modules: 2, 3, 2, 3.
    contiguous_batches s({.modules = 4, .sms_per_module = 1});
    const auto r = run_kernel(s, {.ctas = 10, .max_ctas_per_sm = 4}, unit);
    CHECK(r.module_of == std::vector<std::uint32_t>{0, 0, 1, 1, 1, 2, 2, 3, 3, 3});
}

TEST_CASE("contiguous batches are deterministic across launches; centralised RR is not") {
    memsub::xoshiro256ss rng(17);
    contiguous_batches dist({.modules = 4, .sms_per_module = 4});
    centralized_round_robin cent({.modules = 4, .sms_per_module = 4});
    std::vector<std::uint32_t> dist_first, cent_first;
    int cent_changed = 0;
    for (int launch = 0; launch < 5; ++launch) {
        // CTA durations differ per launch (data-dependent work, noise).
        std::vector<std::uint64_t> d(256);
        for (auto& x : d) x = 5 + rng() % 50;
        auto dur = [&](std::uint32_t c) { return d[c]; };
        const auto a = run_kernel(dist, {.ctas = 256, .max_ctas_per_sm = 2, .kernel_id = 1}, dur);
        const auto b = run_kernel(cent, {.ctas = 256, .max_ctas_per_sm = 2, .kernel_id = 1}, dur);
        if (launch == 0) {
            dist_first = a.module_of;
            cent_first = b.module_of;
        }
        CHECK(a.module_of == dist_first); // the same CTA on the same module every launch
        cent_changed += b.module_of != cent_first;
    }
    CHECK(cent_changed > 0);
}

TEST_CASE("stealing: an idle SM takes the tail of the most-loaded module (C2.4)") {
    // 3 modules × 1 SM × 1 slot, 9 CTAs: ranges [0,3) [3,6) [6,9).
    batches_with_stealing s({.modules = 3, .sms_per_module = 1});
    s.launch({.ctas = 9, .max_ctas_per_sm = 1});
    CHECK(s.dispatch() == cta_assignment{0, 0, 0});
    CHECK(s.dispatch() == cta_assignment{3, 1, 1});
    CHECK(s.dispatch() == cta_assignment{6, 2, 2});
    CHECK(!s.dispatch().has_value());
    // Module 0 runs fast: CTAs 1, 2, then it is dry.
    s.on_cta_complete(0);
    CHECK(s.dispatch() == cta_assignment{1, 0, 0});
    s.on_cta_complete(0);
    CHECK(s.dispatch() == cta_assignment{2, 0, 0});
    s.on_cta_complete(0);
    // Modules 1 and 2 each hold 2 unstarted: the tie goes to module 1; its tail is CTA 5.
    CHECK(s.dispatch() == cta_assignment{5, 0, 0});
    CHECK(s.unstarted_in(1) == 1);
    CHECK(s.stats().stolen == 1);
    s.on_cta_complete(0);
    // Now module 2 is the most loaded (2 vs 1): its tail, CTA 8.
    CHECK(s.dispatch() == cta_assignment{8, 0, 0});
    s.on_cta_complete(1);
    CHECK(s.dispatch() == cta_assignment{4, 1, 1}); // module 1's own head
    s.on_cta_complete(0);
    CHECK(s.dispatch() == cta_assignment{7, 0, 0}); // the last one, stolen from module 2
    CHECK(s.stats().stolen == 3);
    CHECK(s.unstarted() == 0);
}

TEST_CASE("stealing: only idle SMs steal (unless steal_on_free_slot); batches of steal_ctas") {
    // 2 modules × 1 SM × 2 slots, 8 CTAs: ranges [0,4) [4,8).
    batches_with_stealing s({.modules = 2, .sms_per_module = 1});
    s.launch({.ctas = 8, .max_ctas_per_sm = 2});
    while (s.dispatch()) {
    }
    s.on_cta_complete(0);
    s.on_cta_complete(0);
    CHECK(s.dispatch()->cta == 2);
    CHECK(s.dispatch()->cta == 3);
    s.on_cta_complete(0); // one slot free, one CTA still running: not idle, no steal
    CHECK(!s.dispatch().has_value());
    CHECK(s.next_cta(0) == no_cta);
    s.on_cta_complete(0); // idle now
    CHECK(s.next_cta(0) == 7);

    batches_with_stealing f({.modules = 2, .sms_per_module = 1, .steal_on_free_slot = true});
    f.launch({.ctas = 8, .max_ctas_per_sm = 2});
    while (f.dispatch()) {
    }
    f.on_cta_complete(0);
    f.on_cta_complete(0);
    (void)f.dispatch();
    (void)f.dispatch();
    f.on_cta_complete(0);
    CHECK(f.dispatch()->cta == 7); // a free slot suffices

    // steal_ctas = 3: the thief takes 5, 6, 7 (starts 5, queues 6, 7 for its module).
    batches_with_stealing b({.modules = 2, .sms_per_module = 2, .steal_ctas = 3});
    b.launch({.ctas = 10, .max_ctas_per_sm = 1}); // [0,5) [5,10)
    std::vector<std::uint32_t> first;
    while (const auto a = b.dispatch()) first.push_back(a->cta);
    CHECK(first == std::vector<std::uint32_t>{0, 5, 1, 6});
    for (std::uint32_t c = 0; c < 3; ++c) { // module 0 (SMs 0, 1) runs 2, 3, 4
        b.on_cta_complete(0);
        CHECK(b.dispatch()->module == 0);
    }
    b.on_cta_complete(0);
    b.on_cta_complete(1);
    // The scan resumes after SM 0 (position 0): SM 1 (position 2) steals 7, 8, 9 of module
    // 1's [7,10), starts 7 and leaves 8, 9 in module 0's queue, where SM 0 finds 8.
    CHECK(b.dispatch() == cta_assignment{7, 1, 0});
    CHECK(b.dispatch() == cta_assignment{8, 0, 0});
    CHECK(b.stats().stolen == 3);
    CHECK(b.unstarted_in(1) == 0);
}

TEST_CASE("stealing cuts the makespan of an imbalanced kernel") {
    // Module 0's CTAs (the first quarter) run 8× longer.
    auto dur = [](std::uint32_t c) -> std::uint64_t { return c < 64 ? 80 : 10; };
    contiguous_batches d({.modules = 4, .sms_per_module = 4});
    batches_with_stealing s({.modules = 4, .sms_per_module = 4});
    const auto a = run_kernel(d, {.ctas = 256, .max_ctas_per_sm = 1}, dur);
    const auto b = run_kernel(s, {.ctas = 256, .max_ctas_per_sm = 1}, dur);
    CHECK(b.makespan < a.makespan / 2);
    CHECK(s.stats().stolen > 0);
    // Uniform work: nothing worth stealing beyond the last wave.
    batches_with_stealing u({.modules = 4, .sms_per_module = 4});
    (void)run_kernel(u, {.ctas = 256, .max_ctas_per_sm = 1}, unit);
    CHECK(u.stats().stolen == 0);
}

TEST_CASE("adaptive batches: uniform work stays at level 0 (= contiguous batches)") {
    adaptive_batches s({.modules = 4, .sms_per_module = 4});
    contiguous_batches c({.modules = 4, .sms_per_module = 4});
    for (int launch = 0; launch < 4; ++launch) {
        const auto a = run_kernel(s, {.ctas = 200, .max_ctas_per_sm = 2, .kernel_id = 7}, unit);
        const auto b = run_kernel(c, {.ctas = 200, .max_ctas_per_sm = 2, .kernel_id = 7}, unit);
        CHECK(s.level() == 0);
        CHECK(a.module_of == b.module_of);
        CHECK(!s.imbalanced());
    }
}

TEST_CASE("adaptive batches: an imbalanced kernel refines its groups, then stays put") {
    // 4 modules × 2 SMs × 1 slot, 64 CTAs; CTAs 0–15 (module 0's range at level 0) take 4×.
    adaptive_batches s({.modules = 4, .sms_per_module = 2});
    auto dur = [](std::uint32_t c) -> std::uint64_t { return c < 16 ? 40 : 10; };
    const kernel_launch k{.ctas = 64, .max_ctas_per_sm = 1, .kernel_id = 3};
    std::vector<std::uint32_t> levels, groups;
    std::vector<std::uint64_t> makespans;
    std::vector<std::vector<std::uint32_t>> modules;
    for (int launch = 0; launch < 6; ++launch) {
        const auto r = run_kernel(s, k, dur);
        levels.push_back(s.level());
        groups.push_back(s.group_size());
        makespans.push_back(r.makespan);
        modules.push_back(r.module_of);
        for (std::uint32_t c = 0; c < 64; ++c)
            CHECK(r.module_of[c] == adaptive_batches::module_of_cta(c, 64, 4, s.level()));
    }
    // Level 0 strands module 0's work; each imbalanced launch halves the group (16 → 8 → 4)
    // until the heavy CTAs spread over all modules; then the level, and the assignment, hold.
    CHECK(levels == std::vector<std::uint32_t>{0, 1, 2, 2, 2, 2});
    CHECK(groups == std::vector<std::uint32_t>{16, 8, 4, 4, 4, 4});
    CHECK(makespans[2] < makespans[0]);
    CHECK(makespans[2] <= makespans[1]);
    CHECK(modules[3] == modules[2]);
    CHECK(modules[5] == modules[2]);
    CHECK(s.stranded() <= 4); // balanced at level 2: at most two waves of a module
    // A different kernel (or grid) starts again at level 0.
    (void)run_kernel(s, {.ctas = 64, .max_ctas_per_sm = 1, .kernel_id = 4}, dur);
    CHECK(s.level() == 0);
}

TEST_CASE("adaptive batches: run-time noise alone does not refine the groups") {
    // iid CTA run times (10–49): every module stays within about a wave of the others.
    memsub::xoshiro256ss rng(9);
    adaptive_batches s({.modules = 4, .sms_per_module = 4});
    contiguous_batches c({.modules = 4, .sms_per_module = 4});
    for (int launch = 0; launch < 12; ++launch) {
        std::vector<std::uint64_t> d(256);
        for (auto& x : d) x = 10 + rng() % 40;
        auto dur = [&](std::uint32_t cta) { return d[cta]; };
        const auto a = run_kernel(s, {.ctas = 256, .max_ctas_per_sm = 2, .kernel_id = 1}, dur);
        const auto b = run_kernel(c, {.ctas = 256, .max_ctas_per_sm = 2, .kernel_id = 1}, dur);
        CHECK(s.level() == 0);
        CHECK(a.module_of == b.module_of);
    }
}

TEST_CASE("adaptive batches: groups never get smaller than min_group_ctas") {
    // CTAs 0–3 are 20× longer: whichever module gets them lags at every group size ≥ 2. With
    // one wave = 2 CTAs the groups stop at 2 (64 / (4·8)); with min_group_ctas = 8 at 8.
    auto dur = [](std::uint32_t c) -> std::uint64_t { return c < 4 ? 200 : 10; };
    for (const auto& [min_group, last] : {std::pair{0u, 2u}, std::pair{8u, 8u}}) {
        adaptive_batches s({.modules = 4, .sms_per_module = 2, .min_group_ctas = min_group});
        for (int launch = 0; launch < 8; ++launch)
            (void)run_kernel(s, {.ctas = 64, .max_ctas_per_sm = 1, .kernel_id = 3}, dur);
        CHECK(s.group_size() == last);
    }
}

TEST_CASE("every CTA starts exactly once, scheduler- and SM-driven (property)") {
    memsub::xoshiro256ss rng(23);
    for (int trial = 0; trial < 40; ++trial) {
        const auto modules = static_cast<std::uint32_t>(1 + rng() % 8);
        const auto sms = static_cast<std::uint32_t>(1 + rng() % 9);
        const auto ctas = static_cast<std::uint32_t>(rng() % 700);
        const auto slots = static_cast<std::uint32_t>(1 + rng() % 4);
        const bool sm_driven = (trial & 1) != 0;
        std::vector<std::uint64_t> d(ctas);
        for (auto& x : d) x = 1 + rng() % 30;
        auto dur = [&](std::uint32_t c) { return d[c]; };
        const kernel_launch k{.ctas = ctas, .max_ctas_per_sm = slots};
        auto check = [&](auto&& s) {
            CAPTURE(s.name());
            for (int launch = 0; launch < 2; ++launch) {
                const auto r = run_kernel(s, k, dur, sm_driven);
                std::vector<std::uint32_t> seen;
                for (const auto& a : r.order) {
                    seen.push_back(a.cta);
                    CHECK(a.sm < modules * sms);
                    CHECK(a.module == a.sm / sms);
                }
                std::sort(seen.begin(), seen.end());
                std::vector<std::uint32_t> all(ctas);
                std::iota(all.begin(), all.end(), 0u);
                CHECK(seen == all);
                CHECK(s.finished());
            }
        };
        check(centralized_round_robin({.modules = modules, .sms_per_module = sms}));
        check(fine_grain_round_robin({.modules = modules, .sms_per_module = sms}));
        check(contiguous_batches({.modules = modules, .sms_per_module = sms}));
        check(batches_with_stealing({.modules = modules,
                                     .sms_per_module = sms,
                                     .steal_ctas = static_cast<std::uint32_t>(1 + trial % 3)}));
        check(adaptive_batches({.modules = modules, .sms_per_module = sms}));
    }
}

TEST_CASE("the SM-driven and scheduler-driven hosts agree where the policy fixes the SM") {
    // Fine-grain RR decides the SM of every CTA: both host loops give the same CTA → SM map.
    fine_grain_round_robin a({.modules = 3, .sms_per_module = 2});
    fine_grain_round_robin b({.modules = 3, .sms_per_module = 2});
    const auto x = run_kernel(a, {.ctas = 50, .max_ctas_per_sm = 2}, unit, false);
    const auto y = run_kernel(b, {.ctas = 50, .max_ctas_per_sm = 2}, unit, true);
    auto px = pairs(x), py = pairs(y);
    std::sort(px.begin(), px.end());
    std::sort(py.begin(), py.end());
    CHECK(px == py);
}

TEST_CASE("CTA scheduler errors: configuration, launch while running, stray completions") {
    using memsub::config_error;
    CHECK_THROWS_AS(centralized_round_robin({.modules = 0}), config_error);
    CHECK_THROWS_AS(contiguous_batches({.modules = 65}), config_error);
    CHECK_THROWS_AS(fine_grain_round_robin({.sms_per_module = 0}), config_error);
    CHECK_THROWS_AS(batches_with_stealing({.steal_ctas = 0}), config_error);
    CHECK_THROWS_AS(adaptive_batches({.imbalance_waves = 0}), config_error);
    contiguous_batches s({.modules = 2, .sms_per_module = 2});
    CHECK_THROWS_AS(s.launch({.ctas = 4, .max_ctas_per_sm = 0}), config_error);
    s.launch({.ctas = 4, .max_ctas_per_sm = 1});
    CHECK(s.dispatch().has_value());
    CHECK_THROWS_AS(s.launch({.ctas = 4, .max_ctas_per_sm = 1}), std::logic_error);
    s.on_cta_complete(3);  // nothing runs on SM 3
    s.on_cta_complete(99); // no such SM
    CHECK(s.stats().ignored_completions == 2);
    CHECK(s.next_cta(99) == no_cta);
    CHECK(s.running_on(99) == 0);
}
