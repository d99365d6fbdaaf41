// The explorer's outputs at their edges: a plot whose path holds a quote is drawn (the path is
// quoted for gnuplot and the shell, not pasted), and an OPT bound lost to its temporary file is
// an output failure (status 1) with its trace's rows marked partial.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <memsub/explorer/run_explorer.hpp>
#include <memsub/replacement/lru.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

namespace fs = std::filesystem;

int run_lru_explorer(std::vector<std::string> args) {
    args.insert(args.begin(), "explorer");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return memsub::explorer::run_explorer<std::tuple<memsub::replacement::lru>>(
        static_cast<int>(argv.size()), argv.data());
}

/// Sets an environment variable for the scope, restoring it after.
class scoped_env {
public:
    scoped_env(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;
    ~scoped_env() {
        if (old_)
            ::setenv(name_, old_->c_str(), 1);
        else
            ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

} // namespace

TEST_CASE("run_explorer: a plot path with a quote is quoted, not pasted into the script") {
    const fs::path dir = fs::temp_directory_path() / "memsub_explorer_plot_quote";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path plot = dir / "it's a plot.svg";
    const int status =
        run_lru_explorer({"--quiet", "--no-opt", "--accesses", "20000", "--plot", plot.string()});
    const std::string script = read_text(dir / "it's a plot.gp");
    const bool have_gnuplot = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
    const bool drawn = fs::exists(plot);
    fs::remove_all(dir);
    CHECK(status == 0);
    CHECK(script.find("set output '" + (dir / "it''s a plot.svg").string() + "'") !=
          std::string::npos);
    CHECK(script.find("'" + (dir / "it''s a plot.dat").string() + "' using") != std::string::npos);
    if (have_gnuplot) CHECK(drawn);
}

TEST_CASE("run_explorer: an OPT bound lost to its temporary file is an output failure") {
    // OPT's stream stays in memory up to --opt-memory or one spill block (1 Mi lines), the
    // larger: 1.1 M accesses spill it to $TMPDIR, which does not exist, so the bound is lost.
    const fs::path dir = fs::temp_directory_path() / "memsub_explorer_opt_spill";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path csv = dir / "r.csv";
    int status = 0;
    {
        const scoped_env tmpdir("TMPDIR", (dir / "missing").string());
        status = run_lru_explorer(
            {"--quiet", "--accesses", "1100000", "--opt-memory", "1", "--csv", csv.string()});
    }
    const std::string rows = read_text(csv);
    fs::remove_all(dir);
    CHECK(status == memsub::explorer::explorer_status::input_error);
    // Every row (lru's; there is no opt row) says partial and why.
    const auto table = csv_table(rows);
    REQUIRE(!table.empty());
    for (const auto& row : table) {
        CHECK(row.at("partial") == "1");
        CHECK(row.at("policy") != "opt");
        CHECK(!row.at("opt_problem").empty());
    }
}
