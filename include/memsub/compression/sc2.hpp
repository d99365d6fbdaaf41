// memsub — SC², statistical (Huffman) cache-line compression, and its value-frequency table.
//
// Citation: A. Arelakis, P. Stenström, "SC²: A Statistical Compression Cache Scheme", ISCA 2014;
// parameters from the LATTE-CC dissertation (Arunkumar, Ch. 4.3.3). Normative rules:
// docs/mechanisms/compressors.md §1.5 and §2.2.
//
// Three pieces:
//   * `value_frequency_table` (VFT) samples 32-bit words: a set-associative table of (value,
//     saturating counter); a line inserted into the cache increments each word's counter
//     (allocating on a miss, evicting the minimum-count entry of the set, lowest way on a tie),
//     an evicted line decrements the counters of its words that are present.
//   * `huffman_code_book` (huffman_code_book.hpp): the canonical, length-limited code built from
//     the VFT, shared between compressors through `std::shared_ptr<const huffman_code_book>`.
//   * `sc2_shared_state`: one VFT and two live books, numbered by generation, for a whole GPU
//     ([Dissertation] §4.3.3); the host drives sampling and rebuilds (see the class comment).
//   * `sc2`: the compressor. Each aligned 32-bit word is replaced by its codeword, or by ESC + the
//     32 raw bits when it is not in the book. bits = Σ code lengths (+32 per escape). Decoding is
//     table driven (direct table + FCW/CNT/OFF comparators, see the code book).
//
// Deviations / choices:
//   * When to sample and when to rebuild the book (LATTE-CC: during the first experimental phase
//     of 256 L1D accesses, rebuilt in the final phase of every 10-phase period) is the host's
//     schedule: memsub provides the VFT and the book builder, the host calls them.
//   * VFT associativity [UNVERIFIED in the SC² paper]: default 16-way (gem5), configurable. The
//     set index is a multiplicative hash of the value (implementation-defined; the paper does
//     not say). Counters saturate at 2^counter_bits − 1 (12 bits, dissertation).
//   * The compressed line carries the book's `id()` in `codebook`; decoding with another book is
//     refused (`decode_status::codebook_mismatch`). One tag bit selects between two live books in
//     the paper (`metadata_bits() == 1`).
//   * A compressor built without a book uses the escape-only book (every word 33 bits), so an
//     untrained SC² never "compresses".
//
// Hardware storage budget: VFT entries·(32 + counter_bits) bits (1024 × 44 bits = 5.5 KB, the
// dissertation's figure); the code book's tables (`huffman_code_book::storage_bits()`).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/detail/params_accessors.hpp>
#include <memsub/compression/detail/simd.hpp>
#include <memsub/compression/huffman_code_book.hpp>
#include <memsub/config.hpp>
#include <memsub/core/aligned_allocator.hpp>
#include <memsub/core/errors.hpp>

namespace memsub::compression {

namespace detail {
[[nodiscard]] inline std::uint32_t sc2_load_word(std::span<const std::byte> line,
                                                 std::size_t i) noexcept {
    std::uint32_t w;
    std::memcpy(&w, line.data() + 4 * i, 4);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);
    return w;
}

/// A value-frequency table's set of `v`: the multiplicative hash's top bits (`shift` = 32 −
/// log2(sets); a shift of 32, one set, gives 0 without a branch).
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::size_t vft_set_index(std::uint32_t v,
                                                             std::uint32_t shift) noexcept {
    return static_cast<std::size_t>(std::uint64_t{v * 0x9E3779B1u} >> shift);
}

/// Calls f(value, k) for each run of k equal consecutive words of the line, in order: a mask
/// of the words that differ from their predecessor (compared in bulk) marks the run starts.
template <class F>
MEMSUB_ALWAYS_INLINE void for_each_word_run(std::span<const std::byte> line, F&& f) noexcept {
    const std::size_t n = line.size() / 4;
    for (std::size_t base = 0; base < n; base += 64) {
        const std::size_t end = std::min(n, base + 64);
        // A chunk's first word starts a run (maybe a continued one).
        std::uint64_t starts = word_run_starts(line.data() + 4 * base, end - base);
        while (starts != 0) {
            const auto s = static_cast<std::size_t>(std::countr_zero(starts));
            starts &= starts - 1;
            const std::size_t next =
                starts != 0 ? static_cast<std::size_t>(std::countr_zero(starts)) : end - base;
            f(sc2_load_word(line, base + s), static_cast<std::uint32_t>(next - s));
        }
    }
}

/// Bit w set when `val[w] == v`, for the 16 words at `val` (a value-frequency-table set's
/// row): one compare on AVX-512; on SSE2 four compares packed into one byte mask.
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t match16_ways(const std::uint32_t* val,
                                                              std::uint32_t v) noexcept {
    using batch = xsimd::batch<std::uint32_t, simd_arch>;
    if constexpr (batch::size == 16) {
        return lane_mask(batch::load_unaligned(val) == batch(v));
    } else {
#if defined(__SSE2__)
        const __m128i key = _mm_set1_epi32(static_cast<int>(v));
        const auto* p = reinterpret_cast<const __m128i*>(val);
        const __m128i c0 = _mm_cmpeq_epi32(_mm_loadu_si128(p), key);
        const __m128i c1 = _mm_cmpeq_epi32(_mm_loadu_si128(p + 1), key);
        const __m128i c2 = _mm_cmpeq_epi32(_mm_loadu_si128(p + 2), key);
        const __m128i c3 = _mm_cmpeq_epi32(_mm_loadu_si128(p + 3), key);
        const __m128i bytes = _mm_packs_epi16(_mm_packs_epi32(c0, c1), _mm_packs_epi32(c2, c3));
        return static_cast<std::uint32_t>(_mm_movemask_epi8(bytes));
#else
        const batch key(v);
        std::uint64_t m = 0;
        for (std::uint32_t w = 0; w < 16; w += batch::size)
            m |= lane_mask(batch::load_unaligned(val + w) == key) << w;
        return m;
#endif
    }
}
} // namespace detail

/// SC²'s value-frequency table (sampling). See the file comment.
///
/// Organisation (for speed; the behaviour is the paper's table, exactly as documented above):
/// values and counters in two arrays, set after set, and one bit per way saying the entry is live
/// (count ≠ 0). A lookup compares the value with all the set's ways at once (SIMD: one movemask
/// per four ways on SSE2) and masks the result with the live bits; an allocation takes the lowest
/// free way, else the lowest way of minimum count. A line's run of equal words is one lookup:
/// sampling a value k times in a row hits after the first, so it ends at min(count + k, max)
/// (or min(k, max) when it was allocated), the order-by-order result.
///
/// The default shape (16 ways, counters of at most 12 bits, x86 SSE2) has a packed layout: 16-bit
/// counters, a way is live when its counter is non-zero, and the victim is found afresh from the
/// set's counters on every sample (the minimum of count·16 + way over one row, no branch). Its
/// line insertion is pipelined: the next run's set is probed before the current run's update is
/// stored, and probed again only when both fall in the same set, so a run's probe does not
/// wait for the previous run's update. Same results as the general layout (tests compare both
/// with the reference table).
class value_frequency_table {
public:
    struct params {
        std::uint32_t entries = 1024;    ///< dissertation: 1024
        std::uint32_t ways = 16;         ///< [UNVERIFIED] gem5's 16
        std::uint32_t counter_bits = 12; ///< dissertation: 12
    };

    static constexpr std::string_view component = "memsub::compression::value_frequency_table";

    value_frequency_table() : value_frequency_table(params{}) {}
    explicit value_frequency_table(const params& p) : p_(p) {
        require(p.ways >= 1 && p.ways <= 64, component, "ways", p.ways, "must be in 1..64");
        require(p.entries >= p.ways && p.entries % p.ways == 0 &&
                    std::has_single_bit(p.entries / p.ways),
                component, "entries", p.entries,
                "must be a multiple of ways giving a power-of-two number of sets");
        require(p.counter_bits >= 1 && p.counter_bits <= 32, component, "counter_bits",
                p.counter_bits, "must be in 1..32");
        sets_ = p.entries / p.ways;
        set_shift_ = 32 - static_cast<std::uint32_t>(std::countr_zero(sets_));
        max_count_ =
            p.counter_bits == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << p.counter_bits) - 1;
        all_ways_ = p.ways == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << p.ways) - 1;
        packed_ = packed_layout_available && p.ways == 16 && p.counter_bits <= 12;
        value_.assign(p.entries, 0);
        if (packed_) {
            count16_.assign(p.entries, 0);
        } else {
            count_.assign(p.entries, 0);
            live_.assign(sets_, 0);
            least_.assign(sets_, 0);
        }
    }

    /// A word seen once more (a fill or a dirty word written back).
    void sample(std::uint32_t v) noexcept {
        if (packed_) {
            ++total_;
            const packed_view t = view_packed();
            t.commit(t.probe(v, set_of(v)), 1);
        } else {
            add(v, 1);
        }
    }

    /// A word that left the cache: its counter (if present) is decremented.
    void forget(std::uint32_t v) noexcept {
        if (packed_)
            view_packed().remove(v, set_of(v), 1);
        else
            remove(v, 1);
    }

    /// Every aligned 32-bit word of a line inserted into the cache.
    void on_insert(std::span<const std::byte> line) noexcept {
        if (packed_)
            insert_line_packed(line);
        else if (p_.ways == 16)
            insert_line<16>(line);
        else
            insert_line<0>(line);
    }
    /// Every aligned 32-bit word of a line evicted from the cache.
    void on_evict(std::span<const std::byte> line) noexcept {
        if (packed_) {
            const packed_view t = view_packed();
            for_each_run(
                line, [&t, this](std::uint32_t v, std::uint32_t k) { t.remove(v, set_of(v), k); });
        } else {
            for_each_run(line, [this](std::uint32_t v, std::uint32_t k) { remove(v, k); });
        }
    }

    /// Words sampled so far (the residual ESC weight uses it).
    [[nodiscard]] std::uint64_t total_sampled_words() const noexcept { return total_; }

    /// The live (value, count) pairs, ascending by value (cold path, allocates).
    [[nodiscard]] std::vector<value_count> counts() const {
        std::vector<value_count> out;
        gather(out);
        std::sort(out.begin(), out.end(),
                  [](const value_count& a, const value_count& b) { return a.value < b.value; });
        return out;
    }

    /// Builds a shareable code book from the current contents (cold path, allocates).
    [[nodiscard]] std::shared_ptr<const huffman_code_book>
    build_code_book(const huffman_code_book::params& bp = huffman_code_book::params{}) const {
        const std::vector<value_count> c = counts();
        return std::make_shared<const huffman_code_book>(c, total_, bp);
    }

    /// Rebuilds `book` from the current contents in place (`huffman_code_book::rebuild`), with
    /// this table's working storage: after the first few builds it allocates nothing. `book` must
    /// not be referenced by any compressor (see sc2_shared_state). The book equals
    /// `*build_code_book(bp)`.
    void build_code_book_into(huffman_code_book& book,
                              const huffman_code_book::params& bp = huffman_code_book::params{}) {
        gather(gathered_);
        book.rebuild(gathered_, total_, bp, scratch_);
    }

    void clear() noexcept {
        std::fill(count_.begin(), count_.end(), 0u);
        std::fill(count16_.begin(), count16_.end(), std::uint16_t{0});
        std::fill(value_.begin(), value_.end(), 0u);
        std::fill(live_.begin(), live_.end(), std::uint64_t{0});
        std::fill(least_.begin(), least_.end(), 0u);
        total_ = 0;
    }

    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{p_.entries} * (32 + p_.counter_bits);
    }

private:
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::size_t set_of(std::uint32_t v) const noexcept {
        return set_index(v, set_shift_);
    }
    [[nodiscard]] static MEMSUB_ALWAYS_INLINE std::size_t set_index(std::uint32_t v,
                                                                    std::uint32_t shift) noexcept {
        return detail::vft_set_index(v, shift);
    }

    /// Bit w set when way w of the set starting at `val` holds `v` (live or not).
    /// `Ways` = the associativity when known at compile time, else 0 (then `ways`).
    template <std::uint32_t Ways = 0>
    [[nodiscard]] static MEMSUB_ALWAYS_INLINE std::uint64_t
    match(const std::uint32_t* val, std::uint32_t v, std::uint32_t ways) noexcept {
        if constexpr (Ways == 16) return match16(val, v);
        if constexpr (detail::simd_enabled) {
            if (ways == 16) return match16(val, v);
            using batch = xsimd::batch<std::uint32_t, detail::simd_arch>;
            constexpr std::uint32_t lanes = batch::size;
            if (ways % lanes == 0) {
                const batch key(v);
                std::uint64_t m = 0;
                for (std::uint32_t w = 0; w < ways; w += lanes)
                    m |= detail::lane_mask(batch::load_unaligned(val + w) == key) << w;
                return m;
            }
        }
        std::uint64_t m = 0;
        for (std::uint32_t w = 0; w < ways; ++w) m |= std::uint64_t{val[w] == v} << w;
        return m;
    }
    /// 16 ways (detail::match16_ways).
    [[nodiscard]] static MEMSUB_ALWAYS_INLINE std::uint64_t match16(const std::uint32_t* val,
                                                                    std::uint32_t v) noexcept {
        return detail::match16_ways(val, v);
    }

    /// All ones when `hit` ≠ 0, else 0. Hit or miss is data-dependent and unpredictable, so the
    /// way is chosen with masks: a compiler turns `hit != 0 ? … : …` into a branch here, whose
    /// mispredictions cost more than the whole update.
    [[nodiscard]] static MEMSUB_ALWAYS_INLINE std::uint64_t hit_mask(std::uint64_t hit) noexcept {
        return std::uint64_t{0} - static_cast<std::uint64_t>(hit != 0);
    }
    /// The lowest hit way, else the victim.
    [[nodiscard]] static MEMSUB_ALWAYS_INLINE std::uint32_t
    select_way(std::uint64_t hit, std::uint32_t victim) noexcept {
        const auto first = static_cast<std::uint32_t>(std::countr_zero(hit)); // 64 when none
        const auto m = static_cast<std::uint32_t>(hit_mask(hit));
        return (first & m) | (victim & ~m);
    }

    /// The table's geometry and storage as plain values, and a sample's update on them. A line's
    /// samples update through one view made before the line: the counters' stores could alias
    /// the table's members as far as the compiler knows, which would reload them on every word.
    template <std::uint32_t Ways>
    struct table_view {
        std::uint32_t ways, shift, max_count, counter_bits;
        std::uint32_t* values;
        std::uint32_t* counts;
        std::uint64_t* live_bits;
        std::uint32_t* least;

        /// `k` ≥ 1 samples of `v` in a row. Branch-free but for the rare recomputation of the
        /// set's LFU way: the entry updated is the hit, else the set's cached victim.
        MEMSUB_ALWAYS_INLINE void add(std::uint32_t v, std::uint32_t k) const noexcept {
            const std::size_t set = set_index(v, shift);
            std::uint32_t* val = values + set * ways;
            std::uint32_t* cnt = counts + set * ways;
            const std::uint64_t live = live_bits[set];
            const std::uint64_t hit = match<Ways>(val, v, ways) & live;
            const std::uint32_t victim = least[set];
            const std::uint32_t w = select_way(hit, victim);
            const std::uint32_t before = cnt[w];
            const std::uint64_t from = before & hit_mask(hit); // an allocation starts from 0
            const auto after =
                static_cast<std::uint32_t>(std::min<std::uint64_t>(from + k, max_count));
            cnt[w] = after;
            val[w] = v;
            live_bits[set] = live | (std::uint64_t{1} << w);
            // Only the LFU way growing can move the minimum (an allocation over a count ≥ k
            // keeps it: every lower way counts more than the old minimum, every higher one at
            // least as much).
            if (MEMSUB_UNLIKELY(w == victim && after > before))
                least[set] = least_counted(cnt, ways, counter_bits);
        }
    };
    template <std::uint32_t Ways = 0>
    [[nodiscard]] MEMSUB_ALWAYS_INLINE table_view<Ways> view() noexcept {
        return {Ways != 0 ? Ways : p_.ways,
                set_shift_,
                max_count_,
                p_.counter_bits,
                value_.data(),
                count_.data(),
                live_.data(),
                least_.data()};
    }

#if defined(__SSE2__)
    static constexpr bool packed_layout_available = true;
#else
    static constexpr bool packed_layout_available = false;
#endif

    /// A probe of the packed layout: the ways of `set` holding `value` live, and its victim.
    struct packed_probe {
        std::uint32_t set, value, hit, victim;
    };
    /// The packed layout's storage as plain values (see table_view for why a view).
    struct packed_view {
        std::uint32_t max_count;
        std::uint32_t* values;
        std::uint16_t* counts;

#if defined(__SSE2__)
        /// Bit w set when way w of `set` is free (counter 0).
        [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t free_ways(__m128i c0,
                                                                   __m128i c1) const noexcept {
            const __m128i zero = _mm_setzero_si128();
            return static_cast<std::uint32_t>(_mm_movemask_epi8(
                _mm_packs_epi16(_mm_cmpeq_epi16(c0, zero), _mm_cmpeq_epi16(c1, zero))));
        }
        [[nodiscard]] MEMSUB_ALWAYS_INLINE packed_probe probe(std::uint32_t v,
                                                              std::uint32_t set) const noexcept {
            const auto* row = reinterpret_cast<const __m128i*>(counts + std::size_t{set} * 16);
            const __m128i c0 = _mm_load_si128(row), c1 = _mm_load_si128(row + 1);
            const auto hit =
                static_cast<std::uint32_t>(match16(values + std::size_t{set} * 16, v)) &
                ~free_ways(c0, c1);
            // The lowest way of minimum count: the minimum of count·16 + way (counts < 2^12 keep
            // it in 16 bits), biased by 0x8000 for SSE2's signed 16-bit minimum.
            const __m128i bias = _mm_set1_epi16(static_cast<short>(0x8000));
            const __m128i k0 = _mm_xor_si128(
                _mm_or_si128(_mm_slli_epi16(c0, 4), _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7)), bias);
            const __m128i k1 = _mm_xor_si128(
                _mm_or_si128(_mm_slli_epi16(c1, 4), _mm_setr_epi16(8, 9, 10, 11, 12, 13, 14, 15)),
                bias);
            __m128i m = _mm_min_epi16(k0, k1);
            m = _mm_min_epi16(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
            m = _mm_min_epi16(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
            m = _mm_min_epi16(m, _mm_shufflelo_epi16(m, _MM_SHUFFLE(2, 3, 0, 1)));
            return {set, v, hit, static_cast<std::uint32_t>(_mm_cvtsi128_si32(m)) & 15};
        }
        /// `k` ≥ 1 samples of the probed value: the hit way counts on, else the victim restarts.
        MEMSUB_ALWAYS_INLINE void commit(const packed_probe& p, std::uint32_t k) const noexcept {
            const auto first = static_cast<std::uint32_t>(std::countr_zero(p.hit)); // 32: none
            const std::uint32_t is_hit = 0u - static_cast<std::uint32_t>(p.hit != 0);
            const std::uint32_t w = (first & is_hit) | (p.victim & ~is_hit);
            std::uint16_t& c = counts[std::size_t{p.set} * 16 + w];
            const std::uint64_t from = c & is_hit;
            c = static_cast<std::uint16_t>(std::min<std::uint64_t>(from + k, max_count));
            values[std::size_t{p.set} * 16 + w] = p.value;
        }
        /// `k` ≥ 1 evictions of `v` in a row.
        MEMSUB_ALWAYS_INLINE void remove(std::uint32_t v, std::uint32_t set,
                                         std::uint32_t k) const noexcept {
            const auto* row = reinterpret_cast<const __m128i*>(counts + std::size_t{set} * 16);
            const auto hit =
                static_cast<std::uint32_t>(match16(values + std::size_t{set} * 16, v)) &
                ~free_ways(_mm_load_si128(row), _mm_load_si128(row + 1));
            if (hit == 0) return;
            std::uint16_t& c = counts[std::size_t{set} * 16 + std::countr_zero(hit)];
            c = static_cast<std::uint16_t>(c - std::min<std::uint32_t>(c, k));
        }
#else
        // Never used: the packed layout is only chosen with SSE2.
        packed_probe probe(std::uint32_t, std::uint32_t) const noexcept {
            return {};
        }
        void commit(const packed_probe&, std::uint32_t) const noexcept {}
        void remove(std::uint32_t, std::uint32_t, std::uint32_t) const noexcept {}
#endif
    };
    [[nodiscard]] MEMSUB_ALWAYS_INLINE packed_view view_packed() noexcept {
        return {max_count_, value_.data(), count16_.data()};
    }

    /// A whole line's samples on the packed layout, pipelined by one run: each run's set is
    /// probed before the previous run's update is stored, and probed again after it when the two
    /// runs share the set (the only case where that update changes the probe).
    MEMSUB_ALWAYS_INLINE void insert_line_packed(std::span<const std::byte> line) noexcept {
        total_ += line.size() / 4;
        const packed_view t = view_packed();
        const std::uint32_t shift = set_shift_;
        packed_probe pending{};
        std::uint32_t pending_k = 0; // 0: nothing pending yet
        for_each_run(line, [&](std::uint32_t v, std::uint32_t k) {
            const auto set = static_cast<std::uint32_t>(set_index(v, shift));
            packed_probe next = t.probe(v, set);
            if (pending_k != 0) {
                t.commit(pending, pending_k);
                if (MEMSUB_UNLIKELY(set == pending.set)) next = t.probe(v, set);
            }
            pending = next;
            pending_k = k;
        });
        if (pending_k != 0) t.commit(pending, pending_k);
    }

    /// A whole line's samples (`Ways` = the associativity when known at compile time, else 0).
    template <std::uint32_t Ways>
    MEMSUB_ALWAYS_INLINE void insert_line(std::span<const std::byte> line) noexcept {
        total_ += line.size() / 4;
        const table_view<Ways> t = view<Ways>();
        for_each_run(line, [&t](std::uint32_t v, std::uint32_t k) { t.add(v, k); });
    }

    /// `k` ≥ 1 samples of `v` in a row.
    MEMSUB_ALWAYS_INLINE void add(std::uint32_t v, std::uint32_t k) noexcept {
        total_ += k;
        view().add(v, k);
    }

    /// `k` ≥ 1 evictions of `v` in a row: each decrements a live counter, down to 0 (free).
    MEMSUB_ALWAYS_INLINE void remove(std::uint32_t v, std::uint32_t k) noexcept {
        const std::size_t set = set_of(v);
        std::uint32_t* val = &value_[set * p_.ways];
        std::uint32_t* cnt = &count_[set * p_.ways];
        const std::uint64_t hit = match(val, v, p_.ways) & live_[set];
        if (hit == 0) return;
        const auto w = static_cast<std::uint32_t>(std::countr_zero(hit));
        const std::uint32_t after = cnt[w] - std::min(cnt[w], k);
        cnt[w] = after;
        if (after == 0) live_[set] &= ~(std::uint64_t{1} << w);
        const std::uint32_t least = least_[set];
        if (after < cnt[least] || (after == cnt[least] && w < least)) least_[set] = w;
    }

    /// The lowest way of minimum count (free ways count 0): the minimum of (count, way).
    [[nodiscard]] static std::uint32_t least_counted(const std::uint32_t* cnt, std::uint32_t ways,
                                                     std::uint32_t counter_bits) noexcept {
#if defined(__SSE2__)
        // 16 ways with counts below 2^25: (count << 6 | way) fits a signed 32-bit lane, and a
        // tree of SSE2 minimums finds it (no branch, no 16-step chain).
        if (ways == 16 && counter_bits <= 25) {
            const auto* p = reinterpret_cast<const __m128i*>(cnt);
            auto key = [&](int i) {
                return _mm_or_si128(_mm_slli_epi32(_mm_loadu_si128(p + i), 6),
                                    _mm_setr_epi32(4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3));
            };
            auto min = [](__m128i a, __m128i b) {
                const __m128i a_greater = _mm_cmpgt_epi32(a, b);
                return _mm_or_si128(_mm_and_si128(a_greater, b), _mm_andnot_si128(a_greater, a));
            };
            __m128i m = min(min(key(0), key(1)), min(key(2), key(3)));
            m = min(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
            m = min(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
            return static_cast<std::uint32_t>(_mm_cvtsi128_si32(m)) & 63;
        }
#endif
        std::uint64_t best = ~std::uint64_t{0};
        for (std::uint32_t w = 0; w < ways; ++w)
            best = std::min(best, (std::uint64_t{cnt[w]} << 6) | w);
        return static_cast<std::uint32_t>(best & 63);
    }

    template <class F>
    static MEMSUB_ALWAYS_INLINE void for_each_run(std::span<const std::byte> line, F&& f) noexcept {
        detail::for_each_word_run(line, std::forward<F>(f));
    }

    /// The live (value, count) pairs in table order.
    void gather(std::vector<value_count>& out) const {
        out.clear();
        for (std::size_t i = 0; i < value_.size(); ++i) {
            const std::uint32_t c = packed_ ? count16_[i] : count_[i];
            if (c != 0) out.push_back({value_[i], c});
        }
    }

    params p_;
    std::uint32_t sets_ = 64, set_shift_ = 26, max_count_ = 4095;
    std::uint64_t all_ways_ = 0xFFFF;
    bool packed_ = false; ///< the packed layout (see the class comment)
    std::vector<std::uint32_t, aligned_allocator<std::uint32_t>> value_;   ///< a set's row: 64 B
    std::vector<std::uint32_t> count_;                                     ///< general layout
    std::vector<std::uint16_t, aligned_allocator<std::uint16_t>> count16_; ///< packed layout
    // General layout only:
    std::vector<std::uint64_t> live_;  ///< per set: bit w = way w's count is non-zero
    std::vector<std::uint32_t> least_; ///< per set: the lowest way of minimum count (the victim)
    std::uint64_t total_ = 0;
    // Working storage of build_code_book_into (not part of the table's state).
    std::vector<value_count> gathered_;
    huffman_code_book::build_scratch scratch_;
};

/// The SC² compressor (see the file comment).
class sc2 : public detail::params_accessors<sc2> {
public:
    struct params {
        std::uint32_t line_bytes = 64;
        /// The code book; null = the escape-only book.
        std::shared_ptr<const huffman_code_book> code_book{};
        /// Dissertation §4.3.3 (citing HyComp).
        std::uint32_t compress_latency_cycles = 6;
        std::uint32_t decompress_latency_cycles = 14;
        double compress_energy_nj = 0.42;
        double decompress_energy_nj = 0.336;
    };

    static constexpr std::string_view component = "memsub::compression::sc2";
    /// SC² stores lines byte-aligned (CS3 of stored_size.hpp; docs/mechanisms/compressors.md §2.2):
    /// `default_storage_rule(c)` has S = 1.
    static constexpr bool byte_aligned_storage = true;

    sc2() : sc2(params{}) {}
    explicit sc2(const params& p) : p_(p) {
        require_line_bytes(p.line_bytes, component);
        if (!p_.code_book)
            p_.code_book =
                std::make_shared<const huffman_code_book>(huffman_code_book::escape_only());
        book_ = p_.code_book.get();
        words_ = p.line_bytes / 4;
    }

    [[nodiscard]] std::string_view name() const noexcept { return "sc2"; }
    [[nodiscard]] std::uint32_t metadata_bits() const noexcept { return 1; }
    [[nodiscard]] const huffman_code_book& code_book() const noexcept { return *book_; }
    [[nodiscard]] const std::shared_ptr<const huffman_code_book>&
    shared_code_book() const noexcept {
        return p_.code_book;
    }

    /// Exact payload bits: Σ code lengths + 32 per escaped word (§2.2).
    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        return book_->encoded_bits_of_words(line.data(), words_);
    }

    [[nodiscard]] compressed_line compress(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        compressed_line out;
        out.codebook = book_->id();
        detail::bit_writer w(out.payload);
        for (std::uint32_t i = 0; i < words_; ++i) book_->encode(w, detail::sc2_load_word(line, i));
        out.bits = w.finish();
        return out;
    }

    [[nodiscard]] decode_result decompress(compressed_view v,
                                           std::span<std::byte> out) const noexcept {
        if (out.size() != p_.line_bytes) return {decode_status::wrong_output_size, 0};
        if (v.bits > v.payload.size() * 8 || v.bits > max_payload_bits)
            return {decode_status::bad_view, 0};
        if (v.encoding != 0 || v.member != 0) return {decode_status::unknown_encoding, 0};
        if (v.codebook != book_->id()) return {decode_status::codebook_mismatch, 0};
        std::array<std::uint32_t, max_line_bytes / 4 + 1> words; // + 1: decode_words scratch
        std::uint32_t consumed = 0;
        const decode_result r =
            book_->decode_words(v.payload, v.bits, words.data(), words_, consumed);
        if (!r) return r;
        if (consumed != v.bits) return {decode_status::trailing_bits, consumed};
        for (std::uint32_t i = 0; i < words_; ++i) {
            std::uint32_t w = words[i];
            if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);
            std::memcpy(out.data() + 4 * i, &w, 4);
        }
        return {};
    }

private:
    friend detail::params_accessors<sc2>;
    params p_;
    const huffman_code_book* book_ = nullptr;
    std::uint32_t words_ = 16;
};

static_assert(invertible_compressor<sc2>);

/// SC² state shared by every L1 of a GPU ([Dissertation] §4.3.3: one VFT and one set of code
/// tables for the whole GPU, 15.5 KB = 6.45 % of 15 SMs' 16 KB L1s): the VFT, a sampling switch,
/// and the two live code books, numbered by generation.
///
/// Book swapping. `rebuild()` builds generation g + 1 from the table; generations g + 1 and g
/// are then live, held in two slots chosen by the generation's low bit (the one tag bit of
/// `sc2::metadata_bits()` that selects between two live books in SC²). A book's `id()` is its
/// generation, so the `codebook` of a compressed line names it and `book_of(id)` finds it in
/// O(1). Building g + 1 retires g − 1: its slot is rebuilt in place — no allocation once the
/// tables have grown — when nothing else holds that book; if something still does (a compressor,
/// a line's decoder), the new book is allocated beside it and the old object lives on, unchanged,
/// until its last holder lets go. So a rebuild never alters a book anyone references; the host
/// retires (invalidates) the lines of generation g − 1 before or at the rebuild, as LATTE-CC
/// does when a period starts, and drops its compressors of that generation to keep rebuilds
/// allocation-free.
///
/// Generation 1 is the escape-only book (nothing sampled yet: every word costs 33 bits). The
/// period clock (when to sample, when to rebuild) and the invalidation of old lines belong to
/// the host. Not thread-safe: a host that runs SMs on threads serialises calls.
class sc2_shared_state {
public:
    struct params {
        value_frequency_table::params table{};
        /// `version` is ignored: a book's id is its generation.
        huffman_code_book::params book{};
    };

    static constexpr std::string_view component = "memsub::compression::sc2_shared_state";

    sc2_shared_state() : sc2_shared_state(params{}) {}
    explicit sc2_shared_state(const params& p) : table_(p.table), book_params_(p.book) {
        book_params_.version = 1;
        slots_[1] =
            std::make_shared<huffman_code_book>(huffman_code_book::escape_only(book_params_));
    }

    // --- sampling (per access while on) ------------------------------------------------------

    /// Samples from now on; `clear_table` empties the VFT first (a fresh sampling phase).
    void start_sampling(bool clear_table = true) noexcept {
        if (clear_table) table_.clear();
        sampling_ = true;
    }
    void stop_sampling() noexcept { sampling_ = false; }
    [[nodiscard]] bool sampling() const noexcept { return sampling_; }

    /// A line inserted into an L1: its words are counted while sampling is on.
    void on_insert(std::span<const std::byte> line) noexcept {
        if (sampling_) table_.on_insert(line);
    }
    /// A line evicted from an L1: its words are uncounted while sampling is on.
    void on_evict(std::span<const std::byte> line) noexcept {
        if (sampling_) table_.on_evict(line);
    }

    [[nodiscard]] value_frequency_table& table() noexcept { return table_; }
    [[nodiscard]] const value_frequency_table& table() const noexcept { return table_; }

    // --- books -------------------------------------------------------------------------------

    /// Builds the next generation's book from the table (cold path, see the class comment) and
    /// makes it current; returns its generation (= its id).
    std::uint32_t rebuild() {
        std::uint32_t next = generation_ + 1;
        if (next == 0) next = 2; // id 0 is not a version; 2 keeps the slot parity
        book_params_.version = next;
        std::shared_ptr<huffman_code_book>& slot = slots_[next & 1];
        if (slot && slot.use_count() == 1) {
            table_.build_code_book_into(*slot, book_params_);
        } else {
            auto book =
                std::make_shared<huffman_code_book>(huffman_code_book::escape_only(book_params_));
            table_.build_code_book_into(*book, book_params_);
            slot = std::move(book);
        }
        generation_ = next;
        return next;
    }

    /// The current generation (its book codes new lines).
    [[nodiscard]] std::uint32_t generation() const noexcept { return generation_; }
    [[nodiscard]] std::shared_ptr<const huffman_code_book> current() const noexcept {
        return slots_[generation_ & 1];
    }
    /// The previous generation's book (null before the first rebuild).
    [[nodiscard]] std::shared_ptr<const huffman_code_book> previous() const noexcept {
        return slots_[(generation_ & 1) ^ 1];
    }
    /// The live book whose id is `id` (a compressed line's `codebook`), or null when that
    /// generation is retired or never existed.
    [[nodiscard]] const huffman_code_book* book_of(std::uint32_t id) const noexcept {
        const huffman_code_book* b = slots_[id & 1].get();
        return b != nullptr && b->id() == id ? b : nullptr;
    }

    /// The hardware tables: the VFT and one book's tables (LATTE-CC invalidates old lines
    /// instead of keeping SC²'s second decoder table set).
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return table_.storage_bits() + slots_[generation_ & 1]->storage_bits();
    }

private:
    value_frequency_table table_;
    huffman_code_book::params book_params_;
    std::array<std::shared_ptr<huffman_code_book>, 2> slots_{};
    std::uint32_t generation_ = 1;
    bool sampling_ = false;
};

} // namespace memsub::compression
