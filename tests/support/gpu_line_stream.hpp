// A coalesced SIMT stream for the GPU L1 host tests: warp instructions of four kinds (a
// convergent streaming load, a two-line stride, a gather over a large array, a gather over a
// small hot table) and convergent stores, coalesced by memsub::gpu::coalescer into one line
// request per touched line with its sector mask and the warp's divergence, as a sectored GPU L1
// sees them; and the bytes of every line (some repeat a few values, some are a base plus small
// deltas, some are noise), so compressed L1s have lines of every kind to store.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include <memsub/core/access.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/gpu/coalescer.hpp>

namespace memsub::testing_support {

struct gpu_line_request {
    memsub::access access;  ///< address, pc, kind, size, sector_mask, divergence
    std::uint64_t warp = 0; ///< the warp instruction's index (the host's cycle)
};

/// `warps` warp instructions of a seeded mix, as line requests in issue order.
inline std::vector<gpu_line_request> make_gpu_line_stream(std::uint64_t warps,
                                                          std::uint64_t seed = 1) {
    const memsub::gpu::coalescer coalescer{};
    memsub::xoshiro256ss rng(seed);
    std::vector<gpu_line_request> out;
    std::array<std::uint64_t, memsub::gpu::warp_size> lanes{};
    std::uint64_t stream_pos = 0;
    for (std::uint64_t w = 0; w < warps; ++w) {
        const std::uint64_t kind = rng() % 10;
        memsub::access proto{};
        proto.size = 4;
        std::uint32_t active = 0xffff'ffffu;
        if (kind < 3) { // convergent streaming over 96 KB, revisited
            proto.pc = 0x100;
            const std::uint64_t base = 0x100000 + (stream_pos++ % 768) * 128;
            for (std::uint32_t l = 0; l < 32; ++l) lanes[l] = base + 4 * l;
        } else if (kind < 5) { // 8-byte stride: two lines
            proto.pc = 0x108;
            const std::uint64_t base = 0x200000 + (rng() % 64) * 256;
            for (std::uint32_t l = 0; l < 32; ++l) lanes[l] = base + 8 * l;
        } else if (kind < 7) { // gather over 1 MB (little reuse)
            proto.pc = 0x110;
            for (std::uint32_t l = 0; l < 32; ++l) lanes[l] = 0x400000 + (rng() % 262144) * 4;
            active = static_cast<std::uint32_t>(rng()) | 1u;
        } else if (kind < 9) { // gather over a 6 KB hot table (reuse)
            proto.pc = 0x118;
            const std::uint32_t spread = 1u + static_cast<std::uint32_t>(rng() % 48);
            const std::uint64_t first = rng() % 48;
            for (std::uint32_t l = 0; l < 32; ++l)
                lanes[l] = 0x800000 + ((first + (l * 7) % spread) % 48) * 128 + 4 * (l % 8);
        } else { // convergent store into the streamed array
            proto.pc = 0x120;
            proto.kind = memsub::access_kind::store;
            const std::uint64_t base = 0x100000 + (rng() % 768) * 128;
            for (std::uint32_t l = 0; l < 32; ++l) lanes[l] = base + 4 * l;
        }
        const memsub::gpu::coalesced_warp cw = coalescer.coalesce(lanes, active, 4);
        coalescer.for_each_request(cw, proto, [&](const memsub::access& a) {
            out.push_back({a, w});
        });
    }
    return out;
}

/// The 128 bytes of the line at `line_first` (its first byte).
inline void gpu_line_bytes(std::uint64_t line_first, std::uint8_t* out) {
    const std::uint64_t line = line_first / 128;
    std::uint64_t state = line * 0x9E3779B97F4A7C15ull + 1;
    std::array<std::uint32_t, 32> words{};
    switch (line % 4) {
    case 0: // a few small values (SC² codes them in a few bits)
        for (std::uint32_t i = 0; i < 32; ++i)
            words[i] = static_cast<std::uint32_t>(memsub::splitmix64(state) % 4);
        break;
    case 1: // a base and small deltas (BDI)
        for (std::uint32_t i = 0; i < 32; ++i)
            words[i] = 0x40000000u + static_cast<std::uint32_t>(line) * 64 +
                       static_cast<std::uint32_t>(memsub::splitmix64(state) % 100);
        break;
    case 2: // zeros
        break;
    default: // noise
        for (std::uint32_t i = 0; i < 32; ++i)
            words[i] = static_cast<std::uint32_t>(memsub::splitmix64(state));
        break;
    }
    std::memcpy(out, words.data(), 128);
}

} // namespace memsub::testing_support
