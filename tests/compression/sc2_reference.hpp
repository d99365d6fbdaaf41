// Reference models for the SC² tests and benchmarks: the value-frequency table, the code-book
// construction and the size path exactly as memsub implemented them before the table was
// reorganised (one 16-way scalar scan per word) and the book builder made incremental. The
// tests check that today's library gives the same counts, the same books and the same sizes;
// bench/compressors.cpp times today's code against these as its same-run baseline. Decoding is
// left out (the library's decoder is unchanged).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/compression/huffman_code_book.hpp>
#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>

namespace memsub_test::sc2_reference {

using memsub::mix64;
using memsub::compression::value_count;

/// The Huffman code book as first implemented (std::priority_queue, fresh vectors per build).
class huffman_code_book_v0 {
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

    /// Builds the book from sampled counts (entries with count 0 are ignored; duplicate values
    /// are a configuration error) and the total number of sampled words (for the residual ESC
    /// weight).
    huffman_code_book_v0(std::span<const value_count> counts, std::uint64_t total_sampled_words,
                         const params& p)
        : p_(p) {
        using memsub::require;
        require(p.max_code_length_bits >= 1 && p.max_code_length_bits <= max_supported_code_length,
                component, "max_code_length_bits", p.max_code_length_bits, "must be in 1..32");
        require(p.escape == esc_weight::residual || p.escape == esc_weight::max, component,
                "escape", static_cast<std::uint64_t>(p.escape), "must be residual or max");
        require(p.limit == length_limit::clamp_fix || p.limit == length_limit::drop, component,
                "limit", static_cast<std::uint64_t>(p.limit), "must be clamp_fix or drop");

        std::vector<value_count> vc;
        vc.reserve(counts.size());
        for (const auto& c : counts)
            if (c.count > 0) vc.push_back(c);
        std::sort(vc.begin(), vc.end(),
                  [](const value_count& a, const value_count& b) { return a.value < b.value; });
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
        std::vector<std::uint32_t> unlimited;
        if (p.limit == length_limit::drop) {
            for (;;) {
                unlimited = huffman_lengths(vc, esc);
                bool over = false;
                for (std::size_t i = 0; i < vc.size(); ++i) over |= unlimited[i] > max_len;
                if (!over) break;
                std::vector<value_count> kept;
                for (std::size_t i = 0; i < vc.size(); ++i) {
                    if (unlimited[i] > max_len)
                        esc = saturating_add(esc, vc[i].count);
                    else
                        kept.push_back(vc[i]);
                }
                vc.swap(kept);
            }
        } else {
            unlimited = huffman_lengths(vc, esc);
        }
        const std::size_t n = vc.size() + 1; // ESC has sequence number n − 1
        std::vector<std::uint32_t> length = clamp_fix(unlimited, max_len);

        // Step 4: canonical order (length, sequence number) and codes.
        std::vector<std::uint32_t> order(n);
        for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return length[a] < length[b]; });
        symbols_.resize(n);
        std::uint32_t codeword = 0, prev_len = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const std::uint32_t s = order[k];
            const std::uint32_t len = length[s];
            if (k > 0) codeword = (codeword + 1) << (len - prev_len);
            prev_len = len;
            symbol& sym = symbols_[k];
            sym.escape = s == n - 1;
            sym.value = sym.escape ? 0 : vc[s].value;
            sym.weight = sym.escape ? esc : vc[s].count;
            sym.unlimited_length = unlimited[s];
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

        // Encoder hash table (values only; ESC is `esc_`): every value sits within `probes`
        // slots of its home, so a lookup reads a fixed window without branching on the probes.
        std::size_t slots = 16;
        while (slots < 2 * n) slots *= 2;
        for (;;) {
            hash_shift_ = 32 - static_cast<std::uint32_t>(std::countr_zero(slots));
            entry_.assign(slots + probes - 1, 0);
            code_bits_.assign(slots + probes - 1, 0);
            bool fits = true;
            for (const symbol& sym : symbols_) {
                if (sym.escape) continue;
                std::size_t h = hash(sym.value), end = h + probes;
                while (h < end && entry_[h] != 0) ++h;
                if (h == end) {
                    fits = false;
                    break;
                }
                entry_[h] = (std::uint64_t{sym.value} << 8) | sym.codeword.length;
                code_bits_[h] = sym.codeword.bits;
            }
            if (fits) break;
            slots *= 2;
        }

        // Direct decode table for codes of at most `direct_bits_` bits.
        direct_bits_ = std::min(max_len, direct_bits_max);
        direct_.assign(std::size_t{1} << direct_bits_, 0);
        for (std::size_t k = 0; k < n; ++k) {
            const code c = symbols_[k].codeword;
            if (c.length > direct_bits_) continue;
            const std::uint32_t first = c.bits << (direct_bits_ - c.length);
            const std::uint32_t span = std::uint32_t{1} << (direct_bits_ - c.length);
            for (std::uint32_t e = 0; e < span; ++e)
                direct_[first + e] = (c.length << 24) | static_cast<std::uint32_t>(k);
        }

        // Line-decoder table: the same index, resolving up to two short codes per lookup (the
        // second when it ends within the indexed bits; it may be ESC, whose 32 raw bits then
        // follow inside the decoder's 57-bit window), values stored inline.
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

        // Version: explicit, or a digest of (value, length) in canonical order.
        if (p.version != 0) {
            id_ = p.version;
        } else {
            std::uint64_t h = mix64(max_len);
            for (const symbol& s : symbols_)
                h = mix64(h ^ (std::uint64_t{s.escape} << 63) ^ (std::uint64_t{s.value} << 8) ^
                          s.codeword.length);
            id_ = static_cast<std::uint32_t>(h ^ (h >> 32));
            if (id_ == 0) id_ = 1;
        }
    }

    huffman_code_book_v0(std::span<const value_count> counts, std::uint64_t total_sampled_words)
        : huffman_code_book_v0(counts, total_sampled_words, params{}) {}

    /// The escape-only book: one symbol (ESC, code `0`), so every word costs 1 + 32 bits.
    [[nodiscard]] static huffman_code_book_v0 escape_only(const params& p) {
        return huffman_code_book_v0(std::span<const value_count>{}, 0, p);
    }
    [[nodiscard]] static huffman_code_book_v0 escape_only() { return escape_only(params{}); }

    // --- hot path --------------------------------------------------------------------------

    /// Bits a word costs: its code length, or ESC length + 32 when it is not in the book.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint32_t encoded_bits(std::uint32_t v) const noexcept {
        const std::uint64_t* e = entry_.data() + hash(v);
        const std::uint64_t key = std::uint64_t{v} << 8;
        std::uint64_t len = esc_.length + 32;
        for (unsigned i = 0; i < probes; ++i) {
            const std::uint64_t x = e[i] ^ key; // = the length iff the value matches
            len = x - 1 < max_supported_code_length ? x : len;
        }
        return static_cast<std::uint32_t>(len);
    }

    // --- inspection (cold) -------------------------------------------------------------------

    [[nodiscard]] std::uint32_t id() const noexcept { return id_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] std::uint32_t max_code_length() const noexcept { return p_.max_code_length_bits; }
    /// Symbols including ESC.
    [[nodiscard]] std::size_t symbol_count() const noexcept { return symbols_.size(); }
    /// Symbols in canonical order (the De-LUT), ESC included.
    [[nodiscard]] std::span<const symbol> canonical_symbols() const noexcept { return symbols_; }
    [[nodiscard]] code escape_code() const noexcept { return esc_; }
    /// The codeword of `v`, or nothing if `v` is coded as an escape.
    [[nodiscard]] std::optional<code> code_of(std::uint32_t v) const noexcept {
        const std::size_t h = hash(v);
        for (unsigned i = 0; i < probes; ++i)
            if (entry_[h + i] != 0 && (entry_[h + i] >> 8) == v)
                return code{code_bits_[h + i], static_cast<std::uint32_t>(entry_[h + i] & 0xFF)};
        return std::nullopt;
    }
    /// §1.5 step 5 decode tables, for ℓ = 1 … max_code_length().
    [[nodiscard]] std::uint32_t first_codeword(std::uint32_t l) const noexcept { return fcw_[l]; }
    [[nodiscard]] std::uint32_t count_of_length(std::uint32_t l) const noexcept { return cnt_[l]; }
    [[nodiscard]] std::uint32_t offset_of_length(std::uint32_t l) const noexcept { return off_[l]; }
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
        const std::size_t n = vc.size() + 1;
        std::vector<std::uint32_t> len(n, 0);
        if (n == 1) {
            len[0] = 1;
            return len;
        }
        using item = std::pair<std::uint64_t, std::uint32_t>; // (weight, sequence number)
        std::priority_queue<item, std::vector<item>, std::greater<>> q;
        for (std::uint32_t i = 0; i < n; ++i) q.emplace(i + 1 < n ? vc[i].count : esc_weight, i);
        std::vector<std::uint32_t> parent(2 * n - 1, 0);
        std::uint32_t next = static_cast<std::uint32_t>(n);
        while (q.size() > 1) {
            const item a = q.top();
            q.pop();
            const item b = q.top();
            q.pop();
            parent[a.second] = next;
            parent[b.second] = next;
            q.emplace(saturating_add(a.first, b.first), next);
            ++next;
        }
        std::vector<std::uint32_t> depth(2 * n - 1, 0);
        for (std::size_t i = 2 * n - 2; i-- > 0;) depth[i] = depth[parent[i]] + 1;
        for (std::size_t i = 0; i < n; ++i) len[i] = depth[i];
        return len;
    }

    /// §1.5 step 3 `ClampFix`, exactly: lengths indexed by sequence number in, limited out.
    [[nodiscard]] static std::vector<std::uint32_t>
    clamp_fix(const std::vector<std::uint32_t>& unlimited, std::uint32_t max_len) {
        std::vector<std::uint64_t> count(max_len + 2, 0);
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
        std::vector<std::uint32_t> order(unlimited.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return unlimited[a] < unlimited[b];
        });
        std::vector<std::uint32_t> out(unlimited.size());
        std::uint32_t l = 1;
        for (const std::uint32_t s : order) {
            while (count[l] == 0) ++l;
            --count[l];
            out[s] = l;
        }
        return out;
    }

private:
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
    std::vector<std::uint64_t> entry_;     ///< (value << 8) | length; 0 = empty
    std::vector<std::uint32_t> code_bits_; ///< codeword of the entry
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

/// The value-frequency table as first implemented: values and counters in two arrays, one scalar
/// scan of the set per word that looks for the value and tracks the LFU victim as it goes.
class value_frequency_table_v0 {
public:
    struct params {
        std::uint32_t entries = 1024;
        std::uint32_t ways = 16;
        std::uint32_t counter_bits = 12;
    };

    value_frequency_table_v0() : value_frequency_table_v0(params{}) {}
    explicit value_frequency_table_v0(const params& p) : p_(p) {
        sets_ = p.entries / p.ways;
        set_shift_ = 32 - static_cast<std::uint32_t>(std::countr_zero(sets_));
        max_count_ =
            p.counter_bits == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << p.counter_bits) - 1;
        value_.assign(p.entries, 0);
        count_.assign(p.entries, 0);
    }

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
        val[victim] = v;
        cnt[victim] = 1;
    }

    void forget(std::uint32_t v) noexcept {
        std::uint32_t* val = &value_[set_of(v) * p_.ways];
        std::uint32_t* cnt = &count_[set_of(v) * p_.ways];
        for (std::uint32_t w = 0; w < p_.ways; ++w)
            if (cnt[w] != 0 && val[w] == v) {
                --cnt[w];
                return;
            }
    }

    void on_insert(std::span<const std::byte> line) noexcept {
        for (std::size_t i = 0; i + 4 <= line.size(); i += 4) sample(load_word(line, i / 4));
    }
    void on_evict(std::span<const std::byte> line) noexcept {
        for (std::size_t i = 0; i + 4 <= line.size(); i += 4) forget(load_word(line, i / 4));
    }

    [[nodiscard]] std::uint64_t total_sampled_words() const noexcept { return total_; }

    [[nodiscard]] std::vector<value_count> counts() const {
        std::vector<value_count> out;
        for (std::size_t i = 0; i < value_.size(); ++i)
            if (count_[i] != 0) out.push_back({value_[i], count_[i]});
        std::sort(out.begin(), out.end(),
                  [](const value_count& a, const value_count& b) { return a.value < b.value; });
        return out;
    }

    [[nodiscard]] std::shared_ptr<const huffman_code_book_v0>
    build_code_book(const huffman_code_book_v0::params& bp = huffman_code_book_v0::params{}) const {
        const std::vector<value_count> c = counts();
        return std::make_shared<const huffman_code_book_v0>(c, total_, bp);
    }

    void clear() noexcept {
        std::fill(count_.begin(), count_.end(), 0u);
        std::fill(value_.begin(), value_.end(), 0u);
        total_ = 0;
    }

    [[nodiscard]] static std::uint32_t load_word(std::span<const std::byte> line,
                                                 std::size_t i) noexcept {
        std::uint32_t w;
        std::memcpy(&w, line.data() + 4 * i, 4);
        if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);
        return w;
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

/// SC²'s size path as first implemented: one hashed 4-slot probe of the book per word.
[[nodiscard]] inline std::uint32_t size_bits_v0(const huffman_code_book_v0& book,
                                                std::span<const std::byte> line) noexcept {
    std::uint32_t bits = 0;
    for (std::size_t i = 0; i + 4 <= line.size(); i += 4)
        bits += book.encoded_bits(value_frequency_table_v0::load_word(line, i / 4));
    return bits;
}

} // namespace memsub_test::sc2_reference
