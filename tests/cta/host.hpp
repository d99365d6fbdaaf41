// A minimal host for the CTA scheduler tests: an event-driven loop where each CTA runs for a
// duration the test gives; completions are processed in (finish time, start order) order, and
// after each the host asks the scheduler to fill free slots (dispatch until nullopt) or, in
// SM-driven mode, asks every SM with room (next_cta) in SM order.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <vector>

#include <memsub/cta/concept.hpp>

namespace ctatest {

using namespace memsub::cta;

struct run_result {
    std::vector<cta_assignment> order;    ///< in start order
    std::vector<std::uint32_t> module_of; ///< per CTA
    std::uint64_t makespan = 0;
};

template <class S>
run_result run_kernel(S& s, const kernel_launch& k,
                      const std::function<std::uint64_t(std::uint32_t)>& duration,
                      bool sm_driven = false) {
    run_result r;
    r.module_of.assign(k.ctas, 0xffffffffu);
    s.launch(k);
    using event = std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>; // finish, seq, sm
    std::priority_queue<event, std::vector<event>, std::greater<>> running;
    std::uint64_t now = 0, seq = 0;
    auto start = [&](const cta_assignment& a) {
        r.order.push_back(a);
        r.module_of[a.cta] = a.module;
        running.emplace(now + duration(a.cta), seq++, a.sm);
    };
    auto fill = [&] {
        if (!sm_driven) {
            while (const auto a = s.dispatch()) start(*a);
            return;
        }
        for (bool any = true; any;) {
            any = false;
            for (std::uint32_t sm = 0; sm < s.sms(); ++sm)
                if (s.running_on(sm) < k.max_ctas_per_sm) {
                    const std::uint32_t c = s.next_cta(sm);
                    if (c != no_cta) {
                        start({c, sm, sm / (s.sms() / s.modules())});
                        any = true;
                    }
                }
        }
    };
    fill();
    while (!running.empty()) {
        const auto [t, q, sm] = running.top();
        running.pop();
        now = t;
        s.on_cta_complete(sm);
        // Completions at the same time are all reported before refilling.
        while (!running.empty() && std::get<0>(running.top()) == now) {
            s.on_cta_complete(std::get<2>(running.top()));
            running.pop();
        }
        fill();
    }
    r.makespan = now;
    return r;
}

} // namespace ctatest
