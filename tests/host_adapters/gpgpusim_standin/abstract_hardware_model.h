// Stand-in for GPGPU-Sim's src/abstract_hardware_model.h: only the types a tag array and the
// memsub L1D adapter name, with GPGPU-Sim's names and definitions (written from its public
// header, C++11 as GPGPU-Sim compiles).
#ifndef MEMSUB_GPGPUSIM_STANDIN_ABSTRACT_HARDWARE_MODEL_H
#define MEMSUB_GPGPUSIM_STANDIN_ABSTRACT_HARDWARE_MODEL_H

#include <bitset>

typedef unsigned long long new_addr_type;
typedef unsigned long long address_type;

const unsigned MAX_MEMORY_ACCESS_SIZE = 128;
typedef std::bitset<MAX_MEMORY_ACCESS_SIZE> mem_access_byte_mask_t;
const unsigned SECTOR_CHUNCK_SIZE = 4; // four sectors (GPGPU-Sim's spelling)
const unsigned SECTOR_SIZE = 32;       // bytes per sector
typedef std::bitset<SECTOR_CHUNCK_SIZE> mem_access_sector_mask_t;

#endif
