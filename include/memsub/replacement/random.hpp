// memsub — random replacement.
//
// Citation: random replacement as evaluated by Belady, "A study of replacement algorithms for a
// virtual-storage computer", IBM Systems Journal 1966 (algorithm "RAND"). The victim is drawn
// uniformly among the eligible entries.
// Deviations: hardware uses a small LFSR; memsub uses a seeded xoshiro256** owned by the policy
// (reproducible, independent of other instances). One draw per `victim` call:
// k = rng.below(popcount(eligible)), victim = the k-th eligible entry counting from entry 0.
// Storage: no per-entry state; the generator's 256-bit state is reported.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

#include <memsub/core/rng.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

class random {
public:
    struct params {
        std::uint64_t seed = 1;

        /// The fields text can set (core/param_text.hpp).
        template <class V>
        friend void describe_params(V& v, params& p) {
            v("seed", p.seed);
        }
    };

    explicit random(const geometry& g) : random(g, params{}) {}
    random(const geometry&, const params& p) : rng_(p.seed) {}

    [[nodiscard]] std::string_view name() const noexcept { return "random"; }

    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}

    [[nodiscard]] entry_index victim(set_index, entry_mask eligible, const access&) noexcept {
        auto k = rng_.below(static_cast<std::uint64_t>(std::popcount(eligible)));
        // Every entry from 0 up eligible (a full conventional set): the k-th is entry k.
        if ((eligible & (eligible + 1)) == 0) return entry_index{static_cast<std::uint32_t>(k)};
        for (; k != 0; --k) eligible &= eligible - 1; // drop the k lowest eligible entries
        return lowest_entry(eligible);
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return 256; }

private:
    xoshiro256ss rng_;
};

static_assert(replacement_policy<random>);

} // namespace memsub::replacement
