// memsub — every replacement policy, and the list tests and benchmarks iterate over.
#pragma once

#include <tuple>

#include <memsub/replacement/brrip.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/drrip.hpp>
#include <memsub/replacement/dual_of.hpp>
#include <memsub/replacement/fifo.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/mlp_aware.hpp>
#include <memsub/replacement/next_use.hpp>
#include <memsub/replacement/nru.hpp>
#include <memsub/replacement/opt.hpp>
#include <memsub/replacement/random.hpp>
#include <memsub/replacement/remap.hpp>
#include <memsub/replacement/rrip_dual.hpp>
#include <memsub/replacement/runtime_choice.hpp>
#include <memsub/replacement/set_dueling.hpp>
#include <memsub/replacement/ship.hpp>
#include <memsub/replacement/srrip.hpp>
#include <memsub/replacement/tree_plru.hpp>

namespace memsub::replacement {

/// Every shipped policy that needs no host-supplied oracle (OPT needs next-use hints and is
/// listed separately). Each is default-constructible from a geometry with default params.
using all_policies = std::tuple<lru, fifo, random, tree_plru, nru, srrip, brrip, drrip, ship,
                                mlp_aware, remap, remap_lru, srrip_perd, srrip_mac>;

/// Policies that need an oracle in the access hints (`hints.next_use`, see next_use.hpp).
using oracle_policies = std::tuple<opt>;

} // namespace memsub::replacement
