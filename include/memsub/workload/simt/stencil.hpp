// memsub — `simt::stencil_kernel`: a hotspot-like 2D 5-point stencil (Rodinia hotspot's
// per-cell update, Che et al., IISWC 2009, without its shared-memory pyramid blocking: every
// operand is a global load), one thread per cell, 16 × 16 CTAs, ping-pong over `iterations`
// launches:
//
//   x = blockIdx.x * 16 + threadIdx.x; y = blockIdx.y * 16 + threadIdx.y;
//   if (x < cols && y < rows) {
//     c = in[y][x]; n = in[max(y-1,0)][x]; s = in[min(y+1,rows-1)][x];
//     w = in[y][max(x-1,0)]; e = in[y][min(x+1,cols-1)]; p = power[y][x];
//     out[y][x] = c + k1 * (n + s + e + w - 4c) + k2 * p; }
//
// Thread (tx, ty) of a CTA is thread ty × 16 + tx (a warp covers two 16-cell row pieces); CTA b
// is (b mod ⌈cols/16⌉, b div ⌈cols/16⌉). The six loads are independent (issued back to back;
// the warp waits after the last); floats. With `remap.mapping = shuffled`, b is the tile the
// launch's `cta_remap` gives the hardware CTA (launch 0 keeps b = the CTA id).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class stencil_kernel {
public:
    struct params {
        std::uint32_t rows = 512;
        std::uint32_t cols = 512;
        std::uint32_t iterations = 2;
        std::uint64_t seed = 1;
        /// Which tile each hardware CTA computes at each launch.
        cta_remap_params remap{};
    };
    static constexpr std::uint32_t tile = 16;
    static constexpr std::uint64_t pc_load_centre = 0x000, pc_load_north = 0x008,
                                   pc_load_south = 0x010, pc_load_west = 0x018,
                                   pc_load_east = 0x020, pc_load_power = 0x028,
                                   pc_store_out = 0x030;
    static constexpr float k1 = 0.1f, k2 = 0.05f;

    struct warp_state {
        warp_origin origin{};
        std::uint8_t stage = 0;
        std::uint32_t alive = 0;
        std::array<std::uint32_t, warp_lanes> x{}, y{};
        std::array<float, warp_lanes> acc{}, centre{};
    };

    stencil_kernel() : stencil_kernel(params{}) {}
    explicit stencil_kernel(const params& p) : p_(p) {
        constexpr std::string_view c = "memsub::workload::simt::stencil_kernel";
        memsub::require(p.rows >= 1 && p.rows <= 16384, c, "rows", p.rows, "must be in 1..16384");
        memsub::require(p.cols >= 1 && p.cols <= 16384, c, "cols", p.cols, "must be in 1..16384");
        memsub::require(p.iterations >= 1, c, "iterations", p.iterations, "must be >= 1");
        const std::size_t cells = std::size_t{p.rows} * p.cols;
        temp_[0] = mem_.allocate<float>("temp_a", cells);
        temp_[1] = mem_.allocate<float>("temp_b", cells);
        power_ = mem_.allocate<float>("power", cells);
        xoshiro256ss rng(p.seed);
        for (std::size_t i = 0; i < cells; ++i) {
            temp_[0].set(i, static_cast<float>(320.0 + rng.uniform() * 20.0));
            power_.set(i, static_cast<float>(rng.uniform()));
        }
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "stencil"; }

    bool next_launch(launch_shape& shape) {
        if (launches_ == p_.iterations) return false;
        in_ = launches_ % 2;
        shape.threads_per_cta = tile * tile;
        shape.ctas = ctas_x() * ((p_.rows + tile - 1) / tile);
        remap_.begin_launch(p_.remap, launches_, shape.ctas);
        ++launches_;
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& hardware) const noexcept {
        const warp_origin o = remap_.data_origin(hardware);
        w.origin = o;
        w.stage = 0;
        const std::uint32_t bx = o.cta % ctas_x(), by = o.cta / ctas_x();
        for (std::uint32_t l = 0; l < warp_lanes; ++l) {
            const std::uint32_t t = o.thread_in_cta(l);
            w.x[l] = bx * tile + t % tile;
            w.y[l] = by * tile + t / tile;
            w.acc[l] = 0.0f;
        }
        w.alive = lanes_where(o.existing_lanes(), [&](std::uint32_t l) {
            return w.x[l] < p_.cols && w.y[l] < p_.rows;
        });
    }

    bool step(warp_state& w, warp_instruction& out) noexcept {
        if (w.alive == 0 || w.stage > 6) return false;
        const auto& in = temp_[in_];
        if (w.stage == 6) { // out[y][x] = ...
            auto& dst = temp_[1 - in_];
            emit(out, pc_store_out, access_kind::store, 4, w.alive, false,
                 [&](std::uint32_t l) { return dst.address(cell(w.x[l], w.y[l])); });
            for_lanes(w.alive, [&](std::uint32_t l) {
                dst.set(cell(w.x[l], w.y[l]), w.centre[l] + w.acc[l]);
            });
            w.stage = 7;
            return true;
        }
        const std::uint32_t stage = w.stage++;
        const auto where = [&](std::uint32_t l) -> std::size_t {
            const std::uint32_t x = w.x[l], y = w.y[l];
            switch (stage) {
            case 1:
                return cell(x, y > 0 ? y - 1 : 0);
            case 2:
                return cell(x, std::min(y + 1, p_.rows - 1));
            case 3:
                return cell(x > 0 ? x - 1 : 0, y);
            case 4:
                return cell(std::min(x + 1, p_.cols - 1), y);
            default:
                return cell(x, y);
            }
        };
        static constexpr std::array<std::uint64_t, 6> pcs{pc_load_centre, pc_load_north,
                                                          pc_load_south,  pc_load_west,
                                                          pc_load_east,   pc_load_power};
        const auto& array = stage == 5 ? power_ : in;
        emit(out, pcs[stage], access_kind::load, 4, w.alive, stage == 5,
             [&](std::uint32_t l) { return array.address(where(l)); });
        for_lanes(w.alive, [&](std::uint32_t l) {
            const float v = array.get(where(l));
            if (stage == 0) {
                w.centre[l] = v;
                w.acc[l] -= 4.0f * k1 * v;
            } else if (stage == 5) {
                w.acc[l] += k2 * v;
            } else {
                w.acc[l] += k1 * v;
            }
        });
        return true;
    }

    [[nodiscard]] std::size_t cell(std::uint32_t x, std::uint32_t y) const noexcept {
        return std::size_t{y} * p_.cols + x;
    }
    [[nodiscard]] const device_memory& memory() const noexcept { return mem_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    /// The grid launch `launch` reads (launch i reads temp[i % 2] and writes the other).
    [[nodiscard]] const device_memory::array<float>& temp(std::uint32_t i) const noexcept {
        return temp_[i % 2];
    }
    [[nodiscard]] const device_memory::array<float>& power() const noexcept { return power_; }
    /// The data block hardware CTA `cta` of the current launch works on (`params::remap`).
    [[nodiscard]] std::uint32_t data_block(std::uint32_t cta) const noexcept {
        return remap_.data_block(cta);
    }

private:
    [[nodiscard]] std::uint32_t ctas_x() const noexcept { return (p_.cols + tile - 1) / tile; }

    params p_;
    device_memory mem_;
    std::array<device_memory::array<float>, 2> temp_{};
    device_memory::array<float> power_;
    std::uint32_t launches_ = 0;
    std::uint32_t in_ = 0;
    cta_remap remap_;
};

} // namespace memsub::workload::simt
