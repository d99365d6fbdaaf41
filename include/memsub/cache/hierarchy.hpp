// memsub — a cache hierarchy: levels of any memsub cache types, composed at compile time.
//
// `hierarchy<Levels...>` runs one host access through levels 0 (closest to the requester) …
// N−1 and reports the level that served it, what each level did, the back-invalidations of
// inclusive levels, and the ordered requests that leave the last level for a memory
// controller. It is functional only: memsub decides, the host keeps time (no cycle counts
// here: a host's timing model turns the decisions and the request stream into latency). The
// caches are the engine's (`basic_cache` and its aliases); the hierarchy calls them and never
// reaches into their sets, except through `set_dirty` (below).
//
// Design choices, each with its reason:
//
// Levels. `level<Cache, Inclusion, Router>` is a cache type, its instances (a vector, sized once)
//  and a router: `route::shared` (one instance), `route::private_per{group}` (instance =
//  requester / group: per core, per SM, per module), `route::interleaved{granule, slices}`
//  (address-interleaved slices), or any `noexcept` callable `(const access&) -> instance`, e.g.
//  a home-module function. A router may return `route::skip`: the access does not look this
//  level up (a remote-only L1.5 that local lines pass by). Why a router and not a topology:
//  it is one call, inlined, and covers private, shared, sliced and home-partitioned levels.
//  Routers of inclusive levels and of the levels above them must depend only on address and
//  requester: back-invalidation finds the upper instances that can hold a line by evaluating
//  the routers for every requester (no directory is kept; the cost is requesters × levels
//  route calls per inclusive eviction). No coherence is modelled: private copies of one line
//  are independent, as in multiprogrammed studies with disjoint address spaces.
// Line sizes. Each level's line is the same as or larger than the one above (checked at
//  construction). A fill request asks the level below for the missing block(s) of the level
//  above; a larger lower line is fetched whole. An inclusive level back-invalidates every upper
//  line inside its line. A writeback of a block smaller than the lower line (a variable-block or
//  smaller-line level above) is a `writeback` access of the block's bytes, which the engine
//  allocates without fetching the rest of the line — an approximation; use equal line sizes
//  when that traffic matters. A variable-block level 0 takes the host's `block_spec`
//  (`access(a, spec)`); lower variable-block levels insert whole lines.
// Inclusion (compile time, per level, relative to every level above it):
//  * non_inclusive (default): a miss fills every level it passes through (each subject to its
//    own bypass and write policy); evictions are independent.
//  * inclusive: every block that leaves this level (any reason) is back-invalidated right
//    away in every upper instance that can hold it; a dirty upper copy makes the departing
//    block dirty (its newer data goes down with this level's writeback). Each removal goes to
//    the host's invalidation sink. If an inclusive level declines to allocate a read (bypass
//    predictor, policy, host `no_allocate`), the copies just filled above are back-invalidated
//    too (a dirty one is written back to this level), so inclusion holds after every access.
//    Must be a conventional cache (whole-line blocks).
//  * exclusive (relative to the level directly above): a demand lookup here never allocates
//    (it is issued with `no_allocate`, so its misses show as `host_no_allocate` bypasses in
//    this level's stats); a hit moves the block up when the level above allocated it (the
//    block leaves here, its dirtiness goes with it); every replacement victim of the level
//    above, clean or dirty, is inserted here as a `writeback` access (the clean ones are then
//    marked clean). This level and the one above must be conventional write-back caches with
//    equal lines, and two adjacent levels cannot both be exclusive (a victim would have no
//    single home). Why compile time: the rules are `if constexpr` branches, no enum switch on
//    the per-access path, and the combinations that cannot work fail with a static_assert.
// Writes. Each cache's write policy is honoured: a write-allocate fill is sent down as a load
//  (read for ownership; a store that allocates dirties only its own level); a store that a
//  level writes through, write-evicts, or declines goes down as a store of its bytes; dirty
//  victims go down as `writeback` accesses, which write-back levels allocate without fetching,
//  and their victims cascade. A bypassed miss goes on down; a bypassed writeback goes on down.
// Order. At every level, memory included, the demand is looked up first and then the blocks
//  the level above evicted for this access arrive (writebacks, or victims of an exclusive
//  level); only then does the demand go further down. So the miss goes first, as from a write
//  buffer (at memory: the read, then the writebacks it caused), an exclusive level swaps (the
//  hit moves up before the victim takes its place), and no block is in flight when an
//  inclusive level further down back-invalidates — the rule that keeps inclusion exact when a
//  non-inclusive level sits between (a victim still on its way to it would otherwise escape
//  the back-invalidation and be allocated there after its line left the inclusive level).
//  Blocks that leave while a writeback is being placed go down at once.
// Served level. `served_by` is the first level that hit (had every requested byte), or
//  `memory` (= depth). A write-through store that hits at level 0 is served by level 0 even
//  though it also goes down.
// Results. Per level: whether the demand looked it up, the instance, hit / partial / bypass /
//  blocks filled, and counts of this access's departures, writebacks sent, back-invalidations
//  suffered and an exclusive promotion. Requests leaving the last level (`memory_request`:
//  address, bytes, read/write, kind, requester, pc) and back-invalidations go, in order, to two
//  callables the host passes (template parameters, inlined): their number depends on the
//  instance counts, which are runtime values, so no fixed-capacity buffer bound exists for
//  every hierarchy; the result carries their counts. Writebacks carry the requester whose
//  access caused them (pc 0). Nothing on the access path allocates or calls virtually.
// Stats. Each instance keeps its own `cache_stats`; `stats<K>()` sums them, `stats<K>(i)` is
//  one instance's, `level_stats(k)` takes a runtime index. `counters(k)` adds what only the
//  hierarchy knows (accesses served, back-invalidations, promotions, victims received);
//  `memory_stats()` counts the requests that left. An exclusive level's `invalidations`
//  include its promotions.
// Maintenance. `flush()` empties every level top-down, writing dirty blocks down to memory;
//  `flush_level<K>()` flushes one level (a GPU L1 / L1.5 at a synchronisation event), its dirty
//  blocks written to the level below. Both remove one block at a time (nothing in flight).
// Engine hook. `basic_cache::set_dirty(location, bool)` (added for this component) moves
//  dirtiness with a block between levels (exclusive promotion, clean victim insertion).
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/cache/access_result.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

namespace memsub::cache {

/// How a level relates to the levels above it.
enum class inclusion : std::uint8_t { non_inclusive, inclusive, exclusive };

[[nodiscard]] constexpr std::string_view to_string(inclusion i) noexcept {
    switch (i) {
    case inclusion::non_inclusive:
        return "non_inclusive";
    case inclusion::inclusive:
        return "inclusive";
    case inclusion::exclusive:
        return "exclusive";
    }
    return "?";
}

/// Which instance of a level serves an access.
namespace route {

/// Returned by a router: the access does not look this level up (non-inclusive levels only).
inline constexpr std::uint32_t skip = 0xffff'ffffu;

/// One instance for every requester.
struct shared {
    [[nodiscard]] constexpr std::uint32_t operator()(const memsub::access&) const noexcept {
        return 0;
    }
};

/// One instance per group of `group` consecutive requesters (1 = private per requester).
struct private_per {
    std::uint32_t group = 1;
    [[nodiscard]] constexpr std::uint32_t operator()(const memsub::access& a) const noexcept {
        return a.requester / group;
    }
};

/// Address-interleaved slices: instance = (address / granule_bytes) mod slices.
struct interleaved {
    std::uint32_t granule_bytes = 64;
    std::uint32_t slices = 1;
    [[nodiscard]] constexpr std::uint32_t operator()(const memsub::access& a) const noexcept {
        return static_cast<std::uint32_t>((a.address.value / granule_bytes) % slices);
    }
};

} // namespace route

/// A router: `r(access)` noexcept -> instance index, or `route::skip`.
template <class R>
concept level_router = std::copy_constructible<R> && requires(const R& r, const memsub::access& a) {
    { r(a) }
    noexcept->std::convertible_to<std::uint32_t>;
};

namespace detail {
struct block_sink_archetype {
    void operator()(const evicted_block&) const noexcept {}
};
} // namespace detail

/// What the hierarchy needs of a cache type (every `basic_cache` has it).
template <class C>
concept level_cache = requires(C& c, const C& cc, const memsub::access& a, byte_address addr,
                               line_address line, block_location loc,
                               detail::block_sink_archetype sink) {
    typename C::result_type;
    { C::options } -> std::convertible_to<cache_options>;
    { C::variable_blocks } -> std::convertible_to<bool>;
    { c.access(a) } -> std::same_as<typename C::result_type>;
    { cc.find(addr) } -> std::same_as<std::optional<block_location>>;
    { cc.block(loc.set, loc.entry) } -> std::same_as<block_view>;
    { cc.line_of(addr) } -> std::same_as<line_address>;
    { cc.valid_entries(loc.set) } -> std::convertible_to<entry_mask>;
    {c.set_dirty(loc, true)};
    { c.invalidate(addr) } -> std::same_as<std::optional<evicted_block>>;
    {c.invalidate_line(line, sink)};
    { cc.stats() } -> std::convertible_to<const cache_stats&>;
    {cc.shape()};
};

/// One level: a cache type, its instances, the router choosing among them, its inclusion.
template <level_cache Cache, inclusion Inclusion = inclusion::non_inclusive,
          level_router Router = route::shared>
struct level {
    using cache_type = Cache;
    using router_type = Router;
    static constexpr inclusion inclusion_policy = Inclusion;

    /// The instances (at least one).
    std::vector<Cache> caches;
    [[no_unique_address]] Router route{};
};

/// A level of `instances` identical caches.
template <level_cache Cache, inclusion Inclusion = inclusion::non_inclusive,
          level_router Router = route::shared>
[[nodiscard]] level<Cache, Inclusion, Router>
make_level(std::uint32_t instances, const typename Cache::geometry_type& g, Router router = {},
           const typename Cache::policy_params& params = {},
           const typename Cache::bypass_params& bypass = {}) {
    level<Cache, Inclusion, Router> l{.caches = {}, .route = router};
    l.caches.reserve(instances);
    for (std::uint32_t i = 0; i < instances; ++i) l.caches.emplace_back(g, params, bypass);
    return l;
}

/// A request that leaves the last level.
struct memory_request {
    /// First byte (line-aligned for fills and writebacks).
    byte_address address{};
    std::uint32_t bytes = 0;
    bool is_write = false;
    /// The kind of access that left the last level: load / instruction_fetch / prefetch for
    /// reads (a write-allocate fill is a load); store for a write the last level wrote through
    /// or declined; writeback for a dirty block.
    access_kind kind = access_kind::load;
    /// The host access's requester (also for the writebacks it caused).
    std::uint32_t requester = 0;
    /// The host access's pc; 0 for writebacks.
    std::uint64_t pc = 0;

    friend bool operator==(const memory_request&, const memory_request&) = default;
};

/// A block an inclusive level removed from a level above it.
struct back_invalidation {
    /// The upper level and instance that lost the block.
    std::uint32_t level = 0;
    std::uint32_t instance = 0;
    /// The inclusive level whose departing block caused it.
    std::uint32_t by_level = 0;
    /// The removed block (reason `invalidated`); `dirty`: its data went down with the lower
    /// level's writeback.
    evicted_block block{};
};

/// What one level did for one host access.
struct level_outcome {
    /// The demand (or its fill request) reached this level and looked it up.
    bool looked_up = false;
    bool hit = false;
    /// A miss that found part of the request resident (variable-size blocks).
    bool partial = false;
    /// Exclusive level: the block that hit moved up.
    bool promoted = false;
    bypass_reason bypass = bypass_reason::none;
    /// The instance looked up, or `route::skip`.
    std::uint32_t instance = route::skip;
    std::uint32_t blocks_filled = 0;
    /// Blocks that left this level in this access's engine calls (demand, writebacks and
    /// victims it received): replacements, write-evicts, superseded blocks.
    std::uint32_t evicted = 0;
    /// Dirty blocks this level sent down.
    std::uint32_t writebacks = 0;
    /// Blocks an inclusive level below removed from this level.
    std::uint32_t back_invalidated = 0;
};

/// The outcome of one host access through a hierarchy of `Depth` levels.
template <std::size_t Depth>
struct hierarchy_result {
    /// `served_by` when no level hit.
    static constexpr std::uint32_t memory = static_cast<std::uint32_t>(Depth);
    /// The first level that hit, or `memory`.
    std::uint32_t served_by = memory;
    std::array<level_outcome, Depth> levels{};
    /// Requests that left the last level (each also handed to the memory sink).
    std::uint32_t memory_reads = 0;
    std::uint32_t memory_writes = 0;
    /// Blocks removed by inclusive levels (each also handed to the invalidation sink).
    std::uint32_t back_invalidations = 0;

    [[nodiscard]] bool from_memory() const noexcept { return served_by == memory; }
};

/// What only the hierarchy knows about a level (all instances together).
struct level_counters {
    /// Host accesses this level served (it was the first to hit).
    std::uint64_t served = 0;
    /// Blocks inclusive levels below removed from this level, and how many were dirty.
    std::uint64_t back_invalidated = 0;
    std::uint64_t back_invalidated_dirty = 0;
    /// Exclusive level: hits whose block moved up.
    std::uint64_t promoted = 0;
    /// Exclusive level: victims of the level above inserted here.
    std::uint64_t victims_received = 0;
};

/// The requests that left the last level.
struct memory_counters {
    /// Host accesses no level served.
    std::uint64_t served = 0;
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    /// Writes that were dirty-block writebacks (the others are written-through stores).
    std::uint64_t writebacks = 0;
    std::uint64_t bytes_read = 0;
    std::uint64_t bytes_written = 0;
};

/// A sink that drops what it is given (the default of the optional sinks).
struct discard_sink {
    template <class T>
    constexpr void operator()(const T&) const noexcept {}
};

/// Where the requests that leave the last level go: `sink(const memory_request&)`.
template <class S>
concept memory_sink = std::invocable<S&, const memory_request&>;
/// Where back-invalidations go: `sink(const back_invalidation&)`.
template <class S>
concept invalidation_sink = std::invocable<S&, const back_invalidation&>;

/// Adds `s` to `into`, field by field.
constexpr void add_to(cache_stats& into, const cache_stats& s) noexcept {
    static_assert(sizeof(cache_stats) == 248, "cache_stats changed: add the new field here");
    for (std::size_t k = 0; k < access_kind_count; ++k) {
        into.by_kind[k].accesses += s.by_kind[k].accesses;
        into.by_kind[k].misses += s.by_kind[k].misses;
    }
    into.partial_misses += s.partial_misses;
    for (std::size_t b = 0; b < bypass_reason_count; ++b)
        into.bypasses_by_reason[b] += s.bypasses_by_reason[b];
    into.fills += s.fills;
    into.evictions += s.evictions;
    into.writebacks += s.writebacks;
    into.invalidations += s.invalidations;
    for (std::size_t r = 0; r < eviction_reason_count; ++r)
        into.invalidations_by_reason[r] += s.invalidations_by_reason[r];
    into.resizes_refused += s.resizes_refused;
    into.specs_clamped += s.specs_clamped;
    into.resizes += s.resizes;
    into.bytes_fetched += s.bytes_fetched;
    into.bytes_written_back += s.bytes_written_back;
    into.bytes_written_down += s.bytes_written_down;
}

template <class L>
concept hierarchy_level = requires(L& l) {
    typename L::cache_type;
    typename L::router_type;
    { L::inclusion_policy } -> std::convertible_to<inclusion>;
    { l.caches } -> std::same_as<std::vector<typename L::cache_type>&>;
    { l.route } -> std::same_as<typename L::router_type&>;
};

/// Levels 0 (next to the requesters) … N−1 of any memsub cache types, in front of memory; see
/// the design notes at the top of this header.
template <hierarchy_level... Levels>
class hierarchy {
    static_assert(sizeof...(Levels) >= 1, "a hierarchy needs at least one level");

public:
    static constexpr std::size_t depth = sizeof...(Levels);
    /// The "level" index of memory (`served_by` when no level hit).
    static constexpr std::uint32_t memory_level = static_cast<std::uint32_t>(depth);
    using result_type = hierarchy_result<depth>;
    template <std::size_t K>
    using level_type = std::tuple_element_t<K, std::tuple<Levels...>>;
    template <std::size_t K>
    using cache_type = typename level_type<K>::cache_type;

    /// `requesters` = the number of requester ids the host uses (0 … requesters − 1). Throws
    /// `config_error` for an empty level, too few private instances, a line that shrinks
    /// downward, an exclusive level whose line differs from the one above.
    explicit hierarchy(std::uint32_t requesters, Levels... levels)
        : requesters_(requesters)
        , levels_(std::move(levels)...) {
        static_assert(all_levels_valid());
        memsub::require(requesters >= 1, component, "requesters", requesters, "must be >= 1");
        validate(std::make_index_sequence<depth>{});
    }

    // ---------------------------------------------------------------- accesses

    /// Runs one host access. `memory(const memory_request&)` receives the requests that leave
    /// the last level, `invalidated(const back_invalidation&)` the back-invalidations, each in
    /// order; both default to dropping them.
    template <memory_sink MemorySink = discard_sink,
              invalidation_sink InvalidationSink = discard_sink>
    result_type
    access(const memsub::access& a, MemorySink&& memory = MemorySink{},
           InvalidationSink&& invalidated =
               InvalidationSink{}) noexcept(nothrow_sinks<MemorySink, InvalidationSink>) {
        return run(a, nullptr, memory, invalidated);
    }

    /// Runs one host access whose level-0 miss inserts blocks of the shape `spec` (a
    /// variable-block level 0 whose host sizes blocks itself, e.g. by compressing them; a
    /// level 0 with its own line-size predictor, such as ID-Cache, takes `access(a)`); lower
    /// levels insert whole lines.
    template <memory_sink MemorySink = discard_sink,
              invalidation_sink InvalidationSink = discard_sink>
    result_type
    access(const memsub::access& a, block_spec spec, MemorySink&& memory = MemorySink{},
           InvalidationSink&& invalidated =
               InvalidationSink{}) noexcept(nothrow_sinks<MemorySink, InvalidationSink>) {
        static_assert(cache_type<0>::variable_blocks,
                      "hierarchy: access(a, block_spec) needs a variable-block level 0");
        return run(a, &spec, memory, invalidated);
    }

    // ---------------------------------------------------------------- maintenance

    /// Empties every level, top-down; dirty blocks go down and finally to `memory`. Returns
    /// the number of blocks removed by the flushes themselves. A cold path.
    template <class MemorySink = discard_sink, class InvalidationSink = discard_sink>
    std::uint64_t flush(MemorySink&& memory = MemorySink{},
                        InvalidationSink&& invalidated = InvalidationSink{}) {
        std::uint64_t n = 0;
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            ((n += flush_level<K>(memory, invalidated)), ...);
        }
        (std::make_index_sequence<depth>{});
        return n;
    }

    /// Empties every instance of level `K`; its dirty blocks are written to the level below
    /// (an inclusive level also back-invalidates the levels above). Returns the blocks removed
    /// from level `K`. A cold path.
    template <std::size_t K, class MemorySink = discard_sink, class InvalidationSink = discard_sink>
    std::uint64_t flush_level(MemorySink&& memory = MemorySink{},
                              InvalidationSink&& invalidated = InvalidationSink{}) {
        static_assert(K < depth);
        result_type scratch;
        context<std::remove_reference_t<MemorySink>, std::remove_reference_t<InvalidationSink>> x{
            scratch, memory, invalidated, 0};
        auto& lv = std::get<K>(levels_);
        std::uint64_t n = 0;
        // One block at a time, so none is in flight when its writeback makes an inclusive
        // level below back-invalidate (which may remove blocks of this level too).
        for (std::uint32_t i = 0; i < lv.caches.size(); ++i) {
            auto& c = lv.caches[i];
            const std::uint32_t sets = static_cast<geometry>(c.shape()).sets;
            for (std::uint32_t s = 0; s < sets; ++s) {
                for (entry_mask m = c.valid_entries(set_index{s}); m != 0;
                     m = c.valid_entries(set_index{s})) {
                    const block_view v = c.block(set_index{s}, lowest_entry(m));
                    const std::optional<evicted_block> b = c.invalidate(v.address);
                    MEMSUB_ASSERT(b.has_value());
                    ++n;
                    x.requester = owner<K>(i, b->address);
                    bool dirty = b->dirty;
                    if constexpr (level_type<K>::inclusion_policy == inclusion::inclusive)
                        dirty |= back_invalidate<K>(x, i, b->line);
                    if (dirty) write_down<K + 1>(x, b->address, b->bytes);
                }
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- inspection

    [[nodiscard]] std::uint32_t requesters() const noexcept { return requesters_; }

    template <std::size_t K>
    [[nodiscard]] level_type<K>& level_at() noexcept {
        return std::get<K>(levels_);
    }
    template <std::size_t K>
    [[nodiscard]] const level_type<K>& level_at() const noexcept {
        return std::get<K>(levels_);
    }
    template <std::size_t K>
    [[nodiscard]] std::uint32_t instances() const noexcept {
        return static_cast<std::uint32_t>(std::get<K>(levels_).caches.size());
    }
    template <std::size_t K>
    [[nodiscard]] cache_type<K>& cache(std::uint32_t instance) noexcept {
        return std::get<K>(levels_).caches[instance];
    }
    template <std::size_t K>
    [[nodiscard]] const cache_type<K>& cache(std::uint32_t instance) const noexcept {
        return std::get<K>(levels_).caches[instance];
    }
    /// Line size of level `k` in bytes.
    [[nodiscard]] std::uint32_t line_bytes(std::size_t k) const noexcept { return line_bytes_[k]; }

    /// Level `K`'s cache stats summed over its instances.
    template <std::size_t K>
    [[nodiscard]] cache_stats stats() const noexcept {
        cache_stats s{};
        for (const auto& c : std::get<K>(levels_).caches) add_to(s, c.stats());
        return s;
    }
    /// One instance's cache stats.
    template <std::size_t K>
    [[nodiscard]] const cache_stats& stats(std::uint32_t instance) const noexcept {
        return std::get<K>(levels_).caches[instance].stats();
    }
    /// Level `k`'s cache stats summed over its instances (runtime index).
    [[nodiscard]] cache_stats level_stats(std::size_t k) const noexcept {
        cache_stats s{};
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            ((K == k ? static_cast<void>(s = stats<K>()) : static_cast<void>(0)), ...);
        }
        (std::make_index_sequence<depth>{});
        return s;
    }
    [[nodiscard]] const level_counters& counters(std::size_t k) const noexcept {
        return counters_[k];
    }
    [[nodiscard]] const memory_counters& memory_stats() const noexcept { return memory_; }

    /// Zeroes every cache's stats and the hierarchy's counters.
    void reset_stats() noexcept {
        std::apply([](auto&... lv) { (reset_level(lv), ...); }, levels_);
        counters_ = {};
        memory_ = {};
    }

private:
    static constexpr std::string_view component = "memsub::cache::hierarchy";

    template <class M, class I>
    struct context {
        result_type& out;
        M& memory;
        I& invalidated;
        /// Requester of the accesses the hierarchy derives (fills, writebacks).
        std::uint32_t requester = 0;
        std::array<std::uint32_t, depth> instance{};
        /// Level k allocated the demand's line on this access.
        std::array<bool, depth> filled{};
    };

    template <std::size_t K>
    static constexpr std::size_t max_evictions = cache_type<K>::options.max_evictions();

    template <class M, class I>
    static constexpr bool nothrow_sinks = std::is_nothrow_invocable_v<M&, const memory_request&>&&
        std::is_nothrow_invocable_v<I&, const back_invalidation&>;

    // ------------------------------------------------------------ configuration checks

    template <std::size_t K>
    static consteval bool level_valid() {
        using L = level_type<K>;
        using C = typename L::cache_type;
        constexpr inclusion I = L::inclusion_policy;
        static_assert(K != 0 || I == inclusion::non_inclusive,
                      "hierarchy: level 0 has no level above it; it must be non_inclusive");
        if constexpr (I == inclusion::inclusive)
            static_assert(!C::variable_blocks,
                          "hierarchy: an inclusive level must be a conventional cache");
        if constexpr (I == inclusion::exclusive && K > 0) {
            using U = level_type<K - 1>;
            using UC = typename U::cache_type;
            static_assert(!C::variable_blocks && !UC::variable_blocks,
                          "hierarchy: an exclusive level and the level above it must be "
                          "conventional caches");
            static_assert(C::options.writes == write_policy::write_back &&
                              UC::options.writes == write_policy::write_back,
                          "hierarchy: an exclusive level and the level above it must be "
                          "write-back caches");
            static_assert(U::inclusion_policy != inclusion::exclusive,
                          "hierarchy: two adjacent levels cannot both be exclusive");
        }
        return true;
    }
    static consteval bool all_levels_valid() {
        return []<std::size_t... K>(std::index_sequence<K...>) {
            return (level_valid<K>() && ...);
        }
        (std::make_index_sequence<depth>{});
    }

    template <std::size_t... K>
    void validate(std::index_sequence<K...>) {
        (validate_level<K>(), ...);
    }

    template <std::size_t K>
    void validate_level() {
        using L = level_type<K>;
        const auto& lv = std::get<K>(levels_);
        const std::string where = "levels[" + std::to_string(K) + "]";
        if (lv.caches.empty())
            throw config_error(component, where + ".caches", "0", "a level needs >= 1 instance");
        const geometry g0 = static_cast<geometry>(lv.caches.front().shape());
        for (const auto& c : lv.caches)
            memsub::require(static_cast<geometry>(c.shape()).line_bytes == g0.line_bytes, component,
                            where + ".line_bytes", static_cast<geometry>(c.shape()).line_bytes,
                            "every instance of a level has the same line size");
        line_bytes_[K] = g0.line_bytes;
        line_shift_[K] = log2_exact(g0.line_bytes);
        segment_bytes_[K] = g0.segment_size();
        if constexpr (K > 0) {
            memsub::require(line_bytes_[K] >= line_bytes_[K - 1], component, where + ".line_bytes",
                            line_bytes_[K], "must be >= the line size of the level above");
            if constexpr (L::inclusion_policy == inclusion::exclusive)
                memsub::require(line_bytes_[K] == line_bytes_[K - 1], component,
                                where + ".line_bytes", line_bytes_[K],
                                "an exclusive level's line must equal the line of the "
                                "level above");
        }
        const auto n = static_cast<std::uint32_t>(lv.caches.size());
        if constexpr (std::same_as<typename L::router_type, route::private_per>) {
            memsub::require(lv.route.group >= 1, component, where + ".route.group", lv.route.group,
                            "must be >= 1");
            memsub::require(n >= (requesters_ + lv.route.group - 1) / lv.route.group, component,
                            where + ".caches", n,
                            "a private level needs ceil(requesters / group) instances");
        }
        if constexpr (std::same_as<typename L::router_type, route::interleaved>) {
            memsub::require(lv.route.granule_bytes >= 1, component, where + ".route.granule_bytes",
                            lv.route.granule_bytes, "must be >= 1");
            memsub::require(lv.route.slices >= 1 && lv.route.slices <= n, component,
                            where + ".route.slices", lv.route.slices, "must be in 1..instances");
        }
    }

    // ------------------------------------------------------------ the access path

    template <class M, class I>
    result_type run(const memsub::access& a, const block_spec* spec, M& memory, I& invalidated) {
        result_type out;
        context<M, I> x{out, memory, invalidated, a.requester};
        demand<0>(x, a, spec, nothing);
        if (out.served_by == memory_level) ++memory_.served;
        return out;
    }

    template <class Ctx>
    void emit(Ctx& x, const memory_request& q) {
        if (q.is_write) {
            ++x.out.memory_writes;
            ++memory_.writes;
            memory_.writebacks += q.kind == access_kind::writeback;
            memory_.bytes_written += q.bytes;
        } else {
            ++x.out.memory_reads;
            ++memory_.reads;
            memory_.bytes_read += q.bytes;
        }
        x.memory(q);
    }

    template <std::size_t K>
    static typename cache_type<K>::result_type lookup(cache_type<K>& c, const memsub::access& a,
                                                      const block_spec* spec) noexcept {
        if constexpr (K == 0 && cache_type<0>::variable_blocks)
            if (spec != nullptr) return c.access(a, *spec);
        return c.access(a);
    }

    /// Level `K` receives the demand (the host access, or the request a level above sends);
    /// `arrive()` then delivers the blocks that left level K − 1 for this demand to level K.
    template <std::size_t K, class Ctx, class Arrivals>
    void demand(Ctx& x, const memsub::access& a, const block_spec* spec, Arrivals&& arrive) {
        if constexpr (K == depth) {
            emit(x, memory_request{.address = a.address,
                                   .bytes = a.size,
                                   .is_write = is_write(a.kind),
                                   .kind = a.kind,
                                   .requester = a.requester,
                                   .pc = a.pc});
            arrive();
        } else {
            constexpr inclusion I = level_type<K>::inclusion_policy;
            auto& lv = std::get<K>(levels_);
            level_outcome& o = x.out.levels[K];
            const std::uint32_t i = lv.route(a);
            if (i == route::skip) {
                MEMSUB_ASSERT(skippable<K>());
                arrive(); // the departing blocks route themselves
                demand<K + 1>(x, a, nullptr, nothing);
                return;
            }
            MEMSUB_ASSERT(i < lv.caches.size());
            auto& c = lv.caches[i];
            memsub::access here = a;
            if constexpr (I == inclusion::exclusive) here.hints.no_allocate = true;
            const auto r = lookup<K>(c, here, spec);
            o.looked_up = true;
            o.instance = i;
            o.hit = r.hit;
            o.partial = r.partial;
            o.bypass = r.bypass;
            o.blocks_filled = r.blocks_filled;
            x.instance[K] = i;
            x.filled[K] = r.filled();
            if (r.hit && x.out.served_by == memory_level) {
                x.out.served_by = static_cast<std::uint32_t>(K);
                ++counters_[K].served;
            }
            if constexpr (I == inclusion::exclusive)
                if (r.hit && x.filled[K - 1]) promote<K>(x, c, r, a);
            std::array<bool, max_evictions<K>> dirty{};
            settle<K>(x, i, r, dirty);
            arrive();
            const auto leave = [&] { release<K>(x, r, dirty); };
            if (r.bytes_fetched > 0) {
                demand<K + 1>(x, fill_request<K>(a, r, c, spec), nullptr, leave);
                // A read-modify-write that filled a write-through level: its write goes too.
                if (r.filled() && r.bytes_written_down > 0)
                    demand<K + 1>(x, written_down<K>(a, r.bytes_written_down, c), nullptr, nothing);
            } else if (r.bytes_written_down > 0)
                demand<K + 1>(x, written_down<K>(a, r.bytes_written_down, c), nullptr, leave);
            else
                leave();
            if constexpr (I == inclusion::inclusive) {
                // A declined read: the copies just filled above go too (inclusion holds).
                if (r.bypassed() && r.bytes_fetched > 0) {
                    const line_address line = c.line_of(a.address);
                    if (back_invalidate<K>(x, i, line))
                        write_down<K>(x, byte_address{line.value << line_shift_[K]},
                                      line_bytes_[K]);
                }
            }
        }
    }

    static constexpr auto nothing = [] {};

    /// A skipped level must not be inclusive or exclusive, nor sit above an exclusive level.
    template <std::size_t K>
    static constexpr bool skippable() noexcept {
        return inclusion_at<K>() == inclusion::non_inclusive &&
               inclusion_at<K + 1>() != inclusion::exclusive;
    }

    /// Level `K`'s inclusion; memory (K = depth) counts as non-inclusive.
    template <std::size_t K>
    static constexpr inclusion inclusion_at() noexcept {
        if constexpr (K < depth)
            return level_type<K>::inclusion_policy;
        else
            return inclusion::non_inclusive;
    }

    /// What level `K` asks of the level below after a fill or a bypassed read.
    template <std::size_t K>
    memsub::access fill_request(const memsub::access& a,
                                const typename cache_type<K>::result_type& r,
                                const cache_type<K>& c, const block_spec* spec) const noexcept {
        if (!r.filled()) return passed_on<K>(a, r.bytes_fetched, c);
        memsub::access d = a;
        if (d.kind == access_kind::store) d.kind = access_kind::load; // read for ownership
        d.read_modify_write = false; // a fill reads; the write stays in the level above
        const std::uint64_t base = c.line_of(a.address).value << line_shift_[K];
        if constexpr (cache_type<K>::variable_blocks) {
            // The new blocks, first to last (span-aligned pieces holding missing segments).
            const std::uint32_t seg = segment_bytes_[K];
            const std::uint32_t span =
                K == 0 && spec != nullptr ? spec->span_segments : line_bytes_[K] / seg;
            const std::uint64_t m = r.missing_segments;
            const auto first = static_cast<std::uint32_t>(std::countr_zero(m)) / span * span;
            const auto last =
                static_cast<std::uint32_t>(63 - std::countl_zero(m)) / span * span + span;
            d.address = byte_address{base + std::uint64_t{first} * seg};
            d.size = (last - first) * seg;
        } else {
            d.address = byte_address{base};
            d.size = line_bytes_[K];
        }
        return d;
    }

    /// The access as level `K` passes it on (a bypassed read, a written-through store):
    /// `bytes` of it, from its address (from its line's start when it asked for the whole line).
    template <std::size_t K>
    memsub::access passed_on(const memsub::access& a, std::uint32_t bytes,
                             const cache_type<K>& c) const noexcept {
        memsub::access d = a;
        if (a.size == 0) d.address = byte_address{c.line_of(a.address).value << line_shift_[K]};
        d.size = bytes;
        return d;
    }

    /// The write a level sends down when it wrote through: a read-modify-write did its read
    /// here (a hit, or a fill sent down first), so the level below sees only the write (a
    /// store).
    template <std::size_t K>
    memsub::access written_down(const memsub::access& a, std::uint32_t bytes,
                                const cache_type<K>& c) const noexcept {
        memsub::access d = passed_on<K>(a, bytes, c);
        if (d.read_modify_write) {
            d.read_modify_write = false;
            d.kind = access_kind::store;
        }
        return d;
    }

    /// The blocks that left level `K` in one engine call: counted, and (inclusive level)
    /// back-invalidated above at once; `dirty[j]` says whether block j must be written down.
    template <std::size_t K, class Ctx, class R>
    void settle(Ctx& x, std::uint32_t i, const R& r, std::array<bool, max_evictions<K>>& dirty) {
        x.out.levels[K].evicted += static_cast<std::uint32_t>(r.evictions.size());
        for (std::size_t j = 0; j < r.evictions.size(); ++j) {
            dirty[j] = r.evictions[j].dirty;
            if constexpr (level_type<K>::inclusion_policy == inclusion::inclusive)
                dirty[j] |= back_invalidate<K>(x, i, r.evictions[j].line);
        }
    }

    /// The blocks that left level `K` go down: into an exclusive level below (every
    /// replacement victim), else as writebacks (dirty ones).
    template <std::size_t K, class Ctx, class R>
    void release(Ctx& x, const R& r, const std::array<bool, max_evictions<K>>& dirty) {
        for (std::size_t j = 0; j < r.evictions.size(); ++j) {
            const evicted_block& e = r.evictions[j];
            x.out.levels[K].writebacks += dirty[j];
            if constexpr (inclusion_at<K + 1>() == inclusion::exclusive) {
                if (e.reason == eviction_reason::replacement) {
                    insert_victim<K + 1>(x, e.address, e.bytes, dirty[j]);
                    continue;
                }
            }
            if (dirty[j]) write_down<K + 1>(x, e.address, e.bytes);
        }
    }

    /// Level `K` receives a dirty block from above.
    template <std::size_t K, class Ctx>
    void write_down(Ctx& x, byte_address addr, std::uint32_t bytes) {
        if constexpr (K == depth) {
            emit(x, memory_request{.address = addr,
                                   .bytes = bytes,
                                   .is_write = true,
                                   .kind = access_kind::writeback,
                                   .requester = x.requester,
                                   .pc = 0});
        } else if constexpr (level_type<K>::inclusion_policy == inclusion::exclusive) {
            insert_victim<K>(x, addr, bytes, true);
        } else {
            const memsub::access a{.address = addr,
                                   .kind = access_kind::writeback,
                                   .requester = x.requester,
                                   .size = bytes};
            auto& lv = std::get<K>(levels_);
            const std::uint32_t i = lv.route(a);
            if (i == route::skip) {
                write_down<K + 1>(x, addr, bytes);
                return;
            }
            MEMSUB_ASSERT(i < lv.caches.size());
            const auto r = lv.caches[i].access(a);
            std::array<bool, max_evictions<K>> dirty{};
            settle<K>(x, i, r, dirty);
            if (r.bytes_written_down > 0) write_down<K + 1>(x, addr, r.bytes_written_down);
            release<K>(x, r, dirty);
        }
    }

    /// Exclusive level `K` receives a block the level above evicted (clean or dirty).
    template <std::size_t K, class Ctx>
    void insert_victim(Ctx& x, byte_address addr, std::uint32_t bytes, bool dirty) {
        const memsub::access a{.address = addr,
                               .kind = access_kind::writeback,
                               .requester = x.requester,
                               .size = bytes};
        auto& lv = std::get<K>(levels_);
        const std::uint32_t i = lv.route(a);
        MEMSUB_ASSERT(i < lv.caches.size()); // route::skip included
        auto& c = lv.caches[i];
        const auto before = c.find(addr);
        const bool was_dirty = before.has_value() && c.block(before->set, before->entry).dirty;
        const auto r = c.access(a);
        ++counters_[K].victims_received;
        std::array<bool, max_evictions<K>> gone{};
        settle<K>(x, i, r, gone);
        if (r.hit || r.filled())
            c.set_dirty(block_location{r.set, r.entry}, dirty || was_dirty);
        else if (dirty)
            write_down<K + 1>(x, addr, bytes); // declined: the data goes on down
        release<K>(x, r, gone);
    }

    /// Exclusive level `K` hit a block the level above just allocated: the block moves up.
    template <std::size_t K, class Ctx, class R>
    void promote(Ctx& x, cache_type<K>& c, const R& r, const memsub::access& a) {
        const block_location at{r.set, r.entry};
        const bool dirty = c.block(at.set, at.entry).dirty;
        c.set_dirty(at, false); // its data moves up, it is not written back
        c.invalidate(a.address);
        ++counters_[K].promoted;
        x.out.levels[K].promoted = true;
        if (dirty) {
            auto& up = std::get<K - 1>(levels_).caches[x.instance[K - 1]];
            const auto held = up.find(a.address);
            MEMSUB_ASSERT(held.has_value());
            if (held) up.set_dirty(*held, true);
        }
    }

    /// Inclusive level `K`, instance `i`, lost `line`: remove it from every upper instance
    /// that can hold it. Returns whether any removed copy was dirty.
    template <std::size_t K, class Ctx>
    bool back_invalidate(Ctx& x, std::uint32_t i, line_address line) {
        const std::uint64_t base = line.value << line_shift_[K];
        bool dirty = false;
        [&]<std::size_t... U>(std::index_sequence<U...>) {
            ((dirty |= invalidate_above<U, K>(x, i, base)), ...);
        }
        (std::make_index_sequence<K>{});
        return dirty;
    }

    template <std::size_t U, std::size_t K, class Ctx>
    bool invalidate_above(Ctx& x, std::uint32_t i, std::uint64_t base) {
        auto& up = std::get<U>(levels_);
        const auto& low = std::get<K>(levels_);
        bool dirty = false;
        for (std::uint32_t off = 0; off < line_bytes_[K]; off += line_bytes_[U]) {
            const byte_address addr{base + off};
            std::uint32_t last = route::skip;
            for (std::uint32_t q = 0; q < requesters_; ++q) {
                if (low.route(memsub::access{.address = byte_address{base}, .requester = q}) != i)
                    continue;
                const std::uint32_t u = up.route(memsub::access{.address = addr, .requester = q});
                if (u == route::skip || u == last) continue;
                MEMSUB_ASSERT(u < up.caches.size());
                last = u;
                up.caches[u].invalidate_line(
                    line_address{addr.value >> line_shift_[U]}, [&](const evicted_block& b) {
                        dirty |= b.dirty;
                        ++x.out.levels[U].back_invalidated;
                        ++x.out.back_invalidations;
                        ++counters_[U].back_invalidated;
                        counters_[U].back_invalidated_dirty += b.dirty;
                        x.invalidated(back_invalidation{.level = static_cast<std::uint32_t>(U),
                                                        .instance = u,
                                                        .by_level = static_cast<std::uint32_t>(K),
                                                        .block = b});
                    });
            }
        }
        return dirty;
    }

    /// A requester whose accesses to `addr` reach instance `i` of level `K` (0 if none).
    template <std::size_t K>
    std::uint32_t owner(std::uint32_t i, byte_address addr) const noexcept {
        const auto& lv = std::get<K>(levels_);
        for (std::uint32_t q = 0; q < requesters_; ++q)
            if (lv.route(memsub::access{.address = addr, .requester = q}) == i) return q;
        return 0;
    }

    template <class L>
    static void reset_level(L& lv) noexcept {
        for (auto& c : lv.caches) c.reset_stats();
    }

    std::uint32_t requesters_;
    std::tuple<Levels...> levels_;
    std::array<std::uint32_t, depth> line_bytes_{};
    std::array<std::uint32_t, depth> line_shift_{};
    std::array<std::uint32_t, depth> segment_bytes_{};
    std::array<level_counters, depth> counters_{};
    memory_counters memory_{};
};

} // namespace memsub::cache
