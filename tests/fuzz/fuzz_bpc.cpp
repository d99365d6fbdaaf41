// libFuzzer target: BPC decompressor (both symbol-code assignments) — see fuzz_common.hpp.
#include "fuzz_common.hpp"

#include <memsub/compression/bpc.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mc = memsub::compression;
    memsub_fuzz::input in(data, size);
    const std::uint8_t h = in.byte();
    mc::bpc::params p;
    p.line_bytes = memsub_fuzz::line_size_from(h);
    p.codes = (h & 0x04) ? mc::bpc::symbol_codes::authors_comment : mc::bpc::symbol_codes::spec;
    memsub_fuzz::run(mc::bpc(p), in);
    return 0;
}
