// memsub — timeout-adaptive row policy (models `row_policy`, memory/row_policy_concept.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/row_policy_concept.hpp>

namespace memsub::memory {

/// Timeout-adaptive page policy: a bank closes its row after it has been idle for a per-bank
/// timeout since the last data transfer. Decision: none of the cited papers specifies the
/// adaptation; memsub's rule is the simplest that corrects both mistakes a timer makes. The
/// timeout adapts
/// multiplicatively: a request that finds its own row closed by the timer (a premature close)
/// doubles the bank's timeout; a request that finds another row still open (a conflict the
/// timer failed to avoid) halves it; bounded to [min_timeout_cycles, max_timeout_cycles].
/// Storage: one timeout register (log2 bits) per bank plus an idle counter per bank.
class timeout_adaptive {
public:
    static constexpr std::string_view component = "memsub::memory::timeout_adaptive";
    struct params {
        std::uint32_t initial_timeout_cycles = 64;
        std::uint32_t min_timeout_cycles = 8;
        std::uint32_t max_timeout_cycles = 1024;
        /// false: a fixed timeout (initial_timeout_cycles) without adaptation.
        bool adaptive = true;
    };

    timeout_adaptive() : timeout_adaptive(params{}, 1) {}
    explicit timeout_adaptive(const params& p, std::uint32_t banks = 1)
        : p_(p)
        , timeout_(banks, p.initial_timeout_cycles) {
        require(p.min_timeout_cycles >= 1, component, "min_timeout_cycles", p.min_timeout_cycles,
                "must be >= 1");
        require(p.max_timeout_cycles >= p.min_timeout_cycles, component, "max_timeout_cycles",
                p.max_timeout_cycles, "must be >= min_timeout_cycles");
        require(p.initial_timeout_cycles >= p.min_timeout_cycles &&
                    p.initial_timeout_cycles <= p.max_timeout_cycles,
                component, "initial_timeout_cycles", p.initial_timeout_cycles,
                "must lie in [min_timeout_cycles, max_timeout_cycles]");
        require(banks >= 1, component, "banks", banks, "must be >= 1");
    }

    [[nodiscard]] std::uint64_t close_at(std::uint32_t bank,
                                         std::uint64_t data_end) const noexcept {
        return data_end + timeout_[bank];
    }
    void observe(std::uint32_t bank, row_class found, bool premature_close) noexcept {
        if (!p_.adaptive) return;
        std::uint32_t& t = timeout_[bank];
        if (premature_close)
            t = std::min(p_.max_timeout_cycles, t * 2);
        else if (found == row_class::conflict)
            t = std::max(p_.min_timeout_cycles, t / 2);
    }
    [[nodiscard]] std::uint32_t timeout(std::uint32_t bank) const noexcept {
        return timeout_[bank];
    }
    [[nodiscard]] std::string_view name() const noexcept { return "timeout-adaptive"; }

private:
    params p_;
    std::vector<std::uint32_t> timeout_;
};

static_assert(row_policy<timeout_adaptive>);

} // namespace memsub::memory
