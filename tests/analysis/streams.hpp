// Shared inputs and independent reference models of the miss-ratio-curve tests: synthetic
// streams (zipf, loops, scans, mixes, line-crossing references), the real traces of tests/data,
// and one simulation of memsub's own caches per geometry.
#pragma once

#include "../support/data_dir.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/fully_associative.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/next_use.hpp>
#include <memsub/replacement/opt.hpp>
#include <memsub/trace/open.hpp>
#include <memsub/workload/synthetic.hpp>

namespace mrc_test {

inline std::filesystem::path data(const std::string& leaf) {
    return std::filesystem::path(memsub_test::data_dir()) / leaf;
}

/// Every record of a trace file, read through memsub::trace.
inline std::vector<memsub::access> read_trace(const std::string& leaf) {
    auto reader = memsub::trace::open_trace(data(leaf));
    std::vector<memsub::access> s;
    memsub::trace::for_each_access(reader, [&](const memsub::access& a) { s.push_back(a); });
    return s;
}

enum class shape { zipf, loop, scan, mix, crossing };

/// A synthetic stream of `n` references over about `lines` lines of 64 bytes.
inline std::vector<memsub::access> synthetic(shape kind, std::uint64_t n, std::uint64_t lines,
                                             std::uint64_t seed) {
    using namespace memsub::workload;
    std::vector<memsub::access> s;
    s.reserve(n);
    const stream_params p{.lines = lines, .line_bytes = 64, .salt = seed, .seed = seed};
    switch (kind) {
    case shape::zipf: {
        zipf_stream z(p, 0.9);
        for (std::uint64_t i = 0; i < n; ++i) s.push_back(z.next());
        break;
    }
    case shape::loop: {
        loop_stream l(p);
        for (std::uint64_t i = 0; i < n; ++i) s.push_back(l.next());
        break;
    }
    case shape::scan: { // a scan over a small reused region: reuse at one fixed distance
        scan_stream sc(p);
        loop_stream l(stream_params{.lines = lines / 4 + 1, .salt = seed + 7, .seed = seed});
        for (std::uint64_t i = 0; i < n; ++i) s.push_back(i % 3 == 0 ? sc.next() : l.next());
        break;
    }
    case shape::mix: {
        mixed_stream m(mixed_stream::params{.cache_lines = lines / 4 + 1, .seed = seed});
        for (std::uint64_t i = 0; i < n; ++i) s.push_back(m.next());
        break;
    }
    case shape::crossing: { // byte-granular references of 1..16 bytes, some crossing a line
        memsub::xoshiro256ss rng(seed);
        zipf_stream z(p, 0.8);
        for (std::uint64_t i = 0; i < n; ++i) {
            memsub::access a = z.next();
            a.address = memsub::byte_address{a.address.value + rng() % 64};
            a.size = static_cast<std::uint32_t>(1 + rng() % 16);
            a.read_modify_write = rng() % 8 == 0;
            s.push_back(a);
        }
        break;
    }
    }
    return s;
}

/// memsub's set-associative LRU cache of one geometry, counted as the explorer counts.
inline std::uint64_t lru_misses(const std::vector<memsub::access>& s, std::uint32_t sets,
                                std::uint32_t ways, std::uint32_t line_bytes = 64) {
    memsub::cache::set_associative_cache<memsub::replacement::lru> c(
        memsub::geometry{.sets = sets, .ways = ways, .line_bytes = line_bytes});
    c.access_all_spanning(s, [](const memsub::access&, const auto&) noexcept {});
    return c.stats().misses();
}

/// memsub's fully associative cache of one capacity, counted as the explorer counts.
template <class Order>
std::uint64_t fa_misses(const std::vector<memsub::access>& s, std::uint64_t capacity,
                        std::uint32_t line_bytes = 64) {
    memsub::cache::fully_associative_cache<Order> c(capacity, line_bytes);
    c.access_all_spanning(s, [](const memsub::access&, const auto&) noexcept {});
    return c.stats().misses();
}

/// The explorer's OPT stream: one access per line piece, each with its next use among the
/// pieces, and piece_first[i] = piece i starts a reference.
struct piece_stream {
    std::vector<memsub::access> pieces;
    std::vector<bool> first;
};
inline piece_stream pieces_of(const std::vector<memsub::access>& s, std::uint32_t line_bytes) {
    piece_stream p;
    const std::uint32_t shift = memsub::log2_exact(line_bytes);
    for (const auto& a : s)
        memsub::for_each_line_piece(a, shift, [&](const memsub::access& piece, bool first) {
            p.pieces.push_back(piece);
            p.first.push_back(first);
        });
    memsub::replacement::annotate_next_use(p.pieces, line_bytes);
    return p;
}

/// Misses of `cache` over a piece stream, one per reference at most (the explorer's OPT rows).
template <class Cache>
std::uint64_t piece_misses(Cache& cache, const piece_stream& p) {
    std::uint64_t misses = 0;
    bool missed = false;
    for (std::size_t i = 0; i < p.pieces.size(); ++i) {
        if (p.first[i]) {
            misses += missed;
            missed = false;
        }
        missed |= !cache.access(p.pieces[i]).hit;
    }
    return misses + missed;
}

} // namespace mrc_test
