// Stand-in for GPGPU-Sim's src/gpgpu-sim/mem_fetch.h: the accessors of `mem_fetch` a tag array
// reads, with GPGPU-Sim's signatures (is_write() is not const there either). GPGPU-Sim builds a
// mem_fetch from a warp instruction and a mem_access_t; the stand-in's constructor takes the
// fields directly.
#ifndef MEMSUB_GPGPUSIM_STANDIN_MEM_FETCH_H
#define MEMSUB_GPGPUSIM_STANDIN_MEM_FETCH_H

#include "abstract_hardware_model.h"

class mem_fetch {
public:
    mem_fetch(new_addr_type addr, address_type pc, mem_access_sector_mask_t sectors, bool write,
              unsigned data_size)
        : m_addr(addr)
        , m_pc(pc)
        , m_sectors(sectors)
        , m_write(write)
        , m_data_size(data_size) {}

    new_addr_type get_addr() const { return m_addr; }
    // GPGPU-Sim returns (address_type)-1 for a fetch without an instruction.
    address_type get_pc() const { return m_pc; }
    mem_access_sector_mask_t get_access_sector_mask() const { return m_sectors; }
    bool is_write() { return m_write; }
    bool get_is_write() const { return m_write; }
    unsigned get_data_size() const { return m_data_size; }

private:
    new_addr_type m_addr;
    address_type m_pc;
    mem_access_sector_mask_t m_sectors;
    bool m_write;
    unsigned m_data_size;
};

#endif
