// memsub — choose a replacement policy by name at run time, without a registry.
//
// `runtime_choice<Ps...>` is itself a replacement policy (replacement_policy, concept.hpp). Its
// params name the alternative to run and carry every alternative's own params; the constructor
// builds the alternative whose `name()` (R7) equals that name, and every hook forwards to it
// through a `std::variant` (a jump on the variant's index: no virtual call, no heap, no global
// state; docs/design.md, 'Configuration'). A host that reads a policy name from its command line:
//
//   using choice = memsub::replacement::runtime_choice<lru, srrip, drrip, my_policy>;
//   choice::params p{.name = argv[1]};                     // "" = the first alternative
//   std::get<my_policy::params>(p.alternatives).knob = 3;  // each alternative's own params
//   memsub::cache::set_associative_cache<choice> llc(shape, p);
//
// Names are those the alternatives report with the params given (drrip with several requesters
// is "ta_drrip"), so they need no table of their own. An unknown name, or an alternative that
// rejects the geometry when it is the one asked for, throws `config_error` once, at
// construction, naming what could be built (`names(geometry, params)` lists them too). A host
// that takes a policy and its settings as one string ("srrip:rrpv_bits=3") builds the params
// with `params_for(geometry, spec)`; `param_fields_of(geometry, name)` lists what can be set.
//
// Hooks: R4 and R6 are offered in their size-aware forms, which call the chosen alternative's
// richest form. O1 (on_miss), O2 (storage_bits), O3 (should_bypass) and O4 (prefetch) are
// offered when any alternative has them and reach the chosen one when it has them (O3 answers
// "insert" otherwise, O2 counts 0). O6: with a compile-time shape
// every alternative takes its own shaped form. O5 and O7 are not offered: the chosen policy's
// rows stay in its own storage and its evictions go through R5.
// Citation: none (a configuration device). Storage: the chosen alternative's.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/param_text.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::replacement {

/// runtime_choice's params: the alternative to run, and every alternative's own params (in the
/// order of the alternatives). Shared by every shape of the same alternatives (O6).
template <class... AlternativeParams>
struct runtime_choice_params {
    /// The `name()` of the alternative to run; empty = the first alternative.
    std::string name;
    std::tuple<AlternativeParams...> alternatives{};
};

template <replacement_policy... Ps>
requires(sizeof...(Ps) >= 1) class runtime_choice {
public:
    using params = runtime_choice_params<typename Ps::params...>;
    /// O6: every alternative in its compile-time-shaped form.
    template <std::uint32_t Entries>
    using for_entries = runtime_choice<shaped_policy_t<Ps, Entries>...>;

    runtime_choice(const geometry& g, const params& p) { choose(g, p); }

    /// The names the alternatives report with `p`'s params on geometry `g`, in order; an
    /// alternative that rejects `g` is left out.
    [[nodiscard]] static std::vector<std::string> names(const geometry& g, const params& p) {
        std::vector<std::string> out;
        for_each_alternative([&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
            try {
                const alternative<I> candidate(g, std::get<I>(p.alternatives));
                out.emplace_back(candidate.name());
            } catch (const config_error&) {
            }
        });
        return out;
    }

    /// Params that run the policy `spec` names: "name", as names() lists it, or
    /// "name:key=value,key=value" with that alternative's own params set from text
    /// (core/param_text.hpp), e.g. "srrip:rrpv_bits=3" or "drrip:psel_bits=11". The name is the
    /// one the alternative reports with default params; when the settings change it (drrip with
    /// requesters=4 is "ta_drrip"), the params carry the new one. Throws config_error for a
    /// setting the alternative does not have or cannot parse, for a value its constructor
    /// refuses, and for a name no alternative reports on `g` (listing those that do).
    [[nodiscard]] static params params_for(const geometry& g, std::string_view spec) {
        params p;
        p.name = std::string(spec_policy_name(spec));
        if (spec.find(':') == std::string_view::npos) return p;
        with_settings(g, spec, [&]<std::size_t I>(const auto& own, const alternative<I>& built) {
            std::get<I>(p.alternatives) = own;
            p.name = std::string(built.name());
        });
        return p;
    }

    /// The text-settable fields (core/param_text.hpp) of the policy `spec` names, as
    /// params_for reads it: their default values with the spec's own settings applied
    /// ("srrip" lists rrpv_bits=2, promotion=hit_priority; "srrip:rrpv_bits=3" lists
    /// rrpv_bits=3). Throws config_error as params_for does.
    [[nodiscard]] static std::vector<param_field> param_fields_of(const geometry& g,
                                                                  std::string_view spec) {
        std::vector<param_field> out;
        with_settings(g, spec, [&]<std::size_t I>(const auto& own, const alternative<I>&) {
            out = param_fields(own);
        });
        return out;
    }

    [[nodiscard]] std::string_view name() const noexcept {
        return std::visit([](const auto& q) -> std::string_view { return q.name(); }, chosen());
    }
    /// Which alternative runs (its index in Ps...).
    [[nodiscard]] std::size_t index() const noexcept { return chosen().index(); }
    /// The running alternative, when it is a `P` (nullptr otherwise).
    template <class P>
    [[nodiscard]] const P* get_if() const noexcept {
        return std::get_if<P>(&chosen());
    }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        std::visit([&](auto& q) { q.on_hit(s, e, a); }, chosen());
    }
    void on_insert(set_index s, entry_index e, const access& a, const insert_info& info) noexcept {
        std::visit([&](auto& q) { notify_insert(q, s, e, a, info); }, chosen());
    }
    void on_evict(set_index s, entry_index e, const evicted_block& b) noexcept {
        std::visit([&](auto& q) { q.on_evict(s, e, b); }, chosen());
    }
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access& a,
                                     const room_request& need) noexcept {
        return std::visit(
            [&](auto& q) -> entry_index { return choose_victim(q, s, eligible, a, need); },
            chosen());
    }

    // Deprecated aliases, kept for one release (CHANGELOG "Host interface"): the R4 / R6 forms
    // hosts called before the size-aware hooks, for a whole-line block (one entry, one
    // segment, size unknown). Hosts call notify_insert / choose_victim (concept.hpp) instead.
    [[deprecated("call memsub::replacement::notify_insert(policy, set, entry, access, "
                 "insert_info)")]] void
    on_insert(set_index s, entry_index e, const access& a) noexcept {
        on_insert(s, e, a, insert_info{.address = a.address, .bytes = 0, .stored_segments = 1});
    }
    [[deprecated("call memsub::replacement::choose_victim(policy, set, eligible, access, "
                 "room_request)")]] [[nodiscard]] entry_index
    victim(set_index s, entry_mask eligible, const access& a) noexcept {
        return victim(s, eligible, a, room_request{.entries_needed = 1, .incoming_segments = 1});
    }

    void on_miss(set_index s, const access& a) noexcept requires(observes_misses<Ps> || ...) {
        std::visit(
            [&]<class Q>(Q& q) {
                if constexpr (observes_misses<Q>) q.on_miss(s, a);
            },
            chosen());
    }
    [[nodiscard]] bool should_bypass(set_index s, const access& a) noexcept
        requires(may_bypass<Ps> || ...) {
        return std::visit(
            [&]<class Q>(Q& q) -> bool {
                if constexpr (may_bypass<Q>)
                    return q.should_bypass(s, a);
                else
                    return false;
            },
            chosen());
    }
    void prefetch(set_index s) const noexcept requires(prefetches<Ps> || ...) {
        std::visit(
            [&]<class Q>(const Q& q) {
                if constexpr (prefetches<Q>) q.prefetch(s);
            },
            chosen());
    }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept requires(reports_storage<Ps> || ...) {
        return std::visit([](const auto& q) { return storage_bits_of(q); }, chosen());
    }

private:
    template <std::size_t I>
    using alternative = std::tuple_element_t<I, std::tuple<Ps...>>;

    /// Finds the alternative I that reports spec_policy_name(spec) with default params on `g`,
    /// applies the spec's settings to its params, builds it from them (its own range checks)
    /// and calls f.template operator()<I>(params, built). Throws config_error for a bad
    /// setting, a refused value, or a name no alternative reports (listing those that do).
    template <class F>
    static void with_settings(const geometry& g, std::string_view spec, F&& f) {
        const std::string_view name = spec_policy_name(spec);
        bool matched = false;
        for_each_alternative([&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
            if (matched || !reports_by_default<I>(g, name)) return;
            matched = true;
            typename alternative<I>::params own{};
            set_params_from_text(own, spec_settings(spec),
                                 name.empty() ? std::string_view("policy") : name);
            const alternative<I> built(g, own);
            f.template operator()<I>(own, built);
        });
        if (!matched) runtime_choice{g, params{.name = std::string(name)}}; // throws
    }

    /// Whether alternative I, built on `g` with default params, reports `name` ("" = I is 0).
    template <std::size_t I>
    static bool reports_by_default(const geometry& g, std::string_view name) {
        if (name.empty()) return I == 0;
        try {
            const alternative<I> candidate(g, typename alternative<I>::params{});
            return candidate.name() == name;
        } catch (const config_error&) {
            return false;
        }
    }

    template <class F>
    static void for_each_alternative(F&& f) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (f(std::integral_constant<std::size_t, I>{}), ...);
        }
        (std::index_sequence_for<Ps...>{});
    }

    void choose(const geometry& g, const params& p) {
        std::string built;    // names of the alternatives that could be built
        std::string rejected; // their config_error messages
        for_each_alternative([&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
            if (chosen_) return;
            const auto& alt_params = std::get<I>(p.alternatives);
            if (p.name.empty() && I == 0) { // the default: the first alternative, as it is
                chosen_.emplace(std::in_place_index<I>, g, alt_params);
                return;
            }
            try {
                alternative<I> candidate(g, alt_params);
                const std::string_view n = candidate.name();
                if (n == p.name) {
                    chosen_.emplace(std::in_place_index<I>, std::move(candidate));
                    return;
                }
                built += built.empty() ? "" : ", ";
                built += n;
            } catch (const config_error& e) {
                rejected += rejected.empty() ? "" : "; ";
                rejected += e.what();
            }
        });
        if (chosen_) return;
        std::string rule = "must name an alternative that can be built for this geometry (" +
                           (built.empty() ? std::string("none can") : "built: " + built) + ")";
        if (!rejected.empty()) rule += "; rejected the geometry: " + rejected;
        throw config_error("memsub::replacement::runtime_choice", "name", p.name, rule);
    }

    [[nodiscard]] std::variant<Ps...>& chosen() noexcept { return *chosen_; }
    [[nodiscard]] const std::variant<Ps...>& chosen() const noexcept { return *chosen_; }

    std::optional<std::variant<Ps...>> chosen_; // engaged after construction
};

} // namespace memsub::replacement
