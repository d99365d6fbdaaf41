// memsub — GPU L1 statistics of ID-Cache's characterisation ([Dissertation] §3.1;
// docs/mechanisms/id_cache.md, 'Cache organisation'): an observer a host feeds beside its cache
// (profile/reuse_distance_profile.hpp is its companion for reuse distances).
//
// `l1_statistics` watches one cache's accesses and results (`record(access, result)`; blocks a
// host removes itself, e.g. by a final flush, through `record_departure`) and counts:
//  * hits, split (Fig. 3.9, §3.2.3: "Temporal hits signify the situation where all data that is
//    reused on a particular access have been touched before. Spatial hits … all data that is
//    being touched for the first time. … mixed hits … a part … has been touched before and the
//    rest has not"). Decision: "touched before" = touched by an access since the bytes were
//    brought into the cache (the fill counts as touching the bytes it requested), per byte;
//  * full and partial misses (a partial miss found some requested bytes resident: variable-size
//    blocks), bypassed misses, bytes fetched from the next level (the interconnect traffic):
//    fills as the cache reports them (`access_result::bytes_fetched`, whole blocks); a bypassed
//    read — for which the engine reports the requested bytes only — counted in the 32 B
//    granules it needs (Table 3.1's interconnect moves 32 B flits; a 4-byte bypassed load still
//    moves one), so that bypassing and filling configurations are compared in one unit:
//    the granules the access requests (its masked sectors, else those its range spans), or for
//    a partial miss of a variable-block cache the missing segments
//    (`access_result::missing_segments`; its segments must be the granule size).
//    `params::bypass_reads_in_granules = false` keeps the engine's byte count; a partial miss
//    that bypasses still reads its resident bytes from the L1, which count as touched;
//  * zero-reuse departures (Fig. 3.2: "cache lines that are brought to the cache but never
//    reused" — `evicted_block::reused` is false), over every block that leaves the cache except
//    those superseded by a larger block of the same line (their bytes stay resident);
//  * spatial utilisation at departure in 32 B granules, buckets 0–25 / 25–50 / 50–75 / 75–100 %
//    (Fig. 3.3). A block's utilisation u = granules of the block holding a touched byte /
//    granules of the block; bucket = max(0, ⌈4u⌉ − 1), so 1 of 4 granules is "0–25 %" and all
//    of them "75–100 %". Decision: for variable-size blocks (ALSI, static 32 / 64 B) u is per
//    block, not per 128 B line: the fraction of what was fetched that was used.
//    `evicted_block::touched_segments` cannot give this for a conventional cache (its one
//    segment is the whole line), so the observer keeps its own record of the bytes touched in
//    each resident line (a fixed open-addressing table sized from the cache's blocks).
// Input: one `record` per L1 lookup, i.e. per coalesced line request (what
// gpu::coalescer::for_each_request delivers): it counts one access and classifies it once. An
// access lies within one line; its requested bytes are [address, address + size), or, when its
// `sector_mask` is not 0, the part of that range inside the masked sectors, which must be
// `granule_bytes` long (the coalescer's sector_bytes). A bypassed read's traffic is then its
// masked granules (popcount × granule_bytes, not the span's granules), and the touched bytes of
// the hit split and the utilisation are the span's bytes inside them: the bytes of the untouched
// sectors between two touched ones count as neither requested nor touched. Fed
// for_each_access's sector runs instead, it counts each run as an access, and a run that finds
// the line an earlier run of the same request filled counts as a hit.
// The observer does not allocate after construction.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/evicted_block.hpp>
#include <memsub/core/types.hpp>

namespace memsub::profile {

class l1_statistics {
public:
    struct params {
        /// The cache's line size (at most 128: the touched-byte record has 128 bits per line).
        std::uint32_t line_bytes = 128;
        /// Utilisation granule (Fig. 3.3: 32 B).
        std::uint32_t granule_bytes = 32;
        /// The most blocks the cache can hold (sets × tag entries per set); the line record
        /// has room for twice as many lines.
        std::uint32_t max_resident_blocks = 32 * 16;
        /// Count a bypassed read's traffic in granules (see above), else in requested bytes.
        bool bypass_reads_in_granules = true;
    };
    static constexpr std::size_t utilisation_buckets = 4;

    struct counters {
        std::uint64_t accesses = 0;
        std::uint64_t temporal_hits = 0;
        std::uint64_t spatial_hits = 0;
        std::uint64_t mixed_hits = 0;
        std::uint64_t full_misses = 0;
        std::uint64_t partial_misses = 0;
        /// Misses that inserted nothing (any bypass reason, write-no-allocate included).
        std::uint64_t bypassed_misses = 0;
        std::uint64_t blocks_inserted = 0;
        std::uint64_t bytes_fetched = 0;
        /// Blocks that left the cache (superseded ones excluded), and those never reused.
        std::uint64_t departures = 0;
        std::uint64_t zero_reuse_departures = 0;
        std::array<std::uint64_t, utilisation_buckets> utilisation{};

        [[nodiscard]] std::uint64_t hits() const noexcept {
            return temporal_hits + spatial_hits + mixed_hits;
        }
        [[nodiscard]] std::uint64_t misses() const noexcept { return full_misses + partial_misses; }
        [[nodiscard]] double hit_rate() const noexcept { return ratio(hits(), accesses); }
        [[nodiscard]] double zero_reuse_fraction() const noexcept {
            return ratio(zero_reuse_departures, departures);
        }
        /// Fraction of departures in utilisation bucket `b`.
        [[nodiscard]] double utilisation_fraction(std::size_t b) const noexcept {
            std::uint64_t n = 0;
            for (const auto u : utilisation) n += u;
            return ratio(utilisation[b], n);
        }
        /// Mean utilisation over departures, taking each bucket's upper edge (25, 50, 75,
        /// 100 %): exact for 128 B lines in 32 B granules.
        [[nodiscard]] double mean_utilisation() const noexcept {
            std::uint64_t n = 0, weighted = 0;
            for (std::size_t b = 0; b < utilisation_buckets; ++b) {
                n += utilisation[b];
                weighted += utilisation[b] * (b + 1);
            }
            return ratio(weighted, 4 * n);
        }

    private:
        static double ratio(std::uint64_t a, std::uint64_t b) noexcept {
            return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
        }
    };

    l1_statistics() : l1_statistics(params{}) {}
    explicit l1_statistics(const params& p)
        : line_shift_((validate(p), static_cast<std::uint32_t>(std::countr_zero(p.line_bytes))))
        , granule_bytes_(p.granule_bytes)
        , bypass_in_granules_(p.bypass_reads_in_granules)
        , table_(std::bit_ceil(std::max<std::uint32_t>(4 * p.max_resident_blocks, 16))) {}

    /// One access `a` and what the cache did with it (`cache.access(a)`'s result).
    template <class Result>
    void record(const memsub::access& a, const Result& r) noexcept {
        ++c_.accesses;
        std::uint64_t fetched = r.bytes_fetched;
        if (bypass_in_granules_ && r.blocks_filled == 0 && fetched != 0)
            fetched = std::uint64_t{granule_bytes_} *
                      (r.partial ? static_cast<std::uint32_t>(std::popcount(r.missing_segments))
                                 : spanned_granules(a));
        c_.bytes_fetched += fetched;
        const std::uint64_t line = a.address.value >> line_shift_;
        const std::array<std::uint64_t, 2> touched = byte_mask(a);
        if (r.hit) {
            line_entry& e = find_or_add(line);
            const std::uint64_t before = (e.touched[0] & touched[0]) | (e.touched[1] & touched[1]);
            const bool all_before = (e.touched[0] & touched[0]) == touched[0] &&
                                    (e.touched[1] & touched[1]) == touched[1];
            if (all_before)
                ++c_.temporal_hits;
            else if (before == 0)
                ++c_.spatial_hits;
            else
                ++c_.mixed_hits;
            e.touched[0] |= touched[0];
            e.touched[1] |= touched[1];
            for (const evicted_block& b : r.evictions) record_departure(b); // write-evict
            return;
        }
        ++(r.partial ? c_.partial_misses : c_.full_misses);
        if (r.blocks_filled == 0) ++c_.bypassed_misses;
        // The new blocks count before the departures: a block superseded by them must not
        // take the line's touched bytes with it (the table's entries move on erase, so the
        // entry is looked up again afterwards).
        if (r.blocks_filled != 0) find_or_add(line).blocks += r.blocks_filled;
        for (const evicted_block& b : r.evictions) record_departure(b);
        if (r.blocks_filled != 0) {
            c_.blocks_inserted += r.blocks_filled;
            line_entry& e = find_or_add(line);
            e.touched[0] |= touched[0];
            e.touched[1] |= touched[1];
        } else if (r.partial) {
            // A bypassed partial miss still reads its resident bytes from the L1: they are
            // touched (the missing segments, in granules, are not resident).
            if (line_entry* e = find(line)) {
                std::array<std::uint64_t, 2> missing{};
                for (std::uint64_t m = r.missing_segments; m != 0; m &= m - 1) {
                    const auto g = static_cast<std::uint32_t>(std::countr_zero(m));
                    set_range(missing, g * granule_bytes_, (g + 1) * granule_bytes_);
                }
                e->touched[0] |= touched[0] & ~missing[0];
                e->touched[1] |= touched[1] & ~missing[1];
            }
        }
    }

    /// A block that left the cache (from an access's result, a flush or an invalidation).
    void record_departure(const evicted_block& b) noexcept {
        const std::uint64_t line = b.address.value >> line_shift_;
        line_entry* e = find(line);
        const std::uint32_t offset =
            static_cast<std::uint32_t>(b.address.value & ((std::uint64_t{1} << line_shift_) - 1));
        std::array<std::uint64_t, 2> block{};
        set_range(block, offset, offset + b.bytes);
        if (b.reason != eviction_reason::superseded) {
            ++c_.departures;
            if (!b.reused) ++c_.zero_reuse_departures;
            std::uint32_t used = 0, granules = 0;
            for (std::uint32_t g = offset; g < offset + b.bytes; g += granule_bytes_) {
                ++granules;
                std::array<std::uint64_t, 2> gm{};
                set_range(gm, g, g + granule_bytes_);
                if (e && ((e->touched[0] & gm[0]) | (e->touched[1] & gm[1])) != 0) ++used;
            }
            // bucket = max(0, ceil(4 * used / granules) - 1)
            const std::uint32_t quarters = (4 * used + granules - 1) / granules;
            ++c_.utilisation[quarters == 0 ? 0 : quarters - 1];
            if (e) {
                e->touched[0] &= ~block[0];
                e->touched[1] &= ~block[1];
            }
        }
        if (e && e->blocks <= 1)
            erase(line); // its last resident block (or one the observer never saw filled)
        else if (e)
            --e->blocks;
    }

    [[nodiscard]] const counters& totals() const noexcept { return c_; }
    /// Lines with at least one resident block, as the observer sees them.
    [[nodiscard]] std::uint32_t tracked_lines() const noexcept { return size_; }

private:
    struct line_entry {
        std::uint64_t key = 0; // line + 1; 0 = empty slot
        std::array<std::uint64_t, 2> touched{};
        std::uint32_t blocks = 0;
    };

    static void validate(const params& p) {
        constexpr std::string_view c = "memsub::profile::l1_statistics";
        memsub::require(std::has_single_bit(p.line_bytes) && p.line_bytes <= 128, c, "line_bytes",
                        p.line_bytes, "must be a power of two <= 128");
        memsub::require(std::has_single_bit(p.granule_bytes) && p.granule_bytes <= p.line_bytes, c,
                        "granule_bytes", p.granule_bytes, "must be a power of two <= line_bytes");
        memsub::require(p.max_resident_blocks >= 1 && p.max_resident_blocks <= (1u << 24), c,
                        "max_resident_blocks", p.max_resident_blocks, "must be in 1..2^24");
    }

    /// Sets bits [lo, hi) of a 128-bit mask.
    static void set_range(std::array<std::uint64_t, 2>& m, std::uint32_t lo,
                          std::uint32_t hi) noexcept {
        for (std::uint32_t w = 0; w < 2; ++w) {
            const std::uint32_t a = std::max(lo, 64 * w), b = std::min(hi, 64 * w + 64);
            if (a >= b) continue;
            const std::uint32_t n = b - a;
            const std::uint64_t bits = n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1);
            m[w] |= bits << (a - 64 * w);
        }
    }

    /// The bytes `a` requests: its range in the line, inside its masked granules if it has a
    /// sector mask.
    [[nodiscard]] std::array<std::uint64_t, 2> byte_mask(const memsub::access& a) const noexcept {
        const std::uint32_t line_bytes = 1u << line_shift_;
        const auto offset = static_cast<std::uint32_t>(a.address.value & (line_bytes - 1));
        const std::uint32_t size = a.size == 0 ? line_bytes : a.size;
        std::array<std::uint64_t, 2> m{};
        set_range(m, offset, std::min(offset + size, line_bytes)); // clipped to the line
        if (a.sector_mask != 0) {
            std::array<std::uint64_t, 2> sectors{};
            for (std::uint32_t g = a.sector_mask; g != 0; g &= g - 1) {
                const auto i = static_cast<std::uint32_t>(std::countr_zero(g));
                set_range(sectors, i * granule_bytes_,
                          std::min((i + 1) * granule_bytes_, line_bytes));
            }
            m[0] &= sectors[0];
            m[1] &= sectors[1];
        }
        return m;
    }

    /// Granules of the line `a` requests: its masked ones, else those its range spans.
    [[nodiscard]] std::uint32_t spanned_granules(const memsub::access& a) const noexcept {
        if (a.sector_mask != 0) return static_cast<std::uint32_t>(std::popcount(a.sector_mask));
        const std::uint32_t line_bytes = 1u << line_shift_;
        const auto offset = static_cast<std::uint32_t>(a.address.value & (line_bytes - 1));
        const std::uint32_t end =
            std::min(offset + (a.size == 0 ? line_bytes : a.size), line_bytes);
        return (end - 1) / granule_bytes_ - offset / granule_bytes_ + 1;
    }

    [[nodiscard]] std::size_t slot_of(std::uint64_t line) const noexcept {
        return static_cast<std::size_t>((line * 0x9e3779b97f4a7c15ULL) >> 20) & (table_.size() - 1);
    }
    line_entry* find(std::uint64_t line) noexcept {
        for (std::size_t i = slot_of(line);; i = (i + 1) & (table_.size() - 1)) {
            if (table_[i].key == line + 1) return &table_[i];
            if (table_[i].key == 0) return nullptr;
        }
    }
    line_entry& find_or_add(std::uint64_t line) noexcept {
        std::size_t i = slot_of(line);
        for (; table_[i].key != 0; i = (i + 1) & (table_.size() - 1))
            if (table_[i].key == line + 1) return table_[i];
        // The cache holds at most max_resident_blocks blocks, so the table (4x as many slots)
        // never fills; a host that feeds a bigger cache only loses accuracy, never memory.
        if (2 * (size_ + 1) > table_.size()) evict_any();
        i = slot_of(line);
        while (table_[i].key != 0) i = (i + 1) & (table_.size() - 1);
        table_[i] = line_entry{line + 1, {}, 0};
        ++size_;
        return table_[i];
    }
    void evict_any() noexcept {
        for (const line_entry& e : table_)
            if (e.key != 0) {
                erase(e.key - 1);
                return;
            }
    }
    /// Backward-shift deletion (linear probing keeps no tombstones).
    void erase(std::uint64_t line) noexcept {
        const std::size_t mask = table_.size() - 1;
        std::size_t i = slot_of(line);
        while (table_[i].key != line + 1) {
            if (table_[i].key == 0) return;
            i = (i + 1) & mask;
        }
        --size_;
        for (std::size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
            if (table_[j].key == 0) break;
            const std::size_t home = slot_of(table_[j].key - 1);
            // Move j into the hole at i unless its home lies cyclically in (i, j].
            const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (stays) continue;
            table_[i] = table_[j];
            i = j;
        }
        table_[i] = line_entry{};
    }

    std::uint32_t line_shift_;
    std::uint32_t granule_bytes_;
    bool bypass_in_granules_;
    std::vector<line_entry> table_;
    std::uint32_t size_ = 0;
    counters c_{};
};

} // namespace memsub::profile
