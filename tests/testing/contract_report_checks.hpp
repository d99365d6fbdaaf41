// What the contract-check tests of tests/testing/ ask of a memsub::testing::contract_report:
// that it names a given violation, or that a type passed every pass cleanly. A failing check
// shows the whole report.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <string_view>

#include <memsub/testing/contract_report.hpp>

namespace memsub_test {

/// The report has a violation of `check` whose rule starts with `rule`.
inline bool fails_with(const memsub::testing::contract_report& r, std::string_view check,
                       std::string_view rule) {
    INFO(r.text());
    for (const auto& v : r.violations)
        if (v.check == check && v.rule.starts_with(rule)) return true;
    return false;
}

/// The report has no violation and `passes` passes, each run to its end.
inline void check_clean_pass(const memsub::testing::contract_report& r, std::size_t passes) {
    INFO(r.text());
    CHECK(r.ok());
    REQUIRE(r.passes.size() == passes);
    for (const auto& p : r.passes) CHECK(p.status == memsub::testing::pass_status::completed);
}

} // namespace memsub_test
