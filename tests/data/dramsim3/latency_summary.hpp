// Read-latency figures as both sides of the DRAMSim3 comparison print them
// (dramsim3_reference.cpp and memsub_speed.cpp; C++17, the reference tool's standard): mean and
// exact nearest-rank p50 / p95.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

struct latency_summary {
    double mean = 0;
    std::uint64_t p50 = 0, p95 = 0;
};

/// The figures of `lat` (not empty; sorted in place).
inline latency_summary summarize_latencies(std::vector<std::uint64_t>& lat) {
    std::sort(lat.begin(), lat.end());
    const auto rank = [&](double q) {
        const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(lat.size())));
        return lat[std::clamp<std::size_t>(k, 1, lat.size()) - 1];
    };
    latency_summary s;
    for (auto v : lat) s.mean += static_cast<double>(v);
    s.mean /= static_cast<double>(lat.size());
    s.p50 = rank(0.5);
    s.p95 = rank(0.95);
    return s;
}
