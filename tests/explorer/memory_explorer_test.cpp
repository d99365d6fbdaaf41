// The memory explorer's numbers at the edges of its options: a fast reference clock still runs
// every access, the CDF's points stay within the latencies recorded, a controller's rejection
// is a trace error rather than an escape, and the LLC's size is labelled in the unit it is in.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <memsub/explorer/run_memory_explorer.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

namespace fs = std::filesystem;
namespace me = memsub::explorer::memory_explorer_detail;

/// Runs run_memory_explorer on a text trace of `addresses` (one line each) with `extra`
/// options, in a folder of its own; returns the exit status and the CSV's rows.
std::pair<int, std::vector<std::map<std::string, std::string>>>
run_on_trace(const std::vector<std::uint64_t>& addresses, std::vector<std::string> extra,
             const std::string& folder) {
    const fs::path dir = fs::temp_directory_path() / folder;
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path trace = dir / "t.txt";
    {
        std::ofstream out(trace);
        for (const auto a : addresses) out << "0x" << std::hex << a << " R\n";
    }
    std::vector<std::string> args{"memory_explorer",       "--quiet", "--cdf", "", "--csv",
                                  (dir / "m.csv").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(trace.string());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    const int status =
        memsub::explorer::run_memory_explorer<>(static_cast<int>(argv.size()), argv.data());
    auto rows = csv_table_of(dir / "m.csv");
    fs::remove_all(dir);
    return {status, std::move(rows)};
}

} // namespace

TEST_CASE("run_memory_explorer: a trace at --access-ns 0.25 runs every access") {
    // 1e19 ns / 0.25 ns is past 2^64 references: the limit saturates instead of converting
    // out of range (undefined; 0 on x86, which stopped the run before its first access).
    std::vector<std::uint64_t> addresses;
    for (std::uint64_t i = 0; i < 100; ++i) addresses.push_back(i * 64);
    const auto [status, rows] = run_on_trace(
        addresses, {"--access-ns", "0.25", "--configs", "flat"}, "memsub_memx_fast_clock");
    CHECK(status == 0);
    REQUIRE(!rows.empty());
    for (const auto& row : rows) {
        CHECK(row.at("llc_accesses") == "100");
        CHECK(row.at("partial") == "0");
    }
    CHECK(me::references_fitting(0.25) == std::numeric_limits<std::uint64_t>::max());
    CHECK(me::references_fitting(1e-300) == std::numeric_limits<std::uint64_t>::max());
    CHECK(me::references_fitting(1e12) == 10'000'000);
}

TEST_CASE("run_memory_explorer: no CDF point lies beyond the largest latency recorded") {
    // 20 requests at once on the flat memory queue behind each other: latencies up to about 145
    // cycles, where the histogram's buckets are 4 cycles wide. The last point is the largest
    // latency itself, not the upper end of the bucket holding it.
    const auto r = me::make_runner("flat", 1);
    REQUIRE(r != nullptr);
    std::vector<me::mem_event> events;
    for (std::uint64_t i = 0; i < 20; ++i)
        events.push_back({.t_ns = 0.0,
                          .address = memsub::byte_address{i * 64},
                          .write = false,
                          .requester = 0,
                          .access = i + 1});
    CHECK_FALSE(r->feed(events).has_value());
    r->finish();
    const auto& h = r->stats().latency;
    REQUIRE(h.count() == 20);
    REQUIRE(h.max() >= 128); // in a bucket wider than one cycle
    const auto points = me::cdf_points(*r);
    REQUIRE(!points.empty());
    for (const auto& [x, f] : points) CHECK(x <= me::ns(*r, h.max()));
    CHECK(points.back().first == me::ns(*r, h.max()));
    CHECK(points.back().second == 1.0);
}

TEST_CASE("run_memory_explorer: a controller's rejection is reported, not thrown") {
    // hbm2-pmc with 2 requesters cannot take requester 5's request: the runner drops it and
    // names the access it came from, for the run to stop as at a bad trace record.
    const auto r = me::make_runner("hbm2-pmc", 2);
    REQUIRE(r != nullptr);
    const std::vector<me::mem_event> events{{.t_ns = 1.0,
                                             .address = memsub::byte_address{0x40},
                                             .write = false,
                                             .requester = 1,
                                             .access = 6},
                                            {.t_ns = 2.0,
                                             .address = memsub::byte_address{0x80},
                                             .write = false,
                                             .requester = 5,
                                             .access = 7}};
    std::optional<std::string> rejected;
    CHECK_NOTHROW(rejected = r->feed(events));
    REQUIRE(rejected.has_value());
    CHECK(rejected->find("access 7") != std::string::npos);
    r->finish();
    CHECK(r->stats().completed() == 1);
}

TEST_CASE("run_memory_explorer: the LLC's size is labelled KiB, or B below a whole KiB") {
    CHECK(me::capacity_label(std::uint64_t{1} << 20) == "1024 KiB");
    CHECK(me::capacity_label(512) == "512 B");
    CHECK(me::capacity_label(1536) == "1536 B");
}
