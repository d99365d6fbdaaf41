// memsub — `simt::bfs_kernel`: breadth-first search on a CSR graph, level by level, as Rodinia's
// CUDA BFS runs it (Che et al., "Rodinia: A Benchmark Suite for Heterogeneous Computing",
// IISWC 2009; bfs/kernel.cu and kernel2.cu), one thread per vertex, 512 threads per CTA:
//
//   Kernel 1 (expand):                          Kernel 2 (update):
//   if (tid < n && mask[tid]) {                 if (tid < n && updating[tid]) {
//     mask[tid] = false;                          mask[tid] = true;
//     for (i = node[tid].start;                   visited[tid] = true;
//          i < node[tid].start + node[tid].count;  *over = true;
//          i++) {                                  updating[tid] = false;
//       id = edges[i];                           }
//       if (!visited[id]) {
//         cost[id] = cost[tid] + 1;
//         updating[id] = true; } } }
//
// The host relaunches (kernel 1, kernel 2) while kernel 2 set `over` (it clears `over` between
// iterations, a host copy that is not a memory instruction). node[] holds {start, count} pairs
// (one 8-byte load), the flags are bytes, cost is int32. Divergence comes from the frontier
// test, from each thread's loop trip count (its degree) and from the `visited` test; the
// `edges[i]` and `visited[id]` loads scatter over the graph.
// `remap.mapping = shuffled` gives each hardware CTA the vertex block its level's `cta_remap`
// chooses (tid above is in that block). Decision: both kernels of a level share one mapping
// (level L's permutation, L = 0 the identity), so kernel 2 updates, in each hardware CTA, the
// vertices kernel 1 expanded there, as a host that remaps a level's work once would; a fresh
// permutation per launch was considered, but then the shuffle would also vary between the two
// kernels of one level, which is not the cross-launch effect the option isolates.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include <memsub/core/errors.hpp>
#include <memsub/workload/simt/csr_inputs.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class bfs_kernel {
public:
    struct params {
        std::uint32_t threads_per_cta = 512; // Rodinia's MAX_THREADS_PER_BLOCK
        std::uint32_t source = 0;
        /// Which vertex block each hardware CTA handles at each level.
        cta_remap_params remap{};
    };
    /// Rodinia's Node: the first edge and the edge count of a vertex.
    struct node {
        std::int32_t start;
        std::int32_t count;
    };
    // The PCs of the memory instructions (8-byte SASS instructions).
    static constexpr std::uint64_t pc_load_mask = 0x000, pc_clear_mask = 0x008,
                                   pc_load_node = 0x010, pc_load_edge = 0x018,
                                   pc_load_visited = 0x020, pc_load_cost = 0x028,
                                   pc_store_cost = 0x030, pc_set_updating = 0x038,
                                   pc_load_updating = 0x100, pc_set_mask = 0x108,
                                   pc_set_visited = 0x110, pc_set_over = 0x118,
                                   pc_clear_updating = 0x120;

    struct warp_state {
        warp_origin origin{};
        bool expand = true; // kernel 1, else kernel 2
        std::uint8_t stage = 0;
        std::uint32_t alive = 0;  // lanes inside the `if`
        std::uint32_t loop = 0;   // lanes in the current loop iteration
        std::uint32_t active = 0; // lanes inside the `!visited` branch
        std::array<std::uint32_t, warp_lanes> tid{}, i{}, end{}, id{};
        std::array<std::int32_t, warp_lanes> cost{};
    };

    explicit bfs_kernel(const csr_graph& g) : bfs_kernel(g, params{}) {}
    bfs_kernel(const csr_graph& g, const params& p) : p_(p), n_(g.vertices) {
        constexpr std::string_view c = "memsub::workload::simt::bfs_kernel";
        memsub::require(g.vertices >= 1, c, "vertices", g.vertices, "must be >= 1");
        memsub::require(p.source < g.vertices, c, "source", p.source,
                        "must be a vertex of the graph");
        memsub::require(p.threads_per_cta >= 1 && p.threads_per_cta <= 1024, c, "threads_per_cta",
                        p.threads_per_cta, "must be in 1..1024");
        nodes_ = mem_.allocate<node>("nodes", n_);
        edges_ = mem_.allocate<std::int32_t>("edges", g.columns.size());
        mask_ = mem_.allocate<std::uint8_t>("mask", n_);
        updating_ = mem_.allocate<std::uint8_t>("updating", n_);
        visited_ = mem_.allocate<std::uint8_t>("visited", n_);
        cost_ = mem_.allocate<std::int32_t>("cost", n_);
        over_ = mem_.allocate<std::uint8_t>("over", 1);
        for (std::uint32_t v = 0; v < n_; ++v) {
            nodes_.set(v, node{static_cast<std::int32_t>(g.row_offsets[v]),
                               static_cast<std::int32_t>(g.degree(v))});
            cost_.set(v, -1);
        }
        for (std::size_t e = 0; e < g.columns.size(); ++e)
            edges_.set(e, static_cast<std::int32_t>(g.columns[e]));
        mask_.set(p.source, 1);
        visited_.set(p.source, 1);
        cost_.set(p.source, 0);
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "bfs"; }

    bool next_launch(launch_shape& shape) {
        // Launches alternate kernel 1, kernel 2; after a kernel 2 the host reads `over`.
        if (launches_ > 0 && launches_ % 2 == 0) {
            if (over_.get(0) == 0) return false; // no vertex was updated: done
            over_.set(0, 0);                     // host: stop = false
        }
        expand_ = launches_ % 2 == 0;
        // Rodinia: one CTA of n threads if n fits, else ceil(n / 512) CTAs of 512.
        shape.threads_per_cta = n_ < p_.threads_per_cta ? n_ : p_.threads_per_cta;
        shape.ctas = (n_ + shape.threads_per_cta - 1) / shape.threads_per_cta;
        if (expand_) remap_.begin_launch(p_.remap, launches_ / 2, shape.ctas);
        ++launches_;
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& hardware) const noexcept {
        const warp_origin o = remap_.data_origin(hardware);
        w.origin = o;
        w.expand = expand_;
        w.stage = 0;
        w.alive = 0;
        for (std::uint32_t l = 0; l < warp_lanes; ++l)
            w.tid[l] = static_cast<std::uint32_t>(o.global_thread(l));
    }

    bool step(warp_state& w, warp_instruction& out) noexcept {
        return w.expand ? step_expand(w, out) : step_update(w, out);
    }

    [[nodiscard]] const device_memory& memory() const noexcept { return mem_; }
    [[nodiscard]] std::uint32_t vertices() const noexcept { return n_; }
    /// BFS levels found so far (kernel-1 launches).
    [[nodiscard]] std::uint32_t levels() const noexcept { return (launches_ + 1) / 2; }
    [[nodiscard]] std::int32_t cost(std::uint32_t v) const noexcept { return cost_.get(v); }
    [[nodiscard]] const device_memory::array<node>& nodes() const noexcept { return nodes_; }
    [[nodiscard]] const device_memory::array<std::int32_t>& edges() const noexcept {
        return edges_;
    }
    [[nodiscard]] const device_memory::array<std::uint8_t>& mask() const noexcept { return mask_; }
    [[nodiscard]] const device_memory::array<std::uint8_t>& updating() const noexcept {
        return updating_;
    }
    [[nodiscard]] const device_memory::array<std::uint8_t>& visited() const noexcept {
        return visited_;
    }
    [[nodiscard]] const device_memory::array<std::int32_t>& costs() const noexcept { return cost_; }
    [[nodiscard]] const device_memory::array<std::uint8_t>& over() const noexcept { return over_; }
    /// The data block hardware CTA `cta` of the current level works on (`params::remap`).
    [[nodiscard]] std::uint32_t data_block(std::uint32_t cta) const noexcept {
        return remap_.data_block(cta);
    }

private:
    bool step_expand(warp_state& w, warp_instruction& out) noexcept {
        {
            switch (w.stage) {
            case 0: { // if (tid < n && mask[tid])
                const std::uint32_t in_range = lanes_where(
                    w.origin.existing_lanes(), [&](std::uint32_t l) { return w.tid[l] < n_; });
                if (in_range == 0) return false;
                emit(out, pc_load_mask, access_kind::load, 1, in_range, true,
                     [&](std::uint32_t l) { return mask_.address(w.tid[l]); });
                w.alive = lanes_where(in_range,
                                      [&](std::uint32_t l) { return mask_.get(w.tid[l]) != 0; });
                w.stage = 1;
                return true;
            }
            case 1: // mask[tid] = false
                if (w.alive == 0) return false;
                emit(out, pc_clear_mask, access_kind::store, 1, w.alive, false,
                     [&](std::uint32_t l) { return mask_.address(w.tid[l]); });
                for_lanes(w.alive, [&](std::uint32_t l) { mask_.set(w.tid[l], 0); });
                w.stage = 2;
                return true;
            case 2: // node[tid]
                emit(out, pc_load_node, access_kind::load, 8, w.alive, true,
                     [&](std::uint32_t l) { return nodes_.address(w.tid[l]); });
                for_lanes(w.alive, [&](std::uint32_t l) {
                    const node nd = nodes_.get(w.tid[l]);
                    w.i[l] = static_cast<std::uint32_t>(nd.start);
                    w.end[l] = static_cast<std::uint32_t>(nd.start + nd.count);
                });
                w.stage = 3;
                return true;
            case 3: // loop test; id = edges[i]
                w.loop = lanes_where(w.alive, [&](std::uint32_t l) { return w.i[l] < w.end[l]; });
                if (w.loop == 0) return false;
                emit(out, pc_load_edge, access_kind::load, 4, w.loop, true,
                     [&](std::uint32_t l) { return edges_.address(w.i[l]); });
                for_lanes(w.loop, [&](std::uint32_t l) {
                    w.id[l] = static_cast<std::uint32_t>(edges_.get(w.i[l]));
                });
                w.stage = 4;
                return true;
            case 4: { // if (!visited[id])
                emit(out, pc_load_visited, access_kind::load, 1, w.loop, true,
                     [&](std::uint32_t l) { return visited_.address(w.id[l]); });
                w.active = lanes_where(w.loop,
                                       [&](std::uint32_t l) { return visited_.get(w.id[l]) == 0; });
                if (w.active == 0) { // nobody takes the branch: i++
                    for_lanes(w.loop, [&](std::uint32_t l) { ++w.i[l]; });
                    w.stage = 3;
                } else {
                    w.stage = 5;
                }
                return true;
            }
            case 5: // cost[tid]
                emit(out, pc_load_cost, access_kind::load, 4, w.active, true,
                     [&](std::uint32_t l) { return cost_.address(w.tid[l]); });
                for_lanes(w.active, [&](std::uint32_t l) { w.cost[l] = cost_.get(w.tid[l]); });
                w.stage = 6;
                return true;
            case 6: // cost[id] = cost[tid] + 1
                emit(out, pc_store_cost, access_kind::store, 4, w.active, false,
                     [&](std::uint32_t l) { return cost_.address(w.id[l]); });
                for_lanes(w.active, [&](std::uint32_t l) { cost_.set(w.id[l], w.cost[l] + 1); });
                w.stage = 7;
                return true;
            case 7: // updating[id] = true; i++ (all lanes of the iteration)
                emit(out, pc_set_updating, access_kind::store, 1, w.active, false,
                     [&](std::uint32_t l) { return updating_.address(w.id[l]); });
                for_lanes(w.active, [&](std::uint32_t l) { updating_.set(w.id[l], 1); });
                for_lanes(w.loop, [&](std::uint32_t l) { ++w.i[l]; });
                w.stage = 3;
                return true;
            default:
                return false;
            }
        }
    }

    bool step_update(warp_state& w, warp_instruction& out) noexcept {
        switch (w.stage) {
        case 0: { // if (tid < n && updating[tid])
            const std::uint32_t in_range = lanes_where(
                w.origin.existing_lanes(), [&](std::uint32_t l) { return w.tid[l] < n_; });
            if (in_range == 0) return false;
            emit(out, pc_load_updating, access_kind::load, 1, in_range, true,
                 [&](std::uint32_t l) { return updating_.address(w.tid[l]); });
            w.alive = lanes_where(in_range,
                                  [&](std::uint32_t l) { return updating_.get(w.tid[l]) != 0; });
            w.stage = 1;
            return true;
        }
        case 1:
            if (w.alive == 0) return false;
            emit(out, pc_set_mask, access_kind::store, 1, w.alive, false,
                 [&](std::uint32_t l) { return mask_.address(w.tid[l]); });
            for_lanes(w.alive, [&](std::uint32_t l) { mask_.set(w.tid[l], 1); });
            w.stage = 2;
            return true;
        case 2:
            emit(out, pc_set_visited, access_kind::store, 1, w.alive, false,
                 [&](std::uint32_t l) { return visited_.address(w.tid[l]); });
            for_lanes(w.alive, [&](std::uint32_t l) { visited_.set(w.tid[l], 1); });
            w.stage = 3;
            return true;
        case 3:
            emit(out, pc_set_over, access_kind::store, 1, w.alive, false,
                 [&](std::uint32_t) { return over_.address(0); });
            over_.set(0, 1);
            w.stage = 4;
            return true;
        case 4:
            emit(out, pc_clear_updating, access_kind::store, 1, w.alive, false,
                 [&](std::uint32_t l) { return updating_.address(w.tid[l]); });
            for_lanes(w.alive, [&](std::uint32_t l) { updating_.set(w.tid[l], 0); });
            w.stage = 5;
            return true;
        default:
            return false;
        }
    }

    params p_;
    std::uint32_t n_;
    device_memory mem_;
    device_memory::array<node> nodes_;
    device_memory::array<std::int32_t> edges_;
    device_memory::array<std::uint8_t> mask_, updating_, visited_;
    device_memory::array<std::int32_t> cost_;
    device_memory::array<std::uint8_t> over_;
    std::uint32_t launches_ = 0;
    bool expand_ = true;
    cta_remap remap_;
};

} // namespace memsub::workload::simt
