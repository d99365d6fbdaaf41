// memsub's replacement policies as a gem5 replacement policy: memsub_rp.hh says how gem5's
// hooks map to memsub's replacement protocol.
#include "mem/cache/replacement_policies/memsub/memsub_rp.hh"

#include <cstdint>
#include <memory>

#include "base/logging.hh"

namespace gem5 {
namespace replacement_policy {

MemsubRP::MemsubRP(const Params& p) : Base(p), promoteWritebackHits(p.writeback_hits == "promote") {
    fatal_if(p.writeback_hits != "promote" && p.writeback_hits != "ignore",
             "%s: writeback_hits is \"%s\"; it takes \"promote\" or \"ignore\"", name(),
             p.writeback_hits);
    fatal_if(p.assoc <= 0 || p.block_size <= 0, "%s: assoc (%d) and block_size (%d) must be > 0",
             name(), p.assoc, p.block_size);
    // Decision: the cache's shape comes from parameters that default to the parent cache's
    // (MemsubRP.py: Parent.size, Parent.assoc, Parent.cache_line_size), as gem5's tags take
    // theirs, so the handle is sized and the policy name checked when the object is built,
    // before the first access. Sizing lazily from getSet()/getWay() would learn the number of
    // sets only when every set had been seen.
    const auto assoc = static_cast<uint64_t>(p.assoc);
    const auto block = static_cast<uint64_t>(p.block_size);
    fatal_if(p.size == 0 || p.size % (assoc * block) != 0 || p.size / (assoc * block) > UINT32_MAX,
             "%s: size (%d bytes) is not a whole number of sets of assoc (%d) x block_size (%d) "
             "bytes",
             name(), p.size, p.assoc, p.block_size);
    numSets = static_cast<uint32_t>(p.size / (assoc * block));
    numWays = static_cast<uint32_t>(p.assoc);
    lineBytes = static_cast<uint32_t>(p.block_size);
    memsub_policy_config config = {};
    config.sets = numSets;
    config.ways = numWays;
    config.line_bytes = lineBytes;
    memsub_error error = {};
    if (memsub_policy_create(p.policy.c_str(), &config, &handle, &error) != MEMSUB_OK)
        fatal("%s: memsub: %s", name(), error.message);
}

MemsubRP::~MemsubRP() {
    memsub_policy_destroy(handle);
}

const char* MemsubRP::memsubPolicyName() const {
    const char* n = "";
    check(memsub_policy_name(handle, &n), "name");
    return n;
}

void MemsubRP::check(memsub_status s, const char* hook) const {
    fatal_if(s != MEMSUB_OK,
             "%s: memsub_policy_%s returned %s: the tags broke memsub's replacement protocol "
             "(memsub_host.h, H1-H6)",
             name(), hook, memsub_status_name(s));
}

memsub_access MemsubRP::record(const PacketPtr pkt) const {
    memsub_access a = {};
    a.address = pkt->getAddr();
    a.pc = pkt->req && pkt->req->hasPC() ? pkt->req->getPC() : 0;
    // A writeback is a write too: it is asked first.
    memsub_access_kind kind = MEMSUB_ACCESS_LOAD;
    if (pkt->isWriteback() || pkt->isEviction())
        kind = MEMSUB_ACCESS_WRITEBACK;
    else if (pkt->cmd.isPrefetch())
        kind = MEMSUB_ACCESS_PREFETCH;
    else if (pkt->isWrite())
        kind = MEMSUB_ACCESS_STORE;
    a.kind = static_cast<uint8_t>(kind);
    return a;
}

memsub_access MemsubRP::recordOf(const MemsubReplData& d) const {
    memsub_access a = {};
    a.address = d.lineAddr;
    return a;
}

void MemsubRP::evict(const MemsubReplData& d, memsub_eviction_reason reason) const {
    memsub_evicted_block b = {};
    b.address = d.lineAddr;
    b.dirty = d.dirty ? 1 : 0;
    b.reused = d.reused ? 1 : 0;
    b.reason = static_cast<uint8_t>(reason);
    check(memsub_policy_on_evict(handle, d.set, d.way, &b), "on_evict");
}

void MemsubRP::flushPendingEviction() const {
    if (!evictionPending) return;
    evictionPending = false;
    check(memsub_policy_on_evict(handle, pendingSet, pendingWay, &pendingBlock), "on_evict");
}

void MemsubRP::hit(MemsubReplData& d, const memsub_access& a) const {
    // A victim evicted but not yet refilled is reported before anything else happens.
    flushPendingEviction();
    const bool writes = a.kind == MEMSUB_ACCESS_STORE || a.kind == MEMSUB_ACCESS_WRITEBACK;
    d.dirty = d.dirty || writes;
    // Decision: with writeback_hits=ignore a writeback from the level above neither promotes
    // the block nor counts as its reuse: it is the line coming back, not a reference to it.
    if (a.kind == MEMSUB_ACCESS_WRITEBACK && !promoteWritebackHits) return;
    check(memsub_policy_on_hit(handle, d.set, d.way, &a), "on_hit");
    d.reused = true;
}

void MemsubRP::insert(MemsubReplData& d, const memsub_access& a) const {
    fatal_if(!d.positioned,
             "%s: an entry was filled that getVictim never offered: MemsubRP serves "
             "BaseSetAssoc tags, which ask getVictim before every fill",
             name());
    if (evictionPending && (pendingSet != d.set || pendingWay != d.way)) flushPendingEviction();
    // Every fill follows a miss; getVictim could not report it (memsub_rp.hh: Decision).
    check(memsub_policy_on_miss(handle, d.set, &a), "on_miss");
    missPending = false;
    victim = nullptr;
    flushPendingEviction();
    check(memsub_policy_on_insert(handle, d.set, d.way, &a), "on_insert");
    d.valid = true;
    d.lineAddr = a.address & ~static_cast<Addr>(lineBytes - 1);
    d.dirty = a.kind == MEMSUB_ACCESS_STORE || a.kind == MEMSUB_ACCESS_WRITEBACK;
    d.reused = false;
}

void MemsubRP::invalidate(const std::shared_ptr<ReplacementData>& replacement_data) {
    auto& d = static_cast<MemsubReplData&>(*replacement_data);
    if (!d.valid) return; // nothing resident: nothing to tell memsub
    d.valid = false;
    lastInvalidatedAddr = d.lineAddr;
    if (&d == victim && missPending && !evictionPending) {
        // getVictim's choice leaves to make room: its on_evict follows the miss, in reset.
        victim = nullptr;
        pendingBlock = memsub_evicted_block{};
        pendingBlock.address = d.lineAddr;
        pendingBlock.dirty = d.dirty ? 1 : 0;
        pendingBlock.reused = d.reused ? 1 : 0;
        pendingBlock.reason = static_cast<uint8_t>(MEMSUB_EVICTION_REPLACEMENT);
        pendingSet = d.set;
        pendingWay = d.way;
        evictionPending = true;
        return;
    }
    evict(d, MEMSUB_EVICTION_INVALIDATED);
}

void MemsubRP::touch(const std::shared_ptr<ReplacementData>& replacement_data,
                     const PacketPtr pkt) {
    hit(static_cast<MemsubReplData&>(*replacement_data), record(pkt));
}

void MemsubRP::touch(const std::shared_ptr<ReplacementData>& replacement_data) const {
    // No packet (gem5's sector tags on a move): a load of the block itself.
    auto& d = static_cast<MemsubReplData&>(*replacement_data);
    hit(d, recordOf(d));
}

void MemsubRP::reset(const std::shared_ptr<ReplacementData>& replacement_data,
                     const PacketPtr pkt) {
    insert(static_cast<MemsubReplData&>(*replacement_data), record(pkt));
}

void MemsubRP::reset(const std::shared_ptr<ReplacementData>& replacement_data) const {
    // Decision: gem5 resets without a packet only in moveBlock, right after invalidating the
    // block it moves: the fill is a load of that block's line.
    memsub_access a = {};
    a.address = lastInvalidatedAddr;
    insert(static_cast<MemsubReplData&>(*replacement_data), a);
}

ReplaceableEntry* MemsubRP::getVictim(const ReplacementCandidates& candidates) const {
    panic_if(candidates.empty(), "%s: getVictim without candidates", name());
    flushPendingEviction(); // an earlier fill that never came (a retried allocation)
    victim = nullptr;
    const uint32_t set = candidates[0]->getSet();
    ReplaceableEntry* firstInvalid = nullptr;
    uint64_t eligible = 0;
    for (ReplaceableEntry* c : candidates) {
        fatal_if(c->getSet() != set,
                 "%s: candidates from sets %u and %u: memsub's policies order the ways of one "
                 "set (set-associative indexing)",
                 name(), set, c->getSet());
        fatal_if(c->getSet() >= numSets || c->getWay() >= numWays,
                 "%s: entry (set %u, way %u) is outside the %u sets x %u ways of size, assoc "
                 "and block_size",
                 name(), c->getSet(), c->getWay(), numSets, numWays);
        auto& d = static_cast<MemsubReplData&>(*c->replacementData);
        d.positioned = true;
        d.set = c->getSet();
        d.way = c->getWay();
        if (!d.valid) {
            if (firstInvalid == nullptr) firstInvalid = c;
        } else {
            eligible |= uint64_t{1} << d.way;
        }
    }
    missPending = true;
    if (firstInvalid != nullptr) return firstInvalid; // gem5 fills it: no replacement
    // The miss's record is unknown here (memsub_rp.hh: Decision): a load in this set.
    memsub_access a = {};
    a.address = static_cast<uint64_t>(set) * lineBytes;
    uint32_t way = numWays;
    check(memsub_policy_victim(handle, set, eligible, &a, &way), "victim");
    for (ReplaceableEntry* c : candidates) {
        if (c->getWay() == way) {
            victim = static_cast<MemsubReplData*>(c->replacementData.get());
            return c;
        }
    }
    panic("%s: memsub named way %u, which is not a candidate", name(), way);
}

std::shared_ptr<ReplacementData> MemsubRP::instantiateEntry() {
    return std::shared_ptr<ReplacementData>(new MemsubReplData());
}

} // namespace replacement_policy
} // namespace gem5
