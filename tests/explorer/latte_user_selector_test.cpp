// The LATTE-CC study runs a user's own mode selectors: each is a configuration of its own after
// the library's, named by its name(), with the same CSV columns; a selector that never
// compresses gives the `none` configuration's figures exactly, one that compresses does not; a
// name the study cannot give to --configs is refused before anything runs.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/explorer/run_latte_explorer.hpp>
#include <memsub/selection/concept.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

namespace sel = memsub::selection;

/// Odd sets store their lines in SC² (mode 2), even sets in BDI (mode 1): a made-up split no
/// library selector makes. It does not say its current mode, so the study takes the mode of
/// its L1's latest fill.
class set_parity {
public:
    struct params {};
    set_parity(const sel::selection_shape& shape, const params&) {
        shape.validate("set_parity");
        memsub::require(shape.modes.size() >= 3, "set_parity", "modes", shape.modes.size(),
                        "needs modes 1 and 2");
    }
    [[nodiscard]] std::uint32_t insertion_mode(memsub::set_index set) const noexcept {
        return set.value % 2 == 1 ? 2u : 1u;
    }
    void on_access(const sel::access_outcome&) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "set_parity"; }
};
static_assert(sel::mode_selector<set_parity>);
static_assert(!memsub::explorer::latte_explorer_detail::tells_current_mode<set_parity>);

/// Every line uncompressed, and it says so (follower_mode()).
class never_compress {
public:
    struct params {};
    never_compress(const sel::selection_shape& shape, const params&) {
        shape.validate("never_compress");
    }
    [[nodiscard]] std::uint32_t insertion_mode(memsub::set_index) const noexcept { return 0; }
    [[nodiscard]] std::uint32_t follower_mode() const noexcept { return 0; }
    void on_access(const sel::access_outcome&) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "never_compress"; }
};
static_assert(sel::mode_selector<never_compress>);

/// A selector whose name is a library configuration's.
class named_like_latte {
public:
    struct params {};
    named_like_latte(const sel::selection_shape&, const params&) {}
    [[nodiscard]] std::uint32_t insertion_mode(memsub::set_index) const noexcept { return 0; }
    void on_access(const sel::access_outcome&) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "latte_cc"; }
};

/// The CSV's rows by configuration, each a map column -> field.
std::map<std::string, csv_row> rows_by_config(const std::string& csv) {
    std::map<std::string, csv_row> out;
    for (auto& row : csv_table(csv)) out[row["config"]] = row;
    return out;
}

template <class... Selectors>
int run(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return memsub::explorer::run_latte_explorer<Selectors...>(static_cast<int>(argv.size()),
                                                              argv.data());
}

} // namespace

TEST_CASE("run_latte_explorer: a user's selectors are configurations of their own") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "memsub_latte_user_selector_test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string csv_file = (dir / "l.csv").string();
    const int status = run<set_parity, never_compress>(
        {"my_latte_explorer", "--quiet", "--sms", "2", "--scale", "0.05", "--no-classify",
         "--configs", "none,set_parity,never_compress", "--csv", csv_file, "phases"});
    const auto rows = rows_by_config(read_text(csv_file));
    fs::remove_all(dir);
    CHECK(status == 0);
    REQUIRE(rows.count("none") == 1);
    REQUIRE(rows.count("set_parity") == 1);
    REQUIRE(rows.count("never_compress") == 1);
    CHECK(rows.size() == 3); // --configs picked them; no other configuration ran
    const auto& none = rows.at("none");
    const auto& parity = rows.at("set_parity");

    // The same kernel ran: as many warp instructions and L1 accesses as `none`.
    CHECK(parity.at("warp_instructions") == none.at("warp_instructions"));
    CHECK(parity.at("accesses") == none.at("accesses"));
    CHECK(std::stoull(parity.at("cycles")) > 0);
    // It compressed: lines in BDI and SC² (energy spent, more than 1x capacity), and its
    // time-shares, from its fills, are mostly modes 1 and 2 and sum to one.
    CHECK(std::stod(parity.at("compression_energy_nj")) > 0.0);
    CHECK(std::stod(parity.at("mean_effective_capacity")) > 1.0);
    const double s0 = std::stod(parity.at("share_mode0")), s1 = std::stod(parity.at("share_mode1")),
                 s2 = std::stod(parity.at("share_mode2"));
    CHECK(s0 + s1 + s2 == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(s1 > 0.0);
    CHECK(s2 > 0.0);
    CHECK(s0 < 0.5);
    CHECK(parity.at("cycles") != none.at("cycles"));

    // Never compressing is the `none` configuration: every figure but the name is its own.
    auto never = rows.at("never_compress");
    never["config"] = "none";
    CHECK(never == none);
}

TEST_CASE("run_latte_explorer: a selector named like a configuration is refused") {
    // The tool's first step: user_selector_names's config_error is its usage error (status 2),
    // before any option is read. Checked on the function rather than through
    // run_latte_explorer<named_like_latte> and <set_parity, set_parity>: each instantiation of
    // the tool compiles all of it again (minutes in the sanitizer build).
    namespace detail = memsub::explorer::latte_explorer_detail;
    CHECK_THROWS_WITH_AS((void)detail::user_selector_names<named_like_latte>(),
                         doctest::Contains("latte_cc"), memsub::config_error);
    CHECK_THROWS_WITH_AS(((void)detail::user_selector_names<set_parity, set_parity>()),
                         doctest::Contains("set_parity"), memsub::config_error);
    CHECK(detail::user_selector_names<set_parity, never_compress>() ==
          std::vector<std::string>{"set_parity", "never_compress"});
}
