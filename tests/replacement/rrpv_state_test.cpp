// The shared RRPV array (replacement/rrpv_state.hpp) packs eight RRPVs per word and
// searches/ages them with word operations; this checks it against the published rule coded
// naively, over every width, odd entry counts and random eligible masks. The kit header is
// included first, so this file also checks that it compiles on its own.
#include <memsub/replacement/rrpv_state.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <memsub/core/rng.hpp>

using namespace memsub;
using namespace memsub::replacement;

namespace {

struct naive_rrpv {
    std::vector<int> v;
    int distant;

    std::uint32_t victim(entry_mask eligible) {
        for (;;) { // RRIP §4.1: first distant from the left, else +1 to all and repeat
            for (std::uint32_t e = 0; e < v.size(); ++e)
                if (((eligible >> e) & 1u) && v[e] == distant) return e;
            for (auto& x : v)
                if (x < distant) ++x;
        }
    }
};

} // namespace

TEST_CASE("rrpv_state equals the naive RRIP rule (all widths, odd entry counts, masks, replace)") {
    xoshiro256ss rng(42);
    for (std::uint32_t entries : {1u, 2u, 3u, 4u, 7u, 8u, 9u, 12u, 16u, 31u, 33u, 64u}) {
        for (std::uint32_t bits = 1; bits <= 7; ++bits) {
            const geometry g{.sets = 4, .ways = entries, .line_bytes = 64};
            replacement::rrpv_state st(g, bits);
            const int distant = (1 << bits) - 1;
            CHECK(st.distant() == distant);
            CHECK(st.long_interval() == distant - 1);
            std::vector<naive_rrpv> ref(4, naive_rrpv{std::vector<int>(entries, distant), distant});
            for (int step = 0; step < 3000; ++step) {
                const set_index s{static_cast<std::uint32_t>(rng.below(4))};
                const entry_index e{static_cast<std::uint32_t>(rng.below(entries))};
                auto& r = ref[s.value];
                switch (rng.below(4)) {
                case 0: {
                    const auto x = static_cast<std::uint8_t>(rng.below(distant + 1));
                    st.set(s, e, x);
                    r.v[e.value] = x;
                    break;
                }
                case 1:
                    st.promote(s, e, hit_promotion::hit_priority);
                    r.v[e.value] = 0;
                    break;
                case 2:
                    st.promote(s, e, hit_promotion::frequency_priority);
                    if (r.v[e.value] > 0) --r.v[e.value];
                    break;
                default: {
                    // Half the searches offer the whole set (the one-step ageing path).
                    entry_mask m =
                        rng.below(2) == 0 ? low_bits_mask(entries) : rng() & low_bits_mask(entries);
                    if (m == 0) m = bit_of(e);
                    // Half of them through replace: the search, then the victim's new RRPV.
                    const bool replacing = rng.below(2) == 0;
                    const auto x = static_cast<std::uint8_t>(rng.below(distant + 1));
                    const entry_index got = replacing ? st.replace(s, m, x) : st.find_victim(s, m);
                    const std::uint32_t want = r.victim(m);
                    if (got.value != want) REQUIRE(got.value == want);
                    if (replacing) r.v[want] = x;
                    break;
                }
                }
                for (std::uint32_t k = 0; k < entries; ++k)
                    if (st.get(s, entry_index{k}) != r.v[k]) {
                        INFO("entries " << entries << " bits " << bits << " step " << step);
                        REQUIRE(st.get(s, entry_index{k}) == r.v[k]);
                    }
            }
            entry_mask expect = 0;
            for (std::uint32_t k = 0; k < entries; ++k)
                if (ref[0].v[k] == distant) expect |= bit_of(entry_index{k});
            CHECK(st.distant_entries(set_index{0}) == expect);
            CHECK(st.storage_bits() == std::uint64_t{4} * entries * bits);
        }
    }
}

namespace {

/// basic_rrpv_state<Entries> (the compile-time shape) against rrpv_state, operation by
/// operation, on a random mix of sets, promotions, searches and replacements.
template <std::uint32_t Entries>
void check_fixed_shape_matches_runtime() {
    const geometry g{.sets = 8, .ways = Entries, .line_bytes = 64};
    xoshiro256ss rng(Entries);
    for (std::uint32_t bits : {1u, 2u, 3u, 7u}) {
        replacement::rrpv_state any(g, bits);
        basic_rrpv_state<Entries> fixed(g, bits);
        for (int step = 0; step < 4000; ++step) {
            const set_index s{static_cast<std::uint32_t>(rng.below(8))};
            const entry_index e{static_cast<std::uint32_t>(rng.below(Entries))};
            const auto x = static_cast<std::uint8_t>(rng.below(any.distant() + 1u));
            entry_mask m =
                rng.below(2) == 0 ? low_bits_mask(Entries) : rng() & low_bits_mask(Entries);
            if (m == 0) m = bit_of(e);
            switch (rng.below(4)) {
            case 0:
                any.set(s, e, x);
                fixed.set(s, e, x);
                break;
            case 1:
                any.promote(s, e, hit_promotion::frequency_priority);
                fixed.promote(s, e, hit_promotion::frequency_priority);
                break;
            case 2:
                REQUIRE(any.find_victim(s, m) == fixed.find_victim(s, m));
                break;
            default:
                REQUIRE(any.replace(s, m, x) == fixed.replace(s, m, x));
                break;
            }
            for (std::uint32_t k = 0; k < Entries; ++k)
                REQUIRE(any.get(s, entry_index{k}) == fixed.get(s, entry_index{k}));
        }
    }
}

} // namespace

TEST_CASE("basic_rrpv_state<Entries> behaves as rrpv_state on its shape") {
    check_fixed_shape_matches_runtime<4>();
    check_fixed_shape_matches_runtime<8>();
    check_fixed_shape_matches_runtime<16>();
    check_fixed_shape_matches_runtime<32>();
}

TEST_CASE("rrpv kernels: SWAR and SSE2 agree with a byte-by-byte reference") {
    namespace k = memsub::replacement::detail::rrpv_kernels;
    xoshiro256ss rng(7);
    for (std::uint32_t words : {2u, 4u, 6u, 8u}) {
        for (std::uint32_t bits = 1; bits <= 7; ++bits) {
            const auto d = static_cast<std::uint8_t>((1u << bits) - 1u);
            for (int trial = 0; trial < 200; ++trial) {
                std::vector<std::uint64_t> row(words);
                std::vector<std::uint8_t> bytes(8 * words);
                for (std::uint32_t i = 0; i < 8 * words; ++i) {
                    // Bias towards distant so masks are neither always empty nor always full.
                    bytes[i] = static_cast<std::uint8_t>(rng.below(3) == 0 ? d : rng.below(d + 1u));
                    row[i / 8] |= std::uint64_t{bytes[i]} << (8 * (i % 8));
                }
                entry_mask want = 0;
                for (std::uint32_t i = 0; i < 8 * words; ++i)
                    if (bytes[i] == d) want |= entry_mask{1} << i;
                CHECK(k::distant_swar(row.data(), words, d) == want);
#if defined(__SSE2__)
                CHECK(k::distant_sse2(row.data(), words, d) == want);
                auto sse = row;
                k::age_once_sse2(sse.data(), words, d);
#endif
                auto swar = row;
                k::age_once_swar(swar.data(), words, d);
                std::vector<std::uint64_t> aged(words);
                for (std::uint32_t i = 0; i < 8 * words; ++i) {
                    const std::uint64_t v = bytes[i] < d ? bytes[i] + 1u : bytes[i];
                    aged[i / 8] |= v << (8 * (i % 8));
                }
                CHECK(swar == aged);
#if defined(__SSE2__)
                CHECK(sse == aged);
#endif
            }
        }
    }
}

#if defined(__SSE2__)
TEST_CASE("rrpv kernels: the one-step ageing equals ageing pass by pass") {
    namespace k = memsub::replacement::detail::rrpv_kernels;
    xoshiro256ss rng(11);
    // The maximum spread to every lane, on arbitrary bytes (not only RRPVs).
    for (int trial = 0; trial < 2000; ++trial) {
        alignas(16) std::uint8_t bytes[16];
        std::uint8_t top = 0;
        for (auto& b : bytes) {
            b = static_cast<std::uint8_t>(rng.below(trial % 2 == 0 ? 256 : 8));
            top = b > top ? b : top;
        }
        alignas(16) std::uint8_t spread[16];
        _mm_store_si128(
            reinterpret_cast<__m128i*>(spread),
            k::max_epu8_in_every_lane(_mm_load_si128(reinterpret_cast<const __m128i*>(bytes))));
        for (const auto b : spread) CHECK(b == top);
    }
    // A row of `entries` RRPVs padded with distant lanes, aged in one step, against "+1 to every
    // RRPV below d until one is distant" over the live entries; the padding stays distant.
    for (std::uint32_t entries = 1; entries <= 16; ++entries) {
        for (std::uint32_t bits = 1; bits <= 7; ++bits) {
            const auto d = static_cast<std::uint8_t>((1u << bits) - 1u);
            for (int trial = 0; trial < 300; ++trial) {
                std::uint64_t row[2] = {};
                std::vector<int> want(16, d);
                for (std::uint32_t i = 0; i < entries; ++i)
                    want[i] = static_cast<int>(rng.below(trial % 3 == 0 ? d : d + 1u));
                for (std::uint32_t i = 0; i < 16; ++i)
                    row[i / 8] |= std::uint64_t(want[i]) << (8 * (i % 8));
                // The naive rule ages the live entries until one is distant.
                naive_rrpv ref{std::vector<int>(want.begin(), want.begin() + entries), d};
                (void)ref.victim(low_bits_mask(entries));
                std::copy(ref.v.begin(), ref.v.end(), want.begin());
                entry_mask distant_entries = 0;
                for (std::uint32_t i = 0; i < entries; ++i)
                    if (want[i] == d) distant_entries |= entry_mask{1} << i;
                std::uint64_t with_lanes[2] = {row[0], row[1]};
                CHECK(k::age_row_to_distant_sse2(row, entries, d) == distant_entries);
                CHECK(k::age_row_to_distant_sse2(with_lanes, entries,
                                                 _mm_set1_epi8(static_cast<char>(d))) ==
                      distant_entries);
                for (std::uint32_t i = 0; i < 16; ++i) {
                    CHECK(((row[i / 8] >> (8 * (i % 8))) & 0xff) == std::uint64_t(want[i]));
                    CHECK(((with_lanes[i / 8] >> (8 * (i % 8))) & 0xff) == std::uint64_t(want[i]));
                }
            }
        }
    }
}
#endif
