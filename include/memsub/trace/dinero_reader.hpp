// memsub — reader for Dinero's "din" text traces (Dinero III/IV input format).
//
// Format (Dinero IV `tracein_din`, Hill & Edler; also the Dinero III manual): one record per line,
//     <label> <address> [<size>] [anything else: ignored, usable as a comment]
// with the label and the address in hexadecimal (an address may carry a "0x" prefix, as Dinero IV
// tolerates). Labels (Dinero IV d4.h access types):
//     0 read data → `load`            1 write data → `store`       2 instruction fetch
//     3 "escape record, unknown access type" (D4XMISC) → `load` when `params::misc_as_load`
//       (Dinero IV simulates it as a reference; default true), otherwise skipped
//     4 copy back dirty lines (cache flush), 5 invalidate → skipped: a memsub access record has no
//       flush operation; both are counted in `skipped()`.
//   Any other label is an input error.
// Size: the third field, when it is all hexadecimal digits, is the reference size in bytes (hex,
// as Dinero IV's own p2d converter writes it); it goes to `access.size` (0 = unknown when absent).
// A third field with non-hex characters is treated as the start of the comment; set
// `params::read_size_field = false` to ignore the third field entirely.
// Instruction fetches (label 2) are counted in `instructions()` and delivered only when
// `params::emit_instruction_fetches` is true (default false, as for the Lackey reader).
// Deviations from Dinero IV: blank lines are skipped (Dinero stops with "short line"); addresses
// are not rounded down to a 4-byte word (Dinero IV's din reader masks `addr & ~3`); numbers that do
// not fit in 64 bits are errors (Dinero wraps silently).
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

struct dinero_reader_params {
    /// Deliver label-2 records as `instruction_fetch` accesses (they are counted either way).
    bool emit_instruction_fetches = false;
    /// Deliver label-3 (unknown type) records as loads; when false they are skipped.
    bool misc_as_load = true;
    /// Read a hexadecimal third field as the access size.
    bool read_size_field = true;
    std::size_t buffer_bytes = std::size_t{1} << 20;
    std::size_t max_line_bytes = 4096;
};

class dinero_reader : public detail::reader_base<dinero_reader, dinero_reader_params> {
public:
    static constexpr std::string_view format_name = "din";
    static constexpr std::string_view component = "memsub::trace::dinero_reader";
    static constexpr auto position_kind = input_error::position_kind::line_number;
    using reader_base::reader_base;

    bool next(memsub::access& out) {
        error_.check();
        return next_parsed_line(out);
    }

    /// Label-2 records seen so far (whether or not they were delivered).
    [[nodiscard]] std::uint64_t instructions() const noexcept { return instructions_; }
    /// Records read but not delivered (labels 4 and 5, label 3 unless `misc_as_load`).
    [[nodiscard]] std::uint64_t skipped() const noexcept { return skipped_; }

private:
    friend reader_base;

    bool parse(std::string_view line, memsub::access& out) {
        std::string_view rest = line;
        const std::string_view label_tok = detail::next_token(rest);
        if (label_tok.empty()) return false; // blank line
        std::uint64_t label = 0, addr = 0;
        char bad = 0;
        auto st = detail::parse_hex(label_tok, label, bad);
        if (st != detail::number_status::ok) fail(detail::number_problem(st, bad, "label", "hex"));
        if (label > 5) fail("unknown din label " + std::string(label_tok) + " (expected 0-5)");

        std::string_view addr_tok = detail::next_token(rest);
        if (detail::has_hex_prefix(addr_tok)) addr_tok.remove_prefix(2);
        st = detail::parse_hex(addr_tok, addr, bad);
        if (st != detail::number_status::ok)
            fail(detail::number_problem(st, bad, "address", "hex"));

        std::uint64_t size = 0;
        if (p_.read_size_field) {
            const std::string_view size_tok = detail::next_token(rest);
            std::uint64_t v = 0;
            st = detail::parse_hex(size_tok, v, bad);
            if (st == detail::number_status::overflow ||
                (st == detail::number_status::ok && v > std::numeric_limits<std::uint32_t>::max()))
                fail("size does not fit in 32 bits");
            if (st == detail::number_status::ok) size = v; // otherwise: a comment
        }

        out = memsub::access{};
        out.address = byte_address{addr};
        out.size = static_cast<std::uint32_t>(size);
        switch (label) {
        case 0:
            out.kind = access_kind::load;
            return true;
        case 1:
            out.kind = access_kind::store;
            return true;
        case 2:
            ++instructions_;
            if (!p_.emit_instruction_fetches) return false;
            out.kind = access_kind::instruction_fetch;
            out.pc = addr;
            return true;
        case 3:
            if (p_.misc_as_load) {
                out.kind = access_kind::load;
                return true;
            }
            ++skipped_;
            return false;
        default:
            ++skipped_;
            return false; // 4 flush, 5 invalidate
        }
    }

    std::uint64_t instructions_ = 0;
    std::uint64_t skipped_ = 0;
};

static_assert(trace_reader<dinero_reader>);

} // namespace memsub::trace
