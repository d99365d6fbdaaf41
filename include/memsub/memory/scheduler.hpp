// memsub — the `request_scheduler` concept of shared-queue controllers (fcfs.hpp, fr_fcfs.hpp).
//
// Concept `request_scheduler` — a type S models it when:
//   S1. `typename S::params` is a default-constructible aggregate; `S(params, banks)` builds the
//       state of one channel with `banks` banks (it may throw `config_error`).
//   S2. `s.select(n, view)` noexcept -> `selection`: choose among the `n` queued requests of one
//       queue, oldest first (index 0 = oldest). `view.bank(i)`, `view.hit(i)` (the request's row
//       is open in its bank now) and `view.ready(i)` (its bank takes a request now) describe
//       them. Readiness is monotone in age within a bank: when entry i is ready, so is every
//       older entry of its bank (requests become visible in arrival order). Returns the chosen
//       index, or `selection::none` with `wake` = the earliest cycle at which a choice may
//       become possible (a lower bound; `view.ready_at(i)` gives it). A view may also offer
//       `view.issue_at(i)`: for a row hit, the earliest cycle its column command could issue
//       (first-ready schedulers compare it; detected with `requires`).
//   S3. `s.on_selected(view, index)` noexcept — the request the last `select` chose leaves
//       the queue (called before it is removed, so the view still describes it).
//   S4. `s.name()` -> std::string_view.
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

struct selection {
    static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    std::size_t index = none;
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

template <class S>
concept request_scheduler = std::default_initializable<typename S::params> && // S1
    std::constructible_from<S, const typename S::params&, std::uint32_t> &&
    requires(S& s, const S& cs, std::size_t n, const detail::queue_view_archetype& v) {
    { s.select(n, v) }
    noexcept->std::same_as<selection>; // S2
    { s.on_selected(v, n) }
    noexcept;                                               // S3
    { cs.name() } -> std::convertible_to<std::string_view>; // S4
};

} // namespace memsub::memory
