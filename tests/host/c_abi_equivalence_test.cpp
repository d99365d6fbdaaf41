// The C interface (memsub/host/memsub_host.h, library memsub::host) against the header-only
// path on the same streams: 200k random accesses through each cache kind and several
// policies (every per-access hit and result, every counter), and each compressor's sizes,
// payloads and round trips on the compression tests' real and generated data.
#include <doctest/doctest.h>

#include <memsub/host/memsub_host.h>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/fully_associative.hpp>
#include <memsub/compression/all.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/host/host_policies.hpp>
#include <memsub/replacement/next_use.hpp>

#include "../compression/line_generators.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace mc = memsub::cache;
namespace mcomp = memsub::compression;

constexpr std::size_t stream_length = 200'000;

struct cache_deleter {
    void operator()(memsub_cache* c) const noexcept { memsub_cache_destroy(c); }
};
using cache_ptr = std::unique_ptr<memsub_cache, cache_deleter>;

cache_ptr make_c_cache(memsub_cache_kind kind, const char* policy, const memsub_cache_config& c) {
    memsub_cache* out = nullptr;
    memsub_error error{};
    const memsub_status s = memsub_cache_create(kind, policy, &c, &out, &error);
    INFO(std::string(policy ? policy : "(null)"), ": ", std::string(error.message));
    REQUIRE(s == MEMSUB_OK);
    return cache_ptr(out);
}

/// A random stream over `footprint_lines` lines of `line_bytes` (a hot quarter taking half the
/// accesses), with every kind, partial sizes, read-modify-writes, PCs, requesters and, when
/// `specs`, variable-block specs; its next uses are set for OPT.
struct stream {
    std::vector<memsub::access> header_only;
    std::vector<memsub_access> c;
    std::vector<mc::block_spec> specs; // per access; span 0 = none
};

stream make_stream(std::uint64_t footprint_lines, std::uint32_t line_bytes, bool with_specs,
                   std::uint64_t seed) {
    memsub::xoshiro256ss rng(seed);
    stream s;
    s.header_only.resize(stream_length);
    s.c.resize(stream_length);
    s.specs.resize(stream_length);
    for (std::size_t i = 0; i < stream_length; ++i) {
        const std::uint64_t line =
            rng.below(2) == 0 ? rng.below(footprint_lines / 4) : rng.below(footprint_lines);
        memsub::access a;
        a.address = memsub::byte_address{line * line_bytes + rng.below(line_bytes / 8) * 8};
        a.kind = static_cast<memsub::access_kind>(rng.below(8) < 5 ? 0 : rng.below(5));
        a.size = rng.below(4) == 0 ? 0 : 8;
        a.read_modify_write = a.kind == memsub::access_kind::load && rng.below(16) == 0;
        a.pc = 0x400000 + 4 * rng.below(64);
        a.requester = static_cast<std::uint32_t>(rng.below(4));
        s.header_only[i] = a;
        if (with_specs && rng.below(3) != 0) {
            const std::uint32_t span = 1u << rng.below(3); // 1, 2 or 4 segments
            s.specs[i] = mc::block_spec{span, 1 + static_cast<std::uint32_t>(rng.below(span)), 0};
        }
    }
    memsub::replacement::annotate_next_use(s.header_only, line_bytes);
    for (std::size_t i = 0; i < stream_length; ++i) {
        const memsub::access& a = s.header_only[i];
        memsub_access& r = s.c[i];
        r = memsub_access{};
        r.address = a.address.value;
        r.pc = a.pc;
        r.next_use = a.hints.next_use;
        r.hints = MEMSUB_HINT_NEXT_USE;
        r.size = a.size;
        r.requester = a.requester;
        r.kind = static_cast<std::uint8_t>(a.kind);
        r.read_modify_write = a.read_modify_write;
        r.span_segments = s.specs[i].span_segments;
        r.stored_segments = s.specs[i].stored_segments;
    }
    return s;
}

/// Every field of the C result equals the header-only one.
template <std::size_t M>
void check_result(const mc::access_result<M>& want, const memsub_access_result& got,
                  std::size_t i) {
    INFO("access ", i);
    REQUIRE(got.hit == want.hit);
    REQUIRE(got.partial == want.partial);
    REQUIRE(got.bypass_reason == static_cast<std::uint8_t>(want.bypass));
    REQUIRE(got.hit_block_left == want.hit_block_left);
    REQUIRE(got.blocks_filled == want.blocks_filled);
    REQUIRE(got.bytes_fetched == want.bytes_fetched);
    REQUIRE(got.bytes_written_down == want.bytes_written_down);
    REQUIRE(got.missing_segments == want.missing_segments);
    REQUIRE(got.eviction_count == want.evictions.size());
    for (std::size_t e = 0; e < want.evictions.size(); ++e) {
        REQUIRE(got.evictions[e].address == want.evictions[e].address.value);
        REQUIRE(got.evictions[e].bytes == want.evictions[e].bytes);
        REQUIRE(got.evictions[e].stored_segments == want.evictions[e].stored_segments);
        REQUIRE(got.evictions[e].dirty == want.evictions[e].dirty);
        REQUIRE(got.evictions[e].reused == want.evictions[e].reused);
        REQUIRE(got.evictions[e].reason == static_cast<std::uint8_t>(want.evictions[e].reason));
    }
}

/// Every counter of the C stats equals the header-only one.
void check_stats(const mc::cache_stats& want, const memsub_cache* cache) {
    memsub_cache_stats got{};
    REQUIRE(memsub_cache_get_stats(cache, &got) == MEMSUB_OK);
    CHECK(got.accesses == want.accesses());
    CHECK(got.misses == want.misses());
    CHECK(got.hits == want.hits());
    for (std::size_t k = 0; k < MEMSUB_ACCESS_KIND_COUNT; ++k) {
        CHECK(got.by_kind[k].accesses == want.by_kind[k].accesses);
        CHECK(got.by_kind[k].misses == want.by_kind[k].misses);
    }
    CHECK(got.fills == want.fills);
    CHECK(got.partial_misses == want.partial_misses);
    CHECK(got.evictions == want.evictions);
    CHECK(got.writebacks == want.writebacks);
    CHECK(got.bypasses == want.bypasses());
    for (std::size_t r = 0; r < MEMSUB_BYPASS_REASON_COUNT; ++r)
        CHECK(got.bypasses_by_reason[r] == want.bypasses_by_reason[r]);
    CHECK(got.invalidations == want.invalidations);
    for (std::size_t r = 0; r < MEMSUB_EVICTION_REASON_COUNT; ++r)
        CHECK(got.invalidations_by_reason[r] == want.invalidations_by_reason[r]);
    CHECK(got.resizes == want.resizes);
    CHECK(got.resizes_refused == want.resizes_refused);
    CHECK(got.specs_clamped == want.specs_clamped);
    CHECK(got.bytes_fetched == want.bytes_fetched);
    CHECK(got.bytes_written_down == want.bytes_written_down);
    CHECK(got.bytes_written_back == want.bytes_written_back);
}

/// The header-only cache `Cache` and two C caches (one access at a time, and one batch) on
/// the same stream.
template <class Cache>
void compare_engine(memsub_cache_kind kind, const memsub_cache_config& config,
                    const memsub::geometry& g, const char* policy, const stream& s) {
    INFO("policy ", std::string(policy), ", write policy ", config.write_policy);
    Cache want(g, memsub::host::policy_choice::params_for(g, policy));
    const cache_ptr single = make_c_cache(kind, policy, config);
    const cache_ptr batched = make_c_cache(kind, policy, config);
    std::vector<std::uint8_t> want_hits(stream_length);
    std::uint64_t want_hit_count = 0;
    for (std::size_t i = 0; i < stream_length; ++i) {
        const memsub::access& a = s.header_only[i];
        typename Cache::result_type r;
        if constexpr (Cache::variable_blocks) {
            r = s.specs[i].span_segments != 0 ? want.access(a, s.specs[i]) : want.access(a);
        } else {
            r = want.access(a);
        }
        want_hits[i] = r.hit;
        want_hit_count += r.hit;
        memsub_access_result got{};
        REQUIRE(memsub_cache_access(single.get(), &s.c[i], &got) == MEMSUB_OK);
        check_result(r, got, i);
    }
    std::vector<std::uint8_t> got_hits(stream_length, 2);
    std::uint64_t got_hit_count = 0;
    REQUIRE(memsub_cache_access_batch(batched.get(), s.c.data(), s.c.size(), &got_hit_count,
                                      got_hits.data()) == MEMSUB_OK);
    CHECK(got_hit_count == want_hit_count);
    CHECK(got_hits == want_hits);
    CHECK(want.stats().misses() > 0);
    CHECK(want.stats().hits() > 0);
    check_stats(want.stats(), single.get());
    check_stats(want.stats(), batched.get());
}

const char* const compared_policies[] = {
    "lru", "srrip", "drrip", "ship", "random", "opt",
    // with settings (the header-only side reads them with policy_choice::params_for)
    "srrip:rrpv_bits=3,promotion=frequency_priority", "drrip:psel_bits=6,source=counter",
    "ship:signature_bits=10,counter_bits=2", "remap:side0.cost=8,victim_buffer.hashes=5"};

} // namespace

TEST_CASE("host ABI: a set-associative cache gives the header-only results, access by access") {
    const memsub::geometry g{.sets = 64, .ways = 8, .line_bytes = 64};
    memsub_cache_config config{};
    config.sets = g.sets;
    config.ways = g.ways;
    config.line_bytes = g.line_bytes;
    const stream s = make_stream(2 * 64 * 8, 64, false, 11);
    for (const char* policy : compared_policies) {
        config.write_policy = MEMSUB_WRITE_BACK;
        compare_engine<mc::set_associative_cache<memsub::host::policy_choice>>(
            MEMSUB_CACHE_SET_ASSOCIATIVE, config, g, policy, s);
    }
    // The other write policies, with one policy each.
    config.write_policy = MEMSUB_WRITE_THROUGH;
    compare_engine<
        mc::set_associative_cache<memsub::host::policy_choice, mc::write_policy::write_through>>(
        MEMSUB_CACHE_SET_ASSOCIATIVE, config, g, "srrip", s);
    config.write_policy = MEMSUB_WRITE_EVICT;
    compare_engine<
        mc::set_associative_cache<memsub::host::policy_choice, mc::write_policy::write_evict>>(
        MEMSUB_CACHE_SET_ASSOCIATIVE, config, g, "lru", s);
}

TEST_CASE("host ABI: a variable-block cache gives the header-only results, access by access") {
    // 128-byte lines of 32-byte segments, 4 ways of data and 16 tags per set.
    const memsub::geometry g{
        .sets = 32, .ways = 4, .line_bytes = 128, .segment_bytes = 32, .tags_per_set = 16};
    memsub_cache_config config{};
    config.sets = g.sets;
    config.ways = g.ways;
    config.line_bytes = g.line_bytes;
    config.segment_bytes = g.segment_bytes;
    config.tags_per_set = g.tags_per_set;
    const stream s = make_stream(4 * 32 * 4, 128, true, 12);
    for (const char* policy : {"lru", "srrip", "opt"}) {
        config.write_policy = MEMSUB_WRITE_BACK;
        compare_engine<mc::variable_block_cache<memsub::host::policy_choice, 4>>(
            MEMSUB_CACHE_VARIABLE_BLOCK, config, g, policy, s);
    }
    config.write_policy = MEMSUB_WRITE_EVICT;
    compare_engine<
        mc::variable_block_cache<memsub::host::policy_choice, 4, mc::write_policy::write_evict>>(
        MEMSUB_CACHE_VARIABLE_BLOCK, config, g, "lru", s);
    // Two segments per line take the compiled max_block_segments = 2.
    const memsub::geometry g2{
        .sets = 32, .ways = 4, .line_bytes = 64, .segment_bytes = 32, .tags_per_set = 8};
    config.line_bytes = g2.line_bytes;
    config.tags_per_set = g2.tags_per_set;
    config.write_policy = MEMSUB_WRITE_THROUGH;
    stream s2 = make_stream(4 * 32 * 4, 64, true, 13);
    for (std::size_t i = 0; i < stream_length; ++i) // spans of at most the line's 2 segments
        if (s2.specs[i].span_segments == 4) {
            s2.specs[i] = mc::block_spec{2, 2, 0};
            s2.c[i].span_segments = s2.c[i].stored_segments = 2;
        }
    compare_engine<
        mc::variable_block_cache<memsub::host::policy_choice, 2, mc::write_policy::write_through>>(
        MEMSUB_CACHE_VARIABLE_BLOCK, config, g2, "brrip", s2);
}

TEST_CASE("host ABI: a fully associative cache gives the header-only results") {
    memsub_cache_config config{};
    config.lines = 512;
    config.line_bytes = 64;
    const stream s = make_stream(2 * 512, 64, false, 14);
    auto compare = [&]<class Order>(const char* policy) {
        INFO("policy ", std::string(policy));
        mc::fully_associative_cache<Order> want(config.lines, config.line_bytes);
        const cache_ptr single = make_c_cache(MEMSUB_CACHE_FULLY_ASSOCIATIVE, policy, config);
        const cache_ptr batched = make_c_cache(MEMSUB_CACHE_FULLY_ASSOCIATIVE, policy, config);
        std::vector<std::uint8_t> want_hits(stream_length);
        for (std::size_t i = 0; i < stream_length; ++i) {
            const mc::fa_result r = want.access(s.header_only[i]);
            want_hits[i] = r.hit;
            memsub_access_result got{};
            REQUIRE(memsub_cache_access(single.get(), &s.c[i], &got) == MEMSUB_OK);
            INFO("access ", i);
            REQUIRE(got.hit == r.hit);
            REQUIRE(got.eviction_count == (r.evicted ? 1u : 0u));
            if (r.evicted) {
                REQUIRE(got.evictions[0].address == r.evicted_line.value * 64);
                REQUIRE(got.evictions[0].dirty == r.writeback);
            }
        }
        std::vector<std::uint8_t> got_hits(stream_length, 2);
        REQUIRE(memsub_cache_access_batch(batched.get(), s.c.data(), s.c.size(), nullptr,
                                          got_hits.data()) == MEMSUB_OK);
        CHECK(got_hits == want_hits);
        CHECK(want.stats().misses() > 0);
        check_stats(want.stats(), single.get());
        check_stats(want.stats(), batched.get());
    };
    compare.operator()<mc::fa_lru>("lru");
    compare.operator()<mc::fa_fifo>("fifo");
    compare.operator()<mc::fa_opt>("opt");
}

TEST_CASE("host ABI: every policy name the C interface lists builds, and matches the choice") {
    memsub_cache_config config{};
    config.sets = 64;
    config.ways = 8;
    config.line_bytes = 64;
    std::size_t needed = 0;
    REQUIRE(memsub_cache_policy_names(MEMSUB_CACHE_SET_ASSOCIATIVE, &config, nullptr, 0, &needed,
                                      nullptr) == MEMSUB_BUFFER_TOO_SMALL);
    std::string names(needed, '\0');
    REQUIRE(memsub_cache_policy_names(MEMSUB_CACHE_SET_ASSOCIATIVE, &config, names.data(),
                                      names.size(), nullptr, nullptr) == MEMSUB_OK);
    names.resize(needed - 1);
    std::string want;
    for (const auto& n : memsub::host::policy_choice::names(
             memsub::geometry{.sets = 64, .ways = 8, .line_bytes = 64}, {}))
        want += (want.empty() ? "" : ",") + n;
    CHECK(names == want);
    std::size_t count = 0;
    for (std::size_t start = 0; start <= names.size();) {
        const std::size_t comma = std::min(names.find(',', start), names.size());
        const std::string name = names.substr(start, comma - start);
        make_c_cache(MEMSUB_CACHE_SET_ASSOCIATIVE, name.c_str(), config);
        ++count;
        start = comma + 1;
    }
    CHECK(count >= 15);
}

namespace {

struct compressor_deleter {
    void operator()(memsub_compressor* c) const noexcept { memsub_compressor_destroy(c); }
};

template <class C>
void compare_compressor(const char* name, const std::vector<memsub_test::data_set>& sets) {
    for (const std::uint32_t L : {32u, 64u, 128u}) {
        INFO(std::string(name), ", ", L, "-byte lines");
        typename C::params p{};
        p.line_bytes = L;
        const C want(p);
        memsub_compressor* raw = nullptr;
        memsub_error error{};
        REQUIRE(memsub_compressor_create(name, L, &raw, &error) == MEMSUB_OK);
        const std::unique_ptr<memsub_compressor, compressor_deleter> got(raw);
        std::uint64_t lines = 0, want_bits = 0, got_bits = 0;
        std::vector<std::uint8_t> back(L);
        memsub_compressed_line packed{};
        for (const auto& set : sets) {
            for (std::size_t at = 0; at + L <= set.bytes.size(); at += L) {
                const std::span<const std::byte> line(set.bytes.data() + at, L);
                const auto* bytes = reinterpret_cast<const std::uint8_t*>(line.data());
                std::uint32_t bits = 0;
                REQUIRE(memsub_compressor_size_bits(got.get(), bytes, L, &bits, &error) ==
                        MEMSUB_OK);
                want_bits += want.size_bits(line);
                got_bits += bits;
                ++lines;
                if (at % (16 * L) != 0) continue; // the payloads and round trips of a sample
                const mcomp::compressed_line c = want.compress(line);
                REQUIRE(memsub_compressor_compress(got.get(), bytes, L, &packed, &error) ==
                        MEMSUB_OK);
                REQUIRE(packed.bits == c.bits);
                REQUIRE(packed.encoding == c.encoding);
                REQUIRE(packed.member == c.member);
                REQUIRE(packed.tag_data == c.tag_data);
                REQUIRE(std::memcmp(packed.payload, c.payload.data(), c.bytes()) == 0);
                REQUIRE(memsub_compressor_decompress(got.get(), &packed, back.data(), L, &error) ==
                        MEMSUB_OK);
                REQUIRE(std::memcmp(back.data(), bytes, L) == 0);
            }
        }
        CHECK(lines > 1000);
        CHECK(got_bits == want_bits);
        // Real data compresses, except with SC²'s escape-only book (every word escaped).
        if (std::string_view(name) != "sc2") CHECK(got_bits < lines * L * 8);
    }
}

} // namespace

TEST_CASE("host ABI: compressor sizes and payloads equal the header-only compressors' on real "
          "data") {
    const memsub_test::real_and_generated corpus(256 << 10);
    REQUIRE(corpus.real_bytes > 0);
    compare_compressor<mcomp::bdi>("bdi", corpus.sets);
    compare_compressor<mcomp::fpc>("fpc", corpus.sets);
    compare_compressor<mcomp::cpack>("cpack", corpus.sets);
    compare_compressor<mcomp::cpack_z>("cpack_z", corpus.sets);
    compare_compressor<mcomp::bpc>("bpc", corpus.sets);
    compare_compressor<mcomp::sc2>("sc2", corpus.sets);
    compare_compressor<mcomp::best_of_all>("best_of_all", corpus.sets);
}

TEST_CASE("host ABI: a corrupted payload is a decode error, never a crash") {
    memsub_compressor* raw = nullptr;
    REQUIRE(memsub_compressor_create("best_of_all", 64, &raw, nullptr) == MEMSUB_OK);
    const std::unique_ptr<memsub_compressor, compressor_deleter> c(raw);
    memsub::xoshiro256ss rng(5);
    std::vector<std::uint8_t> out(64);
    std::size_t errors = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        memsub_compressed_line junk{};
        junk.bits = static_cast<std::uint32_t>(rng.below(600));
        junk.member = static_cast<std::uint16_t>(rng.below(8));
        junk.encoding = static_cast<std::uint8_t>(rng.below(16));
        for (auto& b : junk.payload) b = static_cast<std::uint8_t>(rng());
        memsub_error error{};
        const memsub_status s =
            memsub_compressor_decompress(c.get(), &junk, out.data(), out.size(), &error);
        REQUIRE((s == MEMSUB_OK || s == MEMSUB_DECODE_ERROR));
        if (s == MEMSUB_DECODE_ERROR) {
            ++errors;
            REQUIRE(error.code == MEMSUB_DECODE_ERROR);
            REQUIRE(std::string(error.message).find("at bit offset") != std::string::npos);
        }
    }
    CHECK(errors > 1000);
}
