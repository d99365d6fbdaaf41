// memsub — `trace::page_allocator`: virtual → physical translation for traces of several programs
// (processes) replayed on one machine. Each process's pages get physical frames of their own,
// allocated in first-touch order from one frame counter shared by every process. Without it,
// programs traced separately would share lines at equal virtual addresses, and a memory controller
// that maps only its physical capacity would fold wide virtual addresses onto the same rows.
//
// Decision: frames in first-touch order from one counter, as a freshly booted OS hands out free
// frames in order; the frame of a page is its rank among all processes' first touches. It gives
// the processes disjoint frames that together fill memory from frame 0, deterministically.
// Considered: a random frame per page (an aged OS's scattered free list), which spreads pages over
// banks and rows in a way that depends on a seed the trace does not carry, and placing each
// process in its own slice of memory, which needs the footprints before reading the traces.
//
// Decision: not a `placement_policy` (placement/concept.hpp): a placement decides which memory
// partition of one address space holds a page; this is the operating system's page table in front
// of any memory system, one per process.
//
// Cost: a lookup per translation; a map node is added only on a page's first touch. Configuration
// errors (no process, a page size not a power of two, a memory size not a multiple of it) throw
// `config_error` at construction.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <memsub/core/errors.hpp>

namespace memsub::trace {

/// The processes touched more distinct pages than the physical memory has frames.
class frames_exhausted : public std::runtime_error {
public:
    frames_exhausted(std::string_view component, std::uint64_t frames)
        : std::runtime_error(std::string(component) + ": the traces touch more than " +
                             std::to_string(frames) + " pages (every frame of the physical memory)")
        , frames_(frames) {}
    /// The physical memory's frames.
    [[nodiscard]] std::uint64_t frames() const noexcept { return frames_; }

private:
    std::uint64_t frames_;
};

class page_allocator {
public:
    static constexpr std::string_view component = "memsub::trace::page_allocator";

    struct params {
        /// Processes (one per traced program); `translate`'s process is below it.
        std::uint32_t processes = 1;
        /// Page and frame size (a power of two).
        std::uint32_t page_bytes = 4096;
        /// Physical memory (a multiple of page_bytes): its frames are handed out.
        std::uint64_t memory_bytes = std::uint64_t{4} << 30;
    };

    page_allocator() : page_allocator(params{}) {}
    explicit page_allocator(const params& p)
        : frames_(validated(p).processes)
        , page_shift_(log2(p.page_bytes))
        , frame_count_(p.memory_bytes >> log2(p.page_bytes)) {}

    /// The physical address of `address` in process `process`'s address space (process <
    /// params::processes). The page's first touch takes the next free frame; throws
    /// `frames_exhausted` once every frame is taken.
    std::uint64_t translate(std::uint32_t process, std::uint64_t address) {
        const std::uint64_t page = address >> page_shift_;
        auto [it, added] = frames_[process].try_emplace(page, next_frame_);
        if (added && ++next_frame_ > frame_count_) throw frames_exhausted(component, frame_count_);
        const std::uint64_t offset_mask = (std::uint64_t{1} << page_shift_) - 1;
        return (it->second << page_shift_) | (address & offset_mask);
    }

    /// Frames handed out so far (distinct pages touched, over all processes).
    [[nodiscard]] std::uint64_t frames_used() const noexcept { return next_frame_; }
    /// The physical memory's frames.
    [[nodiscard]] std::uint64_t frames() const noexcept { return frame_count_; }

private:
    static std::uint32_t log2(std::uint32_t v) noexcept {
        std::uint32_t s = 0;
        while ((std::uint64_t{1} << (s + 1)) <= v) ++s;
        return s;
    }
    static const params& validated(const params& p) {
        require(p.processes >= 1, component, "processes", p.processes, "must be >= 1");
        require(p.page_bytes >= 1 && (p.page_bytes & (p.page_bytes - 1)) == 0, component,
                "page_bytes", p.page_bytes, "must be a power of two");
        require(p.memory_bytes >= p.page_bytes && p.memory_bytes % p.page_bytes == 0, component,
                "memory_bytes", p.memory_bytes, "must be a non-zero multiple of page_bytes");
        return p;
    }

    std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> frames_; ///< per process
    std::uint32_t page_shift_;
    std::uint64_t frame_count_;
    std::uint64_t next_frame_ = 0;
};

} // namespace memsub::trace
