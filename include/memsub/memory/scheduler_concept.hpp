// memsub — the `request_scheduler` concept of shared-queue controllers (fcfs.hpp, fr_fcfs.hpp).
//
// Concept `request_scheduler` — a type S models it when (one sub-concept each, ms1_params …
// ms4_name; `diagnose_request_scheduler<S>()` names the broken ones):
//   MS1. `typename S::params` is a default-constructible aggregate; `S(params, banks)` builds the
//       state of one channel with `banks` banks (it may throw `config_error`).
//   MS2. `s.select(n, view)` noexcept -> `selection`: choose among the `n` queued requests of one
//       queue, oldest first (index 0 = oldest). `view.bank(i)`, `view.hit(i)` (the request's row
//       is open in its bank now) and `view.ready(i)` (its bank takes a request now) describe
//       them. Readiness is monotone in age within a bank: when entry i is ready, so is every
//       older entry of its bank (requests become visible in arrival order). Returns the chosen
//       index, or `selection::none` with `wake` = the earliest cycle at which a choice may
//       become possible (a lower bound; `view.ready_at(i)` gives it). A view may also offer
//       `view.issue_at(i)`: for a row hit, the earliest cycle its column command could issue
//       (first-ready schedulers compare it; detected with `requires`).
//   MS3. `s.on_selected(view, index)` noexcept — the request the last `select` chose leaves
//       the queue (called before it is removed, so the view still describes it).
//   MS4. `s.name()` -> std::string_view.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::memory {

/// A request scheduler's choice (MS2): the index of the queued request to serve, or `none` with
/// the cycle to ask again.
struct selection {
    /// The `index` of "no request can be chosen now".
    static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    /// The chosen request's position in the queue (0 = oldest), or `none`.
    std::size_t index = none;
    /// With `none`: the earliest cycle at which a choice may become possible (a lower bound).
    /// Not read when a request was chosen.
    std::uint64_t wake = never;
};

namespace detail {
/// The view a controller offers a scheduler (documentation archetype for the concept check).
struct queue_view_archetype {
    std::uint32_t bank(std::size_t) const noexcept { return 0; }
    bool hit(std::size_t) const noexcept { return false; }
    bool ready(std::size_t) const noexcept { return true; }
    std::uint64_t ready_at(std::size_t) const noexcept { return 0; }
};
} // namespace detail

// One concept per requirement (labels: testing/contract.hpp); `diagnose_request_scheduler<S>()`
// names the broken ones.
/// MS1: `S::params` is default-constructible and `S(params, banks)` builds one channel's state.
template <class S>
concept ms1_params = std::default_initializable<typename S::params> &&
    std::constructible_from<S, const typename S::params&, std::uint32_t>;
/// MS2: `s.select(n, view)` noexcept chooses among the `n` queued requests (oldest first) or
/// returns `selection::none` with a wake-up cycle.
template <class S>
concept ms2_select = requires(S& s, std::size_t n, const detail::queue_view_archetype& v) {
    { s.select(n, v) }
    noexcept->std::same_as<selection>;
};
/// MS3: `s.on_selected(view, index)` noexcept is told that the chosen request leaves the queue.
template <class S>
concept ms3_on_selected = requires(S& s, std::size_t n, const detail::queue_view_archetype& v) {
    { s.on_selected(v, n) }
    noexcept;
};
/// MS4: `s.name()` gives a short stable identifier.
template <class S>
concept ms4_name = requires(const S& s) {
    { s.name() } -> std::convertible_to<std::string_view>;
};

/// The request scheduler of a shared-queue DRAM controller (MS1–MS4): which queued request of
/// a channel is served next (FCFS, FR-FCFS, …), given the queue's banks, row hits and readiness.
template <class S>
concept request_scheduler = ms1_params<S> && ms2_select<S> && ms3_on_selected<S> && ms4_name<S>;

/// Fails to compile with one message per broken requirement (MS1–MS4).
template <class S>
consteval bool diagnose_request_scheduler() {
    static_assert(ms1_params<S>, "MS1: S::params must be default-constructible and S constructible "
                                 "from (const S::params&, std::uint32_t banks)");
    static_assert(ms2_select<S>, "MS2: s.select(n, view) must be noexcept and return selection");
    static_assert(ms3_on_selected<S>, "MS3: s.on_selected(view, index) must be noexcept");
    static_assert(ms4_name<S>, "MS4: s.name() const must return something convertible to "
                               "std::string_view");
    return request_scheduler<S>;
}

} // namespace memsub::memory
