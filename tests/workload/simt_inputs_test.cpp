// Inputs of the SIMT kernels: R-MAT, banded and power-law generators (deterministic for a seed,
// well-formed CSR), the edge-list and Matrix Market readers on good and bad input (errors name
// the file and line).
#include <doctest/doctest.h>

#include "../support/data_dir.hpp"

#include <memsub/workload/simt/csr_inputs.hpp>

#include <cstdint>
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
    CHECK_THROWS_AS(make_rmat_graph({.scale = 0}), config_error);
    CHECK_THROWS_AS(make_rmat_graph({.a = 0.6, .b = 0.3, .c = 0.2}), config_error);
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
