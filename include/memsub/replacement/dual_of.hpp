// memsub — `dual_of<A, B>`: two independent replacement policies as one dueling candidate, so
// `set_dueling<dual_of<A, B>>` duels any two policies (DIP's general set dueling, Qureshi et al.,
// ISCA 2007 §5: two policies compete for the same tag store).
//
// Both policies shadow every hook (hit, miss, insert, evict) in every set, so each always holds
// its own up-to-date view of the set; the side in force names the victim (side 0 → A, side 1 →
// B). Only the chosen policy's `victim` runs, so side effects of victim search (RRIP ageing)
// happen only in the policy that decided. O3 (bypass) is offered when either policy has it; the
// side without it never bypasses.
// Storage: A's bits plus B's bits.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/set_dueling.hpp>

namespace memsub::replacement {

template <replacement_policy A, replacement_policy B>
class dual_of {
public:
    struct params {
        typename A::params first{};
        typename B::params second{};

        /// The fields text can set (core/param_text.hpp): each side's, as first.* and second.*.
        template <class V>
        friend void describe_params(V& v, params& p) {
            v("first", p.first);
            v("second", p.second);
        }
    };

    explicit dual_of(const geometry& g) : dual_of(g, params{}) {}
    dual_of(const geometry& g, const params& p) : a_(g, p.first), b_(g, p.second) {}

    [[nodiscard]] std::string_view name() const noexcept { return "set_dueling"; }

    void on_hit(set_index s, entry_index e, const access& x, std::uint32_t) noexcept {
        a_.on_hit(s, e, x);
        b_.on_hit(s, e, x);
    }
    void on_miss(set_index s, const access& x, std::uint32_t) noexcept {
        if constexpr (observes_misses<A>) a_.on_miss(s, x);
        if constexpr (observes_misses<B>) b_.on_miss(s, x);
    }
    // Size-aware forms (D4, D6): each policy is called in its richest form (notify_insert,
    // choose_victim), so size-aware policies duel on compressed caches too.
    void on_insert(set_index s, entry_index e, const access& x, const insert_info& info,
                   std::uint32_t) noexcept {
        notify_insert(a_, s, e, x, info);
        notify_insert(b_, s, e, x, info);
    }
    void on_evict(set_index s, entry_index e, const evicted_block& info) noexcept {
        a_.on_evict(s, e, info);
        b_.on_evict(s, e, info);
    }
    [[nodiscard]] entry_index victim(set_index s, entry_mask m, const access& x,
                                     const room_request& need, std::uint32_t side) noexcept {
        return side == 0 ? choose_victim(a_, s, m, x, need) : choose_victim(b_, s, m, x, need);
    }
    [[nodiscard]] bool should_bypass(set_index s, const access& x, std::uint32_t side) noexcept
        requires(may_bypass<A> || may_bypass<B>) {
        if (side == 0) {
            if constexpr (may_bypass<A>) return a_.should_bypass(s, x);
        } else {
            if constexpr (may_bypass<B>) return b_.should_bypass(s, x);
        }
        return false;
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return storage_bits_of(a_) + storage_bits_of(b_);
    }

    [[nodiscard]] A& first() noexcept { return a_; }
    [[nodiscard]] B& second() noexcept { return b_; }
    [[nodiscard]] const A& first() const noexcept { return a_; }
    [[nodiscard]] const B& second() const noexcept { return b_; }

private:
    A a_;
    B b_;
};

} // namespace memsub::replacement
