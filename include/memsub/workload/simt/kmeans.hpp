// memsub — `simt::kmeans_kernel`: the assignment step of k-means (Rodinia kmeans,
// `kmeansPoint`; Che et al., IISWC 2009), one thread per point:
//
//   point = blockIdx.x * blockDim.x + threadIdx.x;
//   if (point < npoints) {
//     min_dist = FLT_MAX; index = -1;
//     for (c = 0; c < nclusters; c++) {
//       dist = 0;
//       for (l = 0; l < nfeatures; l++) {
//         diff = features[f(point, l)] - clusters[c * nfeatures + l]; dist += diff * diff; }
//       if (dist < min_dist) { min_dist = dist; index = c; } }
//     membership[point] = index; }
//
// Layout: `point_major` (features[point * nfeatures + l], the layout the cache-sensitive KMN of
// GPGPU cache studies uses: each lane strides by nfeatures × 4 bytes, so a warp touches 32
// lines and reuses them over l and c) or feature-major (features[l * npoints + point],
// Rodinia's transposed copy: coalesced). Deviation: Rodinia reads features through the
// texture path and clusters from constant memory; here both are global loads that go through
// the L1 (the clusters load is the same address for every lane: d = 1).
// `remap.mapping = shuffled` gives each hardware CTA the point block its launch's `cta_remap`
// chooses (blockIdx.x above is that block).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class kmeans_kernel {
public:
    struct params {
        std::uint32_t points = 16384;
        std::uint32_t features = 34; // Rodinia's kdd_cup input
        std::uint32_t clusters = 5;
        bool point_major = true;
        std::uint32_t threads_per_cta = 256;
        std::uint64_t seed = 1;
        /// Launches of the membership kernel (Rodinia's convergence loop). Between launches
        /// the host recomputes every centre as the mean of its members (Rodinia does it on the
        /// CPU: no device accesses), keeping a centre with no members where it was.
        std::uint32_t iterations = 1;
        /// Which point block each hardware CTA computes at each launch.
        cta_remap_params remap{};
    };
    static constexpr std::uint64_t pc_load_feature = 0x000, pc_load_cluster = 0x008,
                                   pc_store_membership = 0x010;

    struct warp_state {
        warp_origin origin{};
        std::uint8_t stage = 0;
        std::uint32_t alive = 0, c = 0, l = 0;
        std::array<std::uint32_t, warp_lanes> point{};
        std::array<std::int32_t, warp_lanes> index{};
        std::array<float, warp_lanes> min_dist{}, dist{}, feature{};
    };

    kmeans_kernel() : kmeans_kernel(params{}) {}
    explicit kmeans_kernel(const params& p) : p_(p) {
        constexpr std::string_view c = "memsub::workload::simt::kmeans_kernel";
        memsub::require(p.points >= 1, c, "points", p.points, "must be >= 1");
        memsub::require(p.features >= 1, c, "features", p.features, "must be >= 1");
        memsub::require(p.clusters >= 1 && p.clusters <= p.points, c, "clusters", p.clusters,
                        "must be in 1..points");
        memsub::require(p.threads_per_cta >= 1 && p.threads_per_cta <= 1024, c, "threads_per_cta",
                        p.threads_per_cta, "must be in 1..1024");
        memsub::require(p.iterations >= 1, c, "iterations", p.iterations, "must be >= 1");
        features_ = mem_.allocate<float>("features", std::size_t{p.points} * p.features);
        clusters_ = mem_.allocate<float>("clusters", std::size_t{p.clusters} * p.features);
        membership_ = mem_.allocate<std::int32_t>("membership", p.points);
        // Points around `clusters` centres (uniform in [0, 10)) with uniform noise of ±1.
        xoshiro256ss rng(p.seed);
        std::vector<float> centres(std::size_t{p.clusters} * p.features);
        for (float& v : centres) v = static_cast<float>(rng.uniform() * 10.0);
        for (std::uint32_t pt = 0; pt < p.points; ++pt) {
            const auto k = static_cast<std::uint32_t>(rng.below(p.clusters));
            for (std::uint32_t l = 0; l < p.features; ++l)
                features_.set(feature_index(pt, l),
                              centres[std::size_t{k} * p.features + l] +
                                  static_cast<float>(rng.uniform() * 2.0 - 1.0));
        }
        // Rodinia's initial clusters: the first `clusters` points.
        for (std::uint32_t k = 0; k < p.clusters; ++k)
            for (std::uint32_t l = 0; l < p.features; ++l)
                clusters_.set(std::size_t{k} * p.features + l, features_.get(feature_index(k, l)));
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "kmeans"; }

    [[nodiscard]] std::size_t feature_index(std::uint32_t point, std::uint32_t l) const noexcept {
        return p_.point_major ? std::size_t{point} * p_.features + l
                              : std::size_t{l} * p_.points + point;
    }

    bool next_launch(launch_shape& shape) {
        if (launches_ == p_.iterations) return false;
        if (launches_ != 0) update_centres();
        shape.threads_per_cta = p_.threads_per_cta;
        shape.ctas = (p_.points + p_.threads_per_cta - 1) / p_.threads_per_cta;
        remap_.begin_launch(p_.remap, launches_, shape.ctas);
        ++launches_;
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& hardware) const noexcept {
        const warp_origin o = remap_.data_origin(hardware);
        w.origin = o;
        w.stage = 0;
        w.c = w.l = 0;
        for (std::uint32_t l = 0; l < warp_lanes; ++l) {
            w.point[l] = static_cast<std::uint32_t>(o.global_thread(l));
            w.min_dist[l] = std::numeric_limits<float>::max();
            w.index[l] = -1;
            w.dist[l] = 0.0f;
        }
        w.alive = lanes_where(o.existing_lanes(),
                              [&](std::uint32_t l) { return w.point[l] < p_.points; });
    }

    bool step(warp_state& w, warp_instruction& out) noexcept {
        if (w.alive == 0) return false;
        switch (w.stage) {
        case 0: // features[f(point, l)]
            emit(out, pc_load_feature, access_kind::load, 4, w.alive, false, [&](std::uint32_t k) {
                return features_.address(feature_index(w.point[k], w.l));
            });
            for_lanes(w.alive, [&](std::uint32_t k) {
                w.feature[k] = features_.get(feature_index(w.point[k], w.l));
            });
            w.stage = 1;
            return true;
        case 1: { // clusters[c * nfeatures + l]; the loop bookkeeping
            const std::size_t ci = std::size_t{w.c} * p_.features + w.l;
            emit(out, pc_load_cluster, access_kind::load, 4, w.alive, true,
                 [&](std::uint32_t) { return clusters_.address(ci); });
            const float centre = clusters_.get(ci);
            for_lanes(w.alive, [&](std::uint32_t k) {
                const float diff = w.feature[k] - centre;
                w.dist[k] += diff * diff;
            });
            w.stage = 0;
            if (++w.l == p_.features) {
                w.l = 0;
                for_lanes(w.alive, [&](std::uint32_t k) {
                    if (w.dist[k] < w.min_dist[k]) {
                        w.min_dist[k] = w.dist[k];
                        w.index[k] = static_cast<std::int32_t>(w.c);
                    }
                    w.dist[k] = 0.0f;
                });
                if (++w.c == p_.clusters) w.stage = 2;
            }
            return true;
        }
        case 2: // membership[point] = index
            emit(out, pc_store_membership, access_kind::store, 4, w.alive, false,
                 [&](std::uint32_t k) { return membership_.address(w.point[k]); });
            for_lanes(w.alive, [&](std::uint32_t k) { membership_.set(w.point[k], w.index[k]); });
            w.stage = 3;
            return true;
        default:
            return false;
        }
    }

    [[nodiscard]] const device_memory& memory() const noexcept { return mem_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] const device_memory::array<float>& features() const noexcept { return features_; }
    [[nodiscard]] const device_memory::array<float>& clusters() const noexcept { return clusters_; }
    [[nodiscard]] const device_memory::array<std::int32_t>& membership() const noexcept {
        return membership_;
    }
    /// The data block hardware CTA `cta` of the current launch works on (`params::remap`).
    [[nodiscard]] std::uint32_t data_block(std::uint32_t cta) const noexcept {
        return remap_.data_block(cta);
    }

private:
    /// The host step between launches: centre k = mean of the points whose membership is k.
    void update_centres() {
        std::vector<double> sums(std::size_t{p_.clusters} * p_.features, 0.0);
        std::vector<std::uint32_t> members(p_.clusters, 0);
        for (std::uint32_t pt = 0; pt < p_.points; ++pt) {
            const auto k = static_cast<std::uint32_t>(membership_.get(pt));
            ++members[k];
            for (std::uint32_t l = 0; l < p_.features; ++l)
                sums[std::size_t{k} * p_.features + l] += features_.get(feature_index(pt, l));
        }
        for (std::uint32_t k = 0; k < p_.clusters; ++k)
            if (members[k] != 0)
                for (std::uint32_t l = 0; l < p_.features; ++l)
                    clusters_.set(
                        std::size_t{k} * p_.features + l,
                        static_cast<float>(sums[std::size_t{k} * p_.features + l] / members[k]));
    }

    params p_;
    device_memory mem_;
    device_memory::array<float> features_, clusters_;
    device_memory::array<std::int32_t> membership_;
    std::uint32_t launches_ = 0;
    cta_remap remap_;
};

} // namespace memsub::workload::simt
