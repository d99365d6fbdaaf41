// memsub's GPU L1 as GPGPU-Sim's L1D tag array: see memsub_l1d.h. C++11; the C interface only.
#include "memsub_l1d.h"

#include <stdexcept>
#include <string>

namespace {

unsigned to_bits(mem_access_sector_mask_t mask) {
    return static_cast<unsigned>(mask.to_ulong());
}

std::string message_of(memsub_status s, const memsub_error& e) {
    return std::string("memsub_l1d: ") + memsub_status_name(s) + ": " + e.message;
}

} // namespace

memsub_l1d::memsub_l1d(const char* organisation)
    : m_l1(NULL)
    , m_info()
    , m_sets(0)
    , m_lines_per_set(0)
    , m_line_bytes(0)
    , m_divergence(1)
    , m_line_data(NULL)
    , m_last_bypassed(false)
    , m_last_extra_hit_cycles(0)
    , m_last_epoch_ended(false)
    , m_access(0)
    , m_miss(0)
    , m_pending_hit(0)
    , m_res_fail(0) {
    memsub_error error = memsub_error();
    const memsub_status s = memsub_gpu_l1_create(organisation, &m_l1, &error);
    if (s != MEMSUB_OK) throw std::invalid_argument(message_of(s, error));
    memsub_gpu_l1_get_info(m_l1, &m_info);
    m_sets = m_info.sets;
    m_lines_per_set = m_info.lines_per_set;
    m_line_bytes = m_info.line_bytes;
    const in_flight none = {0, 0, false};
    m_in_flight.assign(static_cast<std::size_t>(m_sets) * m_lines_per_set, none);
}

memsub_l1d::~memsub_l1d() {
    memsub_gpu_l1_destroy(m_l1);
}

void memsub_l1d::set_latency_tolerance(unsigned cycles) {
    // MEMSUB_UNSUPPORTED for the organisations that take none: nothing to do there.
    memsub_gpu_l1_set_latency_tolerance(m_l1, cycles);
}

unsigned memsub_l1d::set_of(new_addr_type addr) const {
    uint32_t set = 0;
    memsub_gpu_l1_probe(m_l1, addr, NULL, &set);
    return set;
}

unsigned memsub_l1d::resident(new_addr_type addr) const {
    uint32_t sectors = 0;
    memsub_gpu_l1_probe(m_l1, addr, &sectors, NULL);
    return sectors;
}

unsigned memsub_l1d::pending(unsigned set, new_addr_type block) const {
    unsigned sectors = 0;
    for (unsigned k = 0; k < m_lines_per_set; ++k) {
        const in_flight& f = m_in_flight[set * m_lines_per_set + k];
        if (f.used && f.block == block) sectors |= f.sectors;
    }
    return sectors;
}

bool memsub_l1d::set_full(unsigned set) const {
    for (unsigned k = 0; k < m_lines_per_set; ++k)
        if (!m_in_flight[set * m_lines_per_set + k].used) return false;
    return true;
}

unsigned memsub_l1d::pending_fills() const {
    unsigned n = 0;
    for (std::size_t i = 0; i < m_in_flight.size(); ++i) n += m_in_flight[i].used ? 1 : 0;
    return n;
}

enum cache_request_status memsub_l1d::status_of(unsigned set, new_addr_type block, unsigned mask,
                                                unsigned& idx) const {
    // A request with no sector names the whole line (GPGPU-Sim always sets one).
    const unsigned want = mask != 0 ? mask : (1u << SECTOR_CHUNCK_SIZE) - 1u;
    const unsigned here = resident(block);
    const unsigned waiting = pending(set, block) & here;
    idx = set * m_lines_per_set;
    if ((want & ~here) == 0) {
        if ((want & waiting) == 0) return HIT;
        for (unsigned k = 0; k < m_lines_per_set; ++k) { // the entry the request waits on
            const in_flight& f = m_in_flight[set * m_lines_per_set + k];
            if (f.used && f.block == block && (f.sectors & want) != 0)
                idx = set * m_lines_per_set + k;
        }
        return HIT_RESERVED;
    }
    if (set_full(set)) return RESERVATION_FAIL;
    return here != 0 || waiting != 0 ? SECTOR_MISS : MISS;
}

enum cache_request_status memsub_l1d::probe(new_addr_type addr, unsigned& idx, mem_fetch* mf,
                                            bool is_write, bool probe_mode) const {
    return probe(addr, idx, mf->get_access_sector_mask(), is_write, probe_mode, mf);
}

enum cache_request_status memsub_l1d::probe(new_addr_type addr, unsigned& idx,
                                            mem_access_sector_mask_t mask, bool is_write,
                                            bool /*probe_mode*/, mem_fetch* /*mf*/) const {
    const new_addr_type block = block_of(addr);
    const enum cache_request_status s = status_of(set_of(block), block, to_bits(mask), idx);
    // A store never waits for a fill and never reserves: a write-evict L1 sends it down.
    if (is_write && s == RESERVATION_FAIL) return resident(block) != 0 ? SECTOR_MISS : MISS;
    return s;
}

enum cache_request_status memsub_l1d::access(new_addr_type addr, unsigned time, unsigned& idx,
                                             mem_fetch* mf) {
    bool wb = false;
    evicted_block_info evicted;
    return access(addr, time, idx, wb, evicted, mf);
}

void memsub_l1d::forget(const memsub_evicted_block& e) {
    const new_addr_type block = block_of(e.address);
    const unsigned first = static_cast<unsigned>((e.address - block) / SECTOR_SIZE);
    const unsigned count = e.bytes / SECTOR_SIZE;
    const unsigned sectors = ((1u << count) - 1u) << first;
    const unsigned set = set_of(block);
    for (unsigned k = 0; k < m_lines_per_set; ++k) {
        in_flight& f = m_in_flight[set * m_lines_per_set + k];
        if (f.used && f.block == block) f.sectors &= ~sectors;
    }
}

enum cache_request_status memsub_l1d::access(new_addr_type addr, unsigned time, unsigned& idx,
                                             bool& wb, evicted_block_info& evicted, mem_fetch* mf) {
    (void)time;
    (void)evicted; // a write-evict L1 holds no dirty line, so nothing is written back
    wb = false;
    ++m_access;
    const bool write = mf->is_write();
    const new_addr_type block = block_of(addr);
    const unsigned set = set_of(block);
    const unsigned mask = to_bits(mf->get_access_sector_mask());
    enum cache_request_status status = status_of(set, block, mask, idx);
    m_last_bypassed = false;
    m_last_extra_hit_cycles = 0;
    m_last_epoch_ended = false;
    if (status == RESERVATION_FAIL && !write) {
        ++m_res_fail;
        m_line_data = NULL;
        return status;
    }
    if (write && status == RESERVATION_FAIL) status = resident(block) != 0 ? SECTOR_MISS : MISS;

    // memsub's record: the request's bytes in its lowest requested sector and on.
    memsub_access a = memsub_access();
    a.address = mf->get_addr();
    if (mask != 0) {
        unsigned lowest = 0;
        while ((mask >> lowest & 1u) == 0) ++lowest;
        const new_addr_type first = block + lowest * SECTOR_SIZE;
        if (block_of(a.address) != block || a.address < first || a.address >= first + SECTOR_SIZE)
            a.address = first;
    } else if (block_of(a.address) != block) {
        a.address = block;
    }
    const address_type pc = mf->get_pc();
    a.pc = pc == static_cast<address_type>(-1) ? 0 : pc;
    a.size = mf->get_data_size();
    a.sector_mask = static_cast<uint16_t>(mask);
    a.kind = write ? MEMSUB_ACCESS_STORE : MEMSUB_ACCESS_LOAD;
    memsub_gpu_request r = memsub_gpu_request();
    r.divergence = m_divergence;
    r.cycle = time;
    r.line_data = m_line_data;
    m_line_data = NULL;
    const unsigned before = resident(block);
    memsub_gpu_result out;
    memsub_gpu_l1_access(m_l1, &a, &r, &out);
    for (uint32_t e = 0; e < out.eviction_count; ++e) forget(out.evictions[e]);
    m_last_extra_hit_cycles = out.extra_hit_cycles;
    m_last_epoch_ended = out.epoch_ended != 0;

    switch (status) {
    case HIT_RESERVED:
        ++m_pending_hit;
        break;
    case MISS:
    case SECTOR_MISS:
        ++m_miss;
        break;
    default:
        break;
    }
    if (write || status == HIT || status == HIT_RESERVED) {
        if (write) idx = static_cast<unsigned>(-1);
        return status;
    }
    // A load miss: the sectors memsub inserted wait for the fill in a free entry of the set.
    const unsigned inserted = resident(block) & ~before;
    if (out.bypassed || inserted == 0) {
        m_last_bypassed = out.bypassed != 0;
        idx = static_cast<unsigned>(-1);
        return status;
    }
    for (unsigned k = 0; k < m_lines_per_set; ++k) {
        in_flight& f = m_in_flight[set * m_lines_per_set + k];
        if (f.used) continue;
        f.used = true;
        f.block = block;
        f.sectors = inserted;
        idx = set * m_lines_per_set + k;
        return status;
    }
    // status_of found a free entry, and nothing since has taken one.
    idx = static_cast<unsigned>(-1);
    return status;
}

void memsub_l1d::fill(unsigned idx, unsigned time, mem_fetch* mf) {
    (void)time;
    (void)mf;
    if (idx >= m_in_flight.size()) return; // a bypassed miss: nothing was reserved
    in_flight& f = m_in_flight[idx];
    f.used = false;
    f.sectors = 0;
}

void memsub_l1d::fill(new_addr_type addr, unsigned time, mem_fetch* mf, bool is_write) {
    (void)is_write;
    const new_addr_type block = block_of(addr);
    const unsigned set = set_of(block);
    // Decision: a fill by address completes the line's first entry. A line has two entries
    // only after a sector miss on a line in flight, and either fill then returns sectors; an
    // allocate-on-miss L1D fills by index (fill(idx, ...)), which names the entry exactly.
    for (unsigned k = 0; k < m_lines_per_set; ++k) {
        const unsigned i = set * m_lines_per_set + k;
        if (m_in_flight[i].used && m_in_flight[i].block == block) {
            fill(i, time, mf);
            return;
        }
    }
}

void memsub_l1d::get_stats(unsigned& total_access, unsigned& total_misses, unsigned& total_hit_res,
                           unsigned& total_res_fail) const {
    total_access = m_access;
    total_misses = m_miss;
    total_hit_res = m_pending_hit;
    total_res_fail = m_res_fail;
}

memsub_gpu_l1_stats memsub_l1d::memsub_stats() const {
    memsub_gpu_l1_stats s = memsub_gpu_l1_stats();
    memsub_gpu_l1_get_stats(m_l1, &s);
    return s;
}
