// The policy writer's set_rows (replacement/set_rows.hpp): rows start filled and 16-byte
// aligned, `place` moves every row into engine memory at the engine's stride and keeps them
// there, a copy owns its rows (also a copy of hosted rows), a move keeps hosted rows in place.
// The kit header is included first, so this file also checks that it compiles on its own.
#include <memsub/replacement/set_rows.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

using namespace memsub;
using memsub::replacement::set_rows;

namespace {

std::uint8_t byte_at(const set_rows& r, std::uint32_t set, std::uint32_t i) {
    return std::to_integer<std::uint8_t>(r.row(set_index{set})[i]);
}

void write(set_rows& r, std::uint32_t set, std::uint32_t i, std::uint8_t v) {
    r.row(set_index{set})[i] = std::byte{v};
}

/// Engine-side storage for `sets` rows at `stride` bytes, 16-byte aligned.
template <std::size_t Bytes>
struct alignas(64) host_block {
    std::array<std::byte, Bytes> bytes{};
};

} // namespace

TEST_CASE("set_rows: filled, aligned rows, one per set") {
    set_rows rows(5, 32, 0x7f);
    CHECK(rows.sets() == 5);
    CHECK(rows.row_bytes() == 32);
    for (std::uint32_t s = 0; s < 5; ++s) {
        CHECK(reinterpret_cast<std::uintptr_t>(rows.row(set_index{s})) % 16 == 0);
        for (std::uint32_t i = 0; i < 32; ++i) CHECK(byte_at(rows, s, i) == 0x7f);
    }
    // Rows do not overlap: writing one set's row leaves its neighbours alone.
    for (std::uint32_t i = 0; i < 32; ++i) write(rows, 2, i, 1);
    for (std::uint32_t i = 0; i < 32; ++i) {
        CHECK(byte_at(rows, 1, i) == 0x7f);
        CHECK(byte_at(rows, 2, i) == 1);
        CHECK(byte_at(rows, 3, i) == 0x7f);
    }
}

TEST_CASE("set_rows: place copies every row to first + s * stride and keeps it there") {
    set_rows rows(4, 16, 0);
    for (std::uint32_t s = 0; s < 4; ++s)
        for (std::uint32_t i = 0; i < 16; ++i)
            write(rows, s, i, static_cast<std::uint8_t>(16 * s + i));

    constexpr std::size_t stride = 64;
    host_block<4 * stride> host;
    rows.place(host.bytes.data(), stride);
    for (std::uint32_t s = 0; s < 4; ++s) {
        CHECK(rows.row(set_index{s}) == host.bytes.data() + s * stride);
        for (std::uint32_t i = 0; i < 16; ++i)
            CHECK(std::to_integer<int>(host.bytes[s * stride + i]) == static_cast<int>(16 * s + i));
    }
    // Writes through the rows land in the host's memory.
    write(rows, 3, 5, 0xee);
    CHECK(std::to_integer<int>(host.bytes[3 * stride + 5]) == 0xee);
}

TEST_CASE("set_rows: a copy owns its rows, hosted or not; a move keeps hosted rows in place") {
    set_rows own(2, 16, 3);
    set_rows copy = own;
    write(copy, 1, 0, 9);
    CHECK(byte_at(own, 1, 0) == 3);
    CHECK(byte_at(copy, 1, 0) == 9);

    host_block<2 * 32> host;
    own.place(host.bytes.data(), 32);
    set_rows copy_of_hosted = own;
    CHECK(copy_of_hosted.row(set_index{0}) != own.row(set_index{0}));
    CHECK(byte_at(copy_of_hosted, 1, 15) == 3);
    write(copy_of_hosted, 0, 0, 42);
    CHECK(byte_at(own, 0, 0) == 3);

    set_rows assigned(1, 16, 0);
    assigned = own;
    CHECK(assigned.sets() == 2);
    CHECK(assigned.row(set_index{1}) != own.row(set_index{1}));
    CHECK(byte_at(assigned, 1, 7) == 3);

    set_rows moved = std::move(own);
    CHECK(moved.row(set_index{1}) == host.bytes.data() + 32);
}
