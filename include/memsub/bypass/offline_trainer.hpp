// memsub — the offline trainer of ID-Cache's bypass tables ([Dissertation] §3.2.2;
// docs/mechanisms/id_cache.md, 'Offline-trained variant'): from the reuse distances a profiling
// pass measured over a trace (profile::reuse_distance_profile: per PC and per (PC, divergence bin),
// distance = distinct lines referenced in the same L1 set between two references to a line), a
// `trained_table` that pc_only / pc_divergence are constructed from.
//
// Rules (thresholds are params, the defaults are the dissertation's for a 4-way L1):
//  * a PC is bypassed when the median reuse distance of its references is above
//    `pc_distance_above` (8: beyond twice the associativity, "to compensate the effect of
//    bypassing on the reuse distance distribution obtained offline");
//  * PC+Div adds a second filter: when a PC's references of divergence bin b have a median
//    distance above `divergence_distance_above` (6), its references of every higher bin are
//    bypassed (the text's "degree greater than d", at the granularity of the predictor's bins).
// A reference never reused within the profile's `max_distance`, or a first reference, counts as
// beyond it, so a streaming PC is bypassed.
// Decision: table entries several PCs share (the table keeps 7 PC bits) take the decision of
// the majority of their references; an entry no profiled reference maps to inserts. PCs beyond
// the profile's `max_pcs` share its "other PCs" row and are not trained: size the profile's
// max_pcs to the kernel's memory instructions.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/bypass/pc_only.hpp>
#include <memsub/bypass/trained_table.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/profile/reuse_distance_profile.hpp>

namespace memsub::bypass {

struct offline_training_params {
    /// A PC whose median reuse distance is above this is bypassed (8 for a 4-way L1).
    std::uint32_t pc_distance_above = 8;
    /// PC+Div: a bin whose median is above this makes the PC's higher bins bypass (6).
    std::uint32_t divergence_distance_above = 6;
    /// The counter of an entry that inserts (≥ 1; the predictors' initial counter by default).
    std::uint32_t insert_counter = 1;
    /// Keep the table fixed while the cache runs (the dissertation's offline predictor).
    bool frozen = true;
};

namespace detail {

/// Majority votes per table entry, weighted by references.
class trained_votes {
public:
    explicit trained_votes(std::uint32_t index_bits)
        : bypass_(std::size_t{1} << index_bits, 0)
        , insert_(std::size_t{1} << index_bits, 0)
        , index_bits_(index_bits) {}
    void vote(std::uint32_t index, bool bypass, std::uint64_t references) {
        (bypass ? bypass_ : insert_)[index] += references;
    }
    [[nodiscard]] trained_table table(const offline_training_params& t) const {
        trained_table out{.index_bits = index_bits_,
                          .counters = std::vector<std::uint8_t>(bypass_.size()),
                          .frozen = t.frozen};
        for (std::size_t i = 0; i < bypass_.size(); ++i)
            out.counters[i] =
                bypass_[i] > insert_[i] ? 0 : static_cast<std::uint8_t>(t.insert_counter);
        return out;
    }

private:
    std::vector<std::uint64_t> bypass_, insert_;
    std::uint32_t index_bits_;
};

inline void validate_training(const offline_training_params& t, std::uint32_t counter_bits,
                              std::string_view component) {
    memsub::require(t.insert_counter >= 1 && t.insert_counter < (1u << counter_bits), component,
                    "insert_counter", t.insert_counter, "must be in 1..2^counter_bits - 1");
}

/// True when the PC's references (all bins) are to be bypassed.
inline bool pc_bypassed(const profile::reuse_distance_profile& profile, std::uint64_t pc,
                        const offline_training_params& t) {
    const auto s = profile.of_pc(pc);
    return s && s->references > 0 && s->median > t.pc_distance_above;
}

} // namespace detail

/// The trained table of a PC-only predictor with params `p`.
[[nodiscard]] inline trained_table train(const profile::reuse_distance_profile& profile,
                                         const pc_only::params& p,
                                         const offline_training_params& t = {}) {
    detail::validate_training(t, p.counter_bits, "memsub::bypass::train (pc_only)");
    detail::trained_votes votes(p.pc_index_bits);
    for (const std::uint64_t pc : profile.pcs()) {
        const auto s = profile.of_pc(pc);
        if (!s || s->references == 0) continue;
        votes.vote(detail::pc_bits(pc, p.pc_alignment_bits, p.pc_index_bits),
                   detail::pc_bypassed(profile, pc, t), s->references);
    }
    return votes.table(t);
}

/// The trained table of a PC+divergence predictor with params `p`. The profile's divergence
/// bins must be the predictor's (config_error otherwise).
[[nodiscard]] inline trained_table train(const profile::reuse_distance_profile& profile,
                                         const pc_divergence::params& p,
                                         const offline_training_params& t = {}) {
    constexpr std::string_view component = "memsub::bypass::train (pc_divergence)";
    detail::validate_training(t, p.counter_bits, component);
    const pc_divergence shape(geometry{.sets = 1, .ways = 1, .line_bytes = 128}, p);
    for (std::uint32_t d = 1; d <= 64; ++d)
        memsub::require(profile.bin_of(d) == shape.bin_of(d), component, "divergence_bin_starts", d,
                        "the profile's divergence bins must equal the predictor's");
    detail::trained_votes votes(p.pc_index_bits + pc_divergence::bin_bits);
    for (const std::uint64_t pc : profile.pcs()) {
        const bool whole_pc = detail::pc_bypassed(profile, pc, t);
        bool higher_bins_bypassed = false; // set by a lower bin above the divergence threshold
        const std::uint32_t pc_index = detail::pc_bits(pc, p.pc_alignment_bits, p.pc_index_bits);
        for (std::uint32_t bin = 0; bin < pc_divergence::bins; ++bin) {
            const auto s = profile.of_pc_bin(pc, bin);
            const std::uint32_t index = (pc_index << pc_divergence::bin_bits) | bin;
            if (!s || s->references == 0) {
                // A degree the profile never saw: the rule still bypasses it above a bin that
                // reused too far (one vote, so any profiled reference outweighs it).
                if (higher_bins_bypassed) votes.vote(index, true, 1);
                continue;
            }
            votes.vote(index, whole_pc || higher_bins_bypassed, s->references);
            if (s->median > t.divergence_distance_above) higher_bins_bypassed = true;
        }
    }
    return votes.table(t);
}

/// The offline-trained variant of a table predictor (`pc_only`, `pc_divergence`) as a
/// predictor whose params carry the trained table: what a cache (or the contract kit) builds a
/// predictor from. Without a table of the right size construction throws config_error.
template <class Base>
class offline : public Base {
public:
    struct params {
        typename Base::params base{};
        trained_table table{};
    };
    offline(const geometry& g, const params& p) : Base(g, p.base, p.table) {}

    [[nodiscard]] static constexpr std::string_view name() noexcept {
        if constexpr (std::is_same_v<Base, pc_only>)
            return "pc_only_offline";
        else
            return "pc_divergence_offline";
    }
};

static_assert(bypass_predictor<offline<pc_only>> && bypass_predictor<offline<pc_divergence>>);

} // namespace memsub::bypass
