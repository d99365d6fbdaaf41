// memsub — cache geometry: runtime `geometry` and compile-time `fixed_geometry`.
//
// A set has `tag entries` and a `data budget in segments` (docs/design.md, 'The set engine'). For a
// conventional cache both default to the number of ways and a segment is a whole line. A
// variable-line cache (ID-Cache ALSI) uses 32B segments and one tag per possible 32B block; a
// compressed cache (LATTE-CC) uses 32B segments and 4× the tags.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub {

/// Runtime cache geometry. Designated-initialise it and let the cache validate it:
/// `geometry{.sets = 2048, .ways = 16, .line_bytes = 64}`, or build it from the capacity with
/// `geometry::from_capacity(32 * 1024, 8, 64)` (the first member is the number of sets, not the
/// capacity: `geometry{32768, 8, 64}` is a 16 MiB cache).
struct geometry {
    /// Number of sets; a power of two (set index = low bits of the line address).
    std::uint32_t sets = 0;
    /// Data capacity of a set in lines.
    std::uint32_t ways = 0;
    /// Line size in bytes; a power of two ≥ 4. Sets are indexed by line address.
    std::uint32_t line_bytes = 64;
    /// Data allocation unit in bytes; 0 = the line size. A power of two dividing the line.
    std::uint32_t segment_bytes = 0;
    /// Tag entries per set; 0 = `ways`. At least `ways`, at most 64.
    std::uint32_t tags_per_set = 0;

    [[nodiscard]] constexpr std::uint32_t segment_size() const noexcept {
        return segment_bytes != 0 ? segment_bytes : line_bytes;
    }
    [[nodiscard]] constexpr std::uint32_t entries_per_set() const noexcept {
        return tags_per_set != 0 ? tags_per_set : ways;
    }
    [[nodiscard]] constexpr std::uint32_t segments_per_line() const noexcept {
        return line_bytes / segment_size();
    }
    [[nodiscard]] constexpr std::uint32_t segments_per_set() const noexcept {
        return ways * segments_per_line();
    }
    [[nodiscard]] constexpr std::uint64_t capacity_bytes() const noexcept {
        return std::uint64_t{sets} * ways * line_bytes;
    }
    [[nodiscard]] constexpr std::uint64_t total_entries() const noexcept {
        return std::uint64_t{sets} * entries_per_set();
    }

    /// The geometry of a `capacity_bytes` cache with `ways` ways of `line_bytes`-byte lines:
    /// sets = capacity / (ways · line_bytes). Throws `config_error` when the capacity is not a
    /// whole number of sets, or the result breaks a rule of `validate`.
    [[nodiscard]] static geometry from_capacity(std::uint64_t capacity_bytes, std::uint32_t ways,
                                                std::uint32_t line_bytes = 64) {
        constexpr std::string_view component = "memsub::geometry::from_capacity";
        require(ways >= 1, component, "ways", ways, "must be >= 1");
        require(line_bytes >= 1, component, "line_bytes", line_bytes, "must be >= 1");
        const std::uint64_t set_bytes = std::uint64_t{ways} * line_bytes;
        require(capacity_bytes >= set_bytes && capacity_bytes % set_bytes == 0, component,
                "capacity_bytes", capacity_bytes,
                "must be a non-zero multiple of ways * line_bytes (one set)");
        const std::uint64_t sets = capacity_bytes / set_bytes;
        require(sets <= 0x8000'0000u, component, "capacity_bytes", capacity_bytes,
                "gives more than 2^31 sets");
        geometry g{
            .sets = static_cast<std::uint32_t>(sets), .ways = ways, .line_bytes = line_bytes};
        g.validate(component);
        return g;
    }

    /// Throws `config_error` naming `component` when a rule is broken.
    void validate(std::string_view component = "memsub::geometry") const {
        require(sets >= 1 && std::has_single_bit(sets), component, "sets", sets,
                "must be a power of two >= 1");
        require(ways >= 1 && ways <= max_entries_per_set, component, "ways", ways,
                "must be in 1..64");
        require(line_bytes >= 4 && std::has_single_bit(line_bytes), component, "line_bytes",
                line_bytes, "must be a power of two >= 4");
        require(segment_bytes == 0 ||
                    (std::has_single_bit(segment_bytes) && segment_bytes <= line_bytes),
                component, "segment_bytes", segment_bytes,
                "must be 0 (= line_bytes) or a power of two <= line_bytes");
        require(segments_per_line() <= 64, component, "segment_bytes", segment_size(),
                "a line may hold at most 64 segments");
        require(tags_per_set == 0 || (tags_per_set >= ways && tags_per_set <= max_entries_per_set),
                component, "tags_per_set", tags_per_set, "must be 0 (= ways) or in ways..64");
        require(segments_per_set() <= 4096, component, "ways", ways,
                "a set may hold at most 4096 segments");
    }

    friend constexpr bool operator==(const geometry&, const geometry&) noexcept = default;
};

/// Compile-time geometry: every member is a constant, so index masks and loop bounds fold.
/// Usable wherever a `geometry` is (it converts to one).
template <std::uint32_t Sets, std::uint32_t Ways, std::uint32_t LineBytes,
          std::uint32_t SegmentBytes = LineBytes, std::uint32_t TagsPerSet = Ways>
struct fixed_geometry {
    static constexpr std::uint32_t sets = Sets;
    static constexpr std::uint32_t ways = Ways;
    static constexpr std::uint32_t line_bytes = LineBytes;
    static constexpr std::uint32_t segment_bytes = SegmentBytes;
    static constexpr std::uint32_t tags_per_set = TagsPerSet;

    static_assert(Sets >= 1 && std::has_single_bit(Sets), "sets must be a power of two");
    static_assert(Ways >= 1 && Ways <= max_entries_per_set, "ways must be in 1..64");
    static_assert(LineBytes >= 4 && std::has_single_bit(LineBytes),
                  "line_bytes must be a power of two >= 4");
    static_assert(std::has_single_bit(SegmentBytes) && SegmentBytes <= LineBytes,
                  "segment_bytes must be a power of two <= line_bytes");
    static_assert(LineBytes / SegmentBytes <= 64, "a line may hold at most 64 segments");
    static_assert(TagsPerSet >= Ways && TagsPerSet <= max_entries_per_set,
                  "tags_per_set must be in ways..64");

    static constexpr std::uint32_t segment_size() noexcept { return SegmentBytes; }
    static constexpr std::uint32_t entries_per_set() noexcept { return TagsPerSet; }
    static constexpr std::uint32_t segments_per_line() noexcept { return LineBytes / SegmentBytes; }
    static constexpr std::uint32_t segments_per_set() noexcept {
        return Ways * segments_per_line();
    }
    static constexpr std::uint64_t capacity_bytes() noexcept {
        return std::uint64_t{Sets} * Ways * LineBytes;
    }
    static constexpr std::uint64_t total_entries() noexcept {
        return std::uint64_t{Sets} * TagsPerSet;
    }
    static constexpr void validate(std::string_view = {}) noexcept {}

    constexpr operator geometry() const noexcept { // NOLINT(google-explicit-constructor)
        return geometry{.sets = Sets,
                        .ways = Ways,
                        .line_bytes = LineBytes,
                        .segment_bytes = SegmentBytes,
                        .tags_per_set = TagsPerSet};
    }
};

/// A geometry type the cache engine accepts: `geometry` or a `fixed_geometry<…>`.
template <class G>
concept geometry_like = std::convertible_to<const G&, geometry> && requires(const G& g) {
    { g.sets } -> std::convertible_to<std::uint32_t>;
    { g.ways } -> std::convertible_to<std::uint32_t>;
    { g.line_bytes } -> std::convertible_to<std::uint32_t>;
    { g.entries_per_set() } -> std::convertible_to<std::uint32_t>;
    { g.segments_per_set() } -> std::convertible_to<std::uint32_t>;
    { g.segments_per_line() } -> std::convertible_to<std::uint32_t>;
    { g.segment_size() } -> std::convertible_to<std::uint32_t>;
};

} // namespace memsub
