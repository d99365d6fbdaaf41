// memsub — first-touch page placement (MCM-GPU, [MCM-GPU] §5.3 / Figure 11; C5.6
// (docs/mechanisms/multi_module_gpu.md)).
//
// Rule: on the first reference to a page, the page is mapped to the local memory partition of
// the module that issued it (`requester`); later references use that mapping whatever their
// order or requester, across kernel boundaries (no migration). Inside the partition addresses
// still interleave at a fine granule across the partition's channels (C5.1 within the
// partition, "to prevent camping on memory channels").
// Capacity (G5.6, docs/mechanisms/multi_module_gpu.md, not in the paper): each partition holds
// `partition_bytes`; a page whose requester's partition is full goes to the nearest partition with
// a free frame, by hop count (bidirectional ring, min(|i−j|, P−|i−j|), C5.8; or the host's `hops`
// matrix), ties to the lowest id; `stats().fallbacks` counts them. Pages are packed into frames of
// their partition in first-touch order: local address = frame · page + offset.
//
// Page table (PP4: no allocation per access): a flat open-addressing table (linear probing,
// Fibonacci hashing of groups of four consecutive pages, 16-byte entries: page + 1, partition,
// frame; a group shares one 64-byte line), sized at construction for the
// declared footprint (`footprint_bytes`, at most the total capacity) at load ≤ 1/2, so it never
// grows or rehashes. A run that touches more distinct pages than it declared gets
// `capacity_error` from `place` (the only throw, on the insert path, never on a lookup).
// `reset()` forgets every page (a new application). Only the accesses a host passes to `place`
// are touches: pages the CPU initialised (memcpy) stay unplaced until a kernel touches them
// (G5.7, docs/mechanisms/multi_module_gpu.md), so a host does not call `place` for its copies.
// Models `placement_policy` (not invertible: the inverse would need a frame → page table).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/placement/detail/partition_shape.hpp>

namespace memsub::placement {

/// More distinct pages were touched than `first_touch::params::footprint_bytes` declared.
class capacity_error : public std::runtime_error {
public:
    capacity_error(std::string_view component, std::uint64_t address, std::uint64_t pages)
        : std::runtime_error(std::string(component) + ": placing the page of address " +
                             std::to_string(address) + " would exceed the declared footprint (" +
                             std::to_string(pages) +
                             " pages): raise params::footprint_bytes or partition_bytes") {}
};

struct first_touch_stats {
    /// Distinct pages placed.
    std::uint64_t pages = 0;
    /// Pages placed away from the requester's partition because it was full (G5.6,
    /// docs/mechanisms/multi_module_gpu.md).
    std::uint64_t fallbacks = 0;
    /// First touches by a requester ≥ partitions (taken modulo partitions; PP1).
    std::uint64_t requester_out_of_range = 0;
};

class first_touch {
public:
    static constexpr std::string_view component = "memsub::placement::first_touch";

    struct params {
        std::uint32_t partitions = 4;
        std::uint32_t channels_per_partition = 1;
        /// Placement unit (G5.1, docs/mechanisms/multi_module_gpu.md: 4 KiB default; 64 KiB, 2 MiB
        /// tested).
        std::uint32_t page_bytes = 4096;
        /// Channel-interleave unit inside a partition (G5.2, docs/mechanisms/multi_module_gpu.md).
        std::uint32_t granule_bytes = 128;
        /// Capacity of each partition (a multiple of page_bytes).
        std::uint64_t partition_bytes = std::uint64_t{1} << 30;
        /// Distinct bytes (in pages) the run may touch: sizes the page table. 0 = the total
        /// capacity, partitions × partition_bytes.
        std::uint64_t footprint_bytes = std::uint64_t{256} << 20;
        /// Optional partitions × partitions hop counts (row = requester) for the capacity
        /// fallback; empty = a bidirectional ring (C5.8).
        std::vector<std::uint32_t> hops{};
    };

    first_touch() : first_touch(params{}) {}
    explicit first_touch(const params& p)
        : p_(p)
        , shape_(component, p.partitions, p.channels_per_partition, p.page_bytes, p.granule_bytes) {
        require(p.partition_bytes >= p.page_bytes && p.partition_bytes % p.page_bytes == 0,
                component, "partition_bytes", p.partition_bytes,
                "must be a positive multiple of page_bytes");
        frames_per_partition_ = p.partition_bytes >> shape_.page_shift();
        require(frames_per_partition_ <= 0xffffffffu, component, "partition_bytes",
                p.partition_bytes, "at most 2^32 pages per partition");
        const std::uint64_t total_pages = frames_per_partition_ * p.partitions;
        const std::uint64_t footprint =
            p.footprint_bytes == 0 ? total_pages << shape_.page_shift() : p.footprint_bytes;
        require(footprint >= p.page_bytes, component, "footprint_bytes", footprint,
                "must hold at least one page");
        footprint_pages_ = (footprint + p.page_bytes - 1) >> shape_.page_shift();
        require(footprint_pages_ <= total_pages, component, "footprint_bytes", footprint,
                "must not exceed partitions × partition_bytes (" +
                    std::to_string(total_pages << shape_.page_shift()) + ")");
        require(footprint_pages_ <= (std::uint64_t{1} << 31), component, "footprint_bytes",
                footprint, "at most 2^31 pages (the table is reserved at construction)");
        if (!p.hops.empty())
            require(p.hops.size() == std::size_t{p.partitions} * p.partitions, component,
                    "hops (entries)", p.hops.size(), "must be empty or partitions × partitions");
        // Fallback order per requester: nearest first, ties to the lowest id (G5.6,
        // docs/mechanisms/multi_module_gpu.md).
        order_.resize(std::size_t{p.partitions} * p.partitions);
        for (std::uint32_t r = 0; r < p.partitions; ++r) {
            auto* row = order_.data() + std::size_t{r} * p.partitions;
            std::iota(row, row + p.partitions, 0u);
            std::stable_sort(row, row + p.partitions, [&](std::uint32_t a, std::uint32_t b) {
                return distance(r, a) < distance(r, b);
            });
            // The requester's own partition comes first (distance 0 unless `hops` says
            // otherwise; a first-touch policy places locally whenever it can).
            std::rotate(row, std::find(row, row + p.partitions, r),
                        std::find(row, row + p.partitions, r) + 1);
        }
        const std::uint64_t slots = std::bit_ceil(std::max<std::uint64_t>(8, 2 * footprint_pages_));
        table_.assign(slots / 4, line{});
        mask_ = slots - 1;
        hash_shift_ = 64 - static_cast<std::uint32_t>(std::countr_zero(slots)) + 2;
        used_.assign(p.partitions, 0);
    }

    /// PL2: the page's location; the first call for a page places it (C5.6). A host may call
    /// it for the side effect alone (pre-placing a page), so the result may be discarded.
    location place(byte_address a, std::uint32_t requester) {
        const std::uint64_t page = a.value >> shape_.page_shift();
        const std::uint64_t offset = a.value & (p_.page_bytes - 1);
        std::uint64_t i = slot_of(page);
        for (;; i = (i + 1) & mask_) {
            const entry& e = slot(i);
            if (MEMSUB_LIKELY(e.key == page + 1))
                return shape_.in_frame(e.partition, e.frame, offset);
            if (e.key == 0) break;
        }
        const std::uint32_t partition = insert(i, page, requester, a.value);
        return shape_.in_frame(partition, slot(i).frame, offset);
    }

    /// PL3: the location `place` gave, or nullopt for a page never placed.
    [[nodiscard]] std::optional<location> locate(byte_address a) const noexcept {
        const std::uint64_t page = a.value >> shape_.page_shift();
        for (std::uint64_t i = slot_of(page);; i = (i + 1) & mask_) {
            const entry& e = slot(i);
            if (e.key == page + 1)
                return shape_.in_frame(e.partition, e.frame, a.value & (p_.page_bytes - 1));
            if (e.key == 0) return std::nullopt;
        }
    }

    /// Forgets every placement (PP2: a new application; kernel boundaries keep them).
    void reset() noexcept {
        std::fill(table_.begin(), table_.end(), line{});
        std::fill(used_.begin(), used_.end(), 0);
        stats_ = {};
    }

    [[nodiscard]] const first_touch_stats& stats() const noexcept { return stats_; }
    /// Frames (pages) in use in `partition`.
    [[nodiscard]] std::uint64_t pages_in(std::uint32_t partition) const noexcept {
        return partition < used_.size() ? used_[partition] : 0;
    }
    [[nodiscard]] std::uint64_t footprint_pages() const noexcept { return footprint_pages_; }
    /// Slots of the page table (reserved at construction).
    [[nodiscard]] std::uint64_t table_slots() const noexcept { return 4 * table_.size(); }
    /// Hop count the fallback uses between two partitions.
    [[nodiscard]] std::uint32_t distance(std::uint32_t from, std::uint32_t to) const noexcept {
        if (!p_.hops.empty()) return p_.hops[std::size_t{from} * p_.partitions + to];
        const std::uint32_t d = from > to ? from - to : to - from;
        return std::min(d, p_.partitions - d);
    }

    [[nodiscard]] std::uint32_t partitions() const noexcept { return shape_.partitions(); }
    [[nodiscard]] std::uint32_t channels_per_partition() const noexcept {
        return shape_.channels();
    }
    [[nodiscard]] std::uint32_t page_bytes() const noexcept { return shape_.page_bytes(); }
    [[nodiscard]] std::uint32_t granule_bytes() const noexcept { return shape_.granule_bytes(); }
    [[nodiscard]] std::uint64_t partition_bytes() const noexcept { return p_.partition_bytes; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "first_touch"; }

private:
    struct entry {
        std::uint64_t key = 0; ///< page + 1; 0 = empty
        std::uint32_t partition = 0;
        std::uint32_t frame = 0;
    };
    /// One cache line of the table: the entries of a group of four pages.
    struct alignas(64) line {
        entry e[4]{};
    };
    [[nodiscard]] entry& slot(std::uint64_t i) noexcept { return table_[i >> 2].e[i & 3]; }
    [[nodiscard]] const entry& slot(std::uint64_t i) const noexcept {
        return table_[i >> 2].e[i & 3];
    }

    /// Groups of four consecutive pages share a 64-byte line of the table (the group number
    /// is Fibonacci-hashed, the low two page bits pick the entry): a stream that walks pages in
    /// order touches a new table line every fourth page.
    [[nodiscard]] std::uint64_t slot_of(std::uint64_t page) const noexcept {
        return (((page >> 2) * 0x9e3779b97f4a7c15ULL) >> hash_shift_) << 2 | (page & 3);
    }

    /// Places `page` (first touch by `requester`) in empty slot `i`; returns its partition.
    std::uint32_t insert(std::uint64_t i, std::uint64_t page, std::uint32_t requester,
                         std::uint64_t address) {
        if (MEMSUB_UNLIKELY(stats_.pages == footprint_pages_))
            throw capacity_error(component, address, footprint_pages_);
        if (MEMSUB_UNLIKELY(requester >= p_.partitions)) {
            ++stats_.requester_out_of_range;
            requester %= p_.partitions;
        }
        const std::uint32_t* row = order_.data() + std::size_t{requester} * p_.partitions;
        for (std::uint32_t k = 0; k < p_.partitions; ++k) {
            const std::uint32_t part = row[k];
            if (used_[part] < frames_per_partition_) {
                slot(i) = entry{.key = page + 1,
                                .partition = part,
                                .frame = static_cast<std::uint32_t>(used_[part]++)};
                ++stats_.pages;
                if (k != 0) ++stats_.fallbacks;
                return part;
            }
        }
        // Unreachable: footprint_pages ≤ total frames, and fewer pages than that are placed.
        MEMSUB_ASSERT(false);
        throw capacity_error(component, address, footprint_pages_);
    }

    params p_;
    detail::partition_shape shape_;
    std::uint64_t frames_per_partition_ = 0;
    std::uint64_t footprint_pages_ = 0;
    std::vector<std::uint32_t> order_;
    std::vector<line> table_;
    std::uint64_t mask_ = 0;
    std::uint32_t hash_shift_ = 63;
    std::vector<std::uint64_t> used_;
    first_touch_stats stats_{};
};

static_assert(placement_policy<first_touch>);
static_assert(!invertible_placement<first_touch>);

} // namespace memsub::placement
