// memsub — FR-FCFS request scheduler with a starvation cap (models `request_scheduler`).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/scheduler.hpp>

namespace memsub::memory {

/// First-ready FCFS (Rixner et al., "Memory access scheduling", ISCA 2000): among requests
/// whose bank can take one, row hits first, oldest first; otherwise the oldest. Starvation
/// cap [memsub; the seeds' FR-FCFS has none]: per bank, a row hit may bypass an older request
/// of the same bank at most `max_row_hit_bypasses` times in a row; then the oldest request of
/// that bank goes first, so every request waits a bounded time. Storage: one bypass counter per
/// bank (⌈log2(cap+1)⌉ bits).
class fr_fcfs {
public:
    static constexpr std::string_view component = "memsub::memory::fr_fcfs";
    struct params {
        /// Consecutive row-hit bypasses of an older same-bank request (0 = plain FCFS per bank).
        std::uint32_t max_row_hit_bypasses = 16;
    };

    fr_fcfs() : fr_fcfs(params{}, 1) {}
    explicit fr_fcfs(const params& p, std::uint32_t banks = 1)
        : cap_(p.max_row_hit_bypasses)
        , bypasses_(banks, 0) {
        memsub::detail::require(banks >= 1 && banks <= 64, component, "banks", banks,
                                "must be in 1..64");
        memsub::detail::require(p.max_row_hit_bypasses <= 1u << 20, component,
                                "max_row_hit_bypasses", p.max_row_hit_bypasses, "must be <= 2^20");
    }

    template <class View>
    [[nodiscard]] selection select(std::size_t n, const View& v) noexcept {
        std::uint64_t older_seen = 0; // banks with an older (non-chosen) request
        std::size_t oldest_ready = selection::none;
        std::uint64_t wake = never;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t b = v.bank(i);
            const std::uint64_t bit = std::uint64_t{1} << b;
            if (!v.ready(i)) {
                wake = std::min(wake, v.ready_at(i));
                older_seen |= bit;
                continue;
            }
            const bool blocked = (older_seen & bit) != 0 && bypasses_[b] >= cap_;
            if (v.hit(i) && !blocked) return {.index = i, .wake = 0};
            if (oldest_ready == selection::none) oldest_ready = i;
            older_seen |= bit;
        }
        if (oldest_ready != selection::none) return {.index = oldest_ready, .wake = 0};
        return {.index = selection::none, .wake = wake};
    }

    template <class View>
    void on_selected(const View& v, std::size_t index) noexcept {
        const std::uint32_t b = v.bank(index);
        bool older_same_bank = false;
        for (std::size_t i = 0; i < index && !older_same_bank; ++i)
            older_same_bank = v.bank(i) == b;
        if (older_same_bank)
            ++bypasses_[b];
        else
            bypasses_[b] = 0;
    }

    [[nodiscard]] std::uint32_t bypasses(std::uint32_t bank) const noexcept {
        return bypasses_[bank];
    }
    [[nodiscard]] std::string_view name() const noexcept { return "fr-fcfs"; }

private:
    std::uint32_t cap_;
    std::vector<std::uint32_t> bypasses_;
};

static_assert(request_scheduler<fr_fcfs>);

} // namespace memsub::memory
