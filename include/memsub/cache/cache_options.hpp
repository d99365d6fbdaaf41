// memsub — the compile-time options of a cache and the public types its accesses and queries
// use: block_spec (the shape of blocks a miss inserts), block_location, block_view and the
// block_spec_source concept. Included by basic_cache.hpp, the header users include.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <memsub/cache/write_strategy.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/types.hpp>

namespace memsub::cache {

/// Compile-time options of a cache (a structural type, passed as a template argument).
struct cache_options {
    write_policy writes = write_policy::write_back;
    /// The largest block, in data segments. 1 = conventional cache (one block = one line);
    /// larger values enable variable-size blocks and must be at least the segments per line.
    std::uint32_t max_block_segments = 1;
    /// Bits of the user's payload each tag entry holds in hardware (e.g. LATTE-CC's 2 mode + 4
    /// encoding bits, [Dissertation] §4.3.1), counted per entry by `storage_bits()`.
    /// Variable-block caches only (a conventional cache has no payload); at most 32.
    std::uint32_t payload_bits = 0;
    /// Variable-block caches: a fill of one whole-line block into a line with no resident
    /// block (every fill of a compressed cache storing whole lines) takes a dedicated path,
    /// which does only what such a fill needs. false sends every fill through the general
    /// path; each access result and statistic is the same either way (a reference for tests).
    bool whole_line_fill_path = true;

    [[nodiscard]] constexpr bool variable_blocks() const noexcept { return max_block_segments > 1; }
    /// Upper bound of blocks one access can remove: the line's blocks it supersedes or
    /// write-evicts and the new blocks together (each holds a segment of the line the others do
    /// not: ≤ segments per line), plus victims for room: one per missing tag (≤ new blocks) and
    /// one per missing segment (≤ segments per line, since a victim chosen for segments alone
    /// frees at least one: tag-only blocks are not eligible then), plus one.
    [[nodiscard]] constexpr std::size_t max_evictions() const noexcept {
        return variable_blocks() ? 2 * std::size_t{max_block_segments} + 1 : 1;
    }
};

/// Shape of the variable-size blocks to insert on a miss.
struct block_spec {
    /// Address span of each block in segments: a power of two ≤ segments per line; a block is
    /// an aligned span of the line.
    std::uint32_t span_segments = 1;
    /// Data segments each block occupies: ≤ span for a compressed block, = span otherwise, 0
    /// for a tag-only block (see "Tag-only blocks" in basic_cache.hpp). More than the span is
    /// stored as the span (see "Block specs" in basic_cache.hpp).
    std::uint32_t stored_segments = 1;
    /// The user's payload for each block (e.g. compression mode and encoding bits, or the
    /// code-book generation the line was compressed with); returned with the block.
    std::uint32_t payload = 0;
};

/// Where a resident block lives.
struct block_location {
    set_index set{};
    entry_index entry{};
    friend bool operator==(const block_location&, const block_location&) = default;
};

/// Read-only view of one tag entry, for inspection and tests.
struct block_view {
    bool valid = false;
    byte_address address{};
    std::uint32_t bytes = 0;
    std::uint32_t stored_segments = 0;
    bool dirty = false;
    bool reused = false;
    /// Segments of the block (bit 0 = its first) some access requested while it was resident.
    std::uint64_t touched_segments = 0;
    /// The user's payload (`block_spec::payload`); 0 in a conventional cache.
    std::uint32_t payload = 0;
};

/// A callable that gives the block spec of an access when the engine needs it (a compressed
/// cache's compressor, reading `access::data`). It must not throw: the access is noexcept.
template <class F>
concept block_spec_source = std::invocable<F&, const memsub::access&> &&
    std::convertible_to<std::invoke_result_t<F&, const memsub::access&>, block_spec>;

} // namespace memsub::cache
