// memsub::testing — a bypass predictor wrapper that records every call and checks the bypass
// protocol (bypass/concept.hpp) while forwarding to the wrapped predictor.
//
// It mirrors, per set, the entries holding blocks it admitted (on_insert adds one, on_evict
// removes it) and its last answer, and records a violation, deduplicated as in
// recording_policy (one entry per rule, first place and count), for every call that
// contradicts them:
//   "Q1: should_bypass on a host no_allocate miss"
//   "Q1: should_bypass on a store miss of a cache whose stores do not allocate"
//   "T2: on_insert of a block the predictor did not admit"  (not asked, or it said bypass)
//   "T2: on_insert into an entry it already holds"
//   "T1: on_hit of an entry it does not hold"
//   "T3: on_evict of an entry it does not hold"
//   "range: set out of range" / "range: entry out of range"  (not forwarded)
// Paired with the cache's `recording_policy` (`observe(cache.policy().trace())`), it also checks
// what needs the replacement side's view of the access:
//   "Q1: should_bypass asked twice for one miss"
//   "Q2: should_bypass outside a miss (on a hit, or before the policy's on_miss)"
//   "Q3: on_hit not right after the policy's on_hit of the same entry" (and on_insert, on_evict)
// A predictor that throws from a noexcept hook ends the process (std::terminate): only
// `check_bypass_contract`, which runs each pass in a child process, turns that into a report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/never.hpp>
#include <memsub/testing/recording_policy.hpp>

namespace memsub::testing {

/// Wraps `Inner` (`bypass::never` by default) and checks the protocol (see the header comment).
template <bypass::bypass_predictor Inner = bypass::never>
class recording_predictor {
public:
    struct params {
        typename Inner::params inner{};
        /// The cache allocates on store misses (write-back). False for write-through and
        /// write-evict caches, whose store misses never reach the predictor (Q1).
        bool stores_allocate = true;
        /// Calls kept in `calls()`; later ones are only counted (`dropped_calls()`).
        std::size_t log_capacity = default_log_capacity;
    };

    recording_predictor(const geometry& g, const params& p = {})
        : inner_(g, p.inner)
        , entries_(g.entries_per_set())
        , variable_(g.segments_per_line() > 1)
        , stores_allocate_(p.stores_allocate)
        , held_(g.sets, 0)
        , admitted_(g.sets, none)
        , asked_serial_(g.sets, 0)
        , log_(p.log_capacity) {}

    [[nodiscard]] std::string_view name() const noexcept { return "recording"; }

    /// Enables the checks that need the replacement side's view (Q1 once per miss, Q2, Q3):
    /// `trace` is the cache's `recording_policy::trace()`, which must outlive this recorder.
    void observe(const policy_trace& trace) noexcept { policy_ = &trace; }

    [[nodiscard]] bool should_bypass(set_index s, const access& a) noexcept {
        log(hook::bypass_query, s, entry_index{}, a.address);
        if (!in_range(s)) return false;
        check(!a.hints.no_allocate, "Q1: should_bypass on a host no_allocate miss", s);
        check(stores_allocate_ || !is_write(a.kind),
              "Q1: should_bypass on a store miss of a cache whose stores do not allocate", s);
        if (policy_ != nullptr) {
            const std::uint64_t miss = policy_->open_miss(s, a);
            check(miss != 0,
                  "Q2: should_bypass outside a miss (on a hit, or before the policy's "
                  "on_miss)",
                  s);
            check(miss == 0 || asked_serial_[s.value] != miss,
                  "Q1: should_bypass asked twice for one miss", s);
            asked_serial_[s.value] = miss;
        }
        const bool bypass = inner_.should_bypass(s, a);
        admitted_[s.value] = bypass ? none : a.address.value;
        return bypass;
    }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        log(hook::hit, s, e, a.address);
        if (!in_range(s, e)) return;
        check(contains(held_[s.value], e), "T1: on_hit of an entry it does not hold", s, e);
        follows(hook::hit, s, e,
                "Q3: on_hit not right after the policy's on_hit of the same entry");
        bypass::notify_hit(inner_, s, e, a);
    }

    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        log(hook::insert, s, e, a.address);
        if (!in_range(s, e)) return;
        check(!contains(held_[s.value], e), "T2: on_insert into an entry it already holds", s, e);
        check(admitted_[s.value] == a.address.value,
              "T2: on_insert of a block the predictor did not admit", s, e);
        follows(hook::insert, s, e,
                "Q3: on_insert not right after the policy's on_insert of the same entry");
        if (!variable_) admitted_[s.value] = none; // one block per admitted miss
        held_[s.value] |= bit_of(e);
        bypass::notify_insert(inner_, s, e, a);
    }

    void on_evict(set_index s, entry_index e, const evicted_block& b) noexcept {
        log(hook::evict, s, e, b.address, b.reason);
        if (!in_range(s, e)) return;
        check(contains(held_[s.value], e), "T3: on_evict of an entry it does not hold", s, e);
        follows(hook::evict, s, e,
                "Q3: on_evict not right after the policy's on_evict of the same entry");
        held_[s.value] &= ~bit_of(e);
        bypass::notify_evict(inner_, s, e, b);
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return bypass::storage_bits_of(inner_);
    }

    [[nodiscard]] const std::vector<recorded_call>& calls() const noexcept { return log_.calls(); }
    [[nodiscard]] std::uint64_t dropped_calls() const noexcept { return log_.dropped(); }
    [[nodiscard]] const std::vector<recorded_violation>& violations() const noexcept {
        return violations_.list();
    }
    void clear_calls() noexcept { log_.clear(); }
    [[nodiscard]] Inner& inner() noexcept { return inner_; }
    [[nodiscard]] const Inner& inner() const noexcept { return inner_; }

private:
    static constexpr std::uint64_t none = ~std::uint64_t{0};

    void log(hook h, set_index s, entry_index e, byte_address a,
             eviction_reason why = {}) noexcept {
        log_.push({h, s, e, a, why});
    }
    void check(bool ok, std::string_view rule, set_index s,
               std::optional<entry_index> e = std::nullopt) noexcept {
        if (ok) return;
        violations_.record(rule, [&] {
            return e ? detail::place(s, *e, std::nullopt) : "set " + std::to_string(s.value);
        });
    }
    /// Q3: the policy's last hook was the same kind, set and entry.
    void follows(hook h, set_index s, entry_index e, std::string_view rule) noexcept {
        if (policy_ == nullptr) return;
        const auto& last = policy_->last();
        check(last && last->what == h && last->set == s && last->entry == e, rule, s, e);
    }
    [[nodiscard]] bool in_range(set_index s, std::optional<entry_index> e = {}) noexcept {
        const auto broken = detail::range_violation(held_.size(), entries_, s, e);
        if (broken) check(false, *broken, s, e);
        return !broken;
    }

    Inner inner_;
    std::uint32_t entries_;
    bool variable_;
    bool stores_allocate_;
    std::vector<entry_mask> held_;            // entries holding blocks it admitted
    std::vector<std::uint64_t> admitted_;     // address of the set's last admitted miss, or none
    std::vector<std::uint64_t> asked_serial_; // the policy's miss serial last asked about
    const policy_trace* policy_ = nullptr;
    detail::call_log log_;
    detail::violation_log violations_;
};

} // namespace memsub::testing
