// memsub — the banks of a channel that are busy (take no request before a later cycle), kept
// as a mask and a cycle-sorted list so a controller never visits every bank per decision.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include <memsub/config.hpp>
#include <memsub/core/types.hpp>

namespace memsub::memory::detail {

/// The banks of a channel whose ready cycle (the cycle from which they take a request) is
/// ahead of the last decision: a mask, and a list of (ready cycle, bank) sorted by cycle, so a
/// controller finds the banks that became ready, and the first of a set to become ready,
/// without visiting every bank. A bank's ready cycle never decreases. An entry superseded by
/// a later ready cycle of its bank stays until its cycle passes and is skipped (entries are
/// checked against the banks' ready cycles, `ready_of`). Fixed storage.
class busy_banks {
public:
    using ready_array = std::array<std::uint64_t, 64>;

    [[nodiscard]] std::uint64_t mask() const noexcept { return mask_; }

    /// Bank `b`'s ready cycle was `old` and is now `ready_of[b]`, seen at decision cycle `t`.
    void update(std::uint32_t b, std::uint64_t old, std::uint64_t t,
                const ready_array& ready_of) noexcept {
        const std::uint64_t at = ready_of[b];
        const std::uint64_t bit = std::uint64_t{1} << b;
        // A bank ready by t is not busy (and was not: ready cycles never decrease).
        if (at <= t || ((mask_ & bit) != 0 && old == at)) return;
        mask_ |= bit;
        if (n_ == capacity) {
            rebuild(ready_of); // lists `b` too
            return;
        }
        insert(at, b);
    }

    /// Removes the banks whose ready cycle is ≤ t (t never decreases).
    void advance(std::uint64_t t, const ready_array& ready_of) noexcept {
        while (n_ != 0 && list_[head_].at <= t) {
            const entry& e = list_[head_];
            if (ready_of[e.bank] == e.at) mask_ &= ~(std::uint64_t{1} << e.bank);
            head_ = (head_ + 1) & (capacity - 1);
            --n_;
        }
    }

    /// The earliest ready cycle among `banks` (all busy); never if `banks` is empty.
    [[nodiscard]] std::uint64_t first_of(std::uint64_t banks,
                                         const ready_array& ready_of) const noexcept {
        MEMSUB_ASSERT((banks & ~mask_) == 0);
        for (std::uint32_t k = 0; banks != 0 && k < n_; ++k) {
            const entry& e = list_[(head_ + k) & (capacity - 1)];
            if (((banks >> e.bank) & 1u) != 0 && ready_of[e.bank] == e.at) return e.at;
        }
        return never;
    }

private:
    struct entry {
        std::uint64_t at;
        std::uint32_t bank;
    };
    static constexpr std::uint32_t capacity = 128; ///< ≥ 64 banks + superseded entries

    void insert(std::uint64_t at, std::uint32_t bank) noexcept {
        // New ready cycles are mostly the latest: search from the young end.
        std::uint32_t i = n_;
        while (i > 0 && list_[(head_ + i - 1) & (capacity - 1)].at > at) {
            list_[(head_ + i) & (capacity - 1)] = list_[(head_ + i - 1) & (capacity - 1)];
            --i;
        }
        list_[(head_ + i) & (capacity - 1)] = entry{at, bank};
        ++n_;
    }
    /// Drops the superseded entries: lists every busy bank once.
    void rebuild(const ready_array& ready_of) noexcept {
        head_ = n_ = 0;
        for (std::uint64_t m = mask_; m != 0; m &= m - 1) {
            const auto b = static_cast<std::uint32_t>(std::countr_zero(m));
            insert(ready_of[b], b);
        }
    }

    std::array<entry, capacity> list_{};
    std::uint32_t head_ = 0;
    std::uint32_t n_ = 0;
    std::uint64_t mask_ = 0;
};

} // namespace memsub::memory::detail
