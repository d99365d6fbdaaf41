// memsub — stored-size rules for compressed lines (docs/mechanisms/compressors.md §2.1).
//
// A compressor reports exact payload bits; how many bytes a cache spends on a line depends on
// its organisation. The rules, labelled CS ("compressed storage", the compressor family's
// storage rules; CSn is the mechanism page's Gn):
//   CS1. `bits` is the exact payload; metadata kept in the tag is not counted.
//   CS2. bytes = ceil(bits / 8), never rounded down.
//   CS3. With segments of S bytes, stored = ceil(bytes / S) · S. Defaults: CPU 64B lines with
//        S = 8 B (BDI paper; Alameldeen & Wood); GPU 128B L1D lines with S = 32 B (LATTE-CC
//        sub-blocks); S = 1 for byte-aligned storage (SC²). No source names a segment for
//        32-byte lines; memsub uses the CPU 8 B there.
//   CS4. A line that saves no segment (stored ≥ L) or needs more than 8L bits is stored raw.
//   CS5. Optionally, a line whose bytes exceed a threshold (a percentage of L) is stored raw.
//   CS6. The aggregate ratio is Σ original bytes / Σ stored bytes, not a mean of line ratios.
//   CS7. A 0-bit payload is legal (a tag-only zero line); ratio code never divides by zero.
// `stored_size_of` applies CS2–CS5 and CS7; `ratio_accumulator` aggregates as CS6/CS7 ask.
// `default_segment_bytes(L)` gives the CS3 defaults, a `storage_rule` with `segment_bytes = 0`
// (its default) uses them, and `default_storage_rule(c)` also honours a compressor's own byte
// alignment (SC²).
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <string_view>

#include <memsub/compression/concept.hpp>
#include <memsub/core/errors.hpp>

namespace memsub::compression {

/// CS3 default segment for lines of `line_bytes`: 32 B for 128-byte (GPU L1D) lines, 8 B for
/// 64-byte (CPU) lines and for 32-byte lines (no source gives one: the CPU granularity).
[[nodiscard]] constexpr std::uint32_t default_segment_bytes(std::uint32_t line_bytes) noexcept {
    return line_bytes >= 128 ? 32 : 8;
}

/// How a cache stores compressed lines.
struct storage_rule {
    /// Line size L in bytes (32, 64 or 128).
    std::uint32_t line_bytes = 64;
    /// Segment (allocation unit) S in bytes: a power of two dividing L; 1 = byte-aligned;
    /// 0 = the CS3 default for `line_bytes` (`default_segment_bytes`).
    std::uint32_t segment_bytes = 0;
    /// CS5: a line whose compressed bytes exceed threshold·L/100 is stored raw. 100 = no threshold
    /// (memsub's default); gem5 uses 50 (99 for BDI sub-compressors).
    std::uint32_t threshold_percent = 100;
    /// CS7: when true a 0-bit payload (C-PACK+Z zero block, tag-only zero line) occupies no
    /// segment; when false it occupies one segment.
    bool zero_payload_is_tag_only = true;

    void validate(std::string_view component = "memsub::compression::storage_rule") const {
        require(is_supported_line_size(line_bytes), component, "line_bytes", line_bytes,
                "must be 32, 64 or 128");
        require(segment_bytes == 0 ||
                    (std::has_single_bit(segment_bytes) && segment_bytes <= line_bytes),
                component, "segment_bytes", segment_bytes,
                "must be 0 (CS3 default) or a power of two <= line_bytes");
        require(threshold_percent >= 1 && threshold_percent <= 100, component, "threshold_percent",
                threshold_percent, "must be in 1..100");
    }
    /// The segment S in effect (`segment_bytes`, or the CS3 default when it is 0).
    [[nodiscard]] constexpr std::uint32_t segment() const noexcept {
        return segment_bytes != 0 ? segment_bytes : default_segment_bytes(line_bytes);
    }
    [[nodiscard]] constexpr std::uint32_t segments_per_line() const noexcept {
        return line_bytes / segment();
    }
    /// Equal when they store lines the same way (a 0 segment equals its CS3 default).
    friend constexpr bool operator==(const storage_rule& a, const storage_rule& b) noexcept {
        return a.line_bytes == b.line_bytes && a.segment() == b.segment() &&
               a.threshold_percent == b.threshold_percent &&
               a.zero_payload_is_tag_only == b.zero_payload_is_tag_only;
    }
};

/// The CS3 defaults for lines of `line_bytes` (8 B segments for 32/64-byte lines, 32 B for
/// 128-byte lines; no threshold, a 0-bit payload tag-only).
[[nodiscard]] constexpr storage_rule default_storage_rule(std::uint32_t line_bytes) noexcept {
    return storage_rule{.line_bytes = line_bytes,
                        .segment_bytes = default_segment_bytes(line_bytes)};
}

/// Byte-aligned storage (S = 1), how SC² stores its lines (CS3, §2.2).
[[nodiscard]] constexpr storage_rule byte_aligned_storage_rule(std::uint32_t line_bytes) noexcept {
    return storage_rule{.line_bytes = line_bytes, .segment_bytes = 1};
}

/// The storage rule a compressor's lines default to: byte-aligned for a compressor that says so
/// (`C::byte_aligned_storage`, SC²), the CS3 default for its line size otherwise.
template <class C>
[[nodiscard]] constexpr storage_rule default_storage_rule(const C& c) noexcept requires requires {
    c.line_bytes();
}
{
    if constexpr (requires { requires C::byte_aligned_storage; })
        return byte_aligned_storage_rule(c.line_bytes());
    else
        return default_storage_rule(c.line_bytes());
}

/// The outcome of §2 for one line.
struct stored_size {
    std::uint32_t payload_bits = 0;  ///< CS1: exact payload bits as the compressor reported
    std::uint32_t payload_bytes = 0; ///< CS2: ceil(bits / 8)
    std::uint32_t segments = 0;      ///< CS3/CS4: segments occupied (L/S when stored raw)
    std::uint32_t stored_bytes = 0;  ///< segments · S (L when stored raw)
    bool raw = false;                ///< CS4/CS5: stored uncompressed ("uncompressed" metadata)
    friend constexpr bool operator==(const stored_size&, const stored_size&) noexcept = default;
};

/// CS2: bytes = ceil(bits / 8), never floor (gem5 bug P-G1).
[[nodiscard]] constexpr std::uint32_t bytes_for_bits(std::uint32_t bits) noexcept {
    return bits / 8 + (bits % 8 != 0 ? 1u : 0u);
}

/// Applies CS2–CS5 and CS7 to an exact payload length. `rule` must be valid (see `validate`).
[[nodiscard]] constexpr stored_size stored_size_of(std::uint32_t bits,
                                                   const storage_rule& rule) noexcept {
    stored_size s;
    s.payload_bits = bits;
    s.payload_bytes = bytes_for_bits(bits);
    const std::uint32_t L = rule.line_bytes, S = rule.segment();
    const std::uint32_t segs = s.payload_bytes / S + (s.payload_bytes % S != 0 ? 1u : 0u);
    const bool beyond_line = bits > 8 * L;    // CS4
    const bool saves_nothing = segs * S >= L; // CS4
    const bool over_threshold =
        std::uint64_t{s.payload_bytes} * 100 > std::uint64_t{rule.threshold_percent} * L; // CS5
    if (beyond_line || saves_nothing || over_threshold) {
        s.raw = true;
        s.segments = L / S;
        s.stored_bytes = L;
        return s;
    }
    s.segments = (bits == 0 && !rule.zero_payload_is_tag_only) ? 1u : segs; // CS7
    s.stored_bytes = s.segments * S;
    return s;
}

/// Bits a tag needs to record a stored size under `rule`: ceil(log2(L/S)) for the segment count
/// (1 … L/S − 1 compressed segments, 0 used for a tag-only line) plus one compressed/raw flag
/// (docs/mechanisms/compressors.md §2.2 FPC example: 3 bits for 1–8 segments of 8 B, plus a
/// compressed bit).
[[nodiscard]] constexpr std::uint32_t size_field_bits(const storage_rule& rule) noexcept {
    const std::uint32_t n = rule.segments_per_line();
    return static_cast<std::uint32_t>(std::bit_width(n - 1)) + 1;
}

/// CS6/CS7: aggregate compression ratio = Σ original bytes / Σ stored bytes over all lines, with a
/// tag-only (0-byte) line counted as one segment (CS7), so that a stream of zero lines has a
/// finite ratio.
class ratio_accumulator {
public:
    /// `add(original, stored)` floors at one CS3 segment of a 64-byte line (8 B).
    constexpr ratio_accumulator() noexcept = default;
    /// `add(original, stored)` floors at `floor_bytes` (0 counts as 1).
    constexpr explicit ratio_accumulator(std::uint32_t floor_bytes) noexcept
        : floor_(floor_bytes == 0 ? 1 : floor_bytes) {}
    /// `add(original, stored)` floors at one segment of `rule`.
    constexpr explicit ratio_accumulator(const storage_rule& rule) noexcept
        : floor_(rule.segment()) {}

    constexpr void add(std::uint32_t original_bytes, std::uint32_t stored_bytes) noexcept {
        add_floored(original_bytes, stored_bytes, floor_);
    }
    /// A line stored under `rule`: L original bytes, the stored bytes floored at one of the
    /// rule's segments.
    constexpr void add(const stored_size& s, const storage_rule& rule) noexcept {
        add_floored(rule.line_bytes, s.stored_bytes, rule.segment());
    }
    [[nodiscard]] constexpr double ratio() const noexcept {
        return stored_ == 0 ? 1.0 : static_cast<double>(original_) / static_cast<double>(stored_);
    }
    [[nodiscard]] constexpr std::uint64_t original_bytes() const noexcept { return original_; }
    [[nodiscard]] constexpr std::uint64_t stored_bytes() const noexcept { return stored_; }
    [[nodiscard]] constexpr std::uint64_t lines() const noexcept { return lines_; }

private:
    constexpr void add_floored(std::uint32_t original, std::uint32_t stored,
                               std::uint32_t floor) noexcept {
        original_ += original;
        stored_ += stored < floor ? floor : stored;
        ++lines_;
    }

    std::uint32_t floor_ = default_segment_bytes(64);
    std::uint64_t original_ = 0, stored_ = 0, lines_ = 0;
};

} // namespace memsub::compression
