#include <memsub/host/memsub_host.h>
#include <stdio.h>

static void on_done(void* context, const memsub_completion* c) {
    *(uint64_t*)context += c->done_cycle - c->arrival_cycle;
}

int main(void) {
    memsub_dram_config config = {0};
    config.row_policy = "closed";
    memsub_dram* dram = NULL;
    memsub_error error;
    if (memsub_dram_create(&config, &dram, &error) != MEMSUB_OK) {
        fprintf(stderr, "%s\n", error.message);
        return 1;
    }
    uint64_t latency = 0, done = 0, n = 0, cycle = 0;
    for (uint64_t i = 0; i < 1000; ++i, cycle += 10) {
        memsub_mem_request q = {0};
        q.id = i;
        q.address = i * 4096;
        q.arrival_cycle = cycle;
        uint8_t result = MEMSUB_ENQUEUE_QUEUE_FULL;
        for (;; ++cycle) { /* a full queue: retry next cycle, same arrival */
            memsub_dram_advance_to(dram, cycle);
            memsub_dram_drain(dram, on_done, &latency, &n);
            done += n;
            memsub_dram_enqueue(dram, &q, &result);
            if (result != MEMSUB_ENQUEUE_QUEUE_FULL) break;
        }
    }
    uint64_t pending = 0;
    while (memsub_dram_pending(dram, &pending) == MEMSUB_OK && pending != 0) {
        memsub_dram_next_event_cycle(dram, &cycle);
        memsub_dram_advance_to(dram, cycle);
        memsub_dram_drain(dram, on_done, &latency, &n);
        done += n;
    }
    printf("%llu requests, mean latency %.1f cycles\n", (unsigned long long)done,
           done ? (double)latency / (double)done : 0.0);
    memsub_dram_destroy(dram);
    return 0;
}
