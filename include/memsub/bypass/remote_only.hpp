// memsub — `bypass::remote_only<HomeOf>`: the GPM-side L1.5's allocation filter ([MCM-GPU] §5.1;
// C5.3 in docs/mechanisms/multi_module_gpu.md): cache only remote data, lines whose home module
// differs from this one.
//
// C5.3 also says local accesses skip the L1.5 entirely (not looked up). Lookup routing is the
// host's: it asks `is_local(address)` (or `!admits(address)`) and sends local misses straight to
// its own L2; this predictor keeps a local line from being allocated if one reaches the cache
// anyway. The rest of the L1.5's behaviour is the cache's: write-through
// (`cache::write_policy::write_through`, C5.3 footnote 4) and one invalidation per
// synchronisation event (`cache::sync_epoch_invalidator`). Storage: 0 bits.
#pragma once

#include <memsub/bypass/detail/home_filter.hpp>

namespace memsub::bypass {

template <home_function HomeOf>
class remote_only : public detail::home_filter<detail::home_rule::remote_only, HomeOf> {
public:
    using base = detail::home_filter<detail::home_rule::remote_only, HomeOf>;
    using params = typename base::params;
    using base::base;
};

} // namespace memsub::bypass
