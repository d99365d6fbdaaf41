// memsub — reader for plain-text address traces: one address per line.
//
// Format accepted (one record per line):
//     <address> [<kind>] [# comment]
//   * `#` starts a comment that runs to the end of the line; blank and comment-only lines are
//     skipped; fields are separated by blanks or tabs; a trailing '\r' is ignored.
//   * <address> is read in `params::base`:
//       automatic (default) — "0x"/"0X" prefix → hexadecimal, otherwise decimal. A bare hex
//                  address such as `7ffe1000` is therefore an error ("bad decimal digit"), never
//                  silently misread; use `number_base::hex` for files of bare hex addresses;
//       hex      — hexadecimal with or without the "0x" prefix;
//       decimal  — decimal digits only.
//   * <kind>, optional: `R`/`r` → load, `W`/`w` → store, `I`/`i` → instruction fetch;
//     absent → load. Anything else, or a third field, is an input error.
// The access size is not carried (0 = the whole line).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/trace/concept.hpp>
#include <memsub/trace/detail/parse.hpp>
#include <memsub/trace/detail/reader_base.hpp>

namespace memsub::trace {

enum class number_base : std::uint8_t { automatic, hex, decimal };

struct text_reader_params {
    number_base base = number_base::automatic;
    std::size_t buffer_bytes = std::size_t{1} << 20;
    std::size_t max_line_bytes = 4096;
};

class text_reader : public detail::reader_base<text_reader, text_reader_params> {
public:
    static constexpr std::string_view format_name = "text";
    static constexpr std::string_view component = "memsub::trace::text_reader";
    static constexpr auto position_kind = input_error::position_kind::line_number;
    using reader_base::reader_base;

    bool next(memsub::access& out) {
        error_.check();
        return next_parsed_line(out);
    }

private:
    friend reader_base;

    static void validate(const params& p) {
        memsub::require(p.base == number_base::automatic || p.base == number_base::hex ||
                            p.base == number_base::decimal,
                        component, "base", static_cast<std::uint64_t>(p.base),
                        "must be automatic, hex or decimal");
    }

    bool parse(std::string_view line, memsub::access& out) {
        if (const auto hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        std::string_view rest = line;
        std::string_view addr_tok = detail::next_token(rest);
        if (addr_tok.empty()) return false; // blank or comment-only line
        const std::string_view kind_tok = detail::next_token(rest);
        if (!detail::is_blank_line(rest)) fail("unexpected third field");

        std::uint64_t addr = 0;
        char bad = 0;
        detail::number_status st{};
        const bool prefixed = detail::has_hex_prefix(addr_tok);
        if (p_.base == number_base::decimal || (p_.base == number_base::automatic && !prefixed)) {
            st = detail::parse_decimal(addr_tok, addr, bad);
            if (st != detail::number_status::ok)
                fail(detail::number_problem(st, bad, "address", "decimal"));
        } else {
            if (prefixed) addr_tok.remove_prefix(2);
            st = detail::parse_hex(addr_tok, addr, bad);
            if (st != detail::number_status::ok)
                fail(detail::number_problem(st, bad, "address", "hex"));
        }

        out = memsub::access{};
        out.address = byte_address{addr};
        if (kind_tok.empty()) return true;
        if (kind_tok.size() == 1) {
            switch (kind_tok[0]) {
            case 'R':
            case 'r':
                out.kind = access_kind::load;
                return true;
            case 'W':
            case 'w':
                out.kind = access_kind::store;
                return true;
            case 'I':
            case 'i':
                out.kind = access_kind::instruction_fetch;
                out.pc = addr;
                return true;
            default:
                break;
            }
        }
        fail("bad access kind '" + std::string(kind_tok) + "' (expected R, W or I)");
    }
};

static_assert(trace_reader<text_reader>);

} // namespace memsub::trace
