// memsub — dynamic re-reference interval prediction (DRRIP) and thread-aware DRRIP.
//
// Citation: Jaleel et al., RRIP, ISCA 2010, §4.3 (DRRIP: set dueling between SRRIP and BRRIP
// with a 10-bit PSEL, §6.7) and §4.5 (TA-DRRIP: a PSEL and a pair of SDMs per application).
// Built as `set_dueling<rrip_dual>`: side 0 = SRRIP, side 1 = BRRIP insertion over one shared RRPV
// array (see rrip_dual.hpp, set_dueling.hpp for the rules).
// Defaults (spec): 2-bit RRPV, HP, ε = 1/32 from a seeded PRNG, 32 leader sets per side by DIP's
// complement-select (automatic smaller K below 1024 sets, see set_dueling.hpp), 10-bit PSEL
// starting at 0 (followers start as SRRIP), one PSEL (miss cost 1).
// TA-DRRIP: set `params.requesters` to the number of cores; each core gets its own PSEL and its
// own 32 + 32 leader sets, disjoint from the other cores' ([resolution], spec). `name()` is then
// "ta_drrip".
// Storage: 2 bits per entry + PSEL bits per requester + the bimodal source.
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
