// Compressibility report: how well BDI, FPC, C-PACK(+Z), BPC, SC² and their per-line best
// compress some data, line by line, as a cache would store it.
//
//   compressibility [--line-bytes 32|64|128] [--segment-bytes S] [--sc2-train FILE]
//                   [--output-dir DIR] [--no-plot] [--quiet] [FILE...]   (--help explains all)
//
// The report is memsub::explorer::run_compressibility (memsub/explorer/run_compressibility.hpp)
// run on the library's compressors: the five of Figure 4.1 of [Dissertation], plain C-PACK and
// the per-line best of the five. A program of your own passes your compressor too
// (docs/tools/compressibility.md, "Your own compressor").
#include <memsub/compression/all.hpp>
#include <memsub/explorer/run_compressibility.hpp>

int main(int argc, char** argv) {
    namespace mc = memsub::compression;
    return memsub::explorer::run_compressibility<mc::bdi, mc::fpc, mc::cpack, mc::cpack_z, mc::bpc,
                                                 mc::sc2, mc::best_of_all>(argc, argv);
}
