// memsub — `selection::adaptive_hit_count`: the baseline of [Dissertation] §4.3.7 — LATTE-CC's
// set sampling, but followers take the mode whose dedicated sets counted the most hits, which
// ignores decompression latency and latency tolerance. Ties → the lower mode (Decision, as
// LATTE-CC's); a mode with no counted access is never chosen.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/selection/concept.hpp>
#include <memsub/selection/detail/sampled_selection.hpp>

namespace memsub::selection {

class adaptive_hit_count : public detail::sampled_selection<adaptive_hit_count> {
    using base = detail::sampled_selection<adaptive_hit_count>;
    friend base;

public:
    struct params {
        detail::sampling_schedule schedule{};
    };
    static constexpr std::string_view component = "memsub::selection::adaptive_hit_count";

    adaptive_hit_count(const selection_shape& shape, const params& p)
        : base(shape, p.schedule, component) {}

    [[nodiscard]] std::string_view name() const noexcept { return "adaptive-hit-count"; }

private:
    [[nodiscard]] static double cost(std::uint32_t, const candidate_counts& k) noexcept {
        return -static_cast<double>(k.hits);
    }
};

static_assert(diagnose_mode_selector<adaptive_hit_count>());

} // namespace memsub::selection
