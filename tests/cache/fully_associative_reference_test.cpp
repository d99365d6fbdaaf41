// The fully associative caches against libCacheSim: every row of
// tests/data/fully_associative/libcachesim_reference.txt whose trace is in the tree (miss
// counts printed by libCacheSim's own cachesim; the file says how they were made) must be
// reproduced exactly by memsub's fa_lru, fa_fifo and fa_opt (Belady without bypass) on the
// same oracleGeneral file read by memsub's reader, one 64-byte line per object.
#include <doctest/doctest.h>

#include "../support/data_dir.hpp"
#include "../support/libcachesim_reference.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <memsub/cache/fully_associative.hpp>
#include <memsub/replacement/next_use.hpp>
#include <memsub/trace/oracle_general_reader.hpp>

using namespace memsub;

namespace {

std::filesystem::path data(const std::string& leaf) {
    return std::filesystem::path(memsub_test::data_dir()) / leaf;
}

std::vector<memsub::access> read_trace(const std::filesystem::path& file) {
    trace::oracle_general_reader reader(file);
    std::vector<memsub::access> s;
    for (memsub::access a; reader.next(a);) s.push_back(a);
    replacement::annotate_next_use(s, 64);
    return s;
}

template <class Order>
std::uint64_t misses(const std::vector<memsub::access>& s, std::uint64_t capacity) {
    cache::fully_associative_cache<Order> c(capacity, 64);
    for (const auto& a : s) c.access(a);
    return c.stats().misses();
}

} // namespace

TEST_CASE("fully associative LRU, FIFO and Belady match libCacheSim's miss counts exactly") {
    const auto rows = memsub_test::libcachesim_reference();
    std::size_t checked = 0;
    for (const std::string trace :
         {"fully_associative/mixed_200k.oracleGeneral.bin", "sample.oracleGeneral.bin"}) {
        const auto s = read_trace(data(trace));
        const std::string leaf = std::filesystem::path(trace).filename().string();
        for (const auto& r : rows) {
            if (r.trace != leaf) continue;
            CAPTURE(r.trace);
            CAPTURE(r.algorithm);
            CAPTURE(r.capacity);
            CHECK(s.size() == r.requests);
            if (r.algorithm == "LRU")
                CHECK(misses<cache::fa_lru>(s, r.capacity) == r.misses);
            else if (r.algorithm == "FIFO")
                CHECK(misses<cache::fa_fifo>(s, r.capacity) == r.misses);
            else if (r.algorithm == "Belady")
                CHECK(misses<cache::fa_opt>(s, r.capacity) == r.misses);
            else
                FAIL("unknown algorithm in the reference: ", r.algorithm);
            ++checked;
        }
    }
    CHECK(checked == 36); // 27 rows of mixed_200k, 9 of the sample
}
