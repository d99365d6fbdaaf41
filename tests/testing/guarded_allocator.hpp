// An allocator that ends every allocation at a page boundary followed by an inaccessible page,
// so that indexing past the end of a container faults (SIGSEGV) at once, deterministically.
// Plain heap overflows fault only sometimes; the contract-kit tests use this to make "a policy
// sizes its per-set state by ways" crash the same way on every run. POSIX only.
#pragma once

#include <memsub/testing/detail/isolated_pass.hpp>

#if MEMSUB_TESTING_CAN_FORK
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <new>

namespace memsub_test {

template <class T>
struct guarded_allocator {
    using value_type = T;
    guarded_allocator() = default;
    template <class U>
    guarded_allocator(const guarded_allocator<U>&) noexcept {}

    static std::size_t page() noexcept { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }
    static std::size_t data_pages(std::size_t n) noexcept {
        return (n * sizeof(T) + page() - 1) / page();
    }

    T* allocate(std::size_t n) {
        const std::size_t pages = data_pages(n);
        void* base = ::mmap(nullptr, (pages + 1) * page(), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED) throw std::bad_alloc();
        char* guard = static_cast<char*>(base) + pages * page();
        ::mprotect(guard, page(), PROT_NONE);
        return reinterpret_cast<T*>(guard - n * sizeof(T));
    }
    void deallocate(T* p, std::size_t n) noexcept {
        const std::size_t pages = data_pages(n);
        char* guard = reinterpret_cast<char*>(p) + n * sizeof(T);
        ::munmap(guard - pages * page(), (pages + 1) * page());
    }
    template <class U>
    bool operator==(const guarded_allocator<U>&) const noexcept {
        return true;
    }
};

} // namespace memsub_test

#endif
