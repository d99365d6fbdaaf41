// The stand-in ChampSim cache (champsim_standin_driver.hpp), compiled as C++17 with the module
// and the stand-in headers, as ChampSim compiles a module. Its call sequence follows ChampSim's
// CACHE::try_hit (update_replacement_state on every tag check, hit or not) and
// CACHE::handle_fill (find_victim only when no way is invalid; a fill whose dirty victim cannot
// be written down returns false and is retried later; replacement_cache_fill with the way,
// NUM_WAY for a bypass).
#include "champsim_standin_driver.hpp"

#include <cstdint>
#include <deque>
#include <iterator>
#include <memory>
#include <stdexcept>

#include "memsub/memsub.h"

namespace champsim_standin {
namespace {
struct fill_request {
    request req;
    std::size_t index = 0; // the request whose outcome records the fill
    std::size_t due = 0;
    bool failed_once = false;
};

class standin_cache {
public:
    explicit standin_cache(const options& o) : o_(o), blocks_(std::size_t{o.sets} * o.ways) {
        cache_.NAME = o.cache_name;
        cache_.NUM_SET = o.sets;
        cache_.NUM_WAY = o.ways;
        unsigned shift = 0;
        while ((1u << shift) < o.line_bytes) ++shift;
        cache_.OFFSET_BITS = champsim::data::bits{shift};
        module_ = std::make_unique<memsub>(&cache_);
    }

    std::vector<outcome> run(const std::vector<request>& requests) {
        std::vector<outcome> out(requests.size());
        for (std::size_t i = 0; i < requests.size(); ++i) {
            drain(i, out);
            tag_check(requests[i], i, out);
        }
        drain(SIZE_MAX, out);
        return out;
    }

    void final_stats() { module_->replacement_final_stats(); }

private:
    uint64_t line_of(uint64_t address) const { return address / o_.line_bytes; }
    long set_of(uint64_t address) const { return static_cast<long>(line_of(address) % o_.sets); }
    champsim::cache_block* set_begin(long set) {
        return &blocks_[static_cast<std::size_t>(set) * o_.ways];
    }

    void tag_check(const request& r, std::size_t index, std::vector<outcome>& out) {
        const long set = set_of(r.address);
        champsim::cache_block* row = set_begin(set);
        long way = 0;
        for (; way < static_cast<long>(o_.ways); ++way)
            if (row[way].valid && line_of(row[way].address.to<uint64_t>()) == line_of(r.address))
                break;
        const bool hit = way != static_cast<long>(o_.ways);
        const auto type = static_cast<access_type>(r.type);
        module_->update_replacement_state(r.cpu, set, way, champsim::address{r.address},
                                          champsim::address{r.ip}, champsim::address{}, type,
                                          hit ? 1 : 0);
        if (hit) {
            out[index].hit = true;
            if (type == access_type::RFO || type == access_type::WRITE) row[way].dirty = true;
            return;
        }
        for (auto& f : fills_)
            if (line_of(f.req.address) == line_of(r.address))
                return; // merged into the outstanding miss
        fills_.push_back(fill_request{r, index, index + o_.fill_delay, false});
    }

    void drain(std::size_t now, std::vector<outcome>& out) {
        while (!fills_.empty() && fills_.front().due <= now) {
            fill_request& f = fills_.front();
            while (!handle_fill(f, out[f.index]))
                f.failed_once = true; // ChampSim retries it on a later cycle
            fills_.pop_front();
        }
    }

    bool handle_fill(const fill_request& f, outcome& result) {
        const request& r = f.req;
        const long set = set_of(r.address);
        champsim::cache_block* row = set_begin(set);
        long way = 0;
        while (way < static_cast<long>(o_.ways) && row[way].valid) ++way;
        const auto type = static_cast<access_type>(r.type);
        if (way == static_cast<long>(o_.ways))
            way = module_->find_victim(r.cpu, f.index, set, row, champsim::address{r.ip},
                                       champsim::address{r.address}, type);
        if (way < 0 || way > static_cast<long>(o_.ways))
            throw std::logic_error("find_victim returned a way out of range");
        if (way == static_cast<long>(o_.ways) && type == access_type::WRITE)
            throw std::logic_error("a writeback fill was bypassed");
        const bool evicts = way != static_cast<long>(o_.ways) && row[way].valid;
        if (evicts && row[way].dirty && o_.retry_dirty_fills && !f.failed_once)
            return false; // the lower level's write queue is full
        const champsim::address victim = evicts ? row[way].address : champsim::address{};
        module_->replacement_cache_fill(r.cpu, set, way, champsim::address{r.address},
                                        champsim::address{r.ip}, victim, type);
        if (way == static_cast<long>(o_.ways)) {
            result.bypassed = true;
            return true;
        }
        if (evicts) {
            result.evicted = true;
            result.victim_address = row[way].address.to<uint64_t>();
            result.victim_dirty = row[way].dirty;
        }
        row[way] = champsim::cache_block{};
        row[way].valid = true;
        row[way].dirty = type == access_type::RFO || type == access_type::WRITE;
        row[way].address = champsim::address{line_of(r.address) * o_.line_bytes};
        return true;
    }

    options o_;
    CACHE cache_;
    std::vector<champsim::cache_block> blocks_;
    std::unique_ptr<memsub> module_;
    std::deque<fill_request> fills_;
};
} // namespace

std::vector<outcome> run(const options& o, const std::vector<request>& requests) {
    standin_cache cache(o);
    std::vector<outcome> out = cache.run(requests);
    cache.final_stats(); // printed, as ChampSim prints it at the end of a run
    return out;
}
} // namespace champsim_standin
