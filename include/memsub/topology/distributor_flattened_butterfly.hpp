// memsub — `topology::distributor_flattened_butterfly` (dFBFLY), [MemNet]'s baseline memory
// network (docs/mechanisms/multi_module_gpu.md, 'Memory-network topologies'; PACT'13's
// distributor-based FBFLY): the slices of the sliced FBFLY plus a fully connected cluster of each
// GPU's local HMCs, which gives non-minimal intra-cluster paths (G·C(S, 2) extra channels). At 16
// GPUs (4 × 4 slices) an HMC would need 6 + 3 + 2 = 11 channels, beyond the 8 an HMC has: why the
// dFBFLY does not scale there
// (`fits_channel_budget()`). Routes, numbering and counts: topology/detail/memory_network.hpp.
#pragma once

#include <memsub/topology/detail/memory_network.hpp>

namespace memsub::topology {

class distributor_flattened_butterfly : public detail::memory_network<true> {
public:
    using base = detail::memory_network<true>;
    using params = base::params;
    using base::base;
};

static_assert(topology<distributor_flattened_butterfly>);

} // namespace memsub::topology
