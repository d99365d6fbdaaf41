// memsub — a log-linear latency histogram (HDR-histogram style) with fixed storage.
//
// Values below 2^linear_bits are counted exactly; every power-of-two range above is split into
// 2^sub_bits equal buckets, so a recorded value is known to within a relative error of
// 2^-sub_bits (3.1 % with the default 5 sub-bucket bits) at any magnitude. The buckets cover
// every 64-bit value: there is no overflow bucket and no value is clamped (a percentile is
// only capped at the exact recorded maximum, which it cannot exceed anyway). Percentiles are
// answered from the buckets (the bucket midpoint, clamped to the exact min/max), mean exactly
// from a running sum. Recording is O(1), noexcept, and never allocates.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <memsub/config.hpp>

namespace memsub::memory {

class latency_histogram {
public:
    static constexpr std::uint32_t sub_bits = 5;
    static constexpr std::uint32_t linear_bits = sub_bits + 1;
    static constexpr std::uint64_t linear_limit = std::uint64_t{1} << linear_bits;
    static constexpr std::size_t bucket_count =
        linear_limit + (64 - linear_bits) * (std::size_t{1} << sub_bits);

    /// Bucket of a value.
    [[nodiscard]] static constexpr std::size_t bucket_of(std::uint64_t v) noexcept {
        // A value of bit width w > linear_bits is in range k = w − 1 at sub-bucket
        // (v >> (k − sub_bits)) − 2^sub_bits: with s = k − sub_bits, bucket
        // linear_limit + (k − linear_bits)·2^sub_bits + (v >> s) − 2^sub_bits = s·2^sub_bits + (v
        // >> s). With s = 0 that is v itself: the linear buckets. No branch.
        const auto w = static_cast<std::uint32_t>(std::bit_width(v | 1)); // same for v ≥ 1
        const std::uint32_t s = std::max(w, linear_bits) - linear_bits;
        return (std::size_t{s} << sub_bits) + static_cast<std::size_t>(v >> s);
    }
    /// Smallest value of a bucket.
    [[nodiscard]] static constexpr std::uint64_t bucket_low(std::size_t b) noexcept {
        if (b < linear_limit) return b;
        const std::size_t r = b - linear_limit;
        const std::uint32_t k = static_cast<std::uint32_t>(r >> sub_bits) + linear_bits;
        const std::uint64_t sub = r & ((std::size_t{1} << sub_bits) - 1);
        return (std::uint64_t{1} << k) | (sub << (k - sub_bits));
    }
    /// Number of values a bucket covers.
    [[nodiscard]] static constexpr std::uint64_t bucket_width(std::size_t b) noexcept {
        if (b < linear_limit) return 1;
        const std::uint32_t k =
            static_cast<std::uint32_t>((b - linear_limit) >> sub_bits) + linear_bits;
        return std::uint64_t{1} << (k - sub_bits);
    }

    void record(std::uint64_t v) noexcept {
        ++counts_[bucket_of(v)];
        ++count_;
        sum_ += static_cast<double>(v);
        min_ = std::min(min_, v);
        max_ = std::max(max_, v);
    }

    void merge(const latency_histogram& o) noexcept {
        for (std::size_t i = 0; i < bucket_count; ++i) counts_[i] += o.counts_[i];
        count_ += o.count_;
        sum_ += o.sum_;
        min_ = std::min(min_, o.min_);
        max_ = std::max(max_, o.max_);
    }

    void reset() noexcept { *this = latency_histogram{}; }

    [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
    [[nodiscard]] double mean() const noexcept {
        return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_);
    }
    [[nodiscard]] std::uint64_t min() const noexcept { return count_ == 0 ? 0 : min_; }
    [[nodiscard]] std::uint64_t max() const noexcept { return max_; }

    /// The value at quantile q ∈ [0, 1] (nearest-rank: the smallest recorded value with at
    /// least ⌈q·n⌉ values ≤ it), to within the bucket resolution. 0 when empty.
    [[nodiscard]] std::uint64_t percentile(double q) const noexcept {
        if (count_ == 0) return 0;
        q = std::clamp(q, 0.0, 1.0);
        auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
        rank = std::clamp<std::uint64_t>(rank, 1, count_);
        std::uint64_t seen = 0;
        for (std::size_t b = 0; b < bucket_count; ++b) {
            seen += counts_[b];
            if (seen >= rank) {
                const std::uint64_t mid = bucket_low(b) + (bucket_width(b) - 1) / 2;
                return std::clamp(mid, min_, max_);
            }
        }
        return max_;
    }

    /// Count in one bucket (for CDF output).
    [[nodiscard]] std::uint64_t bucket_count_at(std::size_t b) const noexcept {
        return b < bucket_count ? counts_[b] : 0;
    }

private:
    std::array<std::uint64_t, bucket_count> counts_{};
    std::uint64_t count_ = 0;
    double sum_ = 0.0;
    std::uint64_t min_ = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t max_ = 0;
};

} // namespace memsub::memory
