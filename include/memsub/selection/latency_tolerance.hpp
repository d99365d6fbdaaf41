// memsub — the latency-tolerance estimator LATTE-CC reads ([Dissertation] §4.1.3, §4.2.2): how
// many cycles of a hit's latency an SM fills with other warps' work, in cycles.
//
// The text uses the number of available warps as the proxy (Fig. 4.4): a warp waiting on its
// own hit is not available, so the count already excludes it.
//  * Round robin: tolerance = available warps (the scheduler issues one instruction from each
//    available warp before it returns to the waiting one: one cycle each).
//  * GTO (the baseline's scheduler, [Dissertation] Table 4.2): the text's formula is missing in
//    print. Decision: tolerance = available warps × mean issue run, the mean number of issue
//    slots a warp keeps the SM busy before it stalls (GTO keeps issuing from one warp, so each
//    available warp covers a run, not one cycle). The run is measured per epoch from the
//    scheduler's issue counts and smoothed by an EWMA: in issue slots (`slots / slot_runs`:
//    an instruction's arithmetic counts, a lone warp's run ends when it waits) when the
//    scheduler counts them, as simt::gto_scheduler does, else in instructions (`instructions /
//    runs`); `run_unit` chooses. Instructions alone would miss the arithmetic GTO issues from
//    the same warp, and a run that ends only when another warp issues makes a one-warp SM's
//    whole launch one run, which then inflates the average of the next phase.
//  * Host: the host supplies the tolerance itself every epoch (a different pipeline model).
// Available warps are sampled by the host (`sample()`, e.g. at every L1 access of the SM) and
// averaged over the epoch; an epoch with no sample reuses the last average.
//
// Two schedulers per SM (Table 4.2 has two GTO schedulers per SM). Decision: a waiting warp's
// cycles are covered only by the warps of its own scheduler, which hold about 1/S of the SM's
// available warps (GPGPU-Sim splits warps between schedulers by warp id), so the tolerance is
// divided by `schedulers_per_sm`. Its default is 1 because memsub's `gto_scheduler` models one
// issue stream per SM, whose ready count is already that stream's; a host modelling two
// schedulers with an SM-wide ready count passes 2. Rejected: ignoring the split (it would
// double every SM's tolerance under two schedulers).
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>

#include <memsub/core/errors.hpp>

namespace memsub::selection {

/// Where the tolerance comes from.
enum class tolerance_source : std::uint8_t { round_robin, gto, host };
/// What a GTO issue run is counted in (see the header comment).
enum class run_unit : std::uint8_t { slots, instructions };

struct latency_tolerance_params {
    tolerance_source source = tolerance_source::gto;
    /// Weight of the newest epoch's mean issue run in the EWMA, in (0, 1].
    double run_weight = 0.25;
    /// Warp schedulers per SM sharing the available warps (see the header's Decision).
    std::uint32_t schedulers_per_sm = 1;
    /// Issue runs in slots (when the scheduler counts them) or in instructions.
    run_unit runs = run_unit::slots;
};

/// A scheduler the estimator can read: available warps and issue counts of an SM.
template <class S>
concept issue_counting_scheduler = requires(const S& s, std::uint32_t sm) {
    { s.ready_warps(sm) } -> std::convertible_to<std::uint32_t>;
    { s.issue_stats(sm).instructions } -> std::convertible_to<std::uint64_t>;
    { s.issue_stats(sm).runs } -> std::convertible_to<std::uint64_t>;
};

/// The estimator of one SM. `Scheduler` is read through a pointer the host keeps alive.
template <issue_counting_scheduler Scheduler>
class latency_tolerance_estimator {
public:
    static constexpr std::string_view component = "memsub::selection::latency_tolerance_estimator";

    /// A host-supplied estimator (no scheduler).
    explicit latency_tolerance_estimator(const latency_tolerance_params& p)
        : latency_tolerance_estimator(nullptr, 0, p) {}
    latency_tolerance_estimator(const Scheduler* scheduler, std::uint32_t sm,
                                const latency_tolerance_params& p = {})
        : scheduler_(scheduler)
        , sm_(sm)
        , p_(p) {
        require(p.source == tolerance_source::host || scheduler != nullptr, component, "scheduler",
                0,
                "a round-robin or GTO tolerance estimator reads a scheduler: give one, or use "
                "tolerance_source::host");
        require(p.run_weight > 0.0 && p.run_weight <= 1.0, component, "run_weight", p.run_weight,
                "must be in (0, 1]");
        require(p.schedulers_per_sm >= 1, component, "schedulers_per_sm", p.schedulers_per_sm,
                "must be >= 1");
        if (scheduler_ != nullptr) std::tie(last_instructions_, last_runs_) = run_counts();
    }

    /// One sample of the SM's available warps (any time during the epoch).
    void sample() noexcept {
        if (scheduler_ == nullptr) return;
        ready_sum_ += scheduler_->ready_warps(sm_);
        ++samples_;
    }
    /// Host source: the tolerance for the coming epochs, in cycles.
    void set_host_tolerance(std::uint32_t cycles) noexcept { host_cycles_ = cycles; }

    /// Closes an epoch: folds its samples and issue counts in and returns the tolerance in
    /// cycles (rounded down).
    std::uint32_t end_epoch() noexcept {
        if (p_.source == tolerance_source::host) return tolerance_ = host_cycles_;
        if (samples_ != 0) mean_ready_ = static_cast<double>(ready_sum_) / samples_;
        ready_sum_ = 0;
        samples_ = 0;
        const auto [issued, run_count] = run_counts();
        const std::uint64_t instr = issued - last_instructions_;
        const std::uint64_t runs = run_count - last_runs_;
        last_instructions_ = issued;
        last_runs_ = run_count;
        if (runs != 0) {
            const double run = static_cast<double>(instr) / static_cast<double>(runs);
            mean_run_ = have_run_ ? (1.0 - p_.run_weight) * mean_run_ + p_.run_weight * run : run;
            have_run_ = true;
        }
        const double per_warp = p_.source == tolerance_source::gto ? mean_run_ : 1.0;
        tolerance_ = static_cast<std::uint32_t>(
            std::floor(mean_ready_ * per_warp / static_cast<double>(p_.schedulers_per_sm)));
        return tolerance_;
    }

    [[nodiscard]] std::uint32_t tolerance() const noexcept { return tolerance_; }
    [[nodiscard]] double mean_ready_warps() const noexcept { return mean_ready_; }
    [[nodiscard]] double mean_issue_run() const noexcept { return mean_run_; }
    [[nodiscard]] const latency_tolerance_params& parameters() const noexcept { return p_; }

private:
    /// (issued, runs) in the configured unit.
    [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> run_counts() const noexcept {
        const auto& st = scheduler_->issue_stats(sm_);
        if constexpr (requires {
                          st.slots;
                          st.slot_runs;
                      })
            if (p_.runs == run_unit::slots) return {st.slots, st.slot_runs};
        return {st.instructions, st.runs};
    }

    const Scheduler* scheduler_ = nullptr;
    std::uint32_t sm_ = 0;
    latency_tolerance_params p_;
    std::uint64_t ready_sum_ = 0;
    std::uint64_t samples_ = 0;
    std::uint64_t last_instructions_ = 0;
    std::uint64_t last_runs_ = 0;
    double mean_ready_ = 0.0;
    double mean_run_ = 1.0;
    bool have_run_ = false;
    std::uint32_t host_cycles_ = 0;
    std::uint32_t tolerance_ = 0;
};

/// The scheduler of a host-supplied estimator: none (`tolerance_source::host` only).
struct no_scheduler {
    struct counts {
        std::uint64_t instructions = 0;
        std::uint64_t runs = 0;
    };
    [[nodiscard]] std::uint32_t ready_warps(std::uint32_t) const noexcept { return 0; }
    [[nodiscard]] counts issue_stats(std::uint32_t) const noexcept { return {}; }
};

/// An estimator whose tolerance the host supplies every epoch.
using host_latency_tolerance = latency_tolerance_estimator<no_scheduler>;

} // namespace memsub::selection
