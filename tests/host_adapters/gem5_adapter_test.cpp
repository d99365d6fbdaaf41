// The gem5 adapter (include/memsub/host/gem5/) compiled against a stand-in of gem5's interface
// (gem5_standin/, written from gem5's public headers) and driven as gem5's BaseSetAssoc tags
// and BaseCache drive a replacement policy: it must hit and evict exactly as memsub's own
// set-associative cache (the C interface's MEMSUB_CACHE_SET_ASSOCIATIVE cache, which is
// set_associative_cache<host::policy_choice>, write-back and write-allocate) on the same stream.
// C++17, as gem5 builds it: no memsub C++ header here.
#include <doctest/doctest.h>

#include "base/logging.hh"
#include "mem/cache/replacement_policies/memsub/memsub_rp.hh"
#include "mem/packet.hh"
#include "memsub/host/memsub_host.h"
#include "params/MemsubRP.hh"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using gem5::Addr;
using gem5::MemCmd;
using gem5::Packet;
using gem5::ReplaceableEntry;
using gem5::Request;
using gem5::replacement_policy::MemsubRP;

gem5::MemsubRPParams params_for(const std::string& policy, std::uint32_t sets, std::uint32_t ways) {
    gem5::MemsubRPParams p;
    p.name = "system.l2.replacement_policy";
    p.policy = policy;
    p.size = std::uint64_t{sets} * ways * 64;
    p.assoc = static_cast<int>(ways);
    p.block_size = 64;
    return p;
}

/// gem5's cache blocks (CacheBlk) as far as the tags use them.
struct cache_blk : ReplaceableEntry {
    bool valid = false;
    Addr line = 0;
    bool dirty = false;
};

/// The shape of gem5's BaseSetAssoc tags with set-associative indexing under BaseCache's
/// write-back, write-allocate access: accessBlock touches a hit; a miss asks findVictim
/// (getVictim over the set's entries), evicts a valid victim (invalidate) and inserts
/// (insertBlock -> reset).
class set_assoc_tags {
public:
    set_assoc_tags(gem5::replacement_policy::Base& rp, std::uint32_t sets, std::uint32_t ways)
        : rp_(rp)
        , sets_(sets)
        , ways_(ways)
        , blks_(std::size_t{sets} * ways) {
        // tagsInit: each block learns its position, then gets its replacement data.
        for (std::size_t i = 0; i < blks_.size(); ++i) {
            blks_[i].setPosition(static_cast<std::uint32_t>(i / ways),
                                 static_cast<std::uint32_t>(i % ways));
            blks_[i].replacementData = rp_.instantiateEntry();
        }
    }

    struct outcome {
        bool hit = false;
        bool evicted = false;
        Addr evicted_address = 0;
        bool evicted_dirty = false;
    };

    outcome access(Packet& pkt) {
        outcome o;
        const Addr line = pkt.getAddr() / 64;
        if (cache_blk* blk = find_block(line)) { // accessBlock
            rp_.touch(blk->replacementData, &pkt);
            blk->dirty = blk->dirty || pkt.isWrite();
            o.hit = true;
            return o;
        }
        cache_blk* victim = find_victim(line);
        if (victim->valid) {
            o.evicted = true;
            o.evicted_address = victim->line * 64;
            o.evicted_dirty = victim->dirty;
            invalidate(*victim);
        }
        victim->valid = true; // insertBlock
        victim->line = line;
        victim->dirty = pkt.isWrite();
        rp_.reset(victim->replacementData, &pkt);
        return o;
    }

    cache_blk& block(std::uint32_t set, std::uint32_t way) {
        return blks_[std::size_t{set} * ways_ + way];
    }

    void invalidate(cache_blk& blk) {
        blk.valid = false;
        rp_.invalidate(blk.replacementData);
    }

private:
    cache_blk* find_block(Addr line) {
        const auto set = static_cast<std::uint32_t>(line % sets_);
        for (std::uint32_t w = 0; w < ways_; ++w) {
            cache_blk& b = block(set, w);
            if (b.valid && b.line == line) return &b;
        }
        return nullptr;
    }

    cache_blk* find_victim(Addr line) {
        const auto set = static_cast<std::uint32_t>(line % sets_);
        std::vector<ReplaceableEntry*> entries;
        for (std::uint32_t w = 0; w < ways_; ++w) entries.push_back(&block(set, w));
        return static_cast<cache_blk*>(rp_.getVictim(entries));
    }

    gem5::replacement_policy::Base& rp_;
    std::uint32_t sets_;
    std::uint32_t ways_;
    std::vector<cache_blk> blks_;
};

struct stream_item {
    Addr address;
    MemCmd::Command cmd;
    memsub_access_kind kind;
    Addr pc;
};

/// 60k accesses over 1,536 lines (3x a 64-set 8-way cache), a hot eighth taking half of them:
/// loads, stores, writebacks and hardware prefetches from 16 PCs.
std::vector<stream_item> make_stream(std::uint64_t seed) {
    std::uint64_t x = seed;
    auto next = [&x]() { // splitmix64
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    };
    std::vector<stream_item> s(60'000);
    for (auto& a : s) {
        const std::uint64_t line = next() % 2 == 0 ? next() % 192 : next() % 1536;
        a.address = line * 64 + next() % 64;
        const std::uint64_t k = next() % 10;
        a.cmd = k < 6   ? MemCmd::ReadReq
                : k < 8 ? MemCmd::WriteReq
                : k < 9 ? MemCmd::WritebackDirty
                        : MemCmd::HardPFReq;
        a.kind = k < 6   ? MEMSUB_ACCESS_LOAD
                 : k < 8 ? MEMSUB_ACCESS_STORE
                 : k < 9 ? MEMSUB_ACCESS_WRITEBACK
                         : MEMSUB_ACCESS_PREFETCH;
        a.pc = 0x400000 + 4 * (next() % 16);
    }
    return s;
}

struct cache_deleter {
    void operator()(memsub_cache* c) const noexcept { memsub_cache_destroy(c); }
};

/// memsub's own write-back set-associative cache running `policy`.
std::unique_ptr<memsub_cache, cache_deleter> reference_cache(const std::string& policy) {
    memsub_cache_config c = {};
    c.sets = 64;
    c.ways = 8;
    c.line_bytes = 64;
    c.write_policy = MEMSUB_WRITE_BACK;
    memsub_cache* out = nullptr;
    memsub_error error = {};
    const memsub_status s =
        memsub_cache_create(MEMSUB_CACHE_SET_ASSOCIATIVE, policy.c_str(), &c, &out, &error);
    INFO(policy, ": ", std::string(error.message));
    REQUIRE(s == MEMSUB_OK);
    return std::unique_ptr<memsub_cache, cache_deleter>(out);
}

/// The policies memsub offers a 64-set 8-way cache, but "opt": Belady's MIN reads each
/// access's next use, which gem5's packets do not carry.
std::vector<std::string> policy_names() {
    const memsub_policy_config shape = {64, 8, 64, 0};
    std::size_t needed = 0;
    REQUIRE(memsub_policy_names(&shape, nullptr, 0, &needed, nullptr) == MEMSUB_BUFFER_TOO_SMALL);
    std::string joined(needed, '\0');
    REQUIRE(memsub_policy_names(&shape, &joined[0], joined.size(), nullptr, nullptr) == MEMSUB_OK);
    joined.resize(needed - 1);
    std::vector<std::string> names;
    std::istringstream in(joined);
    for (std::string n; std::getline(in, n, ',');)
        if (n != "opt") names.push_back(n);
    return names;
}

std::string fatal_message_of(const gem5::MemsubRPParams& p) {
    try {
        MemsubRP rp(p);
    } catch (const gem5::standin::exit_error& e) {
        return e.what();
    }
    return "(no fatal)";
}

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("MemsubRP in gem5's set-associative tags replaces as memsub's own cache") {
    const auto stream = make_stream(2026);
    auto names = policy_names();
    for (const char* required : {"lru", "srrip", "drrip", "ship", "remap"}) {
        CAPTURE(required);
        CHECK(std::find(names.begin(), names.end(), required) != names.end());
    }
    CHECK(names.size() >= 14);
    // The policy parameter carries settings after the name, as the C interface takes them.
    names.emplace_back("srrip:rrpv_bits=3,promotion=frequency_priority");
    names.emplace_back("drrip:psel_bits=6,source=counter");
    for (const std::string& policy : names) {
        CAPTURE(policy);
        MemsubRP rp(params_for(policy, 64, 8));
        set_assoc_tags tags(rp, 64, 8);
        auto engine = reference_cache(policy);
        std::uint64_t hits = 0, evictions = 0, dirty_evictions = 0, mismatches = 0;
        for (std::size_t i = 0; i < stream.size(); ++i) {
            const stream_item& item = stream[i];
            Packet pkt(std::make_shared<Request>(item.pc), item.cmd, item.address);
            const auto mine = tags.access(pkt);
            memsub_access a = {};
            a.address = item.address;
            a.pc = item.pc;
            a.kind = static_cast<std::uint8_t>(item.kind);
            memsub_access_result theirs = {};
            REQUIRE(memsub_cache_access(engine.get(), &a, &theirs) == MEMSUB_OK);
            hits += mine.hit;
            evictions += mine.evicted;
            dirty_evictions += mine.evicted && mine.evicted_dirty;
            const bool theirs_evicted = theirs.eviction_count > 0;
            const bool same =
                (theirs.hit != 0) == mine.hit && theirs_evicted == mine.evicted &&
                (!mine.evicted || (theirs.evictions[0].address == mine.evicted_address &&
                                   (theirs.evictions[0].dirty != 0) == mine.evicted_dirty));
            if (!same && mismatches++ == 0) FAIL_CHECK("first difference at access " << i);
        }
        CHECK(mismatches == 0);
        memsub_cache_stats stats = {};
        REQUIRE(memsub_cache_get_stats(engine.get(), &stats) == MEMSUB_OK);
        CHECK(hits == stats.hits);
        CHECK(evictions == stats.evictions);
        // The stream is three times the cache with a hot set: every outcome occurs.
        CHECK(hits > 10'000);
        CHECK(evictions > 10'000);
        CHECK(dirty_evictions > 0);
    }
}

TEST_CASE("MemsubRP's configuration errors reach gem5's fatal() with memsub's message") {
    auto p = params_for("no_such_policy", 64, 8);
    std::string message = fatal_message_of(p);
    CHECK(contains(message, "fatal: system.l2.replacement_policy: memsub: "));
    CHECK(contains(message, "no_such_policy"));
    // memsub lists the names it offers.
    CHECK(contains(message, "srrip"));
    CHECK(contains(message, "drrip"));
    CHECK(contains(message, "remap"));

    p = params_for("lru", 48, 8); // 48 sets: not a power of two
    message = fatal_message_of(p);
    CHECK(contains(message, "memsub: "));
    CHECK(contains(message, "sets"));

    p = params_for("lru", 64, 8);
    p.size += 64; // not whole sets
    CHECK(contains(fatal_message_of(p), "not a whole number of sets"));

    p = params_for("lru", 64, 8);
    p.writeback_hits = "demote";
    message = fatal_message_of(p);
    CHECK(contains(message, "\"demote\""));
    CHECK(contains(message, "\"promote\" or \"ignore\""));

    p = params_for("drrip", 64, 8);
    MemsubRP rp(p);
    CHECK(std::string(rp.memsubPolicyName()) != "");
}

TEST_CASE("MemsubRP turns a call that breaks memsub's protocol into fatal()") {
    MemsubRP rp(params_for("lru", 64, 8));
    set_assoc_tags tags(rp, 64, 8);
    Packet pkt(std::make_shared<Request>(), MemCmd::ReadReq, 0x40);
    // A fill into an entry getVictim never offered: memsub cannot know where it sits.
    cache_blk& never_offered = tags.block(1, 0);
    try {
        rp.reset(never_offered.replacementData, &pkt);
        FAIL("no fatal");
    } catch (const gem5::standin::exit_error& e) {
        CHECK(contains(e.what(), "getVictim never offered"));
    }
    // A hit on a way memsub holds invalid: the handle refuses it, and fatal() names the hook.
    tags.access(pkt); // set 1, way 0 now valid
    tags.invalidate(tags.block(1, 0));
    try {
        rp.touch(tags.block(1, 0).replacementData, &pkt);
        FAIL("no fatal");
    } catch (const gem5::standin::exit_error& e) {
        CHECK(contains(e.what(), "memsub_policy_on_hit returned MEMSUB_INVALID_ARGUMENT"));
    }
}

TEST_CASE("writeback_hits=ignore keeps a block where a writeback hit would have promoted it") {
    // One set of four ways under LRU: A, B, C, D fill it, a writeback hits A, then E misses.
    auto victim_with = [](const char* writeback_hits) {
        auto p = params_for("lru", 1, 4);
        p.writeback_hits = writeback_hits;
        MemsubRP rp(p);
        set_assoc_tags tags(rp, 1, 4);
        auto req = std::make_shared<Request>(0x1000);
        for (Addr line : {Addr{0xA}, Addr{0xB}, Addr{0xC}, Addr{0xD}}) {
            Packet fill(req, MemCmd::ReadReq, line * 64);
            REQUIRE_FALSE(tags.access(fill).hit);
        }
        Packet writeback(req, MemCmd::WritebackDirty, 0xA * 64);
        REQUIRE(tags.access(writeback).hit);
        Packet miss(req, MemCmd::ReadReq, 0xE * 64);
        const auto o = tags.access(miss);
        REQUIRE(o.evicted);
        return o.evicted_address / 64;
    };
    CHECK(victim_with("promote") == 0xB); // A was promoted: B is the least recent
    CHECK(victim_with("ignore") == 0xA);  // A kept its place at the bottom
}
