// trace::next_batch: the batch path delivers exactly what `next` delivers, record for record,
// for every reader and batch size (fixed-record readers decode whole buffered records in one
// loop; the records that straddle a refill go through `next`), and keeps TR4: an error after k
// records returns k, and the next call throws the error at the offending record's position.
#include <doctest/doctest.h>

#include "trace_test_util.hpp"

#include <memsub/core/rng.hpp>
#include <memsub/trace/open.hpp>
#include <memsub/trace/writers.hpp>

#include <fmt/core.h>

#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

using memsub::trace::oracle_general_reader;
using pk = memsub::input_error::position_kind;

using trace_test::le;
using trace_test::oracle_record;

/// A seeded oracleGeneral file: random ids, sizes (some 0: skipped), next-access markers.
std::string random_oracle_file(std::size_t records, std::uint64_t seed) {
    memsub::xoshiro256ss rng(seed);
    std::string s;
    for (std::size_t i = 0; i < records; ++i) {
        const auto r = rng();
        const std::uint32_t size = (r & 15) == 0 ? 0 : static_cast<std::uint32_t>(r >> 40) % 9000;
        const std::int64_t next = (r & 0x30) == 0 ? -1 : static_cast<std::int64_t>(i + (r >> 50));
        s += oracle_record(static_cast<std::uint32_t>(i), (r >> 8) % 100000, size, next);
    }
    return s;
}

bool same(const memsub::access& a, const memsub::access& b) {
    return a.address == b.address && a.size == b.size && a.kind == b.kind && a.pc == b.pc &&
           a.read_modify_write == b.read_modify_write && a.hints.cycle == b.hints.cycle &&
           a.hints.next_use == b.hints.next_use && a.requester == b.requester;
}

/// Drains `r` with next_batch in batches of `batch`.
template <class R>
std::vector<memsub::access> read_batched(R& r, std::size_t batch) {
    std::vector<memsub::access> out, buf(batch);
    for (;;) {
        const std::size_t n = memsub::trace::next_batch(r, std::span(buf));
        out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
        if (n == 0) return out;
    }
}

} // namespace

TEST_CASE("next_batch: oracleGeneral batches equal record-by-record reading, any buffer and "
          "batch size") {
    const std::string bytes = random_oracle_file(5000, 7);
    std::istringstream ref_in(bytes);
    oracle_general_reader ref(ref_in, "og");
    const auto expected = trace_test::read_all(ref);
    REQUIRE(expected.size() > 4000); // about 1/16 have size 0 and are skipped
    for (const std::size_t buffer : {64, 100, 1000, 1 << 20})
        for (const std::size_t batch : {1, 3, 64, 4096, 10000}) {
            CAPTURE(buffer);
            CAPTURE(batch);
            std::istringstream in(bytes);
            oracle_general_reader r(in, "og", {.buffer_bytes = buffer});
            const auto got = read_batched(r, batch);
            REQUIRE(got.size() == expected.size());
            for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(same(got[i], expected[i]));
            CHECK(r.records() == ref.records());
            CHECK(r.skipped() == ref.skipped());
            CHECK(r.bytes_consumed() == bytes.size());
        }
}

TEST_CASE("next_batch: u64 and the text readers through any_reader") {
    trace_test::temp_file u64("batch.u64");
    trace_test::temp_file lackey("batch.lackey");
    {
        std::string u;
        memsub::xoshiro256ss rng(3);
        std::string lk;
        for (int i = 0; i < 3000; ++i) {
            le(u, rng(), 8);
            lk += fmt::format(" {} {:x},{}\n", "LSM"[i % 3], 0x1000 + 8 * (rng() % 5000), 8);
        }
        u64.write(u);
        lackey.write(lk);
    }
    for (const auto& [file, format] : {std::pair{&u64, memsub::trace::trace_format::u64},
                                       std::pair{&lackey, memsub::trace::trace_format::lackey}}) {
        auto ref = memsub::trace::open_trace(file->path, format);
        std::vector<memsub::access> expected;
        memsub::trace::for_each_access(ref,
                                       [&](const memsub::access& a) { expected.push_back(a); });
        for (const std::size_t batch : {1, 7, 4096}) {
            auto r = memsub::trace::open_trace(file->path, format);
            std::vector<memsub::access> got, buf(batch);
            for (;;) {
                const std::size_t n = memsub::trace::next_batch(r, std::span(buf));
                got.insert(got.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
                if (n == 0) break;
            }
            REQUIRE(got.size() == expected.size());
            for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(same(got[i], expected[i]));
            CHECK(memsub::trace::bytes_consumed(r) == std::filesystem::file_size(file->path));
        }
    }
}

TEST_CASE("next_batch: an error after k records returns k; the next call throws it at the bad "
          "record, and keeps throwing it") {
    const std::string good = random_oracle_file(300, 11);
    std::istringstream ref_in(good);
    oracle_general_reader ref(ref_in, "og");
    const auto delivered = trace_test::read_all(ref).size();
    for (const std::string& bad :
         {oracle_record(1, 1, 8, -7),                     // a negative next_access_vtime
          oracle_record(1, std::uint64_t{1} << 60, 8, 3), // obj_id × 64 beyond 64 bits
          oracle_record(1, 1, 8, 3).substr(0, 10)})       // a truncated final record
        for (const std::size_t buffer : {64, 1 << 20}) {
            CAPTURE(buffer);
            std::istringstream in(good + bad);
            oracle_general_reader r(in, "og", {.buffer_bytes = buffer});
            std::vector<memsub::access> buf(100000);
            CHECK(memsub::trace::next_batch(r, std::span(buf)) == delivered);
            for (int again = 0; again < 2; ++again) {
                try {
                    (void)memsub::trace::next_batch(r, std::span(buf));
                    FAIL("the bad record must throw");
                } catch (const memsub::input_error& e) {
                    CHECK(e.kind() == pk::byte_offset);
                    CHECK(e.position() == good.size());
                }
            }
            CHECK(r.records() == delivered);
        }
}
