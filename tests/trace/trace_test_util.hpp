// Shared helpers for the trace tests: random access generation, temp files, draining readers.
#pragma once

#include <doctest/doctest.h>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/trace/concept.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace trace_test {

/// A path in the system temp dir unique to this process; removed by the destructor.
struct temp_file {
    std::filesystem::path path;
    explicit temp_file(std::string_view leaf)
        : path(std::filesystem::temp_directory_path() /
               ("memsub_trace_test_" + std::to_string(::getpid()) + "_" + std::string(leaf))) {}
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    ~temp_file() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
    void write(std::string_view bytes) const {
        std::ofstream os(path, std::ios::binary);
        os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
};

/// Naive little-endian encoding, independent of the writers.
inline void le(std::string& s, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
/// One libCacheSim oracleGeneral record, encoded by hand.
inline std::string oracle_record(std::uint32_t t, std::uint64_t id, std::uint32_t size,
                                 std::int64_t next) {
    std::string s;
    le(s, t, 4);
    le(s, id, 8);
    le(s, size, 4);
    le(s, static_cast<std::uint64_t>(next), 8);
    return s;
}

/// Drains `r`, returning every record (errors propagate).
template <memsub::trace::trace_reader R>
std::vector<memsub::access> read_all(R& r) {
    std::vector<memsub::access> v;
    memsub::access a{};
    while (r.next(a)) v.push_back(a);
    return v;
}

/// Reads records until `next` throws; returns the records delivered and the error.
template <memsub::trace::trace_reader R>
std::vector<memsub::access> read_until_error(R& r, memsub::input_error& err_out, bool& threw) {
    std::vector<memsub::access> v;
    memsub::access a{};
    threw = false;
    try {
        while (r.next(a)) v.push_back(a);
    } catch (const memsub::input_error& e) {
        err_out = e;
        threw = true;
    }
    return v;
}

/// Checks that draining `r` throws an input_error at (`kind`, `position`) after delivering
/// exactly `delivered` records, that the message mentions `problem_part`, and that the error is
/// sticky. Returns the delivered records.
template <memsub::trace::trace_reader R>
std::vector<memsub::access> expect_error(R& r, memsub::input_error::position_kind kind,
                                         std::uint64_t position, std::size_t delivered,
                                         std::string_view problem_part) {
    memsub::input_error err("", kind, 0, "");
    bool threw = false;
    auto v = read_until_error(r, err, threw);
    REQUIRE(threw);
    CHECK(err.source() == r.name());
    CHECK(err.kind() == kind);
    CHECK(err.position() == position);
    CHECK(v.size() == delivered);
    CHECK(r.records() == delivered);
    INFO("problem: " << err.problem());
    CHECK(err.problem().find(problem_part) != std::string::npos);
    memsub::access a{};
    CHECK_THROWS_AS(r.next(a), memsub::input_error); // sticky (TR4)
    return v;
}

/// Random data accesses: loads, stores and (optionally) instruction fetches.
inline std::vector<memsub::access> random_accesses(std::size_t n, std::uint64_t seed,
                                                   bool with_ifetch, std::uint64_t addr_mask) {
    memsub::xoshiro256ss rng(seed);
    std::vector<memsub::access> v(n);
    for (auto& a : v) {
        a.address = memsub::byte_address{rng() & addr_mask};
        const auto k = rng() % (with_ifetch ? 3 : 2);
        a.kind = k == 0   ? memsub::access_kind::load
                 : k == 1 ? memsub::access_kind::store
                          : memsub::access_kind::instruction_fetch;
        a.size = static_cast<std::uint32_t>(1 + rng() % 64);
    }
    return v;
}

} // namespace trace_test
