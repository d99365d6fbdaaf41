// Writes the fidelity suite's traces (tests/memory/fidelity_traces.hpp) in DRAMSim3's trace
// format: make_traces <out dir> → <out dir>/ddr4/<name>.trace and <out dir>/hbm2/<name>.trace.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "../../memory/fidelity_traces.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_traces <out dir>\n");
        return 2;
    }
    namespace fs = std::filesystem;
    using namespace memtest::fidelity;
    const fs::path out = argv[1];
    auto write = [&](const char* dir, const std::vector<trace_spec>& specs, const geometry& g) {
        fs::create_directories(out / dir);
        for (const trace_spec& s : specs) {
            std::ofstream f(out / dir / (std::string(s.name) + ".trace"));
            for (const trace_request& r : generate(s, g)) f << dramsim3_line(r) << '\n';
        }
    };
    write("ddr4", ddr4_traces(), ddr4_geometry);
    write("hbm2", hbm2_traces(), hbm2_geometry);
    return 0;
}
