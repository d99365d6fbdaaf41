/* memsub host ABI: memsub's caches, replacement policies, DRAM controllers and compressors
 * behind a C interface, for hosts that cannot include the C++20 headers (simulators built as
 * C++11 or C++17, C programs, Python through ctypes or cffi). The implementation is the C++20
 * translation units beside this header, memsub/host/memsub_host*.cpp, built by CMake as the
 * shared library memsub::host (or compiled by a host's own build); docs/embedding/c_abi.md
 * shows both ways.
 *
 * Conventions (every function below follows them):
 *  - Status: every function returns a `memsub_status` (MEMSUB_OK = 0), except
 *    `memsub_status_name`, which cannot fail. Nothing throws across this interface: every entry
 *    point catches every C++ exception and turns it into a status.
 *  - Reasons: functions that can fail for a reason a person must read (a configuration, a
 *    corrupt payload) take a `memsub_error*` last: when it is not NULL it receives the status
 *    and a NUL-terminated message, truncated to fit. NULL means "not wanted".
 *  - Ownership: a `_create` function hands the caller a handle that only the matching
 *    `_destroy` frees; everything else the caller passes (records, buffers, results) stays the
 *    caller's and is not kept after the call returns. No function keeps global or thread-local
 *    state.
 *  - Threads: a handle is not thread-safe (use one per thread, or a lock); calls on different
 *    handles may run at the same time. A compressor's size, compress and decompress calls only
 *    read the handle, so one compressor may serve several threads.
 *  - Types: fixed-width integers; every struct is plain data the caller may zero-initialise
 *    (zero is each field's default, as documented per field).
 *
 * Compiles as C99 and as C++11 or later. */
#ifndef MEMSUB_HOST_H
#define MEMSUB_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Version of this interface. MEMSUB_HOST_ABI_VERSION changes whenever a struct's layout or a
 * function's meaning changes: a host built against another version must be rebuilt (compare it
 * with what memsub_host_version reports from the library loaded). MEMSUB_HOST_ABI_REVISION
 * counts additions within a version (new functions, new enum values): a host built against
 * revision r runs with a library of the same version and a revision >= r
 * (memsub_host_abi_revision). Revision 1 added the replacement-policy handle (memsub_policy_*),
 * revision 2 the DRAM controllers (memsub_dram_*), revision 3 the GPU L1s (memsub_gpu_l1_*,
 * declared in memsub/host/memsub_host_gpu.h), revision 4 policy settings in a policy name
 * ("srrip:rrpv_bits=3") and their listings (memsub_cache_policy_params, memsub_policy_params).
 * CHANGELOG.md lists every change under "Host interface". */
#define MEMSUB_HOST_ABI_VERSION 1
#define MEMSUB_HOST_ABI_REVISION 4

#if defined(__GNUC__) || defined(__clang__)
#define MEMSUB_HOST_API __attribute__((visibility("default")))
#else
#define MEMSUB_HOST_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ status and errors */

/* What a call returned. */
typedef enum memsub_status {
    MEMSUB_OK = 0,
    /* A NULL pointer where one is required, a size out of range, an unknown enum value. */
    MEMSUB_INVALID_ARGUMENT = 1,
    /* A configuration memsub refuses (geometry, policy name, compressor name, line size); the
     * message names the parameter, its value and the rule. */
    MEMSUB_CONFIG_ERROR = 2,
    /* Memory could not be allocated (C++ std::bad_alloc). */
    MEMSUB_OUT_OF_MEMORY = 3,
    /* A caller buffer is too small for the text asked for (the size needed is reported). */
    MEMSUB_BUFFER_TOO_SMALL = 4,
    /* The handle does not offer this operation (e.g. resetting a fully associative cache's
     * counters). */
    MEMSUB_UNSUPPORTED = 5,
    /* A compressed line could not be decoded (corrupt, truncated, another code book). */
    MEMSUB_DECODE_ERROR = 6,
    /* Anything else memsub failed at (an unexpected C++ exception); a bug to report. */
    MEMSUB_INTERNAL_ERROR = 7,
    /* Not a status: makes every value up to it one the type holds (32 bits), so a value the
     * caller casts is defined behaviour on the library's C++ side too. */
    MEMSUB_STATUS_MAX_ENUM = 0x7fffffff
} memsub_status;

/* Bytes of `memsub_error::message`, its terminating NUL included: room for a configuration
 * error that lists every policy name. */
#define MEMSUB_ERROR_MESSAGE_BYTES 1024

/* The reason a call failed. Caller-owned; pass NULL where it is not wanted. On MEMSUB_OK the
 * callee leaves it untouched. */
typedef struct memsub_error {
    /* The status the call returned. */
    memsub_status code;
    /* NUL-terminated English text; a longer message is cut at a character boundary. */
    char message[MEMSUB_ERROR_MESSAGE_BYTES];
} memsub_error;

/* The name of a status ("MEMSUB_OK", "MEMSUB_CONFIG_ERROR", ...): a static string, never NULL
 * ("MEMSUB_UNKNOWN_STATUS" for a value not listed). The one function that returns no status. */
MEMSUB_HOST_API const char* memsub_status_name(memsub_status status);

/* Writes the interface version of the library loaded (MEMSUB_HOST_ABI_VERSION it was built
 * with) to *abi_version and the memsub version ("0.1.0", a static string) to *library_version;
 * either pointer may be NULL. Returns MEMSUB_OK. */
MEMSUB_HOST_API memsub_status memsub_host_version(uint32_t* abi_version,
                                                  const char** library_version);

/* Writes the interface revision of the library loaded (MEMSUB_HOST_ABI_REVISION it was built
 * with) to *abi_revision (may be NULL). Returns MEMSUB_OK. Revision 1 and later. */
MEMSUB_HOST_API memsub_status memsub_host_abi_revision(uint32_t* abi_revision);

/* ------------------------------------------------------------------ caches */

/* The organisation of a cache. */
typedef enum memsub_cache_kind {
    /* sets x ways of whole lines (memsub::cache::set_associative_cache). */
    MEMSUB_CACHE_SET_ASSOCIATIVE = 0,
    /* One set of `lines` lines with a hash index (memsub::cache::fully_associative_cache);
     * write-back only; policies lru, fifo and opt. */
    MEMSUB_CACHE_FULLY_ASSOCIATIVE = 1,
    /* Blocks of 1 .. max_block_segments segments of a line (memsub::cache::variable_block_cache):
     * variable line sizes and compressed lines. */
    MEMSUB_CACHE_VARIABLE_BLOCK = 2,
    /* Not a kind: as MEMSUB_STATUS_MAX_ENUM (an unknown kind is then MEMSUB_INVALID_ARGUMENT,
     * not undefined behaviour). */
    MEMSUB_CACHE_KIND_MAX_ENUM = 0x7fffffff
} memsub_cache_kind;

/* Write policy (memsub::cache::write_policy). */
typedef enum memsub_write_policy {
    /* Write-allocate; stores dirty the block; dirty blocks are written back when they leave. */
    MEMSUB_WRITE_BACK = 0,
    /* Stores go down and update a resident block; store misses do not allocate. */
    MEMSUB_WRITE_THROUGH = 1,
    /* A store invalidates the blocks it touches and goes down (a GPU L1). */
    MEMSUB_WRITE_EVICT = 2
} memsub_write_policy;

/* The largest `max_block_segments` a variable-block cache may have, and the most blocks one
 * access can evict (2 * 4 + 1; 1 in the other kinds). */
#define MEMSUB_MAX_BLOCK_SEGMENTS 4
#define MEMSUB_MAX_EVICTIONS 9

/* A cache's shape. Zero-initialise it and set the fields of its kind. */
typedef struct memsub_cache_config {
    /* Set-associative and variable-block: sets (a power of two) and ways (1..64). */
    uint32_t sets;
    uint32_t ways;
    /* Every kind: line size in bytes, a power of two >= 4. */
    uint32_t line_bytes;
    /* Variable-block: the data allocation unit in bytes (0 = line_bytes), a power of two
     * dividing the line. Must be 0 in a set-associative cache. */
    uint32_t segment_bytes;
    /* Variable-block: tag entries per set (0 = ways), ways..64. Must be 0 otherwise. */
    uint32_t tags_per_set;
    /* Variable-block: the largest block in segments, 2 or 4 (0 = the smaller of the two that
     * is at least the line's segments). Ignored by the other kinds. */
    uint32_t max_block_segments;
    /* Fully associative: capacity in lines, 1 .. 2^30 - 1. Ignored by the other kinds. */
    uint64_t lines;
    /* A memsub_write_policy. Fully associative caches are write-back only. */
    uint32_t write_policy;
    /* Must be 0. */
    uint32_t reserved;
} memsub_cache_config;

/* A cache; opaque. Create with memsub_cache_create, free with memsub_cache_destroy. */
typedef struct memsub_cache memsub_cache;

/* Creates a cache of `kind` and `config` running the replacement policy `policy_name`, and
 * stores it in *out (left unchanged on failure). The caller owns it: free it with
 * memsub_cache_destroy.
 *
 * Policies: set-associative and variable-block caches take the names memsub_cache_policy_names
 * lists (memsub::replacement::all_policies, by the names the explorer lists, and "opt"); a
 * fully associative cache takes "lru", "fifo" or "opt". "opt" (Belady's MIN) reads each
 * access's next use (MEMSUB_HINT_NEXT_USE); an access without one counts as never used again.
 * NULL or "" = "lru".
 *
 * Settings (revision 4): `policy_name` may carry the policy's own parameters after a colon,
 * as key=value pairs separated by commas: "srrip:rrpv_bits=3,promotion=frequency_priority",
 * "drrip:psel_bits=11", "remap:side0.cost=8". Keys not given keep their defaults;
 * memsub_cache_policy_params lists every key with its default. The keys are the fields of the
 * policy's params in its header (memsub/replacement/<policy>.hpp); integers are decimal or
 * 0x hexadecimal, booleans true/false, enumerations by name. Fully associative orders take no
 * settings.
 *
 * Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL config or out, an unknown kind or write
 * policy, a reserved field not 0; MEMSUB_CONFIG_ERROR for a geometry memsub refuses (the
 * message names the parameter and the rule) or an unknown policy (the message lists the names
 * that can be built for this geometry), an unknown setting (the message lists the keys there
 * are), a value that does not parse or that the policy refuses (the message names the key, the
 * value and the rule); MEMSUB_OUT_OF_MEMORY. */
MEMSUB_HOST_API memsub_status memsub_cache_create(memsub_cache_kind kind, const char* policy_name,
                                                  const memsub_cache_config* config,
                                                  memsub_cache** out, memsub_error* error);

/* Frees a cache. NULL is allowed and does nothing. Returns MEMSUB_OK. */
MEMSUB_HOST_API memsub_status memsub_cache_destroy(memsub_cache* cache);

/* Writes the policy names a cache of `kind` and `config` can be created with, separated by
 * commas and NUL-terminated, into buffer[0 .. buffer_bytes). *needed (when not NULL) receives
 * the bytes the whole list takes, its NUL included. buffer may be NULL when buffer_bytes is 0
 * (to ask for the size). A name whose policy refuses the geometry is left out.
 *
 * Returns MEMSUB_OK; MEMSUB_BUFFER_TOO_SMALL when the list did not fit (the buffer then holds
 * as many whole names as fit); MEMSUB_INVALID_ARGUMENT for a NULL config, a NULL buffer with
 * buffer_bytes > 0, an unknown kind; MEMSUB_CONFIG_ERROR when the geometry itself is refused. */
MEMSUB_HOST_API memsub_status memsub_cache_policy_names(memsub_cache_kind kind,
                                                        const memsub_cache_config* config,
                                                        char* buffer, size_t buffer_bytes,
                                                        size_t* needed, memsub_error* error);

/* Revision 4. Writes the settings of the policy `policy_name` names on a cache of `kind` and
 * `config` as key=value pairs separated by commas (a settings text memsub_cache_create takes
 * back), NUL-terminated, into buffer[0 .. buffer_bytes): every key with its default, or with the
 * value `policy_name`'s own settings give it ("srrip:rrpv_bits=3" lists rrpv_bits=3). A policy
 * without settings (lru, fifo, nru, tree_plru, a fully associative order) writes "". *needed
 * and the buffer rules are those of memsub_cache_policy_names.
 *
 * Returns MEMSUB_OK; MEMSUB_BUFFER_TOO_SMALL when the list did not fit (the buffer then holds
 * as many whole settings as fit); MEMSUB_INVALID_ARGUMENT as memsub_cache_policy_names;
 * MEMSUB_CONFIG_ERROR as memsub_cache_create for the policy and its settings. */
MEMSUB_HOST_API memsub_status memsub_cache_policy_params(memsub_cache_kind kind,
                                                         const char* policy_name,
                                                         const memsub_cache_config* config,
                                                         char* buffer, size_t buffer_bytes,
                                                         size_t* needed, memsub_error* error);

/* Kind of reference; the values of memsub::access_kind. */
typedef enum memsub_access_kind {
    MEMSUB_ACCESS_LOAD = 0,
    MEMSUB_ACCESS_STORE = 1,
    MEMSUB_ACCESS_INSTRUCTION_FETCH = 2,
    MEMSUB_ACCESS_PREFETCH = 3,
    /* A dirty line written back from the level above (a full-line write). */
    MEMSUB_ACCESS_WRITEBACK = 4
} memsub_access_kind;

/* memsub_access::hints flags: which optional hint fields hold a value. */
#define MEMSUB_HINT_NEXT_USE 0x01u
#define MEMSUB_HINT_MEMORY_COST_CLASS 0x02u

/* One memory reference (memsub::access). Zero-initialised it is a load of a whole line with
 * no hints. */
typedef struct memsub_access {
    /* Byte address. */
    uint64_t address;
    /* Program counter of the instruction (0 = unknown); PC-based policies (ship) key on it. */
    uint64_t pc;
    /* With MEMSUB_HINT_NEXT_USE: the position in the stream of the next access to the same
     * line (UINT64_MAX = never), for "opt". */
    uint64_t next_use;
    /* Bytes touched from `address`; 0 = the whole line. Bytes past the line's end are
     * ignored. */
    uint32_t size;
    /* The core, thread, SM or module that issued it. */
    uint32_t requester;
    /* Cycles the miss costs, when the host's memory model knows them (0 = unknown). */
    uint32_t miss_cost_cycles;
    /* Variable-block caches: the block spec of a miss, as memsub::cache::block_spec: span of
     * each inserted block in segments (a power of two <= segments per line) and the segments
     * it is stored in (<= span; a compressed line stores fewer). span_segments 0 = no spec
     * (whole lines are inserted). Ignored by the other kinds. */
    uint32_t span_segments;
    uint32_t stored_segments;
    /* Requested segments of the line (bit i = segment i) when they are not one run; 0 = the
     * bytes [address, address + size). */
    uint16_t sector_mask;
    /* A memsub_access_kind. */
    uint8_t kind;
    /* Non-zero: the reference reads and then writes its bytes (one access of `kind`). */
    uint8_t read_modify_write;
    /* Non-zero: a miss must not allocate (host-forced bypass). */
    uint8_t no_allocate;
    /* With MEMSUB_HINT_MEMORY_COST_CLASS: the cost class 0 (lowest) .. 3 of the miss. */
    uint8_t memory_cost_class;
    /* MEMSUB_HINT_* flags. */
    uint8_t hints;
    /* Must be 0. */
    uint8_t reserved;
} memsub_access;

/* Who declined to allocate on a miss (memsub::cache::bypass_reason). */
typedef enum memsub_bypass_reason {
    MEMSUB_BYPASS_NONE = 0,
    MEMSUB_BYPASS_HOST_NO_ALLOCATE = 1,
    MEMSUB_BYPASS_WRITE_NO_ALLOCATE = 2,
    MEMSUB_BYPASS_PREDICTOR = 3,
    MEMSUB_BYPASS_POLICY = 4
} memsub_bypass_reason;

/* Why a block left (memsub::eviction_reason). */
typedef enum memsub_eviction_reason {
    MEMSUB_EVICTION_REPLACEMENT = 0,
    MEMSUB_EVICTION_WRITE_EVICT = 1,
    MEMSUB_EVICTION_INVALIDATED = 2,
    MEMSUB_EVICTION_SUPERSEDED = 3,
    MEMSUB_EVICTION_RETIRED = 4
} memsub_eviction_reason;

/* A block that left the cache (memsub::evicted_block). */
typedef struct memsub_evicted_block {
    /* Its first byte (the line's first byte for whole-line blocks). */
    uint64_t address;
    /* Bytes of address space it covered; data segments it occupied. */
    uint32_t bytes;
    uint32_t stored_segments;
    /* Non-zero: its data is written back to the next level. */
    uint8_t dirty;
    /* Non-zero: it was hit while resident (always 0 in a fully associative cache, which does
     * not track it). */
    uint8_t reused;
    /* A memsub_eviction_reason. */
    uint8_t reason;
    uint8_t reserved[5];
} memsub_evicted_block;

/* What one access did (memsub::cache::access_result). */
typedef struct memsub_access_result {
    /* Non-zero: every requested byte was resident. */
    uint8_t hit;
    /* Non-zero: a miss that found part of the request resident (variable-block). */
    uint8_t partial;
    /* A memsub_bypass_reason: who declined to allocate on this miss. */
    uint8_t bypass_reason;
    /* Non-zero: the block this access hit is no longer resident (write-evict). */
    uint8_t hit_block_left;
    /* Blocks this access inserted. */
    uint32_t blocks_filled;
    /* Bytes read from the next level; bytes this access itself writes to it (write-through,
     * write-evict, write-no-allocate). Dirty evictions are in `evictions`. */
    uint32_t bytes_fetched;
    uint32_t bytes_written_down;
    /* Requested segments that were not resident (bit i = segment i; 1 for a whole-line miss). */
    uint64_t missing_segments;
    /* The blocks this access removed, in order: evictions[0 .. eviction_count). The slots
     * past eviction_count are not written (they keep what the caller's struct held). */
    uint32_t eviction_count;
    uint32_t reserved;
    memsub_evicted_block evictions[MEMSUB_MAX_EVICTIONS];
} memsub_access_result;

/* Makes one access. `result` may be NULL when only the cache's state and counters matter.
 * Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL cache or access, an unknown kind, a
 * reserved field not 0 (the cache is then unchanged). */
MEMSUB_HOST_API memsub_status memsub_cache_access(memsub_cache* cache, const memsub_access* access,
                                                  memsub_access_result* result);

/* Makes the accesses records[0 .. n) in order, as n calls of memsub_cache_access would, with
 * the metadata of later records prefetched; allocates nothing. *hits_out (when not NULL)
 * receives the number of hits among them; hit_flags (when not NULL, n entries) receives 1 for
 * each record that hit and 0 otherwise. records may be NULL when n is 0.
 * Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL cache, NULL records with n > 0, or a
 * record with an unknown kind or a reserved field not 0: the records before it were made (and
 * counted in *hits_out and hit_flags), that one and the rest were not. */
MEMSUB_HOST_API memsub_status memsub_cache_access_batch(memsub_cache* cache,
                                                        const memsub_access* records, size_t n,
                                                        uint64_t* hits_out, uint8_t* hit_flags);

/* Accesses and misses of one kind of reference. */
typedef struct memsub_kind_counters {
    uint64_t accesses;
    uint64_t misses;
} memsub_kind_counters;

/* Number of memsub_access_kind, memsub_bypass_reason and memsub_eviction_reason values (the
 * lengths of the per-kind and per-reason counter arrays). */
#define MEMSUB_ACCESS_KIND_COUNT 5
#define MEMSUB_BYPASS_REASON_COUNT 5
#define MEMSUB_EVICTION_REASON_COUNT 5

/* A cache's counters since it was created or its counters were reset
 * (memsub::cache::cache_stats). Byte totals are next-level traffic. */
typedef struct memsub_cache_stats {
    /* Totals over every kind: accesses, misses, hits = accesses - misses. */
    uint64_t accesses;
    uint64_t misses;
    uint64_t hits;
    /* Per kind (index = memsub_access_kind). */
    memsub_kind_counters by_kind[MEMSUB_ACCESS_KIND_COUNT];
    /* Misses that allocated; misses that found part of the request resident. */
    uint64_t fills;
    uint64_t partial_misses;
    /* Blocks removed to make room (replacement victims). */
    uint64_t evictions;
    /* Evicted or invalidated blocks that were dirty. */
    uint64_t writebacks;
    /* Misses that did not allocate, in all and by reason (index = memsub_bypass_reason). */
    uint64_t bypasses;
    uint64_t bypasses_by_reason[MEMSUB_BYPASS_REASON_COUNT];
    /* Blocks removed for any other reason than replacement, in all and by reason (index =
     * memsub_eviction_reason; [MEMSUB_EVICTION_REPLACEMENT] stays 0). */
    uint64_t invalidations;
    uint64_t invalidations_by_reason[MEMSUB_EVICTION_REASON_COUNT];
    /* Store hits that resized a compressed block; store hits whose block kept its span;
     * block specs the cache corrected before using them. */
    uint64_t resizes;
    uint64_t resizes_refused;
    uint64_t specs_clamped;
    /* Bytes read from the next level, written down by stores, written back by evictions. */
    uint64_t bytes_fetched;
    uint64_t bytes_written_down;
    uint64_t bytes_written_back;
} memsub_cache_stats;

/* Copies the cache's counters into *stats. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a
 * NULL cache or stats. */
MEMSUB_HOST_API memsub_status memsub_cache_get_stats(const memsub_cache* cache,
                                                     memsub_cache_stats* stats);

/* Sets the cache's counters to zero (its contents stay), e.g. after a warm-up. Returns
 * MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL cache; MEMSUB_UNSUPPORTED for a fully
 * associative cache, whose engine keeps no reset. */
MEMSUB_HOST_API memsub_status memsub_cache_reset_stats(memsub_cache* cache);

/* ------------------------------------------------------------------ replacement policies alone */

/* For a host that keeps its own tag array (ChampSim, gem5, GPGPU-Sim's tag arrays): memsub
 * orders the ways of each set and names victims; the host finds hits, holds tags and data and
 * calls the hooks below. They are memsub's replacement call protocol
 * (memsub/replacement/concept.hpp, P1-P6), one function per hook:
 *   H1. A hit in way w of set s: memsub_policy_on_hit(s, w, access).
 *   H2. A miss in set s: memsub_policy_on_miss(s, access) once, before any other hook of that
 *       access. A host that retries a fill (its lower level was busy) does not repeat it.
 *   H3. Optionally, when the set has no invalid way: memsub_policy_should_bypass; when it says
 *       bypass, nothing more is called for that access.
 *   H4. While the set has no invalid way: memsub_policy_victim(s, eligible, access) -> w (a way
 *       of `eligible`, a non-empty mask of valid ways), then memsub_policy_on_evict(s, w,
 *       block) when w really leaves. victim may age metadata (RRIP) and may be asked again
 *       before an eviction (a retried fill): only on_evict makes the way invalid.
 *   H5. memsub_policy_on_insert(s, w, access) into an invalid way w.
 *   H6. An invalidation outside replacement (a coherence invalidation, a flush):
 *       memsub_policy_on_evict with the block's reason and no victim call.
 * The handle tracks which ways are valid, so a call that breaks H4-H6 (inserting into a valid
 * way, evicting an invalid one, an eligible mask naming an invalid way) is refused with
 * MEMSUB_INVALID_ARGUMENT and changes nothing, rather than corrupting the policy's state. The
 * hooks allocate nothing and run in O(ways). */

/* A replacement policy; opaque. Create with memsub_policy_create, free with
 * memsub_policy_destroy. */
typedef struct memsub_policy memsub_policy;

/* The cache a policy orders. Zero-initialise it and set the three shape fields. */
typedef struct memsub_policy_config {
    /* Sets (a power of two) and ways (1..64) of the host's cache. */
    uint32_t sets;
    uint32_t ways;
    /* Its line size in bytes (a power of two >= 4): policies that hash or sample addresses
     * (ship's signatures, remap's victim buffer and bank table) use line addresses. */
    uint32_t line_bytes;
    /* Must be 0. */
    uint32_t reserved;
} memsub_policy_config;

/* Creates the policy `policy_name` (the names memsub_policy_names lists: those of
 * memsub_cache_policy_names for a set-associative cache; NULL or "" = "lru"; with settings after
 * a colon as memsub_cache_create takes them, revision 4) for a cache of `config`, with every way
 * invalid, and stores it in *out (left unchanged on failure). Returns MEMSUB_OK;
 * MEMSUB_INVALID_ARGUMENT for a NULL config or out or a reserved field not 0;
 * MEMSUB_CONFIG_ERROR for a shape memsub refuses, an unknown policy (the message lists the names
 * that can be built for this shape) or a setting refused as memsub_cache_create refuses it;
 * MEMSUB_OUT_OF_MEMORY. */
MEMSUB_HOST_API memsub_status memsub_policy_create(const char* policy_name,
                                                   const memsub_policy_config* config,
                                                   memsub_policy** out, memsub_error* error);

/* Frees a policy. NULL is allowed and does nothing. Returns MEMSUB_OK. */
MEMSUB_HOST_API memsub_status memsub_policy_destroy(memsub_policy* policy);

/* Writes the policy names a policy of `config` can be created with, as memsub_cache_policy_names
 * does (same buffer rules and statuses). */
MEMSUB_HOST_API memsub_status memsub_policy_names(const memsub_policy_config* config, char* buffer,
                                                  size_t buffer_bytes, size_t* needed,
                                                  memsub_error* error);

/* Revision 4. Writes the settings of the policy `policy_name` names on a policy of `config`, as
 * memsub_cache_policy_params does for a set-associative cache (same text, buffer rules and
 * statuses). */
MEMSUB_HOST_API memsub_status memsub_policy_params(const char* policy_name,
                                                   const memsub_policy_config* config, char* buffer,
                                                   size_t buffer_bytes, size_t* needed,
                                                   memsub_error* error);

/* The name the policy reports (e.g. "ta_drrip"): a string the handle owns, valid until it is
 * destroyed. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL pointer. */
MEMSUB_HOST_API memsub_status memsub_policy_name(const memsub_policy* policy, const char** name);

/* H1: way `way` of set `set` was hit by `access` (way must be valid). Returns MEMSUB_OK;
 * MEMSUB_INVALID_ARGUMENT for a NULL pointer, a set or way out of range, an invalid way, a bad
 * record (unknown kind, reserved field not 0). The same errors apply to every hook below. */
MEMSUB_HOST_API memsub_status memsub_policy_on_hit(memsub_policy* policy, uint32_t set,
                                                   uint32_t way, const memsub_access* access);

/* H2: `access` missed in `set`. */
MEMSUB_HOST_API memsub_status memsub_policy_on_miss(memsub_policy* policy, uint32_t set,
                                                    const memsub_access* access);

/* H3: writes 1 to *bypass when the policy would not insert `access`'s block into the full
 * `set` (OPT-style bypass), 0 otherwise (every policy that has no such rule). */
MEMSUB_HOST_API memsub_status memsub_policy_should_bypass(memsub_policy* policy, uint32_t set,
                                                          const memsub_access* access,
                                                          uint8_t* bypass);

/* H4: writes the victim way among `eligible` (bit w = way w; non-empty, valid ways only) to
 * *way. */
MEMSUB_HOST_API memsub_status memsub_policy_victim(memsub_policy* policy, uint32_t set,
                                                   uint64_t eligible, const memsub_access* access,
                                                   uint32_t* way);

/* H5: `access`'s line was placed in the invalid way `way` of `set`, which becomes valid. */
MEMSUB_HOST_API memsub_status memsub_policy_on_insert(memsub_policy* policy, uint32_t set,
                                                      uint32_t way, const memsub_access* access);

/* H4/H6: the valid way `way` of `set` leaves (becomes invalid). `block` describes it: address
 * (its line's first byte), dirty, reused (hit while resident), reason (a
 * memsub_eviction_reason); bytes and stored_segments may be 0 (= the whole line). */
MEMSUB_HOST_API memsub_status memsub_policy_on_evict(memsub_policy* policy, uint32_t set,
                                                     uint32_t way,
                                                     const memsub_evicted_block* block);

/* Writes the valid ways of `set` (bit w = way w) to *valid, as the handle tracks them. */
MEMSUB_HOST_API memsub_status memsub_policy_valid_ways(const memsub_policy* policy, uint32_t set,
                                                       uint64_t* valid);

/* Writes the policy's hardware metadata in bits (0 when it does not report it) to *bits. */
MEMSUB_HOST_API memsub_status memsub_policy_storage_bits(const memsub_policy* policy,
                                                         uint64_t* bits);

/* ------------------------------------------------------------------ DRAM controllers */

/* A DRAM controller (memsub/memory/: docs/embedding/memory_controller.md). It keeps no clock:
 * the host enqueues requests with their arrival cycle, advances the controller to a cycle
 * (never backwards) and drains the requests completed by then. Arrival cycles are
 * non-decreasing; a request refused with MEMSUB_ENQUEUE_QUEUE_FULL is retried later with its
 * original arrival cycle, so the wait counts as queueing. Revision 2 and later. */
typedef struct memsub_dram memsub_dram;

/* A controller's make-up. Zero-initialise it: every NULL / 0 field takes its default. */
typedef struct memsub_dram_config {
    /* The scheduler and queue organisation: "fr_fcfs" (default; first ready, then oldest, one
     * read and one write queue per channel), "fcfs", "partitioned" ([HTA]'s controller: a
     * queue per requester cluster, round robin across them), "hmc_vault" ([MemNet]'s vault
     * controller: FR-FCFS, closed page, one 16-entry queue), "flat" (a fixed latency and a
     * bandwidth limit, no DRAM timing). */
    const char* controller;
    /* The row policy of "fr_fcfs", "fcfs" and "partitioned": "open" (default), "closed",
     * "timeout" (timeout-adaptive). Must be NULL or "" for the others. */
    const char* row_policy;
    /* The DRAM timing preset: "ddr4_2400" (default), "ddr3_1600" ([Dissertation] Table 2.3),
     * "hbm2", "hmc_vault" (the default of "hmc_vault"). For "flat", the preset whose peak
     * bandwidth the pipe has. */
    const char* timing;
    /* The address mapping as DRAMSim3 writes it, most significant field first (ro ra bg ba ch
     * co); NULL or "" = "rorabgbachco", or "rorabachco" for a preset without bank groups. */
    const char* mapping;
    /* Channels (0 = the preset's). */
    uint32_t channels;
    /* "partitioned": requester clusters (0 = 16). Ignored by the others. */
    uint32_t requesters;
    /* "flat": cycles from service to completion (0 = 100). Ignored by the others. */
    uint32_t flat_latency_cycles;
    /* Non-zero: XOR the bank bits with low row bits (a bank hash). */
    uint8_t xor_bank_hash;
    /* Must be 0. */
    uint8_t reserved[3];
} memsub_dram_config;

/* A request (memsub::memory::mem_request). */
typedef struct memsub_mem_request {
    /* Chosen by the host; returned unchanged in the completion. */
    uint64_t id;
    /* The byte address the mapping decodes; the request moves the burst holding it. */
    uint64_t address;
    /* The host's cycle when the request reaches the controller (non-decreasing). */
    uint64_t arrival_cycle;
    /* The core, SM or cluster that sent it ("partitioned" queues by it). */
    uint32_t requester;
    /* Non-zero: a write. */
    uint8_t is_write;
    /* Must be 0. */
    uint8_t reserved[3];
} memsub_mem_request;

/* What memsub_dram_enqueue did with a request. */
typedef enum memsub_enqueue_result {
    /* Queued: it will complete and be drained. */
    MEMSUB_ENQUEUE_ACCEPTED = 0,
    /* Back-pressure: the queue is full; retry later with the same arrival cycle. */
    MEMSUB_ENQUEUE_QUEUE_FULL = 1,
    /* Never acceptable (an address past the mapping's range): do not retry. */
    MEMSUB_ENQUEUE_REJECTED = 2
} memsub_enqueue_result;

/* The row-buffer state a request found (memsub::memory::row_class). */
typedef enum memsub_row_class {
    MEMSUB_ROW_HIT = 0,
    MEMSUB_ROW_EMPTY = 1,
    MEMSUB_ROW_CONFLICT = 2
} memsub_row_class;

/* A finished request (memsub::memory::completion). */
typedef struct memsub_completion {
    uint64_t id;
    uint64_t address;
    /* Arrival (as enqueued), selection by the scheduler, first and last data beat. Latency =
     * done_cycle - arrival_cycle; queueing = selected_cycle - arrival_cycle. */
    uint64_t arrival_cycle;
    uint64_t selected_cycle;
    uint64_t data_cycle;
    uint64_t done_cycle;
    uint32_t requester;
    /* The channel and the flat bank within it that served it. */
    uint32_t channel;
    uint32_t bank;
    uint8_t is_write;
    /* A memsub_row_class; meaningless when from_queue. */
    uint8_t row_class;
    /* Non-zero: served by the write queue without a DRAM access (a read forwarded from a
     * queued write, or a write merged into one). */
    uint8_t from_queue;
    uint8_t reserved;
} memsub_completion;

/* A controller's counters (memsub::memory::controller_stats). */
typedef struct memsub_dram_stats {
    uint64_t reads;
    uint64_t writes;
    /* Completed DRAM accesses by row class (index = memsub_row_class). */
    uint64_t by_row_class[3];
    /* Enqueue attempts refused with QUEUE_FULL; requests rejected. */
    uint64_t refused;
    uint64_t rejected;
    uint64_t refreshes;
    /* Read/write direction changes on the data buses. */
    uint64_t bus_turnarounds;
    /* Write drains started, and the writes they served. */
    uint64_t write_drains;
    uint64_t drained_writes;
    uint64_t forwarded_reads;
    uint64_t merged_writes;
    /* Bytes moved, and the data-bus cycles (summed over channels) that moved them. */
    uint64_t bytes;
    uint64_t data_bus_cycles;
    /* The measured window: first arrival (UINT64_MAX before any) and last completion. */
    uint64_t first_arrival;
    uint64_t last_done;
    /* Completed requests' latency (arrival to last data beat, cycles): mean, 99th percentile
     * and maximum; the same for reads alone. */
    double latency_mean;
    uint64_t latency_p99;
    uint64_t latency_max;
    double read_latency_mean;
    uint64_t read_latency_p99;
    uint64_t read_latency_max;
} memsub_dram_stats;

/* Called by memsub_dram_drain once per completed request, in completion order. The pointer is
 * valid only during the call. */
typedef void (*memsub_completion_fn)(void* context, const memsub_completion* completion);

/* Creates a controller of `config` (NULL = every default: FR-FCFS, open page, DDR4-2400,
 * rorabgbachco) and stores it in *out (left unchanged on failure); free it with
 * memsub_dram_destroy. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL out or a reserved
 * field not 0; MEMSUB_CONFIG_ERROR for an unknown controller, row policy or preset, a row
 * policy the controller does not take, or a mapping or channel count memsub refuses (the
 * message names the field and what it takes); MEMSUB_OUT_OF_MEMORY. */
MEMSUB_HOST_API memsub_status memsub_dram_create(const memsub_dram_config* config,
                                                 memsub_dram** out, memsub_error* error);

/* Frees a controller (pending requests are dropped). NULL is allowed. Returns MEMSUB_OK. */
MEMSUB_HOST_API memsub_status memsub_dram_destroy(memsub_dram* dram);

/* Offers a request; *result (when not NULL) receives a memsub_enqueue_result. Returns
 * MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL dram or request, a reserved field not 0, or an
 * arrival cycle earlier than the previous request's (the request is then not offered). */
MEMSUB_HOST_API memsub_status memsub_dram_enqueue(memsub_dram* dram,
                                                  const memsub_mem_request* request,
                                                  uint8_t* result);

/* Runs the controller up to `cycle`. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL dram
 * or a cycle earlier than a previous memsub_dram_advance_to's (nothing is done). */
MEMSUB_HOST_API memsub_status memsub_dram_advance_to(memsub_dram* dram, uint64_t cycle);

/* Calls `fn` for every request completed by the cycle advanced to, and forgets them;
 * *drained (when not NULL) receives how many. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a
 * NULL dram or fn. */
MEMSUB_HOST_API memsub_status memsub_dram_drain(memsub_dram* dram, memsub_completion_fn fn,
                                                void* context, uint64_t* drained);

/* Writes the next cycle at which anything can happen (UINT64_MAX when nothing is pending):
 * a host may advance straight to it. */
MEMSUB_HOST_API memsub_status memsub_dram_next_event_cycle(const memsub_dram* dram,
                                                           uint64_t* cycle);

/* Writes the number of requests accepted and not yet drained. */
MEMSUB_HOST_API memsub_status memsub_dram_pending(const memsub_dram* dram, uint64_t* pending);

/* Copies the controller's counters into *stats. */
MEMSUB_HOST_API memsub_status memsub_dram_get_stats(const memsub_dram* dram,
                                                    memsub_dram_stats* stats);

/* Writes the controller's command clock period in ns (to convert the host's clock), its peak
 * bandwidth in GB/s over all channels, and its channels; any pointer may be NULL. */
MEMSUB_HOST_API memsub_status memsub_dram_info(const memsub_dram* dram, double* tck_ns,
                                               double* peak_gb_per_s, uint32_t* channels);

/* ------------------------------------------------------------------ compressors */

/* Largest line a compressor takes (32, 64 or 128 bytes), and the payload capacity of a
 * compressed line (no encoding of a supported line is longer). */
#define MEMSUB_MAX_LINE_BYTES 128
#define MEMSUB_MAX_PAYLOAD_BYTES 256

/* A compressor; opaque. Create with memsub_compressor_create, free with
 * memsub_compressor_destroy. */
typedef struct memsub_compressor memsub_compressor;

/* A compressed line (memsub::compression::compressed_line): the payload bits and the tag
 * metadata a decompressor needs with them. */
typedef struct memsub_compressed_line {
    /* Exact payload length in bits (at most MEMSUB_MAX_PAYLOAD_BYTES * 8). */
    uint32_t bits;
    /* Code-book version (sc2; 0 otherwise). */
    uint32_t codebook;
    /* Further tag metadata (BDI's mask when kept in the tag; 0 otherwise). */
    uint64_t tag_data;
    /* best_of member path (0 for plain compressors). */
    uint16_t member;
    /* Algorithm-specific encoding id kept in the tag. */
    uint8_t encoding;
    uint8_t reserved[5];
    /* The payload bit stream, most significant bit of byte 0 first; bytes past
     * (bits + 7) / 8 are zero when memsub_compressor_compress wrote them. */
    uint8_t payload[MEMSUB_MAX_PAYLOAD_BYTES];
} memsub_compressed_line;

/* Creates the compressor `name` for lines of `line_bytes` (32, 64 or 128) bytes with its
 * default parameters, and stores it in *out (left unchanged on failure); free it with
 * memsub_compressor_destroy. Names: memsub_compressor_names lists them ("sc2", alone and in
 * "best_of_all", uses the escape-only code book: no trained book can be given here).
 * Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL name or out; MEMSUB_CONFIG_ERROR for
 * an unknown name (the message lists the names) or line size; MEMSUB_OUT_OF_MEMORY. */
MEMSUB_HOST_API memsub_status memsub_compressor_create(const char* name, uint32_t line_bytes,
                                                       memsub_compressor** out,
                                                       memsub_error* error);

/* Frees a compressor. NULL is allowed and does nothing. Returns MEMSUB_OK. */
MEMSUB_HOST_API memsub_status memsub_compressor_destroy(memsub_compressor* compressor);

/* Writes the compressor names memsub_compressor_create takes, as memsub_cache_policy_names
 * writes policy names (same buffer rules and statuses, without a configuration). */
MEMSUB_HOST_API memsub_status memsub_compressor_names(char* buffer, size_t buffer_bytes,
                                                      size_t* needed);

/* Writes the exact encoded payload bits of line[0 .. bytes) to *bits (no payload is built;
 * nothing allocates). Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL pointer or
 * `bytes` other than the compressor's line size. */
MEMSUB_HOST_API memsub_status memsub_compressor_size_bits(const memsub_compressor* compressor,
                                                          const uint8_t* line, size_t bytes,
                                                          uint32_t* bits, memsub_error* error);

/* Compresses line[0 .. bytes) into *out (whose `bits` equal what memsub_compressor_size_bits
 * reports). Returns as memsub_compressor_size_bits. */
MEMSUB_HOST_API memsub_status memsub_compressor_compress(const memsub_compressor* compressor,
                                                         const uint8_t* line, size_t bytes,
                                                         memsub_compressed_line* out,
                                                         memsub_error* error);

/* Decodes *in into out[0 .. out_bytes), which must be the compressor's line size. Any input is
 * safe: a corrupt, truncated or over-long payload is reported, never read past. Returns
 * MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL pointer or a wrong out_bytes;
 * MEMSUB_DECODE_ERROR when the payload does not decode (the message names the compressor, the
 * bit offset and the problem; `out` then holds unspecified bytes). */
MEMSUB_HOST_API memsub_status memsub_compressor_decompress(const memsub_compressor* compressor,
                                                           const memsub_compressed_line* in,
                                                           uint8_t* out, size_t out_bytes,
                                                           memsub_error* error);

/* Writes the compressor's line size to *line_bytes and the metadata bits it keeps per line in
 * the tag to *metadata_bits; either may be NULL. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT
 * for a NULL compressor. */
MEMSUB_HOST_API memsub_status memsub_compressor_info(const memsub_compressor* compressor,
                                                     uint32_t* line_bytes, uint32_t* metadata_bits);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MEMSUB_HOST_H */
