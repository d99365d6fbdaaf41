// compress(), size_bits() and decompress() never allocate (concept.hpp CI1, design principle 4:
// no heap allocation on the per-access path). This file replaces the executable's global
// allocation functions with counting ones (a test-only device; the library never does this) and
// runs every compressor between two readings of the counter.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <tuple>
#include <vector>

#include <memsub/compression/all.hpp>

#include "line_generators.hpp"

#include "../support/counting_allocator.hpp"

namespace {
using memsub_test::allocations;
} // namespace

namespace mc = memsub::compression;

TEST_CASE("no allocation: the counting allocator counts") {
    const std::size_t before = allocations.load();
    auto p = std::make_unique<std::array<std::byte, 100>>();
    std::vector<int> v(10);
    CHECK(allocations.load() == before + 2);
}

TEST_CASE("no allocation: size_bits, compress and decompress of every compressor (3 line sizes)") {
    for (const std::uint32_t L : {32u, 64u, 128u}) {
        CAPTURE(L);
        // Set-up allocates freely: lines, a trained SC² code book, the compressors.
        memsub::xoshiro256ss rng{L};
        std::vector<std::array<std::byte, 128>> lines(2000);
        for (std::size_t i = 0; i < lines.size(); ++i)
            memsub_test::make_line(static_cast<memsub_test::line_kind>(
                                       i % static_cast<std::size_t>(memsub_test::line_kind_count)),
                                   rng, std::span<std::byte>{lines[i].data(), L});
        mc::value_frequency_table vft;
        for (const auto& l : lines) vft.on_insert(std::span<const std::byte>{l.data(), L});
        const auto book = vft.build_code_book();
        auto build = [&]<class C>(std::type_identity<C>) {
            typename C::params p{};
            p.line_bytes = L;
            if constexpr (std::is_same_v<C, mc::sc2>) p.code_book = book;
            if constexpr (std::is_same_v<C, mc::best_of_all>)
                std::get<mc::sc2::params>(p.members).code_book = book;
            return C{p};
        };
        const auto compressors = std::apply(
            [&](auto... c) { return std::make_tuple(build(std::type_identity<decltype(c)>{})...); },
            mc::all_compressors{});
        const auto best = build(std::type_identity<mc::best_of_all>{});
        std::array<std::byte, 128> out{};
        std::uint64_t sum = 0;
        bool all_ok = true;

        const std::size_t before = allocations.load();
        auto run = [&](const auto& c) {
            for (const auto& l : lines) {
                const std::span<const std::byte> line{l.data(), L};
                sum += c.size_bits(line);
                const mc::compressed_line z = c.compress(line);
                all_ok = all_ok && c.decompress(z, std::span<std::byte>{out.data(), L}).ok();
                sum += z.bits;
            }
        };
        std::apply([&](const auto&... c) { (run(c), ...); }, compressors);
        run(best);
        for (const auto& l : lines) { // SC² sampling on the access path
            vft.on_insert(std::span<const std::byte>{l.data(), L});
            vft.on_evict(std::span<const std::byte>{l.data(), L});
        }
        const std::size_t after = allocations.load();

        CHECK(all_ok);
        CHECK(sum > 0);
        CHECK(after == before);

        // A code-book rebuild in place allocates nothing once its buffers have grown (LATTE-CC
        // rebuilds the GPU's book every period).
        mc::huffman_code_book rebuilt = mc::huffman_code_book::escape_only();
        vft.build_code_book_into(rebuilt);
        vft.build_code_book_into(rebuilt);
        const std::size_t before_rebuild = allocations.load();
        vft.build_code_book_into(rebuilt);
        CHECK(allocations.load() == before_rebuild);
        CHECK(rebuilt.symbol_count() > 0);
    }
}
