// memsub memory explorer — replay a trace (or the built-in workload) through a memsub LLC and
// send its miss / writeback stream to several memory-controller configurations; compare their
// latency (mean, p50, p95, p99), row-hit rate and bandwidth, and plot the latency CDFs.
//
//   memory_explorer                                built-in workload, all configurations
//   memory_explorer app.lackey                     a Valgrind Lackey trace (any memsub format)
//   memory_explorer --configs ddr4-frfcfs,hbm2-pmc --cdf lat.png --csv lat.csv
//
// The program is memsub::explorer::run_memory_explorer (memsub/explorer/run_memory_explorer.hpp,
// where its time base, requesters and built-in workload are described) on the library's nine
// configurations; a program of your own adds its own scheduler or row policy
// (docs/tools/memory_explorer.md, "Your own scheduler or row policy").
#include <memsub/explorer/run_memory_explorer.hpp>

int main(int argc, char** argv) {
    return memsub::explorer::run_memory_explorer<>(argc, argv);
}
