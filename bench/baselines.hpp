// Hand-written LRU loops the benchmarks measure memsub against (bench/replacement.cpp,
// bench/miss_path.cpp, bench/explorer_path.cpp and the host programs in bench/host/): what a
// competent author writes without a library, and the older stamp-based reference, kept and
// labelled as what it is; the floors (memsub's design, and two other layouts, written by hand
// without the engine); and the two helpers those benchmarks share (a stream word as an access,
// the thread's CPU clock).
#pragma once

#include <memsub/cache/detail/set_layout.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/aligned_allocator.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/huge_page_allocator.hpp>
#include <memsub/replacement/rrpv_state.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <ctime>
#include <vector>

// Independent instructions added to every hit of the design floors, for an experiment: built
// with -DMEMSUB_BENCH_FLOOR_PADDING=N, each floor hit also runs N register moves, which shows what
// N more instructions per hit cost a loop of memsub's design on each shape
// (docs/performance/miss_path.md, "What the gap to the floors is made of"). 0, the default,
// adds nothing.
#ifndef MEMSUB_BENCH_FLOOR_PADDING
#define MEMSUB_BENCH_FLOOR_PADDING 0
#endif
#define MEMSUB_BENCH_TEXT_OF(x) #x
#define MEMSUB_BENCH_TEXT(x) MEMSUB_BENCH_TEXT_OF(x)

namespace memsub_bench {

/// MEMSUB_BENCH_FLOOR_PADDING register moves the compiler keeps (an assembly block it may not
/// drop), each independent of the loop's work; nothing by default.
[[gnu::always_inline]] inline void floor_padding() noexcept {
#if MEMSUB_BENCH_FLOOR_PADDING > 0
#if defined(__x86_64__)
    std::uint64_t scratch = 0;
    asm volatile(".rept " MEMSUB_BENCH_TEXT(MEMSUB_BENCH_FLOOR_PADDING) "\n\tmov $1, %0\n\t.endr"
                 : "+r"(scratch));
#else
#error "MEMSUB_BENCH_FLOOR_PADDING is written for x86-64"
#endif
#endif
}

/// A stream word (a byte address with bit 0 set for a store; lines are at least 4 bytes, so the
/// bit is free) as the access a host would make.
inline memsub::access to_access(std::uint64_t word) noexcept {
    memsub::access a;
    a.address = memsub::byte_address{word & ~std::uint64_t{1}};
    a.kind = (word & 1u) ? memsub::access_kind::store : memsub::access_kind::load;
    return a;
}

/// CPU seconds of this thread (the clock Google Benchmark's CPU time uses).
[[nodiscard]] inline double thread_cpu_seconds() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// A way no line occupies: line addresses are byte addresses >> 6, so never all ones.
constexpr std::uint64_t no_line = ~std::uint64_t{0};

/// The baseline: a plain move-to-front LRU loop with a runtime shape — per set a contiguous
/// array of `ways` line addresses, a linear scan, the lines above the hit shifted down one and the
/// line written at the front (the definition the engine's speed target is stated against). Its
/// array starts on a cache line, as memsub's tags do (a competent author aligns it; unaligned, a
/// 16-way set's 128 bytes may span three lines, and its speed would depend on where malloc put the
/// array).
class plain_mtf_lru {
public:
    explicit plain_mtf_lru(const memsub::geometry& g)
        : set_mask_(g.sets - 1u)
        , ways_(g.ways)
        , line_shift_(static_cast<std::uint32_t>(std::countr_zero(g.line_bytes)))
        , tags_(std::size_t{g.sets} * g.ways, no_line) {}

    bool access(std::uint64_t address) noexcept {
        const std::uint64_t line = address >> line_shift_;
        std::uint64_t* set = &tags_[(line & set_mask_) * ways_];
        std::uint64_t carried = set[0];
        if (carried == line) return true; // the most recent line: nothing moves
        set[0] = line;
        for (std::uint32_t w = 1; w < ways_; ++w) { // shift down until the line's old way
            const std::uint64_t here = set[w];
            set[w] = carried;
            if (here == line) return true;
            carried = here;
        }
        return false; // `carried` (the least recent line) fell off the end
    }

private:
    std::uint64_t set_mask_;
    std::uint32_t ways_;
    std::uint32_t line_shift_;
    std::vector<std::uint64_t, memsub::aligned_allocator<std::uint64_t>> tags_;
};

/// The same loop with a compile-time shape (the fair partner of memsub's fixed_geometry caches).
template <std::uint32_t Sets, std::uint32_t Ways, std::uint32_t LineBytes>
class plain_mtf_lru_fixed {
public:
    plain_mtf_lru_fixed() : sets_(Sets) {
        for (auto& s : sets_) s.fill(no_line);
    }

    bool access(std::uint64_t address) noexcept {
        const std::uint64_t line = address >> std::countr_zero(LineBytes);
        std::uint64_t* set = sets_[line & (Sets - 1)].data();
        std::uint64_t carried = set[0];
        if (carried == line) return true;
        set[0] = line;
        for (std::uint32_t w = 1; w < Ways; ++w) {
            const std::uint64_t here = set[w];
            set[w] = carried;
            if (here == line) return true;
            carried = here;
        }
        return false;
    }

private:
    std::vector<std::array<std::uint64_t, Ways>,
                memsub::aligned_allocator<std::array<std::uint64_t, Ways>>>
        sets_; // cache-line aligned, as plain_mtf_lru
};

/// A floor, not a baseline: memsub's own design of a policy written by hand for one compile-time
/// shape, without the engine. Per set a header holds the entries' one-byte tag fingerprints, the
/// policy's row of one byte per entry (`Row`), the occupied and dirty bits; an array beside it
/// holds the full tags. A lookup compares the fingerprints at once (memsub::byte_equal_mask) and
/// verifies the (nearly always single) candidate's tag; a hit updates the entry's byte; a miss
/// fills the lowest free entry, else the row's victim. No statistics, no eviction report, no
/// reused bits, no policy interface: memsub's fixed-geometry cache ÷ this is what the engine
/// costs over the least its design can cost, and this loop ÷ the plain loop is how far that
/// design can go on a workload (bench_replacement's ceiling row, bench_miss_path's
/// `design_floor` and `design_floor_srrip`).
///
/// `Row` supplies `init(row)`, `hit(row, e)`, `victim(row)` (a full set's) and `fill(row, e)`
/// on a row of `padded_row_bytes(Ways)` bytes.
template <std::uint32_t Sets, std::uint32_t Ways, std::uint32_t LineBytes, class Row>
class fingerprint_floor {
public:
    static constexpr std::uint32_t ways = Ways;
    /// Row bytes: the fingerprint and policy rows are read 16 bytes at a time.
    static constexpr std::uint32_t padded = memsub::padded_row_bytes(Ways);
    static constexpr std::uint64_t all_ways = Ways == 64 ? ~0ULL : (1ULL << Ways) - 1;

    fingerprint_floor() : headers_(Sets), tags_(Sets) {
        for (set_header& h : headers_) Row::init(h.row.data());
    }

    /// `word` is a stream word: a byte address with bit 0 set for a store.
    bool access(std::uint64_t word) noexcept {
        const std::uint64_t line = word >> std::countr_zero(LineBytes);
        const auto store_bit = word & 1u;
        set_header& h = headers_[line & (Sets - 1)];
        std::array<std::uint64_t, Ways>& tags = tags_[line & (Sets - 1)];
        // The engine's tag prefetch (memsub::cache::detail::prefetched_tag_lines).
        for (std::uint32_t k = 0; k < prefetched_tag_lines; ++k) __builtin_prefetch(&tags[8 * k]);
        const std::uint8_t fingerprint = memsub::byte_fingerprint(line);
        for (auto candidates =
                 memsub::byte_equal_mask(h.fingerprints.data(), padded, fingerprint) & h.occupied;
             candidates != 0; candidates &= candidates - 1) {
            const auto e = static_cast<std::uint32_t>(std::countr_zero(candidates));
            if (tags[e] == line) {
                floor_padding();
                h.dirty |= store_bit << e;
                Row::hit(h.row.data(), e);
                return true;
            }
        }
        const std::uint32_t e = h.occupied != all_ways
                                    ? static_cast<std::uint32_t>(std::countr_one(h.occupied))
                                    : Row::victim(h.row.data());
        // A write-back cache would write the victim back here when its dirty bit is set.
        tags[e] = line;
        memsub::store_row_byte(h.fingerprints.data() + e, fingerprint); // as the engine stores
        h.occupied |= 1ULL << e;
        h.dirty = (h.dirty & ~(1ULL << e)) | (store_bit << e);
        Row::fill(h.row.data(), e);
        return false;
    }

private:
    // Exactly when memsub's cache of this shape prefetches.
    static constexpr std::uint32_t prefetched_tag_lines =
        memsub::cache::detail::prefetched_tag_lines(Sets, Ways,
                                                    memsub::cache::detail::header_blocks(Ways));

    struct alignas(64) set_header {
        std::array<std::uint8_t, padded> fingerprints{};
        alignas(16) std::array<std::uint8_t, padded> row{};
        std::uint64_t occupied = 0;
        std::uint64_t dirty = 0;
    };

    // As the engine allocates its arrays (core/huge_page_allocator.hpp).
    std::vector<set_header, memsub::huge_page_allocator<set_header>> headers_;
    std::vector<std::array<std::uint64_t, Ways>,
                memsub::huge_page_allocator<std::array<std::uint64_t, Ways>>>
        tags_;
};

/// LRU's row: the entries' stack positions (0 = most recent); padding bytes 0xff. A hit or a
/// fill moves the entry to the top (memsub's own primitive); the victim is the bottom.
template <std::uint32_t Ways>
struct lru_floor_row {
    static constexpr std::uint32_t padded = memsub::padded_row_bytes(Ways);
    static void init(std::uint8_t* row) noexcept {
        for (std::uint32_t w = 0; w < padded; ++w)
            // Padding lanes sit below every position: never the bottom, never moved.
            row[w] = w < Ways ? static_cast<std::uint8_t>(w) : std::uint8_t{0xff};
    }
    static void hit(std::uint8_t* row, std::uint32_t e) noexcept {
        memsub::recency_promote(row, padded, e);
    }
    static std::uint32_t victim(const std::uint8_t* row) noexcept {
        constexpr std::uint64_t all_ways = Ways == 64 ? ~0ULL : (1ULL << Ways) - 1;
        return static_cast<std::uint32_t>(
            std::countr_zero(memsub::byte_equal_mask(row, padded, Ways - 1) & all_ways));
    }
    static void fill(std::uint8_t* row, std::uint32_t e) noexcept {
        memsub::recency_promote(row, padded, e);
    }
};

/// SRRIP's row (RRIP §3-§4.1, memsub's defaults: M = 2, insertion at RRPV 2, hit priority): one
/// RRPV per entry, starting distant; a hit sets 0; the victim is the lowest entry of RRPV 3
/// after the whole row is aged in one step (every RRPV + (3 - the row's largest), as memsub's
/// rrpv_state does); a fill sets 2. Misses as memsub's fixed-geometry SRRIP, access by access
/// (the benchmarks check it).
template <std::uint32_t Ways>
struct srrip_floor_row {
    static constexpr std::uint32_t padded = memsub::padded_row_bytes(Ways);
    static constexpr std::uint64_t all_ways = Ways == 64 ? ~0ULL : (1ULL << Ways) - 1;
    static constexpr std::uint8_t distant = 3, inserted = 2;
    static void init(std::uint8_t* row) noexcept {
        for (std::uint32_t w = 0; w < Ways; ++w) row[w] = distant; // padding lanes: masked off
    }
    // Row stores as memsub's (memsub::row_byte).
    static void hit(std::uint8_t* row, std::uint32_t e) noexcept {
        memsub::store_row_byte(row + e, 0);
    }
    static void fill(std::uint8_t* row, std::uint32_t e) noexcept {
        memsub::store_row_byte(row + e, inserted);
    }
    /// Ages the row until an entry is distant (one step, branch-free) and returns the lowest.
    static std::uint32_t victim(std::uint8_t* row) noexcept {
#if defined(__SSE2__)
        if constexpr (padded == 16) { // memsub's own kernel for rows of up to 16 entries
            return static_cast<std::uint32_t>(
                std::countr_zero(memsub::replacement::detail::rrpv_kernels::age_row_to_distant_sse2(
                    reinterpret_cast<std::uint64_t*>(row), Ways, distant)));
        } else {
            // Every padding lane (from Ways on) counts as 0 for the maximum.
            constexpr std::uint32_t chunks = padded / 16;
            __m128i x[chunks];
            __m128i top = _mm_setzero_si128();
            for (std::uint32_t c = 0; c < chunks; ++c) {
                x[c] = _mm_load_si128(reinterpret_cast<const __m128i*>(row + 16 * c));
                const __m128i lane = _mm_add_epi8(
                    _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                    _mm_set1_epi8(static_cast<char>(16 * c)));
                top = _mm_max_epu8(top,
                                   _mm_and_si128(x[c], _mm_cmplt_epi8(lane, _mm_set1_epi8(Ways))));
            }
            top = _mm_max_epu8(top, _mm_srli_si128(top, 8));
            top = _mm_max_epu8(top, _mm_srli_si128(top, 4));
            top = _mm_max_epu8(top, _mm_srli_si128(top, 2));
            top = _mm_max_epu8(top, _mm_srli_si128(top, 1));
            const __m128i k = _mm_set1_epi8(
                static_cast<char>(distant - static_cast<std::uint8_t>(_mm_cvtsi128_si32(top))));
            const __m128i d = _mm_set1_epi8(static_cast<char>(distant));
            std::uint64_t m = 0;
            for (std::uint32_t c = 0; c < chunks; ++c) {
                const __m128i y = _mm_min_epu8(_mm_adds_epu8(x[c], k), d);
                memsub::store_row16(row + 16 * c, y);
                m |= std::uint64_t{static_cast<std::uint32_t>(
                         _mm_movemask_epi8(_mm_cmpeq_epi8(y, d)))}
                     << (16 * c);
            }
            return static_cast<std::uint32_t>(std::countr_zero(m & all_ways));
        }
#else
        std::uint8_t top = 0;
        for (std::uint32_t w = 0; w < Ways; ++w) top = std::max(top, row[w]);
        const auto k = static_cast<std::uint8_t>(distant - top);
        for (std::uint32_t w = 0; w < padded; ++w)
            row[w] = static_cast<std::uint8_t>(std::min<std::uint32_t>(row[w] + k, distant));
        return static_cast<std::uint32_t>(
            std::countr_zero(memsub::byte_equal_mask(row, padded, distant) & all_ways));
#endif
    }
};

template <std::uint32_t Sets, std::uint32_t Ways, std::uint32_t LineBytes>
using fingerprint_lru_floor = fingerprint_floor<Sets, Ways, LineBytes, lru_floor_row<Ways>>;
template <std::uint32_t Sets, std::uint32_t Ways, std::uint32_t LineBytes>
using fingerprint_srrip_floor = fingerprint_floor<Sets, Ways, LineBytes, srrip_floor_row<Ways>>;

/// An LRU stack of up to 16 entries in one word: nibble p holds the entry at stack position p
/// (0 = most recent). The small-associativity layouts below keep their recency this way: a
/// replacement is a rotate, a promotion a few shifts and masks, no vector register.
template <std::uint32_t Ways>
struct lru_order_list {
    static_assert(Ways >= 2 && Ways <= 16);
    static constexpr std::uint64_t used = Ways == 16 ? ~0ULL : (1ULL << (4 * Ways)) - 1;
    static constexpr std::uint64_t nibble_ones = 0x1111111111111111ULL & used;

    [[nodiscard]] static constexpr std::uint64_t identity() noexcept {
        std::uint64_t list = 0;
        for (std::uint32_t p = 0; p < Ways; ++p) list |= std::uint64_t{p} << (4 * p);
        return list;
    }
    /// The stack position of entry `e` (in the list exactly once).
    [[nodiscard]] static std::uint32_t position(std::uint64_t list, std::uint32_t e) noexcept {
        const std::uint64_t x = list ^ (nibble_ones * e); // e's nibble becomes 0
        // The lowest flagged nibble is the lowest zero nibble (higher flags may be borrows).
        const std::uint64_t zero = (x - nibble_ones) & ~x & (nibble_ones << 3);
        return static_cast<std::uint32_t>(std::countr_zero(zero)) >> 2;
    }
    /// The entry at position `p` moved to the top.
    [[nodiscard]] static std::uint64_t promote_position(std::uint64_t list,
                                                        std::uint32_t p) noexcept {
        const std::uint64_t below = (std::uint64_t{1} << (4 * p)) - 1;
        const std::uint64_t above = ~((below << 4) | 0xfu) & used;
        return (list & above) | ((list & below) << 4) | ((list >> (4 * p)) & 0xfu);
    }
    [[nodiscard]] static std::uint64_t promote(std::uint64_t list, std::uint32_t e) noexcept {
        return promote_position(list, position(list, e));
    }
    [[nodiscard]] static std::uint32_t bottom(std::uint64_t list) noexcept {
        return static_cast<std::uint32_t>(list >> (4 * (Ways - 1))) & 0xfu;
    }
    /// The bottom entry replaced: it moves to the top.
    [[nodiscard]] static std::uint64_t rotate(std::uint64_t list) noexcept {
        return ((list << 4) & used) | bottom(list);
    }
};

/// A floor of another design, for small associativity: no fingerprints, the set's tags compared
/// one by one (branch-free, into a mask), and beside them in the same 64-byte-aligned block the
/// recency as an `lru_order_list` and the occupied and dirty bits. Entries keep their place, as
/// the engine's interface needs (a policy row, a result's entry index). Like `fingerprint_floor`
/// it has no statistics, eviction report or policy interface.
template <std::uint32_t Sets, std::uint32_t Ways, std::uint32_t LineBytes>
class direct_tag_lru_floor {
    using order = lru_order_list<Ways>;
    static constexpr std::uint64_t all_ways = memsub::low_bits_mask(Ways);

public:
    direct_tag_lru_floor() : sets_(Sets) {
        for (set& s : sets_) s.tags.fill(no_line);
    }

    bool access(std::uint64_t word) noexcept {
        const std::uint64_t line = word >> std::countr_zero(LineBytes);
        const auto store_bit = word & 1u;
        set& s = sets_[line & (Sets - 1)];
        std::uint64_t match = 0;
        for (std::uint32_t w = 0; w < Ways; ++w) match |= std::uint64_t{s.tags[w] == line} << w;
        if (match != 0) {
            const auto e = static_cast<std::uint32_t>(std::countr_zero(match));
            s.dirty |= store_bit << e;
            s.order = order::promote(s.order, e);
            return true;
        }
        std::uint32_t e;
        if (s.occupied != all_ways) {
            e = static_cast<std::uint32_t>(std::countr_one(s.occupied));
            s.order = order::promote(s.order, e);
            s.occupied |= 1ULL << e;
        } else {
            e = order::bottom(s.order);
            s.order = order::rotate(s.order);
        }
        // A write-back cache would write the victim back here when its dirty bit is set.
        s.tags[e] = line;
        s.dirty = (s.dirty & ~(1ULL << e)) | (store_bit << e);
        return false;
    }

private:
    struct alignas(64) set {
        std::array<std::uint64_t, Ways> tags;
        std::uint64_t order = lru_order_list<Ways>::identity();
        std::uint64_t occupied = 0;
        std::uint64_t dirty = 0;
    };
    std::vector<set, memsub::huge_page_allocator<set>> sets_;
};

/// A floor of the plain loop's own layout with what a cache engine must add to it: the tags in
/// recency order, shifted as the plain loop shifts them, and beside them the entry each position
/// holds (an `lru_order_list`, moved with the tags) and the dirty bits by entry, so an entry keeps
/// its index while its tag moves and a victim's dirty bit is known. The closest a design that
/// reports entries and dirty bits can stay to the plain loop.
template <std::uint32_t Sets, std::uint32_t Ways, std::uint32_t LineBytes>
class shift_order_lru_floor {
    using order = lru_order_list<Ways>;

public:
    shift_order_lru_floor() : sets_(Sets) {
        for (set& s : sets_) s.tags.fill(no_line);
    }

    bool access(std::uint64_t word) noexcept {
        const std::uint64_t line = word >> std::countr_zero(LineBytes);
        const auto store_bit = word & 1u;
        set& s = sets_[line & (Sets - 1)];
        std::uint64_t carried = s.tags[0];
        if (carried == line) {
            s.dirty |= store_bit << (s.entries & 0xfu);
            return true;
        }
        s.tags[0] = line;
        for (std::uint32_t p = 1; p < Ways; ++p) {
            const std::uint64_t here = s.tags[p];
            s.tags[p] = carried;
            if (here == line) {
                const auto e = static_cast<std::uint32_t>(s.entries >> (4 * p)) & 0xfu;
                s.entries = order::promote_position(s.entries, p);
                s.dirty |= store_bit << e;
                return true;
            }
            carried = here;
        }
        // `carried` is the victim's tag: a write-back cache would write it back here when the
        // dirty bit of entry e is set.
        const std::uint32_t e = order::bottom(s.entries);
        s.entries = order::rotate(s.entries);
        s.dirty = (s.dirty & ~(1ULL << e)) | (store_bit << e);
        return false;
    }

private:
    struct alignas(64) set {
        std::array<std::uint64_t, Ways> tags; // most recent first
        std::uint64_t entries = lru_order_list<Ways>::identity();
        std::uint64_t dirty = 0;
    };
    std::vector<set, memsub::huge_page_allocator<set>> sets_;
};

/// The older reference: per line a tag, a valid bit and a last-use stamp; linear searches.
class stamp_lru_array_of_structs {
public:
    explicit stamp_lru_array_of_structs(const memsub::geometry& g)
        : sets_(g.sets)
        , ways_(g.ways)
        , lines_(std::size_t{g.sets} * g.ways) {}
    bool access(std::uint64_t address) noexcept {
        const std::uint64_t line = address >> 6;
        line_entry* set = &lines_[(line & (sets_ - 1)) * ways_];
        ++clock_;
        for (std::uint32_t w = 0; w < ways_; ++w)
            if (set[w].valid && set[w].tag == line) {
                set[w].stamp = clock_;
                return true;
            }
        std::uint32_t victim = 0;
        for (std::uint32_t w = 0; w < ways_; ++w) {
            if (!set[w].valid) {
                victim = w;
                break;
            }
            if (set[w].stamp < set[victim].stamp) victim = w;
        }
        set[victim] = {line, clock_, true};
        return false;
    }

private:
    struct line_entry {
        std::uint64_t tag = 0;
        std::uint64_t stamp = 0;
        bool valid = false;
    };
    std::uint64_t sets_, ways_;
    std::vector<line_entry> lines_;
    std::uint64_t clock_ = 0;
};

} // namespace memsub_bench
