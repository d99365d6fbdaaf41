// memsub's GPGPU-Sim L1D tag array (include/memsub/host/gpgpusim/), compiled as GPGPU-Sim
// compiles it (C++11, warnings as errors) against a stand-in of GPGPU-Sim's gpu-cache.h and
// mem_fetch.h, driven as GPGPU-Sim's L1D drives its tag array (gpgpusim_standin_driver.cpp)
// on a coalesced SIMT stream, and compared with memsub's own GPU L1 types on the same stream:
// with fills at once it hits and bypasses request by request as gpu::baseline_l1, gpu::id_cache
// and LATTE-CC's compressed L1 do; with fills that take time, requests to lines in flight are
// HIT_RESERVED, full sets fail their reservation and are retried, and every miss is filled.
#include <doctest/doctest.h>

#include <memsub/bypass/pc_only.hpp>
#include <memsub/compression/bdi.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/compressed_l1.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/gpu/shared_code_book.hpp>
#include <memsub/selection/latte_cc.hpp>

#include "../support/gpu_line_stream.hpp"
#include "gpgpusim_standin_driver.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace gpu = memsub::gpu;
namespace gs = gpgpusim_standin;
using memsub::testing_support::gpu_line_request;

const std::vector<gpu_line_request>& stream() {
    static const std::vector<gpu_line_request> s =
        memsub::testing_support::make_gpu_line_stream(16000, 7);
    return s;
}

std::vector<gs::request> requests() {
    std::vector<gs::request> out;
    for (const gpu_line_request& r : stream()) {
        const memsub::access& a = r.access;
        out.push_back({.address = a.address.value,
                       .pc = a.pc,
                       .sectors = a.sector_mask,
                       .size = a.size,
                       .write = a.kind == memsub::access_kind::store,
                       .divergence = a.divergence});
    }
    return out;
}

/// Request by request, the adapter's status and bypass flag against `Cache`'s results.
template <class Cache>
void compare_at_once(const char* organisation) {
    INFO(organisation);
    const std::vector<gs::request> reqs = requests();
    const gs::run_result got = gs::run({.organisation = organisation}, reqs);
    Cache cache;
    std::uint64_t hits = 0, bypasses = 0;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        INFO("request ", i);
        const auto want = cache.access(stream()[i].access);
        const gs::outcome& o = got.outcomes[i];
        REQUIRE(o.retries == 0);
        REQUIRE((o.status == gs::hit) == want.hit);
        const bool bypassed = want.bypass == memsub::cache::bypass_reason::predictor;
        REQUIRE(o.bypassed == bypassed);
        if (!want.hit) REQUIRE((o.status == gs::miss || o.status == gs::sector_miss));
        // A partial miss is GPGPU-Sim's SECTOR_MISS (only variable-block lines are partial).
        if (want.partial) REQUIRE(o.status == gs::sector_miss);
        hits += want.hit;
        bypasses += bypassed;
    }
    CHECK(got.hit_reserved == 0);
    CHECK(got.reservation_fails == 0);
    CHECK(got.accesses == reqs.size());
    CHECK(got.misses == reqs.size() - hits);
    CHECK(got.memsub_hits == hits);
    CHECK(got.memsub_bypasses == bypasses);
    CHECK(got.bytes_fetched == cache.stats().bytes_fetched);
    CHECK(got.pending_at_end == 0);
    CHECK(hits > 0);
}

void line_bytes(std::uint64_t line_first, std::uint8_t* out) {
    memsub::testing_support::gpu_line_bytes(line_first, out);
}
std::uint32_t tolerance_at(std::uint64_t n) {
    return (n / 6) % 2 == 0 ? 400 : 0;
}

struct stream_image {
    void read(std::uint64_t address, std::span<std::byte> out) const {
        std::array<std::uint8_t, 128> line{};
        line_bytes(address, line.data());
        std::memcpy(out.data(), line.data(), out.size());
    }
};

} // namespace

TEST_CASE("GPGPU-Sim L1D adapter: with fills at once it equals memsub's GPU L1s") {
    compare_at_once<gpu::baseline_l1>("baseline");
    compare_at_once<gpu::baseline_l1_with<memsub::bypass::pc_only>>("pc_only");
    compare_at_once<gpu::id_cache>("id_cache");
}

TEST_CASE("GPGPU-Sim L1D adapter: LATTE-CC's compressed L1 with fills at once") {
    const std::vector<gs::request> reqs = requests();
    const gs::run_result got = gs::run(
        {.organisation = "latte_cc", .line_bytes = &line_bytes, .tolerance_at = &tolerance_at},
        reqs);
    gpu::shared_code_book book({.l1s = 1, .ep_accesses = 256, .eps_per_period = 10});
    gpu::compressed_l1<memsub::selection::latte_cc, memsub::compression::bdi,
                       memsub::compression::sc2>
        cache({.base_hit_latency = 20, .miss_latency = 120}, {}, &book);
    std::uint64_t epochs = 0, hits = 0;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        INFO("request ", i);
        // The stand-in L1D passes the request index as the cycle.
        const auto want = cache.access(stream()[i].access, i, stream_image{});
        REQUIRE((got.outcomes[i].status == gs::hit) == want.hit());
        hits += want.hit();
        if (want.epoch_ended) cache.set_latency_tolerance(tolerance_at(epochs++));
    }
    CHECK(got.memsub_hits == hits);
    for (std::size_t m = 0; m < 3; ++m)
        CHECK(got.fills_by_mode[m] == cache.stats().fills_by_mode[m]);
    CHECK(got.fills_by_mode[1] + got.fills_by_mode[2] > 0); // lines were stored compressed
}

TEST_CASE("GPGPU-Sim L1D adapter: fills that take time make HIT_RESERVED and retries") {
    const std::vector<gs::request> reqs = requests();
    for (const char* organisation : {"baseline", "id_cache", "latte_cc"}) {
        for (const bool by_address : {false, true}) {
            INFO(organisation, by_address ? " (fill by address)" : " (fill by index)");
            gs::options o{
                .organisation = organisation, .fill_delay = 40, .fill_by_address = by_address};
            if (std::string(organisation) == "latte_cc") {
                o.line_bytes = &line_bytes;
                o.tolerance_at = &tolerance_at;
            }
            const gs::run_result got = gs::run(o, reqs);
            const gs::run_result at_once = gs::run({.organisation = organisation,
                                                    .line_bytes = o.line_bytes,
                                                    .tolerance_at = o.tolerance_at},
                                                   reqs);
            std::uint64_t reserved = 0, retried = 0, plain_hits = 0;
            for (const gs::outcome& r : got.outcomes) {
                reserved += r.status == gs::hit_reserved;
                retried += r.retries > 0;
                plain_hits += r.status == gs::hit;
                REQUIRE(r.status != gs::reservation_fail);
            }
            CHECK(reserved > 0);
            CHECK(got.hit_reserved == reserved);
            CHECK(retried > 0);
            CHECK(got.reservation_fails >= retried);
            // Every request reached memsub once, failed reservations apart; every fill came.
            CHECK(got.accesses == reqs.size() + got.reservation_fails);
            CHECK(got.memsub_accesses == reqs.size());
            CHECK(got.pending_at_end == 0);
            // A request to a line in flight is a hit in memsub (its line is resident), and the
            // adapter answers HIT_RESERVED instead of HIT: the two together are memsub's hits.
            CHECK(plain_hits + reserved == got.memsub_hits);
            CHECK(got.misses + got.hit_reserved + plain_hits ==
                  got.accesses - got.reservation_fails);
            // Retries reorder requests only after a failure; the hit rate stays near the
            // at-once run's.
            CHECK(got.memsub_hits > at_once.memsub_hits * 8 / 10);
        }
    }
}

TEST_CASE("GPGPU-Sim L1D adapter: a configuration error carries memsub's message") {
    try {
        (void)gs::run({.organisation = "idcache"}, {});
        FAIL("no error");
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        CHECK(m.find("MEMSUB_CONFIG_ERROR") != std::string::npos);
        CHECK(m.find("idcache") != std::string::npos);
        CHECK(m.find("id_cache") != std::string::npos);
        CHECK(m.find("latte_cc") != std::string::npos);
    }
}
