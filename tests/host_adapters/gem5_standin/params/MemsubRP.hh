// Stand-in of the parameter struct gem5 generates from MemsubRP.py (see ../README.md): one
// field per Param, with gem5's C++ types (String -> std::string, MemorySize -> uint64_t,
// Int -> int), default values as MemsubRP.py gives them.
#ifndef __PARAMS__MemsubRP__
#define __PARAMS__MemsubRP__

#include "params/BaseReplacementPolicy.hh"

#include <cstdint>
#include <string>

namespace gem5 {

struct MemsubRPParams : public BaseReplacementPolicyParams {
    std::string policy = "srrip";
    std::string writeback_hits = "promote";
    std::uint64_t size = 0;
    int assoc = 0;
    int block_size = 64;
};

} // namespace gem5

#endif // __PARAMS__MemsubRP__
