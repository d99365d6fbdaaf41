// The MCM-GPU study's numbers and statuses around the edges of a run: a stream cut short by a stop
// signal gets no speedup or traffic cut, the cut has one definition in every table, a shortened
// scaling list is not indexed past its end, an extra placement is checked against each kernel's
// footprint before any work, and an error mid-run still writes what finished, with the error.
#include <doctest/doctest.h>

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/explorer/run_mcm_explorer.hpp>
#include <memsub/explorer/signals.hpp>
#include <memsub/placement/concept.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

namespace mcm = memsub::explorer::mcm_explorer_detail;

/// What scripted_placement does on its run.
enum class script : std::uint8_t { none, stop, fail, refuse_big_footprint };
script scripted = script::none;
/// refuse_big_footprint: the largest footprint_bytes its params accept.
std::uint64_t max_footprint = 0;
/// The instances that placed an address so far (fail: the second one fails).
int placing = 0;

/// The fine-grain interleave on 128 B, with a scripted misbehaviour: a stop signal at its first
/// placement (as a Ctrl-C during its stream), an error at the first placement of its second
/// stream (the second kernel's), or params that refuse a footprint over max_footprint (they
/// pass with the footprint 0 the names are taken with).
class scripted_placement {
public:
    struct params {
        std::uint32_t partitions = 4;
        std::uint32_t granule_bytes = 128;
        std::uint64_t footprint_bytes = 0;
    };
    explicit scripted_placement(const params& p) : p_(p) {
        memsub::require(p.partitions >= 1, "scripted_placement", "partitions", p.partitions,
                        "must be at least 1");
        if (scripted == script::refuse_big_footprint)
            memsub::require(p.footprint_bytes <= max_footprint, "scripted_placement",
                            "footprint_bytes", p.footprint_bytes, "is over the test's limit");
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "scripted"; }
    memsub::placement::location place(memsub::byte_address a, std::uint32_t) {
        if (!placed_) {
            placed_ = true;
            if (scripted == script::stop) memsub::explorer::detail::record_stop_signal(SIGINT);
            if (scripted == script::fail && ++placing == 2)
                throw std::runtime_error("scripted placement failed");
        }
        return *locate(a);
    }
    [[nodiscard]] std::optional<memsub::placement::location>
    locate(memsub::byte_address a) const noexcept {
        return memsub::placement::location{
            .partition = static_cast<std::uint32_t>((a.value / p_.granule_bytes) % p_.partitions),
            .channel = 0,
            .local_address = a.value};
    }
    [[nodiscard]] std::uint32_t partitions() const noexcept { return p_.partitions; }
    [[nodiscard]] std::uint32_t channels_per_partition() const noexcept { return 1; }
    [[nodiscard]] std::uint32_t page_bytes() const noexcept { return 4096; }
    [[nodiscard]] std::uint32_t granule_bytes() const noexcept { return p_.granule_bytes; }
    [[nodiscard]] std::uint64_t partition_bytes() const noexcept { return std::uint64_t{1} << 48; }

private:
    params p_;
    bool placed_ = false;
};
static_assert(memsub::placement::placement_policy<scripted_placement>);

/// `run()`'s stdout.
template <class Run>
std::string captured_stdout(Run&& run) {
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() / "memsub_mcm_explorer_run_test.out";
    {
        const stdout_to redirect(file);
        run();
    }
    std::string text = read_text(file);
    std::filesystem::remove(file);
    return text;
}

struct outcome {
    int status = 0;
    std::vector<std::map<std::string, std::string>> rows;
    std::string out;
};

/// Runs run_mcm_explorer<scripted_placement> under `what` with `args` after the program name,
/// the CSV in a folder of its own.
outcome run_scripted(script what, std::vector<std::string> args) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "memsub_mcm_explorer_run_test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path csv = dir / "mcm.csv";
    args.insert(args.begin(), "my_mcm_explorer");
    args.insert(args.end(), {"--quiet", "--scaling", "none", "--csv", csv.string()});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    scripted = what;
    outcome r;
    r.out = captured_stdout([&] {
        r.status = memsub::explorer::run_mcm_explorer<scripted_placement>(
            static_cast<int>(argv.size()), argv.data());
    });
    scripted = script::none;
    memsub::explorer::detail::stop_signal = 0;
    if (fs::exists(csv)) r.rows = csv_table_of(csv);
    fs::remove_all(dir);
    return r;
}

/// The line of `text` that starts with `prefix` ("" if none).
std::string line_of(const std::string& text, std::string_view prefix) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) return line;
    return {};
}

} // namespace

TEST_CASE("mcm_explorer: a stream cut short has no speedup or traffic cut") {
    // The extra's stream (the last) records a stop at its first placement and stops at the next
    // poll (64 Ki warp instructions): the library's configurations are complete, it is not.
    const auto r = run_scripted(
        script::stop, {"--timing", "constant", "--kernels", "stencil", "--launches", "2"});
    CHECK(r.status == 130);
    const std::string row = line_of(r.out, "scripted ");
    REQUIRE(!row.empty());
    CHECK(row.find("(partial)") != std::string::npos);
    // Its rel, cut and speedup columns are "-": its time and bytes cover part of the kernel.
    std::istringstream cells(row);
    std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
    REQUIRE(words.size() == 12); // name, 10 figures, "(partial)"
    CHECK(words[2] == "-");
    CHECK(words[3] == "-");
    CHECK(words[10] == "-");
    // A library configuration's row is compared as before.
    const std::string ds = line_of(r.out, "+DS ");
    REQUIRE(!ds.empty());
    CHECK(ds.find("(partial)") == std::string::npos);
    CHECK(ds.find('x') != std::string::npos);
    // The summary leaves it out too.
    const std::string summary = line_of(r.out, "stencil    ");
    CHECK(summary.find("inf") == std::string::npos);
    bool scripted_partial = false;
    for (const auto& c : r.rows)
        if (c.at("config") == "scripted") scripted_partial = c.at("partial") == "1";
    CHECK(scripted_partial);
}

TEST_CASE("mcm_explorer: the per-kernel and summary traffic cuts agree when no byte moves") {
    mcm::config_result none, some;
    some.inter_module_bytes = 100;
    CHECK(mcm::traffic_cut(none, none) == 1.0); // one module: nothing to cut
    CHECK(mcm::ratio_text(mcm::traffic_cut(none, none)) == "1.00x");
    CHECK(mcm::ratio_text(mcm::traffic_cut(none, some)) == "inf");
    CHECK(mcm::ratio_text(mcm::traffic_cut(some, some)) == "1.00x");
    // The per-kernel table prints the same as the summary on one module.
    const auto r =
        run_scripted(script::none, {"--timing", "constant", "--kernels", "stencil", "--scale",
                                    "0.05", "--launches", "2", "--modules", "1"});
    CHECK(r.status == 0);
    const std::string row = line_of(r.out, "+L1.5 ");
    REQUIRE(!row.empty());
    std::istringstream cells(row);
    std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
    REQUIRE(words.size() == 11);
    CHECK(words[2] == "1.000"); // rel, the cut's inverse
    CHECK(words[3] == "1.00x");
}

TEST_CASE("mcm_explorer: the footprint line speaks binary units only") {
    mcm::machine_result r;
    r.m = {4, 8};
    r.footprint_bytes = 3 << 20;
    const std::string line = mcm::footprint_line(r);
    // 8 SMs x 32 KiB = 256 KiB per module, 1 MiB on four.
    CHECK(line == "footprint 3.00 MiB; L1.5 256 KiB per module (1.00 MiB on 4 modules): the "
                  "inputs outgrow the L1.5s");
}

TEST_CASE("mcm_explorer: a scaling list cut short by a stop is not read past its end") {
    // --scaling 2,1 stopped during the 2-module run: one scaling run, partial; no 1-module run.
    mcm::options o;
    o.scaling = {2, 1};
    o.configs = mcm::configurations<>({o.modules, o.sms_per_module});
    mcm::kernel_study s;
    s.kernel = "stencil";
    s.main.m = {4, 8};
    s.main.configs.resize(o.configs.size());
    s.main.ran.assign(o.configs.size(), true);
    s.main.stopped.assign(o.configs.size(), false);
    mcm::machine_result two;
    two.m = {2, 8};
    two.configs.resize(o.configs.size());
    two.ran.assign(o.configs.size(), false);
    two.stopped.assign(o.configs.size(), false);
    two.ran[0] = true;
    two.stopped[0] = true;
    two.partial = true;
    s.scaling.push_back(two);
    s.partial = true;
    const std::string out = captured_stdout([&] { mcm::print_study(s, o); });
    REQUIRE(out.find("EDPSE % / speedup") != std::string::npos);
    // The last line is all three's EDPSE row: no 1-module run, so no EDPSE and no speedup.
    const std::string last = out.substr(out.rfind('\n', out.size() - 2) + 1);
    std::istringstream cells(last);
    const std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
    CHECK(words == std::vector<std::string>{"L1.5+DS+FT", "-"});
}

TEST_CASE("mcm_explorer: an extra placement is checked against each kernel's footprint first") {
    // Its params accept kmeans's footprint and refuse stencil's: exit 2 with nothing run, not
    // after kmeans's study and stencil's eight library streams.
    // At --scale 0.05 kmeans's arrays take about 115 KB, stencil's about 156 KB; a placement is
    // given twice that + 1 MiB.
    max_footprint = (std::uint64_t{1} << 20) + 2 * 140'000;
    const auto r = run_scripted(script::refuse_big_footprint,
                                {"--timing", "constant", "--kernels", "kmeans,stencil", "--scale",
                                 "0.05", "--launches", "1"});
    CHECK(r.status == 2);
    CHECK(r.rows.empty());
    CHECK(r.out.find("baseline") == std::string::npos);
}

TEST_CASE("mcm_explorer: an error mid-run still writes what finished, with the error") {
    // stencil finishes; the extra placement throws in kmeans's run.
    placing = 0;
    const auto r =
        run_scripted(script::fail, {"--timing", "constant", "--kernels", "stencil,kmeans",
                                    "--scale", "0.05", "--launches", "2"});
    CHECK(r.status == 1);
    REQUIRE(r.rows.size() == 10); // stencil's nine, then the error
    CHECK(r.rows.front().at("kernel") == "stencil");
    CHECK(r.rows.front().at("partial") == "0");
    const auto& last = r.rows.back();
    CHECK(last.at("kernel") == "kmeans");
    CHECK(last.at("partial") == "1");
    CHECK(last.at("error") == "scripted placement failed");
}

TEST_CASE("mcm_explorer: a module count repeated in --scaling runs once") {
    std::vector<std::string> args{"mcm_explorer", "--scaling", "2,1,2,1"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    const auto o = mcm::parse(static_cast<int>(argv.size()), argv.data());
    CHECK(o.scaling == std::vector<std::uint32_t>{2, 1});
}
