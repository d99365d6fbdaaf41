// A last-level cache inside your own simulator: a 2 MiB 16-way set-associative cache with SRRIP
// replacement, fed by memsub's built-in workload (a zipf + loop + scan mix sized for the cache),
// and the same stream through LRU for comparison. Copy this file to start.
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/srrip.hpp>
#include <memsub/workload/synthetic.hpp>

#include <fmt/core.h>

#include <cstdint>
#include <string_view>

namespace {

constexpr std::uint64_t accesses = 1'000'000;

/// Runs the built-in stream through a cache of `Policy`, prints one table row and returns the
/// misses.
template <class Policy>
std::uint64_t run(std::string_view label, const memsub::geometry& shape) {
    memsub::cache::set_associative_cache<Policy> llc(shape);
    memsub::workload::mixed_stream stream(memsub::workload::mixed_stream::params{
        .cache_lines = shape.sets * shape.ways, .line_bytes = shape.line_bytes, .seed = 1});
    std::uint64_t dirty_evictions = 0;
    for (std::uint64_t i = 0; i < accesses; ++i) {
        const auto result = llc.access(stream.next()); // no allocation, no virtual call
        for (const auto& victim : result.evictions) dirty_evictions += victim.dirty ? 1 : 0;
        // A host would fetch result.bytes_fetched from memory on a miss and write back the
        // dirty victims here.
    }
    const auto& s = llc.stats();
    fmt::print("{:<6} {:>10} {:>10} {:>10} {:>9.2f}% {:>10}\n", label, s.accesses(), s.hits(),
               s.misses(),
               100.0 * static_cast<double>(s.misses()) / static_cast<double>(s.accesses()),
               dirty_evictions);
    return s.misses();
}

} // namespace

int main() {
    const auto shape = memsub::geometry::from_capacity(2 * 1024 * 1024, 16, 64);
    fmt::print("LLC: {} sets x {} ways x {} B, {} accesses of the built-in mix\n\n", shape.sets,
               shape.ways, shape.line_bytes, accesses);
    fmt::print("{:<6} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "policy", "accesses", "hits", "misses",
               "miss ratio", "writebacks");
    const auto srrip_misses = run<memsub::replacement::srrip>("srrip", shape);
    const auto lru_misses = run<memsub::replacement::lru>("lru", shape);
    // The mix's scans flush an LRU cache; SRRIP inserts new lines with a distant re-reference
    // prediction and keeps part of the reused set.
    return srrip_misses < lru_misses ? 0 : 1;
}
