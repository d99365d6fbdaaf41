// memsub — C-PACK and C-PACK+Z cache-line compression.
//
// Citation: X. Chen, L. Yang, R. P. Dick, L. Shang, H. Lekatsas, "C-Pack: A High-Performance
// Microprocessor Cache Compression Algorithm", IEEE TVLSI 18(8), 2010, §III (patterns, 16-entry
// dictionary, 2 words/cycle); zero-block detection after Dusser et al., "Zero-Content Augmented
// Caches", ICS 2009, as used by the LATTE-CC dissertation (Table 4.1, "CPACK-Z").
// Normative rules: memsub spec compressors.md §1.3, §2.2, §3, §4.2 (C1, C2).
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
// - Latency: decompression 8 cycles [UNVERIFIED, the dissertation's row is OCR-damaged];
//   compression 13 cycles = gem5's 64B figure (16 words / 2 per cycle + 5); no energy source.
// Payload: one code per word in order, each prefix then its index/literal bits, MSB-first.
// C-PACK+Z: an all-zero line has encoding 1 (the 1-bit zero flag, tag metadata) and 0 payload
// bits; any other line has encoding 0 and the plain C-PACK payload.
// Hardware budget: a 16 × 32-bit dictionary (512 bits) in each compressor and decompressor.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/detail/cpack_kernels.hpp>
#include <memsub/compression/detail/simd.hpp>
#include <memsub/config.hpp>

namespace memsub::compression {

/// Which words enter the dictionary (spec §1.3).
enum class cpack_push : std::uint8_t {
    all_non_zero,   ///< every word that is not zzzz/zzzx (default; gem5)
    only_unmatched, ///< only xxxx words (BPC authors' / MPC code)
};

/// C-PACK; `ZeroBlock` = true gives C-PACK+Z (use the aliases `cpack` and `cpack_z`).
template <bool ZeroBlock>
class basic_cpack {
public:
    struct params {
        std::uint32_t line_bytes = 64;
        cpack_push push = cpack_push::all_non_zero;
        std::uint32_t compress_latency_cycles = 13;  ///< gem5, 64B line (spec §3)
        std::uint32_t decompress_latency_cycles = 8; ///< [UNVERIFIED] (spec §3)
        double compress_energy_nj = 0.0;             ///< no source gives a figure
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
        detail::require_line_bytes(p.line_bytes, component);
        memsub::detail::require(
            p.push == cpack_push::all_non_zero || p.push == cpack_push::only_unmatched, component,
            "push", static_cast<std::uint64_t>(p.push), "all_non_zero or only_unmatched");
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return ZeroBlock ? "cpack_z" : "cpack";
    }
    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return p_.line_bytes; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    /// C-PACK+Z keeps the 1-bit zero-block flag in the tag.
    [[nodiscard]] static constexpr std::uint32_t metadata_bits() noexcept {
        return ZeroBlock ? 1 : 0;
    }
    [[nodiscard]] std::uint32_t compress_latency_cycles() const noexcept {
        return p_.compress_latency_cycles;
    }
    [[nodiscard]] std::uint32_t decompress_latency_cycles() const noexcept {
        return p_.decompress_latency_cycles;
    }
    [[nodiscard]] double compress_energy_nj() const noexcept { return p_.compress_energy_nj; }
    [[nodiscard]] double decompress_energy_nj() const noexcept { return p_.decompress_energy_nj; }

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
        detail::bit_reader r{v.payload, v.bits};
        detail::cpack_dictionary d;
        const bool only_unmatched = p_.push == cpack_push::only_unmatched;
        const std::uint32_t n = L / 4;
        std::uint64_t x = 0;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t at = r.position();
            if (!r.read(2, x)) return {decode_status::truncated, at};
            detail::cpack_code c;
            if (x == 0b00)
                c = detail::cpack_code::zzzz;
            else if (x == 0b01)
                c = detail::cpack_code::xxxx;
            else if (x == 0b10)
                c = detail::cpack_code::mmmm;
            else {
                if (!r.read(2, x)) return {decode_status::truncated, at};
                if (x == 0b00)
                    c = detail::cpack_code::mmxx;
                else if (x == 0b01)
                    c = detail::cpack_code::zzzx;
                else if (x == 0b10)
                    c = detail::cpack_code::mmmx;
                else
                    return {decode_status::invalid_code, at}; // 1111 is unused
            }
            std::uint32_t word = 0, idx = 0;
            const bool indexed = c == detail::cpack_code::mmmm || c == detail::cpack_code::mmxx ||
                                 c == detail::cpack_code::mmmx;
            if (indexed) {
                if (!r.read(4, x)) return {decode_status::truncated, at};
                idx = static_cast<std::uint32_t>(x);
                if (idx >= d.valid) return {decode_status::invalid_code, at}; // unwritten slot
            }
            switch (c) {
            case detail::cpack_code::zzzz:
                break;
            case detail::cpack_code::xxxx:
                if (!r.read(32, x)) return {decode_status::truncated, at};
                word = static_cast<std::uint32_t>(x);
                break;
            case detail::cpack_code::mmmm:
                word = d.entry[idx];
                break;
            case detail::cpack_code::mmxx:
                if (!r.read(16, x)) return {decode_status::truncated, at};
                word = (d.entry[idx] & 0xFFFF0000u) | static_cast<std::uint32_t>(x);
                break;
            case detail::cpack_code::zzzx:
                if (!r.read(8, x)) return {decode_status::truncated, at};
                word = static_cast<std::uint32_t>(x);
                break;
            case detail::cpack_code::mmmx:
                if (!r.read(8, x)) return {decode_status::truncated, at};
                word = (d.entry[idx] & 0xFFFFFF00u) | static_cast<std::uint32_t>(x);
                break;
            }
            detail::store_le<std::uint32_t>(out.data() + 4 * i, word);
            if (detail::cpack_pushes(c, only_unmatched)) d.push(word);
        }
        if (!r.at_end()) return {decode_status::trailing_bits, r.position()};
        return {};
    }

private:
    params p_;
};

using cpack = basic_cpack<false>;
using cpack_z = basic_cpack<true>;

static_assert(invertible_compressor<cpack>);
static_assert(invertible_compressor<cpack_z>);

} // namespace memsub::compression
