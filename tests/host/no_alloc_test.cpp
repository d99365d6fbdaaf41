// The C interface's access paths allocate nothing: the batch, single accesses and the
// compressors' size, compress and decompress; the replacement-policy hooks (H1-H6); every GPU
// L1 organisation's access once warm (compressed L1s with line data, across LATTE-CC's learning
// periods and SC²'s code-book rebuilds); a DRAM controller's enqueue / advance / drain once warm.
// Counted by replacing this executable's global allocation functions, which the shared
// library's calls reach too (creating a handle, which allocates, shows that they do).
#include <doctest/doctest.h>

#include "../support/counting_allocator.hpp"
#include "../support/name_list.hpp"

#include <memsub/host/memsub_host.h>
#include <memsub/host/memsub_host_gpu.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

TEST_CASE("host ABI: accesses, batches and compressor calls allocate nothing") {
    memsub_cache_config config{};
    config.sets = 256;
    config.ways = 8;
    config.line_bytes = 64;
    std::vector<memsub_access> records(200'000);
    for (std::size_t i = 0; i < records.size(); ++i) {
        records[i] = memsub_access{};
        // Half a 512-line loop that fits, half a permutation of 4096 lines that does not.
        const std::uint64_t line = i % 2 == 0 ? i / 2 % 512 : (i * 2654435761u) % 4096;
        records[i].address = line * 64;
        records[i].kind = i % 4 == 0 ? MEMSUB_ACCESS_STORE : MEMSUB_ACCESS_LOAD;
    }
    std::vector<std::uint8_t> flags(records.size());
    for (const memsub_cache_kind kind :
         {MEMSUB_CACHE_SET_ASSOCIATIVE, MEMSUB_CACHE_FULLY_ASSOCIATIVE,
          MEMSUB_CACHE_VARIABLE_BLOCK}) {
        INFO("kind ", static_cast<int>(kind));
        config.lines = 2048;
        memsub_cache* cache = nullptr;
        const std::size_t before_create = memsub_test::allocations.load();
        REQUIRE(memsub_cache_create(kind, "lru", &config, &cache, nullptr) == MEMSUB_OK);
        CHECK(memsub_test::allocations.load() > before_create); // the library's calls are seen

        const std::size_t before = memsub_test::allocations.load();
        std::uint64_t hits = 0;
        REQUIRE(memsub_cache_access_batch(cache, records.data(), records.size(), &hits,
                                          flags.data()) == MEMSUB_OK);
        memsub_access_result result{};
        for (std::size_t i = 0; i < 1000; ++i)
            REQUIRE(memsub_cache_access(cache, &records[i], &result) == MEMSUB_OK);
        memsub_cache_stats stats{};
        REQUIRE(memsub_cache_get_stats(cache, &stats) == MEMSUB_OK);
        CHECK(memsub_test::allocations.load() == before);
        CHECK(stats.accesses == records.size() + 1000);
        CHECK(hits > 0);
        memsub_cache_destroy(cache);
    }

    memsub_compressor* c = nullptr;
    REQUIRE(memsub_compressor_create("best_of_all", 64, &c, nullptr) == MEMSUB_OK);
    std::uint8_t line[64] = {};
    for (std::size_t i = 0; i < sizeof line; i += 4) line[i] = static_cast<std::uint8_t>(i);
    std::uint8_t back[64] = {};
    memsub_compressed_line packed{};
    std::uint32_t bits = 0;
    const std::size_t before = memsub_test::allocations.load();
    REQUIRE(memsub_compressor_size_bits(c, line, sizeof line, &bits, nullptr) == MEMSUB_OK);
    REQUIRE(memsub_compressor_compress(c, line, sizeof line, &packed, nullptr) == MEMSUB_OK);
    REQUIRE(memsub_compressor_decompress(c, &packed, back, sizeof back, nullptr) == MEMSUB_OK);
    CHECK(memsub_test::allocations.load() == before);
    memsub_compressor_destroy(c);
}

namespace {

/// A line address of a stream that mixes a loop that fits, a permutation that does not, and a
/// hot set, so hits, misses and evictions all happen.
std::uint64_t line_of(std::uint64_t i) {
    switch (i % 3) {
    case 0:
        return i / 3 % 384;
    case 1:
        return (i * 2654435761u) % 8192;
    default:
        return (i * 40503u) % 97;
    }
}

} // namespace

TEST_CASE("policy handle: the hooks allocate nothing, for every policy") {
    memsub_policy_config config{};
    config.sets = 64;
    config.ways = 8;
    config.line_bytes = 64;
    std::size_t needed = 0;
    memsub_policy_names(&config, nullptr, 0, &needed, nullptr);
    std::string joined(needed, '\0');
    REQUIRE(memsub_policy_names(&config, joined.data(), joined.size(), nullptr, nullptr) ==
            MEMSUB_OK);
    for (const auto& name : memsub_test::split_name_list(joined)) {
        CAPTURE(name);
        memsub_policy* p = nullptr;
        const std::size_t before_create = memsub_test::allocations.load();
        REQUIRE(memsub_policy_create(name.c_str(), &config, &p, nullptr) == MEMSUB_OK);
        CHECK(memsub_test::allocations.load() > before_create);
        // A host's tag array, kept in the test: line per (set, way), 0 = invalid.
        std::vector<std::uint64_t> tags(std::size_t{config.sets} * config.ways, 0);
        const std::size_t before = memsub_test::allocations.load();
        for (std::uint64_t i = 0; i < 100'000; ++i) {
            const std::uint64_t line = line_of(i) + 1;
            const auto set = static_cast<std::uint32_t>(line % config.sets);
            memsub_access a{};
            a.address = line * 64;
            a.pc = 0x400000 + 4 * (i % 13);
            a.kind = i % 5 == 0 ? MEMSUB_ACCESS_STORE : MEMSUB_ACCESS_LOAD;
            std::uint64_t* row = &tags[std::size_t{set} * config.ways];
            std::uint32_t way = config.ways;
            for (std::uint32_t w = 0; w < config.ways; ++w)
                if (row[w] == line) way = w;
            if (way < config.ways) {
                REQUIRE(memsub_policy_on_hit(p, set, way, &a) == MEMSUB_OK);
                continue;
            }
            REQUIRE(memsub_policy_on_miss(p, set, &a) == MEMSUB_OK);
            for (std::uint32_t w = 0; w < config.ways && way == config.ways; ++w)
                if (row[w] == 0) way = w;
            if (way == config.ways) {
                uint8_t bypass = 0;
                REQUIRE(memsub_policy_should_bypass(p, set, &a, &bypass) == MEMSUB_OK);
                if (bypass) continue;
                REQUIRE(memsub_policy_victim(p, set, (std::uint64_t{1} << config.ways) - 1, &a,
                                             &way) == MEMSUB_OK);
                memsub_evicted_block b{};
                b.address = row[way] * 64;
                REQUIRE(memsub_policy_on_evict(p, set, way, &b) == MEMSUB_OK);
            }
            row[way] = line;
            REQUIRE(memsub_policy_on_insert(p, set, way, &a) == MEMSUB_OK);
        }
        CHECK(memsub_test::allocations.load() == before);
        memsub_policy_destroy(p);
    }
}

TEST_CASE("GPU L1 handle: accesses allocate nothing once warm, for every organisation") {
    std::size_t needed = 0;
    memsub_gpu_l1_names(nullptr, 0, &needed);
    std::string joined(needed, '\0');
    REQUIRE(memsub_gpu_l1_names(joined.data(), joined.size(), nullptr) == MEMSUB_OK);
    const auto names = memsub_test::split_name_list(joined);
    CHECK(names.size() >= 10);
    // Line contents a compressor can work on: small integers around a per-line base.
    std::vector<std::uint8_t> line(MEMSUB_GPU_LINE_BYTES);
    for (const auto& name : names) {
        CAPTURE(name);
        memsub_gpu_l1* l1 = nullptr;
        const std::size_t before_create = memsub_test::allocations.load();
        REQUIRE(memsub_gpu_l1_create(name.c_str(), &l1, nullptr) == MEMSUB_OK);
        CHECK(memsub_test::allocations.load() > before_create);
        // Warm: a compressed L1's first SC² code-book builds grow the books' tables and the
        // build's working storage to the value-frequency table's size (the first 100,000
        // accesses here); later rebuilds reuse them.
        std::size_t before = memsub_test::allocations.load();
        std::uint64_t hits = 0, epochs = 0;
        for (std::uint64_t i = 0; i < 400'000; ++i) {
            if (i == 200'000) before = memsub_test::allocations.load();
            const std::uint64_t l = line_of(i);
            for (std::size_t w = 0; w < line.size() / 4; ++w) {
                const auto v = static_cast<std::uint32_t>(l * 1000 + (w * (l % 7)) % 50);
                std::memcpy(&line[w * 4], &v, 4);
            }
            memsub_access a{};
            a.address = l * MEMSUB_GPU_LINE_BYTES;
            a.pc = 0x1000 + 8 * (i % 17);
            a.kind = i % 9 == 0 ? MEMSUB_ACCESS_STORE : MEMSUB_ACCESS_LOAD;
            memsub_gpu_request r{};
            r.divergence = 1 + static_cast<std::uint32_t>(i % 5 == 0 ? 8 : 0);
            r.cycle = i * 4;
            r.line_data = line.data();
            memsub_gpu_result out{};
            REQUIRE(memsub_gpu_l1_access(l1, &a, &r, &out) == MEMSUB_OK);
            hits += out.hit;
            if (out.epoch_ended) {
                ++epochs;
                memsub_gpu_l1_set_latency_tolerance(l1, 20 + epochs % 40); // LATTE-CC only
            }
        }
        CHECK(memsub_test::allocations.load() == before);
        CHECK(hits > 0);
        memsub_gpu_l1_destroy(l1);
    }
}

namespace {
void count_completion(void* context, const memsub_completion*) {
    ++*static_cast<std::uint64_t*>(context);
}
} // namespace

TEST_CASE("DRAM handle: enqueue, advance and drain allocate nothing once warm") {
    for (const std::string controller : {"fr_fcfs", "fcfs", "partitioned", "hmc_vault", "flat"}) {
        CAPTURE(controller);
        memsub_dram_config config{};
        config.controller = controller.c_str();
        memsub_dram* d = nullptr;
        REQUIRE(memsub_dram_create(&config, &d, nullptr) == MEMSUB_OK);
        std::uint64_t completed = 0, accepted = 0, cycle = 0, id = 0;
        const auto run = [&](std::uint64_t requests) {
            for (std::uint64_t i = 0; i < requests; ++i) {
                memsub_mem_request q{};
                q.id = id++;
                q.address = line_of(q.id) * 64 * 97;
                q.arrival_cycle = cycle;
                q.requester = static_cast<std::uint32_t>(q.id % 4);
                q.is_write = q.id % 4 == 0;
                std::uint8_t result = 0;
                REQUIRE(memsub_dram_enqueue(d, &q, &result) == MEMSUB_OK);
                accepted += result == MEMSUB_ENQUEUE_ACCEPTED;
                cycle += 3;
                REQUIRE(memsub_dram_advance_to(d, cycle) == MEMSUB_OK);
                REQUIRE(memsub_dram_drain(d, &count_completion, &completed, nullptr) == MEMSUB_OK);
            }
        };
        run(20'000); // warm: queues and any completion buffers reach their working size
        const std::size_t before = memsub_test::allocations.load();
        run(100'000);
        CHECK(memsub_test::allocations.load() == before);
        // A request every 3 cycles saturates some controllers (refused requests are dropped
        // here), so the counts only show the paths ran.
        CHECK(completed > 20'000);
        std::uint64_t pending = 0;
        REQUIRE(memsub_dram_pending(d, &pending) == MEMSUB_OK);
        CHECK(accepted == completed + pending);
        memsub_dram_destroy(d);
    }
}
