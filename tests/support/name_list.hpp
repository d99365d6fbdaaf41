// A test-only helper: the C interface's comma-separated name lists (policy names, settings,
// GPU L1 names) split into their items; a list read with its NUL ends there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace memsub_test {

/// "a,b,c" → {"a", "b", "c"}; empty items and anything from a NUL on are left out.
inline std::vector<std::string> split_name_list(std::string_view joined) {
    joined = joined.substr(0, joined.find('\0'));
    std::vector<std::string> out;
    while (!joined.empty()) {
        const std::size_t comma = joined.find(',');
        if (comma != 0) out.emplace_back(joined.substr(0, comma));
        if (comma == std::string_view::npos) break;
        joined.remove_prefix(comma + 1);
    }
    return out;
}

} // namespace memsub_test
