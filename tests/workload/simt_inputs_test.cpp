// Inputs of the SIMT kernels: R-MAT, Barabási–Albert, Erdős–Rényi and grid graphs; banded,
// power-law, uniform-random and 2-D Laplacian matrices (deterministic for a seed, well-formed CSR,
// exact shapes against their definitions, random ones' statistics against theory), the edge-list
// and Matrix Market readers on good and bad input (errors name the file and line).
#include <doctest/doctest.h>

#include "../support/data_dir.hpp"

#include <memsub/workload/simt/csr_inputs.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>

using namespace memsub;
using namespace memsub::workload::simt;

namespace {
template <class Csr>
void check_well_formed(const Csr& m, std::uint32_t rows, std::uint32_t cols) {
    REQUIRE(m.row_offsets.size() == std::size_t{rows} + 1);
    CHECK(m.row_offsets.front() == 0);
    CHECK(m.row_offsets.back() == m.columns.size());
    for (std::uint32_t r = 0; r < rows; ++r) {
        REQUIRE(m.row_offsets[r] <= m.row_offsets[r + 1]);
        for (std::uint32_t j = m.row_offsets[r]; j < m.row_offsets[r + 1]; ++j) {
            REQUIRE(m.columns[j] < cols);
            if (j > m.row_offsets[r]) REQUIRE(m.columns[j - 1] < m.columns[j]); // sorted, unique
        }
    }
}

std::string error_of(auto&& fn) {
    try {
        fn();
    } catch (const input_error& e) {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST_CASE("R-MAT: deterministic for a seed, symmetric, no self-loops, skewed degrees") {
    const rmat_params p{.scale = 10, .edge_factor = 8, .seed = 42};
    const csr_graph a = make_rmat_graph(p), b = make_rmat_graph(p);
    CHECK(a == b);
    CHECK(a != make_rmat_graph({.scale = 10, .edge_factor = 8, .seed = 43}));
    CHECK(a.vertices == 1024);
    check_well_formed(a, a.vertices, a.vertices);
    std::uint32_t max_degree = 0;
    for (std::uint32_t v = 0; v < a.vertices; ++v) {
        max_degree = std::max(max_degree, a.degree(v));
        for (std::uint32_t i = a.row_offsets[v]; i < a.row_offsets[v + 1]; ++i) {
            const std::uint32_t u = a.columns[i];
            CHECK(u != v);
            const auto first = a.columns.begin() + a.row_offsets[u];
            const auto last = a.columns.begin() + a.row_offsets[u + 1];
            CHECK(std::binary_search(first, last, v)); // the reverse edge exists
        }
    }
    // R-MAT's skew: the largest degree is far above the mean (16 before duplicates are merged).
    CHECK(max_degree > 8 * a.edges() / a.vertices);
    CHECK_THROWS_AS((void)make_rmat_graph({.scale = 0}), config_error);
    CHECK_THROWS_AS((void)make_rmat_graph({.a = 0.6, .b = 0.3, .c = 0.2}), config_error);
}

TEST_CASE("banded and power-law matrices: deterministic, well-formed, the requested shapes") {
    const csr_matrix band = make_banded_matrix({.rows = 100, .half_bandwidth = 3, .seed = 1});
    CHECK(band == make_banded_matrix({.rows = 100, .half_bandwidth = 3, .seed = 1}));
    check_well_formed(band, 100, 100);
    CHECK(band.nonzeros() == 100 * 7 - 2 * (3 + 2 + 1));
    for (std::uint32_t r = 0; r < 100; ++r)
        for (std::uint32_t j = band.row_offsets[r]; j < band.row_offsets[r + 1]; ++j)
            CHECK((band.columns[j] + 3 >= r && band.columns[j] <= r + 3));

    const power_law_params p{.rows = 2000, .cols = 1500, .max_row_length = 300, .seed = 5};
    const csr_matrix m = make_power_law_matrix(p);
    CHECK(m == make_power_law_matrix(p));
    CHECK(m !=
          make_power_law_matrix({.rows = 2000, .cols = 1500, .max_row_length = 300, .seed = 6}));
    check_well_formed(m, 2000, 1500);
    CHECK(m.values.size() == m.columns.size());
    std::uint32_t longest = 0, ones = 0;
    for (std::uint32_t r = 0; r < 2000; ++r) {
        const std::uint32_t len = m.row_offsets[r + 1] - m.row_offsets[r];
        longest = std::max(longest, len);
        ones += len == 1;
    }
    CHECK(longest > 50);    // a heavy tail ...
    CHECK(ones > 2000 / 4); // ... over mostly short rows
}

namespace {
/// An undirected simple graph: no self-loops, and every edge's reverse is stored.
void check_undirected_simple(const csr_graph& g) {
    for (std::uint32_t v = 0; v < g.vertices; ++v)
        for (std::uint32_t i = g.row_offsets[v]; i < g.row_offsets[v + 1]; ++i) {
            const std::uint32_t u = g.columns[i];
            REQUIRE(u != v);
            const auto first = g.columns.begin() + g.row_offsets[u];
            const auto last = g.columns.begin() + g.row_offsets[u + 1];
            REQUIRE(std::binary_search(first, last, v));
        }
}

struct degree_summary {
    double mean = 0, variance = 0;
    std::uint32_t min = 0, max = 0;
};

degree_summary degrees_of(const csr_graph& g, std::uint32_t first = 0,
                          std::uint32_t last = std::numeric_limits<std::uint32_t>::max()) {
    last = std::min(last, g.vertices);
    degree_summary s{.min = std::numeric_limits<std::uint32_t>::max()};
    double sum = 0, sum_sq = 0;
    for (std::uint32_t v = first; v < last; ++v) {
        const double d = g.degree(v);
        sum += d;
        sum_sq += d * d;
        s.min = std::min(s.min, g.degree(v));
        s.max = std::max(s.max, g.degree(v));
    }
    const double n = last - first;
    s.mean = sum / n;
    s.variance = sum_sq / n - s.mean * s.mean;
    return s;
}

/// The fraction of vertices whose degree is at least k.
double share_with_degree_at_least(const csr_graph& g, std::uint32_t k) {
    std::uint32_t count = 0;
    for (std::uint32_t v = 0; v < g.vertices; ++v) count += g.degree(v) >= k;
    return static_cast<double>(count) / g.vertices;
}
} // namespace

TEST_CASE("grid graph: 4-neighbour, the exact degree counts and edge count of a rows x cols grid") {
    const std::uint32_t rows = 5, cols = 7;
    const csr_graph g = make_grid_graph({.rows = rows, .cols = cols});
    CHECK(g.vertices == 35);
    check_well_formed(g, g.vertices, g.vertices);
    check_undirected_simple(g);
    // 2·(r(c − 1) + c(r − 1)) directed edges: 2·(5·6 + 7·4) = 116.
    CHECK(g.edges() == 116);
    // 4 corners of degree 2, 2(r − 2) + 2(c − 2) = 16 border vertices of degree 3, and
    // (r − 2)(c − 2) = 15 interior vertices of degree 4.
    std::uint32_t by_degree[5] = {};
    for (std::uint32_t v = 0; v < g.vertices; ++v) ++by_degree[std::min(g.degree(v), 4u)];
    CHECK(by_degree[0] == 0);
    CHECK(by_degree[1] == 0);
    CHECK(by_degree[2] == 4);
    CHECK(by_degree[3] == 16);
    CHECK(by_degree[4] == 15);
    // Vertex (2, 3) = 17: up 10, left 16, right 18, down 24.
    CHECK(std::vector<std::uint32_t>(g.columns.begin() + g.row_offsets[17],
                                     g.columns.begin() + g.row_offsets[18]) ==
          std::vector<std::uint32_t>{10, 16, 18, 24});
    // Against the definition: u ~ v exactly when their grid positions are 1 apart (Manhattan).
    for (std::uint32_t u = 0; u < g.vertices; ++u)
        for (std::uint32_t v = 0; v < g.vertices; ++v) {
            const auto dr = std::abs(static_cast<int>(u / cols) - static_cast<int>(v / cols));
            const auto dc = std::abs(static_cast<int>(u % cols) - static_cast<int>(v % cols));
            const auto first = g.columns.begin() + g.row_offsets[u];
            const auto last = g.columns.begin() + g.row_offsets[u + 1];
            REQUIRE(std::binary_search(first, last, v) == (dr + dc == 1));
        }
    // A single row is a path; a single vertex has no edge.
    const csr_graph path = make_grid_graph({.rows = 1, .cols = 6});
    CHECK(path.edges() == 10);
    CHECK(path.degree(0) == 1);
    CHECK(path.degree(3) == 2);
    CHECK(make_grid_graph({.rows = 1, .cols = 1}).edges() == 0);

    CHECK_THROWS_AS((void)make_grid_graph({.rows = 0, .cols = 4}), config_error);
    CHECK_THROWS_AS((void)make_grid_graph({.rows = 4, .cols = 0}), config_error);
    // 2^16 × 2^16 is 2^32 vertices: a 32-bit product would wrap to 0 and pass.
    CHECK_THROWS_AS((void)make_grid_graph({.rows = 1u << 16, .cols = 1u << 16}), config_error);
    CHECK_THROWS_AS((void)make_grid_graph({.rows = 1u << 13, .cols = (1u << 13) + 1}),
                    config_error);
}

TEST_CASE("Erdős–Rényi: the requested mean degree, no bias across the vertex range, seeded") {
    const erdos_renyi_params p{.vertices = 20000, .mean_degree = 10.0, .seed = 7};
    const csr_graph g = make_erdos_renyi_graph(p);
    CHECK(g == make_erdos_renyi_graph(p));
    CHECK(g != make_erdos_renyi_graph({.vertices = 20000, .mean_degree = 10.0, .seed = 8}));
    CHECK(g.vertices == 20000);
    check_well_formed(g, g.vertices, g.vertices);
    check_undirected_simple(g);
    // 100 000 undirected edges expected, standard deviation about 316 (0.3 %).
    const degree_summary all = degrees_of(g);
    CHECK(all.mean == doctest::Approx(10.0).epsilon(0.02));
    // Binomial degrees: variance ≈ mean; no heavy tail (Poisson(10) reaches 35 with
    // probability ~1e-9 per vertex).
    CHECK(all.variance == doctest::Approx(10.0).epsilon(0.1));
    CHECK(all.max < 35);
    // Every pair is equally likely: low and high vertex ids get the same mean degree (a walk
    // over the pairs that skipped wrongly would favour one end).
    CHECK(degrees_of(g, 0, 10000).mean == doctest::Approx(10.0).epsilon(0.03));
    CHECK(degrees_of(g, 10000, 20000).mean == doctest::Approx(10.0).epsilon(0.03));
    // A sparse graph and a small one keep their means too.
    const degree_summary sparse =
        degrees_of(make_erdos_renyi_graph({.vertices = 100000, .mean_degree = 2.0, .seed = 1}));
    CHECK(sparse.mean == doctest::Approx(2.0).epsilon(0.03));
    double small_mean = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed)
        small_mean +=
            degrees_of(make_erdos_renyi_graph({.vertices = 10, .mean_degree = 3.0, .seed = seed}))
                .mean;
    CHECK(small_mean / 200 == doctest::Approx(3.0).epsilon(0.05));
    // p = 1: the complete graph.
    const csr_graph complete = make_erdos_renyi_graph({.vertices = 6, .mean_degree = 5.0});
    CHECK(complete.edges() == 30);
    check_undirected_simple(complete);

    CHECK_THROWS_AS((void)make_erdos_renyi_graph({.vertices = 1, .mean_degree = 0.5}),
                    config_error);
    CHECK_THROWS_AS((void)make_erdos_renyi_graph({.vertices = 100, .mean_degree = 0.0}),
                    config_error);
    CHECK_THROWS_AS((void)make_erdos_renyi_graph({.vertices = 100, .mean_degree = 99.5}),
                    config_error);
    CHECK_THROWS_AS((void)make_erdos_renyi_graph({.vertices = 100, .mean_degree = std::nan("")}),
                    config_error);
    // 2^26 vertices of mean degree 64 would be 2^32 directed edges: refused before any draw.
    CHECK_THROWS_AS((void)make_erdos_renyi_graph({.vertices = 1u << 26, .mean_degree = 64.0}),
                    config_error);
}

TEST_CASE("Barabási–Albert: exact edge count, minimum degree m, a power-law tail, seeded") {
    const std::uint32_t n = 20000, m = 4;
    const barabasi_albert_params p{.vertices = n, .edges_per_vertex = m, .seed = 3};
    const csr_graph g = make_barabasi_albert_graph(p);
    CHECK(g == make_barabasi_albert_graph(p));
    CHECK(g != make_barabasi_albert_graph({.vertices = n, .edges_per_vertex = m, .seed = 4}));
    CHECK(g.vertices == n);
    check_well_formed(g, n, n);
    check_undirected_simple(g);
    // The clique on m + 1 vertices, then m edges per further vertex, none merged as a duplicate:
    // m(m + 1) + 2m(n − m − 1) = 20 + 8·19995 directed edges.
    CHECK(g.edges() == 159980);
    const degree_summary d = degrees_of(g);
    CHECK(d.min == m);
    // Heavy-tailed: the largest hub far above the mean (about m·sqrt(n) ≈ 570 expected; an
    // Erdős–Rényi graph of the same mean stays near 20).
    CHECK(d.max > 20 * d.mean);
    // P(degree >= k) = m(m + 1) / (k(k + 1)) for preferential attachment (Barabási–Albert's
    // k^-3 law; Dorogovtsev, Mendes, Samukhin 2000): 7.4 % at k = 16, 1.9 % at k = 32. Uniform
    // attachment would give (m / (m + 1))^(k − m): 0.19 % at k = 32.
    CHECK(share_with_degree_at_least(g, 16) == doctest::Approx(20.0 / 272).epsilon(0.1));
    CHECK(share_with_degree_at_least(g, 32) == doctest::Approx(20.0 / 1056).epsilon(0.15));
    // The hubs are scattered over the ids, not the oldest vertices 0, 1, 2, ...
    std::uint32_t low_id_hubs = 0;
    for (std::uint32_t v = 0; v < 100; ++v) low_id_hubs += g.degree(v) >= 64;
    CHECK(low_id_hubs < 10);
    // m = n − 1: nothing grows on the clique, the complete graph.
    const csr_graph complete = make_barabasi_albert_graph({.vertices = 5, .edges_per_vertex = 4});
    CHECK(complete.edges() == 20);
    check_undirected_simple(complete);
    // m = 1: a tree, n − 1 undirected edges.
    const csr_graph tree = make_barabasi_albert_graph({.vertices = 1000, .edges_per_vertex = 1});
    CHECK(tree.edges() == 2 * 999);
    check_undirected_simple(tree);

    CHECK_THROWS_AS((void)make_barabasi_albert_graph({.vertices = 1, .edges_per_vertex = 1}),
                    config_error);
    CHECK_THROWS_AS((void)make_barabasi_albert_graph({.vertices = 100, .edges_per_vertex = 0}),
                    config_error);
    CHECK_THROWS_AS((void)make_barabasi_albert_graph({.vertices = 100, .edges_per_vertex = 100}),
                    config_error);
    // 2^26 vertices × 64 edges each, both directions: 2^33 entries, refused before any draw.
    CHECK_THROWS_AS(
        (void)make_barabasi_albert_graph({.vertices = 1u << 26, .edges_per_vertex = 64}),
        config_error);
}

TEST_CASE("uniform matrix: exactly k distinct sorted columns per row, every column as likely") {
    const uniform_matrix_params p{.rows = 4000, .cols = 1000, .nonzeros_per_row = 25, .seed = 2};
    const csr_matrix m = make_uniform_matrix(p);
    CHECK(m == make_uniform_matrix(p));
    CHECK(m !=
          make_uniform_matrix({.rows = 4000, .cols = 1000, .nonzeros_per_row = 25, .seed = 3}));
    check_well_formed(m, 4000, 1000); // sorted and distinct within each row
    CHECK(m.values.size() == m.columns.size());
    for (std::uint32_t r = 0; r < 4000; ++r) REQUIRE(m.row_offsets[r + 1] - m.row_offsets[r] == 25);
    for (const float v : m.values) REQUIRE((v >= -1.0f && v < 1.0f));
    // 100 000 entries over 1000 columns: 100 each expected, standard deviation about 10.
    std::vector<std::uint32_t> per_column(1000, 0);
    for (const std::uint32_t c : m.columns) ++per_column[c];
    CHECK(*std::min_element(per_column.begin(), per_column.end()) > 50);
    CHECK(*std::max_element(per_column.begin(), per_column.end()) < 150);
    // Floyd's draw takes column j when its pick is taken: the last columns must not be favoured.
    const std::uint32_t last_25 = std::accumulate(per_column.end() - 25, per_column.end(), 0u);
    CHECK(last_25 == doctest::Approx(2500).epsilon(0.1));
    // k = cols: every row is full.
    const csr_matrix full = make_uniform_matrix({.rows = 3, .cols = 8, .nonzeros_per_row = 8});
    CHECK(full.nonzeros() == 24);
    check_well_formed(full, 3, 8);

    CHECK_THROWS_AS((void)make_uniform_matrix({.rows = 10, .cols = 10, .nonzeros_per_row = 0}),
                    config_error);
    CHECK_THROWS_AS((void)make_uniform_matrix({.rows = 10, .cols = 10, .nonzeros_per_row = 11}),
                    config_error);
    CHECK_THROWS_AS((void)make_uniform_matrix({.rows = 0, .cols = 10, .nonzeros_per_row = 1}),
                    config_error);
    // 2^26 rows × 64 = 2^32 entries: refused before any draw.
    CHECK_THROWS_AS(
        (void)make_uniform_matrix({.rows = 1u << 26, .cols = 1u << 10, .nonzeros_per_row = 64}),
        config_error);
}

TEST_CASE("2-D Laplacian: the 5-point stencil, nnz = 5 nx ny - 2 nx - 2 ny, interior rows sum 0") {
    const std::uint32_t nx = 6, ny = 4, n = nx * ny;
    const csr_matrix a = make_laplacian_matrix({.nx = nx, .ny = ny});
    CHECK(a.rows == n);
    CHECK(a.cols == n);
    check_well_formed(a, n, n);
    CHECK(a.nonzeros() == 5 * n - 2 * nx - 2 * ny); // 100
    const auto value = [&](std::uint32_t i, std::uint32_t j) -> std::optional<float> {
        const auto first = a.columns.begin() + a.row_offsets[i];
        const auto last = a.columns.begin() + a.row_offsets[i + 1];
        const auto it = std::lower_bound(first, last, j);
        if (it == last || *it != j) return std::nullopt;
        return a.values[static_cast<std::size_t>(it - a.columns.begin())];
    };
    // Against the definition on grid coordinates (x = i mod nx, y = i div nx).
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j) {
            const int dx = std::abs(static_cast<int>(i % nx) - static_cast<int>(j % nx));
            const int dy = std::abs(static_cast<int>(i / nx) - static_cast<int>(j / nx));
            const std::optional<float> v = value(i, j);
            if (i == j)
                REQUIRE(v == 4.0f);
            else if (dx + dy == 1)
                REQUIRE(v == -1.0f);
            else
                REQUIRE(!v);
        }
    // Row sums: 0 inside, 1 on an edge of the grid, 2 at a corner (the missing neighbours).
    for (std::uint32_t i = 0; i < n; ++i) {
        float sum = 0;
        for (std::uint32_t k = a.row_offsets[i]; k < a.row_offsets[i + 1]; ++k) sum += a.values[k];
        const std::uint32_t x = i % nx, y = i / nx;
        const int missing = (x == 0) + (x == nx - 1) + (y == 0) + (y == ny - 1);
        REQUIRE(sum == static_cast<float>(missing));
    }
    // A linear function u = x + 10y is harmonic: (A u) is 0 at every interior point.
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t x = i % nx, y = i / nx;
        if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) continue;
        float au = 0;
        for (std::uint32_t k = a.row_offsets[i]; k < a.row_offsets[i + 1]; ++k)
            au += a.values[k] * static_cast<float>(a.columns[k] % nx + 10 * (a.columns[k] / nx));
        REQUIRE(au == 0.0f);
    }
    // One row of grid points: the tridiagonal [-1 4 -1] minus the missing ends, 3n − 2.
    CHECK(make_laplacian_matrix({.nx = 9, .ny = 1}).nonzeros() == 25);
    CHECK(make_laplacian_matrix({.nx = 1, .ny = 1}).values == std::vector<float>{4.0f});

    CHECK_THROWS_AS((void)make_laplacian_matrix({.nx = 0, .ny = 3}), config_error);
    CHECK_THROWS_AS((void)make_laplacian_matrix({.nx = 3, .ny = 0}), config_error);
    CHECK_THROWS_AS((void)make_laplacian_matrix({.nx = 1u << 16, .ny = 1u << 16}), config_error);
}

TEST_CASE("generators refuse sizes past 32-bit CSR offsets before drawing anything") {
    // R-MAT 2^26 × edge factor 64, both directions: 2^33 entries.
    CHECK_THROWS_AS((void)make_rmat_graph({.scale = 26, .edge_factor = 64}), config_error);
    try {
        (void)make_uniform_matrix({.rows = 1u << 26, .cols = 1u << 10, .nonzeros_per_row = 64});
        FAIL("no error");
    } catch (const config_error& e) {
        CHECK(std::string(e.what()) ==
              "memsub::workload::simt::make_uniform_matrix: nonzeros_per_row = 64 violates "
              "\"gives more than 2^32 - 1 stored entries (CSR offsets are 32-bit)\"");
    }
}

TEST_CASE("edge list: comments, blank lines, extra fields; errors name the file and line") {
    std::istringstream good("# comment\n\n0 1\n1 2 0.5\n% another\n2 0\n  3\t1  \n");
    const csr_graph g = read_edge_list(good, "g.txt");
    CHECK(g.vertices == 4);
    CHECK(g.edges() == 4);
    CHECK(g.degree(3) == 1);
    CHECK(g.columns[g.row_offsets[3]] == 1);

    const csr_graph file =
        read_edge_list(std::string(memsub_test::data_dir()) + "/simt/small_graph.txt");
    CHECK(file.vertices == 10);
    CHECK(file.edges() == 22);
    CHECK(file.degree(5) == 7);

    std::istringstream one_field("0 1\n7\n");
    CHECK(error_of([&] { (void)read_edge_list(one_field, "g.txt"); }) ==
          "g.txt: at line 2: expected two vertex ids 'u v', got one field");
    std::istringstream not_number("0 1\n1 2\n2 x3\n");
    CHECK(error_of([&] { (void)read_edge_list(not_number, "g.txt"); }) ==
          "g.txt: at line 3: vertex id 'x3' is not a non-negative integer");
    std::istringstream negative("-1 2\n");
    CHECK(error_of([&] {
              (void)read_edge_list(negative, "g.txt");
          }).starts_with("g.txt: at line 1:"));
    std::istringstream huge("0 1\n67108864 1\n");
    CHECK(error_of([&] { (void)read_edge_list(huge, "g.txt"); }) ==
          "g.txt: at line 2: vertex id exceeds 67108863");
    std::istringstream empty("# nothing\n");
    CHECK(error_of([&] { (void)read_edge_list(empty, "g.txt"); }) ==
          "g.txt: at line 1: holds no edges");
    CHECK(error_of([] {
              (void)read_edge_list(std::string("/nonexistent/g.txt"));
          }).starts_with("/nonexistent/g.txt"));
}

TEST_CASE("Matrix Market: symmetric mirrored, pattern, general; errors name the file and line") {
    const csr_matrix m =
        read_matrix_market(std::string(memsub_test::data_dir()) + "/simt/small.mtx");
    CHECK(m.rows == 6);
    CHECK(m.cols == 6);
    CHECK(m.nonzeros() == 12); // 8 stored, 4 off-diagonal mirrored
    check_well_formed(m, 6, 6);
    // Row 0 (1-based row 1): (1,1)=4, (1,2)=-1 mirrored from (2,1), (1,6)=0.5 mirrored from (6,1).
    CHECK(m.row_offsets[1] == 3);
    CHECK(m.columns[0] == 0);
    CHECK(m.values[0] == 4.0f);
    CHECK(m.columns[1] == 1);
    CHECK(m.values[1] == -1.0f);
    CHECK(m.columns[2] == 5);
    CHECK(m.values[2] == 0.5f);

    std::istringstream pattern(
        "%%MatrixMarket matrix coordinate pattern general\n% c\n2 3 2\n1 3\n2 1\n");
    const csr_matrix p = read_matrix_market(pattern, "p.mtx");
    CHECK(p.rows == 2);
    CHECK(p.cols == 3);
    CHECK(p.columns == std::vector<std::uint32_t>{2, 0});
    CHECK(p.values == std::vector<float>{1.0f, 1.0f});

    std::istringstream skew("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n");
    const csr_matrix s = read_matrix_market(skew, "s.mtx");
    CHECK(s.values == std::vector<float>{-3.0f, 3.0f}); // (1,2) = -3, (2,1) = 3

    const auto err = [](const std::string& text) {
        std::istringstream in(text);
        return error_of([&] { (void)read_matrix_market(in, "m.mtx"); });
    };
    CHECK(err("") == "m.mtx: at line 1: empty file: expected a '%%MatrixMarket matrix coordinate "
                     "...' banner");
    CHECK(err("1 1 1\n").starts_with("m.mtx: at line 1: expected a '%%MatrixMarket"));
    CHECK(err("%%MatrixMarket matrix array real general\n") ==
          "m.mtx: at line 1: format 'array' is not supported (only 'coordinate')");
    CHECK(err("%%MatrixMarket matrix coordinate complex general\n")
              .starts_with("m.mtx: at line 1: field 'complex' is not supported"));
    CHECK(err("%%MatrixMarket matrix coordinate real general\n% c\n2 2\n") ==
          "m.mtx: at line 3: expected the size line 'rows cols entries'");
    CHECK(err("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 3 1\n") ==
          "m.mtx: at line 4: column index 3 is outside 1..2");
    CHECK(err("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 x\n") ==
          "m.mtx: at line 4: value 'x' is not a number");
    CHECK(err("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n") ==
          "m.mtx: at line 3: the file ends after 1 entries; the size line declares 2");
    CHECK(err("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n") ==
          "m.mtx: at line 4: more entries than the 1 the size line declares");
    CHECK(err("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n") ==
          "m.mtx: at line 3: expected an entry 'i j value'");
    CHECK(err("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n") ==
          "m.mtx: at line 2: a symmetric matrix must be square");
    CHECK(error_of([] {
              (void)read_matrix_market(std::string(memsub_test::data_dir()) +
                                       "/simt/bad_index.mtx");
          }).ends_with("bad_index.mtx: at line 4: row index 4 is outside 1..3"));
}

TEST_CASE("graph files: a Matrix Market file is an adjacency matrix, not an edge list") {
    const std::string data(memsub_test::data_dir());
    // small.mtx: 6 x 6 symmetric, 8 stored entries, 12 once mirrored: 12 edges on 6 vertices.
    graph_file_format format = graph_file_format::edge_list;
    const csr_graph g = read_graph(data + "/simt/small.mtx", &format);
    CHECK(format == graph_file_format::matrix_market);
    const csr_matrix m = read_matrix_market(data + "/simt/small.mtx");
    CHECK(g.vertices == 6);
    CHECK(g.edges() == 12);
    CHECK(g.row_offsets == m.row_offsets);
    CHECK(g.columns == m.columns);
    CHECK(g == adjacency_graph(m));
    // Vertex 0 (row 1): itself (the diagonal 4.0), 1 (mirrored from (2,1)) and 5 (from (6,1)).
    CHECK(g.degree(0) == 3);
    CHECK(g.columns[0] == 0);
    CHECK(g.columns[1] == 1);
    CHECK(g.columns[2] == 5);

    // An edge list is read as before, whether or not it starts with a '%' comment (KONECT's
    // files do).
    const csr_graph edges = read_graph(data + "/simt/small_graph.txt", &format);
    CHECK(format == graph_file_format::edge_list);
    CHECK(edges == read_edge_list(data + "/simt/small_graph.txt"));
    std::istringstream konect("% sym unweighted\n% 2 3 3\n1 2\n2 3\n");
    const csr_graph k = read_graph(konect, "out.konect");
    CHECK(k.vertices == 4);
    CHECK(k.edges() == 2);

    // A pattern file: every entry is an edge, its value absent; an explicit zero is an edge too.
    std::istringstream pattern("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n"
                               "3 2\n");
    const csr_graph p = read_graph(pattern, "p.mtx");
    CHECK(p.vertices == 3);
    CHECK(p.edges() == 4);
    std::istringstream zero("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0\n");
    CHECK(read_graph(zero, "z.mtx").edges() == 1);

    // The edge-list reader no longer reads a matrix's size line and 1-based entries as edges
    // (small.mtx became 7 vertices and 8 wrong edges).
    std::istringstream mtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1.0\n");
    CHECK(error_of([&] { (void)read_edge_list(mtx, "m.mtx"); }) ==
          "m.mtx: at line 1: a Matrix Market banner: this is a matrix file, not an edge list "
          "(read_graph reads it as an adjacency matrix)");
    CHECK(error_of([&] { (void)read_edge_list(data + "/simt/small.mtx"); })
              .ends_with("small.mtx: at line 1: a Matrix Market banner: this is a matrix file, "
                         "not an edge list (read_graph reads it as an adjacency matrix)"));

    // A matrix that is not square is no adjacency matrix: the error names its size line.
    std::istringstream wide("%%MatrixMarket matrix coordinate real general\n% c\n2 3 1\n1 3 1.0\n");
    CHECK(error_of([&] { (void)read_graph(wide, "w.mtx"); }) ==
          "w.mtx: at line 3: a 2 x 3 matrix is not a graph's adjacency matrix: it must be "
          "square");
    // Matrix Market errors keep their lines when read as a graph.
    std::istringstream bad("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n");
    CHECK(error_of([&] { (void)read_graph(bad, "b.mtx"); }) ==
          "b.mtx: at line 3: row index 3 is outside 1..2");
    std::istringstream empty("");
    CHECK(error_of([&] { (void)read_graph(empty, "e.txt"); }) ==
          "e.txt: at line 0: holds no edges");
    std::istringstream bad_edge("0 1\n2\n");
    CHECK(error_of([&] { (void)read_graph(bad_edge, "g.txt"); }) ==
          "g.txt: at line 2: expected two vertex ids 'u v', got one field");
    CHECK(error_of([] {
              (void)read_graph(std::string("/nonexistent/g.txt"));
          }).starts_with("/nonexistent/g.txt"));
}
