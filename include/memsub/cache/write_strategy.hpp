// memsub — the write policy of a cache, as one compile-time strategy.
//
// Users name the policy with `cache_options::writes` (a `write_policy` value, so the options stay
// a structural type written `cache_options{.writes = write_policy::write_through}`); the engine
// runs the strategy type `write_strategy_t<writes>` names. A strategy is a type with a few
// constants and hooks, each called at the one place of an access path where write policies
// differ, so the paths hold no per-policy branches:
//  * `tracks_dirty`: stores mark blocks dirty and dirty blocks are written back when they leave
//    (write-back). A cache that does not track dirtiness never has a dirty block.
//  * `allocates_on_write_miss`: a store miss fetches and fills (write-allocate); otherwise the
//    store goes down and the miss counts as `bypass_reason::write_no_allocate`.
//  * `evicts_written_blocks`: a store invalidates the blocks it touches (write-evict). Such a
//    cache resizes nothing on a store hit, and its read-modify-write reads without allocating.
//  * `dirty_on_write(write)`: whether an access that writes leaves the block it touches dirty.
//  * `on_write_hit(port, blocks, bytes)`: a store found its bytes resident in `blocks`; called
//    only when `acts_on_write_hit`. A write-back store hit is its dirty bit, set branch-free
//    where the block is touched, and the conventional hit path does not build a port for it:
//    an unused port there still changed GCC's register allocation of the inlined path (a
//    spill on a runtime-shaped SRRIP's hit).
//  * `on_write_not_allocated(port, touched)`: a store miss allocated nothing; `touched` are
//    the resident blocks it touched (a partial miss of a variable-block cache).
//  * `on_read_modify_write(port, blocks, bytes)`: the write of a read-modify-write, after its
//    read (`blocks`: the blocks holding all its bytes, 0 when the read left them not resident).
// A `port` is the engine's narrow handle on one access: `send_down(bytes)` (the bytes go to the
// next level), `mark_dirty(blocks)`, `evict(blocks)` (reason `write_evict`), and
// `resize(blocks)` (a store hit's resize to the access's spec, P8 of replacement/concept.hpp;
// nothing for an access without a spec).
//
// Decision: the strategy is a type the engine selects from the `write_policy` value, not a
// template parameter users pass. `cache_options` stays the one place a cache's compile-time
// shape is written, and every existing spelling keeps working; a strategy type as an option
// would have needed a second template parameter on basic_cache and on every alias. The hooks
// are static and take the port by reference, so each inlines into the path that calls it and
// a policy's unused branches vanish at compile time, as the `if constexpr` tests they replace.
#pragma once

#include <cstdint>

#include <memsub/core/types.hpp>

namespace memsub::cache {

enum class write_policy : std::uint8_t { write_back, write_through, write_evict };

namespace write_strategies {

/// Write-allocate; stores mark blocks dirty; dirty blocks are reported when they leave. A
/// `writeback` access from the level above allocates without fetching (it overwrites the
/// whole block).
struct write_back {
    static constexpr write_policy policy = write_policy::write_back;
    static constexpr bool tracks_dirty = true;
    static constexpr bool allocates_on_write_miss = true;
    static constexpr bool evicts_written_blocks = false;
    static constexpr bool acts_on_write_hit = false;

    [[nodiscard]] static constexpr bool dirty_on_write(bool write) noexcept { return write; }
    /// The store's blocks were marked dirty where they were touched (`dirty_on_write`): branch-
    /// free there, since whether an access writes is data-dependent.
    template <class Port>
    static void on_write_hit(Port&, entry_mask, std::uint32_t) noexcept {}
    template <class Port>
    static void on_write_not_allocated(Port&, entry_mask) noexcept {}
    /// Resident: the write dirties the blocks (and resizes them, given a spec); not resident
    /// (the read did not allocate): the written bytes go down.
    template <class Port>
    static void on_read_modify_write(Port& port, entry_mask blocks, std::uint32_t bytes) noexcept {
        if (blocks != 0) {
            port.mark_dirty(blocks);
            port.resize(blocks);
            return;
        }
        port.send_down(bytes);
    }
};

/// Stores update a resident block and always go to the next level; store misses do not
/// allocate. Blocks are never dirty.
struct write_through {
    static constexpr write_policy policy = write_policy::write_through;
    static constexpr bool tracks_dirty = false;
    static constexpr bool allocates_on_write_miss = false;
    static constexpr bool evicts_written_blocks = false;
    static constexpr bool acts_on_write_hit = true;

    [[nodiscard]] static constexpr bool dirty_on_write(bool) noexcept { return false; }
    template <class Port>
    static void on_write_hit(Port& port, entry_mask, std::uint32_t bytes) noexcept {
        port.send_down(bytes);
    }
    template <class Port>
    static void on_write_not_allocated(Port&, entry_mask) noexcept {}
    template <class Port>
    static void on_read_modify_write(Port& port, entry_mask blocks, std::uint32_t bytes) noexcept {
        port.send_down(bytes);
        if (blocks != 0) port.resize(blocks);
    }
};

/// GPU L1 style (Fermi; LATTE-CC models its L1s so, [Dissertation] §4.3.3): a store invalidates
/// the blocks it touches, every store goes to the next level, store misses do not allocate.
struct write_evict {
    static constexpr write_policy policy = write_policy::write_evict;
    static constexpr bool tracks_dirty = false;
    static constexpr bool allocates_on_write_miss = false;
    static constexpr bool evicts_written_blocks = true;
    static constexpr bool acts_on_write_hit = true;

    [[nodiscard]] static constexpr bool dirty_on_write(bool) noexcept { return false; }
    template <class Port>
    static void on_write_hit(Port& port, entry_mask blocks, std::uint32_t bytes) noexcept {
        port.send_down(bytes);
        port.evict(blocks);
    }
    /// A partial store miss still invalidates the resident blocks it touched.
    template <class Port>
    static void on_write_not_allocated(Port& port, entry_mask touched) noexcept {
        port.evict(touched);
    }
    template <class Port>
    static void on_read_modify_write(Port& port, entry_mask blocks, std::uint32_t bytes) noexcept {
        port.send_down(bytes);
        port.evict(blocks);
    }
};

} // namespace write_strategies

namespace detail {
template <write_policy W>
struct write_strategy_of;
template <>
struct write_strategy_of<write_policy::write_back> {
    using type = write_strategies::write_back;
};
template <>
struct write_strategy_of<write_policy::write_through> {
    using type = write_strategies::write_through;
};
template <>
struct write_strategy_of<write_policy::write_evict> {
    using type = write_strategies::write_evict;
};
} // namespace detail

/// The strategy type of a `write_policy` value.
template <write_policy W>
using write_strategy_t = typename detail::write_strategy_of<W>::type;

} // namespace memsub::cache
