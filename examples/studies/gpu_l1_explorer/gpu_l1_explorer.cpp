// gpu_l1_explorer — ID-Cache's comparison points ([Dissertation] ch. 3) on SIMT kernel
// workloads: the library's ten GPU L1 configurations on the same warp instructions. The program
// is memsub::explorer::run_gpu_l1_explorer (memsub/explorer/run_gpu_l1_explorer.hpp, which
// describes the study); a program of your own passes its L1 types to run them beside these
// (docs/tools/gpu_l1_explorer.md, "Your own bypass or line-size predictor").

#include <memsub/explorer/run_gpu_l1_explorer.hpp>

int main(int argc, char** argv) {
    return memsub::explorer::run_gpu_l1_explorer<>(argc, argv);
}
