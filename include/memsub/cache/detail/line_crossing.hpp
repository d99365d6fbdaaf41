// memsub — references whose bytes cross line boundaries, counted as valgrind's cachegrind counts
// them (cg_sim.c, `cachesim_ref_is_miss`): one access of the reference's kind, every line it
// touches accessed in address order, and at most one miss, counted when any of those lines
// missed. The engine behind basic_cache::access_spanning and access_all_spanning: it runs each
// line's piece through the cache's own `access` / `access_all`, then corrects the per-kind
// counts. A friend of basic_cache; it uses the cache's layout (the line size) and its folded
// per-kind counters, nothing else of its internals.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include <memsub/cache/access_result.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>

namespace memsub::cache::detail {

struct line_crossing {
    /// The reference's bytes lie in one line (size 0 asks for the whole line).
    template <class Cache>
    [[nodiscard]] static bool within_one_line(const Cache& c, const memsub::access& a) noexcept {
        const std::uint64_t line = std::uint64_t{1} << c.layout_.line_shift;
        return a.size == 0 || (a.address.value & (line - 1)) + a.size <= line;
    }

    /// access_spanning's reference over two or more lines, out of line so that the one-line
    /// path (nearly every reference) inlines `access` once.
    template <class Cache, class Sink>
    [[gnu::noinline]] static bool access_crossing(
        Cache& c, const memsub::access& a,
        Sink& sink) noexcept(noexcept(sink(std::declval<const typename Cache::result_type&>()))) {
        bool missed = false;
        for_each_line_piece(a, c.layout_.line_shift, [&](const memsub::access& piece, bool first) {
            const typename Cache::result_type r = c.access(piece);
            if (!first) { // the same reference: one access, and one miss at most
                kind_counters& counts = c.folded_counters_of(a.kind);
                --counts.accesses;
                if (!r.hit && missed) --counts.misses;
            }
            missed |= !r.hit;
            sink(r);
        });
        return missed;
    }

    /// basic_cache::access_all_spanning. Everything runs through one `access_all` call site
    /// (runs of one-line references, and a line-crossing reference as its pieces, then its
    /// counts corrected), so the engine's access path is inlined once: with several call sites
    /// GCC kept it out of line and the explorer's LRU ran much slower.
    template <class Cache, class Sink>
    static void
    access_all_spanning(Cache& c, std::span<const memsub::access> batch, Sink& sink) noexcept(
        noexcept(sink(batch[0], std::declval<const typename Cache::result_type&>()))) {
        const std::size_t n = batch.size();
        const std::uint64_t line = std::uint64_t{1} << c.layout_.line_shift;
        std::array<memsub::access, 8> pieces;
        std::size_t i = 0;         // the next reference to look at
        memsub::access rest{};     // what is left of a line-crossing reference
        std::uint64_t left = 0;    // its bytes not yet run (0: none)
        kind_counters before{};    // its kind's counters before it ran
        bool crossing_ran = false; // a line-crossing reference's pieces ran: correct counts
        while (i < n || left != 0) {
            std::span<const memsub::access> segment;
            if (left == 0) {
                std::size_t j = i;
                while (j < n && within_one_line(c, batch[j])) ++j;
                if (j > i) {
                    segment = batch.subspan(i, j - i);
                    i = j;
                } else { // batch[i] crosses a line boundary: its pieces follow
                    rest = batch[i++];
                    left = rest.size;
                    before = c.folded_counters_of(rest.kind);
                }
            }
            if (left != 0) {
                std::size_t m = 0;
                for (; m < pieces.size() && left != 0; ++m) {
                    const std::uint64_t in_line = line - (rest.address.value & (line - 1));
                    rest.size = static_cast<std::uint32_t>(std::min(left, in_line));
                    pieces[m] = rest;
                    left -= rest.size;
                    if (rest.address.value > ~std::uint64_t{0} - in_line) left = 0; // top
                    rest.address = byte_address{rest.address.value + in_line};
                }
                segment = std::span<const memsub::access>(pieces.data(), m);
                crossing_ran = left == 0;
            }
            c.access_all(segment, sink);
            if (crossing_ran) { // one access, one miss when any line missed (cachegrind)
                kind_counters& counts = c.folded_counters_of(rest.kind);
                counts.misses = before.misses + (counts.misses != before.misses ? 1u : 0u);
                counts.accesses = before.accesses + 1;
                crossing_ran = false;
            }
        }
    }
};

} // namespace memsub::cache::detail
