// memsub — FPC, Frequent Pattern Compression.
//
// Citation: A. R. Alameldeen and D. A. Wood, "Frequent Pattern Compression: A Significance-Based
// Compression Scheme for L2 Caches", UW-Madison TR-1500, 2004, §2 (Table 1 patterns, zero runs,
// 3-cycle compression / 5-cycle decompression pipeline). Normative rules: docs/mechanisms/
// compressors.md §1.2 (patterns, first-match order SE4 → SE8 → RepBytes → SE16 → PaddedHalf →
// TwoSEBytes → Raw, zero runs of 1…8 words), §2.2 (bits = Σ (3 + payload)), §3, §4.2 vectors.
//
// Deviations / resolutions:
// - The 19-bit classes overlap (`100` ∩ `101` = {H << 16 : H fits sext(8)}); the first-match order
//   of §1.2 picks `100` (0x00050000 → padded half). Sizes are order-independent within the 19-bit
//   group.
// - "Halfword padded with a zero halfword": the low halfword is zero, the high one is stored
//   (docs/mechanisms/compressors.md §1.2; every inspected implementation agrees).
// - Payload of `101`: high half's low byte, then low half's low byte (the reference layout,
//   compressors.md 'Notation').
// - A zero run longer than 8 words emits a new token every 8 zeros (the TR's 3-bit field; the MPC
//   code does not cap runs, spec P-B3).
// - Latencies: the FPC TR's 3/5 cycles are 64B figures; docs/mechanisms/compressors.md §3 gives
//   gem5's model (8 chunks of 32 bits compressed, 4 decompressed per cycle, + 1), which
//   reproduces them at 64B and is used for 32B and 128B lines (2/3 and 5/9 cycles).
// Payload: tokens in word order, each a 3-bit prefix then its payload, MSB-first. FPC keeps no
// tag metadata of its own (the compressed size in segments belongs to the cache, §2.2).
// Hardware budget: no state (combinational pattern match + a 5-stage decode pipeline).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/detail/fpc_kernels.hpp>
#include <memsub/compression/detail/params_accessors.hpp>
#include <memsub/compression/detail/simd.hpp>
#include <memsub/config.hpp>

namespace memsub::compression {

class fpc : public detail::params_accessors<fpc> {
public:
    struct params {
        std::uint32_t line_bytes = 64;
        /// docs/mechanisms/compressors.md §3: FPC TR 3 cycles for 64B lines = gem5's model, (L/4)/8
        /// + 1 per line size (2 / 3 / 5 cycles for 32 / 64 / 128 B). `latency_for_line_size` = that
        /// formula.
        std::uint32_t compress_latency_cycles = latency_for_line_size;
        /// docs/mechanisms/compressors.md §3: FPC TR 5 cycles for 64B lines = gem5's model, (L/4)/4
        /// + 1 per line size (3 / 5 / 9 cycles). The dissertation's Table 4.1 quotes 5 for its 128B
        /// lines; set the field to reproduce it.
        std::uint32_t decompress_latency_cycles = latency_for_line_size;
        double compress_energy_nj = 0.0; ///< no source gives a figure (compressors.md §3)
        double decompress_energy_nj = 0.0;
    };

    fpc() : fpc(params{}) {}
    explicit fpc(const params& p) : p_(p) {
        require_line_bytes(p.line_bytes, "memsub::compression::fpc");
        const std::uint32_t chunks = p.line_bytes / 4; // gem5: 32-bit chunks (compressors.md §3)
        if (p_.compress_latency_cycles == latency_for_line_size)
            p_.compress_latency_cycles = chunks / 8 + 1;
        if (p_.decompress_latency_cycles == latency_for_line_size)
            p_.decompress_latency_cycles = chunks / 4 + 1;
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "fpc"; }
    [[nodiscard]] static constexpr std::uint32_t metadata_bits() noexcept { return 0; }

    /// Exact payload bits (xsimd kernel).
    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        switch (p_.line_bytes) {
        case 32:
            return detail::fpc_size<8>(line.data());
        case 64:
            return detail::fpc_size<16>(line.data());
        default:
            return detail::fpc_size<32>(line.data());
        }
    }
    /// The same size from the scalar reference (for differential tests).
    [[nodiscard]] std::uint32_t
    size_bits_reference(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        return detail::fpc_size_scalar(line.data(), p_.line_bytes / 4);
    }
    /// The prefix of every word (xsimd kernel); words past L/4 are left untouched.
    void classify(std::span<const std::byte> line,
                  std::span<std::uint32_t, 32> out) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        switch (p_.line_bytes) {
        case 32:
            detail::fpc_classify<8>(line.data(), out.data());
            break;
        case 64:
            detail::fpc_classify<16>(line.data(), out.data());
            break;
        default:
            detail::fpc_classify<32>(line.data(), out.data());
            break;
        }
    }

    [[nodiscard]] compressed_line compress(std::span<const std::byte> line) const noexcept {
        std::array<std::uint32_t, 32> code{};
        classify(line, code);
        compressed_line out;
        detail::bit_writer w{out.payload};
        const std::uint32_t n = p_.line_bytes / 4;
        const std::byte* p = line.data();
        for (std::uint32_t i = 0; i < n;) {
            const std::uint32_t c = code[i];
            const std::uint32_t v = detail::load_le<std::uint32_t>(p + 4 * i);
            switch (static_cast<detail::fpc_prefix>(c)) {
            case detail::fpc_prefix::zero_run: {
                std::uint32_t run = 1;
                while (run < 8 && i + run < n && code[i + run] == 0) ++run;
                w.put((0u << 3) | (run - 1), 6);
                i += run;
                continue;
            }
            case detail::fpc_prefix::sext4:
                w.put((c << 4) | (v & 0xF), 7);
                break;
            case detail::fpc_prefix::sext8:
                w.put((c << 8) | (v & 0xFF), 11);
                break;
            case detail::fpc_prefix::sext16:
                w.put((c << 16) | (v & 0xFFFF), 19);
                break;
            case detail::fpc_prefix::padded_half:
                w.put((c << 16) | (v >> 16), 19);
                break;
            case detail::fpc_prefix::two_sext8:
                w.put((c << 16) | (((v >> 16) & 0xFF) << 8) | (v & 0xFF), 19);
                break;
            case detail::fpc_prefix::rep_bytes:
                w.put((c << 8) | (v & 0xFF), 11);
                break;
            case detail::fpc_prefix::raw:
                w.put((std::uint64_t{c} << 32) | v, 35);
                break;
            }
            ++i;
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
        if (v.encoding != 0 || v.member != 0) return {decode_status::unknown_encoding, 0};
        detail::bit_reader r{v.payload, v.bits}; // bounds: r.size() = min(bits, 8·bytes)
        const std::uint32_t n = L / 4;
        const std::uint32_t total = r.size();
        // Words are decoded into a local buffer with 8 words of slack, so a zero run can always
        // store 8 zero words and no token needs a data-dependent branch. Each token is read from
        // a fresh 64-bit window at its bit position (≥ 57 valid bits ≥ the longest token, 35),
        // which keeps the serial chain (position → prefix → length → position) branch-free.
        std::array<std::uint32_t, 32 + 8> words{};
        constexpr std::uint64_t length_lut = 0x230B1313130B0706ull; // byte c = 3 + payload bits
        std::uint32_t pos = 0;
        for (std::uint32_t i = 0; i < n;) {
            const std::uint64_t look = r.window_at(pos);
            const auto c = static_cast<std::uint32_t>(look >> 61);
            if (c == 7) { // raw word: a constant step (the predicted branch lets the next start)
                if (MEMSUB_UNLIKELY(35 > total - pos)) return {decode_status::truncated, pos};
                words[i++] = static_cast<std::uint32_t>(look >> 29);
                pos += 35;
                continue;
            }
            const auto len = static_cast<std::uint32_t>((length_lut >> (8 * c)) & 0xFF);
            const std::uint32_t pb = len - 3;
            if (MEMSUB_UNLIKELY(pos + len > total)) return {decode_status::truncated, pos};
            const auto x = static_cast<std::uint32_t>((look << 3) >> (64 - pb));
            const std::uint32_t at = pos;
            pos += len;
            const std::uint32_t run = c == 0 ? x + 1 : 1;
            if (MEMSUB_UNLIKELY(run > n - i)) return {decode_status::invalid_code, at};
            const std::uint32_t m = std::uint32_t{1} << (pb - 1); // sign bit for SE4/8/16
            const std::uint32_t two =
                (std::uint32_t{detail::sign_extend<std::uint16_t>(x >> 8, 8)} << 16) |
                detail::sign_extend<std::uint16_t>(x & 0xFF, 8);
            std::uint32_t word = x;                    // 111 raw
            word = c == 6 ? x * 0x01010101u : word;    // 110 repeated bytes
            word = c == 5 ? two : word;                // 101 two SE bytes
            word = c == 4 ? x << 16 : word;            // 100 padded half
            word = (c - 1u) < 3u ? (x ^ m) - m : word; // 001/010/011 sign-extended
            word = c == 0 ? 0 : word;                  // 000 zero run
            std::memset(words.data() + i, 0, 8 * sizeof(std::uint32_t)); // two vector stores
            words[i] = word;
            i += run;
        }
        for (std::uint32_t i = 0; i < n; ++i)
            detail::store_le<std::uint32_t>(out.data() + 4 * i, words[i]);
        if (pos != total) return {decode_status::trailing_bits, pos};
        return {};
    }

private:
    friend detail::params_accessors<fpc>;
    params p_;
};

static_assert(invertible_compressor<fpc>);

} // namespace memsub::compression
