// A closed-loop many-requester host for the controller comparisons: every requester (core
// cluster) has `mshrs` outstanding-miss registers and issues its next request `gap` cycles after
// the previous one once a register is free; admission rotates over requesters; a request's
// arrival is its issue cycle, so time
// spent refused by a full controller queue counts as queueing. Each requester's requests enter
// the controller in order; one requester being refused never blocks another.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/memory/concept.hpp>

namespace memtest {

using namespace memsub::memory;

struct requester_spec {
    /// Mean cycles between two issues (exponentially distributed), when a register is free.
    double mean_gap = 8.0;
    std::uint32_t mshrs = 16;
    std::uint32_t requests = 2000;
    double write_fraction = 0.2;
};

/// Generates the k-th address of requester r.
using address_source = std::function<memsub::byte_address(std::uint32_t r, std::uint64_t k,
                                                          memsub::xoshiro256ss& rng)>;

struct host_result {
    std::vector<completion> done;
    std::uint64_t cycles = 0;
};

template <class Controller>
host_result run_requesters(Controller& c, const std::vector<requester_spec>& specs,
                           const address_source& addr, std::uint64_t seed) {
    struct state {
        memsub::xoshiro256ss rng;
        std::uint64_t issued = 0;
        std::uint32_t outstanding = 0;
        std::uint64_t next_issue = 0; // cycle the next request is issued (if a register is free)
        bool has_pending = false;     // an issued request waiting for admission
        mem_request pending{};
    };
    std::vector<state> st;
    std::uint64_t total = 0;
    for (std::uint32_t r = 0; r < specs.size(); ++r) {
        st.push_back(state{memsub::xoshiro256ss(seed * 1000 + r)});
        total += specs[r].requests;
    }
    auto gap = [](memsub::xoshiro256ss& rng, double mean) {
        const double u = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
        return static_cast<std::uint64_t>(-mean * std::log(u));
    };
    for (std::uint32_t r = 0; r < specs.size(); ++r)
        st[r].next_issue = gap(st[r].rng, specs[r].mean_gap);

    host_result res;
    res.done.reserve(total);
    std::uint64_t id = 0;
    std::uint64_t floor = 0;
    std::uint32_t start = 0;
    auto sink = [&](const completion& x) {
        res.done.push_back(x);
        --st[x.requester].outstanding;
    };
    while (res.done.size() < total) {
        // Next cycle of interest.
        std::uint64_t t = c.next_event_cycle();
        for (std::uint32_t r = 0; r < specs.size(); ++r) {
            const state& s = st[r];
            if (s.has_pending)
                t = std::min(t, floor); // retry every cycle while refused
            else if (s.issued < specs[r].requests && s.outstanding < specs[r].mshrs)
                t = std::min(t, s.next_issue);
        }
        t = std::max(t, floor);
        // Admission is round-robin over requesters (a rotating start), like a fair crossbar.
        const auto nreq = static_cast<std::uint32_t>(specs.size());
        start = start + 1 == nreq ? 0 : start + 1;
        for (std::uint32_t k = 0; k < nreq; ++k) {
            const std::uint32_t r = start + k < nreq ? start + k : start + k - nreq;
            state& s = st[r];
            if (!s.has_pending && s.issued < specs[r].requests && s.outstanding < specs[r].mshrs &&
                s.next_issue <= t) {
                s.pending = mem_request{.id = id++,
                                        .address = addr(r, s.issued, s.rng),
                                        .is_write = (static_cast<double>(s.rng() >> 11) /
                                                     9007199254740992.0) < specs[r].write_fraction,
                                        .requester = r,
                                        .arrival_cycle = std::max(s.next_issue, floor)};
                s.has_pending = true;
                ++s.issued;
                ++s.outstanding;
            }
            const enqueue_result e =
                s.has_pending ? c.enqueue(s.pending) : enqueue_result::queue_full;
            if (e == enqueue_result::rejected)
                throw std::logic_error("run_requesters: request rejected by the controller");
            if (e == enqueue_result::accepted) {
                s.has_pending = false;
                s.next_issue = t + gap(s.rng, specs[r].mean_gap);
            }
        }
        c.advance_to(t);
        c.drain(sink);
        // A register freed now lets its requester issue from the next cycle on.
        for (std::uint32_t r = 0; r < specs.size(); ++r)
            if (!st[r].has_pending) st[r].next_issue = std::max(st[r].next_issue, t + 1);
        floor = t + 1;
        res.cycles = t;
    }
    return res;
}

} // namespace memtest
