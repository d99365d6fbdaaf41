// memsub — the variable-block access path of the set engine (`cache_options::max_block_segments
// > 1`): blocks of one line of any aligned power-of-two span (ID-Cache's adaptive line size) or
// whole lines stored in fewer segments (compressed caches). A lookup scans the line's blocks;
// an access hits when every requested segment is resident, else it is a (partial) miss that
// fetches only the missing segments, in blocks of the host's span, superseding smaller
// resident blocks inside them (basic_cache.hpp states the rules). A layer of basic_cache over
// the conventional path.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <memsub/cache/access_result.hpp>
#include <memsub/cache/cache_options.hpp>
#include <memsub/cache/detail/cache_core.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/bits.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/core/types.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::cache::detail {

template <class Core>
class variable_path : public Core {
protected:
    using Core::admit;
    using Core::all_entries;
    using Core::checked_spec;
    using Core::contains_entry;
    using Core::count_access;
    using Core::count_miss;
    using Core::data_blocks;
    using Core::fingerprint_of;
    using Core::fingerprint_row;
    using Core::layout_;
    using Core::line_segments_;
    using Core::masked_request_bytes;
    using Core::notify_hit;
    using Core::notify_insert;
    using Core::payload_;
    using Core::policy_;
    using Core::remove_into;
    using Core::request_bytes;
    using Core::resident_span_of;
    using Core::scan_line;
    using Core::segments_of;
    using Core::segments_per_line;
    using Core::segments_per_set;
    using Core::serve_unallocated;
    using Core::set_of;
    using Core::slot;
    using Core::state_of;
    using Core::stats_;
    using Core::stored_;
    using Core::tags_;
    using Core::touched_;
    using typename Core::layout_type;
    using typename Core::line_scan;
    using typename Core::policy_type;
    using typename Core::result_type;
    using typename Core::write_port;
    using typename Core::writes;

    using Core::Core;

    /// The spec of an access without one: whole-line blocks stored raw.
    struct whole_line_spec {
        std::uint32_t whole = 0;
        block_spec operator()(const memsub::access&) const noexcept {
            return block_spec{whole, whole, 0};
        }
    };

    /// Marks entry `e` as used by the request (reused, touched, dirty on a store when the write
    /// strategy tracks dirtiness)
    /// and tells the policy and the predictor (P1, or P2a for a partial miss).
    void touch(set_index s, entry_index e, std::uint64_t requested, std::uint64_t line_key,
               bool write, const memsub::access& a, const layout_type& L) noexcept {
        set_state& st = state_of(s, L);
        const std::size_t i = slot(s, e, L);
        st.reused |= bit_of(e);
        touched_[i] |= (requested & line_segments_[i]) >> (tags_[i] - line_key);
        st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{writes::dirty_on_write(write)});
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
            if constexpr (writes::acts_on_write_hit) {
                if (write) {
                    write_port port{*this, r, s, L};
                    writes::on_write_hit(port, touched, req_bytes);
                }
            }
            if constexpr (!writes::evicts_written_blocks) {
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
        if constexpr (Core::options.whole_line_fill_path) {
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
        if (write) {
            write_port port{*this, r, s, L};
            writes::on_write_not_allocated(port, touched);
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
            store_row_byte(fingerprint_row(s, L) + e.value, fingerprint_of(line_key));
            line_segments_[i] = region;
            stored_[i] = static_cast<std::uint8_t>(stored);
            payload_[i] = spec.payload;
            touched_[i] = ((merged_touched | requested) & region) >> off;
            st.used_segments += stored;
            st.tag_only_blocks += stored == 0 ? 1u : 0u;
            st.valid |= bit_of(e);
            const bool dirty = (merged_dirty & region) != 0 || writes::dirty_on_write(write);
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
        store_row_byte(fingerprint_row(s, L) + e.value, fingerprint_of(line_key));
        line_segments_[i] = nonzero_low_bits_mask(spl);
        stored_[i] = static_cast<std::uint8_t>(stored);
        payload_[i] = spec.payload;
        touched_[i] = requested; // within the line
        st.used_segments += stored;
        st.tag_only_blocks += stored == 0 ? 1u : 0u;
        st.valid |= bit_of(e);
        st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{writes::dirty_on_write(write)});
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
};

} // namespace memsub::cache::detail
