// memsub's replacement policies inside ChampSim: the module declared in memsub.h.
//
// How ChampSim's split phases map to memsub's replacement protocol (memsub_host.h, H1-H6):
//   * a tag-check hit (update_replacement_state with hit)          -> on_hit        (H1)
//   * a fill (find_victim when the set is full, then replacement_cache_fill)
//                                                                   -> on_miss       (H2)
//                                                                   -> should_bypass (H3)
//                                                                   -> victim, on_evict (H4)
//                                                                   -> on_insert     (H5)
// Decision: a miss is announced when its line is filled, not at the tag check that missed.
// ChampSim reports a tag-check miss for every lookup that misses, including requests merged
// into an outstanding miss and lookups retried because the MSHRs were full; the fill happens
// once per line brought in, which is what a miss is in memsub's engine (one allocation). With
// this choice memsub's srrip and lru inside ChampSim give ChampSim's own statistics exactly.
#include "memsub.h"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include <fmt/core.h>

namespace {
// The environment variable's value, or "" when it is not set.
std::string environment(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    return value == nullptr ? std::string{} : std::string{value};
}

// "cpu0_L2C" -> "CPU0_L2C": the suffix of the cache's policy variable.
std::string variable_suffix(const std::string& cache_name) {
    std::string out;
    for (const char c : cache_name)
        out += std::isalnum(static_cast<unsigned char>(c))
                   ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                   : '_';
    return out;
}

memsub_access_kind kind_of(access_type type) {
    switch (type) {
    case access_type::RFO:
        return MEMSUB_ACCESS_STORE;
    case access_type::PREFETCH:
        return MEMSUB_ACCESS_PREFETCH;
    case access_type::WRITE:
        return MEMSUB_ACCESS_WRITEBACK;
    default: // LOAD, TRANSLATION
        return MEMSUB_ACCESS_LOAD;
    }
}
} // namespace

memsub::memsub(CACHE* cache)
    : replacement(cache)
    , cache_name_(cache->NAME)
    , num_way_(static_cast<long>(cache->NUM_WAY))
    , line_bytes_(static_cast<uint32_t>(uint64_t{1} << champsim::to_underlying(cache->OFFSET_BITS)))
    , reused_(cache->NUM_SET, 0) {
    const std::string own = "MEMSUB_POLICY_" + variable_suffix(cache_name_);
    policy_name_ = environment(own);
    if (policy_name_.empty()) policy_name_ = environment("MEMSUB_POLICY");
    if (policy_name_.empty()) policy_name_ = "lru";

    const std::string writeback_hits = environment("MEMSUB_WRITEBACK_HITS");
    if (writeback_hits == "ignore")
        promote_writeback_hits_ = false;
    else if (!writeback_hits.empty() && writeback_hits != "promote")
        throw std::invalid_argument("memsub module: MEMSUB_WRITEBACK_HITS=" + writeback_hits +
                                    " must be \"promote\" or \"ignore\"");

    memsub_policy_config config{};
    config.sets = cache->NUM_SET;
    config.ways = cache->NUM_WAY;
    config.line_bytes = line_bytes_;
    memsub_policy* made = nullptr;
    memsub_error error{};
    if (memsub_policy_create(policy_name_.c_str(), &config, &made, &error) != MEMSUB_OK)
        throw std::invalid_argument("memsub module for cache " + cache_name_ + " (" + own +
                                    " or MEMSUB_POLICY): " + error.message);
    policy_.reset(made);
    const char* reported = nullptr;
    check(memsub_policy_name(policy_.get(), &reported), "memsub_policy_name");
    policy_name_ = reported;
}

memsub_access memsub::record(champsim::address full_addr, champsim::address ip, access_type type,
                             uint32_t cpu) const {
    memsub_access a{};
    a.address = full_addr.to<uint64_t>();
    a.pc = ip.to<uint64_t>();
    a.kind = static_cast<uint8_t>(kind_of(type));
    a.requester = cpu;
    return a;
}

void memsub::check(memsub_status status, const char* what) const {
    // Only a broken call sequence gets here: the module keeps the protocol, so this is a bug.
    if (status != MEMSUB_OK)
        throw std::logic_error(std::string{"memsub module for cache "} + cache_name_ + ": " + what +
                               " returned " + memsub_status_name(status));
}

long memsub::find_victim(uint32_t triggering_cpu, uint64_t instr_id, long set,
                         const champsim::cache_block* current_set, champsim::address ip,
                         champsim::address full_addr, access_type type) {
    const memsub_access a = record(full_addr, ip, type, triggering_cpu);
    const auto s = static_cast<uint32_t>(set);
    const bool retry = pending_.active && pending_.set == set && pending_.address == a.address &&
                       pending_.instr_id == instr_id;
    if (retry) {
        ++retried_victims_;
    } else {
        check(memsub_policy_on_miss(policy_.get(), s, &a), "memsub_policy_on_miss");
        pending_ = pending_fill{true, set, a.address, instr_id, -1, false};
    }
    if (type != access_type::WRITE) { // writeback fills may not bypass
        uint8_t bypass = 0;
        check(memsub_policy_should_bypass(policy_.get(), s, &a, &bypass),
              "memsub_policy_should_bypass");
        if (bypass != 0) return num_way_;
    }
    uint64_t valid = 0;
    check(memsub_policy_valid_ways(policy_.get(), s, &valid), "memsub_policy_valid_ways");
    uint32_t way = 0;
    check(memsub_policy_victim(policy_.get(), s, valid, &a, &way), "memsub_policy_victim");
    pending_.victim_way = static_cast<long>(way);
    pending_.victim_dirty = current_set[way].dirty;
    return static_cast<long>(way);
}

void memsub::replacement_cache_fill(uint32_t triggering_cpu, long set, long way,
                                    champsim::address full_addr, champsim::address ip,
                                    champsim::address victim_addr, access_type type) {
    const memsub_access a = record(full_addr, ip, type, triggering_cpu);
    const auto s = static_cast<uint32_t>(set);
    const bool announced = pending_.active && pending_.set == set && pending_.address == a.address;
    if (!announced) // the set had an invalid way: find_victim was not called
        check(memsub_policy_on_miss(policy_.get(), s, &a), "memsub_policy_on_miss");
    const pending_fill fill = pending_;
    pending_ = pending_fill{};
    ++fills_;
    if (way == num_way_) {
        ++bypasses_;
        return;
    }
    const auto w = static_cast<uint32_t>(way);
    uint64_t valid = 0;
    check(memsub_policy_valid_ways(policy_.get(), s, &valid), "memsub_policy_valid_ways");
    if ((valid >> w & 1u) != 0) { // the victim leaves
        memsub_evicted_block b{};
        b.address = victim_addr.to<uint64_t>();
        b.dirty = static_cast<uint8_t>(announced && fill.victim_way == way && fill.victim_dirty);
        b.reused = static_cast<uint8_t>(reused_[s] >> w & 1u);
        b.reason = MEMSUB_EVICTION_REPLACEMENT;
        check(memsub_policy_on_evict(policy_.get(), s, w, &b), "memsub_policy_on_evict");
        ++evictions_;
    }
    check(memsub_policy_on_insert(policy_.get(), s, w, &a), "memsub_policy_on_insert");
    reused_[s] &= ~(uint64_t{1} << w);
}

void memsub::update_replacement_state(uint32_t triggering_cpu, long set, long way,
                                      champsim::address full_addr, champsim::address ip,
                                      champsim::address, access_type type, uint8_t hit) {
    if (hit == 0) return; // announced at fill time (see the Decision above)
    if (type == access_type::WRITE && !promote_writeback_hits_) return;
    const memsub_access a = record(full_addr, ip, type, triggering_cpu);
    const auto s = static_cast<uint32_t>(set);
    const auto w = static_cast<uint32_t>(way);
    check(memsub_policy_on_hit(policy_.get(), s, w, &a), "memsub_policy_on_hit");
    reused_[s] |= uint64_t{1} << w;
    ++hits_;
}

void memsub::replacement_final_stats() {
    uint64_t bits = 0;
    check(memsub_policy_storage_bits(policy_.get(), &bits), "memsub_policy_storage_bits");
    fmt::print("{} memsub policy {}: hits {} fills {} bypasses {} evictions {} retried victim "
               "choices {} metadata {} bits\n",
               cache_name_, policy_name_, hits_, fills_, bypasses_, evictions_, retried_victims_,
               bits);
}
