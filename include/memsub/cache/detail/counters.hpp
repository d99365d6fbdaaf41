// memsub — the conventional access path's counters and how they fold into cache_stats.
//
// Decision: the conventional access path does not update cache_stats' fields; it keeps the few
// counts the others follow from (conventional_counters), and basic_cache::stats() folds them in.
// A miss that updated every field would update seven counters (accesses and misses of its kind,
// fills, bytes fetched, evictions, writebacks, bytes written back), each a load and a store the
// plain loops a host compares with do not have; it updates two (misses of its kind,
// writebacks), a hit one. Considered: returning cache_stats by value (breaks hosts that hold
// `const cache_stats&` from an accessor); keeping the fields (the cost
// above). Every other path (variable blocks, maintenance) updates cache_stats directly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <memsub/cache/access_result.hpp>
#include <memsub/core/access.hpp>

namespace memsub::cache::detail {

/// The counts a conventional access updates; the rest of cache_stats follows from them.
struct conventional_counters {
    std::array<std::uint64_t, access_kind_count> hits{};   ///< hits, by kind
    std::array<std::uint64_t, access_kind_count> misses{}; ///< misses, by kind
    /// Misses that allocated nothing (a bypass of any reason), by kind.
    std::array<std::uint64_t, access_kind_count> unfilled{};
    std::uint64_t free_fills = 0; ///< fills into a free entry: no victim left
    std::uint64_t writebacks = 0; ///< dirty replacement victims
};

/// Adds `counters` to `stats` and clears them: a conventional miss fills one line unless it
/// allocated nothing; a fill evicts a victim unless its entry was free; a fill fetches the line
/// unless a writeback from above wrote it whole; a victim written back is a whole line.
inline void fold_conventional_counters(conventional_counters& counters, cache_stats& stats,
                                       std::uint64_t line_bytes) noexcept {
    std::uint64_t fills = 0, fetching_fills = 0;
    for (std::size_t k = 0; k < access_kind_count; ++k) {
        kind_counters& c = stats.by_kind[k];
        c.accesses += counters.hits[k] + counters.misses[k];
        c.misses += counters.misses[k];
        const std::uint64_t filled = counters.misses[k] - counters.unfilled[k];
        fills += filled;
        if (static_cast<access_kind>(k) != access_kind::writeback) fetching_fills += filled;
    }
    stats.fills += fills;
    stats.bytes_fetched += fetching_fills * line_bytes;
    stats.evictions += fills - counters.free_fills;
    stats.writebacks += counters.writebacks;
    stats.bytes_written_back += counters.writebacks * line_bytes;
    counters = conventional_counters{};
}

} // namespace memsub::cache::detail
