#include <doctest/doctest.h>

#include <memsub/core/byte_match.hpp>
#include <memsub/core/rng.hpp>

#include <algorithm>
#include <array>

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
