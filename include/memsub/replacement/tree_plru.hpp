// memsub — binary-tree pseudo-LRU.
//
// Citation: tree-PLRU as described by Handy, "The Cache Memory Book" (2nd ed., 1998, §"Pseudo-LRU")
// and analysed by Al-Zoubi, Milenkovic, Milenkovic, "Performance evaluation of cache replacement
// policies for the SPEC CPU2000 benchmark suite", ACM-SE 2004. A set of E entries keeps E − 1
// bits, one per internal node of a complete binary tree over the entries. Each bit points to the
// half holding the pseudo-least-recently-used entry (0 = left/lower entries, 1 = right). An
// access (hit or fill) flips every bit on the entry's root path to point away from it; the
// victim is found by following the bits from the root.
// Deviations / resolutions:
//  * E must be a power of two (validated: config_error otherwise); the tree is then complete.
//  * Eligibility: when the bit of a node points at a subtree holding no eligible entry, the walk
//    takes the other child. The victim is therefore always eligible and deterministic, and equals
//    the plain tree victim whenever that one is eligible.
//  * Departures (on_evict) leave the bits unchanged, as in hardware; the engine fills the lowest
//    invalid entry first anyway.
// Storage: (E − 1) bits per set.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

class tree_plru {
public:
    struct params {};

    explicit tree_plru(const geometry& g, const params& = {})
        : entries_(validated(g.entries_per_set()))
        , bits_(g.sets, 0) {
        // Each entry's root path: the nodes it crosses and the values that point away from it.
        for (std::uint32_t e = 0; e < entries_; ++e) {
            for (std::uint32_t node = entries_ + e; node > 1; node >>= 1) {
                const std::uint32_t parent = node >> 1;
                path_mask_[e] |= std::uint64_t{1} << parent;
                path_away_[e] |= std::uint64_t{(~node) & 1u} << parent; // left child → 1
            }
        }
    }

    [[nodiscard]] std::string_view name() const noexcept { return "tree_plru"; }

    void on_hit(set_index s, entry_index e, const access&) noexcept { touch(s, e); }
    void on_insert(set_index s, entry_index e, const access&) noexcept { touch(s, e); }
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}

    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        const std::uint64_t tree = bits_[s.value];
        std::uint32_t node = 1, lo = 0, size = entries_;
        while (size > 1) {
            const std::uint32_t half = size >> 1;
            const entry_mask left = low_bits_mask(half) << lo;
            const entry_mask right = left << half;
            std::uint32_t dir = static_cast<std::uint32_t>(tree >> node) & 1u;
            // Fall back to the other half when the pointed one holds nothing eligible.
            const entry_mask pointed = dir != 0 ? right : left;
            dir ^= static_cast<std::uint32_t>((eligible & pointed) == 0);
            node = 2 * node + dir;
            lo += dir * half;
            size = half;
        }
        return entry_index{lo};
    }

    /// The raw node bits of a set: bit n is internal node n (1 = root; children 2n, 2n + 1).
    [[nodiscard]] std::uint64_t tree_bits(set_index s) const noexcept { return bits_[s.value]; }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{entries_ - 1} * bits_.size();
    }

private:
    static std::uint32_t validated(std::uint32_t entries) {
        memsub::require(std::has_single_bit(entries), "memsub::replacement::tree_plru",
                        "entries_per_set", entries, "must be a power of two");
        return entries;
    }

    /// Points every node on the entry's root path away from it (one masked update).
    void touch(set_index s, entry_index e) noexcept {
        std::uint64_t& tree = bits_[s.value];
        tree = (tree & ~path_mask_[e.value]) | path_away_[e.value];
    }

    std::uint32_t entries_;
    std::vector<std::uint64_t> bits_;
    std::array<std::uint64_t, max_entries_per_set> path_mask_{};
    std::array<std::uint64_t, max_entries_per_set> path_away_{};
};

static_assert(replacement_policy<tree_plru>);

} // namespace memsub::replacement
