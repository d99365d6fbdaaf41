// memsub — MSB-first bit streams for compressed payloads.
//
// Layout (docs/mechanisms/compressors.md, 'Notation'): a payload is the concatenation of its
// fields, each written most-significant bit first; bit 0 of the stream is the most significant bit
// of byte 0. `bit_writer` fills a caller-provided byte buffer (a `compressed_line`'s array);
// `bit_reader` reads an untrusted payload: every read is bounds-checked against the declared bit
// length and the byte span, and a failed read reports truncation without moving (its position is
// then the bit offset of the error); `fast_bit_reader` is the same with a refilled 64-bit window,
// for decoders that consume one short symbol per step. None allocates; all are noexcept.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include <memsub/config.hpp>

namespace memsub::compression::detail {

/// The 8 bytes at byte offset `at` of `p[0 … size)` as a big-endian (MSB-first) 64-bit word;
/// bytes past the end read as zero. One unaligned load while 8 bytes remain, one load of the
/// last 8 bytes (shifted) near the end; never reads outside the bytes.
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t load_be64(const std::byte* p, std::size_t size,
                                                           std::size_t at) noexcept {
    std::uint64_t w = 0;
    if (MEMSUB_LIKELY(at + 8 <= size)) {
        std::memcpy(&w, p + at, 8);
        if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
    } else if (size >= 8) {
        std::memcpy(&w, p + size - 8, 8);
        if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
        w = at >= size ? 0 : w << (8 * (at - (size - 8)));
    } else {
        for (std::size_t k = 0; k < 8; ++k) {
            w <<= 8;
            if (at + k < size) w |= std::to_integer<std::uint64_t>(p[at + k]);
        }
    }
    return w;
}

/// The 64 stream bits starting at bit `pos` of `p[0 … size)`, left-aligned: at least
/// 64 − (pos mod 8) ≥ 57 of them are stream bits, and bits past the end of the bytes read as
/// zero. Never reads outside the bytes.
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t load_bits64(const std::byte* p, std::size_t size,
                                                             std::uint32_t pos) noexcept {
    return load_be64(p, size, pos >> 3) << (pos & 7);
}

/// Writes fields MSB-first. Writing past the buffer is a precondition violation (encoders size
/// their output exactly); it is caught by MEMSUB_ASSERT and, with asserts off, the excess bits
/// are dropped (never written out of bounds) and `overflowed()` turns true.
class bit_writer {
public:
    explicit bit_writer(std::span<std::byte> buffer) noexcept : buf_(buffer) {}

    /// Appends the low `n` bits of `value` (0 ≤ n ≤ 64), MSB first. Higher bits of `value` are
    /// ignored. Deliberately not forced inline: forcing it into every BDI/FPC/C-PACK encoder
    /// grew the benchmark unit enough for GCC to stop inlining C-PACK's size kernel (45 → 26 M
    /// lines/s).
    void put(std::uint64_t value, unsigned n) noexcept {
        MEMSUB_ASSERT(n <= 64);
        if (n > 32) {
            put32(static_cast<std::uint32_t>(value >> 32) & low_mask32(n - 32), n - 32);
            put32(static_cast<std::uint32_t>(value), 32);
        } else {
            put32(static_cast<std::uint32_t>(value) & low_mask32(n), n);
        }
    }

    /// Appends the low `n` ≤ 32 bits of `value`, whose higher bits must be zero — the
    /// one-short-symbol-per-step path of the BPC and SC² encoders (no masking).
    MEMSUB_ALWAYS_INLINE void put_small(std::uint32_t value, unsigned n) noexcept {
        MEMSUB_ASSERT(n <= 32 && (n == 32 || (value >> n) == 0));
        put32(value, n);
    }

    /// Appends `n` zero bits.
    void put_zeros(unsigned n) noexcept {
        while (n >= 32) {
            put32(0, 32);
            n -= 32;
        }
        put32(0, n);
    }

    /// Flushes the last partial byte (zero-padded). Returns the number of bits written.
    std::uint32_t finish() noexcept {
        while (nacc_ >= 8) {
            nacc_ -= 8;
            emit_byte(static_cast<std::uint8_t>(acc_ >> nacc_));
        }
        if (nacc_ > 0) emit_byte(static_cast<std::uint8_t>(acc_ << (8 - nacc_)));
        acc_ = 0;
        nacc_ = 0;
        return bits_;
    }

    [[nodiscard]] std::uint32_t bits_written() const noexcept { return bits_; }
    [[nodiscard]] bool overflowed() const noexcept { return overflow_; }

private:
    static constexpr std::uint32_t low_mask32(unsigned n) noexcept {
        return n >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << n) - 1;
    }
    // acc_ holds nacc_ < 32 pending bits (right-aligned); whole 32-bit groups are stored at once.
    MEMSUB_ALWAYS_INLINE void put32(std::uint32_t v, unsigned n) noexcept {
        acc_ = (acc_ << n) | v; // nacc_ < 32 before, so at most 63 live bits; n = 0 is a no-op
        nacc_ += n;
        bits_ += n;
        if (nacc_ >= 32) {
            nacc_ -= 32;
            const auto word = static_cast<std::uint32_t>(acc_ >> nacc_);
            if (MEMSUB_LIKELY(pos_ + 4 <= buf_.size())) {
                const std::uint32_t be =
                    std::endian::native == std::endian::little ? __builtin_bswap32(word) : word;
                std::memcpy(buf_.data() + pos_, &be, 4);
                pos_ += 4;
            } else {
                for (int s = 24; s >= 0; s -= 8) emit_byte(static_cast<std::uint8_t>(word >> s));
            }
            acc_ &= (std::uint64_t{1} << nacc_) - 1;
        }
    }
    void emit_byte(std::uint8_t b) noexcept {
        MEMSUB_ASSERT(pos_ < buf_.size());
        if (MEMSUB_LIKELY(pos_ < buf_.size()))
            buf_[pos_++] = static_cast<std::byte>(b);
        else
            overflow_ = true;
    }

    std::span<std::byte> buf_;
    std::uint64_t acc_ = 0;
    unsigned nacc_ = 0;
    std::size_t pos_ = 0;
    std::uint32_t bits_ = 0;
    bool overflow_ = false;
};

/// Reads fields MSB-first from an untrusted payload of `bits` bits. The readable length is
/// min(bits, 8·payload.size()). Reads that would cross the end fail, return false and leave the
/// position unchanged, so `position()` is the offset of the field that was cut off.
class bit_reader {
public:
    bit_reader(std::span<const std::byte> payload, std::uint32_t bits) noexcept
        : data_(payload)
        , size_(payload.size() * 8 < bits ? static_cast<std::uint32_t>(payload.size() * 8) : bits) {
    }

    /// Reads `n` bits (0 ≤ n ≤ 57) into `out`. False (and no move) if fewer than `n` remain.
    [[nodiscard]] bool read(unsigned n, std::uint64_t& out) noexcept {
        MEMSUB_ASSERT(n <= 57);
        if (MEMSUB_UNLIKELY(n > size_ - pos_)) return false;
        out = n == 0 ? 0 : window() >> (64 - n);
        pos_ += n;
        return true;
    }

    /// Reads up to 64 bits (two reads).
    [[nodiscard]] bool read_wide(unsigned n, std::uint64_t& out) noexcept {
        if (n <= 57) return read(n, out);
        if (n - 57 > size_ - pos_ || 57 > size_ - pos_ - (n - 57)) return false;
        std::uint64_t hi = 0, lo = 0;
        (void)read(n - 32, hi);
        (void)read(32, lo);
        out = (hi << 32) | lo;
        return true;
    }

    /// The next `n` bits (0 < n ≤ 57) without moving; bits past the end read as zero.
    [[nodiscard]] std::uint64_t peek(unsigned n) const noexcept {
        MEMSUB_ASSERT(n >= 1 && n <= 57);
        std::uint64_t v = window() >> (64 - n);
        const std::uint32_t left = size_ - pos_;
        if (left < n) v &= ~((std::uint64_t{1} << (n - left)) - 1);
        return v;
    }

    /// Skips `n` bits. False (and no move) if fewer remain.
    [[nodiscard]] bool skip(std::uint32_t n) noexcept {
        if (n > size_ - pos_) return false;
        pos_ += n;
        return true;
    }

    /// 64 bits starting at bit `pos` (≤ size()), left-aligned, without moving: the first
    /// 64 − (pos mod 8) ≥ 57 are stream bits (bytes past the span read as zero; bits past
    /// `size()` are unspecified — callers check lengths against `size()`). For decoders that
    /// keep their own position on the hot path.
    [[nodiscard]] std::uint64_t window_at(std::uint32_t pos) const noexcept {
        return load_bits64(data_.data(), data_.size(), pos);
    }

    [[nodiscard]] std::uint32_t position() const noexcept { return pos_; }
    [[nodiscard]] std::uint32_t size() const noexcept { return size_; }
    [[nodiscard]] std::uint32_t remaining() const noexcept { return size_ - pos_; }
    [[nodiscard]] bool at_end() const noexcept { return pos_ == size_; }

private:
    /// 64 bits starting at `pos_`, left-aligned; at least 57 of them valid, zero past the bytes.
    [[nodiscard]] std::uint64_t window() const noexcept { return window_at(pos_); }

    std::span<const std::byte> data_;
    std::uint32_t size_;
    std::uint32_t pos_ = 0;
};

/// A bounds-checked window reader for decoders that consume one short symbol per step (BPC,
/// SC²): a 64-bit window refilled only when fewer than 48 valid bits remain, so a symbol costs a
/// few register operations. It never reads outside its byte span, sees zeros past the declared
/// bit length and refuses to consume bits that do not exist.
class fast_bit_reader {
public:
    /// Reads at most min(bits, 8·payload.size()) bits.
    fast_bit_reader(std::span<const std::byte> payload, std::uint32_t bits) noexcept
        : data_(payload)
        , size_(payload.size() * 8 < bits ? static_cast<std::uint32_t>(payload.size() * 8) : bits) {
        refill();
    }

    /// The next 64 bits, left-aligned; at least min(48, remaining()) of them are valid and the
    /// bits past the end of the stream read as zero.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t window() noexcept {
        if (have_ < 48 && have_ < size_ - pos_) refill();
        return win_;
    }
    /// Consumes `n` ≤ 48 bits (the first `n` bits of `window()`). False (and no move) if fewer than
    /// `n` remain.
    [[nodiscard]] MEMSUB_ALWAYS_INLINE bool consume(unsigned n) noexcept {
        MEMSUB_ASSERT(n <= 48);
        if (MEMSUB_UNLIKELY(n > have_)) {
            refill();
            if (n > have_) return false;
        }
        win_ <<= n;
        have_ -= n;
        pos_ += n;
        return true;
    }
    [[nodiscard]] std::uint32_t position() const noexcept { return pos_; }
    [[nodiscard]] std::uint32_t remaining() const noexcept { return size_ - pos_; }
    [[nodiscard]] bool at_end() const noexcept { return pos_ == size_; }

private:
    void refill() noexcept {
        std::uint64_t w = load_bits64(data_.data(), data_.size(), pos_);
        unsigned valid = 64 - (pos_ & 7);
        const std::uint32_t left = size_ - pos_;
        if (left < valid) {
            valid = left;
            w = valid == 0 ? 0 : (w & ~(~std::uint64_t{0} >> valid));
        }
        win_ = w;
        have_ = valid;
    }

    std::span<const std::byte> data_;
    std::uint32_t size_;
    std::uint32_t pos_ = 0;
    std::uint64_t win_ = 0;
    unsigned have_ = 0;
};

} // namespace memsub::compression::detail
