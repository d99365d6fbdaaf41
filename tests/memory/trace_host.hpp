// The trace-driven host of the DRAMSim3 comparisons: tests/memory/fidelity_test.cpp and
// tests/data/dramsim3/memsub_speed.cpp (speed.sh) offer their traces through it, so both measure
// the same protocol.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>

namespace memsub_test {

/// Offers `trace` (elements with `address`, `is_write` and `cycle`) to controller `c` as
/// DRAMSim3's TraceBasedCPU does: in order, at most one request per cycle, from its trace cycle
/// on; a request's latency counts from the cycle it is accepted (DRAMSim3 stamps added_cycle at
/// AddTransaction). A refused host waits for the controller's next event (nothing frees a slot
/// before one) instead of retrying every cycle; idle cycles are skipped. Every completion goes to
/// `sink`; returns the refused offers. Stops when every request completed or nothing more can
/// happen (the caller checks the count).
template <class Controller, class Trace, class Sink>
std::uint64_t offer_trace(Controller& c, const Trace& trace, Sink&& sink) {
    using namespace memsub::memory;
    std::size_t completed = 0;
    auto counting = [&](const completion& x) {
        ++completed;
        sink(x);
    };
    std::size_t next = 0;
    std::uint64_t t = 0;
    std::uint64_t retry_at = 0; // a refused head waits until the controller's next event
    std::uint64_t refused = 0;
    while (completed < trace.size()) {
        if (next < trace.size() && trace[next].cycle <= t && retry_at <= t) {
            const mem_request r{.id = next,
                                .address = memsub::byte_address{trace[next].address},
                                .is_write = trace[next].is_write,
                                .arrival_cycle = t};
            if (c.can_accept(r) && c.enqueue(r) == enqueue_result::accepted) {
                ++next;
            } else {
                retry_at = memsub::never;
                ++refused;
            }
        }
        c.advance_to(t);
        c.drain(counting);
        std::uint64_t n = c.next_event_cycle();
        if (retry_at == memsub::never) retry_at = std::max(n, t + 1); // the next event
        if (next < trace.size()) n = std::min(n, std::max({trace[next].cycle, retry_at, t + 1}));
        if (n == memsub::never) break;
        t = std::max(n, t + 1);
    }
    return refused;
}

} // namespace memsub_test
