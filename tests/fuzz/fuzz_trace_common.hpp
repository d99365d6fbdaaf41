// memsub fuzzing harness shared by the trace-reader targets (tests/fuzz/fuzz_trace_*.cpp).
//
// The input's first two bytes choose the reader's buffer sizes (small buffers put record and
// line boundaries at every place in a refill) and its options; the rest is the trace, read
// from memory through the reader's std::istream constructor. Properties, besides no crash, no
// out-of-bounds access (ASan) and no UB (UBSan):
//   * reading ends, either at the end of the input or with memsub::input_error — no other
//     exception;
//   * the error names the reader's source and a position inside the input (a line number at
//     most the input's line count + 1, or a byte offset at most its size);
//   * the error is sticky: the next `next` throws it again;
//   * records() counts exactly the accesses delivered, and at most `max_records` of them;
//   * `same_in_batches`: a second reader drained with next_batch (batch size from the input)
//     delivers the same records, then the same error.
// A broken property calls __builtin_trap(), which libFuzzer reports as a crash.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/trace/open.hpp>

namespace memsub_fuzz {

inline void require_trace(bool ok) {
    if (!ok) __builtin_trap();
}

/// Buffer sizes from one input byte: 64..~4 KiB buffers, lines up to buffer - 1 (≥ 16).
struct buffer_choice {
    std::size_t buffer_bytes;
    std::size_t max_line_bytes;
};
inline buffer_choice buffers_from(std::uint8_t b) {
    const std::size_t buffer = 64 + std::size_t{b} * 16;
    const std::size_t line = std::max<std::size_t>(16, buffer / (1 + b % 4)) - (b % 4 == 0 ? 1 : 0);
    return {buffer, std::min(line, buffer - 1)};
}

/// Reads every access of `reader` (built over `trace`) and checks the properties above.
/// `on_access(index, access)` may check each access further. Returns the records delivered.
template <class Reader, class OnAccess>
std::uint64_t read_all(Reader& reader, const std::string& trace, std::uint64_t max_records,
                       OnAccess&& on_access) {
    memsub::access a{};
    std::uint64_t n = 0;
    try {
        while (reader.next(a)) {
            on_access(n, a);
            ++n;
            require_trace(n <= max_records);
        }
    } catch (const memsub::input_error& e) {
        require_trace(e.source() == "fuzz-input");
        const std::uint64_t lines =
            static_cast<std::uint64_t>(std::count(trace.begin(), trace.end(), '\n')) + 1;
        switch (e.kind()) {
        case memsub::input_error::position_kind::line_number:
            require_trace(e.position() >= 1 && e.position() <= lines);
            break;
        case memsub::input_error::position_kind::byte_offset:
            require_trace(e.position() <= trace.size());
            break;
        case memsub::input_error::position_kind::bit_offset:
            require_trace(false); // not a trace position
        }
        bool rethrown = false;
        try {
            (void)reader.next(a);
        } catch (const memsub::input_error& again) {
            rethrown = std::string(again.what()) == e.what();
        }
        require_trace(rethrown);
    }
    require_trace(reader.records() == n);
    return n;
}

/// Drains `reader` record by record (`batch` = 0) or with next_batch in batches of `batch`;
/// returns the records and the error's message, if reading ended with one.
template <class Reader>
std::vector<memsub::access> drain(Reader& reader, std::size_t batch,
                                  std::optional<std::string>& error) {
    std::vector<memsub::access> out;
    try {
        if (batch == 0) {
            memsub::access a{};
            while (reader.next(a)) out.push_back(a);
        } else {
            std::vector<memsub::access> buf(batch);
            for (;;) {
                const std::size_t n = memsub::trace::next_batch(reader, std::span(buf));
                out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
                if (n == 0) break;
            }
        }
    } catch (const memsub::input_error& e) {
        error = e.what();
    }
    return out;
}

/// Two readers `make(std::istream&)` builds over `trace`: record by record and in batches of
/// `batch` (≥ 1), the same records, the same error, the same records() count.
template <class MakeReader>
void same_in_batches(const std::string& trace, MakeReader&& make, std::size_t batch) {
    std::istringstream in_one(trace), in_many(trace);
    auto one = make(in_one);
    auto many = make(in_many);
    std::optional<std::string> error_one, error_many;
    const auto a = drain(one, 0, error_one);
    const auto b = drain(many, batch, error_many);
    require_trace(a.size() == b.size() && error_one == error_many);
    require_trace(one.records() == many.records());
    for (std::size_t i = 0; i < a.size(); ++i)
        require_trace(
            a[i].address == b[i].address && a[i].size == b[i].size && a[i].kind == b[i].kind &&
            a[i].pc == b[i].pc && a[i].read_modify_write == b[i].read_modify_write &&
            a[i].hints.cycle == b[i].hints.cycle && a[i].hints.next_use == b[i].hints.next_use);
}

} // namespace memsub_fuzz
