// memsub — dynamic re-reference interval prediction (DRRIP) and thread-aware DRRIP.
//
// Citation: Jaleel et al., RRIP, ISCA 2010, §4.3 (DRRIP: set dueling between SRRIP and BRRIP
// with a 10-bit PSEL, §6.7) and §4.5 (TA-DRRIP: a PSEL and a pair of SDMs per application).
// Built as `set_dueling<rrip_dual>`: side 0 = SRRIP, side 1 = BRRIP insertion over one shared RRPV
// array (see rrip_dual.hpp, set_dueling.hpp for the rules).
// Defaults (docs/mechanisms/remap.md, 'RRIP family'): 2-bit RRPV, HP, ε = 1/32 from a seeded PRNG,
// 32 leader sets per side by DIP's complement-select (automatic smaller K below 1024 sets, see
// set_dueling.hpp), 10-bit PSEL starting at 0 (followers start as SRRIP), one PSEL (miss cost 1).
// TA-DRRIP: set `params.requesters` to the number of cores; each core gets its own PSEL and its
// own 32 + 32 leader sets, disjoint from the other cores' (Decision,
// docs/mechanisms/remap.md, 'Set dueling'). `name()` is then
// "ta_drrip".
// Deviations (the DRRIP mechanism itself follows §4.3; these settle what the paper leaves open
// or extend it):
//  * PSEL starts at 0, so followers begin as SRRIP; the paper gives no initial value.
//  * Fewer than 32 leader sets per side below 1024 sets (largest power-of-two K with K² ≤ sets);
//    complement-select needs at least 2 sets (config_error otherwise; explicit `leaders` lift
//    this). The paper's LLCs all have ≥ 1024 sets.
//  * BRRIP's ε = 1/32 is drawn from a seeded PRNG by default; `bimodal_source::counter` gives
//    DIP's / ChampSim's counter. The paper says only "with low probability".
//  * Every miss the engine reports (O1) in a leader set moves PSEL by one, whatever its kind
//    (load, store, writeback, prefetch) and whether or not it allocates; the paper does not
//    separate access kinds.
//  * Victims are restricted to the engine's eligible mask (variable-block caches); when no
//    eligible entry is distant, every entry of the set ages, as in the paper.
//  * TA-DRRIP's leader placement (offsets shifted by 2t per requester) and requester ids ≥
//    `requesters` counting as requester 0 are memsub's; §4.5 specifies neither.
// Storage: 2 bits per entry + PSEL bits per requester + the bimodal source (⌈log2 period⌉-bit
// counter, or the PRNG's 256 bits as modelled). Leader sets cost nothing with complement-select
// (combinational); an explicit `leaders` list would need a per-set tag that is not counted.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/rrip_dual.hpp>
#include <memsub/replacement/set_dueling.hpp>

namespace memsub::replacement {

class drrip : public set_dueling<rrip_dual> {
public:
    using base = set_dueling<rrip_dual>;
    using params = base::params;
    using base::base;

    [[nodiscard]] std::string_view name() const noexcept {
        return requesters() > 1 ? "ta_drrip" : "drrip";
    }
    /// RRPV of an entry (shared by both sides).
    [[nodiscard]] std::uint32_t rrpv(set_index s, entry_index e) const noexcept {
        return dual().rrpv(s, e);
    }
};

static_assert(replacement_policy<drrip>);

} // namespace memsub::replacement
