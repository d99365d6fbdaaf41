// memsub — what a cache access returns, and the counters a cache keeps.
//
// Nothing here is stored twice: whether a miss filled or bypassed follows from `blocks_filled`
// and `bypass`, and the totals of the stats follow from the per-kind counters.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <memsub/config.hpp>

#include <memsub/core/access.hpp>
#include <memsub/core/evicted_block.hpp>
#include <memsub/core/types.hpp>

namespace memsub::cache {

/// Who declined to allocate on a miss, in the order the decision is taken (bypass/concept.hpp,
/// Q1); `none` on a hit and on a miss that allocated.
enum class bypass_reason : std::uint8_t {
    none,              ///< not bypassed
    host_no_allocate,  ///< the host's `hints.no_allocate`
    write_no_allocate, ///< a store miss of a write-through or write-evict cache
    predictor,         ///< the cache's bypass predictor
    policy,            ///< the replacement policy's O3 (`should_bypass`)
};
inline constexpr std::size_t bypass_reason_count = 5;

[[nodiscard]] constexpr std::string_view to_string(bypass_reason r) noexcept {
    switch (r) {
    case bypass_reason::none:
        return "none";
    case bypass_reason::host_no_allocate:
        return "host_no_allocate";
    case bypass_reason::write_no_allocate:
        return "write_no_allocate";
    case bypass_reason::predictor:
        return "predictor";
    case bypass_reason::policy:
        return "policy";
    }
    return "?";
}

/// The blocks one access evicted: a list of at most `Capacity` blocks stored in place (no
/// allocation), read like a container (size, empty, [], begin/end, front/back).
///
/// Why not Boost's static_vector (used here before): its push_back keeps an out-of-line
/// overflow path, and once a program instantiated enough caches GCC stopped inlining it into
/// the engine, which then had to store the whole access_result to memory on every access:
/// bench_replacement's LRU lost 13 % of its speed to a benchmark row added elsewhere. Here an
/// append is a store and an increment; the engine never appends more than the cache's
/// `max_evictions()` (asserted).
template <std::size_t Capacity>
class eviction_list {
    static_assert(Capacity >= 1);
    static_assert(std::is_trivially_copyable_v<evicted_block> &&
                  std::is_trivially_destructible_v<evicted_block>);

public:
    using value_type = evicted_block;
    using size_type = std::size_t;
    using reference = evicted_block&;
    using const_reference = const evicted_block&;
    using iterator = evicted_block*;
    using const_iterator = const evicted_block*;

    eviction_list() noexcept {}

    [[nodiscard]] size_type size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] static constexpr size_type capacity() noexcept { return Capacity; }
    [[nodiscard]] static constexpr size_type max_size() noexcept { return Capacity; }

    [[nodiscard]] evicted_block& operator[](size_type i) noexcept {
        MEMSUB_ASSERT(i < size_);
        return storage_.items[i];
    }
    [[nodiscard]] const evicted_block& operator[](size_type i) const noexcept {
        MEMSUB_ASSERT(i < size_);
        return storage_.items[i];
    }
    [[nodiscard]] evicted_block& front() noexcept { return (*this)[0]; }
    [[nodiscard]] const evicted_block& front() const noexcept { return (*this)[0]; }
    [[nodiscard]] evicted_block& back() noexcept { return (*this)[size_ - 1]; }
    [[nodiscard]] const evicted_block& back() const noexcept { return (*this)[size_ - 1]; }
    [[nodiscard]] evicted_block* data() noexcept { return storage_.items; }
    [[nodiscard]] const evicted_block* data() const noexcept { return storage_.items; }
    [[nodiscard]] iterator begin() noexcept { return storage_.items; }
    [[nodiscard]] iterator end() noexcept { return storage_.items + size_; }
    [[nodiscard]] const_iterator begin() const noexcept { return storage_.items; }
    [[nodiscard]] const_iterator end() const noexcept { return storage_.items + size_; }
    [[nodiscard]] const_iterator cbegin() const noexcept { return begin(); }
    [[nodiscard]] const_iterator cend() const noexcept { return end(); }

    /// Appends a block; the list must not be full (the engine's bound, asserted).
    void push_back(const evicted_block& b) noexcept {
        MEMSUB_ASSERT(size_ < Capacity);
        storage_.items[size_++] = b;
    }
    /// Appends a slot for the caller to write every field of, in place; the list must not be
    /// full. The engine records its evictions this way: a block built on the stack and then
    /// copied in is read back with 16-byte loads that wait for its narrower field stores to
    /// retire (a failed store-to-load forwarding; in a host that does not inline the engine,
    /// the baseline GPU L1, which evicts on most accesses, took 25-27 ns per access with the
    /// copy and 12-14 ns without).
    [[nodiscard]] evicted_block& emplace_back() noexcept {
        MEMSUB_ASSERT(size_ < Capacity);
        return storage_.items[size_++];
    }
    void clear() noexcept { size_ = 0; }

    friend bool operator==(const eviction_list& a, const eviction_list& b) noexcept {
        if (a.size_ != b.size_) return false;
        for (size_type i = 0; i < a.size_; ++i)
            if (!(a[i] == b[i])) return false;
        return true;
    }

private:
    // Unwritten slots stay uninitialised (an access result is built on every access and
    // usually evicts nothing); only the first `size_` are ever read.
    union storage {
        storage() noexcept {}
        evicted_block items[Capacity];
    } storage_;
    std::uint32_t size_ = 0;
};

/// The outcome of one access. `MaxEvictions` is fixed by the cache's options (1 for a
/// conventional cache), so the result lives on the stack with no allocation.
template <std::size_t MaxEvictions>
struct access_result {
    /// The access found its bytes resident.
    bool hit = false;
    /// A miss that found part of the request resident (variable-size blocks only).
    bool partial = false;
    /// Who declined to allocate (a miss that inserted nothing), or `none`.
    bypass_reason bypass = bypass_reason::none;
    /// A block this access hit (on a hit, or a resident block a partial miss touched) is no
    /// longer resident when the access returns: a write-evict store removed it (reason
    /// `write_evict`), or a store hit that grew a compressed block had the policy name it as a
    /// victim (P8: the growing block itself, or another block the store touched; reason
    /// `replacement`, dirty in a write-back cache). Its record is in `evictions` (same `set`
    /// and, for the block at `entry`, the same entry). `hit` still says the access found its
    /// bytes resident; `entry` and `payload` still name the block that served it, but that
    /// entry is then invalid (or, after a later fill, holds another block): read it only from
    /// the eviction record. A block superseded by a fill does not count (its data merged).
    bool hit_block_left = false;
    /// Blocks this access inserted (a variable-block miss may insert several).
    std::uint32_t blocks_filled = 0;
    set_index set{};
    /// The entry hit or filled that holds the first requested byte: on a hit, the block that
    /// served it (meaningless when bypassed; see `hit_block_left`).
    entry_index entry{};
    /// The payload of the block at `entry` (`block_spec::payload`, e.g. the compression mode a
    /// hit must be decompressed with); 0 in a conventional cache and when bypassed.
    std::uint32_t payload = 0;
    /// A store hit with a spec (variable-block caches: write-back and write-through) touched a
    /// block whose span differs from the spec's: that block was not changed (it keeps its stored
    /// size and payload; counted in `cache_stats::resizes_refused`). Its data is the store's but
    /// its payload still describes the old encoding: a compressed cache that cannot read it so
    /// invalidates the line (`basic_cache::invalidate_line`).
    /// Decision: refuse rather than re-shape the block into the spec's span. Re-shaping a block
    /// into smaller ones would drop its other segments (a dirty one would need a write-back
    /// that no store hit makes) and would insert blocks, which the protocol allows only after a
    /// miss (P5); a host that wants the new shape invalidates the line and accesses it again.
    bool resize_refused = false;
    /// Requested segments of the line that were not resident (bit i = segment i of the line;
    /// 1 for any miss of a conventional cache, 0 for a hit).
    std::uint64_t missing_segments = 0;
    /// Bytes read from the next level for this access (fill or bypassed read).
    std::uint32_t bytes_fetched = 0;
    /// Bytes this access writes to the next level itself (write-through, write-evict,
    /// write-no-allocate); dirty evictions are reported in `evictions`.
    std::uint32_t bytes_written_down = 0;
    /// Every block that left the cache because of this access, in eviction order.
    eviction_list<MaxEvictions> evictions;

    /// A miss that allocated at least one block.
    [[nodiscard]] bool filled() const noexcept { return blocks_filled != 0; }
    /// A miss that did not allocate (host no-allocate, write-no-allocate, a bypass predictor,
    /// or the replacement policy's bypass).
    [[nodiscard]] bool bypassed() const noexcept { return bypass != bypass_reason::none; }

    /// Bytes of dirty evicted blocks (the writeback traffic this access causes).
    [[nodiscard]] std::uint32_t writeback_bytes() const noexcept {
        std::uint32_t total = 0;
        for (const auto& e : evictions) total += e.dirty ? e.bytes : 0u;
        return total;
    }
};

/// Counters of one kind of access.
struct kind_counters {
    std::uint64_t accesses = 0;
    std::uint64_t misses = 0;
};

/// Running totals a cache keeps. All counts are events, all byte totals are next-level traffic.
struct cache_stats {
    // Field order: the counters one miss updates together (fills, evictions, writebacks,
    // bytes_fetched, bytes_written_back) are never adjacent, so GCC's SLP vectorizer does not
    // merge their updates into 16-byte vector adds, which cost more than they save (building
    // the vector from scalars takes GPR -> XMM moves; measured on the LRU/SRRIP miss path).
    std::uint64_t fills = 0;
    /// Misses that found part of the request resident (variable-size blocks).
    std::uint64_t partial_misses = 0;
    /// Blocks removed to make room (replacement victims).
    std::uint64_t evictions = 0;
    /// Misses that did not allocate, by who declined (index = `bypass_reason`; [0] stays 0).
    std::array<std::uint64_t, bypass_reason_count> bypasses_by_reason{};
    /// Evicted or invalidated blocks that were dirty (writebacks to the next level).
    std::uint64_t writebacks = 0;
    /// Blocks removed for any other reason (write-evict, invalidate, superseded, retired): the
    /// total of `invalidations_by_reason`, kept as a field because hosts read it as one.
    std::uint64_t invalidations = 0;
    /// Store hits that changed a block's stored size (compressed blocks).
    std::uint64_t resizes = 0;
    std::uint64_t bytes_fetched = 0;
    std::uint64_t bytes_written_down = 0;
    std::uint64_t bytes_written_back = 0;
    /// Per access kind (index = `static_cast<size_t>(access_kind)`); the totals below sum them.
    std::array<kind_counters, access_kind_count> by_kind{};
    /// `invalidations` by reason (index = `eviction_reason`; [replacement] stays 0: replacement
    /// victims are `evictions`). A compressed cache's retired code-book lines are [retired].
    std::array<std::uint64_t, eviction_reason_count> invalidations_by_reason{};
    /// Store hits' touched blocks left unchanged because their span differs from the spec's
    /// (`access_result::resize_refused`).
    std::uint64_t resizes_refused = 0;
    /// Block specs the cache corrected before using them: a span that is not a power of two
    /// up to the line's segments became the whole line, and stored segments beyond the span
    /// became the span (the block is stored raw). See basic_cache, "Block specs".
    std::uint64_t specs_clamped = 0;

    [[nodiscard]] constexpr std::uint64_t accesses() const noexcept {
        std::uint64_t n = 0;
        for (const auto& k : by_kind) n += k.accesses;
        return n;
    }
    [[nodiscard]] constexpr std::uint64_t misses() const noexcept {
        std::uint64_t n = 0;
        for (const auto& k : by_kind) n += k.misses;
        return n;
    }
    [[nodiscard]] constexpr std::uint64_t hits() const noexcept { return accesses() - misses(); }
    [[nodiscard]] constexpr std::uint64_t bypasses() const noexcept {
        std::uint64_t n = 0;
        for (const auto b : bypasses_by_reason) n += b;
        return n;
    }
    [[nodiscard]] constexpr std::uint64_t bypasses(bypass_reason r) const noexcept {
        return bypasses_by_reason[static_cast<std::size_t>(r)];
    }
    /// Blocks removed for `reason` (`replacement`: the replacement victims, `evictions`).
    [[nodiscard]] constexpr std::uint64_t removed(eviction_reason reason) const noexcept {
        return reason == eviction_reason::replacement
                   ? evictions
                   : invalidations_by_reason[static_cast<std::size_t>(reason)];
    }
    [[nodiscard]] double miss_ratio() const noexcept {
        const std::uint64_t n = accesses();
        return n == 0 ? 0.0 : static_cast<double>(misses()) / static_cast<double>(n);
    }
    [[nodiscard]] double hit_ratio() const noexcept {
        const std::uint64_t n = accesses();
        return n == 0 ? 0.0 : static_cast<double>(hits()) / static_cast<double>(n);
    }
    [[nodiscard]] const kind_counters& of(access_kind k) const noexcept {
        return by_kind[static_cast<std::size_t>(k)];
    }
};

} // namespace memsub::cache
