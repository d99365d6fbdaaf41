// libFuzzer target: the raw little-endian u64 reader (see fuzz_trace_common.hpp), checked
// against a decode of its own: record i is bytes [8i, 8i + 8) little-endian, every complete
// record is delivered, and a trailing partial record is an error at its first byte.
#include "fuzz_trace_common.hpp"

#include <memsub/trace/binary_u64_reader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    memsub::trace::binary_u64_reader::params p;
    p.buffer_bytes = memsub_fuzz::buffers_from(data[0]).buffer_bytes;
    const std::string trace(reinterpret_cast<const char*>(data + 1), size - 1);
    std::istringstream in(trace);
    memsub::trace::binary_u64_reader r(in, "fuzz-input", p);
    const std::uint64_t n = memsub_fuzz::read_all(
        r, trace, trace.size() / 8, [&](std::uint64_t i, const memsub::access& a) {
            std::uint64_t expected = 0;
            for (int b = 7; b >= 0; --b)
                expected = (expected << 8) | static_cast<std::uint8_t>(trace[8 * i + b]);
            memsub_fuzz::require_trace(a.address.value == expected);
        });
    memsub_fuzz::require_trace(n == trace.size() / 8);
    memsub_fuzz::same_in_batches(
        trace,
        [&](std::istream& s) { return memsub::trace::binary_u64_reader(s, "fuzz-input", p); },
        1 + data[0] % 37);
    return 0;
}
