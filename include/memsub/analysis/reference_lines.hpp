// memsub — the lines one reference touches, counted as the explorer and the caches count them.
//
// A reference whose bytes cross a line boundary touches every line it covers, in address order,
// but is one access with at most one miss (valgrind cachegrind's rule, cache::basic_cache and
// cache::fully_associative_cache `access_spanning`). For a one-pass curve that means: the
// reference misses in a cache iff one of its lines misses there, so the curve records, per
// reference, the largest distance of its lines (lines_of_reference feeds them one by one).
#pragma once

#include <cstdint>

#include <memsub/core/access.hpp>

namespace memsub::analysis {

/// Whether `a`'s bytes lie within one line of 2^line_shift bytes (a size of 0 counts as one
/// byte): the common case, one line and no crossing.
[[nodiscard]] constexpr bool within_one_line(const memsub::access& a,
                                             std::uint32_t line_shift) noexcept {
    const std::uint64_t line_mask = (std::uint64_t{1} << line_shift) - 1;
    return a.size == 0 || (a.address.value & line_mask) + a.size <= line_mask + 1;
}

/// Calls `line_fn(std::uint64_t line)` for each line `a` touches (lines of 2^line_shift bytes),
/// in address order: the pieces of memsub::for_each_line_piece.
template <class LineFn>
constexpr void lines_of_reference(const memsub::access& a, std::uint32_t line_shift,
                                  LineFn&& line_fn) {
    if (within_one_line(a, line_shift)) [[likely]] {
        line_fn(a.address.value >> line_shift);
        return;
    }
    for_each_line_piece(a, line_shift, [&](const memsub::access& piece, bool) {
        line_fn(piece.address.value >> line_shift);
    });
}

} // namespace memsub::analysis
