// libFuzzer target: format detection by content and the read-ahead it delivers (see
// fuzz_trace_common.hpp for the shared properties). open_trace(stream) reads up to 4 KiB to
// detect the format and hands those bytes to the reader before the rest of the stream; with
// buffers of 64 B .. ~4 KiB (from the first input byte) the bytes read ahead span many refills.
// Properties: detection ends in a reader or an input_error naming the input (binary content,
// an Accel-Sim trace) and nothing else; the reader then delivers exactly the records, and the
// error, of the same format's reader built directly over the whole input (nothing lost,
// nothing repeated, positions the same).
#include "fuzz_trace_common.hpp"

#include <variant>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const auto buffers = memsub_fuzz::buffers_from(data[0]);
    memsub::trace::open_options o;
    o.lackey.buffer_bytes = o.din.buffer_bytes = o.text.buffer_bytes = buffers.buffer_bytes;
    o.lackey.max_line_bytes = o.din.max_line_bytes = o.text.max_line_bytes = buffers.max_line_bytes;
    o.lackey.skip_unknown_lines = (data[0] & 1) != 0;
    const std::string trace(reinterpret_cast<const char*>(data + 1), size - 1);

    std::istringstream detected_in(trace);
    std::optional<memsub::trace::any_reader> detected;
    try {
        detected.emplace(memsub::trace::open_trace(detected_in, "fuzz-input", o));
    } catch (const memsub::input_error& e) {
        memsub_fuzz::require_trace(e.source() == "fuzz-input");
        return 0;
    }
    const auto format = static_cast<memsub::trace::trace_format>(detected->index());
    std::istringstream direct_in(trace);
    memsub::trace::any_reader direct =
        memsub::trace::open_trace(direct_in, "fuzz-input", format, o);

    std::optional<std::string> error_detected, error_direct;
    const auto a =
        std::visit([&](auto& r) { return memsub_fuzz::drain(r, 0, error_detected); }, *detected);
    const auto b =
        std::visit([&](auto& r) { return memsub_fuzz::drain(r, 0, error_direct); }, direct);
    memsub_fuzz::require_trace(a.size() == b.size() && error_detected == error_direct);
    for (std::size_t i = 0; i < a.size(); ++i)
        memsub_fuzz::require_trace(a[i].address == b[i].address && a[i].size == b[i].size &&
                                   a[i].kind == b[i].kind && a[i].pc == b[i].pc &&
                                   a[i].read_modify_write == b[i].read_modify_write);
    memsub_fuzz::require_trace(memsub::trace::records(*detected) == memsub::trace::records(direct));
    memsub_fuzz::require_trace(memsub::trace::bytes_consumed(*detected) ==
                               memsub::trace::bytes_consumed(direct));
    return 0;
}
