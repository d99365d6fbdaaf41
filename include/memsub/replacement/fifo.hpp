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

#include <memsub/core/byte_match.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

class fifo {
public:
    struct params {};

    explicit fifo(const geometry& g, const params& = {})
        : entries_(g.entries_per_set())
        , stride_(padded_row_bytes(entries_))
        , rank_(std::size_t{g.sets} * stride_, 0xff) {
        for (std::size_t s = 0; s < g.sets; ++s)
            for (std::uint32_t e = 0; e < entries_; ++e)
                rank_[s * stride_ + e] = static_cast<std::uint8_t>(e);
    }

    [[nodiscard]] std::string_view name() const noexcept { return "fifo"; }

    void on_hit(set_index, entry_index, const access&) noexcept {}
    // The age ranks are a recency stack updated only at insertion (core/byte_match.hpp kernels;
    // padding bytes hold 0xff).
    void on_insert(set_index s, entry_index e, const access&) noexcept {
        recency_promote(row(s), stride_, e.value);
    }
    void on_evict(set_index s, entry_index e, const evicted_block&) noexcept {
        recency_demote(row(s), stride_, e.value, static_cast<std::uint8_t>(entries_ - 1));
    }

    /// The eligible entry with the highest age rank (inserted first).
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        const std::uint8_t* r = row(s);
        // Ranks are a permutation of 0..E−1: when the entry ranked E−1 is eligible (always so in
        // a full conventional set) it is the victim.
        const entry_mask oldest =
            byte_equal_mask(r, stride_, static_cast<std::uint8_t>(entries_ - 1)) & eligible;
        if (oldest != 0) return lowest_entry(oldest);
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
        return row(s)[e.value];
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return rank_.size() / stride_ * entries_ *
               static_cast<std::uint64_t>(std::bit_width(entries_ - 1u));
    }

private:
    std::uint8_t* row(set_index s) noexcept { return &rank_[std::size_t{s.value} * stride_]; }
    const std::uint8_t* row(set_index s) const noexcept {
        return &rank_[std::size_t{s.value} * stride_];
    }

    std::uint32_t entries_;
    std::uint32_t stride_; // row length padded to 16 bytes; padding bytes hold 0xff
    std::vector<std::uint8_t> rank_;
};

static_assert(replacement_policy<fifo>);

} // namespace memsub::replacement
