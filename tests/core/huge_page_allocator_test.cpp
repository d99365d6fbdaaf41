#include <doctest/doctest.h>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/huge_page_allocator.hpp>
#include <memsub/replacement/lru.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace memsub;

namespace {

// The VmFlags line of the mapping of /proc/self/smaps that contains `address`, or "" when there
// is no such file (not Linux) or no such mapping.
[[maybe_unused]] std::string vm_flags_of(const void* address) {
    std::ifstream smaps("/proc/self/smaps");
    const auto where = reinterpret_cast<std::uintptr_t>(address);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        std::uintptr_t first = 0, last = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> first >> dash >> last && dash == '-') {
            inside = first <= where && where < last;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0) return line;
    }
    return {};
}

// Whether the kernel has transparent huge pages at all (without them madvise refuses the advice,
// which the allocator then ignores).
[[maybe_unused]] bool kernel_has_thp() {
    return static_cast<bool>(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"));
}

// Kibibytes of this process's mappings advised MADV_HUGEPAGE, or -1 without /proc/self/smaps.
[[maybe_unused]] long advised_kib() {
    std::ifstream smaps("/proc/self/smaps");
    if (!smaps) return -1;
    long total = 0, size_kib = 0;
    for (std::string line; std::getline(smaps, line);) {
        if (line.rfind("Size:", 0) == 0) size_kib = std::stol(line.substr(5));
        if (line.rfind("VmFlags:", 0) == 0 && line.find(" hg") != std::string::npos)
            total += size_kib;
    }
    return total;
}

} // namespace

TEST_CASE("huge_page_allocator: small arrays are cache-line aligned") {
    huge_page_allocator<std::uint64_t> alloc;
    for (std::size_t n : {1u, 7u, 64u, 1000u}) {
        std::uint64_t* p = alloc.allocate(n);
        CHECK(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
        for (std::size_t i = 0; i < n; ++i) p[i] = i;
        alloc.deallocate(p, n);
    }
}

TEST_CASE("huge_page_allocator: a large array is whole huge pages, zeroed, advised") {
    huge_page_allocator<std::uint64_t> alloc;
    // 2 MiB + 8 bytes: rounds up to two huge pages.
    const std::size_t n = huge_page_bytes / sizeof(std::uint64_t) + 1;
    std::uint64_t* p = alloc.allocate(n);
    CHECK(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
    if constexpr (huge_pages_requested) { // a fresh mapping; operator new does not zero
        bool zero = true;
        for (std::size_t i = 0; i < n; ++i) zero = zero && p[i] == 0;
        CHECK(zero);
    }
    for (std::size_t i = 0; i < n; ++i) p[i] = i * 3;
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += p[i];
    CHECK(sum == 3 * (n * (n - 1) / 2));
    if constexpr (huge_pages_requested) {
        CHECK(reinterpret_cast<std::uintptr_t>(p) % huge_page_bytes == 0);
        const std::string flags = vm_flags_of(p);
        // "hg": the mapping carries MADV_HUGEPAGE (proc(5)); its last byte is in the same one.
        if (!flags.empty() && kernel_has_thp()) {
            CHECK(flags.find(" hg") != std::string::npos);
            CHECK(vm_flags_of(p + n - 1) == flags);
        }
    }
    alloc.deallocate(p, n);
}

TEST_CASE("huge_page_allocator: a small array is not advised") {
    if constexpr (huge_pages_requested) {
        std::vector<std::uint64_t, huge_page_allocator<std::uint64_t>> small(1024, 1);
        const std::string flags = vm_flags_of(small.data());
        if (!flags.empty()) CHECK(flags.find(" hg") == std::string::npos);
    }
}

TEST_CASE("huge_page_allocator: vectors grow, copy and move across the threshold") {
    std::vector<std::uint32_t, huge_page_allocator<std::uint32_t>> v;
    const std::size_t large = huge_page_bytes / sizeof(std::uint32_t) * 2 + 5;
    for (std::size_t i = 0; i < large; ++i) v.push_back(static_cast<std::uint32_t>(i));
    auto copy = v;
    auto moved = std::move(v);
    REQUIRE(copy.size() == large);
    REQUIRE(moved.size() == large);
    bool same = true;
    for (std::size_t i = 0; i < large; ++i)
        same = same && copy[i] == static_cast<std::uint32_t>(i) && moved[i] == copy[i];
    CHECK(same);
    copy.resize(3);
    copy.shrink_to_fit();
    CHECK(copy[2] == 2);
}

TEST_CASE("a large cache's arrays are in advised huge pages, a small cache's are not") {
    if constexpr (huge_pages_requested) {
        const long before = advised_kib();
        if (before < 0 || !kernel_has_thp()) return; // nothing to read, or no advice taken
        {
            cache::set_associative_cache<replacement::lru> small(geometry{64, 16, 64});
            CHECK(advised_kib() == before);
        }
        // 64 Ki sets x 16 ways: 8 MiB of tags and 4 MiB of set headers.
        cache::set_associative_cache<replacement::lru> large(geometry{65536, 16, 64});
        for (std::uint64_t s = 0; s < 65536; ++s)
            large.access(memsub::access{.address = byte_address{s * 64}});
        CHECK(large.access(memsub::access{.address = byte_address{12345 * 64}}).hit);
        CHECK(advised_kib() - before >= 12 * 1024);
    }
}
