#include <doctest/doctest.h>

#include <memsub/core/byte_match.hpp>
#include <memsub/core/rng.hpp>

#include <algorithm>
#include <array>
#include <bit>

using namespace memsub;

TEST_CASE("byte_equal_mask agrees with the scalar reference") {
    xoshiro256ss rng(3);
    alignas(16) std::array<std::uint8_t, 64> row{};
    for (int trial = 0; trial < 20000; ++trial) {
        for (auto& b : row) b = static_cast<std::uint8_t>(rng.below(8));
        const auto padded = static_cast<std::uint32_t>(16 * (1 + rng.below(4)));
        const auto v = static_cast<std::uint8_t>(rng.below(8));
        if (byte_equal_mask(row.data(), padded, v) != byte_equal_mask_scalar(row.data(), padded, v))
            FAIL("mismatch at trial ", trial);
    }
    CHECK(padded_row_bytes(1) == 16);
    CHECK(padded_row_bytes(16) == 16);
    CHECK(padded_row_bytes(17) == 32);
    CHECK(padded_row_bytes(64) == 64);
}

TEST_CASE("byte_max_lanes names the selected lanes holding their largest byte") {
    xoshiro256ss rng(5);
    alignas(16) std::array<std::uint8_t, 64> row{};
    for (int trial = 0; trial < 20000; ++trial) {
        // Small values (many ties, zeros in selected lanes) and 0xff padding-like bytes.
        for (auto& b : row)
            b = rng.below(8) == 0 ? std::uint8_t{0xff} : static_cast<std::uint8_t>(rng.below(8));
        const auto padded = static_cast<std::uint32_t>(16 * (1 + rng.below(4)));
        const std::uint64_t in_row =
            padded == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << padded) - 1;
        std::uint64_t lanes = 0;
        while (lanes == 0)
            lanes = rng.below(4) == 0 ? std::uint64_t{1} << rng.below(padded) : rng() & in_row;
        const std::uint8_t best = byte_max_masked_scalar(row.data(), padded, lanes);
        std::uint64_t expected = 0;
        for (std::uint32_t i = 0; i < padded; ++i)
            if (((lanes >> i) & 1u) != 0 && row[i] == best) expected |= std::uint64_t{1} << i;
        if (byte_max_lanes(row.data(), padded, lanes) != expected)
            FAIL("mismatch at trial ", trial);
    }
    // An LRU row: the eligible entry lowest in the stack, even at position 0.
    alignas(16) std::array<std::uint8_t, 16> stack{};
    for (std::uint32_t e = 0; e < 16; ++e) stack[e] = static_cast<std::uint8_t>(15 - e);
    CHECK(byte_max_lanes(stack.data(), 16, 0x8000) == 0x8000);
    CHECK(byte_max_lanes(stack.data(), 16, 0x8100) == 0x0100);
    CHECK(byte_max_lanes(stack.data(), 16, 0x0003) == 0x0001);
}

TEST_CASE(
    "recency_promote(_position) / recency_demote keep a permutation and match the naive update") {
    xoshiro256ss rng(4);
    for (std::uint32_t entries : {1u, 2u, 5u, 16u, 23u, 64u}) {
        CAPTURE(entries);
        const std::uint32_t padded = padded_row_bytes(entries);
        std::array<std::uint8_t, 64> row{};
        std::array<std::uint8_t, 64> ref{};
        row.fill(0xff);
        for (std::uint32_t e = 0; e < entries; ++e) row[e] = ref[e] = static_cast<std::uint8_t>(e);
        for (int step = 0; step < 5000; ++step) {
            const auto lane = static_cast<std::uint32_t>(rng.below(entries));
            const std::uint8_t old = ref[lane];
            const auto op = rng.below(3);
            if (op == 2) { // promote by position (O7's replace uses the bottom position)
                recency_promote_position(row.data(), padded, old);
                for (std::uint32_t e = 0; e < entries; ++e) ref[e] += ref[e] < old;
                ref[lane] = 0;
            } else if (op == 0) {
                recency_promote(row.data(), padded, lane);
                for (std::uint32_t e = 0; e < entries; ++e) ref[e] += ref[e] < old;
                ref[lane] = 0;
            } else {
                recency_demote(row.data(), padded, lane, static_cast<std::uint8_t>(entries - 1));
                for (std::uint32_t e = 0; e < entries; ++e) ref[e] -= ref[e] > old;
                ref[lane] = static_cast<std::uint8_t>(entries - 1);
            }
            if (!std::equal(ref.begin(), ref.begin() + entries, row.begin()))
                FAIL("diverged at step ", step);
            for (std::uint32_t e = entries; e < padded; ++e)
                if (row[e] != 0xff) FAIL("padding changed at step ", step);
        }
        std::array<std::uint8_t, 64> sorted = row;
        std::sort(sorted.begin(), sorted.begin() + entries);
        for (std::uint32_t e = 0; e < entries; ++e) CHECK(sorted[e] == e);
    }
}

TEST_CASE("row stores (row_byte) are seen by every reader of the row, in program order") {
    // The access path writes rows only through store_row_byte / store_row16 and reads them as
    // bytes, through the vector kernels or as aliasing_u64 words (core/byte_match.hpp's
    // Decision): interleaved, every reader sees the last store, a byte store after a vector
    // store to the same bytes included.
    xoshiro256ss rng(6);
    alignas(16) std::array<std::uint8_t, 64> row{};
    std::array<std::uint8_t, 64> ref{};
    for (int step = 0; step < 20000; ++step) {
        const auto lane = static_cast<std::uint32_t>(rng.below(64));
        const auto v = static_cast<std::uint8_t>(rng.below(8));
#if defined(__SSE2__)
        if (rng.below(2) == 0) {
            const std::uint32_t chunk = lane & ~15u;
            const auto w = static_cast<std::uint8_t>(rng.below(8));
            store_row16(row.data() + chunk, _mm_set1_epi8(static_cast<char>(w)));
            std::fill(ref.begin() + chunk, ref.begin() + chunk + 16, w);
        }
#endif
        store_row_byte(row.data() + lane, v);
        ref[lane] = v;
        if (row[lane] != v) FAIL("byte read at step ", step);
        if (byte_equal_mask(row.data(), 64, v) != byte_equal_mask_scalar(ref.data(), 64, v))
            FAIL("vector read at step ", step);
        if constexpr (std::endian::native == std::endian::little) {
            const std::uint64_t word = reinterpret_cast<const aliasing_u64*>(row.data())[lane / 8];
            if (static_cast<std::uint8_t>(word >> (8 * (lane % 8))) != v)
                FAIL("word read at step ", step);
        }
    }
    CHECK(std::equal(ref.begin(), ref.end(), row.begin()));
}
