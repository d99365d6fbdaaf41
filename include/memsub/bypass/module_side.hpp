// memsub — `bypass::module_side<HomeOf>`: a module-side cache allocates every line, wherever it
// is homed — the L2 of the multi-module energy study from 2 GPMs up ([Dissertation]
// §6.4.1: from 2 modules up the L2 is module-side, not memory-side; G2.8 in
// docs/mechanisms/multi_module_gpu.md). It never
// bypasses; it counts allocating misses by home (`local_misses`, `remote_misses`) so a host can
// report local vs remote traffic with the same home function its other filters use.
// Storage: 0 bits.
#pragma once

#include <memsub/bypass/detail/home_filter.hpp>

namespace memsub::bypass {

template <home_function HomeOf>
class module_side : public detail::home_filter<detail::home_rule::module_side, HomeOf> {
public:
    using base = detail::home_filter<detail::home_rule::module_side, HomeOf>;
    using params = typename base::params;
    using base::base;
};

} // namespace memsub::bypass
