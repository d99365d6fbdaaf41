// libFuzzer target: C-PACK and C-PACK+Z decompressors (both push policies) — see
// fuzz_common.hpp.
#include "fuzz_common.hpp"

#include <memsub/compression/cpack.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mc = memsub::compression;
    memsub_fuzz::input in(data, size);
    const std::uint8_t h = in.byte();
    const std::uint32_t L = memsub_fuzz::line_size_from(h);
    const mc::cpack_push push =
        (h & 0x04) ? mc::cpack_push::only_unmatched : mc::cpack_push::all_non_zero;
    if (h & 0x08) {
        mc::cpack_z::params p;
        p.line_bytes = L;
        p.push = push;
        memsub_fuzz::run(mc::cpack_z(p), in);
    } else {
        mc::cpack::params p;
        p.line_bytes = L;
        p.push = push;
        memsub_fuzz::run(mc::cpack(p), in);
    }
    return 0;
}
