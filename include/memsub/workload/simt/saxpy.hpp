// memsub — `simt::saxpy_kernel`: the streaming kernel y = a·x + y (BLAS saxpy, as in the CUDA
// programming guide's example), one thread per element:
//
//   i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n) y[i] = a * x[i] + y[i];
//
// Fully coalesced (d = 1 for 4-byte floats on aligned arrays), no reuse: the L1's worst case.
// The x load is independent of the y load (issued back to back); floats.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class saxpy_kernel {
public:
    struct params {
        std::uint32_t elements = 1u << 20;
        float a = 2.0f;
        std::uint32_t threads_per_cta = 256;
        std::uint64_t seed = 1;
    };
    static constexpr std::uint64_t pc_load_x = 0x000, pc_load_y = 0x008, pc_store_y = 0x010;

    struct warp_state {
        warp_origin origin{};
        std::uint8_t stage = 0;
        std::uint32_t alive = 0;
        std::array<float, warp_lanes> x{};
    };

    saxpy_kernel() : saxpy_kernel(params{}) {}
    explicit saxpy_kernel(const params& p) : p_(p) {
        constexpr std::string_view c = "memsub::workload::simt::saxpy_kernel";
        memsub::require(p.elements >= 1, c, "elements", p.elements, "must be >= 1");
        memsub::require(p.threads_per_cta >= 1 && p.threads_per_cta <= 1024, c, "threads_per_cta",
                        p.threads_per_cta, "must be in 1..1024");
        x_ = mem_.allocate<float>("x", p.elements);
        y_ = mem_.allocate<float>("y", p.elements);
        xoshiro256ss rng(p.seed);
        for (std::size_t i = 0; i < p.elements; ++i) {
            x_.set(i, static_cast<float>(rng.uniform()));
            y_.set(i, static_cast<float>(rng.uniform()));
        }
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "saxpy"; }

    bool next_launch(launch_shape& shape) {
        if (launched_) return false;
        launched_ = true;
        shape.threads_per_cta = p_.threads_per_cta;
        shape.ctas = (p_.elements + p_.threads_per_cta - 1) / p_.threads_per_cta;
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& o) const noexcept {
        w.origin = o;
        w.stage = 0;
        w.alive = lanes_where(o.existing_lanes(),
                              [&](std::uint32_t l) { return o.global_thread(l) < p_.elements; });
    }

    bool step(warp_state& w, warp_instruction& out) noexcept {
        if (w.alive == 0) return false;
        const auto index = [&](std::uint32_t l) { return w.origin.global_thread(l); };
        switch (w.stage) {
        case 0:
            emit(out, pc_load_x, access_kind::load, 4, w.alive, false,
                 [&](std::uint32_t l) { return x_.address(index(l)); });
            for_lanes(w.alive, [&](std::uint32_t l) { w.x[l] = x_.get(index(l)); });
            break;
        case 1:
            emit(out, pc_load_y, access_kind::load, 4, w.alive, true,
                 [&](std::uint32_t l) { return y_.address(index(l)); });
            break;
        case 2:
            emit(out, pc_store_y, access_kind::store, 4, w.alive, false,
                 [&](std::uint32_t l) { return y_.address(index(l)); });
            for_lanes(w.alive,
                      [&](std::uint32_t l) { y_.set(index(l), p_.a * w.x[l] + y_.get(index(l))); });
            break;
        default:
            return false;
        }
        ++w.stage;
        return true;
    }

    [[nodiscard]] const device_memory& memory() const noexcept { return mem_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] const device_memory::array<float>& x() const noexcept { return x_; }
    [[nodiscard]] const device_memory::array<float>& y() const noexcept { return y_; }

private:
    params p_;
    device_memory mem_;
    device_memory::array<float> x_, y_;
    bool launched_ = false;
};

} // namespace memsub::workload::simt
