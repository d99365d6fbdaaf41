#include <doctest/doctest.h>

#include <memsub/workload/synthetic.hpp>

#include <cmath>
#include <set>
#include <vector>

using namespace memsub;

namespace {
// Exact Zipf probabilities by summation (the independent reference).
std::vector<double> zipf_pmf(std::uint64_t n, double s) {
    std::vector<double> p(n);
    double norm = 0;
    for (std::uint64_t k = 1; k <= n; ++k) norm += std::pow(static_cast<double>(k), -s);
    for (std::uint64_t k = 1; k <= n; ++k) p[k - 1] = std::pow(static_cast<double>(k), -s) / norm;
    return p;
}
} // namespace

TEST_CASE("zipf sampler matches the exact pmf (several exponents, including s = 1)") {
    for (double s : {0.6, 0.99, 1.0, 1.2, 2.0}) {
        CAPTURE(s);
        const std::uint64_t n = 50;
        workload::zipf_distribution z(n, s);
        xoshiro256ss rng(11);
        std::vector<double> count(n, 0);
        const int samples = 400000;
        int out_of_range = 0;
        for (int i = 0; i < samples; ++i) {
            const auto k = z(rng);
            if (k < 1 || k > n) {
                ++out_of_range;
                continue;
            }
            count[k - 1] += 1;
        }
        REQUIRE(out_of_range == 0);
        const auto p = zipf_pmf(n, s);
        // Pearson chi-square with 49 degrees of freedom: the 99.9% quantile is about 85.4.
        double chi2 = 0;
        for (std::uint64_t k = 0; k < n; ++k) {
            const double e = p[k] * samples;
            chi2 += (count[k] - e) * (count[k] - e) / e;
        }
        CHECK(chi2 < 85.4);
    }
}

TEST_CASE("zipf rejects bad parameters") {
    CHECK_THROWS_AS(workload::zipf_distribution(0, 1.0), config_error);
    CHECK_THROWS_AS(workload::zipf_distribution(10, 0.0), config_error);
    CHECK_THROWS_AS(workload::zipf_distribution(10, -1.0), config_error);
}

TEST_CASE("loop and scan streams") {
    workload::loop_stream loop({.lines = 3, .store_fraction = 0, .seed = 1});
    const auto a = loop.next().address, b = loop.next().address, c = loop.next().address;
    CHECK(loop.next().address == a);
    CHECK(loop.next().address == b);
    CHECK(a != b);
    CHECK(b != c);
    workload::scan_stream scan({.lines = 1, .store_fraction = 1.0});
    std::set<std::uint64_t> seen;
    for (int i = 0; i < 10000; ++i) {
        const auto x = scan.next();
        if (x.kind != access_kind::store || x.address.value % 64 != 0) FAIL("bad scan access ", i);
        seen.insert(x.address.value);
    }
    CHECK(seen.size() == 10000);
}

TEST_CASE("mixed stream is reproducible and respects its weights") {
    workload::mixed_stream::params p{.cache_lines = 1024, .seed = 5};
    workload::mixed_stream x(p), y(p);
    int zipf = 0, loop = 0, scan = 0;
    for (int i = 0; i < 100000; ++i) {
        const auto a = x.next();
        if (a.address != y.next().address) FAIL("streams with one seed diverged at ", i);
        if (a.pc >= 0x403000)
            ++scan;
        else if (a.pc >= 0x402000)
            ++loop;
        else
            ++zipf;
    }
    CHECK(std::abs(zipf / 1e5 - 0.55) < 0.01);
    CHECK(std::abs(loop / 1e5 - 0.30) < 0.01);
    CHECK(std::abs(scan / 1e5 - 0.15) < 0.01);
    workload::mixed_stream z({.cache_lines = 1024, .seed = 6});
    int same = 0;
    workload::mixed_stream x2(p);
    for (int i = 0; i < 1000; ++i) same += z.next().address == x2.next().address;
    CHECK(same < 900);
}
