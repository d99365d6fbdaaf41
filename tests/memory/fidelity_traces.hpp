// The deterministic traces of the DRAMSim3 fidelity suite (tests/memory/fidelity_test.cpp,
// tests/data/dramsim3/). One definition serves both sides: `make_traces` (tests/data/dramsim3/)
// writes them in DRAMSim3's trace format ("0x<hex address> READ|WRITE <cycle>") for the
// reference runs, and the fidelity test generates the same requests in memory. Only std, so the
// generator builds without memsub's dependencies. The random numbers are splitmix64, written out
// here so the traces never depend on a library's generator.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memtest::fidelity {

/// Address patterns.
enum class pattern : std::uint8_t {
    random,    ///< uniform 64 B blocks over the whole memory
    streaming, ///< consecutive 64 B blocks (one sequential stream)
    copy,      ///< copy loop: reads of one array, writes of another (sequential, disjoint)
    hot,       ///< uniform 64 B blocks in a small footprint (reuse: forwarding, merging)
    conflict,  ///< every request a new row of one of two banks (row conflicts)
};

struct trace_request {
    std::uint64_t address = 0;
    bool is_write = false;
    std::uint64_t cycle = 0; ///< the cycle the host offers it (DRAMSim3's trace cycle)
};

struct trace_spec {
    std::string_view name;
    pattern kind = pattern::random;
    std::uint32_t requests = 50000;
    std::uint32_t gap = 8;             ///< cycles between two offers
    std::uint32_t write_per_mille = 0; ///< writes among the requests (random, hot)
    std::uint64_t footprint = 0;       ///< bytes (hot); 0 = the whole memory
    std::uint64_t seed = 1;
};

/// What the generator needs of the memory: its capacity and where the row field starts (both
/// presets map rows to the top bits, DRAMSim3's "ro…" orders), and the 64 B burst.
struct geometry {
    std::uint64_t capacity_bytes = 0;
    std::uint32_t row_shift = 0;
};

/// DDR4-2400 (memsub presets::ddr4_2400, DRAMSim3 DDR4_8Gb_x8_2400): 8 GB, "rochrababgco" with
/// one channel and rank: 6 offset + 7 column + 2 bank-group + 2 bank bits below the row.
inline constexpr geometry ddr4_geometry{.capacity_bytes = std::uint64_t{1} << 33, .row_shift = 17};
/// HBM2 (presets::hbm2_4gb_x128, DRAMSim3 HBM2_4Gb_x128 with one rank): 8 channels of 256 MB,
/// "rorabgbachco": 6 offset + 4 column + 3 channel + 2 bank + 2 bank-group bits below the row.
inline constexpr geometry hbm2_geometry{.capacity_bytes = std::uint64_t{1} << 31, .row_shift = 17};

inline std::uint64_t splitmix64(std::uint64_t& s) noexcept {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

inline std::vector<trace_request> generate(const trace_spec& s, const geometry& g) {
    std::vector<trace_request> out;
    out.reserve(s.requests);
    std::uint64_t rng = s.seed;
    const std::uint64_t blocks = g.capacity_bytes / 64;
    const std::uint64_t rows = g.capacity_bytes >> g.row_shift;
    const std::uint64_t hot_blocks = s.footprint == 0 ? blocks : s.footprint / 64;
    for (std::uint32_t k = 0; k < s.requests; ++k) {
        trace_request r;
        r.cycle = std::uint64_t{k} * s.gap;
        const std::uint64_t x = splitmix64(rng);
        switch (s.kind) {
        case pattern::random:
            r.address = (x % blocks) * 64;
            r.is_write = (splitmix64(rng) % 1000) < s.write_per_mille;
            break;
        case pattern::hot:
            r.address = (x % hot_blocks) * 64;
            r.is_write = (splitmix64(rng) % 1000) < s.write_per_mille;
            break;
        case pattern::streaming:
            r.address = std::uint64_t{k} * 64;
            break;
        case pattern::copy: {
            // Per element: read a[i], read b[i], write c[i] (c = a + b), arrays 1 GB apart.
            const std::uint64_t i = k / 3;
            const std::uint64_t array = k % 3;
            r.address = array * (std::uint64_t{1} << 30) + i * 64;
            r.is_write = array == 2;
            break;
        }
        case pattern::conflict: {
            // Bank 0 and bank 1 of the first channel in turn, a new random row each time.
            const std::uint64_t bank_bit = std::uint64_t{k & 1u} << (g.row_shift - 4);
            r.address = ((x % rows) << g.row_shift) | bank_bit;
            break;
        }
        }
        out.push_back(r);
    }
    return out;
}

/// DRAMSim3's trace format (src/cpu.cc TraceBasedCPU, src/common.cc operator>>).
inline std::string dramsim3_line(const trace_request& r) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string hex;
    std::uint64_t a = r.address;
    do {
        hex.insert(hex.begin(), digits[a & 15u]);
        a >>= 4;
    } while (a != 0);
    return "0x" + hex + (r.is_write ? " WRITE " : " READ ") + std::to_string(r.cycle);
}

/// The suite: one list per memory.
inline const std::vector<trace_spec>& ddr4_traces() {
    static const std::vector<trace_spec> v{
        {"read_random_g20", pattern::random, 50000, 20, 0, 0, 11},
        {"read_random_g10", pattern::random, 50000, 10, 0, 0, 12},
        {"read_stream_g4", pattern::streaming, 50000, 4, 0, 0, 13},
        {"read_stream_g8", pattern::streaming, 50000, 8, 0, 0, 14},
        {"read_conflict_g16", pattern::conflict, 20000, 16, 0, 0, 15},
        {"mix70_random_g8", pattern::random, 50000, 8, 300, 0, 16},
        {"mix70_random_g12", pattern::random, 50000, 12, 300, 0, 17},
        {"mix70_random_g20", pattern::random, 50000, 20, 300, 0, 18},
        {"mix_copy_g6", pattern::copy, 48000, 6, 0, 0, 19},
        {"mix70_hot_g8", pattern::hot, 50000, 8, 300, 64 * 1024, 20},
    };
    return v;
}

inline const std::vector<trace_spec>& hbm2_traces() {
    static const std::vector<trace_spec> v{
        {"read_random_g4", pattern::random, 50000, 4, 0, 0, 31},
        {"read_stream_g2", pattern::streaming, 50000, 2, 0, 0, 32},
        {"mix70_random_g4", pattern::random, 50000, 4, 300, 0, 33},
        {"mix70_random_g2", pattern::random, 50000, 2, 300, 0, 34},
    };
    return v;
}

} // namespace memtest::fidelity
