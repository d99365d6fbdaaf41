// memsub — `topology::sliced_flattened_butterfly` (sFBFLY), [MemNet]'s proposed memory network
// (docs/mechanisms/multi_module_gpu.md, 'Memory-network topologies'): the distributor-based FBFLY
// minus every intra-cluster channel. Slice s (the HMCs with local index s) is an FBFLY over the GPU
// clusters; the slice index is the address's local-HMC (LC) field, so low-order LC interleave
// spreads each GPU's traffic over its slices. Minimal GPU↔HMC routes equal the dFBFLY's; channels
// drop by 50 % at 4 GPUs (24 vs 48) and 43 % at 8 (64 vs 112, 2 × 4 slices; derived, as [MemNet]
// Fig. 12 reports). Routes, numbering and counts: topology/detail/memory_network.hpp.
#pragma once

#include <memsub/topology/detail/memory_network.hpp>

namespace memsub::topology {

class sliced_flattened_butterfly : public detail::memory_network<false> {
public:
    using base = detail::memory_network<false>;
    using params = base::params;
    using base::base;
};

static_assert(topology<sliced_flattened_butterfly>);

} // namespace memsub::topology
