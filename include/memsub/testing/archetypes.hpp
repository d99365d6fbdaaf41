// memsub::testing — minimal archetypes of the cache policy families.
//
// An archetype is the smallest type that models a concept: if a generic component compiles with
// it, the component asks no more than the concept promises. Each `broken_*` type violates
// exactly one numbered requirement, so tests can show that the concept rejects it and that the
// sub-concept of that requirement (`r5_on_evict`, `b3_should_bypass`, …) is the one that fails.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/bypass/concept.hpp>
#include <memsub/linesize/concept.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/selection/concept.hpp>
#include <memsub/topology/concept.hpp>

namespace memsub::testing {

// ------------------------------------------------------------------ replacement policies (R)

/// Models `replacement_policy` with nothing but R1–R7: always evicts the lowest eligible entry.
struct replacement_archetype {
    struct params {};
    replacement_archetype(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
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
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    entry_index victim(set_index, entry_mask m, const access&) noexcept { return lowest_entry(m); }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates R2: constructible from a geometry alone, not from (geometry, params).
struct broken_policy_no_constructor {
    struct params {};
    explicit broken_policy_no_constructor(const geometry&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    entry_index victim(set_index, entry_mask m, const access&) noexcept { return lowest_entry(m); }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates R3: `on_hit` may throw.
struct broken_policy_throwing_hit {
    struct params {};
    broken_policy_throwing_hit(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    entry_index victim(set_index, entry_mask m, const access&) noexcept { return lowest_entry(m); }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates R4: `on_insert` takes the entry as a raw integer (neither R4 form matches).
struct broken_policy_raw_insert {
    struct params {};
    broken_policy_raw_insert(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, std::uint32_t, const access&) noexcept {}
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    entry_index victim(set_index, entry_mask m, const access&) noexcept { return lowest_entry(m); }
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

/// Violates R6: `victim` returns a raw integer instead of an `entry_index`.
struct broken_policy_raw_victim {
    struct params {};
    broken_policy_raw_victim(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    std::uint32_t victim(set_index, entry_mask, const access&) noexcept { return 0; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates R7: `name()` returns a number.
struct broken_policy_unnamed {
    struct params {};
    broken_policy_unnamed(const geometry&, const params&) {}
    void on_hit(set_index, entry_index, const access&) noexcept {}
    void on_insert(set_index, entry_index, const access&) noexcept {}
    void on_evict(set_index, entry_index, const evicted_block&) noexcept {}
    entry_index victim(set_index, entry_mask m, const access&) noexcept { return lowest_entry(m); }
    int name() const noexcept { return 0; }
};

static_assert(replacement::replacement_policy<replacement_archetype>);
static_assert(!replacement::r1_params<broken_policy_no_params>);
static_assert(!replacement::r2_constructible<broken_policy_no_constructor>);
static_assert(!replacement::r3_on_hit<broken_policy_throwing_hit>);
static_assert(!replacement::r4_on_insert<broken_policy_raw_insert>);
static_assert(!replacement::r5_on_evict<broken_policy_no_evict>);
static_assert(!replacement::r6_victim<broken_policy_raw_victim>);
static_assert(!replacement::r7_name<broken_policy_unnamed>);

// ---------------------------------------------------------------------- bypass predictors (B)

/// Models `bypass_predictor` with nothing but B1–B4: admits everything, trains on nothing.
struct bypass_archetype {
    struct params {};
    bypass_archetype(const geometry&, const params&) {}
    bool should_bypass(set_index, const access&) noexcept { return false; }
    std::string_view name() const noexcept { return "archetype"; }
};

/// Violates B1: no `params`.
struct broken_predictor_no_params {
    explicit broken_predictor_no_params(const geometry&) {}
    bool should_bypass(set_index, const access&) noexcept { return false; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates B2: default-constructible only, it cannot be built for a geometry.
struct broken_predictor_no_constructor {
    struct params {};
    bool should_bypass(set_index, const access&) noexcept { return false; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates B3: `should_bypass` may throw.
struct broken_predictor_throwing {
    struct params {};
    broken_predictor_throwing(const geometry&, const params&) {}
    bool should_bypass(set_index, const access&) { return false; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates B4: no `name()`.
struct broken_predictor_unnamed {
    struct params {};
    broken_predictor_unnamed(const geometry&, const params&) {}
    bool should_bypass(set_index, const access&) noexcept { return false; }
};

static_assert(bypass::bypass_predictor<bypass_archetype>);
static_assert(!bypass::b1_params<broken_predictor_no_params>);
static_assert(!bypass::b2_constructible<broken_predictor_no_constructor>);
static_assert(!bypass::b3_should_bypass<broken_predictor_throwing>);
static_assert(!bypass::b4_name<broken_predictor_unnamed>);

// ------------------------------------------------------------------ line-size predictors (LS)

/// Models `line_size_predictor` with nothing but LS1–LS4: always the whole line.
struct linesize_archetype {
    struct params {};
    linesize_archetype(const geometry& g, const params&) : line_bytes(g.line_bytes) {}
    std::uint32_t block_bytes(set_index, const access&) noexcept { return line_bytes; }
    std::string_view name() const noexcept { return "archetype"; }
    std::uint32_t line_bytes;
};

/// Violates LS1: no `params`.
struct broken_sizer_no_params {
    explicit broken_sizer_no_params(const geometry&) {}
    std::uint32_t block_bytes(set_index, const access&) noexcept { return 32; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates LS2: built from params alone, not for a geometry.
struct broken_sizer_no_geometry {
    struct params {};
    explicit broken_sizer_no_geometry(const params&) {}
    std::uint32_t block_bytes(set_index, const access&) noexcept { return 32; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates LS3: `block_bytes` may throw.
struct broken_sizer_throwing {
    struct params {};
    broken_sizer_throwing(const geometry&, const params&) {}
    std::uint32_t block_bytes(set_index, const access&) { return 32; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates LS4: `name()` is not a string.
struct broken_sizer_unnamed {
    struct params {};
    broken_sizer_unnamed(const geometry&, const params&) {}
    std::uint32_t block_bytes(set_index, const access&) noexcept { return 32; }
    int name() const noexcept { return 0; }
};

static_assert(linesize::line_size_predictor<linesize_archetype>);
static_assert(!linesize::ls1_params<broken_sizer_no_params>);
static_assert(!linesize::ls2_constructible<broken_sizer_no_geometry>);
static_assert(!linesize::ls3_block_bytes<broken_sizer_throwing>);
static_assert(!linesize::ls4_name<broken_sizer_unnamed>);

// ------------------------------------------------------------------------ mode selectors (SE)

/// Models `mode_selector` with nothing but SE1–SE5: every line uncompressed.
struct selector_archetype {
    struct params {};
    selector_archetype(const selection::selection_shape&, const params&) {}
    std::uint32_t insertion_mode(set_index) noexcept { return 0; }
    void on_access(const selection::access_outcome&) noexcept {}
    std::string_view name() const noexcept { return "archetype"; }
};

/// Violates SE1: no `params`.
struct broken_selector_no_params {
    explicit broken_selector_no_params(const selection::selection_shape&) {}
    std::uint32_t insertion_mode(set_index) noexcept { return 0; }
    void on_access(const selection::access_outcome&) noexcept {}
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates SE2: built from params alone, not for a cache shape.
struct broken_selector_no_shape {
    struct params {};
    explicit broken_selector_no_shape(const params&) {}
    std::uint32_t insertion_mode(set_index) noexcept { return 0; }
    void on_access(const selection::access_outcome&) noexcept {}
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates SE3: `insertion_mode` may throw.
struct broken_selector_throwing {
    struct params {};
    broken_selector_throwing(const selection::selection_shape&, const params&) {}
    std::uint32_t insertion_mode(set_index) { return 0; }
    void on_access(const selection::access_outcome&) noexcept {}
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates SE4: learns nothing (no `on_access`).
struct broken_selector_deaf {
    struct params {};
    broken_selector_deaf(const selection::selection_shape&, const params&) {}
    std::uint32_t insertion_mode(set_index) noexcept { return 0; }
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates SE5: `name()` is not a string.
struct broken_selector_unnamed {
    struct params {};
    broken_selector_unnamed(const selection::selection_shape&, const params&) {}
    std::uint32_t insertion_mode(set_index) noexcept { return 0; }
    void on_access(const selection::access_outcome&) noexcept {}
    int name() const noexcept { return 0; }
};

static_assert(selection::mode_selector<selector_archetype>);
static_assert(!selection::se1_params<broken_selector_no_params>);
static_assert(!selection::se2_constructible<broken_selector_no_shape>);
static_assert(!selection::se3_insertion_mode<broken_selector_throwing>);
static_assert(!selection::se4_on_access<broken_selector_deaf>);
static_assert(!selection::se5_name<broken_selector_unnamed>);

// --------------------------------------------------------------------------- topologies (N)

/// Models `topology` with nothing but N1–N6: two nodes joined by one link each way.
struct topology_archetype {
    std::uint32_t nodes() const noexcept { return 2; }
    std::uint32_t links() const noexcept { return 2; }
    topology::link_ends link_ends(std::uint32_t link) const noexcept { return {link, 1 - link}; }
    std::uint32_t hops(std::uint32_t a, std::uint32_t b) const noexcept { return a == b ? 0 : 1; }
    template <class Visit>
    void route(std::uint32_t a, std::uint32_t b, Visit&& visit) const {
        if (a != b) visit(a);
    }
    std::string_view name() const noexcept { return "archetype"; }
};

/// Violates N1: no `nodes()`.
struct broken_topology_no_nodes {
    std::uint32_t links() const noexcept { return 0; }
    topology::link_ends link_ends(std::uint32_t) const noexcept { return {}; }
    std::uint32_t hops(std::uint32_t, std::uint32_t) const noexcept { return 0; }
    template <class Visit>
    void route(std::uint32_t, std::uint32_t, Visit&&) const {}
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates N3: no `link_ends(link)`.
struct broken_topology_no_link_ends {
    std::uint32_t nodes() const noexcept { return 1; }
    std::uint32_t links() const noexcept { return 0; }
    std::uint32_t hops(std::uint32_t, std::uint32_t) const noexcept { return 0; }
    template <class Visit>
    void route(std::uint32_t, std::uint32_t, Visit&&) const {}
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates N4: `hops` may throw.
struct broken_topology_throwing_hops {
    std::uint32_t nodes() const noexcept { return 1; }
    std::uint32_t links() const noexcept { return 0; }
    topology::link_ends link_ends(std::uint32_t) const noexcept { return {}; }
    std::uint32_t hops(std::uint32_t, std::uint32_t) const { return 0; }
    template <class Visit>
    void route(std::uint32_t, std::uint32_t, Visit&&) const {}
    std::string_view name() const noexcept { return "broken"; }
};

/// Violates N5: no `route`.
struct broken_topology_no_route {
    std::uint32_t nodes() const noexcept { return 1; }
    std::uint32_t links() const noexcept { return 0; }
    topology::link_ends link_ends(std::uint32_t) const noexcept { return {}; }
    std::uint32_t hops(std::uint32_t, std::uint32_t) const noexcept { return 0; }
    std::string_view name() const noexcept { return "broken"; }
};

static_assert(topology::topology<topology_archetype>);
static_assert(!topology::n1_nodes<broken_topology_no_nodes>);
static_assert(!topology::n3_link_ends<broken_topology_no_link_ends>);
static_assert(!topology::n4_hops<broken_topology_throwing_hops>);
static_assert(!topology::n5_route<broken_topology_no_route>);

} // namespace memsub::testing
