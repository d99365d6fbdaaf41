/* Uses the installed C interface (memsub::host) from C: a 2-way LRU set under a 3-line loop
 * misses on every access, and BDI compresses a line of small integers. */
#include <memsub/host/memsub_host.h>

#include <stdio.h>
#include <string.h>

int main(void) {
    memsub_cache_config config;
    memsub_cache* cache = NULL;
    memsub_compressor* bdi = NULL;
    memsub_access loop[12];
    memsub_error error;
    uint8_t line[64];
    uint32_t bits = 0;
    uint64_t hits = 1;
    int i;

    memset(&config, 0, sizeof config);
    config.sets = 1;
    config.ways = 2;
    config.line_bytes = 64;
    memset(loop, 0, sizeof loop);
    for (i = 0; i < 12; ++i) loop[i].address = 64u * (uint64_t)(i % 3);
    if (memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &config, &cache, &error) !=
            MEMSUB_OK ||
        memsub_cache_access_batch(cache, loop, 12, &hits, NULL) != MEMSUB_OK) {
        fprintf(stderr, "consumer_host: %s\n", error.message);
        return 1;
    }
    memsub_cache_destroy(cache);

    for (i = 0; i < 64; ++i) line[i] = (uint8_t)(i % 4 == 0 ? i : 0);
    if (memsub_compressor_create("bdi", 64, &bdi, &error) != MEMSUB_OK ||
        memsub_compressor_size_bits(bdi, line, sizeof line, &bits, &error) != MEMSUB_OK) {
        fprintf(stderr, "consumer_host: %s\n", error.message);
        return 1;
    }
    memsub_compressor_destroy(bdi);
    printf("consumer_host: %llu hits of 12, a 512-bit line in %u bits\n", (unsigned long long)hits,
           (unsigned)bits);
    return hits == 0 && bits < 512 ? 0 : 1;
}
