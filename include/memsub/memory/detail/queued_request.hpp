// memsub — a request waiting in a controller queue, with the DRAM coordinates decoded at
// enqueue (the partitioned controller's FIFOs hold these).
#pragma once

#include <cstdint>

#include <memsub/memory/concept.hpp>

namespace memsub::memory::detail {

/// A request waiting in a controller queue, with its decoded coordinates.
struct queued_request {
    mem_request req{};
    std::uint64_t visible_at = 0; ///< first cycle the scheduler may consider it
    std::uint32_t row = 0;
    std::uint32_t bank = 0; ///< flat bank within the channel
};

} // namespace memsub::memory::detail
