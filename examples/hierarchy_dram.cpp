// A two-level cache hierarchy whose misses go to a DRAM controller: a private L1-D (32 KiB 8-way)
// and L2 (256 KiB 8-way), both LRU and write-back, in front of a DDR3-1600 FR-FCFS controller
// (open page, row:rank:bank:channel:column mapping). A blocking core issues one access of the
// built-in workload a cycle and waits for each read that goes to memory; dirty lines are written
// back in the background. Prints where the accesses were served, the DRAM latency and the row
// buffer's behaviour. Every time is in DRAM clock cycles (tCK = 1.25 ns).
#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/hierarchy.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/dram_controller.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/workload/synthetic.hpp>

#include <fmt/core.h>

#include <array>
#include <cstdint>
#include <vector>

int main() {
    namespace cache = memsub::cache;
    namespace mm = memsub::memory;
    using level_cache = cache::set_associative_cache<memsub::replacement::lru>;
    cache::hierarchy caches{
        1, cache::make_level<level_cache>(1, memsub::geometry{.sets = 64, .ways = 8}),
        cache::make_level<level_cache>(1, memsub::geometry{.sets = 512, .ways = 8})};
    // Illustrative hit latencies of the two levels; memory's is the controller's.
    constexpr std::array<std::uint64_t, 2> hit_cycles{4, 12};

    const auto& timing = mm::presets::ddr3_1600_remap;
    mm::fr_fcfs_controller<> dram(mm::bit_field_mapping::from_order("rorabachco", timing),
                                  {.timing = timing});
    memsub::workload::mixed_stream stream(memsub::workload::mixed_stream::params{
        .cache_lines = 8192, .line_bytes = 64, .seed = 3}); // sized for twice the L2
    // (Its zipf and loop parts jump between DRAM rows: expect few row-buffer hits.)

    std::uint64_t now = 0, next_id = 0, waiting_for = 0;
    bool waiting = false;
    const auto on_completion = [&](const mm::completion& c) {
        if (waiting && c.id == waiting_for) {
            waiting = false;
            now = c.done_cycle;
        }
    };
    // Moves the controller to its next event (or `now`) and collects what completed.
    const auto step = [&] {
        const std::uint64_t next = dram.next_event_cycle();
        dram.advance_to(next != memsub::never && next > now ? next : now);
        dram.drain(on_completion);
    };

    std::array<std::uint64_t, 3> served{}; // L1, L2, memory
    constexpr int accesses = 200'000;
    for (int i = 0; i < accesses; ++i) {
        std::vector<mm::mem_request> to_memory;
        const auto r = caches.access(stream.next(), [&](const cache::memory_request& q) {
            to_memory.push_back({.id = next_id++,
                                 .address = q.address,
                                 .is_write = q.is_write,
                                 .arrival_cycle = now});
        });
        ++served[r.from_memory() ? 2 : r.served_by];
        if (!r.from_memory()) now += hit_cycles[r.served_by];
        for (const auto& q : to_memory) {
            if (!q.is_write) {
                waiting = true;
                waiting_for = q.id;
            }
            while (dram.enqueue(q) == mm::enqueue_result::queue_full) step();
        }
        while (waiting) step(); // a blocking core: the read's data first
        ++now;
    }
    while (dram.next_event_cycle() != memsub::never) step(); // the last writebacks

    const auto& s = dram.stats();
    fmt::print("{} accesses in {} cycles: L1 {}, L2 {}, memory {}\n", accesses, now, served[0],
               served[1], served[2]);
    fmt::print("DRAM: {} reads, {} writes, read latency mean {:.1f} cycles (p99 {})\n", s.reads,
               s.writes, s.read_latency.mean(), s.read_latency.percentile(0.99));
    fmt::print("row buffer: {} hits, {} empty, {} conflicts (hit rate {:.1f}%)\n", s.row_hits(),
               s.row_empties(), s.row_conflicts(), 100.0 * s.row_hit_rate());
    return served[2] > 0 && s.reads > 0 ? 0 : 1;
}
