// libFuzzer target: the valgrind lackey reader on arbitrary text (see fuzz_trace_common.hpp).
// At most one access per line (an M record is one load with read_modify_write set), and only
// a load carries the read-modify-write flag.
#include "fuzz_trace_common.hpp"

#include <memsub/trace/lackey_reader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const auto buffers = memsub_fuzz::buffers_from(data[0]);
    memsub::trace::lackey_reader::params p;
    p.buffer_bytes = buffers.buffer_bytes;
    p.max_line_bytes = buffers.max_line_bytes;
    p.emit_instruction_fetches = (data[1] & 1) != 0;
    p.skip_unknown_lines = (data[1] & 2) != 0;
    const std::string trace(reinterpret_cast<const char*>(data + 2), size - 2);
    std::istringstream in(trace);
    memsub::trace::lackey_reader r(in, "fuzz-input", p);
    const std::uint64_t lines =
        static_cast<std::uint64_t>(std::count(trace.begin(), trace.end(), '\n')) + 1;
    memsub_fuzz::read_all(r, trace, lines, [](std::uint64_t, const memsub::access& a) {
        memsub_fuzz::require_trace(!a.read_modify_write || a.kind == memsub::access_kind::load);
    });
    memsub_fuzz::require_trace(r.instructions() <= lines);
    memsub_fuzz::same_in_batches(
        trace, [&](std::istream& s) { return memsub::trace::lackey_reader(s, "fuzz-input", p); },
        1 + data[0] % 37);
    return 0;
}
