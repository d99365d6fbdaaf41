// memsub::testing::detail — runs one pass of a contract check, in a child process where the
// platform has fork (POSIX), so that a policy that crashes (an out-of-bounds index, a throw from
// a noexcept hook, a sanitizer report) becomes a K7 violation in the parent's report instead of
// ending the host.
//
// The child runs the pass body and streams to the parent, through a pipe, progress marks and
// snapshots of its report (every `progress_interval` accesses, whenever a new violation kind
// appears, and at the end); the parent keeps the last complete snapshot. A child that dies
// before its final line leaves the violations of its last snapshot (counts up to that point)
// plus a K7 naming the signal or exit status and the accesses the pass had reached. In the child,
// fatal signals get their default action (a test framework's crash handler would otherwise report
// the host's test as failed), core dumps are off and an alarm enforces the time limit; it ends with
// `_exit`, running no destructor or atexit handler of the host. Without fork (or when `isolate` is
// false) the body runs in-process: exceptions from building a cache are still reported, a crash is
// not.
#pragma once

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/testing/contract_report.hpp>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#define MEMSUB_TESTING_CAN_FORK 1
#else
#define MEMSUB_TESTING_CAN_FORK 0
#endif

namespace memsub::testing::detail {

/// A pass as the runner needs it.
struct pass_spec {
    std::string name;             ///< "conventional", "variable-block"
    geometry shape{};             ///< the pass's geometry
    std::string description{};    ///< instead of the geometry, for a subject that is no cache
    std::string_view subject;     ///< "policy", "predictor"
    std::string_view state;       ///< "per-set state", "per-entry state"
    std::uint32_t runs = 2;       ///< instances per pass
    std::uint64_t accesses = 0;   ///< stream length per run
    bool isolate = true;          ///< fork when the platform can
    std::uint32_t time_limit = 0; ///< seconds, 0 = none (isolated passes only)
    /// A crash here most likely comes from state sized by ways (the pass has more entries per
    /// set than ways, and the conventional pass completed): say so.
    bool sizing_hint = false;
};

/// Progress marks are sent every this many accesses.
inline constexpr std::uint64_t progress_interval = 256;

/// What a pass body reports through. In-process it is inert.
class pass_channel {
public:
    pass_channel() = default;
    explicit pass_channel(int fd) noexcept : fd_(fd) {}

    [[nodiscard]] bool active() const noexcept { return fd_ >= 0; }

    /// `done` accesses of run `run` (1-based) have completed.
    void progress(std::uint32_t run, std::uint64_t done) noexcept {
        if (active()) send("P " + std::to_string(run) + " " + std::to_string(done) + "\n");
    }
    /// The pass's report so far.
    void snapshot(const contract_report& r) noexcept {
        if (!active()) return;
        std::string s = "S " + std::to_string(r.accesses) + " " + std::to_string(r.misses) + "\n";
        for (const auto& v : r.violations)
            s += "V " + std::to_string(v.count) + "\t" + clean(v.check) + "\t" + clean(v.pass) +
                 "\t" + clean(v.rule) + "\t" + clean(v.first) + "\t" + clean(v.hint) + "\n";
        send(s + "E\n");
    }
    /// The last line: the pass ended with `status` ("completed" or "threw").
    void finish(std::string_view status) noexcept {
        if (active()) send("F " + std::string(status) + "\n");
    }

private:
    static std::string clean(std::string s) {
        for (char& c : s)
            if (c == '\t' || c == '\n') c = ' ';
        return s;
    }
    void send(const std::string& s) noexcept {
#if MEMSUB_TESTING_CAN_FORK
        std::size_t off = 0;
        while (off < s.size()) {
            const ssize_t n = ::write(fd_, s.data() + off, s.size() - off);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            off += static_cast<std::size_t>(n);
        }
#else
        (void)s;
#endif
    }

    int fd_ = -1;
};

/// Runs `body(report, channel)`, turning an exception into a K7 violation.
template <class Body>
pass_status run_body(const pass_spec& spec, contract_report& out, pass_channel& ch, Body& body) {
    const auto k7 = [&](std::string_view rule, std::string_view what, std::string_view hint) {
        out.add("K7", spec.name, rule, what, 1, hint);
    };
    try {
        body(out, ch);
        return pass_status::completed;
    } catch (const config_error& e) {
        k7("building the cache of this pass threw config_error", e.what(),
           "give the check a geometry the " + std::string(spec.subject) +
               " supports (contract_options::shape, variable_shape), or turn the variable-block "
               "pass off");
    } catch (const std::exception& e) {
        k7("the pass threw an exception", e.what(), {});
    } catch (...) {
        k7("the pass threw an exception", "not derived from std::exception", {});
    }
    return pass_status::threw;
}

[[nodiscard]] inline std::string signal_name(int sig) {
    switch (sig) {
#if MEMSUB_TESTING_CAN_FORK
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGTRAP:
        return "SIGTRAP";
    case SIGKILL:
        return "SIGKILL";
    case SIGTERM:
        return "SIGTERM";
    case SIGALRM:
        return "SIGALRM";
#endif
    default:
        return "signal " + std::to_string(sig);
    }
}

/// The K7 text of a pass whose process died: where it was, and what to try.
inline void report_death(const pass_spec& spec, pass_status how, int code, bool progressed,
                         std::uint32_t run, std::uint64_t done, contract_report& out) {
    const std::string where = " in the " + spec.name + " pass (" +
                              std::to_string(spec.shape.entries_per_set()) + " entries per set, " +
                              std::to_string(spec.shape.ways) + " ways)";
    std::string rule;
    std::string hint;
    const bool more_entries = spec.sizing_hint;
    const std::string sizing =
        "size " + std::string(spec.state) + " by geometry.entries_per_set(), not ways";
    const std::string debug = "rerun with contract_options::isolate_passes = false under a "
                              "debugger or a sanitizer to find the faulting hook";
    switch (how) {
    case pass_status::crashed:
        rule = "the " + std::string(spec.subject) + " crashed with signal " + std::to_string(code) +
               " (" + signal_name(code) + ")" + where;
        hint = more_entries ? sizing : debug;
        break;
    case pass_status::timed_out:
        rule =
            "the pass exceeded its time limit of " + std::to_string(spec.time_limit) + " s" + where;
        hint = "a hook that never returns?";
        break;
    default:
        rule = "the pass's process exited early with status " + std::to_string(code) + where;
        hint = "see its stderr (a sanitizer report, or exit() in the " + std::string(spec.subject) +
               ")" + (more_entries ? "; " + sizing : "");
        break;
    }
    if (how != pass_status::timed_out)
        hint += "; other violations of this pass may be effects of the same fault";
    std::string first;
    if (!progressed)
        first = "while building the cache of run 1";
    else if (done >= spec.accesses)
        first = "after the last access of run " + std::to_string(run) +
                ", destroying its cache or building the next";
    else
        first = "run " + std::to_string(run) + ", during accesses " + std::to_string(done) + "–" +
                std::to_string(std::min(done + progress_interval, spec.accesses) - 1);
    out.add("K7", spec.name, rule, first, 1, hint);
}

#if MEMSUB_TESTING_CAN_FORK

/// Parses the child's stream into the last complete snapshot; reports whether it finished.
inline bool parse_stream(const std::string& data, contract_report& last, bool& progressed,
                         std::uint32_t& run, std::uint64_t& done, std::string& final_status) {
    contract_report building;
    bool in_snapshot = false;
    bool finished = false;
    std::size_t pos = 0;
    while (true) {
        const std::size_t end = data.find('\n', pos);
        if (end == std::string::npos) break; // an unfinished line: ignored
        const std::string_view line(data.data() + pos, end - pos);
        pos = end + 1;
        if (line.empty()) continue;
        const std::string_view rest = line.size() > 2 ? line.substr(2) : std::string_view{};
        switch (line[0]) {
        case 'P': {
            const std::size_t sp = rest.find(' ');
            run = static_cast<std::uint32_t>(std::stoul(std::string(rest.substr(0, sp))));
            done = std::stoull(std::string(rest.substr(sp + 1)));
            progressed = true;
            break;
        }
        case 'S': {
            building = contract_report{};
            const std::size_t sp = rest.find(' ');
            building.accesses = std::stoull(std::string(rest.substr(0, sp)));
            building.misses = std::stoull(std::string(rest.substr(sp + 1)));
            in_snapshot = true;
            break;
        }
        case 'V': {
            if (!in_snapshot) break;
            std::string field[6];
            std::size_t f = 0, from = 0;
            for (; f < 6; ++f) {
                const std::size_t tab = rest.find('\t', from);
                field[f] = std::string(rest.substr(from, tab - from));
                if (tab == std::string_view::npos) break;
                from = tab + 1;
            }
            building.violations.push_back(
                {field[1], field[2], field[3], field[4], field[5], std::stoull(field[0])});
            break;
        }
        case 'E':
            if (in_snapshot) last = building;
            in_snapshot = false;
            break;
        case 'F':
            finished = true;
            final_status = std::string(rest);
            break;
        default:
            break;
        }
    }
    return finished;
}

/// Forks; the child runs the body and streams its report. Returns false when fork or pipe is
/// unavailable (the caller then runs the pass in-process).
template <class Body>
bool run_in_child(const pass_spec& spec, contract_report& out, pass_status& status, Body& body) {
    int fds[2];
    if (::pipe(fds) != 0) return false;
    std::fflush(nullptr); // no buffered output is written twice
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return false;
    }
    if (pid == 0) { // the child
        ::close(fds[0]);
        for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGALRM})
            std::signal(sig, SIG_DFL);
        const rlimit no_core{0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);
        if (spec.time_limit != 0) ::alarm(spec.time_limit);
        pass_channel ch(fds[1]);
        contract_report r;
        const pass_status s = run_body(spec, r, ch, body);
        ch.snapshot(r);
        ch.finish(s == pass_status::completed ? "completed" : "threw");
        ::close(fds[1]);
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string data;
    char buffer[4096];
    while (true) {
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        data.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int wstatus = 0;
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    contract_report last;
    bool progressed = false;
    std::uint32_t run = 0;
    std::uint64_t done = 0;
    std::string final_status;
    const bool finished = parse_stream(data, last, progressed, run, done, final_status);
    out = last;
    if (finished && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) {
        status = final_status == "completed" ? pass_status::completed : pass_status::threw;
        return true;
    }
    int code = 0;
    if (WIFSIGNALED(wstatus)) {
        code = WTERMSIG(wstatus);
        status =
            code == SIGALRM && spec.time_limit != 0 ? pass_status::timed_out : pass_status::crashed;
    } else {
        code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
        status = pass_status::exited;
    }
    report_death(spec, status, code, progressed, run, done, out);
    return true;
}

#endif

/// Runs one pass (isolated when `spec.isolate` and the platform allow), appends it to
/// `total.passes` and merges its violations and totals into `total`.
template <class Body>
void run_pass(const pass_spec& spec, contract_report& total, Body&& body) {
    contract_report r;
    pass_status status = pass_status::completed;
    bool isolated = false;
#if MEMSUB_TESTING_CAN_FORK
    if (spec.isolate) isolated = run_in_child(spec, r, status, body);
#endif
    if (!isolated) {
        pass_channel inert;
        status = run_body(spec, r, inert, body);
    }
    total.merge(r);
    total.passes.push_back(contract_pass{.name = spec.name,
                                         .shape = spec.shape,
                                         .description = spec.description,
                                         .isolated = isolated,
                                         .status = status,
                                         .runs = spec.runs,
                                         .accesses = r.accesses});
}

} // namespace memsub::testing::detail
