// memsub's replacement policies as a gem5 replacement policy (the interface of gem5
// v24's src/mem/cache/replacement_policies/base.hh): the
// SimObject MemsubRP, built from MemsubRP.py, asks memsub's C interface (memsub_policy_*, in
// libmemsub_host) which way of a set to replace. Copy memsub_rp.hh, memsub_rp.cc, MemsubRP.py
// and SConscript into a new directory src/mem/cache/replacement_policies/memsub/ of a gem5
// checkout (memsub's docs/embedding/gem5.md has the steps). C++17; no memsub C++ header.
// Decision: a directory of their own, since this SConscript would replace gem5's own one in
// replacement_policies/; the include path below is the same in an EXTRAS directory that holds
// them under mem/cache/replacement_policies/memsub/.
//
// For the tag arrays of BaseSetAssoc (gem5's default tags). gem5's hooks map to memsub's
// replacement protocol (H1-H6 of memsub/host/memsub_host.h) as follows:
//   touch(data, pkt)     -> on_hit (H1)
//   getVictim(entries)   -> the first invalid entry, else memsub_policy_victim over the valid
//                           ones (H4)
//   invalidate(data)     -> on_evict: reason replacement for the victim getVictim just named,
//                           invalidated for any other entry (H6)
//   reset(data, pkt)     -> on_miss (H2), the victim's on_evict, then on_insert (H5)
// Decision: on_miss is reported in reset, not in getVictim. gem5 hands getVictim no packet, so
// at that point the miss's address, PC and kind are unknown, and ReMAP keys its memory-cost
// table on the address; reset carries the fill's packet. The victim's on_evict waits for it too,
// so the policy sees on_miss, on_evict, on_insert in memsub's order; only victim comes before
// on_miss, which memsub's policies allow (victim reads no state on_miss writes: set dueling
// moves PSEL only in leader sets, whose side is fixed). tests/host_adapters/ checks the result
// equals memsub's own cache, access by access.
#ifndef __MEM_CACHE_REPLACEMENT_POLICIES_MEMSUB_MEMSUB_RP_HH__
#define __MEM_CACHE_REPLACEMENT_POLICIES_MEMSUB_MEMSUB_RP_HH__

#include <cstdint>
#include <memory>

#include "base/types.hh"
#include "mem/cache/replacement_policies/base.hh"
#include "mem/packet.hh"
#include "memsub/host/memsub_host.h"
#include "params/MemsubRP.hh"

namespace gem5 {
namespace replacement_policy {

class MemsubRP : public Base {
protected:
    /// What memsub needs of one entry: where it sits, and the block it holds as far as the
    /// policy sees it (the packets that inserted and hit it).
    struct MemsubReplData : ReplacementData {
        // Decision: gem5 creates replacement data before telling anyone where its entry sits
        // (instantiateEntry takes no entry), so getVictim records each candidate's set and way;
        // BaseSetAssoc always asks getVictim before it inserts into an entry.
        bool positioned = false;
        uint32_t set = 0;
        uint32_t way = 0;
        bool valid = false;
        Addr lineAddr = 0;
        bool dirty = false;
        bool reused = false;
    };

public:
    typedef MemsubRPParams Params;
    MemsubRP(const Params& p);
    ~MemsubRP() override;
    MemsubRP(const MemsubRP&) = delete;
    MemsubRP& operator=(const MemsubRP&) = delete;

    void invalidate(const std::shared_ptr<ReplacementData>& replacement_data) override;
    void touch(const std::shared_ptr<ReplacementData>& replacement_data,
               const PacketPtr pkt) override;
    void touch(const std::shared_ptr<ReplacementData>& replacement_data) const override;
    void reset(const std::shared_ptr<ReplacementData>& replacement_data,
               const PacketPtr pkt) override;
    void reset(const std::shared_ptr<ReplacementData>& replacement_data) const override;
    ReplaceableEntry* getVictim(const ReplacementCandidates& candidates) const override;
    std::shared_ptr<ReplacementData> instantiateEntry() override;

    /// The policy memsub runs (e.g. "ta_drrip" for "drrip").
    const char* memsubPolicyName() const;

private:
    memsub_access record(const PacketPtr pkt) const;
    memsub_access recordOf(const MemsubReplData& d) const;
    void hit(MemsubReplData& d, const memsub_access& a) const;
    void insert(MemsubReplData& d, const memsub_access& a) const;
    void evict(const MemsubReplData& d, memsub_eviction_reason reason) const;
    void flushPendingEviction() const;
    void check(memsub_status s, const char* hook) const;

    memsub_policy* handle = nullptr;
    uint32_t numSets = 0;
    uint32_t numWays = 0;
    uint32_t lineBytes = 0;
    bool promoteWritebackHits = true;

    // The replacement in flight, between getVictim and reset (gem5's hooks are const where
    // memsub's state changes: it lives behind the handle and in these mutable fields).
    mutable bool missPending = false;
    mutable MemsubReplData* victim = nullptr;    // getVictim's choice, until invalidated
    mutable bool evictionPending = false;        // the victim left; its on_evict waits for reset
    mutable memsub_evicted_block pendingBlock{}; // ...with this block
    mutable uint32_t pendingSet = 0;
    mutable uint32_t pendingWay = 0;
    mutable Addr lastInvalidatedAddr = 0;
};

} // namespace replacement_policy
} // namespace gem5

#endif // __MEM_CACHE_REPLACEMENT_POLICIES_MEMSUB_MEMSUB_RP_HH__
