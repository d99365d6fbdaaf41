// The crafted warp stream of the ID-Cache tests: rounds of a convergent PC re-reading array A
// (64 lines = 8 KB, two lines per set of the 16 KB L1) twice with d = 1, then 32 fully
// divergent gathers (d = 32) over fresh lines — reuse that a streaming gather thrashes out of
// the baseline L1 ([Dissertation] §3.1.2: mixed reuse patterns).
#pragma once

#include <array>
#include <cstdint>

#include <memsub/core/access.hpp>
#include <memsub/gpu/coalescer.hpp>

namespace crafted {

inline constexpr std::uint64_t pc_reuse = 0x100;
inline constexpr std::uint64_t pc_gather = 0x208;

/// Calls `issue(const memsub::access&, int round)` for every access of `rounds` rounds, in order.
template <class Issue>
void run_rounds(int rounds, Issue&& issue) {
    const memsub::gpu::coalescer co;
    memsub::gpu::coalesced_warp w;
    std::array<std::uint64_t, memsub::gpu::warp_size> lanes{};
    std::uint64_t fresh = 0x1000'0000;
    for (int round = 0; round < rounds; ++round) {
        const auto emit = [&](std::uint64_t pc) {
            memsub::access proto;
            proto.pc = pc;
            co.for_each_request(w, proto, [&](const memsub::access& a) { issue(a, round); });
        };
        for (int pass = 0; pass < 2; ++pass)
            for (std::uint64_t line = 0; line < 64; ++line) {
                for (std::uint32_t i = 0; i < memsub::gpu::warp_size; ++i)
                    lanes[i] = line * 128 + i * 4;
                co.coalesce(lanes, 0xffff'ffffu, 4, w); // d = 1
                emit(pc_reuse);
            }
        for (int g = 0; g < 32; ++g) {
            for (std::uint32_t i = 0; i < memsub::gpu::warp_size; ++i) {
                lanes[i] = fresh;
                fresh += 128 * 7; // a new line per lane, spread over the sets
            }
            co.coalesce(lanes, 0xffff'ffffu, 4, w); // d = 32
            emit(pc_gather);
        }
    }
}

} // namespace crafted
