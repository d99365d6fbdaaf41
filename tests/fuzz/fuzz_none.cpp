// libFuzzer target: the identity compressor `none` (raw payloads of exactly 8·L bits) — see
// fuzz_common.hpp.
#include "fuzz_common.hpp"

#include <memsub/compression/none.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mc = memsub::compression;
    memsub_fuzz::input in(data, size);
    mc::none::params p;
    p.line_bytes = memsub_fuzz::line_size_from(in.byte());
    memsub_fuzz::run(mc::none(p), in);
    return 0;
}
