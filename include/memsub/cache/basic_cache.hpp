// memsub — the set engine: one engine for conventional, variable-line and compressed caches.
//
// A set has tag entries and a data budget in segments. A resident block is (tag, address span,
// stored size in segments) plus the replacement policy's per-entry state, which the policy keeps
// itself. Insertion needs a free tag entry and enough free segments; the policy chooses victims
// among the valid entries until both exist, and every departing block is reported to the caller and
// to the policy.
//
// Organisations:
//  * conventional (`cache_options::max_block_segments == 1`): tags = ways, a segment is a line,
//    one block = the whole line. Lookup is a tag compare; this is the fast path.
//  * variable-size blocks (`max_block_segments > 1`): a block covers an aligned power-of-two
//    number of segments of one line (ID-Cache ALSI: 32/64/128B of a 128B line) or a whole line
//    stored in fewer segments (a compressed line). The data budget is a count of free segments:
//    a set is assumed compacted, as in the compressed caches it models, so there is no
//    fragmentation.
//    Deviation: [Dissertation] §3.2.4 organises variable line sizes as Amoeba-Cache does, each
//    set an array of 8 B blocks holding tag or data, so tags take data capacity. memsub keeps a
//    separate tag store (`geometry::tags_per_set`, e.g. one tag per possible 32 B block) and does
//    not charge tags to the segment budget, so the budget means the same for the variable-line
//    and the compressed organisations.
//
// Requests (variable-size blocks). An access requests the bytes [address, address + size) of one
// line (size 0 = the whole line; bytes past the line's end are ignored: `access_spanning` runs a
// line-crossing reference over each of its lines, counted as cachegrind counts it), or, when
// `access::sector_mask` is not 0, the masked segments of its line, each whole (a GPU line request's
// touched sectors, which need not be one run; conventional caches ignore the mask: a line is their
// only segment, so the Fermi L1 hits iff the line is resident and fetches it whole). It hits when
// every requested segment is resident. Otherwise it is a miss, "partial" when some requested
// segments are resident: the resident blocks it touches served part of it and count as used, and
// only the missing segments are fetched, in aligned blocks of the span the host asks for — one
// block per span-sized piece that holds a missing requested segment. A smaller resident block
// inside a new block is superseded: its data merges into the new block (its dirtiness moves
// there, nothing is written back).
// Decision: a partial miss fetches only the missing blocks, at the size the host asks for, and
// never re-fetches what is resident. [Dissertation] §3.2.4 (ALSI, Algorithm 4) inserts "the line"
// of the predicted size and leaves open what a later access to other bytes of the same 128 B line
// does; fetching only what is missing is what a sectored cache does and what ALSI's aim (moving
// fewer unused bytes) asks for. Re-fetching the whole predicted block was considered: it would
// count resident bytes as traffic twice. A request's bytes that span several blocks of the
// predicted size insert each of them (the aligned blocks holding the request).
//
// Composition. A cache's insertion decisions are compile-time parts of the engine, each a
// policy of its family's concept: the replacement policy (`Policy`, which block leaves), the
// bypass predictor (`Bypass`, whether a missing block enters; `bypass::never` by default) and
// the line-size predictor (`Sizer`, how large the blocks a miss inserts are; variable-block
// caches only; `linesize::whole_line` by default). The engine asks each only when its decision
// is needed — the policy for a victim, the bypass predictor on an allocating miss, the line-size
// predictor when the access stores data —, tells each of every departure whatever its cause
// (eviction, invalidation, flush, supersession) in that order, and sums their bits in
// `storage_bits()`. A host that knows a block's shape itself (a compressor's size) passes it
// with the access (`access(a, spec)`, `access(a, spec_of)`), which takes the place of the
// line-size predictor's answer for that access.
// Decision: the line-size predictor is an engine parameter like the bypass predictor, not a
// wrapper around the cache. A wrapper saw only the departures of its own accesses (not those of
// `invalidate` or `flush` on the cache inside it), needed its own accessors for the cache, and
// made line size the one decision a `cache::hierarchy` level could not carry.
//
// Allocation (bypass/concept.hpp, Q1): on a miss the host's `no_allocate`, the write strategy's
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
// Writes (cache_options::writes, run as the strategy type write_strategy_t<writes>,
// cache/write_strategy.hpp):
//  * write_back    — write-allocate (a store miss fetches the line), stores mark blocks dirty,
//                    dirty blocks are reported when they leave; a `writeback` access from the
//                    level above allocates without fetching (it overwrites the whole block).
//  * write_through — stores update a resident block and always go to the next level; store
//                    misses do not allocate. Blocks are never dirty.
//  * write_evict   — GPU L1 style (Fermi): a store invalidates the blocks it touches, every
//                    store goes to the next level, store misses do not allocate.
// A `read_modify_write` access is its read (one access of its kind, allocated as a read) and then
// the write as a store hit on the bytes the read left resident (detail/read_modify_write.hpp).
//
// The engine is split by job into layers, each a class template deriving from the one before:
// the set storage and lookups (detail/set_layout.hpp), what every path shares — departures,
// admission, notifications, counters, the write port (detail/cache_core.hpp,
// detail/counters.hpp) —, the conventional path (detail/conventional_path.hpp), the
// variable-block path (detail/variable_path.hpp) and read-modify-write
// (detail/read_modify_write.hpp); basic_cache derives from the last and holds the public
// members. Line-crossing references (detail/line_crossing.hpp) run through the public access.
// Decision: layers by inheritance rather than component objects or free functions over an
// accessor. Every path reads the same storage members directly through `this`, as one class
// did, so the inlined hot path is the same code: a component holding a reference to the
// storage would add a pointer the compiler must prove unchanged across stores, and free
// functions would need every member exposed to them. The layers have no virtual functions; the
// storage layer holds the sets and the core the counters, the others no data.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/never.hpp>
#include <memsub/cache/access_result.hpp>
#include <memsub/cache/cache_options.hpp>
#include <memsub/cache/detail/cache_core.hpp>
#include <memsub/cache/detail/conventional_path.hpp>
#include <memsub/cache/detail/line_crossing.hpp>
#include <memsub/cache/detail/read_modify_write.hpp>
#include <memsub/cache/detail/set_layout.hpp>
#include <memsub/cache/detail/variable_path.hpp>
#include <memsub/cache/write_strategy.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/bits.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>
#include <memsub/linesize/concept.hpp>
#include <memsub/linesize/whole_line.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::cache {

namespace detail {
/// The engine's layers, bottom to top (see the top of this file).
template <class Policy, cache_options Options, class Geometry, class Bypass, class Sizer>
using cache_engine = read_modify_write<
    variable_path<conventional_path<cache_core<Policy, Options, Geometry, Bypass, Sizer>>>>;
} // namespace detail

template <replacement::replacement_policy Policy, cache_options Options = cache_options{},
          geometry_like Geometry = geometry, bypass::bypass_predictor Bypass = bypass::never,
          linesize::line_size_predictor Sizer = linesize::whole_line>
class basic_cache : public detail::cache_engine<Policy, Options, Geometry, Bypass, Sizer> {
    using engine = detail::cache_engine<Policy, Options, Geometry, Bypass, Sizer>;
    friend struct detail::line_crossing;
    static_assert(Options.variable_blocks() || std::same_as<Sizer, linesize::whole_line>,
                  "a line-size predictor needs a variable-block cache (max_block_segments > 1): "
                  "in a conventional cache every block is the whole line");
    static constexpr bool sizes_blocks = !std::same_as<Sizer, linesize::whole_line>;

public:
    /// The policy the cache runs: `Policy`, or its compile-time-shaped form (O6) when the
    /// geometry is a compile-time constant.
    using policy_type = typename engine::policy_type;
    using policy_params = typename Policy::params;
    using bypass_type = Bypass;
    using bypass_params = typename Bypass::params;
    /// The line-size part (`linesize::whole_line` unless a predictor sizes the blocks).
    using sizer_type = Sizer;
    using sizer_params = typename Sizer::params;
    using geometry_type = Geometry;
    using result_type = access_result<Options.max_evictions()>;
    /// The write policy's strategy type (cache/write_strategy.hpp).
    using write_strategy = write_strategy_t<Options.writes>;
    static constexpr cache_options options = Options;
    static constexpr bool variable_blocks = Options.variable_blocks();

    /// Builds an empty cache; throws `config_error` for a bad geometry or params (the
    /// policy's, the bypass predictor's, the line-size predictor's).
    explicit basic_cache(const Geometry& g = Geometry{}, const policy_params& params = {},
                         const bypass_params& bypass = {}, const sizer_params& sizer = {})
        : engine(g, params, bypass, sizer) {}

    // ---------------------------------------------------------------- accesses

    /// Performs one access. In a conventional cache the block is the whole line; in a
    /// variable-block cache a miss inserts the missing part of the request as whole lines, or,
    /// with a line-size predictor, as blocks of the size it gives: the same as
    /// `access(a, spec_of)` with a spec source asking the predictor (LP1–LP3 of
    /// linesize/concept.hpp). A `read_modify_write` access is the read, then the write applied
    /// to what the read left resident (detail/read_modify_write.hpp).
    [[gnu::always_inline]] result_type access(const memsub::access& a) noexcept {
        if constexpr (sizes_blocks) {
            auto predicted = [this](const memsub::access& x) noexcept { return predicted_spec(x); };
            if (MEMSUB_UNLIKELY(a.read_modify_write))
                return access_read_modify_write(a, &predicted);
            return access_variable(a, predicted, true);
        } else if constexpr (variable_blocks) {
            whole_line_spec whole{segments_per_line(layout_)};
            if (MEMSUB_UNLIKELY(a.read_modify_write))
                return access_read_modify_write(a, static_cast<whole_line_spec*>(nullptr));
            return access_variable(a, whole, false);
        } else if constexpr (writes::tracks_dirty) {
            // A read-modify-write is handled inline there: its write only dirties the line
            // the read left resident.
            return access_conventional(a);
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
        this->prefetch_tag_lines(&tags_[slot(s, entry_index{0}, L)], (L.entries + 7u) / 8u);
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
        if (MEMSUB_LIKELY(detail::line_crossing::within_one_line(*this, a))) {
            const result_type r = access(a);
            sink(r);
            return !r.hit;
        }
        return detail::line_crossing::access_crossing(*this, a, sink);
    }

    /// `access_all` with each reference counted as `access_spanning` counts it (cachegrind's
    /// rules). `sink(const access&, const result_type&)` is called after each line's access,
    /// with the part of the reference in that line. Everything runs through one `access_all`
    /// call site (runs of one-line references, and a line-crossing reference as its pieces,
    /// then its counts corrected), so the engine's access path is inlined once
    /// (detail/line_crossing.hpp).
    template <class Sink>
    void access_all_spanning(std::span<const memsub::access> batch, Sink&& sink) noexcept(
        noexcept(sink(batch[0], std::declval<const result_type&>()))) {
        detail::line_crossing::access_all_spanning(*this, batch, sink);
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
        if constexpr (writes::tracks_dirty) {
            detail::set_state& st = state_of(loc.set, layout_);
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
        counters_ = detail::conventional_counters{};
    }

    [[nodiscard]] policy_type& policy() noexcept { return policy_; }
    [[nodiscard]] const policy_type& policy() const noexcept { return policy_; }
    [[nodiscard]] Bypass& bypass_predictor() noexcept { return bypass_; }
    [[nodiscard]] const Bypass& bypass_predictor() const noexcept { return bypass_; }
    /// The line-size part (LP1–LP5 of linesize/concept.hpp).
    [[nodiscard]] Sizer& sizer() noexcept { return sizer_; }
    [[nodiscard]] const Sizer& sizer() const noexcept { return sizer_; }
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
               bypass::storage_bits_of(bypass_) + linesize::storage_bits_of(sizer_);
    }

private:
    using engine::access_conventional;
    using engine::access_read_modify_write;
    using engine::access_variable;
    using engine::all_entries;
    using engine::block_address;
    using engine::bypass_;
    using engine::contains_entry;
    using engine::counters_;
    using engine::fold_counters;
    using engine::geometry_;
    using engine::header;
    using engine::host_reason;
    using engine::key_of;
    using engine::layout_;
    using engine::line_blocks;
    using engine::match;
    using engine::payload_of;
    using engine::policy_;
    using engine::remove;
    using engine::scan_line;
    using engine::segments_per_line;
    using engine::segments_per_set;
    using engine::set_of;
    using engine::sizer_;
    using engine::slot;
    using engine::span_of;
    using engine::state_of;
    using engine::stats_;
    using engine::stored_of;
    using engine::tags_;
    using engine::touched_of;
    using typename engine::layout_type;
    using typename engine::whole_line_spec;
    using typename engine::writes;

    /// The block shape the line-size predictor gives `a` (LP2, LP3): a span of its answer in
    /// segments, stored uncompressed. An answer the geometry cannot insert is corrected and
    /// counted like any spec (`cache_stats::specs_clamped`).
    [[nodiscard]] block_spec predicted_spec(const memsub::access& a) noexcept {
        const std::uint32_t bytes = sizer_.block_bytes(set_of(a.address, layout_), a);
        const std::uint32_t span = bytes >> layout_.segment_shift;
        return block_spec{span, span, 0};
    }
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
          bypass::bypass_predictor Bypass = bypass::never,
          linesize::line_size_predictor Sizer = linesize::whole_line>
using variable_block_cache =
    basic_cache<Policy, cache_options{.writes = Writes, .max_block_segments = MaxBlockSegments},
                Geometry, Bypass, Sizer>;

} // namespace memsub::cache
