// memsub — `simt::phase_kernel`: a kernel whose launches alternate a latency-tolerant and a
// latency-sensitive phase, to test whether a compressed L1's mode selector follows a kernel's
// latency tolerance as it changes (LATTE-CC, [Dissertation] ch. 4: compression pays only where the
// warps can hide the decompression latency). Launch 2k is the tolerant phase, 2k + 1 the sensitive
// one. Every load reads one whole 128 B line (32 lanes × 4 B: one line request) at a line drawn
// per warp and step, and its warp waits for it.
//   * tolerant: 2 CTAs × 256 threads = 16 warps per SM gathering from a 48 KB table (384 lines: 3×
//     a 16 KB uncompressed L1, within SC²'s tags) with 16 ALU cycles after each load: a compressed
//     L1 holds the table, and the other warps cover a hit's decompression.
//   * sensitive: one warp per SM chasing through a 22 KB table (176 lines) with nothing between
//     loads: every hit's latency, decompression included, is exposed.
//
// Both tables hold integers from a skewed set of 16 values, P(value k) ∝ 2^-k (SC²'s Huffman codes
// them in 1-4 bits; BDI needs 2-byte deltas).
//
// Decision: the phases differ in occupancy and ALU work, not in code, so the only thing that
// changes between them is how much of a hit's latency other warps can cover (and the working set,
// which decides what capacity is worth). Considered: BFS's growing and shrinking frontier (its
// levels launch a thread per vertex, so its occupancy hardly changes) and two different kernels
// back to back (their memory images would alias in the address space).
//
// Configuration errors (no SM, a scale outside (0, 1e6], no round) throw `config_error` at
// construction.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/warp_instruction.hpp>
#include <memsub/workload/simt/gto_scheduler.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class phase_kernel {
public:
    struct phase {
        std::string_view name;
        std::uint32_t table_lines;     ///< 128 B lines of the phase's table
        std::uint32_t ctas_per_sm;     ///< CTAs per SM (one launch)
        std::uint32_t threads_per_cta; ///< threads per CTA
        std::uint32_t loads_per_warp;  ///< dependent loads each warp issues
        std::uint32_t alu_cycles;      ///< arithmetic after each load
    };
    struct params {
        std::uint32_t sms = 15;
        double scale = 1.0;
        std::uint32_t rounds = 2; ///< tolerant, sensitive pairs
        std::uint64_t seed = 1;
    };
    static constexpr std::uint64_t pc_gather = 0x000;
    static constexpr std::uint32_t words_per_line = 32;

    struct warp_state {
        std::uint32_t phase = 0;
        std::uint32_t left = 0;
        std::uint64_t state = 0;
        std::uint32_t mask = 0;
    };

    static constexpr std::string_view component = "memsub::workload::simt::phase_kernel";

    phase_kernel() : phase_kernel(params{}) {}
    explicit phase_kernel(const params& p) : p_(p) {
        require(p.sms >= 1, component, "sms", p.sms, "must be >= 1");
        require(p.scale > 0 && p.scale <= 1e6, component, "scale",
                static_cast<std::uint64_t>(p.scale), "must be in (0, 1e6]");
        require(p.rounds >= 1, component, "rounds", p.rounds, "must be >= 1");
        const auto scaled = [&](double n) {
            return static_cast<std::uint32_t>(std::max(1.0, std::round(n * p.scale)));
        };
        // Tolerant: 2 CTAs × 256 threads = 16 warps per SM, a 48 KB table (384 lines, 12 per
        // set: 3× the uncompressed L1, 2.3× BDI's 3-segment lines, within SC²'s 16 tags), 16 ALU
        // cycles after each load: a warp's round (16 × 17 cycles) covers a hit even behind SC²'s
        // decompressor, which keeps up (one line per 17 cycles against its 14), but not a miss.
        phases_[0] = {"tolerant", 384, 2, 256, scaled(3200), 16};
        // Sensitive: one warp per SM, nothing between loads, a 22 KB table (176 lines: 6 in sets
        // 0-15, 5 in the others): 1.4× the uncompressed L1, about what BDI holds, all of it in
        // SC²; every hit's latency, decompression included, is exposed.
        phases_[1] = {"sensitive", 176, 1, 32, scaled(32000), 0};
        xoshiro256ss rng(p.seed);
        // 16 values, skewed: the first few dominate (SC²'s Huffman codes them in 1-4 bits).
        static constexpr std::array<std::uint32_t, 16> values{
            0,     1,     7,     100,   255,   1000,  4096,  9000,
            12345, 16000, 20000, 23456, 27000, 30000, 31111, 32000};
        for (std::size_t t = 0; t < 2; ++t) {
            tables_[t] =
                mem_.allocate<std::uint32_t>(t == 0 ? "tolerant_table" : "sensitive_table",
                                             std::size_t{phases_[t].table_lines} * words_per_line);
            for (std::size_t i = 0; i < tables_[t].size(); ++i) {
                // P(value k) ∝ 2^-k, cut at 16 values.
                std::uint32_t k = 0;
                while (k + 1 < values.size() && (rng() & 1u) == 0) ++k;
                tables_[t].set(i, values[k]);
            }
        }
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "phases"; }
    [[nodiscard]] const phase& phase_of_launch(std::uint32_t launch) const noexcept {
        return phases_[launch % 2];
    }
    [[nodiscard]] std::uint32_t launches() const noexcept { return 2 * p_.rounds; }

    bool next_launch(launch_shape& shape) {
        if (launch_ == launches()) return false;
        current_ = launch_ % 2;
        const phase& ph = phases_[current_];
        shape.ctas = ph.ctas_per_sm * p_.sms;
        shape.threads_per_cta = ph.threads_per_cta;
        ++launch_;
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& o) const noexcept {
        w.phase = current_;
        w.left = phases_[current_].loads_per_warp;
        w.mask = o.existing_lanes();
        w.state = p_.seed * 0x9e3779b97f4a7c15ull ^
                  (std::uint64_t{launch_} << 40 | std::uint64_t{o.cta} << 12 | o.warp_in_cta);
    }

    bool step(warp_state& w, warp_instruction& out) noexcept {
        if (w.left == 0) return false;
        --w.left;
        const std::uint64_t z = splitmix64(w.state); // the next line of the walk
        const phase& ph = phases_[w.phase];
        const std::uint64_t line = z % ph.table_lines;
        const auto& table = tables_[w.phase];
        emit(out, pc_gather, access_kind::load, 4, w.mask, true,
             [&](std::uint32_t l) { return table.address(line * words_per_line + l); });
        out.alu_cycles = ph.alu_cycles;
        return true;
    }

    [[nodiscard]] const device_memory& memory() const noexcept { return mem_; }

private:
    params p_;
    std::array<phase, 2> phases_{};
    device_memory mem_;
    std::array<device_memory::array<std::uint32_t>, 2> tables_{};
    std::uint32_t launch_ = 0;
    std::uint32_t current_ = 0;
};
static_assert(simt_kernel<phase_kernel>);

} // namespace memsub::workload::simt
