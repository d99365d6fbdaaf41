// The RRIP paper's worked example ([RRIP] §4.1–4.2, Fig. 3; the step-by-step states are computed
// from the published rules, the paper gives them only as a figure) and constructed examples
// (thrashing cycle, scan length), step by step.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/all.hpp>

#include "helpers.hpp"

using namespace memsub;
using namespace memsub::replacement;
using cache::set_associative_cache;
using repl_test::make_stream;
using repl_test::outcome;

namespace {

const geometry one_set{.sets = 1, .ways = 4, .line_bytes = repl_test::line_bytes};

// Block names of the example as line numbers.
constexpr std::uint64_t a1 = 1, a2 = 2, b1 = 11, b2 = 12, b3 = 13, b4 = 14;
const std::vector<std::uint64_t> example = {a1, a2, a2, a1, b1, b2, b3, b4, a1, a2};
const std::vector<bool> hit_pattern = {false, false, true,  true, false,
                                       false, false, false, true, true};

std::string name_of(std::uint64_t line) {
    switch (line) {
    case a1:
        return "a1";
    case a2:
        return "a2";
    case b1:
        return "b1";
    case b2:
        return "b2";
    case b3:
        return "b3";
    case b4:
        return "b4";
    default:
        return std::string("x").append(std::to_string(line));
    }
}

/// "a1:2 a2:0 - -" for RRIP policies (ways 0..3, block:RRPV), "a1 a2 - -" without RRPVs.
template <class Cache, class Rrpv>
std::string state_of(const Cache& c, Rrpv rrpv) {
    std::string s;
    for (std::uint32_t w = 0; w < 4; ++w) {
        if (w) s += ' ';
        const auto b = c.block(set_index{0}, entry_index{w});
        if (!b.valid) {
            s += '-';
            continue;
        }
        s += name_of(b.address.value / repl_test::line_bytes);
        if constexpr (!std::is_same_v<Rrpv, std::nullptr_t>)
            s.append(":").append(std::to_string(rrpv(c, entry_index{w})));
    }
    return s;
}

template <class P>
auto rrpv_reader() {
    return [](const auto& c, entry_index e) { return c.policy().rrpv(set_index{0}, e); };
}

std::uint64_t hits_of(const std::vector<outcome>& v) {
    return repl_test::hits(v);
}

template <class P>
std::vector<outcome> run_example(const typename P::params& p,
                                 const std::vector<std::uint64_t>& lines,
                                 std::vector<std::string>* states = nullptr) {
    set_associative_cache<P> c(one_set, p);
    const auto stream = make_stream(lines);
    std::vector<outcome> out;
    for (const auto& a : stream) {
        const auto r = c.access(a);
        outcome o{.hit = r.hit, .filled = r.filled()};
        if (!r.evictions.empty()) {
            o.evicted = true;
            o.evicted_line = r.evictions[0].address.value / repl_test::line_bytes;
        }
        out.push_back(o);
        if (states) {
            if constexpr (requires { c.policy().rrpv(set_index{0}, entry_index{0}); })
                states->push_back(state_of(c, rrpv_reader<P>()));
            else
                states->push_back(state_of(c, nullptr));
        }
    }
    return out;
}

void check_hits(const std::vector<outcome>& got) {
    REQUIRE(got.size() == hit_pattern.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("step " << i + 1);
        CHECK(got[i].hit == hit_pattern[i]);
    }
}

} // namespace

TEST_CASE("RRIP worked example: SRRIP-HP step-by-step states (computed from the rules)") {
    std::vector<std::string> states;
    const auto out = run_example<srrip>({}, example, &states);
    const std::array<const char*, 10> expected = {
        "a1:2 - - -",          "a1:2 a2:2 - -",       "a1:2 a2:0 - -",       "a1:0 a2:0 - -",
        "a1:0 a2:0 b1:2 -",    "a1:0 a2:0 b1:2 b2:2", "a1:1 a2:1 b3:2 b2:3", "a1:1 a2:1 b3:2 b4:2",
        "a1:0 a2:1 b3:2 b4:2", "a1:0 a2:0 b3:2 b4:2"};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("step " << i + 1);
        CHECK(states[i] == expected[i]);
    }
    check_hits(out);
    CHECK(hits_of(out) == 4);
    CHECK(out[6].evicted_line == b1);
    CHECK(out[7].evicted_line == b2);
}

TEST_CASE("RRIP worked example: LRU and NRU miss a1 and a2 after the scan") {
    const std::vector<bool> lru_nru_hits = {false, false, true,  true,  false,
                                            false, false, false, false, false};
    const auto l = run_example<lru>({}, example);
    std::vector<std::string> nru_states;
    const auto n = run_example<nru>({}, example, &nru_states);
    for (std::size_t i = 0; i < example.size(); ++i) {
        INFO("step " << i + 1);
        CHECK(l[i].hit == lru_nru_hits[i]);
        CHECK(n[i].hit == lru_nru_hits[i]);
    }
    CHECK(hits_of(l) == 2);
    CHECK(hits_of(n) == 2);
    // LRU victims: a2, a1, b1, b2.
    CHECK(l[6].evicted_line == a2);
    CHECK(l[7].evicted_line == a1);
    CHECK(l[8].evicted_line == b1);
    CHECK(l[9].evicted_line == b2);
    // NRU victims: a1 (all bits were 0, set to 1 first), a2, b1, b2; final b3 b4 a1 a2.
    CHECK(n[6].evicted_line == a1);
    CHECK(n[7].evicted_line == a2);
    CHECK(n[8].evicted_line == b1);
    CHECK(n[9].evicted_line == b2);
    CHECK(nru_states.back() == "b3 b4 a1 a2");
}

TEST_CASE("RRIP worked example: 1-bit SRRIP behaves exactly as NRU") {
    const auto one_bit = run_example<srrip>({.rrpv_bits = 1}, example);
    const auto n = run_example<nru>({}, example);
    CHECK(one_bit == n);
}

TEST_CASE("RRIP worked example: SRRIP-FP") {
    std::vector<std::string> states;
    const auto out =
        run_example<srrip>({.promotion = hit_promotion::frequency_priority}, example, &states);
    check_hits(out);
    CHECK(hits_of(out) == 4);
    CHECK(states[3] == "a1:1 a2:1 - -");
    CHECK(states[6] == "a1:2 a2:2 b3:2 b2:3"); // aged to 2 2 at step 7
    CHECK(states.back() == "a1:1 a2:1 b3:2 b4:2");
}

TEST_CASE("RRIP worked example: BRRIP with every insertion distant") {
    for (const auto& p :
         {brrip::params{.long_period = 0}, brrip::params{.source = bimodal_source::counter}}) {
        std::vector<std::string> states;
        const auto out = run_example<brrip>(p, example, &states);
        check_hits(out);
        CHECK(hits_of(out) == 4);
        CHECK(states[6] == "a1:0 a2:0 b3:3 b2:3"); // b3 replaces way 2 without ageing
        CHECK(states.back() == "a1:0 a2:0 b4:3 b2:3");
        CHECK(out[6].evicted_line == b1);
        CHECK(out[7].evicted_line == b3);
    }
}

TEST_CASE("RRIP worked example: OPT 4 hits, b3 evicts b1, b4 evicts b3") {
    for (bool bypass : {false, true}) {
        const auto out = run_example<opt>({.allow_bypass = bypass}, example);
        CHECK(hits_of(out) == 4);
        check_hits(out);
        if (!bypass) {
            CHECK(out[6].evicted_line == b1);
            CHECK(out[7].evicted_line == b3);
        }
    }
}

TEST_CASE("constructed example: thrashing 5-block cycle x4") {
    std::vector<std::uint64_t> cycle;
    for (int r = 0; r < 4; ++r)
        for (std::uint64_t c = 1; c <= 5; ++c) cycle.push_back(100 + c);
    CHECK(hits_of(run_example<lru>({}, cycle)) == 0);
    CHECK(hits_of(run_example<srrip>({}, cycle)) == 0);
    const auto br = run_example<brrip>({.long_period = 0}, cycle);
    CHECK(hits_of(br) == 9);
    // c2, c3, c4 hit at refs 7–9, 12–14, 17–19.
    for (std::size_t i : {6u, 7u, 8u, 11u, 12u, 13u, 16u, 17u, 18u}) CHECK(br[i].hit);
    CHECK(hits_of(run_example<brrip>({.source = bimodal_source::counter}, cycle)) == 9);
    CHECK(hits_of(run_example<opt>({}, cycle)) == 12);
    CHECK(hits_of(run_example<opt>({.allow_bypass = true}, cycle)) == 12);
}

TEST_CASE("constructed example: scan length (RRIP Eq. 1, S <= 6 survives for 2-bit SRRIP)") {
    for (std::uint64_t scan = 1; scan <= 12; ++scan) {
        std::vector<std::uint64_t> lines = {a1, a2, a2, a1};
        for (std::uint64_t i = 0; i < scan; ++i) lines.push_back(200 + i);
        lines.push_back(a1);
        lines.push_back(a2);
        INFO("S = " << scan);
        CHECK(hits_of(run_example<srrip>({}, lines)) == (scan <= 6 ? 4u : 2u));
        const auto l = hits_of(run_example<lru>({}, lines));
        CHECK(l == (scan <= 2 ? 4u : (scan == 3 ? 3u : 2u)));
    }
}
