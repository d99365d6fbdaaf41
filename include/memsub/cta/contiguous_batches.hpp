// memsub — distributed CTA scheduling with contiguous batches ([MCM-GPU] §5.2,
// C5.5; Kim et al.'s SKE static chunked assignment, [MemNet], C2.1
// (docs/mechanisms/multi_module_gpu.md)). The kernel's CTAs are split equally among the M modules,
// module g receiving the contiguous range [⌊g·C/M⌋, ⌊(g+1)·C/M⌋) (balanced floor ranges, sizes
// differ by at most one: decision G5.3, docs/mechanisms/multi_module_gpu.md); inside a module its
// CTAs go in order to its SMs as they free up (local round robin). No stealing. CTA → module is a
// function of (CTA id, C, M) only, so a CTA with the same index lands on the same module in every
// launch of the kernel (the first-touch synergy, C5.5). Models `cta_scheduler` (cta/concept.hpp).
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/cta/concept.hpp>
#include <memsub/cta/detail/module_queues.hpp>
#include <memsub/cta/detail/scheduler_base.hpp>

namespace memsub::cta {

class contiguous_batches : public detail::scheduler_base<contiguous_batches> {
    friend class detail::scheduler_base<contiguous_batches>;

public:
    static constexpr std::string_view component = "memsub::cta::contiguous_batches";

    struct params {
        std::uint32_t modules = 4;
        std::uint32_t sms_per_module = 64;
    };

    contiguous_batches() : contiguous_batches(params{}) {}
    explicit contiguous_batches(const params& p)
        : scheduler_base(p.modules, p.sms_per_module)
        , queues_(p.modules, words()) {}

    /// The module CTA `cta` of a `ctas`-CTA kernel runs on (C5.5): the inverse of the ranges.
    [[nodiscard]] static constexpr std::uint32_t
    module_of_cta(std::uint32_t cta, std::uint32_t ctas, std::uint32_t modules) noexcept {
        // The largest g with ⌊g·C/M⌋ ≤ cta.
        const std::uint64_t guess =
            (std::uint64_t{cta} * modules + modules - 1) / (ctas == 0 ? 1 : ctas);
        auto g = static_cast<std::uint32_t>(guess < modules ? guess : modules - 1);
        while (g > 0 && detail::range_begin(g, ctas, modules) > cta) --g;
        while (g + 1 < modules && detail::range_begin(g + 1, ctas, modules) <= cta) ++g;
        return g;
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "contiguous_batches"; }

private:
    [[nodiscard]] std::uint64_t eligible_word(std::uint32_t w) const noexcept {
        return queues_.word(w);
    }
    [[nodiscard]] bool eligible(std::uint32_t pos) const noexcept {
        return queues_.has_work(module_of_pos(pos));
    }
    std::uint32_t take(std::uint32_t pos) noexcept {
        std::uint32_t cta = 0;
        if (queues_.pop_front(module_of_pos(pos), cta)) queues_.refresh(*this);
        return cta;
    }
    void on_launch(const kernel_launch& k) noexcept {
        for (std::uint32_t g = 0; g < modules(); ++g)
            queues_.set(g, detail::range_begin(g, k.ctas, modules()),
                        detail::range_begin(g + 1, k.ctas, modules()));
        queues_.refresh(*this);
    }
    void on_release(std::uint32_t /*pos*/) noexcept {}

    detail::module_queues queues_;
};

static_assert(cta_scheduler<contiguous_batches>);

} // namespace memsub::cta
