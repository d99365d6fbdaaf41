// memsub — the `row_policy` concept: when a bank closes (precharges) its open row.
// Policies: open_page.hpp, closed_page.hpp, timeout_adaptive.hpp.
//
// Concept `row_policy` — a type P models it when (one sub-concept each, rp1_params …
// rp4_name; `diagnose_row_policy<P>()` names the broken ones):
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

// One concept per requirement (labels: testing/contract.hpp); `diagnose_row_policy<P>()` names
// the broken ones.
/// RP1: `P::params` is default-constructible and `P(params, banks)` builds the policy for all
/// banks of all channels.
template <class P>
concept rp1_params = std::default_initializable<typename P::params> &&
    std::constructible_from<P, const typename P::params&, std::uint32_t>;
/// RP2: `p.close_at(bank, data_end_cycle)` noexcept gives the cycle from which the open row
/// should be closed (`memsub::never` = keep it open; at or before the column cycle =
/// auto-precharge).
template <class P>
concept rp2_close_at = requires(P& p, std::uint32_t bank, std::uint64_t t) {
    { p.close_at(bank, t) }
    noexcept->std::same_as<std::uint64_t>;
};
/// RP3: `p.observe(bank, found, closed_row_was_wanted)` noexcept learns the row class a newly
/// selected request found and whether the policy closed the row it wanted.
template <class P>
concept rp3_observe = requires(P& p, std::uint32_t bank, row_class c) {
    { p.observe(bank, c, true) }
    noexcept;
};
/// RP4: `p.name()` gives a short stable identifier.
template <class P>
concept rp4_name = requires(const P& p) {
    { p.name() } -> std::convertible_to<std::string_view>;
};

/// A DRAM row-buffer policy (RP1–RP4): when a bank precharges its open row (open page, closed
/// page, timeout-adaptive).
template <class P>
concept row_policy = rp1_params<P> && rp2_close_at<P> && rp3_observe<P> && rp4_name<P>;

/// Fails to compile with one message per broken requirement (RP1–RP4).
template <class P>
consteval bool diagnose_row_policy() {
    static_assert(rp1_params<P>, "RP1: P::params must be default-constructible and P "
                                 "constructible from (const P::params&, std::uint32_t banks)");
    static_assert(rp2_close_at<P>, "RP2: p.close_at(bank, data_end_cycle) must be noexcept and "
                                   "return std::uint64_t");
    static_assert(rp3_observe<P>, "RP3: p.observe(bank, row_class, bool) must be noexcept");
    static_assert(rp4_name<P>, "RP4: p.name() const must return something convertible to "
                               "std::string_view");
    return row_policy<P>;
}

} // namespace memsub::memory
