// The C interface's cost: the same stream through the header-only cache a C++20 host builds
// (cache::set_associative_cache<host::policy_choice>, basic_cache::access_all) and through the
// C interface (memsub::host: memsub_cache_access_batch, and memsub_cache_access one record at a
// time), measured in alternating passes of the same run.
//
// Stream: 512 Ki accesses to a 2 MiB 16-way LLC of 64-byte lines (2048 sets): half of them to
// a hot 1 MiB, half over 8 MiB, a quarter stores, PCs from 64 sites. Both caches keep their
// state across passes (they see the same records in the same order).
// Counters:
//   * `accesses/s`: the C interface's rate;
//   * `x_header_only` = the header-only pass's time ÷ the C interface's on the same records
//     (target for the batch ≥ 0.8; 1 = no cost);
//   * `miss_ratio`: the C cache's misses ÷ accesses (the row fails if the header-only cache's
//     hit count differs).
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"

#include <cstdint>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/host/host_policies.hpp>
#include <memsub/host/memsub_host.h>

namespace {

namespace mc = memsub::cache;
using header_only_cache = mc::set_associative_cache<memsub::host::policy_choice>;

constexpr std::uint32_t sets = 2048, ways = 16, line_bytes = 64;
constexpr std::size_t stream_length = 512 * 1024;

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// The stream in both forms.
struct stream {
    std::vector<memsub::access> header_only;
    std::vector<memsub_access> c;
};

const stream& the_stream() {
    static const stream s = [] {
        stream out;
        memsub::xoshiro256ss rng(2026);
        constexpr std::uint64_t hot_lines = (1u << 20) / line_bytes;
        constexpr std::uint64_t all_lines = (8u << 20) / line_bytes;
        for (std::size_t i = 0; i < stream_length; ++i) {
            const std::uint64_t line =
                rng.below(2) == 0 ? rng.below(hot_lines) : hot_lines + rng.below(all_lines);
            memsub::access a;
            a.address = memsub::byte_address{line * line_bytes + 8 * rng.below(8)};
            a.kind = rng.below(4) == 0 ? memsub::access_kind::store : memsub::access_kind::load;
            a.size = 8;
            a.pc = 0x401000 + 16 * rng.below(64);
            out.header_only.push_back(a);
            memsub_access r{};
            r.address = a.address.value;
            r.pc = a.pc;
            r.size = a.size;
            r.kind = static_cast<std::uint8_t>(a.kind);
            out.c.push_back(r);
        }
        return out;
    }();
    return s;
}

struct cache_deleter {
    void operator()(memsub_cache* c) const noexcept { memsub_cache_destroy(c); }
};

std::unique_ptr<memsub_cache, cache_deleter> make_c_cache(const std::string& policy) {
    memsub_cache_config config{};
    config.sets = sets;
    config.ways = ways;
    config.line_bytes = line_bytes;
    memsub_cache* out = nullptr;
    if (memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, policy.c_str(), &config, &out, nullptr) !=
        MEMSUB_OK)
        return nullptr;
    return std::unique_ptr<memsub_cache, cache_deleter>(out);
}

/// One pass of the header-only cache; returns its hits.
std::uint64_t header_only_pass(header_only_cache& cache, const stream& s) {
    std::uint64_t hits = 0;
    cache.access_all(
        s.header_only,
        [&](const memsub::access&, const header_only_cache::result_type& r) { hits += r.hit; });
    return hits;
}

enum class c_path { batch, single };

/// One pass through the C interface; returns its hits.
std::uint64_t c_pass(memsub_cache* cache, const stream& s, c_path path) {
    if (path == c_path::batch) {
        std::uint64_t hits = 0;
        memsub_cache_access_batch(cache, s.c.data(), s.c.size(), &hits, nullptr);
        return hits;
    }
    std::uint64_t hits = 0;
    memsub_access_result r;
    for (const memsub_access& a : s.c) {
        memsub_cache_access(cache, &a, &r);
        hits += r.hit;
    }
    return hits;
}

void bm_host_abi(benchmark::State& state, const std::string& policy, c_path path) {
    const stream& s = the_stream();
    auto header_only = std::make_unique<header_only_cache>(
        memsub::geometry{.sets = sets, .ways = ways, .line_bytes = line_bytes},
        memsub::host::policy_choice::params{.name = policy});
    const auto c = make_c_cache(policy);
    if (!c) {
        state.SkipWithError("memsub_cache_create failed");
        return;
    }
    double t_c = 0, t_header_only = 0;
    std::uint64_t passes = 0, c_hits = 0, header_only_hits = 0;
    bool header_only_first = true;
    for (auto _ : state) {
        state.PauseTiming();
        if (header_only_first) {
            const double t0 = thread_cpu_seconds();
            header_only_hits += header_only_pass(*header_only, s);
            t_header_only += thread_cpu_seconds() - t0;
        }
        state.ResumeTiming();
        const double t0 = thread_cpu_seconds();
        c_hits += c_pass(c.get(), s, path);
        t_c += thread_cpu_seconds() - t0;
        state.PauseTiming();
        if (!header_only_first) {
            const double t1 = thread_cpu_seconds();
            header_only_hits += header_only_pass(*header_only, s);
            t_header_only += thread_cpu_seconds() - t1;
        }
        state.ResumeTiming();
        header_only_first = !header_only_first;
        ++passes;
    }
    if (c_hits != header_only_hits) {
        state.SkipWithError("the C interface's hits differ from the header-only cache's");
        return;
    }
    const double records = static_cast<double>(s.c.size() * passes);
    state.SetItemsProcessed(static_cast<std::int64_t>(records));
    state.counters["accesses/s"] = benchmark::Counter(records, benchmark::Counter::kIsRate);
    if (t_c > 0) state.counters["x_header_only"] = t_header_only / t_c;
    memsub_cache_stats stats{};
    memsub_cache_get_stats(c.get(), &stats);
    if (stats.accesses > 0)
        state.counters["miss_ratio"] =
            static_cast<double>(stats.misses) / static_cast<double>(stats.accesses);
}

} // namespace

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv, [] {
        for (const char* policy : {"lru", "srrip", "drrip", "ship"})
            benchmark::RegisterBenchmark((std::string("host_abi/batch/") + policy).c_str(),
                                         [p = std::string(policy)](benchmark::State& st) {
                                             bm_host_abi(st, p, c_path::batch);
                                         })
                ->Unit(benchmark::kMillisecond);
        for (const char* policy : {"lru", "srrip"})
            benchmark::RegisterBenchmark((std::string("host_abi/single/") + policy).c_str(),
                                         [p = std::string(policy)](benchmark::State& st) {
                                             bm_host_abi(st, p, c_path::single);
                                         })
                ->Unit(benchmark::kMillisecond);
    });
}
