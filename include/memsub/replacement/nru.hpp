// memsub — not-recently-used replacement (one reference bit per entry).
//
// Citation: NRU as described in the RRIP paper (Jaleel et al., ISCA 2010, §2 and §4.1, the
// "1-bit" policy of UltraSPARC T2-class LLCs). Each entry has an NRU bit: 0 = recently used,
// 1 = "distant". Hit and fill set the bit to 0. Victim: the first (lowest) entry whose bit is 1;
// if none is, all bits of the set are set to 1 and the search repeats (it then takes the first
// eligible entry). Identical to 1-bit SRRIP (docs/mechanisms/remap.md, 'RRIP family').
// Deviations: victims are restricted to the eligible mask (only the search, not the
// all-to-1 reset, is restricted). Departed entries get bit 1 (an invalid entry is distant).
// Storage: E bits per set.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

class nru {
public:
    struct params {};

    explicit nru(const geometry& g, const params& = {})
        : entries_(g.entries_per_set())
        , all_(low_bits_mask(entries_))
        , bits_(g.sets, all_) {}

    [[nodiscard]] std::string_view name() const noexcept { return "nru"; }

    void on_hit(set_index s, entry_index e, const access&) noexcept {
        bits_[s.value] &= ~bit_of(e);
    }
    void on_insert(set_index s, entry_index e, const access&) noexcept {
        bits_[s.value] &= ~bit_of(e);
    }
    void on_evict(set_index s, entry_index e, const evicted_block&) noexcept {
        bits_[s.value] |= bit_of(e);
    }

    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        entry_mask& b = bits_[s.value];
        if ((b & eligible) == 0) b = all_; // RRIP §4.1: no bit set → set them all, search again
        return lowest_entry(b & eligible);
    }

    /// The NRU bit of an entry (1 = not recently used).
    [[nodiscard]] bool nru_bit(set_index s, entry_index e) const noexcept {
        return contains(bits_[s.value], e);
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{entries_} * bits_.size();
    }

private:
    std::uint32_t entries_;
    entry_mask all_;
    std::vector<entry_mask> bits_;
};

static_assert(replacement_policy<nru>);

} // namespace memsub::replacement
