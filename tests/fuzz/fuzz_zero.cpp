// libFuzzer target: the zero-block compressor (flag-in-tag and one-byte variants) — see
// fuzz_common.hpp.
#include "fuzz_common.hpp"

#include <memsub/compression/zero.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mc = memsub::compression;
    memsub_fuzz::input in(data, size);
    const std::uint8_t h = in.byte();
    mc::zero::params p;
    p.line_bytes = memsub_fuzz::line_size_from(h);
    p.zero_line_bits = (h & 0x04) ? 8 : 0;
    memsub_fuzz::run(mc::zero(p), in);
    return 0;
}
