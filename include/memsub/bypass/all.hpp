// memsub — every bypass predictor, and the list tests iterate over.
#pragma once

#include <tuple>

#include <memsub/bypass/all_of.hpp>
#include <memsub/bypass/always.hpp>
#include <memsub/bypass/any_of.hpp>
#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/memory_side.hpp>
#include <memsub/bypass/module_side.hpp>
#include <memsub/bypass/never.hpp>
#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/bypass/pc_only.hpp>
#include <memsub/bypass/remote_only.hpp>

namespace memsub::bypass {

/// Every shipped predictor that is default-constructible from a geometry with default params
/// (the home filters are not: they need the host's home function).
using all_predictors =
    std::tuple<never, always, all_of<never, always>, any_of<never, always>, pc_only, pc_divergence>;

} // namespace memsub::bypass
