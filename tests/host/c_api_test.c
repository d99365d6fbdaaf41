/* The C interface from C99: caches and compressors created, worked streams with known hit and
 * miss counts, and the error paths (codes and messages). Built with -std=c99 -Wall -Wextra
 * -Wpedantic -Werror (tests/CMakeLists.txt). Prints each failed check and "N passed, N failed". */
#include <memsub/host/memsub_host.h>

#include <stdio.h>
#include <string.h>

static int passed = 0;
static int failed = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            ++passed;                                                                              \
        } else {                                                                                   \
            ++failed;                                                                              \
            printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                        \
        }                                                                                          \
    } while (0)

static memsub_cache_config set_assoc(uint32_t sets, uint32_t ways) {
    memsub_cache_config c;
    memset(&c, 0, sizeof c);
    c.sets = sets;
    c.ways = ways;
    c.line_bytes = 64;
    return c;
}

static memsub_access load_of(uint64_t address) {
    memsub_access a;
    memset(&a, 0, sizeof a);
    a.address = address;
    a.kind = MEMSUB_ACCESS_LOAD;
    return a;
}

/* Runs `passes` passes over `lines` consecutive 64-byte lines, one access at a time, and
 * returns the misses the cache counted. */
static uint64_t loop_misses(memsub_cache* cache, uint64_t lines, int passes) {
    memsub_cache_stats s;
    int p;
    uint64_t l;
    for (p = 0; p < passes; ++p) {
        for (l = 0; l < lines; ++l) {
            memsub_access a = load_of(l * 64);
            memsub_access_result r;
            CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_OK);
        }
    }
    CHECK(memsub_cache_get_stats(cache, &s) == MEMSUB_OK);
    CHECK(s.accesses == lines * (uint64_t)passes);
    CHECK(s.hits + s.misses == s.accesses);
    return s.misses;
}

static void test_version(void) {
    uint32_t abi = 0;
    const char* version = NULL;
    CHECK(memsub_host_version(&abi, &version) == MEMSUB_OK);
    CHECK(abi == MEMSUB_HOST_ABI_VERSION);
    CHECK(version != NULL && strlen(version) >= 5);
    CHECK(memsub_host_version(NULL, NULL) == MEMSUB_OK);
    CHECK(strcmp(memsub_status_name(MEMSUB_CONFIG_ERROR), "MEMSUB_CONFIG_ERROR") == 0);
    CHECK(strcmp(memsub_status_name((memsub_status)99), "MEMSUB_UNKNOWN_STATUS") == 0);
}

/* A 2-way LRU set under a 3-line loop misses on every access (each line is evicted just before
 * it is used again); 3 ways hold the loop, so only the first pass misses. */
static void test_lru_loop(void) {
    memsub_cache_config c = set_assoc(1, 2);
    memsub_cache* cache = NULL;
    memsub_cache_stats s;
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, &cache, NULL) == MEMSUB_OK);
    CHECK(cache != NULL);
    CHECK(loop_misses(cache, 3, 4) == 12);
    CHECK(memsub_cache_get_stats(cache, &s) == MEMSUB_OK);
    CHECK(s.by_kind[MEMSUB_ACCESS_LOAD].misses == 12);
    CHECK(s.fills == 12 && s.evictions == 10 && s.writebacks == 0);
    CHECK(s.bytes_fetched == 12 * 64);
    CHECK(memsub_cache_reset_stats(cache) == MEMSUB_OK);
    CHECK(memsub_cache_get_stats(cache, &s) == MEMSUB_OK);
    CHECK(s.accesses == 0 && s.misses == 0);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);

    c = set_assoc(1, 3);
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, &cache, NULL) == MEMSUB_OK);
    CHECK(loop_misses(cache, 3, 4) == 3);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);
}

/* The batch path gives the hits and flags of single accesses. */
static void test_batch(void) {
    memsub_cache_config c = set_assoc(1, 2);
    memsub_cache* cache = NULL;
    memsub_access records[6];
    uint8_t flags[6];
    uint64_t hits = 99;
    memsub_cache_stats s;
    int i;
    /* lines 0 1 0 1 2 0: miss miss hit hit miss(evicts 0) miss */
    const uint64_t lines[6] = {0, 1, 0, 1, 2, 0};
    const uint8_t expected[6] = {0, 0, 1, 1, 0, 0};
    for (i = 0; i < 6; ++i) records[i] = load_of(lines[i] * 64);
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, NULL, &c, &cache, NULL) == MEMSUB_OK);
    CHECK(memsub_cache_access_batch(cache, records, 6, &hits, flags) == MEMSUB_OK);
    CHECK(hits == 2);
    for (i = 0; i < 6; ++i) CHECK(flags[i] == expected[i]);
    CHECK(memsub_cache_access_batch(cache, NULL, 0, &hits, NULL) == MEMSUB_OK);
    CHECK(hits == 0);
    /* A record with a bad kind stops the batch there: the one before it was made. */
    records[1].kind = 7;
    CHECK(memsub_cache_access_batch(cache, records, 6, &hits, NULL) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_get_stats(cache, &s) == MEMSUB_OK);
    CHECK(s.accesses == 7);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);
}

/* A store then evictions in a write-back cache report a dirty block. */
static void test_evictions(void) {
    memsub_cache_config c = set_assoc(1, 1);
    memsub_cache* cache = NULL;
    memsub_access a = load_of(0);
    memsub_access_result r;
    memsub_cache_stats s;
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, &cache, NULL) == MEMSUB_OK);
    a.kind = MEMSUB_ACCESS_STORE;
    CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_OK);
    CHECK(!r.hit && r.blocks_filled == 1 && r.eviction_count == 0);
    a = load_of(64);
    CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_OK);
    CHECK(!r.hit && r.eviction_count == 1);
    CHECK(r.evictions[0].address == 0 && r.evictions[0].dirty && r.evictions[0].bytes == 64);
    CHECK(r.evictions[0].reason == MEMSUB_EVICTION_REPLACEMENT);
    CHECK(memsub_cache_get_stats(cache, &s) == MEMSUB_OK);
    CHECK(s.writebacks == 1 && s.bytes_written_back == 64);
    CHECK(memsub_cache_access(cache, &a, NULL) == MEMSUB_OK); /* result not wanted */
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);

    /* Write-through: a store miss does not allocate and goes down. */
    c.write_policy = MEMSUB_WRITE_THROUGH;
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, &cache, NULL) == MEMSUB_OK);
    a = load_of(0);
    a.kind = MEMSUB_ACCESS_STORE;
    a.size = 8;
    CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_OK);
    CHECK(!r.hit && r.bypass_reason == MEMSUB_BYPASS_WRITE_NO_ALLOCATE);
    CHECK(r.bytes_written_down == 8 && r.blocks_filled == 0);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);
}

static void test_fully_associative(void) {
    memsub_cache_config c;
    memsub_cache* cache = NULL;
    memsub_error error;
    char names[64];
    memset(&c, 0, sizeof c);
    c.lines = 2;
    c.line_bytes = 64;
    CHECK(memsub_cache_create(MEMSUB_CACHE_FULLY_ASSOCIATIVE, "lru", &c, &cache, NULL) ==
          MEMSUB_OK);
    CHECK(loop_misses(cache, 3, 4) == 12);
    CHECK(memsub_cache_reset_stats(cache) == MEMSUB_UNSUPPORTED);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);
    CHECK(memsub_cache_policy_names(MEMSUB_CACHE_FULLY_ASSOCIATIVE, &c, names, sizeof names, NULL,
                                    NULL) == MEMSUB_OK);
    CHECK(strcmp(names, "lru,fifo,opt") == 0);
    c.write_policy = MEMSUB_WRITE_THROUGH;
    CHECK(memsub_cache_create(MEMSUB_CACHE_FULLY_ASSOCIATIVE, "lru", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "write_policy") != NULL);
    c.write_policy = MEMSUB_WRITE_BACK;
    c.lines = 0;
    CHECK(memsub_cache_create(MEMSUB_CACHE_FULLY_ASSOCIATIVE, "fifo", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "capacity_lines") != NULL);
}

/* Belady's OPT reads next_use: on a 2-way set under the loop 0 1 2 0 1 2 it keeps a line that
 * is used again soonest, so it misses 4 times where LRU misses 6. */
static void test_opt(void) {
    memsub_cache_config c = set_assoc(1, 2);
    memsub_cache* cache = NULL;
    memsub_access records[6];
    memsub_cache_stats s;
    int i;
    for (i = 0; i < 6; ++i) {
        records[i] = load_of((uint64_t)(i % 3) * 64);
        records[i].hints = MEMSUB_HINT_NEXT_USE;
        records[i].next_use = i + 3 < 6 ? (uint64_t)(i + 3) : UINT64_MAX;
    }
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "opt", &c, &cache, NULL) == MEMSUB_OK);
    CHECK(memsub_cache_access_batch(cache, records, 6, NULL, NULL) == MEMSUB_OK);
    CHECK(memsub_cache_get_stats(cache, &s) == MEMSUB_OK);
    CHECK(s.misses == 4);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);
}

/* Variable-block: 128-byte lines of 32-byte segments, 1 set of 2 ways (8 segments) and 8
 * tags. Lines stored in 2 segments: four fit where two raw ones would. */
static void test_variable_block(void) {
    memsub_cache_config c;
    memsub_cache* cache = NULL;
    memsub_access a;
    memsub_access_result r;
    memsub_cache_stats s;
    memsub_error error;
    uint64_t l;
    int pass;
    memset(&c, 0, sizeof c);
    c.sets = 1;
    c.ways = 2;
    c.line_bytes = 128;
    c.segment_bytes = 32;
    c.tags_per_set = 8;
    CHECK(memsub_cache_create(MEMSUB_CACHE_VARIABLE_BLOCK, "lru", &c, &cache, &error) == MEMSUB_OK);
    for (pass = 0; pass < 2; ++pass) {
        for (l = 0; l < 4; ++l) {
            a = load_of(l * 128);
            a.span_segments = 4;
            a.stored_segments = 2;
            CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_OK);
            CHECK(r.hit == (pass == 1));
        }
    }
    CHECK(memsub_cache_get_stats(cache, &s) == MEMSUB_OK);
    CHECK(s.misses == 4 && s.evictions == 0);
    /* A fifth line stored raw (4 segments) evicts two compressed ones. */
    a = load_of(4 * 128);
    CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_OK);
    CHECK(!r.hit && r.eviction_count == 2 && r.evictions[0].stored_segments == 2);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);

    c.max_block_segments = 3;
    CHECK(memsub_cache_create(MEMSUB_CACHE_VARIABLE_BLOCK, "lru", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "max_block_segments") != NULL);
    c.max_block_segments = 0;
    c.segment_bytes = 16; /* 8 segments per line: more than this library compiles */
    CHECK(memsub_cache_create(MEMSUB_CACHE_VARIABLE_BLOCK, "lru", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "segment_bytes") != NULL);
}

static void test_cache_errors(void) {
    memsub_cache_config c = set_assoc(4, 2);
    memsub_cache* cache = NULL;
    memsub_error error;
    memsub_access a = load_of(0);
    memsub_access_result r;
    memsub_cache_stats s;
    char names[512];
    char small[8];
    size_t needed = 0;

    /* An unknown policy: a configuration error naming it and what could be built. */
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "no_such_policy", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(cache == NULL);
    CHECK(error.code == MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "no_such_policy") != NULL);
    CHECK(strstr(error.message, "lru") != NULL && strstr(error.message, "srrip") != NULL);
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "no_such_policy", &c, &cache, NULL) ==
          MEMSUB_CONFIG_ERROR); /* no error struct wanted */

    /* A bad geometry: a configuration error naming the parameter. */
    c.sets = 3;
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "sets = 3") != NULL);
    c.sets = 4;
    c.ways = 0;
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "ways") != NULL);
    c.ways = 2;

    /* NULL pointers and values out of range. */
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", NULL, &cache, &error) ==
          MEMSUB_INVALID_ARGUMENT);
    CHECK(error.code == MEMSUB_INVALID_ARGUMENT && strstr(error.message, "config") != NULL);
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, NULL, &error) ==
          MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_create((memsub_cache_kind)9, "lru", &c, &cache, &error) ==
          MEMSUB_INVALID_ARGUMENT);
    c.write_policy = 3;
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, &cache, &error) ==
          MEMSUB_INVALID_ARGUMENT);
    c.write_policy = MEMSUB_WRITE_BACK;
    CHECK(memsub_cache_access(NULL, &a, &r) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_access_batch(NULL, &a, 1, NULL, NULL) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_get_stats(NULL, &s) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_reset_stats(NULL) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_destroy(NULL) == MEMSUB_OK);

    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip", &c, &cache, &error) ==
          MEMSUB_OK);
    CHECK(memsub_cache_access(cache, NULL, &r) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_access_batch(cache, NULL, 1, NULL, NULL) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_get_stats(cache, NULL) == MEMSUB_INVALID_ARGUMENT);
    a.kind = 5;
    CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_INVALID_ARGUMENT);
    a.kind = MEMSUB_ACCESS_LOAD;
    a.reserved = 1;
    CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_cache_get_stats(cache, &s) == MEMSUB_OK);
    CHECK(s.accesses == 0); /* refused records change nothing */
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);

    /* The names, whole or cut at a name. */
    CHECK(memsub_cache_policy_names(MEMSUB_CACHE_SET_ASSOCIATIVE, &c, names, sizeof names, &needed,
                                    &error) == MEMSUB_OK);
    CHECK(strncmp(names, "lru,fifo,", 9) == 0 && strstr(names, ",opt") != NULL);
    CHECK(needed == strlen(names) + 1);
    CHECK(memsub_cache_policy_names(MEMSUB_CACHE_SET_ASSOCIATIVE, &c, NULL, 0, &needed, NULL) ==
          MEMSUB_BUFFER_TOO_SMALL);
    CHECK(needed == strlen(names) + 1);
    CHECK(memsub_cache_policy_names(MEMSUB_CACHE_SET_ASSOCIATIVE, &c, small, sizeof small, NULL,
                                    NULL) == MEMSUB_BUFFER_TOO_SMALL);
    CHECK(strcmp(small, "lru") == 0);
    CHECK(memsub_cache_policy_names(MEMSUB_CACHE_SET_ASSOCIATIVE, &c, NULL, 4, NULL, &error) ==
          MEMSUB_INVALID_ARGUMENT);
    c.line_bytes = 48;
    CHECK(memsub_cache_policy_names(MEMSUB_CACHE_SET_ASSOCIATIVE, &c, names, sizeof names, NULL,
                                    &error) == MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "line_bytes") != NULL);
}

/* Eight rounds of three hot lines (each twice) and two lines never seen before; the misses. */
static uint64_t hot_and_scan_misses(memsub_cache* cache) {
    uint64_t misses = 0, next = 100;
    int round, i;
    for (round = 0; round < 8; ++round) {
        for (i = 0; i < 8; ++i) {
            const memsub_access a = load_of(64u * (i < 6 ? (uint64_t)(i % 3) : next++));
            memsub_access_result r;
            CHECK(memsub_cache_access(cache, &a, &r) == MEMSUB_OK);
            misses += !r.hit;
        }
    }
    return misses;
}

/* Policy settings after the name (revision 4): they change what the policy does, the listing
 * gives every key with its value, and a bad one is a configuration error naming the key. */
static void test_policy_settings(void) {
    memsub_cache_config c = set_assoc(1, 4);
    memsub_cache* cache = NULL;
    memsub_error error;
    char settings[256];
    char small[24];
    size_t needed = 0;
    uint32_t revision = 0;
    uint64_t plain = 0, one_bit = 0;

    CHECK(memsub_host_abi_revision(&revision) == MEMSUB_OK && revision >= 4);
    /* Three hot lines (each twice) then two new lines, eight times, on one 4-way set. SRRIP
     * (M = 2) inserts the new lines at RRPV 2 and the hot lines keep 0-1, so each scan line
     * evicts the previous one: 5 misses, then 2 per round, 19 in all. With M = 1 a line is
     * inserted at RRPV 0, as the hot lines are, and the scan evicts them. */
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip", &c, &cache, &error) ==
          MEMSUB_OK);
    plain = hot_and_scan_misses(cache);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip:rrpv_bits=1", &c, &cache,
                              &error) == MEMSUB_OK);
    one_bit = hot_and_scan_misses(cache);
    CHECK(memsub_cache_destroy(cache) == MEMSUB_OK);
    cache = NULL;
    CHECK(plain == 19);
    CHECK(one_bit > plain);

    CHECK(memsub_cache_policy_params(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip", &c, settings,
                                     sizeof settings, &needed, &error) == MEMSUB_OK);
    CHECK(strcmp(settings, "rrpv_bits=2,promotion=hit_priority") == 0);
    CHECK(needed == strlen(settings) + 1);
    CHECK(memsub_cache_policy_params(MEMSUB_CACHE_SET_ASSOCIATIVE,
                                     "srrip:promotion=frequency_priority", &c, settings,
                                     sizeof settings, NULL, &error) == MEMSUB_OK);
    CHECK(strcmp(settings, "rrpv_bits=2,promotion=frequency_priority") == 0);
    CHECK(memsub_cache_policy_params(MEMSUB_CACHE_SET_ASSOCIATIVE, "lru", &c, settings,
                                     sizeof settings, &needed, &error) == MEMSUB_OK);
    CHECK(strcmp(settings, "") == 0 && needed == 1);
    CHECK(memsub_cache_policy_params(MEMSUB_CACHE_FULLY_ASSOCIATIVE, "fifo", &c, settings,
                                     sizeof settings, NULL, &error) == MEMSUB_OK);
    CHECK(strcmp(settings, "") == 0);
    /* Cut at a whole setting. */
    CHECK(memsub_cache_policy_params(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip", &c, small, sizeof small,
                                     &needed, &error) == MEMSUB_BUFFER_TOO_SMALL);
    CHECK(strcmp(small, "rrpv_bits=2") == 0);

    /* Errors: an unknown key lists the keys; a value out of range names the rule. */
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip:bits=3", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(cache == NULL);
    CHECK(strstr(error.message, "bits = 3") != NULL &&
          strstr(error.message, "rrpv_bits, promotion") != NULL);
    CHECK(memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip:rrpv_bits=0", &c, &cache,
                              &error) == MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "rrpv_bits = 0") != NULL);
    CHECK(memsub_cache_create(MEMSUB_CACHE_FULLY_ASSOCIATIVE, "lru:x=1", &c, &cache, &error) ==
          MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "take no parameters") != NULL);
    CHECK(memsub_cache_policy_params(MEMSUB_CACHE_SET_ASSOCIATIVE, "srrip:bits=3", &c, settings,
                                     sizeof settings, NULL, &error) == MEMSUB_CONFIG_ERROR);
    CHECK(memsub_cache_policy_params(MEMSUB_CACHE_SET_ASSOCIATIVE, "lfu", &c, settings,
                                     sizeof settings, NULL, &error) == MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "srrip") != NULL);
}

static void test_compressors(void) {
    memsub_compressor* bdi = NULL;
    memsub_compressor* other = NULL;
    memsub_error error;
    memsub_compressed_line packed;
    uint8_t line[64];
    uint8_t back[64];
    uint32_t bits = 0;
    uint32_t line_bytes = 0;
    char names[128];
    int i;
    /* Small 32-bit integers: BDI stores them as deltas. */
    for (i = 0; i < 64; ++i) line[i] = (uint8_t)(i % 4 == 0 ? 100 + i : 0);

    CHECK(memsub_compressor_create("bdi", 64, &bdi, &error) == MEMSUB_OK);
    CHECK(memsub_compressor_info(bdi, &line_bytes, NULL) == MEMSUB_OK && line_bytes == 64);
    CHECK(memsub_compressor_size_bits(bdi, line, sizeof line, &bits, &error) == MEMSUB_OK);
    CHECK(bits > 0 && bits < 64 * 8);
    CHECK(memsub_compressor_compress(bdi, line, sizeof line, &packed, &error) == MEMSUB_OK);
    CHECK(packed.bits == bits);
    CHECK(memsub_compressor_decompress(bdi, &packed, back, sizeof back, &error) == MEMSUB_OK);
    CHECK(memcmp(line, back, sizeof line) == 0);

    /* A corrupt line: a decode error with a message, never undefined behaviour. */
    packed.encoding = 0x0f;
    packed.bits = 3;
    CHECK(memsub_compressor_decompress(bdi, &packed, back, sizeof back, &error) ==
          MEMSUB_DECODE_ERROR);
    CHECK(error.code == MEMSUB_DECODE_ERROR && strstr(error.message, "bdi") != NULL);
    packed.bits = 100000; /* longer than any payload */
    CHECK(memsub_compressor_decompress(bdi, &packed, back, sizeof back, &error) ==
          MEMSUB_DECODE_ERROR);

    /* Wrong sizes and NULLs. */
    CHECK(memsub_compressor_size_bits(bdi, line, 32, &bits, &error) == MEMSUB_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "line size") != NULL);
    CHECK(memsub_compressor_size_bits(NULL, line, 64, &bits, &error) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_compressor_size_bits(bdi, NULL, 64, &bits, &error) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_compressor_size_bits(bdi, line, 64, NULL, NULL) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_compressor_decompress(bdi, NULL, back, 64, &error) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_compressor_decompress(bdi, &packed, back, 65, &error) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_compressor_destroy(bdi) == MEMSUB_OK);
    CHECK(memsub_compressor_destroy(NULL) == MEMSUB_OK);

    /* Unknown names and line sizes: configuration errors naming what is offered. */
    CHECK(memsub_compressor_create("lz4", 64, &other, &error) == MEMSUB_CONFIG_ERROR);
    CHECK(other == NULL);
    CHECK(strstr(error.message, "lz4") != NULL && strstr(error.message, "best_of_all") != NULL);
    CHECK(memsub_compressor_create("fpc", 48, &other, &error) == MEMSUB_CONFIG_ERROR);
    CHECK(strstr(error.message, "line_bytes") != NULL);
    CHECK(memsub_compressor_create(NULL, 64, &other, &error) == MEMSUB_INVALID_ARGUMENT);

    CHECK(memsub_compressor_names(names, sizeof names, NULL) == MEMSUB_OK);
    CHECK(strncmp(names, "bdi,fpc,cpack,cpack_z,bpc,sc2,best_of_all", 41) == 0);

    /* Every offered compressor round-trips the line at every line size. */
    {
        const char* all[] = {"bdi", "fpc",         "cpack", "cpack_z", "bpc",
                             "sc2", "best_of_all", "none",  "zero"};
        const uint32_t sizes[] = {32, 64, 128};
        uint8_t big[128];
        uint8_t out[128];
        size_t n, s;
        for (i = 0; i < 128; ++i) big[i] = (uint8_t)(i % 8 == 0 ? i : 0);
        for (n = 0; n < sizeof all / sizeof all[0]; ++n) {
            for (s = 0; s < 3; ++s) {
                CHECK(memsub_compressor_create(all[n], sizes[s], &other, &error) == MEMSUB_OK);
                CHECK(memsub_compressor_compress(other, big, sizes[s], &packed, NULL) == MEMSUB_OK);
                CHECK(memsub_compressor_decompress(other, &packed, out, sizes[s], NULL) ==
                      MEMSUB_OK);
                CHECK(memcmp(big, out, sizes[s]) == 0);
                CHECK(memsub_compressor_destroy(other) == MEMSUB_OK);
            }
        }
    }
}

int main(void) {
    test_version();
    test_lru_loop();
    test_batch();
    test_evictions();
    test_fully_associative();
    test_opt();
    test_variable_block();
    test_cache_errors();
    test_policy_settings();
    test_compressors();
    printf("c_api_test: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
