// libFuzzer target: BDI decompressor (all parameter variants) — see fuzz_common.hpp.
#include "fuzz_common.hpp"

#include <memsub/compression/bdi.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mc = memsub::compression;
    memsub_fuzz::input in(data, size);
    const std::uint8_t h = in.byte();
    mc::bdi::params p;
    p.line_bytes = memsub_fuzz::line_size_from(h);
    p.encoding_set = (h & 0x04) ? mc::bdi_encoding_set::latte_cc : mc::bdi_encoding_set::pact12;
    p.mask = (h & 0x08) ? mc::bdi_mask::in_tag : mc::bdi_mask::in_payload;
    p.variant =
        (h & 0x10) ? mc::bdi_variant::base_plus_delta : mc::bdi_variant::base_delta_immediate;
    p.zero_in_tag = (h & 0x20) != 0;
    memsub_fuzz::run(mc::bdi(p), in);
    return 0;
}
