// ReMAP's MAC table (Table 2.2 rules), the flat-latency memory, and the latency histogram
// (percentiles against exact order statistics).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>

#include "helpers.hpp"

using memsub::byte_address;
using namespace memsub::memory;

TEST_CASE("MAC table classes follow Table 2.2's rules") {
    mac_table m(mac_table::params{.banks = 8, .row_bits = 16, .window = 0});
    // Fresh bank: no previous row, so a row miss: class 2 without, 3 with pending requests.
    CHECK(m.estimate(0, 5, 0) == 2);
    CHECK(m.estimate(0, 5, 1) == 3);
    m.record(0, 5);
    CHECK(m.estimate(0, 5, 0) == 0); // no conflict, row hit
    CHECK(m.estimate(0, 6, 0) == 2); // no conflict, row miss
    CHECK(m.estimate(0, 5, 2) == 3); // conflict, but the row before previous is unknown
    m.record(0, 5);
    CHECK(m.estimate(0, 5, 2) == 1); // conflict, row == previous == the one before
    CHECK(m.estimate(0, 7, 2) == 3); // conflict, row miss
    m.record(0, 7);
    CHECK(m.previous_row(0) == 7);
    CHECK(m.row_before_previous(0) == 5);
    CHECK(m.estimate(0, 7, 1) == 3); // previous two differ
    CHECK(m.estimate(0, 7, 0) == 0);
    // Banks are independent.
    CHECK(m.estimate(1, 7, 0) == 2);
}

TEST_CASE("MAC table: the pending count is approximated from the last Q references") {
    mac_table m(mac_table::params{.banks = 4, .row_bits = 16, .window = 4});
    m.record(2, 9);
    CHECK(m.approximate_pending(2) == 1);
    CHECK(m.estimate(2, 9) == 3); // bank 2 is "busy" (1 of the last 4), previous two differ
    m.record(2, 9);
    CHECK(m.estimate(2, 9) == 1); // busy, row == previous == before
    for (int i = 0; i < 4; ++i) m.record(1, 1);
    CHECK(m.approximate_pending(2) == 0); // slid out of the window
    CHECK(m.approximate_pending(1) == 4);
    CHECK(m.estimate(2, 9) == 0);
    CHECK(m.estimate(2, 8) == 2);
    // Per bank two 16-bit rows and a counter of 0..4 (3 bits); a 4-entry history of 2-bit ids.
    CHECK(m.storage_bits() == 4 * (2 * 16 + 3) + 4 * 2);
}

TEST_CASE("MAC table with a controller: pending = requests queued at the bank") {
    dram_timing t = presets::ddr3_1600_remap;
    const auto map = bit_field_mapping::from_order("rorabachco", t);
    fr_fcfs_controller<> c(map, {.timing = t});
    auto mac = mac_table::for_organisation(map.organisation());
    CHECK(mac.banks() == 8);
    const byte_address a = map.unmap({.bank = 3, .row = 4});
    const byte_address b = map.unmap({.bank = 3, .row = 5});
    // Two requests to bank 3 arrive in the same cycle: one is selected, one keeps waiting.
    CHECK(c.enqueue(memtest::read_at(0, a, 10)) == enqueue_result::accepted);
    CHECK(c.enqueue(memtest::read_at(1, b, 10)) == enqueue_result::accepted);
    c.advance_to(10);
    CHECK(c.queued_at(a) == 1);
    const auto d = map.map(a);
    mac.record(mac_table::bank_id(d, map.organisation()), d.row);
    CHECK(mac.estimate(mac_table::bank_id(d, map.organisation()), d.row, c.queued_at(a)) == 3);
    CHECK(mac.estimate(mac_table::bank_id(d, map.organisation()), d.row, 0) == 0);
}

TEST_CASE("flat memory: constant latency, bandwidth-limited pipe") {
    flat_memory f(flat_memory::params{
        .latency_cycles = 100, .bytes_per_cycle = 16.0, .request_bytes = 64, .capacity = 64});
    std::vector<mem_request> reqs;
    for (std::uint64_t i = 0; i < 40; ++i)
        reqs.push_back(memtest::read_at(i, byte_address{i * 64}, 10));
    const auto out = memtest::run(f, reqs);
    REQUIRE(out.size() == 40);
    // 64 B at 16 B/cycle = 4 cycles each: the i-th starts at 10 + 4i.
    for (std::uint64_t i = 0; i < 40; ++i) {
        CHECK(out[i].id == i);
        CHECK(out[i].selected_cycle == 10 + 4 * i);
        CHECK(out[i].done_cycle == 10 + 4 * i + 100);
    }
    CHECK(f.stats().completed() == 40);
    CHECK(f.stats().latency.max() == 100 + 4 * 39);
    CHECK(f.stats().queueing.min() == 0);
    // Sparse requests see the bare latency.
    flat_memory g;
    const auto one = memtest::run(g, {memtest::read_at(7, byte_address{0}, 1234)});
    CHECK(one[0].latency() == 100);
    CHECK_THROWS_AS(flat_memory(flat_memory::params{.bytes_per_cycle = 0.0}), memsub::config_error);
    // The latency includes the transfer: 64 B at 1 B/cycle cannot finish in 10 cycles.
    CHECK_THROWS_AS(flat_memory(flat_memory::params{.latency_cycles = 10, .bytes_per_cycle = 1.0}),
                    memsub::config_error);
    static_assert(memory_controller<flat_memory>);
}

TEST_CASE("flat memory: fractional pipe occupancy (64 B at 24 B/cycle = 2.67 cycles, not 3)") {
    flat_memory f(flat_memory::params{
        .latency_cycles = 50, .bytes_per_cycle = 24.0, .request_bytes = 64, .capacity = 1024});
    std::vector<mem_request> reqs;
    for (std::uint64_t i = 0; i < 900; ++i)
        reqs.push_back(memtest::read_at(i, byte_address{i * 64}, 0));
    const auto out = memtest::run(f, reqs);
    // 900 requests take 900 · 8/3 = 2400 cycles of pipe (whole-cycle rounding would take 2700).
    const std::uint64_t last_start = out.back().selected_cycle;
    CHECK(last_start >= 899 * 8 / 3);
    CHECK(last_start <= 899 * 8 / 3 + 1);
    CHECK(f.stats().bandwidth_utilisation() <= 1.0);
    CHECK(f.stats().bandwidth_utilisation() > 0.97);
    CHECK(f.stats().data_bus_cycles == 2400);
}

TEST_CASE("flat memory: a retried request with an old arrival never completes in the past") {
    flat_memory f(flat_memory::params{.latency_cycles = 100, .bytes_per_cycle = 64.0});
    f.advance_to(5000);
    REQUIRE(f.enqueue(memtest::read_at(1, byte_address{0}, 10)) == enqueue_result::accepted);
    CHECK(f.next_event_cycle() == 5100);
    f.advance_to(5100);
    std::vector<completion> got;
    f.drain([&](const completion& c) { got.push_back(c); });
    REQUIRE(got.size() == 1);
    CHECK(got[0].selected_cycle == 5000);
    CHECK(got[0].done_cycle == 5100);
    CHECK(got[0].queueing_delay() == 4990); // the wait before the retry counts as queueing
}

// The pipe's times once lived in one 64-bit word of 1/65536 cycles, which overflowed from
// cycle 2^48 on (4e14 ns at the memory explorer's 1 GHz flat clock): latencies of 1.8e19 cycles.
TEST_CASE("flat memory: exact at any 64-bit cycle, past the 2^48 of a fixed-point word") {
    for (const std::uint64_t base : {std::uint64_t{400'000'000'000'000}, std::uint64_t{1} << 48,
                                     std::uint64_t{1} << 62, std::uint64_t{1} << 63}) {
        CAPTURE(base);
        // 64 B at 12.8 B/cycle occupy the pipe 5 cycles: a lone request sees the bare latency,
        // two together queue by 5 cycles.
        flat_memory f(flat_memory::params{.latency_cycles = 45, .bytes_per_cycle = 12.8});
        const auto out = memtest::run(f, {memtest::read_at(0, byte_address{0}, base),
                                          memtest::read_at(1, byte_address{64}, base + 1000),
                                          memtest::read_at(2, byte_address{128}, base + 1000)});
        REQUIRE(out.size() == 3);
        CHECK(out[0].selected_cycle == base);
        CHECK(out[0].done_cycle == base + 45);
        CHECK(out[1].selected_cycle == base + 1000);
        CHECK(out[2].selected_cycle == base + 1005);
        CHECK(out[2].latency() == 50);
        CHECK(f.stats().latency.max() == 50);
        CHECK(f.stats().data_bus_cycles == 15);
        // Fractional occupancy (64 B at 24 B/cycle = 2.67 cycles) carried across whole cycles.
        flat_memory g(flat_memory::params{.latency_cycles = 50, .bytes_per_cycle = 24.0});
        std::vector<mem_request> together;
        for (std::uint64_t i = 0; i < 4; ++i)
            together.push_back(memtest::read_at(i, byte_address{i * 64}, base - 1));
        const auto fine = memtest::run(g, together);
        REQUIRE(fine.size() == 4);
        CHECK(fine[1].selected_cycle == base - 1 + 3); // 2.67 rounded up
        CHECK(fine[2].selected_cycle == base - 1 + 6); // 5.33
        // 8 cycles and 3/65536 (each occupancy is rounded up to 1/65536 cycle)
        CHECK(fine[3].selected_cycle == base - 1 + 9);
        CHECK(g.stats().data_bus_cycles == 10); // 4 x 2.67 = 10.67
    }
}

TEST_CASE("latency histogram: percentiles within the bucket resolution of exact order statistics") {
    memsub::xoshiro256ss rng(3);
    for (int dist = 0; dist < 3; ++dist) {
        latency_histogram h;
        std::vector<std::uint64_t> v;
        for (int i = 0; i < 50000; ++i) {
            std::uint64_t x = 0;
            if (dist == 0)
                x = rng() % 50; // exact range
            else if (dist == 1)
                x = 20 + rng() % 2000; // uniform
            else
                x = static_cast<std::uint64_t>(
                    std::exp(static_cast<double>(rng() % 1000) / 60.0)); // heavy tail
            v.push_back(x);
            h.record(x);
        }
        std::sort(v.begin(), v.end());
        for (double q : {0.5, 0.9, 0.95, 0.99, 1.0}) {
            const auto rank =
                static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
            const std::uint64_t exact = v[std::max<std::size_t>(rank, 1) - 1];
            const std::uint64_t got = h.percentile(q);
            CAPTURE(dist);
            CAPTURE(q);
            CHECK(static_cast<double>(got) >= static_cast<double>(exact) * (1 - 1.0 / 32) - 1);
            CHECK(static_cast<double>(got) <= static_cast<double>(exact) * (1 + 1.0 / 32) + 1);
            if (dist == 0) CHECK(got == exact);
        }
        double sum = 0;
        for (auto x : v) sum += static_cast<double>(x);
        CHECK(h.mean() == doctest::Approx(sum / static_cast<double>(v.size())));
        CHECK(h.max() == v.back());
        CHECK(h.min() == v.front());
    }
    // Bucket arithmetic: every value lies in its bucket.
    for (std::uint64_t x : {0ull, 63ull, 64ull, 65ull, 1000ull, 123456789ull, ~0ull}) {
        const auto b = latency_histogram::bucket_of(x);
        CHECK(latency_histogram::bucket_low(b) <= x);
        CHECK(x - latency_histogram::bucket_low(b) < latency_histogram::bucket_width(b));
    }
}

namespace {
// Negative archetypes: each misses one requirement of a concept.
struct no_unmap {
    memsub::memory::dram_address map(byte_address) const noexcept { return {}; }
    const memsub::memory::dram_organisation& organisation() const { return o; }
    memsub::memory::dram_organisation o;
};
struct throwing_map {
    memsub::memory::dram_address map(byte_address) const { return {}; } // not noexcept
    byte_address unmap(const memsub::memory::dram_address&) const noexcept { return {}; }
    const memsub::memory::dram_organisation& organisation() const { return o; }
    memsub::memory::dram_organisation o;
};
struct no_next_event {
    struct params {};
    enqueue_result enqueue(const mem_request&) noexcept { return enqueue_result::accepted; }
    bool can_accept(const mem_request&) const noexcept { return true; }
    void advance_to(std::uint64_t) noexcept {}
    template <class S>
    std::size_t drain(S&&) {
        return 0;
    }
    std::size_t drain(std::span<completion>) noexcept { return 0; }
    const controller_stats& stats() const noexcept { return s; }
    std::size_t pending() const noexcept { return 0; }
    std::string_view name() const { return "x"; }
    controller_stats s;
};
} // namespace

TEST_CASE("concepts accept memsub's types and reject incomplete ones") {
    static_assert(address_mapping<bit_field_mapping>);
    static_assert(invertible_address_mapping<bit_field_mapping>);
    // A mapping without unmap serves a controller (MI1 is the invertible refinement's).
    static_assert(address_mapping<no_unmap> && !invertible_address_mapping<no_unmap>);
    static_assert(!address_mapping<throwing_map>);
    static_assert(memory_controller<flat_memory>);
    static_assert(memory_controller<fr_fcfs_controller<>>);
    static_assert(memory_controller<fcfs_controller<closed_page>>);
    static_assert(memory_controller<partitioned_controller<timeout_adaptive>>);
    static_assert(!memory_controller<no_next_event>);
    static_assert(row_policy<open_page> && row_policy<closed_page> && row_policy<timeout_adaptive>);
    static_assert(request_scheduler<fcfs> && request_scheduler<fr_fcfs>);
    static_assert(!row_policy<fcfs>);
}

TEST_CASE("latency histogram: no overflow - huge latencies keep their percentiles") {
    // An unstable queue's latencies grow without bound; percentiles must follow them rather
    // than stop at some histogram maximum.
    latency_histogram h;
    for (std::uint64_t i = 1; i <= 1000; ++i) h.record(i << 40); // up to ~2^50
    h.record(std::uint64_t{1} << 62);
    const auto within = [](std::uint64_t got, std::uint64_t want) {
        const double rel = std::abs(static_cast<double>(got) - static_cast<double>(want)) /
                           static_cast<double>(want);
        return rel <= 1.0 / 32;
    };
    CHECK(within(h.percentile(0.50), std::uint64_t{500} << 40));
    CHECK(within(h.percentile(0.95), std::uint64_t{951} << 40));
    CHECK(within(h.percentile(0.99), std::uint64_t{991} << 40));
    CHECK(h.percentile(0.95) < h.percentile(0.99));
    CHECK(h.percentile(1.0) == std::uint64_t{1} << 62);
    CHECK(h.max() == std::uint64_t{1} << 62);
    CHECK(latency_histogram::bucket_of(~std::uint64_t{0}) == latency_histogram::bucket_count - 1);
}
