// memsub — the learning schedule LATTE-CC and Adaptive-Hit-Count share ([Dissertation] §4.2.2,
// §4.3.3): set sampling over experimental phases (EPs) of a fixed number of cache accesses,
// grouped in periods.
//
//  * A period is `eps_per_period` EPs. Its first EP learns: each mode's dedicated (leader) sets
//    store their new lines in that mode, every other set (a follower) in the current mode
//    (mode 0 before the first decision). In the other EPs the dedicated sets are followers too.
//  * Per mode, N_miss counts the lines inserted in its dedicated sets in that mode during the
//    learning EP, and N_hit the hits in its dedicated sets to lines inserted in that mode, during
//    the learning EP and the next one (reuse comes after insertion) — attributed by the mode a
//    line was inserted with, not by the set it sits in, so a follower line in a dedicated set
//    never counts for the set's mode. The counts reset when a period starts.
//  * At every EP boundary from the end of the learning EP on, the followers take the mode that
//    minimises the derived selector's cost over the allowed modes that have counted accesses;
//    ties go to the lower mode; with none, the mode stays.
// Decision: the dedicated sets are complement-select's (core/set_sampler.hpp): spread evenly
// over the index space, 4 per mode for the 32-set L1D (mode 0: sets 0, 9, 18, 27; mode 1: 7, 14,
// 21, 28; mode 2: 2, 11, 20, 29). Decision: stores count as accesses of the EP clock (the EP is
// "256 L1 accesses") but never train (a write-evict store neither reads a compressed line nor
// inserts one).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/set_sampler.hpp>
#include <memsub/selection/concept.hpp>

namespace memsub::selection::detail {

/// The schedule's knobs ([Dissertation] §4.3.3 defaults).
struct sampling_schedule {
    /// Cache accesses per experimental phase.
    std::uint32_t ep_accesses = 256;
    /// EPs per period (the first learns).
    std::uint32_t eps_per_period = 10;
    /// Dedicated sets per mode.
    std::uint32_t leaders_per_mode = 4;
};

template <class Derived>
class sampled_selection {
public:
    sampled_selection(const selection_shape& shape, const sampling_schedule& s,
                      std::string_view component)
        : schedule_((validate(shape, s, component), s))
        , modes_(static_cast<std::uint32_t>(shape.modes.size()))
        , sampler_(shape.sets,
                   leader_placement{.candidates = static_cast<std::uint32_t>(shape.modes.size()),
                                    .leaders_per_candidate = s.leaders_per_mode},
                   argmin_rule::params{},
                   sampler_names{.component = component,
                                 .candidates = "modes",
                                 .leaders_per_candidate = "leaders_per_mode"}) {}

    // SE3: the sampler's phase forces the dedicated sets only while learning (SS1).
    [[nodiscard]] std::uint32_t insertion_mode(set_index s) const noexcept {
        return sampler_.candidate_of(s);
    }

    // SE4: events attributed by the mode a line was inserted with (SS5).
    void on_access(const access_outcome& o) noexcept {
        if (o.is_fill() && learning())
            (void)sampler_.on_leader_miss_of(o.set, o.mode, 0, 1);
        else if (o.is_hit() && ep_in_period_ <= 1)
            (void)sampler_.on_leader_hit_of(o.set, o.mode, 0, o.hit_latency);
        ++mode_accesses_[sampler_.follower_candidate()];
        if (++access_in_ep_ == schedule_.ep_accesses) end_ep();
    }

    // SO2: the rule's allowed mask (mode 0 always allowed).
    void set_allowed_modes(std::uint32_t mask) noexcept {
        sampler_.rule().set_allowed(std::uint64_t{mask | 1u});
    }

    [[nodiscard]] bool learning() const noexcept {
        return sampler_.phase() == sampling_phase::learning;
    }
    /// The followers' mode now.
    [[nodiscard]] std::uint32_t follower_mode() const noexcept {
        return sampler_.follower_candidate();
    }
    /// EP index within the period (0 = learning) and EPs completed.
    [[nodiscard]] std::uint32_t ep_in_period() const noexcept { return ep_in_period_; }
    [[nodiscard]] std::uint64_t eps() const noexcept { return eps_; }
    [[nodiscard]] std::uint64_t periods() const noexcept { return eps_ / schedule_.eps_per_period; }
    [[nodiscard]] std::uint64_t decisions() const noexcept { return decisions_; }
    /// Accesses counted while each mode was the followers' (time shares).
    [[nodiscard]] const std::array<std::uint64_t, max_modes>& mode_accesses() const noexcept {
        return mode_accesses_;
    }
    /// This period's counts of mode m so far.
    [[nodiscard]] const candidate_counts& counts(std::uint32_t m) const noexcept {
        return sampler_.rule().counts(0, m);
    }
    [[nodiscard]] std::uint32_t allowed_modes() const noexcept {
        return static_cast<std::uint32_t>(sampler_.rule().allowed(0));
    }
    [[nodiscard]] const set_sampler<argmin_rule>& sampler() const noexcept { return sampler_; }
    [[nodiscard]] const sampling_schedule& schedule() const noexcept { return schedule_; }
    [[nodiscard]] std::uint32_t modes() const noexcept { return modes_; }
    /// The rule's counters (N_hit, N_miss, latency sums per mode) and the current mode.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return sampler_.storage_bits(); }

private:
    static void validate(const selection_shape& shape, const sampling_schedule& s,
                         std::string_view component) {
        shape.validate(component);
        require(shape.modes.size() >= 2, component, "modes", shape.modes.size(),
                "an adaptive selector needs at least two modes");
        require(s.ep_accesses >= 1, component, "ep_accesses", s.ep_accesses,
                "an experimental phase needs at least one access");
        require(s.eps_per_period >= 2, component, "eps_per_period", s.eps_per_period,
                "a period needs a learning EP and at least one adaptive EP");
        require(s.leaders_per_mode >= 1, component, "leaders_per_mode", s.leaders_per_mode,
                "each mode needs at least one dedicated set");
    }

    void end_ep() noexcept {
        access_in_ep_ = 0;
        ++eps_;
        decide();
        if (++ep_in_period_ == schedule_.eps_per_period) {
            ep_in_period_ = 0;
            sampler_.rule().reset();
            sampler_.set_phase(sampling_phase::learning);
        } else {
            sampler_.set_phase(sampling_phase::adaptive);
        }
    }

    void decide() noexcept {
        Derived& self = static_cast<Derived&>(*this);
        sampler_.rule().decide(0, [&](std::uint32_t m, const candidate_counts& k) noexcept {
            return self.cost(m, k);
        });
        ++decisions_;
    }

    sampling_schedule schedule_;
    std::uint32_t modes_;
    set_sampler<argmin_rule> sampler_;
    std::uint32_t access_in_ep_ = 0;
    std::uint32_t ep_in_period_ = 0;
    std::uint64_t eps_ = 0;
    std::uint64_t decisions_ = 0;
    std::array<std::uint64_t, max_modes> mode_accesses_{};
};

} // namespace memsub::selection::detail
