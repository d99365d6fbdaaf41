// memsub — least-recently-used replacement.
//
// Citation: the classic stack algorithm (Mattson, Gecsei, Slutz, Traiger, "Evaluation techniques
// for storage hierarchies", IBM Systems Journal 1970). True LRU: every entry of a set holds its
// recency-stack position, 0 = most recent, E−1 = least recent; the positions of a set are always
// a permutation of 0..E−1 (invalid entries included, a departing block drops to the bottom).
// Deviations: none. Storage: E·⌈log2 E⌉ bits per set (the stack positions).
// Layout: one byte per entry, one 16-byte-padded row per set, hosted by the cache engine in its
// set header when it has room (O5, set_rows.hpp).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <memsub/core/byte_match.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/set_rows.hpp>

namespace memsub::replacement {

/// `lru`'s knobs (none): shared by every shape of it (O6).
struct lru_params {};

/// LRU for `Entries` entries per set, or for the geometry's count when `Entries` is 0 (`lru`).
/// A cache with a compile-time geometry builds `basic_lru<entries>` in place of `lru` (O6), so
/// the row length and the bottom position are constants.
template <std::uint32_t Entries = 0>
class basic_lru {
    static_assert(Entries <= max_entries_per_set);

public:
    using params = lru_params;
    /// O6: the same policy with the entries per set fixed at compile time.
    template <std::uint32_t E>
    using for_entries = basic_lru<E>;

    basic_lru(const geometry& g, const params& = {})
        : entries_(checked_entries(g))
        , stride_(padded_row_bytes(entries_))
        , rows_(g.sets, stride_, 0xff) {
        for (std::uint32_t s = 0; s < g.sets; ++s)
            for (std::uint32_t e = 0; e < entries(); ++e)
                row(set_index{s})[e] = static_cast<std::uint8_t>(e);
    }

    [[nodiscard]] std::string_view name() const noexcept { return "lru"; }

    void on_hit(set_index s, entry_index e, const access&) noexcept { promote(s, e); }
    void on_insert(set_index s, entry_index e, const access&) noexcept { promote(s, e); }
    void on_evict(set_index s, entry_index e, const evicted_block&) noexcept {
        // A replacement victim is already at the bottom of the stack (victim() picks it).
        if (row(s)[e.value] != bottom()) demote(s, e);
    }

    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        const std::uint8_t* pos = row(s);
        // Fast path: the bottom of the stack is eligible (always so in a full conventional set).
        const entry_mask bottom_entries = byte_equal_mask(pos, stride(), bottom()) & eligible;
        if (bottom_entries != 0) return lowest_entry(bottom_entries);
        // Else the eligible entry lowest in the stack: positions are distinct, so it is the one
        // eligible entry at the eligible entries' highest position. A variable-block set,
        // whose freed tags sit at the bottom, gets here often (ALSI on bench_gpu_l1's mix
        // stream: 608,215 of 907,836 victims), where a scalar loop over the entries (unrolled,
        // two data-dependent branches per entry) took 88 instructions per call (callgrind),
        // this about 25.
        return lowest_entry(byte_max_lanes(pos, stride(), eligible));
    }

    /// O7: victim + on_evict + on_insert of a replacement in one call. Evicting an entry drops
    /// it to the bottom and inserting lifts it to the top, so the pair is one promotion.
    [[nodiscard]] entry_index replace(set_index s, entry_mask eligible, const access& a) noexcept {
        return replace_in_row(reinterpret_cast<std::byte*>(row(s)), s, eligible, a);
    }

    /// O9 (a compile-time shape only): the row's bytes, and on_hit and replace on a row the
    /// engine found.
    [[nodiscard]] static constexpr std::uint32_t hosted_row_bytes() noexcept
        requires(Entries != 0) {
        return padded_row_bytes(Entries);
    }
    void on_hit_in_row(std::byte* r, entry_index e, const access&) noexcept {
        recency_promote(reinterpret_cast<std::uint8_t*>(r), stride(), e.value);
    }
    [[nodiscard]] entry_index replace_in_row(std::byte* r, set_index s, entry_mask eligible,
                                             const access&) noexcept {
        std::uint8_t* pos = reinterpret_cast<std::uint8_t*>(r);
        const entry_mask bottom_entries = byte_equal_mask(pos, stride(), bottom()) & eligible;
        if (MEMSUB_LIKELY(bottom_entries != 0)) { // always so in a full conventional set
            recency_promote_position(pos, stride(), bottom());
            return lowest_entry(bottom_entries);
        }
        const entry_index e = victim_by_scan(s, eligible);
        promote(s, e);
        return e;
    }

    void prefetch(set_index s) const noexcept { __builtin_prefetch(row(s)); }

    /// O5: the engine may keep the stack rows in its set headers.
    [[nodiscard]] std::uint32_t row_bytes() const noexcept { return rows_.row_bytes(); }
    void place_rows(std::byte* first, std::size_t stride) noexcept { rows_.place(first, stride); }

    /// Recency position of an entry: 0 = most recently used.
    [[nodiscard]] std::uint32_t stack_position(set_index s, entry_index e) const noexcept {
        return row(s)[e.value];
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        const auto bits = static_cast<std::uint64_t>(std::bit_width(entries() - 1u));
        return std::uint64_t{rows_.sets()} * entries() * bits;
    }

private:
    static std::uint32_t checked_entries(const geometry& g) {
        if constexpr (Entries != 0)
            memsub::require(g.entries_per_set() == Entries, "memsub::replacement::lru",
                            "entries per set", g.entries_per_set(),
                            "must equal the compile-time shape this lru was built for");
        return g.entries_per_set();
    }

    // The shape: constants when Entries is fixed (O6), the geometry's otherwise.
    [[nodiscard]] std::uint32_t entries() const noexcept {
        if constexpr (Entries != 0)
            return Entries;
        else
            return entries_;
    }
    [[nodiscard]] std::uint32_t stride() const noexcept {
        if constexpr (Entries != 0)
            return padded_row_bytes(Entries);
        else
            return stride_;
    }
    [[nodiscard]] std::uint8_t bottom() const noexcept {
        return static_cast<std::uint8_t>(entries() - 1u);
    }

    std::uint8_t* row(set_index s) noexcept {
        return reinterpret_cast<std::uint8_t*>(rows_.row(s));
    }
    const std::uint8_t* row(set_index s) const noexcept {
        return reinterpret_cast<const std::uint8_t*>(rows_.row(s));
    }

    /// victim() with a scalar scan instead of byte_max_lanes, for the fused replacement
    /// (replace_in_row, which replace calls): with the vector form inlined there (or called out
    /// of line), GCC compiled its hot path above differently and the fixed-geometry LRU loop of
    /// bench_replacement got slower (docs/performance/figures_behind_choices.md). The engine
    /// replaces with a full set's entries, whose bottom is always eligible, so only a host that
    /// narrows the eligible entries gets here. Its first lines repeat the fused replacement's
    /// bottom check on purpose: without them GCC compiled the LRU loops differently again and
    /// the portable runtime LRU got slower (same page).
    [[nodiscard]] entry_index victim_by_scan(set_index s, entry_mask eligible) const noexcept {
        const std::uint8_t* pos = row(s);
        const entry_mask bottom_entries = byte_equal_mask(pos, stride(), bottom()) & eligible;
        if (bottom_entries != 0) return lowest_entry(bottom_entries);
        std::uint32_t best = 0;
        int best_pos = -1;
        for (std::uint32_t e = 0; e < entries(); ++e) {
            const int p = ((eligible >> e) & 1u) ? pos[e] : -1;
            if (p > best_pos) {
                best_pos = p;
                best = e;
            }
        }
        return entry_index{best};
    }

    // Padding bytes hold 0xff: never below a position, never between a position and E.
    void promote(set_index s, entry_index e) noexcept {
        recency_promote(row(s), stride(), e.value);
    }

    void demote(set_index s, entry_index e) noexcept {
        recency_demote(row(s), stride(), e.value, bottom());
    }

    std::uint32_t entries_;
    std::uint32_t stride_; // row length padded for 16-byte compares; padding bytes hold 0xff
    set_rows rows_;
};

/// True LRU for any shape (the geometry's entries per set).
using lru = basic_lru<>;

static_assert(replacement_policy<lru>);
static_assert(replacement_policy<basic_lru<16>>);

} // namespace memsub::replacement
