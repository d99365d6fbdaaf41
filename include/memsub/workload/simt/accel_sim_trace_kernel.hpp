// memsub — `simt::accel_sim_trace_kernel`: [Accel-Sim] SASS traces (`kernel-N.traceg`, read by
// trace/accel_sim_reader.hpp) replayed as a SIMT kernel (models `simt_kernel`,
// workload/simt/gto_scheduler.hpp), so that a traced program's warp instructions take the
// built-in kernels' path: gto_scheduler places thread blocks on the SMs (one per SM in turn,
// then whenever an SM has room) and interleaves each SM's warps greedy-then-oldest, then the
// host's coalescer and L1s. Each file is one launch.
//
// Decision: thread blocks are issued in file order, as Accel-Sim issues them (the k-th block of
// the file is CTA k); a block is read when the scheduler starts it and a warp's instructions are
// freed when it exits, so memory holds the resident blocks only (at most 8 per SM), not the
// trace. A block without memory instructions is invisible to the reader: the blocks after the
// last one read start empty and exit at once.
//
// Decision: every load stalls its warp for the scheduler's load latency (the reader delivers no
// register dependences); stores and atomics do not.
//
// Decision: the kernel keeps no cache state, so a host's L1s see the launches back to back (not
// flushed between launches, as for the built-in kernels' launches).
//
// A configuration error (no file) throws `config_error` at construction; an input error (a grid
// of more than 2^32 - 1 blocks, a block of 0 or more than 1024 threads, a warp beyond its block,
// more blocks than the grid) throws `input_error` naming the file and line.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/warp_instruction.hpp>
#include <memsub/trace/accel_sim_reader.hpp>
#include <memsub/workload/simt/gto_scheduler.hpp>
#include <memsub/workload/simt/kernel_support.hpp>

namespace memsub::workload::simt {

class accel_sim_trace_kernel {
public:
    /// One warp instruction as kept in memory: the active lanes' addresses are in the warp's
    /// address list, one per set bit of `mask`, lowest lane first.
    struct stored_instruction {
        std::uint64_t pc = 0;
        std::uint32_t mask = 0;
        std::uint32_t access_bytes = 4;
        access_kind kind = access_kind::load;
    };
    struct warp_state {
        std::vector<stored_instruction> instructions;
        std::vector<std::uint64_t> addresses;
        std::size_t next = 0;
        std::size_t next_address = 0;
    };

    static constexpr std::string_view component = "memsub::workload::accel_sim_trace_kernel";

    /// `files`: the launches' `.traceg` files, in launch order (at least one).
    accel_sim_trace_kernel(std::string name, std::vector<std::filesystem::path> files)
        : name_(std::move(name))
        , files_(std::move(files)) {
        memsub::require(!files_.empty(), component, "files", files_.size(),
                        "must name at least one .traceg file");
        for (const auto& f : files_) {
            std::error_code ec;
            const auto size = std::filesystem::file_size(f, ec);
            if (!ec) total_bytes_ += size;
        }
    }

    bool next_launch(launch_shape& shape) {
        finish_file();
        if (next_file_ == files_.size()) return false;
        reader_.emplace(files_[next_file_++]);
        pending_.emplace();
        if (!reader_->next(*pending_)) pending_.reset(); // the header is read either way
        const auto& k = reader_->kernel();
        const std::uint64_t ctas = std::uint64_t{k.grid[0]} * k.grid[1] * k.grid[2];
        const std::uint64_t threads = std::uint64_t{k.block[0]} * k.block[1] * k.block[2];
        if (ctas > std::numeric_limits<std::uint32_t>::max())
            fail("the grid (" + dims(k.grid) + ") has " + std::to_string(ctas) +
                 " thread blocks, more than 2^32 - 1");
        if (threads == 0 || threads > 1024)
            fail("the block dim (" + dims(k.block) + ") has " + std::to_string(threads) +
                 " threads; a CUDA block has 1..1024");
        shape = {static_cast<std::uint32_t>(ctas), static_cast<std::uint32_t>(threads)};
        ctas_ = shape.ctas;
        threads_per_cta_ = shape.threads_per_cta;
        block_.assign((threads + warp_lanes - 1) / warp_lanes, warp_state{});
        current_block_.reset();
        ctas_in_grids_ += ctas;
        if (std::find(kernel_names_.begin(), kernel_names_.end(), k.name) == kernel_names_.end())
            kernel_names_.push_back(k.name);
        ++launches_;
        return true;
    }

    void start_warp(warp_state& w, const warp_origin& o) {
        if (current_block_ != o.cta) { // the scheduler starts blocks in order, 0, 1, ...
            read_block();
            current_block_ = o.cta;
        }
        w = std::move(block_[o.warp_in_cta]);
        block_[o.warp_in_cta] = warp_state{};
    }

    bool step(warp_state& w, warp_instruction& out) {
        if (w.next == w.instructions.size()) {
            w = warp_state{}; // the warp exits: its memory goes
            return false;
        }
        const stored_instruction& s = w.instructions[w.next++];
        out.pc = s.pc;
        out.active_mask = s.mask;
        out.kind = s.kind;
        out.access_bytes = s.access_bytes;
        out.stalls = s.kind == access_kind::load;
        for (std::uint32_t m = s.mask; m != 0; m &= m - 1)
            out.lanes[static_cast<std::size_t>(std::countr_zero(m))] =
                w.addresses[w.next_address++];
        return true;
    }

    [[nodiscard]] std::string_view name() const noexcept { return name_; }

    /// How far through its files the replay has read, in [0, 1] (by bytes).
    [[nodiscard]] std::optional<double> fraction_read() const noexcept {
        if (total_bytes_ == 0) return std::nullopt;
        const std::uint64_t now = bytes_done_ + (reader_ ? reader_->bytes_consumed() : 0);
        return std::min(1.0, static_cast<double>(now) / static_cast<double>(total_bytes_));
    }

    /// What was replayed, for the table's title.
    [[nodiscard]] std::string describe() const {
        std::string names;
        for (std::size_t i = 0; i < kernel_names_.size() && i < 3; ++i)
            names += (i ? ", " : "") + kernel_names_[i];
        if (kernel_names_.size() > 3)
            names += " and " + std::to_string(kernel_names_.size() - 3) + " more";
        const std::uint64_t skipped = skipped_ + open_skipped();
        return ", " + std::to_string(launches_) + " launch" + (launches_ == 1 ? "" : "es") +
               " of " + (names.empty() ? std::string("-") : names) + "; " +
               std::to_string(blocks_read_) + " of " + std::to_string(ctas_in_grids_) +
               " thread blocks with memory instructions; " +
               std::to_string(instructions_ + open_instructions()) + " instructions read, " +
               std::to_string(skipped) + " memory instruction" + (skipped == 1 ? "" : "s") +
               " the L1 does not see (shared, constant, texture) skipped";
    }

private:
    /// Reads the next thread block of the file into block_ (one instruction list per warp).
    void read_block() {
        for (auto& w : block_) w = warp_state{};
        if (!pending_) return; // past the last block with memory instructions
        const std::uint32_t id = pending_->cta;
        ++blocks_read_;
        do {
            if (pending_->warp_in_cta >= block_.size())
                fail("warp " + std::to_string(pending_->warp_in_cta) + " of a block of " +
                     std::to_string(threads_per_cta_) + " threads (" +
                     std::to_string(block_.size()) + " warps)");
            warp_state& w = block_[pending_->warp_in_cta];
            w.instructions.push_back({.pc = pending_->pc,
                                      .mask = pending_->active_mask,
                                      .access_bytes = pending_->access_bytes,
                                      .kind = pending_->kind});
            for (std::uint32_t m = pending_->active_mask; m != 0; m &= m - 1)
                w.addresses.push_back(
                    pending_->lanes[static_cast<std::size_t>(std::countr_zero(m))]);
            if (!reader_->next(*pending_)) pending_.reset();
        } while (pending_ && pending_->cta == id);
    }

    /// The launch of the open file has ended: nothing of it may be left unread.
    void finish_file() {
        if (!reader_) return;
        if (pending_) fail("more thread blocks than the grid's " + std::to_string(ctas_));
        instructions_ += reader_->instructions();
        skipped_ += reader_->skipped_memory();
        bytes_done_ += reader_->bytes_consumed();
        reader_.reset();
    }
    [[nodiscard]] std::uint64_t open_instructions() const noexcept {
        return reader_ ? reader_->instructions() : 0;
    }
    [[nodiscard]] std::uint64_t open_skipped() const noexcept {
        return reader_ ? reader_->skipped_memory() : 0;
    }

    static std::string dims(const std::array<std::uint32_t, 3>& d) {
        return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
    }

    [[noreturn]] void fail(const std::string& problem) const {
        throw memsub::input_error(reader_->name(), memsub::input_error::position_kind::line_number,
                                  reader_->position().value, problem);
    }

    std::string name_;
    std::vector<std::filesystem::path> files_;
    std::size_t next_file_ = 0;
    std::optional<trace::accel_sim_reader> reader_;
    std::optional<warp_instruction> pending_; ///< the first instruction of the next block
    std::vector<warp_state> block_;           ///< the block being started, per warp
    std::optional<std::uint32_t> current_block_;
    std::uint32_t ctas_ = 0, threads_per_cta_ = 0;
    std::uint64_t total_bytes_ = 0, bytes_done_ = 0;
    std::uint64_t launches_ = 0, ctas_in_grids_ = 0, blocks_read_ = 0;
    std::uint64_t instructions_ = 0, skipped_ = 0;
    std::vector<std::string> kernel_names_;
};
static_assert(simt_kernel<accel_sim_trace_kernel>);

} // namespace memsub::workload::simt
