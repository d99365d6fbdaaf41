// Choosing the replacement policy by name at run time (a command-line argument, a config file)
// with replacement::runtime_choice: one cache type holds any of the listed policies, built by
// the name the policy reports. An unknown name throws memsub::config_error once, at
// construction, listing the names there are.
//
//   policy_by_name            LRU, SRRIP and DRRIP in turn
//   policy_by_name drrip      DRRIP only
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/replacement/drrip.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/runtime_choice.hpp>
#include <memsub/replacement/srrip.hpp>
#include <memsub/workload/synthetic.hpp>

#include <fmt/core.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace memsub::replacement;
using choice = runtime_choice<lru, srrip, drrip>;

/// Miss ratio of the built-in mix through a 1 MiB 16-way cache running the policy `name`.
double miss_ratio(const std::string& name) {
    const auto shape = memsub::geometry::from_capacity(1024 * 1024, 16, 64);
    choice::params p{.name = name};
    // Each alternative keeps its own params: here SRRIP runs with 3-bit RRPVs (default 2).
    std::get<srrip::params>(p.alternatives).rrpv_bits = 3;
    memsub::cache::set_associative_cache<choice> llc(shape, p);
    memsub::workload::mixed_stream stream(memsub::workload::mixed_stream::params{
        .cache_lines = shape.sets * shape.ways, .line_bytes = shape.line_bytes, .seed = 7});
    for (int i = 0; i < 500'000; ++i) llc.access(stream.next());
    return static_cast<double>(llc.stats().misses()) / static_cast<double>(llc.stats().accesses());
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> names{"lru", "srrip", "drrip"};
    if (argc > 1) names.assign(argv + 1, argv + argc);
    try {
        for (const auto& name : names) {
            const double ratio = miss_ratio(name);
            fmt::print("{:<8} miss ratio {:.2f}%\n", name, 100.0 * ratio);
            if (!(ratio > 0.0 && ratio < 1.0)) return 1; // a mix with reuse and new lines
        }
    } catch (const memsub::config_error& e) { // e.g. an unknown name
        fmt::print(stderr, "policy_by_name: {}\n", e.what());
        return 2;
    }
}
