// memsub — a per-set LRU recency stack that exposes each entry's position, for policies that
// weigh recency against other terms (ReMAP over LRU, [Dissertation] §2.3.6; MLP-aware LIN, Qureshi
// et al. ISCA 2006). Position 0 = most recent, E − 1 = least recent; a set's positions are always a
// permutation of 0..E−1 (invalid entries included; a departing entry drops to the bottom).
// Storage: E·⌈log2 E⌉ bits per set. Part of the policy writer's kit, with set_rows.hpp and
// rrpv_state.hpp.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

namespace memsub::replacement {

/// Each entry's LRU position in its set, for a policy that weighs recency against other terms
/// rather than evicting the least recent outright.
///
/// Guarantees: after construction entry e of every set is at position e; `promote` and `demote`
/// keep each set's positions a permutation of 0..E−1 (the entries between the old and new place
/// shift by one), in O(E) with no allocation. Entries per set must be at most 256 (one byte per
/// position). It does not know which entries are valid: a policy demotes an entry in on_evict.
///
/// Use:
///
///     recency_stack stack_{g};
///     void on_hit(set_index s, entry_index e, const access&) noexcept { stack_.promote(s, e); }
///     void on_evict(set_index s, entry_index e, const evicted_block&) noexcept {
///         stack_.demote(s, e);
///     }
///     std::uint32_t age = stack_.position(s, e);           // 0 = most recent
class recency_stack {
public:
    /// Positions for `g.sets` sets of `g.entries_per_set()` entries.
    explicit recency_stack(const geometry& g)
        : entries_(g.entries_per_set())
        , pos_(std::size_t{g.sets} * g.entries_per_set()) {
        for (std::uint32_t s = 0; s < g.sets; ++s)
            for (std::uint32_t e = 0; e < entries_; ++e)
                pos_[std::size_t{s} * entries_ + e] = static_cast<std::uint8_t>(e);
    }

    /// Moves `e` to the top (position 0).
    void promote(set_index s, entry_index e) noexcept {
        std::uint8_t* row = row_of(s);
        const std::uint8_t old = row[e.value];
        for (std::uint32_t i = 0; i < entries_; ++i) row[i] += row[i] < old ? 1 : 0;
        row[e.value] = 0;
    }
    /// Moves `e` to the bottom (position E − 1).
    void demote(set_index s, entry_index e) noexcept {
        std::uint8_t* row = row_of(s);
        const std::uint8_t old = row[e.value];
        for (std::uint32_t i = 0; i < entries_; ++i) row[i] -= row[i] > old ? 1 : 0;
        row[e.value] = static_cast<std::uint8_t>(entries_ - 1);
    }
    /// `e`'s position in set `s`: 0 = most recent, E − 1 = least recent.
    [[nodiscard]] std::uint32_t position(set_index s, entry_index e) const noexcept {
        return pos_[std::size_t{s.value} * entries_ + e.value];
    }
    /// LIN's recency value: E − 1 for the most recent entry, 0 for the least recent.
    [[nodiscard]] std::uint32_t recency(set_index s, entry_index e) const noexcept {
        return entries_ - 1 - position(s, e);
    }
    /// Set `s`'s positions, one byte per entry (entry e at [e]).
    [[nodiscard]] const std::uint8_t* row(set_index s) const noexcept {
        return pos_.data() + std::size_t{s.value} * entries_;
    }
    [[nodiscard]] std::uint32_t entries() const noexcept { return entries_; }
    /// Hardware bits: ⌈log2 E⌉ per entry.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        const auto bits = static_cast<std::uint64_t>(std::bit_width(entries_ - 1));
        return pos_.size() * bits;
    }

private:
    [[nodiscard]] std::uint8_t* row_of(set_index s) noexcept {
        return pos_.data() + std::size_t{s.value} * entries_;
    }
    std::uint32_t entries_;
    std::vector<std::uint8_t> pos_;
};

} // namespace memsub::replacement
