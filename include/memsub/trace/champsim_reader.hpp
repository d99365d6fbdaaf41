// memsub — reader for ChampSim's binary instruction traces (`*.champsimtrace`).
//
// Format ([ChampSim], inc/trace_instruction.h, `input_instr`): no header; packed little-endian
// 64-byte records, one per retired instruction:
//     offset 0   uint64 ip                       (the instruction's address)
//     offset 8   uint8  is_branch, offset 9 uint8 branch_taken
//     offset 10  uint8  destination_registers[2], offset 12 uint8 source_registers[4]
//     offset 16  uint64 destination_memory[2]    (addresses the instruction writes; 0 = none)
//     offset 32  uint64 source_memory[4]         (addresses the instruction reads; 0 = none)
// The traces are usually distributed compressed (`.champsimtrace.xz`, `.gz`); this reader takes
// the decompressed bytes from any byte source (a file, or a stream such as `xz -dc`'s output).
// CloudSuite's variant (`cloudsuite_instr`: 4 destinations and an ASID, 86 bytes) is a different
// format and is not read here.
//
// Mapping to `memsub::access`, in the order ChampSim's core issues them (its `ooo_model_instr`
// drops the zero addresses and dispatches an instruction's loads before its stores):
//   * each non-zero source_memory[i], in array order: a `load`;
//   * then each non-zero destination_memory[j]: a `store`;
//   * pc ← ip for both; size 0 ("the whole line": the format carries no operand size, and
//     ChampSim's caches see each address as one line access); requester ← `params::requester`.
//   * with `params::instruction_fetches`, first an `instruction_fetch` at ip whenever ip lies in
//   another
//     `fetch_line_bytes` block than the previous instruction's (ChampSim fetches one block for a
//     run of instructions in the same block).
// An instruction with no memory operand yields no access (and no fetch unless it starts a block).
// `instructions()` counts the records read; `records()` the accesses delivered (TR5).
//
// Errors (TR4): a truncated final record is an input error at its byte offset; with
// `params::strict_flags` (the default) so is a record whose is_branch or branch_taken byte is not
// 0 or 1, or that is taken without being a branch — what a file of another format (CloudSuite's
// records, a compressed file read raw) shows within its first records. Messages name the record
// index (0-based) beside the byte offset. Every access of the records before the bad one has been
// delivered; the bad record yields none.
// Decision: strict flags by default. ChampSim itself reads any bytes, so a wrong file runs to
// the end with garbage addresses; the two flag bytes are the only redundancy the format has, and
// every tracer writes them as booleans. `strict_flags = false` reads such files anyway.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/trace/concept.hpp>
#include <memsub/trace/detail/little_endian.hpp>
#include <memsub/trace/detail/reader_base.hpp>

namespace memsub::trace {

struct champsim_reader_params {
    /// Also deliver an `instruction_fetch` at the instruction's ip when it starts a new fetch
    /// block.
    bool instruction_fetches = false;
    /// The fetch block for `instruction_fetches` (a power of two, 4 .. 4096; ChampSim's L1I
    /// line is 64 B).
    std::uint32_t fetch_line_bytes = 64;
    /// Refuse records whose branch flags are not booleans (see the header comment).
    bool strict_flags = true;
    /// The requester (core) every access carries.
    std::uint32_t requester = 0;
    std::size_t buffer_bytes = std::size_t{1} << 20;
};

class champsim_reader : public detail::reader_base<champsim_reader, champsim_reader_params> {
public:
    static constexpr std::string_view format_name = "champsim";
    static constexpr std::string_view component = "memsub::trace::champsim_reader";
    static constexpr auto position_kind = input_error::position_kind::byte_offset;
    /// Bytes per instruction record.
    static constexpr std::size_t instruction_bytes = 64;
    /// Accesses one record can yield: a fetch, 4 loads and 2 stores.
    static constexpr std::size_t max_accesses_per_instruction = 7;
    using reader_base::reader_base;

    bool next(memsub::access& out) {
        error_.check();
        while (pending_next_ == pending_count_) {
            if (!decode_next_instruction()) return false;
        }
        out = pending_[pending_next_++];
        ++records_;
        return true;
    }

    /// Instruction records read so far (including those that yielded no access).
    [[nodiscard]] std::uint64_t instructions() const noexcept { return instructions_; }

private:
    friend reader_base;

    /// Reads one record into the pending accesses; false at the clean end of input.
    bool decode_next_instruction() {
        const std::uint64_t start = src_.byte_offset();
        const std::byte* rec = src_.take(instruction_bytes); // in place, no copy
        if (rec == nullptr) {
            std::array<std::byte, instruction_bytes> tail;
            const std::size_t got = src_.read(tail.data(), tail.size());
            if (got == 0) return false;
            fail_at(start, where() + "truncated record: " + std::to_string(got) + " of 64 bytes");
        }
        const auto is_branch = static_cast<std::uint8_t>(rec[8]);
        const auto taken = static_cast<std::uint8_t>(rec[9]);
        if (p_.strict_flags && (is_branch > 1 || taken > 1 || (taken == 1 && is_branch == 0)))
            fail_at(start, where() + "is_branch " + std::to_string(is_branch) + ", branch_taken " +
                               std::to_string(taken) +
                               ": not a ChampSim input_instr record (flags must be 0 or 1, "
                               "taken only for a branch; a CloudSuite or compressed trace?)");
        const std::uint64_t ip = detail::load_le<8>(rec);
        pending_count_ = 0;
        pending_next_ = 0;
        if (p_.instruction_fetches) {
            const std::uint64_t block = ip >> fetch_shift_;
            if (instructions_ == 0 || block != last_fetch_block_)
                push(ip, ip, access_kind::instruction_fetch);
            last_fetch_block_ = block;
        }
        for (std::size_t i = 0; i < 4; ++i)
            if (const std::uint64_t a = detail::load_le<8>(rec + 32 + 8 * i); a != 0)
                push(a, ip, access_kind::load);
        for (std::size_t j = 0; j < 2; ++j)
            if (const std::uint64_t a = detail::load_le<8>(rec + 16 + 8 * j); a != 0)
                push(a, ip, access_kind::store);
        ++instructions_;
        return true;
    }

    void push(std::uint64_t address, std::uint64_t ip, access_kind kind) noexcept {
        memsub::access& a = pending_[pending_count_++];
        a = memsub::access{};
        a.address = byte_address{address};
        a.pc = ip;
        a.kind = kind;
        a.requester = p_.requester;
    }

    /// "record N: " for the record being decoded (instructions_ records precede it).
    [[nodiscard]] std::string where() const {
        return "record " + std::to_string(instructions_) + ": ";
    }

    static void validate(const params& p) {
        const std::uint32_t b = p.fetch_line_bytes;
        memsub::require(b >= 4 && b <= 4096 && (b & (b - 1)) == 0, component, "fetch_line_bytes", b,
                        "must be a power of two in 4..4096");
    }

    std::array<memsub::access, max_accesses_per_instruction> pending_{};
    std::size_t pending_count_ = 0, pending_next_ = 0;
    std::uint64_t instructions_ = 0;
    std::uint64_t last_fetch_block_ = 0;
    std::uint32_t fetch_shift_ = static_cast<std::uint32_t>(std::countr_zero(p_.fetch_line_bytes));
};

static_assert(trace_reader<champsim_reader>);

} // namespace memsub::trace
