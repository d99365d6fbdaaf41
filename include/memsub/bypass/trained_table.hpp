// memsub — `bypass::trained_table`: the counters of an ID-Cache table predictor (pc_only,
// pc_divergence) as an offline training pass left them (bypass/offline_trainer.hpp; [Dissertation]
// §3.2.2, docs/mechanisms/id_cache.md, 'Offline-trained variant'), a value the predictor is
// constructed from.
#pragma once

#include <cstdint>
#include <vector>

namespace memsub::bypass {

struct trained_table {
    /// The predictor's table index bits (pc_only: pc_index_bits; pc_divergence: pc_index_bits
    /// + 2); counters.size() == 2^index_bits.
    std::uint32_t index_bits = 0;
    /// One counter per table entry: 0 = bypass, > 0 = insert.
    std::vector<std::uint8_t> counters;
    /// True (offline, as the dissertation evaluates it): the table never changes while the
    /// cache runs. False: the trained counters are only the starting point of online learning.
    bool frozen = true;
};

} // namespace memsub::bypass
