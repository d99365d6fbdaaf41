// memsub — SC², statistical (Huffman) cache-line compression, and its value-frequency table.
//
// Citation: A. Arelakis, P. Stenström, "SC²: A Statistical Compression Cache Scheme", ISCA 2014;
// parameters from the LATTE-CC dissertation (Arunkumar, Ch. 4.3.3). Normative text: spec
// compressors.md §1.5 and §2.2.
//
// Three pieces:
//   * `value_frequency_table` (VFT) samples 32-bit words: a set-associative table of (value,
//     saturating counter); a line inserted into the cache increments each word's counter
//     (allocating on a miss, evicting the minimum-count entry of the set, lowest way on a tie),
//     an evicted line decrements the counters of its words that are present.
//   * `huffman_code_book` (huffman_code_book.hpp): the canonical, length-limited code built from
//     the VFT, shared between compressors through `std::shared_ptr<const huffman_code_book>`.
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
#include <vector>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/detail/params_accessors.hpp>
#include <memsub/compression/huffman_code_book.hpp>
#include <memsub/config.hpp>
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
} // namespace detail

/// SC²'s value-frequency table (sampling). See the file comment.
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
        using memsub::detail::require;
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
        value_.assign(p.entries, 0);
        count_.assign(p.entries, 0);
    }

    /// A word seen once more (a fill or a dirty word written back).
    void sample(std::uint32_t v) noexcept {
        ++total_;
        std::uint32_t* val = &value_[set_of(v) * p_.ways];
        std::uint32_t* cnt = &count_[set_of(v) * p_.ways];
        std::uint32_t victim = 0;
        for (std::uint32_t w = 0; w < p_.ways; ++w) {
            if (cnt[w] != 0 && val[w] == v) {
                if (cnt[w] < max_count_) ++cnt[w];
                return;
            }
            if (cnt[w] < cnt[victim]) victim = w;
        }
        val[victim] = v; // a free entry has count 0, the minimum
        cnt[victim] = 1;
    }

    /// A word that left the cache: its counter (if present) is decremented.
    void forget(std::uint32_t v) noexcept {
        std::uint32_t* val = &value_[set_of(v) * p_.ways];
        std::uint32_t* cnt = &count_[set_of(v) * p_.ways];
        for (std::uint32_t w = 0; w < p_.ways; ++w)
            if (cnt[w] != 0 && val[w] == v) {
                --cnt[w];
                return;
            }
    }

    /// Every aligned 32-bit word of a line inserted into the cache.
    void on_insert(std::span<const std::byte> line) noexcept {
        for (std::size_t i = 0; i + 4 <= line.size(); i += 4)
            sample(detail::sc2_load_word(line, i / 4));
    }
    /// Every aligned 32-bit word of a line evicted from the cache.
    void on_evict(std::span<const std::byte> line) noexcept {
        for (std::size_t i = 0; i + 4 <= line.size(); i += 4)
            forget(detail::sc2_load_word(line, i / 4));
    }

    /// Words sampled so far (the residual ESC weight uses it).
    [[nodiscard]] std::uint64_t total_sampled_words() const noexcept { return total_; }

    /// The live (value, count) pairs, ascending by value (cold path, allocates).
    [[nodiscard]] std::vector<value_count> counts() const {
        std::vector<value_count> out;
        for (std::size_t i = 0; i < value_.size(); ++i)
            if (count_[i] != 0) out.push_back({value_[i], count_[i]});
        std::sort(out.begin(), out.end(),
                  [](const value_count& a, const value_count& b) { return a.value < b.value; });
        return out;
    }

    /// Builds a shareable code book from the current contents (cold path).
    [[nodiscard]] std::shared_ptr<const huffman_code_book>
    build_code_book(const huffman_code_book::params& bp = huffman_code_book::params{}) const {
        const std::vector<value_count> c = counts();
        return std::make_shared<const huffman_code_book>(c, total_, bp);
    }

    void clear() noexcept {
        std::fill(count_.begin(), count_.end(), 0u);
        std::fill(value_.begin(), value_.end(), 0u);
        total_ = 0;
    }

    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{p_.entries} * (32 + p_.counter_bits);
    }

private:
    [[nodiscard]] std::size_t set_of(std::uint32_t v) const noexcept {
        return sets_ == 1 ? 0 : static_cast<std::size_t>((v * 0x9E3779B1u) >> set_shift_);
    }

    params p_;
    std::uint32_t sets_ = 64, set_shift_ = 26, max_count_ = 4095;
    std::vector<std::uint32_t> value_, count_;
    std::uint64_t total_ = 0;
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
    /// SC² stores lines byte-aligned (spec §2.1 G3, §2.2): `default_storage_rule(c)` has S = 1.
    static constexpr bool byte_aligned_storage = true;

    sc2() : sc2(params{}) {}
    explicit sc2(const params& p) : p_(p) {
        detail::require_line_bytes(p.line_bytes, component);
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
        std::uint32_t bits = 0;
        for (std::uint32_t i = 0; i < words_; ++i)
            bits += book_->encoded_bits(detail::sc2_load_word(line, i));
        return bits;
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

} // namespace memsub::compression
