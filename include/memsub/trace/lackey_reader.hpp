// memsub — reader for Valgrind Lackey memory traces (`valgrind --tool=lackey --trace-mem=yes`).
//
// Format (Valgrind's lackey/lk_main.c prints one record per guest reference):
//     I  0400d7d4,8        instruction fetch: 'I' in column 0, address in hex, size in decimal
//      L 7ff000398,8       data load   (one leading space)
//      S 7ff000398,8       data store
//      M 0421e3a8,4        data modify (a load and a store to the same bytes, e.g. `inc [m]`)
//     ==12345== ...        Valgrind's own messages (banner, summary): skipped
//     --12345-- ...        Valgrind's warnings: skipped
// Mapping to `memsub::access`:
//   * I → `instruction_fetch`, delivered only when `params::emit_instruction_fetches` is true
//     (default false: the readers serve data-cache exploration); every I record is counted in
//     `instructions()` either way, so a host can report misses per kilo-instruction (MPKI).
//   * L → `load`, S → `store`, M → one `load` with `read_modify_write` set (M means the
//     instruction reads and then writes the same bytes). This is how cachegrind counts it: one
//     data reference, a read (cachegrind's cg_main.c turns a modify into a data-read event), and
//     a cache applies the write to the line the read left (dirty in a write-back cache).
//   * The record's bytes may cross a line boundary (valgrind reports misaligned references as
//     they are); `basic_cache::access_spanning` counts them as cachegrind does.
//   * `size` ← the record's size; `pc` ← the address of the most recent I record (the
//     instruction that performs the data reference; 0 before the first I record).
// Leniency: runs of blanks/tabs between fields, blank lines and a trailing '\r' are accepted.
// A line that is none of the above is an `input_error` naming its line number, unless
// `params::skip_unknown_lines` is set (useful when the traced program's own stderr is mixed in;
// better: run Valgrind with `--log-file=trace.txt`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/trace/concept.hpp>
#include <memsub/trace/detail/parse.hpp>
#include <memsub/trace/detail/reader_base.hpp>

namespace memsub::trace {

struct lackey_reader_params {
    /// Deliver I records as `instruction_fetch` accesses (they are counted either way).
    bool emit_instruction_fetches = false;
    /// Skip lines that are not Lackey records or Valgrind messages instead of failing.
    bool skip_unknown_lines = false;
    /// Size of the one read buffer (constant memory).
    std::size_t buffer_bytes = std::size_t{1} << 20;
    /// Longest accepted line; longer lines are an input error.
    std::size_t max_line_bytes = 4096;
};

class lackey_reader : public detail::reader_base<lackey_reader, lackey_reader_params> {
public:
    static constexpr std::string_view format_name = "lackey";
    static constexpr std::string_view component = "memsub::trace::lackey_reader";
    static constexpr auto position_kind = input_error::position_kind::line_number;
    using reader_base::reader_base;

    bool next(memsub::access& out) {
        error_.check();
        return next_parsed_line(out);
    }

    /// I records seen so far (whether or not they were delivered).
    [[nodiscard]] std::uint64_t instructions() const noexcept { return instructions_; }

private:
    friend reader_base;

    /// The exact layout Valgrind prints ("I  hex,dec" / " X hex,dec"), parsed in one pass;
    /// false when the line is anything else (then `parse` decides, with a precise message).
    static bool parse_exact(std::string_view line, char& tag, std::uint64_t& addr,
                            std::uint64_t& size) noexcept {
        if (line.size() < 6 || line[2] != ' ') return false;
        if (line[0] == 'I' && line[1] == ' ')
            tag = 'I';
        else if (line[0] == ' ' && (line[1] == 'L' || line[1] == 'S' || line[1] == 'M'))
            tag = line[1];
        else
            return false;
        std::size_t i = 3;
        const std::size_t hex_begin = i;
        std::uint64_t a = 0;
        for (int d; i < line.size() && (d = detail::hex_value(line[i])) >= 0; ++i)
            a = (a << 4) | static_cast<std::uint64_t>(d);
        if (i == hex_begin || i - hex_begin > 16 || i == line.size() || line[i] != ',')
            return false;
        const std::size_t dec_begin = ++i;
        std::uint64_t n = 0;
        for (; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i)
            n = n * 10 + static_cast<std::uint64_t>(line[i] - '0');
        if (i != line.size() || i == dec_begin || i - dec_begin > 9) return false; // < 10^9
        addr = a;
        size = n;
        return true;
    }

    /// Parses one line; true when it produced an access in `out`.
    bool parse(std::string_view line, memsub::access& out) {
        char t = 0;
        std::uint64_t addr = 0, size = 0;
        if (!parse_exact(line, t, addr, size)) parse_general(line, t, addr, size);
        if (t == 0) return false; // a Valgrind message, blank or skipped line
        return emit(t, addr, size, out);
    }

    /// Any other line: Valgrind messages, blank lines, lenient spacing, or an error. Sets `t` to
    /// 0 for lines that carry no record.
    void parse_general(std::string_view line, char& t, std::uint64_t& addr, std::uint64_t& size) {
        t = 0;
        if (line.starts_with("==") || line.starts_with("--")) return; // Valgrind message
        std::string_view rest = line;
        const std::string_view tag = detail::next_token(rest);
        if (tag.empty()) return; // blank line
        const char c = tag.size() == 1 ? tag[0] : '\0';
        if (c != 'I' && c != 'L' && c != 'S' && c != 'M') {
            if (p_.skip_unknown_lines) return;
            fail("not a Lackey record (expected 'I', 'L', 'S', 'M' or a Valgrind message)");
        }
        const std::string_view field = detail::next_token(rest);
        if (!detail::is_blank_line(rest)) fail("unexpected text after the record");
        const std::size_t comma = field.find(',');
        if (comma == std::string_view::npos) fail("missing ',' between address and size");
        char bad = 0;
        auto st = detail::parse_hex(field.substr(0, comma), addr, bad);
        if (st != detail::number_status::ok)
            fail(detail::number_problem(st, bad, "address", "hex"));
        st = detail::parse_decimal(field.substr(comma + 1), size, bad);
        if (st != detail::number_status::ok)
            fail(detail::number_problem(st, bad, "size", "decimal"));
        if (size > std::numeric_limits<std::uint32_t>::max()) fail("size does not fit in 32 bits");
        t = c;
    }

    bool emit(char t, std::uint64_t addr, std::uint64_t size, memsub::access& out) {
        out = memsub::access{};
        out.address = byte_address{addr};
        out.size = static_cast<std::uint32_t>(size);
        if (t == 'I') {
            ++instructions_;
            last_pc_ = addr;
            if (!p_.emit_instruction_fetches) return false;
            out.pc = addr;
            out.kind = access_kind::instruction_fetch;
            return true;
        }
        out.pc = last_pc_;
        out.kind = t == 'S' ? access_kind::store : access_kind::load;
        out.read_modify_write = t == 'M';
        return true;
    }

    std::uint64_t last_pc_ = 0;
    std::uint64_t instructions_ = 0;
};

static_assert(trace_reader<lackey_reader>);

} // namespace memsub::trace
