// The explorer's trace path end to end, against a plain program on the same file in the same run.
//
// The file: a libCacheSim oracleGeneral trace of 10 M records (the replacement benchmark's
// Zipf(0.9) stream over 256 Ki lines, seed 42), written once to $TMPDIR; or the file named by
// the environment variable MEMSUB_BENCH_TRACE (any oracleGeneral trace), records capped by
// MEMSUB_BENCH_RECORDS when set. LLC: 2048 sets x 16 ways x 64 B.
//
// Rows, each timed in wall-clock (real) time from opening the file to the last miss counted,
// interleaved pass by pass so every side sees the same machine load:
//   * explorer/lru: the explorer module's own path — `explore()`
//     (memsub/explorer/run_explorer.hpp) with `--no-opt --policies lru --quiet`: batch
//     decoding in place (trace::next_batch), chunks, memsub's cache with cachegrind-exact
//     counting (access_all_spanning);
//   * the plain programs, each an exact LRU (their misses must equal the explorer's, or the row
//     fails): `plain_read_all` reads the whole file into memory, then runs the plain
//     move-to-front loop over it (the definition of the plain program the speed target uses);
//     `plain_streaming` reads 1 MiB blocks and runs the same loop on each (what a competent
//     author would write for a long trace); `stamp_read_all` reads it all and runs the older
//     stamp-based reference.
// Counters on explorer/lru: `x_plain_read_all`, `x_plain_streaming`, `x_stamp_read_all` = that
// program's time ÷ the explorer's (above 1: the explorer is faster), `miss_ratio`, `records/s`.
// --benchmark_format=json and --benchmark_out work as in any Google Benchmark program.
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"

#include "baselines.hpp"
#include <memsub/explorer/run_explorer.hpp>

#include <memsub/replacement/lru.hpp>
#include <memsub/trace/writers.hpp>
#include <memsub/workload/synthetic.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace {

constexpr memsub::geometry shape{.sets = 2048, .ways = 16, .line_bytes = 64};
constexpr std::size_t record_bytes = 24;

/// The trace file; a generated one is removed at exit.
struct bench_trace {
    std::string path;
    bool generated = false;
    std::uint64_t records = 0;

    bench_trace() {
        std::uint64_t cap = 10'000'000;
        if (const char* r = std::getenv("MEMSUB_BENCH_RECORDS"))
            cap = std::strtoull(r, nullptr, 10);
        if (const char* p = std::getenv("MEMSUB_BENCH_TRACE")) {
            path = p;
            records = std::min<std::uint64_t>(cap, std::filesystem::file_size(path) / record_bytes);
            return;
        }
        const char* dir = std::getenv("TMPDIR");
        path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") +
               "/memsub_bench_explorer_path_" + std::to_string(::getpid()) + ".oracleGeneral";
        generated = true;
        records = cap;
        std::ofstream os(path, std::ios::binary);
        memsub::trace::oracle_general_writer w(os);
        memsub::workload::zipf_stream z(
            memsub::workload::stream_params{.lines = 256 * 1024, .store_fraction = 0.2, .seed = 42},
            0.9);
        for (std::uint64_t i = 0; i < records; ++i) {
            memsub::access a = z.next();
            a.size = 64; // one object = one line (size 0 records are skipped by the format)
            a.hints.cycle = i;
            w.write(a);
        }
    }
    ~bench_trace() {
        if (generated) std::remove(path.c_str());
    }
};

const bench_trace& trace() {
    static const bench_trace t;
    return t;
}

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::uint64_t obj_id_of(const unsigned char* record) {
    std::uint64_t id;
    std::memcpy(&id, record + 4, sizeof id); // little-endian host (x86-64)
    return id;
}

/// Reads the whole file (up to the record cap) into memory, then runs `Loop` over it; misses.
template <class Loop>
std::uint64_t read_all_then_loop() {
    const auto& t = trace();
    std::vector<unsigned char> bytes(t.records * record_bytes);
    std::FILE* f = std::fopen(t.path.c_str(), "rb");
    if (f == nullptr) return ~std::uint64_t{0};
    const std::size_t got = std::fread(bytes.data(), record_bytes, t.records, f);
    std::fclose(f);
    Loop loop(shape);
    std::uint64_t misses = 0;
    for (std::size_t r = 0; r < got; ++r)
        misses += !loop.access(obj_id_of(bytes.data() + r * record_bytes) * 64);
    return misses;
}

/// Reads 1 MiB blocks and runs the plain loop on each; misses.
std::uint64_t plain_streaming() {
    const auto& t = trace();
    std::vector<unsigned char> block(record_bytes * 43690); // ~1 MiB of whole records
    std::FILE* f = std::fopen(t.path.c_str(), "rb");
    if (f == nullptr) return ~std::uint64_t{0};
    memsub_bench::plain_mtf_lru loop(shape);
    std::uint64_t misses = 0, left = t.records;
    while (left > 0) {
        const std::size_t got =
            std::fread(block.data(), record_bytes, std::min<std::uint64_t>(left, 43690), f);
        if (got == 0) break;
        left -= got;
        for (std::size_t r = 0; r < got; ++r)
            misses += !loop.access(obj_id_of(block.data() + r * record_bytes) * 64);
    }
    std::fclose(f);
    return misses;
}

/// The explorer's path: explore() with --no-opt --policies lru --quiet; misses.
std::uint64_t explorer_path() {
    using namespace memsub::explorer::detail;
    options o;
    o.shape = shape;
    o.policies = {"lru"};
    o.no_opt = true;
    o.progress = false;
    o.limit = trace().records;
    o.format = memsub::trace::trace_format::oracle_general;
    const auto entries = policy_entries<std::tuple<memsub::replacement::lru>>(o.shape);
    std::vector<std::string> rejected;
    const auto policies = select_policies(o, entries, rejected);
    const trace_result r = explore(o, policies, trace().path);
    if (r.error || r.rows.size() != 1) return ~std::uint64_t{0};
    return r.rows.front().misses;
}

template <class F>
double timed(F&& f, std::uint64_t& misses) {
    const double t0 = now_seconds();
    misses = f();
    return now_seconds() - t0;
}

void bm_explorer_lru(benchmark::State& state) {
    double t_explorer = 0, t_read_all = 0, t_streaming = 0, t_stamp = 0;
    std::uint64_t m_explorer = 0, m_read_all = 0, m_streaming = 0, m_stamp = 0;
    for (auto _ : state) {
        state.PauseTiming();
        t_read_all += timed(read_all_then_loop<memsub_bench::plain_mtf_lru>, m_read_all);
        t_streaming += timed(plain_streaming, m_streaming);
        t_stamp += timed(read_all_then_loop<memsub_bench::stamp_lru_array_of_structs>, m_stamp);
        state.ResumeTiming();
        t_explorer += timed(explorer_path, m_explorer);
    }
    if (m_read_all != m_explorer || m_streaming != m_explorer || m_stamp != m_explorer) {
        state.SkipWithError("the programs' miss counts differ: not the same LRU on the same file");
        return;
    }
    const auto records = static_cast<double>(trace().records);
    state.counters["miss_ratio"] = static_cast<double>(m_explorer) / records;
    state.counters["records/s"] = benchmark::Counter(
        records * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    if (t_explorer > 0) {
        state.counters["x_plain_read_all"] = t_read_all / t_explorer;
        state.counters["x_plain_streaming"] = t_streaming / t_explorer;
        state.counters["x_stamp_read_all"] = t_stamp / t_explorer;
    }
}

} // namespace

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv, [] {
        (void)trace(); // write the file before any timing
        benchmark::RegisterBenchmark("explorer/lru", bm_explorer_lru)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(2.0);
    });
}
