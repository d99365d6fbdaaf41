/* memsub host ABI, GPU L1 part: memsub's GPU L1 data caches (the Table 3.1 baseline, ID-Cache's
 * bypass predictors and line sizes, LATTE-CC's compressed L1) behind the C interface, for GPU
 * simulators built as C++11 (GPGPU-Sim, Accel-Sim) or C. Implemented by
 * memsub/host/memsub_host_gpu.cpp in the same library as memsub_host.h (memsub::host), and
 * following every convention memsub_host.h states (status codes, memsub_error, handles owned
 * by the caller, nothing throws across, no global state, a handle is not thread-safe).
 * Needs MEMSUB_HOST_ABI_REVISION 3 or later (memsub_host_abi_revision).
 *
 * The L1 is atomic, as memsub's caches are: an access that misses allocates (or is bypassed)
 * at once, and there is no fill call. A host with in-flight misses keeps them itself (the
 * GPGPU-Sim adapter, memsub/host/gpgpusim/, shows how).
 *
 * Sectors: every organisation here has 128-byte lines of four 32-byte sectors. A request names
 * its sectors in memsub_access::sector_mask (bit i = sector i of the line; 0 = the bytes
 * [address, address + size)), as a sectored GPU L1 looks up one line request. The
 * conventional organisations hold whole lines and ignore the mask; the variable-line ones
 * (alsi, static_32, static_64, id_cache) hold 32 B, 64 B or 128 B blocks of a line and request
 * exactly the masked sectors; the compressed ones (latte_cc, bdi, sc2) read whole lines.
 *
 * Compiles as C99 and as C++11 or later. */
#ifndef MEMSUB_HOST_GPU_H
#define MEMSUB_HOST_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <memsub/host/memsub_host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A GPU L1 data cache; opaque. Create with memsub_gpu_l1_create, free with
 * memsub_gpu_l1_destroy. */
typedef struct memsub_gpu_l1 memsub_gpu_l1;

/* Bytes of a line and of a sector in every organisation. */
#define MEMSUB_GPU_LINE_BYTES 128
#define MEMSUB_GPU_SECTOR_BYTES 32
/* Modes a compressed L1 can report (its selectors' limit); index of the per-mode counters. */
#define MEMSUB_GPU_MAX_MODES 8

/* Creates the L1 organisation `name` with the default parameters memsub's gpu_l1_explorer and
 * latte_explorer build it with, and stores it in *out (left unchanged on failure):
 *   "baseline"       16 KB, 32 sets x 4 ways x 128 B, LRU, write-evict (gpu::baseline_l1)
 *   "pc_only"        the baseline with ID-Cache's PC-only bypass predictor
 *   "pc_divergence"  the baseline with ID-Cache's PC+Div bypass predictor
 *   "alsi"           ALSI line sizes (128 / 64 / 32 B by divergence) on the variable-block L1
 *                    (16 KB of 32 B segments, 16 tags per set; gpu::variable_line_l1)
 *   "static_32", "static_64"  every miss inserts 32 B / 64 B blocks, same organisation
 *   "id_cache"       ALSI + PC+Div (gpu::id_cache, [Dissertation] Algorithm 5)
 *   "latte_cc"       LATTE-CC's compressed L1: modes none / BDI / SC2 chosen by GPU AMAT
 *                    (gpu::compressed_l1<selection::latte_cc, bdi, sc2>)
 *   "bdi", "sc2"     the same compressed L1 with every line in BDI / SC2 (Static-BDI,
 *                    Static-SC)
 * A compressed L1 with an SC2 mode owns an SC2 code book of its own (gpu::shared_code_book for
 * one L1): books are not shared between handles. Its hits cost the L1 hit latency (20 cycles)
 * plus the queued decompression; misses cost 120 cycles in the selector's AMAT.
 * Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL name or out; MEMSUB_CONFIG_ERROR for
 * an unknown name (the message lists the names); MEMSUB_OUT_OF_MEMORY. */
MEMSUB_HOST_API memsub_status memsub_gpu_l1_create(const char* name, memsub_gpu_l1** out,
                                                   memsub_error* error);

/* Frees an L1. NULL is allowed and does nothing. Returns MEMSUB_OK. */
MEMSUB_HOST_API memsub_status memsub_gpu_l1_destroy(memsub_gpu_l1* l1);

/* Writes the organisation names memsub_gpu_l1_create takes, as memsub_cache_policy_names
 * writes policy names (same buffer rules and statuses, without a configuration). */
MEMSUB_HOST_API memsub_status memsub_gpu_l1_names(char* buffer, size_t buffer_bytes,
                                                  size_t* needed);

/* The organisation's shape. */
typedef struct memsub_gpu_l1_info {
    /* The name it was created by (a string the handle owns, valid until it is destroyed). */
    const char* name;
    /* Sets, and 128 B lines of data per set (the Table 3.1 budget: 4). */
    uint32_t sets;
    uint32_t lines_per_set;
    /* Tag entries per set (4, or 16 in the variable-block and compressed L1s). */
    uint32_t tags_per_set;
    /* MEMSUB_GPU_LINE_BYTES, and the data allocation unit: 128 (whole lines) or 32. */
    uint32_t line_bytes;
    uint32_t segment_bytes;
    /* Modes of a compressed L1 (3: none, BDI, SC2); 0 otherwise. */
    uint32_t modes;
    /* Non-zero: the L1 reads the line's bytes on a fill (memsub_gpu_request::line_data). */
    uint8_t needs_line_data;
    /* Non-zero: the L1 takes a latency tolerance (memsub_gpu_l1_set_latency_tolerance). */
    uint8_t takes_latency_tolerance;
    uint8_t reserved[6];
} memsub_gpu_l1_info;

/* Copies the L1's shape into *info. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL
 * pointer. */
MEMSUB_HOST_API memsub_status memsub_gpu_l1_get_info(const memsub_gpu_l1* l1,
                                                     memsub_gpu_l1_info* info);

/* What the GPU adds to a memsub_access: the warp instruction the line request belongs to.
 * Zero-initialised it is a convergent warp (d = 1) at cycle 0 without line data. */
typedef struct memsub_gpu_request {
    /* The warp instruction's degree of memory divergence d: the number of line requests it
     * made (memsub::gpu::coalescer). ALSI and PC+Div key on it. 0 counts as 1 (convergent). */
    uint32_t divergence;
    uint32_t reserved;
    /* The host's clock when the request reaches the L1 (a compressed L1's decompression queue
     * orders hits by it); 0 when the host keeps none. */
    uint64_t cycle;
    /* Compressed L1s: the MEMSUB_GPU_LINE_BYTES bytes of the request's line (from its first
     * byte), read when a load fills the line; the other organisations never read it. NULL =
     * unknown: the line is taken to be all zeros (as memsub::gpu::compressed_l1 takes an empty
     * access::data), which every compressor stores in no data segment, so a host that
     * compresses passes the bytes. */
    const uint8_t* line_data;
} memsub_gpu_request;

/* What one line request did. */
typedef struct memsub_gpu_result {
    /* Non-zero: every requested sector was resident. */
    uint8_t hit;
    /* Non-zero: a miss that found some requested sectors resident (variable-block L1s). */
    uint8_t partial;
    /* Non-zero: a miss that did not allocate (a load the bypass predictor declined, or a store:
     * a write-evict L1 allocates no store miss); bypass_reason says who declined. */
    uint8_t bypassed;
    /* A memsub_bypass_reason (MEMSUB_BYPASS_PREDICTOR for ID-Cache's bypass). */
    uint8_t bypass_reason;
    /* Non-zero: the selector's experimental phase ended with this access: a host that
     * estimates latency tolerance passes its new estimate now (LATTE-CC). */
    uint8_t epoch_ended;
    uint8_t reserved[3];
    /* Blocks this access inserted (several when a variable-block miss inserts one block per
     * missing span). */
    uint32_t blocks_filled;
    /* Bytes read from the next level; bytes written down (a write-evict store). */
    uint32_t bytes_fetched;
    uint32_t bytes_written_down;
    /* Compressed L1s: the mode the hit line was stored in, or the mode a fill stored the
     * line in (0 = uncompressed); 0 otherwise. */
    uint32_t mode;
    /* Compressed L1s: data segments the filled line occupies (0 = tag-only). */
    uint32_t stored_segments;
    /* Compressed L1s: a hit's latency (L1 hit latency + decompression) and the cycles of it
     * beyond the L1 hit latency (Eq. 4.3's queued decompression); 0 otherwise. */
    uint32_t hit_latency;
    uint32_t extra_hit_cycles;
    /* Requested sectors that were not resident (bit i = sector i). */
    uint64_t missing_sectors;
    /* The blocks this access removed, in order: evictions[0 .. eviction_count). The slots
     * past eviction_count are not written. */
    uint32_t eviction_count;
    uint32_t reserved2;
    memsub_evicted_block evictions[MEMSUB_MAX_EVICTIONS];
} memsub_gpu_result;

/* Makes one line request: `access` (address, pc, size, sector_mask, kind: loads and stores;
 * requester is kept for the host) of the warp instruction `request` describes (NULL = a
 * zero-initialised one). `result` may be NULL. Allocates nothing once warm: a compressed L1's
 * first SC² code-book builds grow the books' tables and the build's working storage to the
 * value-frequency table's size; later rebuilds reuse them.
 * Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL l1 or access, an unknown kind, a
 * reserved field not 0, a sector_mask naming a sector past the line's fourth (the L1 is then
 * unchanged). */
MEMSUB_HOST_API memsub_status memsub_gpu_l1_access(memsub_gpu_l1* l1, const memsub_access* access,
                                                   const memsub_gpu_request* request,
                                                   memsub_gpu_result* result);

/* Writes the sectors of `address`'s line that are resident (bit i = sector i: all four for a
 * resident whole line or compressed line, those of resident blocks in a variable-block L1) to
 * *sectors, and the set the line maps to to *set (either may be NULL). Changes nothing: no
 * replacement state, no counter. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL l1. */
MEMSUB_HOST_API memsub_status memsub_gpu_l1_probe(const memsub_gpu_l1* l1, uint64_t address,
                                                  uint32_t* sectors, uint32_t* set);

/* LATTE-CC: the host's current latency-tolerance estimate in cycles (the SM's available warps
 * x their mean issue run; selection/latency_tolerance.hpp), used by the selector from its next
 * decision on; pass it whenever a result has epoch_ended. Returns MEMSUB_OK;
 * MEMSUB_INVALID_ARGUMENT for a NULL l1; MEMSUB_UNSUPPORTED for an organisation that takes no
 * tolerance (memsub_gpu_l1_info::takes_latency_tolerance is 0). */
MEMSUB_HOST_API memsub_status memsub_gpu_l1_set_latency_tolerance(memsub_gpu_l1* l1,
                                                                  uint32_t cycles);

/* An L1's counters since it was created. */
typedef struct memsub_gpu_l1_stats {
    /* Every line request; those that hit and missed; misses that found part resident. */
    uint64_t accesses;
    uint64_t hits;
    uint64_t misses;
    uint64_t partial_misses;
    /* Loads, and their hits and misses; stores. */
    uint64_t loads;
    uint64_t load_hits;
    uint64_t load_misses;
    uint64_t stores;
    /* Misses that allocated; misses that did not, in all and those the bypass predictor
     * declined. */
    uint64_t fills;
    uint64_t bypasses;
    uint64_t predictor_bypasses;
    /* Blocks removed to make room; blocks removed otherwise (store invalidations, SC2 lines of
     * a retired code book). */
    uint64_t evictions;
    uint64_t invalidations;
    /* Bytes read from the next level; bytes stores wrote down. */
    uint64_t bytes_fetched;
    uint64_t bytes_written_down;
    /* Compressed L1s (0 otherwise): modes (3), the mode lines are inserted in now outside the
     * selector's dedicated sets (LATTE-CC's follower mode, a static L1's mode), the selector's
     * completed experimental phases and periods and the mode decisions it made. A host that
     * wants the mode chosen per period reads current_mode when a result has epoch_ended. */
    uint32_t modes;
    uint32_t current_mode;
    uint64_t epochs;
    uint64_t periods;
    uint64_t decisions;
    /* Per mode (index = mode): accesses while it was the follower mode (LATTE-CC), lines
     * filled in it, load hits to lines stored in it, and the data segments of its fills. */
    uint64_t mode_accesses[MEMSUB_GPU_MAX_MODES];
    uint64_t fills_by_mode[MEMSUB_GPU_MAX_MODES];
    uint64_t hits_by_mode[MEMSUB_GPU_MAX_MODES];
    uint64_t filled_segments_by_mode[MEMSUB_GPU_MAX_MODES];
    /* Sum of the hits' latencies; sum over accesses of the lines resident (mean effective
     * capacity = resident_line_accesses / accesses / lines of data); SC2 code books built
     * and lines retired with old books. */
    uint64_t hit_latency_cycles;
    uint64_t resident_line_accesses;
    uint64_t code_book_builds;
    uint64_t retired_lines;
} memsub_gpu_l1_stats;

/* Copies the L1's counters into *stats. Returns MEMSUB_OK; MEMSUB_INVALID_ARGUMENT for a NULL
 * pointer. */
MEMSUB_HOST_API memsub_status memsub_gpu_l1_get_stats(const memsub_gpu_l1* l1,
                                                      memsub_gpu_l1_stats* stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MEMSUB_HOST_GPU_H */
