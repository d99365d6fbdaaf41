// The stand-in ChampSim cache that drives memsub's ChampSim module in CI: its interface, in
// plain C++17 types, so the C++20 test that compares it with memsub's engine never sees the
// module's class (named `memsub`, after its folder, as ChampSim requires) or ChampSim's types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace champsim_standin {

struct request {
    std::uint64_t address = 0;
    std::uint64_t ip = 0;
    unsigned type = 0; // ChampSim's access_type: 0 LOAD, 1 RFO, 2 PREFETCH, 3 WRITE, 4 TRANSLATION
    std::uint32_t cpu = 0;
};

struct outcome {
    bool hit = false;
    bool evicted = false;
    std::uint64_t victim_address = 0;
    bool victim_dirty = false;
    bool bypassed = false;
};

struct options {
    std::uint32_t sets = 64;
    std::uint32_t ways = 8;
    std::uint32_t line_bytes = 64;
    std::string cache_name = "LLC";
    // Fills arrive this many requests after their miss (0: at once, as an atomic cache does);
    // requests to a line whose fill is outstanding merge into it.
    unsigned fill_delay = 0;
    // Every fill that evicts a dirty line fails once (ChampSim's lower write queue was full)
    // and is retried, calling find_victim again.
    bool retry_dirty_fills = false;
};

/// Runs `requests` through a stand-in of ChampSim's CACHE (tag check, then fill with victim
/// choice, as ChampSim's try_hit and handle_fill call a replacement module) with memsub's
/// module; the policy comes from the environment, as in ChampSim. The module's final
/// statistics line is printed to stdout. Throws what the module throws.
std::vector<outcome> run(const options& o, const std::vector<request>& requests);

} // namespace champsim_standin
