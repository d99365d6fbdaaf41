// Stand-in of gem5's src/mem/cache/replacement_policies/replaceable_entry.hh (see
// ../../../README.md): an entry of a set-associative table and its policy's data.
#ifndef __MEM_CACHE_REPLACEMENT_POLICIES_REPLACEABLE_ENTRY_HH__
#define __MEM_CACHE_REPLACEMENT_POLICIES_REPLACEABLE_ENTRY_HH__

#include <cstdint>
#include <memory>

namespace gem5 {
namespace replacement_policy {

struct ReplacementData {};

} // namespace replacement_policy

class ReplaceableEntry {
protected:
    uint32_t _set = 0;
    uint32_t _way = 0;

public:
    ReplaceableEntry() = default;
    virtual ~ReplaceableEntry() = default;
    std::shared_ptr<replacement_policy::ReplacementData> replacementData;
    virtual void setPosition(const uint32_t set, const uint32_t way) {
        _set = set;
        _way = way;
    }
    uint32_t getSet() const { return _set; }
    uint32_t getWay() const { return _way; }
};

} // namespace gem5

#endif // __MEM_CACHE_REPLACEMENT_POLICIES_REPLACEABLE_ENTRY_HH__
