// memsub — the dueling candidate behind DRRIP: one RRPV array, two insertion rules.
//
// Citation: Jaleel et al., RRIP, ISCA 2010, §4.3 (DRRIP duels SRRIP and BRRIP insertion; both
// share the RRPV state, victim search and hit promotion). Side 0 = SRRIP insertion (RRPV ←
// 2^M − 2), side 1 = BRRIP insertion (2^M − 1, "long" with probability ε, see brrip.hpp; only
// side-1 insertions consume the bimodal source, so in counter mode the n-th *BRRIP* insertion is
// long iff n mod period == 0).
// Storage: M bits per entry plus the bimodal source.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/replacement/brrip.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/rrpv_state.hpp>
#include <memsub/replacement/set_dueling.hpp>

namespace memsub::replacement {

class rrip_dual {
public:
    /// BRRIP's knobs: long_period is the BRRIP side's 1/ε (0 = every BRRIP insertion distant).
    using params = brrip_params;

    explicit rrip_dual(const geometry& g) : rrip_dual(g, params{}) {}
    rrip_dual(const geometry& g, const params& p)
        : state_((validate(p), g), p.rrpv_bits)
        , throttle_(p.long_period, p.source, p.seed)
        , promotion_(p.promotion) {}

    [[nodiscard]] std::string_view name() const noexcept { return "drrip"; }

    void on_hit(set_index s, entry_index e, const access&, std::uint32_t) noexcept {
        state_.promote(s, e, promotion_);
    }
    void on_insert(set_index s, entry_index e, const access&, std::uint32_t side) noexcept {
        const bool long_insert = side == 0 || throttle_.next_is_long();
        state_.set(s, e, long_insert ? state_.long_interval() : state_.distant());
    }
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    [[nodiscard]] entry_index victim(set_index s, entry_mask m, const access&,
                                     std::uint32_t) noexcept {
        return state_.find_victim(s, m);
    }

    [[nodiscard]] std::uint32_t rrpv(set_index s, entry_index e) const noexcept {
        return state_.get(s, e);
    }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return state_.storage_bits() + throttle_.storage_bits();
    }

private:
    static void validate(const params& p) {
        rrpv_state::validate_bits(p.rrpv_bits, "memsub::replacement::drrip");
    }

    rrpv_state state_;
    bimodal_throttle throttle_;
    hit_promotion promotion_;
};

static_assert(dueling_candidate<rrip_dual>);

} // namespace memsub::replacement
