// libFuzzer target: the Accel-Sim SASS trace reader (trace/accel_sim_reader.hpp) on arbitrary
// bytes, with small buffers and both memory-space options. Properties, besides no crash, no
// out-of-bounds access (ASan) and no UB (UBSan): reading ends at the end of the input or with
// memsub::input_error naming the source and a line inside the input; the error is sticky;
// records() counts the instructions delivered, at most one per instruction line, and
// instructions() counts at most the input's lines.
#include "fuzz_trace_common.hpp"

#include <memsub/trace/accel_sim_reader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const auto buffers = memsub_fuzz::buffers_from(data[0]);
    memsub::trace::accel_sim_reader::params p;
    p.buffer_bytes = buffers.buffer_bytes;
    p.max_line_bytes = buffers.max_line_bytes;
    p.include_all_memory = (data[1] & 1) != 0;
    const std::string trace(reinterpret_cast<const char*>(data + 2), size - 2);
    std::istringstream in(trace);
    memsub::trace::accel_sim_reader r(in, "fuzz-input", p);
    const std::uint64_t lines =
        static_cast<std::uint64_t>(std::count(trace.begin(), trace.end(), '\n')) + 1;
    memsub::warp_instruction w;
    std::uint64_t n = 0;
    try {
        while (r.next(w)) {
            ++n;
            memsub_fuzz::require_trace(w.access_bytes >= 1 && w.access_bytes <= 128);
            for (std::uint32_t lane = 0; lane < 32; ++lane)
                if (!w.lane_active(lane)) memsub_fuzz::require_trace(w.lanes[lane] == 0);
        }
    } catch (const memsub::input_error& e) {
        memsub_fuzz::require_trace(e.source() == "fuzz-input");
        memsub_fuzz::require_trace(e.position() >= 1 && e.position() <= lines);
        bool rethrown = false;
        try {
            (void)r.next(w);
        } catch (const memsub::input_error& again) {
            rethrown = std::string(again.what()) == e.what();
        }
        memsub_fuzz::require_trace(rethrown);
    }
    memsub_fuzz::require_trace(r.records() == n && n <= r.instructions());
    memsub_fuzz::require_trace(r.instructions() <= lines);
    return 0;
}
