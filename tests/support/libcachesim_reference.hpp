// The rows of tests/data/fully_associative/libcachesim_reference.txt: miss counts printed by
// libCacheSim's own cachesim (the file says how they were made), one row per trace, algorithm
// and capacity in objects. Read by every test that checks memsub against them.
#pragma once

#include <doctest/doctest.h>

#include "data_dir.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace memsub_test {

struct libcachesim_row {
    std::string trace, algorithm; ///< the trace's file name; "LRU", "FIFO" or "Belady"
    std::uint64_t capacity = 0, requests = 0, misses = 0;
};

inline std::vector<libcachesim_row> libcachesim_reference() {
    std::ifstream in(std::filesystem::path(data_dir()) /
                     "fully_associative/libcachesim_reference.txt");
    REQUIRE(in);
    std::vector<libcachesim_row> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        libcachesim_row r;
        fields >> r.trace >> r.algorithm >> r.capacity >> r.requests >> r.misses;
        REQUIRE_MESSAGE(!fields.fail(), "malformed reference line: ", line);
        rows.push_back(r);
    }
    return rows;
}

} // namespace memsub_test
