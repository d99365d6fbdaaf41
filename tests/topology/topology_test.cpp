// Topology helpers (docs/mechanisms/multi_module_gpu.md C5.8, §2.3, §3.5): the concept and its
// archetype, every topology's routes against a breadth-first-search reference over its own links,
// the ring's 32 cycles/hop and uniform-traffic averages, the switch's constant hops, the memory
// networks' hop counts and channel counts (sFBFLY −50 % at 4 GPUs and −43 % at 8), and per-link
// byte accounting against an independent ring model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/energy/all.hpp>
#include <memsub/testing/archetypes.hpp>
#include <memsub/topology/all.hpp>

using namespace memsub;
using namespace memsub::topology;

namespace {

/// Shortest distances from `src` over the directed links `link_ends` lists.
template <class T>
std::vector<std::uint32_t> bfs_distances(const T& t, std::uint32_t src) {
    std::vector<std::vector<std::uint32_t>> out(t.nodes());
    for (std::uint32_t l = 0; l < t.links(); ++l) out[t.link_ends(l).from].push_back(l);
    constexpr std::uint32_t unreached = ~std::uint32_t{0};
    std::vector<std::uint32_t> dist(t.nodes(), unreached);
    std::queue<std::uint32_t> q;
    dist[src] = 0;
    q.push(src);
    while (!q.empty()) {
        const std::uint32_t at = q.front();
        q.pop();
        for (const std::uint32_t l : out[at]) {
            const std::uint32_t to = t.link_ends(l).to;
            if (dist[to] == unreached) {
                dist[to] = dist[at] + 1;
                q.push(to);
            }
        }
    }
    return dist;
}

/// N3–N5 on every pair: links are proper (no self loops, ends in range, no duplicate directed
/// pair), the route is a walk from src to dst of exactly hops() links, and it is as short as
/// the BFS distance over the topology's own links (every route minimal, every pair connected).
template <class T>
void check_routes_against_bfs(const T& t) {
    INFO(std::string{t.name()}, ", ", t.nodes(), " nodes, ", t.links(), " links");
    std::vector<std::vector<bool>> seen(t.nodes(), std::vector<bool>(t.nodes(), false));
    for (std::uint32_t l = 0; l < t.links(); ++l) {
        const link_ends e = t.link_ends(l);
        REQUIRE(e.from < t.nodes());
        REQUIRE(e.to < t.nodes());
        CHECK(e.from != e.to);
        CHECK_FALSE(seen[e.from][e.to]);
        seen[e.from][e.to] = true;
    }
    for (std::uint32_t src = 0; src < t.nodes(); ++src) {
        const std::vector<std::uint32_t> dist = bfs_distances(t, src);
        for (std::uint32_t dst = 0; dst < t.nodes(); ++dst) {
            std::uint32_t at = src, count = 0;
            bool joined = true;
            t.route(src, dst, [&](std::uint32_t link) {
                const link_ends e = t.link_ends(link);
                joined = joined && e.from == at;
                at = e.to;
                ++count;
            });
            CHECK(joined);
            CHECK(at == dst);
            CHECK(count == t.hops(src, dst));
            CHECK(t.hops(src, dst) == dist[dst]);
        }
    }
}

/// Bidirectional channels between HMCs, counted from the links themselves.
template <class T>
std::uint32_t counted_hmc_channels(const T& t) {
    std::uint32_t directed = 0;
    for (std::uint32_t l = 0; l < t.links(); ++l) {
        const link_ends e = t.link_ends(l);
        directed += !t.is_gpu(e.from) && !t.is_gpu(e.to);
    }
    return directed / 2;
}

} // namespace

TEST_CASE("the topology concept: archetype, broken types, every shipped topology") {
    static_assert(topology::topology<testing::topology_archetype>);
    static_assert(topology::topology<ring>);
    static_assert(topology::topology<crossbar_switch>);
    static_assert(topology::topology<flattened_butterfly>);
    static_assert(topology::topology<sliced_flattened_butterfly>);
    static_assert(topology::topology<distributor_flattened_butterfly>);
    static_assert(!topology::topology<testing::broken_topology_no_nodes>);
    static_assert(!topology::topology<testing::broken_topology_no_link_ends>);
    static_assert(!topology::topology<testing::broken_topology_throwing_hops>);
    static_assert(!topology::topology<testing::broken_topology_no_route>);
    static_assert(topology::diagnose_topology<ring>());
    // link_traffic asks no more than N1–N6: it runs on the archetype.
    link_traffic<testing::topology_archetype> traffic{testing::topology_archetype{}};
    traffic.record(0, 1, 100);
    traffic.record(1, 0, 7);
    traffic.record(1, 1, 5);
    CHECK(traffic.bytes_on(0) == 100);
    CHECK(traffic.bytes_on(1) == 7);
    CHECK(traffic.byte_hops() == 107);
    CHECK(traffic.total_bytes() == 112);
    check_routes_against_bfs(testing::topology_archetype{});
}

TEST_CASE("ring: shortest-path hops equal BFS on rings of 1 to 16 modules") {
    for (std::uint32_t n = 1; n <= 16; ++n) {
        const ring r{{.nodes = n}};
        check_routes_against_bfs(r);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j) {
                const std::uint32_t d = i > j ? i - j : j - i;
                CHECK(r.hops(i, j) == std::min(d, n - d)); // C5.8, decision G5.13
            }
    }
}

TEST_CASE("ring: 32 cycles per hop and the uniform-traffic averages of C5.8") {
    const ring r{{.nodes = 8}};
    CHECK(r.cycles_per_hop() == 32);
    CHECK(r.latency_cycles(0, 3) == 96);
    CHECK(r.latency_cycles(0, 4) == 128); // opposite: 4 hops either way, clockwise taken
    CHECK(r.goes_clockwise(0, 4));
    CHECK(r.latency_cycles(1, 7) == 64); // counter-clockwise
    CHECK(ring{{.nodes = 4, .cycles_per_hop = 10}}.latency_cycles(3, 1) == 20);
    // derived: 1.33 (N=4), 2.29 (8), 4.27 (16), 8.26 (32)
    CHECK(ring{{.nodes = 4}}.average_hops() == doctest::Approx(4.0 / 3));
    CHECK(ring{{.nodes = 8}}.average_hops() == doctest::Approx(16.0 / 7));
    CHECK(ring{{.nodes = 16}}.average_hops() == doctest::Approx(64.0 / 15));
    CHECK(ring{{.nodes = 32}}.average_hops() == doctest::Approx(256.0 / 31));
    CHECK(std::round(ring{{.nodes = 4}}.average_hops() * 100) == 133);
    CHECK(std::round(ring{{.nodes = 8}}.average_hops() * 100) == 229);
    CHECK(std::round(ring{{.nodes = 16}}.average_hops() * 100) == 427);
    CHECK(std::round(ring{{.nodes = 32}}.average_hops() * 100) == 826);
    // average_hops agrees with the mean of hops() over ordered pairs
    for (std::uint32_t n : {3u, 4u, 7u, 32u}) {
        const ring rn{{.nodes = n}};
        std::uint64_t sum = 0;
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j) sum += rn.hops(i, j);
        CHECK(rn.average_hops() == doctest::Approx(static_cast<double>(sum) / (n * (n - 1))));
    }
    CHECK_THROWS_AS((void)(ring{{.nodes = 0}}), config_error);
}

TEST_CASE("crossbar switch: one logical hop between any two modules, constant latency") {
    for (std::uint32_t n = 1; n <= 8; ++n) {
        const crossbar_switch s{{.nodes = n, .latency_cycles = 40}};
        check_routes_against_bfs(s);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j) {
                CHECK(s.hops(i, j) == (i == j ? 0u : 1u));
                CHECK(s.latency_cycles(i, j) == (i == j ? 0u : 40u));
                if (i != j) CHECK(s.link_ends(s.link_of(i, j)) == link_ends{i, j});
            }
    }
    CHECK_THROWS_AS((void)(crossbar_switch{{.nodes = 0}}), config_error);
}

TEST_CASE("flattened butterfly: hops = differing coordinates, channel counts, BFS") {
    for (const auto& extents : std::vector<std::vector<std::uint32_t>>{
             {1}, {2}, {4}, {8}, {2, 4}, {3, 3}, {4, 4}, {2, 3, 2}}) {
        const flattened_butterfly f{{.extents = extents}};
        check_routes_against_bfs(f);
        std::uint32_t expected = 0;
        for (const std::uint32_t k : extents) expected += (f.nodes() / k) * (k * (k - 1) / 2);
        CHECK(f.channels() == expected);
    }
    const flattened_butterfly grid{{.extents = {2, 4}}};
    CHECK(grid.degree() == 4); // derived from [MemNet] §3.5: the 8-GPU slice has degree 4
    CHECK(grid.channels() == 16);
    CHECK(flattened_butterfly{{.extents = {4}}}.channels() == 6);
    CHECK(flattened_butterfly{{.extents = {4, 4}}}.degree() == 6);
    CHECK_THROWS_AS((void)(flattened_butterfly{{.extents = {}}}), config_error);
    CHECK_THROWS_AS((void)(flattened_butterfly{{.extents = {4, 0}}}), config_error);
}

TEST_CASE("sFBFLY saves 50 % of the channels at 4 GPUs and 43 % at 8 ([MemNet], Fig. 12)") {
    const sliced_flattened_butterfly s4{{.gpus = 4}};
    const distributor_flattened_butterfly d4{{.gpus = 4}};
    CHECK(s4.inter_hmc_channels() == 24);
    CHECK(d4.inter_hmc_channels() == 48);
    CHECK(counted_hmc_channels(s4) == 24); // the formula agrees with the links themselves
    CHECK(counted_hmc_channels(d4) == 48);
    CHECK(1.0 - double(s4.inter_hmc_channels()) / d4.inter_hmc_channels() == doctest::Approx(0.5));

    const sliced_flattened_butterfly s8{{.gpus = 8, .slice_extents = {2, 4}}};
    const distributor_flattened_butterfly d8{{.gpus = 8, .slice_extents = {2, 4}}};
    CHECK(s8.inter_hmc_channels() == 64);
    CHECK(d8.inter_hmc_channels() == 112);
    CHECK(counted_hmc_channels(s8) == 64);
    CHECK(counted_hmc_channels(d8) == 112);
    const double saving8 = 1.0 - double(s8.inter_hmc_channels()) / d8.inter_hmc_channels();
    CHECK(saving8 == doctest::Approx(3.0 / 7));
    CHECK(std::round(saving8 * 100) == 43);

    // 16 GPUs with 4 × 4 slices: an sFBFLY HMC needs 6 + 2 = 8 channels, exactly its 8; the
    // dFBFLY would need 6 + 3 + 2 = 11, which is why it cannot scale there.
    const sliced_flattened_butterfly s16{{.gpus = 16, .slice_extents = {4, 4}}};
    const distributor_flattened_butterfly d16{{.gpus = 16, .slice_extents = {4, 4}}};
    CHECK(s16.hmc_degree() == 8);
    CHECK(s16.fits_channel_budget());
    CHECK(d16.hmc_degree() == 11);
    CHECK_FALSE(d16.fits_channel_budget());
    CHECK(s4.gpu_channels() == 32);  // 2 channels to each of 4 local HMCs, 4 GPUs
    CHECK(d4.fits_channel_budget()); // 3 + 3 + 2 = 8
}

TEST_CASE("memory networks: GPU→HMC hops = 1 + differing slice coordinates, same in both") {
    for (const auto& [gpus, extents] :
         std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>>{
             {4, {}}, {8, {2, 4}}, {16, {4, 4}}, {2, {}}}) {
        const sliced_flattened_butterfly s{{.gpus = gpus, .slice_extents = extents}};
        const distributor_flattened_butterfly d{{.gpus = gpus, .slice_extents = extents}};
        check_routes_against_bfs(s);
        check_routes_against_bfs(d);
        for (std::uint32_t g = 0; g < gpus; ++g)
            for (std::uint32_t c = 0; c < gpus; ++c)
                for (std::uint32_t slice = 0; slice < 4; ++slice) {
                    const std::uint32_t hmc = s.hmc_node(c, slice);
                    CHECK(s.hops(g, hmc) == 1 + s.slice().hops(g, c));
                    CHECK(s.hops(hmc, g) == s.hops(g, hmc)); // the reply's reverse path
                    CHECK(d.hops(g, hmc) == s.hops(g, hmc)); // minimal routes identical
                }
        // HMC→HMC across slices: through the GPU in the sFBFLY, one intra-cluster hop in the
        // dFBFLY.
        const std::uint32_t a = s.hmc_node(0, 0), b = s.hmc_node(gpus - 1, 1);
        CHECK(s.hops(a, b) == 2 + s.slice().hops(0, gpus - 1));
        CHECK(d.hops(a, b) == 1 + s.slice().hops(0, gpus - 1));
    }
    // A 2-D slice: a GPU differing from the target cluster in both coordinates takes 3 hops.
    const sliced_flattened_butterfly s16{{.gpus = 16, .slice_extents = {4, 4}}};
    CHECK(s16.hops(s16.gpu_node(0), s16.hmc_node(5, 2)) == 3);
    CHECK(s16.hops(s16.gpu_node(0), s16.hmc_node(4, 2)) == 2);
    CHECK(s16.hops(s16.gpu_node(0), s16.hmc_node(0, 2)) == 1);
    check_routes_against_bfs(sliced_flattened_butterfly{{.gpus = 3, .hmcs_per_gpu = 3}});
    check_routes_against_bfs(distributor_flattened_butterfly{{.gpus = 1, .hmcs_per_gpu = 1}});

    CHECK_THROWS_AS((void)(sliced_flattened_butterfly{{.gpus = 8, .slice_extents = {2, 2}}}),
                    config_error);
    CHECK_THROWS_AS((void)(sliced_flattened_butterfly{{.gpus = 0}}), config_error);
    CHECK_THROWS_AS((void)(distributor_flattened_butterfly{{.gpus = 4, .hmcs_per_gpu = 0}}),
                    config_error);
}

TEST_CASE("link_traffic: per-link bytes on a ring equal an independent walk of the ring") {
    const std::uint32_t n = 6;
    link_traffic<ring> traffic{ring{{.nodes = n}}};
    std::vector<std::uint64_t> cw(n, 0), ccw(n, 0); // reference: bytes leaving i each way
    std::uint64_t total = 0, hop_bytes = 0;
    xoshiro256ss rng{5};
    for (int t = 0; t < 5000; ++t) {
        const auto src = static_cast<std::uint32_t>(rng() % n);
        const auto dst = static_cast<std::uint32_t>(rng() % n);
        const std::uint64_t bytes = 32 * (1 + rng() % 4);
        traffic.record(src, dst, bytes);
        total += bytes;
        const std::uint32_t forward = (dst + n - src) % n;
        if (forward == 0) continue;
        if (forward <= n - forward) {
            for (std::uint32_t k = 0, at = src; k < forward; ++k, at = (at + 1) % n)
                cw[at] += bytes;
            hop_bytes += bytes * forward;
        } else {
            for (std::uint32_t k = 0, at = src; k < n - forward; ++k, at = (at + n - 1) % n)
                ccw[at] += bytes;
            hop_bytes += bytes * (n - forward);
        }
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        CHECK(traffic.bytes_on(i) == cw[i]);
        CHECK(traffic.bytes_on(n + i) == ccw[i]);
        CHECK(traffic.bytes_from(i) == cw[i] + ccw[i]);
    }
    CHECK(traffic.total_bytes() == total);
    CHECK(traffic.byte_hops() == hop_bytes);
    CHECK(traffic.transfers() == 5000);
    std::uint64_t sum = 0;
    for (const std::uint64_t b : traffic.per_link()) sum += b;
    CHECK(sum == traffic.byte_hops());
    CHECK(traffic.max_link_bytes() >= sum / traffic.per_link().size());
    CHECK_THROWS_AS(traffic.record(0, n, 1), std::out_of_range);
    traffic.reset();
    CHECK(traffic.byte_hops() == 0);
    CHECK(traffic.max_link_bytes() == 0);
}

TEST_CASE("link_traffic feeds GPUJoule's link term: a ring vs a switch at 32 modules") {
    // Uniform all-to-all 128 B transfers on 32 modules: the ring's average 8.26 hops against the
    // switch's single link + switch traversal (G6.9, G6.10).
    link_traffic<ring> on_ring{ring{{.nodes = 32}}};
    link_traffic<crossbar_switch> on_switch{crossbar_switch{{.nodes = 32}}};
    for (std::uint32_t i = 0; i < 32; ++i)
        for (std::uint32_t j = 0; j < 32; ++j) {
            on_ring.record(i, j, 128);
            on_switch.record(i, j, 128);
        }
    CHECK(double(on_ring.byte_hops()) / on_ring.total_bytes() ==
          doctest::Approx(256.0 / 31 * 31 / 32)); // pairs with i == j add bytes, no hops
    const energy::gpujoule_params k40 = energy::kepler_k40(0.01, 60.0);
    energy::activity ring_act, switch_act;
    ring_act.link_byte_hops = on_ring.byte_hops();
    switch_act.link_byte_hops = on_switch.byte_hops();
    switch_act.switch_bytes = on_switch.byte_hops(); // one switch traversal per transfer
    const double ring_j = energy::gpujoule{energy::multi_module(k40, energy::on_board(32))}
                              .energy(ring_act, 0)
                              .inter_module;
    const double switch_j =
        energy::gpujoule{energy::multi_module(k40, energy::on_board_switched(32))}
            .energy(switch_act, 0)
            .inter_module;
    CHECK(ring_j == doctest::Approx(10e-12 * 8 * 128 * 32 * 256.0));
    CHECK(switch_j == doctest::Approx(20e-12 * 8 * 128 * 32 * 31));
    CHECK(ring_j / switch_j == doctest::Approx(256.0 / 31 / 2)); // 4.13×
}
