// memsub — inputs of the irregular SIMT kernels: CSR graphs and CSR sparse matrices, generated
// from a seed (R-MAT graphs; banded and power-law matrices) or read from a file the user gives
// (an edge list; a Matrix Market coordinate file).
//
// R-MAT: D. Chakrabarti, Y. Zhan, C. Faloutsos, "R-MAT: A Recursive Model for Graph Mining",
// SDM 2004 — each edge picks one quadrant of the adjacency matrix per level with probabilities
// a, b, c, d (defaults 0.57, 0.19, 0.19, 0.05, Graph500's).
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
    memsub::detail::require(p.scale >= 1 && p.scale <= 26, component, "scale", p.scale,
                            "must be in 1..26");
    memsub::detail::require(p.edge_factor >= 1 && p.edge_factor <= 64, component, "edge_factor",
                            p.edge_factor, "must be in 1..64");
    if (!(p.a > 0 && p.b >= 0 && p.c >= 0 && p.a + p.b + p.c < 1.0))
        throw config_error(component, "a, b, c", "", "must be a > 0, b, c >= 0, a + b + c < 1");
    const std::uint32_t n = 1u << p.scale;
    const std::uint64_t draws = std::uint64_t{n} * p.edge_factor;
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
    std::vector<std::uint32_t> perm(n);
    for (std::uint32_t i = 0; i < n; ++i) perm[i] = i;
    for (std::uint32_t i = n - 1; i > 0; --i)
        std::swap(perm[i], perm[static_cast<std::uint32_t>(rng.below(i + 1))]);
    for (auto& e : edges) e = {perm[e.row], perm[e.col], 1.0f};
    csr_graph g;
    g.vertices = n;
    detail::build_csr(n, edges, g.row_offsets, g.columns, nullptr);
    return g;
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
    memsub::detail::require(p.rows >= 1 && p.rows <= (1u << 26), component, "rows", p.rows,
                            "must be in 1..2^26");
    memsub::detail::require(p.half_bandwidth < p.rows, component, "half_bandwidth",
                            p.half_bandwidth, "must be < rows");
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
    memsub::detail::require(p.rows >= 1 && p.rows <= (1u << 26), component, "rows", p.rows,
                            "must be in 1..2^26");
    memsub::detail::require(p.cols >= 1 && p.cols <= (1u << 26), component, "cols", p.cols,
                            "must be in 1..2^26");
    memsub::detail::require(p.max_row_length >= 1 && p.max_row_length <= p.cols, component,
                            "max_row_length", p.max_row_length, "must be in 1..cols");
    xoshiro256ss rng(p.seed);
    zipf_distribution lengths(p.max_row_length, p.length_exponent);
    zipf_distribution popularity(p.cols, p.column_exponent);
    std::vector<std::uint32_t> perm(p.cols);
    for (std::uint32_t i = 0; i < p.cols; ++i) perm[i] = i;
    for (std::uint32_t i = p.cols - 1; i > 0; --i)
        std::swap(perm[i], perm[static_cast<std::uint32_t>(rng.below(i + 1))]);
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
    memsub::detail::require(m.rows == m.cols, "memsub::workload::simt::adjacency_graph", "cols",
                            m.cols, "must equal rows (an adjacency matrix is square)");
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
