// Test helpers for the compression family: structured line generators, real-data loading, bit
// strings of payloads for golden tests, and the truncation check every decompressor must pass.
// Shared by the compression tests (and usable by fuzz seeds / benchmarks); no doctest here.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#if defined(__linux__)
#include <link.h>
#endif

#include <memsub/compression/concept.hpp>
#include <memsub/core/rng.hpp>

namespace memsub_test {

/// A line of 32-bit words stored little-endian (word i at bytes 4i..4i+3).
inline std::vector<std::byte> to_line(const std::vector<std::uint32_t>& words) {
    std::vector<std::byte> line(words.size() * 4);
    for (std::size_t i = 0; i < words.size(); ++i)
        for (std::size_t k = 0; k < 4; ++k)
            line[4 * i + k] = static_cast<std::byte>(words[i] >> (8 * k));
    return line;
}

/// The payload's bits as '0'/'1', stream order (docs/mechanisms/compressors.md, 'Notation': MSB of
/// byte 0 first) — golden encodings are written this way.
inline std::string bits_of(const memsub::compression::compressed_line& c) {
    std::string s;
    for (std::uint32_t i = 0; i < c.bits; ++i)
        s += ((std::to_integer<unsigned>(c.payload[i / 8]) >> (7 - i % 8)) & 1u) ? '1' : '0';
    return s;
}

/// The low `n` bits of `v`, MSB first.
inline std::string bin(std::uint64_t v, unsigned n) {
    std::string s;
    for (unsigned i = n; i-- > 0;) s += ((v >> i) & 1u) ? '1' : '0';
    return s;
}

/// Exhaustive truncation: the first length t < cl.bits at which `c` accepts `cl` cut to t bits
/// (payload bytes cut to match), or reports its error beyond bit t; nullopt when every shorter
/// payload fails at or before its end, as every decompressor must.
template <class Compressor>
std::optional<std::uint32_t> accepted_truncation(const Compressor& c,
                                                 const memsub::compression::compressed_line& cl,
                                                 std::span<std::byte> out) {
    for (std::uint32_t t = 0; t < cl.bits; ++t) {
        memsub::compression::compressed_view v = cl.view();
        v.bits = t;
        v.payload = v.payload.first((t + 7) / 8);
        const auto r = c.decompress(v, out);
        if (r.ok() || r.bit_offset > t) return t;
    }
    return std::nullopt;
}

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

/// Iteration counts for the big property loops: full size in every optimised build — Release
/// and the CI presets `dev` and `sanitize`, which are Debug builds compiled with -O1 (so
/// __OPTIMIZE__ is defined) — and an eighth in unoptimised (-O0) builds only, so that a plain
/// Debug build stays quick. Test names state the full counts, which CI runs.
[[nodiscard]] constexpr int scaled(int n) {
#if defined(NDEBUG) || defined(__OPTIMIZE__)
    return n;
#else
    return n / 8 > 0 ? n / 8 : 1;
#endif
}
/// Whether `scaled` runs the full counts in this build.
inline constexpr bool full_scale = scaled(8) == 8;

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

/// A named buffer of test data, a whole number of 128-byte lines.
struct data_set {
    std::string name;
    std::vector<std::byte> bytes;
};

/// Up to `max_bytes` of the file at `path` (fewer if it is shorter or unreadable), cut to whole
/// 128-byte lines.
inline std::vector<std::byte> read_prefix(const std::string& path, std::size_t max_bytes) {
    std::vector<std::byte> out;
    std::ifstream f(path, std::ios::binary);
    if (!f) return out;
    out.resize(max_bytes);
    f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(max_bytes));
    out.resize(static_cast<std::size_t>(f.gcount()) / 128 * 128);
    return out;
}

/// Real binary files that exist wherever this test runs, found deterministically: the test
/// executable itself (/proc/self/exe) and the shared objects loaded into this process (the C and
/// C++ runtime libraries the executable links, as the dynamic loader reports them, in path
/// order). Up to `max_bytes_per_file` of each; files that cannot be read are left out, so callers
/// REQUIRE a minimum amount of data.
inline std::vector<data_set> real_files(std::size_t max_bytes_per_file) {
    std::vector<std::string> paths;
#if defined(__linux__)
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* v) {
            auto& out = *static_cast<std::vector<std::string>*>(v);
            if (info->dlpi_name != nullptr && info->dlpi_name[0] == '/')
                out.emplace_back(info->dlpi_name);
            return 0;
        },
        &paths);
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    paths.insert(paths.begin(), "/proc/self/exe");
#endif
    std::vector<data_set> out;
    for (const auto& path : paths) {
        auto bytes = read_prefix(path, max_bytes_per_file);
        if (!bytes.empty()) out.push_back({path, std::move(bytes)});
    }
    return out;
}

/// The real files of `real_files` concatenated, at most `max_bytes` in total (whole lines).
inline std::vector<std::byte> real_data(std::size_t max_bytes) {
    std::vector<std::byte> out;
    for (const auto& f : real_files(max_bytes)) {
        const std::size_t take = std::min(f.bytes.size(), max_bytes - out.size());
        out.insert(out.end(), f.bytes.begin(), f.bytes.begin() + static_cast<std::ptrdiff_t>(take));
        if (out.size() >= max_bytes) break;
    }
    out.resize(out.size() / 128 * 128);
    return out;
}

/// Generated arrays as a program would hold them, each one array laid out over consecutive
/// lines (not line-by-line random data): a sorted 32-bit index array, 64-bit running totals, a
/// pointer array into one heap region, a float and a double array of smooth functions, and a
/// mostly-zero 32-bit matrix. `bytes` per array (a multiple of 128); deterministic.
inline std::vector<data_set> generated_arrays(std::size_t bytes) {
    bytes = bytes / 128 * 128;
    memsub::xoshiro256ss rng{20240611};
    std::vector<data_set> out;
    auto make = [&](const char* name) -> std::vector<std::byte>& {
        out.push_back({name, std::vector<std::byte>(bytes)});
        return out.back().bytes;
    };
    { // sorted 32-bit indices (a CSR column array, a sorted key list): small random gaps
        auto& b = make("sorted int32");
        std::uint32_t v = static_cast<std::uint32_t>(rng() % 1000);
        for (std::size_t i = 0; i < bytes / 4; ++i) {
            v += static_cast<std::uint32_t>(rng() % 48);
            put32(b, i, v);
        }
    }
    { // 64-bit running totals (prefix sums of small counts)
        auto& b = make("int64 prefix sums");
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < bytes / 8; ++i) {
            v += rng() % 300;
            put64(b, i, v);
        }
    }
    { // pointers to 32-byte objects in one 4 MiB heap region, mostly in allocation order
        auto& b = make("pointers");
        const std::uint64_t base = 0x00007F3A12400000ull;
        std::uint64_t next = 0;
        for (std::size_t i = 0; i < bytes / 8; ++i) {
            const bool jump = rng() % 8 == 0;
            next = jump ? (rng() % (std::uint64_t{1} << 17)) : next + 1;
            put64(b, i, rng() % 16 == 0 ? 0 : base + 32 * (next % (std::uint64_t{1} << 17)));
        }
    }
    { // floats of a smooth function
        auto& b = make("float sin");
        for (std::size_t i = 0; i < bytes / 4; ++i) {
            const float f = 100.0f * std::sin(static_cast<float>(i) * 0.001f) + 3.0f;
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            put32(b, i, u);
        }
    }
    { // doubles of a smooth function
        auto& b = make("double exp decay");
        for (std::size_t i = 0; i < bytes / 8; ++i) {
            const double f = 1e6 * std::exp(-static_cast<double>(i) * 1e-5) + 0.25;
            std::uint64_t u;
            std::memcpy(&u, &f, 8);
            put64(b, i, u);
        }
    }
    { // mostly-zero 32-bit matrix (one non-zero in ten, small values)
        auto& b = make("zero-heavy int32 matrix");
        for (std::size_t i = 0; i < bytes / 4; ++i)
            put32(b, i, rng() % 10 == 0 ? static_cast<std::uint32_t>(1 + rng() % 5000) : 0u);
    }
    return out;
}

/// The property tests' data: the real files of `real_files(max_bytes_per_file)` first (the
/// first `real_count` sets, `real_bytes` in all), then `generated_arrays(256 KiB)`.
struct real_and_generated {
    std::vector<data_set> sets;
    std::size_t real_count = 0;
    std::size_t real_bytes = 0;

    explicit real_and_generated(std::size_t max_bytes_per_file)
        : sets(real_files(max_bytes_per_file))
        , real_count(sets.size()) {
        for (const auto& f : sets) real_bytes += f.bytes.size();
        for (auto& a : generated_arrays(256 << 10)) sets.push_back(std::move(a));
    }
};

} // namespace memsub_test
