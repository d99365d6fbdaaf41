// memsub::testing — a replacement policy wrapper that records every hook and checks the call
// protocol (replacement/concept.hpp) while forwarding to the wrapped policy.
//
// The recorder mirrors residency from the hooks alone: it knows which entries are valid because
// on_insert makes them so and on_evict clears them, and it tracks, per set, the open miss (the
// address of the last on_miss, until a hook of another access closes it). Every call that
// contradicts that mirror is recorded as a violation whose rule starts with the label it breaks:
//   "P1: on_hit on an entry that is not valid"
//   "P2: on_hit after on_miss of the same access in a conventional cache"
//   "P2: on_insert without a preceding on_miss"
//   "P4: a victim was named but never evicted"             (on_hit / on_miss / victim before it)
//   "P4: victim without a preceding on_miss"              (nor a resizing store hit, P8)
//   "P4: replacement eviction of an entry victim() did not name"
//   "P4/P6: on_evict of an entry that is not valid"
//   "P5: on_insert into a valid entry"
//   "P5: insert did not use the lowest free entry"
//   "O3: should_bypass without a preceding on_miss"
//   "R6: victim called with an empty mask"
//   "R6: eligible mask holds invalid entries"
//   "R6: victim outside the eligible mask"
//   "range: set out of range" / "range: entry out of range"
// Violations are deduplicated: each rule is kept once, with the place of its first occurrence
// ("set S, entry E" and, for R6, the mask in hex) and a count; `text()` renders it. "Preceding
// on_miss" means the open miss of the set belongs to the same access (same address). In a
// variable-block cache (segments per line > 1) one miss may insert several blocks, and a partial
// miss may report the resident blocks that served part of the request with on_hit after
// on_miss; both are accepted there, and in a conventional cache they are violations. Likewise a
// store hit that grows a compressed block may call victim after its on_hit (P8), in a
// variable-block cache only. The recorder has the size-aware forms of R4 and R6 and hands the
// wrapped policy the richest form it has, so a size-aware policy is tested with the information
// the engine gives it.
//
// Out-of-range calls are recorded and not forwarded (the wrapped policy would index out of
// bounds). An illegal victim is recorded and replaced by the lowest eligible entry before it
// reaches the engine, so a run with a broken policy completes (no engine assertion, no UB) and
// the host gets the whole report. P7 (no allocation, no throw) is the concept's `noexcept` plus
// code review; it is not observable here. The call log keeps the first `params::log_capacity`
// calls and counts the rest (`dropped_calls()`); recording allocates until the log is full and
// once per violation kind, so this is a test tool, not for production hot paths.
//
// `trace()` exposes the recorder's view of each set's open miss and its last hook, so a
// `recording_predictor` (testing/recording_predictor.hpp) in the same cache can check the bypass
// protocol Q1–Q3 against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/lru.hpp>

namespace memsub::testing {

enum class hook : std::uint8_t { hit, miss, insert, evict, victim, bypass_query };

struct recorded_call {
    hook what{};
    set_index set{};
    entry_index entry{};
    byte_address address{};
    eviction_reason reason{};
    friend bool operator==(const recorded_call&, const recorded_call&) = default;
};

/// One kind of protocol violation a recorder saw: its rule, where it first happened, how often.
struct recorded_violation {
    /// The broken rule, starting with its label ("R6: victim outside the eligible mask").
    std::string rule;
    /// Where it first happened ("set 3, entry 9, eligible 0xf").
    std::string first;
    std::uint64_t count = 0;

    /// "R6: … (set 0, entry 4, eligible 0xf)" once; "R6: … — 17000 times, first at set 3, …".
    [[nodiscard]] std::string text() const {
        if (count <= 1) return rule + " (" + first + ")";
        return rule + " \u2014 " + std::to_string(count) + " times, first at " + first;
    }
};

/// Recorders' default call-log capacity (calls beyond it are counted, not kept).
inline constexpr std::size_t default_log_capacity = std::size_t{1} << 16;

namespace detail {

/// A deduplicating violation list: one entry per rule. Rules come from a fixed set of string
/// literals, so the list is bounded; a repeat costs a short scan and no allocation.
class violation_log {
public:
    /// Records `rule`; `where` builds the place of a first occurrence (called only then).
    template <class Where>
    void record(std::string_view rule, Where&& where) noexcept {
        for (auto& v : list_)
            if (v.rule == rule) {
                ++v.count;
                return;
            }
        list_.push_back({std::string(rule), where(), 1});
    }
    [[nodiscard]] const std::vector<recorded_violation>& list() const noexcept { return list_; }

private:
    std::vector<recorded_violation> list_;
};

/// "set S, entry E[, eligible 0x…]".
inline std::string place(set_index s, entry_index e, std::optional<entry_mask> mask) {
    std::string text = "set " + std::to_string(s.value) + ", entry " + std::to_string(e.value);
    if (mask) {
        static constexpr char hex[] = "0123456789abcdef";
        std::string m;
        for (entry_mask v = *mask; v != 0; v >>= 4) m.insert(m.begin(), hex[v & 15u]);
        text += ", eligible 0x" + (m.empty() ? std::string("0") : m);
    }
    return text;
}

/// The range rule a hook's (set, entry) breaks for a recorder of `sets` sets of `entries`
/// entries, if any (both recorders check it before anything else).
[[nodiscard]] inline std::optional<std::string_view>
range_violation(std::size_t sets, std::uint32_t entries, set_index s,
                std::optional<entry_index> e) noexcept {
    if (s.value >= sets) return "range: set out of range";
    if (e && e->value >= entries) return "range: entry out of range";
    return std::nullopt;
}

/// A call log that keeps the first `capacity` calls and counts the rest.
class call_log {
public:
    explicit call_log(std::size_t capacity) : capacity_(capacity) {}
    void push(const recorded_call& c) noexcept {
        if (calls_.size() < capacity_)
            calls_.push_back(c);
        else
            ++dropped_;
    }
    [[nodiscard]] const std::vector<recorded_call>& calls() const noexcept { return calls_; }
    [[nodiscard]] std::uint64_t dropped() const noexcept { return dropped_; }
    void clear() noexcept {
        calls_.clear();
        dropped_ = 0;
    }

private:
    std::size_t capacity_;
    std::vector<recorded_call> calls_;
    std::uint64_t dropped_ = 0;
};

} // namespace detail

template <replacement::replacement_policy Inner = replacement::lru>
class recording_policy;

/// A recording_policy's view of the protocol, read by a paired `recording_predictor`: each set's
/// open miss (a serial number per on_miss, 0 when none is open) and the last hook called.
class policy_trace {
public:
    explicit policy_trace(std::uint32_t sets) : miss_serial_(sets, 0), miss_address_(sets, 0) {}

    /// The serial of `s`'s open miss when it belongs to `a` (same address), else 0.
    [[nodiscard]] std::uint64_t open_miss(set_index s, const access& a) const noexcept {
        if (s.value >= miss_serial_.size()) return 0;
        return miss_address_[s.value] == a.address.value ? miss_serial_[s.value] : 0;
    }
    /// The last hook the policy received (its kind, set and entry).
    [[nodiscard]] const std::optional<recorded_call>& last() const noexcept { return last_; }

private:
    template <replacement::replacement_policy>
    friend class recording_policy;

    [[nodiscard]] bool open(set_index s, const access& a) const noexcept {
        return open_miss(s, a) != 0;
    }

    std::vector<std::uint64_t> miss_serial_;
    std::vector<std::uint64_t> miss_address_;
    std::uint64_t serials_ = 0;
    std::optional<recorded_call> last_;
};

/// Wraps `Inner` (LRU by default) and checks the protocol (see the header comment).
template <replacement::replacement_policy Inner>
class recording_policy {
public:
    struct params {
        typename Inner::params inner{};
        /// Calls kept in `calls()`; later ones are only counted (`dropped_calls()`).
        std::size_t log_capacity = default_log_capacity;
    };

    recording_policy(const geometry& g, const params& p = {})
        : inner_(g, p.inner)
        , entries_(g.entries_per_set())
        , variable_(g.segments_per_line() > 1)
        , valid_(g.sets, 0)
        , hit_open_(g.sets, false)
        , hit_address_(g.sets, 0)
        , trace_(g.sets)
        , log_(p.log_capacity) {}

    [[nodiscard]] std::string_view name() const noexcept { return "recording"; }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        log(hook::hit, s, e, a.address);
        if (!in_range(s, e)) return;
        check(contains(valid_[s.value], e), "P1: on_hit on an entry that is not valid", s, e);
        check(!victim_pending_, "P4: a victim was named but never evicted", s, last_victim_);
        victim_pending_ = false; // reported once
        if (same_access(s, a))
            check(variable_, "P2: on_hit after on_miss of the same access in a conventional cache",
                  s, e);
        else
            close_miss(s); // the previous miss in this set was bypassed (P3)
        hit_open_[s.value] = trace_.miss_serial_[s.value] == 0; // a store hit may resize (P8)
        hit_address_[s.value] = a.address.value;
        inner_.on_hit(s, e, a);
    }

    void on_miss(set_index s, const access& a) noexcept {
        log(hook::miss, s, entry_index{}, a.address);
        if (!in_range(s)) return;
        check(!victim_pending_, "P4: a victim was named but never evicted", s, last_victim_);
        victim_pending_ = false; // reported once
        // An open miss before means that one was bypassed (P3).
        trace_.miss_serial_[s.value] = ++trace_.serials_;
        trace_.miss_address_[s.value] = a.address.value;
        hit_open_[s.value] = false;
        if constexpr (replacement::observes_misses<Inner>) inner_.on_miss(s, a);
    }

    /// The minimal form, for direct calls in tests: no size information.
    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        on_insert(s, e, a, replacement::insert_info{});
    }
    void on_insert(set_index s, entry_index e, const access& a,
                   const replacement::insert_info& info) noexcept {
        log(hook::insert, s, e, a.address);
        if (!in_range(s, e)) return;
        check(!contains(valid_[s.value], e), "P5: on_insert into a valid entry", s, e);
        check(same_access(s, a), "P2: on_insert without a preceding on_miss", s, e);
        const entry_mask free = ~valid_[s.value] & low_bits_mask(entries_);
        check(free != 0 && lowest_entry(free) == e, "P5: insert did not use the lowest free entry",
              s, e);
        valid_[s.value] |= bit_of(e);
        if (!variable_) close_miss(s); // one block per miss
        replacement::notify_insert(inner_, s, e, a, info);
    }

    void on_evict(set_index s, entry_index e, const evicted_block& info) noexcept {
        log(hook::evict, s, e, info.address, info.reason);
        if (!in_range(s, e)) return;
        check(contains(valid_[s.value], e), "P4/P6: on_evict of an entry that is not valid", s, e);
        if (info.reason == eviction_reason::replacement)
            check(victim_pending_ && last_victim_ == e && last_victim_set_ == s.value,
                  "P4: replacement eviction of an entry victim() did not name", s, e);
        victim_pending_ = false;
        valid_[s.value] &= ~bit_of(e);
        inner_.on_evict(s, e, info);
    }

    /// Returns the wrapped policy's victim when it is legal, else (after recording the R6
    /// violation) the lowest eligible entry, so the engine never sees an illegal victim. A mask
    /// that itself breaks R6 (empty, or holding entries that are not valid) is recorded and only
    /// its valid part is passed on; with no valid part the wrapped policy is not asked.
    /// The minimal form, for direct calls in tests: no size information.
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access& a) noexcept {
        return victim(s, eligible, a, replacement::room_request{});
    }
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access& a,
                                     const replacement::room_request& need) noexcept {
        const entry_index fallback = eligible != 0 ? lowest_entry(eligible) : entry_index{0};
        if (!in_range(s)) {
            log(hook::victim, s, fallback, a.address);
            return fallback;
        }
        check(eligible != 0, "R6: victim called with an empty mask", s, entry_index{});
        check((eligible & ~valid_[s.value]) == 0, "R6: eligible mask holds invalid entries", s,
              entry_index{}, eligible);
        const bool resizing =
            variable_ && hit_open_[s.value] && hit_address_[s.value] == a.address.value;
        check(same_access(s, a) || resizing, "P4: victim without a preceding on_miss", s,
              entry_index{});
        check(!victim_pending_, "P4: a victim was named but never evicted", s, last_victim_);
        const entry_mask asked = eligible & valid_[s.value];
        entry_index v = fallback;
        if (asked != 0) {
            v = replacement::choose_victim(inner_, s, asked, a, need);
            const bool legal = v.value < max_entries_per_set && contains(asked, v);
            check(legal, "R6: victim outside the eligible mask", s, v, asked);
            if (!legal) v = lowest_entry(asked);
        }
        log(hook::victim, s, v, a.address);
        last_victim_ = v;
        last_victim_set_ = s.value;
        victim_pending_ = true;
        return v;
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return replacement::storage_bits_of(inner_);
    }

    /// O3 is forwarded only when the wrapped policy has it.
    [[nodiscard]] bool
    should_bypass(set_index s, const access& a) noexcept requires replacement::may_bypass<Inner> {
        log(hook::bypass_query, s, entry_index{}, a.address);
        if (!in_range(s)) return false;
        check(same_access(s, a), "O3: should_bypass without a preceding on_miss", s, entry_index{});
        return inner_.should_bypass(s, a);
    }

    /// The first `params::log_capacity` calls since construction or `clear_calls()`.
    [[nodiscard]] const std::vector<recorded_call>& calls() const noexcept { return log_.calls(); }
    /// Calls made after the log was full.
    [[nodiscard]] std::uint64_t dropped_calls() const noexcept { return log_.dropped(); }
    /// One entry per broken rule, in order of first occurrence.
    [[nodiscard]] const std::vector<recorded_violation>& violations() const noexcept {
        return violations_.list();
    }
    void clear_calls() noexcept { log_.clear(); }
    [[nodiscard]] const policy_trace& trace() const noexcept { return trace_; }
    [[nodiscard]] Inner& inner() noexcept { return inner_; }

private:
    void log(hook h, set_index s, entry_index e, byte_address a,
             eviction_reason why = {}) noexcept {
        const recorded_call c{h, s, e, a, why};
        log_.push(c);
        trace_.last_ = c;
    }
    void close_miss(set_index s) noexcept { trace_.miss_serial_[s.value] = 0; }
    /// `a` is the access of the set's open miss.
    [[nodiscard]] bool same_access(set_index s, const access& a) const noexcept {
        return trace_.open(s, a);
    }
    void check(bool ok, std::string_view rule, set_index s, entry_index e,
               std::optional<entry_mask> mask = std::nullopt) noexcept {
        if (ok) return;
        // The mask is taken apart here, not captured: GCC 12 at -O3 warned that the captured
        // optional's value "may be used uninitialized" (it is read only when present).
        const bool has_mask = mask.has_value();
        const entry_mask bits = mask.value_or(0);
        violations_.record(rule, [&] {
            return detail::place(s, e, has_mask ? std::optional<entry_mask>(bits) : std::nullopt);
        });
    }
    [[nodiscard]] bool in_range(set_index s, std::optional<entry_index> e = {}) noexcept {
        const auto broken = detail::range_violation(valid_.size(), entries_, s, e);
        if (broken) check(false, *broken, s, e.value_or(entry_index{}));
        return !broken;
    }

    Inner inner_;
    std::uint32_t entries_;
    bool variable_;
    std::vector<entry_mask> valid_;
    std::vector<bool> hit_open_; // the set's last hook was a pure hit (a resizing store, P8)
    std::vector<std::uint64_t> hit_address_;
    entry_index last_victim_{};
    std::uint32_t last_victim_set_ = 0;
    bool victim_pending_ = false;
    policy_trace trace_;
    detail::call_log log_;
    detail::violation_log violations_;
};

} // namespace memsub::testing
