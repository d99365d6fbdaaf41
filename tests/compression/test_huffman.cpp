// Tests for memsub::compression::huffman_code_book (docs/mechanisms/compressors.md §1.5 code
// generation, §4.2 vectors S1 and S2): goldens, Huffman optimality against an independent cost
// model, the length limit, canonical order, prefix-freeness and the decoder.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/huffman_code_book.hpp>
#include <memsub/core/rng.hpp>

namespace mc = memsub::compression;
using book_t = mc::huffman_code_book;

namespace {

std::string code_str(book_t::code c) {
    std::string s;
    for (std::uint32_t i = c.length; i-- > 0;) s += ((c.bits >> i) & 1u) ? '1' : '0';
    return s;
}

// Optimal Huffman cost Σ w·len, computed independently: the sum of all merged weights.
std::uint64_t optimal_cost(std::vector<std::uint64_t> w) {
    if (w.size() < 2) return w.empty() ? 0 : w[0];
    std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<>> q(w.begin(),
                                                                                     w.end());
    std::uint64_t cost = 0;
    while (q.size() > 1) {
        const auto a = q.top();
        q.pop();
        const auto b = q.top();
        q.pop();
        cost += a + b;
        q.push(a + b);
    }
    return cost;
}

std::vector<mc::value_count> random_counts(memsub::xoshiro256ss& rng, std::size_t n) {
    std::set<std::uint32_t> used;
    std::vector<mc::value_count> v;
    while (v.size() < n) {
        const auto value = static_cast<std::uint32_t>(rng.below(4) == 0 ? rng.below(64) : rng());
        if (!used.insert(value).second) continue;
        // Skewed (Zipf-like) and flat weights, with many ties.
        const std::uint64_t count = rng.below(2)
                                        ? 1 + rng.below(8)
                                        : 1 + (std::uint64_t{1} << rng.below(20)) / (1 + v.size());
        v.push_back({value, count});
    }
    return v;
}

// Structural checks every book must pass (§1.5 steps 3–5).
void check_book(const book_t& b) {
    const std::uint32_t max_len = b.max_code_length();
    const auto syms = b.canonical_symbols();
    REQUIRE(syms.size() == b.symbol_count());
    // Kraft ≤ 1 and the length limit.
    REQUIRE(b.kraft_numerator() <= (std::uint64_t{1} << max_len));
    int escapes = 0;
    for (const auto& s : syms) {
        REQUIRE(s.codeword.length >= 1);
        REQUIRE(s.codeword.length <= max_len);
        escapes += s.escape ? 1 : 0;
    }
    REQUIRE(escapes == 1);
    // Canonical order: sorted by (length, sequence = value order, ESC last); codes consecutive
    // within a length, shorter codes numerically smaller prefixes.
    for (std::size_t k = 1; k < syms.size(); ++k) {
        const auto& a = syms[k - 1];
        const auto& c = syms[k];
        REQUIRE(a.codeword.length <= c.codeword.length);
        if (a.codeword.length == c.codeword.length) {
            REQUIRE(!a.escape);
            if (!c.escape) REQUIRE(a.value < c.value);
        }
        const std::uint64_t next = (std::uint64_t{a.codeword.bits} + 1)
                                   << (c.codeword.length - a.codeword.length);
        REQUIRE(c.codeword.bits == next);
    }
    // Prefix-free: no code is a prefix of the next one in canonical order (suffices for a
    // canonical code sorted this way, and checked by brute force on small books).
    if (syms.size() <= 300) {
        for (std::size_t i = 0; i < syms.size(); ++i)
            for (std::size_t j = 0; j < syms.size(); ++j) {
                if (i == j) continue;
                const auto ci = code_str(syms[i].codeword), cj = code_str(syms[j].codeword);
                REQUIRE(cj.rfind(ci, 0) != 0);
            }
    }
    // FCW / CNT / OFF agree with the symbol list.
    for (std::uint32_t l = 1; l <= max_len; ++l) {
        std::uint32_t cnt = 0, off = 0, fcw = 0;
        bool first = true;
        for (std::size_t k = 0; k < syms.size(); ++k)
            if (syms[k].codeword.length == l) {
                if (first) {
                    off = static_cast<std::uint32_t>(k);
                    fcw = syms[k].codeword.bits;
                    first = false;
                }
                ++cnt;
            }
        REQUIRE(b.count_of_length(l) == cnt);
        if (cnt != 0) {
            REQUIRE(b.offset_of_length(l) == off);
            REQUIRE(b.first_codeword(l) == fcw);
        }
    }
    // Lookups agree with the list.
    for (const auto& s : syms) {
        if (s.escape) {
            REQUIRE(b.escape_code() == s.codeword);
        } else {
            REQUIRE(b.code_of(s.value).has_value());
            REQUIRE(*b.code_of(s.value) == s.codeword);
            REQUIRE(b.encoded_bits(s.value) == s.codeword.length);
        }
    }
}

} // namespace

TEST_CASE("huffman: compressors.md §4.2 S1 code book") {
    const std::vector<mc::value_count> counts{
        {0x00000000u, 40}, {0xFFFFFFFFu, 20}, {0x00000001u, 10}, {0x3F800000u, 10}};
    // Residual ESC weight: 100 sampled words − 80 counted = 20.
    const book_t b(counts, 100);
    check_book(b);
    CHECK(code_str(*b.code_of(0x00000000u)) == "00");
    CHECK(code_str(*b.code_of(0xFFFFFFFFu)) == "01");
    CHECK(code_str(b.escape_code()) == "10");
    CHECK(code_str(*b.code_of(0x00000001u)) == "110");
    CHECK(code_str(*b.code_of(0x3F800000u)) == "111");
    CHECK(b.first_codeword(2) == 0b00);
    CHECK(b.count_of_length(2) == 3);
    CHECK(b.offset_of_length(2) == 0);
    CHECK(b.first_codeword(3) == 0b110);
    CHECK(b.count_of_length(3) == 2);
    CHECK(b.offset_of_length(3) == 3);
    CHECK(b.count_of_length(1) == 0);
    CHECK(b.kraft_numerator() == (std::uint64_t{1} << 16)); // a full Huffman code: Kraft = 1
    CHECK_FALSE(b.code_of(0x12345678u).has_value());
    CHECK(b.encoded_bits(0x12345678u) == 2 + 32);
    // The tie-break matters: lengths 1,3,3,3,3 have the same cost; ours must be 2,2,2,3,3.
    const auto len = book_t::huffman_lengths(
        std::vector<mc::value_count>{{0x0u, 40}, {0x1u, 10}, {0x3F800000u, 10}, {0xFFFFFFFFu, 20}},
        20);
    CHECK(len == std::vector<std::uint32_t>{2, 3, 3, 2, 2});
}

TEST_CASE("huffman: compressors.md §4.2 S2 length limit (ClampFix, MaxCodeLen = 4)") {
    const std::vector<mc::value_count> counts{{0, 8}, {1, 5}, {2, 3}, {3, 2}, {4, 1}};
    const auto unlimited = book_t::huffman_lengths(counts, 1);
    CHECK(unlimited == std::vector<std::uint32_t>{1, 2, 3, 4, 5, 5});
    CHECK(book_t::clamp_fix(unlimited, 4) == std::vector<std::uint32_t>{1, 2, 4, 4, 4, 4});
    const book_t b(counts, 20, book_t::params{.max_code_length_bits = 4});
    check_book(b);
    CHECK(code_str(*b.code_of(0)) == "0");
    CHECK(code_str(*b.code_of(1)) == "10");
    CHECK(code_str(*b.code_of(2)) == "1100");
    CHECK(code_str(*b.code_of(3)) == "1101");
    CHECK(code_str(*b.code_of(4)) == "1110");
    CHECK(code_str(b.escape_code()) == "1111");
    CHECK(b.first_codeword(1) == 0b0);
    CHECK(b.count_of_length(1) == 1);
    CHECK(b.offset_of_length(1) == 0);
    CHECK(b.first_codeword(2) == 0b10);
    CHECK(b.count_of_length(2) == 1);
    CHECK(b.offset_of_length(2) == 1);
    CHECK(b.count_of_length(3) == 0);
    CHECK(b.first_codeword(4) == 0b1100);
    CHECK(b.count_of_length(4) == 4);
    CHECK(b.offset_of_length(4) == 2);
    CHECK(b.kraft_numerator() == 16);
    // Unlimited (MaxCodeLen 16): lengths 1,2,3,4,5,5.
    const book_t u(counts, 20);
    CHECK(u.code_of(4)->length == 5);
    CHECK(u.escape_code().length == 5);
}

TEST_CASE("huffman: ClampFix may end with Kraft < 1 and never exceeds the limit") {
    // 1 + 1 + 1 + ... : a long chain; limit 3 with 6 symbols.
    const std::vector<std::uint32_t> unlimited{1, 2, 3, 4, 5, 5};
    const auto l3 = book_t::clamp_fix(unlimited, 3);
    std::uint64_t kraft = 0;
    for (auto l : l3) {
        CHECK(l <= 3);
        kraft += std::uint64_t{1} << (3 - l);
    }
    CHECK(kraft <= 8);
    CHECK(std::is_sorted(l3.begin(), l3.end())); // handed out in unlimited canonical order
    // Step b moves the largest length < Max first: {1:1, 2:1, 3:4} = 4+2+4 = 10 > 8 → move the
    // length-2 code → {1:1, 3:5} = 4+5 = 9 > 8 → move the length-1 code → {2:1, 3:5} = 2+5 = 7.
    CHECK(l3 == std::vector<std::uint32_t>{2, 3, 3, 3, 3, 3});
}

TEST_CASE("huffman: single-symbol and escape-only books") {
    const book_t e = book_t::escape_only();
    check_book(e);
    CHECK(e.symbol_count() == 1);
    CHECK(code_str(e.escape_code()) == "0");
    CHECK(e.encoded_bits(0) == 33);
    // A book with one value: value and ESC share the two 1-bit codes.
    const std::vector<mc::value_count> one{{7, 100}};
    const book_t b(one, 100);
    check_book(b);
    CHECK(b.code_of(7)->length == 1);
    CHECK(b.escape_code().length == 1);
}

TEST_CASE("huffman: ESC weight rules") {
    const std::vector<mc::value_count> counts{{0, 1000}, {1, 500}, {2, 250}, {3, 125}};
    // Residual: 1875 counted of 1900 sampled → ESC weight 25, the rarest symbol.
    const book_t r(counts, 1900);
    CHECK(r.escape_code().length == r.code_of(3)->length);
    CHECK(r.escape_code().length >= r.code_of(2)->length);
    // Max (gem5): ESC outweighs every value and gets the shortest code.
    const book_t m(counts, 1900, book_t::params{.escape = book_t::esc_weight::max});
    check_book(m);
    CHECK(m.escape_code().length == 1);
    // Residual never below 1 even when counts exceed the total.
    const book_t z(counts, 10);
    check_book(z);
    CHECK(z.canonical_symbols().back().escape);
}

TEST_CASE("huffman: random books are optimal, canonical, limited and decodable") {
    memsub::xoshiro256ss rng(31337);
    for (int it = 0; it < 300; ++it) {
        const std::size_t n = 1 + rng.below(it < 250 ? 200 : 1100);
        const auto counts = random_counts(rng, n);
        std::uint64_t sum = 0;
        for (const auto& c : counts) sum += c.count;
        const std::uint64_t total = sum + rng.below(sum + 1);
        const std::uint32_t max_len =
            it % 3 == 0 ? 11 + static_cast<std::uint32_t>(rng.below(6)) : 16;
        if (n + 1 > (std::size_t{1} << max_len)) continue;
        const book_t b(counts, total, book_t::params{.max_code_length_bits = max_len});
        check_book(b);

        // Unlimited lengths reach the optimal cost (independent model).
        std::vector<mc::value_count> sorted = counts;
        std::sort(sorted.begin(), sorted.end(),
                  [](const auto& x, const auto& y) { return x.value < y.value; });
        const std::uint64_t esc = total > sum ? total - sum : 1;
        const auto unlimited = book_t::huffman_lengths(sorted, esc);
        std::vector<std::uint64_t> w;
        std::uint64_t cost = 0;
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            w.push_back(sorted[i].count);
            cost += sorted[i].count * unlimited[i];
        }
        w.push_back(esc);
        cost += esc * unlimited.back();
        REQUIRE(cost == optimal_cost(w));
        // Kraft equality for an unlimited Huffman code with ≥ 2 symbols.
        bool limited = false;
        for (auto l : unlimited) limited |= l > max_len;
        if (!limited && sorted.size() >= 1)
            REQUIRE(b.kraft_numerator() == (std::uint64_t{1} << max_len));
        // Heavier symbols never get longer Huffman codes; the limit keeps the order of the
        // unlimited code (ClampFix step c), so a shorter unlimited code never ends up longer.
        for (const auto& x : b.canonical_symbols())
            for (const auto& y : b.canonical_symbols()) {
                if (x.weight > y.weight) REQUIRE(x.unlimited_length <= y.unlimited_length);
                if (x.unlimited_length < y.unlimited_length)
                    REQUIRE(x.codeword.length <= y.codeword.length);
            }

        // Encode a random word sequence (book values and escapes) and decode it back.
        std::array<std::byte, 4096> buf{};
        mc::detail::bit_writer wr(buf);
        std::vector<std::uint32_t> words;
        for (int k = 0; k < 64; ++k) {
            const std::uint32_t v = rng.below(4) == 0 ? static_cast<std::uint32_t>(rng())
                                                      : counts[rng.below(counts.size())].value;
            words.push_back(v);
            b.encode(wr, v);
        }
        const std::uint32_t bits = wr.finish();
        REQUIRE(!wr.overflowed());
        std::uint32_t expect_bits = 0;
        for (auto v : words) expect_bits += b.encoded_bits(v);
        REQUIRE(bits == expect_bits);
        mc::detail::fast_bit_reader rd(buf, bits);
        for (auto v : words) {
            std::uint32_t got = 0;
            REQUIRE(b.decode(rd, got) == mc::decode_status::ok);
            REQUIRE(got == v);
        }
        REQUIRE(rd.at_end());
    }
}

TEST_CASE("huffman: the drop rule turns over-long symbols into escapes") {
    // Fibonacci-like weights give a maximally deep tree.
    std::vector<mc::value_count> counts;
    std::uint64_t a = 1, c = 1;
    for (std::uint32_t v = 0; v < 30; ++v) {
        counts.push_back({v, a});
        const std::uint64_t t = a + c;
        a = c;
        c = t;
    }
    const book_t clamp(counts, 0, book_t::params{.max_code_length_bits = 8});
    const book_t drop(
        counts, 0, book_t::params{.max_code_length_bits = 8, .limit = book_t::length_limit::drop});
    check_book(clamp);
    check_book(drop);
    CHECK(clamp.symbol_count() == 31);
    CHECK(drop.symbol_count() < 31);
    CHECK_FALSE(drop.code_of(0).has_value()); // the rarest value became an escape
    CHECK(drop.code_of(29).has_value());
}

TEST_CASE("huffman: decoder errors") {
    const std::vector<mc::value_count> counts{{0, 8}, {1, 5}, {2, 3}, {3, 2}, {4, 1}};
    const book_t b(counts, 20, book_t::params{.max_code_length_bits = 4});
    std::array<std::byte, 8> buf{};
    std::uint32_t v = 0;
    {
        mc::detail::fast_bit_reader r(buf, 0); // nothing to read
        CHECK(b.decode(r, v) == mc::decode_status::truncated);
    }
    {
        buf[0] = std::byte{0b11000000}; // "11" then nothing: a cut 4-bit code
        mc::detail::fast_bit_reader r(buf, 2);
        CHECK(b.decode(r, v) == mc::decode_status::truncated);
        CHECK(r.position() == 0);
    }
    {
        buf[0] = std::byte{0b11110000}; // ESC then a cut raw word
        mc::detail::fast_bit_reader r(buf, 20);
        CHECK(b.decode(r, v) == mc::decode_status::truncated);
    }
    // A Kraft < 1 book has unused patterns: limit 3 with 6 symbols (lengths 2,3,3,3,3,3 → 7/8).
    const std::vector<mc::value_count> six{{0, 8}, {1, 5}, {2, 3}, {3, 2}, {4, 1}};
    const book_t k(six, 20, book_t::params{.max_code_length_bits = 3});
    check_book(k);
    CHECK(k.kraft_numerator() == 7);
    buf[0] = std::byte{0b11100000}; // "111" is no codeword
    mc::detail::fast_bit_reader r(buf, 8);
    CHECK(k.decode(r, v) == mc::decode_status::invalid_code);
}

TEST_CASE("huffman: validation and versions") {
    const std::vector<mc::value_count> dup{{5, 1}, {5, 2}};
    CHECK_THROWS_AS(book_t(dup, 3), memsub::config_error);
    const std::vector<mc::value_count> ok{{5, 1}, {6, 2}, {7, 3}};
    CHECK_THROWS_AS(book_t(ok, 6, book_t::params{.max_code_length_bits = 0}), memsub::config_error);
    CHECK_THROWS_AS(book_t(ok, 6, book_t::params{.max_code_length_bits = 33}),
                    memsub::config_error);
    // 4 symbols (3 values + ESC) need MaxCodeLen ≥ 2.
    CHECK_THROWS_AS(book_t(ok, 6, book_t::params{.max_code_length_bits = 1}), memsub::config_error);
    CHECK_NOTHROW(book_t(ok, 6, book_t::params{.max_code_length_bits = 2}));
    // Zero counts are ignored.
    const std::vector<mc::value_count> zeros{{5, 0}, {6, 2}};
    CHECK(book_t(zeros, 2).symbol_count() == 2);
    // Versions: derived from the codes (same codes → same id), or explicit.
    CHECK(book_t(ok, 6).id() == book_t(ok, 6).id());
    CHECK(book_t(ok, 6).id() != 0);
    const std::vector<mc::value_count> other{{5, 1}, {6, 2}, {8, 3}};
    CHECK(book_t(ok, 6).id() != book_t(other, 6).id());
    CHECK(book_t(ok, 6, book_t::params{.version = 42}).id() == 42);
    // Storage estimate for a 1024-value book, MaxCodeLen 16 (dissertation: ~7 KB + 3 KB).
    std::vector<mc::value_count> big;
    for (std::uint32_t v = 0; v < 1024; ++v) big.push_back({v * 7919u, 1 + v % 97});
    const book_t bb(big, 200000);
    CHECK(bb.symbol_count() == 1025);
    CHECK(bb.storage_bits() == 1025u * (32 + 16 + 5) + 1025u * 32 + 16u * (16 + 2 * 11));
}

TEST_CASE("bit io: writer, reader and window reader against a naive bit list") {
    memsub::xoshiro256ss rng(8);
    for (int it = 0; it < 2000; ++it) {
        std::array<std::byte, 256> a{}, b{};
        mc::detail::bit_writer wide(a);  // put: any width ≤ 64, high bits ignored
        mc::detail::bit_writer small(b); // put_small: ≤ 32-bit pieces with clean high bits
        std::vector<std::pair<std::uint64_t, unsigned>> fields;
        std::vector<bool> naive; // the stream, one bool a bit, MSB-first
        unsigned total = 0;
        while (true) {
            const auto n = static_cast<unsigned>(rng.below(65));
            if (total + n > 2048) break;
            const std::uint64_t v = n == 0 ? 0 : (rng() >> (64 - n));
            fields.emplace_back(v, n);
            wide.put(v | (n < 64 ? rng() << n : 0), n); // garbage above the field
            if (n > 32) {
                small.put_small(static_cast<std::uint32_t>(v >> 32), n - 32);
                small.put_small(static_cast<std::uint32_t>(v), 32);
            } else {
                small.put_small(static_cast<std::uint32_t>(v), n);
            }
            for (unsigned k = n; k-- > 0;) naive.push_back(((v >> k) & 1) != 0);
            total += n;
        }
        REQUIRE(wide.finish() == total);
        REQUIRE(small.finish() == total);
        REQUIRE_FALSE(small.overflowed());
        REQUIRE(a == b);
        for (std::size_t i = 0; i < a.size() * 8; ++i) {
            const bool bit = ((std::to_integer<unsigned>(a[i / 8]) >> (7 - i % 8)) & 1) != 0;
            REQUIRE(bit == (i < naive.size() && naive[i])); // zero padding after the stream
        }
        // Read back with the window reader in pieces of at most 32 bits ...
        mc::detail::fast_bit_reader rd(b, total);
        // ... and with the checked reader, whole fields.
        mc::detail::bit_reader checked(a, total);
        for (const auto& [v, n] : fields) {
            std::uint64_t got = 0;
            unsigned left = n;
            while (left > 0) {
                const unsigned k = left > 32 ? 32 : left;
                const std::uint64_t w = rd.window();
                REQUIRE(rd.consume(k));
                got = (got << k) | (w >> (64 - k));
                left -= k;
            }
            REQUIRE(got == v);
            std::uint64_t whole = 0;
            REQUIRE(checked.read_wide(n, whole));
            REQUIRE(whole == v);
        }
        REQUIRE(rd.at_end());
        REQUIRE_FALSE(rd.consume(1));
        REQUIRE(rd.window() == 0); // zeros past the end
        REQUIRE(checked.at_end());
    }
    // Exactly filling a buffer is not an overflow, and nothing past it is touched.
    std::array<std::byte, 12> buf{};
    mc::detail::bit_writer w(std::span<std::byte>(buf.data(), 8));
    for (int i = 0; i < 2; ++i) w.put_small(0xFFFFFFFFu, 32);
    CHECK(w.finish() == 64);
    CHECK_FALSE(w.overflowed());
    CHECK(buf[7] == std::byte{0xFF});
    CHECK(buf[8] == std::byte{0});
}

TEST_CASE("huffman: decode_words handles long codes and long escapes bit-exactly") {
    // Fibonacci weights give codes up to 30 bits; ESC (residual weight 1) is one of the longest,
    // so an escaped word is a long code plus 32 raw bits (beyond one 57-bit window).
    std::vector<mc::value_count> counts;
    std::uint64_t a = 1, c = 2;
    for (std::uint32_t v = 0; v < 30; ++v) {
        counts.push_back({v * 0x01010101u, a});
        const std::uint64_t t = a + c;
        a = c;
        c = t;
    }
    std::uint64_t sum = 0;
    for (const auto& x : counts) sum += x.count;
    memsub::xoshiro256ss rng(17);
    for (const std::uint32_t max_len : {32u, 20u, 12u}) {
        const book_t b(counts, sum + 1, book_t::params{.max_code_length_bits = max_len});
        check_book(b);
        CHECK(b.escape_code().length > 10); // beyond the direct decode table
        for (int it = 0; it < 2000; ++it) {
            std::array<std::byte, 256> buf{};
            mc::detail::bit_writer wr(buf);
            std::array<std::uint32_t, 32> words{}, back{};
            const std::uint32_t n = 1 + static_cast<std::uint32_t>(rng.below(32));
            for (std::uint32_t k = 0; k < n; ++k) {
                words[k] = rng.below(3) == 0 ? static_cast<std::uint32_t>(rng())
                                             : counts[rng.below(counts.size())].value;
                b.encode(wr, words[k]);
            }
            const std::uint32_t bits = wr.finish();
            REQUIRE_FALSE(wr.overflowed());
            // Exact-size payload (the last bytes take the end-of-buffer load path).
            const std::span<const std::byte> payload(buf.data(), (bits + 7) / 8);
            std::uint32_t consumed = 0;
            const mc::decode_result r = b.decode_words(payload, bits, back.data(), n, consumed);
            REQUIRE(r.ok());
            REQUIRE(consumed == bits);
            for (std::uint32_t k = 0; k < n; ++k) REQUIRE(back[k] == words[k]);
            // Every shorter length is reported as truncated at a word boundary before it.
            const std::uint32_t cut = static_cast<std::uint32_t>(rng.below(bits));
            const mc::decode_result t = b.decode_words(payload, cut, back.data(), n, consumed);
            REQUIRE(t.status == mc::decode_status::truncated);
            REQUIRE(t.bit_offset <= cut);
        }
    }
}
