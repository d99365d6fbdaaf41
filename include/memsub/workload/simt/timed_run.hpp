// memsub — `simt::run_timed`: the host loop that runs a `gto_scheduler` against a memory side
// that keeps its own time (gpu::l2_dram_timing, or any type with the same two calls), so a
// kernel's cycles depend on what its loads hit.
//
// Three parties:
//  * the scheduler, in `latency_mode::host` (or `constant`, below): it issues warp instructions
//    and never moves its clock to the memory's next event or past it (`next(out, horizon)`);
//  * the host's issue function, `issue(const warp_instruction&)`, called once per issued
//    instruction: it runs the instruction's line requests through the host's L1s and sends
//    what leaves them to the memory side, then pays the scheduler what the instruction owes
//    (`timed_requests` below does that part). It may return bool: false stops the run (a stop
//    signal, say); any other return type is ignored;
//  * the memory side: `next_event_cycle()` (memsub::never when idle) and
//    `advance_to(cycle, done)`, which calls `done(tag, ready_cycle)` for every request it
//    reports; a read's tag is the waiting warp's `warp_id::value`.
//
// Protocol of one loop step (run_timed):
//   status = scheduler.next(w, memory.next_event_cycle())
//   issued   -> issue(w)
//   blocked  -> t = min(memory.next_event_cycle(), scheduler.next_issue_cycle());
//               t == never (every warp waits for a completion nobody will report): throws
//               std::logic_error naming the cycle and the completions owed;
//               memory.advance_to(t, deliver), deliver(tag, ready) = scheduler.complete(
//               warp_id{tag}, ready) in host mode
//   finished -> return the instructions issued and the final cycle.
//
// What an issued load owes (host mode; gto_scheduler's header): the scheduler already counts
// one completion per load instruction. `timed_requests` adds one `hold` for every line request
// the memory will report later (`read` returned never) and, after the last request, pays the
// instruction's own completion with the latest ready cycle known at once (L1 hits: issue +
// l1_hit_cycles; L2 hits: the bank's). So the warp's data is ready at the maximum over its
// requests, and a dependent load waits for all of them. Stores owe nothing: they go to the
// memory (`write`) and nobody waits.
//
// Decision: under `latency_mode::constant` the loop and the memory side run the same way (the
// memory sees the same requests, is advanced to its events, and its reports are dropped) and
// only the scheduler's clock differs: so a constant pass and a timed pass cost the same host
// work but for the timing itself, and a constant pass's traffic figures are comparable. The
// alternative, skipping the memory side in constant mode, would measure a different program.
//
// Nothing here allocates: one warp_instruction lives on the loop's stack, and the callbacks
// are inlined templates (no std::function).
#pragma once

#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <memsub/core/access.hpp>
#include <memsub/core/types.hpp>
#include <memsub/core/warp_instruction.hpp>
#include <memsub/workload/simt/gto_scheduler.hpp>

namespace memsub::workload::simt {

/// What `run_timed` reports.
struct timed_run_result {
    /// Warp instructions issued (and handed to the issue function).
    std::uint64_t instructions = 0;
    /// The scheduler's cycle at the end: the run's cycles when it finished.
    std::uint64_t cycles = 0;
    /// The issue function returned false: the run stopped early.
    bool stopped = false;
};

namespace detail {
/// A no-op report sink, for the concept below.
struct ignore_report {
    void operator()(std::uint64_t, std::uint64_t) const noexcept {}
};
} // namespace detail

/// A memory side `run_timed` can drive: its next event and an advance that reports
/// `done(tag, ready_cycle)`.
template <class M>
concept timed_memory = requires(M& m, std::uint64_t cycle, detail::ignore_report done) {
    { m.next_event_cycle() } -> std::convertible_to<std::uint64_t>;
    m.advance_to(cycle, done);
};

/// Runs `scheduler` to the end against `memory` (see the header comment). `issue(w)` handles
/// each issued instruction. Throws std::logic_error if the scheduler is blocked with nothing
/// left to wait for (a completion that no memory event will deliver).
template <class Scheduler, class Issue, timed_memory Memory>
requires std::invocable<Issue&, const warp_instruction&>
    timed_run_result run_timed(Scheduler& scheduler, Issue&& issue, Memory& memory) {
    timed_run_result result;
    const bool host = scheduler.params().latency == latency_mode::host;
    const auto deliver = [&](std::uint64_t tag, std::uint64_t ready_cycle) {
        if (host) scheduler.complete(warp_id{static_cast<std::uint32_t>(tag)}, ready_cycle);
    };
    warp_instruction w;
    for (;;) {
        switch (scheduler.next(w, memory.next_event_cycle())) {
        case issue_status::issued:
            ++result.instructions;
            if constexpr (std::same_as<std::invoke_result_t<Issue&, const warp_instruction&>,
                                       bool>) {
                if (!issue(static_cast<const warp_instruction&>(w))) {
                    result.stopped = true;
                    result.cycles = scheduler.cycle();
                    return result;
                }
            } else {
                issue(static_cast<const warp_instruction&>(w));
            }
            break;
        case issue_status::blocked: {
            const std::uint64_t event = memory.next_event_cycle();
            const std::uint64_t ready = scheduler.next_issue_cycle();
            const std::uint64_t t = event < ready ? event : ready;
            if (t == never)
                throw std::logic_error(
                    "memsub::workload::simt::run_timed: blocked at cycle " +
                    std::to_string(scheduler.cycle()) + " with " +
                    std::to_string(scheduler.outstanding()) +
                    " load completions owed and no memory event pending: every live warp waits "
                    "for a completion the memory will never report (a hold() without a read "
                    "that returned never, or an instruction whose completion was not paid)");
            memory.advance_to(t, deliver);
            break;
        }
        case issue_status::finished:
            result.cycles = scheduler.cycle();
            return result;
        }
    }
}

/// One issued instruction's line requests, timed: send each request's L1 outcome here, then
/// call `finish()` once. Pays the scheduler what the instruction owes (header comment): one
/// `hold` per request the memory reports later, and the instruction's own completion at the
/// latest ready cycle known at once. Stores go to `memory.write`. Under latency_mode::constant
/// the memory still sees every request and the scheduler is paid nothing.
///
/// `Memory` needs `latency().l1_hit_ready(issue_cycle)`, `read(issue_cycle, tag, line,
/// reply_bytes)` (a ready cycle, or memsub::never when reported later through advance_to) and
/// `write(issue_cycle, line, bytes)`, as gpu::l2_dram_timing has. An L1 result needs `hit` and
/// `bytes_fetched`; a compressed L1's result (gpu::compressed_l1: the engine's result in
/// `engine`, and `extra_hit_cycles`, its decompression) has a hit's data back that many cycles
/// after the L1's hit latency.
///
/// Decisions: an L1 load that is not a hit (a miss, a partial miss of a variable-block L1, a
/// bypass) reads its `bytes_fetched` from the memory side, the reply's size; a store sends the
/// request's bytes (its first to last touched byte, `access::size`), hit or not (the GPU L1s
/// here are write-evict, so every store goes down).
template <class Scheduler, class Memory>
class timed_requests {
public:
    timed_requests(Scheduler& scheduler, Memory& memory, const warp_instruction& w) noexcept
        : scheduler_(scheduler)
        , memory_(memory)
        , issue_cycle_(w.issue_cycle)
        , warp_(w.warp)
        , load_(w.kind == access_kind::load)
        , pays_(load_ && scheduler.params().latency == latency_mode::host) {}

    /// Line request `line` of the instruction, whose L1 access gave `l1`.
    template <class L1Result>
    void operator()(const memsub::access& line, const L1Result& l1) {
        if constexpr (requires {
                          l1.engine.hit;
                          l1.extra_hit_cycles;
                      })
            request(line, l1.engine.hit, l1.engine.bytes_fetched, l1.extra_hit_cycles);
        else
            request(line, l1.hit, l1.bytes_fetched, 0);
    }

    /// After the last request: pays the load instruction's own completion.
    void finish() noexcept {
        if (pays_) scheduler_.complete(warp_, ready_);
    }

private:
    void request(const memsub::access& line, bool hit, std::uint64_t bytes_fetched,
                 std::uint32_t extra_hit_cycles) {
        if (!load_) {
            memory_.write(issue_cycle_, line, line.size);
            return;
        }
        const std::uint64_t ready =
            hit ? memory_.latency().l1_hit_ready(issue_cycle_) + extra_hit_cycles
                : memory_.read(issue_cycle_, warp_.value, line,
                               static_cast<std::uint32_t>(bytes_fetched));
        if (!pays_) return;
        if (ready == never) {
            scheduler_.hold(warp_);
        } else if (ready > ready_) {
            ready_ = ready;
        }
    }

    Scheduler& scheduler_;
    Memory& memory_;
    std::uint64_t issue_cycle_;
    std::uint64_t ready_ = 0; ///< the latest ready cycle known at once (0: none yet)
    warp_id warp_;
    bool load_;
    bool pays_;
};

} // namespace memsub::workload::simt
