// Bloom filter: no false negatives, the false-positive rate of theory, fixed storage.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/filter/bloom_filter.hpp>

using memsub::filter::bloom_filter;

namespace {
// Keys: consecutive line addresses (far from random-looking on purpose: runs of neighbouring lines
// are what a cache evicts).
std::uint64_t key(std::uint64_t i) {
    return 0x10000 + i;
}
} // namespace

TEST_CASE("bloom filter: every inserted key is found (no false negatives)") {
    bloom_filter f({.entries = 5000, .bits_per_entry = 10, .hashes = 7});
    for (std::uint64_t i = 0; i < 5000; ++i) f.insert(key(i));
    for (std::uint64_t i = 0; i < 5000; ++i) REQUIRE(f.contains(key(i)));
    CHECK(f.inserted() == 5000);
}

TEST_CASE("bloom filter: 10 bits/entry, k = 7, full: false positives 0.8-1.2 % and within "
          "0.1 pp of (1 - e^(-k/c))^k over 1 M probes") {
    constexpr std::uint64_t n = 5461; // one stage of ReMAP-16 on a 1 MB 16-way LLC (E/3)
    bloom_filter f({.entries = n, .bits_per_entry = 10, .hashes = 7});
    CHECK(f.storage_bits() == n * 10);
    for (std::uint64_t i = 0; i < n; ++i) f.insert(key(i));
    std::uint64_t fp = 0;
    constexpr std::uint64_t probes = 1'000'000;
    for (std::uint64_t i = 0; i < probes; ++i) fp += f.contains(key(n + i)) ? 1 : 0; // never in
    const double rate = 100.0 * static_cast<double>(fp) / probes;
    const double theory = 100.0 * std::pow(1.0 - std::exp(-7.0 / 10.0), 7.0); // 0.819 %
    MESSAGE("false-positive rate " << rate << " %, theory " << theory << " %");
    CHECK(theory == doctest::Approx(0.819).epsilon(0.002));
    CHECK(rate >= 0.8);
    CHECK(rate <= 1.2);
    CHECK(std::abs(rate - theory) <= 0.1);
    // Random 64-bit keys too (not only a run of consecutive lines).
    std::uint64_t st = 7;
    std::uint64_t fp_random = 0;
    for (std::uint64_t i = 0; i < probes; ++i)
        fp_random += f.contains((memsub::splitmix64(st) | (1ull << 63))) ? 1 : 0;
    const double rate_random = 100.0 * static_cast<double>(fp_random) / probes;
    MESSAGE("random probes: " << rate_random << " %");
    CHECK(std::abs(rate_random - theory) <= 0.1);
}

TEST_CASE("bloom filter: fewer bits per entry, more false positives (monotone in c)") {
    double last = 1.0;
    for (std::uint32_t c : {4u, 6u, 8u, 12u}) {
        const auto k = static_cast<std::uint32_t>(std::lround(c * std::log(2.0)));
        bloom_filter f({.entries = 4000, .bits_per_entry = c, .hashes = k});
        for (std::uint64_t i = 0; i < 4000; ++i) f.insert(key(i));
        std::uint64_t fp = 0;
        for (std::uint64_t i = 0; i < 200'000; ++i) fp += f.contains(key(10'000 + i)) ? 1 : 0;
        const double rate = static_cast<double>(fp) / 200'000;
        const double theory = std::pow(1.0 - std::exp(-double(k) / c), double(k));
        INFO("c = " << c << " k = " << k);
        CHECK(rate == doctest::Approx(theory).epsilon(0.15));
        CHECK(rate < last);
        last = rate;
    }
}

TEST_CASE("bloom filter: clear() empties it and keeps its size") {
    bloom_filter f({.entries = 100, .bits_per_entry = 10, .hashes = 7});
    for (std::uint64_t i = 0; i < 100; ++i) f.insert(key(i));
    CHECK(f.bits_set() > 0);
    f.clear();
    CHECK(f.bits_set() == 0);
    CHECK(f.inserted() == 0);
    CHECK(f.storage_bits() == 1000);
    for (std::uint64_t i = 0; i < 100; ++i) CHECK_FALSE(f.contains(key(i)));
}

TEST_CASE("bloom filter: bad parameters throw config_error naming them") {
    auto param = [](bloom_filter::params p) -> std::string {
        try {
            bloom_filter f(p);
        } catch (const memsub::config_error& e) {
            CHECK(e.component() == "memsub::filter::bloom_filter");
            return e.parameter();
        }
        return "<none>";
    };
    CHECK(param({.entries = 0}) == "entries");
    CHECK(param({.bits_per_entry = 0}) == "bits_per_entry");
    CHECK(param({.bits_per_entry = 65}) == "bits_per_entry");
    CHECK(param({.hashes = 0}) == "hashes");
    CHECK(param({.hashes = 33}) == "hashes");
    CHECK(param({.entries = std::uint64_t{1} << 30, .bits_per_entry = 10}) == "entries");
    CHECK(param({}) == "<none>");
}
