// memsub — the `bypass_predictor` concept and its call protocol.
//
// A bypass predictor decides, on every miss that would allocate, whether the incoming block is
// inserted at all (docs/design.md, 'Families and what each concept promises'). It is the cache's
// allocation filter: ID-Cache's PC and PC+divergence predictors, a remote-only L1.5 that admits
// only lines homed on another module, an offline-trained table. It never sees tags or data and
// never chooses victims; the replacement policy does that for what it admits. A cache type takes
// one as a policy
// (`basic_cache<…, Bypass>`), stored `[[no_unique_address]]`: `bypass::never`, the default,
// costs nothing.
//
// Requirements (a type B models `bypass_predictor` when all hold; each is a concept of its own
// below, `b1_params` … `b4_name`, so a diagnostic names the one that failed):
//   B1. `typename B::params` is a default-constructible aggregate of the predictor's knobs.
//   B2. `B(const geometry& g, const typename B::params& p)` constructs it for a cache of shape
//       `g`; it may throw `memsub::config_error`, nothing else throws. Per-entry state is sized
//       by `g.entries_per_set()`, not `g.ways`.
//   B3. `b.should_bypass(set, access)` noexcept -> bool: `true` = do not insert. It may update
//       state (a sampling counter, say), so it is asked exactly once per allocating miss.
//   B4. `b.name()` -> `std::string_view`, a short stable identifier.
// Optional training hooks, detected with `requires` — they concern only blocks the predictor
// admitted, which in a cache are all resident blocks (nothing else is ever inserted):
//   T1. `b.on_hit(set, entry, access)` noexcept — an admitted block served (part of) an access.
//   T2. `b.on_insert(set, entry, access)` noexcept — the admitted block was placed in `entry`;
//       the predictor keeps whatever per-entry state it needs (inserting PC, divergence bin).
//   T3. `b.on_evict(set, entry, block)` noexcept — an admitted block left (`evicted_block`:
//       reused flag, reason, …). Called for every departure, whatever the reason.
//   T4. `b.storage_bits()` -> `std::uint64_t` — its hardware budget, per-entry state included.
//
// Call protocol, per access, as the engine (memsub::cache) performs it, interleaved with the
// replacement protocol P1–P8 (replacement/concept.hpp):
//   Q1. The decision to allocate is taken once per miss, in this order: the host's
//       `hints.no_allocate`; the write policy's no-allocate rule (write-through and write-evict
//       stores); the bypass predictor (B3); then the replacement policy's O3, asked only when
//       the set lacks room. The first that declines decides; later ones are not asked.
//   Q2. B3 is asked on every miss that reaches it, a partial miss of a variable-block cache
//       included, after the replacement policy's on_miss (P2) and partial-miss on_hit calls
//       (P2a), before anything leaves the set.
//   Q3. T1 follows the replacement policy's on_hit for the same entry; T2 follows its
//       on_insert; T3 follows its on_evict.
//   Q4. A bypassed miss inserts nothing and reports the bytes it reads (`bytes_fetched`) or
//       writes down (`bytes_written_down`), with `access_result::bypass` naming who declined.
//   Q5. Hooks run in O(entries per set) at most, never allocate, never throw.
// `memsub::testing::recording_predictor` checks Q1–Q3 and T1–T3 at run time;
// `memsub::testing::check_bypass_contract` (testing/contract.hpp) runs a host's predictor through
// seeded streams on memsub's engine, conventional and variable-block, and reports K1–K7.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#include <memsub/core/access.hpp>
#include <memsub/core/evicted_block.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

/// Bypass predictors, a cache's allocation filter: the `bypass_predictor` concept (B1–B4,
/// training hooks T1–T4, call protocol Q1–Q5), the predictors (ID-Cache's PC and
/// PC+divergence ones and their offline trainer, remote-only, always / never) and combinators.
namespace memsub::bypass {

/// B1: `B::params` is a default-constructible aggregate of the predictor's knobs.
template <class B>
concept b1_params = std::default_initializable<typename B::params>;

/// B2: `B(geometry, params)` builds the predictor for a cache of that shape (it may throw
/// `config_error`, nothing else).
template <class B>
concept b2_constructible = std::constructible_from<B, const geometry&, const typename B::params&>;

/// B3: `b.should_bypass(set, access)` noexcept: true = do not insert; asked exactly once per
/// allocating miss that reaches it.
template <class B>
concept b3_should_bypass = requires(B& b, set_index s, const access& a) {
    { b.should_bypass(s, a) }
    noexcept->std::convertible_to<bool>;
};

/// B4: `b.name()` gives a short stable identifier.
template <class B>
concept b4_name = requires(const B& cb) {
    { cb.name() } -> std::convertible_to<std::string_view>;
};

/// A bypass predictor (B1–B4): decides on each allocating miss whether the incoming block is
/// inserted at all. It never sees tags or data and never chooses victims.
template <class B>
concept bypass_predictor = b1_params<B> && b2_constructible<B> && b3_should_bypass<B> && b4_name<B>;

/// T1: trains on hits of admitted blocks.
template <class B>
concept trains_on_hit = requires(B& b, set_index s, entry_index e, const access& a) {
    { b.on_hit(s, e, a) }
    noexcept;
};
/// T2: trains on (keeps state for) inserted blocks.
template <class B>
concept trains_on_insert = requires(B& b, set_index s, entry_index e, const access& a) {
    { b.on_insert(s, e, a) }
    noexcept;
};
/// T3: trains on departures.
template <class B>
concept trains_on_evict = requires(B& b, set_index s, entry_index e, const evicted_block& x) {
    { b.on_evict(s, e, x) }
    noexcept;
};
/// T4: reports its hardware budget.
template <class B>
concept reports_storage = requires(const B& b) {
    { b.storage_bits() } -> std::convertible_to<std::uint64_t>;
};

// The engine's (and the combinators') calls: each does nothing for a predictor without the hook.
/// Calls T1 (`on_hit`) when `B` has it; does nothing otherwise.
template <class B>
void notify_hit(B& b, set_index s, entry_index e, const access& a) noexcept {
    if constexpr (trains_on_hit<B>) b.on_hit(s, e, a);
}
/// Calls T2 (`on_insert`) when `B` has it; does nothing otherwise.
template <class B>
void notify_insert(B& b, set_index s, entry_index e, const access& a) noexcept {
    if constexpr (trains_on_insert<B>) b.on_insert(s, e, a);
}
/// Calls T3 (`on_evict`) when `B` has it; does nothing otherwise.
template <class B>
void notify_evict(B& b, set_index s, entry_index e, const evicted_block& x) noexcept {
    if constexpr (trains_on_evict<B>) b.on_evict(s, e, x);
}
/// The predictor's hardware budget in bits (T4), or 0 when it does not report one.
template <class B>
[[nodiscard]] std::uint64_t storage_bits_of(const B& b) noexcept {
    if constexpr (reports_storage<B>)
        return b.storage_bits();
    else
        return 0;
}

/// Fails to compile with one message per broken requirement (B1–B4).
template <class B>
consteval bool diagnose_bypass_predictor() {
    static_assert(b1_params<B>, "B1: B::params must be a default-constructible aggregate");
    static_assert(b2_constructible<B>,
                  "B2: B must be constructible from (const geometry&, const B::params&)");
    static_assert(b3_should_bypass<B>, "B3: b.should_bypass(set_index, const access&) must "
                                       "exist, be noexcept and return bool");
    static_assert(b4_name<B>, "B4: b.name() const must return something convertible to "
                              "std::string_view");
    return bypass_predictor<B>;
}

} // namespace memsub::bypass
