// memsub — the centralised round-robin CTA scheduler: the MCM-GPU baseline ([MCM-GPU] §5.2,
// C5.4 (docs/mechanisms/multi_module_gpu.md)). At launch the first CTAs go out in CTA order across
// all SMs of all modules; afterwards, whenever an SM has room for another CTA it gets the next
// unstarted CTA in global order, SMs visited round-robin. SMs are visited module-interleaved
// (cta/detail/ scheduler_base.hpp), so consecutive CTAs land on different modules, as in Fig 8(a).
// Models `cta_scheduler` (cta/concept.hpp).
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/cta/concept.hpp>
#include <memsub/cta/detail/scheduler_base.hpp>

namespace memsub::cta {

class centralized_round_robin : public detail::scheduler_base<centralized_round_robin> {
    friend class detail::scheduler_base<centralized_round_robin>;

public:
    static constexpr std::string_view component = "memsub::cta::centralized_round_robin";

    struct params {
        std::uint32_t modules = 4;
        std::uint32_t sms_per_module = 64;
    };

    centralized_round_robin() : centralized_round_robin(params{}) {}
    explicit centralized_round_robin(const params& p)
        : scheduler_base(p.modules, p.sms_per_module) {}

    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return "centralized_round_robin";
    }

private:
    [[nodiscard]] std::uint64_t eligible_word(std::uint32_t w) const noexcept {
        return all_word(w); // any SM takes the next CTA in global order
    }
    [[nodiscard]] bool eligible(std::uint32_t /*pos*/) const noexcept { return true; }
    std::uint32_t take(std::uint32_t /*pos*/) noexcept { return next_++; }
    void on_launch(const kernel_launch& /*k*/) noexcept { next_ = 0; }
    void on_release(std::uint32_t /*pos*/) noexcept {}

    std::uint32_t next_ = 0;
};

static_assert(cta_scheduler<centralized_round_robin>);

} // namespace memsub::cta
