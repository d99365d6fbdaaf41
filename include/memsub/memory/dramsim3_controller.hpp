// memsub — the DRAMSim3-compatible controller: `dram_controller` with DRAMSim3's two-level
// queues (`bank_command_queues`), its refresh (`dramsim3_refresh`: a due refresh preempts the
// rank, its PREs one per cycle), FR-FCFS with its round-robin over the bank queues, and
// `dramsim3_params`, its queue sizes, drain and transfer rules as far as memsub models them
// ([DRAMSim3]: src/controller.cc, command_queue.cc, refresh.cc, channel_state.cc, commit 2981759).
// The fidelity suite (tests/memory/fidelity_test.cpp) runs it against DRAMSim3's own figures;
// tests/data/dramsim3/README.md compares.
#pragma once

#include <memsub/memory/bank_command_queues.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/dram_controller.hpp>
#include <memsub/memory/dram_refresh.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/fr_fcfs.hpp>
#include <memsub/memory/open_page.hpp>
#include <memsub/memory/row_policy_concept.hpp>
#include <memsub/memory/watermark_write_drain.hpp>

namespace memsub::memory {

template <row_policy RowPolicy = open_page, address_mapping Mapping = bit_field_mapping>
using dramsim3_controller = dram_controller<fr_fcfs, RowPolicy, Mapping, bank_command_queues,
                                            watermark_write_drain, dramsim3_refresh>;

/// DRAMSim3's parameters for `Controller` (by default `dramsim3_controller<>`): transaction
/// queues of 32 and per-bank command queues of 8 (its configs' cmd_queue_size); with
/// bank_command_queues its command-level issue of a miss's row and column commands
/// (`queues.row_commands_apart`); no bound on a write's wait, as DRAMSim3 (memsub's idle flush
/// kept: watermark_write_drain.hpp); and, with FR-FCFS, its round-robin over the bank queues
/// (command_queue.cc GetCommandToIssue: `round_robin_hits`, `round_robin_misses`). Its refresh
/// is the controller's type (`dramsim3_refresh`), not a parameter. On a `shared_queues`
/// controller the same settings give memsub's single queue with DRAMSim3's other rules, for
/// comparison (with `dramsim3_refresh` as its Refresh part for DRAMSim3's refresh too).
template <class Controller = dramsim3_controller<>>
[[nodiscard]] typename Controller::params dramsim3_params(const dram_timing& timing) {
    typename Controller::params p{};
    p.timing = timing;
    p.read_queue = 32;
    p.write_queue = 32;
    p.bank_command_queue = 8;
    if constexpr (requires { p.queues.row_commands_apart; }) p.queues.row_commands_apart = true;
    p.write_max_wait_cycles = 0; // DRAMSim3 bounds no write's wait
    if constexpr (requires { p.scheduler.round_robin_hits; }) {
        p.scheduler.round_robin_hits = true;
        p.scheduler.round_robin_misses = true;
    }
    return p;
}

static_assert(memory_controller<dramsim3_controller<>>);

} // namespace memsub::memory
