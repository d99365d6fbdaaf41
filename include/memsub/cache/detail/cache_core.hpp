// memsub — what every access path of the set engine shares: a block's departure (reported to
// the host, the policy and the predictor, and counted), the allocation decision of a miss, the
// policy and predictor notifications, a request's byte counts, the counters, and the write port
// through which the write strategy (cache/write_strategy.hpp) acts on an access. The second
// layer of basic_cache, over the set storage (detail/set_layout.hpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include <memsub/bypass/concept.hpp>
#include <memsub/cache/access_result.hpp>
#include <memsub/cache/cache_options.hpp>
#include <memsub/cache/detail/counters.hpp>
#include <memsub/cache/detail/set_layout.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/bits.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::cache::detail {

template <replacement::replacement_policy Policy, cache_options Options, geometry_like Geometry,
          bypass::bypass_predictor Bypass, linesize::line_size_predictor Sizer>
class cache_core : public set_storage<Policy, Options, Geometry, Bypass, Sizer> {
    using base = set_storage<Policy, Options, Geometry, Bypass, Sizer>;

protected:
    using base::all_entries;
    using base::block_address;
    using base::bypass_;
    using base::layout_;
    using base::payload_of;
    using base::policy_;
    using base::resident_span_of;
    using base::segments_per_line;
    using base::sizer_;
    using base::slot;
    using base::state_of;
    using base::stored_of;
    using base::touched_of;
    using base::variable_blocks;
    using typename base::layout_type;
    using typename base::policy_type;
    using typename base::result_type;
    using typename base::writes;

    using base::base;

    /// The handle through which the write strategy acts on one access of set `s`
    /// (write_strategy.hpp lists what a port offers). Built on the stack and inlined away.
    struct write_port {
        cache_core& cache;
        result_type& r;
        set_index s;
        const layout_type& L;

        /// The written bytes go to the next level.
        void send_down(std::uint32_t bytes) noexcept {
            r.bytes_written_down += bytes;
            cache.stats_.bytes_written_down += bytes;
        }
        void mark_dirty(entry_mask blocks) noexcept { cache.state_of(s, L).dirty |= blocks; }
        /// The written blocks leave (reason write_evict), lowest entry first.
        void evict(entry_mask blocks) noexcept {
            for (entry_mask m = blocks; m != 0; m &= m - 1)
                cache.remove_into(r.evictions.emplace_back(), s, lowest_entry(m),
                                  eviction_reason::write_evict, L);
            r.hit_block_left |= blocks != 0;
        }
        /// An access without a spec resizes nothing.
        void resize(entry_mask) noexcept {}
    };

    /// The reason a host's invalidation is recorded with: `replacement` names the policy's
    /// victims, so a host passing it gets `invalidated`.
    [[nodiscard]] static constexpr eviction_reason host_reason(eviction_reason r) noexcept {
        return r == eviction_reason::replacement ? eviction_reason::invalidated : r;
    }

    /// The spec as the engine stores it (see "Block specs" in basic_cache.hpp): a bad span
    /// becomes the whole line, stored segments beyond the span become the span; each correction
    /// is counted.
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

    // ------------------------------------------------------------ departures

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
        linesize::notify_evict(sizer_, s, e, out);
    }

    // ------------------------------------------------------------ request bytes

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

    // ------------------------------------------------------------ decisions and notifications

    void count_access(access_kind k) noexcept {
        ++stats_.by_kind[static_cast<std::size_t>(k)].accesses;
    }
    void count_miss(access_kind k) noexcept {
        ++stats_.by_kind[static_cast<std::size_t>(k)].misses;
    }

    /// The allocation decision of a miss before the set's room is looked at (Q1 of
    /// bypass/concept.hpp): the host's no-allocate, the write strategy's no-allocate rule, then
    /// the bypass predictor (asked only when the first two allow allocation).
    [[nodiscard]] bypass_reason admit(set_index s, const memsub::access& a, bool write) noexcept {
        if (a.hints.no_allocate) return bypass_reason::host_no_allocate;
        if (write && !writes::allocates_on_write_miss) return bypass_reason::write_no_allocate;
        if (bypass_.should_bypass(s, a)) return bypass_reason::predictor;
        return bypass_reason::none;
    }

    /// A hit on entry `e` (or the resident part of a partial miss): the policy, then the
    /// predictor that admitted the block (Q3).
    void notify_hit(set_index s, entry_index e, const memsub::access& a) noexcept {
        notify_hit(state_of(s, layout_), s, e, a);
    }
    /// The same with the set's state (its header) at hand.
    void notify_hit(set_state& st, set_index s, entry_index e, const memsub::access& a) noexcept {
        if constexpr (base::rows_addressed)
            policy_.on_hit_in_row(this->policy_row(st, layout_), e, a); // O9
        else
            policy_.on_hit(s, e, a);
        bypass::notify_hit(bypass_, s, e, a);
    }

    /// O7: the policy's fused replacement in a full set, given the set's row when the engine
    /// addresses it (O9).
    [[nodiscard]] entry_index fused_replace(set_state& st, set_index s, entry_mask eligible,
                                            const memsub::access& a) noexcept {
        if constexpr (base::rows_addressed)
            return policy_.replace_in_row(this->policy_row(st, layout_), s, eligible, a);
        else
            return policy_.replace(s, eligible, a);
    }

    /// A block was placed in `e`: the policy (its richest R4 form), then the predictor.
    void notify_insert(set_index s, entry_index e, const memsub::access& a,
                       const replacement::insert_info& info) noexcept {
        replacement::notify_insert(policy_, s, e, a, info);
        bypass::notify_insert(bypass_, s, e, a);
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
            // A conventional dirty-tracking cache's read-modify-write (handled inline on the
            // conventional path, see basic_cache::access): the read is served, the written bytes
            // go down.
            if constexpr (!variable_blocks && writes::tracks_dirty) {
                if (a.read_modify_write) {
                    r.bytes_written_down = request_bytes(a, layout_);
                    stats_.bytes_written_down += r.bytes_written_down;
                }
            }
        }
    }

    // ------------------------------------------------------------ counters

    /// Adds the conventional path's counts to `stats_` (every other path updates it directly).
    void fold_counters() const noexcept {
        if constexpr (!variable_blocks)
            fold_conventional_counters(counters_, stats_, std::uint64_t{1} << layout_.line_shift);
    }
    /// The counters of `kind` with the conventional path's counts folded in, for a path that
    /// corrects them (line-crossing references, detail/line_crossing.hpp).
    [[nodiscard]] kind_counters& folded_counters_of(access_kind kind) noexcept {
        fold_counters();
        return stats_.by_kind[static_cast<std::size_t>(kind)];
    }

    mutable conventional_counters counters_{};
    mutable cache_stats stats_{};
};

} // namespace memsub::cache::detail
