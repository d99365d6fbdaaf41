// The sample traces shipped in tests/data, opened by detection as a user would.
#include "../support/data_dir.hpp"
#include "trace_test_util.hpp"

#include <memsub/trace/all.hpp>

#include <string>
#include <vector>

using memsub::access_kind;
using namespace memsub::trace;

namespace {
std::filesystem::path data(const char* leaf) {
    return std::filesystem::path(memsub_test::data_dir()) / leaf;
}
struct rec {
    std::uint64_t address;
    access_kind kind;
    std::uint32_t size;
};
std::vector<rec> collect(any_reader& r) {
    std::vector<rec> v;
    for_each_access(r, [&](const memsub::access& a) {
        v.push_back({a.address.value, a.kind, a.size});
    });
    return v;
}
void check_equal(const std::vector<rec>& got, const std::vector<rec>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i].address == want[i].address);
        CHECK(got[i].kind == want[i].kind);
        CHECK(got[i].size == want[i].size);
    }
}
} // namespace

TEST_CASE("sample.din") {
    CHECK(detect_format(data("sample.din")) == trace_format::din);
    any_reader r = open_trace(data("sample.din"));
    check_equal(collect(r), {{0x7fff0010, access_kind::load, 8},
                             {0x7fff0018, access_kind::store, 8},
                             {0x600000, access_kind::load, 4},
                             {0x7fff0020, access_kind::load, 4}});
    CHECK(instructions(r) == 2);
    CHECK(std::get<dinero_reader>(r).skipped() == 1);
}

TEST_CASE("sample_addresses.txt") {
    CHECK(detect_format(data("sample_addresses.txt")) == trace_format::text);
    any_reader r = open_trace(data("sample_addresses.txt"));
    check_equal(collect(r), {{0x1000, access_kind::load, 0},
                             {0x1040, access_kind::store, 0},
                             {4160, access_kind::load, 0},
                             {0x2000, access_kind::load, 0},
                             {0x3000, access_kind::instruction_fetch, 0}});
}

TEST_CASE("sample.u64") {
    any_reader r = open_trace(data("sample.u64"));
    CHECK(r.index() == static_cast<std::size_t>(trace_format::u64));
    check_equal(collect(r), {{0x1000, access_kind::load, 0},
                             {0x1040, access_kind::load, 0},
                             {0x1000, access_kind::load, 0},
                             {0xdeadbeef00, access_kind::load, 0},
                             {0, access_kind::load, 0}});
}

TEST_CASE("sample.oracleGeneral.bin") {
    any_reader r = open_trace(data("sample.oracleGeneral.bin"));
    REQUIRE(std::holds_alternative<oracle_general_reader>(r));
    std::vector<memsub::access> v;
    for_each_access(r, [&](const memsub::access& a) { v.push_back(a); });
    REQUIRE(v.size() == 3); // the fourth record has size 0: skipped, as libCacheSim does
    CHECK(v[0].address.value == 10 * 64);
    CHECK(v[0].size == 64); // 4096 bytes, capped at the object's 64 bytes of address space
    CHECK(v[0].hints.cycle == 1);
    CHECK(v[0].hints.next_use == 2);
    CHECK(v[1].address.value == 11 * 64);
    CHECK(v[1].hints.next_use == memsub::never);
    CHECK(v[2].address.value == 10 * 64);
    CHECK(std::get<oracle_general_reader>(r).skipped() == 1);
}

TEST_CASE("lackey_true_excerpt.txt is detected as lackey") {
    CHECK(detect_format(data("lackey_true_excerpt.txt")) == trace_format::lackey);
}
