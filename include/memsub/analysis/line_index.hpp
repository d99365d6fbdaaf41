// memsub — a hash index from line addresses to small dense ids, for the one-pass miss-ratio-curve
// algorithms (stack_distance_lru.hpp, opt_curve.hpp, shards.hpp).
//
// Each distinct line gets an id (0, 1, 2, … reusing the ids of erased lines), so the algorithms
// keep their per-line state in plain arrays indexed by id. Open addressing with linear probing at
// a load factor <= 1/2 and backward-shift deletion (no tombstones), as the fully associative
// cache's index (cache/fully_associative.hpp). The table doubles when it fills: growth is
// amortised and happens only when a new distinct line arrives, never on a repeat access.
// Memory: 8 bytes of line per id plus 8-byte buckets of a table of at least twice the ids, so
// 24-40 bytes per distinct line (memory_bytes() reports it exactly).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace memsub::analysis {

class line_index {
public:
    static constexpr std::uint32_t absent = std::numeric_limits<std::uint32_t>::max();

    /// `expected_lines`: distinct lines expected (a reservation; the table grows past it).
    explicit line_index(std::size_t expected_lines = 0)
        : table_(std::bit_ceil(std::max<std::size_t>(16, 2 * expected_lines)))
        , mask_(table_.size() - 1) {
        lines_.reserve(expected_lines);
    }

    /// The id of `line`, or `absent`.
    [[nodiscard]] std::uint32_t find(std::uint64_t line) const noexcept {
        const std::uint32_t tag = tag_of(line);
        for (std::size_t i = tag & mask_;; i = (i + 1) & mask_) {
            const bucket b = table_[i];
            if (b.id == absent) return absent;
            if (b.tag == tag && lines_[b.id] == line) return b.id;
        }
    }

    /// Starts loading the bucket where a search for `line` begins (a hint: no effect on state).
    void prefetch(std::uint64_t line) const noexcept {
        __builtin_prefetch(&table_[tag_of(line) & mask_]);
    }

    /// The id of the first bucket on `line`'s probe path whose tag matches, without reading the
    /// stored line (so it may name another line, or `absent`): a hint for prefetching the
    /// line's per-id state, cheap once its bucket is cached.
    [[nodiscard]] std::uint32_t hinted_id(std::uint64_t line) const noexcept {
        const std::uint32_t tag = tag_of(line);
        for (std::size_t i = tag & mask_;; i = (i + 1) & mask_) {
            const bucket b = table_[i];
            if (b.id == absent || b.tag == tag) return b.id;
        }
    }
    /// Starts loading the stored line of `id` (a hint).
    void prefetch_line_of(std::uint32_t id) const noexcept {
        if (id < lines_.size()) __builtin_prefetch(&lines_[id]);
    }

    /// The id of `line`, adding it with a fresh id when absent; `.second` = it was added.
    std::pair<std::uint32_t, bool> find_or_insert(std::uint64_t line) {
        const std::uint32_t tag = tag_of(line);
        std::size_t i = tag & mask_;
        for (;; i = (i + 1) & mask_) {
            const bucket b = table_[i];
            if (b.id == absent) break;
            if (b.tag == tag && lines_[b.id] == line) return {b.id, false};
        }
        std::uint32_t id;
        if (!free_ids_.empty()) {
            id = free_ids_.back();
            free_ids_.pop_back();
            lines_[id] = line;
        } else {
            id = static_cast<std::uint32_t>(lines_.size());
            lines_.push_back(line);
        }
        table_[i] = {tag, id};
        if (++size_ * 2 > table_.size()) grow();
        return {id, true};
    }

    /// Removes `line` (which must be present); its id is reused by a later insertion.
    void erase(std::uint64_t line) {
        const std::uint32_t tag = tag_of(line);
        std::size_t hole = tag & mask_;
        while (!(table_[hole].tag == tag && lines_[table_[hole].id] == line))
            hole = (hole + 1) & mask_;
        free_ids_.push_back(table_[hole].id);
        for (std::size_t j = (hole + 1) & mask_; table_[j].id != absent; j = (j + 1) & mask_) {
            const std::size_t want = table_[j].tag & mask_;
            // Move j into the hole unless its home lies cyclically in (hole, j].
            const bool stays = hole <= j ? (hole < want && want <= j) : (hole < want || want <= j);
            if (!stays) {
                table_[hole] = table_[j];
                hole = j;
            }
        }
        table_[hole] = bucket{};
        --size_;
    }

    [[nodiscard]] std::uint64_t line_of(std::uint32_t id) const noexcept { return lines_[id]; }
    /// Lines present.
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    /// One more than the largest id ever handed out (the size per-id arrays need).
    [[nodiscard]] std::uint32_t id_bound() const noexcept {
        return static_cast<std::uint32_t>(lines_.size());
    }
    /// Bytes the index holds (table, lines, free ids), by capacity.
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return table_.capacity() * sizeof(bucket) + lines_.capacity() * sizeof(std::uint64_t) +
               free_ids_.capacity() * sizeof(std::uint32_t);
    }

private:
    // A bucket holds the id and the upper half of the line's 64-bit hash: a probe compares the
    // tag and reads the line only on a tag match; a bucket's home is its tag's low bits.
    struct bucket {
        std::uint32_t tag = 0;
        std::uint32_t id = absent;
    };
    [[nodiscard]] static std::uint32_t tag_of(std::uint64_t line) noexcept {
        return static_cast<std::uint32_t>((line * 0x9e3779b97f4a7c15ULL) >> 32);
    }
    void grow() {
        std::vector<bucket> old(table_.size() * 2);
        old.swap(table_);
        mask_ = table_.size() - 1;
        for (const bucket b : old) {
            if (b.id == absent) continue;
            std::size_t i = b.tag & mask_;
            while (table_[i].id != absent) i = (i + 1) & mask_;
            table_[i] = b;
        }
    }

    std::vector<bucket> table_;
    std::size_t mask_;
    std::vector<std::uint64_t> lines_;
    std::vector<std::uint32_t> free_ids_;
    std::size_t size_ = 0;
};

} // namespace memsub::analysis
