// The host-facing forms kept for one release: a host written before the size-aware hooks calls
// `policy.victim(set, eligible, access)` and `policy.on_insert(set, entry, access)` on
// set-dueling policies (drrip, remap, …) and on runtime_choice. Those calls still compile
// (with a deprecation warning naming the replacement) and replace exactly as
// choose_victim / notify_insert do.
#include <doctest/doctest.h>

#include <memsub/core/rng.hpp>
#include <memsub/replacement/drrip.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/replacement/remap.hpp>
#include <memsub/replacement/runtime_choice.hpp>

#include <cstdint>
#include <vector>

// The point of this file is calling the deprecated forms.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

using namespace memsub;
using namespace memsub::replacement;

constexpr geometry shape{.sets = 64, .ways = 8, .line_bytes = 64};

static_assert(plain_victim<drrip> && plain_on_insert<drrip>);
static_assert(plain_victim<remap> && plain_on_insert<remap>);
static_assert(plain_victim<runtime_choice<lru, drrip>>);

/// A tag array driving two copies of a policy, one through the deprecated calls and one through
/// choose_victim / notify_insert; returns the number of accesses whose victims differed.
template <class P>
std::uint64_t differences(const typename P::params& params) {
    P old_host(shape, params), new_host(shape, params);
    std::vector<std::uint64_t> lines(std::size_t{shape.sets} * shape.ways, ~0ull);
    std::vector<bool> valid(lines.size());
    xoshiro256ss rng(9);
    std::uint64_t differing = 0, replacements = 0;
    for (int i = 0; i < 50'000; ++i) {
        const std::uint64_t line = rng() % 2 == 0 ? rng() % 128 : rng() % 1024;
        access a;
        a.address = byte_address{line * shape.line_bytes};
        a.pc = 0x400 + 4 * (rng() % 8);
        const set_index s{static_cast<std::uint32_t>(line % shape.sets)};
        const std::size_t row = std::size_t{s.value} * shape.ways;
        std::uint32_t way = shape.ways, free_way = shape.ways;
        entry_mask eligible = 0;
        for (std::uint32_t w = 0; w < shape.ways; ++w) {
            if (valid[row + w] && lines[row + w] == line) way = w;
            if (!valid[row + w] && free_way == shape.ways) free_way = w;
            if (valid[row + w]) eligible |= entry_mask{1} << w;
        }
        if (way != shape.ways) {
            old_host.on_hit(s, entry_index{way}, a);
            new_host.on_hit(s, entry_index{way}, a);
            continue;
        }
        if constexpr (observes_misses<P>) {
            old_host.on_miss(s, a);
            new_host.on_miss(s, a);
        }
        if (free_way == shape.ways) {
            const entry_index v_old = old_host.victim(s, eligible, a);
            const entry_index v_new = choose_victim(
                new_host, s, eligible, a,
                room_request{.entries_needed = 1, .incoming_bytes = 64, .incoming_segments = 1});
            differing += v_old != v_new;
            ++replacements;
            evicted_block b;
            b.line = line_address{lines[row + v_new.value]};
            b.address = byte_address{b.line.value * shape.line_bytes};
            b.bytes = shape.line_bytes;
            b.stored_segments = 1;
            b.set = s;
            b.entry = v_new;
            old_host.on_evict(s, v_new, b);
            new_host.on_evict(s, v_new, b);
            free_way = v_new.value;
        }
        old_host.on_insert(s, entry_index{free_way}, a);
        notify_insert(new_host, s, entry_index{free_way}, a,
                      insert_info{.address = a.address, .bytes = 64, .stored_segments = 1});
        valid[row + free_way] = true;
        lines[row + free_way] = line;
    }
    CHECK(replacements > 10'000);
    return differing;
}

} // namespace

TEST_CASE("deprecated victim / on_insert forms replace as choose_victim / notify_insert") {
    CHECK(differences<drrip>({}) == 0);
    CHECK(differences<remap>({}) == 0);
    runtime_choice<lru, drrip>::params choice;
    choice.name = "drrip";
    CHECK(differences<runtime_choice<lru, drrip>>(choice) == 0);
}
