// memsub — `simt::spmv_kernel`: y = A·x for a CSR matrix, the scalar kernel (one thread per
// row), as CUSP's / SHOC's `spmv_csr_scalar` runs it (N. Bell, M. Garland, "Efficient Sparse
// Matrix-Vector Multiplication on CUDA", NVIDIA TR NVR-2008-004, §4.2):
//
//   row = blockIdx.x * blockDim.x + threadIdx.x;
//   if (row < rows) {
//     start = row_offsets[row]; end = row_offsets[row + 1]; sum = 0;
//     for (jj = start; jj < end; jj++) sum += values[jj] * x[columns[jj]];
//     y[row] = sum; }
//
// Each lane walks its own row, so a warp's `columns[jj]` and `values[jj]` loads touch up to 32
// different lines, lanes drop out as their rows end (divergent trip counts), and `x[col]`
// gathers by column. Float values; the two row_offsets loads and the columns load are
// independent of the load after them (issued back to back), values and x are waited for.
// `remap.mapping = shuffled` gives each hardware CTA the row block its launch's `cta_remap`
// chooses (blockIdx.x above is that block).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/workload/simt/csr_inputs.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class spmv_kernel {
public:
    struct params {
        std::uint32_t threads_per_cta = 256;
        /// x is uniform in [-1, 1) from this seed.
        std::uint64_t seed = 1;
        /// Launches of y = A·x (an iterative solver's or power iteration's inner SpMV, several
        /// launches of one kernel). Every launch reads the same A and x (the host's vector
        /// update between launches is not modelled) and rewrites y with the same values.
        std::uint32_t launches = 1;
        /// Which row block each hardware CTA computes at each launch.
        cta_remap_params remap{};
    };
    static constexpr std::uint64_t pc_load_start = 0x000, pc_load_end = 0x008,
                                   pc_load_column = 0x010, pc_load_value = 0x018, pc_load_x = 0x020,
                                   pc_store_y = 0x028;

    struct warp_state {
        warp_origin origin{};
        std::uint8_t stage = 0;
        std::uint32_t alive = 0, loop = 0;
        std::array<std::uint32_t, warp_lanes> row{}, jj{}, end{}, col{};
        std::array<float, warp_lanes> sum{}, value{};
    };

    explicit spmv_kernel(const csr_matrix& m) : spmv_kernel(m, params{}) {}
    spmv_kernel(const csr_matrix& m, const params& p) : p_(p), rows_(m.rows) {
        constexpr std::string_view c = "memsub::workload::simt::spmv_kernel";
        memsub::require(m.rows >= 1, c, "rows", m.rows, "must be >= 1");
        memsub::require(p.threads_per_cta >= 1 && p.threads_per_cta <= 1024, c, "threads_per_cta",
                        p.threads_per_cta, "must be in 1..1024");
        memsub::require(p.launches >= 1, c, "launches", p.launches, "must be >= 1");
        offsets_ = mem_.allocate<std::uint32_t>("row_offsets", std::size_t{m.rows} + 1);
        columns_ = mem_.allocate<std::uint32_t>("columns", m.columns.size());
        values_ = mem_.allocate<float>("values", m.values.size());
        x_ = mem_.allocate<float>("x", m.cols);
        y_ = mem_.allocate<float>("y", m.rows);
        for (std::size_t r = 0; r <= m.rows; ++r) offsets_.set(r, m.row_offsets[r]);
        for (std::size_t k = 0; k < m.columns.size(); ++k) {
            columns_.set(k, m.columns[k]);
            values_.set(k, m.values[k]);
        }
        xoshiro256ss rng(p.seed);
        for (std::size_t k = 0; k < m.cols; ++k)
            x_.set(k, static_cast<float>(rng.uniform() * 2.0 - 1.0));
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "spmv"; }

    bool next_launch(launch_shape& shape) {
        if (launches_ == p_.launches) return false;
        shape.threads_per_cta = p_.threads_per_cta;
        shape.ctas = (rows_ + p_.threads_per_cta - 1) / p_.threads_per_cta;
        remap_.begin_launch(p_.remap, launches_, shape.ctas);
        ++launches_;
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& hardware) const noexcept {
        const warp_origin o = remap_.data_origin(hardware);
        w.origin = o;
        w.stage = 0;
        for (std::uint32_t l = 0; l < warp_lanes; ++l) {
            w.row[l] = static_cast<std::uint32_t>(o.global_thread(l));
            w.sum[l] = 0.0f;
        }
    }

    bool step(warp_state& w, warp_instruction& out) noexcept {
        switch (w.stage) {
        case 0: // start = row_offsets[row]
            w.alive = lanes_where(w.origin.existing_lanes(),
                                  [&](std::uint32_t l) { return w.row[l] < rows_; });
            if (w.alive == 0) return false;
            emit(out, pc_load_start, access_kind::load, 4, w.alive, false,
                 [&](std::uint32_t l) { return offsets_.address(w.row[l]); });
            for_lanes(w.alive, [&](std::uint32_t l) { w.jj[l] = offsets_.get(w.row[l]); });
            w.stage = 1;
            return true;
        case 1: // end = row_offsets[row + 1]
            emit(out, pc_load_end, access_kind::load, 4, w.alive, true,
                 [&](std::uint32_t l) { return offsets_.address(w.row[l] + 1); });
            for_lanes(w.alive, [&](std::uint32_t l) { w.end[l] = offsets_.get(w.row[l] + 1); });
            w.stage = 2;
            return true;
        case 2: // loop test; columns[jj]
            w.loop = lanes_where(w.alive, [&](std::uint32_t l) { return w.jj[l] < w.end[l]; });
            if (w.loop == 0) {
                w.stage = 5;
                return step(w, out);
            }
            emit(out, pc_load_column, access_kind::load, 4, w.loop, false,
                 [&](std::uint32_t l) { return columns_.address(w.jj[l]); });
            for_lanes(w.loop, [&](std::uint32_t l) { w.col[l] = columns_.get(w.jj[l]); });
            w.stage = 3;
            return true;
        case 3: // values[jj]
            emit(out, pc_load_value, access_kind::load, 4, w.loop, true,
                 [&](std::uint32_t l) { return values_.address(w.jj[l]); });
            for_lanes(w.loop, [&](std::uint32_t l) { w.value[l] = values_.get(w.jj[l]); });
            w.stage = 4;
            return true;
        case 4: // x[columns[jj]]; sum += ...; jj++
            emit(out, pc_load_x, access_kind::load, 4, w.loop, true,
                 [&](std::uint32_t l) { return x_.address(w.col[l]); });
            for_lanes(w.loop, [&](std::uint32_t l) {
                w.sum[l] += w.value[l] * x_.get(w.col[l]);
                ++w.jj[l];
            });
            w.stage = 2;
            return true;
        case 5: // y[row] = sum
            emit(out, pc_store_y, access_kind::store, 4, w.alive, false,
                 [&](std::uint32_t l) { return y_.address(w.row[l]); });
            for_lanes(w.alive, [&](std::uint32_t l) { y_.set(w.row[l], w.sum[l]); });
            w.stage = 6;
            return true;
        default:
            return false;
        }
    }

    [[nodiscard]] const device_memory& memory() const noexcept { return mem_; }
    [[nodiscard]] float y(std::uint32_t row) const noexcept { return y_.get(row); }
    [[nodiscard]] float x(std::uint32_t col) const noexcept { return x_.get(col); }
    [[nodiscard]] const device_memory::array<std::uint32_t>& row_offsets() const noexcept {
        return offsets_;
    }
    [[nodiscard]] const device_memory::array<std::uint32_t>& columns() const noexcept {
        return columns_;
    }
    [[nodiscard]] const device_memory::array<float>& values() const noexcept { return values_; }
    [[nodiscard]] const device_memory::array<float>& x_array() const noexcept { return x_; }
    [[nodiscard]] const device_memory::array<float>& y_array() const noexcept { return y_; }
    /// The data block hardware CTA `cta` of the current launch works on (`params::remap`).
    [[nodiscard]] std::uint32_t data_block(std::uint32_t cta) const noexcept {
        return remap_.data_block(cta);
    }

private:
    params p_;
    std::uint32_t rows_;
    device_memory mem_;
    device_memory::array<std::uint32_t> offsets_, columns_;
    device_memory::array<float> values_, x_, y_;
    std::uint32_t launches_ = 0;
    cta_remap remap_;
};

} // namespace memsub::workload::simt
