// memsub — the channel-driving half of `memory_controller` (memory/concept.hpp MC3–MC6) that
// every memsub controller shares: advancing time runs the channels whose next decision is due,
// the next event is the earliest decision or completion, draining hands out the due
// completions in done order (retiring each), and the pending count sums the channels'.
// A controller derives from `channel_driver<Self>` (static dispatch, no virtual call) and
// befriends it; it provides `channels_` (each with `next_decision` and `held`), `heap_` (a
// detail::completion_queue), `now_`, `run_channel(channel, until)` and `retire(completion)`.
// Decision: a CRTP base rather than free helpers, so that each controller's public interface
// is written once and the controllers cannot drift apart; the per-channel decisions stay each
// controller's own.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>

namespace memsub::memory::detail {

template <class Derived>
class channel_driver {
public:
    void advance_to(std::uint64_t cycle) noexcept {
        Derived& self = derived();
        if (cycle < self.now_) return;
        self.now_ = cycle;
        for (std::uint32_t c = 0; c < self.channels_.size(); ++c)
            if (self.channels_[c].next_decision <= cycle) self.run_channel(c, cycle);
    }

    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept {
        const Derived& self = derived();
        std::uint64_t t = never;
        for (const auto& ch : self.channels_) t = std::min(t, ch.next_decision);
        return std::min(t, self.heap_.next_event_after(self.now_));
    }

    template <std::invocable<const completion&> Sink>
    std::size_t drain(Sink&& sink) {
        Derived& self = derived();
        return self.heap_.drain(
            self.now_, [&self](const completion& c) { self.retire(c); }, sink);
    }
    std::size_t drain(std::span<completion> out) noexcept {
        Derived& self = derived();
        return self.heap_.drain(self.now_, out, [&self](const completion& c) { self.retire(c); });
    }

    /// Requests accepted and not yet drained.
    [[nodiscard]] std::size_t pending() const noexcept {
        std::size_t n = 0;
        for (const auto& ch : derived().channels_) n += ch.held;
        return n;
    }

private:
    [[nodiscard]] Derived& derived() noexcept { return static_cast<Derived&>(*this); }
    [[nodiscard]] const Derived& derived() const noexcept {
        return static_cast<const Derived&>(*this);
    }
};

} // namespace memsub::memory::detail
