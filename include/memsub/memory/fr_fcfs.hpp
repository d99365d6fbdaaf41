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
        bool oldest_has_older = false;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t b = v.bank(i);
            const std::uint64_t bit = std::uint64_t{1} << b;
            const bool older = (older_seen & bit) != 0;
            older_seen |= bit;
            if (!v.ready(i)) continue;
            if (v.hit(i) && !(older && bypasses_[b] >= cap_)) {
                chosen_has_older_ = older;
                return {.index = i, .wake = 0};
            }
            if (oldest_ready == selection::none) {
                oldest_ready = i;
                oldest_has_older = older;
            }
        }
        if (oldest_ready != selection::none) {
            chosen_has_older_ = oldest_has_older;
            return {.index = oldest_ready, .wake = 0};
        }
        std::uint64_t wake = never; // nothing ready: the first cycle something may be
        for (std::size_t i = 0; i < n; ++i) wake = std::min(wake, v.ready_at(i));
        return {.index = selection::none, .wake = wake};
    }

    /// Precondition (S3): `index` is what the last `select` returned.
    template <class View>
    void on_selected(const View& v, std::size_t index) noexcept {
        const std::uint32_t b = v.bank(index);
        // A row hit chosen over an older request of its bank is a bypass; anything else resets.
        if (chosen_has_older_)
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
    bool chosen_has_older_ = false;
};

static_assert(request_scheduler<fr_fcfs>);

} // namespace memsub::memory
