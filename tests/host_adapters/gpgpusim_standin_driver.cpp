// The stand-in GPGPU-Sim L1D (gpgpusim_standin_driver.hpp): GPGPU-Sim's data_cache::access
// steps for an L1D with allocate-on-miss and global write-evict, reduced to the tag array's
// calls. C++11, compiled with the adapter and the stand-in of gpu-cache.h.
#include "gpgpusim_standin_driver.hpp"

#include <deque>
#include <stdexcept>

#include "gpu-cache.h"
#include "mem_fetch.h"
#include "memsub_l1d.h"

namespace gpgpusim_standin {

namespace {

struct pending_fill {
    std::size_t due;     // request index at which the data is back
    unsigned idx;        // the entry access() named
    new_addr_type block; // the line
    mem_fetch* mf;
};

} // namespace

run_result run(const options& o, const std::vector<request>& requests) {
    memsub_l1d l1d(o.organisation.c_str());
    run_result out;
    out.outcomes.resize(requests.size());
    std::deque<pending_fill> fills;
    std::deque<mem_fetch> fetches; // owned here; GPGPU-Sim news and deletes them
    std::uint64_t epochs = 0;
    unsigned char line[128];
    const auto deliver = [&](const pending_fill& f) {
        if (o.fill_by_address)
            l1d.fill(f.block, static_cast<unsigned>(f.due), f.mf, false);
        else
            l1d.fill(f.idx, static_cast<unsigned>(f.due), f.mf);
    };
    for (std::size_t i = 0; i < requests.size(); ++i) {
        while (!fills.empty() && fills.front().due <= i) {
            deliver(fills.front());
            fills.pop_front();
        }
        const request& r = requests[i];
        fetches.push_back(mem_fetch(r.address, r.pc == 0 ? static_cast<address_type>(-1) : r.pc,
                                    mem_access_sector_mask_t(r.sectors), r.write, r.size));
        mem_fetch* mf = &fetches.back();
        const new_addr_type block = r.address & ~127ull;
        outcome& res = out.outcomes[i];
        for (;;) {
            l1d.set_warp_divergence(r.divergence);
            if (o.line_bytes != nullptr && !r.write) {
                o.line_bytes(block, line);
                l1d.set_line_data(line);
            }
            unsigned idx = 0;
            const enum cache_request_status probed =
                l1d.probe(block, idx, mf, mf->is_write(), true);
            bool wb = false;
            evicted_block_info evicted;
            const enum cache_request_status s =
                l1d.access(block, static_cast<unsigned>(i), idx, wb, evicted, mf);
            if (s != probed) throw std::logic_error("access disagrees with probe");
            if (s == RESERVATION_FAIL) { // every line of the set is in flight: wait for one
                ++res.retries;
                if (fills.empty()) throw std::logic_error("reservation failed with no fill due");
                deliver(fills.front());
                fills.pop_front();
                continue;
            }
            res.status = s;
            res.bypassed = l1d.last_access_bypassed();
            if (l1d.last_epoch_ended() && o.tolerance_at != nullptr)
                l1d.set_latency_tolerance(o.tolerance_at(epochs++));
            if (!r.write && (s == MISS || s == SECTOR_MISS)) {
                const pending_fill f = {i + o.fill_delay + (o.fill_delay == 0 ? 1 : 0), idx, block,
                                        mf};
                if (o.fill_delay == 0)
                    deliver(f);
                else
                    fills.push_back(f);
            }
            break;
        }
    }
    while (!fills.empty()) {
        deliver(fills.front());
        fills.pop_front();
    }
    l1d.get_stats(out.accesses, out.misses, out.hit_reserved, out.reservation_fails);
    const memsub_gpu_l1_stats s = l1d.memsub_stats();
    out.memsub_accesses = s.accesses;
    out.memsub_hits = s.hits;
    out.memsub_bypasses = s.predictor_bypasses;
    out.bytes_fetched = s.bytes_fetched;
    for (unsigned m = 0; m < 3; ++m) out.fills_by_mode[m] = s.fills_by_mode[m];
    out.pending_at_end = l1d.pending_fills();
    return out;
}

} // namespace gpgpusim_standin
