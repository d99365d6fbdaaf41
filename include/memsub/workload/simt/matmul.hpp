// memsub — `simt::matmul_kernel`: tiled dense C = A·B as the CUDA SDK's matrixMul runs it
// (16 × 16 tiles staged through shared memory), one thread per element of C:
//
//   for (a = 0; a < wA / 16; a++) {
//     As[ty][tx] = A[(by*16 + ty) * wA + a*16 + tx];
//     Bs[ty][tx] = B[(a*16 + ty) * wB + bx*16 + tx];
//     __syncthreads();
//     for (k = 0; k < 16; k++) sum += As[ty][k] * Bs[k][tx];
//     __syncthreads(); }
//   C[(by*16 + ty) * wB + bx*16 + tx] = sum;
//
// Only global loads and stores are emitted: the shared-memory reads do not go through the L1
// (shared-memory traffic is not L1 traffic); the barrier is not modelled (see
// gto_scheduler), the B load is waited for. Dimensions are multiples of 16 (as the SDK's);
// floats. Thread (tx, ty) of a CTA is thread ty × 16 + tx; CTA b is (b mod (wB/16), b div (wB/16)).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class matmul_kernel {
public:
    struct params {
        std::uint32_t height_a = 256; // rows of A and C
        std::uint32_t width_a = 256;  // columns of A, rows of B
        std::uint32_t width_b = 256;  // columns of B and C
        std::uint64_t seed = 1;
    };
    static constexpr std::uint32_t tile = 16;
    static constexpr std::uint64_t pc_load_a = 0x000, pc_load_b = 0x008, pc_store_c = 0x010;

    struct warp_state {
        warp_origin origin{};
        std::uint8_t stage = 0;
        std::uint32_t a = 0;
        std::array<std::uint32_t, warp_lanes> row{}, col{};
        std::array<float, warp_lanes> sum{};
    };

    matmul_kernel() : matmul_kernel(params{}) {}
    explicit matmul_kernel(const params& p) : p_(p) {
        constexpr std::string_view c = "memsub::workload::simt::matmul_kernel";
        for (const auto& [name, v] :
             {std::pair<std::string_view, std::uint32_t>{"height_a", p.height_a},
              {"width_a", p.width_a},
              {"width_b", p.width_b}})
            memsub::require(v >= tile && v % tile == 0 && v <= 8192, c, name, v,
                            "must be a multiple of 16 in 16..8192");
        a_ = mem_.allocate<float>("A", std::size_t{p.height_a} * p.width_a);
        b_ = mem_.allocate<float>("B", std::size_t{p.width_a} * p.width_b);
        c_ = mem_.allocate<float>("C", std::size_t{p.height_a} * p.width_b);
        xoshiro256ss rng(p.seed);
        for (std::size_t i = 0; i < a_.size(); ++i) a_.set(i, static_cast<float>(rng.uniform()));
        for (std::size_t i = 0; i < b_.size(); ++i) b_.set(i, static_cast<float>(rng.uniform()));
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "matmul"; }

    bool next_launch(launch_shape& shape) {
        if (launched_) return false;
        launched_ = true;
        shape.threads_per_cta = tile * tile;
        shape.ctas = (p_.width_b / tile) * (p_.height_a / tile);
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& o) const noexcept {
        w.origin = o;
        w.stage = 0;
        w.a = 0;
        const std::uint32_t bx = o.cta % (p_.width_b / tile), by = o.cta / (p_.width_b / tile);
        for (std::uint32_t l = 0; l < warp_lanes; ++l) {
            const std::uint32_t t = o.thread_in_cta(l);
            w.row[l] = by * tile + t / tile;
            w.col[l] = bx * tile + t % tile;
            w.sum[l] = 0.0f;
        }
    }

    bool step(warp_state& w, warp_instruction& out) noexcept {
        const std::uint32_t lanes = w.origin.existing_lanes();
        switch (w.stage) {
        case 0: // As[ty][tx] = A[row * wA + a*16 + tx]
            emit(out, pc_load_a, access_kind::load, 4, lanes, false, [&](std::uint32_t l) {
                return a_.address(std::size_t{w.row[l]} * p_.width_a + w.a * tile +
                                  w.col[l] % tile);
            });
            w.stage = 1;
            return true;
        case 1: // Bs[ty][tx] = B[(a*16 + ty) * wB + col]; the tile's products
            emit(out, pc_load_b, access_kind::load, 4, lanes, true, [&](std::uint32_t l) {
                return b_.address(std::size_t{w.a * tile + w.row[l] % tile} * p_.width_b +
                                  w.col[l]);
            });
            for_lanes(lanes, [&](std::uint32_t l) {
                for (std::uint32_t k = 0; k < tile; ++k)
                    w.sum[l] += a_.get(std::size_t{w.row[l]} * p_.width_a + w.a * tile + k) *
                                b_.get(std::size_t{w.a * tile + k} * p_.width_b + w.col[l]);
            });
            w.stage = ++w.a == p_.width_a / tile ? 2 : 0;
            return true;
        case 2: // C[row * wB + col] = sum
            emit(out, pc_store_c, access_kind::store, 4, lanes, false, [&](std::uint32_t l) {
                return c_.address(std::size_t{w.row[l]} * p_.width_b + w.col[l]);
            });
            for_lanes(lanes, [&](std::uint32_t l) {
                c_.set(std::size_t{w.row[l]} * p_.width_b + w.col[l], w.sum[l]);
            });
            w.stage = 3;
            return true;
        default:
            return false;
        }
    }

    [[nodiscard]] const device_memory& memory() const noexcept { return mem_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] const device_memory::array<float>& a() const noexcept { return a_; }
    [[nodiscard]] const device_memory::array<float>& b() const noexcept { return b_; }
    [[nodiscard]] const device_memory::array<float>& c() const noexcept { return c_; }

private:
    params p_;
    device_memory mem_;
    device_memory::array<float> a_, b_, c_;
    bool launched_ = false;
};

} // namespace memsub::workload::simt
