// memsub — `simt::gto_scheduler`: runs a SIMT kernel's warps on several SMs and delivers their
// memory instructions in issue order, one `warp_instruction` at a time.
//
// Model (Table 3.1, seed 001 / spec id-cache.md "Reference GPU": GTO warp schedulers, 48 warps
// and 8 CTAs per SM; 15 SMs):
//  * CTAs are handed out in order: first one per SM round-robin, then, whenever an SM has room
//    (fewer than `max_ctas_per_sm` CTAs and room for the CTA's warps within
//    `max_warps_per_sm`), the next CTA goes to it (GPGPU-Sim's block issue, simplified).
//  * Greedy-then-oldest: an SM issues from the warp it issued last while that warp is ready,
//    otherwise from its oldest ready warp (age = the order warps were launched in).
//  * Time: one issue per SM per cycle. A load whose `stalls` is set makes its warp wait
//    `load_latency` cycles (the next instruction needs the value); a store or an independent
//    load does not stall. When no SM has a ready warp the clock jumps to the next ready time.
//    [resolution] The latency is one constant (no cache timing); 120 cycles is Table 3.1's
//    minimum L2 latency, the default. Not modelled: __syncthreads barriers (warps of a CTA run
//    independently), the two schedulers per SM (one GTO order per SM), non-memory instructions.
//  * SMs: their streams are interleaved round-robin, one instruction per SM per cycle.
//  * Launches run one after another; the kernel decides whether there is a next launch
//    (BFS's `over` flag) when the previous one has finished.
//  * CTA placement (issue 12): by default the built-in in-order block issue above
//    (`builtin_cta_issue`). With a memsub `cta::cta_scheduler` as the second template argument
//    (held by reference, given to the constructor) the scheduler decides instead: every kernel
//    launch becomes `launch({ctas, occupancy, kernel_id})` (occupancy = min(max_ctas_per_sm,
//    max_warps_per_sm / warps per CTA), so its free slots are exactly the SM's room), CTAs
//    start where `dispatch()` puts them, after the launch and after every CTA completion
//    (`on_cta_complete`). SM ids are the scheduler's global ids (module × sms_per_module +
//    local, CTP1); `sms` must equal its `sms()`. Successive launches of one kernel share its
//    kernel_id (a hash of `name()`), so a distributed scheduler places a CTA index on the same
//    module every launch (seed 000 §5.2, C5.5).
// Per instruction nothing is allocated: the warp slots are preallocated.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/cta/concept.hpp>
#include <memsub/workload/simt/warp_instruction.hpp>

namespace memsub::workload::simt {

/// A SIMT kernel: launches of CTAs whose warps produce memory instructions.
///  * `k.next_launch(shape)`: false when the run is over; else fills the next launch's shape.
///  * `k.start_warp(state, origin)`: (re)initialises a warp's per-lane registers.
///  * `k.step(state, out)`: fills `out` (pc, lanes, active mask, kind, size, stalls) with the
///    warp's next memory instruction, performing its loads and stores on the kernel's arrays;
///    false when the warp has exited. An instruction always has at least one active lane.
template <class K>
concept simt_kernel = requires(K& k, typename K::warp_state& w, const warp_origin& o,
                               warp_instruction& out, launch_shape& shape) {
    { k.next_launch(shape) } -> std::same_as<bool>;
    k.start_warp(w, o);
    { k.step(w, out) } -> std::same_as<bool>;
    { k.name() } -> std::convertible_to<std::string_view>;
};

struct gto_params {
    std::uint32_t sms = 15;
    std::uint32_t max_warps_per_sm = 48;
    std::uint32_t max_ctas_per_sm = 8;
    std::uint32_t load_latency = 120;
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
        memsub::detail::require(
            placement.sms() == p.sms, "memsub::workload::simt::gto_scheduler", "sms", p.sms,
            "must equal the CTA scheduler's sms() = " + std::to_string(placement.sms()));
        allocate();
    }

    /// The next issued memory instruction; false when every launch has finished.
    bool next(warp_instruction& out) {
        for (;;) {
            if (cursor_ == sms_.size()) {
                cursor_ = 0;
                if (issued_in_round_ || earliest_ready_ == never_ready)
                    ++cycle_;
                else
                    cycle_ = earliest_ready_ > cycle_ ? earliest_ready_ : cycle_ + 1;
                issued_in_round_ = false;
                earliest_ready_ = never_ready;
            }
            if (live_ctas_ == 0 && next_cta_ == shape_.ctas) {
                if (started_) ++launch_;
                if (!begin_launch()) return false;
                continue;
            }
            if constexpr (!builtin)
                if (live_ctas_ == 0)
                    throw std::logic_error(
                        "memsub::workload::simt::gto_scheduler: the CTA scheduler left CTAs of " +
                        std::string(kernel_.name()) + " unstarted with every SM idle");
            const std::uint32_t sm = cursor_++;
            if (issue(sm, out)) {
                issued_in_round_ = true;
                return true;
            }
        }
    }

    [[nodiscard]] std::uint64_t cycle() const noexcept { return cycle_; }
    [[nodiscard]] const gto_params& params() const noexcept { return p_; }

private:
    static constexpr std::uint64_t never_ready = std::numeric_limits<std::uint64_t>::max();
    static constexpr std::uint32_t no_warp = std::numeric_limits<std::uint32_t>::max();

    void allocate() {
        sms_.resize(p_.sms);
        for (sm_state& sm : sms_) {
            sm.warps.resize(p_.max_warps_per_sm);
            sm.ctas.resize(p_.max_ctas_per_sm);
        }
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
        std::uint64_t age = 0;
        std::uint64_t ready_at = 0;
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
        std::uint32_t greedy = no_warp;
    };

    static void validate(const gto_params& p) {
        constexpr std::string_view c = "memsub::workload::simt::gto_scheduler";
        memsub::detail::require(p.sms >= 1, c, "sms", p.sms, "must be >= 1");
        memsub::detail::require(p.max_warps_per_sm >= 1, c, "max_warps_per_sm", p.max_warps_per_sm,
                                "must be >= 1");
        memsub::detail::require(p.max_ctas_per_sm >= 1, c, "max_ctas_per_sm", p.max_ctas_per_sm,
                                "must be >= 1");
    }

    [[nodiscard]] std::uint32_t warps_per_cta() const noexcept {
        return (shape_.threads_per_cta + warp_lanes - 1) / warp_lanes;
    }

    bool begin_launch() {
        started_ = true;
        shape_ = {};
        if (!kernel_.next_launch(shape_)) return false;
        next_cta_ = 0;
        if (shape_.ctas == 0) return true;
        memsub::detail::require(shape_.threads_per_cta >= 1, kernel_.name(), "threads_per_cta",
                                shape_.threads_per_cta, "must be >= 1");
        memsub::detail::require(warps_per_cta() <= p_.max_warps_per_sm, kernel_.name(),
                                "threads_per_cta", shape_.threads_per_cta,
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
        std::uint32_t w = 0;
        for (std::uint32_t i = 0; i < need; ++i) {
            while (sm.warps[w].live) ++w;
            warp_slot& slot = sm.warps[w];
            slot.live = true;
            slot.age = next_age_++;
            slot.ready_at = cycle_;
            slot.cta_slot = c;
            slot.cta = cta;
            slot.warp_in_cta = i;
            kernel_.start_warp(slot.state, warp_origin{cta, i, shape_.threads_per_cta});
            ++sm.live_warps;
        }
    }

    /// GTO pick on `sm` at the current cycle; no_warp if no warp is ready.
    std::uint32_t pick(sm_state& sm) noexcept {
        if (sm.greedy != no_warp && sm.warps[sm.greedy].live &&
            sm.warps[sm.greedy].ready_at <= cycle_)
            return sm.greedy;
        std::uint32_t best = no_warp;
        for (std::uint32_t w = 0; w < sm.warps.size(); ++w) {
            const warp_slot& s = sm.warps[w];
            if (!s.live) continue;
            if (s.ready_at <= cycle_) {
                if (best == no_warp || s.age < sm.warps[best].age) best = w;
            } else if (s.ready_at < earliest_ready_) {
                earliest_ready_ = s.ready_at;
            }
        }
        return best;
    }

    bool issue(std::uint32_t sm_index, warp_instruction& out) {
        sm_state& sm = sms_[sm_index];
        for (;;) {
            const std::uint32_t w = pick(sm);
            if (w == no_warp) return false;
            warp_slot& slot = sm.warps[w];
            sm.greedy = w;
            if (kernel_.step(slot.state, out)) {
                out.launch = launch_;
                out.sm = sm_index;
                out.cta = slot.cta;
                out.warp_in_cta = slot.warp_in_cta;
                out.warp_age = slot.age;
                slot.ready_at =
                    cycle_ + (out.kind == access_kind::load && out.stalls ? p_.load_latency : 1u);
                return true;
            }
            retire(sm_index, w); // the warp exited: pick another this cycle
        }
    }

    void retire(std::uint32_t sm_index, std::uint32_t w) {
        sm_state& sm = sms_[sm_index];
        warp_slot& slot = sm.warps[w];
        slot.live = false;
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
    std::uint32_t cursor_ = 0;
    bool issued_in_round_ = false;
    std::uint64_t earliest_ready_ = never_ready;
};

} // namespace memsub::workload::simt
