// The memsub side of speed.sh: runs one trace (DRAMSim3's trace format, as written by
// make_traces) through memsub's FR-FCFS controller the way tests/memory/fidelity_test.cpp's
// run_trace does (a request is offered at its trace cycle; a refused one is offered again at the
// controller's next event; idle cycles are skipped), on `dramsim3_controller` with
// `dramsim3_params` and on `fr_fcfs_controller` with its default parameters, and prints one CSV
// line per parameter set: the figures of
// the fidelity suite (read latency from acceptance to the end of the data: mean, exact p50 /
// p95; row-hit rate; bytes per cycle; bus turnarounds), the host's refused offers, and the time
// of the simulation. Timed: the loop from the first offer to the last completion, on a trace
// already parsed into memory and a controller already constructed (dramsim3_reference.cpp
// times DRAMSim3 the same way), `reps` times; printed: the least and the median CPU time and
// the least wall time, in seconds; for a trace of at most 8 reads (speed.sh's isolated reads),
// each read's latency in the order they completed.
//
//   memsub_speed <ddr4|hbm2> <trace> <name> <reps>
//
// Built by speed.sh with -O3 -DNDEBUG (memsub's release preset) against include/ only.
#include "latency_summary.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <memsub/memory/all.hpp>

#include "../../memory/trace_host.hpp"

namespace {

using namespace memsub::memory;

struct trace_request {
    std::uint64_t address = 0;
    bool is_write = false;
    std::uint64_t cycle = 0;
};

struct result {
    std::vector<completion> done;
    std::uint64_t refused = 0;
    double cpu_s = 0, wall_s = 0;
};

double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// fidelity_test.cpp's run_trace, timed, counting the refused offers.
template <class Controller>
result run(Controller& c, const std::vector<trace_request>& trace) {
    result out;
    out.done.reserve(trace.size());
    const double cpu0 = cpu_now();
    const auto wall0 = std::chrono::steady_clock::now();
    out.refused =
        memsub_test::offer_trace(c, trace, [&](const completion& x) { out.done.push_back(x); });
    out.cpu_s = cpu_now() - cpu0;
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return out;
}

template <class MakeController>
void report(const std::string& name, const char* params, const std::vector<trace_request>& trace,
            int reps, MakeController make) {
    std::vector<double> cpu;
    double wall = 1e300;
    result last;
    std::uint64_t turnarounds = 0;
    for (int k = 0; k < reps; ++k) {
        auto c = make();
        last = run(c, trace);
        cpu.push_back(last.cpu_s);
        wall = std::min(wall, last.wall_s);
        turnarounds = c.stats().bus_turnarounds;
    }
    if (last.done.size() != trace.size()) {
        std::cerr << name << ": " << last.done.size() << " of " << trace.size() << " completed\n";
        std::exit(1);
    }
    std::sort(cpu.begin(), cpu.end());
    std::vector<std::uint64_t> lat;
    std::uint64_t first = memsub::never, end = 0, dram = 0, hits = 0;
    for (const completion& x : last.done) {
        first = std::min(first, x.arrival_cycle);
        if (!x.is_write) lat.push_back(x.latency());
        if (x.from_queue) continue;
        ++dram;
        hits += x.kind == row_class::hit;
        end = std::max(end, x.done_cycle);
    }
    const std::vector<std::uint64_t> in_return_order = lat;
    const latency_summary summary = summarize_latencies(lat);
    std::printf(
        "%s,%s,%zu,%zu,%.3f,%llu,%llu,%.4f,%.4f,%llu,%llu,%.9f,%.9f,%.9f", name.c_str(), params,
        trace.size(), lat.size(), summary.mean, static_cast<unsigned long long>(summary.p50),
        static_cast<unsigned long long>(summary.p95),
        dram == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(dram),
        end == first ? 0.0 : 64.0 * static_cast<double>(dram) / static_cast<double>(end - first),
        static_cast<unsigned long long>(turnarounds), static_cast<unsigned long long>(last.refused),
        cpu.front(), cpu[cpu.size() / 2], wall);
    if (in_return_order.size() <= 8) {
        std::printf(",");
        for (auto v : in_return_order) std::printf(" %llu", static_cast<unsigned long long>(v));
    }
    std::printf("\n");
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::cerr << "usage: memsub_speed <ddr4|hbm2> <trace> <name> <reps>\n";
        return 2;
    }
    const std::string memory = argv[1], path = argv[2], name = argv[3];
    const int reps = std::max(1, std::stoi(argv[4]));
    const bool ddr4 = memory == "ddr4";
    if (!ddr4 && memory != "hbm2") {
        std::cerr << "unknown memory " << memory << "\n";
        return 2;
    }
    // The presets and address orders of the fidelity suite (fidelity_test.cpp memories()).
    const dram_timing& timing = ddr4 ? presets::ddr4_2400 : presets::hbm2_4gb_x128;
    const auto map = bit_field_mapping::from_order(ddr4 ? "rochrababgco" : "rorabgbachco", timing);
    std::vector<trace_request> trace;
    {
        std::ifstream in(path);
        if (!in) {
            std::cerr << "cannot open " << path << "\n";
            return 1;
        }
        std::string a, op;
        std::uint64_t c = 0;
        while (in >> a >> op >> c) trace.push_back({std::stoull(a, nullptr, 16), op == "WRITE", c});
    }
    report(name, "dramsim3_params", trace, reps,
           [&] { return dramsim3_controller<>(map, dramsim3_params(timing)); });
    report(name, "default", trace, reps,
           [&] { return fr_fcfs_controller<>(map, {.timing = timing}); });
    return 0;
}
