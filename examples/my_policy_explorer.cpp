// Your own replacement policy in the explorer: the policy below is written here, outside the
// library, and compared with memsub's LRU and SRRIP on the explorer's command line (the same
// options as `explorer`: traces, --sets/--ways, --policies, --csv, --plot, …).
//
// The policy is the bimodal insertion policy, BIP (Qureshi, Jaleel, Patt, Steely, Emer,
// "Adaptive Insertion Policies for High Performance Caching", ISCA 2007, §3.2): LRU ordering,
// but a new block goes in at the LRU position, and only every `period`-th one at the MRU
// position (period 0 = never: LIP, §3.1). A hit moves a block to MRU. It keeps part of a
// thrashing working set instead of cycling all of it through the cache.
#include <bit>
#include <cstdint>
#include <string_view>
#include <tuple>

#include <memsub/core/byte_match.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/set_rows.hpp>
#include <memsub/replacement/srrip.hpp>

#include <memsub/explorer/run_explorer.hpp>

namespace {

class bimodal_insertion {
public:
    struct params {
        /// Every period-th insertion goes to MRU; 0 = none (LIP). The paper's ε = 1/32.
        std::uint32_t period = 32;
    };

    bimodal_insertion(const memsub::geometry& g, const params& p)
        : entries_(g.entries_per_set())
        , stride_(memsub::padded_row_bytes(entries_))
        , rows_(g.sets, stride_, 0xff) // padding bytes hold 0xff (core/byte_match.hpp)
        , period_(p.period) {
        for (std::uint32_t s = 0; s < g.sets; ++s)
            for (std::uint32_t e = 0; e < entries_; ++e) row(memsub::set_index{s})[e] = e;
    }

    [[nodiscard]] std::string_view name() const noexcept { return period_ == 0 ? "lip" : "bip"; }

    void on_hit(memsub::set_index s, memsub::entry_index e, const memsub::access&) noexcept {
        memsub::recency_promote(row(s), stride_, e.value);
    }
    void on_insert(memsub::set_index s, memsub::entry_index e, const memsub::access&) noexcept {
        if (period_ != 0 && ++insertions_ % period_ == 0)
            memsub::recency_promote(row(s), stride_, e.value); // the rare MRU insertion
        else
            memsub::recency_demote(row(s), stride_, e.value, bottom()); // at the LRU position
    }
    void on_evict(memsub::set_index s, memsub::entry_index e,
                  const memsub::evicted_block&) noexcept {
        memsub::recency_demote(row(s), stride_, e.value, bottom());
    }
    [[nodiscard]] memsub::entry_index victim(memsub::set_index s, memsub::entry_mask eligible,
                                             const memsub::access&) noexcept {
        // The least recent eligible entry: the highest stack position among `eligible`.
        const std::uint8_t* pos = row(s);
        memsub::entry_index best{};
        int best_pos = -1;
        for (std::uint32_t e = 0; e < entries_; ++e)
            if (((eligible >> e) & 1u) != 0 && pos[e] > best_pos) {
                best_pos = pos[e];
                best = memsub::entry_index{e};
            }
        return best;
    }

    /// Storage: the LRU stack (E·⌈log2 E⌉ bits per set) and a 5-bit insertion counter.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{rows_.sets()} * entries_ * std::bit_width(entries_ - 1u) + 5;
    }

private:
    std::uint8_t* row(memsub::set_index s) noexcept {
        return reinterpret_cast<std::uint8_t*>(rows_.row(s));
    }
    const std::uint8_t* row(memsub::set_index s) const noexcept {
        return reinterpret_cast<const std::uint8_t*>(rows_.row(s));
    }
    [[nodiscard]] std::uint8_t bottom() const noexcept {
        return static_cast<std::uint8_t>(entries_ - 1);
    }

    std::uint32_t entries_;
    std::uint32_t stride_;
    memsub::replacement::set_rows rows_;
    std::uint32_t period_;
    std::uint64_t insertions_ = 0;
};

static_assert(memsub::replacement::replacement_policy<bimodal_insertion>);

} // namespace

int main(int argc, char** argv) {
    using namespace memsub::replacement;
    return memsub::explorer::run_explorer<std::tuple<lru, srrip, bimodal_insertion>>(argc, argv);
}
