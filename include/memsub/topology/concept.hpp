// memsub — the `topology` concept: an interconnect between numbered endpoints (GPU modules,
// GPUs and memory cubes) with a deterministic route between any two (ring, switch,
// memory networks: docs/mechanisms/multi_module_gpu.md).
//
// A topology only answers questions about routes; the host performs the cycle-level contention
// (C5.8). Its directed links are numbered so a host can account bytes per link
// (`topology::link_traffic`) and energy per link traversal (G6.9).
//
// Requirements (a type T models `topology` when all hold; each is a concept of its own below,
// `n1_nodes` … `n6_name`, so a diagnostic names the one that failed):
//   N1. `t.nodes()` -> std::uint32_t: endpoints are numbered 0 … nodes() − 1.
//   N2. `t.links()` -> std::uint32_t: directed links are numbered 0 … links() − 1.
//   N3. `t.link_ends(link)` -> `link_ends` {from, to}: the nodes a directed link joins.
//   N4. `t.hops(src, dst)` noexcept -> std::uint32_t: the links the route traverses (0 when
//       src == dst).
//   N5. `t.route(src, dst, visit)`: calls `visit(link)` once per link of the route, in order,
//       exactly `hops(src, dst)` times; consecutive links join (the first leaves src, each next
//       one leaves where the previous one arrived, the last arrives at dst). Deterministic.
//   N6. `t.name()` -> std::string_view.
// Node ids out of range are a host bug: N4/N5 check them with MEMSUB_ASSERT only.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

/// Interconnects between numbered endpoints (modules, GPUs, memory cubes): the `topology`
/// concept (N1–N6) and the per-link accounting built on it.
namespace memsub::topology {

/// The two nodes a directed link joins.
struct link_ends {
    /// The node the link leaves.
    std::uint32_t from = 0;
    /// The node the link arrives at.
    std::uint32_t to = 0;
    /// Equal when both ends are equal.
    friend bool operator==(const link_ends&, const link_ends&) = default;
};

/// The visitor type route() is checked with.
struct link_visitor_archetype {
    /// Receives one link id of the route; a topology may call nothing else on a visitor (N5).
    void operator()(std::uint32_t) const noexcept {}
};

/// N1: `t.nodes()` gives the endpoint count; endpoints are numbered 0 … nodes() − 1.
template <class T>
concept n1_nodes = requires(const T& t) {
    { t.nodes() } -> std::convertible_to<std::uint32_t>;
};
/// N2: `t.links()` gives the directed link count; links are numbered 0 … links() − 1.
template <class T>
concept n2_links = requires(const T& t) {
    { t.links() } -> std::convertible_to<std::uint32_t>;
};
/// N3: `t.link_ends(link)` gives the two nodes a directed link joins.
template <class T>
concept n3_link_ends = requires(const T& t, std::uint32_t link) {
    { t.link_ends(link) } -> std::convertible_to<link_ends>;
};
/// N4: `t.hops(src, dst)` noexcept gives the number of links the route traverses (0 when
/// src == dst).
template <class T>
concept n4_hops = requires(const T& t, std::uint32_t a, std::uint32_t b) {
    { t.hops(a, b) }
    noexcept->std::convertible_to<std::uint32_t>;
};
/// N5: `t.route(src, dst, visit)` calls `visit(link)` for each link of the route in order,
/// `hops(src, dst)` times, deterministically.
template <class T>
concept n5_route = requires(const T& t, std::uint32_t a, std::uint32_t b,
                            link_visitor_archetype v) {
    t.route(a, b, v);
};
/// N6: `t.name()` gives a short stable identifier.
template <class T>
concept n6_name = requires(const T& t) {
    { t.name() } -> std::convertible_to<std::string_view>;
};

/// An interconnect (N1–N6): numbered nodes and directed links with one deterministic route
/// between any two nodes. It answers route questions only; the host models contention.
template <class T>
concept topology =
    n1_nodes<T> && n2_links<T> && n3_link_ends<T> && n4_hops<T> && n5_route<T> && n6_name<T>;

/// Fails to compile with one message per broken requirement (N1–N6).
template <class T>
consteval bool diagnose_topology() {
    static_assert(n1_nodes<T>, "N1: t.nodes() const must return the endpoint count");
    static_assert(n2_links<T>, "N2: t.links() const must return the directed link count");
    static_assert(n3_link_ends<T>, "N3: t.link_ends(link) const must return link_ends");
    static_assert(n4_hops<T>, "N4: t.hops(src, dst) const must exist, be noexcept and return "
                              "the hop count");
    static_assert(n5_route<T>, "N5: t.route(src, dst, visit) const must call visit(link)");
    static_assert(n6_name<T>, "N6: t.name() const must return a std::string_view");
    return topology<T>;
}

} // namespace memsub::topology
