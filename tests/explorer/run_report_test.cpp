// The module's shared command-line and run steps (memsub/explorer/cli.hpp, run_report.hpp): the
// argument walk, name lists, the run loop that stops at a signal and the exit statuses.
#include <doctest/doctest.h>

#include <array>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/run_report.hpp>
#include <memsub/explorer/signals.hpp>

using namespace memsub::explorer;

TEST_CASE("option_reader: options in order, values consumed, a missing value named") {
    option_reader r({"--sets", "64", "trace.din", "--ways"});
    REQUIRE(r.next());
    CHECK(r.arg() == "--sets");
    CHECK(r.value() == "64");
    REQUIRE(r.next());
    CHECK(r.arg() == "trace.din");
    CHECK(r.position() == 2);
    REQUIRE(r.next());
    CHECK(r.arg() == "--ways");
    CHECK_THROWS_WITH_AS(r.value(), "--ways needs a value", option_error);
    CHECK_FALSE(r.next());
}

TEST_CASE("parse_known_names: names in order; unknown and empty lists named") {
    constexpr std::array<std::string_view, 3> known{"bfs", "spmv", "kmeans"};
    CHECK(parse_known_names("--kernels", "spmv,bfs", known, "kernel") ==
          std::vector<std::string>{"spmv", "bfs"});
    CHECK_THROWS_WITH_AS(parse_known_names("--kernels", "bfs,foo", known, "kernel"),
                         "--kernels: unknown kernel 'foo' (bfs, spmv, kmeans)", option_error);
    CHECK_THROWS_WITH_AS(parse_known_names("--kernels", "", known, "kernel"),
                         "--kernels needs at least one kernel", option_error);
    // A repeated name runs once, at its first place.
    CHECK(parse_known_names("--kernels", "spmv,bfs,spmv,bfs", known, "kernel") ==
          std::vector<std::string>{"spmv", "bfs"});
    CHECK(without_repeats(std::vector<int>{4, 2, 4, 1, 2}) == std::vector<int>{4, 2, 1});
}

TEST_CASE("run_until_stopped: runs each workload until a stop signal, then names the rest") {
    std::vector<std::size_t> ran;
    const auto none_left = run_until_stopped(
        3, [&](std::size_t i) { ran.push_back(i); },
        [](std::size_t i) { return "w" + std::to_string(i); });
    CHECK(ran == std::vector<std::size_t>{0, 1, 2});
    CHECK(none_left.empty());

    ran.clear();
    const auto not_run = run_until_stopped(
        4,
        [&](std::size_t i) {
            ran.push_back(i);
            if (i == 1) detail::record_stop_signal(SIGTERM); // as the handler records it
        },
        [](std::size_t i) { return "w" + std::to_string(i); });
    detail::stop_signal = 0;
    CHECK(ran == std::vector<std::size_t>{0, 1});
    CHECK(not_run == std::vector<std::string>{"w2", "w3"});
    CHECK(report_interruption("t", SIGTERM, not_run, "trace") == 128 + SIGTERM);
    CHECK(report_interruption("t", 0, not_run) == 0);
}

TEST_CASE("run_reporting_errors: what escapes a run maps to its exit status") {
    const std::string use = "testing";
    CHECK(run_reporting_errors("t", use, [] { return 3; }) == 3);
    CHECK(run_reporting_errors("t", use, []() -> int {
              throw memsub::config_error("c", "p", std::uint64_t{1}, "must be 2");
          }) == 2);
    CHECK(run_reporting_errors("t", use, []() -> int { throw std::bad_alloc(); }) == 4);
    CHECK(run_reporting_errors("t", use, []() -> int { throw std::runtime_error("x"); }) == 1);
    CHECK(outputs_writable_or_report("t", [] {}));
    CHECK_FALSE(outputs_writable_or_report("t", [] { throw option_error("--csv x: no"); }));
}
