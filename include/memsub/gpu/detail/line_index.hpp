// memsub — `gpu::detail::line_index`: line number → entry index for tables of lines in flight
// (the MSHR tables of gpu/timing.hpp and of a host's memory side). Open addressing with linear
// probing and backward-shift deletion (no tombstones); the table never holds more than half its
// slots. The entries live in the caller's pool, which `line_of(entry)` reads, so the index
// stores 4 bytes per slot. Allocates only in `reset` and `grow`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memsub::gpu::detail {

class line_index {
public:
    static constexpr std::uint32_t none = 0xffffffffu;

    /// Empties the index and sizes it for up to `entries` entries (at most half full).
    void reset(std::size_t entries) {
        std::size_t slots = 1;
        unsigned bits = 0;
        while (slots < 2 * entries || slots < 2) {
            slots *= 2;
            ++bits;
        }
        slots_.assign(slots, none);
        mask_ = slots - 1;
        shift_ = 64 - bits;
    }
    /// Resizes for up to `entries` entries, keeping the ones it holds.
    template <class LineOf>
    void grow(std::size_t entries, LineOf&& line_of) {
        std::vector<std::uint32_t> old;
        old.swap(slots_);
        reset(entries);
        for (const std::uint32_t e : old)
            if (e != none) insert(line_of(e), e);
    }
    /// Entries the index holds at most before it must be reset larger.
    [[nodiscard]] std::size_t capacity() const noexcept { return slots_.size() / 2; }

    /// The entry of `line`, or none.
    template <class LineOf>
    [[nodiscard]] std::uint32_t find(std::uint64_t line, LineOf&& line_of) const noexcept {
        for (std::size_t s = slot_of(line);; s = (s + 1) & mask_) {
            const std::uint32_t e = slots_[s];
            if (e == none || line_of(e) == line) return e;
        }
    }
    /// Adds `entry` for `line` (not in the index; room left: below capacity()).
    void insert(std::uint64_t line, std::uint32_t entry) noexcept {
        std::size_t s = slot_of(line);
        while (slots_[s] != none) s = (s + 1) & mask_;
        slots_[s] = entry;
    }
    /// Removes `entry` (of `line`): later entries of its probe run move up into the hole.
    template <class LineOf>
    void erase(std::uint64_t line, std::uint32_t entry, LineOf&& line_of) noexcept {
        std::size_t hole = slot_of(line);
        while (slots_[hole] != entry) hole = (hole + 1) & mask_;
        for (std::size_t s = (hole + 1) & mask_; slots_[s] != none; s = (s + 1) & mask_) {
            const std::size_t home = slot_of(line_of(slots_[s]));
            // Move s into the hole unless its home lies cyclically in (hole, s].
            if (((s - home) & mask_) >= ((s - hole) & mask_)) {
                slots_[hole] = slots_[s];
                hole = s;
            }
        }
        slots_[hole] = none;
    }

private:
    [[nodiscard]] std::size_t slot_of(std::uint64_t line) const noexcept {
        return static_cast<std::size_t>((line * 0x9e3779b97f4a7c15ull) >> shift_) & mask_;
    }

    std::vector<std::uint32_t> slots_;
    std::size_t mask_ = 0;
    unsigned shift_ = 63;
};

} // namespace memsub::gpu::detail
