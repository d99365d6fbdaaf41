// Compressing one cache line with each of memsub's invertible compressors — BDI, FPC, C-PACK and
// BPC — on three typical 64-byte lines: an array of nearby pointers, small integers, and random
// bytes. For each it prints the exact payload bits, the bytes the line takes once stored in
// 8-byte segments (stored_size_of; a line that saves nothing is kept raw), and checks the round
// trip (decompress(compress(line)) == line).
#include <memsub/compression/bdi.hpp>
#include <memsub/compression/bpc.hpp>
#include <memsub/compression/cpack.hpp>
#include <memsub/compression/fpc.hpp>
#include <memsub/compression/stored_size.hpp>

#include <fmt/core.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string_view>

namespace {

using line = std::array<std::byte, 64>;

template <class Word, class Make>
line make_line(Make&& make) {
    line out{};
    for (std::size_t i = 0; i < out.size() / sizeof(Word); ++i) {
        const Word w = make(i);
        std::memcpy(out.data() + i * sizeof(Word), &w, sizeof(Word));
    }
    return out;
}

/// Compresses `data` with `c`, prints its sizes, and returns whether the round trip holds.
template <class Compressor>
bool show(const Compressor& c, const line& data) {
    const auto compressed = c.compress(data);
    const auto stored = memsub::compression::stored_size_of(
        compressed.bits, memsub::compression::storage_rule{.line_bytes = 64, .segment_bytes = 8});
    line back{};
    const auto result = c.decompress(compressed, back);
    const bool same = result.ok() && back == data;
    fmt::print("  {:<6} {:>5} bits  {:>3} B stored{}  round trip {}\n", c.name(), compressed.bits,
               stored.stored_bytes, stored.raw ? " (raw)" : "      ", same ? "ok" : "FAILED");
    return same;
}

} // namespace

int main() {
    namespace mc = memsub::compression;
    const mc::bdi bdi;
    const mc::fpc fpc{mc::fpc::params{}};
    const mc::cpack cpack;
    const mc::bpc bpc{mc::bpc::params{}};

    std::mt19937_64 random(42);
    const std::array<std::pair<std::string_view, line>, 3> lines{{
        {"pointers (base 0x7ff000398000 + small offsets)",
         make_line<std::uint64_t>([](std::size_t i) { return 0x7ff000398000ull + 24 * i; })},
        {"small integers (0..15 as 32-bit words)",
         make_line<std::uint32_t>([](std::size_t i) { return static_cast<std::uint32_t>(i); })},
        {"random bytes", make_line<std::uint64_t>([&](std::size_t) { return random(); })},
    }};

    bool all_ok = true;
    for (const auto& [what, data] : lines) {
        fmt::print("{}:\n", what);
        all_ok = show(bdi, data) && all_ok;
        all_ok = show(fpc, data) && all_ok;
        all_ok = show(cpack, data) && all_ok;
        all_ok = show(bpc, data) && all_ok;
    }
    return all_ok ? 0 : 1;
}
