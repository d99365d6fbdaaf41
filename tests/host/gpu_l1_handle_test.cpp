// The C interface's GPU L1 handle (memsub_gpu_l1_*) against memsub's own GPU L1 types: on a
// coalesced SIMT stream each organisation hits, misses, bypasses, fetches and evicts access by
// access as the C++ type it names (gpu::baseline_l1, baseline_l1_with<pc_only / pc_divergence>,
// variable_line_l1<alsi / static_size<32 / 64>>, gpu::id_cache, compressed_l1<latte_cc /
// static_mode, bdi, sc2>), and its counters equal the type's; configuration and argument errors
// are reported.
#include <doctest/doctest.h>

#include <memsub/host/memsub_host_gpu.h>

#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/bypass/pc_only.hpp>
#include <memsub/compression/bdi.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/compressed_l1.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/gpu/shared_code_book.hpp>
#include <memsub/linesize/alsi.hpp>
#include <memsub/linesize/static_size.hpp>
#include <memsub/selection/latte_cc.hpp>
#include <memsub/selection/static_mode.hpp>

#include "../support/gpu_line_stream.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

namespace gpu = memsub::gpu;
using memsub::testing_support::gpu_line_bytes;
using memsub::testing_support::gpu_line_request;

struct l1_deleter {
    void operator()(memsub_gpu_l1* p) const noexcept { memsub_gpu_l1_destroy(p); }
};
using l1_ptr = std::unique_ptr<memsub_gpu_l1, l1_deleter>;

l1_ptr make_l1(const char* name) {
    memsub_gpu_l1* out = nullptr;
    memsub_error error{};
    const memsub_status s = memsub_gpu_l1_create(name, &out, &error);
    INFO(name, ": ", std::string(error.message));
    REQUIRE(s == MEMSUB_OK);
    return l1_ptr(out);
}

const std::vector<gpu_line_request>& stream() {
    static const std::vector<gpu_line_request> s =
        memsub::testing_support::make_gpu_line_stream(24000);
    return s;
}

memsub_access to_c(const memsub::access& a) {
    memsub_access c{};
    c.address = a.address.value;
    c.pc = a.pc;
    c.size = a.size;
    c.sector_mask = a.sector_mask;
    c.kind = static_cast<std::uint8_t>(a.kind);
    return c;
}

template <std::size_t M>
void check_same(const memsub::cache::access_result<M>& want, const memsub_gpu_result& got,
                bool whole_lines, std::size_t i) {
    INFO("request ", i);
    REQUIRE(got.hit == want.hit);
    REQUIRE(got.partial == want.partial);
    REQUIRE(got.bypass_reason == static_cast<std::uint8_t>(want.bypass));
    REQUIRE(got.bypassed == (!want.hit && want.bypass != memsub::cache::bypass_reason::none));
    REQUIRE(got.blocks_filled == want.blocks_filled);
    REQUIRE(got.bytes_fetched == want.bytes_fetched);
    REQUIRE(got.bytes_written_down == want.bytes_written_down);
    if (whole_lines)
        REQUIRE(got.missing_sectors == (want.missing_segments != 0 ? 0xFu : 0u));
    else
        REQUIRE(got.missing_sectors == want.missing_segments);
    REQUIRE(got.eviction_count == want.evictions.size());
    for (std::size_t e = 0; e < want.evictions.size(); ++e) {
        REQUIRE(got.evictions[e].address == want.evictions[e].address.value);
        REQUIRE(got.evictions[e].bytes == want.evictions[e].bytes);
        REQUIRE(got.evictions[e].reason == static_cast<std::uint8_t>(want.evictions[e].reason));
    }
}

/// Runs the stream through the handle `name` and the engine cache `Cache`, request by request.
template <class Cache>
void compare_engine(const char* name) {
    INFO(name);
    const l1_ptr l1 = make_l1(name);
    Cache cache;
    std::uint64_t hits = 0, bypasses = 0, partials = 0;
    std::size_t i = 0;
    for (const gpu_line_request& r : stream()) {
        const memsub_access c = to_c(r.access);
        memsub_gpu_request g{};
        g.divergence = r.access.divergence;
        g.cycle = r.warp;
        memsub_gpu_result got{};
        REQUIRE(memsub_gpu_l1_access(l1.get(), &c, &g, &got) == MEMSUB_OK);
        const auto want = cache.access(r.access);
        check_same(want, got, !Cache::variable_blocks, i++);
        hits += want.hit;
        bypasses += want.bypass == memsub::cache::bypass_reason::predictor;
        partials += want.partial;
        // The probe sees what the access left, and changes nothing.
        std::uint32_t sectors = 0, set = 0;
        REQUIRE(memsub_gpu_l1_probe(l1.get(), c.address, &sectors, &set) == MEMSUB_OK);
        const memsub::byte_address b{c.address};
        REQUIRE(set == cache.set_of(b).value);
        const std::uint64_t resident = cache.resident_segments(cache.line_of(b));
        REQUIRE(sectors == (Cache::variable_blocks ? resident : (resident != 0 ? 0xFu : 0u)));
    }
    memsub_gpu_l1_stats s{};
    REQUIRE(memsub_gpu_l1_get_stats(l1.get(), &s) == MEMSUB_OK);
    const memsub::cache::cache_stats& w = cache.stats();
    CHECK(s.accesses == w.accesses());
    CHECK(s.accesses == stream().size());
    CHECK(s.hits == w.hits());
    CHECK(s.hits == hits);
    CHECK(s.misses == w.misses());
    CHECK(s.partial_misses == partials);
    CHECK(s.predictor_bypasses == bypasses);
    CHECK(s.bypasses == w.bypasses());
    CHECK(s.fills == w.fills);
    CHECK(s.evictions == w.evictions);
    CHECK(s.invalidations == w.invalidations);
    CHECK(s.bytes_fetched == w.bytes_fetched);
    CHECK(s.bytes_written_down == w.bytes_written_down);
    CHECK(s.loads + s.stores == s.accesses);
    CHECK(s.modes == 0);
    // The stream exercises what each organisation is about.
    CHECK(hits > 0);
    CHECK(hits < stream().size());
    if (std::string(name).starts_with("pc_") || std::string(name) == "id_cache")
        CHECK(bypasses > 0);
    if (Cache::variable_blocks) CHECK(partials > 0);
}

/// A memory image over gpu_line_bytes, for the C++ compressed L1.
struct stream_image {
    void read(std::uint64_t address, std::span<std::byte> out) const {
        std::array<std::uint8_t, 128> line{};
        gpu_line_bytes(address, line.data());
        std::memcpy(out.data(), line.data(), out.size());
    }
};

/// The latency tolerance the test's host reports at the end of epoch `n`: phases of high and
/// of no tolerance, so LATTE-CC has reasons to change mode.
std::uint32_t tolerance_at(std::uint64_t n) {
    return (n / 6) % 2 == 0 ? 400 : 0;
}

template <class Selector>
void compare_compressed(const char* name, const typename Selector::params& p) {
    INFO(name);
    const l1_ptr l1 = make_l1(name);
    gpu::shared_code_book book({.l1s = 1, .ep_accesses = 256, .eps_per_period = 10});
    gpu::compressed_l1<Selector, memsub::compression::bdi, memsub::compression::sc2> cache(
        {.base_hit_latency = 20, .miss_latency = 120}, p, &book);
    memsub_gpu_l1_info info{};
    REQUIRE(memsub_gpu_l1_get_info(l1.get(), &info) == MEMSUB_OK);
    CHECK(info.modes == 3);
    CHECK(info.needs_line_data == 1);
    std::array<std::uint64_t, 3> fills_by_mode{};
    std::uint64_t epochs = 0, mode_changes = 0;
    std::uint32_t last_mode = 0;
    std::array<std::uint8_t, 128> line{};
    std::size_t i = 0;
    for (const gpu_line_request& r : stream()) {
        const memsub_access c = to_c(r.access);
        gpu_line_bytes(c.address & ~std::uint64_t{127}, line.data());
        memsub_gpu_request g{};
        g.divergence = r.access.divergence;
        g.cycle = r.warp;
        g.line_data = line.data();
        // The probe answers what the access will find (an SC² line of a replaced code book
        // included: the access retires it first).
        std::uint32_t sectors = 0;
        REQUIRE(memsub_gpu_l1_probe(l1.get(), c.address, &sectors, nullptr) == MEMSUB_OK);
        memsub_gpu_result got{};
        REQUIRE(memsub_gpu_l1_access(l1.get(), &c, &g, &got) == MEMSUB_OK);
        const auto want = cache.access(r.access, r.warp, stream_image{});
        if (r.access.kind == memsub::access_kind::load) REQUIRE((sectors == 0xFu) == want.hit());
        check_same(want.engine, got, false, i);
        INFO("request ", i++);
        REQUIRE(got.mode == want.mode);
        REQUIRE(got.stored_segments == want.stored_segments);
        REQUIRE(got.hit_latency == want.hit_latency);
        REQUIRE(got.extra_hit_cycles == want.extra_hit_cycles);
        REQUIRE(got.epoch_ended == want.epoch_ended);
        if (want.filled()) ++fills_by_mode[want.mode];
        if (want.epoch_ended) {
            const std::uint32_t t = tolerance_at(epochs++);
            cache.set_latency_tolerance(t);
            const memsub_status s = memsub_gpu_l1_set_latency_tolerance(l1.get(), t);
            REQUIRE(s == (info.takes_latency_tolerance ? MEMSUB_OK : MEMSUB_UNSUPPORTED));
            memsub_gpu_l1_stats st{};
            REQUIRE(memsub_gpu_l1_get_stats(l1.get(), &st) == MEMSUB_OK);
            mode_changes += st.current_mode != last_mode;
            last_mode = st.current_mode;
        }
    }
    memsub_gpu_l1_stats s{};
    REQUIRE(memsub_gpu_l1_get_stats(l1.get(), &s) == MEMSUB_OK);
    const gpu::compressed_l1_stats& w = cache.stats();
    CHECK(s.accesses == w.accesses);
    CHECK(s.load_hits == w.load_hits);
    CHECK(s.load_misses == w.load_misses);
    CHECK(s.stores == w.stores);
    CHECK(s.hits == cache.engine().stats().hits());
    CHECK(s.bytes_fetched == cache.engine().stats().bytes_fetched);
    CHECK(s.hit_latency_cycles == w.hit_latency_cycles);
    CHECK(s.resident_line_accesses == w.resident_line_accesses);
    CHECK(s.retired_lines == w.retired);
    if (std::string(name) == "sc2") CHECK(w.retired > 0); // books were replaced under hits
    CHECK(s.code_book_builds == book.build_count());
    CHECK(s.code_book_builds > 0);
    for (std::size_t m = 0; m < 3; ++m) {
        CHECK(s.fills_by_mode[m] == w.fills_by_mode[m]);
        CHECK(s.fills_by_mode[m] == fills_by_mode[m]);
        CHECK(s.hits_by_mode[m] == w.hits_by_mode[m]);
        CHECK(s.filled_segments_by_mode[m] == w.filled_segments[m]);
    }
    if constexpr (requires { cache.selector().follower_mode(); }) {
        CHECK(s.current_mode == cache.selector().follower_mode());
        CHECK(s.periods == cache.selector().periods());
        CHECK(s.epochs == cache.selector().eps());
        CHECK(s.epochs > 20);
        CHECK(mode_changes > 0); // the tolerance phases moved LATTE-CC between modes
        for (std::size_t m = 0; m < 3; ++m)
            CHECK(s.mode_accesses[m] == cache.selector().mode_accesses()[m]);
    } else {
        CHECK(s.current_mode == cache.selector().mode());
        CHECK(fills_by_mode[cache.selector().mode()] > 0); // lines were stored compressed
    }
    CHECK(w.load_hits > 0);
}

} // namespace

TEST_CASE("GPU L1 handle: the engine organisations equal memsub's C++ L1s access by access") {
    compare_engine<gpu::baseline_l1>("baseline");
    compare_engine<gpu::baseline_l1_with<memsub::bypass::pc_only>>("pc_only");
    compare_engine<gpu::baseline_l1_with<memsub::bypass::pc_divergence>>("pc_divergence");
    compare_engine<gpu::variable_line_l1<memsub::linesize::alsi>>("alsi");
    compare_engine<gpu::variable_line_l1<memsub::linesize::static_size<32>>>("static_32");
    compare_engine<gpu::variable_line_l1<memsub::linesize::static_size<64>>>("static_64");
    compare_engine<gpu::id_cache>("id_cache");
}

TEST_CASE("GPU L1 handle: LATTE-CC and the static compressed L1s equal compressed_l1") {
    compare_compressed<memsub::selection::latte_cc>("latte_cc", {});
    compare_compressed<memsub::selection::static_mode>("bdi", {.mode = 1});
    compare_compressed<memsub::selection::static_mode>("sc2", {.mode = 2});
}

TEST_CASE("GPU L1 handle: names, shapes and errors") {
    std::size_t needed = 0;
    REQUIRE(memsub_gpu_l1_names(nullptr, 0, &needed) == MEMSUB_BUFFER_TOO_SMALL);
    std::string names(needed, '\0');
    REQUIRE(memsub_gpu_l1_names(names.data(), names.size(), nullptr) == MEMSUB_OK);
    CHECK(std::string(names.c_str()) ==
          "baseline,pc_only,pc_divergence,alsi,static_32,static_64,id_cache,latte_cc,bdi,sc2");
    char small[12];
    CHECK(memsub_gpu_l1_names(small, sizeof small, nullptr) == MEMSUB_BUFFER_TOO_SMALL);
    CHECK(std::string(small) == "baseline");

    memsub_gpu_l1* out = nullptr;
    memsub_error error{};
    CHECK(memsub_gpu_l1_create("id-cache", &out, &error) == MEMSUB_CONFIG_ERROR);
    CHECK(out == nullptr);
    CHECK(error.code == MEMSUB_CONFIG_ERROR);
    const std::string message(error.message);
    CHECK(message.find("id-cache") != std::string::npos);
    CHECK(message.find("baseline, pc_only, pc_divergence, alsi, static_32, static_64, id_cache, "
                       "latte_cc, bdi, sc2") != std::string::npos);
    CHECK(memsub_gpu_l1_create(nullptr, &out, &error) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_gpu_l1_create("baseline", nullptr, nullptr) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_gpu_l1_destroy(nullptr) == MEMSUB_OK);

    const l1_ptr id = make_l1("id_cache");
    memsub_gpu_l1_info info{};
    REQUIRE(memsub_gpu_l1_get_info(id.get(), &info) == MEMSUB_OK);
    CHECK(std::string(info.name) == "id_cache");
    CHECK(info.sets == 32);
    CHECK(info.lines_per_set == 4);
    CHECK(info.tags_per_set == 16);
    CHECK(info.line_bytes == 128);
    CHECK(info.segment_bytes == 32);
    CHECK(info.modes == 0);
    CHECK(info.needs_line_data == 0);
    const l1_ptr base = make_l1("baseline");
    REQUIRE(memsub_gpu_l1_get_info(base.get(), &info) == MEMSUB_OK);
    CHECK(info.tags_per_set == 4);
    CHECK(info.segment_bytes == 128);
    CHECK(memsub_gpu_l1_set_latency_tolerance(base.get(), 10) == MEMSUB_UNSUPPORTED);
    CHECK(memsub_gpu_l1_set_latency_tolerance(nullptr, 10) == MEMSUB_INVALID_ARGUMENT);

    // Bad records change nothing.
    memsub_access a{};
    a.address = 0x1000;
    memsub_gpu_result r{};
    CHECK(memsub_gpu_l1_access(nullptr, &a, nullptr, &r) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_gpu_l1_access(id.get(), nullptr, nullptr, &r) == MEMSUB_INVALID_ARGUMENT);
    a.sector_mask = 0x10; // a fifth sector
    CHECK(memsub_gpu_l1_access(id.get(), &a, nullptr, &r) == MEMSUB_INVALID_ARGUMENT);
    a.sector_mask = 0;
    a.kind = 9;
    CHECK(memsub_gpu_l1_access(id.get(), &a, nullptr, &r) == MEMSUB_INVALID_ARGUMENT);
    a.kind = MEMSUB_ACCESS_LOAD;
    memsub_gpu_request g{};
    g.reserved = 1;
    CHECK(memsub_gpu_l1_access(id.get(), &a, &g, &r) == MEMSUB_INVALID_ARGUMENT);
    memsub_gpu_l1_stats s{};
    REQUIRE(memsub_gpu_l1_get_stats(id.get(), &s) == MEMSUB_OK);
    CHECK(s.accesses == 0);

    // A divergent load inserts a 32 B block (ALSI), which the probe reports; NULL request and
    // result are allowed.
    a.address = 0x1040; // sector 2
    a.size = 4;
    g.reserved = 0;
    g.divergence = 8;
    REQUIRE(memsub_gpu_l1_access(id.get(), &a, &g, &r) == MEMSUB_OK);
    CHECK(r.hit == 0);
    CHECK(r.bytes_fetched == 32);
    std::uint32_t sectors = 0;
    REQUIRE(memsub_gpu_l1_probe(id.get(), 0x1000, &sectors, nullptr) == MEMSUB_OK);
    CHECK(sectors == 0x4u);
    REQUIRE(memsub_gpu_l1_access(id.get(), &a, nullptr, nullptr) == MEMSUB_OK);
    REQUIRE(memsub_gpu_l1_get_stats(id.get(), &s) == MEMSUB_OK);
    CHECK(s.accesses == 2);
    CHECK(s.hits == 1);
    CHECK(memsub_gpu_l1_probe(nullptr, 0, &sectors, nullptr) == MEMSUB_INVALID_ARGUMENT);
    CHECK(memsub_gpu_l1_get_stats(id.get(), nullptr) == MEMSUB_INVALID_ARGUMENT);
}
