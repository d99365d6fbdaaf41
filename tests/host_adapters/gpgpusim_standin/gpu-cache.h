// Stand-in for GPGPU-Sim's src/gpgpu-sim/gpu-cache.h: the request status a tag array returns
// and the evicted-block record it fills, with GPGPU-Sim's names, values and members (written
// from its public header). The rest of gpu-cache.h (cache configs, blocks, MSHRs, the caches)
// is not needed by memsub's tag array, which replaces GPGPU-Sim's.
#ifndef MEMSUB_GPGPUSIM_STANDIN_GPU_CACHE_H
#define MEMSUB_GPGPUSIM_STANDIN_GPU_CACHE_H

#include "abstract_hardware_model.h"
#include "mem_fetch.h"

enum cache_request_status {
    HIT = 0,
    HIT_RESERVED,
    MISS,
    RESERVATION_FAIL,
    SECTOR_MISS,
    MSHR_HIT,
    NUM_CACHE_REQUEST_STATUS
};

struct evicted_block_info {
    new_addr_type m_block_addr;
    unsigned m_modified_size;
    mem_access_byte_mask_t m_byte_mask;
    mem_access_sector_mask_t m_sector_mask;
    evicted_block_info() {
        m_block_addr = 0;
        m_modified_size = 0;
        m_byte_mask.reset();
        m_sector_mask.reset();
    }
    void set_info(new_addr_type block_addr, unsigned modified_size) {
        m_block_addr = block_addr;
        m_modified_size = modified_size;
    }
    void set_info(new_addr_type block_addr, unsigned modified_size,
                  mem_access_byte_mask_t byte_mask, mem_access_sector_mask_t sector_mask) {
        m_block_addr = block_addr;
        m_modified_size = modified_size;
        m_byte_mask = byte_mask;
        m_sector_mask = sector_mask;
    }
};

#endif
