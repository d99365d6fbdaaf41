// Forwarding header: the explorer's option parser moved into the library as
// <memsub/explorer/options.hpp> (namespace memsub::explorer). tests/fuzz/fuzz_explorer_options.cpp
// still includes this path and names memsub_examples::; remove this file once it includes the
// module directly.
#pragma once

#include <memsub/explorer/options.hpp>
#include <memsub/explorer/plot.hpp>

namespace memsub_examples {
using namespace memsub::explorer;
} // namespace memsub_examples
