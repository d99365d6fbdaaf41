// memsub — reader for Accel-Sim's SASS traces (`kernel-N.traceg`, the post-processed text the
// NVBit tracer writes), one warp memory instruction at a time, streaming.
//
// Format (Accel-Sim's tracer_nvbit and its trace parser, trace versions 3 and 4):
//   * header lines `-key = value` before the first thread block: `-kernel name`, `-kernel id`,
//     `-grid dim = (x,y,z)`, `-block dim = (x,y,z)`, `-shmem`, `-nregs`, `-binary version`,
//     `-cuda stream id`, `-shmem base_addr`, `-local mem base_addr`, `-nvbit version`,
//     `-accelsim tracer version` (others are kept as text and otherwise ignored);
//   * `#` lines are comments; `#BEGIN_TB` / `#END_TB` bracket a thread block (CTA);
//   * `thread block = x,y,z`, then per warp `warp = w` and `insts = n`, then n instruction
//     lines:  PC mask dest_num [dest regs] opcode src_num [src regs] mem_width [addresses] [imm]
//     PC and mask in hex (no prefix), counts decimal; mem_width 0 = not a memory instruction;
//     otherwise an address format and the addresses of the active lanes:
//       0 list_all:    one hex address per active lane, lowest lane first;
//       1 base_stride: a hex base and a decimal stride: the active lanes form one run and lane
//                      k of the run is at base + k × stride;
//       2 base_delta:  a hex base for the first active lane, then one decimal delta per further
//                      active lane from the previous active lane's address.
//     A trailing decimal token (the immediate of newer tracers) is accepted and ignored.
// Which instructions are delivered: loads and stores the L1 data cache sees — global and
// generic (LDG, LD, STG, ST, LDGSTS's global read) and local (LDL, STL) memory — as
// `warp_instruction` with the PC, the 32 lane addresses (0 for inactive lanes),
// the active mask, the kind and the per-lane access size. Atomics and reductions (ATOM, ATOMG,
// RED) are delivered as stores (a GPU L1 does not keep them: write-evict). Shared memory (LDS,
// STS, ATOMS, LDSM), constant (LDC, ULDC), texture and surface instructions never reach the L1D
// and are skipped unless `params::include_all_memory`; non-memory instructions are counted only.
// The access size comes from the opcode, as Accel-Sim does (NVBit's width can be wrong): a
// numeric modifier (.64, .128) in bits, or .U8/.S8/.U16/.S16, else 4 bytes.
// Order: the file's (each warp's instructions one after another, warp by warp, CTA by CTA); an
// execution order is the host's (e.g. workload/simt's GTO scheduler over SMs). `cta` is the
// thread block's linear index x + y·gx + z·gx·gy; `warp_in_cta` the warp number; `launch` the
// kernel id − 1.
// Errors: an `input_error` naming the file and line for a malformed header, a bad number, a
// wrong token count, an unknown address format, a base_stride record whose active lanes are
// not one run (Accel-Sim would silently read 0 for the lanes after the gap), an instruction
// outside a warp, or a warp whose instruction count differs from its `insts` line.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/warp_instruction.hpp>
#include <memsub/trace/detail/parse.hpp>
#include <memsub/trace/detail/reader_base.hpp>

namespace memsub::trace {

struct accel_sim_reader_params {
    /// Also deliver shared, constant, texture and surface memory instructions (as loads and
    /// stores), which a GPU L1 data cache does not see.
    bool include_all_memory = false;
    /// Size of the one read buffer (constant memory).
    std::size_t buffer_bytes = std::size_t{1} << 20;
    /// Longest accepted line (32 listed addresses take about 600 bytes).
    std::size_t max_line_bytes = 16384;
};

/// The kernel's header, as far as it has been read.
struct accel_sim_kernel {
    std::string name;
    std::uint32_t id = 0;
    std::array<std::uint32_t, 3> grid{1, 1, 1};
    std::array<std::uint32_t, 3> block{1, 1, 1};
    std::uint32_t shmem_bytes = 0;
    std::uint32_t registers = 0;
    std::uint32_t binary_version = 0;
    std::uint32_t tracer_version = 0;
    std::uint64_t shmem_base = 0;
    std::uint64_t local_base = 0;
};

class accel_sim_reader : public detail::reader_base<accel_sim_reader, accel_sim_reader_params> {
public:
    static constexpr std::string_view format_name = "accel-sim";
    static constexpr std::string_view component = "memsub::trace::accel_sim_reader";
    static constexpr auto position_kind = input_error::position_kind::line_number;
    using reader_base::reader_base;
    using warp_instruction = memsub::warp_instruction;

    /// The next delivered memory instruction; false at the end of the file (after checking the
    /// last warp's instruction count). Input errors as the header comment says.
    bool next(warp_instruction& out) {
        error_.check();
        std::string_view line;
        while (src_.next_line(line, p_.max_line_bytes)) {
            if (parse(line, out)) {
                ++records_;
                return true;
            }
        }
        finish_warp();
        return false;
    }

    [[nodiscard]] const accel_sim_kernel& kernel() const noexcept { return kernel_; }
    /// Instruction lines read (every instruction, memory or not).
    [[nodiscard]] std::uint64_t instructions() const noexcept { return instructions_; }
    /// Memory instructions not delivered (shared, constant, texture, surface).
    [[nodiscard]] std::uint64_t skipped_memory() const noexcept { return skipped_memory_; }

private:
    friend reader_base;

    enum class space : std::uint8_t { none, l1d_load, l1d_store, other_load, other_store };

    /// One line; true when it produced a delivered instruction in `out`.
    bool parse(std::string_view line, warp_instruction& out) {
        while (!line.empty() && detail::is_blank(line.front())) line.remove_prefix(1);
        while (!line.empty() && detail::is_blank(line.back())) line.remove_suffix(1);
        if (line.empty()) return false;
        if (line.front() == '#') {
            if (line.starts_with("#BEGIN_TB")) {
                finish_warp();
                warp_ = -1;
            } else if (line.starts_with("#END_TB")) {
                finish_warp();
                warp_ = -1;
            }
            return false;
        }
        if (line.front() == '-') {
            header(line.substr(1));
            return false;
        }
        if (const auto v = value_of(line, "thread block")) {
            const auto xyz = triple(*v, "thread block");
            const auto& g = kernel_.grid;
            cta_ = xyz[0] + std::uint64_t{xyz[1]} * g[0] + std::uint64_t{xyz[2]} * g[0] * g[1];
            return false;
        }
        if (const auto v = value_of(line, "warp")) {
            finish_warp();
            warp_ = static_cast<std::int64_t>(decimal(*v, "warp number", 1u << 20));
            return false;
        }
        if (const auto v = value_of(line, "insts")) {
            if (warp_ < 0) fail("an insts line outside a warp");
            declared_ = decimal(*v, "insts", std::numeric_limits<std::uint32_t>::max());
            return false;
        }
        return instruction(line, out);
    }

    bool instruction(std::string_view rest, warp_instruction& out) {
        if (warp_ < 0) fail("an instruction line outside a warp (no 'warp = N' before it)");
        ++instructions_;
        ++seen_;
        const std::uint64_t pc = hex(detail::next_token(rest), "PC");
        const auto mask =
            static_cast<std::uint32_t>(hex(detail::next_token(rest), "active mask", ~0u));
        const std::uint64_t dests = decimal(detail::next_token(rest), "destination count", 64);
        for (std::uint64_t i = 0; i < dests; ++i) register_token(rest, "destination register");
        const std::string_view opcode = detail::next_token(rest);
        if (opcode.empty()) fail("missing opcode");
        const std::uint64_t srcs = decimal(detail::next_token(rest), "source count", 64);
        for (std::uint64_t i = 0; i < srcs; ++i) register_token(rest, "source register");
        const std::uint64_t width = decimal(detail::next_token(rest), "memory width", 1u << 20);
        if (width == 0) {
            trailing(rest);
            return false;
        }
        std::array<std::uint64_t, warp_lanes> lanes{};
        decode_addresses(rest, mask, lanes);
        trailing(rest);
        const space s = space_of(opcode);
        const bool l1d = s == space::l1d_load || s == space::l1d_store;
        if (!l1d && !p_.include_all_memory) {
            ++skipped_memory_;
            return false;
        }
        out = warp_instruction{};
        out.pc = pc;
        out.lanes = lanes;
        out.active_mask = mask;
        out.kind = s == space::l1d_store || s == space::other_store ? access_kind::store
                                                                    : access_kind::load;
        out.access_bytes = access_bytes_of(opcode);
        out.launch = kernel_.id > 0 ? kernel_.id - 1 : 0;
        out.cta = static_cast<std::uint32_t>(cta_);
        out.warp_in_cta = static_cast<std::uint32_t>(warp_);
        // Launch order: CTA by CTA, warp by warp (what "oldest" means to a GTO scheduler).
        const std::uint64_t threads =
            std::uint64_t{kernel_.block[0]} * kernel_.block[1] * kernel_.block[2];
        out.warp_age =
            cta_ * ((threads + warp_lanes - 1) / warp_lanes) + static_cast<std::uint64_t>(warp_);
        return true;
    }

    void decode_addresses(std::string_view& rest, std::uint32_t mask,
                          std::array<std::uint64_t, warp_lanes>& lanes) {
        const std::uint64_t format = decimal(detail::next_token(rest), "address format", 9);
        if (mask == 0) return; // no active lane: no address follows (formats 0 and 2)
        switch (format) {
        case 0: // list_all
            for (std::uint32_t m = mask; m != 0; m &= m - 1)
                lanes[std::countr_zero(m)] = hex(detail::next_token(rest), "lane address");
            return;
        case 1: { // base_stride: one run of active lanes
            const auto first = static_cast<std::uint32_t>(std::countr_zero(mask));
            const std::uint32_t run = mask >> first;
            if ((run & (run + 1)) != 0)
                fail("base_stride addresses with active lanes that are not one run (mask " +
                     hex_text(mask) + ")");
            const std::uint64_t base = hex(detail::next_token(rest), "base address");
            const std::int64_t stride = signed_decimal(detail::next_token(rest), "stride");
            for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(std::popcount(run)); ++k)
                lanes[first + k] = base + static_cast<std::uint64_t>(stride) * k;
            return;
        }
        case 2: { // base_delta
            std::uint64_t address = hex(detail::next_token(rest), "base address");
            bool first = true;
            for (std::uint32_t m = mask; m != 0; m &= m - 1) {
                if (!first)
                    address += static_cast<std::uint64_t>(
                        signed_decimal(detail::next_token(rest), "address delta"));
                first = false;
                lanes[std::countr_zero(m)] = address;
            }
            return;
        }
        default:
            fail("unknown address format " + std::to_string(format) +
                 " (0 list_all, 1 base_stride, 2 base_delta)");
        }
    }

    /// The memory space and direction of a memory instruction, from its opcode's first part.
    static space space_of(std::string_view opcode) noexcept {
        const std::string_view op = opcode.substr(0, opcode.find('.'));
        if (op == "LDG" || op == "LD" || op == "LDL" || op == "LDGSTS") return space::l1d_load;
        if (op == "STG" || op == "ST" || op == "STL" || op == "ATOM" || op == "ATOMG" ||
            op == "RED")
            return space::l1d_store;
        if (op.starts_with("ST") || op.starts_with("SUST") || op == "ATOMS")
            return space::other_store;
        return space::other_load; // LDS, LDSM, LDC, ULDC, TEX, TLD, SULD, …
    }

    /// Bytes per lane from the opcode's modifiers (Accel-Sim's get_datawidth_from_opcode).
    static std::uint32_t access_bytes_of(std::string_view opcode) noexcept {
        std::string_view rest = opcode;
        bool first = true;
        while (!rest.empty()) {
            const std::size_t dot = rest.find('.');
            const std::string_view tok = rest.substr(0, dot);
            rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
            if (std::exchange(first, false)) continue; // the operation itself
            std::string_view digits = tok;
            if (!digits.empty() && (digits.front() == 'U' || digits.front() == 'S'))
                digits.remove_prefix(1);
            std::uint64_t bits = 0;
            char bad = 0;
            if (detail::parse_decimal(digits, bits, bad) == detail::number_status::ok &&
                bits >= 8 && bits <= 1024 && bits % 8 == 0)
                return static_cast<std::uint32_t>(bits / 8);
        }
        return 4;
    }

    void header(std::string_view text) {
        const std::size_t eq = text.find('=');
        if (eq == std::string_view::npos) fail("a header line without '=': -" + std::string(text));
        std::string_view key = text.substr(0, eq), value = text.substr(eq + 1);
        while (!key.empty() && detail::is_blank(key.back())) key.remove_suffix(1);
        while (!value.empty() && detail::is_blank(value.front())) value.remove_prefix(1);
        constexpr auto u32 = std::numeric_limits<std::uint32_t>::max();
        if (key == "kernel name")
            kernel_.name = std::string(value);
        else if (key == "kernel id")
            kernel_.id = static_cast<std::uint32_t>(decimal(value, "kernel id", u32));
        else if (key == "grid dim")
            kernel_.grid = triple(value, "grid dim");
        else if (key == "block dim")
            kernel_.block = triple(value, "block dim");
        else if (key == "shmem")
            kernel_.shmem_bytes = static_cast<std::uint32_t>(decimal(value, "shmem", u32));
        else if (key == "nregs")
            kernel_.registers = static_cast<std::uint32_t>(decimal(value, "nregs", u32));
        else if (key == "binary version")
            kernel_.binary_version =
                static_cast<std::uint32_t>(decimal(value, "binary version", u32));
        else if (key == "accelsim tracer version")
            kernel_.tracer_version =
                static_cast<std::uint32_t>(decimal(value, "tracer version", u32));
        else if (key == "shmem base_addr")
            kernel_.shmem_base = hex(value, "shmem base_addr");
        else if (key == "local mem base_addr")
            kernel_.local_base = hex(value, "local mem base_addr");
        // Other keys (cuda stream id, nvbit version, …) carry nothing a cache needs.
    }

    /// "key = value" → value, when `line` starts with `key` followed by blanks and '='.
    static std::optional<std::string_view> value_of(std::string_view line, std::string_view key) {
        if (!line.starts_with(key)) return std::nullopt;
        std::string_view rest = line.substr(key.size());
        while (!rest.empty() && detail::is_blank(rest.front())) rest.remove_prefix(1);
        if (rest.empty() || rest.front() != '=') return std::nullopt;
        rest.remove_prefix(1);
        while (!rest.empty() && detail::is_blank(rest.front())) rest.remove_prefix(1);
        return rest;
    }

    /// "(x,y,z)" or "x,y,z": three decimal numbers.
    std::array<std::uint32_t, 3> triple(std::string_view v, std::string_view what) {
        if (!v.empty() && v.front() == '(') v.remove_prefix(1);
        if (!v.empty() && v.back() == ')') v.remove_suffix(1);
        std::array<std::uint32_t, 3> out{};
        for (std::size_t i = 0; i < 3; ++i) {
            const std::size_t comma = v.find(',');
            if ((i < 2) != (comma != std::string_view::npos))
                fail(std::string(what) + " must be three numbers x,y,z");
            std::string_view part = v.substr(0, comma);
            while (!part.empty() && detail::is_blank(part.front())) part.remove_prefix(1);
            while (!part.empty() && detail::is_blank(part.back())) part.remove_suffix(1);
            out[i] = static_cast<std::uint32_t>(
                decimal(part, what, std::numeric_limits<std::uint32_t>::max()));
            v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
        }
        return out;
    }

    std::uint64_t hex(std::string_view tok, std::string_view what,
                      std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
        if (detail::has_hex_prefix(tok)) tok.remove_prefix(2);
        std::uint64_t v = 0;
        char bad = 0;
        const auto st = detail::parse_hex(tok, v, bad);
        if (st != detail::number_status::ok) fail(detail::number_problem(st, bad, what, "hex"));
        if (v > max) fail(std::string(what) + " " + hex_text(v) + " is out of range");
        return v;
    }

    std::uint64_t decimal(std::string_view tok, std::string_view what, std::uint64_t max) {
        std::uint64_t v = 0;
        char bad = 0;
        const auto st = detail::parse_decimal(tok, v, bad);
        if (st != detail::number_status::ok) fail(detail::number_problem(st, bad, what, "decimal"));
        if (v > max)
            fail(std::string(what) + " " + std::to_string(v) + " is larger than " +
                 std::to_string(max));
        return v;
    }

    std::int64_t signed_decimal(std::string_view tok, std::string_view what) {
        const bool negative = !tok.empty() && tok.front() == '-';
        if (negative) tok.remove_prefix(1);
        const std::uint64_t magnitude =
            decimal(tok, what, std::uint64_t{1} << 63); // 2^63 only when negative
        if (!negative && magnitude == std::uint64_t{1} << 63)
            fail(std::string(what) + " does not fit in 64 bits");
        return negative ? static_cast<std::int64_t>(~magnitude + 1)
                        : static_cast<std::int64_t>(magnitude);
    }

    void register_token(std::string_view& rest, std::string_view what) {
        const std::string_view tok = detail::next_token(rest);
        if (tok.empty()) fail("missing " + std::string(what));
    }

    /// Nothing may follow but the immediate of newer tracers (one decimal number).
    void trailing(std::string_view rest) {
        const std::string_view imm = detail::next_token(rest);
        if (imm.empty()) return;
        if (!detail::next_token(rest).empty())
            fail("unexpected tokens after the instruction's addresses");
        (void)signed_decimal(imm, "immediate");
    }

    /// Checks the warp just ended had the instruction count its `insts` line declared.
    void finish_warp() {
        if (warp_ >= 0 && declared_ && seen_ != *declared_)
            fail("warp " + std::to_string(warp_) +
                 " declared insts = " + std::to_string(*declared_) + " but has " +
                 std::to_string(seen_) + " instruction lines");
        declared_.reset();
        seen_ = 0;
    }

    static std::string hex_text(std::uint64_t v) {
        constexpr char digits[] = "0123456789abcdef";
        std::string s;
        do {
            s.insert(s.begin(), digits[v & 15]);
            v >>= 4;
        } while (v != 0);
        return "0x" + s;
    }

    accel_sim_kernel kernel_;
    std::uint64_t cta_ = 0;
    std::int64_t warp_ = -1;                ///< the current warp, -1 outside one
    std::optional<std::uint64_t> declared_; ///< the current warp's insts line
    std::uint64_t seen_ = 0;                ///< instruction lines of the current warp so far
    std::uint64_t instructions_ = 0;
    std::uint64_t skipped_memory_ = 0;
};

} // namespace memsub::trace
