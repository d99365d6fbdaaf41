// memsub — `simt::gto_scheduler`: runs a SIMT kernel's warps on several SMs and delivers their
// memory instructions in issue order, one `warp_instruction` at a time.
//
// Model (Table 3.1, [Dissertation] / docs/mechanisms/id_cache.md, 'Reference GPU': GTO warp
// schedulers, 48 warps and 8 CTAs per SM; 15 SMs):
//  * CTAs are handed out in order: first one per SM round-robin, then, whenever an SM has room
//    (fewer than `max_ctas_per_sm` CTAs and room for the CTA's warps within
//    `max_warps_per_sm`), the next CTA goes to it (GPGPU-Sim's block issue, simplified).
//  * Warp order (`gto_params::warps`): greedy-then-oldest (`gto`, the default): an SM issues
//    from the warp it issued last while that warp is ready, otherwise from its oldest ready warp
//    (age = the order warps were launched in). `lrr` (loose round robin): the first ready warp
//    scanning the slots from the one after the last issued warp. `gtrr` ([Dissertation] Table 5.3,
//    "Greedy then Round Robin"): the last issued warp while it is ready, else as `lrr`.
//  * Time: one issue per SM per cycle. A store or an independent load (`stalls` false) leaves
//    its warp ready at the next cycle. When no SM has a ready warp the clock jumps to the next
//    ready time. How long a dependent load (`stalls` set) waits is `gto_params::latency`:
//     - `constant` (the default): `load_latency` cycles, whatever the load hits.
//       Decision: 120 cycles, [Dissertation] Table 3.1's minimum L2 latency, the default.
//     - `host`: the host's memory model decides. Every issued load owes its warp one
//       completion (`hold` adds one per extra outstanding request of the instruction);
//       `complete(warp, ready_cycle)` pays one. A dependent load makes its warp wait until it
//       owes nothing and is then ready at the latest completion's cycle (at least the next
//       cycle): a warp waits for all its outstanding loads, e.g. stencil's five independent
//       neighbour loads and the dependent one after them. `next(out, horizon)` never moves the
//       clock to `horizon` or past it (the host's next memory event), so a completion due
//       earlier is delivered before anything issues after it.
//       Decision: a warp that exits with loads still owed keeps its slot (and its CTA's) until
//       they complete, as an SM keeps a warp's registers until its loads have written them;
//       the host's completions name the slot, which must not pass to a new warp before. The
//       built-in kernels end with a store after a dependent load, so none of them waits here.
//    An instruction's `alu_cycles` (0 in the built-in kernels) keeps its SM from issuing for
//    that many cycles after it, and its warp until at least `issue_cycle + 1 + alu_cycles`.
//    Not modelled: __syncthreads barriers (warps of a CTA run independently), the two
//    schedulers per SM (one order per SM), issue slots of non-memory instructions other than
//    `alu_cycles`.
//  * SMs: one instruction per SM per cycle, their streams interleaved. Each cycle visits every
//    SM once, from a start SM that `gto_params::order` chooses (`rotating` by default, below);
//    the SM visited first wins every same-cycle tie downstream (first-touch page placement,
//    an L2 bank's queue).
//    Decision: the start rotates, s0 = (cycle × g) mod sms with g the integer nearest
//    sms / φ that is coprime to sms. Visiting SMs 0…N−1 every cycle (`fixed`, kept to reproduce
//    older streams) lets the lowest-numbered SMs touch first in a lock-step launch: with
//    module-major SM numbering and first-touch placement, module 0 took every page of a
//    512 × 512 stencil (768 of 768). Every SM comes first once in any N consecutive cycles, a
//    golden-ratio stride spreads consecutive starts over the modules (a stride of 1 would give
//    module 0 a run of S consecutive cycles), and no random numbers are drawn, so jumps over
//    idle cycles keep it exact. Considered: a seeded random start each cycle (`seeded`, from
//    the scheduler's own xoshiro256** and `order_seed`), which spreads placement wider, and a
//    reversed or alternating order, which moves the skew instead of removing it. No order keyed
//    by SM ids makes placement exactly independent of how SMs are numbered.
//  * Launches run one after another; the kernel decides whether there is a next launch
//    (BFS's `over` flag) when the previous one has finished.
//  * CTA placement: by default the built-in in-order block issue above (`builtin_cta_issue`).
//    With a memsub `cta::cta_scheduler` as the second template argument (held by reference,
//    given to the constructor) the scheduler decides instead: every kernel launch becomes
//    `launch({ctas, occupancy, kernel_id})` (occupancy = min(max_ctas_per_sm,
//    max_warps_per_sm / warps per CTA), so its free slots are exactly the SM's room), CTAs
//    start where `dispatch()` puts them, after the launch and after every CTA completion
//    (`on_cta_complete`). SM ids are the scheduler's global ids (module × sms_per_module +
//    local, CTP1); `sms` must equal its `sms()`. Successive launches of one kernel share its
//    kernel_id (a hash of `name()`), so a distributed scheduler places a CTA index on the same
//    module every launch ([MCM-GPU] §5.2; C5.5 in docs/mechanisms/multi_module_gpu.md).
// Per instruction nothing is allocated: the warp slots are preallocated. An SM with no ready
// warp remembers the earliest cycle one can be (lowered when a CTA starts or a completion
// arrives), so idle SMs are not rescanned every cycle.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>
#include <memsub/cta/concept.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

/// A SIMT kernel: launches of CTAs whose warps produce memory instructions.
///  * `k.next_launch(shape)`: false when the run is over; else fills the next launch's shape.
///  * `k.start_warp(state, origin)`: (re)initialises a warp's per-lane registers.
///  * `k.step(state, out)`: fills `out` (pc, lanes, active mask, kind, size, stalls, and
///    `alu_cycles` if it has arithmetic to charge) with the warp's next memory instruction,
///    performing its loads and stores on the kernel's arrays; false when the warp has exited.
///    An instruction always has at least one active lane.
template <class K>
concept simt_kernel = requires(K& k, typename K::warp_state& w, const warp_origin& o,
                               warp_instruction& out, launch_shape& shape) {
    { k.next_launch(shape) } -> std::same_as<bool>;
    k.start_warp(w, o);
    { k.step(w, out) } -> std::same_as<bool>;
    { k.name() } -> std::convertible_to<std::string_view>;
};

/// Who decides how long a dependent load keeps its warp waiting.
enum class latency_mode : std::uint8_t { constant, host };
/// The order an SM picks its next warp in (see the header comment).
enum class warp_order : std::uint8_t { gto, lrr, gtrr };
/// The SM each cycle's visit starts from (see the header comment's Decision).
enum class sm_order : std::uint8_t { rotating, seeded, fixed };
/// The orders' names as options spell them: "gto", "lrr", "gtrr".
[[nodiscard]] constexpr std::string_view order_name(warp_order o) noexcept {
    return o == warp_order::lrr ? "lrr" : o == warp_order::gtrr ? "gtrr" : "gto";
}
/// "rotating", "seeded", "fixed".
[[nodiscard]] constexpr std::string_view order_name(sm_order o) noexcept {
    return o == sm_order::seeded ? "seeded" : o == sm_order::fixed ? "fixed" : "rotating";
}
/// The warp order named `name` (order_name's spelling), or none.
[[nodiscard]] constexpr std::optional<warp_order> warp_order_named(std::string_view name) noexcept {
    for (const warp_order o : {warp_order::gto, warp_order::lrr, warp_order::gtrr})
        if (order_name(o) == name) return o;
    return std::nullopt;
}
/// The SM order named `name` (order_name's spelling), or none.
[[nodiscard]] constexpr std::optional<sm_order> sm_order_named(std::string_view name) noexcept {
    for (const sm_order o : {sm_order::rotating, sm_order::seeded, sm_order::fixed})
        if (order_name(o) == name) return o;
    return std::nullopt;
}
/// What `next(out, horizon)` did.
enum class issue_status : std::uint8_t {
    issued,  ///< `out` holds the next instruction
    blocked, ///< nothing can issue before `horizon` (or every warp waits on the host)
    finished ///< every launch has finished
};

struct gto_params {
    std::uint32_t sms = 15;
    std::uint32_t max_warps_per_sm = 48;
    std::uint32_t max_ctas_per_sm = 8;
    /// A dependent load's wait under `latency_mode::constant`.
    std::uint32_t load_latency = 120;
    latency_mode latency = latency_mode::constant;
    warp_order warps = warp_order::gto;
    sm_order order = sm_order::rotating;
    /// Seeds the start SM sequence of `sm_order::seeded`.
    std::uint64_t order_seed = 1;
};

/// One SM's issue counts. A run is a maximal sequence of consecutive issues by one warp, so
/// instructions / runs is the mean issue run (how greedy the warp order was: GTO's is long,
/// round robin's near 1).
struct sm_issue_stats {
    std::uint64_t instructions = 0;
    std::uint64_t runs = 0;
    /// Issue slots: an instruction takes 1 + its `alu_cycles` (the arithmetic it stands for).
    std::uint64_t slots = 0;
    /// Slot runs: maximal sequences of back-to-back issue slots of one warp (another warp or an
    /// idle cycle ends one). slots / slot_runs is the cycles a warp keeps the SM busy before
    /// it stalls — the latency a hit of another warp can hide per available warp under GTO
    /// (selection/latency_tolerance.hpp). Unlike `runs` it counts a warp's arithmetic, and a
    /// lone warp's run ends whenever it waits.
    std::uint64_t slot_runs = 0;
};

/// The default CTA placement of `gto_scheduler`: GPGPU-Sim-like in-order block issue (one CTA
/// per SM in turn at launch, then the next CTA to whichever SM frees room).
struct builtin_cta_issue {};

template <simt_kernel Kernel, class CtaPlacement = builtin_cta_issue>
requires std::same_as<CtaPlacement, builtin_cta_issue> || cta::cta_scheduler<CtaPlacement>
class gto_scheduler {
public:
    using warp_state = typename Kernel::warp_state;
    static constexpr bool builtin = std::is_same_v<CtaPlacement, builtin_cta_issue>;

    /// `kernel` must outlive the scheduler. Throws config_error for a bad parameter, and from
    /// `next` if a launch's CTA needs more warps than an SM holds.
    gto_scheduler(Kernel& kernel, const gto_params& p) requires builtin : kernel_(kernel),
                                                                          p_((validate(p), p)) {
        allocate();
    }

    /// CTA placement by `cta_scheduler` (must outlive this scheduler; its SM count must equal
    /// `p.sms`, else config_error).
    gto_scheduler(Kernel& kernel, const gto_params& p, CtaPlacement& placement) requires(!builtin)
        : kernel_(kernel)
        , p_((validate(p), p))
        , placement_(&placement) {
        memsub::require(
            placement.sms() == p.sms, "memsub::workload::simt::gto_scheduler", "sms", p.sms,
            "must equal the CTA scheduler's sms() = " + std::to_string(placement.sms()));
        allocate();
    }

    /// The next issued memory instruction; false when every launch has finished. In host
    /// latency mode the host completes the loads before it calls `next` again (a synchronous
    /// memory); throws std::logic_error if every live warp waits for a completion that was not
    /// delivered.
    bool next(warp_instruction& out) {
        switch (next(out, never)) {
        case issue_status::issued:
            return true;
        case issue_status::finished:
            return false;
        case issue_status::blocked:
            break;
        }
        throw std::logic_error(
            "memsub::workload::simt::gto_scheduler: every live warp of " +
            std::string(kernel_.name()) + " waits for load completions that were not delivered (" +
            std::to_string(outstanding_) +
            " owed): in latency_mode::host call complete() for every issued load (and each "
            "hold()) before next(out), or drive the scheduler with next(out, horizon)");
    }

    /// The next instruction issued before cycle `horizon` (`issued`); `blocked` if none can
    /// issue before it (the clock stays below `horizon`) or every live warp waits on the host
    /// (`next_issue_cycle()` is then memsub::never); `finished` when every launch has finished.
    issue_status next(warp_instruction& out, std::uint64_t horizon) {
        for (;;) {
            if (cursor_ == sms_.size()) {
                const std::uint64_t c = round_end_cycle();
                if (c >= horizon) return issue_status::blocked; // never >= any horizon
                begin_round(c);
            }
            if (live_ctas_ == 0 && next_cta_ == shape_.ctas) {
                if (started_) ++launch_;
                if (!begin_launch()) return issue_status::finished;
                continue;
            }
            if constexpr (!builtin)
                if (live_ctas_ == 0)
                    throw std::logic_error(
                        "memsub::workload::simt::gto_scheduler: the CTA scheduler left CTAs of " +
                        std::string(kernel_.name()) + " unstarted with every SM idle");
            std::uint32_t sm = round_start_ + cursor_++;
            if (sm >= sms_.size()) sm -= static_cast<std::uint32_t>(sms_.size());
            if (issue(sm, out)) {
                issued_in_round_ = true;
                return issue_status::issued;
            }
        }
    }

    /// Host latency mode: warp `w` (an issued instruction's `warp`) owes one more completion,
    /// for an extra outstanding request of the same instruction.
    void hold(warp_id w) noexcept {
        ++slot_of(w).owed;
        ++outstanding_;
    }

    /// Host latency mode: one of `w`'s owed completions arrives; its data is ready at
    /// `ready_cycle`. When `w` waits on a dependent load and owes nothing more, it becomes ready
    /// at max(latest ready_cycle, cycle() + 1), at once for `next_issue_cycle()`.
    void complete(warp_id w, std::uint64_t ready_cycle) noexcept {
        warp_slot& slot = slot_of(w);
        MEMSUB_ASSERT(slot.owed > 0);
        if (ready_cycle > slot.data_at) slot.data_at = ready_cycle;
        --outstanding_;
        if (--slot.owed != 0 || !slot.waiting) return;
        slot.waiting = false;
        --waiting_warps_;
        slot.ready_at = slot.data_at > cycle_ ? slot.data_at : cycle_ + 1;
        if (slot.ready_at < earliest_ready_) earliest_ready_ = slot.ready_at;
        sm_state& sm = sms_[w.value / p_.max_warps_per_sm];
        const std::uint64_t can_issue =
            slot.ready_at > sm.busy_until ? slot.ready_at : sm.busy_until;
        if (can_issue < sm.next_ready) sm.next_ready = can_issue;
    }

    /// After `blocked`: the earliest cycle an instruction can issue, memsub::never if every live
    /// warp waits for a completion from the host.
    [[nodiscard]] std::uint64_t next_issue_cycle() const noexcept {
        return cursor_ == sms_.size() ? round_end_cycle() : cycle_;
    }
    /// Completions owed by all warps (host latency mode).
    [[nodiscard]] std::uint32_t outstanding() const noexcept { return outstanding_; }
    /// Live warps of `sm` that could issue at cycle() (neither waiting nor exiting).
    [[nodiscard]] std::uint32_t ready_warps(std::uint32_t sm) const noexcept {
        std::uint32_t n = 0;
        for (const warp_slot& s : sms_[sm].warps)
            n += s.live && !s.exiting && s.ready_at <= cycle_ ? 1u : 0u;
        return n;
    }
    [[nodiscard]] const sm_issue_stats& issue_stats(std::uint32_t sm) const noexcept {
        return sms_[sm].stats;
    }
    /// The cycle the current (or last) launch began in: a launch takes cycle() −
    /// launch_start_cycle() cycles once it has finished.
    [[nodiscard]] std::uint64_t launch_start_cycle() const noexcept { return launch_start_; }
    [[nodiscard]] std::uint64_t cycle() const noexcept { return cycle_; }
    [[nodiscard]] const gto_params& params() const noexcept { return p_; }

private:
    static constexpr std::uint32_t no_warp = std::numeric_limits<std::uint32_t>::max();
    static constexpr std::uint64_t no_age = std::numeric_limits<std::uint64_t>::max();

    void allocate() {
        sms_.resize(p_.sms);
        for (sm_state& sm : sms_) {
            sm.warps.resize(p_.max_warps_per_sm);
            sm.ctas.resize(p_.max_ctas_per_sm);
        }
        stride_ = golden_stride(p_.sms);
        order_rng_.reseed(p_.order_seed);
        begin_round(0);
    }

    /// The integer nearest n / φ that is coprime to n (1 for n = 1): the rotating order's step.
    [[nodiscard]] static std::uint32_t golden_stride(std::uint32_t n) noexcept {
        const double target = n * 0.6180339887498949;
        std::uint32_t best = 1;
        for (std::uint32_t g = 1; g <= n; ++g) {
            const double d = g > target ? g - target : target - g;
            const double best_d = best > target ? best - target : target - best;
            if (std::gcd(g, n) == 1 && d < best_d) best = g;
        }
        return best;
    }

    /// Starts the visit of cycle `c`.
    void begin_round(std::uint64_t c) noexcept {
        cycle_ = c;
        cursor_ = 0;
        issued_in_round_ = false;
        earliest_ready_ = never;
        const auto n = static_cast<std::uint32_t>(sms_.size());
        switch (p_.order) {
        case sm_order::rotating:
            round_start_ = static_cast<std::uint32_t>((c % n) * stride_ % n);
            break;
        case sm_order::seeded:
            round_start_ = static_cast<std::uint32_t>(order_rng_.below(n));
            break;
        case sm_order::fixed:
            round_start_ = 0;
            break;
        }
    }

    /// The cycle the next visit starts at; never if every live warp waits on the host.
    [[nodiscard]] std::uint64_t round_end_cycle() const noexcept {
        if (issued_in_round_) return cycle_ + 1;
        if (earliest_ready_ == never) {
            MEMSUB_ASSERT(no_unseen_ready_time());
            return waiting_warps_ > 0 ? never : cycle_ + 1;
        }
        return earliest_ready_ > cycle_ ? earliest_ready_ : cycle_ + 1;
    }

    /// After a visit that issued nothing and found no ready time: every live warp waits on the
    /// host or started during this visit on an SM visited before it (else a stale SM memo hid
    /// it, and the clock would tick forever). Debug check, O(sms × warps).
    [[nodiscard]] bool no_unseen_ready_time() const noexcept {
        for (const sm_state& sm : sms_)
            for (const warp_slot& w : sm.warps)
                if (w.live && !w.waiting && w.ready_at != cycle_) return false;
        return true;
    }

    /// FNV-1a of the kernel's name: one id for all launches of a kernel.
    [[nodiscard]] std::uint64_t kernel_id() const noexcept {
        std::uint64_t h = 0xcbf29ce484222325ull;
        for (const char c : std::string_view(kernel_.name()))
            h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
        return h;
    }

    /// Starts every CTA the CTA scheduler places now.
    void dispatch_all() {
        while (const std::optional<cta::cta_assignment> a = placement_->dispatch())
            start_cta(a->sm, a->cta);
    }

    struct warp_slot {
        bool live = false;
        /// Host mode: waits until it owes nothing (a dependent load, or its exit).
        bool waiting = false;
        /// The kernel said the warp has exited; it retires once it owes nothing.
        bool exiting = false;
        std::uint64_t age = 0;
        std::uint64_t ready_at = 0;
        /// Host mode: the latest cycle its data (or its arithmetic) is ready.
        std::uint64_t data_at = 0;
        std::uint32_t owed = 0;
        std::uint32_t cta_slot = 0;
        std::uint32_t cta = 0;
        std::uint32_t warp_in_cta = 0;
        warp_state state{};
    };
    struct cta_slot {
        bool live = false;
        std::uint32_t warps_left = 0;
    };
    struct sm_state {
        std::vector<warp_slot> warps;
        std::vector<cta_slot> ctas;
        std::uint32_t live_warps = 0;
        std::uint32_t live_ctas = 0;
        /// The warp picked last (the greedy one while it lives).
        std::uint32_t greedy = no_warp;
        /// Where a round-robin scan resumes after.
        std::uint32_t last_slot = no_warp;
        /// No warp of this SM can issue before this cycle (a lower bound: lowered whenever a
        /// warp becomes ready earlier, set by a scan that finds none ready).
        std::uint64_t next_ready = 0;
        /// The SM issues nothing before this cycle (`alu_cycles`).
        std::uint64_t busy_until = 0;
        /// Age of the warp that issued last, for the run count.
        std::uint64_t last_age = no_age;
        /// The cycle after the last issue's slots (with the same warp: its slot run goes on).
        std::uint64_t run_next_cycle = never;
        sm_issue_stats stats{};
    };

    static void validate(const gto_params& p) {
        constexpr std::string_view c = "memsub::workload::simt::gto_scheduler";
        memsub::require(p.sms >= 1, c, "sms", p.sms, "must be >= 1");
        memsub::require(p.max_warps_per_sm >= 1, c, "max_warps_per_sm", p.max_warps_per_sm,
                        "must be >= 1");
        memsub::require(p.max_ctas_per_sm >= 1, c, "max_ctas_per_sm", p.max_ctas_per_sm,
                        "must be >= 1");
        memsub::require(std::uint64_t{p.sms} * p.max_warps_per_sm < 0xffffffffu, c,
                        "max_warps_per_sm", p.max_warps_per_sm,
                        "sms x max_warps_per_sm must fit a 32-bit warp_id");
        memsub::require(p.latency <= latency_mode::host, c, "latency",
                        static_cast<std::uint64_t>(p.latency), "must be constant or host");
        memsub::require(p.warps <= warp_order::gtrr, c, "warps",
                        static_cast<std::uint64_t>(p.warps), "must be gto, lrr or gtrr");
        memsub::require(p.order <= sm_order::fixed, c, "order", static_cast<std::uint64_t>(p.order),
                        "must be rotating, seeded or fixed");
    }

    [[nodiscard]] std::uint32_t warps_per_cta() const noexcept {
        return (shape_.threads_per_cta + warp_lanes - 1) / warp_lanes;
    }

    bool begin_launch() {
        started_ = true;
        shape_ = {};
        if (!kernel_.next_launch(shape_)) return false;
        launch_start_ = cycle_;
        next_cta_ = 0;
        if (shape_.ctas == 0) return true;
        memsub::require(shape_.threads_per_cta >= 1, kernel_.name(), "threads_per_cta",
                        shape_.threads_per_cta, "must be >= 1");
        memsub::require(warps_per_cta() <= p_.max_warps_per_sm, kernel_.name(), "threads_per_cta",
                        shape_.threads_per_cta,
                        "needs more warps than an SM holds (max_warps_per_sm)");
        if constexpr (!builtin) {
            const std::uint32_t by_warps = p_.max_warps_per_sm / warps_per_cta();
            placement_->launch(cta::kernel_launch{
                .ctas = shape_.ctas,
                .max_ctas_per_sm = by_warps < p_.max_ctas_per_sm ? by_warps : p_.max_ctas_per_sm,
                .kernel_id = kernel_id()});
            dispatch_all();
            return true;
        }
        // First round: one CTA per SM in turn, until no SM takes another.
        for (bool placed = true; placed && next_cta_ < shape_.ctas;) {
            placed = false;
            for (std::uint32_t s = 0; s < sms_.size() && next_cta_ < shape_.ctas; ++s)
                placed |= place_cta(s);
        }
        return true;
    }

    /// Starts the next CTA on `sm` if it has room.
    bool place_cta(std::uint32_t sm_index) {
        sm_state& sm = sms_[sm_index];
        const std::uint32_t need = warps_per_cta();
        if (next_cta_ >= shape_.ctas || sm.live_ctas >= p_.max_ctas_per_sm ||
            sm.live_warps + need > p_.max_warps_per_sm)
            return false;
        start_cta(sm_index, next_cta_);
        return true;
    }

    /// Starts CTA `cta` on `sm` (which has room; counted in next_cta_, the CTAs started).
    void start_cta(std::uint32_t sm_index, std::uint32_t cta) {
        sm_state& sm = sms_[sm_index];
        const std::uint32_t need = warps_per_cta();
        ++next_cta_;
        std::uint32_t c = 0;
        while (sm.ctas[c].live) ++c;
        sm.ctas[c] = cta_slot{true, need};
        ++sm.live_ctas;
        ++live_ctas_;
        const std::uint64_t can_issue = cycle_ > sm.busy_until ? cycle_ : sm.busy_until;
        if (can_issue < sm.next_ready) sm.next_ready = can_issue;
        std::uint32_t w = 0;
        for (std::uint32_t i = 0; i < need; ++i) {
            while (sm.warps[w].live) ++w;
            warp_slot& slot = sm.warps[w];
            slot.live = true;
            slot.waiting = slot.exiting = false;
            slot.age = next_age_++;
            slot.ready_at = cycle_;
            slot.data_at = 0;
            slot.owed = 0;
            slot.cta_slot = c;
            slot.cta = cta;
            slot.warp_in_cta = i;
            kernel_.start_warp(slot.state, warp_origin{cta, i, shape_.threads_per_cta});
            ++sm.live_warps;
        }
    }

    [[nodiscard]] bool ready(const warp_slot& s) const noexcept {
        return s.live && s.ready_at <= cycle_;
    }

    /// The warp `sm` issues from at the current cycle; no_warp if none is ready. A ready warp
    /// that is exiting is returned first (issue retires it).
    std::uint32_t pick(sm_state& sm) noexcept {
        if (sm.next_ready > cycle_) {
            if (sm.next_ready < earliest_ready_) earliest_ready_ = sm.next_ready;
            return no_warp;
        }
        if (p_.warps != warp_order::lrr && sm.greedy != no_warp && ready(sm.warps[sm.greedy]))
            return sm.greedy;
        const auto n = static_cast<std::uint32_t>(sm.warps.size());
        std::uint32_t best = no_warp;
        std::uint64_t soonest = never;
        if (p_.warps == warp_order::gto) {
            for (std::uint32_t w = 0; w < n; ++w) {
                const warp_slot& s = sm.warps[w];
                if (!s.live) continue;
                if (s.ready_at <= cycle_) {
                    if (s.exiting) return w;
                    if (best == no_warp || s.age < sm.warps[best].age) best = w;
                } else if (s.ready_at < soonest) {
                    soonest = s.ready_at;
                }
            }
        } else { // round robin from the slot after the last picked one
            std::uint32_t w =
                sm.last_slot == no_warp || sm.last_slot + 1 == n ? 0 : sm.last_slot + 1;
            for (std::uint32_t k = 0; k < n; ++k, w = w + 1 == n ? 0 : w + 1) {
                const warp_slot& s = sm.warps[w];
                if (!s.live) continue;
                if (s.ready_at <= cycle_) return w;
                if (s.ready_at < soonest) soonest = s.ready_at;
            }
        }
        if (best == no_warp) sm.next_ready = soonest;
        if (soonest < earliest_ready_) earliest_ready_ = soonest;
        return best;
    }

    bool issue(std::uint32_t sm_index, warp_instruction& out) {
        sm_state& sm = sms_[sm_index];
        for (;;) {
            const std::uint32_t w = pick(sm);
            if (w == no_warp) return false;
            warp_slot& slot = sm.warps[w];
            sm.greedy = sm.last_slot = w;
            if (!slot.exiting) {
                out.alu_cycles = 0;
                if (kernel_.step(slot.state, out)) {
                    fill(sm_index, w, out);
                    return true;
                }
                if (slot.owed != 0) { // its loads still write its registers: retire later
                    slot.exiting = slot.waiting = true;
                    slot.ready_at = never;
                    ++waiting_warps_;
                    sm.greedy = no_warp;
                    continue;
                }
            }
            retire(sm_index, w); // the warp exited: pick another this cycle
        }
    }

    /// Fills the scheduler's fields of `out`, which warp `w` of `sm_index` issues now, and
    /// charges the warp its wait.
    void fill(std::uint32_t sm_index, std::uint32_t w, warp_instruction& out) noexcept {
        sm_state& sm = sms_[sm_index];
        warp_slot& slot = sm.warps[w];
        out.launch = launch_;
        out.sm = sm_index;
        out.cta = slot.cta;
        out.warp_in_cta = slot.warp_in_cta;
        out.warp_age = slot.age;
        out.issue_cycle = cycle_;
        out.warp = warp_id{sm_index * p_.max_warps_per_sm + w};
        ++sm.stats.instructions;
        const bool same_warp = slot.age == sm.last_age;
        if (!same_warp) {
            ++sm.stats.runs;
            sm.last_age = slot.age;
        }
        const std::uint64_t after_alu = cycle_ + 1 + out.alu_cycles;
        sm.stats.slot_runs += same_warp && cycle_ == sm.run_next_cycle ? 0u : 1u;
        sm.stats.slots += 1 + out.alu_cycles;
        sm.run_next_cycle = after_alu;
        if (out.alu_cycles != 0) sm.busy_until = sm.next_ready = after_alu;
        const bool load = out.kind == access_kind::load;
        if (p_.latency == latency_mode::constant) {
            const std::uint64_t wait = cycle_ + (load && out.stalls ? p_.load_latency : 1u);
            slot.ready_at = wait > after_alu ? wait : after_alu;
            return;
        }
        if (after_alu > slot.data_at) slot.data_at = after_alu;
        if (!load) {
            slot.ready_at = after_alu;
            return;
        }
        ++slot.owed;
        ++outstanding_;
        if (out.stalls) {
            slot.waiting = true;
            slot.ready_at = never;
            ++waiting_warps_;
        } else {
            slot.ready_at = after_alu;
        }
    }

    void retire(std::uint32_t sm_index, std::uint32_t w) {
        sm_state& sm = sms_[sm_index];
        warp_slot& slot = sm.warps[w];
        slot.live = false;
        slot.exiting = false;
        --sm.live_warps;
        if (sm.greedy == w) sm.greedy = no_warp;
        cta_slot& c = sm.ctas[slot.cta_slot];
        if (--c.warps_left == 0) {
            c.live = false;
            --sm.live_ctas;
            --live_ctas_;
            if constexpr (builtin) {
                while (place_cta(sm_index)) {
                }
            } else {
                placement_->on_cta_complete(sm_index);
                dispatch_all();
            }
        }
    }

    [[nodiscard]] warp_slot& slot_of(warp_id w) noexcept {
        MEMSUB_ASSERT(w.value / p_.max_warps_per_sm < sms_.size());
        return sms_[w.value / p_.max_warps_per_sm].warps[w.value % p_.max_warps_per_sm];
    }

    Kernel& kernel_;
    gto_params p_;
    CtaPlacement* placement_ = nullptr;
    std::vector<sm_state> sms_;
    launch_shape shape_{};
    bool started_ = false;
    std::uint32_t launch_ = 0;
    std::uint32_t next_cta_ = 0;
    std::uint32_t live_ctas_ = 0;
    std::uint64_t next_age_ = 0;
    std::uint64_t cycle_ = 0;
    std::uint64_t launch_start_ = 0;
    // The visit of the current cycle: SMs round_start_, round_start_ + 1, … (wrapping).
    std::uint32_t cursor_ = 0;
    std::uint32_t round_start_ = 0;
    std::uint32_t stride_ = 1;
    xoshiro256ss order_rng_;
    bool issued_in_round_ = false;
    std::uint64_t earliest_ready_ = never;
    // Host mode: completions owed, and warps waiting for theirs.
    std::uint32_t outstanding_ = 0;
    std::uint32_t waiting_warps_ = 0;
};

} // namespace memsub::workload::simt
