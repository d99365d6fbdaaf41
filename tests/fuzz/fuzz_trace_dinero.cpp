// libFuzzer target: the Dinero din reader on arbitrary text (see fuzz_trace_common.hpp). At most
// one access per line.
#include "fuzz_trace_common.hpp"

#include <memsub/trace/dinero_reader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const auto buffers = memsub_fuzz::buffers_from(data[0]);
    memsub::trace::dinero_reader::params p;
    p.buffer_bytes = buffers.buffer_bytes;
    p.max_line_bytes = buffers.max_line_bytes;
    p.emit_instruction_fetches = (data[1] & 1) != 0;
    p.misc_as_load = (data[1] & 2) != 0;
    p.read_size_field = (data[1] & 4) != 0;
    const std::string trace(reinterpret_cast<const char*>(data + 2), size - 2);
    std::istringstream in(trace);
    memsub::trace::dinero_reader r(in, "fuzz-input", p);
    const std::uint64_t lines =
        static_cast<std::uint64_t>(std::count(trace.begin(), trace.end(), '\n')) + 1;
    memsub_fuzz::read_all(r, trace, lines, [](std::uint64_t, const memsub::access&) {});
    return 0;
}
