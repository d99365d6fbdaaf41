// memsub — one warp memory instruction: what a GPU L1 sees from one SIMT load or store.
//
// A warp instruction ([Dissertation] §3.1; docs/mechanisms/id_cache.md, 'Inputs from the host')
// carries the instruction's PC, the 32 lane addresses, the active mask (lanes that execute it:
// inactive lanes are threads past the end of the data, or lanes that took the other side of a
// branch or left a loop early), the kind and the per-lane access size. The SIMT kernels and the
// trace readers produce it, gpu::coalescer turns it into line requests and the divergence degree
// d, and the energy and memory-side models read it: a record several families share, so it lives
// in core/.
#pragma once

#include <array>
#include <cstdint>

#include <memsub/core/access.hpp>

namespace memsub {

/// Threads per warp (Table 3.1).
inline constexpr std::uint32_t warp_lanes = 32;

/// A warp slot of a scheduler, as the host names it when it reports the warp's loads complete:
/// `sm × max_warps_per_sm + slot`. Opaque to the host; valid while the warp owes completions.
struct warp_id {
    std::uint32_t value = 0xffffffffu;
    [[nodiscard]] constexpr bool valid() const noexcept { return value != 0xffffffffu; }
    friend constexpr bool operator==(warp_id, warp_id) noexcept = default;
};

struct warp_instruction {
    std::uint64_t pc = 0;
    /// Lane i's address (meaningful only when bit i of `active_mask` is set).
    std::array<std::uint64_t, warp_lanes> lanes{};
    std::uint32_t active_mask = 0;
    access_kind kind = access_kind::load;
    /// Bytes each active lane reads or writes at its address.
    std::uint32_t access_bytes = 4;
    /// The warp waits for this load's data before it issues its next instruction (the next
    /// instruction depends on it); independent loads issue back to back (greedy scheduling).
    bool stalls = true;
    // Where it came from (the scheduler fills these).
    /// Kernel launch (0, 1, …) the instruction belongs to.
    std::uint32_t launch = 0;
    std::uint32_t sm = 0;
    std::uint32_t cta = 0;
    /// Warp index inside its CTA: thread (cta, warp_in_cta × 32 + lane).
    std::uint32_t warp_in_cta = 0;
    /// The warp's age (launch order over the whole run; GTO's "oldest").
    std::uint64_t warp_age = 0;
    /// The scheduler cycle the instruction issued in.
    std::uint64_t issue_cycle = 0;
    /// The issuing warp's slot, for `gto_scheduler::hold` / `complete` in host latency mode.
    warp_id warp{};
    /// Set by the kernel (0 unless its `step` sets it): cycles of arithmetic after this
    /// instruction. The SM issues nothing for that many cycles and the warp is ready no earlier
    /// than `issue_cycle + 1 + alu_cycles`. The built-in kernels are memory-only and leave it 0.
    std::uint32_t alu_cycles = 0;

    [[nodiscard]] bool lane_active(std::uint32_t lane) const noexcept {
        return ((active_mask >> lane) & 1u) != 0;
    }
};

/// The access every line request of `w` copies (its PC, kind and SM as the requester; the
/// coalescer fills in address, size, sectors and divergence).
[[nodiscard]] constexpr access request_prototype(const warp_instruction& w) noexcept {
    access proto{};
    proto.pc = w.pc;
    proto.kind = w.kind;
    proto.requester = w.sm;
    return proto;
}

} // namespace memsub
