// memsub — the set engine: one engine for conventional, variable-line and compressed caches.
//
// A set has tag entries and a data budget in segments (docs/design.md, 'The set engine'). A
// resident block is (tag, address span, stored size in segments) plus the replacement policy's
// per-entry state, which the policy keeps itself. Insertion needs a free tag entry and enough free
// segments; the policy chooses victims among the valid entries until both exist, and every
// departing block is reported to the caller and to the policy.
//
// Organisations:
//  * conventional (`cache_options::max_block_segments == 1`): tags = ways, a segment is a line,
//    one block = the whole line. Lookup is a tag compare; this is the fast path.
//  * variable-size blocks (`max_block_segments > 1`): a block covers an aligned power-of-two
//    number of segments of one line (ID-Cache ALSI: 32/64/128B of a 128B line) or a whole line
//    stored in fewer segments (a compressed line). The data budget is a count of free segments:
//    a set is assumed compacted, as in Amoeba-Cache and the compressed caches it models, so there
//    is no fragmentation (documented deviation from Amoeba, which also charges tags to data).
//
// Requests (variable-size blocks). An access requests the bytes [address, address + size) of one
// line (size 0 = the whole line; bytes past the line's end are ignored: `access_spanning` runs a
// line-crossing reference over each of its lines, counted as cachegrind counts it), or, when
// `access::sector_mask` is not 0, the masked segments of its line, each whole (a GPU line request's
// touched sectors, which need not be one run; conventional caches ignore the mask: a line is their
// only segment, so the Fermi L1 hits iff the line is resident and fetches it whole). It hits when
// every requested segment is resident. Otherwise it is a miss, "partial" when some requested
// segments are resident (Decision, docs/mechanisms/id_cache.md, 'ALSI'): the resident blocks it
// touches served part of it and count as used, and only the missing segments are fetched, in
// aligned blocks of the span the host asks for — one block per span-sized piece that holds a
// missing requested segment. A smaller resident block inside a new block is superseded: its data
// merges into the new block (its dirtiness moves there, nothing is written back).
//
// Allocation (bypass/concept.hpp, Q1): on a miss the host's `no_allocate`, the write policy's
// no-allocate rule, the cache's bypass predictor (the `Bypass` policy, `bypass::never` by
// default, asked on every allocating miss, partial ones included) and the replacement policy's
// optional O3 decide in that order; `access_result::bypass` names who declined.
//
// Compressed blocks. `access(a, spec)` stores each new block in `spec.stored_segments` segments
// with the user's `spec.payload` (a compression mode and encoding, a code-book generation…),
// returned with the block view, the hit result and the evicted block. A store hit with a spec
// (write-back and write-through caches) gives every touched block of the spec's span the spec's
// stored size and payload: a block that grows takes room from other blocks, chosen by the
// replacement policy (P8; the growing block itself may be chosen, and then leaves dirty:
// `access_result::hit_block_left`), a block that shrinks frees segments; a touched block of
// another span is left as it is (`access_result::resize_refused`). Without a spec a store hit
// keeps the block's size. `access(a, spec_of)` takes the spec from a callable instead, called
// only when the engine stores data: once for an access that fills (after the host, the write
// rule and the bypass predictor admitted it) and once for a store hit that resizes; never for
// a load hit, a bypassed miss or a write-evict store. A compressed cache's host compresses the
// line there (from `access::data`), not on every access.
//
// Tag-only blocks. A spec may store a block in 0 segments: it takes a tag and no data (an
// all-zero line kept as its tag; a recently evicted tag kept for a policy's bookkeeping, marked
// as such by the host's payload). It is resident like any block (a request for its bytes hits;
// the host reads the payload to know what the hit means). Room for data is never made by
// evicting a tag-only block, which frees none (P4, P8); a missing tag is, as for any block.
//
// Block specs. The cache has one storage rule: its geometry's segment size. A host sizes a
// compressed block with `segments_for_bits` / `segments_for_bytes` (rounded up to segments).
// A spec the engine cannot store as given is corrected, in every build, and counted in
// `cache_stats::specs_clamped`: a span that is not a power of two up to the line's segments
// becomes the whole line, and stored segments beyond the span become the span (the block is
// stored raw, as a compressor stores a line that saves nothing).
// Decision: correct and count rather than throw. The spec arrives on the access path, which is
// noexcept and must not throw; a raw block is what a compressed cache stores for a line that
// does not compress, so the outcome is one the host already models, and the count makes a
// host's sizing bug visible (a test can require it to stay 0). Throwing a usage error from a
// separate check was considered: it would need a throwing access path or a second, checked
// entry point that hosts could forget to use.
//
// Writes (cache_options::writes):
//  * write_back    — write-allocate (a store miss fetches the line), stores mark blocks dirty,
//                    dirty blocks are reported when they leave; a `writeback` access from the
//                    level above allocates without fetching (it overwrites the whole block).
//  * write_through — stores update a resident block and always go to the next level; store
//                    misses do not allocate. Blocks are never dirty.
//  * write_evict   — GPU L1 style (Fermi): a store invalidates the blocks it touches, every
//                    store goes to the next level, store misses do not allocate.
// A `read_modify_write` access is its read (one access of its kind, allocated as a read) and then
// the write as a store hit on the bytes the read left resident (see "read-modify-write" below).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/never.hpp>
#include <memsub/cache/access_result.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/aligned_allocator.hpp>
#include <memsub/core/bits.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::cache {

enum class write_policy : std::uint8_t { write_back, write_through, write_evict };

/// Compile-time options of a cache (a structural type, passed as a template argument).
struct cache_options {
    write_policy writes = write_policy::write_back;
    /// The largest block, in data segments. 1 = conventional cache (one block = one line);
    /// larger values enable variable-size blocks and must be at least the segments per line.
    std::uint32_t max_block_segments = 1;
    /// Bits of the user's payload each tag entry holds in hardware (e.g. LATTE-CC's 2 mode + 4
    /// encoding bits, [Dissertation] §4.3.1), counted per entry by `storage_bits()`.
    /// Variable-block caches only (a conventional cache has no payload); at most 32.
    std::uint32_t payload_bits = 0;
    /// Variable-block caches: a fill of one whole-line block into a line with no resident
    /// block (every fill of a compressed cache storing whole lines) takes a dedicated path,
    /// which does only what such a fill needs. false sends every fill through the general
    /// path; each access result and statistic is the same either way (a reference for tests).
    bool whole_line_fill_path = true;

    [[nodiscard]] constexpr bool variable_blocks() const noexcept { return max_block_segments > 1; }
    /// Upper bound of blocks one access can remove: the line's blocks it supersedes or
    /// write-evicts and the new blocks together (each holds a segment of the line the others do
    /// not: ≤ segments per line), plus victims for room: one per missing tag (≤ new blocks) and
    /// one per missing segment (≤ segments per line, since a victim chosen for segments alone
    /// frees at least one: tag-only blocks are not eligible then), plus one.
    [[nodiscard]] constexpr std::size_t max_evictions() const noexcept {
        return variable_blocks() ? 2 * std::size_t{max_block_segments} + 1 : 1;
    }
};

/// Shape of the variable-size blocks to insert on a miss.
struct block_spec {
    /// Address span of each block in segments: a power of two ≤ segments per line; a block is
    /// an aligned span of the line.
    std::uint32_t span_segments = 1;
    /// Data segments each block occupies: ≤ span for a compressed block, = span otherwise, 0
    /// for a tag-only block (see "Tag-only blocks"). More than the span is stored as the span
    /// (see "Block specs").
    std::uint32_t stored_segments = 1;
    /// The user's payload for each block (e.g. compression mode and encoding bits, or the
    /// code-book generation the line was compressed with); returned with the block.
    std::uint32_t payload = 0;
};

/// Where a resident block lives.
struct block_location {
    set_index set{};
    entry_index entry{};
    friend bool operator==(const block_location&, const block_location&) = default;
};

/// Read-only view of one tag entry, for inspection and tests.
struct block_view {
    bool valid = false;
    byte_address address{};
    std::uint32_t bytes = 0;
    std::uint32_t stored_segments = 0;
    bool dirty = false;
    bool reused = false;
    /// Segments of the block (bit 0 = its first) some access requested while it was resident.
    std::uint64_t touched_segments = 0;
    /// The user's payload (`block_spec::payload`); 0 in a conventional cache.
    std::uint32_t payload = 0;
};

/// A callable that gives the block spec of an access when the engine needs it (a compressed
/// cache's compressor, reading `access::data`). It must not throw: the access is noexcept.
template <class F>
concept block_spec_source = std::invocable<F&, const memsub::access&> &&
    std::convertible_to<std::invoke_result_t<F&, const memsub::access&>, block_spec>;

namespace detail {

/// Geometry-derived constants of a runtime-shaped cache. Loops over a set's entries (the
/// variable-block path, maintenance) copy them into a local first: byte and vector stores to
/// metadata may alias any member, so reading them through `this` would reload them after every
/// store. The conventional access path reads them where it uses them instead: there each is
/// used once or twice, and a local copy made at the start stays live across the whole access,
/// which costs spill stores and reloads (measured: 10 instructions per access on a 16-way LRU).
struct runtime_layout {
    std::uint32_t line_shift = 0;
    std::uint32_t segment_shift = 0;
    std::uint32_t entries = 0;
    std::uint32_t header_shift = 0; ///< log2 of the 64-byte header blocks per set (1 or 2)
    std::uint32_t fingerprint_stride = 0;
    std::uint64_t set_mask = 0;
    entry_mask all_entries = 0;
};

/// The same constants for a `fixed_geometry`: all folded at compile time.
template <class G, std::uint32_t HeaderBlocks>
struct fixed_layout {
    static constexpr std::uint32_t line_shift = log2_exact(G::line_bytes);
    static constexpr std::uint32_t segment_shift = log2_exact(G::segment_bytes);
    static constexpr std::uint32_t entries = G::entries_per_set();
    static constexpr std::uint32_t header_shift = log2_exact(HeaderBlocks);
    static constexpr std::uint32_t fingerprint_stride = padded_row_bytes(entries);
    static constexpr std::uint64_t set_mask = G::sets - 1;
    static constexpr entry_mask all_entries = low_bits_mask(entries);
};

/// Entries per set of a compile-time geometry (fixed_geometry), 0 for the runtime `geometry`.
template <class Geometry>
consteval std::uint32_t compile_time_entries() {
    if constexpr (std::same_as<Geometry, geometry>)
        return 0;
    else
        return static_cast<geometry>(Geometry{}).entries_per_set();
}

} // namespace detail

template <replacement::replacement_policy Policy, cache_options Options = cache_options{},
          geometry_like Geometry = geometry, bypass::bypass_predictor Bypass = bypass::never>
class basic_cache {
public:
    /// The policy the cache runs: `Policy`, or its compile-time-shaped form (O6) when the
    /// geometry is a compile-time constant.
    using policy_type =
        replacement::shaped_policy_t<Policy, detail::compile_time_entries<Geometry>()>;
    static_assert(replacement::replacement_policy<policy_type>);
    using policy_params = typename Policy::params;
    using bypass_type = Bypass;
    using bypass_params = typename Bypass::params;
    using geometry_type = Geometry;
    using result_type = access_result<Options.max_evictions()>;
    static constexpr cache_options options = Options;
    static constexpr bool variable_blocks = Options.variable_blocks();

    /// Builds an empty cache; throws `config_error` for a bad geometry or params.
    explicit basic_cache(const Geometry& g = Geometry{}, const policy_params& params = {},
                         const bypass_params& bypass = {})
        : geometry_(validated(g))
        , policy_(static_cast<geometry>(g), params)
        , bypass_(static_cast<geometry>(g), bypass)
        , layout_(make_layout(g))
        , tags_(g.total_entries(), 0)
        , headers_(std::size_t{g.sets} * header_blocks(g.entries_per_set())) {
        const std::uint32_t blocks = header_blocks(g.entries_per_set());
        for (std::uint32_t s = 0; s < g.sets; ++s)
            ::new (static_cast<void*>(&headers_[std::size_t{s} * blocks])) set_state{};
        // O5: the policy's per-set row goes into the header's spare bytes when it fits there
        // (a 16-way set: 32 B state + 16 fingerprints + 16 B row = one 64-byte line).
        if constexpr (replacement::places_rows<policy_type>) {
            const std::size_t offset = policy_row_offset(g.entries_per_set());
            if (offset + policy_.row_bytes() <= std::size_t{64} * blocks)
                policy_.place_rows(reinterpret_cast<std::byte*>(headers_.data()) + offset,
                                   std::size_t{64} * blocks);
        }
        if constexpr (variable_blocks) {
            line_segments_.assign(g.total_entries(), 0);
            stored_.assign(g.total_entries(), 0);
            touched_.assign(g.total_entries(), 0);
            payload_.assign(g.total_entries(), 0);
        }
    }

    // ---------------------------------------------------------------- accesses

    /// Performs one access. In a conventional cache the block is the whole line; in a
    /// variable-block cache a miss inserts the missing part of the request as whole lines.
    /// A `read_modify_write` access is the read, then the write applied to what the read left
    /// resident (see "Read-modify-write" below).
    [[gnu::always_inline]] result_type access(const memsub::access& a) noexcept {
        if constexpr (variable_blocks) {
            whole_line_spec whole{segments_per_line(layout_)};
            if (MEMSUB_UNLIKELY(a.read_modify_write))
                return access_read_modify_write(a, static_cast<whole_line_spec*>(nullptr));
            return access_variable(a, whole, false);
        } else if constexpr (Options.writes == write_policy::write_back) {
            return access_conventional(a); // a read-modify-write is handled inline there
        } else {
            if (MEMSUB_UNLIKELY(a.read_modify_write))
                return access_read_modify_write(a, static_cast<whole_line_spec*>(nullptr));
            return access_conventional(a);
        }
    }

    /// Performs one access inserting, on a (partial) miss, blocks of the shape `spec` gives
    /// (variable-block caches only). A hit means every requested segment is resident; a store
    /// hit resizes the touched blocks of the spec's span to its stored size and payload (see
    /// "Compressed blocks" above). The same as `access(a, spec_of)` with a callable returning
    /// `spec`.
    result_type access(const memsub::access& a, block_spec spec) noexcept
        requires(variable_blocks) {
        return access(a, [spec](const memsub::access&) noexcept { return spec; });
    }

    /// `access(a, spec)` with the spec computed only when the engine stores data (see
    /// "Compressed blocks" above): `spec_of(a)` is called once when the access fills (every
    /// block it inserts takes that spec; also when the replacement policy's O3 bypass then
    /// declines, since it weighs the block's size) and once when a store hit resizes
    /// (write-back and write-through caches); never on a load hit, a miss the host, the write
    /// rule or the bypass predictor declined, or a write-evict store. A read-modify-write calls
    /// it for its read's fill and again for its write's resize. `spec_of` reads the line's data
    /// from `a.data` when it compresses it; it must not throw.
    template <block_spec_source SpecFn>
    result_type access(const memsub::access& a, SpecFn&& spec_of) noexcept
        requires(variable_blocks) {
        if (MEMSUB_UNLIKELY(a.read_modify_write)) return access_read_modify_write(a, &spec_of);
        return access_variable(a, spec_of, true);
    }

    /// Hints the CPU to bring the metadata a later access to `addr` will touch into its
    /// caches (the set header, the set's tags and the policy's row when it has an O4
    /// `prefetch(set)` hook). Changes no state. Trace-driven hosts that know upcoming
    /// addresses call this a few accesses ahead; `access_all` does it for them.
    void prefetch(byte_address addr) const noexcept {
        const layout_type L = layout_;
        const set_index s = set_of(addr, L);
        __builtin_prefetch(header(s, L));
        const std::uint64_t* tags = &tags_[slot(s, entry_index{0}, L)];
        for (std::uint32_t e = 0; e < L.entries; e += 8) __builtin_prefetch(tags + e);
        if constexpr (replacement::prefetches<policy_type>) policy_.prefetch(s);
    }

    /// Runs a batch of accesses in order, calling `sink(const access&, const result_type&)`
    /// after each; identical in effect to calling `access` one by one, but it prefetches the
    /// metadata of the access `prefetch_distance` ahead, which hides most of the memory
    /// latency of large caches in trace-driven simulation.
    template <class Sink>
    void
    access_all(std::span<const memsub::access> batch,
               Sink&& sink) noexcept(noexcept(sink(batch[0], std::declval<const result_type&>()))) {
        constexpr std::size_t prefetch_distance = 8;
        const std::size_t n = batch.size();
        for (std::size_t i = 0; i < n; ++i) {
            if (i + prefetch_distance < n) prefetch(batch[i + prefetch_distance].address);
            const result_type r = access(batch[i]);
            sink(batch[i], r);
        }
    }

    /// `access_all` with each access made as `access(a, spec_of)` (variable-block caches):
    /// `spec_of` sees each access in turn and is called only when that access stores data.
    template <block_spec_source SpecFn, class Sink>
    void access_all(std::span<const memsub::access> batch, SpecFn&& spec_of, Sink&& sink) noexcept(
        noexcept(sink(batch[0], std::declval<const result_type&>()))) requires(variable_blocks) {
        constexpr std::size_t prefetch_distance = 8;
        const std::size_t n = batch.size();
        for (std::size_t i = 0; i < n; ++i) {
            if (i + prefetch_distance < n) prefetch(batch[i + prefetch_distance].address);
            const result_type r = access(batch[i], spec_of);
            sink(batch[i], r);
        }
    }

    /// A reference whose bytes [address, address + size) may cross line boundaries, counted
    /// as valgrind's cachegrind counts it (cg_sim.c, `cachesim_ref_is_miss`): one access of its
    /// kind; every line it touches is accessed, in address order, each changing the cache's
    /// state as `access` does; and at most one miss, counted when any of those lines missed.
    /// `sink(const result_type&)` receives each line's result in order: their fills,
    /// evictions and traffic are real events and count in `stats()` as usual; only the
    /// per-kind access and miss counts are those of one reference. Returns whether any line
    /// missed. A reference within one line (or of size 0) is exactly `access(a)`; `access`
    /// itself ignores the bytes past the first line. (cachegrind caps a reference at the
    /// smallest line size of its caches, so it never sees more than two lines; this path
    /// takes any size.)
    template <class Sink>
    bool access_spanning(const memsub::access& a,
                         Sink&& sink) noexcept(noexcept(sink(std::declval<const result_type&>()))) {
        if (MEMSUB_LIKELY(within_one_line(a))) {
            const result_type r = access(a);
            sink(r);
            return !r.hit;
        }
        return access_crossing(a, sink);
    }

    /// `access_all` with each reference counted as `access_spanning` counts it (cachegrind's
    /// rules). `sink(const access&, const result_type&)` is called after each line's access,
    /// with the part of the reference in that line. Everything runs through one `access_all`
    /// call site (runs of one-line references, and a line-crossing reference as its pieces,
    /// then its counts corrected), so the engine's access path is inlined once: with several
    /// call sites GCC kept it out of line and the explorer's LRU ran at 0.63x.
    template <class Sink>
    void access_all_spanning(std::span<const memsub::access> batch, Sink&& sink) noexcept(
        noexcept(sink(batch[0], std::declval<const result_type&>()))) {
        const std::size_t n = batch.size();
        const std::uint64_t line = std::uint64_t{1} << layout_.line_shift;
        std::array<memsub::access, 8> pieces;
        std::size_t i = 0;         // the next reference to look at
        memsub::access rest{};     // what is left of a line-crossing reference
        std::uint64_t left = 0;    // its bytes not yet run (0: none)
        kind_counters before{};    // its kind's counters before it ran
        bool crossing_ran = false; // a line-crossing reference's pieces ran: correct counts
        while (i < n || left != 0) {
            std::span<const memsub::access> segment;
            if (left == 0) {
                std::size_t j = i;
                while (j < n && within_one_line(batch[j])) ++j;
                if (j > i) {
                    segment = batch.subspan(i, j - i);
                    i = j;
                } else { // batch[i] crosses a line boundary: its pieces follow
                    rest = batch[i++];
                    left = rest.size;
                    fold_counters();
                    before = stats_.by_kind[static_cast<std::size_t>(rest.kind)];
                }
            }
            if (left != 0) {
                std::size_t m = 0;
                for (; m < pieces.size() && left != 0; ++m) {
                    const std::uint64_t in_line = line - (rest.address.value & (line - 1));
                    rest.size = static_cast<std::uint32_t>(std::min(left, in_line));
                    pieces[m] = rest;
                    left -= rest.size;
                    if (rest.address.value > ~std::uint64_t{0} - in_line) left = 0; // top
                    rest.address = byte_address{rest.address.value + in_line};
                }
                segment = std::span<const memsub::access>(pieces.data(), m);
                crossing_ran = left == 0;
            }
            access_all(segment, sink);
            if (crossing_ran) { // one access, one miss when any line missed (cachegrind)
                fold_counters();
                kind_counters& counts = stats_.by_kind[static_cast<std::size_t>(rest.kind)];
                counts.misses = before.misses + (counts.misses != before.misses ? 1u : 0u);
                counts.accesses = before.accesses + 1;
                crossing_ran = false;
            }
        }
    }

    // ---------------------------------------------------------------- queries

    [[nodiscard]] set_index set_of(byte_address addr) const noexcept {
        return set_of(addr, layout_);
    }
    [[nodiscard]] line_address line_of(byte_address addr) const noexcept {
        return line_address{addr.value >> layout_.line_shift};
    }

    /// The resident block holding `addr`, without touching any state: the block an access at
    /// `addr` would report (in a variable-block cache the lowest entry holding its segment),
    /// found by the same fingerprint scan as the access.
    [[nodiscard]] std::optional<block_location> find(byte_address addr) const noexcept {
        const layout_type L = layout_;
        const set_index s = set_of(addr, L);
        entry_mask m = 0;
        if constexpr (variable_blocks) {
            const std::uint32_t spl = segments_per_line(L);
            const std::uint64_t line_key = (addr.value >> L.line_shift) * spl;
            const auto seg =
                static_cast<std::uint32_t>((addr.value >> L.segment_shift) & (spl - 1));
            m = scan_line(s, line_key, 0, seg, L).homes;
        } else {
            m = match(s, key_of(addr, L), L);
        }
        if (m == 0) return std::nullopt;
        return block_location{s, lowest_entry(m)};
    }
    [[nodiscard]] bool contains(byte_address addr) const noexcept { return find(addr).has_value(); }

    /// Mask of the segments of `line` that are resident (bit i = segment i of the line).
    [[nodiscard]] std::uint64_t resident_segments(line_address line) const noexcept {
        const layout_type L = layout_;
        const byte_address first{line.value << L.line_shift};
        const set_index s = set_of(first, L);
        if constexpr (!variable_blocks) {
            return match(s, line.value, L) != 0 ? 1u : 0u;
        } else {
            return line_blocks(s, first.value >> L.segment_shift, L).resident;
        }
    }

    [[nodiscard]] block_view block(set_index s, entry_index e) const noexcept {
        const layout_type L = layout_;
        const auto& st = state_of(s, L);
        if (!contains_entry(st.valid, e)) return {};
        const std::size_t i = slot(s, e, L);
        return block_view{.valid = true,
                          .address = block_address(i, L),
                          .bytes = span_of(i) << L.segment_shift,
                          .stored_segments = stored_of(i),
                          .dirty = contains_entry(st.dirty, e),
                          .reused = contains_entry(st.reused, e),
                          .touched_segments = touched_of(i),
                          .payload = payload_of(i)};
    }

    [[nodiscard]] std::uint32_t free_entries(set_index s) const noexcept {
        const layout_type L = layout_;
        return static_cast<std::uint32_t>(std::popcount(~state_of(s, L).valid & all_entries(L)));
    }
    [[nodiscard]] std::uint32_t free_segments(set_index s) const noexcept {
        if constexpr (variable_blocks)
            return segments_per_set() - state_of(s, layout_).used_segments;
        else
            return free_entries(s);
    }
    [[nodiscard]] entry_mask valid_entries(set_index s) const noexcept {
        return state_of(s, layout_).valid;
    }

    /// The cache's storage rule: the segments a block of `bytes` bytes of data occupies, its
    /// size rounded up to the geometry's segment size, at most a whole line (a line that does
    /// not fit in fewer is stored raw). For building a compressed block's spec.
    [[nodiscard]] std::uint32_t segments_for_bytes(std::uint64_t bytes) const noexcept {
        const std::uint64_t segments =
            (bytes >> layout_.segment_shift) +
            ((bytes & ((std::uint64_t{1} << layout_.segment_shift) - 1)) != 0 ? 1u : 0u);
        const std::uint32_t spl = segments_per_line(layout_);
        return segments < spl ? static_cast<std::uint32_t>(segments) : spl;
    }
    /// segments_for_bytes for a size in bits (a compressor's exact output: 400 bits take two
    /// 32-byte segments).
    [[nodiscard]] std::uint32_t segments_for_bits(std::uint64_t bits) const noexcept {
        return segments_for_bytes(bits / 8 + (bits % 8 != 0 ? 1u : 0u));
    }

    // ---------------------------------------------------------------- maintenance

    /// Sets or clears the dirty bit of the resident block at `loc`, and nothing else (no policy
    /// hook, no counter). For a host that moves a block between caches with its dirtiness: an
    /// exclusive hierarchy's promotions and clean victim insertions (cache/hierarchy.hpp). Does
    /// nothing in a write-through or write-evict cache, whose blocks are never dirty.
    void set_dirty(block_location loc, bool dirty) noexcept {
        if constexpr (Options.writes == write_policy::write_back) {
            set_state& st = state_of(loc.set, layout_);
            MEMSUB_ASSERT(contains_entry(st.valid, loc.entry));
            st.dirty = dirty ? st.dirty | bit_of(loc.entry) : st.dirty & ~bit_of(loc.entry);
        }
    }

    /// Removes the block holding `addr` (reason `invalidated`, or the host's `reason`, e.g.
    /// `retired`; see host_reason); returns it if there was one.
    std::optional<evicted_block>
    invalidate(byte_address addr, eviction_reason reason = eviction_reason::invalidated) noexcept {
        const auto loc = find(addr);
        if (!loc) return std::nullopt;
        return remove(loc->set, loc->entry, host_reason(reason), layout_);
    }

    /// Removes every block of `line` (reason `invalidated`, or the host's `reason`), calling
    /// `sink(const evicted_block&)` for each, lowest entry first: what an inclusive lower
    /// level's back-invalidation does to an upper level. Returns the number of blocks removed.
    template <std::invocable<const evicted_block&> Sink>
    std::uint32_t invalidate_line(line_address line, Sink&& sink,
                                  eviction_reason reason = eviction_reason::invalidated) {
        reason = host_reason(reason);
        const layout_type L = layout_;
        const byte_address first{line.value << L.line_shift};
        const set_index s = set_of(first, L);
        entry_mask blocks = 0;
        if constexpr (variable_blocks)
            blocks = line_blocks(s, first.value >> L.segment_shift, L).blocks;
        else
            blocks = match(s, line.value, L);
        std::uint32_t n = 0;
        for (; blocks != 0; blocks &= blocks - 1, ++n)
            sink(remove(s, lowest_entry(blocks), reason, L));
        return n;
    }

    /// Removes every block whose `block_view` satisfies `pred` (reason `invalidated`, or the
    /// host's `reason`), calling `sink(const evicted_block&)` for each, set by set, lowest entry
    /// first — e.g. the lines a compression selector compressed with a retired code book (their
    /// payload says which; pass `eviction_reason::retired` to count them apart). Returns the
    /// number of blocks removed. A full scan: a cold path.
    template <std::predicate<const block_view&> Pred, std::invocable<const evicted_block&> Sink>
    std::uint64_t invalidate_if(Pred&& pred, Sink&& sink,
                                eviction_reason reason = eviction_reason::invalidated) {
        reason = host_reason(reason);
        const layout_type L = layout_;
        std::uint64_t n = 0;
        for (std::uint32_t s = 0; s < geometry_.sets; ++s) {
            for (entry_mask valid = state_of(set_index{s}, L).valid; valid != 0;
                 valid &= valid - 1) {
                const entry_index e = lowest_entry(valid);
                if (!pred(block(set_index{s}, e))) continue;
                sink(remove(set_index{s}, e, reason, L));
                ++n;
            }
        }
        return n;
    }

    /// Removes every block, calling `sink(const evicted_block&)` for each (dirty ones must be
    /// written back by the host). Returns the number of blocks removed.
    template <std::invocable<const evicted_block&> Sink>
    std::uint64_t flush(Sink&& sink) {
        const layout_type L = layout_;
        std::uint64_t n = 0;
        for (std::uint32_t s = 0; s < geometry_.sets; ++s) {
            entry_mask valid = state_of(set_index{s}, L).valid;
            while (valid != 0) {
                const entry_index e = lowest_entry(valid);
                valid &= valid - 1;
                sink(remove(set_index{s}, e, eviction_reason::invalidated, L));
                ++n;
            }
        }
        return n;
    }

    /// The counters of every access made so far. The reference stays valid for the cache's
    /// life, but its contents are brought up to date by this call: read `stats()` again after
    /// further accesses rather than keeping the reference (see conventional_counters).
    [[nodiscard]] const cache_stats& stats() const noexcept {
        fold_counters();
        return stats_;
    }
    void reset_stats() noexcept {
        stats_ = cache_stats{};
        counters_ = conventional_counters{};
    }

    [[nodiscard]] policy_type& policy() noexcept { return policy_; }
    [[nodiscard]] const policy_type& policy() const noexcept { return policy_; }
    [[nodiscard]] Bypass& bypass_predictor() noexcept { return bypass_; }
    [[nodiscard]] const Bypass& bypass_predictor() const noexcept { return bypass_; }
    [[nodiscard]] const Geometry& shape() const noexcept { return geometry_; }

    /// Tag-store bits (tags + valid/dirty/reused + size fields + `cache_options::payload_bits`
    /// of payload per entry) plus the replacement policy's and the bypass predictor's metadata,
    /// for a physical address of `address_bits` bits.
    [[nodiscard]] std::uint64_t storage_bits(std::uint32_t address_bits = 48) const noexcept {
        const std::uint32_t line_shift = layout_.line_shift;
        const std::uint32_t index_bits = log2_exact(geometry_.sets);
        const std::uint32_t tag_bits =
            address_bits > line_shift + index_bits ? address_bits - line_shift - index_bits : 0;
        std::uint64_t per_entry = tag_bits + 3u;
        if constexpr (variable_blocks)
            per_entry +=
                2u * static_cast<std::uint32_t>(std::bit_width(segments_per_line(layout_))) +
                Options.payload_bits;
        return per_entry * geometry_.total_entries() + replacement::storage_bits_of(policy_) +
               bypass::storage_bits_of(bypass_);
    }

private:
    // dirty and reused, which a hit and a fill update together, are not adjacent: GCC's SLP
    // vectorizer would merge the two updates into a 16-byte vector operation assembled from
    // general registers, which costs more than it saves (same as cache_stats' field order).
    struct set_state {
        entry_mask valid = 0;
        entry_mask dirty = 0;
        std::uint32_t used_segments = 0; // only variable-block caches use it
        // Tag-only blocks (0 segments) in the set: while there are none, a victim for segments
        // needs no filter (P4), so caches that never store one pay a predicted branch.
        std::uint32_t tag_only_blocks = 0;
        entry_mask reused = 0;
    };

    /// The spec of an access without one: whole-line blocks stored raw.
    struct whole_line_spec {
        std::uint32_t whole = 0;
        block_spec operator()(const memsub::access&) const noexcept {
            return block_spec{whole, whole, 0};
        }
    };

    static constexpr bool fixed = !std::same_as<Geometry, geometry>;

    // Per-set header: the set_state followed by the entries' tag fingerprints (of the tag in a
    // conventional cache, of the block's line in a variable-block one) and, when it fits in the
    // spare bytes, the policy's per-set row (O5), in one or more 64-byte blocks, so a lookup
    // touches one cache line before the tag it verifies.
    struct alignas(64) header_block {
        std::byte bytes[64];
    };
    static constexpr std::size_t fingerprint_offset = 32;
    static_assert(sizeof(set_state) <= fingerprint_offset);
    static constexpr std::uint32_t header_blocks(std::uint32_t entries) noexcept {
        const std::size_t bytes = fingerprint_offset + padded_row_bytes(entries);
        return static_cast<std::uint32_t>((bytes + 63) / 64);
    }
    /// Where a hosted policy row (O5) starts in the header: after the fingerprints.
    static constexpr std::size_t policy_row_offset(std::uint32_t entries) noexcept {
        return fingerprint_offset + padded_row_bytes(entries);
    }

    using layout_type = std::conditional_t<
        fixed,
        detail::fixed_layout<Geometry,
                             header_blocks(static_cast<geometry>(Geometry{}).entries_per_set())>,
        detail::runtime_layout>;

    static layout_type make_layout(const Geometry& g) noexcept {
        if constexpr (fixed) {
            return {};
        } else {
            return detail::runtime_layout{
                .line_shift = log2_exact(g.line_bytes),
                .segment_shift = log2_exact(g.segment_size()),
                .entries = g.entries_per_set(),
                .header_shift = log2_exact(header_blocks(g.entries_per_set())),
                .fingerprint_stride = padded_row_bytes(g.entries_per_set()),
                .set_mask = g.sets - 1u,
                .all_entries = low_bits_mask(g.entries_per_set())};
        }
    }

    static const Geometry& validated(const Geometry& g) {
        g.validate("memsub::cache geometry");
        const geometry rg = static_cast<geometry>(g);
        if constexpr (!variable_blocks) {
            static_assert(Options.payload_bits == 0,
                          "cache_options.payload_bits: a conventional cache has no payload");
            memsub::detail::require(rg.entries_per_set() == rg.ways && rg.segments_per_line() == 1,
                                    "memsub::cache", "cache_options.max_block_segments", 1,
                                    "segments smaller than a line or extra tags need "
                                    "max_block_segments >= segments per line");
        } else {
            memsub::detail::require(Options.payload_bits <= 32, "memsub::cache",
                                    "cache_options.payload_bits", Options.payload_bits,
                                    "must be at most 32 (block_spec::payload's width)");
            memsub::detail::require(Options.max_block_segments >= rg.segments_per_line() &&
                                        Options.max_block_segments <= 64,
                                    "memsub::cache", "cache_options.max_block_segments",
                                    Options.max_block_segments,
                                    "must be in [segments per line, 64]");
            // One access may cut a whole line into its smallest blocks; they must fit a set.
            memsub::detail::require(rg.entries_per_set() >= rg.segments_per_line(),
                                    "memsub::cache geometry", "tags_per_set", rg.entries_per_set(),
                                    "a variable-block cache needs at least one tag per segment "
                                    "of a line");
        }
        return g;
    }

    // ------------------------------------------------------------ layout helpers
    // Each takes the layout by value: for a fixed geometry it is empty and folds away.

    [[nodiscard]] static std::uint32_t segments_per_line(const layout_type& L) noexcept {
        return 1u << (L.line_shift - L.segment_shift);
    }
    [[nodiscard]] std::uint32_t segments_per_set() const noexcept {
        return geometry_.ways * segments_per_line(layout_);
    }
    [[nodiscard]] static entry_mask all_entries(const layout_type& L) noexcept {
        return L.all_entries;
    }
    [[nodiscard]] static set_index set_of(byte_address addr, const layout_type& L) noexcept {
        return set_index{static_cast<std::uint32_t>((addr.value >> L.line_shift) & L.set_mask)};
    }
    /// The key's one-byte fingerprint (core/byte_match.hpp). Every key of a set has the same
    /// index bits, so the byte discriminates their tags; no shift needed.
    [[nodiscard]] static std::uint8_t fingerprint_of(std::uint64_t key) noexcept {
        return byte_fingerprint(key);
    }
    [[nodiscard]] static std::size_t slot(set_index s, entry_index e,
                                          const layout_type& L) noexcept {
        return std::size_t{s.value} * L.entries + e.value;
    }
    [[nodiscard]] std::byte* header(set_index s, const layout_type& L) noexcept {
        return headers_[std::size_t{s.value} << L.header_shift].bytes;
    }
    [[nodiscard]] const std::byte* header(set_index s, const layout_type& L) const noexcept {
        return headers_[std::size_t{s.value} << L.header_shift].bytes;
    }
    [[nodiscard]] set_state& state_of(set_index s, const layout_type& L) noexcept {
        return *std::launder(reinterpret_cast<set_state*>(header(s, L)));
    }
    [[nodiscard]] const set_state& state_of(set_index s, const layout_type& L) const noexcept {
        return *std::launder(reinterpret_cast<const set_state*>(header(s, L)));
    }
    [[nodiscard]] std::uint8_t* fingerprint_row(set_index s, const layout_type& L) noexcept {
        return reinterpret_cast<std::uint8_t*>(header(s, L) + fingerprint_offset);
    }
    [[nodiscard]] const std::uint8_t* fingerprint_row(set_index s,
                                                      const layout_type& L) const noexcept {
        return reinterpret_cast<const std::uint8_t*>(header(s, L) + fingerprint_offset);
    }
    static constexpr bool contains_entry(entry_mask m, entry_index e) noexcept {
        return memsub::contains(m, e);
    }

    /// The tag key of an address: its line address (conventional) or segment address.
    [[nodiscard]] static std::uint64_t key_of(byte_address addr, const layout_type& L) noexcept {
        if constexpr (variable_blocks)
            return addr.value >> L.segment_shift;
        else
            return addr.value >> L.line_shift;
    }
    [[nodiscard]] std::uint32_t span_of(std::size_t i) const noexcept {
        if constexpr (variable_blocks)
            return popcount64(line_segments_[i]); // a block is one run of its line's segments
        else
            return 1;
    }
    /// span_of for a valid entry, whose segments are one non-empty run: no popcount64, which
    /// the portable build spends about twenty instructions on per evicted block.
    [[nodiscard]] std::uint32_t resident_span_of(std::size_t i) const noexcept {
        if constexpr (variable_blocks) {
            MEMSUB_ASSERT(line_segments_[i] != 0);
            return run_length64(line_segments_[i]);
        } else {
            return 1;
        }
    }
    [[nodiscard]] std::uint32_t stored_of(std::size_t i) const noexcept {
        if constexpr (variable_blocks)
            return stored_[i];
        else
            return 1;
    }
    [[nodiscard]] std::uint64_t touched_of(std::size_t i) const noexcept {
        if constexpr (variable_blocks)
            return touched_[i];
        else
            return 1;
    }
    [[nodiscard]] std::uint32_t payload_of(std::size_t i) const noexcept {
        if constexpr (variable_blocks)
            return payload_[i];
        else
            return 0;
    }
    [[nodiscard]] byte_address block_address(std::size_t i, const layout_type& L) const noexcept {
        if constexpr (variable_blocks)
            return byte_address{tags_[i] << L.segment_shift};
        else
            return byte_address{tags_[i] << L.line_shift};
    }

    /// Conventional caches: the valid entry of set `s` holding `key`, as a mask (variable-block
    /// caches look blocks up with scan_line).
    [[nodiscard]] entry_mask match(set_index s, std::uint64_t key,
                                   const layout_type& L) const noexcept requires(!variable_blocks) {
        const std::uint32_t e = find_entry(s, key, L);
        return e < max_entries_per_set ? bit_of(entry_index{e}) : entry_mask{0};
    }

    /// The reason a host's invalidation is recorded with: `replacement` names the policy's
    /// victims, so a host passing it gets `invalidated`.
    [[nodiscard]] static constexpr eviction_reason host_reason(eviction_reason r) noexcept {
        return r == eviction_reason::replacement ? eviction_reason::invalidated : r;
    }

    /// The spec as the engine stores it (see "Block specs"): a bad span becomes the whole line,
    /// stored segments beyond the span become the span; each correction is counted.
    [[nodiscard]] block_spec checked_spec(block_spec spec) noexcept {
        const std::uint32_t spl = segments_per_line(layout_);
        // A power of two ≤ spl without std::has_single_bit, which the portable build compiles to
        // a libgcc popcount call on every fill.
        const std::uint32_t span = spec.span_segments;
        if (MEMSUB_UNLIKELY(span == 0 || (span & (span - 1)) != 0 || span > spl ||
                            spec.stored_segments > span))
            spec = clamped_spec(spec, spl);
        return spec;
    }
    // Out of line: the access path keeps only the test.
    [[gnu::cold, gnu::noinline]] block_spec clamped_spec(block_spec spec,
                                                         std::uint32_t spl) noexcept {
        ++stats_.specs_clamped;
        if (!std::has_single_bit(spec.span_segments) || spec.span_segments > spl)
            spec.span_segments = spl;
        spec.stored_segments = std::min(spec.stored_segments, spec.span_segments);
        return spec;
    }

    /// The entries of set `s` among `m` that hold data (not tag-only blocks).
    [[nodiscard]] entry_mask data_blocks(set_index s, entry_mask m,
                                         const layout_type& L) const noexcept {
        const std::size_t base = slot(s, entry_index{0}, L);
        entry_mask out = 0;
        for (entry_mask left = m; left != 0; left &= left - 1) {
            const entry_mask bit = left & (entry_mask{0} - left);
            out |= stored_[base + static_cast<std::size_t>(std::countr_zero(left))] != 0 ? bit : 0u;
        }
        return out;
    }

    /// Conventional caches: the valid entry of set `s` holding `key`, or max_entries_per_set.
    /// Swiss-table style: compare one-byte fingerprints of all entries at once, then verify the
    /// (usually single) candidate's full tag. Returns an index, not a mask: the hit path needs
    /// the entry, and a mask would cost it a shift and a count-trailing-zeros to get it back.
    [[nodiscard]] std::uint32_t find_entry(set_index s, std::uint64_t key,
                                           const layout_type& L) const noexcept {
        const std::uint64_t* tags = &tags_[slot(s, entry_index{0}, L)];
        entry_mask candidates =
            byte_equal_mask(fingerprint_row(s, L), L.fingerprint_stride, fingerprint_of(key)) &
            state_of(s, L).valid;
        while (candidates != 0) { // a false fingerprint match is rare: nearly always one pass
            const auto e = static_cast<std::uint32_t>(std::countr_zero(candidates));
            if (MEMSUB_LIKELY(tags[e] == key)) return e;
            candidates &= candidates - 1;
        }
        return max_entries_per_set;
    }

    /// Removes entry `e` of set `s` and tells the policy and the bypass predictor. A
    /// `superseded` block merges into the block that replaces it, so it is never dirty (its
    /// dirtiness moved to the new block; evicted_block's one meaning).
    evicted_block remove(set_index s, entry_index e, eviction_reason reason,
                         const layout_type& L) noexcept {
        evicted_block out;
        remove_into(out, s, e, reason, L);
        return out;
    }
    /// remove(), writing the record into `out` (an access result's eviction slot: see
    /// eviction_list::emplace_back).
    void remove_into(evicted_block& out, set_index s, entry_index e, eviction_reason reason,
                     const layout_type& L) noexcept {
        set_state& st = state_of(s, L);
        const entry_mask bit = bit_of(e);
        depart_into(out, s, e, reason, L);
        st.valid &= ~bit;
        st.dirty &= ~bit;
        st.reused &= ~bit;
        if constexpr (variable_blocks) {
            st.used_segments -= out.stored_segments;
            st.tag_only_blocks -= out.stored_segments == 0 ? 1u : 0u;
        }
    }

    /// The departure of entry `e` as the host, the policy and the predictor see it (the report,
    /// the counters, R5), without touching the set's state: remove() clears the entry
    /// afterwards, and a conventional miss that refills the victim's entry just overwrites it.
    /// The record is written into `out` field by field (see remove_into).
    /// `Counted`: a conventional replacement victim, whose eviction follows from the fill
    /// that replaces it (conventional_counters): only its writeback is counted.
    template <bool TellPolicy = true, bool Counted = false>
    void depart_into(evicted_block& out, set_index s, entry_index e, eviction_reason reason,
                     const layout_type& L) noexcept {
        const set_state& st = state_of(s, L);
        const std::size_t i = slot(s, e, L);
        const entry_mask bit = bit_of(e);
        const bool write_back_needed =
            (st.dirty & bit) != 0 && reason != eviction_reason::superseded;
        const byte_address address = block_address(i, L);
        out.line = line_address{address.value >> L.line_shift};
        out.address = address;
        out.bytes = resident_span_of(i) << L.segment_shift;
        out.stored_segments = stored_of(i);
        out.set = s;
        out.entry = e;
        out.dirty = write_back_needed;
        out.reused = (st.reused & bit) != 0;
        out.reason = reason;
        out.touched_segments = touched_of(i);
        out.payload = payload_of(i);
        if constexpr (Counted) {
            counters_.writebacks += write_back_needed; // branch-free, as below
        } else {
            if (reason == eviction_reason::replacement) {
                ++stats_.evictions;
            } else {
                ++stats_.invalidations;
                ++stats_.invalidations_by_reason[static_cast<std::size_t>(reason)];
            }
            // Branch-free: dirtiness is data-dependent and would mispredict.
            stats_.writebacks += write_back_needed;
            stats_.bytes_written_back += out.bytes & (0u - std::uint32_t{write_back_needed});
        }
        if constexpr (TellPolicy) policy_.on_evict(s, e, out); // else done by O7's replace
        bypass::notify_evict(bypass_, s, e, out);
    }

    /// Bytes of the request that lie in its line (a size of 0 asks for the whole line).
    [[nodiscard]] static std::uint32_t request_bytes(const memsub::access& a,
                                                     const layout_type& L) noexcept {
        const std::uint32_t line = 1u << L.line_shift;
        const auto offset = static_cast<std::uint32_t>(a.address.value & (line - 1));
        return a.size == 0 ? line : std::min(a.size, line - offset);
    }

    /// Bytes a write of `a` sends down: its bytes in the line, or in a variable-block cache
    /// those of a masked access (access::sector_mask; masked_request_bytes).
    [[nodiscard]] static std::uint32_t written_bytes(const memsub::access& a,
                                                     const layout_type& L) noexcept {
        if constexpr (variable_blocks) {
            const std::uint64_t masked =
                std::uint64_t{a.sector_mask} & nonzero_low_bits_mask(segments_per_line(L));
            if (masked != 0) {
                const std::uint32_t line_bytes = 1u << L.line_shift;
                const auto offset = static_cast<std::uint32_t>(a.address.value & (line_bytes - 1));
                const std::uint32_t lo = a.size == 0 ? 0u : offset;
                const std::uint32_t hi = a.size == 0 ? line_bytes : offset + request_bytes(a, L);
                return masked_request_bytes(masked, lo, hi, L.segment_shift);
            }
        }
        return request_bytes(a, L);
    }

    /// The bytes a masked request asks for: its masked segments, the first and the last clipped
    /// to the request's bytes [lo, hi) (the coalescer gives a line request its first to last
    /// touched byte), interior ones whole. A request of one run of sectors asks for exactly the
    /// bytes an unmasked access of [lo, hi) asks for, so a bypassed read still fetches only the
    /// requested bytes ([Dissertation] Algorithm 5: a bypass fetches the requested bytes).
    /// Decision: interior masked segments count whole — the mask cannot say which of their bytes
    /// were touched, and a sectored L1 moves whole sectors; clipping only the ends keeps the
    /// single-run requests (nearly all) exact.
    [[nodiscard]] static std::uint32_t masked_request_bytes(std::uint64_t masked, std::uint32_t lo,
                                                            std::uint32_t hi,
                                                            std::uint32_t segment_shift) noexcept {
        const std::uint32_t seg_bytes = 1u << segment_shift;
        const auto first_seg = static_cast<std::uint32_t>(std::countr_zero(masked));
        const std::uint32_t last_seg = 63u - static_cast<std::uint32_t>(std::countl_zero(masked));
        const std::uint32_t seg_lo = first_seg << segment_shift;
        const std::uint32_t seg_hi = (last_seg + 1) << segment_shift;
        const std::uint32_t head = lo > seg_lo && lo < seg_lo + seg_bytes ? lo - seg_lo : 0u;
        const std::uint32_t tail = hi < seg_hi && hi > seg_hi - seg_bytes ? seg_hi - hi : 0u;
        return (popcount64(masked) << segment_shift) - head - tail;
    }

    void count_access(access_kind k) noexcept {
        ++stats_.by_kind[static_cast<std::size_t>(k)].accesses;
    }
    void count_miss(access_kind k) noexcept {
        ++stats_.by_kind[static_cast<std::size_t>(k)].misses;
    }

    /// The allocation decision of a miss before the set's room is looked at (Q1): the host's
    /// no-allocate, the write policy's no-allocate rule, then the bypass predictor (asked only
    /// when the first two allow allocation).
    [[nodiscard]] bypass_reason admit(set_index s, const memsub::access& a, bool write) noexcept {
        if (a.hints.no_allocate) return bypass_reason::host_no_allocate;
        if (write && Options.writes != write_policy::write_back)
            return bypass_reason::write_no_allocate;
        if (bypass_.should_bypass(s, a)) return bypass_reason::predictor;
        return bypass_reason::none;
    }

    /// A hit on entry `e` (or the resident part of a partial miss): the policy, then the
    /// predictor that admitted the block (Q3).
    void notify_hit(set_index s, entry_index e, const memsub::access& a) noexcept {
        policy_.on_hit(s, e, a);
        bypass::notify_hit(bypass_, s, e, a);
    }

    /// A block was placed in `e`: the policy (its richest R4 form), then the predictor.
    void notify_insert(set_index s, entry_index e, const memsub::access& a,
                       const replacement::insert_info& info) noexcept {
        replacement::notify_insert(policy_, s, e, a, info);
        bypass::notify_insert(bypass_, s, e, a);
    }

    // ------------------------------------------------------------ conventional caches

    /// Always inlined into the host's loop: at -O2 GCC kept it out of line for some policies
    /// and shapes, and its result then went through memory on every access
    /// (docs/performance/miss_path.md).
    [[gnu::always_inline]] result_type access_conventional(const memsub::access& a) noexcept {
        const layout_type& L = layout_; // not a copy: see runtime_layout
        result_type r;
        const set_index s = set_of(a.address, L);
        r.set = s;
        const bool write = is_write(a.kind);
        // A write-back cache's read-modify-write dirties the line as a store does and
        // allocates as a read (`write` stays false); other write policies never get here with
        // one (access() sends it to access_read_modify_write).
        // (`|`, not `||`: a branch here cost about 10 % of the explorer's LRU throughput.)
        const bool dirties = Options.writes == write_policy::write_back &&
                             static_cast<bool>(write | a.read_modify_write);
        const auto kind = static_cast<std::size_t>(a.kind);

        const std::uint64_t key = key_of(a.address, L);
        const std::uint32_t found = find_entry(s, key, L);
        set_state& st = state_of(s, L);
        if (found < max_entries_per_set) {
            const entry_index e{found};
            ++counters_.hits[kind];
            r.hit = true;
            r.entry = e;
            st.reused |= bit_of(e);
            notify_hit(s, e, a);
            if constexpr (Options.writes == write_policy::write_back) {
                st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{dirties}); // branch-free
            } else if (write) {
                r.bytes_written_down = request_bytes(a, L);
                stats_.bytes_written_down += r.bytes_written_down;
                if constexpr (Options.writes == write_policy::write_evict) {
                    remove_into(r.evictions.emplace_back(), s, e, eviction_reason::write_evict, L);
                    r.hit_block_left = true;
                }
            }
            return r;
        }

        ++counters_.misses[kind];
        r.missing_segments = 1;
        if constexpr (replacement::observes_misses<policy_type>) policy_.on_miss(s, a);

        bypass_reason declined = admit(s, a, write);
        entry_index e{};
        if (declined == bypass_reason::none) {
            if (st.valid != all_entries(L)) {
                e = lowest_entry(~st.valid & all_entries(L));
                ++counters_.free_fills;
            } else {
                if constexpr (replacement::may_bypass<policy_type>)
                    if (policy_.should_bypass(s, a)) declined = bypass_reason::policy;
                if (declined == bypass_reason::none) {
                    if constexpr (replacement::fuses_replacement<policy_type>) {
                        // O7: the policy chose the victim and did its evict and insert
                        // bookkeeping in one call; the engine does its own part.
                        e = policy_.replace(s, st.valid, a);
                        MEMSUB_ASSERT(contains_entry(st.valid, e));
                        depart_into<false, true>(r.evictions.emplace_back(), s, e,
                                                 eviction_reason::replacement, L);
                        fill_conventional(s, e, key, a, dirties, r, L);
                        bypass::notify_insert(bypass_, s, e, a); // the predictor's T2
                        return r;
                    } else {
                        e = replacement::choose_victim(
                            policy_, s, st.valid, a,
                            replacement::room_request{.entries_needed = 1,
                                                      .segments_needed = 0,
                                                      .incoming_bytes = 1u << L.line_shift,
                                                      .incoming_segments = 1});
                        MEMSUB_ASSERT(contains_entry(st.valid, e));
                        // The victim leaves (reported, counted, R5) and the new block takes
                        // its entry, the set's only free one (P5): its valid bit stays set,
                        // its dirty and reused bits are overwritten by the fill.
                        depart_into<true, true>(r.evictions.emplace_back(), s, e,
                                                eviction_reason::replacement, L);
                    }
                }
            }
        }
        if (declined != bypass_reason::none) {
            ++counters_.unfilled[kind];
            serve_unallocated(a, r, declined, write, request_bytes(a, L));
            return r;
        }
        fill_conventional(s, e, key, a, dirties, r, L);
        notify_insert(s, e, a,
                      replacement::insert_info{.address = byte_address{key << L.line_shift},
                                               .bytes = 1u << L.line_shift,
                                               .stored_segments = 1,
                                               .payload = 0});
        return r;
    }

    /// The engine's part of a conventional fill of entry `e` (free, or its victim departed):
    /// tag, fingerprint, state bits and result (its counts follow from conventional_counters).
    /// The policy is told by the caller.
    void fill_conventional(set_index s, entry_index e, std::uint64_t key, const memsub::access& a,
                           bool dirty, result_type& r, const layout_type& L) noexcept {
        set_state& st = state_of(s, L);
        tags_[slot(s, e, L)] = key;
        fingerprint_row(s, L)[e.value] = fingerprint_of(key);
        const entry_mask bit = bit_of(e);
        st.valid |= bit;
        st.dirty = (st.dirty & ~bit) | (bit & (entry_mask{0} - entry_mask{dirty})); // branch-free
        st.reused &= ~bit;
        r.blocks_filled = 1;
        r.entry = e;
        // A writeback from above overwrites the whole block: nothing is fetched.
        r.bytes_fetched = a.kind == access_kind::writeback ? 0u : (1u << L.line_shift);
    }

    /// A miss that allocates nothing: reads fetch `read_bytes`, writes go down.
    void serve_unallocated(const memsub::access& a, result_type& r, bypass_reason why, bool write,
                           std::uint32_t read_bytes) noexcept {
        r.bypass = why;
        ++stats_.bypasses_by_reason[static_cast<std::size_t>(why)];
        if (write) {
            r.bytes_written_down = written_bytes(a, layout_);
            stats_.bytes_written_down += r.bytes_written_down;
        } else {
            r.bytes_fetched = read_bytes;
            stats_.bytes_fetched += r.bytes_fetched;
            // A conventional write-back cache's read-modify-write (handled inline, see
            // access()): the read is served, the written bytes go down.
            if constexpr (!variable_blocks && Options.writes == write_policy::write_back) {
                if (a.read_modify_write) {
                    r.bytes_written_down = request_bytes(a, layout_);
                    stats_.bytes_written_down += r.bytes_written_down;
                }
            }
        }
    }

    // ------------------------------------------------------------ variable-size blocks

    struct line_view {
        entry_mask blocks = 0;      ///< valid entries holding blocks of the line
        std::uint64_t resident = 0; ///< resident segments of the line
    };

    /// The blocks of the line whose first segment key is `line_key`, in set `s`.
    [[nodiscard]] line_view line_blocks(set_index s, std::uint64_t line_key,
                                        const layout_type& L) const noexcept {
        const line_scan v = scan_line(s, line_key, 0, 0, L);
        return line_view{.blocks = v.blocks, .resident = v.resident};
    }

    /// line_blocks and, in the same pass over the candidates, what an access needs of them.
    struct line_scan {
        entry_mask blocks = 0;      ///< valid entries holding blocks of the line
        std::uint64_t resident = 0; ///< resident segments of the line
        entry_mask touched = 0;     ///< blocks holding a segment of `requested`
        entry_mask homes = 0;       ///< blocks holding segment `home_seg`
    };
    [[nodiscard, gnu::always_inline]] line_scan scan_line(set_index s, std::uint64_t line_key,
                                                          std::uint64_t requested,
                                                          std::uint32_t home_seg,
                                                          const layout_type& L) const noexcept {
        line_scan v;
        const std::size_t base = slot(s, entry_index{0}, L);
        const std::uint32_t spl = segments_per_line(L);
        const std::uint64_t* tags = tags_.data() + base;
        const std::uint64_t* line_segments = line_segments_.data() + base;
        const std::uint64_t home_bit = std::uint64_t{1} << home_seg;
        entry_mask homes = 0; // blocks holding segment home_seg
        // Swiss-table style, as find_entry: the one-byte fingerprints of the entries' lines
        // (all compared at once) name the candidates; their tags confirm them. No variable
        // shift per candidate (each costs a move to CL on x86-64 without BMI2): the block's
        // segments are kept as a mask of its line, its entry bit is the candidates' lowest.
        entry_mask candidates =
            byte_equal_mask(fingerprint_row(s, L), L.fingerprint_stride, fingerprint_of(line_key)) &
            state_of(s, L).valid;
        for (; candidates != 0; candidates &= candidates - 1) {
            const auto e = static_cast<std::uint32_t>(std::countr_zero(candidates));
            if (tags[e] - line_key < spl) {
                const std::uint64_t segments = line_segments[e];
                const entry_mask bit = candidates & (entry_mask{0} - candidates);
                v.blocks |= bit;
                v.resident |= segments;
                v.touched |= (segments & requested) != 0 ? bit : entry_mask{0};
                homes |= (segments & home_bit) != 0 ? bit : entry_mask{0};
            }
        }
        v.homes = homes;
        return v;
    }

    /// Segments of the line covered by entry `i` (a block of the line at `line_key`).
    [[nodiscard]] std::uint64_t segments_of(std::size_t i, std::uint64_t line_key) const noexcept {
        // The mask starts at the block's first segment, which its tag names.
        MEMSUB_ASSERT(std::countr_zero(line_segments_[i]) == static_cast<int>(tags_[i] - line_key));
        (void)line_key;
        return line_segments_[i];
    }

    /// Marks entry `e` as used by the request (reused, touched, dirty on a write-back store)
    /// and tells the policy and the predictor (P1, or P2a for a partial miss).
    void touch(set_index s, entry_index e, std::uint64_t requested, std::uint64_t line_key,
               bool write, const memsub::access& a, const layout_type& L) noexcept {
        set_state& st = state_of(s, L);
        const std::size_t i = slot(s, e, L);
        st.reused |= bit_of(e);
        touched_[i] |= (requested & line_segments_[i]) >> (tags_[i] - line_key);
        if constexpr (Options.writes == write_policy::write_back)
            st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{write});
        notify_hit(s, e, a);
    }

    /// P8: a store hit gives the touched blocks of the spec's span its stored size and payload
    /// (a touched block of another span is refused: access_result::resize_refused). Growth
    /// takes segments from victims the policy names among the valid entries not yet chosen,
    /// tag-only blocks left out (they free none): the growing block included, which, chosen,
    /// leaves dirty, and nothing more grows. A touched block that leaves sets hit_block_left;
    /// one that an earlier growth evicted is skipped.
    void resize_touched(set_index s, entry_mask touched, const block_spec& spec,
                        const memsub::access& a, result_type& r, const layout_type& L) noexcept {
        const std::size_t base = slot(s, entry_index{0}, L);
        set_state& st = state_of(s, L);
        for (entry_mask m = touched & st.valid; m != 0; m &= m - 1) {
            const entry_index e = lowest_entry(m);
            if (!contains_entry(st.valid, e)) continue; // an earlier growth evicted it
            const std::size_t i = base + e.value;
            if (resident_span_of(i) != spec.span_segments) {
                r.resize_refused = true;
                ++stats_.resizes_refused;
                continue;
            }
            payload_[i] = spec.payload;
            const std::uint32_t old_size = stored_[i];
            if (old_size == spec.stored_segments) continue;
            ++stats_.resizes;
            st.tag_only_blocks += (spec.stored_segments == 0 ? 1u : 0u) - (old_size == 0 ? 1u : 0u);
            if (spec.stored_segments < old_size) {
                st.used_segments -= old_size - spec.stored_segments;
                stored_[i] = static_cast<std::uint8_t>(spec.stored_segments);
                continue;
            }
            const std::uint32_t growth = spec.stored_segments - old_size;
            // Counted as its new size from here: a victim that is this block must not be
            // counted as tag-only.
            stored_[i] = static_cast<std::uint8_t>(spec.stored_segments);
            st.used_segments += growth;
            while (st.used_segments > segments_per_set()) {
                entry_mask eligible = st.valid;
                if (st.tag_only_blocks != 0) eligible = data_blocks(s, eligible, L);
                const entry_index v = replacement::choose_victim(
                    policy_, s, eligible, a,
                    replacement::room_request{
                        .entries_needed = 0,
                        .segments_needed = st.used_segments - segments_per_set(),
                        .incoming_bytes = spec.span_segments << L.segment_shift,
                        .incoming_segments = spec.stored_segments});
                MEMSUB_ASSERT(contains_entry(eligible, v));
                if (v == e) { // it leaves as it was: its old size, the store's data (dirty)
                    stored_[i] = static_cast<std::uint8_t>(old_size);
                    st.used_segments -= growth;
                    st.tag_only_blocks += old_size == 0 ? 1u : 0u;
                }
                remove_into(r.evictions.emplace_back(), s, v, eviction_reason::replacement, L);
                r.hit_block_left |= contains_entry(touched, v);
                if (v == e) return;
            }
        }
    }

    template <class SpecFn>
    result_type access_variable(const memsub::access& a, SpecFn& spec_of,
                                const bool resize) noexcept {
        const layout_type L = layout_;
        result_type r;
        const set_index s = set_of(a.address, L);
        r.set = s;
        const bool write = is_write(a.kind);
        count_access(a.kind);

        // The request as the byte range [lo, hi) of its line and as a mask of its segments.
        const std::uint32_t spl = segments_per_line(L);
        const std::uint32_t seg_bytes = 1u << L.segment_shift;
        const std::uint32_t line_bytes = 1u << L.line_shift;
        const std::uint64_t line_key = (a.address.value >> L.line_shift) * spl;
        const auto offset = static_cast<std::uint32_t>(a.address.value & (line_bytes - 1));
        std::uint32_t lo = a.size == 0 ? 0u : offset;
        std::uint32_t hi = a.size == 0 ? line_bytes : offset + request_bytes(a, L);
        std::uint32_t first_seg = lo >> L.segment_shift;
        std::uint32_t last_seg = (hi - 1) >> L.segment_shift;
        std::uint32_t req_bytes = hi - lo;
        std::uint32_t home_seg = offset >> L.segment_shift; // holds a.address
        std::uint64_t requested = nonzero_low_bits_mask(last_seg - first_seg + 1) << first_seg;
        if (a.sector_mask != 0)
            narrow_to_mask(a, spl, seg_bytes, requested, lo, hi, first_seg, last_seg, req_bytes,
                           home_seg);

        // The line's blocks, the ones the request touches and the one holding a.address, in
        // one pass over the set's candidates.
        const line_scan line = scan_line(s, line_key, requested, home_seg, L);
        const entry_mask touched = line.touched;
        const std::size_t base = slot(s, entry_index{0}, L);

        const std::uint64_t missing = requested & ~line.resident;
        if (missing == 0) {
            r.hit = true;
            // Every requested segment is resident, a.address's too; the blocks holding it are
            // ones the request touches.
            r.entry = lowest_entry(line.homes);
            r.payload = payload_[base + r.entry.value];
            for (entry_mask m = touched; m != 0; m &= m - 1)
                touch(s, lowest_entry(m), requested, line_key, write, a, L);
            if constexpr (Options.writes != write_policy::write_back) {
                if (write) {
                    r.bytes_written_down = req_bytes;
                    stats_.bytes_written_down += req_bytes;
                    if constexpr (Options.writes == write_policy::write_evict) {
                        for (entry_mask m = touched; m != 0; m &= m - 1)
                            remove_into(r.evictions.emplace_back(), s, lowest_entry(m),
                                        eviction_reason::write_evict, L);
                        r.hit_block_left = true;
                    }
                }
            }
            if constexpr (Options.writes != write_policy::write_evict) {
                if (resize && write) {
                    resize_touched(s, touched, checked_spec(spec_of(a)), a, r, L);
                    r.payload = payload_[base + r.entry.value];
                }
            }
            return r;
        }

        count_miss(a.kind);
        r.missing_segments = missing;
        r.partial = (requested & line.resident) != 0;
        stats_.partial_misses += r.partial;
        if constexpr (replacement::observes_misses<policy_type>) policy_.on_miss(s, a);
        // P2a: the resident blocks the request touches served part of it.
        for (entry_mask m = touched; m != 0; m &= m - 1)
            touch(s, lowest_entry(m), requested, line_key, write, a, L);

        // Requested bytes that are not resident (what a bypassed read fetches): all of them
        // on a full miss (the common case), else the missing segments' share.
        std::uint32_t missing_bytes = req_bytes;
        if (missing != requested) {
            missing_bytes = popcount64(missing) * seg_bytes; // inline: no libgcc call
            if ((missing >> first_seg) & 1u) missing_bytes -= lo - first_seg * seg_bytes;
            if ((missing >> last_seg) & 1u) missing_bytes -= (last_seg + 1) * seg_bytes - hi;
        }

        if (const bypass_reason why = admit(s, a, write); why != bypass_reason::none) {
            decline_variable(a, r, why, write, touched, missing_bytes, s, L);
            return r;
        }
        const block_spec spec = checked_spec(spec_of(a));
        if constexpr (Options.whole_line_fill_path) {
            // The common fill gets its own small out-of-line function: inside fill_variable
            // it paid for that function's large frame.
            if (spec.span_segments == spl && line.blocks == 0) {
                fill_whole_line(a, spec, s, line_key, requested, write, missing_bytes, r);
                return r;
            }
        }
        fill_variable(a, spec, s, line_key, requested, missing, line, home_seg, write,
                      missing_bytes, r); // out of line
        return r;
    }

    /// A masked request (access::sector_mask): the requested segments are the mask's (bits past
    /// the line's last segment are ignored; a mask with none inside the line leaves the byte
    /// range's segments). [lo, hi) is clipped to the masked segments' extent (an end that does
    /// not fall in the first / last masked segment moves to its edge) and the requested bytes
    /// are masked_request_bytes, so a bypassed read fetches the requested bytes of the missing
    /// masked segments and a store writes them down. The address's own segment is the lowest
    /// masked one (the coalescer addresses a request at its first touched byte).
    [[gnu::always_inline]] static void
    narrow_to_mask(const memsub::access& a, std::uint32_t spl, std::uint32_t seg_bytes,
                   std::uint64_t& requested, std::uint32_t& lo, std::uint32_t& hi,
                   std::uint32_t& first_seg, std::uint32_t& last_seg, std::uint32_t& req_bytes,
                   std::uint32_t& home_seg) noexcept {
        const std::uint64_t masked = std::uint64_t{a.sector_mask} & nonzero_low_bits_mask(spl);
        if (masked == 0) return;
        const auto segment_shift = static_cast<std::uint32_t>(std::countr_zero(seg_bytes));
        req_bytes = masked_request_bytes(masked, lo, hi, segment_shift);
        requested = masked;
        first_seg = static_cast<std::uint32_t>(std::countr_zero(masked));
        last_seg = 63u - static_cast<std::uint32_t>(std::countl_zero(masked));
        const std::uint32_t seg_lo = first_seg * seg_bytes, seg_hi = (last_seg + 1) * seg_bytes;
        if (!(lo > seg_lo && lo < seg_lo + seg_bytes)) lo = seg_lo;
        if (!(hi < seg_hi && hi > seg_hi - seg_bytes)) hi = seg_hi;
        home_seg = first_seg;
    }

    /// A variable-block miss declined (a bypass): a write-evict store still evicts the blocks
    /// it touched; the bytes are served without allocating.
    void decline_variable(const memsub::access& a, result_type& r, bypass_reason why, bool write,
                          entry_mask touched, std::uint32_t missing_bytes, set_index s,
                          const layout_type& L) noexcept {
        if constexpr (Options.writes == write_policy::write_evict) {
            if (write) {
                for (entry_mask m = touched; m != 0; m &= m - 1)
                    remove_into(r.evictions.emplace_back(), s, lowest_entry(m),
                                eviction_reason::write_evict, L);
                r.hit_block_left = touched != 0;
            }
        }
        serve_unallocated(a, r, why, write, missing_bytes);
    }

    /// The allocating part of a variable-block miss (access_variable's, after admission): out
    /// of line, so that the hit and bypass paths (most accesses of a GPU L1) stay small.
    [[gnu::noinline]] void fill_variable(const memsub::access& a, const block_spec given,
                                         const set_index s, const std::uint64_t line_key,
                                         const std::uint64_t requested, const std::uint64_t missing,
                                         const line_scan& line, const std::uint32_t home_seg,
                                         const bool write,
                                         [[maybe_unused]] const std::uint32_t missing_bytes,
                                         result_type& r) noexcept {
        const layout_type L = layout_;
        const block_spec spec = given; // checked by the caller
        const std::uint32_t span = spec.span_segments;
        const std::uint32_t stored = spec.stored_segments;
        const entry_mask touched = line.touched;
        const std::size_t base = slot(s, entry_index{0}, L);

        // The aligned span-sized pieces holding missing segments, and the resident blocks of
        // the line inside them (superseded: they merge into the new blocks). Without a loop
        // over the line's pieces: a piece's bits below its top plus their mask carry into the
        // top bit iff one of them is set, so `tops` holds the top bit of each such piece.
        const std::uint64_t piece = nonzero_low_bits_mask(span);
        const std::uint64_t top_bits = piece_top_bits(span);
        const std::uint64_t tops = (((missing & ~top_bits) + ~top_bits) | missing) & top_bits;
        const std::uint64_t new_segments = (tops - (tops >> (span - 1))) | tops;
        entry_mask superseded = 0;
        std::uint32_t superseded_segments = 0;
        for (entry_mask m = line.blocks; m != 0; m &= m - 1) {
            const std::size_t i = base + std::countr_zero(m);
            if ((segments_of(i, line_key) & new_segments) != 0) {
                superseded |= m & (~m + 1);
                superseded_segments += stored_[i];
            }
        }

        // O3 is asked before anything changes (P3): only when the set lacks room for the new
        // blocks even after the superseded ones merge into them.
        if constexpr (replacement::may_bypass<policy_type>) {
            const std::uint32_t new_blocks = popcount64(tops);
            const set_state& st = state_of(s, L);
            const auto free_tags = static_cast<std::uint32_t>(
                std::popcount(~st.valid & all_entries(L)) + std::popcount(superseded));
            const std::uint32_t free_segs =
                segments_per_set() - st.used_segments + superseded_segments;
            if ((new_blocks > free_tags || new_blocks * stored > free_segs) &&
                policy_.should_bypass(s, a)) {
                decline_variable(a, r, bypass_reason::policy, write, touched, missing_bytes, s, L);
                return;
            }
        }

        // P6: the superseded blocks leave first (before any victim is chosen, so none can be
        // named twice); their state merges into the new block that covers them, kept here as
        // masks of the line's segments.
        std::uint64_t merged_dirty = 0, merged_reused = 0, merged_touched = 0;
        for (entry_mask m = superseded; m != 0; m &= m - 1) {
            const entry_index e = lowest_entry(m);
            const std::size_t i = base + e.value;
            const std::uint64_t segs = segments_of(i, line_key);
            const set_state& st = state_of(s, L);
            merged_dirty |= contains_entry(st.dirty, e) ? segs : 0u;
            merged_reused |= contains_entry(st.reused, e) ? segs : 0u;
            merged_touched |= touched_[i] << (tags_[i] - line_key);
            remove_into(r.evictions.emplace_back(), s, e, eviction_reason::superseded, L);
        }
        entry_mask inserted = 0;
        entry_mask home_filled = 0; // the inserted block holding segment home_seg (or 0)
        std::uint32_t filled = 0;
        set_state& st = state_of(s, L);
        for (std::uint64_t m = tops; m != 0; m &= m - 1) { // in address order
            const auto off = static_cast<std::uint32_t>(std::countr_zero(m)) + 1u - span;
            const std::uint64_t region = piece << off;
            // P4: victims (never a block this access inserted) until a tag and the segments
            // are free.
            while ((~st.valid & all_entries(L)) == 0 ||
                   st.used_segments + stored > segments_per_set()) {
                entry_mask eligible = st.valid & ~inserted;
                // Short of segments only: a tag-only block would free none (P4).
                if (MEMSUB_UNLIKELY(st.tag_only_blocks != 0) && (~st.valid & all_entries(L)) != 0)
                    eligible = data_blocks(s, eligible, L);
                MEMSUB_ASSERT(eligible != 0);
                const std::uint32_t short_segments =
                    st.used_segments + stored > segments_per_set()
                        ? st.used_segments + stored - segments_per_set()
                        : 0u;
                const entry_index v = replacement::choose_victim(
                    policy_, s, eligible, a,
                    replacement::room_request{.entries_needed =
                                                  (~st.valid & all_entries(L)) == 0 ? 1u : 0u,
                                              .segments_needed = short_segments,
                                              .incoming_bytes = span << L.segment_shift,
                                              .incoming_segments = stored});
                MEMSUB_ASSERT(contains_entry(eligible, v));
                remove_into(r.evictions.emplace_back(), s, v, eviction_reason::replacement, L);
                r.hit_block_left |= contains_entry(touched, v);
            }
            // P5: fill the lowest free entry.
            const entry_index e = lowest_entry(~st.valid & all_entries(L));
            const std::size_t i = base + e.value;
            tags_[i] = line_key + off;
            fingerprint_row(s, L)[e.value] = fingerprint_of(line_key);
            line_segments_[i] = region;
            stored_[i] = static_cast<std::uint8_t>(stored);
            payload_[i] = spec.payload;
            touched_[i] = ((merged_touched | requested) & region) >> off;
            st.used_segments += stored;
            st.tag_only_blocks += stored == 0 ? 1u : 0u;
            st.valid |= bit_of(e);
            const bool dirty = (merged_dirty & region) != 0 ||
                               (write && Options.writes == write_policy::write_back);
            st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{dirty});
            st.reused |= bit_of(e) & (entry_mask{0} - entry_mask{(merged_reused & region) != 0});
            inserted |= bit_of(e);
            home_filled |= bit_of(e) & (entry_mask{0} - ((region >> home_seg) & 1u));
            ++filled;
            notify_insert(s, e, a,
                          replacement::insert_info{
                              .address = byte_address{(line_key + off) << L.segment_shift},
                              .bytes = span << L.segment_shift,
                              .stored_segments = stored,
                              .payload = spec.payload});
        }
        stats_.fills += filled;
        r.blocks_filled += filled;
        // Only the segments not already resident come from the next level (the new blocks'
        // segments, less the rare resident ones: no popcount on a full miss); a writeback from
        // above overwrites the whole block, so nothing is fetched for it.
        if (a.kind != access_kind::writeback) {
            std::uint32_t fetched = filled * span;
            if (const std::uint64_t kept = new_segments & line.resident; MEMSUB_UNLIKELY(kept != 0))
                fetched -= popcount64(kept);
            fetched <<= L.segment_shift;
            r.bytes_fetched += fetched;
            stats_.bytes_fetched += fetched;
        }
        // The entry reported: the lowest block holding the first requested segment (an
        // inserted one, or one the request touched that is still there), else the lowest of
        // those blocks.
        const entry_mask holders = (line.homes & st.valid & ~inserted) | home_filled;
        r.entry = lowest_entry(holders != 0 ? holders : inserted | (touched & st.valid));
        r.payload = payload_[base + r.entry.value];
    }

    /// fill_variable's common case: one whole-line block into a line with no resident block
    /// (so none is superseded and the request touched none; its missing segments are all
    /// requested). The same steps and effects as the general path, without its per-piece
    /// loop, merge masks and superseded-block pass: O3 if the set lacks room, victims until a
    /// tag and the spec's segments are free, one insert into the lowest free entry.
    [[gnu::noinline]] void fill_whole_line(const memsub::access& a, const block_spec spec,
                                           const set_index s, const std::uint64_t line_key,
                                           const std::uint64_t requested, const bool write,
                                           [[maybe_unused]] const std::uint32_t missing_bytes,
                                           result_type& r) noexcept {
        const layout_type L = layout_;
        const std::uint32_t spl = segments_per_line(L);
        const std::uint32_t stored = spec.stored_segments;
        const std::uint32_t set_segments = segments_per_set();
        set_state& st = state_of(s, L);

        if constexpr (replacement::may_bypass<policy_type>) { // P3, before anything changes
            if (((~st.valid & all_entries(L)) == 0 || st.used_segments + stored > set_segments) &&
                policy_.should_bypass(s, a)) {
                decline_variable(a, r, bypass_reason::policy, write, 0, missing_bytes, s, L);
                return;
            }
        }
        // P4: victims until a tag and the segments are free.
        while ((~st.valid & all_entries(L)) == 0 || st.used_segments + stored > set_segments) {
            const bool tag_free = (~st.valid & all_entries(L)) != 0;
            entry_mask eligible = st.valid;
            // Short of segments only: a tag-only block would free none (P4).
            if (MEMSUB_UNLIKELY(st.tag_only_blocks != 0) && tag_free)
                eligible = data_blocks(s, eligible, L);
            MEMSUB_ASSERT(eligible != 0);
            const std::uint32_t short_segments = st.used_segments + stored > set_segments
                                                     ? st.used_segments + stored - set_segments
                                                     : 0u;
            const entry_index v = replacement::choose_victim(
                policy_, s, eligible, a,
                replacement::room_request{.entries_needed = tag_free ? 0u : 1u,
                                          .segments_needed = short_segments,
                                          .incoming_bytes = spl << L.segment_shift,
                                          .incoming_segments = stored});
            MEMSUB_ASSERT(contains_entry(eligible, v));
            remove_into(r.evictions.emplace_back(), s, v, eviction_reason::replacement, L);
        }
        // P5: fill the lowest free entry. A free entry is never reused (remove clears it), and
        // no block merges into this one, so its reused bit stays clear.
        const entry_index e = lowest_entry(~st.valid & all_entries(L));
        const std::size_t i = slot(s, e, L);
        tags_[i] = line_key;
        fingerprint_row(s, L)[e.value] = fingerprint_of(line_key);
        line_segments_[i] = nonzero_low_bits_mask(spl);
        stored_[i] = static_cast<std::uint8_t>(stored);
        payload_[i] = spec.payload;
        touched_[i] = requested; // within the line
        st.used_segments += stored;
        st.tag_only_blocks += stored == 0 ? 1u : 0u;
        st.valid |= bit_of(e);
        if constexpr (Options.writes == write_policy::write_back)
            st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{write});
        notify_insert(s, e, a,
                      replacement::insert_info{.address = byte_address{line_key << L.segment_shift},
                                               .bytes = spl << L.segment_shift,
                                               .stored_segments = stored,
                                               .payload = spec.payload});
        ++stats_.fills;
        r.blocks_filled = 1;
        // Nothing of the line was resident: the whole line comes from the next level, except
        // for a writeback from above, which overwrites it.
        if (a.kind != access_kind::writeback) {
            const std::uint32_t fetched = spl << L.segment_shift;
            r.bytes_fetched = fetched;
            stats_.bytes_fetched += fetched;
        }
        r.entry = e; // the new block holds every segment of the line
        r.payload = spec.payload;
    }

    /// The top bit of each aligned piece of `span` bits (a power of two ≤ 64) in a line mask.
    [[nodiscard]] static std::uint64_t piece_top_bits(std::uint32_t span) noexcept {
        static constexpr std::uint64_t tops[7] = {~std::uint64_t{0},     0xaaaaaaaaaaaaaaaaull,
                                                  0x8888888888888888ull, 0x8080808080808080ull,
                                                  0x8000800080008000ull, 0x8000000080000000ull,
                                                  0x8000000000000000ull};
        MEMSUB_ASSERT(std::has_single_bit(span) && span <= 64);
        return tops[std::countr_zero(span)];
    }

    // ------------------------------------------------------------ line-crossing references

    /// The reference's bytes lie in one line (size 0 asks for the whole line).
    [[nodiscard]] bool within_one_line(const memsub::access& a) const noexcept {
        const std::uint64_t line = std::uint64_t{1} << layout_.line_shift;
        return a.size == 0 || (a.address.value & (line - 1)) + a.size <= line;
    }

    /// access_spanning's reference over two or more lines, out of line so that the one-line
    /// path (nearly every reference) inlines `access` once.
    template <class Sink>
    [[gnu::noinline]] bool
    access_crossing(const memsub::access& a,
                    Sink& sink) noexcept(noexcept(sink(std::declval<const result_type&>()))) {
        const auto k = static_cast<std::size_t>(a.kind);
        bool missed = false;
        for_each_line_piece(a, layout_.line_shift, [&](const memsub::access& piece, bool first) {
            const result_type r = access(piece);
            if (!first) { // the same reference: one access, and one miss at most
                fold_counters();
                --stats_.by_kind[k].accesses;
                if (!r.hit && missed) --stats_.by_kind[k].misses;
            }
            missed |= !r.hit;
            sink(r);
        });
        return missed;
    }

    // ------------------------------------------------------------ read-modify-write
    // The read is performed as a read of `a.kind` (counted, looked up, allocated as a read
    // would be); the write then applies, as a store hit would, to the requested bytes the read
    // left resident: a write-back cache marks their blocks dirty; a write-through cache sends
    // the bytes down (and, given a spec, resizes as a store hit does, P8); a write-evict cache
    // sends them down and evicts the blocks. A write-evict cache does not allocate for a
    // read-modify-write (its write would evict the line at once, as for a store miss:
    // `write_no_allocate`). A read that did not allocate sends the written bytes down. No
    // second access or miss is counted (cachegrind counts a modify as one data read).

    // Out of line: the plain access path stays as small as it was. `spec_of` is null for an
    // access without a spec.
    template <class SpecFn>
    [[gnu::noinline, gnu::cold]] result_type access_read_modify_write(const memsub::access& a,
                                                                      SpecFn* spec_of) noexcept {
        memsub::access read = a;
        bool evict_rule = false; // the write-evict no-allocate rule declines, not the host
        if constexpr (Options.writes == write_policy::write_evict) {
            evict_rule = !a.hints.no_allocate && !is_write(a.kind);
            read.hints.no_allocate = true;
        }
        result_type r;
        if constexpr (variable_blocks) {
            whole_line_spec whole{segments_per_line(layout_)};
            r = spec_of != nullptr ? access_variable(read, *spec_of, true)
                                   : access_variable(read, whole, false);
        } else {
            r = access_conventional(read);
        }
        if (evict_rule && r.bypass == bypass_reason::host_no_allocate) {
            r.bypass = bypass_reason::write_no_allocate;
            --stats_.bypasses_by_reason[static_cast<std::size_t>(bypass_reason::host_no_allocate)];
            ++stats_.bypasses_by_reason[static_cast<std::size_t>(bypass_reason::write_no_allocate)];
        }
        write_after_read(a, r, spec_of);
        return r;
    }

    template <class SpecFn>
    void write_after_read(const memsub::access& a, result_type& r, SpecFn* spec_of) noexcept {
        if (is_write(a.kind)) return; // a store or writeback has written already
        const layout_type L = layout_;
        entry_mask blocks = 0; // the blocks holding the requested bytes
        std::uint32_t bytes = request_bytes(a, L);
        if constexpr (variable_blocks) {
            const std::uint32_t spl = segments_per_line(L);
            const std::uint32_t line_bytes = 1u << L.line_shift;
            const std::uint64_t line_key = (a.address.value >> L.line_shift) * spl;
            const auto offset = static_cast<std::uint32_t>(a.address.value & (line_bytes - 1));
            std::uint32_t lo = a.size == 0 ? 0u : offset;
            std::uint32_t hi = a.size == 0 ? line_bytes : offset + bytes;
            bytes = hi - lo;
            std::uint32_t first_seg = lo >> L.segment_shift;
            std::uint32_t last_seg = (hi - 1) >> L.segment_shift;
            std::uint64_t requested = low_bits_mask(last_seg - first_seg + 1) << first_seg;
            std::uint32_t home_seg = 0; // unused here
            if (a.sector_mask != 0)
                narrow_to_mask(a, spl, 1u << L.segment_shift, requested, lo, hi, first_seg,
                               last_seg, bytes, home_seg);
            if (r.hit || r.filled()) {
                const line_view line = line_blocks(r.set, line_key, L);
                if ((requested & ~line.resident) == 0) {
                    const std::size_t base = slot(r.set, entry_index{0}, L);
                    for (entry_mask m = line.blocks; m != 0; m &= m - 1) {
                        const entry_index e = lowest_entry(m);
                        if ((segments_of(base + e.value, line_key) & requested) != 0)
                            blocks |= bit_of(e);
                    }
                }
            }
        } else if (r.hit || r.filled()) {
            blocks = bit_of(r.entry);
        }
        if constexpr (Options.writes == write_policy::write_back) {
            if (blocks != 0) {
                state_of(r.set, L).dirty |= blocks;
                if constexpr (variable_blocks)
                    if (spec_of != nullptr)
                        resize_touched(r.set, blocks, checked_spec((*spec_of)(a)), a, r, L);
                return;
            }
        }
        r.bytes_written_down += bytes;
        stats_.bytes_written_down += bytes;
        if constexpr (Options.writes == write_policy::write_through && variable_blocks) {
            if (blocks != 0 && spec_of != nullptr)
                resize_touched(r.set, blocks, checked_spec((*spec_of)(a)), a, r, L);
        } else if constexpr (Options.writes == write_policy::write_evict) {
            for (entry_mask m = blocks; m != 0; m &= m - 1)
                remove_into(r.evictions.emplace_back(), r.set, lowest_entry(m),
                            eviction_reason::write_evict, L);
            r.hit_block_left |= blocks != 0;
        }
        (void)spec_of;
    }

    [[no_unique_address]] Geometry geometry_;
    [[no_unique_address]] policy_type policy_;
    [[no_unique_address]] Bypass bypass_;
    [[no_unique_address]] layout_type layout_;
    // Cache-line aligned: a set's tags start on a line (core/aligned_allocator.hpp).
    std::vector<std::uint64_t, aligned_allocator<std::uint64_t>> tags_;
    std::vector<std::uint8_t> stored_;
    std::vector<std::uint64_t> touched_;
    /// Variable blocks: the segments of its line each entry's block covers (bit i = segment i
    /// of the line), set with the tag: one run, so its length is the block's span (span_of).
    std::vector<std::uint64_t> line_segments_;
    std::vector<std::uint32_t> payload_;
    std::vector<header_block> headers_;
    /// Decision: the conventional access path does not update cache_stats' fields; it keeps
    /// the few counts the others follow from (conventional_counters), and stats() folds them
    /// in. A miss there used to update seven counters (accesses and misses of its kind, fills,
    /// bytes fetched, evictions, writebacks, bytes written back), each a load and a store the
    /// plain loops a host compares with do not have; it now updates two (misses of its kind,
    /// writebacks), a hit one. Considered: returning cache_stats by value (breaks hosts that
    /// hold `const cache_stats&` from an accessor, e.g. adaptive_line_cache); keeping the
    /// fields (the cost above).
    struct conventional_counters {
        std::array<std::uint64_t, access_kind_count> hits{};   ///< hits, by kind
        std::array<std::uint64_t, access_kind_count> misses{}; ///< misses, by kind
        /// Misses that allocated nothing (a bypass of any reason), by kind.
        std::array<std::uint64_t, access_kind_count> unfilled{};
        std::uint64_t free_fills = 0; ///< fills into a free entry: no victim left
        std::uint64_t writebacks = 0; ///< dirty replacement victims
    };
    /// Adds the conventional path's counts to `stats_` (every other path updates it directly):
    /// a conventional miss fills one line unless it allocated nothing; a fill evicts a victim
    /// unless its entry was free; a fill fetches the line unless a writeback from above wrote
    /// it whole; a victim written back is a whole line.
    void fold_counters() const noexcept {
        if constexpr (!variable_blocks) {
            const std::uint64_t line_bytes = std::uint64_t{1} << layout_.line_shift;
            std::uint64_t fills = 0, fetching_fills = 0;
            for (std::size_t k = 0; k < access_kind_count; ++k) {
                kind_counters& c = stats_.by_kind[k];
                c.accesses += counters_.hits[k] + counters_.misses[k];
                c.misses += counters_.misses[k];
                const std::uint64_t filled = counters_.misses[k] - counters_.unfilled[k];
                fills += filled;
                if (static_cast<access_kind>(k) != access_kind::writeback) fetching_fills += filled;
            }
            stats_.fills += fills;
            stats_.bytes_fetched += fetching_fills * line_bytes;
            stats_.evictions += fills - counters_.free_fills;
            stats_.writebacks += counters_.writebacks;
            stats_.bytes_written_back += counters_.writebacks * line_bytes;
            counters_ = conventional_counters{};
        }
    }
    mutable conventional_counters counters_{};
    mutable cache_stats stats_{};
};

/// A conventional set-associative cache (one block = one line).
template <replacement::replacement_policy Policy, write_policy Writes = write_policy::write_back,
          geometry_like Geometry = geometry, bypass::bypass_predictor Bypass = bypass::never>
using set_associative_cache =
    basic_cache<Policy, cache_options{.writes = Writes, .max_block_segments = 1}, Geometry, Bypass>;

/// A cache whose blocks have variable size: `MaxBlockSegments` is the largest block in data
/// segments (ID-Cache ALSI: 4 for 128B lines of 32B segments; compressed caches likewise).
template <replacement::replacement_policy Policy, std::uint32_t MaxBlockSegments,
          write_policy Writes = write_policy::write_back, geometry_like Geometry = geometry,
          bypass::bypass_predictor Bypass = bypass::never>
using variable_block_cache =
    basic_cache<Policy, cache_options{.writes = Writes, .max_block_segments = MaxBlockSegments},
                Geometry, Bypass>;

} // namespace memsub::cache
