// libFuzzer target: FPC decompressor — see fuzz_common.hpp.
#include "fuzz_common.hpp"

#include <memsub/compression/fpc.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mc = memsub::compression;
    memsub_fuzz::input in(data, size);
    mc::fpc::params p;
    p.line_bytes = memsub_fuzz::line_size_from(in.byte());
    memsub_fuzz::run(mc::fpc(p), in);
    return 0;
}
