// The C interface's DRAM controllers (memsub_dram_*) against the C++ controllers they are made
// of: the same request stream, with back-pressure retries, gives the same completions (id,
// cycles, channel, bank, row class) and counters, for each scheduler, row policy and preset;
// configuration errors name the field; calls that break the protocol (time going backwards)
// are refused.
#include <doctest/doctest.h>

#include <memsub/host/memsub_host.h>

#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace mm = memsub::memory;

struct dram_deleter {
    void operator()(memsub_dram* d) const noexcept { memsub_dram_destroy(d); }
};
using dram_ptr = std::unique_ptr<memsub_dram, dram_deleter>;

struct finished {
    std::uint64_t id, address, arrival, selected, data, done;
    std::uint32_t channel, bank;
    bool is_write, from_queue;
    std::uint8_t row;
    friend bool operator==(const finished&, const finished&) = default;
};

/// 6,000 requests, one every 3 cycles, over 64 MiB with a quarter streaming through rows, a
/// third writes, 4 requesters.
std::vector<mm::mem_request> make_requests(std::uint64_t seed) {
    memsub::xoshiro256ss rng(seed);
    std::vector<mm::mem_request> out(6000);
    std::uint64_t stream = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const bool streaming = rng() % 4 == 0;
        const std::uint64_t address = streaming ? (stream += 64) : (rng() % (1u << 26)) & ~63ull;
        out[i] = mm::mem_request{.id = i,
                                 .address = memsub::byte_address{address},
                                 .is_write = rng() % 3 == 0,
                                 .requester = static_cast<std::uint32_t>(rng() % 4),
                                 .arrival_cycle = 3 * i};
    }
    return out;
}

/// Runs the stream through the C handle: a refused request is retried each cycle with its
/// arrival unchanged, later requests wait behind it (in order, as a host's queue would).
std::vector<finished> run_c(memsub_dram* d, const std::vector<mm::mem_request>& requests) {
    std::vector<finished> out;
    auto sink = [](void* context, const memsub_completion* c) {
        static_cast<std::vector<finished>*>(context)->push_back(finished{
            c->id, c->address, c->arrival_cycle, c->selected_cycle, c->data_cycle, c->done_cycle,
            c->channel, c->bank, c->is_write != 0, c->from_queue != 0, c->row_class});
    };
    std::uint64_t now = 0;
    for (const auto& r : requests) {
        memsub_mem_request q{};
        q.id = r.id;
        q.address = r.address.value;
        q.arrival_cycle = r.arrival_cycle;
        q.requester = r.requester;
        q.is_write = r.is_write;
        now = std::max(now, r.arrival_cycle);
        for (;;) {
            REQUIRE(memsub_dram_advance_to(d, now) == MEMSUB_OK);
            REQUIRE(memsub_dram_drain(d, sink, &out, nullptr) == MEMSUB_OK);
            std::uint8_t result = 0xff;
            REQUIRE(memsub_dram_enqueue(d, &q, &result) == MEMSUB_OK);
            if (result == MEMSUB_ENQUEUE_ACCEPTED) break;
            REQUIRE(result == MEMSUB_ENQUEUE_QUEUE_FULL);
            ++now;
        }
    }
    std::uint64_t pending = 1;
    while (memsub_dram_pending(d, &pending) == MEMSUB_OK && pending != 0) {
        std::uint64_t next = 0;
        REQUIRE(memsub_dram_next_event_cycle(d, &next) == MEMSUB_OK);
        now = std::max(now, next);
        REQUIRE(memsub_dram_advance_to(d, now) == MEMSUB_OK);
        REQUIRE(memsub_dram_drain(d, sink, &out, nullptr) == MEMSUB_OK);
    }
    return out;
}

/// The same loop on a C++ controller.
template <class Controller>
std::vector<finished> run_cpp(Controller& c, const std::vector<mm::mem_request>& requests) {
    std::vector<finished> out;
    auto sink = [&](const mm::completion& x) {
        out.push_back(finished{x.id, x.address.value, x.arrival_cycle, x.selected_cycle,
                               x.data_cycle, x.done_cycle, x.channel, x.bank, x.is_write,
                               x.from_queue, static_cast<std::uint8_t>(x.kind)});
    };
    std::uint64_t now = 0;
    for (const auto& r : requests) {
        now = std::max(now, r.arrival_cycle);
        for (;;) {
            c.advance_to(now);
            c.drain(sink);
            if (c.enqueue(r) == mm::enqueue_result::accepted) break;
            ++now;
        }
    }
    while (c.pending() != 0) {
        now = std::max(now, c.next_event_cycle());
        c.advance_to(now);
        c.drain(sink);
    }
    return out;
}

dram_ptr make_c(const memsub_dram_config& config) {
    memsub_dram* d = nullptr;
    memsub_error error{};
    const memsub_status s = memsub_dram_create(&config, &d, &error);
    INFO(std::string(error.message));
    REQUIRE(s == MEMSUB_OK);
    return dram_ptr(d);
}

template <class Controller>
void check_same(const memsub_dram_config& config, Controller cpp) {
    const auto requests = make_requests(42);
    auto c = make_c(config);
    const auto got = run_c(c.get(), requests);
    const auto want = run_cpp(cpp, requests);
    REQUIRE(got.size() == requests.size());
    CHECK(got == want);
    memsub_dram_stats s{};
    REQUIRE(memsub_dram_get_stats(c.get(), &s) == MEMSUB_OK);
    const mm::controller_stats& w = cpp.stats();
    CHECK(s.reads == w.reads);
    CHECK(s.writes == w.writes);
    CHECK(s.by_row_class[0] == w.row_hits());
    CHECK(s.by_row_class[2] == w.row_conflicts());
    CHECK(s.refused == w.refused);
    CHECK(s.refused > 0); // the stream meets back-pressure
    CHECK(s.bytes == w.bytes);
    CHECK(s.latency_max == w.latency.max());
    CHECK(s.latency_mean == doctest::Approx(w.latency.mean()));
    CHECK(s.read_latency_p99 == w.read_latency.percentile(0.99));
}

} // namespace

TEST_CASE("C DRAM controllers complete every request as the C++ controllers they are made of") {
    const auto& d4 = mm::presets::ddr4_2400;
    const auto& d3 = mm::presets::ddr3_1600_remap;
    const auto& hb = mm::presets::hbm2_4gb_x128;
    SUBCASE("default: FR-FCFS, open page, DDR4-2400, rorabgbachco") {
        check_same(memsub_dram_config{},
                   mm::fr_fcfs_controller<>(mm::bit_field_mapping::from_order("rorabgbachco", d4),
                                            {.timing = d4}));
    }
    SUBCASE("FCFS, closed page, DDR3-1600") {
        memsub_dram_config c{};
        c.controller = "fcfs";
        c.row_policy = "closed";
        c.timing = "ddr3_1600";
        using ctl = mm::fcfs_controller<mm::closed_page>;
        check_same(c, ctl(mm::bit_field_mapping::from_order("rorabachco", d3), {.timing = d3}));
    }
    SUBCASE("FR-FCFS, timeout-adaptive, XOR bank hash, 2 channels, another mapping") {
        memsub_dram_config c{};
        c.row_policy = "timeout";
        c.mapping = "rorabgbacoch";
        c.channels = 2;
        c.xor_bank_hash = 1;
        mm::dram_timing t = d4;
        t.channels = 2;
        using ctl = mm::fr_fcfs_controller<mm::timeout_adaptive>;
        check_same(
            c, ctl(mm::bit_field_mapping::from_order("rorabgbacoch", t, 48, true), {.timing = t}));
    }
    SUBCASE("HTA's partitioned controller on HBM2, 4 requester clusters") {
        memsub_dram_config c{};
        c.controller = "partitioned";
        c.timing = "hbm2";
        c.requesters = 4;
        check_same(
            c, mm::partitioned_controller<>(mm::bit_field_mapping::from_order("rorabgbachco", hb),
                                            {.timing = hb, .requesters = 4}));
    }
    SUBCASE("HMC vault controller, 2 vaults") {
        memsub_dram_config c{};
        c.controller = "hmc_vault";
        c.channels = 2;
        mm::dram_timing t = mm::presets::hmc_vault;
        t.channels = 2;
        check_same(c, mm::hmc_vault_controller<>(mm::bit_field_mapping::from_order("rorabachco", t),
                                                 mm::hmc_vault_params(t)));
    }
    SUBCASE("flat memory at DDR4-2400's peak") {
        memsub_dram_config c{};
        c.controller = "flat";
        c.flat_latency_cycles = 60;
        check_same(c, mm::flat_memory(
                          mm::flat_memory::params{.latency_cycles = 60,
                                                  .bytes_per_cycle = d4.peak_gb_per_s() * d4.tck_ns,
                                                  .request_bytes = d4.burst_bytes()}));
    }
}

TEST_CASE("C DRAM controller configuration errors name the field") {
    auto refused = [](memsub_dram_config c, const char* field) {
        memsub_dram* d = nullptr;
        memsub_error error{};
        CHECK(memsub_dram_create(&c, &d, &error) == MEMSUB_CONFIG_ERROR);
        CHECK(d == nullptr);
        CHECK(std::string(error.message).find(field) != std::string::npos);
    };
    memsub_dram_config c{};
    c.controller = "fifo_of_dreams";
    refused(c, "controller");
    c = {};
    c.timing = "ddr9";
    refused(c, "timing");
    c = {};
    c.row_policy = "sometimes";
    refused(c, "row_policy");
    c = {};
    c.controller = "hmc_vault";
    c.row_policy = "open";
    refused(c, "row_policy");
    c = {};
    c.mapping = "rorabgbach"; // no column field
    refused(c, "co");
    c = {};
    c.channels = 3;
    refused(c, "channels");
    c = {};
    c.reserved[1] = 1;
    memsub_dram* d = nullptr;
    CHECK(memsub_dram_create(&c, &d, nullptr) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_dram_create(nullptr, nullptr, nullptr) == MEMSUB_INVALID_ARGUMENT);
}

TEST_CASE("C DRAM controllers refuse time going backwards and report their clock") {
    auto d = make_c(memsub_dram_config{});
    memsub_mem_request q{};
    q.arrival_cycle = 100;
    std::uint8_t result = 0xff;
    REQUIRE(memsub_dram_enqueue(d.get(), &q, &result) == MEMSUB_OK);
    CHECK(result == MEMSUB_ENQUEUE_ACCEPTED);
    q.id = 1;
    q.arrival_cycle = 99;
    CHECK(memsub_dram_enqueue(d.get(), &q, &result) == MEMSUB_INVALID_ARGUMENT);
    q.arrival_cycle = 100;
    q.reserved[0] = 1;
    CHECK(memsub_dram_enqueue(d.get(), &q, &result) == MEMSUB_INVALID_ARGUMENT);
    REQUIRE(memsub_dram_advance_to(d.get(), 50) == MEMSUB_OK);
    CHECK(memsub_dram_advance_to(d.get(), 49) == MEMSUB_INVALID_ARGUMENT);
    std::uint64_t pending = 0;
    REQUIRE(memsub_dram_pending(d.get(), &pending) == MEMSUB_OK);
    CHECK(pending == 1);
    CHECK(memsub_dram_drain(d.get(), nullptr, nullptr, nullptr) == MEMSUB_INVALID_ARGUMENT);
    double tck = 0, peak = 0;
    std::uint32_t channels = 0;
    REQUIRE(memsub_dram_info(d.get(), &tck, &peak, &channels) == MEMSUB_OK);
    CHECK(tck == doctest::Approx(mm::presets::ddr4_2400.tck_ns));
    CHECK(peak == doctest::Approx(mm::presets::ddr4_2400.peak_gb_per_s()));
    CHECK(channels == 1);
    std::uint32_t revision = 0;
    REQUIRE(memsub_host_abi_revision(&revision) == MEMSUB_OK);
    CHECK(revision >= 2);
}
