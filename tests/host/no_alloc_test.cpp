// The C interface's access paths allocate nothing: the batch, single accesses and the
// compressors' size, compress and decompress, counted by replacing this executable's global
// allocation functions, which the shared library's calls reach too (creating a cache, which
// allocates, shows that they do).
#include <doctest/doctest.h>

#include "../support/counting_allocator.hpp"

#include <memsub/host/memsub_host.h>

#include <cstdint>
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
