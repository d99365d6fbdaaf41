// memsub — the conventional access path of the set engine (`cache_options::max_block_segments
// == 1`: one block = one line, tags = ways): a fingerprint lookup, then a hit, or a miss that
// fills the lowest free entry or the policy's victim, or allocates nothing. The fast path; a
// layer of basic_cache over the core (detail/cache_core.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include <memsub/bypass/concept.hpp>
#include <memsub/cache/access_result.hpp>
#include <memsub/cache/detail/cache_core.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/core/types.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::cache::detail {

template <class Core>
class conventional_path : public Core {
protected:
    using Core::admit;
    using Core::all_entries;
    using Core::bypass_;
    using Core::contains_entry;
    using Core::counters_;
    using Core::find_entry;
    using Core::fingerprint_of;
    using Core::fingerprint_row;
    using Core::key_of;
    using Core::layout_;
    using Core::notify_hit;
    using Core::notify_insert;
    using Core::policy_;
    using Core::request_bytes;
    using Core::serve_unallocated;
    using Core::set_of;
    using Core::slot;
    using Core::state_of;
    using Core::tags_;
    using typename Core::layout_type;
    using typename Core::policy_type;
    using typename Core::result_type;
    using typename Core::write_port;
    using typename Core::writes;

    using Core::Core;

    /// Always inlined into the host's loop: at -O2 GCC kept it out of line for some policies
    /// and shapes, and its result then went through memory on every access
    /// (docs/performance/miss_path.md).
    [[gnu::always_inline]] result_type access_conventional(const memsub::access& a) noexcept {
        const layout_type& L = layout_; // not a copy: see runtime_layout
        result_type r;
        const set_index s = set_of(a.address, L);
        r.set = s;
        const bool write = is_write(a.kind);
        // A dirty-tracking cache's read-modify-write dirties the line as a store does and
        // allocates as a read (`write` stays false); other write strategies never get here with
        // one (basic_cache::access sends it to access_read_modify_write).
        // (`|`, not `||`: a branch here cost about 10 % of the explorer's LRU throughput.)
        const bool dirties = writes::tracks_dirty &&
                             writes::dirty_on_write(static_cast<bool>(write | a.read_modify_write));
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
            notify_hit(st, s, e, a);
            st.dirty |= bit_of(e) & (entry_mask{0} - entry_mask{dirties}); // branch-free
            if constexpr (writes::acts_on_write_hit) {
                if (write) {
                    write_port port{*this, r, s, L};
                    writes::on_write_hit(port, bit_of(e), request_bytes(a, L));
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
                        e = this->fused_replace(st, s, st.valid, a);
                        MEMSUB_ASSERT(contains_entry(st.valid, e));
                        this->template depart_into<false, true>(r.evictions.emplace_back(), s, e,
                                                                eviction_reason::replacement, L);
                        fill_conventional<false>(s, e, key, a, dirties, r, L);
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
                        this->template depart_into<true, true>(r.evictions.emplace_back(), s, e,
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
    /// The policy is told by the caller. `MaybeFree`: `e` may be a free entry, whose valid bit
    /// must be set; a replacement victim's entry is valid already (one read-modify-write less
    /// on every replacement).
    template <bool MaybeFree = true>
    void fill_conventional(set_index s, entry_index e, std::uint64_t key, const memsub::access& a,
                           bool dirty, result_type& r, const layout_type& L) noexcept {
        set_state& st = state_of(s, L);
        tags_[slot(s, e, L)] = key;
        store_row_byte(fingerprint_row(st) + e.value, fingerprint_of(key));
        const entry_mask bit = bit_of(e);
        if constexpr (MaybeFree)
            st.valid |= bit;
        else
            MEMSUB_ASSERT(contains_entry(st.valid, e));
        st.dirty = (st.dirty & ~bit) | (bit & (entry_mask{0} - entry_mask{dirty})); // branch-free
        st.reused &= ~bit;
        r.blocks_filled = 1;
        r.entry = e;
        // A writeback from above overwrites the whole block: nothing is fetched.
        r.bytes_fetched = a.kind == access_kind::writeback ? 0u : (1u << L.line_shift);
    }
};

} // namespace memsub::cache::detail
