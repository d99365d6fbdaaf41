// memsub — what a cache access returns, and the counters a cache keeps.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <boost/container/static_vector.hpp>

#include <memsub/core/access.hpp>
#include <memsub/core/types.hpp>
#include <memsub/replacement/concept.hpp>

namespace memsub::cache {

using replacement::eviction_reason;

/// A block that left the cache during an access (or an invalidation).
struct evicted_block {
    /// First byte of the block.
    byte_address address{};
    /// Bytes of address space the block covered (the line size for whole-line blocks).
    std::uint32_t bytes = 0;
    /// Data segments it occupied (its compressed size in a compressed cache).
    std::uint32_t stored_segments = 0;
    /// It must be written back to the next level.
    bool dirty = false;
    /// It was hit at least once while resident.
    bool reused = false;
    eviction_reason reason = eviction_reason::replacement;
    /// Segments of the block (bit 0 = its first) that some access requested while it was
    /// resident: its spatial utilisation (ID-Cache Fig. 3.3). Always 1 in a conventional cache.
    std::uint64_t touched_segments = 0;

    friend bool operator==(const evicted_block&, const evicted_block&) = default;
};

/// The outcome of one access. `MaxEvictions` is fixed by the cache's options (1 for a
/// conventional cache), so the result lives on the stack with no allocation.
template <std::size_t MaxEvictions>
struct access_result {
    /// The access found its bytes resident.
    bool hit = false;
    /// A miss that did not allocate (host no-allocate, write-no-allocate, policy bypass).
    bool bypassed = false;
    /// A miss that allocated at least one block.
    bool filled = false;
    /// A miss that found part of the request resident (variable-size blocks only).
    bool partial = false;
    /// Blocks this access inserted (a variable-block miss may insert several).
    std::uint32_t blocks_filled = 0;
    set_index set{};
    /// The entry hit or filled that holds the first requested byte (meaningless when
    /// bypassed).
    entry_index entry{};
    /// Requested segments of the line that were not resident (bit i = segment i of the line;
    /// 1 for any miss of a conventional cache, 0 for a hit).
    std::uint64_t missing_segments = 0;
    /// Bytes read from the next level for this access (fill or bypassed read).
    std::uint32_t bytes_fetched = 0;
    /// Bytes this access writes to the next level itself (write-through, write-evict,
    /// write-no-allocate); dirty evictions are reported in `evictions`.
    std::uint32_t bytes_written_down = 0;
    /// Every block that left the cache because of this access, in eviction order.
    boost::container::static_vector<evicted_block, MaxEvictions> evictions;

    /// Bytes of dirty evicted blocks (the writeback traffic this access causes).
    [[nodiscard]] std::uint32_t writeback_bytes() const noexcept {
        std::uint32_t total = 0;
        for (const auto& e : evictions) total += e.dirty ? e.bytes : 0u;
        return total;
    }
};

/// Counters of one kind of access.
struct kind_counters {
    std::uint64_t accesses = 0;
    std::uint64_t misses = 0;
};

/// Running totals a cache keeps. All counts are events, all byte totals are next-level traffic.
struct cache_stats {
    std::uint64_t accesses = 0;
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    /// Misses that found part of the request resident (variable-size blocks).
    std::uint64_t partial_misses = 0;
    /// Misses that did not allocate.
    std::uint64_t bypasses = 0;
    std::uint64_t fills = 0;
    /// Blocks removed to make room (replacement victims).
    std::uint64_t evictions = 0;
    /// Evicted or invalidated blocks that were dirty (writebacks to the next level).
    std::uint64_t writebacks = 0;
    /// Blocks removed for any other reason (write-evict, invalidate, superseded).
    std::uint64_t invalidations = 0;
    std::uint64_t bytes_fetched = 0;
    std::uint64_t bytes_written_back = 0;
    std::uint64_t bytes_written_down = 0;
    /// Per access kind (index = `static_cast<size_t>(access_kind)`).
    std::array<kind_counters, 5> by_kind{};

    [[nodiscard]] double miss_ratio() const noexcept {
        return accesses == 0 ? 0.0 : static_cast<double>(misses) / static_cast<double>(accesses);
    }
    [[nodiscard]] double hit_ratio() const noexcept {
        return accesses == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(accesses);
    }
    [[nodiscard]] const kind_counters& of(access_kind k) const noexcept {
        return by_kind[static_cast<std::size_t>(k)];
    }
};

} // namespace memsub::cache
