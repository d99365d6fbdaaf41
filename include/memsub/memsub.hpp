// memsub — umbrella header: the core vocabulary, the cache engine and every policy family.
#pragma once

#include <memsub/bypass/all.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/hierarchy.hpp>
#include <memsub/compression/all.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/set_sampler.hpp>
#include <memsub/core/types.hpp>
#include <memsub/filter/all.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/coalescer.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/gpu/l1_l2_hierarchy.hpp>
#include <memsub/gpu/l2.hpp>
#include <memsub/linesize/all.hpp>
#include <memsub/memory/all.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/trace/all.hpp>
#include <memsub/version.hpp>
#include <memsub/workload/synthetic.hpp>
