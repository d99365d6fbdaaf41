// Shared helpers of the memory tests: a host loop that feeds requests at their arrival cycles
// and collects completions, skipping idle time with next_event_cycle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <memsub/memory/concept.hpp>

namespace memtest {

using namespace memsub::memory;

/// Feeds `reqs` (sorted by arrival) into `c`; a refused request is retried every cycle (keeping
/// its original arrival cycle, so back-pressure counts as queueing), in order per requester; a
/// rejected one is dropped. Returns all completions in drain order.
template <class Controller>
std::vector<completion> run(Controller& c, std::vector<mem_request> reqs) {
    std::vector<completion> out;
    out.reserve(reqs.size());
    std::size_t first = 0; // first request not yet enqueued
    std::vector<bool> in(reqs.size(), false);
    std::uint64_t floor = 0; // the next cycle not yet advanced to
    bool blocked = false;
    std::size_t rejected = 0; // never acceptable (MC2): not retried, no completion
    auto sink = [&](const completion& x) { out.push_back(x); };
    while (out.size() + rejected < reqs.size()) {
        // The next cycle anything happens: a controller event or the next arrival (a refused
        // request retries every cycle).
        std::uint64_t t = c.next_event_cycle();
        if (first < reqs.size()) t = std::min(t, blocked ? floor : reqs[first].arrival_cycle);
        t = std::max(t, floor);
        // Protocol MP2: requests arriving by t are enqueued before advance_to(t). Each
        // requester's requests go in order; a refused requester does not block the others.
        blocked = false;
        std::vector<std::uint32_t> stuck;
        for (std::size_t i = first; i < reqs.size() && reqs[i].arrival_cycle <= t; ++i) {
            if (in[i]) continue;
            if (std::find(stuck.begin(), stuck.end(), reqs[i].requester) != stuck.end()) continue;
            const enqueue_result e = c.enqueue(reqs[i]);
            if (e == enqueue_result::accepted) {
                in[i] = true;
            } else if (e == enqueue_result::rejected) {
                in[i] = true;
                ++rejected;
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

/// A saturating host: keeps the controller's queues full with requests `addr(k)` (k = 0, 1, …;
/// writes where `write(k)`), each arriving at the cycle it is offered, until `n` have completed;
/// jumps from event to event. Returns the completions in drain order.
template <class Controller, class Address, class Write>
std::vector<completion> saturate(Controller& c, std::uint64_t n, Address&& addr, Write&& write) {
    std::vector<completion> out;
    out.reserve(n);
    std::uint64_t now = 0, k = 0;
    auto sink = [&](const completion& x) { out.push_back(x); };
    while (out.size() < n) {
        while (k < n) {
            const mem_request r{.id = k,
                                .address = addr(k),
                                .is_write = write(k),
                                .requester = 0,
                                .arrival_cycle = now};
            const enqueue_result e = c.enqueue(r);
            if (e == enqueue_result::rejected)
                throw std::logic_error("memtest::saturate: rejected");
            if (e != enqueue_result::accepted) break;
            ++k;
        }
        const std::uint64_t next = c.next_event_cycle();
        now = next != memsub::never && next > now ? next : now + 1;
        c.advance_to(now);
        c.drain(sink);
    }
    return out;
}

/// Loop sizes of the property tests: full in optimised builds, a quarter in Debug.
constexpr std::uint64_t scaled(std::uint64_t n) {
#ifdef NDEBUG
    return n;
#else
    return n / 4;
#endif
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

/// The shared-queue controllers' earlier write policy, before write drains with DRAMSim3-style
/// watermarks: 80 / 20 % watermarks, no idle or start-up drains, no read
/// forwarding or write merging, drained writes apart from reads, writes issued whenever no read
/// waits. Applied to `p`, a dram_controller's params (timing and the rest kept).
template <class Params>
Params write_policy_before_drains(Params p) {
    p.write_high_watermark_pct = 80;
    p.write_low_watermark_pct = 20;
    p.write_idle_drain_min = 0;
    p.drain_queued_at_start = false;
    p.forward_reads = false;
    p.merge_writes = false;
    p.queues.drained_writes_mix_with_reads = false;
    p.queues.write_when_no_read = true;
    return p;
}

/// The write policy of the timing reference models (a brute-force channel): 512-entry queues
/// that never fill, no watermark drains, no forwarding or merging; a write issues only when no
/// read waits. Applied to `p`, a dram_controller's params.
template <class Params>
Params writes_only_when_no_read(Params p) {
    p.read_queue = 512;
    p.write_queue = 512;
    p.write_high_watermark_pct = 100;
    p.write_low_watermark_pct = 0;
    p.forward_reads = false;
    p.merge_writes = false;
    p.queues.drained_writes_mix_with_reads = false;
    p.queues.write_when_no_read = true;
    return p;
}

} // namespace memtest
