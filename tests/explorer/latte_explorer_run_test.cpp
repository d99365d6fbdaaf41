// The LATTE-CC study's numbers and statuses around the edges of a run: no C-Sens class from a
// pass cut short, the code-book period it ran with in the header and the CSV, a selector's mode
// out of range refused by name, an error mid-run still writes the kernels that finished, and a
// plot with nothing to draw is skipped with a note.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/explorer/run_latte_explorer.hpp>
#include <memsub/selection/concept.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

namespace sel = memsub::selection;
namespace latte = memsub::explorer::latte_explorer_detail;

/// What scripted_selector does.
enum class script : std::uint8_t { none, bad_mode, fail_third };
script scripted = script::none;
int constructions = 0;

/// Every line uncompressed; scripted to answer a mode the L1 does not have (7), or to fail at
/// its third construction (the study builds one for its name, then one per L1 of each pass:
/// with one SM, the second kernel's pass).
class scripted_selector {
public:
    struct params {};
    scripted_selector(const sel::selection_shape& shape, const params&) {
        shape.validate("scripted_selector");
        if (scripted == script::fail_third && ++constructions == 3)
            throw std::runtime_error("scripted selector failed");
    }
    [[nodiscard]] std::uint32_t insertion_mode(memsub::set_index) const noexcept { return 0; }
    [[nodiscard]] std::uint32_t follower_mode() const noexcept {
        return scripted == script::bad_mode ? 7u : 0u;
    }
    void on_access(const sel::access_outcome&) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "scripted"; }
};
static_assert(sel::mode_selector<scripted_selector>);

struct outcome {
    int status = 0;
    std::vector<std::map<std::string, std::string>> rows;
    std::string out;
};

/// Runs run_latte_explorer<scripted_selector> under `what` with `args` after the program name
/// (one SM, no progress), its CSV in a folder of its own, and its stdout captured.
outcome run_scripted(script what, std::vector<std::string> args) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "memsub_latte_explorer_run_test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path csv = dir / "l.csv", out = dir / "stdout";
    args.insert(args.begin(),
                {"my_latte_explorer", "--quiet", "--sms", "1", "--csv", csv.string()});
    for (auto& a : args)
        if (a == "PLOT") a = (dir / "p.svg").string();
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    scripted = what;
    constructions = 0;
    outcome r;
    {
        const stdout_to redirect(out);
        r.status = memsub::explorer::run_latte_explorer<scripted_selector>(
            static_cast<int>(argv.size()), argv.data());
    }
    scripted = script::none;
    r.out = read_text(out);
    if (fs::exists(csv)) r.rows = csv_table_of(csv);
    fs::remove_all(dir);
    return r;
}

} // namespace

TEST_CASE("latte_explorer: a pass cut short gives no C-Sens class") {
    latte::kernel_result r;
    r.passes.resize(latte::config_count + 1);
    auto& none = r.passes[latte::none_config];
    auto& big = r.passes[r.big_l1()];
    none.ran = big.ran = true;
    none.cycles = 1000;
    big.cycles = 100; // 10x: C-Sens, were it complete
    CHECK(latte::cache_sensitive(r) == true);
    big.stopped = true; // a signal during the 64 KB pass: too few cycles
    CHECK_FALSE(latte::cache_sensitive(r).has_value());
    big.stopped = false;
    none.stopped = true; // or during the baseline's
    CHECK_FALSE(latte::cache_sensitive(r).has_value());
}

TEST_CASE("latte_explorer: the code-book period it ran with is printed and written") {
    const auto r = run_scripted(script::none, {"--scale", "0.01", "--no-classify", "--configs",
                                               "none", "--book-eps", "4", "saxpy"});
    CHECK(r.status == 0);
    CHECK(r.out.find("4 EPs per period") != std::string::npos);
    REQUIRE(r.rows.size() == 1);
    CHECK(r.rows.front().at("book_eps") == "4");
}

TEST_CASE("latte_explorer: a selector's mode out of range is a configuration error") {
    const auto r = run_scripted(script::bad_mode, {"--scale", "0.01", "--no-classify", "--configs",
                                                   "none,scripted", "saxpy"});
    CHECK(r.status == 2);
    REQUIRE(!r.rows.empty());
    const std::string error = r.rows.back().at("error");
    CHECK(error.find("scripted") != std::string::npos);
    CHECK(error.find("follower_mode()") != std::string::npos);
}

TEST_CASE("latte_explorer: an error mid-run still writes the kernels that finished") {
    const auto r =
        run_scripted(script::fail_third, {"--scale", "0.01", "--no-classify", "--configs",
                                          "none,scripted", "saxpy,histogram"});
    CHECK(r.status == 1);
    REQUIRE(r.rows.size() == 3); // saxpy's none and scripted, then histogram's error
    CHECK(r.rows[0].at("kernel") == "saxpy");
    CHECK(r.rows[1].at("config") == "scripted");
    CHECK(r.rows[2].at("kernel") == "histogram");
    CHECK(r.rows[2].at("partial") == "1");
    CHECK(r.rows[2].at("error") == "scripted selector failed");
}

TEST_CASE("latte_explorer: a plot with nothing to draw is skipped with a note") {
    // A tiny saxpy: SM 0's L1 never closes an EP, so LATTE-CC has no sample to plot.
    const auto r = run_scripted(script::none,
                                {"--scale", "0.0001", "--no-classify", "--configs", "none,latte_cc",
                                 "--plot", "PLOT", "--plot-kernel", "saxpy", "saxpy"});
    CHECK(r.status == 0);
    CHECK(r.out.find("not drawn") != std::string::npos);
}

TEST_CASE("latte_explorer: a kernel named twice on the command line runs once") {
    std::vector<std::string> args{"latte_explorer", "saxpy", "bfs", "saxpy,bfs"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    const auto o = latte::parse(static_cast<int>(argv.size()), argv.data(), {});
    CHECK(o.kernels == std::vector<std::string>{"saxpy", "bfs"});
}
