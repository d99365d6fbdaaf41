// memsub — FR-FCFS request scheduler with a starvation cap (models `request_scheduler`).
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/scheduler_concept.hpp>

// Forces the per-entry lambda of the scan inline (it runs for every queued request).
#if defined(__GNUC__) || defined(__clang__)
#define MEMSUB_FR_FCFS_INLINE __attribute__((always_inline))
#else
#define MEMSUB_FR_FCFS_INLINE
#endif

namespace memsub::memory {

/// First-ready FCFS ([FR-FCFS]), among requests
/// whose bank can take one. With a controller view that reports command timing (`issue_at`,
/// dram_controller's does): a row hit is ready when its column command can issue this cycle,
/// and the oldest ready hit goes first; a hit that must wait for tCCD / tWTR / the bus is
/// selected at the cycle it can issue, so hits to other bank groups fill the bus in between
/// (as a command-level FR-FCFS does). Otherwise the oldest request that is its bank's oldest
/// goes (its PRE/ACT are placed now), except that a bank whose open row has hits waiting is
/// not closed for it until the cap is reached (DRAMSim3 likewise holds a precharge while row
/// hits are pending). Without `issue_at`, a ready row hit is ready to go. Deviation: a
/// starvation cap, which the FR-FCFS of [HTA] and [MemNet] does not have: per bank, a row hit
/// may bypass an older request of
/// the same bank at most `max_row_hit_bypasses` times in a row; then the oldest request of
/// that bank goes first, so every request waits a bounded time. Storage: one bypass counter
/// per bank (⌈log2(cap+1)⌉ bits). A view of up to 64 entries may also give
/// `ready_entries()` (bit i: entry i ready) and `not_ready_wake()` (the earliest `ready_at`
/// of the others), which spare per-entry scans (dram_controller's view does).
class fr_fcfs {
public:
    static constexpr std::string_view component = "memsub::memory::fr_fcfs";
    struct params {
        /// Consecutive row-hit bypasses of an older same-bank request (0 = plain FCFS per bank).
        std::uint32_t max_row_hit_bypasses = 16;
        /// A row hit is ready when its column command can issue within this many cycles
        /// (views with `issue_at`): 0 is a command-level first-ready scheduler; larger values
        /// let hits be placed ahead of the bus (fewer decisions, a little less freedom to
        /// interleave bank groups).
        std::uint32_t hit_lookahead_cycles = 16;
        /// Among the ready row hits of different banks, the first bank after the last selected
        /// one (round-robin) goes first instead of the oldest hit (DRAMSim3 command_queue.cc
        /// GetCommandToIssue: it visits its per-bank queues round-robin from the one after the
        /// last issue, and issues the first ready command found). Views with `issue_at` only.
        /// false: the oldest ready hit.
        bool round_robin_hits = false;
        /// Likewise among the misses that may go (each its bank's oldest ready request, its
        /// bank with no row hit waiting): the first bank after the last selected one, instead
        /// of the oldest miss (DRAMSim3's round-robin covers every command, its ACTs too).
        bool round_robin_misses = false;
    };

    fr_fcfs() : fr_fcfs(params{}, 1) {}
    explicit fr_fcfs(const params& p, std::uint32_t banks = 1)
        : cap_(p.max_row_hit_bypasses)
        , lookahead_(p.hit_lookahead_cycles)
        , round_robin_(p.round_robin_hits)
        , round_robin_misses_(p.round_robin_misses)
        , bypasses_(banks, 0) {
        memsub::require(banks >= 1 && banks <= 64, component, "banks", banks, "must be in 1..64");
        memsub::require(p.max_row_hit_bypasses <= 1u << 20, component, "max_row_hit_bypasses",
                        p.max_row_hit_bypasses, "must be <= 2^20");
    }

    template <class View>
    [[nodiscard]] selection select(std::size_t n, const View& v) noexcept {
        if constexpr (requires {
                          { v.issue_at(n) } -> std::convertible_to<std::uint64_t>;
                          { v.now() } -> std::convertible_to<std::uint64_t>;
                      })
            return select_first_ready(n, v);
        else
            return select_by_bank(n, v);
    }

    /// Precondition (MS3): `index` is what the last `select` returned.
    template <class View>
    void on_selected(const View& v, std::size_t index) noexcept {
        const std::uint32_t b = v.bank(index);
        next_bank_ = b + 1 == bypasses_.size() ? 0 : b + 1;
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
    /// Without command timing from the view: a ready row hit (the oldest) is ready to go.
    template <class View>
    [[nodiscard]] selection select_by_bank(std::size_t n, const View& v) noexcept {
        // Readiness is monotone in age within a bank (MS2), so a ready entry has an older
        // request of its bank exactly when an earlier ready entry is of that bank.
        std::uint64_t ready_seen = 0;
        std::size_t oldest_ready = selection::none;
        for (std::size_t i = 0; i < n; ++i) {
            if (!v.ready(i)) continue;
            if (oldest_ready == selection::none) oldest_ready = i;
            const std::uint32_t b = v.bank(i);
            const std::uint64_t bit = std::uint64_t{1} << b;
            const bool older = (ready_seen & bit) != 0;
            ready_seen |= bit;
            if (v.hit(i) && !(older && bypasses_[b] >= cap_)) {
                chosen_has_older_ = older;
                return {.index = i, .wake = 0};
            }
        }
        if (oldest_ready != selection::none) {
            chosen_has_older_ = false; // the oldest ready entry is its bank's oldest
            return {.index = oldest_ready, .wake = 0};
        }
        return wake_only(n, v, never);
    }

    /// Rixner's first-ready: a row hit is ready when its column command can issue this cycle
    /// (`issue_at(i) == now()`: tCCD, tWTR and bus turnarounds allow it), and goes first, the
    /// oldest such. Otherwise the oldest request that is its bank's oldest, except that a
    /// bank whose open row still has hits waiting for the bus is not closed for an older miss
    /// until the cap is reached (as DRAMSim3 holds a precharge while row hits are pending).
    template <class View>
    [[nodiscard]] selection select_first_ready(std::size_t n, const View& v) noexcept {
        const std::uint64_t now = v.now();
        const std::uint64_t horizon = now + lookahead_;
        std::size_t best = selection::none; // the oldest ready hit issuing within the horizon
        bool best_older = false;
        std::uint32_t best_key = 0;    // round-robin distance of best's bank from next_bank_
        std::uint64_t ready_seen = 0;  // banks with an older ready entry
        std::uint64_t hit_waiting = 0; // banks with a ready row hit that cannot issue yet
        std::uint64_t hit_wake = never;
        std::size_t first_miss = selection::none; // oldest ready miss that is its bank's oldest
        std::uint64_t miss_banks = 0;             // banks of such misses (candidates)
        // Banks settled for this scan: one of their row hits was found waiting (all its hits
        // issue at the same cycle) or capped; their later entries cannot change the choice.
        std::uint64_t settled = 0;
        auto consider = [&](std::size_t i) MEMSUB_FR_FCFS_INLINE {
            const std::uint32_t b = v.bank(i);
            const std::uint64_t bit = std::uint64_t{1} << b;
            if ((settled & bit) != 0) return false;
            const bool older = (ready_seen & bit) != 0;
            ready_seen |= bit;
            if (!v.hit(i)) {
                if (!older) miss_banks |= bit;
                if (!older && first_miss == selection::none) first_miss = i;
                return false;
            }
            settled |= bit;
            if (older && bypasses_[b] >= cap_) return false;
            const std::uint64_t at = v.issue_at(i);
            if (at <= horizon) {
                if (!round_robin_) {
                    best = i;
                    best_older = older;
                    return true;
                }
                // Round-robin: the hit whose bank comes first from next_bank_ on (each bank's
                // oldest ready hit is the one considered: its bank is settled by it).
                const std::uint32_t key = (b + 64 - next_bank_) & 63u;
                if (best == selection::none || key < best_key) {
                    best = i;
                    best_older = older;
                    best_key = key;
                }
                return key == 0; // nothing can come before the next bank itself
            }
            hit_waiting |= bit;
            hit_wake = std::min(hit_wake, at - lookahead_);
            return false;
        };
        std::uint64_t not_ready = 0; // entries (n ≤ 64) whose bank does not take a request
        bool known = false;          // the view gave the ready entries
        if (n <= 64) {
            // Readiness of all entries first (from the view's per-bank positions, or
            // branch-free), then only the ready ones.
            std::uint64_t ready = 0;
            if constexpr (requires { v.ready_entries(); }) {
                if (v.ready_entries_known()) {
                    // Only the first n entries (a caller may offer the oldest n of a queue).
                    ready = v.ready_entries() &
                            (n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1);
                    known = true;
                }
            }
            if (!known)
                for (std::size_t i = 0; i < n; ++i) ready |= std::uint64_t{v.ready(i)} << i;
            not_ready = ~ready & (n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1);
            for (; ready != 0; ready &= ready - 1)
                if (consider(static_cast<std::size_t>(std::countr_zero(ready)))) break;
        } else {
            for (std::size_t i = 0; i < n; ++i)
                if (v.ready(i) && consider(i)) break;
        }
        if (best != selection::none) {
            chosen_has_older_ = best_older;
            return {.index = best, .wake = 0};
        }
        // A miss: the oldest whose bank has no row hit waiting (or has reached the cap).
        if (round_robin_misses_ && first_miss != selection::none) {
            // Or the one whose bank comes first from next_bank_ on.
            std::size_t pick = selection::none;
            std::uint32_t pick_key = 64;
            std::uint64_t left = miss_banks;
            for (std::size_t i = first_miss; i < n && left != 0; ++i) {
                const std::uint32_t b = v.bank(i);
                const std::uint64_t bit = std::uint64_t{1} << b;
                if ((left & bit) == 0 || !v.ready(i)) continue;
                left &= ~bit; // its bank's oldest ready entry (a miss)
                if ((hit_waiting & bit) != 0 && bypasses_[b] < cap_) continue;
                const std::uint32_t key = (b + 64 - next_bank_) & 63u;
                if (key < pick_key) {
                    pick = i;
                    pick_key = key;
                }
            }
            if (pick != selection::none) {
                chosen_has_older_ = false;
                return {.index = pick, .wake = 0};
            }
        }
        if (first_miss != selection::none) {
            const std::uint32_t b0 = v.bank(first_miss);
            if (((hit_waiting >> b0) & 1u) == 0 || bypasses_[b0] >= cap_) {
                chosen_has_older_ = false; // the usual case: the oldest ready miss
                return {.index = first_miss, .wake = 0};
            }
            for (std::size_t i = first_miss + 1; i < n; ++i) {
                const std::uint32_t b = v.bank(i);
                const std::uint64_t bit = std::uint64_t{1} << b;
                if ((miss_banks & bit) == 0 || !v.ready(i) || v.hit(i)) continue;
                if ((hit_waiting & bit) != 0 && bypasses_[b] < cap_) continue;
                chosen_has_older_ = false;
                return {.index = i, .wake = 0};
            }
        }
        if (n <= 64) {
            if constexpr (requires { v.not_ready_wake(); }) {
                if (known)
                    return {.index = selection::none,
                            .wake = std::min(hit_wake, v.not_ready_wake())};
            }
            for (; not_ready != 0; not_ready &= not_ready - 1)
                hit_wake = std::min(
                    hit_wake, v.ready_at(static_cast<std::size_t>(std::countr_zero(not_ready))));
            return {.index = selection::none, .wake = hit_wake};
        }
        return wake_only(n, v, hit_wake);
    }

    /// Nothing to select: the first cycle something may be (a lower bound).
    template <class View>
    [[nodiscard]] static selection wake_only(std::size_t n, const View& v,
                                             std::uint64_t wake) noexcept {
        for (std::size_t i = 0; i < n; ++i)
            if (!v.ready(i)) wake = std::min(wake, v.ready_at(i));
        return {.index = selection::none, .wake = wake};
    }

    std::uint32_t cap_;
    std::uint32_t lookahead_ = 8;
    bool round_robin_ = false;
    bool round_robin_misses_ = false;
    std::uint32_t next_bank_ = 0; ///< round-robin: the bank after the last selected one
    std::vector<std::uint32_t> bypasses_;
    bool chosen_has_older_ = false;
};

static_assert(request_scheduler<fr_fcfs>);

} // namespace memsub::memory
