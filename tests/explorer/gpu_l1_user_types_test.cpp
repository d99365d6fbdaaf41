// run_gpu_l1_explorer runs a user's own GPU L1 types beside the library's configurations: a
// bypass predictor and a line-size predictor that are not in the library, alone and together,
// each a configuration named after its predictors' name(), with figures that follow from what
// the predictor does.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/pc_only.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/explorer/run_gpu_l1_explorer.hpp>
#include <memsub/explorer/signals.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/linesize/concept.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

/// Bypasses every miss: a made-up predictor (the library has none that never inserts), so its
/// L1 can only miss, and it fetches only what is asked for.
struct bypass_all {
    struct params {};
    bypass_all() = default;
    bypass_all(const memsub::geometry&, const params&) noexcept {}
    [[nodiscard]] static bool should_bypass(memsub::set_index, const memsub::access&) noexcept {
        return true;
    }
    [[nodiscard]] static std::string_view name() noexcept { return "bypass_all"; }
};
static_assert(memsub::bypass::bypass_predictor<bypass_all>);

/// Inserts 64 B blocks for every miss: the library's static_size<64> under a name of its own,
/// so its figures must be static_64B's.
struct half_line {
    struct params {};
    half_line(const memsub::geometry&, const params&) noexcept {}
    [[nodiscard]] static std::uint32_t block_bytes(memsub::set_index,
                                                   const memsub::access&) noexcept {
        return 64;
    }
    [[nodiscard]] static std::string_view name() noexcept { return "half_line"; }
};
static_assert(memsub::linesize::line_size_predictor<half_line>);

/// Bypasses nothing, and asks the run to stop (as SIGINT would) at its first lookup: its own
/// stream then ends at the next check, part-way through the workload.
struct stop_at_first {
    struct params {};
    stop_at_first() = default;
    stop_at_first(const memsub::geometry&, const params&) noexcept {}
    [[nodiscard]] static bool should_bypass(memsub::set_index, const memsub::access&) noexcept {
        memsub::explorer::detail::stop_signal = SIGINT;
        return false;
    }
    [[nodiscard]] static std::string_view name() noexcept { return "stop_at_first"; }
};
static_assert(memsub::bypass::bypass_predictor<stop_at_first>);

using bypass_all_l1 = memsub::gpu::baseline_l1_with<bypass_all>;
using stop_at_first_l1 = memsub::gpu::baseline_l1_with<stop_at_first>;
using half_line_l1 = memsub::gpu::variable_line_l1<half_line>;
using half_line_bypass_all_l1 = memsub::gpu::variable_line_l1<half_line, bypass_all>;

/// Row by "kernel/config", each a map from column name to field.
using csv_rows = std::map<std::string, std::map<std::string, std::string>>;

csv_rows rows_of(const std::string& csv) {
    csv_rows rows;
    for (auto& row : csv_table(csv)) rows[row["kernel"] + "/" + row["config"]] = row;
    return rows;
}

std::uint64_t number(const csv_rows& rows, const std::string& key, const std::string& column) {
    const auto r = rows.find(key);
    REQUIRE_MESSAGE(r != rows.end(), "no row " << key);
    const auto c = r->second.find(column);
    REQUIRE_MESSAGE(c != r->second.end(), "no column " << column);
    return std::stoull(c->second);
}

/// Set by arming's first lookup: the L1s built after it throw.
inline bool armed = false;

/// Bypasses nothing and arms armed_l1 (below) at its first lookup.
struct arming {
    struct params {};
    arming() = default;
    arming(const memsub::geometry&, const params&) noexcept {}
    [[nodiscard]] static bool should_bypass(memsub::set_index, const memsub::access&) noexcept {
        armed = true;
        return false;
    }
    [[nodiscard]] static std::string_view name() noexcept { return "arming"; }
};

/// What armed_l1 throws once armed: a config_error, or else a std::runtime_error.
inline bool armed_throws_config_error = false;

/// An L1 whose construction throws once armed: the second workload's run of it fails after the
/// first workload finished.
struct armed_l1 : memsub::gpu::baseline_l1_with<arming> {
    armed_l1() {
        if (!armed) return;
        if (armed_throws_config_error)
            throw memsub::config_error("armed_l1", "armed", 1, "made-up rule");
        throw std::runtime_error("made-up failure");
    }
};

/// The folder of a test's outputs.
std::filesystem::path out_dir(std::string_view folder) {
    return std::filesystem::temp_directory_path() / folder;
}

/// Runs run_gpu_l1_explorer<L1s...> with `args` (after the program name) and --csv into a
/// folder of its own (out_dir(folder)); returns the exit status and the CSV.
template <class... L1s>
std::pair<int, std::string> run_with_l1s(std::vector<std::string> args, std::string_view folder) {
    namespace fs = std::filesystem;
    const fs::path dir = out_dir(folder);
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string csv = (dir / "g.csv").string();
    args.insert(args.begin(), "gpu_l1_explorer");
    args.insert(args.end(), {"--csv", csv});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    const int status =
        memsub::explorer::run_gpu_l1_explorer<L1s...>(static_cast<int>(argv.size()), argv.data());
    return {status, read_text(csv)};
}

/// run_with_l1s with every user L1 of these tests. Each instantiation of run_gpu_l1_explorer
/// compiles the whole tool again, so the tests share this one and pick their configurations
/// with --configs (a configuration not picked is built but never run). stop_at_first comes
/// before bypass_all: a stop it asks for leaves bypass_all unrun.
std::pair<int, std::string> run_with(std::vector<std::string> args, std::string_view folder) {
    return run_with_l1s<stop_at_first_l1, bypass_all_l1, half_line_l1, half_line_bypass_all_l1,
                        armed_l1>(std::move(args), folder);
}

/// --configs naming every library configuration and `extra`.
std::vector<std::string> library_configs_and(const std::string& extra) {
    std::string list;
    for (const auto& name : memsub::explorer::gpu_l1_detail::l1_configs<>::names())
        list += name + ",";
    return {"--configs", list + extra};
}

} // namespace

TEST_CASE("run_gpu_l1_explorer: a user's bypass and line-size predictors are configurations") {
    // --timing constant: one stream feeds every configuration, so the user's 64 B sizer sees
    // exactly static_64B's accesses.
    const auto [status, csv] =
        run_with({"--quiet", "--timing", "constant", "--sms", "2", "--scale", "0.01", "--kernels",
                  "saxpy,bfs", "--configs", "static_64B,bypass_all,half_line,half_line+bypass_all"},
                 "memsub_gpu_l1_user_types");
    REQUIRE(status == 0);
    const csv_rows rows = rows_of(csv);
    for (const std::string kernel : {"saxpy", "bfs"}) {
        CAPTURE(kernel);
        const std::string base = kernel + "/baseline_16KB";
        const std::uint64_t accesses = number(rows, base, "accesses");
        REQUIRE(accesses > 0);
        // Bypassing every miss: no hit, nothing inserted, every access a bypassed miss, and no
        // more fetched than a whole-line fill of every miss would.
        for (const std::string config : {"/bypass_all", "/half_line+bypass_all"}) {
            CAPTURE(config);
            CHECK(number(rows, kernel + config, "accesses") == accesses);
            CHECK(number(rows, kernel + config, "hits") == 0);
            CHECK(number(rows, kernel + config, "blocks_inserted") == 0);
            CHECK(number(rows, kernel + config, "bypassed_misses") == accesses);
            CHECK(number(rows, kernel + config, "bytes_fetched") > 0);
            CHECK(number(rows, kernel + config, "bytes_fetched") <= accesses * 128);
        }
        // The user's 64 B sizer on the variable-block L1 is static_64B under another name.
        for (const std::string column :
             {"accesses", "hits", "spatial_hits", "blocks_inserted", "bytes_fetched"})
            CHECK(number(rows, kernel + "/half_line", column) ==
                  number(rows, kernel + "/static_64B", column));
        // Not asked for: not run.
        CHECK(rows.count(kernel + "/alsi") == 0);
    }
}

TEST_CASE("run_gpu_l1_explorer: a user's L1 runs its own timed stream") {
    std::vector<std::string> args{"--quiet", "--sms", "2", "--scale", "0.01", "--kernels", "saxpy"};
    for (auto& a : library_configs_and("bypass_all")) args.push_back(a);
    const auto [status, csv] = run_with(args, "memsub_gpu_l1_user_types_timed");
    REQUIRE(status == 0);
    const csv_rows rows = rows_of(csv);
    // Every library configuration and the user's, in that order of columns' rows.
    CHECK(rows.size() == 11);
    const std::uint64_t mine = number(rows, "saxpy/bypass_all", "cycles");
    CHECK(mine > 0);
    CHECK(number(rows, "saxpy/bypass_all", "hits") == 0);
    CHECK(number(rows, "saxpy/bypass_all", "config_warp_instructions") ==
          number(rows, "saxpy/baseline_16KB", "warp_instructions"));
    // Every access goes to the L2: no faster than the baseline, whose hits take 20 cycles.
    CHECK(mine >= number(rows, "saxpy/baseline_16KB", "cycles"));
}

TEST_CASE("run_gpu_l1_explorer: a user's L1 named as a library configuration is refused") {
    // baseline_l1_with<pc_only> is named pc_only, as the library's configuration is.
    const auto [status, csv] = run_with_l1s<memsub::gpu::baseline_l1_with<memsub::bypass::pc_only>>(
        {"--quiet", "--sms", "1", "--scale", "0.01", "--kernels", "saxpy"},
        "memsub_gpu_l1_user_types_clash");
    CHECK(status == 2);
    CHECK(csv.empty());
}

TEST_CASE("run_gpu_l1_explorer: a configuration stopped part-way has no ratio to the baseline") {
    // saxpy at --scale 1 issues 98304 warp instructions: stop_at_first's stream asks to stop at
    // its first lookup and ends at the check after 65536, part-way; bypass_all, after it, never
    // runs. A plot file with an unknown gnuplot is still written as data and script.
    const std::string plot = (out_dir("memsub_gpu_l1_user_types_stop") / "g.svg").string();
    const auto [status, csv] = run_with({"--quiet", "--sms", "2", "--kernels", "saxpy", "--configs",
                                         "static_64B,stop_at_first,bypass_all", "--plot", plot},
                                        "memsub_gpu_l1_user_types_stop");
    memsub::explorer::detail::stop_signal = 0;
    CHECK(status == 128 + SIGINT);
    const csv_rows rows = rows_of(csv);
    const std::uint64_t all = number(rows, "saxpy/baseline_16KB", "config_warp_instructions");
    CHECK(all == 98304);
    // The configurations that ran to the end compare with the baseline.
    CHECK(rows.at("saxpy/static_64B").at("speedup") != "");
    CHECK(rows.at("saxpy/static_64B").at("bytes_relative") != "");
    CHECK(rows.at("saxpy/static_64B").at("config_partial") == "0");
    // The one stopped part-way: its figures, no ratio to the whole baseline, marked partial.
    CHECK(number(rows, "saxpy/stop_at_first", "config_warp_instructions") == 65536);
    CHECK(rows.at("saxpy/stop_at_first").at("speedup") == "");
    CHECK(rows.at("saxpy/stop_at_first").at("bytes_relative") == "");
    CHECK(rows.at("saxpy/stop_at_first").at("config_partial") == "1");
    // The one that never ran has no row. Neither has a bar: the plot's data has no column
    // for them (a column of '?' alone would have no valid point).
    CHECK(rows.count("saxpy/bypass_all") == 0);
    std::istringstream dat(read_text(plot + ".dat"));
    std::string header;
    std::getline(dat, header);
    CHECK(header == "kernel baseline_16KB static_64B");
}

TEST_CASE("run_gpu_l1_explorer: an error after a finished workload still writes its rows") {
    const auto check = [](bool config_error, int expected, std::string_view folder) {
        armed = false;
        armed_throws_config_error = config_error;
        const auto [status, csv] = run_with({"--quiet", "--sms", "1", "--scale", "0.01",
                                             "--kernels", "saxpy,histogram", "--configs", "arming"},
                                            folder);
        armed = false;
        CHECK(status == expected);
        const csv_rows rows = rows_of(csv);
        CHECK(number(rows, "saxpy/arming", "accesses") > 0);
        CHECK(rows.count("histogram/arming") == 0);
    };
    // A configuration error maps to bad usage (2), any other error to 1, as run_reporting_errors.
    check(true, 2, "memsub_gpu_l1_armed_config");
    check(false, 1, "memsub_gpu_l1_armed_runtime");
}

TEST_CASE("run_gpu_l1_explorer: a --scale too small for kmeans is bad usage, before any work") {
    const auto parse = [](std::vector<std::string> args) {
        args.insert(args.begin(), "gpu_l1_explorer");
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        return memsub::explorer::gpu_l1_detail::parse(
            static_cast<int>(argv.size()), argv.data(),
            memsub::explorer::gpu_l1_detail::l1_configs<>::names());
    };
    // 0.0001 leaves kmeans 2 points for its 5 clusters.
    CHECK_THROWS_AS(parse({"--scale", "0.0001"}), memsub::explorer::option_error);
    CHECK_THROWS_AS(parse({"--kernels", "saxpy,kmeans", "--scale", "0.0001"}),
                    memsub::explorer::option_error);
    CHECK_NOTHROW(parse({"--kernels", "saxpy", "--scale", "0.0001"}));
    CHECK_NOTHROW(parse({"--kernels", "kmeans", "--scale", "0.0003"}));
}

TEST_CASE("run_gpu_l1_explorer: a trace of headers alone is an empty input (status 3)") {
    namespace fs = std::filesystem;
    const fs::path dir = out_dir("memsub_gpu_l1_empty_trace");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string trace = (dir / "kernel-1.traceg").string();
    std::ofstream(trace) << "-kernel name = empty\n-kernel id = 1\n-grid dim = (1,1,1)\n"
                            "-block dim = (32,1,1)\n-shmem = 0\n-nregs = 8\n"
                            "-accelsim tracer version = 3\n";
    const auto [status, csv] =
        run_with({"--quiet", "--sms", "1", "--traceg", trace, "--configs", "static_64B"},
                 "memsub_gpu_l1_empty_trace_out");
    CHECK(status == 3);
    // Its all-zero figures are written, as every tool writes an empty input's.
    const csv_rows rows = rows_of(csv);
    CHECK(rows.size() == 2);
    CHECK(number(rows, trace + "/baseline_16KB", "accesses") == 0);
    CHECK(number(rows, trace + "/static_64B", "warp_instructions") == 0);
}
