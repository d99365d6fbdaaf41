// The reference side of the fidelity suite: runs one trace (DRAMSim3's trace format) through
// DRAMSim3 the way its TraceBasedCPU does (src/cpu.cc: each cycle the memory ticks, then the
// trace's next request is offered if its cycle has come; a refused request is offered again the
// next cycle) and prints one CSV line of figures. Built against DRAMSim3 by regenerate.sh, never
// by memsub's CMake (CI does not need DRAMSim3).
//
// Figures, defined exactly as tests/memory/fidelity_test.cpp computes them for memsub:
//   read latency  DRAMSim3's own definition (controller.cc ReturnDoneTrans): the controller's
//                 cycle at return minus its cycle at AddTransaction; mean, and exact p50 / p95
//                 (nearest rank) over every read, forwarded ones included.
//   row-hit rate  (num_read_row_hits + num_write_row_hits) / (num_read_cmds + num_write_cmds)
//                 from DRAMSim3's stats (a column command counts as a hit when its bank has
//                 served a column command since its ACT).
//   bandwidth     64 B × column commands / (end of the last data burst − first add cycle), in
//                 bytes per cycle; the data burst end is the command cycle + RL|WL + burst.
//   turnarounds   per channel, read↔write direction changes between consecutive column
//                 commands in DRAMSim3's command trace (CMD_TRACE build), summed.
//
// Timing mode (speed.sh): with an 8th argument `reps`, the run is repeated `reps` times, each on
// a new MemorySystem, and the line gets four more fields: the offers DRAMSim3 refused (the host
// offers the due request again every cycle, so each refused cycle counts), the least and the
// median CPU time and the least wall time, in seconds, of the loop from the first ClockTick to
// the cycle where every request is accepted and every read returned. Not timed: reading the
// trace, constructing the MemorySystem (reading the .ini, opening its output files), the
// 20 000 idle cycles run afterwards and the statistics. memsub_speed.cpp times memsub alike.
// A trace of at most 8 reads (speed.sh's isolated reads) also gets each read's latency, in the
// order they returned.
#include "latency_summary.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>

#include "memory_system.h"

namespace {
double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
} // namespace

int main(int argc, char** argv) {
    if (argc != 7 && argc != 8) {
        std::cerr << "usage: dramsim3_reference <config.ini> <trace> <out dir> <name> "
                     "<read cmd -> data end> <write cmd -> data end> [reps: timing mode]\n";
        return 2;
    }
    const int reps = argc == 8 ? std::max(1, std::stoi(argv[7])) : 1;
    const std::string config = argv[1], trace = argv[2], out = argv[3], name = argv[4];
    const std::uint64_t rl = std::stoull(argv[5]); // read command -> data end (RL + burst)
    const std::uint64_t wl = std::stoull(argv[6]); // write command -> data end (WL + burst)
    std::filesystem::create_directories(out);

    struct req {
        std::uint64_t addr;
        bool write;
        std::uint64_t cycle;
    };
    std::vector<req> reqs;
    {
        std::ifstream in(trace);
        if (!in) {
            std::cerr << "cannot open " << trace << "\n";
            return 1;
        }
        std::string a, op;
        std::uint64_t c;
        while (in >> a >> op >> c) reqs.push_back({std::stoull(a, nullptr, 16), op == "WRITE", c});
    }
    std::uint64_t reads = 0;
    for (const auto& r : reqs) reads += r.write ? 0 : 1;
    std::vector<std::uint64_t> lat;
    std::uint64_t first_add = ~0ull, refused = 0;
    std::vector<double> cpu;
    double wall = 1e300;
    for (int rep = 0; rep < reps; ++rep) {
        std::uint64_t ctrl_clk = 0; // the controllers' clock (incremented by each ClockTick)
        std::map<std::uint64_t, std::deque<std::uint64_t>> pending;
        lat.clear();
        lat.reserve(reads);
        auto on_read = [&](std::uint64_t addr) {
            auto& q = pending[addr];
            lat.push_back(ctrl_clk - q.front());
            q.pop_front();
        };
        auto on_write = [](std::uint64_t) {};
        dramsim3::MemorySystem ms(config, out + "/", on_read, on_write);
        std::size_t next = 0;
        std::uint64_t idle_after = 0;
        first_add = ~0ull;
        refused = 0;
        const double cpu0 = cpu_now();
        const auto wall0 = std::chrono::steady_clock::now();
        bool timed = false;
        for (std::uint64_t clk = 0;; ++clk) {
            ms.ClockTick(); // callbacks fire here at controller cycle ctrl_clk, then it advances
            ++ctrl_clk;
            if (next < reqs.size() && reqs[next].cycle <= clk) {
                if (ms.WillAcceptTransaction(reqs[next].addr, reqs[next].write)) {
                    ms.AddTransaction(reqs[next].addr, reqs[next].write);
                    if (!reqs[next].write) pending[reqs[next].addr].push_back(ctrl_clk);
                    first_add = std::min(first_add, ctrl_clk);
                    ++next;
                } else {
                    ++refused;
                }
            }
            if (next == reqs.size() && lat.size() == reads) {
                if (!timed) {
                    cpu.push_back(cpu_now() - cpu0);
                    wall = std::min(wall, std::chrono::duration<double>(
                                              std::chrono::steady_clock::now() - wall0)
                                              .count());
                    timed = true;
                }
                if (++idle_after > 20000) break;
            }
        }
        if (rep + 1 == reps) ms.PrintStats();
    }
    // Row hits from DRAMSim3's stats file.
    std::ifstream js(out + "/dramsim3.json");
    std::stringstream ss;
    ss << js.rdbuf();
    const std::string j = ss.str();
    auto sum_stat = [&](const std::string& key) {
        double s = 0;
        std::size_t p = 0;
        while ((p = j.find("\"" + key + "\"", p)) != std::string::npos) {
            p = j.find(':', p) + 1;
            s += std::stod(j.substr(p));
        }
        return s;
    };
    const double hits = sum_stat("num_read_row_hits") + sum_stat("num_write_row_hits");
    const double cmds = sum_stat("num_read_cmds") + sum_stat("num_write_cmds");
    // Turnarounds and the last data burst from the command traces.
    std::uint64_t turnarounds = 0, columns = 0, last_end = 0;
    for (const auto& f : std::filesystem::directory_iterator(out)) {
        const std::string fn = f.path().filename().string();
        if (fn.find("cmd.trace") == std::string::npos) continue;
        std::ifstream t(f.path());
        std::string line;
        int last = -1;
        while (std::getline(t, line)) {
            std::istringstream ls(line);
            std::uint64_t c;
            std::string cmd;
            ls >> c >> cmd;
            int dir = -1;
            if (cmd == "read" || cmd == "read_p") dir = 0;
            if (cmd == "write" || cmd == "write_p") dir = 1;
            if (dir < 0) continue;
            ++columns;
            if (last >= 0 && last != dir) ++turnarounds;
            last = dir;
            last_end = std::max(last_end, c + (dir == 0 ? rl : wl));
        }
    }
    const std::vector<std::uint64_t> in_return_order = lat;
    const latency_summary summary = summarize_latencies(lat);
    const double bw =
        64.0 * static_cast<double>(columns) / static_cast<double>(last_end - first_add);
    std::printf("%s,%zu,%llu,%.3f,%llu,%llu,%.4f,%.4f,%llu,%llu", name.c_str(), reqs.size(),
                static_cast<unsigned long long>(reads), summary.mean,
                static_cast<unsigned long long>(summary.p50),
                static_cast<unsigned long long>(summary.p95), cmds == 0 ? 0.0 : hits / cmds, bw,
                static_cast<unsigned long long>(turnarounds),
                static_cast<unsigned long long>(columns));
    if (argc == 8) {
        std::sort(cpu.begin(), cpu.end());
        std::printf(",%llu,%.9f,%.9f,%.9f", static_cast<unsigned long long>(refused), cpu.front(),
                    cpu[cpu.size() / 2], wall);
        if (in_return_order.size() <= 8) {
            std::printf(",");
            for (auto v : in_return_order) std::printf(" %llu", static_cast<unsigned long long>(v));
        }
    }
    std::printf("\n");
    return 0;
}
