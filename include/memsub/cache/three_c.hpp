// memsub — the 3C miss classification: compulsory, capacity and conflict misses.
//
// Citation: Hill, "Aspects of Cache Memory and Instruction Buffer Performance", PhD thesis,
// UC Berkeley 1987, and Hill and Smith, IEEE TC 1989: a miss of the cache under study is
//   * compulsory if it is the first reference to its line (it misses in any cache);
//   * capacity if it is not compulsory and also misses in a fully associative LRU cache of the
//     same capacity and line size;
//   * conflict otherwise (the fully associative cache hits: the mapping to sets caused it).
// Hill's totals follow: compulsory + capacity = the fully associative LRU's misses, and
// conflict = the cache's misses − those, which can be negative for a policy that beats LRU. A
// per-access classification cannot be negative, so beside the three miss counts this class
// reports `fa_misses_hit` — accesses the cache hit while the fully associative LRU missed — and
// Hill's signed conflict count is conflict − fa_misses_hit (`hill_conflict()`).
//
// A reference that crosses a line boundary is one access over every line it touches, the rule
// of basic_cache::access_spanning (cachegrind's): the cache under study must count it so too.
// Feed every access of the stream, in order, with the cache's own outcome (`hit`): the
// classifier keeps its own fully associative LRU and the set of lines seen so far. Memory: the
// LRU is fixed at construction; the seen-line set grows with the stream's footprint (8 bytes per
// distinct line, in a table doubled when half full: amortised, not per access).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <memsub/cache/fully_associative.hpp>
#include <memsub/core/access.hpp>

namespace memsub::cache {

enum class miss_class : std::uint8_t { hit, compulsory, capacity, conflict };

struct three_c_counts {
    std::uint64_t accesses = 0;
    std::uint64_t compulsory = 0;
    std::uint64_t capacity = 0;
    std::uint64_t conflict = 0;
    /// Accesses the cache hit and the fully associative LRU of its capacity missed.
    std::uint64_t fa_misses_hit = 0;

    [[nodiscard]] constexpr std::uint64_t misses() const noexcept {
        return compulsory + capacity + conflict;
    }
    /// Hill's conflict misses: the cache's misses minus the fully associative LRU's (signed).
    [[nodiscard]] constexpr std::int64_t hill_conflict() const noexcept {
        return static_cast<std::int64_t>(conflict) - static_cast<std::int64_t>(fa_misses_hit);
    }
};

class three_c_classifier {
public:
    /// For a cache of `capacity_lines` lines of `line_bytes` bytes.
    three_c_classifier(std::uint64_t capacity_lines, std::uint32_t line_bytes)
        : fa_(capacity_lines, line_bytes)
        , line_shift_(static_cast<std::uint32_t>(std::countr_zero(line_bytes)))
        , seen_(1024, empty) {}

    /// Classifies access `a`, which the cache under study hit (`hit`) or missed.
    miss_class classify(const access& a, bool hit) {
        const reference ref = observe(a);
        count(counts_, ref, hit);
        if (hit) return miss_class::hit;
        if (ref.first) return miss_class::compulsory;
        return ref.fa_hit ? miss_class::conflict : miss_class::capacity;
    }

    /// The fully associative LRU's own outcome for the same stream, and the first-reference
    /// test, without a cache under study (what every cache of this capacity shares).
    struct reference {
        bool fa_hit = false;
        bool first = false;
    };
    /// A reference whose bytes cross a line boundary touches every line it covers, as in
    /// basic_cache::access_spanning (one access, at most one miss): the fully associative LRU
    /// hits it when every line hits, and it is a first reference when any of its lines is. So a
    /// one-set cache of the same capacity under LRU has no conflict misses, whatever the trace.
    reference observe(const access& a) {
        reference r;
        r.fa_hit = !fa_.access_spanning(a, [](const fa_result&) noexcept {});
        const std::uint64_t first_line = a.address.value >> line_shift_;
        std::uint64_t last_line = first_line;
        if (a.size > 1) {
            const std::uint64_t end = a.address.value + (a.size - 1);
            last_line =
                end < a.address.value ? ~std::uint64_t{0} >> line_shift_ : end >> line_shift_;
        }
        for (std::uint64_t l = first_line;; ++l) {
            r.first |= remember(l);
            if (l == last_line) break;
        }
        return r;
    }
    /// Counts one access of a cache whose outcome was `hit`, given observe()'s reference.
    static void count(three_c_counts& c, reference ref, bool hit) noexcept {
        ++c.accesses;
        if (hit)
            c.fa_misses_hit += !ref.fa_hit;
        else if (ref.first)
            ++c.compulsory;
        else if (!ref.fa_hit)
            ++c.capacity;
        else
            ++c.conflict;
    }

    [[nodiscard]] const three_c_counts& counts() const noexcept { return counts_; }
    [[nodiscard]] const fully_associative_cache<fa_lru>& fully_associative() const noexcept {
        return fa_;
    }
    /// Distinct lines seen so far.
    [[nodiscard]] std::uint64_t footprint_lines() const noexcept { return distinct_; }

private:
    static constexpr std::uint64_t empty = ~std::uint64_t{0}; // never a line address

    /// Adds `line` to the seen set; true if it was not there (its first reference).
    bool remember(std::uint64_t line) {
        if (2 * (distinct_ + 1) > seen_.size()) grow();
        const std::size_t mask = seen_.size() - 1;
        for (std::size_t i = hash(line) & mask;; i = (i + 1) & mask) {
            if (seen_[i] == line) return false;
            if (seen_[i] == empty) {
                seen_[i] = line;
                ++distinct_;
                return true;
            }
        }
    }
    void grow() {
        std::vector<std::uint64_t> old(seen_.size() * 2, empty);
        old.swap(seen_);
        const std::size_t mask = seen_.size() - 1;
        for (const std::uint64_t line : old) {
            if (line == empty) continue;
            std::size_t i = hash(line) & mask;
            while (seen_[i] != empty) i = (i + 1) & mask;
            seen_[i] = line;
        }
    }
    [[nodiscard]] static std::size_t hash(std::uint64_t line) noexcept {
        return static_cast<std::size_t>((line * 0x9e3779b97f4a7c15ULL) >> 20);
    }

    fully_associative_cache<fa_lru> fa_;
    std::uint32_t line_shift_;
    std::vector<std::uint64_t> seen_;
    std::uint64_t distinct_ = 0;
    three_c_counts counts_;
};

} // namespace memsub::cache
