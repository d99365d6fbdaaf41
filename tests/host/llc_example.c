#include <memsub/host/memsub_host.h>

#include <stdio.h>
#include <string.h>

int main(void) {
    /* A 1 MiB 16-way LLC of 64-byte lines running SRRIP. */
    memsub_cache_config config;
    memsub_cache* llc = NULL;
    memsub_error error;
    memsub_access batch[4096];
    memsub_cache_stats stats;
    uint64_t hits = 0;
    size_t i;
    int pass;

    memset(&config, 0, sizeof config);
    config.sets = 1024;
    config.ways = 16;
    config.line_bytes = 64;
    config.write_policy = MEMSUB_WRITE_BACK;
    if (memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip", &config, &llc, &error) !=
        MEMSUB_OK) {
        fprintf(stderr, "memsub: %s\n", error.message);
        return 1;
    }

    /* Two passes over 256 KiB: the first misses, the second hits. */
    memset(batch, 0, sizeof batch);
    for (i = 0; i < 4096; ++i) {
        batch[i].address = 0x10000000u + 64u * i;
        batch[i].kind = (i % 4 == 0) ? MEMSUB_ACCESS_STORE : MEMSUB_ACCESS_LOAD;
    }
    for (pass = 0; pass < 2; ++pass)
        if (memsub_cache_access_batch(llc, batch, 4096, &hits, NULL) != MEMSUB_OK) return 1;

    memsub_cache_get_stats(llc, &stats);
    printf("accesses %llu, misses %llu, hits in the last batch %llu\n",
           (unsigned long long)stats.accesses, (unsigned long long)stats.misses,
           (unsigned long long)hits);
    memsub_cache_destroy(llc);
    return stats.misses == 4096 && hits == 4096 ? 0 : 1;
}
