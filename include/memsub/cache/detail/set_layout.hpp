// memsub — the set engine's storage: how a cache's sets are laid out in memory and the lookups
// every path shares. The first layer of basic_cache (cache/basic_cache.hpp says how the layers
// stack); nothing here changes a block.
//
// A set is a header of one or more 64-byte blocks — the set's state (valid, dirty and reused
// masks; the variable-block segment counts), then the entries' one-byte tag fingerprints and,
// when it fits in the spare bytes, the replacement policy's per-set row (O5 of
// replacement/concept.hpp) — plus the entries' tags in a separate array, so a lookup touches
// one cache line before the tag it verifies. Variable-block caches keep per entry, beside the
// tag, the segments of its line the block covers, its stored size, the segments requested
// while it was resident and the user's payload.
//
// Geometry-derived constants (shifts, masks, strides) live in a layout: `runtime_layout` for a
// runtime `geometry`, `fixed_layout` for a `fixed_geometry`, whose members are all constants, so
// a compile-time-shaped cache's index arithmetic folds away.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <vector>

#include <memsub/bypass/concept.hpp>
#include <memsub/cache/access_result.hpp>
#include <memsub/cache/cache_options.hpp>
#include <memsub/config.hpp>
#include <memsub/core/bits.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/huge_page_allocator.hpp>
#include <memsub/core/types.hpp>
#include <memsub/linesize/concept.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::cache::detail {

/// Tag lines (64 bytes, eight tags) of a set that a lookup prefetches before it compares the
/// fingerprints: all of them when the cache's metadata (64-byte header blocks and 8-byte tags
/// of every set) is at least `tag_prefetch_min_bytes`, else none.
///
/// Decision: a lookup reads the set's header, and only then the tag line of the one candidate
/// the fingerprints name (or of the victim), so on a cache whose metadata outgrows the core's
/// L2 the two misses came one after the other. Prefetching the set's tag lines first overlaps
/// them. On caches that fit in the L2 the prefetches only add instructions, hence the size
/// threshold, 1 MiB (figures: docs/performance/miss_path.md, "Prefetching the tag lines").
inline constexpr std::uint64_t tag_prefetch_min_bytes = std::uint64_t{1} << 20;
[[nodiscard]] constexpr std::uint32_t
prefetched_tag_lines(std::uint64_t sets, std::uint32_t entries,
                     std::uint32_t blocks_per_header) noexcept {
    const std::uint64_t bytes = sets * (std::uint64_t{blocks_per_header} * 64u + 8u * entries);
    return bytes >= tag_prefetch_min_bytes ? (entries + 7u) / 8u : 0u;
}

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
    std::uint32_t prefetched_tag_lines = 0; ///< see memsub::cache::detail::prefetched_tag_lines
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
    static constexpr std::uint32_t prefetched_tag_lines =
        detail::prefetched_tag_lines(G::sets, entries, HeaderBlocks);
};

/// Entries per set of a compile-time geometry (fixed_geometry), 0 for the runtime `geometry`.
template <class Geometry>
consteval std::uint32_t compile_time_entries() {
    if constexpr (std::same_as<Geometry, geometry>)
        return 0;
    else
        return static_cast<geometry>(Geometry{}).entries_per_set();
}

// dirty and reused, which a hit and a fill update together, are not adjacent: GCC's SLP
// vectorizer would merge the two updates into a 16-byte vector operation assembled from
// general registers, which costs more than it saves (same as cache_stats' field order).
struct set_state {
    entry_mask valid = 0;
    entry_mask dirty = 0;
    std::uint32_t used_segments = 0; // only variable-block caches use it
    // Tag-only blocks (0 segments) in the set: while there are none, a victim for segments
    // needs no filter (P4 of replacement/concept.hpp), so caches that never store one pay a
    // predicted branch.
    std::uint32_t tag_only_blocks = 0;
    entry_mask reused = 0;
};

/// One 64-byte block of a set's header.
struct alignas(64) header_block {
    std::byte bytes[64];
};
/// Where the fingerprints start in a set's header: after its set_state.
inline constexpr std::size_t fingerprint_offset = 32;
static_assert(sizeof(set_state) <= fingerprint_offset);
/// 64-byte header blocks a set of `entries` entries needs (state + fingerprints).
constexpr std::uint32_t header_blocks(std::uint32_t entries) noexcept {
    const std::size_t bytes = fingerprint_offset + padded_row_bytes(entries);
    return static_cast<std::uint32_t>((bytes + 63) / 64);
}
/// Where a hosted policy row (O5) starts in the header: after the fingerprints.
constexpr std::size_t policy_row_offset(std::uint32_t entries) noexcept {
    return fingerprint_offset + padded_row_bytes(entries);
}
/// Whether a policy row of `row_bytes` fits the spare bytes of the header (O5 hosts it then).
constexpr bool policy_row_fits(std::uint32_t entries, std::size_t row_bytes) noexcept {
    return policy_row_offset(entries) + row_bytes <= std::size_t{64} * header_blocks(entries);
}

/// The layout type of a geometry type.
template <class Geometry>
using layout_of =
    std::conditional_t<std::same_as<Geometry, geometry>, runtime_layout,
                       fixed_layout<Geometry, header_blocks(compile_time_entries<Geometry>())>>;

/// The storage of a cache: its policy, predictor, layout and per-set arrays, and the lookups
/// (the set of an address, its tag key, the fingerprint scans) every path uses.
template <replacement::replacement_policy Policy, cache_options Options, geometry_like Geometry,
          bypass::bypass_predictor Bypass, linesize::line_size_predictor Sizer>
class set_storage {
protected:
    using policy_type = replacement::shaped_policy_t<Policy, compile_time_entries<Geometry>()>;
    static_assert(replacement::replacement_policy<policy_type>);
    using policy_params = typename Policy::params;
    using bypass_params = typename Bypass::params;
    using sizer_params = typename Sizer::params;
    using result_type = access_result<Options.max_evictions()>;
    using layout_type = layout_of<Geometry>;
    /// The write policy's strategy (cache/write_strategy.hpp).
    using writes = write_strategy_t<Options.writes>;
    static constexpr cache_options options = Options;
    static constexpr bool variable_blocks = Options.variable_blocks();
    static constexpr bool fixed = !std::same_as<Geometry, geometry>;
    /// O9: the policy's rows are in the set headers at an offset and stride known at compile
    /// time (a fixed geometry, a policy of fixed shape whose row fits the header's spare bytes,
    /// where the constructor places it), so the engine hands the policy its row.
    /// Decision: compile-time shapes only, where the fit is a constant. A runtime geometry would
    /// have to test on every access whether the row was placed (not built or measured).
    static constexpr bool rows_addressed = [] {
        if constexpr (fixed && replacement::addresses_rows<policy_type>) {
            return policy_row_fits(compile_time_entries<Geometry>(),
                                   policy_type::hosted_row_bytes());
        } else {
            return false;
        }
    }();

    /// Builds an empty cache; throws `config_error` for a bad geometry or params.
    set_storage(const Geometry& g, const policy_params& params, const bypass_params& bypass,
                const sizer_params& sizer)
        : geometry_(validated(g))
        , policy_(static_cast<geometry>(g), params)
        , bypass_(static_cast<geometry>(g), bypass)
        , sizer_(static_cast<geometry>(g), sizer)
        , layout_(make_layout(g))
        , tags_(g.total_entries(), 0)
        , headers_(std::size_t{g.sets} * header_blocks(g.entries_per_set())) {
        const std::uint32_t blocks = header_blocks(g.entries_per_set());
        for (std::uint32_t s = 0; s < g.sets; ++s)
            ::new (static_cast<void*>(&headers_[std::size_t{s} * blocks])) set_state{};
        host_policy_rows();
        if constexpr (variable_blocks) {
            line_segments_.assign(g.total_entries(), 0);
            stored_.assign(g.total_entries(), 0);
            touched_.assign(g.total_entries(), 0);
            payload_.assign(g.total_entries(), 0);
        }
    }

    /// A copy's policy owns its rows (a copied policy never aliases the cache it was copied
    /// from, replacement/set_rows.hpp); the copy hosts them in its own headers again, as the
    /// original does. Where the engine addresses the rows itself (O9) it must: it reads and
    /// writes them in the headers, where a policy keeping its own rows would never look.
    set_storage(const set_storage& other)
        : geometry_(other.geometry_)
        , policy_(other.policy_)
        , bypass_(other.bypass_)
        , sizer_(other.sizer_)
        , layout_(other.layout_)
        , tags_(other.tags_)
        , stored_(other.stored_)
        , touched_(other.touched_)
        , line_segments_(other.line_segments_)
        , payload_(other.payload_)
        , headers_(other.headers_) {
        host_policy_rows();
    }
    set_storage& operator=(const set_storage& other) {
        if (this != &other) {
            set_storage copy(other);
            *this = std::move(copy);
        }
        return *this;
    }
    /// A move keeps hosted rows where they are: the header storage moves with them.
    set_storage(set_storage&&) = default;
    set_storage& operator=(set_storage&&) = default;
    ~set_storage() = default;

    /// O5: the policy's per-set row goes into the header's spare bytes when it fits there (a
    /// 16-way set: 32 B state + 16 fingerprints + 16 B row = one 64-byte line). At
    /// construction and in a copy.
    void host_policy_rows() noexcept {
        if constexpr (replacement::places_rows<policy_type>) {
            const std::uint32_t entries = static_cast<geometry>(geometry_).entries_per_set();
            if (policy_row_fits(entries, policy_.row_bytes()))
                policy_.place_rows(reinterpret_cast<std::byte*>(headers_.data()) +
                                       policy_row_offset(entries),
                                   std::size_t{64} * header_blocks(entries));
            if constexpr (rows_addressed)
                MEMSUB_ASSERT(policy_.row_bytes() == policy_type::hosted_row_bytes());
        }
    }

    static layout_type make_layout(const Geometry& g) noexcept {
        if constexpr (fixed) {
            return {};
        } else {
            return runtime_layout{
                .line_shift = log2_exact(g.line_bytes),
                .segment_shift = log2_exact(g.segment_size()),
                .entries = g.entries_per_set(),
                .header_shift = log2_exact(header_blocks(g.entries_per_set())),
                .fingerprint_stride = padded_row_bytes(g.entries_per_set()),
                .set_mask = g.sets - 1u,
                .all_entries = low_bits_mask(g.entries_per_set()),
                .prefetched_tag_lines = detail::prefetched_tag_lines(
                    g.sets, g.entries_per_set(), header_blocks(g.entries_per_set()))};
        }
    }

    static const Geometry& validated(const Geometry& g) {
        g.validate("memsub::cache geometry");
        const geometry rg = static_cast<geometry>(g);
        if constexpr (!variable_blocks) {
            static_assert(Options.payload_bits == 0,
                          "cache_options.payload_bits: a conventional cache has no payload");
            memsub::require(rg.entries_per_set() == rg.ways && rg.segments_per_line() == 1,
                            "memsub::cache", "cache_options.max_block_segments", 1,
                            "segments smaller than a line or extra tags need "
                            "max_block_segments >= segments per line");
        } else {
            memsub::require(Options.payload_bits <= 32, "memsub::cache",
                            "cache_options.payload_bits", Options.payload_bits,
                            "must be at most 32 (block_spec::payload's width)");
            memsub::require(Options.max_block_segments >= rg.segments_per_line() &&
                                Options.max_block_segments <= 64,
                            "memsub::cache", "cache_options.max_block_segments",
                            Options.max_block_segments, "must be in [segments per line, 64]");
            // One access may cut a whole line into its smallest blocks; they must fit a set.
            memsub::require(rg.entries_per_set() >= rg.segments_per_line(),
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
    /// The policy row in the header that starts with `st`, when the headers host the rows at a
    /// place known at compile time (O9).
    [[nodiscard]] static std::byte*
    policy_row(set_state& st, const layout_type& L) noexcept requires rows_addressed {
        return reinterpret_cast<std::byte*>(&st) + policy_row_offset(L.entries);
    }
    /// The fingerprints of the header that starts with `st`.
    [[nodiscard]] static std::uint8_t* fingerprint_row(set_state& st) noexcept {
        return reinterpret_cast<std::uint8_t*>(&st) + fingerprint_offset;
    }
    [[nodiscard]] std::uint8_t* fingerprint_row(set_index s, const layout_type& L) noexcept {
        return fingerprint_row(state_of(s, L));
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

    // ------------------------------------------------------------ lookups

    /// Conventional caches: the valid entry of set `s` holding `key`, as a mask (variable-block
    /// caches look blocks up with scan_line).
    [[nodiscard]] entry_mask match(set_index s, std::uint64_t key,
                                   const layout_type& L) const noexcept requires(!variable_blocks) {
        const std::uint32_t e = find_entry(s, key, L);
        return e < max_entries_per_set ? bit_of(entry_index{e}) : entry_mask{0};
    }

    /// Prefetches the first `lines` 64-byte lines (eight tags each) of a set's tags at `tags`.
    static void prefetch_tag_lines(const std::uint64_t* tags, std::uint32_t lines) noexcept {
        for (std::uint32_t k = 0; k < lines; ++k) __builtin_prefetch(tags + 8 * k);
    }

    /// Conventional caches: the valid entry of set `s` holding `key`, or max_entries_per_set.
    /// Swiss-table style: compare one-byte fingerprints of all entries at once, then verify the
    /// (usually single) candidate's full tag. Returns an index, not a mask: the hit path needs
    /// the entry, and a mask would cost it a shift and a count-trailing-zeros to get it back.
    [[nodiscard]] std::uint32_t find_entry(set_index s, std::uint64_t key,
                                           const layout_type& L) const noexcept {
        const std::uint64_t* tags = &tags_[slot(s, entry_index{0}, L)];
        prefetch_tag_lines(tags, L.prefetched_tag_lines); // large caches only
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

    struct line_view {
        entry_mask blocks = 0;      ///< valid entries holding blocks of the line
        std::uint64_t resident = 0; ///< resident segments of the line
    };

    /// Variable blocks: the blocks of the line whose first segment key is `line_key`, in set `s`.
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

    [[no_unique_address]] Geometry geometry_;
    [[no_unique_address]] policy_type policy_;
    [[no_unique_address]] Bypass bypass_;
    [[no_unique_address]] Sizer sizer_;
    [[no_unique_address]] layout_type layout_;
    // Cache-line aligned, so a set's tags start on a line; large ones in huge pages
    // (core/huge_page_allocator.hpp), as the headers.
    std::vector<std::uint64_t, huge_page_allocator<std::uint64_t>> tags_;
    std::vector<std::uint8_t> stored_;
    std::vector<std::uint64_t> touched_;
    /// Variable blocks: the segments of its line each entry's block covers (bit i = segment i
    /// of the line), set with the tag: one run, so its length is the block's span (span_of).
    std::vector<std::uint64_t> line_segments_;
    std::vector<std::uint32_t> payload_;
    std::vector<header_block, huge_page_allocator<header_block>> headers_;
};

} // namespace memsub::cache::detail
