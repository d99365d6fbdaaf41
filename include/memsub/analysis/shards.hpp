// memsub — SHARDS: an approximate fully associative LRU miss-ratio curve from a spatially
// hashed sample of the lines, in a small fraction of the time and memory of the exact curve.
//
// Citation: [SHARDS] §"SHARDS sampling algorithm" (fixed-rate sampling: a line is sampled iff
// hash(line) mod P < T, so every reference to a sampled line is kept and the sample is a uniform
// R = T/P share of the lines; stack distances among the sampled lines are scaled by 1/R. The
// fixed-size variant keeps at most S_max lines: when a new line would exceed it, the threshold T
// is lowered to the largest hash value in the set, the lines at or above it are evicted, R
// becomes T/P, and the histogram counts already recorded are rescaled by R_new/R_old) and
// §"experimental evaluation" (the adjustment: the difference between the expected N·R sampled
// references and the actual count is added to the smallest-distance bucket).
//
// Exactness: none — an estimate. Each sampled reference's distance d (among sampled lines) is
// counted at the capacity bucket ceil(d / R), so "misses in a cache of C lines" is the share of
// sampled weight in buckets above C (and cold). [SHARDS] (abstract) reports errors averaging
// below 0.01 on more than a hundred storage traces with sampling rates well below 1%. On a
// synthetic zipf(0.8) trace of 3M references over ~0.9M lines this implementation measures
// 0.003-0.022 at R = 0.01 across hash salts (the error is the sample's: whether a few of the
// hottest lines fall in it) and 0.0015-0.0045 at R = 0.1 (tests/analysis/shards_test.cpp holds it
// to those bounds). Counting: one reference = one access (reference_lines.hpp); a line-crossing
// reference is sampled when any of its lines is, at the largest distance among its sampled lines.
//
// Decision: the hash is MurmurHash3's 64-bit finaliser of the line address xor a salt, modulo
// P = 2^24 (any well-mixed hash gives the same spatial sampling; SplitMix64's finaliser, which
// the synthetic workloads use to scatter their lines, was avoided so that the sample cannot
// correlate with a workload's own layout). The salt lets a user average independent samples.
// Decision: the adjustment is on by default, in the fixed-size variant too, where the
// expected sample is N x R at the current R (every count is rescaled to it). The paper states it
// for fixed-rate sampling; without it the fixed-size curve was 3-10 times further from the exact
// one on zipf traces (the same hot-line sampling error it corrects at a fixed rate).
// Memory: the sampled lines' stack (stack_distance_lru.hpp: about 50-80 bytes each), plus for
// the fixed-size variant 16 bytes each in the eviction heap, plus 8 bytes per histogram bucket.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <memsub/analysis/detail/checks.hpp>
#include <memsub/analysis/reference_lines.hpp>
#include <memsub/analysis/stack_distance_lru.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>

namespace memsub::analysis {

class shards {
public:
    /// The hash modulus P.
    static constexpr std::uint64_t modulus = std::uint64_t{1} << 24;

    struct params {
        /// Line size in bytes (a power of two >= 4).
        std::uint32_t line_bytes = 64;
        /// The largest capacity (in lines of the whole trace) of the curve; >= 1.
        std::uint64_t max_capacity_lines = std::uint64_t{1} << 20;
        /// The sampling rate R (0 < R <= 1); the fixed-size variant starts from it.
        double rate = 0.01;
        /// S_max: 0 = fixed-rate sampling; otherwise at most this many lines are sampled.
        std::size_t max_sampled_lines = 0;
        /// Apply the adjustment (the expected sample count replaces the actual one).
        bool adjust = true;
        /// Salt of the sampling hash.
        std::uint64_t seed = 0;
    };

    explicit shards(const params& p)
        : line_shift_(validated(p))
        , bound_(p.max_capacity_lines)
        , threshold_(std::max<std::uint64_t>(
              1, static_cast<std::uint64_t>(std::llround(p.rate * static_cast<double>(modulus)))))
        , max_lines_(p.max_sampled_lines)
        , adjust_(p.adjust)
        , seed_(p.seed)
        , stack_(p.max_sampled_lines)
        , deepest_sampled_(bound_ * threshold_ / modulus)
        , histogram_(max_lines_ == 0 ? deepest_sampled_ + 2 : bound_ + 2, 0.0) {
        if (max_lines_ != 0) heap_.reserve(max_lines_ + 1);
    }

    /// One reference of one line.
    void access_line(line_address line) {
        ++accesses_;
        const std::uint64_t d = sample(line.value);
        if (d != not_sampled) record(d);
    }

    /// One reference (the explorer's rule for line-crossing references).
    void access(const memsub::access& a) {
        ++accesses_;
        std::uint64_t d = not_sampled;
        lines_of_reference(a, line_shift_, [&](std::uint64_t line) {
            const std::uint64_t dl = sample(line);
            if (dl != not_sampled) d = d == not_sampled ? dl : std::max(d, dl);
        });
        if (d != not_sampled) record(d);
    }

    /// access() for every reference. A reference within one line whose hash is not sampled
    /// (99 % of them at R = 0.01) costs a hash and a compare, inline.
    void access_all(std::span<const memsub::access> references) {
        for (const auto& a : references) {
            if (within_one_line(a, line_shift_) &&
                hash_of(a.address.value >> line_shift_) >= threshold_) [[likely]] {
                ++accesses_;
                continue;
            }
            access(a);
        }
    }

    /// access_line for every line of `lines` (line addresses), in order.
    void access_lines(std::span<const std::uint64_t> lines) {
        for (const std::uint64_t line : lines) {
            if (hash_of(line) >= threshold_) [[likely]] {
                ++accesses_;
                continue;
            }
            access_line(line_address{line});
        }
    }

    /// The line's sampling hash in 0 .. P-1: it is sampled while this is below threshold().
    [[nodiscard]] std::uint64_t hash_of(std::uint64_t line) const noexcept {
        std::uint64_t x = line ^ seed_; // MurmurHash3's 64-bit finaliser (fmix64)
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        x *= 0xc4ceb9fe1a85ec53ULL;
        x ^= x >> 33;
        return x & (modulus - 1);
    }

    /// References seen (sampled or not).
    [[nodiscard]] std::uint64_t accesses() const noexcept { return accesses_; }
    /// References to sampled lines.
    [[nodiscard]] std::uint64_t sampled_references() const noexcept { return sampled_; }
    /// The current sampling rate T / P.
    [[nodiscard]] double rate() const noexcept {
        return static_cast<double>(threshold_) / static_cast<double>(modulus);
    }
    [[nodiscard]] std::uint64_t threshold() const noexcept { return threshold_; }
    /// Lines in the sample now (<= max_sampled_lines in the fixed-size variant).
    [[nodiscard]] std::size_t sampled_lines() const noexcept { return stack_.size(); }
    [[nodiscard]] std::uint64_t max_capacity_lines() const noexcept { return bound_; }

    /// The estimated miss ratio of every capacity 0 .. max_capacity_lines (index c).
    [[nodiscard]] std::vector<double> miss_ratio_curve() const {
        std::vector<double> curve(bound_ + 1, 1.0);
        double total = weight_;
        // The adjustment: the expected sample minus the actual one is added at the smallest
        // distance, a hit at every capacity >= 1, so it changes only the total.
        if (adjust_) total = static_cast<double>(accesses_) * rate();
        if (total <= 0) return curve;
        double missing = cold_ + histogram_.back();
        if (max_lines_ != 0) { // counts by scaled distance
            for (std::uint64_t c = bound_; c > 0; --c) {
                curve[c] = std::clamp(missing / total, 0.0, 1.0);
                missing += histogram_[c];
            }
            return curve;
        }
        // Fixed rate: counts by sampled distance d, a miss in caches smaller than ceil(d / R).
        std::uint64_t d = deepest_sampled_;
        for (std::uint64_t c = bound_; c > 0; --c) {
            for (; d >= 1 && scaled(d) > c; --d) missing += histogram_[d];
            curve[c] = std::clamp(missing / total, 0.0, 1.0);
        }
        return curve;
    }

    /// The estimated misses of a cache of `capacity_lines` lines (the curve times accesses()).
    [[nodiscard]] double misses(std::uint64_t capacity_lines) const {
        memsub::require(capacity_lines <= bound_, "memsub::analysis::shards", "capacity_lines",
                        capacity_lines, "must be <= max_capacity_lines");
        return miss_ratio_curve()[capacity_lines] * static_cast<double>(accesses_);
    }

    /// Bytes held (sample stack, heap, histogram), by capacity.
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return stack_.memory_bytes() + heap_.capacity() * sizeof(heap_entry) +
               histogram_.capacity() * sizeof(double);
    }

private:
    static constexpr std::uint64_t not_sampled = 0; // distances are >= 1

    struct heap_entry {
        std::uint64_t hash;
        std::uint64_t line;
        friend bool operator<(const heap_entry& a, const heap_entry& b) noexcept {
            return a.hash < b.hash;
        }
    };

    static std::uint32_t validated(const params& p) {
        constexpr std::string_view c = "memsub::analysis::shards";
        const std::uint32_t shift = detail::checked_line_shift(c, p.line_bytes);
        require(p.max_capacity_lines >= 1 && p.max_capacity_lines < (std::uint64_t{1} << 32), c,
                "max_capacity_lines", p.max_capacity_lines, "must be in 1 .. 2^32 - 1");
        if (!(p.rate > 0.0 && p.rate <= 1.0))
            throw config_error(c, "rate", std::to_string(p.rate), "must be in (0, 1]");
        return shift;
    }

    /// The line's distance among the sampled lines (cold_distance if new to the sample), or
    /// not_sampled.
    std::uint64_t sample(std::uint64_t line) {
        const std::uint64_t h = hash_of(line);
        if (h >= threshold_) return not_sampled;
        const std::uint64_t d = stack_.touch(line);
        if (d == cold_distance && max_lines_ != 0) {
            heap_.push_back({h, line});
            std::push_heap(heap_.begin(), heap_.end());
            if (stack_.size() > max_lines_) lower_threshold();
        }
        return d;
    }

    /// The fixed-size variant: the largest hash in the sample becomes the threshold; the lines at
    /// or above it leave, and the counts recorded so far are rescaled to the new rate.
    void lower_threshold() {
        const std::uint64_t new_threshold = heap_.front().hash;
        while (!heap_.empty() && heap_.front().hash >= new_threshold) {
            stack_.erase(heap_.front().line);
            std::pop_heap(heap_.begin(), heap_.end());
            heap_.pop_back();
        }
        const double scale = static_cast<double>(new_threshold) / static_cast<double>(threshold_);
        for (double& count : histogram_) count *= scale;
        cold_ *= scale;
        weight_ *= scale;
        threshold_ = new_threshold;
    }

    /// The scaled distance ceil(d / R) = ceil(d * P / T): a miss in caches smaller than it.
    [[nodiscard]] std::uint64_t scaled(std::uint64_t d) const noexcept {
        return (d * modulus + threshold_ - 1) / threshold_;
    }

    void record(std::uint64_t d) noexcept {
        ++sampled_;
        weight_ += 1;
        if (d == cold_distance) {
            cold_ += 1;
            return;
        }
        if (max_lines_ == 0) { // R is fixed: scaled when the curve is read
            histogram_[std::min(d, deepest_sampled_ + 1)] += 1;
            return;
        }
        histogram_[std::min(scaled(d), bound_ + 1)] += 1;
    }

    std::uint32_t line_shift_;
    std::uint64_t bound_;
    std::uint64_t threshold_;
    std::size_t max_lines_;
    bool adjust_;
    std::uint64_t seed_;
    lru_distance_stack stack_;
    std::vector<heap_entry> heap_;
    std::uint64_t deepest_sampled_; // fixed rate: the largest sampled distance within the bound
    // Fixed rate: references per sampled distance (1 .. deepest_sampled_ + 1 = deeper), so the
    // histogram is R times the bound's size; fixed size: weighted references per scaled
    // distance (1 .. bound + 1), since R changes between references.
    std::vector<double> histogram_;
    double cold_ = 0, weight_ = 0;
    std::uint64_t accesses_ = 0, sampled_ = 0;
};

/// The mean absolute difference of two miss-ratio curves over their common points 1 .. n-1
/// (capacity 0, a miss for every access in both, is left out).
[[nodiscard]] inline double mean_absolute_error(std::span<const double> exact,
                                                std::span<const double> estimate) {
    const std::size_t n = std::min(exact.size(), estimate.size());
    if (n <= 1) return 0.0;
    double sum = 0;
    for (std::size_t c = 1; c < n; ++c) sum += std::abs(exact[c] - estimate[c]);
    return sum / static_cast<double>(n - 1);
}

/// Miss ratios of an exact curve of miss counts (stack_distance_lru::miss_curve()).
[[nodiscard]] inline std::vector<double> miss_ratios(std::span<const std::uint64_t> misses,
                                                     std::uint64_t accesses) {
    std::vector<double> r(misses.size(), 0.0);
    if (accesses == 0) return r;
    for (std::size_t c = 0; c < misses.size(); ++c)
        r[c] = static_cast<double>(misses[c]) / static_cast<double>(accesses);
    return r;
}

} // namespace memsub::analysis
