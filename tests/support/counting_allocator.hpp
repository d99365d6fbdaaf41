// A test-only device: the executable's replaceable global allocation functions ([new.delete])
// replaced by counting ones, so a test can show that a path never allocates (read
// `memsub_test::allocations` before and after it). Include this header in exactly ONE
// translation unit of a test executable (the replacements are ordinary definitions); the
// library never does this. Deletes release with free().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace memsub_test {
/// Allocations made through the global allocation functions since the program started.
inline std::atomic<std::size_t> allocations{0};

namespace detail {

inline void* counted(std::size_t n) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(n != 0 ? n : 1);
}
[[gnu::noinline]] inline void release(void* p) noexcept {
    std::free(p);
}
inline void* counted_aligned(std::size_t n, std::align_val_t a) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    const auto al = static_cast<std::size_t>(a);
    return std::aligned_alloc(al, (n + al - 1) / al * al);
}
} // namespace detail
} // namespace memsub_test

// The replaceable global allocation functions ([new.delete]); delete releases with free().
void* operator new(std::size_t n) {
    if (void* p = memsub_test::detail::counted(n)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
    if (void* p = memsub_test::detail::counted(n)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    return memsub_test::detail::counted(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    return memsub_test::detail::counted(n);
}
void* operator new(std::size_t n, std::align_val_t a) {
    if (void* p = memsub_test::detail::counted_aligned(n, a)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) {
    if (void* p = memsub_test::detail::counted_aligned(n, a)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return memsub_test::detail::counted_aligned(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return memsub_test::detail::counted_aligned(n, a);
}
void operator delete(void* p) noexcept {
    memsub_test::detail::release(p);
}
void operator delete[](void* p) noexcept {
    memsub_test::detail::release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    memsub_test::detail::release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    memsub_test::detail::release(p);
}

void operator delete(void* p, const std::nothrow_t&) noexcept {
    memsub_test::detail::release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    memsub_test::detail::release(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
    memsub_test::detail::release(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    memsub_test::detail::release(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    memsub_test::detail::release(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    memsub_test::detail::release(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    memsub_test::detail::release(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    memsub_test::detail::release(p);
}
