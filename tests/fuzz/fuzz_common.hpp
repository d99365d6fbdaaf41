// memsub fuzzing harness shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp).
//
// Every input drives one compressor three ways:
//   1. arbitrary bytes as a compressed payload (bit length, encoding, member path, code-book id
//      and tag data taken from the input) → decompress must return a status, never crash, never
//      read or write out of bounds (ASan), never hit UB (UBSan), and an error must carry a bit
//      offset inside the payload;
//   2. the input as a cache line (zero-padded) → compress; size_bits == compressed bits;
//      decompress gives the line back;
//   3. that valid payload corrupted (bit flips at input-chosen offsets, truncated or extended by
//      an input-chosen amount) → decompress as in 1.
// A broken property calls __builtin_trap(), which libFuzzer reports as a crash.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <memsub/compression/concept.hpp>

namespace memsub_fuzz {

namespace mc = memsub::compression;

/// Reads bytes off the front of the input; zeros once it is exhausted.
class input {
public:
    input(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}
    std::uint8_t byte() noexcept { return pos_ < size_ ? data_[pos_++] : 0; }
    std::uint32_t u32() noexcept {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v = (v << 8) | byte();
        return v;
    }
    [[nodiscard]] std::span<const std::uint8_t> rest() const noexcept {
        return {data_ + pos_, size_ - pos_};
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

inline void require(bool ok) {
    if (!ok) __builtin_trap();
}

inline std::uint32_t line_size_from(std::uint8_t b) {
    return 32u << (b % 3);
}

/// Checks the CI2 contract on one decode: the status is a known one, an error offset lies within
/// the readable bits, and nothing outside `out` was touched (canaries around it).
template <class C>
void decode_untrusted(const C& c, mc::compressed_view v) {
    const std::uint32_t L = c.line_bytes();
    // Exactly-sized heap buffers: ASan flags any access beyond them.
    std::vector<std::byte> payload(v.payload.begin(), v.payload.end());
    v.payload = payload;
    std::vector<std::byte> out(L + 32, std::byte{0xA5});
    const mc::decode_result r = c.decompress(v, std::span<std::byte>(out.data() + 16, L));
    require(r.status <= mc::decode_status::codebook_mismatch);
    if (!r.ok()) require(r.bit_offset <= std::max<std::uint64_t>(v.bits, payload.size() * 8));
    for (std::size_t i = 0; i < 16; ++i) {
        require(out[i] == std::byte{0xA5});
        require(out[16 + L + i] == std::byte{0xA5});
    }
}

/// The three checks of the file comment for compressor `c` on the remaining input.
template <class C>
void run(const C& c, input& in) {
    const std::uint32_t L = c.line_bytes();
    // 1. Raw bytes as a payload.
    {
        mc::compressed_view v;
        const std::uint8_t slack = in.byte();
        v.encoding = in.byte() % 20 == 0 ? in.byte() : 0;
        v.member = static_cast<std::uint16_t>(in.byte() % 8);
        const std::uint8_t cb = in.byte();
        v.codebook = cb < 200 ? 0 : in.u32();
        v.tag_data = in.byte() % 4 == 0 ? in.u32() : 0;
        const auto rest = in.rest();
        const std::size_t take = std::min<std::size_t>(rest.size(), 300);
        std::vector<std::byte> bytes(take);
        if (take != 0) std::memcpy(bytes.data(), rest.data(), take);
        v.payload = bytes;
        const std::uint64_t avail = take * 8;
        v.bits = static_cast<std::uint32_t>(slack < 240
                                                ? avail - std::min<std::uint64_t>(avail, slack % 8)
                                                : avail + (slack - 239));
        decode_untrusted(c, v);
    }
    // 2. Round trip of the input as a line.
    std::vector<std::byte> line(L, std::byte{0});
    {
        const auto rest = in.rest();
        if (!rest.empty())
            std::memcpy(line.data(), rest.data(), std::min<std::size_t>(rest.size(), L));
        const mc::compressed_line z = c.compress(line);
        require(z.bits == c.size_bits(line));
        std::vector<std::byte> back(L);
        const mc::decode_result r = c.decompress(z, back);
        require(r.ok());
        require(std::equal(line.begin(), line.end(), back.begin()));
        // Exact length matters: one bit less is an error, one bit more is trailing data.
        if (z.bits > 0) {
            mc::compressed_view cut = z;
            cut.bits = z.bits - 1;
            require(!c.decompress(cut, back).ok());
        }
        // 3. Corrupted copies of the valid payload.
        const auto tail = in.rest();
        std::size_t k = std::min<std::size_t>(tail.size(), L);
        for (int round = 0; round < 4 && k + 2 <= tail.size(); ++round) {
            mc::compressed_line f = z;
            const std::uint32_t flips = tail[k++] % 4;
            for (std::uint32_t i = 0; i < flips && k + 1 < tail.size() && z.bits > 0; ++i, k += 2) {
                const std::uint32_t bit = ((std::uint32_t{tail[k]} << 8) | tail[k + 1]) % z.bits;
                f.payload[bit / 8] ^= static_cast<std::byte>(0x80u >> (bit % 8));
            }
            mc::compressed_view v{std::span<const std::byte>(f.payload),
                                  f.bits,
                                  f.encoding,
                                  f.member,
                                  f.codebook,
                                  f.tag_data};
            const std::uint8_t adj = k < tail.size() ? tail[k++] : 0;
            if (adj < 64)
                v.bits = f.bits > adj ? f.bits - adj : 0;
            else if (adj < 128)
                v.bits = std::min<std::uint32_t>(f.bits + (adj - 63), mc::max_payload_bits);
            v.payload = v.payload.first(std::min<std::size_t>(v.payload.size(), (v.bits + 7) / 8));
            decode_untrusted(c, v);
        }
    }
}

} // namespace memsub_fuzz
