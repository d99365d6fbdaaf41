// memsub — `bypass::module_side<HomeOf>`: a module-side cache allocates every line, wherever it
// is homed — the L2 of the multi-module energy study from 2 GPMs up (T6 §6.4.1,
// system-policies.md §2.3 "the L2 becomes a module-side cache, not memory-side"). It never
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
