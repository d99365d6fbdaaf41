// The policy writer's recency_stack (replacement/recency_stack.hpp) against a naive list model:
// positions start at the entry index, promote / demote move one entry to the top / bottom and
// shift the entries between by one, every set's positions stay a permutation, recency() is the
// mirror of position(), sets are independent, storage_bits is ⌈log2 E⌉ per entry.
// The kit header is included first, so this file also checks that it compiles on its own.
#include <memsub/replacement/recency_stack.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <memsub/core/rng.hpp>

using namespace memsub;
using memsub::replacement::recency_stack;

TEST_CASE("recency_stack: worked example on one 4-entry set") {
    recency_stack st(geometry{.sets = 2, .ways = 4, .line_bytes = 64});
    const set_index s{1};
    for (std::uint32_t e = 0; e < 4; ++e) CHECK(st.position(s, entry_index{e}) == e);

    st.promote(s, entry_index{2}); // order 2 0 1 3
    CHECK(st.position(s, entry_index{2}) == 0);
    CHECK(st.position(s, entry_index{0}) == 1);
    CHECK(st.position(s, entry_index{1}) == 2);
    CHECK(st.position(s, entry_index{3}) == 3);
    CHECK(st.recency(s, entry_index{2}) == 3);
    CHECK(st.recency(s, entry_index{3}) == 0);

    st.demote(s, entry_index{0}); // order 2 1 3 0
    CHECK(st.position(s, entry_index{2}) == 0);
    CHECK(st.position(s, entry_index{1}) == 1);
    CHECK(st.position(s, entry_index{3}) == 2);
    CHECK(st.position(s, entry_index{0}) == 3);

    // The other set is untouched.
    for (std::uint32_t e = 0; e < 4; ++e) CHECK(st.position(set_index{0}, entry_index{e}) == e);
    CHECK(st.entries() == 4);
    CHECK(st.storage_bits() == 2u * 4u * 2u); // 2 sets × 4 entries × 2 bits
}

TEST_CASE("recency_stack equals a list model over random promotes and demotes") {
    for (const std::uint32_t ways : {1u, 2u, 5u, 16u, 32u}) {
        CAPTURE(ways);
        const geometry g{.sets = 3, .ways = ways, .line_bytes = 64};
        recency_stack st(g);
        // model[s] lists the entries of set s from most to least recent.
        std::vector<std::vector<std::uint32_t>> model(g.sets);
        for (auto& m : model)
            for (std::uint32_t e = 0; e < ways; ++e) m.push_back(e);
        xoshiro256ss rng(ways);
        for (int step = 0; step < 2000; ++step) {
            const auto s = static_cast<std::uint32_t>(rng.below(g.sets));
            const auto e = static_cast<std::uint32_t>(rng.below(ways));
            auto& m = model[s];
            m.erase(std::find(m.begin(), m.end(), e));
            if (rng.below(3) == 0) {
                st.demote(set_index{s}, entry_index{e});
                m.push_back(e);
            } else {
                st.promote(set_index{s}, entry_index{e});
                m.insert(m.begin(), e);
            }
            for (std::uint32_t p = 0; p < ways; ++p)
                REQUIRE(st.position(set_index{s}, entry_index{m[p]}) == p);
        }
        std::uint64_t bits = 0;
        while ((1u << bits) < ways) ++bits;
        CHECK(st.storage_bits() == bits * ways * g.sets);
    }
}
