// The stand-in GPGPU-Sim L1D that drives memsub's L1D tag array (memsub/host/gpgpusim/) in CI:
// its interface in plain C++11 types, so the C++20 test that compares it with memsub's GPU L1
// types never sees GPGPU-Sim's types or the adapter's class.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpgpusim_standin {

// One line request of a coalesced warp instruction, as GPGPU-Sim's coalescer hands the L1D a
// mem_fetch: the address (in the line's lowest touched sector), the touched sectors, the bytes
// from address, load or store, and the instruction's PC and divergence degree.
struct request {
    std::uint64_t address = 0;
    std::uint64_t pc = 0;
    unsigned sectors = 0;
    unsigned size = 0;
    bool write = false;
    unsigned divergence = 1;
};

// GPGPU-Sim's cache_request_status values.
enum status { hit = 0, hit_reserved, miss, reservation_fail, sector_miss };

struct outcome {
    int status = 0;        // what access() returned for the request (after any retries)
    bool bypassed = false; // memsub declined to allocate the missing line
    unsigned retries = 0;  // RESERVATION_FAILs before it was taken
};

struct options {
    std::string organisation = "id_cache";
    // Fills arrive this many requests after their miss (0: before the next request, as an
    // atomic cache does).
    unsigned fill_delay = 0;
    // Fill by address (the allocate-on-fill form) rather than by the entry index access gave.
    bool fill_by_address = false;
    // Compressed organisations: the line's bytes, written to out[0..128).
    void (*line_bytes)(std::uint64_t line_first, std::uint8_t* out) = nullptr;
    // LATTE-CC: the tolerance passed at the end of the n-th epoch.
    std::uint32_t (*tolerance_at)(std::uint64_t n) = nullptr;
};

struct run_result {
    std::vector<outcome> outcomes;
    // GPGPU-Sim's tag_array counters.
    unsigned accesses = 0, misses = 0, hit_reserved = 0, reservation_fails = 0;
    // memsub's: hits, predictor bypasses, bytes fetched, fills per mode (compressed).
    std::uint64_t memsub_accesses = 0, memsub_hits = 0, memsub_bypasses = 0, bytes_fetched = 0;
    std::uint64_t fills_by_mode[3] = {0, 0, 0};
    unsigned pending_at_end = 0;
};

// Runs `requests` through a stand-in of GPGPU-Sim's L1D (probe, then access; on a load miss
// the fill `fill_delay` requests later; a RESERVATION_FAIL is retried after the oldest
// outstanding fill) over memsub's tag array. Throws std::invalid_argument for an organisation
// memsub refuses (the adapter's message).
run_result run(const options& o, const std::vector<request>& requests);

} // namespace gpgpusim_standin
