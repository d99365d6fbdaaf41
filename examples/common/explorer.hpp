// Forwarding header: the explorer moved into the library as the explorer module
// (<memsub/explorer/run_explorer.hpp>, namespace memsub::explorer). bench/explorer_path.cpp still
// includes this path and names memsub_examples::explorer_detail; remove this file once it
// includes the module directly.
#pragma once

#include <memsub/explorer/run_explorer.hpp>

namespace memsub_examples {
using namespace memsub::explorer;
namespace explorer_detail = memsub::explorer::detail;
} // namespace memsub_examples
