// memsub — an allocator that starts every array on a cache-line boundary.
//
// The set engine keeps each set's tags contiguous (16 ways × 8 B = two 64-byte lines). With
// std::allocator the array starts wherever malloc puts it (16-byte aligned), so a set's tags may
// span three lines instead of two, and the metadata an access touches (and with it the speed of
// the same cache built twice) depended on where the heap happened to be: two instances of one
// loop on one stream differed by up to 10 % in bench_replacement. Aligning the start makes every
// set's row begin on a line boundary whenever the row is a whole number of lines.
// The engine's own per-set arrays come from huge_page_allocator.hpp, which aligns them the same
// way and puts the large ones in huge pages.
#pragma once

#include <cstddef>
#include <new>

namespace memsub {

/// std::allocator's interface with every allocation aligned to `Alignment` bytes (a power of
/// two, at least alignof(T)).
template <class T, std::size_t Alignment = 64>
struct aligned_allocator {
    static_assert(Alignment >= alignof(T) && (Alignment & (Alignment - 1)) == 0);
    using value_type = T;
    template <class U>
    struct rebind {
        using other = aligned_allocator<U, Alignment>;
    };

    aligned_allocator() noexcept = default;
    template <class U>
    aligned_allocator(const aligned_allocator<U, Alignment>&) noexcept {}

    [[nodiscard]] T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
        return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{Alignment}));
    }
    // The unsized aligned delete: clang before 19 declares the sized one only with
    // -fsized-deallocation.
    void deallocate(T* p, std::size_t) noexcept {
        ::operator delete (p, std::align_val_t{Alignment});
    }

    template <class U>
    friend bool operator==(const aligned_allocator&,
                           const aligned_allocator<U, Alignment>&) noexcept {
        return true;
    }
};

} // namespace memsub
