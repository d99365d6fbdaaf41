// memsub's replacement policies as a ChampSim replacement module. Copy this folder (memsub.h,
// memsub.cc) into a ChampSim checkout's replacement/ directory, name it in the configuration
// ("replacement": "memsub"), and link libmemsub_host (docs/embedding/champsim.md). The module
// is C++17 and uses only memsub's C interface (memsub/host/memsub_host.h): ChampSim compiles its
// modules with its own standard and flags.
//
// Run-time choices, read from the environment once, when ChampSim builds the cache (ChampSim
// gives a module nothing but its CACHE*):
//   MEMSUB_POLICY_<CACHE>  the memsub policy of the cache named <CACHE> (its NAME, upper case,
//                          other characters than letters and digits as '_': MEMSUB_POLICY_LLC,
//                          MEMSUB_POLICY_CPU0_L2C); else
//   MEMSUB_POLICY          the policy of every cache running this module; else "lru".
//   MEMSUB_WRITEBACK_HITS  "promote" (default: a writeback hit is a hit, as in memsub's engine
//                          and ChampSim's srrip) or "ignore" (a writeback hit leaves the
//                          policy's state alone, as ChampSim's lru does).
// An unknown policy or value stops the simulation at construction with memsub's message, which
// lists the policies that exist.
#ifndef MEMSUB_CHAMPSIM_MODULE_H
#define MEMSUB_CHAMPSIM_MODULE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <memsub/host/memsub_host.h>

#include "cache.h"
#include "modules.h"

class memsub : public champsim::modules::replacement {
public:
    explicit memsub(CACHE* cache);

    // Called only when the set has no invalid way. Returns the victim way, or NUM_WAY for a
    // bypass (never for a writeback fill, which ChampSim does not let bypass).
    long find_victim(uint32_t triggering_cpu, uint64_t instr_id, long set,
                     const champsim::cache_block* current_set, champsim::address ip,
                     champsim::address full_addr, access_type type);
    // Every fill, into an invalid way, a victim's way, or NUM_WAY (bypassed).
    void replacement_cache_fill(uint32_t triggering_cpu, long set, long way,
                                champsim::address full_addr, champsim::address ip,
                                champsim::address victim_addr, access_type type);
    // Every tag check; only hits change state (misses are announced at fill time).
    void update_replacement_state(uint32_t triggering_cpu, long set, long way,
                                  champsim::address full_addr, champsim::address ip,
                                  champsim::address victim_addr, access_type type, uint8_t hit);
    void replacement_final_stats();

private:
    struct policy_deleter {
        void operator()(memsub_policy* p) const noexcept { memsub_policy_destroy(p); }
    };

    // A fill whose miss was announced (memsub_policy_on_miss) by find_victim and whose
    // replacement_cache_fill has not come yet: ChampSim retries a fill whose dirty victim could
    // not be sent down, calling find_victim again, and the miss must be announced once.
    struct pending_fill {
        bool active = false;
        long set = 0;
        uint64_t address = 0;
        uint64_t instr_id = 0;
        long victim_way = -1;
        bool victim_dirty = false;
    };

    memsub_access record(champsim::address full_addr, champsim::address ip, access_type type,
                         uint32_t cpu) const;
    void check(memsub_status status, const char* what) const;

    std::unique_ptr<memsub_policy, policy_deleter> policy_;
    std::string cache_name_;
    std::string policy_name_;
    long num_way_;
    uint32_t line_bytes_;
    bool promote_writeback_hits_ = true;
    std::vector<uint64_t> reused_; // per set, bit w: the line in way w was hit since its fill
    pending_fill pending_;
    uint64_t hits_ = 0, fills_ = 0, bypasses_ = 0, evictions_ = 0, retried_victims_ = 0;
};

#endif
