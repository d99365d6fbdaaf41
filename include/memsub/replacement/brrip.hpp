// memsub — bimodal re-reference interval prediction (BRRIP).
//
// Citation: Jaleel et al., "High Performance Cache Replacement Using Re-Reference Interval
// Prediction (RRIP)", ISCA 2010, §3.2 (BRRIP): insert with RRPV = 2^M − 1 ("distant") and,
// infrequently, with 2^M − 2 ("long"). Hit promotion and victim search are SRRIP's.
// Resolutions (docs/mechanisms/remap.md, 'RRIP family'): ε = 1/32 by default (DIP's BIP value; the
// paper says only "with low probability"); `long_period` = 1/ε, 0 = never long. The random source
// is a seeded xoshiro256** owned by the policy (one draw per insertion: long iff rng.below(period)
// == 0), or a counter owned by the instance: the n-th insertion (from 1, all sets) is long iff n
// mod period == 0 (ChampSim / DIP behaviour). Storage: M bits per entry plus the throttle (⌈log2
// period⌉-bit counter, or the PRNG's 256 bits as modelled).
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/rrpv_state.hpp>

namespace memsub::replacement {

/// BRRIP's knobs, which DRRIP's BRRIP side (rrip_dual) shares.
struct brrip_params {
    std::uint32_t rrpv_bits = 2;
    hit_promotion promotion = hit_promotion::hit_priority;
    /// 1/ε: one insertion in `long_period` is "long"; 0 = every insertion distant (ε = 0).
    std::uint32_t long_period = 32;
    bimodal_source source = bimodal_source::prng;
    std::uint64_t seed = 1;

    /// The fields text can set (core/param_text.hpp).
    template <class V>
    friend void describe_params(V& v, brrip_params& p) {
        v("rrpv_bits", p.rrpv_bits);
        v("promotion", p.promotion);
        v("long_period", p.long_period);
        v("source", p.source);
        v("seed", p.seed);
    }
};

class brrip {
public:
    using params = brrip_params;

    explicit brrip(const geometry& g) : brrip(g, params{}) {}
    brrip(const geometry& g, const params& p)
        : state_((validate(p), g), p.rrpv_bits)
        , throttle_(p.long_period, p.source, p.seed)
        , promotion_(p.promotion) {}

    [[nodiscard]] std::string_view name() const noexcept { return "brrip"; }

    void on_hit(set_index s, entry_index e, const access&) noexcept {
        state_.promote(s, e, promotion_);
    }
    void on_insert(set_index s, entry_index e, const access&) noexcept {
        state_.set(s, e, throttle_.next_is_long() ? state_.long_interval() : state_.distant());
    }
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        return state_.find_victim(s, eligible);
    }

    [[nodiscard]] std::uint32_t rrpv(set_index s, entry_index e) const noexcept {
        return state_.get(s, e);
    }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return state_.storage_bits() + throttle_.storage_bits();
    }

private:
    static void validate(const params& p) {
        rrpv_state::validate_bits(p.rrpv_bits, "memsub::replacement::brrip");
    }

    rrpv_state state_;
    bimodal_throttle throttle_;
    hit_promotion promotion_;
};

static_assert(replacement_policy<brrip>);

} // namespace memsub::replacement
