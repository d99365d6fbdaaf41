// memsub::explorer — stopping a long run cleanly: SIGINT and SIGTERM are recorded, not acted on;
// the run polls stop_requested() between chunks, prints and writes its partial results (marked
// partial), and exits with stopped_exit_status(sig) = 128 + sig (130, 143), the shell's
// convention.
//
// Decision: the handler is process-wide (a signal handler cannot carry a context), so the
// recorded signal is the module's one piece of global state; it is read between chunks only,
// never on a per-access path. A context object passed to every loop was considered and not
// taken: the handler would still need a global to reach it.
//
// Part of the explorer module (memsub::explorer).
#pragma once

#include <signal.h> // sigaction (POSIX)

#include <csignal>
#include <initializer_list>

namespace memsub::explorer {

namespace detail {
/// The signal that asked the program to stop (0: none). Written only by the handler.
inline volatile std::sig_atomic_t stop_signal = 0;
extern "C" inline void record_stop_signal(int sig) {
    stop_signal = sig;
}
} // namespace detail

/// Installs SIGINT and SIGTERM handlers that only record the signal (the loops poll
/// stop_requested() between chunks and wind down: partial results are printed and written, and
/// the program exits with 128 + the signal). The handler is one-shot: a second signal of the
/// same kind takes its default action (terminates at once).
/// A signal ignored when the program starts (nohup, a shell's background job) stays ignored.
inline void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = detail::record_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (const int sig : {SIGINT, SIGTERM}) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sig, &sa, nullptr);
    }
}

/// The signal that asked to stop, or 0.
inline int stop_requested() noexcept {
    return static_cast<int>(detail::stop_signal);
}

/// The exit status of a program stopped by `sig` (the shell's convention).
inline int stopped_exit_status(int sig) noexcept {
    return 128 + sig;
}

} // namespace memsub::explorer
