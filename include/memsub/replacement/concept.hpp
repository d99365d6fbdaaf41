// memsub — the `replacement_policy` concept and its call protocol.
//
// A replacement policy orders the tag entries of each set and names a victim when the engine
// needs room. It never sees tags or data: the engine owns residency, the policy owns only its
// per-entry / per-set metadata (design.md, principle 3: memsub decides, the host keeps time).
//
// Requirements (a type P models `replacement_policy` when all hold):
//   R1. `typename P::params` is a default-constructible aggregate of the policy's knobs.
//   R2. `P(const geometry& g, const typename P::params& p)` constructs the policy for a cache of
//       shape `g` (already validated). It may throw `memsub::config_error`; nothing else throws.
//   R3. `p.on_hit(set, entry, access)`    — `entry` of `set` was hit by `access`.          noexcept
//   R4. `p.on_insert(set, entry, access)` — `access`'s block was placed in the (previously
//       invalid) `entry`. noexcept
//   R5. `p.on_evict(set, entry, info)`    — the valid `entry` leaves; `info` is an
//       `eviction_info` (the departing block's address, size, dirty and reused flags, and the
//       reason). Called for replacement victims and for every other invalidation. noexcept
//   R6. `p.victim(set, eligible, access)` -> `entry_index` — precondition: `eligible` is a
//       non-empty mask of valid entries of `set`; returns a member of `eligible`. It may update
//       metadata (e.g. RRIP ageing) but must not assume the entry is evicted until R5.    noexcept
//   R7. `p.name()` -> `std::string_view`, a short stable identifier ("lru", "srrip", …).
// Optional hooks, detected with `requires` (a policy pays only for what it declares):
//   O1. `p.on_miss(set, access)` noexcept — a demand miss in `set`, before any victim/insert.
//   O2. `p.storage_bits()` -> `std::uint64_t` — total hardware metadata bits of the policy.
//   O3. `p.should_bypass(set, access)` noexcept -> bool — asked only when the set is full, before
//       `victim`; `true` means the incoming block is not inserted (e.g. OPT with bypass).
//   O4. `p.prefetch(set)` const noexcept — hint the CPU to load the set's metadata (called by
//       the engine's `prefetch`, a few accesses ahead, when the host knows upcoming addresses).
//
// Call protocol, per access, as the engine (memsub::cache) performs it:
//   P1. Hit in set s: on_hit(s, e, a) for the entry e holding the request — in a
//       variable-block cache, for each block the request touches, lowest entry first. Nothing
//       else (except a write-evict store, P6).
//   P2. Miss in set s: on_miss(s, a) (O1) exactly once, before any other hook of this access.
//   P2a. A partial miss (variable-block caches: some requested segments resident, some not):
//       after on_miss, on_hit(s, e, a) for each resident block the request touches (it served
//       part of the request).
//   P3. If the access will not allocate (write-no-allocate, host `no_allocate`, a bypass
//       predictor, or O3 answering true) no further hook is called, but for the write-evict of
//       touched blocks (P6). O3 is asked before anything leaves the set.
//   P4. Otherwise, while the set lacks a free entry or free data segments: victim(s, m, a) → e;
//       then on_evict(s, e, info{reason = replacement}). Entries chosen earlier in this loop are
//       no longer in m, nor is any block this access inserted.
//   P5. on_insert(s, e', a) with e' an entry that is invalid at that moment; the lowest invalid
//       entry is used when several are. A variable-block miss inserts one block per aligned
//       span-sized piece of the line that holds a missing requested segment, in address order,
//       each preceded by its own P4 loop.
//   P6. Invalidations outside replacement (write-evict, explicit invalidate/flush, a block
//       superseded by an overlapping insert) call on_evict with the matching reason, and no
//       victim. Superseded blocks leave right after O3, before the first victim.
//   P7. Hooks run in O(entries per set) at most, never allocate, never throw.
// `memsub::testing::recording_policy` checks P1–P6 and R6 at run time (P7 is not observable at
// run time; its noexcept part is in the concept); `memsub::testing::check_replacement_contract`
// (testing/contract.hpp) runs a host's policy, wrapped in the recorder, through seeded streams
// on memsub's engine and returns a report (protocol, victims, determinism, storage_bits()).
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#include <memsub/core/access.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

namespace memsub::replacement {

/// Why a block left the cache.
enum class eviction_reason : std::uint8_t {
    replacement, ///< chosen by `victim` to make room
    write_evict, ///< a write hit under the write-evict policy
    invalidated, ///< the host invalidated or flushed it
    superseded,  ///< an overlapping block was inserted (variable-size blocks)
};

/// What the engine tells a policy about a departing block (R5).
struct eviction_info {
    /// The line holding the block.
    line_address line{};
    /// First byte of the block (the line's first byte for whole-line blocks).
    byte_address block_address{};
    /// Bytes of address space the block covered.
    std::uint32_t block_bytes = 0;
    /// Data segments the block occupied (its compressed size in a compressed cache).
    std::uint32_t stored_segments = 0;
    /// The block was written since it was filled.
    bool dirty = false;
    /// The block was hit at least once since it was filled.
    bool reused = false;
    eviction_reason reason = eviction_reason::replacement;
};

template <class P>
concept replacement_policy = std::default_initializable<typename P::params> && // R1
    std::constructible_from<P, const geometry&, const typename P::params&> &&  // R2
    requires(P& p, const P& cp, set_index s, entry_index e, entry_mask m, const access& a,
             const eviction_info& info) {
    { p.on_hit(s, e, a) }
    noexcept; // R3
    { p.on_insert(s, e, a) }
    noexcept; // R4
    { p.on_evict(s, e, info) }
    noexcept; // R5
    { p.victim(s, m, a) }
    noexcept->std::same_as<entry_index>;                    // R6
    { cp.name() } -> std::convertible_to<std::string_view>; // R7
};

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

/// The hardware metadata bits of a policy (0 when it does not report them).
template <class P>
[[nodiscard]] std::uint64_t storage_bits_of(const P& p) noexcept {
    if constexpr (reports_storage<P>)
        return p.storage_bits();
    else
        return 0;
}

} // namespace memsub::replacement
