// memsub's GPU L1 as GPGPU-Sim's / Accel-Sim's L1 data cache tag array: `memsub_l1d` has the
// shape of GPGPU-Sim's `tag_array` as `l1_cache` / `data_cache` (src/gpgpu-sim/gpu-cache.h) use
// it — probe, access, fill, get_stats — over memsub's C interface (memsub_host_gpu.h), so ID-Cache
// (PC+Div bypass and ALSI line sizes), its comparison points or LATTE-CC's compressed L1 decide
// hits, allocation and victims. C++11, as GPGPU-Sim compiles; it includes no memsub C++ header.
// docs/embedding/gpgpusim.md shows the few lines of gpu-cache.h/.cc that switch the L1D to it.
//
// Protocol (GPGPU-Sim's L1D with allocate-on-miss):
//  * Before the line requests of one warp instruction: set_warp_divergence(d), d = the
//    instruction's line requests (its access queue's length after coalescing). A compressed
//    organisation also takes the line's 128 bytes before each load: set_line_data(bytes).
//  * probe(block_addr, idx, mf/mask, is_write, probe_mode) -> HIT, HIT_RESERVED (the requested
//    sectors are resident but some still wait for their fill), SECTOR_MISS (part of the line
//    is resident or in flight), MISS, or RESERVATION_FAIL (every line of the set waits for a
//    fill). It changes nothing.
//  * access(block_addr, time, idx, [wb, evicted,] mf): the request, made in memsub. On a miss
//    that memsub allocated, idx names the in-flight entry to fill later; on a miss memsub
//    bypassed (ID-Cache's predictor declined the line) last_access_bypassed() is true and idx
//    is (unsigned)-1: the line will not be resident when its data returns.
//  * fill(idx, time, mf) or fill(block_addr, time, mf, is_write): the miss's data is back; its
//    sectors stop being reserved. A fill of a bypassed miss (idx -1, or an address with no entry)
//    does nothing.
//  * Stores: write-evict, as GPGPU-Sim's L1D with global write-evict: the host passes every
//    store to access() (hit or miss); memsub invalidates what it touches.
// Decision: memsub's access is atomic (the line is resident, and its replacement and predictor
// state updated, when access() returns), so the adapter keeps the in-flight state GPGPU-Sim's
// RESERVED blocks hold: per set at most `lines_per_set` entries, each the sectors one miss
// inserted, until its fill. Considered: allocating in memsub at fill time (GPGPU-Sim's
// allocate-on-fill); memsub's predictors train on the access that inserts, and the ALSI block
// size depends on the warp that missed, which fill time no longer knows.
// Decision: memsub's replacement may evict a line whose fill is pending (GPGPU-Sim never evicts
// a RESERVED block). The adapter then drops those sectors from the entry: a later request to
// them is a MISS and fetches again, and the pending fill completes nothing there.
#ifndef MEMSUB_GPGPUSIM_MEMSUB_L1D_H
#define MEMSUB_GPGPUSIM_MEMSUB_L1D_H

#include <string>
#include <vector>

#include "gpu-cache.h"
#include "mem_fetch.h"

#include <memsub/host/memsub_host_gpu.h>

class memsub_l1d {
public:
    // Creates the memsub L1 organisation `organisation` ("id_cache", "baseline", "latte_cc",
    // ...: memsub_gpu_l1_names lists them). Throws std::invalid_argument with memsub's message
    // when memsub refuses it (an unknown name: the message lists the names).
    explicit memsub_l1d(const char* organisation);
    ~memsub_l1d();

    // The warp instruction whose line requests come next: its degree of divergence d.
    void set_warp_divergence(unsigned d) { m_divergence = d; }
    // Compressed organisations: the 128 bytes of the next access's line (from its first byte),
    // read when a load fills it; used for one access (NULL = unknown: taken as zeros).
    void set_line_data(const unsigned char* line) { m_line_data = line; }
    // LATTE-CC: the SM's latency tolerance in cycles; pass it when last_epoch_ended() is true.
    // Ignored by the organisations that take none.
    void set_latency_tolerance(unsigned cycles);

    enum cache_request_status probe(new_addr_type addr, unsigned& idx, mem_fetch* mf, bool is_write,
                                    bool probe_mode = false) const;
    enum cache_request_status probe(new_addr_type addr, unsigned& idx,
                                    mem_access_sector_mask_t mask, bool is_write,
                                    bool probe_mode = false, mem_fetch* mf = NULL) const;
    enum cache_request_status access(new_addr_type addr, unsigned time, unsigned& idx,
                                     mem_fetch* mf);
    enum cache_request_status access(new_addr_type addr, unsigned time, unsigned& idx, bool& wb,
                                     evicted_block_info& evicted, mem_fetch* mf);
    void fill(new_addr_type addr, unsigned time, mem_fetch* mf, bool is_write);
    void fill(unsigned idx, unsigned time, mem_fetch* mf);

    // What the latest access() did beyond its status: memsub declined to allocate the missing
    // line of a load (ID-Cache's bypass; stores never allocate in a write-evict L1); LATTE-CC's
    // decompression cycles on a hit beyond the L1's hit latency; the selector's experimental phase
    // ended.
    bool last_access_bypassed() const { return m_last_bypassed; }
    unsigned last_extra_hit_cycles() const { return m_last_extra_hit_cycles; }
    bool last_epoch_ended() const { return m_last_epoch_ended; }

    // GPGPU-Sim's tag_array counters: accesses, misses (MISS and SECTOR_MISS), hits on
    // reserved lines, reservation failures.
    void get_stats(unsigned& total_access, unsigned& total_misses, unsigned& total_hit_res,
                   unsigned& total_res_fail) const;
    // Lines of data (sets x lines per set) and lines waiting for a fill.
    unsigned size() const { return m_sets * m_lines_per_set; }
    unsigned pending_fills() const;
    // memsub's counters (hits, bypasses, bytes fetched, LATTE-CC's modes).
    memsub_gpu_l1_stats memsub_stats() const;
    const memsub_gpu_l1_info& info() const { return m_info; }

private:
    struct in_flight {
        new_addr_type block; // the line's first byte
        unsigned sectors;    // sectors the miss inserted that wait for its fill
        bool used;
    };

    memsub_l1d(const memsub_l1d&);
    memsub_l1d& operator=(const memsub_l1d&);

    new_addr_type block_of(new_addr_type addr) const { return addr & ~(m_line_bytes - 1ull); }
    unsigned set_of(new_addr_type addr) const;
    unsigned resident(new_addr_type addr) const;
    unsigned pending(unsigned set, new_addr_type block) const;
    bool set_full(unsigned set) const;
    enum cache_request_status status_of(unsigned set, new_addr_type block, unsigned mask,
                                        unsigned& idx) const;
    void forget(const memsub_evicted_block& e);

    memsub_gpu_l1* m_l1;
    memsub_gpu_l1_info m_info;
    unsigned m_sets;
    unsigned m_lines_per_set;
    unsigned long long m_line_bytes;
    std::vector<in_flight> m_in_flight; // set * lines_per_set + k
    unsigned m_divergence;
    const unsigned char* m_line_data;
    bool m_last_bypassed;
    unsigned m_last_extra_hit_cycles;
    bool m_last_epoch_ended;
    unsigned m_access;
    unsigned m_miss;
    unsigned m_pending_hit;
    unsigned m_res_fail;
};

#endif
