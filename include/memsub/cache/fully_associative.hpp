// memsub — a fully associative cache of any capacity: one set, a hash index over its lines.
//
// The set engine (basic_cache.hpp) holds at most 64 entries per set, so it cannot be the fully
// associative cache that textbooks, Dinero IV and libCacheSim use as the reference for
// conflict misses (Hill and Smith, "Evaluating Associativity in CPU Caches", IEEE TC 1989,
// the 3C model; three_c.hpp). This one holds `capacity_lines` lines of `line_bytes` bytes in
// one set: a hash index (open addressing, linear probing, backward-shift deletion) finds a
// line in O(1) expected time, and the replacement order over the resident lines is a policy of
// this file's own small family, an `fa_order`:
//   FA1. `O(std::uint32_t capacity)` — order for up to `capacity` slots (0 .. capacity − 1).
//   FA2. `o.on_hit(slot, access)`, FA3. `o.on_insert(slot, access)` (the slot was free),
//   FA4. `o.on_evict(slot)` (the slot leaves), FA5. `o.victim()` -> slot (only when every slot
//       is occupied; the engine then calls FA4 on it), all noexcept; FA6. `o.name()`.
//   Protocol: a hit calls FA2; a miss into a full cache calls FA5 then FA4 then FA3 on the same
//   slot; a miss with a free slot calls FA3 on the lowest free slot. Nothing else.
// Orders shipped: `fa_lru` (true LRU, Mattson et al. 1970), `fa_fifo` (insertion order) and
// `fa_opt` (Belady's MIN on `access::hints.next_use`, replacement/next_use.hpp: the resident
// line used farthest in the future leaves; lines never used again first).
// Writes: write-back, write-allocate (a store or a writeback from above marks the line dirty;
// a dirty line leaves with a writeback). Results use the set engine's counters (cache_stats).
// Memory: fixed at construction, no allocation per access: per line 17 bytes of slot state
// and 8-byte buckets of a table of the next power of two ≥ 4 × capacity (32-64 bytes). Storage is
// not modelled in bits (a reference model).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/cache/access_result.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::cache {

/// The replacement order of a fully associative cache (requirements FA1–FA6 above).
template <class O>
concept fa_order = std::constructible_from<O, std::uint32_t> &&
    requires(O& o, const O& co, std::uint32_t slot, const access& a) {
    { o.on_hit(slot, a) }
    noexcept;
    { o.on_insert(slot, a) }
    noexcept;
    { o.on_evict(slot) }
    noexcept;
    { o.victim() }
    noexcept->std::same_as<std::uint32_t>;
    { co.name() } -> std::convertible_to<std::string_view>;
};

namespace detail {

/// A doubly linked list over slots, most recent at the head (fa_lru, fa_fifo). A slot's two
/// links sit side by side, so an update touches one cache line per slot.
class slot_list {
public:
    explicit slot_list(std::uint32_t capacity) : links_(capacity) {}
    void push_front(std::uint32_t s) noexcept {
        links_[s] = {none, head_};
        if (head_ != none)
            links_[head_].prev = s;
        else
            tail_ = s;
        head_ = s;
    }
    void unlink(std::uint32_t s) noexcept {
        const link l = links_[s];
        if (l.prev != none)
            links_[l.prev].next = l.next;
        else
            head_ = l.next;
        if (l.next != none)
            links_[l.next].prev = l.prev;
        else
            tail_ = l.prev;
    }
    void move_to_front(std::uint32_t s) noexcept {
        if (head_ == s) return; // the most recent line again: nothing moves
        unlink(s);
        push_front(s);
    }
    [[nodiscard]] std::uint32_t back() const noexcept { return tail_; }

private:
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    struct link {
        std::uint32_t prev = none, next = none;
    };
    std::vector<link> links_;
    std::uint32_t head_ = none, tail_ = none;
};

} // namespace detail

/// True LRU: a hit moves the line to the head; the tail leaves.
class fa_lru {
public:
    explicit fa_lru(std::uint32_t capacity) : list_(capacity) {}
    [[nodiscard]] std::string_view name() const noexcept { return "lru"; }
    void on_hit(std::uint32_t s, const access&) noexcept { list_.move_to_front(s); }
    void on_insert(std::uint32_t s, const access&) noexcept { list_.push_front(s); }
    void on_evict(std::uint32_t s) noexcept { list_.unlink(s); }
    [[nodiscard]] std::uint32_t victim() noexcept { return list_.back(); }

private:
    detail::slot_list list_;
};

/// FIFO: hits change nothing; the oldest insertion leaves.
class fa_fifo {
public:
    explicit fa_fifo(std::uint32_t capacity) : list_(capacity) {}
    [[nodiscard]] std::string_view name() const noexcept { return "fifo"; }
    void on_hit(std::uint32_t, const access&) noexcept {}
    void on_insert(std::uint32_t s, const access&) noexcept { list_.push_front(s); }
    void on_evict(std::uint32_t s) noexcept { list_.unlink(s); }
    [[nodiscard]] std::uint32_t victim() noexcept { return list_.back(); }

private:
    detail::slot_list list_;
};

/// Belady's MIN: the resident line whose next use (`hints.next_use`) is farthest leaves; a line
/// never used again (`never`) before any other. Ties go to the slot the heap holds on top. An
/// indexed binary max-heap over the occupied slots: O(log capacity) per access.
class fa_opt {
public:
    explicit fa_opt(std::uint32_t capacity) : key_(capacity, 0), where_(capacity, 0) {
        heap_.reserve(capacity);
    }
    [[nodiscard]] std::string_view name() const noexcept { return "opt"; }
    void on_hit(std::uint32_t s, const access& a) noexcept {
        const std::uint64_t old = key_[s];
        key_[s] = a.hints.next_use;
        if (key_[s] > old)
            sift_up(where_[s]);
        else
            sift_down(where_[s]);
    }
    void on_insert(std::uint32_t s, const access& a) noexcept {
        key_[s] = a.hints.next_use;
        where_[s] = static_cast<std::uint32_t>(heap_.size());
        heap_.push_back(s); // capacity reserved: no allocation
        sift_up(where_[s]);
    }
    void on_evict(std::uint32_t s) noexcept {
        const std::uint32_t i = where_[s];
        const std::uint32_t last = heap_.back();
        heap_.pop_back();
        if (last == s) return;
        heap_[i] = last;
        where_[last] = i;
        sift_up(i);
        sift_down(where_[last]);
    }
    [[nodiscard]] std::uint32_t victim() noexcept { return heap_.front(); }

private:
    void place(std::uint32_t i, std::uint32_t s) noexcept {
        heap_[i] = s;
        where_[s] = i;
    }
    void sift_up(std::uint32_t i) noexcept {
        const std::uint32_t s = heap_[i];
        while (i > 0) {
            const std::uint32_t parent = (i - 1) / 2;
            if (key_[heap_[parent]] >= key_[s]) break;
            place(i, heap_[parent]);
            i = parent;
        }
        place(i, s);
    }
    void sift_down(std::uint32_t i) noexcept {
        const auto n = static_cast<std::uint32_t>(heap_.size());
        const std::uint32_t s = heap_[i];
        for (;;) {
            std::uint32_t child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && key_[heap_[child + 1]] > key_[heap_[child]]) ++child;
            if (key_[heap_[child]] <= key_[s]) break;
            place(i, heap_[child]);
            i = child;
        }
        place(i, s);
    }

    std::vector<std::uint64_t> key_;   // next use of the line in each slot
    std::vector<std::uint32_t> where_; // heap position of each occupied slot
    std::vector<std::uint32_t> heap_;  // occupied slots, farthest next use on top
};

static_assert(fa_order<fa_lru> && fa_order<fa_fifo> && fa_order<fa_opt>);

/// What one access of a fully associative cache did.
struct fa_result {
    bool hit = false;
    /// A line left to make room (a miss into a full cache).
    bool evicted = false;
    line_address evicted_line{};
    /// The line that left was dirty: it is written back (line_bytes bytes).
    bool writeback = false;
};

template <fa_order Order>
class fully_associative_cache {
public:
    /// `capacity_lines` lines (≥ 1, < 2^30) of `line_bytes` (a power of two ≥ 4) bytes.
    fully_associative_cache(std::uint64_t capacity_lines, std::uint32_t line_bytes)
        : capacity_(validated_capacity(capacity_lines))
        , line_shift_(validated_line_shift(line_bytes))
        , order_(capacity_)
        , lines_(capacity_, 0)
        , dirty_(capacity_, 0)
        , table_(std::bit_ceil(std::uint64_t{capacity_} * 4))
        , table_mask_(table_.size() - 1) {}

    [[nodiscard]] std::string_view name() const noexcept { return order_.name(); }
    [[nodiscard]] std::uint32_t capacity_lines() const noexcept { return capacity_; }
    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return 1u << line_shift_; }
    [[nodiscard]] std::uint32_t resident_lines() const noexcept { return used_; }
    [[nodiscard]] const cache_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] const Order& order() const noexcept { return order_; }

    /// Is the line of `address` resident (no state changes)?
    [[nodiscard]] bool contains(byte_address address) const noexcept {
        return find(address.value >> line_shift_) != empty;
    }

    MEMSUB_ALWAYS_INLINE fa_result access(const memsub::access& a) noexcept {
        const std::uint64_t line = a.address.value >> line_shift_;
        // A read-modify-write is a read that leaves the line dirty (as in the set engine).
        const bool write = is_write(a.kind) || a.read_modify_write;
        auto& kind = stats_.by_kind[static_cast<std::size_t>(a.kind)];
        ++kind.accesses;
        fa_result r;
        const std::uint32_t found = find(line);
        if (found != empty) {
            r.hit = true;
            dirty_[found] |= static_cast<std::uint8_t>(write);
            order_.on_hit(found, a);
            return r;
        }
        ++kind.misses;
        std::uint32_t slot = used_;
        if (used_ < capacity_) {
            ++used_;
        } else {
            slot = order_.victim();
            MEMSUB_ASSERT(slot < capacity_);
            r.evicted = true;
            r.evicted_line = line_address{lines_[slot]};
            r.writeback = dirty_[slot] != 0;
            ++stats_.evictions;
            stats_.writebacks += r.writeback;
            stats_.bytes_written_back += r.writeback ? line_bytes() : 0u;
            order_.on_evict(slot);
            erase(lines_[slot], slot);
        }
        lines_[slot] = line;
        dirty_[slot] = static_cast<std::uint8_t>(write);
        insert(line, slot);
        order_.on_insert(slot, a);
        ++stats_.fills;
        // A writeback from above overwrites the whole line: nothing is fetched.
        stats_.bytes_fetched += a.kind == access_kind::writeback ? 0u : line_bytes();
        return r;
    }

    /// A reference whose bytes [address, address + size) may cross line boundaries, counted
    /// by the rule of basic_cache::access_spanning (valgrind's cachegrind): every line it
    /// touches is accessed in address order, changing the cache's state as `access` does and
    /// reported to `sink(const fa_result&)`, but the reference counts as one access of its kind
    /// with at most one miss. Returns whether any line missed. One rule for every organisation,
    /// so a one-set cache of the set engine and this cache of the same capacity agree.
    template <class Sink>
    bool access_spanning(const memsub::access& a,
                         Sink&& sink) noexcept(noexcept(sink(std::declval<const fa_result&>()))) {
        const std::uint64_t line = std::uint64_t{1} << line_shift_;
        if (a.size == 0 || (a.address.value & (line - 1)) + a.size <= line) [[likely]] {
            const fa_result r = access(a);
            sink(r);
            return !r.hit;
        }
        auto& kind = stats_.by_kind[static_cast<std::size_t>(a.kind)];
        bool missed = false;
        for_each_line_piece(a, line_shift_, [&](const memsub::access& piece, bool first) {
            const fa_result r = access(piece);
            if (!first) { // the same reference: one access, and one miss at most
                --kind.accesses;
                if (!r.hit && missed) --kind.misses;
            }
            missed |= !r.hit;
            sink(r);
        });
        return missed;
    }

    /// Every reference of `batch` through access_spanning; `sink(const access&, const
    /// fa_result&)` receives each line's result with the reference it belongs to.
    template <class Sink>
    void access_all_spanning(std::span<const memsub::access> batch, Sink&& sink) noexcept(
        noexcept(sink(batch[0], std::declval<const fa_result&>()))) {
        for (const memsub::access& a : batch)
            (void)access_spanning(a, [&](const fa_result& r) { sink(a, r); });
    }

private:
    static constexpr std::uint32_t empty = std::numeric_limits<std::uint32_t>::max();

    static std::uint32_t validated_capacity(std::uint64_t lines) {
        memsub::require(lines >= 1 && lines < (std::uint64_t{1} << 30),
                        "memsub::cache::fully_associative_cache", "capacity_lines", lines,
                        "must be in 1 .. 2^30 - 1");
        return static_cast<std::uint32_t>(lines);
    }
    static std::uint32_t validated_line_shift(std::uint32_t bytes) {
        memsub::require(bytes >= 4 && std::has_single_bit(bytes),
                        "memsub::cache::fully_associative_cache", "line_bytes", bytes,
                        "must be a power of two >= 4");
        return static_cast<std::uint32_t>(std::countr_zero(bytes));
    }

    // The hash index: open addressing with linear probing at a load factor ≤ 1/4. A bucket
    // holds the slot and the upper half of the line's 64-bit hash: the probe compares that tag
    // and reads the line only on a tag match, and a bucket's home is its tag's low bits (the
    // table has at most 2^32 buckets), so deletion never reads a line.
    struct bucket {
        std::uint32_t tag = 0;
        std::uint32_t slot = empty;
    };
    [[nodiscard]] static std::uint32_t tag_of(std::uint64_t line) noexcept {
        return static_cast<std::uint32_t>((line * 0x9e3779b97f4a7c15ULL) >> 32);
    }
    [[nodiscard]] std::size_t home(std::uint32_t tag) const noexcept { return tag & table_mask_; }
    /// The slot holding `line`, or `empty`.
    [[nodiscard]] std::uint32_t find(std::uint64_t line) const noexcept {
        const std::uint32_t tag = tag_of(line);
        for (std::size_t i = home(tag);; i = (i + 1) & table_mask_) {
            const bucket b = table_[i];
            if (b.slot == empty) return empty;
            if (b.tag == tag && lines_[b.slot] == line) return b.slot;
        }
    }
    void insert(std::uint64_t line, std::uint32_t slot) noexcept {
        const std::uint32_t tag = tag_of(line);
        std::size_t i = home(tag);
        while (table_[i].slot != empty) i = (i + 1) & table_mask_;
        table_[i] = {tag, slot};
    }
    /// Removes the bucket of `slot` (holding `line`) and shifts later members of its probe run
    /// back (Knuth 6.4, Algorithm R), so no tombstones accumulate.
    void erase(std::uint64_t line, std::uint32_t slot) noexcept {
        std::size_t hole = home(tag_of(line));
        while (table_[hole].slot != slot) hole = (hole + 1) & table_mask_;
        for (std::size_t j = (hole + 1) & table_mask_; table_[j].slot != empty;
             j = (j + 1) & table_mask_) {
            const std::size_t want = home(table_[j].tag);
            // Move j into the hole unless its home lies cyclically in (hole, j].
            const bool stays = hole <= j ? (hole < want && want <= j) : (hole < want || want <= j);
            if (!stays) {
                table_[hole] = table_[j];
                hole = j;
            }
        }
        table_[hole] = bucket{};
    }

    std::uint32_t capacity_;
    std::uint32_t line_shift_;
    Order order_;
    std::vector<std::uint64_t> lines_; // the line in each slot
    std::vector<std::uint8_t> dirty_;  // per slot
    std::vector<bucket> table_;        // the hash index
    std::size_t table_mask_;
    std::uint32_t used_ = 0; // slots 0 .. used_-1 are occupied
    cache_stats stats_;
};

} // namespace memsub::cache
