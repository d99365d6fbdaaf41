// memsub — `zero`: zero-block detection only (a line is either a zero block or stored raw).
//
// Citation: J. Dusser, T. Piquet, A. Seznec, "Zero-Content Augmented Caches", ICS 2009 (zero
// blocks tracked by a tag-side flag); gem5's Zero compressor (docs/mechanisms/compressors.md §3
// "Zero-block", P-G7). A zero line costs 0 payload bits and sets the 1-bit zero flag (encoding 1);
// any other line is stored raw (encoding 0, 8·L bits). Useful alone (ZCA-style) and as a `best_of`
// member. Deviation: `zero_line_bits` lets a zero line cost 8 bits (BDI-paper convention, §2.2 B1)
// instead of 0. Latency 1 / 1 cycle (gem5; 0 to decompress when the flag is read with the tag).
// Hardware budget: a zero detector (an OR tree) and 1 tag bit per line.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/params_accessors.hpp>
#include <memsub/compression/detail/simd.hpp>
#include <memsub/config.hpp>

namespace memsub::compression {

class zero : public detail::params_accessors<zero> {
public:
    struct params {
        std::uint32_t line_bytes = 64;
        /// Payload bits of a zero line: 0 (flag in the tag, default) or 8 (one byte).
        std::uint32_t zero_line_bits = 0;
        std::uint32_t compress_latency_cycles = 1;   ///< gem5 Zero compressor (compressors.md §3)
        std::uint32_t decompress_latency_cycles = 1; ///< 0 if the flag is read with the tag
        double compress_energy_nj = 0.0;             ///< no source gives a figure
        double decompress_energy_nj = 0.0;
    };
    static constexpr std::uint8_t encoding_raw = 0;
    static constexpr std::uint8_t encoding_zero = 1;

    zero() : zero(params{}) {}
    explicit zero(const params& p) : p_(p) {
        constexpr std::string_view component = "memsub::compression::zero";
        require_line_bytes(p.line_bytes, component);
        memsub::require(p.zero_line_bits == 0 || p.zero_line_bits == 8, component, "zero_line_bits",
                        p.zero_line_bits, "must be 0 or 8");
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "zero"; }
    [[nodiscard]] static constexpr std::uint32_t metadata_bits() noexcept { return 1; }

    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        return detail::is_zero_line(line) ? p_.zero_line_bits
                                          : static_cast<std::uint32_t>(8 * line.size());
    }

    [[nodiscard]] compressed_line compress(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        compressed_line out;
        if (detail::is_zero_line(line)) {
            out.encoding = encoding_zero;
            out.bits = p_.zero_line_bits; // the payload byte (if any) is 0
            return out;
        }
        const std::size_t n = std::min<std::size_t>(line.size(), max_line_bytes);
        std::memcpy(out.payload.data(), line.data(), n);
        out.bits = static_cast<std::uint32_t>(8 * n);
        return out;
    }

    [[nodiscard]] decode_result decompress(compressed_view v,
                                           std::span<std::byte> out) const noexcept {
        const std::uint32_t L = p_.line_bytes;
        if (out.size() != L) return {decode_status::wrong_output_size, 0};
        if (v.bits > v.payload.size() * 8 || v.bits > max_payload_bits)
            return {decode_status::bad_view, 0};
        if (v.member != 0) return {decode_status::unknown_encoding, 0};
        if (v.encoding == encoding_zero) {
            if (v.bits < p_.zero_line_bits) return {decode_status::truncated, 0};
            if (v.bits > p_.zero_line_bits)
                return {decode_status::trailing_bits, p_.zero_line_bits};
            if (p_.zero_line_bits == 8 && v.payload[0] != std::byte{0})
                return {decode_status::invalid_code, 0};
            std::fill(out.begin(), out.end(), std::byte{0});
            return {};
        }
        if (v.encoding != encoding_raw) return {decode_status::unknown_encoding, 0};
        if (v.bits < 8 * L) return {decode_status::truncated, v.bits & ~7u};
        if (v.bits > 8 * L) return {decode_status::trailing_bits, 8 * L};
        std::memcpy(out.data(), v.payload.data(), L);
        return {};
    }

private:
    friend detail::params_accessors<zero>;
    params p_;
};

static_assert(invertible_compressor<zero>);

} // namespace memsub::compression
