// memsub — inputs of the irregular SIMT kernels: CSR graphs and CSR sparse matrices, generated
// (R-MAT, Barabási–Albert, Erdős–Rényi and 2-D grid graphs; banded, power-law, uniform-random
// and 2-D Laplacian matrices) or read from a file the user gives (an edge list; a Matrix Market
// coordinate file). The random generators draw from memsub's own xoshiro256** (core/rng.hpp),
// never a std:: distribution, so a seed gives the same input with every standard library.
//
// R-MAT: D. Chakrabarti, Y. Zhan, C. Faloutsos, "R-MAT: A Recursive Model for Graph Mining",
// SDM 2004 — each edge picks one quadrant of the adjacency matrix per level with probabilities
// a, b, c, d (defaults 0.57, 0.19, 0.19, 0.05, Graph500's).
// Barabási–Albert: A.-L. Barabási, R. Albert, "Emergence of Scaling in Random Networks",
// Science 286, 1999 — growth by preferential attachment: each new vertex links to m distinct
// existing vertices, chosen with probability proportional to their degree (a power-law degree
// tail, P(k) ~ k^-3). Drawn as V. Batagelj, U. Brandes, "Efficient generation of large random
// networks", Phys. Rev. E 71, 036113 (2005), Algorithm 5: a uniform pick from the list of every
// edge's endpoints is a pick proportional to degree.
// Erdős–Rényi G(n, p): every one of the n(n − 1)/2 vertex pairs is an edge independently with
// probability p; drawn in O(n + edges) by Batagelj–Brandes' Algorithm 1, which skips over the
// pairs that are not edges with geometrically distributed gaps.
// Uniform-random rows: R. Floyd's sampling (J. Bentley, "Programming Pearls: A Sample of
// Brilliance", CACM 30(9), 1987) picks k distinct columns, every k-subset equally likely.
// 2-D Laplacian: the 5-point finite-difference matrix of −∇² on an nx × ny grid with Dirichlet
// boundaries (Y. Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., §2.2), grid point
// (x, y) at row y·nx + x: 4 on the diagonal and −1 for each of its (up to 4) grid neighbours.
// Matrix Market: the NIST format ("The Matrix Market Exchange Formats: Initial Design", Boisvert,
// Pozo, Remington 1996): a `%%MatrixMarket matrix coordinate <field> <symmetry>` banner, `%`
// comment lines, a `rows cols entries` size line, then one `i j [value]` line per entry with
// 1-based indices. Supported fields: real, integer, pattern (value 1); symmetries: general,
// symmetric, skew-symmetric (the mirrored entry negated). Edge list: one `u v` pair (0-based;
// further fields ignored) per line; blank lines and lines starting with '#' or '%' are skipped,
// but a first line that is a Matrix Market banner is an error (read as an edge list, a matrix
// file's size line and 1-based entries would silently become wrong edges). `read_graph` reads
// either: a Matrix Market file as the graph's adjacency matrix (every stored entry an edge).
// Readers stream the file line by line; bad input throws memsub::input_error naming the file and
// line.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/workload/synthetic.hpp>

namespace memsub::workload::simt {

/// A directed graph in CSR form: vertex v's neighbours are
/// `columns[row_offsets[v] .. row_offsets[v + 1])`, sorted and without duplicates.
struct csr_graph {
    std::uint32_t vertices = 0;
    std::vector<std::uint32_t> row_offsets{0};
    std::vector<std::uint32_t> columns;

    [[nodiscard]] std::uint64_t edges() const noexcept { return columns.size(); }
    [[nodiscard]] std::uint32_t degree(std::uint32_t v) const noexcept {
        return row_offsets[v + 1] - row_offsets[v];
    }
    friend bool operator==(const csr_graph&, const csr_graph&) = default;
};

/// A sparse matrix in CSR form (float values).
struct csr_matrix {
    std::uint32_t rows = 0;
    std::uint32_t cols = 0;
    std::vector<std::uint32_t> row_offsets{0};
    std::vector<std::uint32_t> columns;
    std::vector<float> values;

    [[nodiscard]] std::uint64_t nonzeros() const noexcept { return columns.size(); }
    friend bool operator==(const csr_matrix&, const csr_matrix&) = default;
};

namespace detail {

struct coo_entry {
    std::uint32_t row;
    std::uint32_t col;
    float value;
};

/// CSR from (row, col, value) triples: sorted by (row, col), duplicates merged (first kept).
inline void build_csr(std::uint32_t rows, std::vector<coo_entry>& entries,
                      std::vector<std::uint32_t>& row_offsets, std::vector<std::uint32_t>& columns,
                      std::vector<float>* values) {
    std::sort(entries.begin(), entries.end(), [](const coo_entry& x, const coo_entry& y) {
        return x.row != y.row ? x.row < y.row : x.col < y.col;
    });
    entries.erase(std::unique(entries.begin(), entries.end(),
                              [](const coo_entry& x, const coo_entry& y) {
                                  return x.row == y.row && x.col == y.col;
                              }),
                  entries.end());
    row_offsets.assign(std::size_t{rows} + 1, 0);
    for (const coo_entry& e : entries) ++row_offsets[e.row + 1];
    for (std::uint32_t r = 0; r < rows; ++r) row_offsets[r + 1] += row_offsets[r];
    columns.resize(entries.size());
    if (values) values->resize(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        columns[i] = entries[i].col;
        if (values) (*values)[i] = entries[i].value;
    }
}

/// The CSR graph of `vertices` vertices and the directed `edges` (sorted, duplicates dropped).
[[nodiscard]] inline csr_graph graph_of_edges(std::uint32_t vertices,
                                              std::vector<coo_entry>& edges) {
    csr_graph g;
    g.vertices = vertices;
    build_csr(vertices, edges, g.row_offsets, g.columns, nullptr);
    return g;
}

/// CSR offsets are 32-bit: a generator whose `entries` (an exact count or a bound) would not fit
/// Rows and columns of a generated matrix are 1 .. 2^26 (row and column ids stay 32-bit with
/// room for the generators' arithmetic).
inline void require_matrix_dimension(std::string_view component, std::string_view field,
                                     std::uint32_t value) {
    memsub::require(value >= 1 && value <= (1u << 26), component, field, value,
                    "must be in 1..2^26");
}

/// says so at construction, naming the parameter that sets the size.
inline void require_csr_size(std::string_view component, std::string_view field,
                             std::uint64_t value, std::uint64_t entries) {
    memsub::require(entries <= std::numeric_limits<std::uint32_t>::max(), component, field, value,
                    "gives more than 2^32 - 1 stored entries (CSR offsets are 32-bit)");
}

/// 0 .. n − 1 in an order drawn from `rng` (Fisher–Yates).
inline std::vector<std::uint32_t> shuffled_ids(std::uint32_t n, xoshiro256ss& rng) {
    std::vector<std::uint32_t> perm(n);
    for (std::uint32_t i = 0; i < n; ++i) perm[i] = i;
    for (std::uint32_t i = n; i > 1; --i)
        std::swap(perm[i - 1], perm[static_cast<std::uint32_t>(rng.below(i))]);
    return perm;
}

/// Splits `line` into whitespace-separated fields (at most `max` kept).
inline std::size_t split_fields(std::string_view line, std::string_view* fields, std::size_t max) {
    std::size_t n = 0, i = 0;
    while (i < line.size() && n < max) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        if (i == line.size()) break;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
        fields[n++] = line.substr(start, i - start);
    }
    return n;
}

/// A whole unsigned field, else input_error naming `what`.
inline std::uint64_t parse_index(std::string_view field, std::string_view source,
                                 std::uint64_t line, std::string_view what) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc{} || end != field.data() + field.size())
        throw input_error(source, input_error::position_kind::line_number, line,
                          std::string(what) + " '" + std::string(field) +
                              "' is not a non-negative integer");
    return v;
}

inline float parse_value(std::string_view field, std::string_view source, std::uint64_t line) {
    const std::string copy(field);
    char* end = nullptr;
    const double v = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size())
        throw input_error(source, input_error::position_kind::line_number, line,
                          "value '" + copy + "' is not a number");
    return static_cast<float>(v);
}

inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

/// Whether `line` is a Matrix Market banner: its first field is "%%MatrixMarket" (any case).
inline bool is_matrix_market_banner(std::string_view line) {
    std::string_view first[1];
    return split_fields(line, first, 1) == 1 && lower(first[0]) == "%%matrixmarket";
}

/// The lines of a stream, numbered from 1; the first may have been read already (to detect the
/// format), and is then delivered first.
class numbered_lines {
public:
    numbered_lines(std::istream& in, std::optional<std::string> first)
        : in_(in)
        , first_(std::move(first)) {}

    bool next(std::string& line) {
        if (first_) {
            line = std::move(*first_);
            first_.reset();
        } else if (!std::getline(in_, line)) {
            return false;
        }
        ++number_;
        return true;
    }
    /// The number of the last line delivered (0 before the first).
    [[nodiscard]] std::uint64_t number() const noexcept { return number_; }
    [[nodiscard]] bool bad() const { return in_.bad(); }

private:
    std::istream& in_;
    std::optional<std::string> first_;
    std::uint64_t number_ = 0;
};

inline std::ifstream open_input(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw input_error(path, input_error::position_kind::line_number, 0,
                          "cannot open for reading");
    return in;
}

} // namespace detail

// ------------------------------------------------------------------------------ graphs

struct rmat_params {
    /// 2^scale vertices.
    std::uint32_t scale = 14;
    /// Edges drawn = edge_factor × vertices (before duplicates and self-loops are dropped).
    std::uint32_t edge_factor = 8;
    double a = 0.57, b = 0.19, c = 0.19;
    /// Add the reverse of every edge (an undirected graph, as Rodinia's BFS inputs are).
    bool symmetric = true;
    std::uint64_t seed = 1;
};

/// An R-MAT graph; the same params give the same graph.
[[nodiscard]] inline csr_graph make_rmat_graph(const rmat_params& p) {
    constexpr std::string_view component = "memsub::workload::simt::make_rmat_graph";
    memsub::require(p.scale >= 1 && p.scale <= 26, component, "scale", p.scale, "must be in 1..26");
    memsub::require(p.edge_factor >= 1 && p.edge_factor <= 64, component, "edge_factor",
                    p.edge_factor, "must be in 1..64");
    if (!(p.a > 0 && p.b >= 0 && p.c >= 0 && p.a + p.b + p.c < 1.0))
        throw config_error(component, "a, b, c", "", "must be a > 0, b, c >= 0, a + b + c < 1");
    const std::uint32_t n = 1u << p.scale;
    const std::uint64_t draws = std::uint64_t{n} * p.edge_factor;
    detail::require_csr_size(component, "edge_factor", p.edge_factor,
                             p.symmetric ? 2 * draws : draws);
    xoshiro256ss rng(p.seed);
    std::vector<detail::coo_entry> edges;
    edges.reserve(p.symmetric ? 2 * draws : draws);
    for (std::uint64_t e = 0; e < draws; ++e) {
        std::uint32_t u = 0, v = 0;
        for (std::uint32_t level = 0; level < p.scale; ++level) {
            const double r = rng.uniform();
            const std::uint32_t right = r >= p.a && (r < p.a + p.b || r >= p.a + p.b + p.c);
            const std::uint32_t down = r >= p.a + p.b;
            u = (u << 1) | down;
            v = (v << 1) | right;
        }
        if (u == v) continue;
        edges.push_back({u, v, 1.0f});
        if (p.symmetric) edges.push_back({v, u, 1.0f});
    }
    // Scramble vertex ids (a fixed permutation from the seed) so that hubs are not all at low ids.
    const std::vector<std::uint32_t> perm = detail::shuffled_ids(n, rng);
    for (auto& e : edges) e = {perm[e.row], perm[e.col], 1.0f};
    return detail::graph_of_edges(n, edges);
}

struct barabasi_albert_params {
    std::uint32_t vertices = 16384;
    /// m: the edges each new vertex adds, to m distinct existing vertices (mean degree ≈ 2m).
    std::uint32_t edges_per_vertex = 8;
    std::uint64_t seed = 1;
};

/// A Barabási–Albert graph, undirected (both directions stored), without self-loops or
/// duplicate edges: vertices 0..m form a clique, then each further vertex attaches to m distinct
/// earlier vertices drawn proportionally to their degree, so every vertex has degree >= m and
/// there are m(m + 1) + 2m(vertices − m − 1) directed edges. The same params give the same graph.
///
/// Decision: the growth starts from a clique of m + 1 vertices (Batagelj–Brandes start from m
/// isolated vertices, whose zero degrees give preferential attachment nothing to draw from, and
/// tolerate repeated edges; a star would give its centre a head start). With the clique, every
/// vertex has degree m or more and the edge count is exact.
/// Decision: vertex ids are scrambled by a permutation drawn from the seed, as make_rmat_graph's
/// are: growth makes the oldest vertices the hubs, and leaving them at ids 0, 1, 2, ... would
/// pack the hot vertices into a few cache lines, a locality the model does not imply.
[[nodiscard]] inline csr_graph make_barabasi_albert_graph(const barabasi_albert_params& p) {
    constexpr std::string_view component = "memsub::workload::simt::make_barabasi_albert_graph";
    memsub::require(p.vertices >= 2 && p.vertices <= (1u << 26), component, "vertices", p.vertices,
                    "must be in 2..2^26");
    memsub::require(p.edges_per_vertex >= 1 && p.edges_per_vertex < p.vertices, component,
                    "edges_per_vertex", p.edges_per_vertex, "must be in 1..vertices - 1");
    const std::uint32_t n = p.vertices, m = p.edges_per_vertex;
    const std::uint64_t undirected =
        std::uint64_t{m} * (m + 1) / 2 + std::uint64_t{m} * (n - m - 1);
    detail::require_csr_size(component, "edges_per_vertex", m, 2 * undirected);
    xoshiro256ss rng(p.seed);
    std::vector<detail::coo_entry> edges;
    edges.reserve(2 * undirected);
    // Every edge's two endpoints: a vertex of degree k appears k times.
    std::vector<std::uint32_t> endpoints;
    endpoints.reserve(2 * undirected);
    const auto add_edge = [&](std::uint32_t u, std::uint32_t v) {
        edges.push_back({u, v, 1.0f});
        edges.push_back({v, u, 1.0f});
        endpoints.push_back(u);
        endpoints.push_back(v);
    };
    for (std::uint32_t u = 0; u <= m; ++u)
        for (std::uint32_t v = u + 1; v <= m; ++v) add_edge(u, v);
    // chosen_by[t] == v: vertex v has already picked t (a repeat is drawn again).
    std::vector<std::uint32_t> chosen_by(n, 0);
    std::vector<std::uint32_t> targets;
    targets.reserve(m);
    for (std::uint32_t v = m + 1; v < n; ++v) {
        // All m targets come from the graph before v joins, as in the model.
        targets.clear();
        while (targets.size() < m) {
            const std::uint32_t t =
                endpoints[static_cast<std::size_t>(rng.below(endpoints.size()))];
            if (chosen_by[t] == v) continue;
            chosen_by[t] = v;
            targets.push_back(t);
        }
        for (const std::uint32_t t : targets) add_edge(v, t);
    }
    const std::vector<std::uint32_t> perm = detail::shuffled_ids(n, rng);
    for (auto& e : edges) e = {perm[e.row], perm[e.col], 1.0f};
    return detail::graph_of_edges(n, edges);
}

struct erdos_renyi_params {
    std::uint32_t vertices = 16384;
    /// The expected degree: each pair is an edge with p = mean_degree / (vertices − 1).
    double mean_degree = 16.0;
    std::uint64_t seed = 1;
};

/// An Erdős–Rényi G(n, p) graph, undirected (both directions stored), without self-loops, with
/// p = mean_degree / (vertices − 1), drawn in O(vertices + edges). The same params give the same
/// graph.
///
/// Decision: the geometric gaps are ⌊log(1 − r) / log(1 − p)⌋ computed with std::log1p, a libm
/// function, not a std:: distribution. A different libm could round a gap that lies within an
/// ulp of an integer the other way; no exactly reproducible integer sampler with O(1) cost per
/// edge was found, and an O(n²) Bernoulli draw per pair is what this generator exists to avoid.
[[nodiscard]] inline csr_graph make_erdos_renyi_graph(const erdos_renyi_params& p) {
    constexpr std::string_view component = "memsub::workload::simt::make_erdos_renyi_graph";
    memsub::require(p.vertices >= 2 && p.vertices <= (1u << 26), component, "vertices", p.vertices,
                    "must be in 2..2^26");
    const std::uint32_t n = p.vertices;
    // (Written so that NaN fails too.)
    if (!(p.mean_degree > 0 && p.mean_degree <= n - 1.0))
        throw config_error(component, "mean_degree", std::to_string(p.mean_degree),
                           "must be > 0 and <= vertices - 1");
    // The edge count is random: its mean (mean_degree × vertices directed edges) is held to
    // 2^31, where going past 2^32 - 1 would take dozens of standard deviations; past it anyway
    // the draw stops with the same error.
    if (!(p.mean_degree * n <= 2147483648.0))
        throw config_error(component, "mean_degree", std::to_string(p.mean_degree),
                           "times vertices must be <= 2^31 (CSR offsets are 32-bit)");
    const double prob = p.mean_degree / (n - 1.0);
    const double pairs = 0.5 * n * (n - 1.0);
    xoshiro256ss rng(p.seed);
    std::vector<detail::coo_entry> edges;
    edges.reserve(static_cast<std::size_t>(1.05 * p.mean_degree * n) + 64);
    // Walk the pairs (v, w), w < v, row by row; each step jumps over the gap of non-edges.
    const double log_q = prob < 1.0 ? std::log1p(-prob) : 0.0;
    std::uint64_t v = 1;
    std::int64_t w = -1;
    while (v < n) {
        double gap = 0.0;
        if (prob < 1.0) gap = std::floor(std::log1p(-rng.uniform()) / log_q);
        if (gap >= pairs) break; // past the last pair
        w += 1 + static_cast<std::int64_t>(gap);
        while (w >= static_cast<std::int64_t>(v) && v < n) {
            w -= static_cast<std::int64_t>(v);
            ++v;
        }
        if (v == n) break;
        if (edges.size() + 2 > std::numeric_limits<std::uint32_t>::max())
            throw config_error(component, "mean_degree", std::to_string(p.mean_degree),
                               "drew more than 2^32 - 1 edges (CSR offsets are 32-bit)");
        const auto a = static_cast<std::uint32_t>(v), b = static_cast<std::uint32_t>(w);
        edges.push_back({a, b, 1.0f});
        edges.push_back({b, a, 1.0f});
    }
    return detail::graph_of_edges(n, edges);
}

namespace detail {

/// Calls `fn(point, neighbour)` for every ordered pair of 4-neighbours (no wrap-around) of a
/// width × height grid whose point (x, y) is y·width + x: the grid graph's edges and the
/// Laplacian's off-diagonal entries.
template <class Fn>
void for_each_grid_neighbour(std::uint32_t width, std::uint32_t height, Fn&& fn) {
    for (std::uint32_t y = 0; y < height; ++y)
        for (std::uint32_t x = 0; x < width; ++x) {
            const std::uint32_t i = y * width + x;
            if (y > 0) fn(i, i - width);
            if (x > 0) fn(i, i - 1);
            if (x + 1 < width) fn(i, i + 1);
            if (y + 1 < height) fn(i, i + width);
        }
}

} // namespace detail

struct grid_params {
    std::uint32_t rows = 128;
    std::uint32_t cols = 128;
};

/// A rows × cols 2-D grid graph, 4-neighbour (up, left, right, down; no wrap-around), vertex
/// (r, c) at id r·cols + c, both directions stored: 2·(rows·(cols − 1) + cols·(rows − 1))
/// directed edges. Deterministic (no seed).
[[nodiscard]] inline csr_graph make_grid_graph(const grid_params& p) {
    constexpr std::string_view component = "memsub::workload::simt::make_grid_graph";
    memsub::require(p.rows >= 1, component, "rows", p.rows, "must be >= 1");
    memsub::require(p.cols >= 1, component, "cols", p.cols, "must be >= 1");
    memsub::require(std::uint64_t{p.rows} * p.cols <= (1u << 26), component, "cols", p.cols,
                    "times rows must be <= 2^26 vertices");
    const std::uint32_t n = p.rows * p.cols;
    std::vector<detail::coo_entry> edges;
    edges.reserve(4 * std::size_t{n});
    detail::for_each_grid_neighbour(p.cols, p.rows, [&](std::uint32_t v, std::uint32_t u) {
        edges.push_back({v, u, 1.0f});
    });
    return detail::graph_of_edges(n, edges);
}

namespace detail {

inline csr_graph read_edge_list(numbered_lines& lines, std::string_view source) {
    constexpr std::uint64_t max_vertex = (std::uint64_t{1} << 26) - 1; // as matrices' 2^26
    std::vector<coo_entry> edges;
    std::uint32_t n = 0;
    std::string line;
    while (lines.next(line)) {
        const std::uint64_t number = lines.number();
        if (number == 1 && is_matrix_market_banner(line))
            throw input_error(source, input_error::position_kind::line_number, number,
                              "a Matrix Market banner: this is a matrix file, not an edge list "
                              "(read_graph reads it as an adjacency matrix)");
        std::string_view fields[2];
        const std::size_t k = split_fields(line, fields, 2);
        if (k == 0 || fields[0][0] == '#' || fields[0][0] == '%') continue;
        if (k < 2)
            throw input_error(source, input_error::position_kind::line_number, number,
                              "expected two vertex ids 'u v', got one field");
        const std::uint64_t u = parse_index(fields[0], source, number, "vertex id");
        const std::uint64_t v = parse_index(fields[1], source, number, "vertex id");
        if (u > max_vertex || v > max_vertex)
            throw input_error(source, input_error::position_kind::line_number, number,
                              "vertex id exceeds " + std::to_string(max_vertex));
        edges.push_back({static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(v), 1.0f});
        n = std::max<std::uint32_t>(n, static_cast<std::uint32_t>(std::max(u, v) + 1));
    }
    if (lines.bad())
        throw input_error(source, input_error::position_kind::line_number, lines.number() + 1,
                          "read error");
    if (edges.empty())
        throw input_error(source, input_error::position_kind::line_number, lines.number(),
                          "holds no edges");
    csr_graph g;
    g.vertices = n;
    build_csr(n, edges, g.row_offsets, g.columns, nullptr);
    return g;
}

} // namespace detail

/// Reads an edge list from `in`; `source` names it in errors.
[[nodiscard]] inline csr_graph read_edge_list(std::istream& in, std::string_view source) {
    detail::numbered_lines lines(in, std::nullopt);
    return detail::read_edge_list(lines, source);
}

[[nodiscard]] inline csr_graph read_edge_list(const std::string& path) {
    std::ifstream in = detail::open_input(path);
    return read_edge_list(in, path);
}

// ------------------------------------------------------------------------------ matrices

struct banded_params {
    std::uint32_t rows = 65536;
    /// Non-zeros at columns r − half_bandwidth … r + half_bandwidth (clipped).
    std::uint32_t half_bandwidth = 4;
    std::uint64_t seed = 1;
};

/// A square banded matrix with values uniform in [-1, 1).
[[nodiscard]] inline csr_matrix make_banded_matrix(const banded_params& p) {
    constexpr std::string_view component = "memsub::workload::simt::make_banded_matrix";
    detail::require_matrix_dimension(component, "rows", p.rows);
    memsub::require(p.half_bandwidth < p.rows, component, "half_bandwidth", p.half_bandwidth,
                    "must be < rows");
    xoshiro256ss rng(p.seed);
    csr_matrix m;
    m.rows = m.cols = p.rows;
    m.row_offsets.assign(std::size_t{p.rows} + 1, 0);
    for (std::uint32_t r = 0; r < p.rows; ++r) {
        const std::uint32_t lo = r > p.half_bandwidth ? r - p.half_bandwidth : 0;
        const std::uint32_t hi = std::min(p.rows - 1, r + p.half_bandwidth);
        for (std::uint32_t c = lo; c <= hi; ++c) {
            m.columns.push_back(c);
            m.values.push_back(static_cast<float>(rng.uniform() * 2.0 - 1.0));
        }
        m.row_offsets[r + 1] = static_cast<std::uint32_t>(m.columns.size());
    }
    return m;
}

struct power_law_params {
    std::uint32_t rows = 65536;
    std::uint32_t cols = 65536;
    /// Row lengths follow Zipf(length_exponent) over 1..max_row_length.
    std::uint32_t max_row_length = 1024;
    double length_exponent = 1.6;
    /// Column popularity follows Zipf(column_exponent) (hot columns of x), scattered over the
    /// columns by a fixed permutation.
    double column_exponent = 0.8;
    std::uint64_t seed = 1;
};

/// A matrix with power-law row lengths and skewed column popularity (web / social matrices).
[[nodiscard]] inline csr_matrix make_power_law_matrix(const power_law_params& p) {
    constexpr std::string_view component = "memsub::workload::simt::make_power_law_matrix";
    detail::require_matrix_dimension(component, "rows", p.rows);
    detail::require_matrix_dimension(component, "cols", p.cols);
    memsub::require(p.max_row_length >= 1 && p.max_row_length <= p.cols, component,
                    "max_row_length", p.max_row_length, "must be in 1..cols");
    xoshiro256ss rng(p.seed);
    zipf_distribution lengths(p.max_row_length, p.length_exponent);
    zipf_distribution popularity(p.cols, p.column_exponent);
    const std::vector<std::uint32_t> perm = detail::shuffled_ids(p.cols, rng);
    std::vector<detail::coo_entry> entries;
    for (std::uint32_t r = 0; r < p.rows; ++r) {
        const auto len = static_cast<std::uint32_t>(lengths(rng));
        for (std::uint32_t k = 0; k < len; ++k)
            entries.push_back(
                {r, perm[popularity(rng) - 1], static_cast<float>(rng.uniform() * 2.0 - 1.0)});
    }
    csr_matrix m;
    m.rows = p.rows;
    m.cols = p.cols;
    detail::build_csr(p.rows, entries, m.row_offsets, m.columns, &m.values);
    return m;
}

struct uniform_matrix_params {
    std::uint32_t rows = 65536;
    std::uint32_t cols = 65536;
    /// Every row holds exactly this many non-zeros, at distinct columns drawn uniformly.
    std::uint32_t nonzeros_per_row = 16;
    std::uint64_t seed = 1;
};

/// A matrix whose every row has `nonzeros_per_row` distinct columns, each k-subset of the columns
/// equally likely (no locality: the other extreme from the banded matrix), values uniform in
/// [-1, 1). The same params give the same matrix.
[[nodiscard]] inline csr_matrix make_uniform_matrix(const uniform_matrix_params& p) {
    constexpr std::string_view component = "memsub::workload::simt::make_uniform_matrix";
    detail::require_matrix_dimension(component, "rows", p.rows);
    detail::require_matrix_dimension(component, "cols", p.cols);
    memsub::require(p.nonzeros_per_row >= 1 && p.nonzeros_per_row <= p.cols, component,
                    "nonzeros_per_row", p.nonzeros_per_row, "must be in 1..cols");
    detail::require_csr_size(component, "nonzeros_per_row", p.nonzeros_per_row,
                             std::uint64_t{p.rows} * p.nonzeros_per_row);
    xoshiro256ss rng(p.seed);
    std::vector<detail::coo_entry> entries;
    entries.reserve(std::size_t{p.rows} * p.nonzeros_per_row);
    // taken_in[c] == r + 1: row r already holds column c (one array for all rows, O(1) checks).
    std::vector<std::uint32_t> taken_in(p.cols, 0);
    std::vector<std::uint32_t> row_columns;
    row_columns.reserve(p.nonzeros_per_row);
    for (std::uint32_t r = 0; r < p.rows; ++r) {
        row_columns.clear();
        // Floyd: for j in cols − k .. cols − 1, take a uniform t in 0..j, or j if t is taken.
        for (std::uint32_t j = p.cols - p.nonzeros_per_row; j < p.cols; ++j) {
            auto t = static_cast<std::uint32_t>(rng.below(std::uint64_t{j} + 1));
            if (taken_in[t] == r + 1) t = j;
            taken_in[t] = r + 1;
            row_columns.push_back(t);
        }
        std::sort(row_columns.begin(), row_columns.end());
        for (const std::uint32_t c : row_columns)
            entries.push_back({r, c, static_cast<float>(rng.uniform() * 2.0 - 1.0)});
    }
    csr_matrix m;
    m.rows = p.rows;
    m.cols = p.cols;
    detail::build_csr(p.rows, entries, m.row_offsets, m.columns, &m.values);
    return m;
}

struct laplacian_params {
    /// Grid points per row of the grid (x) and rows of the grid (y): an (nx·ny)² matrix.
    std::uint32_t nx = 256;
    std::uint32_t ny = 256;
};

/// The 5-point 2-D Laplacian on an nx × ny grid with Dirichlet boundaries: grid point (x, y) is
/// row and column y·nx + x, with 4 on the diagonal and −1 at each grid neighbour (x ± 1, y ± 1
/// inside the grid): 5·nx·ny − 2·nx − 2·ny non-zeros; an interior row sums to 0. Deterministic.
[[nodiscard]] inline csr_matrix make_laplacian_matrix(const laplacian_params& p) {
    constexpr std::string_view component = "memsub::workload::simt::make_laplacian_matrix";
    memsub::require(p.nx >= 1, component, "nx", p.nx, "must be >= 1");
    memsub::require(p.ny >= 1, component, "ny", p.ny, "must be >= 1");
    memsub::require(std::uint64_t{p.nx} * p.ny <= (1u << 26), component, "ny", p.ny,
                    "times nx must be <= 2^26 grid points (rows)");
    const std::uint32_t n = p.nx * p.ny;
    std::vector<detail::coo_entry> entries;
    entries.reserve(5 * std::size_t{n});
    for (std::uint32_t i = 0; i < n; ++i) entries.push_back({i, i, 4.0f});
    detail::for_each_grid_neighbour(p.nx, p.ny, [&](std::uint32_t i, std::uint32_t j) {
        entries.push_back({i, j, -1.0f});
    });
    csr_matrix m;
    m.rows = m.cols = n;
    detail::build_csr(n, entries, m.row_offsets, m.columns, &m.values);
    return m;
}

namespace detail {

/// Reads a Matrix Market coordinate file from `lines`; `size_line` receives the number of its
/// size line (read_graph names it when the matrix is not square).
inline csr_matrix read_matrix_market(numbered_lines& lines, std::string_view source,
                                     std::uint64_t& size_line) {
    using pk = input_error::position_kind;
    std::string line;
    std::uint64_t number = 0;
    const auto fail = [&](std::string problem) {
        throw input_error(source, pk::line_number, number, problem);
    };
    if (!lines.next(line)) {
        number = 1;
        fail("empty file: expected a '%%MatrixMarket matrix coordinate ...' banner");
    }
    number = 1;
    std::string_view banner[5];
    if (split_fields(line, banner, 5) != 5 || lower(banner[0]) != "%%matrixmarket")
        fail("expected a '%%MatrixMarket matrix coordinate <field> <symmetry>' banner");
    if (lower(banner[1]) != "matrix") fail("object must be 'matrix'");
    if (lower(banner[2]) != "coordinate")
        fail("format '" + std::string(banner[2]) + "' is not supported (only 'coordinate')");
    const std::string field = lower(banner[3]);
    if (field != "real" && field != "integer" && field != "pattern")
        fail("field '" + std::string(banner[3]) + "' is not supported (real, integer or pattern)");
    const std::string symmetry = lower(banner[4]);
    if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
        fail("symmetry '" + std::string(banner[4]) +
             "' is not supported (general, symmetric or skew-symmetric)");
    const bool pattern = field == "pattern";

    std::uint64_t rows = 0, cols = 0, declared = 0;
    bool have_size = false;
    std::vector<coo_entry> entries;
    std::uint64_t read_entries = 0;
    while (lines.next(line)) {
        number = lines.number();
        std::string_view f[4];
        const std::size_t k = split_fields(line, f, 4);
        if (k == 0 || f[0][0] == '%') continue;
        if (!have_size) {
            if (k < 3) fail("expected the size line 'rows cols entries'");
            rows = parse_index(f[0], source, number, "rows");
            cols = parse_index(f[1], source, number, "cols");
            declared = parse_index(f[2], source, number, "entries");
            if (rows == 0 || cols == 0 || rows > (1u << 26) || cols > (1u << 26))
                fail("rows and cols must be in 1..2^26");
            if ((symmetry != "general") && rows != cols) fail("a symmetric matrix must be square");
            have_size = true;
            size_line = number;
            entries.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(declared, 1u << 24)));
            continue;
        }
        if (read_entries == declared)
            fail("more entries than the " + std::to_string(declared) + " the size line declares");
        if (k < (pattern ? 2u : 3u))
            fail(pattern ? "expected an entry 'i j'" : "expected an entry 'i j value'");
        const std::uint64_t i = parse_index(f[0], source, number, "row index");
        const std::uint64_t j = parse_index(f[1], source, number, "column index");
        if (i < 1 || i > rows)
            fail("row index " + std::to_string(i) + " is outside 1.." + std::to_string(rows));
        if (j < 1 || j > cols)
            fail("column index " + std::to_string(j) + " is outside 1.." + std::to_string(cols));
        const float v = pattern ? 1.0f : parse_value(f[2], source, number);
        const auto r = static_cast<std::uint32_t>(i - 1), c = static_cast<std::uint32_t>(j - 1);
        entries.push_back({r, c, v});
        if (symmetry != "general" && r != c)
            entries.push_back({c, r, symmetry == "skew-symmetric" ? -v : v});
        ++read_entries;
    }
    number = lines.number();
    if (lines.bad()) fail("read error");
    if (!have_size) fail("missing the size line 'rows cols entries'");
    if (read_entries != declared)
        fail("the file ends after " + std::to_string(read_entries) +
             " entries; the size line declares " + std::to_string(declared));
    csr_matrix m;
    m.rows = static_cast<std::uint32_t>(rows);
    m.cols = static_cast<std::uint32_t>(cols);
    build_csr(m.rows, entries, m.row_offsets, m.columns, &m.values);
    return m;
}

} // namespace detail

/// Reads a Matrix Market coordinate file from `in`; `source` names it in errors.
[[nodiscard]] inline csr_matrix read_matrix_market(std::istream& in, std::string_view source) {
    detail::numbered_lines lines(in, std::nullopt);
    std::uint64_t size_line = 0;
    return detail::read_matrix_market(lines, source, size_line);
}

[[nodiscard]] inline csr_matrix read_matrix_market(const std::string& path) {
    std::ifstream in = detail::open_input(path);
    return read_matrix_market(in, path);
}

// ------------------------------------------------------------------------------ graph files

/// The graph whose adjacency matrix is `m` (square): an edge u → v for every stored entry
/// (u + 1, v + 1) of the file, whatever its value (an explicit zero is stored, so it is an
/// edge); a symmetric or skew-symmetric file's mirrored entries give both directions, and
/// diagonal entries are self-loops (kept, as an edge list's are).
[[nodiscard]] inline csr_graph adjacency_graph(const csr_matrix& m) {
    memsub::require(m.rows == m.cols, "memsub::workload::simt::adjacency_graph", "cols", m.cols,
                    "must equal rows (an adjacency matrix is square)");
    csr_graph g;
    g.vertices = m.rows;
    g.row_offsets = m.row_offsets;
    g.columns = m.columns;
    return g;
}

/// How `read_graph` read a graph file.
enum class graph_file_format : std::uint8_t { edge_list, matrix_market };

/// Reads a graph from `in`: a Matrix Market file (detected by its "%%MatrixMarket" banner on the
/// first line) as an adjacency matrix (adjacency_graph; it must be square), anything else as an
/// edge list. `format`, when given, receives which it was. `source` names the input in errors.
[[nodiscard]] inline csr_graph read_graph(std::istream& in, std::string_view source,
                                          graph_file_format* format = nullptr) {
    std::optional<std::string> first;
    if (std::string line; std::getline(in, line)) first = std::move(line);
    const bool matrix = first && detail::is_matrix_market_banner(*first);
    if (format) *format = matrix ? graph_file_format::matrix_market : graph_file_format::edge_list;
    detail::numbered_lines lines(in, std::move(first));
    if (!matrix) return detail::read_edge_list(lines, source);
    std::uint64_t size_line = 0;
    const csr_matrix m = detail::read_matrix_market(lines, source, size_line);
    if (m.rows != m.cols)
        throw input_error(source, input_error::position_kind::line_number, size_line,
                          "a " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                              " matrix is not a graph's adjacency matrix: it must be square");
    return adjacency_graph(m);
}

[[nodiscard]] inline csr_graph read_graph(const std::string& path,
                                          graph_file_format* format = nullptr) {
    std::ifstream in = detail::open_input(path);
    return read_graph(in, path, format);
}

} // namespace memsub::workload::simt
