// memsub — fine-grain round-robin CTA assignment: CTA i → SM i mod N over all N SMs of all
// modules (C2.2, docs/mechanisms/multi_module_gpu.md, the GPGPU-Sim policy [MemNet] compares
// against; C5.7, the MCM-GPU study's "fine grain CTA assignment across GPUs", CTA i → module i mod
// M: SMs are numbered module-interleaved here, so both hold). The assignment is static: each SM
// runs its CTAs in id order as its slots free up, and a CTA waits for its own SM even if another is
// idle. Models `cta_scheduler` (cta/concept.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/cta/concept.hpp>
#include <memsub/cta/detail/scheduler_base.hpp>

namespace memsub::cta {

class fine_grain_round_robin : public detail::scheduler_base<fine_grain_round_robin> {
    friend class detail::scheduler_base<fine_grain_round_robin>;

public:
    static constexpr std::string_view component = "memsub::cta::fine_grain_round_robin";

    struct params {
        std::uint32_t modules = 4;
        std::uint32_t sms_per_module = 64;
    };

    fine_grain_round_robin() : fine_grain_round_robin(params{}) {}
    explicit fine_grain_round_robin(const params& p)
        : scheduler_base(p.modules, p.sms_per_module)
        , next_(sms(), 0)
        , work_(words(), 0) {}

    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return "fine_grain_round_robin";
    }

private:
    [[nodiscard]] std::uint64_t eligible_word(std::uint32_t w) const noexcept { return work_[w]; }
    [[nodiscard]] bool eligible(std::uint32_t pos) const noexcept {
        return (work_[pos >> 6] >> (pos & 63) & 1) != 0;
    }
    std::uint32_t take(std::uint32_t pos) noexcept {
        const std::uint32_t cta = next_[pos];
        next_[pos] += sms();
        if (next_[pos] >= ctas() || next_[pos] < cta) // done (or wrapped past 2^32)
            work_[pos >> 6] &= ~(std::uint64_t{1} << (pos & 63));
        return cta;
    }
    void on_launch(const kernel_launch& k) noexcept {
        for (std::uint32_t p = 0; p < sms(); ++p) next_[p] = p;
        std::fill(work_.begin(), work_.end(), 0);
        for (std::uint32_t p = 0; p < std::min(sms(), k.ctas); ++p)
            work_[p >> 6] |= std::uint64_t{1} << (p & 63);
    }
    void on_release(std::uint32_t /*pos*/) noexcept {}

    std::vector<std::uint32_t> next_; ///< next CTA of each SM position
    std::vector<std::uint64_t> work_; ///< positions with CTAs left
};

static_assert(cta_scheduler<fine_grain_round_robin>);

} // namespace memsub::cta
