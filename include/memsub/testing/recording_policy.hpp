// memsub::testing — a replacement policy wrapper that records every hook and checks the call
// protocol (replacement/concept.hpp, P1–P7) while forwarding to the wrapped policy.
//
// The recorder mirrors residency from the hooks alone: it knows which entries are valid because
// on_insert makes them so and on_evict clears them. Any call that contradicts that mirror (a hit
// on an invalid entry, an insert into a valid one, a victim outside the eligible mask, on_miss
// followed by a hit, …) is recorded as a violation with a readable description.
#pragma once

#include <cstdint>
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
    replacement::eviction_reason reason{};
    friend bool operator==(const recorded_call&, const recorded_call&) = default;
};

/// Wraps `Inner` (LRU by default) and checks the protocol. Recording allocates, so this is a test
/// tool, not for production hot paths.
template <replacement::replacement_policy Inner = replacement::lru>
class recording_policy {
public:
    struct params {
        typename Inner::params inner{};
    };

    recording_policy(const geometry& g, const params& p = {})
        : inner_(g, p.inner)
        , entries_(g.entries_per_set())
        , valid_(g.sets, 0)
        , pending_miss_(g.sets, false) {}

    [[nodiscard]] std::string_view name() const noexcept { return "recording"; }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        log(hook::hit, s, e, a.address);
        check(s.value < valid_.size(), "on_hit: set out of range");
        check(contains(valid_[s.value], e), "P1: on_hit on an entry that is not valid");
        check(!victim_pending_, "P4: a victim was named but never evicted");
        pending_miss_[s.value] = false; // the previous miss in this set was bypassed (P3)
        inner_.on_hit(s, e, a);
    }

    void on_miss(set_index s, const access& a) noexcept {
        log(hook::miss, s, entry_index{}, a.address);
        check(!victim_pending_, "P4: a victim was named but never evicted");
        pending_miss_[s.value] = true; // a second miss means the first was bypassed (P3)
        if constexpr (replacement::observes_misses<Inner>) inner_.on_miss(s, a);
    }

    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        log(hook::insert, s, e, a.address);
        check(e.value < entries_, "P5: on_insert entry out of range");
        check(!contains(valid_[s.value], e), "P5: on_insert into a valid entry");
        check(pending_miss_[s.value], "P2: on_insert without a preceding on_miss");
        const entry_mask free = ~valid_[s.value] & low_bits_mask(entries_);
        check(free != 0 && lowest_entry(free) == e, "P5: insert did not use the lowest free entry");
        valid_[s.value] |= bit_of(e);
        pending_miss_[s.value] = false;
        inner_.on_insert(s, e, a);
    }

    void on_evict(set_index s, entry_index e, const replacement::eviction_info& info) noexcept {
        calls_.push_back({hook::evict, s, e, info.block_address, info.reason});
        check(contains(valid_[s.value], e), "P4/P6: on_evict of an entry that is not valid");
        if (info.reason == replacement::eviction_reason::replacement)
            check(last_victim_ == e && victim_pending_,
                  "P4: replacement eviction of an entry victim() did not name");
        victim_pending_ = false;
        valid_[s.value] &= ~bit_of(e);
        inner_.on_evict(s, e, info);
    }

    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access& a) noexcept {
        const entry_index v = inner_.victim(s, eligible, a);
        log(hook::victim, s, v, a.address);
        check(eligible != 0, "R6: victim called with an empty mask");
        check((eligible & ~valid_[s.value]) == 0, "R6: eligible mask holds invalid entries");
        check(contains(eligible, v), "R6: victim outside the eligible mask");
        check(pending_miss_[s.value], "P4: victim without a preceding on_miss");
        last_victim_ = v;
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
        check(pending_miss_[s.value], "O3: should_bypass without a preceding on_miss");
        return inner_.should_bypass(s, a);
    }

    [[nodiscard]] const std::vector<recorded_call>& calls() const noexcept { return calls_; }
    [[nodiscard]] const std::vector<std::string>& violations() const noexcept {
        return violations_;
    }
    void clear_calls() { calls_.clear(); }
    [[nodiscard]] Inner& inner() noexcept { return inner_; }

private:
    void log(hook h, set_index s, entry_index e, byte_address a) noexcept {
        calls_.push_back({h, s, e, a, {}});
    }
    void check(bool ok, std::string_view what) noexcept {
        if (!ok) violations_.emplace_back(what);
    }

    Inner inner_;
    std::uint32_t entries_;
    std::vector<entry_mask> valid_;
    std::vector<bool> pending_miss_;
    entry_index last_victim_{};
    bool victim_pending_ = false;
    std::vector<recorded_call> calls_;
    std::vector<std::string> violations_;
};

} // namespace memsub::testing
