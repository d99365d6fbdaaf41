// memsub — opt-in {fmt} formatters for memsub's vocabulary types and statistics.
//
// Include this header (and link fmt) to print memsub values directly:
//   fmt::print("{} -> {}\n", geometry, llc.stats());
// The library itself never includes it; only hosts and examples that want fmt do.
#pragma once

#include <fmt/format.h>

#include <memsub/cache/access_result.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

/// Strong indices print as their value; addresses in hex (`0x7ff000398`).
template <class Tag, class Rep>
struct fmt::formatter<memsub::strong_index<Tag, Rep>> : fmt::formatter<Rep> {
    template <class Ctx>
    auto format(memsub::strong_index<Tag, Rep> v, Ctx& ctx) const -> decltype(ctx.out()) {
        if constexpr (std::is_same_v<Tag, memsub::byte_address_tag> ||
                      std::is_same_v<Tag, memsub::line_address_tag>)
            return fmt::format_to(ctx.out(), "{:#x}", v.value);
        else
            return fmt::formatter<Rep>::format(v.value, ctx);
    }
};

template <>
struct fmt::formatter<memsub::access_kind> : fmt::formatter<fmt::string_view> {
    template <class Ctx>
    auto format(memsub::access_kind k, Ctx& ctx) const -> decltype(ctx.out()) {
        const auto s = memsub::to_string(k);
        return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
    }
};

/// `2048 sets x 16 ways x 64 B (2048 KiB)`, plus segments/tags when they differ from a line.
template <>
struct fmt::formatter<memsub::geometry> {
    constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
    template <class Ctx>
    auto format(const memsub::geometry& g, Ctx& ctx) const -> decltype(ctx.out()) {
        auto out = fmt::format_to(ctx.out(), "{} sets x {} ways x {} B ({} KiB)", g.sets, g.ways,
                                  g.line_bytes, g.capacity_bytes() / 1024);
        if (g.segment_size() != g.line_bytes || g.entries_per_set() != g.ways)
            out = fmt::format_to(out, ", {} B segments, {} tags/set", g.segment_size(),
                                 g.entries_per_set());
        return out;
    }
};

/// One line of the counters a cache keeps.
template <>
struct fmt::formatter<memsub::cache::cache_stats> {
    constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
    template <class Ctx>
    auto format(const memsub::cache::cache_stats& s, Ctx& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(),
                              "{} accesses, {} hits, {} misses ({:.2f}% miss), {} bypasses, "
                              "{} evictions, {} writebacks, {} B fetched, {} B written back",
                              s.accesses(), s.hits(), s.misses(), 100.0 * s.miss_ratio(),
                              s.bypasses(), s.evictions, s.writebacks, s.bytes_fetched,
                              s.bytes_written_back);
    }
};
