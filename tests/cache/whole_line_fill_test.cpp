// The variable-block engine's whole-line fill path (cache_options::whole_line_fill_path): a
// fill of one whole-line block into a line with no resident block takes a dedicated path. It
// must change nothing: random streams run through a cache with the path and one without it
// (every fill through the general path) give equal results, equal statistics, and the same
// hook calls with the same arguments to the replacement policy, in the same order. The streams
// mix what the path must hand back to the general code (blocks of other spans, partial
// misses) with what it must do itself (O3 bypasses, tag-only blocks, victims for a tag and for
// segments, writebacks, masked and read-modify-write accesses, all three write policies).
#include <doctest/doctest.h>

#include <cstdint>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/random.hpp>

using namespace memsub;
using cache::block_spec;
using cache::write_policy;

namespace {

/// FNV-1a style mixing of 64-bit words into a running hash.
struct hasher {
    std::uint64_t h = 0xcbf29ce484222325ull;
    void add(std::uint64_t v) noexcept {
        h ^= v;
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    void add(const memsub::evicted_block& b) noexcept {
        add(b.line.value);
        add(b.address.value);
        add(b.bytes);
        add(b.stored_segments);
        add(b.set.value);
        add(b.entry.value);
        add(b.dirty);
        add(b.reused);
        add(static_cast<std::uint64_t>(b.reason));
        add(b.touched_segments);
        add(b.payload);
    }
};

/// Wraps `Inner` and hashes every hook call the engine makes, with all of its arguments (the
/// size-aware R4 and R6 forms, so the insert's and the room request's fields count); also
/// declines some allocations through O3 when `bypassing` (every fourth question, by a counter:
/// a path that asks a different number of times diverges at once).
template <class Inner, bool Bypassing>
class hashing_policy {
public:
    using params = typename Inner::params;
    hashing_policy(const geometry& g, const params& p = {}) : inner_(g, p) {}
    [[nodiscard]] std::string_view name() const noexcept { return "hashing"; }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        calls.add(1);
        calls.add(s.value);
        calls.add(e.value);
        calls.add(a.address.value);
        inner_.on_hit(s, e, a);
    }
    void on_insert(set_index s, entry_index e, const access& a,
                   const replacement::insert_info& i) noexcept {
        calls.add(2);
        calls.add(s.value);
        calls.add(e.value);
        calls.add(a.address.value);
        calls.add(i.address.value);
        calls.add(i.bytes);
        calls.add(i.stored_segments);
        calls.add(i.payload);
        replacement::notify_insert(inner_, s, e, a, i);
    }
    void on_evict(set_index s, entry_index e, const memsub::evicted_block& b) noexcept {
        calls.add(3);
        calls.add(s.value);
        calls.add(e.value);
        calls.add(b);
        inner_.on_evict(s, e, b);
    }
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access& a,
                                     const replacement::room_request& need) noexcept {
        const entry_index v = replacement::choose_victim(inner_, s, eligible, a, need);
        calls.add(4);
        calls.add(s.value);
        calls.add(eligible);
        calls.add(a.address.value);
        calls.add(need.entries_needed);
        calls.add(need.segments_needed);
        calls.add(need.incoming_bytes);
        calls.add(need.incoming_segments);
        calls.add(v.value);
        ++victims;
        return v;
    }
    [[nodiscard]] bool should_bypass(set_index s, const access& a) noexcept requires Bypassing {
        calls.add(5);
        calls.add(s.value);
        calls.add(a.address.value);
        const bool no = ++questions % 4 == 0;
        bypasses += no;
        return no;
    }

    hasher calls;
    std::uint64_t victims = 0, questions = 0, bypasses = 0;

private:
    Inner inner_;
};

template <class R>
void hash_result(hasher& h, const R& r) {
    h.add(r.hit);
    h.add(r.partial);
    h.add(static_cast<std::uint64_t>(r.bypass));
    h.add(r.hit_block_left);
    h.add(r.blocks_filled);
    h.add(r.set.value);
    h.add(r.entry.value);
    h.add(r.payload);
    h.add(r.resize_refused);
    h.add(r.missing_segments);
    h.add(r.bytes_fetched);
    h.add(r.bytes_written_down);
    h.add(r.evictions.size());
    for (const auto& e : r.evictions) h.add(e);
}

void hash_stats(hasher& h, const cache::cache_stats& s) {
    h.add(s.fills);
    h.add(s.partial_misses);
    h.add(s.evictions);
    for (const auto v : s.bypasses_by_reason) h.add(v);
    h.add(s.writebacks);
    h.add(s.invalidations);
    h.add(s.resizes);
    h.add(s.bytes_fetched);
    h.add(s.bytes_written_down);
    h.add(s.bytes_written_back);
    for (const auto& k : s.by_kind) {
        h.add(k.accesses);
        h.add(k.misses);
    }
    for (const auto v : s.invalidations_by_reason) h.add(v);
    h.add(s.resizes_refused);
    h.add(s.specs_clamped);
}

/// How often a stream fills one whole-line block into a line with nothing resident (the
/// dedicated path's case), and how often it fills otherwise.
struct coverage {
    std::uint64_t whole_line_fills = 0;
    std::uint64_t other_fills = 0;
    std::uint64_t victims = 0;
    std::uint64_t bypasses = 0;
};

/// Runs one seeded stream through `with` (the whole-line path on) and `without` (off) and
/// checks them equal after every access. `mixed_spans`: one spec in eight has a smaller span.
template <class With, class Without>
coverage run_pair(With& with, Without& without, std::uint64_t seed, std::uint64_t lines,
                  bool mixed_spans, int accesses) {
    xoshiro256ss rng(seed);
    coverage cov;
    for (int i = 0; i < accesses; ++i) {
        const std::uint64_t line = rng.below(lines);
        memsub::access a{.address = byte_address{line * 128 + rng.below(128)}};
        const std::uint64_t kind = rng.below(16);
        a.kind = kind < 10   ? access_kind::load
                 : kind < 14 ? access_kind::store
                 : kind < 15 ? access_kind::writeback
                             : access_kind::prefetch;
        a.size = rng.below(4) == 0 ? 0u : 1u + static_cast<std::uint32_t>(rng.below(64));
        if (rng.below(8) == 0) { // a masked request, addressed at its lowest masked segment
            a.sector_mask = static_cast<std::uint16_t>(1u + rng.below(15));
            a.address = byte_address{
                line * 128 + 32u * static_cast<std::uint32_t>(std::countr_zero(a.sector_mask))};
        }
        a.read_modify_write = rng.below(32) == 0;
        a.hints.no_allocate = rng.below(32) == 0;
        block_spec spec{4, static_cast<std::uint32_t>(rng.below(5)),
                        static_cast<std::uint32_t>(rng.below(1000))};
        if (mixed_spans && rng.below(8) == 0) spec.span_segments = 1u << rng.below(2); // 1 or 2
        if (rng.below(64) == 0) spec.stored_segments = 7; // corrected to the span, counted
        const bool was_resident = with.resident_segments(line_address{line}) != 0;

        hasher hw, ho;
        if (rng.below(512) == 0) { // a host's invalidation between accesses
            const auto x = with.invalidate(a.address);
            const auto y = without.invalidate(a.address);
            REQUIRE(x.has_value() == y.has_value());
            if (x) {
                hw.add(*x);
                ho.add(*y);
            }
        } else {
            const auto rw = with.access(a, spec);
            const auto ro = without.access(a, spec);
            hash_result(hw, rw);
            hash_result(ho, ro);
            if (rw.filled()) {
                const bool whole =
                    spec.span_segments == 4 && !was_resident && !rw.partial && !a.read_modify_write;
                (whole ? cov.whole_line_fills : cov.other_fills) += 1;
            }
        }
        hash_stats(hw, with.stats());
        hash_stats(ho, without.stats());
        CAPTURE(i);
        REQUIRE(hw.h == ho.h);
        REQUIRE(with.policy().calls.h == without.policy().calls.h);
    }
    // The caches' contents agree block by block.
    const geometry g = with.shape();
    for (std::uint32_t s = 0; s < g.sets; ++s)
        for (std::uint32_t e = 0; e < g.entries_per_set(); ++e) {
            const auto x = with.block(set_index{s}, entry_index{e});
            const auto y = without.block(set_index{s}, entry_index{e});
            REQUIRE(x.valid == y.valid);
            if (!x.valid) continue;
            REQUIRE(x.address == y.address);
            REQUIRE(x.bytes == y.bytes);
            REQUIRE(x.stored_segments == y.stored_segments);
            REQUIRE(x.dirty == y.dirty);
            REQUIRE(x.reused == y.reused);
            REQUIRE(x.touched_segments == y.touched_segments);
            REQUIRE(x.payload == y.payload);
        }
    cov.victims = with.policy().victims;
    cov.bypasses = with.policy().bypasses;
    return cov;
}

template <class Policy, write_policy Writes, bool Bypassing>
coverage check_paths_agree(std::uint64_t seed, bool mixed_spans) {
    // LATTE-CC's compressed L1 set ([Dissertation] §4.3.1): 4 ways of 128 B lines in 32 B
    // segments, 16 tags; 8 sets so that lines meet in a set often.
    const geometry g{
        .sets = 8, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    using policy = hashing_policy<Policy, Bypassing>;
    constexpr cache::cache_options on{.writes = Writes, .max_block_segments = 4};
    constexpr cache::cache_options off{
        .writes = Writes, .max_block_segments = 4, .whole_line_fill_path = false};
    cache::basic_cache<policy, on> with(g);
    cache::basic_cache<policy, off> without(g);
    return run_pair(with, without, seed, 160, mixed_spans, 20000);
}

} // namespace

TEST_CASE("whole-line fill path: every result, statistic and policy call equals the general "
          "path's (seeded property test)") {
    std::uint64_t whole = 0, other = 0, victims = 0, bypasses = 0;
    auto add = [&](const coverage& c) {
        whole += c.whole_line_fills;
        other += c.other_fills;
        victims += c.victims;
        bypasses += c.bypasses;
    };
    for (const std::uint64_t seed : {1u, 2u}) {
        CAPTURE(seed);
        for (const bool mixed : {false, true}) {
            CAPTURE(mixed);
            add(check_paths_agree<replacement::lru, write_policy::write_back, false>(seed, mixed));
            add(check_paths_agree<replacement::lru, write_policy::write_back, true>(seed, mixed));
            add(check_paths_agree<replacement::random, write_policy::write_through, true>(seed,
                                                                                          mixed));
            add(check_paths_agree<replacement::lru, write_policy::write_evict, false>(seed, mixed));
        }
    }
    // The streams exercise both paths, victims and O3 bypasses.
    CHECK(whole > 50000);
    CHECK(other > 5000);
    CHECK(victims > 50000);
    CHECK(bypasses > 5000);
}
