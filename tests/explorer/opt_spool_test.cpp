// The explorer's OPT line stream (memsub/explorer/opt_spool.hpp): spilled to a temporary file or
// kept in memory, it replays the same words with the same next uses as the library's in-memory
// next_use_positions; a replay stopped by its progress tick (a stop signal) says so; and the
// progress meter's time text.
#include <doctest/doctest.h>

#include <memsub/core/access.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/replacement/next_use.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <memsub/explorer/opt_spool.hpp>
#include <memsub/explorer/progress.hpp>

using memsub::explorer::opt_spool;

namespace {

/// A seeded stream of references, some crossing a line, some writes.
std::vector<memsub::access> references(std::size_t n, std::uint64_t seed) {
    memsub::xoshiro256ss rng(seed);
    std::vector<memsub::access> v(n);
    for (auto& a : v) {
        const auto r = rng();
        a.address = memsub::byte_address{(r % 20000) * 8};
        a.size = (r >> 40) % 4 == 0 ? 64 : 8; // 64 bytes from an 8-byte boundary crosses a line
        a.kind = (r >> 50) % 3 == 0 ? memsub::access_kind::store : memsub::access_kind::load;
    }
    return v;
}

/// Replays `spool`, collecting (word, next use); stops after `stop_after` ticks.
std::vector<std::pair<std::uint64_t, std::uint64_t>>
replayed(opt_spool& spool, bool* completed = nullptr, std::size_t stop_after = ~std::size_t{0}) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    std::size_t ticks = 0;
    double last = 0;
    bool rising = true;
    const bool done =
        spool.replay([&](std::uint64_t w, std::uint64_t next) { out.emplace_back(w, next); },
                     [&](double fraction) {
                         rising = rising && fraction > last && fraction <= 1.0;
                         last = fraction;
                         return ++ticks < stop_after;
                     });
    CHECK(rising);
    if (done) CHECK(last == 1.0);
    if (completed != nullptr) *completed = done;
    return out;
}

} // namespace

TEST_CASE("opt_spool: spilled and in-memory replays equal the reference next uses") {
    const auto refs = references(3 * opt_spool::block_words / 2 + 12345, 5);
    opt_spool in_memory(std::uint64_t{1} << 40); // never spills
    opt_spool spilled(0);                        // spills after one block of words
    for (const auto& a : refs) {
        in_memory.add(a, 6);
        spilled.add(a, 6);
    }
    CHECK_FALSE(in_memory.spilled());
    CHECK(spilled.spilled());
    REQUIRE(in_memory.lines() == spilled.lines());
    REQUIRE(in_memory.lines() > refs.size()); // some references cross a line
    CHECK(spilled.references() == refs.size());

    // The reference: every line of every reference, in order, its flags, and next uses from
    // the library's next_use_positions.
    std::vector<std::uint64_t> words;
    for (const auto& a : refs) {
        const std::uint64_t first = a.address.value >> 6,
                            last = (a.address.value + a.size - 1) >> 6;
        for (std::uint64_t l = first; l <= last; ++l)
            words.push_back(l | (memsub::is_write(a.kind) ? opt_spool::write_flag : 0) |
                            (l != first ? opt_spool::continues_flag : 0));
    }
    std::vector<memsub::line_address> lines;
    for (const auto w : words) lines.push_back(memsub::line_address{w & opt_spool::line_mask});
    const auto next = memsub::replacement::next_use_positions(lines);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> expected;
    for (std::size_t i = 0; i < words.size(); ++i) expected.emplace_back(words[i], next[i]);
    CHECK(replayed(in_memory) == expected);
    CHECK(replayed(spilled) == expected);
}

TEST_CASE("opt_spool: a replay stopped by its tick says so and stops early") {
    const auto refs = references(3 * opt_spool::block_words / 2, 7);
    opt_spool in_memory(std::uint64_t{1} << 40), spilled(0);
    for (const auto& a : refs) {
        in_memory.add(a, 6);
        spilled.add(a, 6);
    }
    for (opt_spool* spool : {&in_memory, &spilled}) {
        bool completed = true;
        const auto out = replayed(*spool, &completed, 2); // stop at the second tick
        CHECK_FALSE(completed);
        CHECK(out.size() < spool->lines());
        completed = false;
        CHECK(replayed(*spool, &completed).size() == spool->lines()); // not used up by a stop
        CHECK(completed);
    }
}

TEST_CASE("progress_meter: the time left reads as seconds, minutes or hours") {
    using memsub::explorer::progress_meter;
    CHECK(progress_meter::duration_text(0.2) == "0 s");
    CHECK(progress_meter::duration_text(42.4) == "42 s");
    CHECK(progress_meter::duration_text(185) == "3 min 5 s");
    CHECK(progress_meter::duration_text(7800) == "2 h 10 min");
    CHECK(progress_meter::duration_text(-5) == "0 s");
}
