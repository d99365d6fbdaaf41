// Test helpers for the compression family: structured line generators and real-data loading.
// Shared by the compression tests (and usable by fuzz seeds / benchmarks).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include <memsub/core/rng.hpp>

namespace memsub_test {

enum class line_kind : int {
    zero,          ///< all zero
    zero_heavy,    ///< mostly zero 32-bit words, a few small or random ones
    small_ints,    ///< 32-bit words in ±2^k for a random k
    small_ints64,  ///< 64-bit values in ±2^k
    small_ints16,  ///< 16-bit values in ±2^k
    pointers,      ///< 64-bit base + small offsets, with some immediates
    pointers32,    ///< 32-bit base + small offsets
    floats,        ///< IEEE floats around one magnitude
    doubles,       ///< IEEE doubles
    repeated,      ///< one value of 1/2/4/8 bytes repeated
    sext_boundary, ///< words at the edges of the sext(4/8/16) ranges and their halves
    dictionary,    ///< 32-bit words sharing high bytes (C-PACK friendly)
    random_bytes,  ///< uniformly random
    sparse_bytes,  ///< random bytes, most zero
    count
};

inline constexpr int line_kind_count = static_cast<int>(line_kind::count);

/// Iteration counts for the big property loops: full size in optimised builds (millions of
/// lines in total), an eighth in unoptimised Debug builds so the suite stays quick there.
[[nodiscard]] constexpr int scaled(int n) {
#ifdef NDEBUG
    return n;
#else
    return n / 8 > 0 ? n / 8 : 1;
#endif
}

inline void put32(std::span<std::byte> line, std::size_t i, std::uint32_t v) {
    std::memcpy(line.data() + 4 * i, &v, 4);
}
inline void put64(std::span<std::byte> line, std::size_t i, std::uint64_t v) {
    std::memcpy(line.data() + 8 * i, &v, 8);
}
inline void put16(std::span<std::byte> line, std::size_t i, std::uint16_t v) {
    std::memcpy(line.data() + 2 * i, &v, 2);
}

/// Signed value in [−2^(k−1), 2^(k−1)] (note the +1: crosses the sext boundary sometimes).
inline std::int64_t small_signed(memsub::xoshiro256ss& rng, unsigned k) {
    const std::uint64_t span = (std::uint64_t{1} << k) + 1;
    return static_cast<std::int64_t>(rng() % span) - static_cast<std::int64_t>(span / 2);
}

/// Fills `line` (size a multiple of 8) with a line of the given kind.
inline void make_line(line_kind kind, memsub::xoshiro256ss& rng, std::span<std::byte> line) {
    const std::size_t L = line.size(), n32 = L / 4, n64 = L / 8, n16 = L / 2;
    std::memset(line.data(), 0, L);
    switch (kind) {
    case line_kind::zero:
        break;
    case line_kind::zero_heavy:
        for (std::size_t i = 0; i < n32; ++i) {
            const auto r = rng() % 16;
            if (r == 0)
                put32(line, i, static_cast<std::uint32_t>(rng()));
            else if (r < 3)
                put32(line, i, static_cast<std::uint32_t>(small_signed(rng, 8)));
        }
        break;
    case line_kind::small_ints: {
        const unsigned k = 1 + static_cast<unsigned>(rng() % 20);
        for (std::size_t i = 0; i < n32; ++i)
            put32(line, i, static_cast<std::uint32_t>(small_signed(rng, k)));
        break;
    }
    case line_kind::small_ints64: {
        const unsigned k = 1 + static_cast<unsigned>(rng() % 40);
        for (std::size_t i = 0; i < n64; ++i)
            put64(line, i, static_cast<std::uint64_t>(small_signed(rng, k)));
        break;
    }
    case line_kind::small_ints16: {
        const unsigned k = 1 + static_cast<unsigned>(rng() % 12);
        for (std::size_t i = 0; i < n16; ++i)
            put16(line, i, static_cast<std::uint16_t>(small_signed(rng, k)));
        break;
    }
    case line_kind::pointers: {
        const std::uint64_t base = rng() & 0x00007FFFFFFFFFF0ull;
        const unsigned k = 1 + static_cast<unsigned>(rng() % 34);
        for (std::size_t i = 0; i < n64; ++i) {
            const auto r = rng() % 8;
            put64(line, i,
                  r == 0 ? static_cast<std::uint64_t>(small_signed(rng, 8))
                         : base + static_cast<std::uint64_t>(small_signed(rng, k)));
        }
        break;
    }
    case line_kind::pointers32: {
        const std::uint32_t base = static_cast<std::uint32_t>(rng());
        const unsigned k = 1 + static_cast<unsigned>(rng() % 18);
        for (std::size_t i = 0; i < n32; ++i) {
            const auto r = rng() % 6;
            put32(line, i,
                  r == 0 ? static_cast<std::uint32_t>(small_signed(rng, 8))
                         : base + static_cast<std::uint32_t>(small_signed(rng, k)));
        }
        break;
    }
    case line_kind::floats: {
        const float scale = static_cast<float>(rng() % 1000) + 1.0f;
        for (std::size_t i = 0; i < n32; ++i) {
            const float f = scale * (1.0f + static_cast<float>(rng() % 1024) / 1024.0f);
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            put32(line, i, u);
        }
        break;
    }
    case line_kind::doubles: {
        const double scale = static_cast<double>(rng() % 100000) + 1.0;
        for (std::size_t i = 0; i < n64; ++i) {
            const double f = scale + static_cast<double>(i) * 0.5;
            std::uint64_t u;
            std::memcpy(&u, &f, 8);
            put64(line, i, u);
        }
        break;
    }
    case line_kind::repeated: {
        const std::size_t k = std::size_t{1} << (rng() % 4);
        std::uint64_t v = rng();
        if (rng() % 4 == 0) v &= 0xFF;
        for (std::size_t i = 0; i < L; ++i)
            line[i] = static_cast<std::byte>(static_cast<std::uint8_t>(v >> (8 * (i % k))));
        break;
    }
    case line_kind::sext_boundary: {
        static constexpr std::array<std::int64_t, 14> edges{
            -8, 7, -9, 8, -128, 127, -129, 128, -32768, 32767, -32769, 32768, 0, -1};
        for (std::size_t i = 0; i < n32; ++i) {
            std::uint32_t w = static_cast<std::uint32_t>(edges[rng() % edges.size()]);
            const auto r = rng() % 4;
            if (r == 1)
                w <<= 16;
            else if (r == 2)
                w = (static_cast<std::uint32_t>(edges[rng() % edges.size()]) << 16) |
                    (static_cast<std::uint32_t>(edges[rng() % edges.size()]) & 0xFFFF);
            put32(line, i, w);
        }
        break;
    }
    case line_kind::dictionary: {
        std::array<std::uint32_t, 4> highs{};
        for (auto& h : highs) h = static_cast<std::uint32_t>(rng());
        for (std::size_t i = 0; i < n32; ++i) {
            std::uint32_t w = highs[rng() % highs.size()];
            const auto r = rng() % 5;
            if (r == 1)
                w = (w & 0xFFFFFF00u) | static_cast<std::uint32_t>(rng() & 0xFF);
            else if (r == 2)
                w = (w & 0xFFFF0000u) | static_cast<std::uint32_t>(rng() & 0xFFFF);
            else if (r == 3)
                w = static_cast<std::uint32_t>(rng() % 300);
            put32(line, i, w);
        }
        break;
    }
    case line_kind::random_bytes:
        for (std::size_t i = 0; i < n64; ++i) put64(line, i, rng());
        break;
    case line_kind::sparse_bytes:
        for (std::size_t i = 0; i < L; ++i)
            if (rng() % 6 == 0) line[i] = static_cast<std::byte>(rng());
        break;
    case line_kind::count:
        break;
    }
}

/// Up to `max_bytes` bytes of real binary data from shared libraries on this machine (empty if
/// none is readable). Deterministic: fixed files, fixed offsets.
inline std::vector<std::byte> real_data(std::size_t max_bytes) {
    std::vector<std::byte> out;
    for (const char* path :
         {"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
          "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/libstdc++.so.6", "/lib64/libc.so.6"}) {
        std::ifstream f(path, std::ios::binary);
        if (!f) continue;
        std::vector<char> buf(max_bytes - out.size());
        f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const auto got = static_cast<std::size_t>(f.gcount());
        for (std::size_t i = 0; i < got; ++i) out.push_back(static_cast<std::byte>(buf[i]));
        if (out.size() >= max_bytes) break;
    }
    out.resize(out.size() / 128 * 128);
    return out;
}

} // namespace memsub_test
