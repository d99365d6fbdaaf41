// memsub — word-at-a-time MSB-first bit writer and reader for the BPC and SC² codecs.
//
// Same stream format as `bit_stream.hpp` (fields MSB-first, bit 0 = MSB of byte 0; a payload
// written by one is read by the other), tuned for codecs that emit or consume one short symbol
// per step: the writer flushes 32 bits at a time, the reader keeps a 64-bit window and refills
// it only when fewer than 32 valid bits remain, so a symbol costs a few register operations.
// Both are bounds-checked: the writer never writes outside its buffer (excess bits are dropped
// and `overflowed()` turns true; encoders size their output exactly, so that is a bug caught by
// MEMSUB_ASSERT); the reader never reads outside its byte span, sees zeros past the declared
// bit length and refuses to consume bits that do not exist.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include <memsub/config.hpp>

namespace memsub::compression::detail {

/// The 64 stream bits starting at bit `pos` of the bytes `p[0 … size)`, left-aligned: at least
/// 57 of them are stream bits, and bits past the end of the bytes read as zero. One unaligned
/// load while 8 bytes remain; never reads outside the bytes.
[[nodiscard]] MEMSUB_ALWAYS_INLINE std::uint64_t load_bits64(const std::byte* p, std::size_t size,
                                                             std::uint32_t pos) noexcept {
    const std::size_t byte = pos >> 3;
    std::uint64_t w = 0;
    if (MEMSUB_LIKELY(byte + 8 <= size)) {
        std::memcpy(&w, p + byte, 8);
        if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
    } else if (size >= 8) { // the last 8 bytes, shifted: zeros past the end
        std::memcpy(&w, p + size - 8, 8);
        if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
        w = byte >= size ? 0 : w << (8 * (byte - (size - 8)));
    } else {
        for (std::size_t k = 0; k < 8; ++k) {
            w <<= 8;
            if (byte + k < size) w |= std::to_integer<std::uint64_t>(p[byte + k]);
        }
    }
    return w << (pos & 7);
}

class fast_bit_writer {
public:
    explicit fast_bit_writer(std::span<std::byte> buffer) noexcept : buf_(buffer) {}

    /// Appends the low `n` bits of `v` (n ≤ 32; higher bits of `v` must be zero).
    MEMSUB_ALWAYS_INLINE void put(std::uint32_t v, unsigned n) noexcept {
        MEMSUB_ASSERT(n <= 32 && (n == 32 || (v >> n) == 0));
        acc_ = (acc_ << n) | v; // nacc_ < 32 before, so at most 63 live bits
        nacc_ += n;
        bits_ += n;
        if (nacc_ >= 32) {
            nacc_ -= 32;
            emit32(static_cast<std::uint32_t>(acc_ >> nacc_));
        }
    }
    /// Appends the low `n` bits of `v` (n ≤ 64).
    MEMSUB_ALWAYS_INLINE void put_wide(std::uint64_t v, unsigned n) noexcept {
        if (n > 32) {
            put(static_cast<std::uint32_t>(v >> 32), n - 32);
            put(static_cast<std::uint32_t>(v), 32);
        } else {
            put(static_cast<std::uint32_t>(v), n);
        }
    }
    /// Flushes the partial word (zero-padded to a byte); returns the bits written.
    std::uint32_t finish() noexcept {
        const std::uint64_t rest = acc_ << (32 - nacc_); // left-aligned in the low 32 bits
        for (unsigned done = 0; done < nacc_; done += 8)
            emit_byte(static_cast<std::uint8_t>(rest >> (24 - done)));
        nacc_ = 0;
        acc_ = 0;
        return bits_;
    }
    [[nodiscard]] bool overflowed() const noexcept { return overflow_; }

private:
    MEMSUB_ALWAYS_INLINE void emit32(std::uint32_t w) noexcept {
        if (MEMSUB_LIKELY(pos_ + 4 <= buf_.size())) {
            if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap32(w);
            std::memcpy(buf_.data() + pos_, &w, 4);
            pos_ += 4;
        } else {
            for (int s = 24; s >= 0; s -= 8) emit_byte(static_cast<std::uint8_t>(w >> s));
        }
    }
    void emit_byte(std::uint8_t b) noexcept {
        MEMSUB_ASSERT(pos_ < buf_.size());
        if (pos_ < buf_.size())
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
        const std::size_t byte = pos_ >> 3;
        std::uint64_t w = 0;
        if (MEMSUB_LIKELY(byte + 8 <= data_.size())) {
            std::memcpy(&w, data_.data() + byte, 8);
            if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
        } else {
            for (std::size_t i = 0; i < 8; ++i) {
                w <<= 8;
                if (byte + i < data_.size()) w |= std::to_integer<std::uint64_t>(data_[byte + i]);
            }
        }
        const unsigned skip = pos_ & 7;
        w <<= skip;
        unsigned valid = 64 - skip;
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
