// memsub — C-PACK and C-PACK+Z cache-line compression.
//
// Citation: X. Chen, L. Yang, R. P. Dick, L. Shang, H. Lekatsas, "C-Pack: A High-Performance
// Microprocessor Cache Compression Algorithm", IEEE TVLSI 18(8), 2010, §III (patterns, 16-entry
// dictionary, 2 words/cycle); zero-block detection after Dusser et al., "Zero-Content Augmented
// Caches", ICS 2009, as used by the LATTE-CC dissertation (Table 4.1, "CPACK-Z").
// Normative rules: memsub docs/mechanisms/compressors.md §1.3, §2.2, §3, §4.2 (vectors C1, C2).
//
// Deviations / resolutions:
// - The dictionary starts EMPTY for every line (not 16 zero words, not carried over; P-B2/P-B3).
// - Push policy [UNVERIFIED which the paper mandates]: default `cpack_push::all_non_zero`
//   (every word except zzzz/zzzx is pushed, incl. full matches; gem5), alternative
//   `cpack_push::only_unmatched` (only xxxx; the BPC authors' and MPC code). Vector C2 pins it.
// - Replacement FIFO, slot = index, round-robin pointer from slot 0; 16 entries for every line
//   size (128B lines wrap; the dictionary never grows, P-G6).
// - Best match: full > 3-byte prefix > 2-byte prefix, ties → lowest index; partial matches
//   compare the high-order bytes of the little-endian word (P-E1).
// - Words are processed serially (the paper's 2-words/cycle hardware gives the same result).
// - Latency: decompression 8 cycles [UNVERIFIED, the dissertation's row is OCR-damaged] for
//   every line size (no source gives a formula for it); compression by gem5's model
//   (docs/mechanisms/compressors.md §3), words / 2 per cycle + 5: 9 / 13 / 21 cycles for 32 / 64 /
//   128 B; no energy source.
// Payload: one code per word in order, each prefix then its index/literal bits, MSB-first.
// C-PACK+Z: an all-zero line has encoding 1 (the 1-bit zero flag, tag metadata) and 0 payload
// bits; any other line has encoding 0 and the plain C-PACK payload.
// Hardware budget: a 16 × 32-bit dictionary (512 bits) in each compressor and decompressor.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/detail/cpack_kernels.hpp>
#include <memsub/compression/detail/params_accessors.hpp>
#include <memsub/compression/detail/simd.hpp>
#include <memsub/config.hpp>

namespace memsub::compression {

/// Which words enter the dictionary (docs/mechanisms/compressors.md §1.3).
enum class cpack_push : std::uint8_t {
    all_non_zero,   ///< every word that is not zzzz/zzzx (default; gem5)
    only_unmatched, ///< only xxxx words (BPC authors' / MPC code)
};

namespace detail {
/// A C-PACK code by its first 4 bits (docs/mechanisms/compressors.md §1.3 table): total length (0:
/// the unused 1111), the literal field (right-aligned after shifting the left-aligned 64-bit
/// window), the dictionary bits kept, whether it carries an index (bits 56 + index_shift … 59 +
/// index_shift of the window: after a 4-bit code, or after mmmm's 2-bit code) and which push
/// policies push it (bit 0 all_non_zero, bit 1 only_unmatched).
struct cpack_head {
    std::uint8_t length;
    std::uint8_t field_shift;
    std::uint8_t index_shift;
    bool indexed;
    std::uint8_t pushes;
    std::uint32_t field_mask;
    std::uint32_t keep;
};
inline constexpr std::array<cpack_head, 16> cpack_heads = [] {
    std::array<cpack_head, 16> t{};
    for (std::size_t h = 0; h < 16; ++h) {
        if (h < 4) // 00 zzzz
            t[h] = {2, 0, 0, false, 0, 0, 0};
        else if (h < 8) // 01 xxxx + 32-bit word
            t[h] = {34, 30, 0, false, 3, 0xFFFFFFFFu, 0};
        else if (h < 12) // 10 mmmm + index (bits 58…61)
            t[h] = {6, 0, 2, true, 1, 0, 0xFFFFFFFFu};
        else if (h == 12) // 1100 mmxx + index + 2 bytes
            t[h] = {24, 40, 0, true, 1, 0xFFFFu, 0xFFFF0000u};
        else if (h == 13) // 1101 zzzx + byte
            t[h] = {12, 52, 0, false, 0, 0xFFu, 0};
        else if (h == 14) // 1110 mmmx + index + byte
            t[h] = {16, 48, 0, true, 1, 0xFFu, 0xFFFFFF00u};
        else // 1111 unused
            t[h] = {0, 0, 0, false, 0, 0, 0};
    }
    return t;
}();
} // namespace detail

/// C-PACK; `ZeroBlock` = true gives C-PACK+Z (use the aliases `cpack` and `cpack_z`).
template <bool ZeroBlock>
class basic_cpack : public detail::params_accessors<basic_cpack<ZeroBlock>> {
public:
    struct params {
        std::uint32_t line_bytes = 64;
        cpack_push push = cpack_push::all_non_zero;
        /// docs/mechanisms/compressors.md §3: gem5's model, (L/4)/2 + 5 (2 words per cycle): 9 / 13
        /// / 21 cycles for 32 / 64 / 128 B. `latency_for_line_size` = that formula.
        std::uint32_t compress_latency_cycles = latency_for_line_size;
        /// docs/mechanisms/compressors.md §3: 8 cycles [UNVERIFIED, the dissertation's row is
        /// OCR-damaged]; no per-line- size figure exists, so it is 8 for every line size.
        std::uint32_t decompress_latency_cycles = 8;
        double compress_energy_nj = 0.0; ///< no source gives a figure
        double decompress_energy_nj = 0.0;
    };

    /// Encoding ids (tag metadata; C-PACK+Z only uses `zero_block`).
    static constexpr std::uint8_t encoding_plain = 0;
    static constexpr std::uint8_t encoding_zero_block = 1;
    /// Dictionary storage in bits (16 entries × 32 bits) per compressor/decompressor.
    static constexpr std::uint64_t dictionary_bits = 16 * 32;

    basic_cpack() : basic_cpack(params{}) {}
    explicit basic_cpack(const params& p) : p_(p) {
        constexpr std::string_view component =
            ZeroBlock ? "memsub::compression::cpack_z" : "memsub::compression::cpack";
        require_line_bytes(p.line_bytes, component);
        memsub::require(p.push == cpack_push::all_non_zero || p.push == cpack_push::only_unmatched,
                        component, "push", static_cast<std::uint64_t>(p.push),
                        "all_non_zero or only_unmatched");
        if (p_.compress_latency_cycles == latency_for_line_size)
            p_.compress_latency_cycles = p.line_bytes / 4 / 2 + 5; // gem5 (compressors.md §3)
        if (p_.decompress_latency_cycles == latency_for_line_size)
            p_.decompress_latency_cycles = 8; // no formula: the one published figure
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return ZeroBlock ? "cpack_z" : "cpack";
    }
    /// C-PACK+Z keeps the 1-bit zero-block flag in the tag.
    [[nodiscard]] static constexpr std::uint32_t metadata_bits() noexcept {
        return ZeroBlock ? 1 : 0;
    }

    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        if constexpr (ZeroBlock)
            if (detail::is_zero_line(line)) return 0;
        if (p_.push == cpack_push::only_unmatched)
            return detail::cpack_size_scalar(line.data(), p_.line_bytes / 4, true);
        switch (p_.line_bytes) {
        case 32:
            return detail::cpack_size<8>(line.data());
        case 64:
            return detail::cpack_size<16>(line.data());
        default:
            return detail::cpack_size<32>(line.data());
        }
    }
    /// The same size computed by the scalar reference (full dictionary simulation).
    [[nodiscard]] std::uint32_t
    size_bits_reference(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        if constexpr (ZeroBlock)
            if (detail::is_zero_line_scalar(line)) return 0;
        return detail::cpack_size_scalar(line.data(), p_.line_bytes / 4,
                                         p_.push == cpack_push::only_unmatched);
    }

    [[nodiscard]] compressed_line compress(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        compressed_line out;
        if constexpr (ZeroBlock) {
            if (detail::is_zero_line(line)) {
                out.encoding = encoding_zero_block;
                return out;
            }
        }
        detail::bit_writer w{out.payload};
        detail::cpack_dictionary d;
        const bool only_unmatched = p_.push == cpack_push::only_unmatched;
        const std::uint32_t n = p_.line_bytes / 4;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t v = detail::load_le<std::uint32_t>(line.data() + 4 * i);
            const detail::cpack_match m = detail::cpack_match_scalar(v, d);
            switch (m.code) {
            case detail::cpack_code::zzzz:
                w.put(0b00, 2);
                break;
            case detail::cpack_code::xxxx:
                w.put((std::uint64_t{0b01} << 32) | v, 34);
                break;
            case detail::cpack_code::mmmm:
                w.put((0b10u << 4) | m.index, 6);
                break;
            case detail::cpack_code::mmxx:
                w.put((0b1100u << 20) | (m.index << 16) | (v & 0xFFFF), 24);
                break;
            case detail::cpack_code::zzzx:
                w.put((0b1101u << 8) | v, 12);
                break;
            case detail::cpack_code::mmmx:
                w.put((0b1110u << 12) | (m.index << 8) | (v & 0xFF), 16);
                break;
            }
            if (detail::cpack_pushes(m.code, only_unmatched)) d.push(v);
        }
        out.bits = w.finish();
        return out;
    }

    [[nodiscard]] decode_result decompress(compressed_view v,
                                           std::span<std::byte> out) const noexcept {
        const std::uint32_t L = p_.line_bytes;
        if (out.size() != L) return {decode_status::wrong_output_size, 0};
        if (v.bits > v.payload.size() * 8 || v.bits > max_payload_bits)
            return {decode_status::bad_view, 0};
        if (v.member != 0) return {decode_status::unknown_encoding, 0};
        if (ZeroBlock && v.encoding == encoding_zero_block) {
            if (v.bits != 0) return {decode_status::trailing_bits, 0};
            for (auto& b : out) b = std::byte{0};
            return {};
        }
        if (v.encoding != encoding_plain) return {decode_status::unknown_encoding, 0};
        // One 64-bit window per code (≥ 57 valid bits ≥ the longest code, 34); the head's class
        // is a branch (well predicted on real data: it lets the next code start early), a run
        // of zzzz codes is consumed at once (count leading zeros) into the zeroed output.
        const std::uint32_t total = v.bits;
        const std::uint32_t n = L / 4;
        const unsigned push_bit = p_.push == cpack_push::only_unmatched ? 1u : 0u;
        std::memset(out.data(), 0, L);
        std::array<std::uint32_t, 16> dict{};
        std::uint32_t valid = 0, next = 0, pos = 0;
        const detail::bit_reader r{v.payload, v.bits};
        for (std::uint32_t i = 0; i < n;) {
            const std::uint64_t look = r.window_at(pos);
            if ((look >> 62) == 0) { // zzzz, possibly several
                // at most 28 from one window: only its first 57 bits are stream bits
                const auto zeros = static_cast<std::uint32_t>(std::countl_zero(look | 1));
                std::uint32_t run = zeros < 56 ? zeros / 2 : 28;
                run = run < n - i ? run : n - i;
                run = run < (total - pos) / 2 ? run : (total - pos) / 2;
                if (MEMSUB_UNLIKELY(run == 0)) return {decode_status::truncated, pos};
                i += run;
                pos += 2 * run;
                continue;
            }
            if ((look >> 62) == 1) { // xxxx: a constant step (the predicted branch lets the next
                                     // code start at once)
                if (MEMSUB_UNLIKELY(34 > total - pos)) return {decode_status::truncated, pos};
                const auto word = static_cast<std::uint32_t>(look >> 30);
                detail::store_le<std::uint32_t>(out.data() + 4 * i, word);
                dict[next] = word; // pushed under both policies
                next = (next + 1) & 15u;
                valid += static_cast<unsigned>(valid < 16);
                pos += 34;
                ++i;
                continue;
            }
            const detail::cpack_head h = detail::cpack_heads[static_cast<std::size_t>(look >> 60)];
            const auto idx = static_cast<std::uint32_t>(look >> (56 + h.index_shift)) & 15u;
            if (MEMSUB_UNLIKELY(h.length == 0 || h.length > total - pos ||
                                (h.indexed && idx >= valid))) {
                if (h.length == 0) // 1111 is unused (unless the stream ends inside it)
                    return {total - pos < 4 ? decode_status::truncated
                                            : decode_status::invalid_code,
                            pos};
                if (h.length > total - pos) return {decode_status::truncated, pos};
                return {decode_status::invalid_code, pos}; // index of an unwritten slot
            }
            const std::uint32_t word =
                (dict[idx] & h.keep) |
                (static_cast<std::uint32_t>(look >> h.field_shift) & h.field_mask);
            detail::store_le<std::uint32_t>(out.data() + 4 * i, word);
            const unsigned push = (h.pushes >> push_bit) & 1u;
            dict[next] = push != 0 ? word : dict[next];
            next = (next + push) & 15u;
            valid += push & static_cast<unsigned>(valid < 16);
            pos += h.length;
            ++i;
        }
        if (pos != total) return {decode_status::trailing_bits, pos};
        return {};
    }

private:
    friend detail::params_accessors<basic_cpack>;
    params p_;
};

using cpack = basic_cpack<false>;
using cpack_z = basic_cpack<true>;

static_assert(invertible_compressor<cpack>);
static_assert(invertible_compressor<cpack_z>);

} // namespace memsub::compression
