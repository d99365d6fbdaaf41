// memsub — the `replacement_policy` concept and its call protocol.
//
// A replacement policy orders the tag entries of each set and names a victim when the engine
// needs room. It never sees tags or data: the engine owns residency, the policy owns only its
// per-entry / per-set metadata (docs/design.md, principle 3: memsub decides, the host keeps time).
//
// Requirements (a type P models `replacement_policy` when all hold; each is also a concept of
// its own below, `r1_params` … `r7_name`, so a compiler diagnostic names the one that failed):
//   R1. `typename P::params` is a default-constructible aggregate of the policy's knobs.
//   R2. `P(const geometry& g, const typename P::params& p)` constructs the policy for a cache of
//       shape `g` (already validated). It may throw `memsub::config_error`; nothing else throws.
//       Per-set state is sized by `g.entries_per_set()` (tag entries), not `g.ways`: a
//       variable-block or compressed cache has more entries than ways.
//   R3. `p.on_hit(set, entry, access)`    — `entry` of `set` was hit by `access`.          noexcept
//   R4. `p.on_insert(set, entry, access)` — `access`'s block was placed in the (previously
//       invalid) `entry`; or the size-aware form `p.on_insert(set, entry, access, insert_info)`
//       (the block's address, span, stored segments and payload). The engine calls the
//       size-aware form when the policy has it. noexcept
//   R5. `p.on_evict(set, entry, block)`   — the valid `entry` leaves; `block` is the
//       `evicted_block` the engine also hands the host (address, size, dirty, reused, reason,
//       …). Called for replacement victims and for every other invalidation. noexcept
//   R6. `p.victim(set, eligible, access)` -> `entry_index`, or the size-aware form
//       `p.victim(set, eligible, access, room_request)` (what the set still lacks: entries and
//       segments, and the incoming block's size) — precondition: `eligible` is a non-empty mask
//       of valid entries of `set`; returns a member of `eligible`. It may update metadata (e.g.
//       RRIP ageing) but must not assume the entry is evicted until R5.                    noexcept
//   R7. `p.name()` -> `std::string_view`, a short stable identifier ("lru", "srrip", …).
// Optional hooks, detected with `requires` (a policy pays only for what it declares):
//   O1. `p.on_miss(set, access)` noexcept — a demand miss in `set`, before any victim/insert.
//   O2. `p.storage_bits()` -> `std::uint64_t` — total hardware metadata bits of the policy.
//   O3. `p.should_bypass(set, access)` noexcept -> bool — asked only when the set lacks room,
//       after the cache's bypass predictor admitted the block (bypass/concept.hpp), before
//       `victim`; `true` means the incoming block is not inserted (e.g. OPT with bypass).
//   O4. `p.prefetch(set)` const noexcept — hint the CPU to load the set's metadata (called by
//       the engine's `prefetch`, a few accesses ahead, when the host knows upcoming addresses).
//   O5. `p.row_bytes()` const noexcept -> uint32_t and `p.place_rows(first, stride)` noexcept —
//       the policy keeps one row of `row_bytes()` bytes (a multiple of 16) per set, and lets the
//       engine host the rows in its per-set header (next to the set's state and tag
//       fingerprints, so an access touches one metadata line). The engine calls place_rows at
//       most once, right after constructing the policy, with `first` (a `std::byte*`, 16-byte
//       aligned) and `stride` (a power of two): the policy copies row s to first + s·stride and
//       keeps it there from then on. That memory belongs to the engine, which owns the policy: a
//       copy of the policy must own its rows (replacement/set_rows.hpp does both).
//   O6. `template <std::uint32_t Entries> using for_entries = Q;` — the same policy specialised
//       at compile time for exactly `Entries` entries per set (its row lengths and bounds become
//       constants). An engine whose geometry is a compile-time constant (`fixed_geometry`)
//       builds `shaped_policy_t<P, entries>` = Q in its place; Q models replacement_policy,
//       takes `P::params`, behaves exactly as P on that shape, and throws config_error if built
//       for another entry count.
//   O7. `p.replace(set, eligible, access)` noexcept -> entry_index — R6, R5 and R4 of one
//       replacement in a single call: returns e = victim(set, eligible, access) and updates the
//       metadata as on_evict(set, e, block{reason = replacement}) followed by on_insert(set, e,
//       access) would. Only for a policy whose on_evict does not read the block on a
//       replacement and that has neither sized form (R4, R6). The engine calls it for a
//       conventional miss into a full set (P4 with one victim, then P5 into its entry);
//       `check_replacement_contract` checks that it matches the three hooks (K8).
//   O8. `P::host_hints_needed` — a `static constexpr std::string_view` saying which host hints
//       (core/access.hpp `host_hints`) the policy needs to differ from a simpler policy, and
//       what it does without them. Documentation a tool can show: a host without those hints
//       (a trace replay with no timing) then tells its user why the rows look alike.
//   O9. `P::hosted_row_bytes()` static constexpr noexcept -> uint32_t, `p.on_hit_in_row(row, e,
//       access)` noexcept and `p.replace_in_row(row, set, eligible, access)` noexcept ->
//       entry_index — for a policy with O5 whose type fixes its shape (an O6 form): its
//       row_bytes() for every geometry it accepts, and R3 and O7 given the set's row (`row`, a
//       `std::byte*`, where place_rows put row `set`) instead of finding it. An engine with a
//       compile-time geometry that hosts the rows computes a row's address from the set's
//       header (a constant offset, no load), where the policy would load its base and stride
//       after every store to metadata (they may alias it). The engine calls them only after
//       place_rows; `check_replacement_contract` checks they decide as the plain hooks (K8).
// A policy author's helpers: core/types.hpp (entry masks: `lowest_entry`, `bit_of`,
// `low_bits_mask`, `contains`), core/byte_match.hpp (recency rows: `recency_promote`,
// `recency_demote`, `byte_equal_mask`), replacement/rrpv_state.hpp (RRPV rows with ageing).
//
// Call protocol, per access, as the engine (memsub::cache) performs it:
//   P1. Hit in set s: on_hit(s, e, a) for the entry e holding the request — in a
//       variable-block cache, for each block the request touches, lowest entry first. Nothing
//       else (except a write-evict store, P6, and a resizing store, P8).
//   P2. Miss in set s: on_miss(s, a) (O1) exactly once, before any other hook of this access.
//   P2a. A partial miss (variable-block caches: some requested segments resident, some not):
//       after on_miss, on_hit(s, e, a) for each resident block the request touches (it served
//       part of the request).
//   P3. The decision to allocate is taken once, in this order: the host's `no_allocate`, the
//       write-no-allocate rule of the cache's write policy, the cache's bypass predictor, then
//       O3 (asked only when the set lacks room). If the access will not allocate no further
//       hook is called, but for the write-evict of touched blocks (P6). Nothing leaves the set
//       before the decision.
//   P4. Otherwise, while the set lacks a free entry or free data segments: victim(s, m, a) → e;
//       then on_evict(s, e, block{reason = replacement}). Entries chosen earlier in this loop
//       are no longer in m, nor is any block this access inserted. When the set has a free entry
//       and lacks only segments, m leaves out its tag-only blocks (stored in 0 segments: evicting
//       one frees none), so every victim frees room.
//   P5. on_insert(s, e', a) with e' an entry that is invalid at that moment; the lowest invalid
//       entry is used when several are. A variable-block miss inserts one block per aligned
//       span-sized piece of the line that holds a missing requested segment, in address order,
//       each preceded by its own P4 loop.
//   P6. Invalidations outside replacement (write-evict, explicit invalidate/flush, a block
//       superseded by an overlapping insert) call on_evict with the matching reason, and no
//       victim. Superseded blocks leave right after the decision (P3), before the first victim.
//   P7. Hooks run in O(entries per set) at most, never allocate, never throw.
//   P8. A store hit that grows a compressed block (variable-block caches, `access(a, spec)`
//       with a larger stored size): after its P1 on_hit calls, while the set lacks segments,
//       victim(s, m, a) → e then on_evict(s, e, block{reason = replacement}), with m every valid
//       entry not yet chosen but tag-only blocks (as in P4) — the growing block included: if it
//       is chosen it leaves, dirty, and the loop ends. A shrinking store frees segments and calls
//       nothing more.
// `memsub::testing::recording_policy` checks P1–P6, P8 and R6 at run time (P7 is not observable
// at run time; its noexcept part is in the concept); `memsub::testing::check_replacement_contract`
// (testing/contract.hpp) runs a host's policy, wrapped in the recorder, through seeded streams
// on memsub's engine, conventional and variable-block, and returns a report whose lines carry
// the contract labels K1–K8 (protocol, victims, determinism, residency, set bounds,
// storage_bits(), crashes, fast forms). Every label family of memsub is listed in
// testing/contract.hpp.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <memsub/core/access.hpp>
#include <memsub/core/evicted_block.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

/// Replacement policies: the `replacement_policy` concept (R1–R7, optional hooks O1–O9, call
/// protocol P1–P8), the policies themselves, and the combinators built on them (set dueling,
/// DRRIP, SHiP, ReMAP, OPT).
namespace memsub::replacement {

/// What the size-aware `on_insert` (R4) is told about the block just placed.
struct insert_info {
    /// First byte of the block.
    byte_address address{};
    /// Bytes of address space it covers.
    std::uint32_t bytes = 0;
    /// Data segments it occupies (≤ bytes / segment size; fewer when compressed).
    std::uint32_t stored_segments = 0;
    /// The cache user's payload for it (`block_spec::payload`).
    std::uint32_t payload = 0;
};

/// What the size-aware `victim` (R6) is told: what the set still lacks, and what is coming in.
struct room_request {
    /// Tag entries still needed (0 or 1).
    std::uint32_t entries_needed = 0;
    /// Data segments still needed beyond the free ones (0 when only a tag is missing).
    std::uint32_t segments_needed = 0;
    /// The incoming block's address span in bytes (the growing block's new span on a resizing
    /// store, P8).
    std::uint32_t incoming_bytes = 0;
    /// The incoming block's stored size in segments (its new size on a resizing store, P8).
    std::uint32_t incoming_segments = 0;
};

// ------------------------------------------------------------ one concept per requirement

/// R1: `P::params` is a default-constructible aggregate of the policy's knobs.
template <class P>
concept r1_params = std::default_initializable<typename P::params>;

/// R2: `P(geometry, params)` builds the policy for a cache of that shape (it may throw
/// `config_error`, nothing else).
template <class P>
concept r2_constructible = std::constructible_from<P, const geometry&, const typename P::params&>;

/// R3: `p.on_hit(set, entry, access)` noexcept: a resident block served an access.
template <class P>
concept r3_on_hit = requires(P& p, set_index s, entry_index e, const access& a) {
    { p.on_hit(s, e, a) }
    noexcept;
};

/// R4, the minimal form.
template <class P>
concept plain_on_insert = requires(P& p, set_index s, entry_index e, const access& a) {
    { p.on_insert(s, e, a) }
    noexcept;
};
/// R4, the size-aware form.
template <class P>
concept sized_on_insert = requires(P& p, set_index s, entry_index e, const access& a,
                                   const insert_info& i) {
    { p.on_insert(s, e, a, i) }
    noexcept;
};
/// R4: `p.on_insert` noexcept, in either form: a block was placed in an entry.
template <class P>
concept r4_on_insert = plain_on_insert<P> || sized_on_insert<P>;

/// R5: `p.on_evict(set, entry, block)` noexcept: a block left the entry, for whatever reason.
template <class P>
concept r5_on_evict = requires(P& p, set_index s, entry_index e, const evicted_block& b) {
    { p.on_evict(s, e, b) }
    noexcept;
};

/// R6, the minimal form.
template <class P>
concept plain_victim = requires(P& p, set_index s, entry_mask m, const access& a) {
    { p.victim(s, m, a) }
    noexcept->std::same_as<entry_index>;
};
/// R6, the size-aware form.
template <class P>
concept sized_victim = requires(P& p, set_index s, entry_mask m, const access& a,
                                const room_request& r) {
    { p.victim(s, m, a, r) }
    noexcept->std::same_as<entry_index>;
};
/// R6: `p.victim` noexcept, in either form, names an entry among the eligible ones to make room.
template <class P>
concept r6_victim = plain_victim<P> || sized_victim<P>;

/// R7: `p.name()` gives a short stable identifier.
template <class P>
concept r7_name = requires(const P& cp) {
    { cp.name() } -> std::convertible_to<std::string_view>;
};

/// A replacement policy (R1–R7): orders the tag entries of each set from its own per-entry and
/// per-set metadata and names a victim when the engine needs room. It never sees tags or data.
template <class P>
concept replacement_policy = r1_params<P> && r2_constructible<P> && r3_on_hit<P> &&
    r4_on_insert<P> && r5_on_evict<P> && r6_victim<P> && r7_name<P>;

/// O1: the policy wants to hear about misses.
template <class P>
concept observes_misses = requires(P& p, set_index s, const access& a) {
    { p.on_miss(s, a) }
    noexcept;
};

/// O2: the policy reports its hardware budget.
template <class P>
concept reports_storage = requires(const P& p) {
    { p.storage_bits() } -> std::convertible_to<std::uint64_t>;
};

/// O3: the policy may decline to insert into a full set.
template <class P>
concept may_bypass = requires(P& p, set_index s, const access& a) {
    { p.should_bypass(s, a) }
    noexcept->std::convertible_to<bool>;
};

/// O4: the policy can prefetch a set's metadata.
template <class P>
concept prefetches = requires(const P& p, set_index s) {
    { p.prefetch(s) }
    noexcept;
};

/// Calls R4 in the richest form `P` has (the engine and every wrapping policy use this).
template <class P>
void notify_insert(P& p, set_index s, entry_index e, const access& a,
                   const insert_info& info) noexcept {
    if constexpr (sized_on_insert<P>)
        p.on_insert(s, e, a, info);
    else
        p.on_insert(s, e, a);
}

/// Calls R6 in the richest form `P` has.
template <class P>
[[nodiscard]] entry_index choose_victim(P& p, set_index s, entry_mask eligible, const access& a,
                                        const room_request& need) noexcept {
    if constexpr (sized_victim<P>)
        return p.victim(s, eligible, a, need);
    else
        return p.victim(s, eligible, a);
}

/// O7: the policy fuses victim, on_evict and on_insert of one replacement.
template <class P>
concept fuses_replacement = requires(P& p, set_index s, entry_mask m, const access& a) {
    { p.replace(s, m, a) }
    noexcept->std::same_as<entry_index>;
};

/// O8: the policy states the host hints it needs.
template <class P>
concept states_host_hints = requires {
    { P::host_hints_needed } -> std::convertible_to<std::string_view>;
};

/// O5: the policy's per-set rows may be hosted by the engine.
template <class P>
concept places_rows = requires(P& p, const P& cp, std::byte* first, std::size_t stride) {
    { cp.row_bytes() }
    noexcept->std::convertible_to<std::uint32_t>;
    { p.place_rows(first, stride) }
    noexcept;
};

/// O9: the policy, shaped at compile time, works on a hosted row the engine addresses itself.
template <class P>
concept addresses_rows = places_rows<P> &&
    requires(P& p, std::byte* row, set_index s, entry_index e, entry_mask m, const access& a) {
    { P::hosted_row_bytes() }
    noexcept->std::same_as<std::uint32_t>;
    { p.on_hit_in_row(row, e, a) }
    noexcept;
    { p.replace_in_row(row, s, m, a) }
    noexcept->std::same_as<entry_index>;
};

/// O6: the policy type an engine with a compile-time shape of `Entries` entries per set builds
/// for `P` (`P::for_entries<Entries>` when P declares it, P otherwise; P when `Entries` is 0).
template <class P, std::uint32_t Entries>
struct shaped_policy {
    /// `P` itself: it has no `for_entries`, or the shape is not fixed at compile time.
    using type = P;
};
/// O6 for a policy that declares `for_entries` and an engine with a fixed shape: the policy's
/// own fixed-shape form.
template <class P, std::uint32_t Entries>
requires(Entries != 0) && requires {
    typename P::template for_entries<Entries>;
}
struct shaped_policy<P, Entries> {
    /// `P::for_entries<Entries>`, which takes P's params.
    using type = typename P::template for_entries<Entries>;
    static_assert(std::same_as<typename type::params, typename P::params>,
                  "O6: P::for_entries<E> must take P's params");
};
/// `shaped_policy<P, Entries>::type`: the policy type an engine of that shape builds (O6).
template <class P, std::uint32_t Entries>
using shaped_policy_t = typename shaped_policy<P, Entries>::type;

/// The hardware metadata bits of a policy (0 when it does not report them).
template <class P>
[[nodiscard]] std::uint64_t storage_bits_of(const P& p) noexcept {
    if constexpr (reports_storage<P>)
        return p.storage_bits();
    else
        return 0;
}

/// The hardware metadata bits of a policy, or nothing when it does not report them (O2): what a
/// tool shows, so a missing budget reads as unknown rather than as zero bits.
template <class P>
[[nodiscard]] std::optional<std::uint64_t> reported_storage_bits(const P& p) noexcept {
    if constexpr (reports_storage<P>)
        return p.storage_bits();
    else
        return std::nullopt;
}

/// Fails to compile with one message per broken requirement (R1–R7), for a policy author who
/// wants the rule named rather than the concept's expansion:
/// `static_assert(diagnose_replacement_policy<my_p>())`.
template <class P>
consteval bool diagnose_replacement_policy() {
    static_assert(r1_params<P>, "R1: P::params must be a default-constructible aggregate");
    static_assert(r2_constructible<P>,
                  "R2: P must be constructible from (const geometry&, const P::params&)");
    static_assert(r3_on_hit<P>, "R3: p.on_hit(set_index, entry_index, const access&) must "
                                "exist and be noexcept");
    static_assert(r4_on_insert<P>, "R4: p.on_insert(set_index, entry_index, const access&"
                                   "[, const insert_info&]) must exist and be noexcept");
    static_assert(r5_on_evict<P>, "R5: p.on_evict(set_index, entry_index, const evicted_block&) "
                                  "must exist and be noexcept");
    static_assert(r6_victim<P>,
                  "R6: p.victim(set_index, entry_mask, const access&[, const room_request&]) "
                  "must exist, be noexcept and return entry_index");
    static_assert(r7_name<P>, "R7: p.name() const must return something convertible to "
                              "std::string_view");
    return replacement_policy<P>;
}

} // namespace memsub::replacement
