// memsub — set-associative LRU misses for every (sets, ways) of a grid in one pass.
//
// Citation: [HillSmith89] §III (all-associativity simulation: with bit-selection indexing —
// set = line address mod sets — and LRU, the lines of one set of a cache with 2^(k+1) sets are a
// subset of the lines of one set with 2^k sets, so an access's LRU distance within its set never
// grows as the set count doubles; one pass gives every set count and associativity) on
// [Mattson70] §3 (LRU is a stack algorithm within each set: a W-way set holds the W most recent
// lines of its stack, so an access hits in every associativity >= its distance in the set).
//
// What it computes: for every set count 2^a .. 2^b (min_sets .. max_sets) and every way count
// 1 .. W (max_ways), the misses of memsub's set-associative LRU cache of that geometry
// (cache::set_associative_cache<replacement::lru>, the explorer's "lru" row) — exactly, for the
// same line size, reference by reference: a line-crossing reference counts as one access that
// misses if any of its lines misses (reference_lines.hpp). Writes allocate like reads and the
// write policy does not change the misses of a write-allocate cache; `hints.no_allocate` is not
// modelled (every access allocates).
//
// How: per set count, per set, the W most recent lines in recency order (a small array of W
// line addresses; the full stack below them is not needed for ways <= W). An access searches its
// set at the fewest set count first; its depth there bounds the search at the next count (the
// inclusion above), so a line found near the top is found quickly everywhere, and a line at the
// top of its set at some count is at the top at every larger count: nothing below moves and the
// pass stops there. The sets of every count are prefetched when an access starts. No allocation
// per access.
//
// Decision: arrays of whole line addresses rather than Hill and Smith's single stack shared by
// all set counts. Their tree-structured stack saves memory, but its walk for a line deep in the
// stack is unbounded; per-count arrays bound every access at (counts x W) comparisons and keep
// each set's lines in 4 host cache lines (W = 32), which is what the speed target needs.
// Memory: 8 x W bytes per set per set count (32 ways, 2^0 .. 2^16 sets: 32 MiB), plus the
// histogram (counts x (W + 2) x 8 bytes).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <memsub/analysis/reference_lines.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::analysis {

class all_associativity_lru {
public:
    struct params {
        /// Line size in bytes (a power of two >= 4).
        std::uint32_t line_bytes = 64;
        /// The fewest and the most sets of the grid (powers of two, min_sets <= max_sets <=
        /// 2^31).
        std::uint32_t min_sets = 1;
        std::uint32_t max_sets = std::uint32_t{1} << 16;
        /// The most ways of the grid (1 .. 1024); every way count 1 .. max_ways is reported.
        std::uint32_t max_ways = 32;
    };

    explicit all_associativity_lru(const params& p)
        : line_shift_(validated(p))
        , min_sets_log2_(log2_exact(p.min_sets))
        , counts_(log2_exact(p.max_sets) - log2_exact(p.min_sets) + 1)
        , ways_(p.max_ways)
        , row_(p.max_ways + 2)
        , level_base_(counts_)
        , tags_(tag_entries(p), empty_line)
        , histogram_(std::size_t{counts_} * row_, 0)
        , top_from_(counts_ + 1, 0)
        , depth_(counts_, 0)
        , reference_depth_(counts_, 0) {
        std::size_t base = 0;
        for (std::uint32_t k = 0; k < counts_; ++k) {
            level_base_[k] = base;
            base += (std::size_t{p.min_sets} << k) * ways_;
        }
    }

    /// One reference of one line (line address = byte address / line_bytes).
    void access_line(line_address line) noexcept {
        const std::uint32_t stop = depths(line.value);
        std::uint64_t* h = histogram_.data();
        for (std::uint32_t k = 0; k < stop; ++k, h += row_) ++h[depth_[k]];
        ++top_from_[stop];
        ++accesses_;
    }

    /// One reference (the explorer's rule for line-crossing references, reference_lines.hpp).
    void access(const memsub::access& a) noexcept {
        const std::uint64_t line_mask = (std::uint64_t{1} << line_shift_) - 1;
        if (a.size == 0 || (a.address.value & line_mask) + a.size <= line_mask + 1) [[likely]] {
            access_line(line_address{a.address.value >> line_shift_});
            return;
        }
        // Several lines: per set count, the reference's depth is the largest of its lines'.
        std::fill(reference_depth_.begin(), reference_depth_.end(), 1u);
        lines_of_reference(a, line_shift_, [&](std::uint64_t line) {
            const std::uint32_t stop = depths(line);
            for (std::uint32_t k = 0; k < stop; ++k)
                reference_depth_[k] = std::max(reference_depth_[k], depth_[k]);
        });
        std::uint64_t* h = histogram_.data();
        for (std::uint32_t k = 0; k < counts_; ++k, h += row_) ++h[reference_depth_[k]];
        ++top_from_[counts_];
        ++accesses_;
    }

    void access_all(std::span<const memsub::access> references) noexcept {
        for (const auto& a : references) access(a);
    }

    [[nodiscard]] std::uint64_t accesses() const noexcept { return accesses_; }
    [[nodiscard]] std::uint32_t min_sets() const noexcept { return 1u << min_sets_log2_; }
    [[nodiscard]] std::uint32_t max_sets() const noexcept {
        return 1u << (min_sets_log2_ + counts_ - 1);
    }
    [[nodiscard]] std::uint32_t max_ways() const noexcept { return ways_; }
    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return 1u << line_shift_; }

    /// Misses of the `sets` x `ways` LRU cache (sets a power of two in min_sets .. max_sets,
    /// ways in 1 .. max_ways).
    [[nodiscard]] std::uint64_t misses(std::uint32_t sets, std::uint32_t ways) const {
        constexpr std::string_view c = "memsub::analysis::all_associativity_lru::misses";
        memsub::detail::require(std::has_single_bit(sets) && sets >= min_sets() &&
                                    sets <= max_sets(),
                                c, "sets", sets, "must be a power of two in min_sets .. max_sets");
        memsub::detail::require(ways >= 1 && ways <= ways_, c, "ways", ways,
                                "must be in 1 .. max_ways");
        const std::uint32_t k = log2_exact(sets) - min_sets_log2_;
        std::uint64_t hits = 0;
        for (std::uint32_t j = 0; j <= k; ++j) hits += top_from_[j]; // at the top from count j
        const std::uint64_t* h = &histogram_[std::size_t{k} * row_];
        for (std::uint32_t d = 1; d <= ways; ++d) hits += h[d];
        return accesses_ - hits;
    }

    /// Every point: grid[k * max_ways + (w - 1)] = misses(min_sets << k, w).
    [[nodiscard]] std::vector<std::uint64_t> miss_grid() const {
        std::vector<std::uint64_t> grid(std::size_t{counts_} * ways_);
        std::uint64_t top = 0;
        for (std::uint32_t k = 0; k < counts_; ++k) {
            top += top_from_[k];
            const std::uint64_t* h = &histogram_[std::size_t{k} * row_];
            std::uint64_t hits = top;
            for (std::uint32_t w = 1; w <= ways_; ++w) {
                hits += h[w];
                grid[std::size_t{k} * ways_ + (w - 1)] = accesses_ - hits;
            }
        }
        return grid;
    }

    /// Bytes held (the recency arrays, the histogram, the scratch), by capacity.
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return tags_.capacity() * sizeof(std::uint64_t) +
               (histogram_.capacity() + top_from_.capacity()) * sizeof(std::uint64_t) +
               (level_base_.capacity()) * sizeof(std::size_t) +
               (depth_.capacity() + reference_depth_.capacity()) * sizeof(std::uint32_t);
    }

private:
    // Lines are at most 2^62 (a line is at least 4 bytes): all ones is never a line.
    static constexpr std::uint64_t empty_line = ~std::uint64_t{0};

    static std::uint32_t validated(const params& p) {
        constexpr std::string_view c = "memsub::analysis::all_associativity_lru";
        using memsub::detail::require;
        require(p.line_bytes >= 4 && std::has_single_bit(p.line_bytes), c, "line_bytes",
                p.line_bytes, "must be a power of two >= 4");
        require(p.min_sets >= 1 && std::has_single_bit(p.min_sets), c, "min_sets", p.min_sets,
                "must be a power of two >= 1");
        require(p.max_sets >= p.min_sets && std::has_single_bit(p.max_sets) &&
                    p.max_sets <= (std::uint32_t{1} << 31),
                c, "max_sets", p.max_sets, "must be a power of two in min_sets .. 2^31");
        require(p.max_ways >= 1 && p.max_ways <= 1024, c, "max_ways", p.max_ways,
                "must be in 1 .. 1024");
        return log2_exact(p.line_bytes);
    }
    static std::size_t tag_entries(const params& p) {
        // min_sets + 2 min_sets + ... + max_sets = 2 max_sets - min_sets sets in all.
        return (2 * std::size_t{p.max_sets} - p.min_sets) * p.max_ways;
    }

    /// Accesses `line` at every set count: depth_[k] = its depth in its set at count k (1 = most
    /// recent, ways + 1 = not among the set's `ways` most recent). Returns the first count at
    /// which it was the most recent (depth 1 there and at every later count: depth_ is left
    /// unwritten from there), or counts_.
    std::uint32_t depths(std::uint64_t line) noexcept {
        for (std::uint32_t k = 0; k < counts_; ++k) __builtin_prefetch(set_of(k, line));
        std::uint32_t limit = ways_; // its depth at the previous count bounds the search
        for (std::uint32_t k = 0; k < counts_; ++k) {
            std::uint64_t* set = set_of(k, line);
            std::uint32_t i = 0;
            while (i < limit && set[i] != line) ++i;
            if (i == 0) return k; // the most recent here and at every larger count
            if (i < limit) {
                depth_[k] = i + 1;
                limit = i + 1;
            } else { // not among the most recent `ways`: the last one leaves
                depth_[k] = ways_ + 1;
                i = ways_ - 1;
            }
            std::memmove(set + 1, set, std::size_t{i} * sizeof(std::uint64_t));
            set[0] = line;
        }
        return counts_;
    }
    [[nodiscard]] std::uint64_t* set_of(std::uint32_t k, std::uint64_t line) noexcept {
        const std::uint64_t set = line & ((std::uint64_t{1} << (min_sets_log2_ + k)) - 1);
        return &tags_[level_base_[k] + set * ways_];
    }

    std::uint32_t line_shift_;
    std::uint32_t min_sets_log2_;
    std::uint32_t counts_; // set counts in the grid
    std::uint32_t ways_;
    std::uint32_t row_; // histogram row: depths 0 .. ways + 1
    std::vector<std::size_t> level_base_;
    std::vector<std::uint64_t> tags_;
    // histogram_[k * row_ + d]: references of depth d at count k, for the counts before the
    // one where the reference was at the top; top_from_[k]: references at the top from count k
    // on (k = counts_: nowhere).
    std::vector<std::uint64_t> histogram_;
    std::vector<std::uint64_t> top_from_;
    std::vector<std::uint32_t> depth_, reference_depth_;
    std::uint64_t accesses_ = 0;
};

} // namespace memsub::analysis
