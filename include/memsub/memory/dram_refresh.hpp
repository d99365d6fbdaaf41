// memsub — the refresh parts of `dram_controller` (model `refresh_rule`,
// memory/controller_parts_concept.hpp): how a due all-bank refresh meets the requests the
// controller still has to place. The refresh itself (one REF per rank every tREFI for tRFC, or
// per-bank REFSB) is `dram_channel`'s (dram_channel.hpp).
//   * `jedec_postponed_refresh` (the default): a due refresh waits for the commands already
//     placed in its rank (postponed, as JEDEC allows) and then precharges every open
//     bank at once.
//   * `dramsim3_refresh`: a due refresh preempts its rank ([DRAMSim3] src/command_queue.cc
//     FinishRefresh, "we simply implement an ASAP approach"; GetCommandToIssue skips the rank's
//     queues while its refresh is pending): a request is not selected if its column command
//     would issue at or after the rank's next refresh; its PRE / ACT before the due cycle still
//     issue. The refresh's PREs go one per cycle, the REF tRP after the last (channel_state.cc
//     GetReadyCommand returns one ready PRE of the rank per cycle for the pending REF).
// Decision: one part per simulator's rule set, not two independent switches. The two rules come
// from one source and are only ever compared together (dramsim3_controller); the four
// combinations of two switches gave three configurations nobody ran. A new rule (per-bank
// preemption, a bounded postponement) is a new part.
// Storage (hardware view): none beyond `dram_channel`'s per-rank refresh counter.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/core/types.hpp>
#include <memsub/memory/controller_parts_concept.hpp>
#include <memsub/memory/dram_channel.hpp>
#include <memsub/memory/dram_timing.hpp>

namespace memsub::memory {

struct jedec_postponed_refresh {
    static constexpr std::string_view name = "JEDEC postponed refresh";
    static constexpr refresh_precharge precharge = refresh_precharge::all_at_once;
    /// A refresh never holds back a request: it waits for the commands placed before it.
    [[nodiscard]] static std::uint64_t preempt_deadline(const dram_channel&,
                                                        std::uint32_t) noexcept {
        return never;
    }
};

struct dramsim3_refresh {
    static constexpr std::string_view name = "DRAMSim3 refresh";
    static constexpr refresh_precharge precharge = refresh_precharge::one_per_cycle;
    /// The due cycle of the refresh of `bank`'s rank (all-bank refresh only; per-bank refresh
    /// and no refresh hold nothing back).
    [[nodiscard]] static std::uint64_t preempt_deadline(const dram_channel& ch,
                                                        std::uint32_t bank) noexcept {
        const dram_timing& t = ch.timing();
        if (t.refresh != refresh_mode::all_bank || t.tREFI == 0) return never;
        return ch.refresh_due_of_rank(ch.rank_of(bank));
    }
};

static_assert(refresh_rule<jedec_postponed_refresh>);
static_assert(refresh_rule<dramsim3_refresh>);

} // namespace memsub::memory
