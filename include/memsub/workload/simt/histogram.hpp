// memsub — `simt::histogram_kernel`: a 256-bin byte histogram with global atomics (the naive
// histogram of the CUDA SDK's histogram sample, before its per-warp shared-memory
// sub-histograms), grid-stride over 32-bit words:
//
//   for (i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x) {
//     w = data[i];
//     atomicAdd(&bins[(w >>  0) & 255], 1); atomicAdd(&bins[(w >>  8) & 255], 1);
//     atomicAdd(&bins[(w >> 16) & 255], 1); atomicAdd(&bins[(w >> 24) & 255], 1); }
//
// The data loads are coalesced; the atomics scatter over the 1 KB bin array by value
// (data-dependent divergence, d up to 8). Decision: a global atomic is a `store` to the L1:
// Fermi performs global atomics at the L2 (GPGPU-Sim sends them past the L1), which for a
// write-evict L1 is what a store does (no allocation; a resident copy is evicted).
// Input: "image-like" bytes, 128 + 24·N(0,1) clamped (Box–Muller), from the seed. The lanes
// leave the loop at different times in the last round (divergent trip counts).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class histogram_kernel {
public:
    struct params {
        std::uint32_t words = 1u << 18; // 1 MiB of bytes
        std::uint32_t ctas = 60;
        std::uint32_t threads_per_cta = 256;
        std::uint64_t seed = 1;
    };
    static constexpr std::uint32_t bin_count = 256;
    static constexpr std::uint64_t pc_load_word = 0x000, pc_atomic_bin = 0x008; // +8 per byte

    struct warp_state {
        warp_origin origin{};
        std::uint8_t stage = 0;
        std::uint32_t loop = 0;
        std::array<std::uint64_t, warp_lanes> i{};
        std::array<std::uint32_t, warp_lanes> word{};
    };

    histogram_kernel() : histogram_kernel(params{}) {}
    explicit histogram_kernel(const params& p) : p_(p) {
        constexpr std::string_view c = "memsub::workload::simt::histogram_kernel";
        memsub::require(p.words >= 1, c, "words", p.words, "must be >= 1");
        memsub::require(p.ctas >= 1, c, "ctas", p.ctas, "must be >= 1");
        memsub::require(p.threads_per_cta >= 1 && p.threads_per_cta <= 1024, c, "threads_per_cta",
                        p.threads_per_cta, "must be in 1..1024");
        data_ = mem_.allocate<std::uint32_t>("data", p.words);
        bins_ = mem_.allocate<std::uint32_t>("bins", bin_count);
        xoshiro256ss rng(p.seed);
        for (std::size_t i = 0; i < p.words; ++i) {
            std::uint32_t w = 0;
            for (int b = 0; b < 4; ++b) {
                const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
                const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
                const double v = std::clamp(128.0 + 24.0 * z, 0.0, 255.0);
                w |= static_cast<std::uint32_t>(v) << (8 * b);
            }
            data_.set(i, w);
        }
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "histogram"; }

    bool next_launch(launch_shape& shape) {
        if (launched_) return false;
        launched_ = true;
        shape.threads_per_cta = p_.threads_per_cta;
        shape.ctas = p_.ctas;
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& o) const noexcept {
        w.origin = o;
        w.stage = 0;
        w.loop = o.existing_lanes();
        for (std::uint32_t l = 0; l < warp_lanes; ++l) w.i[l] = o.global_thread(l);
    }

    bool step(warp_state& w, warp_instruction& out) noexcept {
        const std::uint64_t stride = std::uint64_t{p_.ctas} * p_.threads_per_cta;
        if (w.stage == 0) { // loop test; w = data[i]
            w.loop = lanes_where(w.loop, [&](std::uint32_t l) { return w.i[l] < p_.words; });
            if (w.loop == 0) return false;
            emit(out, pc_load_word, access_kind::load, 4, w.loop, true,
                 [&](std::uint32_t l) { return data_.address(w.i[l]); });
            for_lanes(w.loop, [&](std::uint32_t l) { w.word[l] = data_.get(w.i[l]); });
            w.stage = 1;
            return true;
        }
        const std::uint32_t shift = 8 * (w.stage - 1u); // atomicAdd(&bins[(w >> shift) & 255], 1)
        emit(out, pc_atomic_bin + 8 * (w.stage - 1u), access_kind::store, 4, w.loop, false,
             [&](std::uint32_t l) { return bins_.address((w.word[l] >> shift) & 255u); });
        for_lanes(w.loop, [&](std::uint32_t l) {
            const std::uint32_t b = (w.word[l] >> shift) & 255u;
            bins_.set(b, bins_.get(b) + 1);
        });
        if (++w.stage == 5) {
            w.stage = 0;
            for_lanes(w.loop, [&](std::uint32_t l) { w.i[l] += stride; });
        }
        return true;
    }

    [[nodiscard]] const device_memory& memory() const noexcept { return mem_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] const device_memory::array<std::uint32_t>& data() const noexcept { return data_; }
    [[nodiscard]] const device_memory::array<std::uint32_t>& bins() const noexcept { return bins_; }

private:
    params p_;
    device_memory mem_;
    device_memory::array<std::uint32_t> data_, bins_;
    bool launched_ = false;
};

} // namespace memsub::workload::simt
