// memsub::explorer — the tools' result files: one table of rows with named columns, written as CSV
// and as JSON from the same rows, so a program's CSV and JSON carry the same fields by
// construction. Every program's table has the status columns `partial` (the row does not cover the
// whole run: a stop signal or an input error cut it short) and `error` (the input error, if any),
// so a truncated or unreadable input is visible in every file, not only on stderr. Part of the
// explorer module (memsub::explorer; needs {fmt}).
//
// Result schema: CSV has one header line (every column, in first-use order) and one line per
// row; an absent value is an empty cell, booleans are 1/0, text is quoted (RFC 4180) when it
// holds a comma, a quote or a line break. JSON is
//   {"program": NAME, "columns": [COLUMN, ...], "rows": [{COLUMN: VALUE, ...}, ...]}
// with every column in every row, null for an absent or non-finite value, true/false for
// booleans.
//
//   result_table t("explorer");
//   auto& row = t.add_row();
//   row.text("trace", "app.lackey").number("misses", 42).optional_number("mpki", std::nullopt);
//   t.write_csv("out.csv");   // header from the columns in first-use order; empty cell = null
//   t.write_json("out.json"); // {"program": "explorer", "rows": [{"trace": "app.lackey", ...}]}
#pragma once

#include <fmt/core.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace memsub::explorer {

/// `s` as a JSON string body (quotes, backslashes and control characters escaped).
inline std::string json_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
            else
                out += c;
        }
    }
    return out;
}

/// `s` as a CSV field: quoted (and inner quotes doubled) when it holds a comma, a quote or a
/// line break, as RFC 4180 asks; as it is otherwise.
inline std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

class result_table {
public:
    /// One row: values by column name, in the order they were set.
    class row {
    public:
        /// A text value (a JSON string).
        row& text(std::string_view column, std::string_view value) {
            return set(column, cell{std::string(value), kind::text});
        }
        /// An optional text value (null when absent).
        row& optional_text(std::string_view column, const std::optional<std::string>& value) {
            return value ? text(column, *value) : null(column);
        }
        /// A number, formatted by fmt's `spec` ("{}" unless given); a floating-point value
        /// that is not finite has no JSON form and is written as null.
        template <class T>
        row& number(std::string_view column, const T& value, std::string_view spec = "{}") {
            if constexpr (std::is_floating_point_v<T>)
                if (!std::isfinite(value)) return null(column);
            return set(column, cell{fmt::format(fmt::runtime(spec), value), kind::number});
        }
        /// An optional number (null when absent).
        template <class T>
        row& optional_number(std::string_view column, const std::optional<T>& value,
                             std::string_view spec = "{}") {
            return value ? number(column, *value, spec) : null(column);
        }
        /// true / false in JSON, 1 / 0 in CSV.
        row& boolean(std::string_view column, bool value) {
            return set(column, cell{value ? "1" : "0", kind::boolean});
        }
        /// No value: an empty CSV cell, JSON null.
        row& null(std::string_view column) { return set(column, cell{}); }

    private:
        friend class result_table;
        enum class kind : std::uint8_t { number, text, boolean };
        struct cell {
            std::optional<std::string> value; ///< as CSV writes it (text: unquoted)
            kind what = kind::number;
        };
        row& set(std::string_view column, cell c) {
            for (auto& [name, v] : cells_)
                if (name == column) {
                    v = std::move(c);
                    return *this;
                }
            cells_.emplace_back(std::string(column), std::move(c));
            return *this;
        }
        [[nodiscard]] const cell* find(std::string_view column) const {
            for (const auto& [name, v] : cells_)
                if (name == column) return &v;
            return nullptr;
        }
        std::vector<std::pair<std::string, cell>> cells_;
    };

    explicit result_table(std::string program) : program_(std::move(program)) {}

    row& add_row() { return rows_.emplace_back(); }
    [[nodiscard]] std::size_t size() const noexcept { return rows_.size(); }

    /// Every column any row set, in first-use order (a row without it has null there).
    [[nodiscard]] std::vector<std::string> columns() const {
        std::vector<std::string> out;
        for (const auto& r : rows_)
            for (const auto& [name, v] : r.cells_)
                if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
        return out;
    }

    /// CSV: a header of every column, then one line per row (booleans as 1/0, null empty).
    void write_csv(const std::string& file) const {
        std::ofstream out(file);
        if (!out) throw std::runtime_error("cannot write " + file);
        const auto cols = columns();
        for (std::size_t i = 0; i < cols.size(); ++i)
            fmt::print(out, "{}{}", i ? "," : "", cols[i]);
        fmt::print(out, "\n");
        for (const auto& r : rows_) {
            for (std::size_t i = 0; i < cols.size(); ++i) {
                const row::cell* c = r.find(cols[i]);
                std::string v;
                if (c != nullptr && c->value)
                    v = c->what == row::kind::text ? csv_field(*c->value) : *c->value;
                fmt::print(out, "{}{}", i ? "," : "", v);
            }
            fmt::print(out, "\n");
        }
        if (!out.flush()) throw std::runtime_error("error writing " + file);
    }

    /// JSON: {"program": ..., "columns": [...], "rows": [{column: value, ...}, ...]}, every row
    /// with every column (null where it has none).
    void write_json(const std::string& file) const {
        std::ofstream out(file);
        if (!out) throw std::runtime_error("cannot write " + file);
        const auto cols = columns();
        fmt::print(out, "{{\n  \"program\": \"{}\",\n  \"columns\": [", json_escape(program_));
        for (std::size_t i = 0; i < cols.size(); ++i)
            fmt::print(out, "{}\"{}\"", i ? ", " : "", json_escape(cols[i]));
        fmt::print(out, "],\n  \"rows\": [\n");
        for (std::size_t k = 0; k < rows_.size(); ++k) {
            fmt::print(out, "    {{");
            for (std::size_t i = 0; i < cols.size(); ++i) {
                const row::cell* c = rows_[k].find(cols[i]);
                std::string v = "null";
                if (c != nullptr && c->value) {
                    if (c->what == row::kind::text)
                        v = "\"" + json_escape(*c->value) + "\"";
                    else if (c->what == row::kind::boolean)
                        v = *c->value == "1" ? "true" : "false";
                    else
                        v = *c->value;
                }
                fmt::print(out, "{}\"{}\": {}", i ? ", " : "", json_escape(cols[i]), v);
            }
            fmt::print(out, "}}{}\n", k + 1 < rows_.size() ? "," : "");
        }
        fmt::print(out, "  ]\n}}\n");
        if (!out.flush()) throw std::runtime_error("error writing " + file);
    }

private:
    std::string program_;
    std::vector<row> rows_;
};

} // namespace memsub::explorer
