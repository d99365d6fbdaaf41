// memsub — the fully associative LRU miss-ratio curve in one pass: every capacity at once.
//
// Citation: [Mattson70] §"stack processing" (LRU is a stack algorithm: a cache of C lines holds the
// top C lines of one recency stack, so an access hits in every cache larger than or equal to its
// stack distance and misses in every smaller one; the distance histogram gives the whole curve).
//
// Stack distance with an order-statistics structure, O(log M) per access (M = distinct lines
// alive): every line keeps the timestamp of its last access; a Fenwick tree over timestamps has a
// 1 at each line's current stamp, so the distance of an access to a line last stamped t is 1 +
// the number of stamps after t (a prefix sum). The access then moves the line's 1 to a new stamp.
// When the stamps run out the live ones are renumbered 0 .. M-1 in order (a linear pass) and the
// tree is rebuilt in closed form; the stamp space is kept at least twice the live lines, so a
// renumbering costs O(1) amortised per access. No list walk.
//
// Counting: one reference = one access (the explorer's rule, reference_lines.hpp): a reference
// crossing lines records the largest distance of its lines, so misses(C) equals
// cache::fully_associative_cache<fa_lru>'s access_spanning count (and the explorer's fa_lru
// row) for every C up to the bound. Writes allocate like reads (write-allocate), so the kind of a
// reference does not change the curve; `hints.no_allocate` is not modelled (every access
// allocates).
//
// Decision: distances beyond `max_capacity_lines` are counted in one overflow bucket, not kept.
// The histogram costs 8 bytes per capacity up to the bound, whatever the trace, while the stack
// itself is exact for every line (it must be: a line deep in the stack can come back). Asking
// for a capacity above the bound is a configuration error; the alternative, an unbounded
// histogram grown on demand, would let a long scan allocate on the hot path.
//
// Memory: the line index (line_index.hpp), 4 bytes of stamp per line id and, per stamp, 4 bytes
// of tree and 4 of owner over a stamp space of 2-4 times the live lines: about 50-80 bytes per
// distinct line (bytes_per_distinct_line() reports the measured figure), plus the histogram.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <memsub/analysis/detail/checks.hpp>
#include <memsub/analysis/line_index.hpp>
#include <memsub/analysis/reference_lines.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::analysis {

/// The stack distance of a first access (a cold miss: a miss at every capacity).
inline constexpr std::uint64_t cold_distance = never;

/// An LRU recency stack that reports stack distances in O(log M): the engine of
/// stack_distance_lru and of SHARDS (shards.hpp), which also removes lines from it.
class lru_distance_stack {
public:
    explicit lru_distance_stack(std::size_t expected_lines = 0) : index_(expected_lines) {
        rebuild(std::max<std::size_t>(1024, std::bit_ceil(2 * expected_lines + 2)));
    }

    /// Accesses `line`: returns its stack distance (1 = the most recent line) before the
    /// access, or cold_distance for a line not in the stack, and makes it the most recent.
    std::uint64_t touch(std::uint64_t line) {
        const auto [id, fresh] = index_.find_or_insert(line);
        if (id >= stamp_of_.size()) stamp_of_.resize(id + std::size_t{1});
        if (next_stamp_ == owner_.size()) renumber();
        std::uint64_t distance = cold_distance;
        if (!fresh) {
            const std::uint32_t t = stamp_of_[id];
            distance = live_ - prefix_count(t) + 1; // the stamps after t, plus the line itself
            remove_stamp(t);
        }
        add_stamp(next_stamp_);
        owner_[next_stamp_] = id;
        stamp_of_[id] = next_stamp_++;
        ++live_;
        return distance;
    }

    /// Removes `line` from the stack (the lines below it move up one place); false if absent.
    bool erase(std::uint64_t line) {
        const std::uint32_t id = index_.find(line);
        if (id == line_index::absent) return false;
        remove_stamp(stamp_of_[id]);
        index_.erase(line);
        return true;
    }

    [[nodiscard]] bool contains(std::uint64_t line) const noexcept {
        return index_.find(line) != line_index::absent;
    }
    /// Lines in the stack.
    [[nodiscard]] std::size_t size() const noexcept { return live_; }
    /// Bytes held (index, stamps, tree, owners), by capacity.
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return index_.memory_bytes() + stamp_of_.capacity() * sizeof(std::uint32_t) +
               tree_.capacity() * sizeof(std::uint32_t) + owner_.capacity() * sizeof(std::uint32_t);
    }

private:
    static constexpr std::uint32_t no_owner = line_index::absent;

    void remove_stamp(std::uint32_t t) noexcept {
        for (std::size_t i = std::size_t{t} + 1; i < tree_.size(); i += i & (~i + 1)) --tree_[i];
        owner_[t] = no_owner;
        --live_;
    }
    void add_stamp(std::uint32_t t) noexcept {
        for (std::size_t i = std::size_t{t} + 1; i < tree_.size(); i += i & (~i + 1)) ++tree_[i];
    }
    /// Live stamps <= t.
    [[nodiscard]] std::uint64_t prefix_count(std::uint32_t t) const noexcept {
        std::uint64_t sum = 0;
        for (std::size_t i = std::size_t{t} + 1; i > 0; i &= i - 1) sum += tree_[i];
        return sum;
    }

    /// Renumbers the live stamps 0 .. live-1 in their order, in a stamp space of at least twice
    /// the live lines.
    void renumber() {
        std::vector<std::uint32_t> old_owner;
        old_owner.swap(owner_);
        rebuild(std::max<std::size_t>(1024, std::bit_ceil(2 * std::size_t{live_} + 2)));
        std::uint32_t k = 0;
        for (const std::uint32_t id : old_owner) {
            if (id == no_owner) continue;
            owner_[k] = id;
            stamp_of_[id] = k++;
        }
        next_stamp_ = k;
        // Fenwick node i (1-based) covers stamps (i - lowbit(i), i]; stamps 0 .. live-1 hold 1s.
        for (std::size_t i = 1; i < tree_.size(); ++i) {
            const std::size_t low = i - (i & (~i + 1));
            tree_[i] = static_cast<std::uint32_t>(std::min<std::size_t>(i, live_) -
                                                  std::min<std::size_t>(low, live_));
        }
    }
    void rebuild(std::size_t stamps) {
        owner_.assign(stamps, no_owner);
        tree_.assign(stamps + 1, 0);
        next_stamp_ = 0;
    }

    line_index index_;
    std::vector<std::uint32_t> stamp_of_; // per line id: its last access's stamp
    std::vector<std::uint32_t> owner_;    // per stamp: the line id stamped there, or no_owner
    std::vector<std::uint32_t> tree_;     // Fenwick tree over stamps (1-based)
    std::uint32_t next_stamp_ = 0;
    std::uint32_t live_ = 0;
};

/// Fully associative LRU misses for every capacity 0 .. max_capacity_lines in one pass.
class stack_distance_lru {
public:
    struct params {
        /// Line size in bytes (a power of two >= 4), as the explorer's --line-bytes.
        std::uint32_t line_bytes = 64;
        /// The largest capacity (in lines) the curve is asked about; >= 1.
        std::uint64_t max_capacity_lines = std::uint64_t{1} << 20;
        /// Distinct lines expected (a reservation only).
        std::size_t expected_lines = 0;
    };

    explicit stack_distance_lru(const params& p)
        : line_shift_(validated_line_shift(p.line_bytes))
        , bound_(validated_bound(p.max_capacity_lines))
        , stack_(p.expected_lines)
        , histogram_(bound_ + 2, 0) {}

    /// One reference of one line (line address = byte address / line_bytes). Returns its stack
    /// distance (1 = the most recently used line) or cold_distance.
    std::uint64_t access_line(line_address line) {
        const std::uint64_t d = stack_.touch(line.value);
        record(d);
        return d;
    }

    /// One reference (the explorer's rule for line-crossing references, reference_lines.hpp).
    /// Returns the distance it is counted at: the largest of its lines'.
    std::uint64_t access(const memsub::access& a) {
        std::uint64_t d = 0;
        lines_of_reference(a, line_shift_,
                           [&](std::uint64_t line) { d = std::max(d, stack_.touch(line)); });
        record(d);
        return d;
    }

    void access_all(std::span<const memsub::access> references) {
        for (const auto& a : references) (void)access(a);
    }

    /// References seen.
    [[nodiscard]] std::uint64_t accesses() const noexcept { return accesses_; }
    /// References that touched a line never seen before (misses at every capacity).
    [[nodiscard]] std::uint64_t cold_misses() const noexcept { return cold_; }
    [[nodiscard]] std::uint64_t max_capacity_lines() const noexcept { return bound_; }
    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return 1u << line_shift_; }

    /// Misses of a fully associative LRU cache of `capacity_lines` lines (0 .. the bound).
    [[nodiscard]] std::uint64_t misses(std::uint64_t capacity_lines) const {
        memsub::require(capacity_lines <= bound_, "memsub::analysis::stack_distance_lru",
                        "capacity_lines", capacity_lines, "must be <= max_capacity_lines");
        std::uint64_t m = cold_;
        for (std::uint64_t d = capacity_lines + 1; d <= bound_ + 1; ++d) m += histogram_[d];
        return m;
    }

    /// misses(c) for every c = 0 .. max_capacity_lines (index c), in O(bound).
    [[nodiscard]] std::vector<std::uint64_t> miss_curve() const {
        std::vector<std::uint64_t> curve(bound_ + 1);
        std::uint64_t m = cold_ + histogram_[bound_ + 1];
        for (std::uint64_t c = bound_ + 1; c-- > 0;) {
            curve[c] = m;
            m += histogram_[c];
        }
        return curve;
    }

    /// References per stack distance: index d = 1 .. bound, index bound + 1 = deeper (reuses
    /// beyond the bound); index 0 is unused (cold misses are cold_misses()).
    [[nodiscard]] std::span<const std::uint64_t> distance_histogram() const noexcept {
        return histogram_;
    }

    /// Distinct lines seen.
    [[nodiscard]] std::size_t distinct_lines() const noexcept { return stack_.size(); }
    /// Bytes held: the stack's structures and the histogram.
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return stack_.memory_bytes() + histogram_.capacity() * sizeof(std::uint64_t);
    }
    /// The stack's bytes per distinct line (the histogram, fixed by the bound, left out).
    [[nodiscard]] double bytes_per_distinct_line() const noexcept {
        return stack_.size() == 0 ? 0.0
                                  : static_cast<double>(stack_.memory_bytes()) /
                                        static_cast<double>(stack_.size());
    }

private:
    static std::uint32_t validated_line_shift(std::uint32_t bytes) {
        return detail::checked_line_shift("memsub::analysis::stack_distance_lru", bytes);
    }
    static std::uint64_t validated_bound(std::uint64_t lines) {
        memsub::require(lines >= 1 && lines < (std::uint64_t{1} << 32),
                        "memsub::analysis::stack_distance_lru", "max_capacity_lines", lines,
                        "must be in 1 .. 2^32 - 1");
        return lines;
    }
    void record(std::uint64_t d) noexcept {
        ++accesses_;
        if (d == cold_distance)
            ++cold_;
        else
            ++histogram_[std::min(d, bound_ + 1)];
    }

    std::uint32_t line_shift_;
    std::uint64_t bound_;
    lru_distance_stack stack_;
    std::vector<std::uint64_t> histogram_;
    std::uint64_t accesses_ = 0, cold_ = 0;
};

} // namespace memsub::analysis
