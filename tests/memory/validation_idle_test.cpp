// Configuration checks that must happen before any conversion (flat_memory's bandwidth,
// dram_timing's clock period), and refresh over long idle gaps: its cost does not grow with
// the gap, and it leaves exactly the state and count of stepping refresh by refresh.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <memsub/memory/all.hpp>

using namespace memsub::memory;

namespace {

std::string config_message(auto&& make) {
    try {
        make();
    } catch (const memsub::config_error& e) {
        return e.what();
    }
    return "(no config_error)";
}

void check_same_banks(const dram_channel& a, const dram_channel& b, std::uint32_t banks) {
    for (std::uint32_t i = 0; i < banks; ++i) {
        CAPTURE(i);
        CHECK(a.bank(i).open_row == b.bank(i).open_row);
        CHECK(a.bank(i).close_at == b.bank(i).close_at);
        CHECK(a.bank(i).act_ready == b.bank(i).act_ready);
        CHECK(a.bank(i).pre_ready == b.bank(i).pre_ready);
        CHECK(a.bank(i).col_ready == b.bank(i).col_ready);
        CHECK(a.bank(i).closed_row == b.bank(i).closed_row);
    }
}

dram_timing per_bank_two_ranks() {
    dram_timing t = presets::hbm2_4gb_x128;
    t.refresh = refresh_mode::per_bank;
    t.tRFCsb = 160;
    t.ranks = 2;
    t.bank_groups = 2; // 2 ranks x 2 groups x 4 banks = 16 banks per channel
    return t;
}

} // namespace

TEST_CASE("flat_memory rejects a bandwidth that is not a finite positive number") {
    for (const double bad :
         {std::nan(""), -1.0, 0.0, 1e30, std::numeric_limits<double>::infinity()}) {
        CAPTURE(bad);
        const std::string m = config_message([&] {
            flat_memory(flat_memory::params{.latency_cycles = 100, .bytes_per_cycle = bad});
        });
        CHECK(m.find("bytes_per_cycle") != std::string::npos);
        CHECK(m.find("(no config_error)") == std::string::npos);
    }
    // The message shows the value given, not its integer conversion.
    CHECK(config_message([] {
              flat_memory(flat_memory::params{.bytes_per_cycle = -1.0});
          }).find("= -1 ") != std::string::npos);
    CHECK(config_message([] {
              flat_memory(flat_memory::params{.bytes_per_cycle = 1e30});
          }).find("= 1e+30 ") != std::string::npos);
    CHECK_NOTHROW(flat_memory(flat_memory::params{.latency_cycles = 200, .bytes_per_cycle = 0.5}));
}

TEST_CASE("dram_timing rejects a clock period that is not finite and positive, and names it") {
    for (const double bad : {std::numeric_limits<double>::infinity(), std::nan(""), 0.0, -1.25}) {
        CAPTURE(bad);
        dram_timing t = presets::ddr4_2400;
        t.tck_ns = bad;
        const std::string m = config_message([&] { t.validate(); });
        CHECK(m.find("tck_ns") != std::string::npos);
        CHECK(m.find("(no config_error)") == std::string::npos);
        if (bad != 0.0) CHECK(m.find("tck_ns = 0 ") == std::string::npos); // the real value
        CHECK_THROWS_AS(
            fr_fcfs_controller<>(bit_field_mapping::from_order("rorabgbachco", presets::ddr4_2400),
                                 {.timing = t}),
            memsub::config_error);
    }
    dram_timing t = presets::ddr4_2400;
    t.tck_ns = std::numeric_limits<double>::infinity();
    CHECK(config_message([&] { t.validate(); }).find("tck_ns = inf ") != std::string::npos);
    t.tck_ns = -1.25;
    CHECK(config_message([&] { t.validate(); }).find("tck_ns = -1.25 ") != std::string::npos);
}

TEST_CASE("refresh over a long idle gap equals stepping it refresh by refresh") {
    for (const dram_timing& t :
         {presets::ddr4_2400, presets::hbm2_4gb_x128, per_bank_two_ranks()}) {
        CAPTURE(t.name);
        dram_channel jumped(t), stepped(t);
        // Gaps of a few intervals (no fast-forward), then long ones (fast-forward), with odd
        // phases so every slot and rank is the last one refreshed somewhere.
        std::uint64_t now = 0, total_jumped = 0, total_stepped = 0;
        const std::uint64_t tREFI = t.tREFI;
        for (const std::uint64_t gap : std::array<std::uint64_t, 6>{
                 1, tREFI / 3, 3 * tREFI + 17, 1'000'003, tREFI + 1, 77'777'777}) {
            const std::uint64_t target = now + gap;
            total_jumped += jumped.refresh_until(target);
            for (std::uint64_t s = now + t.tREFI / 2; s < target; s += t.tREFI / 2)
                total_stepped += stepped.refresh_until(s);
            total_stepped += stepped.refresh_until(target);
            now = target;
            CHECK(total_jumped == total_stepped);
            CHECK(jumped.next_refresh() == stepped.next_refresh());
            check_same_banks(jumped, stepped, t.banks_per_channel());
        }
    }
}

TEST_CASE("an idle gap of 2^40 cycles costs no more than a short one" * doctest::timeout(2.0)) {
    // HBM2 with per-bank refresh: 2^40 cycles hold 2^40 / 3900 x 16 = 4.5e9 REFSB commands,
    // tens of seconds when stepped one by one (the memory explorer with --access-ns 1e12).
    dram_timing t = presets::hbm2_4gb_x128;
    t.refresh = refresh_mode::per_bank;
    t.tRFCsb = 160;
    const auto map = bit_field_mapping::from_order("rorabgbachco", t);
    fr_fcfs_controller<> c(map, {.timing = t});
    const std::uint64_t late = std::uint64_t{1} << 40;
    REQUIRE(c.enqueue(
                mem_request{.id = 1, .address = memsub::byte_address{0}, .arrival_cycle = late}) ==
            enqueue_result::accepted);
    for (std::uint64_t next; (next = c.next_event_cycle()) != memsub::never;) c.advance_to(next);
    completion done{};
    REQUIRE(c.drain(std::span<completion>(&done, 1)) == 1);
    CHECK(done.id == 1);
    // Every refresh due up to the request's selection is counted: per channel, one per slot
    // of 3900 / 16 cycles (the request's own channel refreshes; idle channels never run).
    const std::uint64_t per_channel = (done.selected_cycle * 16 - 16 + 1) / 3900;
    CHECK(c.stats().refreshes >= per_channel - 2);
    CHECK(c.stats().refreshes <= per_channel + 2);
    // The latency is the few hundred cycles of a row miss, not the gap.
    CHECK(done.done_cycle - done.arrival_cycle < 1000);
}
