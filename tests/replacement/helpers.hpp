// Shared helpers of the replacement tests: running line streams through memsub's engine.
#pragma once

#include <cstdint>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/access.hpp>
#include <memsub/replacement/next_use.hpp>

namespace repl_test {

inline constexpr std::uint32_t line_bytes = 64;

inline memsub::access line_access(std::uint64_t line, std::uint64_t pc = 0) {
    memsub::access a{};
    a.address = memsub::byte_address{line * line_bytes};
    a.pc = pc;
    return a;
}

/// A stream of line numbers (and optional PCs) as accesses with next-use hints filled.
inline std::vector<memsub::access> make_stream(const std::vector<std::uint64_t>& lines,
                                               const std::vector<std::uint64_t>& pcs = {}) {
    std::vector<memsub::access> s;
    s.reserve(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i)
        s.push_back(line_access(lines[i], pcs.empty() ? 0 : pcs[i]));
    memsub::replacement::annotate_next_use(s, line_bytes);
    return s;
}

struct outcome {
    bool hit = false;
    bool filled = false;
    bool evicted = false;
    std::uint64_t evicted_line = 0;
    friend bool operator==(const outcome&, const outcome&) = default;
};

template <class Cache>
std::vector<outcome> run(Cache& c, const std::vector<memsub::access>& stream) {
    std::vector<outcome> out;
    out.reserve(stream.size());
    for (const auto& a : stream) {
        const auto r = c.access(a);
        outcome o{.hit = r.hit, .filled = r.filled()};
        if (!r.evictions.empty()) {
            o.evicted = true;
            o.evicted_line = r.evictions[0].address.value / line_bytes;
        }
        out.push_back(o);
    }
    return out;
}

inline std::uint64_t misses(const std::vector<outcome>& v) {
    std::uint64_t m = 0;
    for (const auto& o : v) m += o.hit ? 0 : 1;
    return m;
}

inline std::uint64_t hits(const std::vector<outcome>& v) {
    return v.size() - misses(v);
}

} // namespace repl_test
