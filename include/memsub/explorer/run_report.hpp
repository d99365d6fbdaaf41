// memsub::explorer — the run-and-report sequence the module's programs share: check the outputs
// before any work, run the workloads in order until a stop signal, report each trace's problems
// and the interruption last, and map what escapes a run to its exit status. Each program keeps
// its own tables and wording; these are the steps whose logic is the same in every one.
//
// Part of the explorer module (CMake target memsub::explorer; needs {fmt}).
#pragma once

#include <memsub/core/errors.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/signals.hpp>

#include <fmt/core.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memsub::explorer {

/// Runs `check()` (calls of check_writable for every output file) before any work. On an
/// option_error prints "<program>: <why> (nothing was run)" on stderr and returns false: the
/// program then exits with status 2 (bad usage), so a long run never ends in an output error
/// that was knowable at its start.
template <class Check>
bool outputs_writable_or_report(std::string_view program, Check&& check) {
    try {
        check();
    } catch (const option_error& e) {
        fmt::print(stderr, "{}: {} (nothing was run)\n", program, e.what());
        return false;
    }
    return true;
}

/// Calls `run(i)` for i = 0 .. count - 1 in order, until a stop signal arrives
/// (stop_requested()): the workloads after it are not run. Returns their names (`name(i)`), for
/// the report that lists them (report_interruption).
template <class Run, class Name>
std::vector<std::string> run_until_stopped(std::size_t count, Run&& run, Name&& name) {
    std::vector<std::string> not_run;
    for (std::size_t i = 0; i < count; ++i) {
        if (stop_requested() != 0)
            not_run.emplace_back(name(i));
        else
            run(i);
    }
    return not_run;
}

/// How one trace went, as a trace tool reports it after its tables.
struct trace_outcome {
    std::string_view label;
    /// Read without error and held no access (an empty or comments-only input).
    bool empty = false;
    /// The input error that ended (or prevented) reading.
    const std::optional<std::string>* error = nullptr;
    /// Whether any of it was read (false: it could not be opened).
    bool read = false;
    /// The accesses read before the error.
    std::uint64_t accesses = 0;
    /// A line printed after the error, when not empty (what the input looks like instead).
    std::string_view hint;
};

/// What report_trace_outcome reported, for the exit status (an input error before an empty
/// input).
struct trace_problems {
    bool input_failed = false;
    bool empty = false;
};

/// Reports `t`'s problems on stderr in the words every trace tool uses: a warning for an empty
/// input; the trace error, the hint and what the results cover.
inline trace_problems report_trace_outcome(std::string_view program, const trace_outcome& t) {
    trace_problems found;
    if (t.empty) {
        found.empty = true;
        fmt::print(stderr,
                   "{}: warning: {} holds no accesses (an empty input, or only comments or "
                   "blank lines); its counts are all 0\n",
                   program, t.label);
    }
    if (t.error == nullptr || !t.error->has_value()) return found;
    found.input_failed = true;
    fmt::print(stderr, "{}: trace error: {}\n", program, **t.error);
    if (!t.hint.empty()) fmt::print(stderr, "{}: {}\n", program, t.hint);
    if (!t.read)
        fmt::print(stderr, "{}: {} was not read\n", program, t.label);
    else
        fmt::print(stderr, "{}: the results for {} cover the {} accesses before it\n", program,
                   t.label, t.accesses);
    return found;
}

/// Reports a stop by `signal` on stderr (nothing when it is 0): "the results above are partial",
/// with how many `unit`s were not run when `unit` is not empty, then one line per workload not
/// run. Returns the exit status of a stopped program (128 + signal), or 0 when not stopped.
inline int report_interruption(std::string_view program, int signal,
                               const std::vector<std::string>& not_run,
                               std::string_view unit = {}) {
    if (signal == 0) return 0;
    fmt::print(
        stderr, "{}: interrupted by signal {}: the results above are partial{}\n", program, signal,
        unit.empty() || not_run.empty() ? std::string()
                                        : fmt::format("; {} {}(s) not run", not_run.size(), unit));
    for (const auto& n : not_run) fmt::print(stderr, "{}: not run: {}\n", program, n);
    return stopped_exit_status(signal);
}

/// Runs `run()` (returning the exit status) and maps what escapes it to the module's statuses,
/// with one message on stderr: a configuration error 2, out of memory 4 ("out of memory while
/// <memory_use>": the caller keeps `memory_use` naming what is being built or read), any other
/// error 1 (an input that could not be read).
template <class Run>
int run_reporting_errors(std::string_view program, const std::string& memory_use, Run&& run) {
    try {
        return run();
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "{}: out of memory while {}\n", program, memory_use);
        return 4;
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return 1;
    }
}

} // namespace memsub::explorer
