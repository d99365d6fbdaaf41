// memsub — `selection::latte_cc`: latency-tolerance-aware adaptive cache compression
// ([Dissertation] §4.2, §4.3.3). Followers take the mode with the least GPU AMAT
//   AMAT_gpu(m) = (N_hit · max(hit_latency(m) − tolerance, 0) + N_miss · miss_latency) / N
// (amat.hpp), from the set-sampling counts of detail/sampled_selection.hpp and the host's
// current latency tolerance (SO1, latency_tolerance.hpp). hit_latency(m) is the mean effective
// hit latency of mode m's counted hits (the cache's base hit latency plus Eq. 4.3's queued
// decompression). So on a latency-tolerant phase the high-capacity mode's long decompression is
// hidden and its extra hits win; on a latency-sensitive phase the exposed decompression costs
// more than the misses it saves, and LATTE-CC falls back to the low-latency mode or none.
// Decision: a mode with counted misses but no counted hit has hit_latency 0 (its hit term is
// empty anyway). Ties → the lower mode; a mode with no counted access is never chosen.
// Storage: per mode N_hit, N_miss and the latency sum (argmin_rule's counters, 32 bits each by
// default) plus the current mode; the dedicated sets cost nothing (complement-select).
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/selection/amat.hpp>
#include <memsub/selection/concept.hpp>
#include <memsub/selection/detail/sampled_selection.hpp>

namespace memsub::selection {

class latte_cc : public detail::sampled_selection<latte_cc> {
    using base = detail::sampled_selection<latte_cc>;
    friend base;

public:
    struct params {
        detail::sampling_schedule schedule{};
    };
    static constexpr std::string_view component = "memsub::selection::latte_cc";
    static constexpr bool needs_latency_tolerance = true;

    latte_cc(const selection_shape& shape, const params& p)
        : base(shape, p.schedule, component)
        , miss_latency_(shape.miss_latency) {}

    // SO1
    void set_latency_tolerance(std::uint32_t cycles) noexcept { tolerance_ = cycles; }
    [[nodiscard]] std::uint32_t latency_tolerance() const noexcept { return tolerance_; }

    [[nodiscard]] std::string_view name() const noexcept { return "latte-cc"; }

    /// Mode m's AMAT_gpu from this period's counts and the current tolerance.
    [[nodiscard]] double amat(std::uint32_t m) const noexcept { return cost(m, counts(m)); }

private:
    [[nodiscard]] double cost(std::uint32_t, const candidate_counts& k) const noexcept {
        const double mean_hit =
            k.hits == 0 ? 0.0 : static_cast<double>(k.hit_cost) / static_cast<double>(k.hits);
        return gpu_amat(k.hits, mean_hit, k.misses, miss_latency_, tolerance_);
    }

    double miss_latency_;
    std::uint32_t tolerance_ = 0;
};

static_assert(diagnose_mode_selector<latte_cc>());
static_assert(needs_latency_tolerance<latte_cc> && restricts_modes<latte_cc>);

} // namespace memsub::selection
