// memsub — an allocator for a cache's large per-set arrays: every array starts on a cache line,
// and an array of 2 MiB or more lies in memory the OS is asked to back with transparent huge
// pages.
//
// Decision: the per-set arrays of a large cache (tags, set headers, policy rows) are allocated
// in transparent huge pages where the OS has them. A simulated 64 Ki-set cache keeps several MiB
// of metadata, and consecutive accesses touch lines of unrelated sets spread over thousands of
// 4 KiB pages; one 2 MiB page covers 512 of them. Linux backs anonymous memory with huge pages
// only where asked (`madvise(MADV_HUGEPAGE)`) unless the machine is set to "always", and a
// std::vector never asks. Only arrays of at least `huge_page_bytes` are placed so: below that
// the array would round up to a whole huge page. On other systems, under AddressSanitizer, and
// with MEMSUB_NO_HUGE_PAGES defined before any memsub header, every array comes from the aligned
// operator new, as with aligned_allocator (define it alike in every translation unit of a
// program: it changes this allocator). The request is a hint: where the kernel has THP disabled
// or no huge page free, the memory is ordinary pages and everything works the same. Figures:
// docs/performance/miss_path.md, "Huge pages for the large arrays".
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include <memsub/core/aligned_allocator.hpp>

// Under AddressSanitizer every array comes from operator new, so that its bounds keep their
// redzones (a mapping of whole pages has none up to its rounded end).
#if defined(__SANITIZE_ADDRESS__)
#define MEMSUB_DETAIL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMSUB_DETAIL_ASAN 1
#endif
#endif

#if defined(__linux__) && !defined(MEMSUB_NO_HUGE_PAGES) && !defined(MEMSUB_DETAIL_ASAN)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE)
#define MEMSUB_DETAIL_HUGE_PAGES 1
#endif
#endif

namespace memsub {

/// The huge page size requested (x86-64's and AArch64's 2 MiB with 4 KiB base pages), and the
/// smallest array that is placed in huge pages.
inline constexpr std::size_t huge_page_bytes = std::size_t{1} << 21;

/// Whether this build asks the OS for huge pages (Linux with MADV_HUGEPAGE, MEMSUB_NO_HUGE_PAGES
/// not defined, no AddressSanitizer).
#if defined(MEMSUB_DETAIL_HUGE_PAGES)
inline constexpr bool huge_pages_requested = true;
#else
inline constexpr bool huge_pages_requested = false;
#endif

/// std::allocator's interface. Every allocation is 64-byte aligned; one of at least
/// `huge_page_bytes` (where `huge_pages_requested`) is a private anonymous mapping of whole
/// huge pages, 2 MiB aligned, advised MADV_HUGEPAGE, and zero-filled.
template <class T>
struct huge_page_allocator {
    static_assert(alignof(T) <= 64);
    using value_type = T;
    static constexpr std::size_t line_alignment = 64;

    huge_page_allocator() noexcept = default;
    template <class U>
    huge_page_allocator(const huge_page_allocator<U>&) noexcept {}

    [[nodiscard]] T* allocate(std::size_t n) {
        // Room for the rounding up to whole huge pages, and the extra page map_huge maps.
        if (n > (static_cast<std::size_t>(-1) - 2 * huge_page_bytes) / sizeof(T))
            throw std::bad_array_new_length();
#if defined(MEMSUB_DETAIL_HUGE_PAGES)
        if (n * sizeof(T) >= huge_page_bytes) return static_cast<T*>(map_huge(n * sizeof(T)));
#endif
        return small_arrays{}.allocate(n);
    }

    void deallocate(T* p, std::size_t n) noexcept {
#if defined(MEMSUB_DETAIL_HUGE_PAGES)
        if (n * sizeof(T) >= huge_page_bytes) {
            ::munmap(p, whole_pages(n * sizeof(T)));
            return;
        }
#endif
        small_arrays{}.deallocate(p, n);
    }

    template <class U>
    friend bool operator==(const huge_page_allocator&, const huge_page_allocator<U>&) noexcept {
        return true;
    }

private:
    using small_arrays = aligned_allocator<T, line_alignment>;

    static constexpr std::size_t whole_pages(std::size_t bytes) noexcept {
        return (bytes + huge_page_bytes - 1) & ~(huge_page_bytes - 1);
    }

#if defined(MEMSUB_DETAIL_HUGE_PAGES)
    // mmap aligns to the base page only: map one huge page more than needed, then unmap the
    // unaligned head and the rest of the tail, so the mapping is exactly the aligned pages.
    static void* map_huge(std::size_t bytes) {
        const std::size_t length = whole_pages(bytes);
        void* raw = ::mmap(nullptr, length + huge_page_bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) throw std::bad_alloc();
        const auto start = reinterpret_cast<std::uintptr_t>(raw);
        const std::uintptr_t aligned = (start + huge_page_bytes - 1) & ~(huge_page_bytes - 1);
        const std::size_t head = aligned - start;
        if (head != 0) ::munmap(raw, head);
        if (huge_page_bytes - head != 0)
            ::munmap(reinterpret_cast<void*>(aligned + length), huge_page_bytes - head);
        // A hint: refused (THP disabled, an old kernel), the pages are ordinary ones.
        ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
        return reinterpret_cast<void*>(aligned);
    }
#endif
};

} // namespace memsub
