// What the explorer tests read back from a tool: its CSV (RFC 4180 quoting, as result_table
// writes a field that holds a comma or a quote), any file whole, and its stdout (POSIX).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace explorer_test {

/// `file`'s whole text ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The fields of one CSV line: a quoted field may hold commas, and "" inside it is one quote.
inline std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
            out.back() += line[++i];
        else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            out.emplace_back();
        else
            out.back() += c;
    }
    return out;
}

/// One CSV row: column name (from the header) -> field.
using csv_row = std::map<std::string, std::string>;

/// A CSV text's rows, in order.
inline std::vector<csv_row> csv_table(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);
    const auto header = csv_fields(line);
    std::vector<csv_row> rows;
    while (std::getline(in, line)) {
        const auto fields = csv_fields(line);
        auto& row = rows.emplace_back();
        for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i)
            row[header[i]] = fields[i];
    }
    return rows;
}

/// A CSV file's rows, in order (none when it cannot be read).
inline std::vector<csv_row> csv_table_of(const std::filesystem::path& file) {
    return csv_table(read_text(file));
}

/// Sends stdout to `file` while it lives (restored should the run throw).
class stdout_to {
public:
    explicit stdout_to(const std::filesystem::path& file) {
        std::fflush(stdout);
        saved_ = dup(1);
        const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        close(fd);
    }
    stdout_to(const stdout_to&) = delete;
    stdout_to& operator=(const stdout_to&) = delete;
    ~stdout_to() {
        std::fflush(stdout);
        dup2(saved_, 1);
        close(saved_);
    }

private:
    int saved_ = -1;
};

} // namespace explorer_test
