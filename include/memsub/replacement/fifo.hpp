// memsub — first-in, first-out replacement.
//
// Citation: the classic FIFO page/line replacement (Belady, "A study of replacement algorithms
// for a virtual-storage computer", IBM Systems Journal 1966, §"FIFO"). The victim is the eligible
// entry inserted longest ago; hits do not change the order.
// Deviations: a hardware FIFO keeps one ⌈log2 E⌉-bit round-robin pointer per set. Because the
// engine may invalidate any entry and restricts victims to an eligible mask, memsub keeps the
// full insertion order instead (each entry's age rank, 0 = newest, a departing block drops to the
// bottom); on a conventional cache without invalidations the victims are the round-robin ones.
// Storage: E·⌈log2 E⌉ bits per set (the age ranks), as memsub models it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

class fifo {
public:
    struct params {};

    explicit fifo(const geometry& g, const params& = {})
        : entries_(g.entries_per_set())
        , rank_(g.total_entries()) {
        for (std::uint64_t s = 0; s < g.sets; ++s)
            for (std::uint32_t e = 0; e < entries_; ++e)
                rank_[s * entries_ + e] = static_cast<std::uint8_t>(e);
    }

    [[nodiscard]] std::string_view name() const noexcept { return "fifo"; }

    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index s, entry_index e, const access&) noexcept {
        std::uint8_t* r = row(s);
        const std::uint32_t n = entries_; // a local: byte stores cannot alias it
        const std::uint8_t old = r[e.value];
        for (std::uint32_t i = 0; i < n; ++i) r[i] += static_cast<std::uint8_t>(r[i] < old);
        r[e.value] = 0;
    }
    void on_evict(set_index s, entry_index e, const eviction_info&) noexcept {
        std::uint8_t* r = row(s);
        const std::uint32_t n = entries_;
        const std::uint8_t old = r[e.value];
        for (std::uint32_t i = 0; i < n; ++i) r[i] -= static_cast<std::uint8_t>(r[i] > old);
        r[e.value] = static_cast<std::uint8_t>(entries_ - 1);
    }

    /// The eligible entry with the highest age rank (inserted first).
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        const std::uint8_t* r = row(s);
        // Ranks are a permutation of 0..E−1, so with every entry eligible (the common full-set
        // case) the victim is the entry ranked E−1.
        if (eligible == low_bits_mask(entries_)) {
            const auto oldest = static_cast<std::uint8_t>(entries_ - 1);
            for (std::uint32_t e = 0; e < entries_; ++e)
                if (r[e] == oldest) return entry_index{e};
        }
        std::uint32_t best = 0;
        int best_rank = -1;
        for (std::uint32_t e = 0; e < entries_; ++e) {
            const int k = ((eligible >> e) & 1u) ? r[e] : -1;
            if (k > best_rank) {
                best_rank = k;
                best = e;
            }
        }
        return entry_index{best};
    }

    /// Age rank of an entry: 0 = most recently inserted.
    [[nodiscard]] std::uint32_t age_rank(set_index s, entry_index e) const noexcept {
        return rank_[std::size_t{s.value} * entries_ + e.value];
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return rank_.size() * static_cast<std::uint64_t>(std::bit_width(entries_ - 1u));
    }

private:
    std::uint8_t* row(set_index s) noexcept { return &rank_[std::size_t{s.value} * entries_]; }
    const std::uint8_t* row(set_index s) const noexcept {
        return &rank_[std::size_t{s.value} * entries_];
    }

    std::uint32_t entries_;
    std::vector<std::uint8_t> rank_;
};

static_assert(replacement_policy<fifo>);

} // namespace memsub::replacement
