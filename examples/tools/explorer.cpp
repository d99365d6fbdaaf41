// memsub explorer — run traces (or the built-in default workload) through an LLC geometry with
// every replacement policy of memsub (or a chosen subset) and compare miss ratios against
// Belady's OPT. `explorer --help` lists the options; the explorer itself is
// memsub/explorer/run_explorer.hpp, a function any program can call with its own policies (see
// examples/my_policy_explorer.cpp).
#include <memsub/replacement/all.hpp>

#include <memsub/explorer/run_explorer.hpp>

int main(int argc, char** argv) {
    return memsub::explorer::run_explorer<memsub::replacement::all_policies>(argc, argv);
}
