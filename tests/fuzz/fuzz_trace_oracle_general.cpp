// libFuzzer target: the libCacheSim oracleGeneral reader (24-byte records) on arbitrary bytes,
// every address scale and the zero-size rule (see fuzz_trace_common.hpp). At most one access
// per complete record.
#include "fuzz_trace_common.hpp"

#include <memsub/trace/oracle_general_reader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    memsub::trace::oracle_general_reader::params p;
    p.buffer_bytes = memsub_fuzz::buffers_from(data[0]).buffer_bytes;
    p.skip_zero_size = (data[1] & 1) != 0;
    // Scales 0 .. 2^62 (the reader validates them: a rejected one is a config_error).
    p.address_scale_bytes = (data[1] & 2) != 0 ? std::uint64_t{1} << (data[1] >> 2) : data[1] >> 2;
    const std::string trace(reinterpret_cast<const char*>(data + 2), size - 2);
    std::istringstream in(trace);
    try {
        memsub::trace::oracle_general_reader r(in, "fuzz-input", p);
        memsub_fuzz::read_all(r, trace,
                              trace.size() / memsub::trace::oracle_general_reader::record_bytes,
                              [](std::uint64_t, const memsub::access&) {});
        memsub_fuzz::same_in_batches(
            trace,
            [&](std::istream& s) {
                return memsub::trace::oracle_general_reader(s, "fuzz-input", p);
            },
            1 + data[0] % 37);
    } catch (const memsub::config_error&) {
        // An unsupported scale is refused at construction, before any input is read.
    }
    return 0;
}
