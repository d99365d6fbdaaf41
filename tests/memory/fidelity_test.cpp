// Fidelity against DRAMSim3: memsub's FR-FCFS controller, with `dramsim3_params` (DRAMSim3's
// two-level queues — transaction queues feeding per-bank command queues of 8 — with its drain
// rules, its refresh rules and its round-robin over the bank queues), runs the traces of
// fidelity_traces.hpp as DRAMSim3's trace-driven host does, and its figures are held to the
// reference figures committed in tests/data/dramsim3/figures.csv (made by DRAMSim3 from the
// same traces with the matched configs there; tests/data/dramsim3/README.md says how to
// regenerate them and explains the remaining differences). Tolerances: mean and p95
// read latency within 5 % on read-only traces and 15 % on mixes, bandwidth within 5 %, bus
// turnarounds within 1.5×.
#include <doctest/doctest.h>

#include "../support/data_dir.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <memsub/memory/all.hpp>

#include "fidelity_traces.hpp"
#include "helpers.hpp"
#include "trace_host.hpp"

using namespace memsub::memory;
namespace fid = memtest::fidelity;

namespace {

struct figures {
    std::uint64_t reads = 0;
    double read_mean = 0;
    double read_p50 = 0;
    double read_p95 = 0;
    double row_hit_rate = 0;
    double bytes_per_cycle = 0;
    double turnarounds = 0;
};

/// figures.csv: memory,trace,requests,reads,read_mean,read_p50,read_p95,row_hit_rate,
/// bytes_per_cycle,turnarounds,column_commands ('#' lines are comments).
std::map<std::string, figures> load_reference() {
    const std::string path = std::string(memsub_test::data_dir()) + "/dramsim3/figures.csv";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("fidelity_test: cannot open " + path);
    std::map<std::string, figures> out;
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#' || line.rfind("memory,", 0) == 0) continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        if (f.size() != 11)
            throw std::runtime_error(path + ":" + std::to_string(n) + ": expected 11 fields");
        figures r;
        r.reads = std::stoull(f[3]);
        r.read_mean = std::stod(f[4]);
        r.read_p50 = std::stod(f[5]);
        r.read_p95 = std::stod(f[6]);
        r.row_hit_rate = std::stod(f[7]);
        r.bytes_per_cycle = std::stod(f[8]);
        r.turnarounds = std::stod(f[9]);
        out[f[0] + "/" + f[1]] = r;
    }
    return out;
}

/// Runs the trace through the shared host (trace_host.hpp) and computes the figures.
template <class Controller>
figures run_trace(Controller& c, const std::vector<fid::trace_request>& trace) {
    std::vector<completion> done;
    done.reserve(trace.size());
    memsub_test::offer_trace(c, trace, [&](const completion& x) { done.push_back(x); });
    REQUIRE(done.size() == trace.size());
    figures f;
    std::vector<std::uint64_t> lat;
    std::uint64_t first = memsub::never, last = 0, dram = 0, hits = 0;
    for (const completion& x : done) {
        first = std::min(first, x.arrival_cycle);
        if (!x.is_write) lat.push_back(x.latency());
        if (x.from_queue) continue;
        ++dram;
        hits += x.kind == row_class::hit;
        last = std::max(last, x.done_cycle);
    }
    std::sort(lat.begin(), lat.end());
    auto rank = [&](double q) {
        const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(lat.size())));
        return static_cast<double>(lat[std::clamp<std::size_t>(k, 1, lat.size()) - 1]);
    };
    f.reads = lat.size();
    for (auto v : lat) f.read_mean += static_cast<double>(v);
    f.read_mean /= static_cast<double>(lat.size());
    f.read_p50 = rank(0.5);
    f.read_p95 = rank(0.95);
    f.row_hit_rate = static_cast<double>(hits) / static_cast<double>(dram);
    f.bytes_per_cycle = 64.0 * static_cast<double>(dram) / static_cast<double>(last - first);
    f.turnarounds = static_cast<double>(c.stats().bus_turnarounds);
    return f;
}

struct memory_case {
    const char* name;
    dram_timing timing;
    const char* order;
    const std::vector<fid::trace_spec>* traces;
    fid::geometry geometry;
};

std::vector<memory_case> memories() {
    return {
        {"ddr4", presets::ddr4_2400, "rochrababgco", &fid::ddr4_traces(), fid::ddr4_geometry},
        {"hbm2", presets::hbm2_4gb_x128, "rorabgbachco", &fid::hbm2_traces(), fid::hbm2_geometry}};
}

/// Figures outside the tolerance today, each with the deviation it is held to instead
/// (the measured one plus a little, so a regression still fails) and the reason
/// (tests/data/dramsim3/README.md, "Remaining differences"). Not a loosened tolerance: a list of
/// open gaps, printed by the test and reported.
struct known_gap {
    const char* key;
    const char* metric; ///< mean, p95, bandwidth, turnarounds (ratio memsub / DRAMSim3)
    double bound;       ///< relative deviation allowed (turnarounds: the lowest ratio allowed)
    const char* reason;
};
constexpr std::array<known_gap, 0> known_gaps{}; // none open (tests/data/dramsim3/README.md)

const known_gap* gap_of(const std::string& key, const char* metric) {
    for (const known_gap& g : known_gaps)
        if (key == g.key && std::string_view(metric) == g.metric) return &g;
    return nullptr;
}

} // namespace

TEST_CASE("fidelity: FR-FCFS against DRAMSim3 on the generated traces (within tolerances)") {
    const auto ref = load_reference();
    std::string gaps = "\nOutside the tolerance (open gaps; none listed today):\n";
    std::size_t open = 0;
    std::string table = "\nmemory/trace: memsub | DRAMSim3 — read mean, p50, p95; row-hit rate; "
                        "bytes/cycle; turnarounds\n";
    for (const memory_case& mc : memories()) {
        const auto m = bit_field_mapping::from_order(mc.order, mc.timing);
        for (const fid::trace_spec& spec : *mc.traces) {
            const std::string key = std::string(mc.name) + "/" + std::string(spec.name);
            CAPTURE(key);
            REQUIRE(ref.count(key) == 1);
            const figures& want = ref.at(key);
            dramsim3_controller<> c(m, dramsim3_params(mc.timing));
            const figures got = run_trace(c, fid::generate(spec, mc.geometry));
            table += fmt::format(
                "{:28} {:7.1f} {:5.0f} {:5.0f} {:.3f} {:6.2f} {:6.0f} | {:7.1f} {:5.0f} {:5.0f} "
                "{:.3f} {:6.2f} {:6.0f}\n",
                key, got.read_mean, got.read_p50, got.read_p95, got.row_hit_rate,
                got.bytes_per_cycle, got.turnarounds, want.read_mean, want.read_p50, want.read_p95,
                want.row_hit_rate, want.bytes_per_cycle, want.turnarounds);
            const bool read_only = spec.write_per_mille == 0 && spec.kind != fid::pattern::copy;
            const double lat_tol = read_only ? 0.05 : 0.15;
            CHECK(got.reads == want.reads);
            // Within the tolerance, or (an open gap, listed) within its recorded bound.
            auto within = [&](const char* metric, double dev, double tol) {
                CAPTURE(metric);
                CAPTURE(dev);
                if (const known_gap* g = gap_of(key, metric)) {
                    gaps += fmt::format("{:24} {:11} {:+6.1f} %  (tolerance {:.0f} %): {}\n", key,
                                        metric, 100 * dev, 100 * tol, g->reason);
                    ++open;
                    CHECK(std::abs(dev) <= g->bound);
                } else {
                    CHECK(std::abs(dev) <= tol);
                }
            };
            within("mean", (got.read_mean - want.read_mean) / want.read_mean, lat_tol);
            within("p95", (got.read_p95 - want.read_p95) / want.read_p95, lat_tol);
            within("bandwidth", (got.bytes_per_cycle - want.bytes_per_cycle) / want.bytes_per_cycle,
                   0.05);
            if (want.turnarounds == 0) {
                CHECK(got.turnarounds == 0);
            } else {
                const double ratio = got.turnarounds / want.turnarounds;
                CHECK(ratio <= 1.5);
                if (const known_gap* g = gap_of(key, "turnarounds")) {
                    gaps += fmt::format("{:24} {:11} ×{:.2f}     (tolerance ×1/1.5): {}\n", key,
                                        "turnarounds", ratio, g->reason);
                    ++open;
                    CHECK(ratio >= g->bound);
                } else {
                    CHECK(ratio >= 1 / 1.5);
                }
            }
        }
    }
    MESSAGE(table);
    MESSAGE(gaps);
    // Every listed gap is still measured (an entry that no longer applies must be removed).
    CHECK(open == std::size(known_gaps));
}

TEST_CASE("fidelity: the write policy before drains turned the bus around twice as often") {
    // The earlier policy (a write whenever no read is selectable, 80 / 20 % watermarks) on the
    // 70 / 30 mixes, against the defaults: batching must at least halve the turnarounds and
    // lower the p95 read latency. The figures are printed for the record.
    const auto m = bit_field_mapping::from_order("rochrababgco", presets::ddr4_2400);
    std::string table = "\nDDR4 trace: before (mean, p95, turnarounds) -> after\n";
    for (const char* name : {"mix70_random_g8", "mix70_random_g12", "mix70_random_g20"}) {
        const auto it = std::find_if(fid::ddr4_traces().begin(), fid::ddr4_traces().end(),
                                     [&](const fid::trace_spec& s) { return s.name == name; });
        REQUIRE(it != fid::ddr4_traces().end());
        const auto trace = fid::generate(*it, fid::ddr4_geometry);
        fr_fcfs_controller<> before(
            m, memtest::write_policy_before_drains(
                   fr_fcfs_controller<>::params{.timing = presets::ddr4_2400}));
        fr_fcfs_controller<> after(m, {.timing = presets::ddr4_2400});
        // (the default single 32-entry queue: the same queue structure as before)
        const figures b = run_trace(before, trace);
        const figures a = run_trace(after, trace);
        table += fmt::format("{:18} {:6.1f} {:5.0f} {:6.0f} -> {:6.1f} {:5.0f} {:6.0f}\n", name,
                             b.read_mean, b.read_p95, b.turnarounds, a.read_mean, a.read_p95,
                             a.turnarounds);
        const std::string trace_name = name;
        CAPTURE(trace_name);
        CHECK(a.turnarounds * 2 <= b.turnarounds);
        CHECK(a.read_p95 < b.read_p95); // at 1 per 20 the mean is ~2 % higher, the tail lower
        CHECK(after.stats().writes_per_drain() >= 8.0);
    }
    MESSAGE(table);
}
