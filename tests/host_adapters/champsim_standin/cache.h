// Stand-in of ChampSim's inc/cache.h (see champsim.h): the CACHE members a replacement module
// reads. The stand-in cache that calls the module lives in the test.
#ifndef CACHE_H
#define CACHE_H

#include <cstdint>
#include <string>

#include "block.h"
#include "champsim.h"

class CACHE {
public:
    using BLOCK = champsim::cache_block;
    std::string NAME;
    uint32_t NUM_SET = 0, NUM_WAY = 0, MSHR_SIZE = 0;
    champsim::data::bits OFFSET_BITS{};
};

#endif
