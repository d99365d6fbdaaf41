// memsub — build configuration macros.
//
// MEMSUB_ASSERT(cond) checks an internal invariant on a hot path. It is active unless NDEBUG is
// defined; a host may define MEMSUB_ASSERT itself before including any memsub header (for
// example to route failures into its own logging) — memsub then uses the host's definition.
#pragma once

#include <cstdio>
#include <cstdlib>

#ifndef MEMSUB_ASSERT
#ifdef NDEBUG
#define MEMSUB_ASSERT(cond) static_cast<void>(0)
#else
#define MEMSUB_ASSERT(cond)                                                                        \
    ((cond) ? static_cast<void>(0) : ::memsub::detail::assert_fail(#cond, __FILE__, __LINE__))
#endif
#endif

namespace memsub::detail {
[[noreturn]] inline void assert_fail(const char* expr, const char* file, int line) noexcept {
    std::fprintf(stderr, "memsub: internal check failed: %s (%s:%d)\n", expr, file, line);
    std::abort();
}
} // namespace memsub::detail

// MEMSUB_ASSUME(cond) states a hot path's precondition for the optimiser (a mask that cannot be
// empty, so a count of its trailing zeros needs no case for 64). Checked as MEMSUB_ASSERT
// unless NDEBUG; with NDEBUG a false `cond` is undefined behaviour, so use it only where the
// caller's own logic guarantees `cond` and the test builds (assertions on) exercise it.
#if defined(NDEBUG) && (defined(__GNUC__) || defined(__clang__))
#define MEMSUB_ASSUME(cond) ((cond) ? static_cast<void>(0) : __builtin_unreachable())
#else
#define MEMSUB_ASSUME(cond) MEMSUB_ASSERT(cond)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MEMSUB_LIKELY(x) __builtin_expect(!!(x), 1)
#define MEMSUB_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MEMSUB_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MEMSUB_LIKELY(x) (x)
#define MEMSUB_UNLIKELY(x) (x)
#define MEMSUB_ALWAYS_INLINE inline
#endif
