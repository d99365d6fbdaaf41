// memsub — the oracle pass Belady's OPT needs: for every access of a stream, the position of
// the next access to the same line (docs/mechanisms/remap.md, 'OPT': "backward pass … never → ∞").
//
// Not on the per-access cache path: it runs once over a recorded stream and uses a hash map.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::replacement {

/// The backward pass one step at a time, for a stream too long to hold (a consumer reads it from
/// the end in blocks): `observe(line, position)`, called for positions in decreasing order,
/// returns the position of the next access to `line` seen so far, or `memsub::never`. Memory:
/// one hash-map entry per distinct line, whatever the stream's length.
class next_use_tracker {
public:
    /// `expected_lines`: distinct lines expected (a reservation; 0 lets the map grow).
    explicit next_use_tracker(std::size_t expected_lines = 0) { seen_.reserve(expected_lines); }

    std::uint64_t observe(line_address line, std::uint64_t position) {
        auto [it, fresh] = seen_.try_emplace(line.value, position);
        if (fresh) return never;
        const std::uint64_t next = it->second;
        it->second = position;
        return next;
    }

    /// Distinct lines seen so far.
    [[nodiscard]] std::size_t distinct_lines() const noexcept { return seen_.size(); }

private:
    std::unordered_map<std::uint64_t, std::uint64_t> seen_;
};

/// next[i] = the smallest j > i with lines[j] == lines[i], or `memsub::never`. The compact form
/// for long traces: 8 bytes per access instead of a whole access record.
[[nodiscard]] inline std::vector<std::uint64_t>
next_use_positions(std::span<const line_address> lines) {
    std::vector<std::uint64_t> next(lines.size(), never);
    next_use_tracker tracker(lines.size() / 2 + 1);
    for (std::size_t i = lines.size(); i-- > 0;) next[i] = tracker.observe(lines[i], i);
    return next;
}

/// next[i] = the smallest j > i with line(stream[j]) == line(stream[i]), or `memsub::never`.
/// Lines are `address / line_bytes`; `line_bytes` must be a power of two ≥ 1.
[[nodiscard]] inline std::vector<std::uint64_t>
next_use_positions(std::span<const memsub::access> stream, std::uint32_t line_bytes) {
    memsub::require(line_bytes >= 1 && std::has_single_bit(line_bytes),
                    "memsub::replacement::next_use", "line_bytes", line_bytes,
                    "must be a power of two");
    const std::uint32_t shift = log2_exact(line_bytes);
    std::vector<line_address> lines(stream.size());
    for (std::size_t i = 0; i < stream.size(); ++i)
        lines[i] = line_address{stream[i].address.value >> shift};
    return next_use_positions(lines);
}

/// Writes each access's `hints.next_use` (positions are indices into `stream`).
inline void annotate_next_use(std::span<memsub::access> stream, std::uint32_t line_bytes) {
    const auto next = next_use_positions(stream, line_bytes);
    for (std::size_t i = 0; i < stream.size(); ++i) stream[i].hints.next_use = next[i];
}

} // namespace memsub::replacement
