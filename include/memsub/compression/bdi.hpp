// memsub — BDI, Base-Delta-Immediate compression.
//
// Citation: G. Pekhimenko et al., "Base-Delta-Immediate Compression: Practical Data Compression
// for On-Chip Caches", PACT 2012, §3–§4 (encodings, implicit zero base, Table 2 sizes); the
// 10-encoding set of the LATTE-CC dissertation (Arunkumar, Ch. 4.3.3). Normative rules: memsub
// docs/mechanisms/compressors.md §1.1 (encodings, selection, tie-break), §2.2 B1/B2 (sizes), §3
// (latency, energy), §4.2 V1–V6 (golden vectors, tests/compression/test_bdi.cpp).
//
// Deviations and decisions (docs/mechanisms/compressors.md; each with its switch):
// - Delta fit uses the full two's-complement range (−128 fits a 1-byte delta; P-G5 of
//   docs/mechanisms/compressors.md; gem5 accepts only ±127).
// - The BΔI mask is counted in the payload by default (`bdi_mask::in_payload`, gem5 and the BPC
//   authors' code); `bdi_mask::in_tag` reproduces the paper's table sizes and carries the mask in
//   `compressed_line::tag_data`. [UNVERIFIED where the paper keeps it.]
// - Zeros costs 1 byte (paper) unless `zero_in_tag` (then 0 bits, ZCA/gem5 style).
// - `bdi_encoding_set::latte_cc` adds Repeated 4B (enc 1000) and Repeated 2B (enc 1001); the
//   numeric codes are memsub's choice [UNVERIFIED — the dissertation gives none] and are
//   configurable (`params::repeated4_code`, `repeated2_code`).
// - `bdi_variant::base_plus_delta` is the paper's single-base B+Δ (no immediates, no mask).
// - Decompression latency defaults to the project's 2 cycles (the paper's 1-adder decode is 1).
// Selection (docs/mechanisms/compressors.md §1.1): the smallest exact size wins
// (`bdi_selection::exact_bits`, default), or the smallest stored size after the §2 segment rounding
// (`bdi_selection::stored_size`, segments of `selection_segment_bytes`, CS3 default per line size;
// an encoding that saves no segment counts as uncompressed, CS4); ties go to the lower `enc` code.
// Payload layout (reference layout, each field MSB-first): Base-Δ: B (8k bits), the n mask bits
// (element 0 first; not under `in_tag` or B+Δ), then n deltas of 8d bits (element 0 first; the
// base element's delta is 0). Repeated kB: the k-byte value. Zeros: 8 zero bits (or nothing).
// Uncompressed: the L bytes in order. Encoding id (`enc`, 4 bits) is tag metadata.
// Hardware budget: no state (combinational); tag metadata = 4 bits per line (+ the n-bit mask
// per line under `in_tag`), see `metadata_bits()`.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bdi_kernels.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/detail/params_accessors.hpp>
#include <memsub/compression/detail/simd.hpp>
#include <memsub/compression/stored_size.hpp>
#include <memsub/config.hpp>

namespace memsub::compression {

/// Which BDI encoding list is used (docs/mechanisms/compressors.md §1.1).
enum class bdi_encoding_set : std::uint8_t {
    pact12,   ///< the paper's 8 compressed encodings + uncompressed
    latte_cc, ///< adds Repeated 4B and Repeated 2B (LATTE-CC dissertation, 10 + 1)
};
/// Where the BΔI base-selection mask lives (docs/mechanisms/compressors.md §2.2 B2).
enum class bdi_mask : std::uint8_t { in_payload, in_tag };
/// BΔI (two bases, one implicit zero) or the single-base B+Δ of the paper.
enum class bdi_variant : std::uint8_t { base_delta_immediate, base_plus_delta };
/// What `choose` minimises (docs/mechanisms/compressors.md §1.1 Selection).
enum class bdi_selection : std::uint8_t {
    exact_bits,  ///< the exact payload bits (default: the caller did not ask for stored size)
    stored_size, ///< the stored size after the segment rounding of stored_size.hpp (CS2–CS4)
};

/// The encodings of compressors.md §1.1. The enumerator values are the table's 4-bit `enc` codes;
/// the two LATTE-CC codes are [UNVERIFIED] and configurable (`bdi::params::repeated4_code`,
/// `repeated2_code`): the code written to `compressed_line::encoding` is `bdi::code_of(e)`.
enum class bdi_encoding : std::uint8_t {
    zeros = 0,
    repeated8 = 1,
    base8_delta1 = 2,
    base8_delta2 = 3,
    base8_delta4 = 4,
    base4_delta1 = 5,
    base4_delta2 = 6,
    base2_delta1 = 7,
    repeated4 = 8, ///< latte_cc only; default code 1000 [UNVERIFIED]
    repeated2 = 9, ///< latte_cc only; default code 1001 [UNVERIFIED]
    uncompressed = 15,
};

class bdi : public detail::params_accessors<bdi> {
public:
    struct params {
        std::uint32_t line_bytes = 64;
        bdi_encoding_set encoding_set = bdi_encoding_set::pact12;
        bdi_mask mask = bdi_mask::in_payload;
        bdi_variant variant = bdi_variant::base_delta_immediate;
        /// Zeros encoding costs 0 payload bits (flag in tag) instead of 1 byte.
        bool zero_in_tag = false;
        /// docs/mechanisms/compressors.md §1.1: choose by exact bits (default) or by stored size
        /// after §2 rounding.
        bdi_selection selection = bdi_selection::exact_bits;
        /// Segment S of `bdi_selection::stored_size` (0 = the CS3 default for the line size,
        /// `compression::default_segment_bytes`); a power of two <= line_bytes.
        std::uint32_t selection_segment_bytes = 0;
        /// 4-bit `enc` codes of the two LATTE-CC encodings [UNVERIFIED: the dissertation gives
        /// no numeric codes; docs/mechanisms/compressors.md §1.1 suggests 1000 and 1001]. Distinct,
        /// in 8…14 (the codes the paper's set leaves free).
        std::uint8_t repeated4_code = 0b1000;
        std::uint8_t repeated2_code = 0b1001;
        std::uint32_t compress_latency_cycles = 2;   ///< dissertation §4.3.3 (HyComp)
        std::uint32_t decompress_latency_cycles = 2; ///< project canonical (paper: 1)
        double compress_energy_nj = 0.192;           ///< dissertation §4.3.3 (HyComp)
        double decompress_energy_nj = 0.056;
    };

    /// The encoding chosen for a line and its exact payload bits.
    struct choice {
        bdi_encoding encoding = bdi_encoding::uncompressed;
        std::uint32_t bits = 0;
        friend constexpr bool operator==(choice, choice) noexcept = default;
    };

    bdi() : bdi(params{}) {}
    explicit bdi(const params& p) : p_(p) {
        constexpr std::string_view component = "memsub::compression::bdi";
        require_line_bytes(p.line_bytes, component);
        require(p.encoding_set == bdi_encoding_set::pact12 ||
                    p.encoding_set == bdi_encoding_set::latte_cc,
                component, "encoding_set", static_cast<std::uint64_t>(p.encoding_set),
                "pact12 or latte_cc");
        require(p.mask == bdi_mask::in_payload || p.mask == bdi_mask::in_tag, component, "mask",
                static_cast<std::uint64_t>(p.mask), "in_payload or in_tag");
        require(p.variant == bdi_variant::base_delta_immediate ||
                    p.variant == bdi_variant::base_plus_delta,
                component, "variant", static_cast<std::uint64_t>(p.variant),
                "base_delta_immediate or base_plus_delta");
        require(p.selection == bdi_selection::exact_bits ||
                    p.selection == bdi_selection::stored_size,
                component, "selection", static_cast<std::uint64_t>(p.selection),
                "exact_bits or stored_size");
        require(p.selection_segment_bytes == 0 || (std::has_single_bit(p.selection_segment_bytes) &&
                                                   p.selection_segment_bytes <= p.line_bytes),
                component, "selection_segment_bytes", p.selection_segment_bytes,
                "must be 0 (CS3 default) or a power of two <= line_bytes");
        if (p.encoding_set == bdi_encoding_set::latte_cc) {
            require(p.repeated4_code >= 8 && p.repeated4_code <= 14, component, "repeated4_code",
                    p.repeated4_code, "must be a free 4-bit code, 8..14");
            require(p.repeated2_code >= 8 && p.repeated2_code <= 14 &&
                        p.repeated2_code != p.repeated4_code,
                    component, "repeated2_code", p.repeated2_code,
                    "must be a free 4-bit code, 8..14, other than repeated4_code");
        }
        const std::uint32_t L = p.line_bytes;
        bits_.fill(0);
        valid_.fill(false);
        for (std::size_t e = 0; e < 16; ++e) code_[e] = static_cast<std::uint8_t>(e);
        from_code_.fill(invalid);
        auto set = [&](bdi_encoding e, std::uint32_t b) {
            bits_[static_cast<std::size_t>(e)] = b;
            valid_[static_cast<std::size_t>(e)] = true;
        };
        set(bdi_encoding::zeros, p.zero_in_tag ? 0 : 8); // compressors.md §2.2 B1
        set(bdi_encoding::repeated8, 64);
        if (p.encoding_set == bdi_encoding_set::latte_cc) {
            set(bdi_encoding::repeated4, 32);
            set(bdi_encoding::repeated2, 16);
            code_[static_cast<std::size_t>(bdi_encoding::repeated4)] = p.repeated4_code;
            code_[static_cast<std::size_t>(bdi_encoding::repeated2)] = p.repeated2_code;
        }
        set(bdi_encoding::uncompressed, 8 * L);
        for (std::uint8_t e = 2; e <= 7; ++e) {
            const auto [k, d] = shape(static_cast<bdi_encoding>(e));
            const std::uint32_t n = L / k;
            // docs/mechanisms/compressors.md §2.2 B2
            set(static_cast<bdi_encoding>(e), 8 * k + n * 8 * d + (carries_mask() ? n : 0));
            order_[e - 2] = static_cast<bdi_encoding>(e);
        }
        for (std::size_t e = 0; e < 16; ++e)
            if (valid_[e]) from_code_[code_[e]] = static_cast<std::uint8_t>(e);
        // Selection keys (docs/mechanisms/compressors.md §1.1): (size, enc code); sizes after §2
        // rounding if asked for.
        const storage_rule rule{.line_bytes = L, .segment_bytes = p.selection_segment_bytes};
        for (std::size_t e = 0; e < 16; ++e) {
            if (!valid_[e]) {
                key_[e] = ~std::uint32_t{0};
                continue;
            }
            std::uint32_t size = bits_[e];
            if (p.selection == bdi_selection::stored_size) {
                // CS4: an encoding that saves no segment is stored raw, i.e. it *is* the
                // uncompressed encoding for this purpose.
                const stored_size st = stored_size_of(bits_[e], rule);
                size = e == static_cast<std::size_t>(bdi_encoding::uncompressed) ? L
                       : st.raw                                                  ? no_candidate
                                                                                 : st.stored_bytes;
            }
            key_[e] = size == no_candidate ? ~std::uint32_t{0} : (size << 4) | code_[e];
        }
        std::sort(k_order_.begin(), k_order_.end(), [&](std::uint32_t a, std::uint32_t b) {
            return key_[smallest_[a]] < key_[smallest_[b]];
        });
        // The scalar reference tries base-delta encoders in key order
        // (docs/mechanisms/compressors.md §1.1).
        std::sort(order_.begin(), order_.end(), [&](bdi_encoding a, bdi_encoding b) {
            return key_[static_cast<std::size_t>(a)] < key_[static_cast<std::size_t>(b)];
        });
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "bdi"; }

    /// 4-bit `enc`, plus the n-bit mask (n = L/2 at most) when it is kept in the tag.
    [[nodiscard]] std::uint32_t metadata_bits() const noexcept {
        return 4 + (p_.mask == bdi_mask::in_tag && p_.variant == bdi_variant::base_delta_immediate
                        ? p_.line_bytes / 2
                        : 0);
    }

    /// Whether encoding `e` belongs to the configured set.
    [[nodiscard]] bool supports(bdi_encoding e) const noexcept {
        return static_cast<std::size_t>(e) < valid_.size() && valid_[static_cast<std::size_t>(e)];
    }
    /// The 4-bit code of encoding `e` in `compressed_line::encoding` (the enumerator value,
    /// except for the configurable LATTE-CC codes).
    [[nodiscard]] std::uint8_t code_of(bdi_encoding e) const noexcept {
        return code_[static_cast<std::size_t>(e) & 15];
    }
    /// Exact payload bits of encoding `e` at this line size (0 for an unsupported encoding).
    [[nodiscard]] std::uint32_t bits_of(bdi_encoding e) const noexcept {
        return static_cast<std::size_t>(e) < bits_.size() ? bits_[static_cast<std::size_t>(e)] : 0;
    }
    /// (k, d): base and delta bytes of a base-delta encoding; (k, 0) for Repeated kB.
    [[nodiscard]] static constexpr std::pair<std::uint32_t, std::uint32_t>
    shape(bdi_encoding e) noexcept {
        switch (e) {
        case bdi_encoding::repeated8:
            return {8, 0};
        case bdi_encoding::base8_delta1:
            return {8, 1};
        case bdi_encoding::base8_delta2:
            return {8, 2};
        case bdi_encoding::base8_delta4:
            return {8, 4};
        case bdi_encoding::base4_delta1:
            return {4, 1};
        case bdi_encoding::base4_delta2:
            return {4, 2};
        case bdi_encoding::base2_delta1:
            return {2, 1};
        case bdi_encoding::repeated4:
            return {4, 0};
        case bdi_encoding::repeated2:
            return {2, 0};
        default:
            return {0, 0};
        }
    }
    /// Whether encoder `e` (a base-delta one) can encode `line` — the SIMD kernel.
    [[nodiscard]] bool encoder_fits(bdi_encoding e,
                                    std::span<const std::byte> line) const noexcept {
        return fits<true>(e, line);
    }

    /// The encoding chosen for `line` (xsimd kernels of the build's architecture).
    [[nodiscard]] choice choose(std::span<const std::byte> line) const noexcept {
        return choose_with<detail::simd_arch>(line);
    }
    /// The same choice with the kernels instantiated for the xsimd architecture `Arch` (the
    /// differential tests run the wide paths this way; the CPU must support `Arch`).
    template <class Arch>
    [[nodiscard]] choice choose_with(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        if constexpr (!detail::simd_enabled) {
            return choose_reference(line);
        } else {
            switch (p_.line_bytes) {
            case 32:
                return choose_fast<32, Arch>(line.data());
            case 64:
                return choose_fast<64, Arch>(line.data());
            default:
                return choose_fast<128, Arch>(line.data());
            }
        }
    }
    /// The same choice computed by the scalar reference code (for differential tests).
    [[nodiscard]] choice choose_reference(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        // Scalar reference: the encoders in ascending (size, enc) order, first fit wins.
        if (detail::is_repeated_scalar<std::uint64_t>(line))
            return repeated_choice(detail::load_le<std::uint64_t>(line.data()));
        for (bdi_encoding e : order_)
            if (key_[static_cast<std::size_t>(e)] != ~std::uint32_t{0} && fits<false>(e, line))
                return {e, bits_of(e)};
        return {bdi_encoding::uncompressed, bits_of(bdi_encoding::uncompressed)};
    }

    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        return choose(line).bits;
    }

    [[nodiscard]] compressed_line compress(std::span<const std::byte> line) const noexcept {
        const choice c = choose(line);
        compressed_line out;
        out.encoding = code_of(c.encoding);
        detail::bit_writer w{out.payload};
        const std::byte* p = line.data();
        switch (c.encoding) {
        case bdi_encoding::zeros:
            if (!p_.zero_in_tag) w.put(0, 8);
            break;
        case bdi_encoding::repeated8:
            w.put(detail::load_le<std::uint64_t>(p), 64);
            break;
        case bdi_encoding::repeated4:
            w.put(detail::load_le<std::uint32_t>(p), 32);
            break;
        case bdi_encoding::repeated2:
            w.put(detail::load_le<std::uint16_t>(p), 16);
            break;
        case bdi_encoding::uncompressed: // the line's bytes in order (byte-aligned: copy)
            std::memcpy(out.payload.data(), p, line.size());
            out.bits = c.bits;
            return out;
        default: {
            const auto [k, d] = shape(c.encoding);
            switch (k) {
            case 8:
                out.tag_data = write_base_delta<std::uint64_t>(w, p, d);
                break;
            case 4:
                out.tag_data = write_base_delta<std::uint32_t>(w, p, d);
                break;
            default:
                out.tag_data = write_base_delta<std::uint16_t>(w, p, d);
                break;
            }
        }
        }
        out.bits = w.finish();
        MEMSUB_ASSERT(out.bits == c.bits);
        return out;
    }

    [[nodiscard]] decode_result decompress(compressed_view v,
                                           std::span<std::byte> out) const noexcept {
        const std::uint32_t L = p_.line_bytes;
        if (out.size() != L) return {decode_status::wrong_output_size, 0};
        if (v.bits > v.payload.size() * 8 || v.bits > max_payload_bits)
            return {decode_status::bad_view, 0};
        if (v.member != 0 || v.encoding >= 16 || from_code_[v.encoding] == invalid)
            return {decode_status::unknown_encoding, 0};
        const auto e = static_cast<bdi_encoding>(from_code_[v.encoding]);
        detail::bit_reader r{v.payload, v.bits};
        std::uint64_t x = 0;
        std::byte* o = out.data();
        switch (e) {
        case bdi_encoding::zeros:
            if (!p_.zero_in_tag) {
                if (!r.read(8, x)) return {decode_status::truncated, 0};
                if (x != 0) return {decode_status::invalid_code, 0};
            }
            std::fill(out.begin(), out.end(), std::byte{0});
            break;
        case bdi_encoding::repeated8:
        case bdi_encoding::repeated4:
        case bdi_encoding::repeated2: {
            const std::uint32_t k = shape(e).first;
            if (!r.read_wide(8 * k, x)) return {decode_status::truncated, 0};
            for (std::uint32_t i = 0; i < L; i += k)
                for (std::uint32_t b = 0; b < k; ++b)
                    o[i + b] = static_cast<std::byte>(static_cast<std::uint8_t>(x >> (8 * b)));
            break;
        }
        case bdi_encoding::uncompressed:
            if (r.size() < 8 * L) return {decode_status::truncated, r.size() & ~7u};
            std::memcpy(o, v.payload.data(), L);
            if (r.size() > 8 * L) return {decode_status::trailing_bits, 8 * L};
            return {};
        default: {
            const auto [k, d] = shape(e);
            decode_result res;
            switch (k) {
            case 8:
                res = read_base_delta<std::uint64_t>(r, v.tag_data, o, d);
                break;
            case 4:
                res = read_base_delta<std::uint32_t>(r, v.tag_data, o, d);
                break;
            default:
                res = read_base_delta<std::uint16_t>(r, v.tag_data, o, d);
                break;
            }
            if (!res) return res;
        }
        }
        if (!r.at_end()) return {decode_status::trailing_bits, r.position()};
        return {};
    }

private:
    [[nodiscard]] bool carries_mask() const noexcept {
        return p_.variant == bdi_variant::base_delta_immediate && p_.mask == bdi_mask::in_payload;
    }
    [[nodiscard]] bool immediates() const noexcept {
        return p_.variant == bdi_variant::base_delta_immediate;
    }

    template <bool Simd>
    [[nodiscard]] bool fits(bdi_encoding e, std::span<const std::byte> line) const noexcept {
        const auto [k, d] = shape(e);
        const std::uint32_t n = static_cast<std::uint32_t>(line.size()) / k;
        const bool imm = immediates();
        const std::byte* p = line.data();
        if constexpr (Simd) {
            switch (k) {
            case 8:
                return detail::bdi_fits<std::uint64_t>(p, n, 8 * d, imm);
            case 4:
                return detail::bdi_fits<std::uint32_t>(p, n, 8 * d, imm);
            default:
                return detail::bdi_fits<std::uint16_t>(p, n, 8 * d, imm);
            }
        } else {
            switch (k) {
            case 8:
                return detail::bdi_fits_scalar<std::uint64_t>(p, n, 8 * d, imm).ok;
            case 4:
                return detail::bdi_fits_scalar<std::uint32_t>(p, n, 8 * d, imm).ok;
            default:
                return detail::bdi_fits_scalar<std::uint16_t>(p, n, 8 * d, imm).ok;
            }
        }
    }

    /// The SIMD path (docs/mechanisms/compressors.md §1.1 selection, exact): zero/repeat detection;
    /// a first-register test per base size that turns most incompressible base sizes away (one
    /// combined branch when all three are); then per remaining base size the smallest fitting delta
    /// (largest d first, monotone), skipping base sizes that cannot beat the best key so far.
    template <std::uint32_t L, class Arch>
    [[nodiscard]] MEMSUB_ALWAYS_INLINE choice choose_fast(const std::byte* p) const noexcept {
        using A = detail::arch_for_bytes_t<Arch, L>;
        // Zeros (1 B or 0) and Repeated 2B/4B/8B (≤ 8 B) are never larger than a base-delta
        // encoding (≥ 12 B), rounded or not, and Repeated 8B (enc 1) wins every tie with
        // one: the special encodings are decided first.
        if (detail::is_periodic<8, L, A>(p))
            return repeated_choice(detail::load_le<std::uint64_t>(p));
        return immediates() ? choose_base_delta<L, true, A>(p) : choose_base_delta<L, false, A>(p);
    }

    template <std::uint32_t L, bool Imm, class A>
    [[nodiscard]] MEMSUB_ALWAYS_INLINE choice choose_base_delta(const std::byte* p) const noexcept {
        if (detail::load_le<std::uint64_t>(p) == 0) {
            // Lines that start with zeros (mostly-zero data): many encoders have at most one
            // non-immediate and fit without a reach test (from per-byte sign-extension flags);
            // the rest are tested in key order up to the first fit.
            detail::bdi_line<L, A> line;
            line.template load<Imm>(p);
            const unsigned trivial = Imm ? detail::bdi_trivially_fitting<L, A>(line) : 0u;
            for (const bdi_encoding e : order_) {
                const auto i = static_cast<unsigned>(e) - 2;
                if (key_[static_cast<std::size_t>(e)] == no_candidate) break;
                if (((trivial >> i) & 1u) != 0 || detail::bdi_encoder_fits<L, Imm, A>(i, p, line))
                    return {e, bits_of(e)};
            }
            return {bdi_encoding::uncompressed, bits_of(bdi_encoding::uncompressed)};
        }
        // Dense lines. The weakest encoder of a base size failing on the first register already
        // means every encoder of that size fails (monotone in d).
        const bool r8 = detail::bdi_first_register_rejects<std::uint64_t, L / 8, A>(p, 32, Imm);
        const bool r4 = detail::bdi_first_register_rejects<std::uint32_t, L / 4, A>(p, 16, Imm);
        const bool r2 = detail::bdi_first_register_rejects<std::uint16_t, L / 2, A>(p, 8, Imm);
        std::uint32_t best = key_[static_cast<std::size_t>(bdi_encoding::uncompressed)];
        if ((static_cast<unsigned>(r8) & static_cast<unsigned>(r4) & static_cast<unsigned>(r2)) !=
            0) // no short-circuit: one branch for all three
            return {bdi_encoding::uncompressed, bits_of(bdi_encoding::uncompressed)};
        const std::array<bool, 3> rejected{r8, r4, r2};
        // k_order_: base sizes by the key of their smallest encoding (d = 1); a base size whose
        // smallest key cannot beat the best so far is skipped.
        for (const std::uint32_t ki : k_order_) {
            if (rejected[ki] || key_[smallest_[ki]] >= best) continue;
            std::uint32_t e;
            if (ki == 0) {
                const std::uint32_t d = detail::bdi_smallest_delta<std::uint64_t, L / 8, Imm, A>(p);
                e = d == 0 ? 15 : (d == 1 ? 2 : (d == 2 ? 3 : 4));
            } else if (ki == 1) {
                const std::uint32_t d = detail::bdi_smallest_delta<std::uint32_t, L / 4, Imm, A>(p);
                e = d == 0 ? 15 : (d == 1 ? 5 : 6);
            } else {
                e = detail::bdi_smallest_delta<std::uint16_t, L / 2, Imm, A>(p) != 0 ? 7 : 15;
            }
            best = key_[e] < best ? key_[e] : best;
        }
        const auto e = static_cast<bdi_encoding>(best & 15u); // base-delta codes are the enum
        return {e, bits_of(e)};
    }

    /// A line whose 8-byte elements are all equal (v): the smallest key among Zeros and the
    /// Repeated encodings that apply (docs/mechanisms/compressors.md §1.1; ties → lower enc code).
    [[nodiscard]] MEMSUB_ALWAYS_INLINE choice repeated_choice(std::uint64_t v) const noexcept {
        auto key = [&](bdi_encoding e) { return key_[static_cast<std::size_t>(e)]; };
        bdi_encoding best = bdi_encoding::repeated8;
        auto consider = [&](bdi_encoding e) {
            if (key(e) < key(best)) best = e;
        };
        if (v == 0) consider(bdi_encoding::zeros);
        if (p_.encoding_set == bdi_encoding_set::latte_cc &&
            static_cast<std::uint32_t>(v) == static_cast<std::uint32_t>(v >> 32)) {
            consider(bdi_encoding::repeated4);
            if (static_cast<std::uint16_t>(v) == static_cast<std::uint16_t>(v >> 16))
                consider(bdi_encoding::repeated2);
        }
        if (key(best) == no_candidate) // stored-size selection with segments as large as the line
            return {bdi_encoding::uncompressed, bits_of(bdi_encoding::uncompressed)};
        return {best, bits_of(best)};
    }

    template <class T>
    std::uint64_t write_base_delta(detail::bit_writer& w, const std::byte* p,
                                   std::uint32_t d) const noexcept {
        const std::uint32_t n = p_.line_bytes / sizeof(T);
        const unsigned dbits = 8 * d;
        const bool imm = immediates();
        const auto fit = detail::bdi_fits_scalar<T>(p, n, dbits, imm);
        MEMSUB_ASSERT(fit.ok);
        const T base = fit.base_index < n ? detail::load_le<T>(p + fit.base_index * sizeof(T)) : 0;
        w.put(base, 8 * sizeof(T));
        std::uint64_t mask = 0;
        if (imm) {
            for (std::uint32_t j = 0; j < n; ++j)
                if (!detail::fits_sext<T>(detail::load_le<T>(p + j * sizeof(T)), dbits))
                    mask |= std::uint64_t{1} << j;
            if (p_.mask == bdi_mask::in_payload)
                for (std::uint32_t j = 0; j < n; ++j) w.put((mask >> j) & 1, 1);
        }
        for (std::uint32_t j = 0; j < n; ++j) {
            const T v = detail::load_le<T>(p + j * sizeof(T));
            const T delta = (!imm || ((mask >> j) & 1)) ? static_cast<T>(v - base) : v;
            w.put(delta, dbits);
        }
        return p_.mask == bdi_mask::in_tag ? mask : 0;
    }

    template <class T>
    decode_result read_base_delta(detail::bit_reader& r, std::uint64_t tag_mask, std::byte* o,
                                  std::uint32_t d) const noexcept {
        const std::uint32_t n = p_.line_bytes / sizeof(T);
        const unsigned dbits = 8 * d;
        std::uint64_t x = 0;
        if (!r.read_wide(8 * sizeof(T), x)) return {decode_status::truncated, r.position()};
        const T base = static_cast<T>(x);
        std::uint64_t mask = ~std::uint64_t{0}; // B+Δ: every element uses B
        if (immediates()) {
            if (p_.mask == bdi_mask::in_payload) {
                mask = 0;
                for (std::uint32_t j = 0; j < n; ++j) {
                    if (!r.read(1, x)) return {decode_status::truncated, r.position()};
                    mask |= x << j;
                }
            } else {
                if (n < 64 && (tag_mask >> n) != 0) return {decode_status::invalid_code, 0};
                mask = tag_mask;
            }
        }
        for (std::uint32_t j = 0; j < n; ++j) {
            if (!r.read(dbits, x)) return {decode_status::truncated, r.position()};
            const T delta = detail::sign_extend<T>(x, dbits);
            const T v = ((mask >> j) & 1) ? static_cast<T>(base + delta) : delta;
            detail::store_le<T>(o + j * sizeof(T), v);
        }
        return {};
    }

    static constexpr std::uint8_t invalid = 0xFF;
    static constexpr std::uint32_t no_candidate = ~std::uint32_t{0};

    friend detail::params_accessors<bdi>;
    params p_;
    std::array<std::uint32_t, 16> bits_{};
    std::array<bool, 16> valid_{};
    std::array<std::uint8_t, 16> code_{};      ///< encoding → 4-bit code
    std::array<std::uint8_t, 16> from_code_{}; ///< 4-bit code → encoding (`invalid` if none)
    std::array<std::uint32_t, 16> key_{};      ///< selection key (size << 4 | code), ~0 = never
    std::array<bdi_encoding, 6> order_{};
    std::array<std::uint32_t, 3> k_order_{0, 1, 2};                 ///< base sizes 8, 4, 2 by key
    static constexpr std::array<std::size_t, 3> smallest_{2, 5, 7}; ///< their d = 1 encodings
};

static_assert(invertible_compressor<bdi>);

} // namespace memsub::compression
