// memsub — static re-reference interval prediction (SRRIP).
//
// Citation: Jaleel, Theobald, Steely, Emer, "High Performance Cache Replacement Using
// Re-Reference Interval Prediction (RRIP)", ISCA 2010, §3.1 (SRRIP), §4.1 (victim search), §3.1
// hit promotion (HP and FP). M-bit RRPV per entry, default M = 2. Insertion: RRPV ← 2^M − 2
// ("long"). Hit: HP (default) RRPV ← 0, or FP RRPV ← RRPV − 1. Victim: the first eligible entry
// with RRPV = 2^M − 1; if none, every RRPV of the set is incremented until one is (saturating).
// Deviations: none (victims restricted to the eligible mask). With M = 1 SRRIP is NRU.
// Storage: M bits per entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/rrpv_state.hpp>

namespace memsub::replacement {

/// `srrip`'s knobs, shared by every shape of it (O6).
struct srrip_params {
    /// RRPV width M, 1..7 (the paper finds 2–3 sufficient).
    std::uint32_t rrpv_bits = 2;
    hit_promotion promotion = hit_promotion::hit_priority;

    /// The fields text can set (core/param_text.hpp).
    template <class V>
    friend void describe_params(V& v, srrip_params& p) {
        v("rrpv_bits", p.rrpv_bits);
        v("promotion", p.promotion);
    }
};

/// SRRIP for `Entries` entries per set, or the geometry's count when `Entries` is 0 (`srrip`).
/// A cache with a compile-time geometry builds `basic_srrip<entries>` in place of `srrip` (O6).
template <std::uint32_t Entries = 0>
class basic_srrip {
public:
    using params = srrip_params;
    /// O6: the same policy with the entries per set fixed at compile time.
    template <std::uint32_t E>
    using for_entries = basic_srrip<E>;

    explicit basic_srrip(const geometry& g) : basic_srrip(g, params{}) {}
    basic_srrip(const geometry& g, const params& p)
        : state_((validate(g, p), g), p.rrpv_bits)
        , promotion_(p.promotion) {}

    [[nodiscard]] std::string_view name() const noexcept { return "srrip"; }

    void on_hit(set_index s, entry_index e, const access&) noexcept {
        state_.promote(s, e, promotion_);
    }
    void on_insert(set_index s, entry_index e, const access&) noexcept {
        state_.set(s, e, state_.long_interval());
    }
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        return state_.find_victim(s, eligible);
    }
    /// O7: victim + on_evict (nothing) + on_insert in one call.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE entry_index replace(set_index s, entry_mask eligible,
                                                           const access&) noexcept {
        return state_.replace(s, eligible, state_.long_interval());
    }

    /// O9 (a compile-time shape only): the row's bytes, and on_hit and replace on a row the
    /// engine found.
    [[nodiscard]] static constexpr std::uint32_t hosted_row_bytes() noexcept
        requires(Entries != 0) {
        return basic_rrpv_state<Entries>::row_bytes_for_entries();
    }
    void on_hit_in_row(std::byte* row, entry_index e, const access&) noexcept {
        state_.promote_in_row(row, e, promotion_);
    }
    [[nodiscard]] MEMSUB_ALWAYS_INLINE entry_index replace_in_row(std::byte* row, set_index,
                                                                  entry_mask eligible,
                                                                  const access&) noexcept {
        return state_.replace_in_row(row, eligible, state_.long_interval());
    }

    [[nodiscard]] std::uint32_t rrpv(set_index s, entry_index e) const noexcept {
        return state_.get(s, e);
    }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return state_.storage_bits(); }

    /// O5: the engine may keep the RRPV rows in its set headers.
    [[nodiscard]] std::uint32_t row_bytes() const noexcept { return state_.row_bytes(); }
    void place_rows(std::byte* first, std::size_t stride) noexcept {
        state_.place_rows(first, stride);
    }

private:
    static void validate(const geometry& g, const params& p) {
        rrpv_state::validate_bits(p.rrpv_bits, "memsub::replacement::srrip");
        if constexpr (Entries != 0)
            memsub::require(g.entries_per_set() == Entries, "memsub::replacement::srrip",
                            "entries per set", g.entries_per_set(),
                            "must equal the compile-time shape this srrip was built for");
    }

    basic_rrpv_state<Entries> state_;
    hit_promotion promotion_;
};

/// SRRIP for any shape (the geometry's entries per set).
using srrip = basic_srrip<>;

static_assert(replacement_policy<srrip>);
static_assert(replacement_policy<basic_srrip<16>>);

} // namespace memsub::replacement
