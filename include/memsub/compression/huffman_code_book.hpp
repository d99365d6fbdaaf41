// memsub — the canonical, length-limited Huffman code book of SC² (a shareable, immutable object).
//
// Citation: A. Arelakis, P. Stenström, "SC²: A Statistical Compression Cache Scheme", ISCA 2014
// (code generation in software, canonical Huffman, per-length comparators + De-LUT decoder).
// Normative text: docs/mechanisms/compressors.md §1.5 "Code generation" steps 1–5 and "Line
// encoding".
//
// Construction (cold path; `rebuild` with a kept `build_scratch` reuses the book's tables and
// allocates nothing once they have grown):
//   1. Symbols = every (value, count) with count > 0, plus one escape symbol ESC ("any value not
//      in the table"). ESC weight: `esc_weight::residual` (default) = max(1, total sampled words −
//      Σ counts); `esc_weight::max` (gem5) = largest count + 1, so ESC gets the shortest code.
//      [UNVERIFIED which the paper uses.]
//   2. Huffman tree with a min-priority queue keyed by (weight, sequence number); leaves are
//      numbered in ascending value order, ESC last, merged nodes take the next numbers. Only the
//      code lengths are kept. Built with the two-queue method (radix-sorted leaves, merged nodes
//      in creation order), which pops exactly the nodes the priority queue would. A single-symbol
//      book gives that symbol length 1.
//   3. Length limit `max_code_length_bits` (default 16 [UNVERIFIED]; gem5 uses 18). Repair
//      `length_limit::clamp_fix` (default) is compressors.md §1.5's exact procedure (a–c);
//      `length_limit::drop` (gem5) removes over-long symbols (they become escapes, their weight
//      moves to ESC) and rebuilds — falling back to clamp_fix if ESC itself is too long.
//      (The optional package-merge alternative is not provided.)
//   4. Canonical codes: symbols sorted by (length, sequence number), first code 0, next = (prev +
//      1) << (length increase).
//   5. Decode tables FCW/CNT/OFF per length and the De-LUT (symbols in canonical order).
// Encoding (hot path, noexcept, no allocation): an open-addressing hash table in which every
// value lies within 4 slots of its home maps a value to its (code, cost); one SIMD compare of the
// 4-slot window finds it; a value not in it is coded as ESC + 32 raw bits.
// Decision: free slots hold the word 0 with its true cost (its code, or ESC + 32), so a window
// needs no "occupied" test and a match is always right; the alternative, an occupancy mask or a
// reserved "empty" value, costs a second compare per lookup or excludes one of the 2^32 words.
// Decoding (hot path): a direct table indexed by the next min(max, 10) bits resolves short codes in
// one step (the line decoder's version of it resolves two short codes at once when both fit in
// the index, the second possibly ESC with its raw word);
// longer codes use the FCW/CNT/OFF comparison of §1.5 ("exactly one ℓ matches").
//
// Sharing: compressors hold a book through a `std::shared_ptr<const huffman_code_book>` and it
// never changes under them (only an owner no one shares it with may `rebuild` it, see
// sc2_shared_state), and every compressed line records the book's
// `id()` so a line is never decoded with another book (§1.5 "Code-book switching").
//
// Hardware storage budget (`storage_bits()`, memsub's estimate from the table shapes; the
// dissertation quotes 7 KB code table + 3 KB De-LUT for 1024 entries): code table N·(32 + Max +
// ⌈log2(Max+1)⌉) bits, De-LUT N·32 bits, FCW/CNT/OFF Max·(Max + 2·⌈log2(N+1)⌉) bits.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/detail/simd.hpp>
#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>

namespace memsub::compression {

namespace detail {
/// Bit i set when word i of the `n` ≤ 64 words at `p` differs from word i − 1 (bit 0 always
/// set). SSE2: four words against their predecessors per compare (equality needs no byte
/// swap on either endianness).
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t word_run_starts(const std::byte* p,
                                                                 std::size_t n) noexcept {
    std::uint64_t differs = 1;
#if defined(__SSE2__)
    if (n % 4 == 0) {
        __m128i last = _mm_setzero_si128();
        for (std::size_t c = 0; c < n; c += 4) {
            const __m128i cur = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4 * c));
            const __m128i prev = _mm_or_si128(_mm_slli_si128(cur, 4), _mm_srli_si128(last, 12));
            const int equal = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(cur, prev)));
            differs |= std::uint64_t(~equal & 0xF) << c;
            last = cur;
        }
        return differs | 1;
    }
#endif
    if (n == 0) return differs;
    std::uint32_t prev;
    std::memcpy(&prev, p, 4);
    for (std::size_t i = 1; i < n; ++i) {
        std::uint32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        differs |= std::uint64_t{v != prev} << i;
        prev = v;
    }
    return differs;
}
} // namespace detail

/// One sampled value and how often it was seen.
struct value_count {
    std::uint32_t value = 0;
    std::uint64_t count = 0;
    friend constexpr bool operator==(const value_count&, const value_count&) noexcept = default;
};

class huffman_code_book {
public:
    /// ESC weight rule (docs/mechanisms/compressors.md §1.5 step 1, [UNVERIFIED]).
    enum class esc_weight : std::uint8_t { residual, max };
    /// Length-limit repair (docs/mechanisms/compressors.md §1.5 step 3).
    enum class length_limit : std::uint8_t { clamp_fix, drop };

    struct params {
        /// MaxCodeLen [UNVERIFIED]; 1…32 and ≥ ⌈log2(symbols)⌉.
        std::uint32_t max_code_length_bits = 16;
        esc_weight escape = esc_weight::residual;
        length_limit limit = length_limit::clamp_fix;
        /// Book version recorded in every compressed line; 0 = derive it from the codes.
        std::uint32_t version = 0;
    };

    /// A codeword: `length` bits, right-aligned in `bits`.
    struct code {
        std::uint32_t bits = 0;
        std::uint32_t length = 0;
        friend constexpr bool operator==(const code&, const code&) noexcept = default;
    };

    /// One symbol of the book, as listed by `canonical_symbols()`.
    struct symbol {
        bool escape = false;
        std::uint32_t value = 0; ///< meaningless for ESC
        std::uint64_t weight = 0;
        std::uint32_t unlimited_length = 0; ///< Huffman length before the length limit
        code codeword{};
    };

    static constexpr std::string_view component = "memsub::compression::huffman_code_book";
    static constexpr std::uint32_t max_supported_code_length = 32;
    static constexpr std::size_t max_symbols = std::size_t{1} << 20;
    /// Bits resolved by the direct decode table.
    static constexpr std::uint32_t direct_bits_max = 10;

    /// Working storage of a book build. A builder that keeps one across builds (`rebuild`) stops
    /// allocating once its vectors have grown to the table's size.
    struct build_scratch {
        std::vector<value_count> symbols, spare;       ///< the symbols by ascending value
        std::vector<std::uint64_t> weight, merged;     ///< leaf and merged-node weights
        std::vector<std::uint32_t> order, order_spare; ///< sort permutations
        std::vector<std::uint32_t> parent, depth;      ///< the Huffman tree
        std::vector<std::uint32_t> unlimited, length;  ///< code lengths by sequence number
        std::vector<std::uint32_t> histogram;          ///< radix-sort digit counts
    };

    /// Builds the book from sampled counts (entries with count 0 are ignored; duplicate values
    /// are a configuration error) and the total number of sampled words (for the residual ESC
    /// weight).
    huffman_code_book(std::span<const value_count> counts, std::uint64_t total_sampled_words,
                      const params& p) {
        build_scratch scratch;
        rebuild(counts, total_sampled_words, p, scratch);
    }

    huffman_code_book(std::span<const value_count> counts, std::uint64_t total_sampled_words)
        : huffman_code_book(counts, total_sampled_words, params{}) {}

    /// Replaces this book by the one built from `counts` (as the constructor does), reusing this
    /// book's tables and `scratch`'s working storage: once both have grown to the table's size, a
    /// rebuild allocates nothing. The result is exactly the book the constructor would build.
    /// Only the owner of a book that no compressor references may rebuild it (compressors hold
    /// books as `shared_ptr<const huffman_code_book>`; see sc2_shared_state). On a configuration
    /// error it throws and the book is left unspecified (rebuild it again before using it).
    void rebuild(std::span<const value_count> counts, std::uint64_t total_sampled_words,
                 const params& p, build_scratch& s) {
        require(p.max_code_length_bits >= 1 && p.max_code_length_bits <= max_supported_code_length,
                component, "max_code_length_bits", p.max_code_length_bits, "must be in 1..32");
        require(p.escape == esc_weight::residual || p.escape == esc_weight::max, component,
                "escape", static_cast<std::uint64_t>(p.escape), "must be residual or max");
        require(p.limit == length_limit::clamp_fix || p.limit == length_limit::drop, component,
                "limit", static_cast<std::uint64_t>(p.limit), "must be clamp_fix or drop");
        p_ = p;

        // Step 1: the symbols by ascending value (sequence numbers), ESC last.
        std::vector<value_count>& vc = s.symbols;
        vc.clear();
        for (const auto& c : counts)
            if (c.count > 0) vc.push_back(c);
        radix_sort(vc, s.spare, s.histogram, [](const value_count& c) { return c.value; });
        for (std::size_t i = 1; i < vc.size(); ++i)
            require(vc[i].value != vc[i - 1].value, component, "counts", vc[i].value,
                    "values must be unique");
        require(vc.size() + 1 <= max_symbols, component, "counts", vc.size(),
                "at most 2^20 - 1 distinct values");
        std::uint64_t sum = 0, largest = 0;
        for (const auto& c : vc) {
            sum = saturating_add(sum, c.count);
            largest = std::max(largest, c.count);
        }
        std::uint64_t esc = p.escape == esc_weight::residual
                                ? (total_sampled_words > sum ? total_sampled_words - sum : 1)
                                : saturating_add(largest, 1);
        const std::uint32_t max_len = p.max_code_length_bits;
        require((vc.size() + 1) <= (std::uint64_t{1} << max_len), component, "max_code_length_bits",
                max_len, "must satisfy symbols <= 2^max_code_length_bits");

        // Steps 2–3: lengths, with the chosen repair.
        huffman_lengths_into(vc, esc, s);
        if (p.limit == length_limit::drop) {
            for (;;) {
                bool over = false;
                for (std::size_t i = 0; i < vc.size(); ++i) over |= s.unlimited[i] > max_len;
                if (!over) break;
                std::size_t kept = 0;
                for (std::size_t i = 0; i < vc.size(); ++i) {
                    if (s.unlimited[i] > max_len)
                        esc = saturating_add(esc, vc[i].count);
                    else
                        vc[kept++] = vc[i];
                }
                vc.resize(kept);
                huffman_lengths_into(vc, esc, s);
            }
        }
        const std::size_t n = vc.size() + 1; // ESC has sequence number n − 1
        clamp_fix_into(max_len, s);
        const std::vector<std::uint32_t>& length = s.length;

        // Step 4: canonical order (length, sequence number) and codes.
        std::vector<std::uint32_t>& order = s.order;
        order.resize(n);
        for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
        radix_sort(order, s.order_spare, s.histogram, [&](std::uint32_t i) { return length[i]; });
        symbols_.resize(n);
        fcw_.fill(0);
        cnt_.fill(0);
        off_.fill(0);
        std::uint32_t codeword = 0, prev_len = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const std::uint32_t sq = order[k];
            const std::uint32_t len = length[sq];
            if (k > 0) codeword = (codeword + 1) << (len - prev_len);
            prev_len = len;
            symbol& sym = symbols_[k];
            sym.escape = sq == n - 1;
            sym.value = sym.escape ? 0 : vc[sq].value;
            sym.weight = sym.escape ? esc : vc[sq].count;
            sym.unlimited_length = s.unlimited[sq];
            sym.codeword = code{codeword, len};
            if (cnt_[len]++ == 0) {
                fcw_[len] = codeword;
                off_[len] = static_cast<std::uint32_t>(k);
            }
            if (sym.escape) {
                esc_ = sym.codeword;
                esc_index_ = static_cast<std::uint32_t>(k);
            }
        }
        de_lut_.resize(n);
        for (std::size_t k = 0; k < n; ++k) de_lut_[k] = symbols_[k].value;

        build_encoder_table();
        build_decoder_tables();

        // Version: explicit, or a digest of (value, length) in canonical order.
        if (p.version != 0) {
            id_ = p.version;
        } else {
            std::uint64_t h = mix64(max_len);
            for (const symbol& sym : symbols_)
                h = mix64(h ^ (std::uint64_t{sym.escape} << 63) ^ (std::uint64_t{sym.value} << 8) ^
                          sym.codeword.length);
            id_ = static_cast<std::uint32_t>(h ^ (h >> 32));
            if (id_ == 0) id_ = 1;
        }
    }

    /// The escape-only book: one symbol (ESC, code `0`), so every word costs 1 + 32 bits.
    [[nodiscard]] static huffman_code_book escape_only(const params& p) {
        return huffman_code_book(std::span<const value_count>{}, 0, p);
    }
    [[nodiscard]] static huffman_code_book escape_only() { return escape_only(params{}); }

    // --- hot path --------------------------------------------------------------------------

    /// Bits a word costs: its code length, or ESC length + 32 when it is not in the book.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t encoded_bits(std::uint32_t v) const noexcept {
        const std::size_t h = hash(v);
        const std::uint32_t m = match_window(h, v);
        const std::uint32_t c = cost_[h + first_of(m)]; // the slot after the window exists
        return m != 0 ? c : esc_cost_;
    }

    /// Σ `encoded_bits` of the `n` ≤ 64 aligned 32-bit little-endian words at `p` (a line).
    /// SSE2: each word's 4-slot window is compared at once and masked with the slots' payloads,
    /// (1 << 16) + code length for an entry and 0 for a free slot, then summed in a vector; the
    /// lanes' high halves count the words found and the low halves their code lengths, so a word
    /// costs no branch and no scalar select, and the words not found are priced as escapes at
    /// the end. (A free slot holds the word 0 with payload 0: a 0 that is in the book matches
    /// its own slot once, one that is not matches nothing that counts.)
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t
    encoded_bits_of_words(const std::byte* p, std::size_t n) const noexcept {
#if defined(__SSE2__)
        if constexpr (detail::simd_enabled) {
            const std::uint32_t* const keys = key_.data();
            const std::uint32_t* const payload = payload_.data();
            const std::uint32_t shift = hash_shift_;
            __m128i sum = _mm_setzero_si128();
            auto add_word = [&](std::uint32_t v, __m128i key) {
                const std::size_t h = (v * 0x9E3779B1u) >> shift;
                const __m128i found = _mm_cmpeq_epi32(
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(keys + h)), key);
                sum = _mm_add_epi32(
                    sum, _mm_and_si128(found, _mm_loadu_si128(
                                                  reinterpret_cast<const __m128i*>(payload + h))));
            };
            std::size_t i = 0;
            for (; i + 4 <= n; i += 4) { // the keys are broadcast from the words' own vector
                const __m128i four = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4 * i));
                std::uint32_t v[4];
                std::memcpy(v, p + 4 * i, 16);
                add_word(v[0], _mm_shuffle_epi32(four, _MM_SHUFFLE(0, 0, 0, 0)));
                add_word(v[1], _mm_shuffle_epi32(four, _MM_SHUFFLE(1, 1, 1, 1)));
                add_word(v[2], _mm_shuffle_epi32(four, _MM_SHUFFLE(2, 2, 2, 2)));
                add_word(v[3], _mm_shuffle_epi32(four, _MM_SHUFFLE(3, 3, 3, 3)));
            }
            for (; i < n; ++i) {
                std::uint32_t v;
                std::memcpy(&v, p + 4 * i, 4);
                add_word(v, _mm_set1_epi32(static_cast<int>(v)));
            }
            sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(1, 0, 3, 2)));
            sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(2, 3, 0, 1)));
            const auto total = static_cast<std::uint32_t>(_mm_cvtsi128_si32(sum));
            const std::uint32_t found_words = total >> 16;
            return (total & 0xFFFFu) + (static_cast<std::uint32_t>(n) - found_words) * esc_cost_;
        }
#endif
        std::uint32_t bits = 0;
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t v;
            std::memcpy(&v, p + 4 * i, 4);
            if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
            bits += encoded_bits(v);
        }
        return bits;
    }

    /// Appends the code of `v` (or ESC + v) to `w`.
    MEMSUB_ALWAYS_INLINE void encode(detail::bit_writer& w, std::uint32_t v) const noexcept {
        const std::size_t h = hash(v);
        const std::uint32_t m = match_window(h, v);
        const std::size_t at = h + first_of(m);
        if (m != 0 && cost_[at] <= max_supported_code_length) {
            w.put_small(code_bits_[at], cost_[at]);
        } else {
            w.put_small(esc_.bits, esc_.length);
            w.put_small(v, 32);
        }
    }

    /// Decodes one word (a symbol, or ESC + 32 raw bits). On failure returns the status and
    /// leaves the reader at the start of the offending codeword.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE decode_status decode(detail::fast_bit_reader& r,
                                                            std::uint32_t& out) const noexcept {
        const std::uint32_t max_len = p_.max_code_length_bits;
        const std::uint64_t window = r.window() >> (64 - max_len); // next max_len bits
        const std::uint32_t e =
            direct_[static_cast<std::size_t>(window >> (max_len - direct_bits_))];
        if (MEMSUB_LIKELY(e != 0)) {
            // Short code: ESC and its 32 raw bits (≤ 10 + 32 bits) are in the window too, so the
            // escape needs no branch.
            const std::uint32_t len = e >> 24, index = e & 0xFFFFFFu;
            const bool esc = index == esc_index_;
            const auto raw = static_cast<std::uint32_t>((r.window() << len) >> 32);
            if (!r.consume(len + (esc ? 32 : 0))) return decode_status::truncated;
            out = esc ? raw : de_lut_[index];
            return decode_status::ok;
        }
        const auto [len, index] = long_code(window);
        if (len == 0)
            return r.remaining() < max_len ? decode_status::truncated : decode_status::invalid_code;
        if (index != esc_index_) {
            if (!r.consume(len)) return decode_status::truncated;
            out = de_lut_[index];
            return decode_status::ok;
        }
        if (std::uint64_t{len} + 32 > r.remaining()) return decode_status::truncated;
        (void)r.consume(len);
        out = static_cast<std::uint32_t>(r.window() >> 32);
        (void)r.consume(32);
        return decode_status::ok;
    }

    /// Decodes `n` words from a payload of exactly `bits` bits (`bits` ≤ 8·payload.size(), the
    /// caller checks), the hot loop of SC² decompression: the window is reloaded from the
    /// payload at each word (one unaligned load while 8 bytes remain, a bounded byte loop near
    /// the end), a short code and a following escaped word are resolved from one window.
    /// Returns the status and the bit offset of the failing word, or ok with `consumed` = bits
    /// read.
    [[nodiscard]] decode_result decode_words(std::span<const std::byte> payload, std::uint32_t bits,
                                             std::uint32_t* out, std::uint32_t n,
                                             std::uint32_t& consumed) const noexcept {
        MEMSUB_ASSERT(bits <= payload.size() * 8);
        const std::byte* p = payload.data();
        const std::size_t size = payload.size();
        const std::uint32_t max_len = p_.max_code_length_bits;
        const unsigned shift = 64 - direct_bits_;
        // ESC is decoded straight from the window when its raw word is inside the window too (57
        // bits); a longer ESC goes through the tables.
        const bool esc_inline = esc_.length <= 25;
        const unsigned esc_shift = esc_inline ? 64 - esc_.length : 63;
        const std::uint32_t esc_total = esc_.length + 32;
        std::uint32_t pos = 0;
        for (std::uint32_t i = 0; i < n; ++i) {
            // ≥ 57 bits of the stream (or all that is left, then zeros).
            const std::uint64_t w = detail::load_bits64(p, size, pos);
            // ESC and its raw word: tested on the window itself, so that the next position is a
            // constant step (the prediction of this branch lets the next word start at once).
            if (esc_inline && (w >> esc_shift) == esc_.bits) {
                if (MEMSUB_UNLIKELY(esc_total > bits - pos)) return {decode_status::truncated, pos};
                out[i] = static_cast<std::uint32_t>((w << esc_.length) >> 32);
                pos += esc_total;
                continue;
            }
            const fast_entry& f = fast_[static_cast<std::size_t>(w >> shift)];
            if (f.count == 2 && i + 1 < n && f.total <= bits - pos) { // two short codes
                out[i] = f.v1;
                out[++i] = f.esc2 ? static_cast<std::uint32_t>((w << f.len12) >> 32) : f.v2;
                pos += f.total;
                continue;
            }
            if (MEMSUB_LIKELY(f.count != 0)) { // one short code (ESC: + 32 raw bits)
                const std::uint32_t len = f.len1;
                const std::uint32_t total = len + (f.esc ? 32u : 0u);
                if (MEMSUB_UNLIKELY(total > bits - pos)) return {decode_status::truncated, pos};
                out[i] = f.esc ? static_cast<std::uint32_t>((w << len) >> 32) : f.v1;
                pos += total;
                continue;
            }
            // Long code, from the next max_len bits.
            const std::uint64_t window = w >> (64 - max_len);
            const auto [len, index] = long_code(window);
            if (len == 0)
                return {bits - pos < max_len ? decode_status::truncated
                                             : decode_status::invalid_code,
                        pos};
            if (len > bits - pos) return {decode_status::truncated, pos};
            if (index != esc_index_) {
                out[i] = de_lut_[index];
                pos += len;
                continue;
            }
            if (std::uint64_t{len} + 32 > bits - pos) return {decode_status::truncated, pos};
            // The raw word may lie beyond this window (len up to 32): read it bit-exactly.
            std::uint32_t raw = 0;
            for (std::uint32_t k = 0; k < 32; ++k) {
                const std::uint32_t at = pos + len + k;
                raw = (raw << 1) |
                      ((std::to_integer<std::uint32_t>(p[at >> 3]) >> (7 - (at & 7))) & 1u);
            }
            out[i] = raw;
            pos += len + 32;
        }
        consumed = pos;
        return {};
    }

    // --- inspection (cold) -------------------------------------------------------------------

    [[nodiscard]] std::uint32_t id() const noexcept {
        return id_;
    }
    [[nodiscard]] const params& parameters() const noexcept {
        return p_;
    }
    [[nodiscard]] std::uint32_t max_code_length() const noexcept {
        return p_.max_code_length_bits;
    }
    /// Symbols including ESC.
    [[nodiscard]] std::size_t symbol_count() const noexcept {
        return symbols_.size();
    }
    /// Symbols in canonical order (the De-LUT), ESC included.
    [[nodiscard]] std::span<const symbol> canonical_symbols() const noexcept {
        return symbols_;
    }
    [[nodiscard]] code escape_code() const noexcept {
        return esc_;
    }
    /// The codeword of `v`, or nothing if `v` is coded as an escape.
    [[nodiscard]] std::optional<code> code_of(std::uint32_t v) const noexcept {
        const std::size_t h = hash(v);
        const std::uint32_t m = match_window(h, v);
        const std::size_t at = h + first_of(m);
        if (m == 0 || cost_[at] > max_supported_code_length) return std::nullopt;
        return code{code_bits_[at], cost_[at]};
    }
    /// §1.5 step 5 decode tables, for ℓ = 1 … max_code_length().
    [[nodiscard]] std::uint32_t first_codeword(std::uint32_t l) const noexcept {
        return fcw_[l];
    }
    [[nodiscard]] std::uint32_t count_of_length(std::uint32_t l) const noexcept {
        return cnt_[l];
    }
    [[nodiscard]] std::uint32_t offset_of_length(std::uint32_t l) const noexcept {
        return off_[l];
    }
    /// Kraft sum Σ 2^−ℓ as a fraction numerator / 2^max_code_length().
    [[nodiscard]] std::uint64_t kraft_numerator() const noexcept {
        std::uint64_t k = 0;
        for (std::uint32_t l = 1; l <= p_.max_code_length_bits; ++l)
            k += std::uint64_t{cnt_[l]} << (p_.max_code_length_bits - l);
        return k;
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        const std::uint64_t n = symbols_.size(), m = p_.max_code_length_bits;
        const auto lenw = static_cast<std::uint64_t>(std::bit_width(m));
        const auto idxw = static_cast<std::uint64_t>(std::bit_width(n));
        return n * (32 + m + lenw) + n * 32 + m * (m + 2 * idxw);
    }

    /// The Huffman code lengths of §1.5 step 2 for `vc` (ascending values) plus ESC (last),
    /// before any length limit. Exposed for tests.
    [[nodiscard]] static std::vector<std::uint32_t> huffman_lengths(std::span<const value_count> vc,
                                                                    std::uint64_t esc_weight) {
        build_scratch s;
        huffman_lengths_into(vc, esc_weight, s);
        return s.unlimited;
    }

    /// §1.5 step 3 `ClampFix`, exactly: lengths indexed by sequence number in, limited out.
    [[nodiscard]] static std::vector<std::uint32_t>
    clamp_fix(const std::vector<std::uint32_t>& unlimited, std::uint32_t max_len) {
        build_scratch s;
        s.unlimited = unlimited;
        clamp_fix_into(max_len, s);
        return s.length;
    }

private:
    /// Encoder table (values only; ESC is `esc_`): every value sits within `probes` slots of its
    /// home, so a lookup compares one fixed window of keys. A slot holds the full cost of its key
    /// (code length, or ESC + 32 bits), so free slots can hold a copy of the word 0 with its true
    /// cost: a window never matches a wrong entry, and no "occupied" test is needed.
    void build_encoder_table() {
        const std::size_t n = symbols_.size();
        std::size_t slots = 16;
        while (slots < 2 * n) slots *= 2;
        for (;;) {
            hash_shift_ = 32 - static_cast<std::uint32_t>(std::countr_zero(slots));
            key_.assign(slots + probes, 0);
            payload_.assign(slots + probes, 0);
            cost_.assign(slots + probes, 0); // 0 = free while placing
            code_bits_.assign(slots + probes, 0);
            bool fits = true;
            for (const symbol& sym : symbols_) {
                if (sym.escape) continue;
                std::size_t h = hash(sym.value), end = h + probes;
                while (h < end && cost_[h] != 0) ++h;
                if (h == end) {
                    fits = false;
                    break;
                }
                key_[h] = sym.value;
                payload_[h] = (std::uint32_t{1} << 16) | sym.codeword.length;
                cost_[h] = static_cast<std::uint8_t>(sym.codeword.length);
                code_bits_[h] = sym.codeword.bits;
            }
            if (fits) break;
            slots *= 2;
        }
        // Free slots: the word 0 and its cost (its code, or ESC + 32 raw bits).
        std::uint8_t zero_cost = static_cast<std::uint8_t>(esc_.length + 32);
        std::uint32_t zero_code = 0;
        for (const symbol& sym : symbols_)
            if (!sym.escape && sym.value == 0) {
                zero_cost = static_cast<std::uint8_t>(sym.codeword.length);
                zero_code = sym.codeword.bits;
            }
        for (std::size_t i = 0; i < cost_.size(); ++i)
            if (cost_[i] == 0) {
                key_[i] = 0;
                cost_[i] = zero_cost;
                code_bits_[i] = zero_code;
            }
        esc_cost_ = esc_.length + 32;
    }

    /// Direct decode table for codes of at most `direct_bits_` bits, and the line decoder's
    /// table: the same index, resolving up to two short codes per lookup (the second when it
    /// ends within the indexed bits; it may be ESC, whose 32 raw bits then follow inside the
    /// decoder's 57-bit window), values stored inline.
    void build_decoder_tables() {
        const std::size_t n = symbols_.size();
        direct_bits_ = std::min(p_.max_code_length_bits, direct_bits_max);
        direct_.assign(std::size_t{1} << direct_bits_, 0);
        for (std::size_t k = 0; k < n; ++k) {
            const code c = symbols_[k].codeword;
            if (c.length > direct_bits_) continue;
            const std::uint32_t first = c.bits << (direct_bits_ - c.length);
            const std::uint32_t span = std::uint32_t{1} << (direct_bits_ - c.length);
            for (std::uint32_t e = 0; e < span; ++e)
                direct_[first + e] = (c.length << 24) | static_cast<std::uint32_t>(k);
        }
        fast_.assign(direct_.size(), fast_entry{});
        const std::uint32_t kmask = (std::uint32_t{1} << direct_bits_) - 1;
        for (std::uint32_t x = 0; x < direct_.size(); ++x) {
            const std::uint32_t e1 = direct_[x];
            if (e1 == 0) continue;
            fast_entry& f = fast_[x];
            const std::uint32_t l1 = e1 >> 24, i1 = e1 & 0xFFFFFFu;
            f.len1 = static_cast<std::uint8_t>(l1);
            f.count = 1;
            f.esc = i1 == esc_index_ ? 1 : 0;
            f.v1 = f.esc ? 0 : de_lut_[i1];
            f.total = static_cast<std::uint8_t>(l1 + (f.esc ? 32 : 0));
            if (f.esc || l1 >= direct_bits_) continue;
            const std::uint32_t e2 = direct_[(x << l1) & kmask];
            if (e2 == 0) continue;
            const std::uint32_t l2 = e2 >> 24, i2 = e2 & 0xFFFFFFu;
            if (l1 + l2 > direct_bits_) continue;
            f.count = 2;
            f.esc2 = i2 == esc_index_ ? 1 : 0;
            f.v2 = f.esc2 ? 0 : de_lut_[i2];
            f.len12 = static_cast<std::uint8_t>(l1 + l2);
            f.total = static_cast<std::uint8_t>(l1 + l2 + (f.esc2 ? 32 : 0));
        }
    }

    /// Stable LSD radix sort of `a` by `key` (unsigned, up to 64 bits), 11 bits a pass; passes
    /// over digits on which every key agrees are skipped (VFT values and counts are short). Short
    /// inputs use an insertion sort. `spare` and `histogram` are working storage.
    template <class T, class Key>
    static void radix_sort(std::vector<T>& a, std::vector<T>& spare,
                           std::vector<std::uint32_t>& histogram, Key key) {
        const std::size_t n = a.size();
        if (n <= 48) {
            for (std::size_t i = 1; i < n; ++i) {
                const T x = a[i];
                const auto kx = key(x);
                std::size_t j = i;
                for (; j > 0 && key(a[j - 1]) > kx; --j) a[j] = a[j - 1];
                a[j] = x;
            }
            return;
        }
        constexpr unsigned digit_bits = 11;
        constexpr std::uint64_t digit_mask = (std::uint64_t{1} << digit_bits) - 1;
        std::uint64_t any = 0, all = ~std::uint64_t{0};
        for (const T& x : a) {
            const auto k = static_cast<std::uint64_t>(key(x));
            any |= k;
            all &= k;
        }
        const std::uint64_t varying = any ^ all;
        spare.resize(n);
        histogram.resize(std::size_t{1} << digit_bits);
        for (unsigned shift = 0; shift < 64; shift += digit_bits) {
            if (((varying >> shift) & digit_mask) == 0) continue;
            std::fill(histogram.begin(), histogram.end(), 0u);
            for (const T& x : a)
                ++histogram[(static_cast<std::uint64_t>(key(x)) >> shift) & digit_mask];
            std::uint32_t at = 0;
            for (std::uint32_t& h : histogram) {
                const std::uint32_t c = h;
                h = at;
                at += c;
            }
            for (const T& x : a)
                spare[histogram[(static_cast<std::uint64_t>(key(x)) >> shift) & digit_mask]++] = x;
            a.swap(spare);
        }
    }

    /// §1.5 step 2 into `s.unlimited` (by sequence number: `vc` ascending, ESC last). The
    /// priority queue keyed by (weight, sequence number) is replaced by the two-queue method,
    /// which pops the same nodes in the same order: leaves sorted by (weight, sequence number),
    /// and merged nodes, made in non-decreasing weight (saturating sums are monotone) with
    /// increasing sequence numbers that exceed every leaf's, so a leaf wins a weight tie.
    static void huffman_lengths_into(std::span<const value_count> vc, std::uint64_t esc_weight,
                                     build_scratch& s) {
        const std::size_t n = vc.size() + 1;
        s.unlimited.assign(n, 0);
        if (n == 1) {
            s.unlimited[0] = 1;
            return;
        }
        s.weight.resize(n);
        for (std::size_t i = 0; i + 1 < n; ++i) s.weight[i] = vc[i].count;
        s.weight[n - 1] = esc_weight;
        s.order.resize(n);
        for (std::uint32_t i = 0; i < n; ++i) s.order[i] = i;
        const std::uint64_t* w = s.weight.data();
        radix_sort(s.order, s.order_spare, s.histogram, [w](std::uint32_t i) { return w[i]; });
        s.parent.assign(2 * n - 1, 0);
        s.merged.resize(n - 1);
        std::size_t leaf = 0, merged = 0, made = 0;
        auto pop = [&](std::uint64_t& weight) -> std::uint32_t {
            if (leaf < n && (merged == made || w[s.order[leaf]] <= s.merged[merged])) {
                const std::uint32_t i = s.order[leaf++];
                weight = w[i];
                return i;
            }
            weight = s.merged[merged];
            return static_cast<std::uint32_t>(n + merged++);
        };
        for (; made + 1 < n; ++made) {
            std::uint64_t wa = 0, wb = 0;
            const std::uint32_t a = pop(wa), b = pop(wb);
            s.parent[a] = static_cast<std::uint32_t>(n + made);
            s.parent[b] = static_cast<std::uint32_t>(n + made);
            s.merged[made] = saturating_add(wa, wb);
        }
        s.depth.assign(2 * n - 1, 0);
        for (std::size_t i = 2 * n - 2; i-- > 0;) s.depth[i] = s.depth[s.parent[i]] + 1;
        for (std::size_t i = 0; i < n; ++i) s.unlimited[i] = s.depth[i];
    }

    /// §1.5 step 3 `ClampFix`, exactly, from `s.unlimited` into `s.length`. A code within the
    /// limit is its own result (a full Huffman code has Kraft sum 1, so step b moves nothing and
    /// step c hands every symbol its own length back).
    static void clamp_fix_into(std::uint32_t max_len, build_scratch& s) {
        const std::vector<std::uint32_t>& unlimited = s.unlimited;
        s.length.assign(unlimited.begin(), unlimited.end());
        std::uint32_t longest = 0;
        for (const std::uint32_t l : unlimited) longest = std::max(longest, l);
        if (longest <= max_len) return;
        std::array<std::uint64_t, max_supported_code_length + 2> count{};
        for (const std::uint32_t l : unlimited) ++count[std::min(l, max_len)]; // a.
        auto kraft = [&] {
            std::uint64_t k = 0;
            for (std::uint32_t l = 1; l <= max_len; ++l) k += count[l] << (max_len - l);
            return k;
        };
        while (kraft() > (std::uint64_t{1} << max_len)) { // b.
            std::uint32_t l = max_len - 1;
            while (count[l] == 0) --l;
            --count[l];
            ++count[l + 1];
        }
        // c. hand out in canonical order of the unlimited code.
        s.order.resize(unlimited.size());
        for (std::uint32_t i = 0; i < s.order.size(); ++i) s.order[i] = i;
        const std::uint32_t* u = unlimited.data();
        radix_sort(s.order, s.order_spare, s.histogram, [u](std::uint32_t i) { return u[i]; });
        std::uint32_t l = 1;
        for (const std::uint32_t sq : s.order) {
            while (count[l] == 0) ++l;
            --count[l];
            s.length[sq] = l;
        }
    }

    /// Bit i set when slot h + i holds `v` (i < probes).
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t match_window(std::size_t h,
                                                                  std::uint32_t v) const noexcept {
        const std::uint32_t* k = key_.data() + h;
        if constexpr (detail::simd_enabled) {
            using arch = detail::arch_for_bytes_t<detail::simd_arch, 4 * probes>;
            using batch = xsimd::batch<std::uint32_t, arch>;
            if constexpr (batch::size == probes)
                return static_cast<std::uint32_t>(
                    detail::lane_mask(batch::load_unaligned(k) == batch(v)));
        }
        std::uint32_t m = 0;
        for (unsigned i = 0; i < probes; ++i) m |= static_cast<std::uint32_t>(k[i] == v) << i;
        return m;
    }
    /// The first slot of a window's match mask, or `probes` when nothing matched (the tables
    /// have a slot after the last window, so reading it is safe).
    [[nodiscard]] static MEMSUB_ALWAYS_INLINE std::uint32_t first_of(std::uint32_t m) noexcept {
        return static_cast<std::uint32_t>(std::countr_zero(m | (1u << probes)));
    }

    /// The code longer than the direct table that starts `window` (the next max_len bits,
    /// right-aligned): the FCW/CNT/OFF comparators of §1.5. {length, symbol index}, or a length
    /// of 0 when no code matches.
    struct long_match {
        std::uint32_t length;
        std::uint32_t index;
    };
    [[nodiscard]] long_match long_code(std::uint64_t window) const noexcept {
        const std::uint32_t max_len = p_.max_code_length_bits;
        for (std::uint32_t l = direct_bits_ + 1; l <= max_len; ++l) {
            if (cnt_[l] == 0) continue;
            const auto c = static_cast<std::uint32_t>(window >> (max_len - l));
            if (c >= fcw_[l] && c - fcw_[l] < cnt_[l]) return {l, off_[l] + (c - fcw_[l])};
        }
        return {0, 0};
    }

    /// Slots a value may be displaced from its home in the encoder table.
    static constexpr unsigned probes = 4;

    [[nodiscard]] static constexpr std::uint64_t saturating_add(std::uint64_t a,
                                                                std::uint64_t b) noexcept {
        return a + b < a ? ~std::uint64_t{0} : a + b;
    }
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::size_t hash(std::uint32_t v) const noexcept {
        return static_cast<std::size_t>((v * 0x9E3779B1u) >> hash_shift_);
    }

    params p_;
    std::vector<symbol> symbols_;
    std::vector<std::uint32_t> de_lut_; ///< values in canonical order (the De-LUT)
    code esc_{};
    std::uint32_t esc_index_ = 0;
    std::array<std::uint32_t, max_supported_code_length + 1> fcw_{}, cnt_{}, off_{};
    std::vector<std::uint32_t> key_;       ///< encoder table: the value of each slot
    std::vector<std::uint32_t> payload_;   ///< (1 << 16) + code length; 0 = free slot
    std::vector<std::uint8_t> cost_;       ///< its bits: code length, or ESC + 32 (≥ 33)
    std::vector<std::uint32_t> code_bits_; ///< its codeword (when cost_ ≤ 32)
    std::uint32_t esc_cost_ = 33;          ///< ESC length + 32
    std::uint32_t hash_shift_ = 28;
    std::vector<std::uint32_t> direct_;
    std::uint32_t direct_bits_ = 10;
    /// One or two decoded short codes for a `direct_bits_`-bit prefix (count 0 = long code);
    /// `total` = bits of the whole entry (codes + the raw word of an escaped one).
    struct fast_entry {
        std::uint32_t v1 = 0, v2 = 0;
        std::uint8_t len1 = 0, len12 = 0, total = 0, count = 0, esc = 0, esc2 = 0;
    };
    std::vector<fast_entry> fast_;
    std::uint32_t id_ = 1;
};

} // namespace memsub::compression
