// memsub — the set engine: one engine for conventional, variable-line and compressed caches.
//
// A set has tag entries and a data budget in segments (design.md, "The set engine"). A resident
// block is (tag, address span, stored size in segments) plus the replacement policy's per-entry
// state, which the policy keeps itself. Insertion needs a free tag entry and enough free
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
// Writes (cache_options::writes):
//  * write_back    — write-allocate (a store miss fetches the line), stores mark blocks dirty,
//                    dirty blocks are reported when they leave; a `writeback` access from the
//                    level above allocates without fetching (it overwrites the whole block).
//  * write_through — stores update a resident block and always go to the next level; store
//                    misses do not allocate. Blocks are never dirty.
//  * write_evict   — GPU L1 style (Fermi): a store hit invalidates the block, every store goes
//                    to the next level, store misses do not allocate.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/cache/access_result.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>
#include <memsub/replacement/concept.hpp>
#include <new>

namespace memsub::cache {

enum class write_policy : std::uint8_t { write_back, write_through, write_evict };

/// Compile-time options of a cache (a structural type, passed as a template argument).
struct cache_options {
    write_policy writes = write_policy::write_back;
    /// The largest block, in data segments. 1 = conventional cache (one block = one line);
    /// larger values enable variable-size blocks and must be at least the segments per line.
    std::uint32_t max_block_segments = 1;

    [[nodiscard]] constexpr bool variable_blocks() const noexcept { return max_block_segments > 1; }
    /// Upper bound of blocks one access can remove: blocks it supersedes (≤ its span) plus
    /// victims for room (≤ its size + 1 for the tag).
    [[nodiscard]] constexpr std::size_t max_evictions() const noexcept {
        return variable_blocks() ? 2 * std::size_t{max_block_segments} + 1 : 1;
    }
};

/// Shape of a variable-size block to insert on a miss.
struct block_spec {
    /// Address span in segments: a power of two ≤ segments per line; the block is the aligned
    /// span that holds the accessed byte.
    std::uint32_t span_segments = 1;
    /// Data segments the block occupies (≤ span for a compressed block; = span otherwise).
    std::uint32_t stored_segments = 1;
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
};

template <replacement::replacement_policy Policy, cache_options Options = cache_options{},
          geometry_like Geometry = geometry>
class basic_cache {
public:
    using policy_type = Policy;
    using policy_params = typename Policy::params;
    using geometry_type = Geometry;
    using result_type = access_result<Options.max_evictions()>;
    static constexpr cache_options options = Options;
    static constexpr bool variable_blocks = Options.variable_blocks();

    /// Builds an empty cache; throws `config_error` for a bad geometry or params.
    explicit basic_cache(const Geometry& g = Geometry{}, const policy_params& params = {})
        : geometry_(validated(g))
        , policy_(static_cast<geometry>(g), params)
        , line_shift_(log2_exact(g.line_bytes))
        , segment_shift_(log2_exact(g.segment_size()))
        , set_mask_(g.sets - 1)
        , entries_(g.entries_per_set())
        , tags_(g.total_entries(), 0)
        , blocks_per_set_(header_blocks(g.entries_per_set()))
        , headers_(std::size_t{g.sets} * blocks_per_set_) {
        for (std::uint32_t s = 0; s < g.sets; ++s)
            ::new (static_cast<void*>(&headers_[std::size_t{s} * blocks_per_set_])) set_state{};
        if constexpr (!variable_blocks) {
            fingerprint_shift_ = log2_exact(g.sets);
        } else {
            span_.assign(g.total_entries(), 0);
            stored_.assign(g.total_entries(), 0);
        }
    }

    // ---------------------------------------------------------------- accesses

    /// Performs one access. In a conventional cache the block is the whole line; in a
    /// variable-block cache this inserts a whole, uncompressed line on a miss.
    result_type access(const memsub::access& a) noexcept {
        if constexpr (variable_blocks)
            return access(a, block_spec{.span_segments = segments_per_line(),
                                        .stored_segments = segments_per_line()});
        else
            return access_impl(a, 1, 1);
    }

    /// Performs one access inserting, on a miss, the block `spec` describes (variable-block
    /// caches only). A hit means the segment holding `a.address` is resident.
    result_type access(const memsub::access& a, block_spec spec) noexcept
        requires(variable_blocks) {
        MEMSUB_ASSERT(std::has_single_bit(spec.span_segments) &&
                      spec.span_segments <= segments_per_line());
        MEMSUB_ASSERT(spec.stored_segments >= 1 &&
                      spec.stored_segments <= Options.max_block_segments &&
                      spec.stored_segments <= segments_per_set());
        return access_impl(a, spec.span_segments, spec.stored_segments);
    }

    /// Hints the CPU to bring the metadata a later access to `addr` will touch into its
    /// caches (the set header, the set's tags and the policy's row when it has an O4
    /// `prefetch(set)` hook). Changes no state. Trace-driven hosts that know upcoming
    /// addresses call this a few accesses ahead; `access_all` does it for them.
    void prefetch(byte_address addr) const noexcept {
        const set_index s = set_of(addr);
        __builtin_prefetch(header(s));
        const std::uint64_t* tags = &tags_[slot(s, entry_index{0})];
        for (std::uint32_t e = 0; e < entries(); e += 8) __builtin_prefetch(tags + e);
        if constexpr (replacement::prefetches<Policy>) policy_.prefetch(s);
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

    // ---------------------------------------------------------------- queries

    [[nodiscard]] set_index set_of(byte_address addr) const noexcept {
        return set_index{static_cast<std::uint32_t>((addr.value >> line_shift()) & set_mask())};
    }
    [[nodiscard]] line_address line_of(byte_address addr) const noexcept {
        return line_address{addr.value >> line_shift()};
    }

    /// The resident block holding `addr`, without touching any state.
    [[nodiscard]] std::optional<block_location> find(byte_address addr) const noexcept {
        const set_index s = set_of(addr);
        const entry_mask m = match(s, key_of(addr));
        if (m == 0) return std::nullopt;
        return block_location{s, lowest_entry(m)};
    }
    [[nodiscard]] bool contains(byte_address addr) const noexcept { return find(addr).has_value(); }

    /// Mask of the segments of `line` that are resident (bit i = segment i of the line).
    [[nodiscard]] std::uint64_t resident_segments(line_address line) const noexcept {
        const byte_address first{line.value << line_shift()};
        const set_index s = set_of(first);
        if constexpr (!variable_blocks) {
            return match(s, line.value) != 0 ? 1u : 0u;
        } else {
            const std::uint64_t line_seg = first.value >> segment_shift();
            std::uint64_t mask = 0;
            entry_mask valid = state_of(s).valid;
            while (valid != 0) {
                const entry_index e = lowest_entry(valid);
                valid &= valid - 1;
                const std::size_t i = slot(s, e);
                const std::uint64_t off = tags_[i] - line_seg;
                if (off < segments_per_line()) mask |= low_bits_mask(span_[i]) << off;
            }
            return mask;
        }
    }

    [[nodiscard]] block_view block(set_index s, entry_index e) const noexcept {
        const auto& st = state_of(s);
        if (!contains_entry(st.valid, e)) return {};
        const std::size_t i = slot(s, e);
        return block_view{.valid = true,
                          .address = block_address(i),
                          .bytes = span_of(i) << segment_shift(),
                          .stored_segments = stored_of(i),
                          .dirty = contains_entry(st.dirty, e),
                          .reused = contains_entry(st.reused, e)};
    }

    [[nodiscard]] std::uint32_t free_entries(set_index s) const noexcept {
        return static_cast<std::uint32_t>(std::popcount(~state_of(s).valid & all_entries()));
    }
    [[nodiscard]] std::uint32_t free_segments(set_index s) const noexcept {
        if constexpr (variable_blocks)
            return segments_per_set() - state_of(s).used_segments;
        else
            return free_entries(s);
    }
    [[nodiscard]] entry_mask valid_entries(set_index s) const noexcept { return state_of(s).valid; }

    // ---------------------------------------------------------------- maintenance

    /// Removes the block holding `addr` (reason `invalidated`); returns it if there was one.
    std::optional<evicted_block> invalidate(byte_address addr) noexcept {
        const auto loc = find(addr);
        if (!loc) return std::nullopt;
        return remove(loc->set, loc->entry, eviction_reason::invalidated);
    }

    /// Removes every block, calling `sink(const evicted_block&)` for each (dirty ones must be
    /// written back by the host). Returns the number of blocks removed.
    template <std::invocable<const evicted_block&> Sink>
    std::uint64_t flush(Sink&& sink) {
        std::uint64_t n = 0;
        for (std::uint32_t s = 0; s < geometry_.sets; ++s) {
            entry_mask valid = state_of(set_index{s}).valid;
            while (valid != 0) {
                const entry_index e = lowest_entry(valid);
                valid &= valid - 1;
                sink(remove(set_index{s}, e, eviction_reason::invalidated));
                ++n;
            }
        }
        return n;
    }

    [[nodiscard]] const cache_stats& stats() const noexcept { return stats_; }
    void reset_stats() noexcept { stats_ = cache_stats{}; }

    [[nodiscard]] Policy& policy() noexcept { return policy_; }
    [[nodiscard]] const Policy& policy() const noexcept { return policy_; }
    [[nodiscard]] const Geometry& shape() const noexcept { return geometry_; }

    /// Tag-store bits (tags + valid/dirty/reused + size fields) plus the policy's metadata, for
    /// a physical address of `address_bits` bits.
    [[nodiscard]] std::uint64_t storage_bits(std::uint32_t address_bits = 48) const noexcept {
        const std::uint32_t index_bits = log2_exact(geometry_.sets);
        const std::uint32_t tag_bits =
            address_bits > line_shift() + index_bits ? address_bits - line_shift() - index_bits : 0;
        std::uint64_t per_entry = tag_bits + 3u;
        if constexpr (variable_blocks)
            per_entry += 2u * static_cast<std::uint32_t>(std::bit_width(segments_per_line()));
        return per_entry * geometry_.total_entries() + replacement::storage_bits_of(policy_);
    }

private:
    struct set_state {
        entry_mask valid = 0;
        entry_mask dirty = 0;
        entry_mask reused = 0;
        std::uint32_t used_segments = 0;
    };

    static constexpr bool fixed = !std::same_as<Geometry, geometry>;

    static const Geometry& validated(const Geometry& g) {
        g.validate("memsub::cache geometry");
        const geometry rg = static_cast<geometry>(g);
        if constexpr (!variable_blocks) {
            detail::require(rg.entries_per_set() == rg.ways && rg.segments_per_line() == 1,
                            "memsub::cache", "cache_options.max_block_segments", 1,
                            "segments smaller than a line or extra tags need "
                            "max_block_segments >= segments per line");
        } else {
            detail::require(Options.max_block_segments >= rg.segments_per_line() &&
                                Options.max_block_segments <= rg.segments_per_set(),
                            "memsub::cache", "cache_options.max_block_segments",
                            Options.max_block_segments,
                            "must be in [segments per line, segments per set]");
        }
        return g;
    }

    // Geometry accessors fold to constants for a fixed_geometry.
    [[nodiscard]] std::uint32_t line_shift() const noexcept {
        if constexpr (fixed)
            return log2_exact(Geometry::line_bytes);
        else
            return line_shift_;
    }
    [[nodiscard]] std::uint32_t segment_shift() const noexcept {
        if constexpr (fixed)
            return log2_exact(Geometry::segment_bytes);
        else
            return segment_shift_;
    }
    [[nodiscard]] std::uint64_t set_mask() const noexcept {
        if constexpr (fixed)
            return Geometry::sets - 1;
        else
            return set_mask_;
    }
    [[nodiscard]] std::uint32_t entries() const noexcept {
        if constexpr (fixed)
            return Geometry::entries_per_set();
        else
            return entries_;
    }
    [[nodiscard]] std::uint32_t segments_per_line() const noexcept {
        return 1u << (line_shift() - segment_shift());
    }
    [[nodiscard]] std::uint32_t segments_per_set() const noexcept {
        return geometry_.ways * segments_per_line();
    }
    [[nodiscard]] entry_mask all_entries() const noexcept { return low_bits_mask(entries()); }
    [[nodiscard]] std::uint32_t fingerprint_stride() const noexcept {
        return padded_row_bytes(entries());
    }
    /// One byte of a multiplicative hash of the tag bits above the set index.
    [[nodiscard]] std::uint8_t fingerprint_of(std::uint64_t key) const noexcept {
        std::uint32_t shift = 0;
        if constexpr (fixed)
            shift = log2_exact(Geometry::sets);
        else
            shift = fingerprint_shift_;
        return static_cast<std::uint8_t>(((key >> shift) * 0x9e3779b97f4a7c15ULL) >> 56);
    }

    [[nodiscard]] std::size_t slot(set_index s, entry_index e) const noexcept {
        return std::size_t{s.value} * entries() + e.value;
    }
    // Per-set header: the set_state followed by the entries' tag fingerprints, in one or more
    // 64-byte blocks, so a lookup touches one cache line before the tag it verifies.
    struct alignas(64) header_block {
        std::byte bytes[64];
    };
    static constexpr std::size_t fingerprint_offset = 32;
    static_assert(sizeof(set_state) <= fingerprint_offset);
    static constexpr std::uint32_t header_blocks(std::uint32_t entries) noexcept {
        const std::size_t bytes =
            fingerprint_offset + (variable_blocks ? 0 : padded_row_bytes(entries));
        return static_cast<std::uint32_t>((bytes + 63) / 64);
    }
    [[nodiscard]] std::uint32_t blocks_per_set() const noexcept {
        if constexpr (fixed)
            return header_blocks(Geometry::entries_per_set());
        else
            return blocks_per_set_;
    }
    [[nodiscard]] std::byte* header(set_index s) noexcept {
        return headers_[std::size_t{s.value} * blocks_per_set()].bytes;
    }
    [[nodiscard]] const std::byte* header(set_index s) const noexcept {
        return headers_[std::size_t{s.value} * blocks_per_set()].bytes;
    }
    [[nodiscard]] set_state& state_of(set_index s) noexcept {
        return *std::launder(reinterpret_cast<set_state*>(header(s)));
    }
    [[nodiscard]] const set_state& state_of(set_index s) const noexcept {
        return *std::launder(reinterpret_cast<const set_state*>(header(s)));
    }
    [[nodiscard]] std::uint8_t* fingerprint_row(set_index s) noexcept {
        return reinterpret_cast<std::uint8_t*>(header(s) + fingerprint_offset);
    }
    [[nodiscard]] const std::uint8_t* fingerprint_row(set_index s) const noexcept {
        return reinterpret_cast<const std::uint8_t*>(header(s) + fingerprint_offset);
    }
    static constexpr bool contains_entry(entry_mask m, entry_index e) noexcept {
        return memsub::contains(m, e);
    }

    /// The tag key of an address: its line address (conventional) or segment address.
    [[nodiscard]] std::uint64_t key_of(byte_address addr) const noexcept {
        if constexpr (variable_blocks)
            return addr.value >> segment_shift();
        else
            return addr.value >> line_shift();
    }
    [[nodiscard]] std::uint32_t span_of(std::size_t i) const noexcept {
        if constexpr (variable_blocks)
            return span_[i];
        else
            return 1;
    }
    [[nodiscard]] std::uint32_t stored_of(std::size_t i) const noexcept {
        if constexpr (variable_blocks)
            return stored_[i];
        else
            return 1;
    }
    [[nodiscard]] byte_address block_address(std::size_t i) const noexcept {
        if constexpr (variable_blocks)
            return byte_address{tags_[i] << segment_shift()};
        else
            return byte_address{tags_[i] << line_shift()};
    }

    /// Valid entries of set `s` whose block covers `key`.
    [[nodiscard]] entry_mask match(set_index s, std::uint64_t key) const noexcept {
        const std::uint64_t* tags = &tags_[slot(s, entry_index{0})];
        const std::uint32_t n = entries();
        entry_mask m = 0;
        if constexpr (variable_blocks) {
            const std::uint8_t* span = &span_[slot(s, entry_index{0})];
            for (std::uint32_t e = 0; e < n; ++e) m |= entry_mask{(key - tags[e]) < span[e]} << e;
            return m & state_of(s).valid;
        } else {
            // Swiss-table style: compare one-byte fingerprints of all entries at once, then
            // verify the (usually single) candidate's full tag.
            (void)n;
            entry_mask candidates =
                byte_equal_mask(fingerprint_row(s), fingerprint_stride(), fingerprint_of(key)) &
                state_of(s).valid;
            while (candidates != 0) {
                const entry_index e = lowest_entry(candidates);
                if (tags[e.value] == key) return bit_of(e);
                candidates &= candidates - 1;
            }
            return 0;
        }
    }

    evicted_block remove(set_index s, entry_index e, eviction_reason reason) noexcept {
        set_state& st = state_of(s);
        const std::size_t i = slot(s, e);
        const entry_mask bit = bit_of(e);
        const evicted_block out{.address = block_address(i),
                                .bytes = span_of(i) << segment_shift(),
                                .stored_segments = stored_of(i),
                                .dirty = (st.dirty & bit) != 0,
                                .reused = (st.reused & bit) != 0,
                                .reason = reason};
        st.valid &= ~bit;
        st.dirty &= ~bit;
        st.reused &= ~bit;
        if constexpr (variable_blocks) st.used_segments -= out.stored_segments;
        if (reason == eviction_reason::replacement)
            ++stats_.evictions;
        else
            ++stats_.invalidations;
        // Branch-free: dirtiness is data-dependent and would mispredict.
        stats_.writebacks += out.dirty;
        stats_.bytes_written_back += out.dirty ? out.bytes : 0u;
        policy_.on_evict(s, e,
                         replacement::eviction_info{.line = line_of(out.address),
                                                    .block_address = out.address,
                                                    .block_bytes = out.bytes,
                                                    .stored_segments = out.stored_segments,
                                                    .dirty = out.dirty,
                                                    .reused = out.reused,
                                                    .reason = reason});
        return out;
    }

    [[nodiscard]] std::uint32_t request_bytes(const memsub::access& a) const noexcept {
        const std::uint32_t line = 1u << line_shift();
        return a.size == 0 ? line : std::min(a.size, line);
    }

    [[nodiscard]] bool has_room(const set_state& st, std::uint32_t stored) const noexcept {
        const bool free_tag = (~st.valid & all_entries()) != 0;
        if constexpr (variable_blocks)
            return free_tag && st.used_segments + stored <= segments_per_set();
        else
            return free_tag;
    }

    result_type access_impl(const memsub::access& a, std::uint32_t span,
                            std::uint32_t stored) noexcept {
        result_type r;
        const set_index s = set_of(a.address);
        r.set = s;
        const bool write = is_write(a.kind);
        auto& kind = stats_.by_kind[static_cast<std::size_t>(a.kind)];
        ++stats_.accesses;
        ++kind.accesses;

        const entry_mask hit = match(s, key_of(a.address));
        if (hit != 0) {
            const entry_index e = lowest_entry(hit);
            r.hit = true;
            r.entry = e;
            ++stats_.hits;
            set_state& st = state_of(s);
            st.reused |= bit_of(e);
            policy_.on_hit(s, e, a);
            if constexpr (Options.writes == write_policy::write_back) {
                st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{write}); // branch-free
            } else if (write) {
                r.bytes_written_down = request_bytes(a);
                stats_.bytes_written_down += r.bytes_written_down;
                if constexpr (Options.writes == write_policy::write_evict)
                    r.evictions.push_back(remove(s, e, eviction_reason::write_evict));
            }
            return r;
        }

        ++stats_.misses;
        ++kind.misses;
        if constexpr (replacement::observes_misses<Policy>) policy_.on_miss(s, a);

        const bool allocate =
            !a.hints.no_allocate && !(write && Options.writes != write_policy::write_back);
        set_state& st = state_of(s);
        std::uint64_t base_key = key_of(a.address);
        if constexpr (variable_blocks) base_key &= ~std::uint64_t{span - 1};

        if (allocate) {
            if constexpr (variable_blocks) {
                // Blocks of the same line overlapping the new block are superseded first.
                entry_mask valid = st.valid;
                const std::uint8_t* spans = &span_[slot(s, entry_index{0})];
                const std::uint64_t* tags = &tags_[slot(s, entry_index{0})];
                while (valid != 0) {
                    const entry_index e = lowest_entry(valid);
                    valid &= valid - 1;
                    const bool overlaps = tags[e.value] < base_key + span &&
                                          base_key < tags[e.value] + spans[e.value];
                    if (overlaps) r.evictions.push_back(remove(s, e, eviction_reason::superseded));
                }
            }
            bool declined = false;
            if (!has_room(st, stored)) {
                if constexpr (replacement::may_bypass<Policy>)
                    declined = policy_.should_bypass(s, a);
                while (!declined && !has_room(st, stored)) {
                    const entry_mask eligible = st.valid;
                    MEMSUB_ASSERT(eligible != 0);
                    const entry_index v = policy_.victim(s, eligible, a);
                    MEMSUB_ASSERT(contains_entry(eligible, v));
                    r.evictions.push_back(remove(s, v, eviction_reason::replacement));
                }
            }
            if (!declined) {
                const entry_index e = lowest_entry(~st.valid & all_entries());
                const std::size_t i = slot(s, e);
                tags_[i] = base_key;
                if constexpr (!variable_blocks) {
                    fingerprint_row(s)[e.value] = fingerprint_of(base_key);
                } else {
                    span_[i] = static_cast<std::uint8_t>(span);
                    stored_[i] = static_cast<std::uint8_t>(stored);
                    st.used_segments += stored;
                }
                st.valid |= bit_of(e);
                st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{write}); // branch-free
                r.filled = true;
                r.entry = e;
                ++stats_.fills;
                // A writeback from above overwrites the whole block: nothing is fetched.
                r.bytes_fetched = a.kind == access_kind::writeback ? 0u : span << segment_shift();
                stats_.bytes_fetched += r.bytes_fetched;
                policy_.on_insert(s, e, a);
                return r;
            }
        }

        r.bypassed = true;
        ++stats_.bypasses;
        if (write) {
            r.bytes_written_down = request_bytes(a);
            stats_.bytes_written_down += r.bytes_written_down;
        } else {
            r.bytes_fetched = request_bytes(a);
            stats_.bytes_fetched += r.bytes_fetched;
        }
        return r;
    }

    [[no_unique_address]] Geometry geometry_;
    [[no_unique_address]] Policy policy_;
    std::uint32_t line_shift_;
    std::uint32_t segment_shift_;
    std::uint64_t set_mask_;
    std::uint32_t entries_;
    std::uint32_t fingerprint_shift_ = 0;
    std::vector<std::uint64_t> tags_;
    std::vector<std::uint8_t> span_;
    std::vector<std::uint8_t> stored_;
    std::uint32_t blocks_per_set_;
    std::vector<header_block> headers_;
    cache_stats stats_{};
};

/// A conventional set-associative cache (one block = one line).
template <replacement::replacement_policy Policy, write_policy Writes = write_policy::write_back,
          geometry_like Geometry = geometry>
using set_associative_cache =
    basic_cache<Policy, cache_options{.writes = Writes, .max_block_segments = 1}, Geometry>;

/// A cache whose blocks have variable size: `MaxBlockSegments` is the largest block in data
/// segments (ID-Cache ALSI: 4 for 128B lines of 32B segments; compressed caches likewise).
template <replacement::replacement_policy Policy, std::uint32_t MaxBlockSegments,
          write_policy Writes = write_policy::write_back, geometry_like Geometry = geometry>
using variable_block_cache =
    basic_cache<Policy, cache_options{.writes = Writes, .max_block_segments = MaxBlockSegments},
                Geometry>;

} // namespace memsub::cache
