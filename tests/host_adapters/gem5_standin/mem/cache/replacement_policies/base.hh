// Stand-in of gem5's src/mem/cache/replacement_policies/base.hh (v24; see ../../../README.md):
// the hooks a tag array calls, with gem5's const-ness and its packet-less overloads.
#ifndef __MEM_CACHE_REPLACEMENT_POLICIES_BASE_HH__
#define __MEM_CACHE_REPLACEMENT_POLICIES_BASE_HH__

#include "mem/cache/replacement_policies/replaceable_entry.hh"
#include "mem/packet.hh"
#include "params/BaseReplacementPolicy.hh"
#include "sim/sim_object.hh"

#include <memory>
#include <vector>

namespace gem5 {

typedef std::vector<ReplaceableEntry*> ReplacementCandidates;

namespace replacement_policy {

class Base : public SimObject {
public:
    typedef BaseReplacementPolicyParams Params;
    Base(const Params& p) : SimObject(p) {}
    virtual ~Base() = default;
    virtual void invalidate(const std::shared_ptr<ReplacementData>& replacement_data) = 0;
    virtual void touch(const std::shared_ptr<ReplacementData>& replacement_data, const PacketPtr) {
        touch(replacement_data);
    }
    virtual void touch(const std::shared_ptr<ReplacementData>& replacement_data) const = 0;
    virtual void reset(const std::shared_ptr<ReplacementData>& replacement_data, const PacketPtr) {
        reset(replacement_data);
    }
    virtual void reset(const std::shared_ptr<ReplacementData>& replacement_data) const = 0;
    virtual ReplaceableEntry* getVictim(const ReplacementCandidates& candidates) const = 0;
    virtual std::shared_ptr<ReplacementData> instantiateEntry() = 0;
};

} // namespace replacement_policy
} // namespace gem5

#endif // __MEM_CACHE_REPLACEMENT_POLICIES_BASE_HH__
