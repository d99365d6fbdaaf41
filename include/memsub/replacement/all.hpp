// memsub — every replacement policy, and the list tests and benchmarks iterate over.
#pragma once

#include <tuple>

#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/lru.hpp>

namespace memsub::replacement {

/// Every shipped policy that needs no host-supplied oracle (OPT needs next-use hints and is
/// listed separately).
using all_policies = std::tuple<lru>;

} // namespace memsub::replacement
