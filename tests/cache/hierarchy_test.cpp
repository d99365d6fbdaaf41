// Tests of cache/hierarchy.hpp: worked examples a reader can follow, an independent naive model
// (per-level std::list LRU of lines, the inclusion rules written plainly, no memsub engine)
// compared access by access on seeded streams, invariants, and configuration errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <memsub/bypass/always.hpp>
#include <memsub/cache/hierarchy.hpp>
#include <memsub/replacement/lru.hpp>

using namespace memsub;
using cache::inclusion;
using cache::make_level;
using cache::memory_request;
using cache::set_associative_cache;
namespace route = cache::route;

namespace {

using wb_cache = set_associative_cache<replacement::lru>;
using wt_cache = set_associative_cache<replacement::lru, cache::write_policy::write_through>;

constexpr geometry shape(std::uint32_t sets, std::uint32_t ways, std::uint32_t line = 64) {
    return geometry{.sets = sets, .ways = ways, .line_bytes = line};
}

memsub::access load(std::uint64_t addr, std::uint32_t requester = 0) {
    return memsub::access{.address = byte_address{addr}, .requester = requester, .size = 8};
}
memsub::access store(std::uint64_t addr, std::uint32_t requester = 0) {
    return memsub::access{.address = byte_address{addr},
                          .kind = access_kind::store,
                          .requester = requester,
                          .size = 8};
}

/// A memory request as plain values (what both models produce).
struct request {
    bool is_write = false;
    std::uint64_t address = 0;
    std::uint32_t bytes = 0;
    access_kind kind = access_kind::load;
    std::uint32_t requester = 0;
    friend bool operator==(const request&, const request&) = default;
};

request plain(const memory_request& q) {
    return request{q.is_write, q.address.value, q.bytes, q.kind, q.requester};
}
request read(std::uint64_t addr, std::uint32_t bytes = 64, std::uint32_t requester = 0,
             access_kind kind = access_kind::load) {
    return request{false, addr, bytes, kind, requester};
}
request write_back(std::uint64_t addr, std::uint32_t bytes = 64, std::uint32_t requester = 0) {
    return request{true, addr, bytes, access_kind::writeback, requester};
}

std::string describe(const std::vector<request>& v) {
    std::ostringstream os;
    os << '[';
    for (const auto& q : v)
        os << ' ' << (q.is_write ? 'W' : 'R') << ":0x" << std::hex << q.address << std::dec << '/'
           << q.bytes << '/' << to_string(q.kind) << "/q" << q.requester;
    os << " ]";
    return os.str();
}

/// Runs `a` and returns its result with the memory requests it sent.
template <class H>
auto run(H& h, const memsub::access& a, std::vector<request>& out) {
    out.clear();
    return h.access(a, [&](const memory_request& q) { out.push_back(plain(q)); });
}

// Contents of every instance of every level: [level][instance] line -> dirty.
using snapshot = std::vector<std::vector<std::map<std::uint64_t, bool>>>;

template <std::size_t K, class H>
void snapshot_level(const H& h, std::vector<std::map<std::uint64_t, bool>>& out) {
    out.assign(h.template instances<K>(), {});
    for (std::uint32_t i = 0; i < h.template instances<K>(); ++i) {
        const auto& c = h.template cache<K>(i);
        const geometry g = c.shape();
        for (std::uint32_t s = 0; s < g.sets; ++s)
            for (entry_mask m = c.valid_entries(set_index{s}); m != 0; m &= m - 1) {
                const auto b = c.block(set_index{s}, lowest_entry(m));
                out[i][b.address.value / g.line_bytes] = b.dirty;
            }
    }
}

template <class H>
snapshot take(const H& h) {
    snapshot s(H::depth);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        (snapshot_level<K>(h, s[K]), ...);
    }
    (std::make_index_sequence<H::depth>{});
    return s;
}

std::string describe(const snapshot& s) {
    std::ostringstream os;
    for (std::size_t k = 0; k < s.size(); ++k) {
        os << "L" << k << ':';
        for (std::size_t i = 0; i < s[k].size(); ++i) {
            os << " #" << i << '{';
            for (const auto& [line, dirty] : s[k][i]) os << ' ' << line << (dirty ? "*" : "");
            os << " }";
        }
        os << '\n';
    }
    return os.str();
}

} // namespace

// ================================================================== the naive model

namespace naive {

constexpr std::uint32_t skip = 0xffff'ffffu;
constexpr std::uint32_t line_bytes = 64;
using router = std::function<std::uint32_t(std::uint64_t address, std::uint32_t requester)>;

struct level_config {
    std::uint32_t instances = 1;
    std::uint32_t sets = 1;
    std::uint32_t ways = 1;
    bool write_back = true;
    inclusion relation = inclusion::non_inclusive;
    router route = [](std::uint64_t, std::uint32_t) { return 0u; };
};

struct line_state {
    std::uint64_t line = 0;
    bool dirty = false;
};

/// One cache: per set a list of lines, most recently used first.
struct lru_cache {
    std::uint32_t ways = 1;
    std::vector<std::list<line_state>> sets;

    lru_cache(std::uint32_t s, std::uint32_t w) : ways(w), sets(s) {}

    std::list<line_state>& set_of(std::uint64_t line) { return sets[line % sets.size()]; }
    line_state* find(std::uint64_t line) {
        for (auto& e : set_of(line))
            if (e.line == line) return &e;
        return nullptr;
    }
    void touch(std::uint64_t line) {
        auto& s = set_of(line);
        for (auto it = s.begin(); it != s.end(); ++it)
            if (it->line == line) {
                s.splice(s.begin(), s, it);
                return;
            }
    }
    /// Inserts as most recent; returns the least recent line if the set was full.
    std::optional<line_state> insert(std::uint64_t line, bool dirty) {
        auto& s = set_of(line);
        std::optional<line_state> victim;
        if (s.size() == ways) {
            victim = s.back();
            s.pop_back();
        }
        s.push_front({line, dirty});
        return victim;
    }
    std::optional<line_state> remove(std::uint64_t line) {
        auto& s = set_of(line);
        for (auto it = s.begin(); it != s.end(); ++it)
            if (it->line == line) {
                const line_state out = *it;
                s.erase(it);
                return out;
            }
        return std::nullopt;
    }
};

/// The hierarchy's rules, written plainly over line lists.
class model {
public:
    model(std::vector<level_config> levels, std::uint32_t requesters)
        : cfg_(std::move(levels))
        , requesters_(requesters) {
        for (const auto& l : cfg_) {
            caches_.emplace_back();
            for (std::uint32_t i = 0; i < l.instances; ++i)
                caches_.back().emplace_back(l.sets, l.ways);
        }
    }

    /// One host access; returns the serving level (depth = memory), fills `memory`.
    std::uint32_t access(const memsub::access& a, std::vector<request>& memory) {
        out_ = &memory;
        memory.clear();
        requester_ = a.requester;
        pc_ = a.pc;
        served_ = depth();
        filled_.assign(depth(), false);
        path_.assign(depth(), skip);
        demand(0, a.address.value, a.size, a.kind, std::nullopt);
        return served_;
    }

    std::uint32_t depth() const { return static_cast<std::uint32_t>(cfg_.size()); }
    const level_config& config(std::size_t k) const { return cfg_[k]; }
    std::uint32_t requesters() const { return requesters_; }

    snapshot contents() const {
        snapshot s(cfg_.size());
        for (std::size_t k = 0; k < cfg_.size(); ++k)
            for (const auto& c : caches_[k]) {
                s[k].emplace_back();
                for (const auto& set : c.sets)
                    for (const auto& e : set) s[k].back()[e.line] = e.dirty;
            }
        return s;
    }

private:
    /// A block that left level k − 1 for this demand, on its way to level k.
    struct departing {
        std::uint64_t line = 0;
        bool dirty = false;
    };

    /// Level k looks the demand up; then `arriving` (from level k − 1) reaches level k; then
    /// the demand goes on with this level's own departing block.
    void demand(std::uint32_t k, std::uint64_t addr, std::uint32_t size, access_kind kind,
                std::optional<departing> arriving) {
        const auto arrive = [&] {
            if (arriving) below(k, arriving->line, arriving->dirty);
        };
        if (k == depth()) {
            out_->push_back({is_write(kind), addr, size, kind, requester_});
            return arrive();
        }
        const level_config& L = cfg_[k];
        const std::uint32_t inst = L.route(addr, requester_);
        if (inst == skip) {
            arrive();
            return demand(k + 1, addr, size, kind, std::nullopt);
        }
        path_[k] = inst;
        lru_cache& c = caches_[k][inst];
        const std::uint64_t line = addr / line_bytes;
        const bool write = kind == access_kind::store;

        if (line_state* e = c.find(line)) { // hit
            c.touch(line);
            if (write && L.write_back) e->dirty = true;
            if (served_ == depth()) served_ = k;
            if (L.relation == inclusion::exclusive && filled_[k - 1]) {
                // The block moves up with its dirtiness.
                const line_state moved = *c.remove(line);
                if (moved.dirty) caches_[k - 1][path_[k - 1]].find(line)->dirty = true;
            }
            arrive();
            if (write && !L.write_back) demand(k + 1, addr, size, kind, std::nullopt);
            return;
        }
        // Miss. An exclusive level never allocates a demand; a write-through level never
        // allocates a store: both pass the request on as it came.
        if (L.relation == inclusion::exclusive || (write && !L.write_back)) {
            arrive();
            return demand(k + 1, addr, size, kind, std::nullopt);
        }
        const auto victim = c.insert(line, write);
        filled_[k] = true;
        std::optional<departing> leaving;
        if (victim) {
            leaving = departing{victim->line, victim->dirty};
            if (L.relation == inclusion::inclusive)
                leaving->dirty |= back_invalidate(k, inst, victim->line);
        }
        arrive();
        demand(k + 1, line * line_bytes, line_bytes, write ? access_kind::load : kind, leaving);
    }

    /// A replacement victim of level k − 1 arrives at level k.
    void below(std::uint32_t k, std::uint64_t line, bool dirty) {
        if (k < depth() && cfg_[k].relation == inclusion::exclusive)
            return insert_victim(k, line, dirty);
        if (dirty) write_down(k, line * line_bytes);
    }

    void write_down(std::uint32_t k, std::uint64_t addr) {
        if (k == depth()) {
            out_->push_back({true, addr, line_bytes, access_kind::writeback, requester_});
            return;
        }
        const level_config& L = cfg_[k];
        if (L.relation == inclusion::exclusive) return insert_victim(k, addr / line_bytes, true);
        const std::uint32_t inst = L.route(addr, requester_);
        if (inst == skip) return write_down(k + 1, addr);
        lru_cache& c = caches_[k][inst];
        const std::uint64_t line = addr / line_bytes;
        if (line_state* e = c.find(line)) {
            c.touch(line);
            if (L.write_back)
                e->dirty = true;
            else
                write_down(k + 1, addr);
            return;
        }
        if (!L.write_back) return write_down(k + 1, addr);
        const auto victim = c.insert(line, true);
        if (!victim) return;
        bool victim_dirty = victim->dirty;
        if (L.relation == inclusion::inclusive)
            victim_dirty |= back_invalidate(k, inst, victim->line);
        below(k + 1, victim->line, victim_dirty);
    }

    void insert_victim(std::uint32_t k, std::uint64_t line, bool dirty) {
        lru_cache& c = caches_[k][cfg_[k].route(line * line_bytes, requester_)];
        if (line_state* e = c.find(line)) {
            c.touch(line);
            e->dirty = e->dirty || dirty;
            return;
        }
        if (const auto victim = c.insert(line, dirty)) below(k + 1, victim->line, victim->dirty);
    }

    /// Removes `line` from every instance above level k whose requesters reach instance
    /// `inst` of level k; returns whether a removed copy was dirty.
    bool back_invalidate(std::uint32_t k, std::uint32_t inst, std::uint64_t line) {
        bool dirty = false;
        const std::uint64_t addr = line * line_bytes;
        for (std::uint32_t u = 0; u < k; ++u) {
            std::set<std::uint32_t> instances;
            for (std::uint32_t q = 0; q < requesters_; ++q)
                if (cfg_[k].route(addr, q) == inst && cfg_[u].route(addr, q) != skip)
                    instances.insert(cfg_[u].route(addr, q));
            for (const std::uint32_t i : instances)
                if (const auto gone = caches_[u][i].remove(line)) dirty |= gone->dirty;
        }
        return dirty;
    }

    std::vector<level_config> cfg_;
    std::uint32_t requesters_;
    std::vector<std::vector<lru_cache>> caches_;
    std::vector<request>* out_ = nullptr;
    std::uint32_t requester_ = 0;
    std::uint64_t pc_ = 0;
    std::uint32_t served_ = 0;
    std::vector<bool> filled_;
    std::vector<std::uint32_t> path_;
};

std::uint32_t shared(std::uint64_t, std::uint32_t) {
    return 0;
}
std::uint32_t per_requester(std::uint64_t, std::uint32_t q) {
    return q;
}
std::uint32_t two_slices(std::uint64_t addr, std::uint32_t) {
    return static_cast<std::uint32_t>((addr / 64) % 2);
}

} // namespace naive

// ================================================================== the differential driver

namespace {

struct stream {
    std::uint32_t requesters = 2;
    /// Each requester touches its own lines (no line is shared between private caches).
    bool disjoint = false;
    std::uint32_t lines = 40;
    std::uint32_t store_percent = 30;
};

memsub::access next_access(std::mt19937_64& rng, const stream& s) {
    const auto q = static_cast<std::uint32_t>(rng() % s.requesters);
    std::uint64_t line = rng() % 2 == 0 ? rng() % 6 : rng() % s.lines; // a hot set and the rest
    if (s.disjoint) line += std::uint64_t{q} << 16;
    const std::uint64_t word = rng() % 8;
    const std::uint64_t pick = rng() % 100;
    access_kind kind = access_kind::load;
    if (pick < s.store_percent)
        kind = access_kind::store;
    else if (pick < s.store_percent + 5)
        kind = access_kind::prefetch;
    else if (pick < s.store_percent + 10)
        kind = access_kind::instruction_fetch;
    return memsub::access{.address = byte_address{line * 64 + word * 8},
                          .pc = 0x400000 + (rng() % 16) * 4,
                          .kind = kind,
                          .requester = q,
                          .size = 8};
}

/// Inclusive: every line of an upper instance is in the inclusive instance its requesters
/// reach.
bool inclusion_holds(const snapshot& s, const naive::model& m, std::string& why) {
    for (std::uint32_t k = 0; k < m.depth(); ++k) {
        if (m.config(k).relation != inclusion::inclusive) continue;
        for (std::uint32_t u = 0; u < k; ++u)
            for (std::uint32_t i = 0; i < s[u].size(); ++i)
                for (const auto& [line, dirty] : s[u][i])
                    for (std::uint32_t q = 0; q < m.requesters(); ++q) {
                        if (m.config(u).route(line * 64, q) != i) continue;
                        const std::uint32_t low = m.config(k).route(line * 64, q);
                        if (s[k][low].count(line) == 0) {
                            why = "line " + std::to_string(line) + " in L" + std::to_string(u) +
                                  " #" + std::to_string(i) + " but not in L" + std::to_string(k);
                            return false;
                        }
                    }
    }
    return true;
}

/// Exclusive: no line in both an exclusive level and the level above it.
bool exclusion_holds(const snapshot& s, const naive::model& m, std::string& why) {
    for (std::uint32_t k = 1; k < m.depth(); ++k) {
        if (m.config(k).relation != inclusion::exclusive) continue;
        std::set<std::uint64_t> upper;
        for (const auto& inst : s[k - 1])
            for (const auto& [line, dirty] : inst) upper.insert(line);
        for (const auto& inst : s[k])
            for (const auto& [line, dirty] : inst)
                if (upper.count(line) != 0) {
                    why = "line " + std::to_string(line) + " in L" + std::to_string(k - 1) +
                          " and in exclusive L" + std::to_string(k);
                    return false;
                }
    }
    return true;
}

/// No dirty data lost: every stored line is dirty somewhere or was written to memory after
/// its last store.
struct store_ledger {
    std::map<std::uint64_t, std::uint64_t> last_store;
    std::map<std::uint64_t, std::uint64_t> last_memory_write;

    void record(const memsub::access& a, const std::vector<request>& sent, std::uint64_t step) {
        if (a.kind == access_kind::store) last_store[a.address.value / 64] = step;
        for (const auto& q : sent)
            if (q.is_write) last_memory_write[q.address / 64] = step;
    }
    bool holds(const snapshot& s, std::string& why) const {
        for (const auto& [line, when] : last_store) {
            bool dirty = false;
            for (const auto& level : s)
                for (const auto& inst : level) {
                    const auto it = inst.find(line);
                    dirty = dirty || (it != inst.end() && it->second);
                }
            const auto w = last_memory_write.find(line);
            if (!dirty && (w == last_memory_write.end() || w->second < when)) {
                why = "store to line " + std::to_string(line) + " at step " + std::to_string(when) +
                      " is nowhere dirty and was not written back";
                return false;
            }
        }
        return true;
    }
};

/// Runs `steps` accesses of a seeded stream through `h` and the naive model `m`, comparing
/// the serving level, the memory requests and every instance's contents after each access,
/// and checking the invariants; then flushes `h` and checks that nothing dirty was lost.
template <class H>
void differential(H& h, naive::model& m, std::uint64_t seed, const stream& s, int steps) {
    std::mt19937_64 rng(seed);
    std::vector<request> got, want;
    store_ledger ledger;
    std::string why;
    std::uint64_t hits_above_memory = 0, back_invalidations = 0;
    for (int step = 0; step < steps; ++step) {
        const memsub::access a = next_access(rng, s);
        const auto r = run(h, a, got);
        const std::uint32_t served = m.access(a, want);
        const snapshot mine = take(h);
        ledger.record(a, got, static_cast<std::uint64_t>(step));
        hits_above_memory += !r.from_memory();
        back_invalidations += r.back_invalidations;
        REQUIRE_MESSAGE(r.served_by == served, "seed " << seed << " step " << step);
        REQUIRE_MESSAGE(got == want, "seed " << seed << " step " << step << "\n got  "
                                             << describe(got) << "\n want " << describe(want));
        REQUIRE_MESSAGE(mine == m.contents(), "seed " << seed << " step " << step << "\nmemsub:\n"
                                                      << describe(mine) << "naive:\n"
                                                      << describe(m.contents()));
        REQUIRE_MESSAGE(r.memory_reads + r.memory_writes == got.size(), "step " << step);
        REQUIRE_MESSAGE(inclusion_holds(mine, m, why), why << " (seed " << seed << ")");
        if (s.disjoint) REQUIRE_MESSAGE(exclusion_holds(mine, m, why), why);
        REQUIRE_MESSAGE(ledger.holds(mine, why), why << " (seed " << seed << ")");
    }
    // The stream exercised the hierarchy: some accesses hit above memory.
    CHECK(hits_above_memory > static_cast<std::uint64_t>(steps) / 10);
    bool inclusive = false;
    for (std::uint32_t k = 0; k < m.depth(); ++k)
        inclusive = inclusive || m.config(k).relation == inclusion::inclusive;
    if (inclusive) CHECK(back_invalidations > 0);

    // Flush: everything leaves, every stored line ends in memory.
    std::vector<request> flushed;
    h.flush([&](const memory_request& q) { flushed.push_back(plain(q)); });
    ledger.record(memsub::access{}, flushed, static_cast<std::uint64_t>(steps));
    const snapshot empty = take(h);
    for (const auto& level : empty)
        for (const auto& inst : level) CHECK(inst.empty());
    CHECK_MESSAGE(ledger.holds(empty, why), why);
    for (const auto& q : flushed) CHECK(q.kind == access_kind::writeback);
}

constexpr std::uint64_t seeds[] = {1, 0x5eed, 20240607};
constexpr int steps = 2500;

template <class Make>
void for_streams(std::uint32_t requesters, naive::model proto, Make make) {
    for (const bool disjoint : {false, true})
        for (const std::uint64_t seed : seeds) {
            CAPTURE(disjoint);
            CAPTURE(seed);
            auto h = make();
            naive::model m = proto;
            differential(h, m, seed, stream{.requesters = requesters, .disjoint = disjoint}, steps);
        }
}

// ---- the shapes, as memsub types and as naive configurations

template <inclusion I>
auto two_level() { // private L1 per requester (2) over a shared L2
    return cache::hierarchy{2, make_level<wb_cache>(2, shape(2, 2), route::private_per{1}),
                            make_level<wb_cache, I>(1, shape(4, 4))};
}
naive::model two_level_model(inclusion i) {
    return naive::model({{.instances = 2, .sets = 2, .ways = 2, .route = naive::per_requester},
                         {.instances = 1, .sets = 4, .ways = 4, .relation = i}},
                        2);
}

template <inclusion I2, inclusion I3>
auto remap_shape() { // 4 requesters, private L1 and L2, shared LLC (ReMAP's study)
    return cache::hierarchy{4, make_level<wb_cache>(4, shape(2, 2), route::private_per{1}),
                            make_level<wb_cache, I2>(4, shape(2, 4), route::private_per{1}),
                            make_level<wb_cache, I3>(1, shape(8, 4))};
}
naive::model remap_model(inclusion i2, inclusion i3) {
    return naive::model(
        {{.instances = 4, .sets = 2, .ways = 2, .route = naive::per_requester},
         {.instances = 4, .sets = 2, .ways = 4, .relation = i2, .route = naive::per_requester},
         {.instances = 1, .sets = 8, .ways = 4, .relation = i3}},
        4);
}

template <inclusion I3>
auto sliced_shape() { // private L1, shared L2, last level in 2 address-interleaved slices
    return cache::hierarchy{
        2, make_level<wb_cache>(2, shape(2, 2), route::private_per{1}),
        make_level<wb_cache>(1, shape(4, 2)),
        make_level<wb_cache, I3>(2, shape(4, 2),
                                 route::interleaved{.granule_bytes = 64, .slices = 2})};
}
naive::model sliced_model(inclusion i3) {
    return naive::model(
        {{.instances = 2, .sets = 2, .ways = 2, .route = naive::per_requester},
         {.instances = 1, .sets = 4, .ways = 2},
         {.instances = 2, .sets = 4, .ways = 2, .relation = i3, .route = naive::two_slices}},
        2);
}

} // namespace

// ================================================================== differential tests

TEST_CASE("differential: 2 levels, one instance each (shape a), non-inclusive and inclusive") {
    const auto model = [](inclusion i) {
        return naive::model({{.sets = 2, .ways = 2}, {.sets = 4, .ways = 2, .relation = i}}, 1);
    };
    for_streams(1, model(inclusion::non_inclusive), [] {
        return cache::hierarchy{1, make_level<wb_cache>(1, shape(2, 2)),
                                make_level<wb_cache>(1, shape(4, 2))};
    });
    for_streams(1, model(inclusion::inclusive), [] {
        return cache::hierarchy{1, make_level<wb_cache>(1, shape(2, 2)),
                                make_level<wb_cache, inclusion::inclusive>(1, shape(4, 2))};
    });
}

TEST_CASE("differential: 2 levels, private L1s over a non-inclusive shared L2") {
    for_streams(2, two_level_model(inclusion::non_inclusive),
                [] { return two_level<inclusion::non_inclusive>(); });
}

TEST_CASE("differential: 2 levels, inclusive shared L2") {
    for_streams(2, two_level_model(inclusion::inclusive),
                [] { return two_level<inclusion::inclusive>(); });
}

TEST_CASE("differential: 2 levels, exclusive shared L2") {
    for_streams(2, two_level_model(inclusion::exclusive),
                [] { return two_level<inclusion::exclusive>(); });
}

TEST_CASE("differential: 2 levels, one requester, exclusive L2 under one L1 (shape d)") {
    for_streams(
        1,
        naive::model(
            {{.sets = 2, .ways = 2}, {.sets = 2, .ways = 4, .relation = inclusion::exclusive}}, 1),
        [] {
            return cache::hierarchy{1, make_level<wb_cache>(1, shape(2, 2)),
                                    make_level<wb_cache, inclusion::exclusive>(1, shape(2, 4))};
        });
}

TEST_CASE("differential: 3 levels, ReMAP's shape, all non-inclusive (shape b)") {
    for_streams(4, remap_model(inclusion::non_inclusive, inclusion::non_inclusive),
                [] { return remap_shape<inclusion::non_inclusive, inclusion::non_inclusive>(); });
}

TEST_CASE("differential: 3 levels, inclusive LLC over private L1s and L2s (shape c)") {
    for_streams(4, remap_model(inclusion::non_inclusive, inclusion::inclusive),
                [] { return remap_shape<inclusion::non_inclusive, inclusion::inclusive>(); });
}

TEST_CASE("differential: 3 levels, inclusive L2s and inclusive LLC") {
    for_streams(4, remap_model(inclusion::inclusive, inclusion::inclusive),
                [] { return remap_shape<inclusion::inclusive, inclusion::inclusive>(); });
}

TEST_CASE("differential: 3 levels, exclusive private L2s over a non-inclusive LLC") {
    for_streams(4, remap_model(inclusion::exclusive, inclusion::non_inclusive),
                [] { return remap_shape<inclusion::exclusive, inclusion::non_inclusive>(); });
}

TEST_CASE("differential: 3 levels, exclusive private L2s over an inclusive LLC") {
    for_streams(4, remap_model(inclusion::exclusive, inclusion::inclusive),
                [] { return remap_shape<inclusion::exclusive, inclusion::inclusive>(); });
}

TEST_CASE("differential: 3 levels, last level in 2 address-interleaved slices (shape e)") {
    for_streams(2, sliced_model(inclusion::non_inclusive),
                [] { return sliced_shape<inclusion::non_inclusive>(); });
    for_streams(2, sliced_model(inclusion::inclusive),
                [] { return sliced_shape<inclusion::inclusive>(); });
}

TEST_CASE("differential: 3 levels, write-through L1s over write-back L2 and sliced L3") {
    for_streams(2,
                naive::model({{.instances = 2,
                               .sets = 2,
                               .ways = 2,
                               .write_back = false,
                               .route = naive::per_requester},
                              {.instances = 1, .sets = 4, .ways = 2},
                              {.instances = 2, .sets = 4, .ways = 2, .route = naive::two_slices}},
                             2),
                [] {
                    return cache::hierarchy{
                        2, make_level<wt_cache>(2, shape(2, 2), route::private_per{1}),
                        make_level<wb_cache>(1, shape(4, 2)),
                        make_level<wb_cache>(2, shape(4, 2), route::interleaved{.slices = 2})};
                });
}

// ================================================================== worked examples

TEST_CASE("worked example (a): L1 -> L2, one instance each") {
    // L1: 1 set x 2 ways; L2: 1 set x 4 ways; 64B lines, LRU, write-back.
    cache::hierarchy h{1, make_level<wb_cache>(1, shape(1, 2)),
                       make_level<wb_cache>(1, shape(1, 4))};
    constexpr std::uint64_t A = 0x000, B = 0x040, C = 0x080, D = 0x0c0, E = 0x100, F = 0x140,
                            G = 0x180;
    std::vector<request> m;
    auto r = run(h, load(A), m); // cold: both miss
    CHECK(r.from_memory());
    CHECK(r.levels[0].looked_up);
    CHECK(r.levels[1].looked_up);
    CHECK(m == std::vector{read(A)});
    r = run(h, store(B), m); // write-allocate: L2 (and memory) see a read for ownership
    CHECK(m == std::vector{read(B)});
    CHECK(h.cache<0>(0)
              .block(h.cache<0>(0).find(byte_address{B})->set,
                     h.cache<0>(0).find(byte_address{B})->entry)
              .dirty);
    CHECK_FALSE(h.cache<1>(0)
                    .block(h.cache<1>(0).find(byte_address{B})->set,
                           h.cache<1>(0).find(byte_address{B})->entry)
                    .dirty);
    r = run(h, load(A), m);
    CHECK(r.served_by == 0);
    CHECK_FALSE(r.levels[1].looked_up);
    CHECK(m.empty());
    r = run(h, load(C), m); // L1 evicts dirty B: the miss goes first, then B's writeback,
    CHECK(r.from_memory()); // which hits in L2 (L2 now holds B dirty)
    CHECK(m == std::vector{read(C)});
    CHECK(r.levels[0].writebacks == 1);
    CHECK(h.stats<1>().of(access_kind::writeback).accesses == 1);
    r = run(h, load(B), m); // L1 evicts A; L2 hit
    CHECK(r.served_by == 1);
    CHECK(m.empty());
    run(h, load(D), m); // L2 fills its 4th way
    CHECK(m == std::vector{read(D)});
    run(h, load(E), m); // L2 evicts A (clean)
    CHECK(m == std::vector{read(E)});
    run(h, load(F), m); // L2 evicts C (clean)
    CHECK(m == std::vector{read(F)});
    run(h, load(G), m); // L2 evicts B, dirty since step 4: read G, then write B
    CHECK(m == std::vector{read(G), write_back(B)});
    CHECK(h.counters(0).served == 1);
    CHECK(h.counters(1).served == 1);
    CHECK(h.memory_stats().served == 7);
    CHECK(h.memory_stats().reads == 7);
    CHECK(h.memory_stats().writes == 1);
    CHECK(h.memory_stats().writebacks == 1);
    CHECK(h.stats<1>().writebacks == 1);
    CHECK(h.level_stats(0).accesses() == 9);
    CHECK(h.level_stats(1).accesses() == 9); // 8 demands that missed L1 + B's writeback
    h.reset_stats();
    CHECK(h.level_stats(1).accesses() == 0);
    CHECK(h.memory_stats().reads == 0);
}

TEST_CASE(
    "read-modify-write: one access at L1; below it a fill, and a store when written through") {
    const auto rmw = [](std::uint64_t addr) {
        memsub::access a = load(addr);
        a.read_modify_write = true;
        return a;
    };
    const auto dirty_in = [](const auto& c, std::uint64_t addr) {
        const auto loc = c.find(byte_address{addr});
        REQUIRE(loc.has_value());
        return c.block(loc->set, loc->entry).dirty;
    };
    std::vector<request> m;
    // Write-back L1: the fill below is a plain read; only L1 holds the line dirty.
    cache::hierarchy wb{1, make_level<wb_cache>(1, shape(1, 2)),
                        make_level<wb_cache>(1, shape(1, 4))};
    run(wb, rmw(0x40), m);
    CHECK(m == std::vector{read(0x40)});
    CHECK(dirty_in(wb.cache<0>(0), 0x40));
    CHECK_FALSE(dirty_in(wb.cache<1>(0), 0x40));
    CHECK(wb.stats<0>().of(access_kind::load).accesses == 1);
    CHECK(wb.stats<0>().of(access_kind::store).accesses == 0);
    CHECK(wb.stats<1>().of(access_kind::load).accesses == 1);
    CHECK(wb.stats<1>().of(access_kind::store).accesses == 0);
    // Write-through L1: a miss sends the fill, then the written bytes as a store; a hit sends
    // the store only. L2 (write-back) holds the line dirty.
    cache::hierarchy wt{1, make_level<wt_cache>(1, shape(1, 2)),
                        make_level<wb_cache>(1, shape(1, 4))};
    run(wt, rmw(0x80), m);
    CHECK(m == std::vector{read(0x80)});
    CHECK_FALSE(dirty_in(wt.cache<0>(0), 0x80));
    CHECK(dirty_in(wt.cache<1>(0), 0x80));
    CHECK(wt.stats<1>().of(access_kind::load).accesses == 1);
    CHECK(wt.stats<1>().of(access_kind::store).accesses == 1);
    run(wt, rmw(0x84), m);
    CHECK(m.empty());
    CHECK(wt.stats<0>().of(access_kind::load).accesses == 2);
    CHECK(wt.stats<0>().of(access_kind::load).misses == 1);
    CHECK(wt.stats<1>().of(access_kind::load).accesses == 1);
    CHECK(wt.stats<1>().of(access_kind::store).accesses == 2);
    CHECK(wt.stats<1>().of(access_kind::store).misses == 0);
}

TEST_CASE("worked example (b): ReMAP's shape, a line another core fetched is served by the LLC") {
    auto h = remap_shape<inclusion::non_inclusive, inclusion::non_inclusive>();
    std::vector<request> m;
    auto r = run(h, load(0x1000, 0), m);
    CHECK(r.from_memory());
    CHECK(m == std::vector{read(0x1000, 64, 0)});
    r = run(h, load(0x1000, 1), m);
    CHECK(r.served_by == 2);
    CHECK(r.levels[0].instance == 1);
    CHECK(r.levels[1].instance == 1);
    CHECK(r.levels[2].instance == 0);
    CHECK(m.empty());
    r = run(h, load(0x1000, 0), m);
    CHECK(r.served_by == 0);
    CHECK(h.stats<0>(0).accesses() == 2);
    CHECK(h.stats<0>(1).accesses() == 1);
    CHECK(h.stats<0>().accesses() == 3);
    CHECK(h.stats<2>().hits() == 1);
    CHECK(h.instances<1>() == 4);
}

TEST_CASE("worked example (c): an inclusive LLC back-invalidates a dirty private copy") {
    // Two cores, each a 1-line L1; a shared inclusive LLC of 1 set x 2 ways.
    cache::hierarchy h{2, make_level<wb_cache>(2, shape(1, 1), route::private_per{1}),
                       make_level<wb_cache, inclusion::inclusive>(1, shape(1, 2))};
    constexpr std::uint64_t A = 0x000, B = 0x040, C = 0x080;
    std::vector<request> m;
    std::vector<cache::back_invalidation> gone;
    const auto step = [&](const memsub::access& a) {
        m.clear();
        gone.clear();
        return h.access(
            a, [&](const memory_request& q) { m.push_back(plain(q)); },
            [&](const cache::back_invalidation& b) { gone.push_back(b); });
    };
    step(load(A, 0)); // L1#0 {A}, LLC {A}
    step(load(B, 1)); // L1#1 {B}, LLC {B, A}
    auto r = step(store(A, 0));
    CHECK(r.served_by == 0); // A dirty in L1#0 only
    r = step(load(C, 1));    // LLC evicts A (LRU): L1#0's dirty A is back-invalidated and its
    CHECK(m == std::vector{read(C, 64, 1), write_back(A, 64, 1)}); // data goes down with A
    REQUIRE(gone.size() == 1);
    CHECK(gone[0].level == 0);
    CHECK(gone[0].instance == 0);
    CHECK(gone[0].by_level == 1);
    CHECK(gone[0].block.address == byte_address{A});
    CHECK(gone[0].block.dirty);
    CHECK(r.back_invalidations == 1);
    CHECK(r.levels[0].back_invalidated == 1);
    CHECK(r.levels[1].writebacks == 1);
    CHECK_FALSE(h.cache<0>(0).contains(byte_address{A}));
    CHECK(h.counters(0).back_invalidated == 1);
    CHECK(h.counters(0).back_invalidated_dirty == 1);
    r = step(load(A, 0)); // LLC evicts B, which no L1 holds any more
    CHECK(m == std::vector{read(A)});
    CHECK(gone.empty());
}

TEST_CASE("worked example (d): an exclusive L2 is a victim cache and moves hits up") {
    // L1: 1 line; exclusive L2: 1 set x 2 ways.
    cache::hierarchy h{1, make_level<wb_cache>(1, shape(1, 1)),
                       make_level<wb_cache, inclusion::exclusive>(1, shape(1, 2))};
    constexpr std::uint64_t A = 0x000, B = 0x040, C = 0x080, D = 0x0c0;
    const auto dirty_in = [](const auto& c, std::uint64_t addr) {
        const auto at = c.find(byte_address{addr});
        return at.has_value() && c.block(at->set, at->entry).dirty;
    };
    std::vector<request> m;
    auto r = run(h, store(A), m); // L1 {A*}; the L2 does not allocate fills from below
    CHECK(m == std::vector{read(A)});
    CHECK(r.levels[1].bypass == cache::bypass_reason::host_no_allocate);
    CHECK_FALSE(h.cache<1>(0).contains(byte_address{A}));
    r = run(h, load(B), m); // A (dirty) becomes the L2's victim
    CHECK(m == std::vector{read(B)});
    CHECK(dirty_in(h.cache<1>(0), A));
    r = run(h, load(A), m); // L2 hit: A moves up with its dirtiness, B goes to the L2 clean
    CHECK(r.served_by == 1);
    CHECK(r.levels[1].promoted);
    CHECK(m.empty());
    CHECK(dirty_in(h.cache<0>(0), A));
    CHECK_FALSE(h.cache<1>(0).contains(byte_address{A}));
    CHECK(h.cache<1>(0).contains(byte_address{B}));
    CHECK_FALSE(dirty_in(h.cache<1>(0), B));
    r = run(h, load(C), m); // A back to the L2, dirty
    CHECK(m == std::vector{read(C)});
    r = run(h, load(D), m); // C into the L2 evicts B (LRU, clean): dropped
    CHECK(m == std::vector{read(D)});
    r = run(h, load(B), m); // D arrives in the L2 after B's lookup missed and evicts A
    CHECK(m == std::vector{write_back(A), read(B)}); // (dirty), which goes down at once
    CHECK(h.counters(1).promoted == 1);
    CHECK(h.counters(1).victims_received == 5);
    CHECK(h.stats<1>().writebacks == 1); // the promotion was not counted as a writeback
    std::vector<request> flushed;
    h.flush([&](const memory_request& q) { flushed.push_back(plain(q)); });
    CHECK(flushed.empty()); // B, C, D are clean
}

TEST_CASE("worked example (e): 3 levels with a routed last level of 2 slices") {
    auto h = sliced_shape<inclusion::non_inclusive>();
    std::vector<request> m;
    auto r = run(h, load(0x000, 0), m);
    CHECK(r.levels[2].instance == 0);
    r = run(h, load(0x040, 1), m);
    CHECK(r.levels[0].instance == 1);
    CHECK(r.levels[1].instance == 0);
    CHECK(r.levels[2].instance == 1);
    CHECK(h.stats<2>(0).accesses() == 1);
    CHECK(h.stats<2>(1).accesses() == 1);
    CHECK(h.stats<2>().accesses() == 2);
}

TEST_CASE("a variable-block L1 (ID-Cache) over a conventional L2 of the same line size") {
    using alsi_l1 =
        cache::variable_block_cache<replacement::lru, 4, cache::write_policy::write_evict>;
    cache::hierarchy h{1,
                       make_level<alsi_l1>(1, geometry{.sets = 1,
                                                       .ways = 4,
                                                       .line_bytes = 128,
                                                       .segment_bytes = 32,
                                                       .tags_per_set = 16}),
                       make_level<wb_cache>(1, shape(4, 4, 128))};
    std::vector<request> m;
    const auto step = [&](std::uint64_t addr, std::uint32_t size, std::uint32_t span,
                          access_kind kind = access_kind::load) {
        m.clear();
        return h.access(memsub::access{.address = byte_address{addr}, .kind = kind, .size = size},
                        cache::block_spec{.span_segments = span, .stored_segments = span},
                        [&](const memory_request& q) { m.push_back(plain(q)); });
    };
    auto r = step(0x1000, 4, 1); // L1 inserts the 32B sector; the L2 fetches the 128B line
    CHECK(r.levels[0].blocks_filled == 1);
    CHECK(m == std::vector{read(0x1000, 128)});
    CHECK(h.level_stats(0).bytes_fetched == 32);
    r = step(0x1040, 64, 2); // a 64B block of the same line: an L1 miss, an L2 hit
    CHECK(r.served_by == 1);
    CHECK(m.empty());
    r = step(0x1000, 128, 4); // segment 1 is missing: a partial miss, served by the L2
    CHECK(r.levels[0].partial);
    CHECK(r.served_by == 1);
    r = step(0x1008, 4, 4, access_kind::store); // write-evict: the store goes to the L2
    CHECK(r.served_by == 0);
    CHECK(r.levels[1].looked_up);
    CHECK(r.levels[1].hit);
    CHECK_FALSE(h.cache<0>(0).contains(byte_address{0x1000}));
    const auto at = h.cache<1>(0).find(byte_address{0x1000});
    REQUIRE(at.has_value());
    CHECK(h.cache<1>(0).block(at->set, at->entry).dirty);
}

TEST_CASE("lines that grow downward: an inclusive 128B L2 invalidates both 64B L1 halves") {
    cache::hierarchy h{1, make_level<wb_cache>(1, shape(1, 4, 64)),
                       make_level<wb_cache, inclusion::inclusive>(1, shape(1, 1, 128))};
    std::vector<request> m;
    run(h, load(0x1000), m);
    CHECK(m == std::vector{read(0x1000, 128)});
    auto r = run(h, store(0x1040), m); // the other half: an L1 miss, an L2 hit
    CHECK(r.served_by == 1);
    CHECK(m.empty());
    std::vector<cache::back_invalidation> gone;
    r = h.access(
        load(0x2000), [&](const memory_request& q) { m.push_back(plain(q)); },
        [&](const cache::back_invalidation& b) { gone.push_back(b); });
    CHECK(gone.size() == 2); // both halves; the dirty one's data goes down with the 128B line
    CHECK(m == std::vector{read(0x2000, 128), write_back(0x1000, 128)});
    CHECK_FALSE(h.cache<0>(0).contains(byte_address{0x1000}));
    CHECK_FALSE(h.cache<0>(0).contains(byte_address{0x1040}));
}

TEST_CASE("an inclusive level that declines a fill takes the copies above with it") {
    using bypassing = set_associative_cache<replacement::lru, cache::write_policy::write_back,
                                            geometry, bypass::always>;
    cache::hierarchy h{1, make_level<wb_cache>(1, shape(1, 2)),
                       make_level<bypassing, inclusion::inclusive>(1, shape(1, 2))};
    std::vector<request> m;
    auto r = run(h, load(0x000), m);
    CHECK(r.levels[1].bypass == cache::bypass_reason::predictor);
    CHECK(r.back_invalidations == 1);
    CHECK(m == std::vector{read(0x000)});
    CHECK_FALSE(h.cache<0>(0).contains(byte_address{0x000}));
    r = run(h, store(0x040), m); // the dirty copy goes back down; the LLC declines it too
    CHECK(m == std::vector{read(0x040), write_back(0x040)});
    CHECK_FALSE(h.cache<0>(0).contains(byte_address{0x040}));
}

TEST_CASE("multi-module GPU: per-SM L1, remote-only L1.5 per module, home-module L2") {
    // 2 modules x 2 SMs; line homes interleave by 128B lines across the modules.
    struct remote_only { // the L1.5 of the requester's module caches only remote lines
        std::uint32_t operator()(const memsub::access& a) const noexcept {
            const auto home = static_cast<std::uint32_t>((a.address.value / 128) % 2);
            const std::uint32_t module = a.requester / 2;
            return home == module ? route::skip : module;
        }
    };
    using l1_type = set_associative_cache<replacement::lru, cache::write_policy::write_evict>;
    cache::hierarchy h{
        4, make_level<l1_type>(4, shape(1, 2, 128), route::private_per{1}),
        make_level<wt_cache, inclusion::non_inclusive, remote_only>(2, shape(2, 4, 128)),
        make_level<wb_cache>(2, shape(4, 4, 128),
                             route::interleaved{.granule_bytes = 128, .slices = 2})};
    std::vector<request> m;
    auto r = run(h, load(0x000, 0), m); // home 0 = SM 0's module: the L1.5 is skipped
    CHECK_FALSE(r.levels[1].looked_up);
    CHECK(r.levels[1].instance == route::skip);
    CHECK(r.levels[2].instance == 0);
    CHECK(m == std::vector{read(0x000, 128)});
    r = run(h, load(0x080, 0), m); // home 1: remote, through module 0's L1.5
    CHECK(r.levels[1].looked_up);
    CHECK(r.levels[1].instance == 0);
    CHECK(r.levels[2].instance == 1);
    r = run(h, load(0x080, 1), m); // SM 1 (module 0): its L1 misses, module 0's L1.5 hits
    CHECK(r.served_by == 1);
    r = run(h, store(0x080, 1), m); // write-evict L1, write-through L1.5, write-back L2
    CHECK(r.levels[1].hit);
    CHECK(r.levels[2].hit);
    CHECK(m.empty());
    // A sync event flushes the L1s and L1.5s: nothing dirty there, nothing written.
    std::vector<request> flushed;
    h.flush_level<0>([&](const memory_request& q) { flushed.push_back(plain(q)); });
    h.flush_level<1>([&](const memory_request& q) { flushed.push_back(plain(q)); });
    CHECK(flushed.empty());
    CHECK_FALSE(h.cache<1>(0).contains(byte_address{0x080}));
    CHECK(h.cache<2>(1).contains(byte_address{0x080}));
}

TEST_CASE("set_dirty changes only the dirty bit") {
    wb_cache c(shape(1, 2));
    c.access(load(0));
    const auto at = *c.find(byte_address{0});
    c.set_dirty(at, true);
    CHECK(c.block(at.set, at.entry).dirty);
    c.set_dirty(at, false);
    CHECK_FALSE(c.block(at.set, at.entry).dirty);
    CHECK(c.stats().accesses() == 1);
    CHECK(c.stats().writebacks == 0);
}

TEST_CASE("configuration errors") {
    CHECK_THROWS_AS((cache::hierarchy{1, make_level<wb_cache>(1, shape(1, 2, 128)),
                                      make_level<wb_cache>(1, shape(1, 2, 64))}),
                    config_error); // the line shrinks downward
    CHECK_THROWS_AS(
        (cache::hierarchy{4, make_level<wb_cache>(2, shape(1, 2), route::private_per{1}),
                          make_level<wb_cache>(1, shape(1, 2))}),
        config_error); // 4 requesters, 2 private instances
    CHECK_THROWS_AS(
        (cache::hierarchy{1, make_level<wb_cache>(1, shape(1, 2, 64)),
                          make_level<wb_cache, inclusion::exclusive>(1, shape(1, 2, 128))}),
        config_error); // exclusive with a different line
    CHECK_THROWS_AS((cache::hierarchy{1, make_level<wb_cache>(0, shape(1, 2))}), config_error);
    CHECK_THROWS_AS((cache::hierarchy{0, make_level<wb_cache>(1, shape(1, 2))}), config_error);
    CHECK_THROWS_AS(
        (cache::hierarchy{1, make_level<wb_cache>(1, shape(1, 2)),
                          make_level<wb_cache>(2, shape(1, 2), route::interleaved{.slices = 3})}),
        config_error); // more slices than instances
    try {
        cache::hierarchy h{1, make_level<wb_cache>(1, shape(1, 2, 128)),
                           make_level<wb_cache>(1, shape(1, 2, 64))};
        FAIL("no error");
    } catch (const config_error& e) {
        CHECK(e.parameter() == "levels[1].line_bytes");
        CHECK(e.value() == "64");
    }
    // Two private groups of 2 requesters each cover 4 requesters.
    CHECK_NOTHROW(
        (cache::hierarchy{4, make_level<wb_cache>(2, shape(1, 2), route::private_per{2})}));
}
