// memsub — seeded synthetic reference streams: zipf, loop, scan, and weighted mixes of them.
//
// These are the built-in default workloads of the examples and benchmarks, and property-test
// inputs. Every stream is a small value type that produces `memsub::access` records one at a
// time (no allocation while generating), fully determined by its seed.
//
// Zipf sampling uses rejection-inversion (W. Hörmann, G. Derflinger, "Rejection-inversion to
// generate variates from monotone discrete distributions", ACM TOMACS 6(3), 1996): O(1) per
// sample for any exponent s > 0 and any number of elements, no tables.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>

namespace memsub::workload {

/// Zipf(s) over ranks 1..n: P(k) ∝ k^−s.
class zipf_distribution {
public:
    zipf_distribution(std::uint64_t n, double exponent) : n_(n), s_(exponent) {
        memsub::require(n >= 1, "memsub::workload::zipf_distribution", "n", n, "must be >= 1");
        if (!(exponent > 0.0 && exponent < 100.0))
            throw config_error("memsub::workload::zipf_distribution", "exponent",
                               std::to_string(exponent), "must be in (0, 100)");
        h_integral_x1_ = h_integral(1.5) - 1.0;
        h_integral_n_ = h_integral(static_cast<double>(n_) + 0.5);
        squeeze_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
    }

    /// A rank in 1..n.
    template <class Rng>
    std::uint64_t operator()(Rng& rng) noexcept {
        for (;;) {
            const double u = h_integral_n_ + rng.uniform() * (h_integral_x1_ - h_integral_n_);
            const double x = h_integral_inverse(u);
            double kd = std::floor(x + 0.5);
            if (kd < 1.0) kd = 1.0;
            if (kd > static_cast<double>(n_)) kd = static_cast<double>(n_);
            if (kd - x <= squeeze_ || u >= h_integral(kd + 0.5) - h(kd))
                return static_cast<std::uint64_t>(kd);
        }
    }

    [[nodiscard]] std::uint64_t size() const noexcept { return n_; }
    [[nodiscard]] double exponent() const noexcept { return s_; }

private:
    // H(x) = ∫ t^−s dt, written with expm1/log1p so s → 1 stays accurate.
    [[nodiscard]] double h_integral(double x) const noexcept {
        const double log_x = std::log(x);
        return helper2((1.0 - s_) * log_x) * log_x;
    }
    [[nodiscard]] double h(double x) const noexcept { return std::exp(-s_ * std::log(x)); }
    [[nodiscard]] double h_integral_inverse(double x) const noexcept {
        double t = x * (1.0 - s_);
        if (t < -1.0) t = -1.0; // guards rounding at the left edge
        return std::exp(helper1(t) * x);
    }
    static double helper1(double x) noexcept { // log1p(x)/x
        return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x / 3.0);
    }
    static double helper2(double x) noexcept { // expm1(x)/x
        return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0);
    }

    std::uint64_t n_;
    double s_;
    double h_integral_x1_ = 0, h_integral_n_ = 0, squeeze_ = 0;
};

/// Common knobs of a stream.
struct stream_params {
    /// Distinct lines the stream touches (zipf, loop) — scans never repeat.
    std::uint64_t lines = 1 << 16;
    std::uint32_t line_bytes = 64;
    /// Fraction of accesses that are stores.
    double store_fraction = 0.2;
    /// First PC of the stream's instructions; each stream uses `pcs` consecutive 4-byte PCs.
    std::uint64_t pc_base = 0x400000;
    std::uint32_t pcs = 4;
    /// Salt of the line-address scrambler: streams with different salts touch disjoint lines.
    std::uint64_t salt = 0;
    std::uint64_t seed = 1;
};

namespace detail {
/// Spreads rank/position k of a stream over a 42-bit line-address space (so popular lines do
/// not all fall into a few sets), distinct per salt.
[[nodiscard]] constexpr std::uint64_t scatter_line(std::uint64_t k, std::uint64_t salt) noexcept {
    return mix64(k ^ (salt * 0x9e3779b97f4a7c15ULL)) & ((std::uint64_t{1} << 42) - 1);
}

template <class Derived>
class stream_base {
public:
    explicit stream_base(const stream_params& p) : p_(p), rng_(p.seed) { detail_validate(p); }
    memsub::access next() noexcept {
        const std::uint64_t k = static_cast<Derived*>(this)->next_index();
        memsub::access a;
        a.address = byte_address{scatter_line(k, p_.salt) * p_.line_bytes};
        a.pc = p_.pc_base + 4 * (k % p_.pcs);
        a.kind = rng_.uniform() < p_.store_fraction ? access_kind::store : access_kind::load;
        return a;
    }
    [[nodiscard]] const stream_params& params() const noexcept { return p_; }

protected:
    static void detail_validate(const stream_params& p) {
        require(p.lines >= 1, "memsub::workload stream", "lines", p.lines, "must be >= 1");
        require(p.line_bytes >= 1, "memsub::workload stream", "line_bytes", p.line_bytes,
                "must be >= 1");
        require(p.pcs >= 1, "memsub::workload stream", "pcs", p.pcs, "must be >= 1");
    }
    stream_params p_;
    xoshiro256ss rng_;
};
} // namespace detail

/// Independent references whose popularity follows Zipf(exponent) over `lines` lines.
class zipf_stream : public detail::stream_base<zipf_stream> {
public:
    zipf_stream(const stream_params& p, double exponent)
        : stream_base(p)
        , zipf_(p.lines, exponent) {}
    std::uint64_t next_index() noexcept { return zipf_(rng_) - 1; }

private:
    zipf_distribution zipf_;
};

/// Cyclic sweep over `lines` lines: 0, 1, …, lines−1, 0, 1, … (thrashes LRU when larger than
/// the cache).
class loop_stream : public detail::stream_base<loop_stream> {
public:
    explicit loop_stream(const stream_params& p) : stream_base(p) {}
    std::uint64_t next_index() noexcept {
        const std::uint64_t k = pos_;
        pos_ = pos_ + 1 == p_.lines ? 0 : pos_ + 1;
        return k;
    }

private:
    std::uint64_t pos_ = 0;
};

/// A scan: every reference is to a line never touched before (streaming data).
class scan_stream : public detail::stream_base<scan_stream> {
public:
    explicit scan_stream(const stream_params& p) : stream_base(p) {}
    std::uint64_t next_index() noexcept { return pos_++; }

private:
    std::uint64_t pos_ = 0;
};

/// The explorer's built-in default: a seeded mix of a zipf stream (hot set), a loop slightly
/// larger than the cache (thrashes LRU), and a scan (pollutes), interleaved at random with the
/// given weights. Each stream has its own PCs, so PC-based predictors can tell them apart.
class mixed_stream {
public:
    struct params {
        std::uint64_t cache_lines = 32768; ///< capacity of the cache under study, in lines
        std::uint32_t line_bytes = 64;
        double zipf_weight = 0.55;
        double loop_weight = 0.30;
        double scan_weight = 0.15;
        double zipf_exponent = 0.9;
        /// Zipf footprint and loop length relative to the cache capacity.
        double zipf_footprint = 4.0;
        double loop_footprint = 1.25;
        double store_fraction = 0.2;
        std::uint64_t seed = 2026;
    };

    explicit mixed_stream(const params& p)
        : p_(validated(p))
        , pick_(p.seed ^ 0x5eed)
        , zipf_(stream_params{.lines = scaled(p.cache_lines, p.zipf_footprint),
                              .line_bytes = p.line_bytes,
                              .store_fraction = p.store_fraction,
                              .pc_base = 0x401000,
                              .pcs = 8,
                              .salt = 1,
                              .seed = p.seed + 1},
                p.zipf_exponent)
        , loop_(stream_params{.lines = scaled(p.cache_lines, p.loop_footprint),
                              .line_bytes = p.line_bytes,
                              .store_fraction = p.store_fraction,
                              .pc_base = 0x402000,
                              .pcs = 2,
                              .salt = 2,
                              .seed = p.seed + 2})
        , scan_(stream_params{.lines = 1,
                              .line_bytes = p.line_bytes,
                              .store_fraction = p.store_fraction,
                              .pc_base = 0x403000,
                              .pcs = 1,
                              .salt = 3,
                              .seed = p.seed + 3}) {
        const double total = p.zipf_weight + p.loop_weight + p.scan_weight;
        zipf_cut_ = p.zipf_weight / total;
        loop_cut_ = (p.zipf_weight + p.loop_weight) / total;
    }

    memsub::access next() noexcept {
        const double u = pick_.uniform();
        if (u < zipf_cut_) return zipf_.next();
        if (u < loop_cut_) return loop_.next();
        return scan_.next();
    }

    [[nodiscard]] const params& parameters() const noexcept { return p_; }

private:
    static const params& validated(const params& p) {
        constexpr std::string_view c = "memsub::workload::mixed_stream";
        memsub::require(p.cache_lines >= 1, c, "cache_lines", p.cache_lines, "must be >= 1");
        if (!(p.zipf_weight >= 0 && p.loop_weight >= 0 && p.scan_weight >= 0 &&
              p.zipf_weight + p.loop_weight + p.scan_weight > 0))
            throw config_error(c, "weights", "negative or all zero",
                               "must be >= 0 with a positive sum");
        if (!(p.zipf_footprint > 0 && p.loop_footprint > 0))
            throw config_error(c, "footprint", "<= 0", "must be > 0");
        return p;
    }
    static std::uint64_t scaled(std::uint64_t lines, double factor) noexcept {
        const double v = static_cast<double>(lines) * factor;
        return v < 1.0 ? 1 : static_cast<std::uint64_t>(v);
    }

    params p_;
    xoshiro256ss pick_;
    zipf_stream zipf_;
    loop_stream loop_;
    scan_stream scan_;
    double zipf_cut_ = 0, loop_cut_ = 0;
};

} // namespace memsub::workload
