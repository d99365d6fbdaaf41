// latte_explorer — the LATTE-CC study: each kernel through LATTE-CC and its baselines (compression
// mode selectors) on a GPU of compressed L1Ds, plus an uncompressed 64 KB L1 to classify it. The
// study's model and command line are memsub::explorer::run_latte_explorer (explorer/
// run_latte_explorer.hpp, docs/tools/latte_explorer.md), which also runs your own mode selectors
// beside these: run_latte_explorer<your_selector>(argc, argv).
//
//   latte_explorer                               the default kernels (about 20 s on 2 cores)
//   latte_explorer --configs none,static_sc,latte_cc phases
//   latte_explorer --scale 4 --plot latte.svg --plot-kernel phases
//   latte_explorer --csv study.csv --json study.json
#include <memsub/explorer/run_latte_explorer.hpp>

int main(int argc, char** argv) {
    return memsub::explorer::run_latte_explorer<>(argc, argv);
}
