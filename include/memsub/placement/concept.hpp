// memsub — the `placement_policy` concept: where the data of a byte address lives in a machine
// of several memory partitions (one per module: GPM, GPU cluster), with its call protocol.
//
// A placement answers, per access, (partition, channel within the partition, partition-local
// address). The partition-local address is what the partition's own DRAM mapping decodes
// (placement/placed_mapping.hpp puts a placement in front of any address_mapping, by
// reference, so every partition's controller shares one placement, e.g. one first-touch table).
// Mechanisms (docs/mechanisms/multi_module_gpu.md): C5.1 (fine-grain interleave), C5.6 (first
// touch), C5.7 (round robin), [MemNet] §3.4 and G2.2 (seeded random page placement).
//
// Each requirement is a concept of its own (`pl1_params` … `pl5_capacity`, `pli1_inverse`);
// `diagnose_placement_policy<P>()` names the broken ones (labels: testing/contract.hpp).
//
// placement_policy — a type P models it when:
//   PL1. `typename P::params` is a default-constructible aggregate of its knobs; construction
//        from it validates every rule and throws `memsub::config_error`; `p.name()` ->
//        std::string_view.
//   PL2. `p.place(byte_address, std::uint32_t requester)` -> `location`: the location of the
//        address; for a policy with state (first touch) the first call for a page decides it.
//        noexcept except where the policy documents a capacity error (first_touch: more distinct
//        pages than its declared footprint).
//   PL3. `p.locate(byte_address)` const noexcept -> `std::optional<location>`: the location
//        `place` gave the address, without changing anything; nullopt only for an address whose
//        page no `place` has decided yet (stateless policies never return nullopt).
//   PL4. `p.partitions()`, `p.channels_per_partition()`, `p.page_bytes()` (the placement unit:
//        a page, or the interleave granule for fine-grain interleave) and `p.granule_bytes()`
//        (the channel-interleave unit) const noexcept -> std::uint32_t.
//   PL5. `p.partition_bytes()` const noexcept -> std::uint64_t: every local_address is below it.
// Refinement invertible_placement (stateless policies):
//   PLI1. `p.global_address(partition, local_address)` const noexcept -> byte_address, the
//         inverse of `place`: place(global_address(l.partition, l.local_address)) == l.
//
// Call protocol:
//   PP1. A host calls `place(address, requester)` for each access of the simulated machine (an
//        L2/L1.5 miss that goes to memory, or every access if it models no caches) before it
//        routes the request to `location::partition`'s controller; the controller's mapping
//        (placed_mapping) then `locate`s the address. `requester` is the id of the requesting
//        module; module m's local partition is partition m. Stateless policies ignore it.
//   PP2. A page's location is fixed by the first `place` that reaches it and never changes (no
//        migration, C5.6), across kernel boundaries; `reset()` (policies with state) forgets
//        every placement (a new application).
//   PP3. All addresses of one placement unit (`page_bytes`) share a partition, and their local
//        addresses are contiguous: local = unit base + offset. Inside a partition, channels
//        interleave on `granule_bytes`: channel = (local_address / granule) mod channels (C5.1
//        applied within the partition, C5.6).
//   PP4. place and locate never allocate; a policy reserves its state at construction.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>

#include <memsub/core/types.hpp>

/// Page placement across the memory partitions of a multi-module machine: the
/// `placement_policy` concept (PL1–PL5, refinement PLI1, call protocol PP1–PP4), the policies,
/// and `placed_mapping`, which puts a placement in front of a partition's DRAM mapping.
namespace memsub::placement {

/// Where the data of an address lives.
struct location {
    /// Memory partition (the module whose DRAM holds it).
    std::uint32_t partition = 0;
    /// Channel within the partition (fine-grain interleave on the granule).
    std::uint32_t channel = 0;
    /// Byte address within the partition's memory, as its DRAM mapping decodes it.
    std::uint64_t local_address = 0;

    /// Equal when partition, channel and local address are equal.
    friend constexpr bool operator==(const location&, const location&) = default;
};

// ------------------------------------------------------------ one concept per requirement

/// PL1: `P::params` is a default-constructible aggregate, `P` is constructible from it
/// (validating every rule) and `p.name()` names it.
template <class P>
concept pl1_params = std::default_initializable<typename P::params> &&
    std::constructible_from<P, const typename P::params&> && requires(const P& p) {
    { p.name() } -> std::convertible_to<std::string_view>;
};

/// PL2: `p.place(address, requester)` gives the address's `location`; with state, the first call
/// for a page decides it.
template <class P>
concept pl2_place = requires(P& p, byte_address a, std::uint32_t requester) {
    { p.place(a, requester) } -> std::same_as<location>;
};

/// PL3: `p.locate(address)` const noexcept gives the location `place` gave, changing nothing;
/// nullopt for a page not yet placed.
template <class P>
concept pl3_locate = requires(const P& p, byte_address a) {
    { p.locate(a) }
    noexcept->std::same_as<std::optional<location>>;
};

/// PL4: the machine and unit sizes, const noexcept: `partitions()`, `channels_per_partition()`,
/// `page_bytes()` (the placement unit) and `granule_bytes()` (the channel-interleave unit).
template <class P>
concept pl4_shape = requires(const P& p) {
    { p.partitions() }
    noexcept->std::same_as<std::uint32_t>;
    { p.channels_per_partition() }
    noexcept->std::same_as<std::uint32_t>;
    { p.page_bytes() }
    noexcept->std::same_as<std::uint32_t>;
    { p.granule_bytes() }
    noexcept->std::same_as<std::uint32_t>;
};

/// PL5: `p.partition_bytes()` const noexcept bounds every local address.
template <class P>
concept pl5_capacity = requires(const P& p) {
    { p.partition_bytes() }
    noexcept->std::same_as<std::uint64_t>;
};

/// A page placement (PL1–PL5): which partition and channel hold the data of a byte address, and
/// at which partition-local address. A page's location never changes once decided (PP2).
template <class P>
concept placement_policy =
    pl1_params<P> && pl2_place<P> && pl3_locate<P> && pl4_shape<P> && pl5_capacity<P>;

/// PLI1: `p.global_address(partition, local_address)` const noexcept inverts `place`.
template <class P>
concept pli1_inverse = requires(const P& p, std::uint32_t partition, std::uint64_t local) {
    { p.global_address(partition, local) }
    noexcept->std::same_as<byte_address>;
};

/// A stateless `placement_policy` that also maps a partition-local address back to the global
/// one (PLI1): place(global_address(l.partition, l.local_address)) == l.
template <class P>
concept invertible_placement = placement_policy<P> && pli1_inverse<P>;

/// Fails to compile with one message per broken requirement (PL1–PL5).
template <class P>
consteval bool diagnose_placement_policy() {
    static_assert(pl1_params<P>, "PL1: P::params must be a default-constructible aggregate, P "
                                 "constructible from it, and p.name() const must exist");
    static_assert(pl2_place<P>, "PL2: p.place(byte_address, std::uint32_t requester) must "
                                "return placement::location");
    static_assert(pl3_locate<P>, "PL3: p.locate(byte_address) const must be noexcept and "
                                 "return std::optional<placement::location>");
    static_assert(pl4_shape<P>, "PL4: p.partitions(), p.channels_per_partition(), "
                                "p.page_bytes(), p.granule_bytes() const must be noexcept and "
                                "return std::uint32_t");
    static_assert(pl5_capacity<P>, "PL5: p.partition_bytes() const must be noexcept and return "
                                   "std::uint64_t");
    return placement_policy<P>;
}

/// `diagnose_placement_policy<P>()` and then PLI1.
template <class P>
consteval bool diagnose_invertible_placement() {
    static_assert(diagnose_placement_policy<P>());
    static_assert(pli1_inverse<P>, "PLI1: p.global_address(std::uint32_t partition, "
                                   "std::uint64_t local_address) const must be noexcept and "
                                   "return byte_address");
    return invertible_placement<P>;
}

} // namespace memsub::placement
