// memsub — the `row_policy` concept: when a bank closes (precharges) its open row.
// Policies: open_page.hpp, closed_page.hpp, timeout_adaptive.hpp.
//
// Concept `row_policy` — a type P models it when:
//   RP1. `typename P::params` is a default-constructible aggregate; `P(params, banks)` builds the
//        policy for `banks` banks in total (all channels); it may throw `config_error`.
//   RP2. `p.close_at(bank, data_end_cycle)` noexcept -> cycle: after a column access to `bank`
//        whose data ends at `data_end_cycle`, the cycle from which the row should be closed if
//        no further request to the bank has been selected by then (`memsub::never` = keep open).
//        The controller precharges at the first legal cycle ≥ that (tRAS, tRTP, tWR).
//        A return value ≤ the column cycle means auto-precharge (RDA/WRA).
//   RP3. `p.observe(bank, found, closed_row_was_wanted)` noexcept: the class a newly selected
//        request found, and whether the bank had been closed by the policy while holding exactly
//        the row that request wants (a premature close). Adaptive policies learn from it.
//   RP4. `p.name()` -> std::string_view.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>

namespace memsub::memory {

template <class P>
concept row_policy = std::default_initializable<typename P::params> && // RP1
    std::constructible_from<P, const typename P::params&, std::uint32_t> &&
    requires(P& p, const P& cp, std::uint32_t bank, std::uint64_t t, row_class c) {
    { p.close_at(bank, t) }
    noexcept->std::same_as<std::uint64_t>; // RP2
    { p.observe(bank, c, true) }
    noexcept;                                               // RP3
    { cp.name() } -> std::convertible_to<std::string_view>; // RP4
};

} // namespace memsub::memory
