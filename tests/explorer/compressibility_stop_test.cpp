// compressibility under a stop signal: every built-in data set still has a row (those not run
// say so), and an input read to its end is not called partial because a signal came later.
#include <doctest/doctest.h>

#include <csignal>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/explorer/run_compressibility.hpp>
#include <memsub/explorer/signals.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

namespace fs = std::filesystem;

/// Records a stop signal for the scope, as the handler would, and clears it after.
struct stop_signal_for_scope {
    stop_signal_for_scope() { memsub::explorer::detail::stop_signal = SIGINT; }
    stop_signal_for_scope(const stop_signal_for_scope&) = delete;
    stop_signal_for_scope& operator=(const stop_signal_for_scope&) = delete;
    ~stop_signal_for_scope() { memsub::explorer::detail::stop_signal = 0; }
};

} // namespace

TEST_CASE("run_compressibility: the built-in data sets not run still have their rows") {
    const fs::path dir = fs::temp_directory_path() / "memsub_compressibility_stop_builtin";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::vector<std::string> args{"compressibility", "--quiet", "--no-plot", "--output-dir",
                                  dir.string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    int status = 0;
    {
        const stop_signal_for_scope stop;
        status = memsub::explorer::run_compressibility<memsub::compression::bdi>(
            static_cast<int>(argv.size()), argv.data());
    }
    const std::string csv = read_text(dir / "compressibility.csv");
    fs::remove_all(dir);
    CHECK(status == 128 + SIGINT);
    for (const char* set : {"binary", "zero-heavy", "integers", "pointers", "floats"}) {
        CAPTURE(set);
        CHECK(csv.find(std::string("\n") + set + ",") != std::string::npos);
    }
    CHECK(csv.find("not run: a stop signal came before it") != std::string::npos);
}

TEST_CASE("compressibility: an input read to its end is whole, whatever signal came after") {
    namespace cd = memsub::explorer::compressibility_detail;
    const fs::path dir = fs::temp_directory_path() / "memsub_compressibility_stop_file";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path file = dir / "lines.bin";
    {
        std::ofstream out(file, std::ios::binary);
        const std::vector<char> zeros(64 * 16, '\0');
        out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
    }
    cd::options opt;
    opt.progress = false;
    opt.plot = false;
    const memsub::compression::storage_rule rule{.line_bytes = 64, .segment_bytes = 8};
    const std::optional<cd::sc2_training> shared = cd::sc2_training{};
    cd::result r;
    {
        // The signal is there before the read; the file (one block) is read to its end anyway.
        const stop_signal_for_scope stop;
        r = cd::analyse_file<memsub::compression::bdi>(file.string(), opt, rule, shared);
    }
    fs::remove_all(dir);
    CHECK(r.lines == 16);
    CHECK_FALSE(r.partial);
    CHECK(r.interrupted_by == 0);
}
