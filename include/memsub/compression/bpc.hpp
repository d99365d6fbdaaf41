// memsub — BPC, Bit-Plane Compression.
//
// Citation: J. Kim, M. Sullivan, E. Choukse, M. Erez, "Bit-Plane Compression: Transforming Data
// for Better Compression in Many-Core Architectures", ISCA 2016 (§4: the Delta-BitPlane-XOR
// transform and the plane symbol code). Normative text: docs/mechanisms/compressors.md §1.4 and
// §2.2.
//
// Encoding (bit stream, every field MSB-first): the base code for word 0 (000 zero, 001+4,
// 010+8, 011+16 sign-extended, 1+32 raw), then one symbol per DBX plane or per maximal run of
// all-zero DBX planes, scanning planes b = 32 down to 0:
//   01+5b run of R = 2…33 zero planes (field R−2) | 001 single zero plane
//   00000 all ones | 00001 DBX ≠ 0, DBP = 0 | 00010+p two adjacent ones (p = lower position)
//   00011+p single one | 1+DBX raw plane (n−1 bits)
// Symbol priority for a non-zero plane is normative (§1.4): all-ones → zero-DBP → two-adjacent
// → single-one → raw.
//
// Deviations from the paper / choices:
//   * The paper defines BPC for 128-byte blocks (32 words). memsub generalises to n = L/4 words
//     (n = 8, 16, 32): planes hold n−1 bits and the position field is ⌈log2(n−1)⌉ bits (3, 4, 5),
//     as compressors.md §1.4 generalises it.
//   * The four 5-bit class code values are [UNVERIFIED] against the paper's own table
//     (compressors.md §1.4). The default (`symbol_codes::spec`) is that page's assignment;
//     `symbol_codes::authors_comment` uses the assignment in a comment of the BPC authors' size
//     model (00000 single, 00001 two-adjacent, 00010 zero-DBP, 00011 all-ones). Sizes are
//     identical.
//   * Compression latency: no source gives one ([UNVERIFIED], docs/mechanisms/compressors.md §3);
//     the default equals the 11-cycle decompression latency of the dissertation (§4.3.8). Energies:
//     no source (0).
//   * Incompressible lines: `size_bits` may reach 33 + 33·n bits (> 8L); the stored-size rule CS4
//     (`stored_size.hpp`) decides raw storage.
//
// Decoding never trusts the payload: a run longer than the planes left, a position field that
// names no valid bit, a truncated field or bits after the 33rd plane are reported with the bit
// offset where they were found.
//
// Hardware storage budget: BPC keeps no per-line metadata besides the compressed size kept by
// the cache organisation (`metadata_bits() == 0`); the transform is combinational.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/bit_stream.hpp>
#include <memsub/compression/detail/bpc_transform.hpp>
#include <memsub/compression/detail/params_accessors.hpp>
#include <memsub/config.hpp>

namespace memsub::compression {

class bpc : public detail::params_accessors<bpc> {
public:
    /// The assignment of the four 5-bit plane-class codes ([UNVERIFIED],
    /// docs/mechanisms/compressors.md §1.4).
    enum class symbol_codes : std::uint8_t {
        spec,            ///< 00000 all-ones, 00001 zero-DBP, 00010 two-adjacent, 00011 single
        authors_comment, ///< 00000 single, 00001 two-adjacent, 00010 zero-DBP, 00011 all-ones
    };

    struct params {
        std::uint32_t line_bytes = 64;
        symbol_codes codes = symbol_codes::spec;
        /// [UNVERIFIED] no source; defaults to the decompression latency.
        std::uint32_t compress_latency_cycles = 11;
        /// Dissertation §4.3.8 / Table 4.1.
        std::uint32_t decompress_latency_cycles = 11;
        double compress_energy_nj = 0.0;
        double decompress_energy_nj = 0.0;
    };

    static constexpr std::string_view component = "memsub::compression::bpc";

    /// Plane classes (index into the code table).
    enum class plane_class : std::uint8_t { all_ones, zero_dbp, two_adjacent, single_one };

    bpc() : bpc(params{}) {}
    explicit bpc(const params& p) : p_(p) {
        require_line_bytes(p.line_bytes, component);
        n_ = p.line_bytes / 4;
        plane_bits_ = n_ - 1;
        position_bits_ = static_cast<std::uint32_t>(std::bit_width(plane_bits_ - 1));
        full_ = (std::uint32_t{1} << plane_bits_) - 1;
        if (p.codes == symbol_codes::spec)
            class_code_ = {0b00, 0b01, 0b10, 0b11};
        else if (p.codes == symbol_codes::authors_comment)
            class_code_ = {0b11, 0b10, 0b01, 0b00};
        else
            memsub::require(false, component, "codes", static_cast<std::uint64_t>(p.codes),
                            "must be symbol_codes::spec or symbol_codes::authors_comment");
        for (std::uint8_t c = 0; c < 4; ++c) code_class_[class_code_[c]] = c;
    }

    [[nodiscard]] std::string_view name() const noexcept { return "bpc"; }
    [[nodiscard]] std::uint32_t metadata_bits() const noexcept { return 0; }

    /// Width of the position field p: ⌈log2(n−1)⌉ (5 for 128B, 4 for 64B, 3 for 32B lines).
    [[nodiscard]] std::uint32_t position_bits() const noexcept { return position_bits_; }

    /// Bits of the base-word code (§1.4 base table).
    [[nodiscard]] static constexpr std::uint32_t base_bits(std::uint32_t base) noexcept {
        const auto s = static_cast<std::int32_t>(base);
        if (s == 0) return 3;
        if (s >= -8 && s <= 7) return 7;
        if (s >= -128 && s <= 127) return 11;
        if (s >= -32768 && s <= 32767) return 19;
        return 33;
    }

    /// Exact payload bits of `line` (§1.4, §2.2).
    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        if constexpr (std::endian::native == std::endian::little) {
            return base_bits(detail::bpc_load_word(line, 0)) +
                   detail::bpc_kernel<>::size_bits(line.data(), n_, position_bits_);
        } else {
            detail::bpc_planes pl;
            std::array<std::uint32_t, 32> w;
            transform(line, w, pl);
            std::uint32_t bits = base_bits(w[0]);
            std::uint32_t run = 0;
            for (int b = 32; b >= 0; --b) {
                const std::uint32_t x = pl.dbx[static_cast<std::size_t>(b)];
                if (x == 0) {
                    ++run;
                    continue;
                }
                bits += run_bits(run);
                run = 0;
                bits += symbol_bits(x, pl.dbp[static_cast<std::size_t>(b)]);
            }
            return bits + run_bits(run);
        }
    }

    /// Compresses `line` into a value; `bits == size_bits(line)`.
    [[nodiscard]] compressed_line compress(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        compressed_line out;
        detail::bpc_planes pl;
        std::array<std::uint32_t, 32> w;
        transform(line, w, pl);
        detail::bit_writer bw(out.payload);
        put_base(bw, w[0]);
        std::uint32_t run = 0;
        for (int b = 32; b >= 0; --b) {
            const std::uint32_t x = pl.dbx[static_cast<std::size_t>(b)];
            if (x == 0) {
                ++run;
                continue;
            }
            put_run(bw, run);
            run = 0;
            put_symbol(bw, x, pl.dbp[static_cast<std::size_t>(b)]);
        }
        put_run(bw, run);
        out.bits = bw.finish();
        return out;
    }

    /// Decodes a payload (§1.4 decompression). See the file comment for the checks.
    [[nodiscard]] decode_result decompress(compressed_view v,
                                           std::span<std::byte> out) const noexcept {
        if (out.size() != p_.line_bytes) return {decode_status::wrong_output_size, 0};
        if (v.bits > v.payload.size() * 8 || v.bits > max_payload_bits)
            return {decode_status::bad_view, 0};
        if (v.encoding != 0 || v.member != 0) return {decode_status::unknown_encoding, 0};
        const std::byte* bytes = v.payload.data();
        const std::size_t size = v.payload.size();
        const std::uint32_t bits = v.bits;
        std::uint32_t pos = 0;
        auto fail = [](decode_status s, std::uint32_t at) { return decode_result{s, at}; };

        // Base word: 1 + 32 raw bits, or 0cc + a 0/4/8/16-bit sign-extended field.
        std::uint32_t base = 0;
        std::uint64_t w = detail::load_bits64(bytes, size, 0);
        if ((w >> 63) != 0) {
            if (bits < 33) return fail(decode_status::truncated, 0);
            base = static_cast<std::uint32_t>(w >> 31);
            pos = 33;
        } else {
            static constexpr unsigned widths[4] = {0, 4, 8, 16};
            const unsigned width = widths[(w >> 61) & 3];
            if (bits < 3 + width) return fail(decode_status::truncated, 0);
            if (width != 0)
                base = sign_extend(static_cast<std::uint32_t>(w >> (61 - width)) &
                                       ((std::uint32_t{1} << width) - 1),
                                   width);
            pos = 3 + width;
        }

        // Planes b = 32 … 0, one window per symbol: DBP[b] = DBX[b] XOR DBP[b+1] (DBP[33] =
        // 0), or 0 for a zero-DBP symbol.
        alignas(64) std::array<std::uint32_t, 33> dbp{};
        std::uint32_t upper = 0; // DBP[b+1]
        const std::uint32_t pmask = (std::uint32_t{1} << position_bits_) - 1;
        int b = 32;
        // `w` holds the stream from `pos` on; `fresh` of its bits are loaded (a symbol is at
        // most 32 bits, so the window is reloaded when fewer remain).
        unsigned fresh = 0;
        while (b >= 0) {
            const std::uint32_t at = pos;
            if (fresh < 32) {
                w = detail::load_bits64(bytes, size, pos);
                fresh = 57;
            }
            std::uint32_t p;
            unsigned len;
            if ((w >> 63) != 0) { // 1 + raw plane
                len = 1 + plane_bits_;
                p = (static_cast<std::uint32_t>(w >> (64 - len)) & full_) ^ upper;
            } else if ((w >> 62) == 1) { // 01 + zero run of R planes (field R − 2)
                if (7 > bits - pos) return fail(decode_status::truncated, at);
                const auto r = static_cast<int>((w >> 57) & 31) + 2;
                if (r > b + 1) return fail(decode_status::invalid_code, at);
                for (int k = 0; k < r; ++k, --b) dbp[static_cast<std::size_t>(b)] = upper;
                pos += 7;
                w <<= 7;
                fresh -= 7;
                continue;
            } else if ((w >> 61) == 1) { // 001: one zero plane
                len = 3;
                p = upper;
            } else { // 000 + 2-bit class (+ position)
                const auto cls = static_cast<plane_class>(code_class_[(w >> 59) & 3]);
                if (cls == plane_class::all_ones || cls == plane_class::zero_dbp) {
                    len = 5;
                    p = cls == plane_class::zero_dbp ? 0 : (full_ ^ upper);
                } else {
                    len = 5 + position_bits_;
                    if (len > bits - pos) return fail(decode_status::truncated, at);
                    const auto ps = static_cast<std::uint32_t>(w >> (59 - position_bits_)) & pmask;
                    const bool pair = cls == plane_class::two_adjacent;
                    // A pair's lower bit can be at most n−3, a single bit at most n−2.
                    if (ps >= (pair ? plane_bits_ - 1 : plane_bits_))
                        return fail(decode_status::invalid_code, at + 5);
                    p = ((pair ? 3u : 1u) << ps) ^ upper;
                }
            }
            if (len > bits - pos) return fail(decode_status::truncated, at);
            pos += len;
            w <<= len;
            fresh -= len;
            dbp[static_cast<std::size_t>(b)] = p;
            upper = p;
            --b;
        }
        if (pos != bits) return fail(decode_status::trailing_bits, pos);
        if constexpr (std::endian::native == std::endian::little) {
            detail::bpc_kernel<>::inverse(dbp, n_, base, out.data());
        } else {
            std::array<std::uint32_t, 32> words;
            detail::bpc_inverse_reference(dbp, base, std::span<std::uint32_t>(words.data(), n_));
            for (std::uint32_t i = 0; i < n_; ++i) detail::bpc_store_word(out, i, words[i]);
        }
        return {};
    }

private:
    [[nodiscard]] static constexpr std::uint32_t sign_extend(std::uint32_t v,
                                                             unsigned bits) noexcept {
        const std::uint32_t m = std::uint32_t{1} << (bits - 1);
        return (v ^ m) - m;
    }
    [[nodiscard]] static constexpr std::uint32_t run_bits(std::uint32_t run) noexcept {
        return run == 0 ? 0 : (run == 1 ? 3 : 7);
    }

    /// Classifies a non-zero DBX plane by the normative priority.
    [[nodiscard]] plane_class classify(std::uint32_t x, std::uint32_t dbp,
                                       bool& raw) const noexcept {
        raw = false;
        if (x == full_) return plane_class::all_ones;
        if (dbp == 0) return plane_class::zero_dbp;
        const int low = std::countr_zero(x);
        if (x == (std::uint32_t{3} << low)) return plane_class::two_adjacent;
        if ((x & (x - 1)) == 0) return plane_class::single_one;
        raw = true;
        return plane_class::all_ones;
    }

    [[nodiscard]] std::uint32_t symbol_bits(std::uint32_t x, std::uint32_t dbp) const noexcept {
        bool raw;
        const plane_class c = classify(x, dbp, raw);
        if (raw) return 1 + plane_bits_;
        return (c == plane_class::all_ones || c == plane_class::zero_dbp) ? 5 : 5 + position_bits_;
    }

    static void put_run(detail::bit_writer& bw, std::uint32_t run) noexcept {
        if (run == 1)
            bw.put_small(0b001, 3);
        else if (run >= 2)
            bw.put_small((0b01u << 5) | (run - 2), 7);
    }
    static void put_base(detail::bit_writer& bw, std::uint32_t base) noexcept {
        switch (base_bits(base)) {
        case 3:
            bw.put_small(0b000, 3);
            break;
        case 7:
            bw.put_small((0b001u << 4) | (base & 0xFu), 7);
            break;
        case 11:
            bw.put_small((0b010u << 8) | (base & 0xFFu), 11);
            break;
        case 19:
            bw.put_small((0b011u << 16) | (base & 0xFFFFu), 19);
            break;
        default:
            bw.put_small(1, 1);
            bw.put_small(base, 32);
            break;
        }
    }
    void put_symbol(detail::bit_writer& bw, std::uint32_t x, std::uint32_t dbp) const noexcept {
        bool raw;
        const plane_class c = classify(x, dbp, raw);
        if (raw) {
            bw.put_small((std::uint32_t{1} << plane_bits_) | x, 1 + plane_bits_);
            return;
        }
        const std::uint32_t code = class_code_[static_cast<std::size_t>(c)];
        if (c == plane_class::two_adjacent || c == plane_class::single_one)
            bw.put_small((code << position_bits_) | static_cast<std::uint32_t>(std::countr_zero(x)),
                         5 + position_bits_); // 000 + 2-bit class code + position
        else
            bw.put_small(code, 5);
    }

    void transform(std::span<const std::byte> line, std::array<std::uint32_t, 32>& w,
                   detail::bpc_planes& pl) const noexcept {
        for (std::uint32_t i = 0; i < n_; ++i) w[i] = detail::bpc_load_word(line, i);
        if constexpr (std::endian::native == std::endian::little)
            detail::bpc_transform(std::span<const std::uint32_t>(w.data(), n_), pl);
        else
            detail::bpc_transform_reference(std::span<const std::uint32_t>(w.data(), n_), pl);
    }

    friend detail::params_accessors<bpc>;
    params p_;
    std::uint32_t n_ = 16, plane_bits_ = 15, position_bits_ = 4, full_ = 0x7FFF;
    std::array<std::uint8_t, 4> class_code_{}; ///< class → 2-bit code
    std::array<std::uint8_t, 4> code_class_{}; ///< 2-bit code → class
};

} // namespace memsub::compression
