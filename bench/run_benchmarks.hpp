// The benchmarks' main: Google Benchmark's own reporters, except for CSV.
//
// Google Benchmark 1.7's CSV reporter takes its counter columns from the first row and aborts
// ("All counters must be present in each run") when a later row has a counter the first did not:
// every memsub benchmark that reports a policy's quality figure beside its speed has rows with
// different counters (a baseline has no `x_plain_loop`, a coalescer no `hit_rate`). So for
// `--benchmark_format=csv` and `--benchmark_out_format=csv` this runs the benchmarks with
// `union_csv_reporter`: Google Benchmark's columns, then one column per counter any row has (in
// the order first seen), a row leaving the cells of counters it does not have empty. The rows are
// written when the run ends (the column set is known only then); console and JSON output are the
// library's own, unchanged.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace memsub_bench {

/// CSV with the union of every row's counters as columns (see the file comment).
class union_csv_reporter : public benchmark::BenchmarkReporter {
public:
    bool ReportContext(const Context& context) override {
        // The machine description goes to stderr; a --benchmark_out file (whose error stream is
        // the file itself) gets only the table, so it parses as CSV.
        if (&GetErrorStream() != &GetOutputStream()) PrintBasicContext(&GetErrorStream(), context);
        return true;
    }

    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& run : runs) {
            for (const auto& [name, counter] : run.counters)
                if (!is_fixed_column(name) &&
                    std::ranges::find(counter_names_, name) == counter_names_.end())
                    counter_names_.push_back(name);
            runs_.push_back(run);
        }
    }

    void Finalize() override {
        std::ostream& out = GetOutputStream();
        out << "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,"
               "label,error_occurred,error_message";
        for (const auto& c : counter_names_) out << ',' << quoted(c);
        out << '\n';
        for (const Run& run : runs_) write_row(out, run);
        out.flush();
    }

private:
    static bool is_fixed_column(std::string_view name) {
        return name == "bytes_per_second" || name == "items_per_second";
    }

    static std::string quoted(std::string_view s) {
        std::string q = "\"";
        for (const char ch : s) {
            if (ch == '"') q += '"'; // CSV escapes a quote by doubling it
            q += ch;
        }
        return q + '"';
    }

    void write_row(std::ostream& out, const Run& run) const {
        out << quoted(run.benchmark_name()) << ',';
        if (run.error_occurred) {
            out << ",,,,,,,"
                << "true," << quoted(run.error_message);
            for (std::size_t i = 0; i < counter_names_.size(); ++i) out << ',';
            out << '\n';
            return;
        }
        out << run.iterations << ',' << run.GetAdjustedRealTime() << ',' << run.GetAdjustedCPUTime()
            << ',' << benchmark::GetTimeUnitString(run.time_unit) << ',';
        for (const char* fixed : {"bytes_per_second", "items_per_second"}) {
            const auto it = run.counters.find(fixed);
            if (it != run.counters.end()) out << it->second.value;
            out << ',';
        }
        out << (run.report_label.empty() ? std::string{} : quoted(run.report_label)) << ",,";
        for (const auto& c : counter_names_) {
            out << ',';
            const auto it = run.counters.find(c);
            if (it != run.counters.end()) out << it->second.value;
        }
        out << '\n';
    }

    std::vector<std::string> counter_names_;
    std::vector<Run> runs_;
};

/// Which outputs asked for CSV; read from the command line before benchmark::Initialize
/// removes its flags.
struct csv_outputs {
    bool console = false;
    bool file = false;
};

[[nodiscard]] inline csv_outputs csv_requested(int argc, char** argv) {
    csv_outputs r;
    bool has_out = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        r.console = r.console || arg == "--benchmark_format=csv";
        r.file = r.file || arg == "--benchmark_out_format=csv";
        has_out = has_out || arg.starts_with("--benchmark_out=");
    }
    r.file = r.file && has_out;
    return r;
}

/// benchmark::Initialize, the unrecognised-argument check and RunSpecifiedBenchmarks, with
/// union_csv_reporter wherever CSV was asked for. `register_rows` runs between the two (rows
/// registered at run time). Returns main's exit code.
template <class RegisterRows>
int run_benchmarks(int argc, char** argv, RegisterRows register_rows) {
    const csv_outputs csv = csv_requested(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    register_rows();
    union_csv_reporter console_csv;
    union_csv_reporter file_csv;
    if (csv.file)
        benchmark::RunSpecifiedBenchmarks(csv.console ? &console_csv : nullptr, &file_csv);
    else if (csv.console)
        benchmark::RunSpecifiedBenchmarks(&console_csv);
    else
        benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

inline int run_benchmarks(int argc, char** argv) {
    return run_benchmarks(argc, argv, [] {});
}

} // namespace memsub_bench
