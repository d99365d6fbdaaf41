// trace::page_allocator (trace/page_allocator.hpp): frames in first-touch order from one counter
// shared by the processes, the page offset kept, a page's frame fixed at its first touch,
// processes apart at equal virtual addresses, the frames running out, configuration errors.
#include <doctest/doctest.h>

#include <memsub/core/errors.hpp>
#include <memsub/trace/page_allocator.hpp>

#include <cstdint>

using memsub::trace::page_allocator;

TEST_CASE("page_allocator: first-touch frames shared by the processes, offsets kept") {
    page_allocator pages({.processes = 2, .page_bytes = 4096, .memory_bytes = 1 << 20});
    CHECK(pages.frames() == 256);
    CHECK(pages.translate(0, 0x7fff'0000'1234) == 0x234);            // frame 0
    CHECK(pages.translate(1, 0x7fff'0000'1234) == 1 * 4096 + 0x234); // same address, own frame
    CHECK(pages.translate(0, 0x10'0000'0008) == 2 * 4096 + 8);
    CHECK(pages.translate(0, 0x7fff'0000'1ff8) == 0xff8); // the first page again: frame 0
    CHECK(pages.translate(1, 0x7fff'0000'1000) == 1 * 4096);
    CHECK(pages.frames_used() == 3);
}

TEST_CASE("page_allocator: touching more pages than frames throws") {
    page_allocator pages({.processes = 1, .page_bytes = 64, .memory_bytes = 4 * 64});
    for (std::uint64_t p = 0; p < 4; ++p) CHECK(pages.translate(0, p * 1000 * 64) == p * 64);
    CHECK(pages.translate(0, 3 * 1000 * 64 + 5) == 3 * 64 + 5); // a known page still translates
    CHECK_THROWS_AS(pages.translate(0, 9 * 1000 * 64), memsub::trace::frames_exhausted);
}

TEST_CASE("page_allocator: configuration errors at construction") {
    CHECK_THROWS_AS(page_allocator({.processes = 0}), memsub::config_error);
    CHECK_THROWS_AS(page_allocator({.page_bytes = 3000}), memsub::config_error);
    CHECK_THROWS_AS(page_allocator({.page_bytes = 4096, .memory_bytes = 4096 + 1}),
                    memsub::config_error);
    CHECK_NOTHROW(page_allocator({.processes = 8, .page_bytes = 4096, .memory_bytes = 4096}));
}
