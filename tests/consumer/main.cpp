// Uses the installed memsub: a 64 KiB 4-way cache with LRU over a loop that fits, then a scan.
#include <memsub/memsub.hpp>

#include <cstdio>

int main() {
    memsub::cache::set_associative_cache<memsub::replacement::lru> llc(
        memsub::geometry{.sets = 256, .ways = 4, .line_bytes = 64});
    for (int pass = 0; pass < 4; ++pass)
        for (std::uint64_t line = 0; line < 512; ++line)
            llc.access(memsub::access{.address = memsub::byte_address{line * 64}});
    const auto& s = llc.stats();
    std::printf("consumer: %s, %llu accesses, %llu misses\n", memsub::version_string,
                static_cast<unsigned long long>(s.accesses()),
                static_cast<unsigned long long>(s.misses()));
    // 512 lines fit in 1024 lines of capacity: only the first pass misses.
    return s.misses() == 512 && s.hits() == 3 * 512 ? 0 : 1;
}
