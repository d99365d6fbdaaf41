// memsub — signature-based hit prediction (SHiP-PC, optionally sampled: SHiP-PC-S).
//
// Citation: Wu, Jaleel, Hasenplaugh, Martonosi, Steely, Emer, "SHiP: Signature-based Hit
// Predictor for High Performance Caching", MICRO 2011, §3 (SHCT training and insertion), §4
// (SHiP-PC signature), §6.2 (SHiP-S set sampling, SHiP-R2 2-bit counters).
// Rules (docs/mechanisms/remap.md, 'SHiP'):
//  * Base: 2-bit SRRIP with hit priority; SHiP changes only the insertion RRPV.
//  * SHCT of 2^signature_bits saturating counters (default 16K × 3 bits).
//  * Per line: the inserting signature and an outcome bit (0 at insertion).
//  * Hit: outcome ← 1 and SHCT[line.signature] += 1 (saturating), on every hit.
//  * Eviction of a line whose outcome is still 0: SHCT[line.signature] −= 1 (saturating at 0).
//  * Insertion: SHCT[signature of the missing access] == 0 → distant (2^M − 1), else long
//    (2^M − 2).
//  * SHiP-S (`sampled_sets` > 0): only lines of sampled sets keep signature/outcome and train the
//    SHCT; predictions apply to every set.
// Resolutions / deviations:
//  * Signature: the PC folded to `signature_bits` bits by XOR of signature_bits-wide chunks
//    (the paper does not give its hash). SHiP-Mem and SHiP-ISeq are not provided.
//  * Initial SHCT value 1 (`initial_counter`), so an untrained signature inserts like SRRIP.
//  * Training on departure happens only for replacement evictions (eviction_reason::replacement);
//    invalidations carry no evidence about reuse.
//  * Sampled sets are evenly spaced: set s is sampled iff s mod (sets / sampled_sets) == 0
//    (`sampled_sets` a power of two ≤ sets).
//  * Decision: a writeback from the level above (access_kind::writeback) has no signature. Its fill
//    is inserted at long (2^M − 2, SRRIP's insertion) and marked as carrying no signature, so
//    neither its hits nor its eviction train the SHCT; hits on lines a demand access inserted train
//    as any hit does (a writeback hit included). SHiP applies the insertion rule to every
//    access; we exempt writebacks because SHiP-PC's signature is the PC of the memory instruction
//    that inserts the line (§4) and a writeback has none: hosts pass pc = 0, so every writeback
//    shared one SHCT counter trained by lines from all over the program, and once it reached 0
//    every writeback fill went in distant (99.3 % of them on bzip2 through memsub's L1/L2/LLC) and
//    left before a read could credit it — a loss wherever written data is read back (a merge pass's
//    output is the next pass's input). Long is what SHiP gives a signature it knows nothing about
//    (initial counter 1) and what ChampSim's SHiP gives writebacks. Where written-back lines are
//    dead, distant had been the better guess: in ChampSim on bzip2 demand misses rose 2.6 % with
//    this rule (still 1.4 % below SRRIP's).
// Storage: M bits per entry + (signature_bits + 2) bits per entry of a sampled (training) set
// (signature, outcome, and whether the line has a signature at all) + 2^signature_bits ×
// counter_bits. Default on a 1 MB 16-way LLC (16384 lines, all training): 16384·(2 + 16) +
// 16384·3 = 344,064 bits = 42 KB, the figure the paper quotes for SHiP-PC (it gives no
// breakdown, so the match does not show that it counts the same bits).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/rrpv_state.hpp>

namespace memsub::replacement {

class ship {
public:
    struct params {
        std::uint32_t rrpv_bits = 2;
        /// Signature width; the SHCT has 2^signature_bits counters. 1..16.
        std::uint32_t signature_bits = 14;
        /// SHCT counter width (3 in SHiP, 2 in SHiP-R2). 1..8.
        std::uint32_t counter_bits = 3;
        /// Initial value of every SHCT counter (≤ 2^counter_bits − 1).
        std::uint32_t initial_counter = 1;
        /// 0 = every set trains (SHiP-PC); otherwise the number of sampled sets (SHiP-S).
        std::uint32_t sampled_sets = 0;

        /// The fields text can set (core/param_text.hpp).
        template <class V>
        friend void describe_params(V& v, params& p) {
            v("rrpv_bits", p.rrpv_bits);
            v("signature_bits", p.signature_bits);
            v("counter_bits", p.counter_bits);
            v("initial_counter", p.initial_counter);
            v("sampled_sets", p.sampled_sets);
        }
    };

    explicit ship(const geometry& g) : ship(g, params{}) {}
    ship(const geometry& g, const params& p)
        : state_((validate(g, p), g), p.rrpv_bits)
        , sig_bits_(p.signature_bits)
        , sig_mask_((1u << p.signature_bits) - 1u)
        , counter_max_(static_cast<std::uint8_t>((1u << p.counter_bits) - 1u))
        , counter_bits_(p.counter_bits)
        , sample_mask_(p.sampled_sets == 0 ? 0u : g.sets / p.sampled_sets - 1u)
        , sampled_sets_(p.sampled_sets == 0 ? g.sets : p.sampled_sets)
        , entries_(g.entries_per_set())
        , shct_(std::size_t{1} << p.signature_bits, static_cast<std::uint8_t>(p.initial_counter))
        , signature_(g.total_entries(), 0)
        , outcome_(g.sets, 0)
        , no_signature_(g.sets, 0) {}

    [[nodiscard]] std::string_view name() const noexcept { return "ship"; }

    void on_hit(set_index s, entry_index e, const access&) noexcept {
        state_.promote(s, e, hit_promotion::hit_priority);
        if (!trains(s) || contains(no_signature_[s.value], e)) return;
        outcome_[s.value] |= bit_of(e);
        std::uint8_t& c = shct_[signature_[index(s, e)]];
        c = static_cast<std::uint8_t>(c + (c < counter_max_));
    }

    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        if (a.kind == access_kind::writeback) {
            state_.set(s, e, state_.long_interval());
            if (trains(s)) no_signature_[s.value] |= bit_of(e);
            return;
        }
        const std::uint32_t sig = signature_of(a.pc);
        state_.set(s, e, shct_[sig] == 0 ? state_.distant() : state_.long_interval());
        if (!trains(s)) return;
        signature_[index(s, e)] = static_cast<std::uint16_t>(sig);
        outcome_[s.value] &= ~bit_of(e);
        no_signature_[s.value] &= ~bit_of(e);
    }

    void on_evict(set_index s, entry_index e, const evicted_block& info) noexcept {
        if (!trains(s) || info.reason != eviction_reason::replacement) return;
        if (contains(outcome_[s.value] | no_signature_[s.value], e)) return;
        std::uint8_t& c = shct_[signature_[index(s, e)]];
        c = static_cast<std::uint8_t>(c - (c != 0));
    }

    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        return state_.find_victim(s, eligible);
    }

    /// The signature SHiP-PC computes for a PC: XOR-fold to `signature_bits` bits.
    [[nodiscard]] std::uint32_t signature_of(std::uint64_t pc) const noexcept {
        std::uint64_t folded = 0;
        for (; pc != 0; pc >>= sig_bits_) folded ^= pc & sig_mask_;
        return static_cast<std::uint32_t>(folded);
    }
    [[nodiscard]] std::uint32_t counter(std::uint32_t signature) const noexcept {
        return shct_[signature & sig_mask_];
    }
    [[nodiscard]] bool trains(set_index s) const noexcept { return (s.value & sample_mask_) == 0; }
    [[nodiscard]] std::uint32_t rrpv(set_index s, entry_index e) const noexcept {
        return state_.get(s, e);
    }
    [[nodiscard]] bool outcome(set_index s, entry_index e) const noexcept {
        return contains(outcome_[s.value], e);
    }
    /// Whether the line in a training set carries a signature (false for a writeback fill).
    [[nodiscard]] bool has_signature(set_index s, entry_index e) const noexcept {
        return trains(s) && !contains(no_signature_[s.value], e);
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return state_.storage_bits() + std::uint64_t{sampled_sets_} * entries_ * (sig_bits_ + 2u) +
               std::uint64_t{shct_.size()} * counter_bits_;
    }

private:
    static constexpr std::string_view component = "memsub::replacement::ship";

    static void validate(const geometry& g, const params& p) {
        rrpv_state::validate_bits(p.rrpv_bits, component);
        require(p.signature_bits >= 1 && p.signature_bits <= 16, component, "signature_bits",
                p.signature_bits, "must be in 1..16");
        require(p.counter_bits >= 1 && p.counter_bits <= 8, component, "counter_bits",
                p.counter_bits, "must be in 1..8");
        require(p.initial_counter < (1u << p.counter_bits), component, "initial_counter",
                p.initial_counter, "must fit in counter_bits");
        require(p.sampled_sets == 0 ||
                    (std::has_single_bit(p.sampled_sets) && p.sampled_sets <= g.sets),
                component, "sampled_sets", p.sampled_sets,
                "must be 0 (all sets) or a power of two <= sets");
    }

    [[nodiscard]] std::size_t index(set_index s, entry_index e) const noexcept {
        return std::size_t{s.value} * entries_ + e.value;
    }

    rrpv_state state_;
    std::uint32_t sig_bits_;
    std::uint32_t sig_mask_;
    std::uint8_t counter_max_;
    std::uint32_t counter_bits_;
    std::uint32_t sample_mask_;
    std::uint32_t sampled_sets_;
    std::uint32_t entries_;
    std::vector<std::uint8_t> shct_;
    std::vector<std::uint16_t> signature_;
    std::vector<entry_mask> outcome_;      // per set, bit e = entry e's outcome bit
    std::vector<entry_mask> no_signature_; // per set, bit e = entry e was filled by a writeback
};

static_assert(replacement_policy<ship>);

} // namespace memsub::replacement
