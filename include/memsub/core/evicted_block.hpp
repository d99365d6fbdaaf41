// memsub — `evicted_block`, the record of a block that left a cache, and `eviction_reason`.
//
// One record, one meaning, for everyone who hears about a departure: the engine hands it to the
// replacement policy (`on_evict`, replacement/concept.hpp R5), to the bypass and line-size
// predictors (bypass/concept.hpp, linesize/concept.hpp), to observers such as
// profile/l1_statistics.hpp, and to the host (`access_result::evictions`, `invalidate`,
// `flush`). It lives in core/ because none of those families owns it; what the engine tells the
// replacement policy alone (`insert_info`, `room_request`) stays in replacement/concept.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include <memsub/core/types.hpp>

namespace memsub {

/// Why a block left the cache.
enum class eviction_reason : std::uint8_t {
    replacement, ///< chosen by `victim` to make room
    write_evict, ///< a write hit under the write-evict policy
    invalidated, ///< the host invalidated or flushed it
    superseded,  ///< an overlapping block was inserted (variable-size blocks)
    /// The host retired it: its data can no longer be read as stored, e.g. a line compressed
    /// with a code book the host has replaced ([Dissertation] §4.3.3: SC² lines of an older
    /// code book are invalidated when a new period starts). Passed by the host to
    /// `basic_cache::invalidate` / `invalidate_if`; counted apart from `invalidated`.
    retired,
};
/// Number of `eviction_reason` values (the size of per-reason counters).
inline constexpr std::size_t eviction_reason_count = 5;

/// A block that left the cache: what the engine tells the policy (R5), the bypass predictor and
/// the host (in `access_result::evictions`, `invalidate`, `flush`) — one record, one meaning.
struct evicted_block {
    /// The line holding the block.
    line_address line{};
    /// First byte of the block (the line's first byte for whole-line blocks).
    byte_address address{};
    /// Bytes of address space the block covered (the line size for whole-line blocks).
    std::uint32_t bytes = 0;
    /// Data segments it occupied (its compressed size in a compressed cache).
    std::uint32_t stored_segments = 0;
    /// The set it was resident in.
    set_index set{};
    /// The tag entry it held in that set (free again once it left).
    entry_index entry{};
    /// Its data must be written back to the next level: it was written since it was filled
    /// and its bytes go nowhere else. A superseded block is never dirty — its data, dirty or
    /// not, merged into the block that replaced it, which is dirty in its stead.
    bool dirty = false;
    /// It was hit at least once while resident.
    bool reused = false;
    /// Why it left.
    eviction_reason reason = eviction_reason::replacement;
    /// Segments of the block (bit 0 = its first) that some access requested while it was
    /// resident: its spatial utilisation (ID-Cache Fig. 3.3). Always 1 in a conventional cache.
    std::uint64_t touched_segments = 0;
    /// The cache user's per-block payload (`block_spec::payload`: e.g. a compression mode and
    /// encoding, or a code-book generation); 0 in a conventional cache.
    std::uint32_t payload = 0;

    /// Field-by-field equality (tests compare departure records whole).
    friend bool operator==(const evicted_block&, const evicted_block&) = default;
};

} // namespace memsub
