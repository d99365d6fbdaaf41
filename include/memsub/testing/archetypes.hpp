// memsub::testing — minimal archetypes of each concept family.
//
// An archetype is the smallest type that models a concept: if a generic component compiles with
// it, the component asks no more than the concept promises. `broken_*` types each violate exactly
// one numbered requirement, so tests can show the concept rejects them.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/replacement/concept.hpp>

namespace memsub::testing {

/// Models `replacement_policy` with nothing but R1–R7: always evicts the lowest eligible entry.
struct replacement_archetype {
    struct params {};
    replacement_archetype(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const replacement::eviction_info&) noexcept {}
    entry_index victim(set_index, entry_mask eligible, const access&) noexcept {
        return lowest_entry(eligible);
    }
    std::string_view name() const noexcept { return "archetype"; }
};

/// Violates R1: no `params`.
struct broken_policy_no_params {
    broken_policy_no_params(const geometry&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const replacement::eviction_info&) noexcept {}
    entry_index victim(set_index, entry_mask m, const access&) noexcept { return lowest_entry(m); }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates R3: `on_hit` may throw.
struct broken_policy_throwing_hit {
    struct params {};
    broken_policy_throwing_hit(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const replacement::eviction_info&) noexcept {}
    entry_index victim(set_index, entry_mask m, const access&) noexcept { return lowest_entry(m); }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates R6: `victim` returns a raw integer instead of an `entry_index`.
struct broken_policy_raw_victim {
    struct params {};
    broken_policy_raw_victim(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const replacement::eviction_info&) noexcept {}
    std::uint32_t victim(set_index, entry_mask, const access&) noexcept { return 0; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates R5: no `on_evict`, so it could never train on departures.
struct broken_policy_no_evict {
    struct params {};
    broken_policy_no_evict(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    entry_index victim(set_index, entry_mask m, const access&) noexcept { return lowest_entry(m); }
    std::string_view name() const noexcept { return "broken"; }
};

static_assert(replacement::replacement_policy<replacement_archetype>);
static_assert(!replacement::replacement_policy<broken_policy_no_params>);
static_assert(!replacement::replacement_policy<broken_policy_throwing_hit>);
static_assert(!replacement::replacement_policy<broken_policy_raw_victim>);
static_assert(!replacement::replacement_policy<broken_policy_no_evict>);

} // namespace memsub::testing
