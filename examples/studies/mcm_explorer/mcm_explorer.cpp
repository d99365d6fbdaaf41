// mcm_explorer — the MCM-GPU study ([MCM-GPU]; [Dissertation] ch. 5) on SIMT kernel workloads:
// the library's page placements and CTA schedulers, alone and together, on a multi-module GPU.
// The study is memsub::explorer::run_mcm_explorer (memsub/explorer/run_mcm_explorer.hpp, where
// its machine, time model and outputs are described); this program runs it on the library's
// eight configurations. To run your own placement or CTA scheduler beside them, call
// run_mcm_explorer<your_type>(argc, argv) from a main of your own (docs/tools/mcm_explorer.md).
//
//   mcm_explorer                               stencil, spmv, bfs, kmeans on 4 × 8 SMs
//   mcm_explorer --kernels stencil --scale 0.25 --plot mcm.svg --csv mcm.csv

#include <memsub/explorer/run_mcm_explorer.hpp>

int main(int argc, char** argv) {
    return memsub::explorer::run_mcm_explorer<>(argc, argv);
}
