// libFuzzer target: the ChampSim instruction-trace reader (64-byte records) on arbitrary bytes,
// with and without instruction fetches and strict flags (see fuzz_trace_common.hpp). At most
// seven accesses per complete record.
#include "fuzz_trace_common.hpp"

#include <memsub/trace/champsim_reader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    memsub::trace::champsim_reader::params p;
    p.buffer_bytes = memsub_fuzz::buffers_from(data[0]).buffer_bytes;
    p.instruction_fetches = (data[1] & 1) != 0;
    p.strict_flags = (data[1] & 2) != 0;
    // Fetch blocks 1 .. 2^31 (the reader validates them: a rejected one is a config_error).
    p.fetch_line_bytes = std::uint32_t{1} << ((data[1] >> 2) % 32);
    const std::string trace(reinterpret_cast<const char*>(data + 2), size - 2);
    std::istringstream in(trace);
    using reader = memsub::trace::champsim_reader;
    try {
        reader r(in, "fuzz-input", p);
        memsub_fuzz::read_all(r, trace,
                              trace.size() / reader::instruction_bytes *
                                  reader::max_accesses_per_instruction,
                              [](std::uint64_t, const memsub::access&) {});
        memsub_fuzz::same_in_batches(
            trace, [&](std::istream& s) { return reader(s, "fuzz-input", p); }, 1 + data[0] % 37);
    } catch (const memsub::config_error&) {
        // An unsupported fetch block is refused at construction, before any input is read.
    }
    return 0;
}
