// Shared helpers of the memory tests: a host loop that feeds requests at their arrival cycles
// and collects completions, skipping idle time with next_event_cycle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <memsub/memory/concept.hpp>

namespace memtest {

using namespace memsub::memory;

/// Feeds `reqs` (sorted by arrival) into `c`; a refused request is retried every cycle (keeping
/// its original arrival cycle, so back-pressure counts as queueing), in order per requester.
/// Returns all completions in drain order.
template <class Controller>
std::vector<completion> run(Controller& c, std::vector<mem_request> reqs) {
    std::vector<completion> out;
    out.reserve(reqs.size());
    std::size_t first = 0; // first request not yet enqueued
    std::vector<bool> in(reqs.size(), false);
    std::uint64_t floor = 0; // the next cycle not yet advanced to
    bool blocked = false;
    auto sink = [&](const completion& x) { out.push_back(x); };
    while (out.size() < reqs.size()) {
        // The next cycle anything happens: a controller event or the next arrival (a refused
        // request retries every cycle).
        std::uint64_t t = c.next_event_cycle();
        if (first < reqs.size()) t = std::min(t, blocked ? floor : reqs[first].arrival_cycle);
        t = std::max(t, floor);
        // Protocol P2: requests arriving by t are enqueued before advance_to(t). Each
        // requester's requests go in order; a refused requester does not block the others.
        blocked = false;
        std::vector<std::uint32_t> stuck;
        for (std::size_t i = first; i < reqs.size() && reqs[i].arrival_cycle <= t; ++i) {
            if (in[i]) continue;
            if (std::find(stuck.begin(), stuck.end(), reqs[i].requester) != stuck.end()) continue;
            if (c.enqueue(reqs[i]) == enqueue_result::accepted) {
                in[i] = true;
            } else {
                stuck.push_back(reqs[i].requester);
                blocked = true;
            }
        }
        while (first < reqs.size() && in[first]) ++first;
        c.advance_to(t);
        c.drain(sink);
        floor = t + 1;
    }
    return out;
}

inline mem_request read_at(std::uint64_t id, memsub::byte_address a, std::uint64_t t,
                           std::uint32_t requester = 0) {
    return mem_request{
        .id = id, .address = a, .is_write = false, .requester = requester, .arrival_cycle = t};
}
inline mem_request write_at(std::uint64_t id, memsub::byte_address a, std::uint64_t t,
                            std::uint32_t requester = 0) {
    return mem_request{
        .id = id, .address = a, .is_write = true, .requester = requester, .arrival_cycle = t};
}

inline const completion& by_id(const std::vector<completion>& v, std::uint64_t id) {
    return *std::find_if(v.begin(), v.end(), [&](const completion& c) { return c.id == id; });
}

} // namespace memtest
