// memsub — Belady's MIN (OPT): the miss-count bound of a set-associative cache.
//
// Citation: Belady, "A study of replacement algorithms for a virtual-storage computer", IBM
// Systems Journal 5(2), 1966 (MIN); applied per set (docs/mechanisms/remap.md, 'OPT'): under a
// fixed index mapping the sets are independent, so MIN in every set is optimal for the whole
// set-associative cache. See also Mattson, Gecsei, Slutz, Traiger, "Evaluation techniques for
// storage hierarchies", IBM Systems Journal 9(2), 1970 (OPT as a stack algorithm; set-associative
// memories evaluated set by set).
// Needs an oracle: each access's `hints.next_use` must hold the stream position of the next
// access to the same line (`memsub::never` if none) — see next_use.hpp. Each entry stores the
// next use of its line, set at insertion and on every hit.
// Rules (docs/mechanisms/remap.md, 'OPT'):
//  * Victim: the eligible entry whose next use is furthest (never = ∞ first); ties (only lines
//    never used again can tie) go to the lowest entry, so reported evictions are deterministic.
//  * Default: no bypass (demand-fetch MIN; the bound for policies that always insert).
//  * `allow_bypass` (O3): in a full set, the incoming line is not inserted when its next use is
//    ≥ the furthest resident next use (ties prefer bypass). Misses ≤ the no-bypass count.
// Writes are references like reads. OPT minimises misses, not memory access cost.
// Deviations:
//  * Belady's MIN evicts any page with the furthest next reference; ties are broken here by the
//    lowest entry (deterministic results). Ties cannot change the miss count.
//  * `allow_bypass` is an extension (MIN with bypass); the default is the paper's demand-fetch
//    MIN, the bound only for policies that insert on every allocating miss.
//  * Victims are restricted to the engine's eligible mask. In a variable-block cache each block
//    carries its line's next use, so OPT orders blocks by line and is no proven bound there.
//  * Optimal for the stream the cache sees only: the next uses must be computed on exactly that
//    stream (positions are indices into it). Accesses the host marks no-allocate still count as
//    uses, and writebacks/dirtiness do not enter the choice (miss-optimal, not traffic-optimal).
// Storage: an oracle, not hardware; `storage_bits()` reports the model's 64-bit next-use stamp
// per entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

class opt {
public:
    struct params {
        bool allow_bypass = false;

        /// The fields text can set (core/param_text.hpp).
        template <class V>
        friend void describe_params(V& v, params& p) {
            v("allow_bypass", p.allow_bypass);
        }
    };

    explicit opt(const geometry& g) : opt(g, params{}) {}
    opt(const geometry& g, const params& p)
        : entries_(g.entries_per_set())
        , allow_bypass_(p.allow_bypass)
        , next_use_(g.total_entries(), never)
        , valid_(g.sets, 0) {}

    [[nodiscard]] std::string_view name() const noexcept {
        return allow_bypass_ ? "opt_bypass" : "opt";
    }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        next_use_[index(s, e)] = a.hints.next_use;
    }
    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        next_use_[index(s, e)] = a.hints.next_use;
        valid_[s.value] |= bit_of(e);
    }
    void on_evict(set_index s, entry_index e, const evicted_block&) noexcept {
        valid_[s.value] &= ~bit_of(e);
    }

    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        return furthest(s, eligible);
    }

    [[nodiscard]] bool should_bypass(set_index s, const access& a) noexcept {
        const entry_mask valid = valid_[s.value];
        if (!allow_bypass_ || valid == 0) return false;
        return a.hints.next_use >= next_use_[index(s, furthest(s, valid))];
    }

    /// The stored next use of an entry.
    [[nodiscard]] std::uint64_t next_use(set_index s, entry_index e) const noexcept {
        return next_use_[index(s, e)];
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return 64u * next_use_.size(); }

private:
    [[nodiscard]] std::size_t index(set_index s, entry_index e) const noexcept {
        return std::size_t{s.value} * entries_ + e.value;
    }

    [[nodiscard]] entry_index furthest(set_index s, entry_mask m) const noexcept {
        const std::uint64_t* nu = &next_use_[index(s, entry_index{0})];
        entry_index best = lowest_entry(m);
        std::uint64_t best_use = nu[best.value];
        for (m &= m - 1; m != 0; m &= m - 1) {
            const entry_index e = lowest_entry(m);
            if (nu[e.value] > best_use) { // strict: ties keep the lowest entry
                best_use = nu[e.value];
                best = e;
            }
        }
        return best;
    }

    std::uint32_t entries_;
    bool allow_bypass_;
    std::vector<std::uint64_t> next_use_;
    std::vector<entry_mask> valid_;
};

static_assert(replacement_policy<opt>);
static_assert(may_bypass<opt>);

} // namespace memsub::replacement
