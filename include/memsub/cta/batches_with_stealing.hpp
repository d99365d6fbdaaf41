// memsub — contiguous batches with CTA stealing (Kim et al. [MemNet] §4: the "dynamic
// two-level scheduler" that complements the static assignment with CTA stealing; C2.4 in
// docs/mechanisms/multi_module_gpu.md). Starts from the balanced contiguous ranges of
// `contiguous_batches` (C2.1 / C5.5). When an SM is idle (no resident CTA; [MemNet]: "once a core
// becomes idle") and its module has no unstarted CTA left, it steals from the module with the most
// unstarted CTAs (ties: the lowest id), from the tail of that module's range so the victim keeps
// its contiguous head (Decision C2.4). `steal_ctas` CTAs move per steal (default 1, a decision):
// the first starts on the idle SM, the rest join the thief module's queue. `steal_on_free_slot`
// lets an SM with a free slot steal even while it still runs CTAs. stats().stolen counts the CTAs
// moved. Steal latency is the host's (C2.4, docs/mechanisms/multi_module_gpu.md). Models
// `cta_scheduler` (cta/concept.hpp).
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/cta/concept.hpp>
#include <memsub/cta/detail/module_queues.hpp>
#include <memsub/cta/detail/scheduler_base.hpp>

namespace memsub::cta {

class batches_with_stealing : public detail::scheduler_base<batches_with_stealing> {
    friend class detail::scheduler_base<batches_with_stealing>;

public:
    static constexpr std::string_view component = "memsub::cta::batches_with_stealing";

    struct params {
        std::uint32_t modules = 4;
        std::uint32_t sms_per_module = 64;
        /// CTAs taken per steal (Decision C2.4, docs/mechanisms/multi_module_gpu.md: 1,
        /// configurable).
        std::uint32_t steal_ctas = 1;
        /// Steal for an SM with a free slot, not only for an idle SM.
        bool steal_on_free_slot = false;
    };

    batches_with_stealing() : batches_with_stealing(params{}) {}
    explicit batches_with_stealing(const params& p)
        : scheduler_base(p.modules, p.sms_per_module)
        , p_(p)
        , queues_(p.modules, words()) {
        memsub::require(p.steal_ctas >= 1, component, "steal_ctas", p.steal_ctas,
                        "must be at least 1");
    }

    /// Unstarted CTAs in module m's queue.
    [[nodiscard]] std::uint32_t unstarted_in(std::uint32_t m) const noexcept {
        return m < modules() ? queues_.remaining(m) : 0;
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return "batches_with_stealing";
    }

private:
    [[nodiscard]] std::uint64_t eligible_word(std::uint32_t w) const noexcept {
        const std::uint64_t own = queues_.word(w);
        if (queues_.work_set() == 0) return 0;
        return own | ((p_.steal_on_free_slot ? all_word(w) : idle_word(w)) & ~own);
    }
    [[nodiscard]] bool eligible(std::uint32_t pos) const noexcept {
        if (queues_.has_work(module_of_pos(pos))) return true;
        return queues_.work_set() != 0 && (p_.steal_on_free_slot || is_idle(pos));
    }
    std::uint32_t take(std::uint32_t pos) noexcept {
        const std::uint32_t m = module_of_pos(pos);
        std::uint32_t cta = 0;
        if (queues_.has_work(m)) {
            if (queues_.pop_front(m, cta)) queues_.refresh(*this);
            return cta;
        }
        // Steal from the tail of the module with the most unstarted CTAs.
        std::uint32_t victim = 0, most = 0;
        for (std::uint64_t s = queues_.work_set(); s != 0; s &= s - 1) {
            const auto v = static_cast<std::uint32_t>(std::countr_zero(s));
            if (queues_.remaining(v) > most) most = queues_.remaining(v), victim = v;
        }
        const std::uint32_t k = most < p_.steal_ctas ? most : p_.steal_ctas;
        const std::uint32_t first = queues_.hi(victim) - k;
        queues_.pop_back(victim, k);
        queues_.set(m, first + 1, first + k); // the rest of the stolen CTAs
        queues_.refresh(*this);
        stats_.stolen += k;
        return first;
    }
    void on_launch(const kernel_launch& k) noexcept {
        for (std::uint32_t g = 0; g < modules(); ++g)
            queues_.set(g, detail::range_begin(g, k.ctas, modules()),
                        detail::range_begin(g + 1, k.ctas, modules()));
        queues_.refresh(*this);
    }
    void on_release(std::uint32_t /*pos*/) noexcept {}

    params p_;
    detail::module_queues queues_;
};

static_assert(cta_scheduler<batches_with_stealing>);

} // namespace memsub::cta
