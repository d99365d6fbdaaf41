// memsub — contiguous batches with an adaptive group size: the dynamic mechanism the MCM-GPU
// paper suggests and does not build ([MCM-GPU] §5.2: "Such workloads tend to suffer from the
// coarse granularity of CTA division and may perform better with a smaller number of
// contiguous CTAs assigned to each GPM. A case for a dynamic mechanism for choosing the group
// size could be made."; C5.5 in docs/mechanisms/multi_module_gpu.md). memsub's design:
//
// Assignment at level ℓ (fixed during a launch). Level 0 is `contiguous_batches`: module g
// gets [⌊g·C/M⌋, ⌊(g+1)·C/M⌋). Level ℓ ≥ 1 cuts the CTAs into groups of b = ⌈C / (M·2^ℓ)⌉
// contiguous CTAs and deals them block-cyclically: group j = [j·b, min((j+1)·b, C)) goes to
// module j mod M. Inside a module, its groups run in order on its SMs as they free up. So at
// every level CTA → module is a function of (CTA id, C, M, ℓ): deterministic within a launch
// and across launches at the same level (the first-touch synergy of C5.5 survives).
//
// Adaptation rule (between launches of the same kernel, keyed by (kernel_id, ctas); a new key
// starts at level 0). During a launch the scheduler records, once, the moment a module runs
// dry: an SM of a module with no unstarted CTA frees a slot while other modules still hold
// unstarted CTAs. `stranded` = the most unstarted CTAs any one module holds at that moment
// (work a finer split would have spread), in waves of a module (sms_per_module ×
// max_ctas_per_sm CTAs). The launch was imbalanced if stranded > imbalance_waves (default 2:
// iid noise in CTA run times leaves every module within about one wave of the others, while a
// skew that finer groups fix leaves one module several waves behind). After an imbalanced
// launch the next launch of the kernel runs one level finer (half the group), as long as the
// finer group still holds at least `min_group_ctas` CTAs (default: one wave of a module —
// groups smaller than what a module runs at once add no balance and cost locality). After a
// balanced launch the level stays. The level never goes back down for that kernel: the
// coarser levels were seen to strand work. So it changes at most log2(C/M) times and then
// stays, and from then on the assignment is the same in every launch. The cost: a level change
// moves CTAs between modules once, so pages they first touched become remote for them.
// No clock: "moment" is a point in the host's call sequence. Limit: the measure counts CTAs,
// not their run time (the scheduler sees none).
// Models `cta_scheduler` (cta/concept.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/cta/concept.hpp>
#include <memsub/cta/detail/module_queues.hpp>
#include <memsub/cta/detail/scheduler_base.hpp>

namespace memsub::cta {

class adaptive_batches : public detail::scheduler_base<adaptive_batches> {
    friend class detail::scheduler_base<adaptive_batches>;

public:
    static constexpr std::string_view component = "memsub::cta::adaptive_batches";

    struct params {
        std::uint32_t modules = 4;
        std::uint32_t sms_per_module = 64;
        /// A launch is imbalanced when, as the first module ran dry, another module held more
        /// than this many of its waves of unstarted CTAs.
        double imbalance_waves = 2.0;
        /// Smallest group a refinement may create; 0 = one wave of a module (sms_per_module ×
        /// max_ctas_per_sm).
        std::uint32_t min_group_ctas = 0;
        /// Highest level (group of ⌈C / (M·2^ℓ)⌉ CTAs).
        std::uint32_t max_level = 16;
    };

    adaptive_batches() : adaptive_batches(params{}) {}
    explicit adaptive_batches(const params& p)
        : scheduler_base(p.modules, p.sms_per_module)
        , p_(p)
        , queues_(p.modules, words())
        , group_of_(p.modules, 0) {
        memsub::require(p.imbalance_waves > 0, component, "imbalance_waves",
                        static_cast<std::uint64_t>(p.imbalance_waves), "must be positive");
        memsub::require(p.max_level <= 31, component, "max_level", p.max_level,
                        "must be at most 31");
    }

    /// Level of the current launch (0 = contiguous_batches).
    [[nodiscard]] std::uint32_t level() const noexcept { return level_; }
    /// CTAs per group of the current launch (level 0: the module ranges, ⌈C/M⌉ at most).
    [[nodiscard]] std::uint32_t group_size() const noexcept { return group_; }
    /// The most unstarted CTAs one module held when a module first ran dry in the current
    /// launch (0 if none did).
    [[nodiscard]] std::uint32_t stranded() const noexcept { return stranded_; }
    /// Whether the current launch has been judged imbalanced so far.
    [[nodiscard]] bool imbalanced() const noexcept { return imbalanced_; }

    /// The module CTA `cta` runs on at `level` (the rule above; for tests and hosts).
    [[nodiscard]] static constexpr std::uint32_t module_of_cta(std::uint32_t cta,
                                                               std::uint32_t ctas,
                                                               std::uint32_t modules,
                                                               std::uint32_t level) noexcept {
        if (level == 0) {
            std::uint32_t g = 0;
            while (g + 1 < modules && detail::range_begin(g + 1, ctas, modules) <= cta) ++g;
            return g;
        }
        return (cta / group_size_at(ctas, modules, level)) % modules;
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "adaptive_batches"; }

private:
    [[nodiscard]] static constexpr std::uint32_t
    group_size_at(std::uint32_t ctas, std::uint32_t modules, std::uint32_t level) noexcept {
        const std::uint64_t parts = std::uint64_t{modules} << level;
        const std::uint64_t b = (ctas + parts - 1) / parts;
        return b == 0 ? 1 : static_cast<std::uint32_t>(b);
    }

    [[nodiscard]] std::uint64_t eligible_word(std::uint32_t w) const noexcept {
        return queues_.word(w);
    }
    [[nodiscard]] bool eligible(std::uint32_t pos) const noexcept {
        return queues_.has_work(module_of_pos(pos));
    }
    std::uint32_t take(std::uint32_t pos) noexcept {
        const std::uint32_t m = module_of_pos(pos);
        std::uint32_t cta = 0;
        if (queues_.pop_front(m, cta)) {
            // The module's group is done: its next group j + M, if any.
            if (level_ != 0) {
                group_of_[m] += modules();
                const std::uint64_t lo = std::uint64_t{group_of_[m]} * group_;
                if (lo < ctas())
                    queues_.set(
                        m, static_cast<std::uint32_t>(lo),
                        static_cast<std::uint32_t>(std::min<std::uint64_t>(lo + group_, ctas())));
            }
            queues_.refresh(*this);
        }
        return cta;
    }
    void on_launch(const kernel_launch& k) noexcept {
        if (k.kernel_id != key_id_ || k.ctas != key_ctas_ || !seen_) {
            level_ = 0;
        } else if (imbalanced_ && level_ < p_.max_level) {
            const std::uint64_t min_group =
                p_.min_group_ctas != 0 ? p_.min_group_ctas
                                       : std::uint64_t{sms_per_module()} * k.max_ctas_per_sm;
            const std::uint32_t finer = group_size_at(k.ctas, modules(), level_ + 1);
            if (finer < group_size_at(k.ctas, modules(), level_) &&
                finer >= std::max<std::uint64_t>(1, min_group))
                ++level_;
        }
        seen_ = true;
        key_id_ = k.kernel_id;
        key_ctas_ = k.ctas;
        stranded_ = 0;
        stranded_waves_ = 0;
        imbalanced_ = false;
        measured_ = false;
        wave_ = std::uint64_t{sms_per_module()} * k.max_ctas_per_sm;
        if (level_ == 0) {
            group_ = group_size_at(k.ctas, modules(), 0);
            for (std::uint32_t g = 0; g < modules(); ++g)
                queues_.set(g, detail::range_begin(g, k.ctas, modules()),
                            detail::range_begin(g + 1, k.ctas, modules()));
        } else {
            group_ = group_size_at(k.ctas, modules(), level_);
            for (std::uint32_t g = 0; g < modules(); ++g) {
                group_of_[g] = g;
                const std::uint64_t lo = std::uint64_t{g} * group_;
                if (lo < k.ctas)
                    queues_.set(
                        g, static_cast<std::uint32_t>(lo),
                        static_cast<std::uint32_t>(std::min<std::uint64_t>(lo + group_, k.ctas)));
                else
                    queues_.set(g, 0, 0);
            }
        }
        queues_.refresh(*this);
    }
    void on_release(std::uint32_t pos) noexcept {
        if (measured_ || queues_.has_work(module_of_pos(pos)) || unstarted() == 0) return;
        measured_ = true; // once per launch: O(CTAs / group) here
        std::uint32_t most = 0;
        for (std::uint32_t m = 0; m < modules(); ++m) most = std::max(most, unstarted_in(m));
        stranded_ = most;
        stranded_waves_ = static_cast<double>(most) / static_cast<double>(wave_);
        imbalanced_ = stranded_waves_ > p_.imbalance_waves;
    }
    /// Unstarted CTAs of module m: its current group's rest and its later groups.
    [[nodiscard]] std::uint32_t unstarted_in(std::uint32_t m) const noexcept {
        if (!queues_.has_work(m)) return 0;
        std::uint64_t n = queues_.remaining(m);
        if (level_ != 0)
            for (std::uint64_t lo = (std::uint64_t{group_of_[m]} + modules()) * group_; lo < ctas();
                 lo += std::uint64_t{modules()} * group_)
                n += std::min<std::uint64_t>(group_, ctas() - lo);
        return static_cast<std::uint32_t>(n);
    }

    params p_;
    detail::module_queues queues_;
    std::vector<std::uint32_t> group_of_; ///< each module's current group index (level ≥ 1)
    std::uint32_t level_ = 0, group_ = 1, stranded_ = 0;
    std::uint64_t wave_ = 1;
    double stranded_waves_ = 0;
    bool imbalanced_ = false, measured_ = false, seen_ = false;
    std::uint64_t key_id_ = 0;
    std::uint32_t key_ctas_ = 0;
};

static_assert(cta_scheduler<adaptive_batches>);

} // namespace memsub::cta
