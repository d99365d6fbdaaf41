// memsub — every line-size predictor and the cache that runs them.
#pragma once

#include <tuple>

#include <memsub/linesize/adaptive_line_cache.hpp>
#include <memsub/linesize/alsi.hpp>
#include <memsub/linesize/concept.hpp>
#include <memsub/linesize/static_size.hpp>
#include <memsub/linesize/whole_line.hpp>

namespace memsub::linesize {

/// Every shipped predictor constructible from a 128 B-line, 32 B-segment geometry with default
/// params.
using all_predictors = std::tuple<alsi, static_size<32>, static_size<64>, static_size<128>>;

} // namespace memsub::linesize
