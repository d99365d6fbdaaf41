// memsub — set-associative LRU misses for every (sets, ways) of a grid in one pass.
//
// Citation: [HillSmith89] §"all-associativity simulation" (with bit-selection indexing —
// set = line address mod sets — and LRU, the lines of one set of a cache with 2^(k+1) sets are a
// subset of the lines of one set with 2^k sets, so an access's LRU distance within its set never
// grows as the set count doubles; one pass gives every set count and associativity) on
// [Mattson70] §"stack processing" (LRU is a stack algorithm within each set: a W-way set holds the
// W most recent lines of its stack, so an access hits in every associativity >= its distance in the
// set).
//
// What it computes: for every set count 2^a .. 2^b (min_sets .. max_sets) and every way count
// 1 .. W (max_ways), the misses of memsub's set-associative LRU cache of that geometry
// (cache::set_associative_cache<replacement::lru>, the explorer's "lru" row) — exactly, for the
// same line size, reference by reference: a line-crossing reference counts as one access that
// misses if any of its lines misses (reference_lines.hpp). Writes allocate like reads and the
// write policy does not change the misses of a write-allocate cache; `hints.no_allocate` is not
// modelled (every access allocates).
//
// How: every distinct line gets a dense id (line_index.hpp, one hash look-up per access), and per
// line the smallest set count at which it is resident in a max_ways-way set ("lowest resident
// count"; by the inclusion above it is resident at every larger count and at no smaller one).
// Per set count, per set, a ring of max_ways ids in recency order with its head. An access to a
// line misses at every count below its lowest resident count: there the ring turns by one (the
// new id overwrites the least recent, whose lowest resident count moves above this count), O(1)
// and no search. From that count on it hits: its depth is found by a scan of the ring bounded by
// its depth at the previous count, and the ids above it shift down one; once it is at the top
// (depth 1) it is at the top at every larger count and the pass stops. access_all() prefetches
// the sets of a reference a few references ahead, so the large counts' rings come from memory
// in parallel. No allocation per access except when a new distinct line grows the index.
//
// Decision: per-count rings of ids rather than Hill and Smith's single stack shared by all set
// counts. Their tree-structured stack saves memory, but a walk for a line deep in the stack is
// unbounded; the rings bound a miss at O(1) and a hit at O(depth) per count, keep a set's ids in
// two aligned host cache lines (32 ways) with the heads apart (small enough to stay cached), and
// the lowest-resident-count array replaces every miss's search. Memory: per set per set count 2
// bytes of head and 4 x max_ways bytes of ids, padded to 64-byte lines (32 ways, 2^0 .. 2^16
// sets: 16.3 MiB), the line index and 5 bytes per distinct line, and the histogram (counts x (W +
// 2) x 8 bytes).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include <memsub/analysis/detail/checks.hpp>
#include <memsub/analysis/line_index.hpp>
#include <memsub/analysis/reference_lines.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/aligned_allocator.hpp>
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
        , stride_((p.max_ways + 15) / 16 * 16)
        , row_(p.max_ways + 2)
        , level_base_(counts_)
        , heads_(2 * std::size_t{p.max_sets} - p.min_sets, 0)
        , rings_((2 * std::size_t{p.max_sets} - p.min_sets) * stride_, no_line)
        , histogram_(std::size_t{counts_} * row_, 0)
        , top_from_(counts_ + 1, 0)
        , depth_(counts_, 0)
        , reference_depth_(counts_, 0) {
        std::size_t base = 0;
        first_prefetched_ = counts_;
        for (std::uint32_t k = 0; k < counts_; ++k) {
            level_base_[k] = base;
            const std::size_t sets = std::size_t{p.min_sets} << k;
            base += sets;
            // Counts whose rings outgrow a core's private caches are prefetched ahead.
            if (sets * stride_ * sizeof(std::uint32_t) > (std::size_t{256} << 10) &&
                first_prefetched_ == counts_)
                first_prefetched_ = k;
        }
    }

    /// One reference of one line (line address = byte address / line_bytes).
    void access_line(line_address line) {
        const auto [lowest, stop] = depths(line.value);
        std::uint64_t* h = histogram_.data() + std::size_t{lowest} * row_;
        for (std::uint32_t k = lowest; k < stop; ++k, h += row_) ++h[depth_[k]];
        ++top_from_[stop];
        ++accesses_;
    }

    /// One reference (the explorer's rule for line-crossing references, reference_lines.hpp).
    void access(const memsub::access& a) {
        if (within_one_line(a, line_shift_)) [[likely]] {
            access_line(line_address{a.address.value >> line_shift_});
            return;
        }
        // Several lines: per set count, the reference's depth is the largest of its lines'.
        std::fill(reference_depth_.begin(), reference_depth_.end(), 1u);
        lines_of_reference(a, line_shift_, [&](std::uint64_t line) {
            const auto [lowest, stop] = depths(line);
            for (std::uint32_t k = 0; k < lowest; ++k) reference_depth_[k] = ways_ + 1;
            for (std::uint32_t k = lowest; k < stop; ++k)
                reference_depth_[k] = std::max(reference_depth_[k], depth_[k]);
        });
        std::uint64_t* h = histogram_.data();
        for (std::uint32_t k = 0; k < counts_; ++k, h += row_) ++h[reference_depth_[k]];
        ++top_from_[counts_];
        ++accesses_;
    }

    /// Every reference of `references`, prefetching a few references ahead.
    void access_all(std::span<const memsub::access> references) {
        constexpr std::size_t ahead = 12;
        for (std::size_t i = 0; i < references.size(); ++i) {
            if (i + ahead < references.size())
                prefetch(references[i + ahead].address.value >> line_shift_);
            access(references[i]);
        }
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
        memsub::require(std::has_single_bit(sets) && sets >= min_sets() && sets <= max_sets(), c,
                        "sets", sets, "must be a power of two in min_sets .. max_sets");
        memsub::require(ways >= 1 && ways <= ways_, c, "ways", ways, "must be in 1 .. max_ways");
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

    /// Distinct lines seen.
    [[nodiscard]] std::size_t distinct_lines() const noexcept { return index_.size(); }
    /// Bytes held (rings, line index, per-line counts, histogram, scratch), by capacity.
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return rings_.capacity() * sizeof(std::uint32_t) +
               heads_.capacity() * sizeof(std::uint16_t) + index_.memory_bytes() +
               lowest_.capacity() +
               (histogram_.capacity() + top_from_.capacity()) * sizeof(std::uint64_t) +
               level_base_.capacity() * sizeof(std::size_t) +
               (depth_.capacity() + reference_depth_.capacity()) * sizeof(std::uint32_t);
    }

private:
    static constexpr std::uint32_t no_line = line_index::absent;

    static std::uint32_t validated(const params& p) {
        constexpr std::string_view c = "memsub::analysis::all_associativity_lru";
        const std::uint32_t shift = detail::checked_line_shift(c, p.line_bytes);
        detail::check_grid(c, p.min_sets, p.max_sets, p.max_ways);
        return shift;
    }

    /// The index of `line`'s set at count k among all counts' sets.
    [[nodiscard]] std::size_t set_of(std::uint32_t k, std::uint64_t line) const noexcept {
        return level_base_[k] + (line & ((std::uint64_t{1} << (min_sets_log2_ + k)) - 1));
    }

    void prefetch(std::uint64_t line) const noexcept {
        index_.prefetch(line);
        for (std::uint32_t k = first_prefetched_; k < counts_; ++k) {
            const std::size_t set = set_of(k, line);
            __builtin_prefetch(&heads_[set]);
            const std::uint32_t* ids = &rings_[set * stride_];
            for (std::uint32_t i = 0; i < ways_; i += 16) __builtin_prefetch(ids + i);
        }
    }

    /// Accesses `line` at every set count. Returns {lowest, stop}: it missed at counts below
    /// `lowest`, had depth_[k] (2 .. ways) at counts lowest .. stop-1, and was the most recent
    /// line of its set (depth 1) from `stop` on (stop = counts_: nowhere).
    std::pair<std::uint32_t, std::uint32_t> depths(std::uint64_t line) {
        const auto [id, fresh] = index_.find_or_insert(line);
        if (fresh && id >= lowest_.size()) lowest_.resize(id + std::size_t{1});
        if (fresh) lowest_[id] = static_cast<std::uint8_t>(counts_);
        const std::uint32_t lowest = lowest_[id];
        lowest_[id] = 0; // after this access it is the most recent line everywhere
        for (std::uint32_t k = 0; k < lowest; ++k) { // misses: the ring turns by one
            const std::size_t set = set_of(k, line);
            std::uint32_t* ids = &rings_[set * stride_];
            const std::uint32_t head = heads_[set] == 0 ? ways_ - 1 : heads_[set] - 1u;
            heads_[set] = static_cast<std::uint16_t>(head);
            const std::uint32_t evicted = ids[head];
            if (evicted != no_line) lowest_[evicted] = static_cast<std::uint8_t>(k + 1);
            ids[head] = id;
        }
        std::uint32_t limit = ways_; // its depth at the previous count bounds the search
        for (std::uint32_t k = lowest; k < counts_; ++k) {
            const std::size_t set = set_of(k, line);
            std::uint32_t* ids = &rings_[set * stride_];
            const std::uint32_t head = heads_[set];
            // Its depth: the ring read from the head to the end, then from the start.
            const std::uint32_t first_run = std::min(limit, ways_ - head);
            std::uint32_t i = 0;
            while (i < first_run && ids[head + i] != id) ++i;
            if (i == first_run)
                while (i < limit && ids[i - first_run] != id) ++i;
            MEMSUB_ASSERT(i < limit); // resident from `lowest` on (the inclusion)
            if (i == 0) return {lowest, k};
            depth_[k] = i + 1;
            limit = i + 1;
            // The ids above it (slots head .. its slot, cyclically) move down one.
            const std::uint32_t pos = i < ways_ - head ? head + i : head + i - ways_;
            if (pos > head) {
                std::memmove(ids + head + 1, ids + head, std::size_t{pos - head} * 4);
            } else {
                std::memmove(ids + 1, ids, std::size_t{pos} * 4);
                ids[0] = ids[ways_ - 1];
                std::memmove(ids + head + 1, ids + head, std::size_t{ways_ - 1 - head} * 4);
            }
            ids[head] = id;
        }
        return {lowest, counts_};
    }

    std::uint32_t line_shift_;
    std::uint32_t min_sets_log2_;
    std::uint32_t counts_; // set counts in the grid
    std::uint32_t ways_;
    std::uint32_t stride_; // a ring's ids, padded to whole 64-byte lines
    std::uint32_t row_;    // histogram row: depths 0 .. ways + 1
    std::uint32_t first_prefetched_;
    std::vector<std::size_t> level_base_;
    std::vector<std::uint16_t> heads_; // per set of every count: the ring's most recent slot
    std::vector<std::uint32_t, aligned_allocator<std::uint32_t, 64>> rings_; // ways ids per set
    line_index index_;
    std::vector<std::uint8_t> lowest_; // per line id: its lowest resident count (counts_: none)
    // histogram_[k * row_ + d]: references of depth d >= 2 at count k (hits from their lowest
    // resident count until they were at the top); top_from_[k]: references at the top from
    // count k on (k = counts_: nowhere). Misses are the rest.
    std::vector<std::uint64_t> histogram_;
    std::vector<std::uint64_t> top_from_;
    std::vector<std::uint32_t> depth_, reference_depth_;
    std::uint64_t accesses_ = 0;
};

} // namespace memsub::analysis
