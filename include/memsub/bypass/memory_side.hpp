// memsub — `bypass::memory_side<HomeOf>`: the memory-side L2 of an MCM-GPU module ([Dissertation]
// ch. 5; C5.2 in docs/mechanisms/multi_module_gpu.md): a slice allocates only lines homed in its
// own module's memory. Requests from every module for home g go to slice g, which serves them all;
// a miss on a line homed elsewhere (a host that sends one here anyway) reads through without
// allocating. `HomeOf` is the host's home function (`home_of(address) -> module`,
// bypass/detail/home_filter.hpp); `params::module` names the slice's module. Storage: 0 bits.
#pragma once

#include <memsub/bypass/detail/home_filter.hpp>

namespace memsub::bypass {

template <home_function HomeOf>
class memory_side : public detail::home_filter<detail::home_rule::memory_side, HomeOf> {
public:
    using base = detail::home_filter<detail::home_rule::memory_side, HomeOf>;
    using params = typename base::params;
    using base::base;
};

} // namespace memsub::bypass
