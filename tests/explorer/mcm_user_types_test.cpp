// The MCM-GPU study runs a user's own types: a page placement and a CTA scheduler that are not in
// the library run through run_mcm_explorer as configurations of their own, named by name(), with
// the numbers their decisions give (every page in module 0's memory: one DRAM partition carries
// the traffic; every CTA on module 0: a quarter of the SMs issue the kernel).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/cta/concept.hpp>
#include <memsub/explorer/run_mcm_explorer.hpp>
#include <memsub/placement/concept.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

/// Every address in partition 0 (module 0's memory), at its own address: a made-up placement
/// that no library policy gives.
class all_in_module_zero {
public:
    struct params {
        std::uint32_t partitions = 4;
        std::uint32_t granule_bytes = 128;
    };
    explicit all_in_module_zero(const params& p) : p_(p) {
        memsub::require(p.partitions >= 1, "all_in_module_zero", "partitions", p.partitions,
                        "must be at least 1");
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "all_in_module_zero"; }
    memsub::placement::location place(memsub::byte_address a, std::uint32_t) noexcept {
        return *locate(a);
    }
    [[nodiscard]] std::optional<memsub::placement::location>
    locate(memsub::byte_address a) const noexcept {
        return memsub::placement::location{.partition = 0, .channel = 0, .local_address = a.value};
    }
    [[nodiscard]] std::uint32_t partitions() const noexcept { return p_.partitions; }
    [[nodiscard]] std::uint32_t channels_per_partition() const noexcept { return 1; }
    [[nodiscard]] std::uint32_t page_bytes() const noexcept { return 4096; }
    [[nodiscard]] std::uint32_t granule_bytes() const noexcept { return p_.granule_bytes; }
    [[nodiscard]] std::uint64_t partition_bytes() const noexcept { return std::uint64_t{1} << 48; }

private:
    params p_;
};
static_assert(memsub::placement::placement_policy<all_in_module_zero>);

/// Every CTA on module 0's SMs, in CTA order, the lowest SM with a free slot first: the other
/// modules stay idle.
class module_zero_only {
public:
    struct params {
        std::uint32_t modules = 4;
        std::uint32_t sms_per_module = 8;
    };
    explicit module_zero_only(const params& p)
        : modules_(p.modules)
        , sms_per_module_(p.sms_per_module)
        , running_(p.modules * p.sms_per_module) {
        memsub::require(p.modules >= 1 && p.sms_per_module >= 1, "module_zero_only",
                        "sms_per_module", p.sms_per_module, "needs at least one SM");
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "module_zero_only"; }

    void launch(const memsub::cta::kernel_launch& k) {
        memsub::require(k.max_ctas_per_sm >= 1, "module_zero_only", "max_ctas_per_sm",
                        k.max_ctas_per_sm, "must be at least 1");
        ctas_ = k.ctas;
        next_ = 0;
        max_per_sm_ = k.max_ctas_per_sm;
    }
    std::optional<memsub::cta::cta_assignment> dispatch() noexcept {
        for (std::uint32_t sm = 0; sm < sms_per_module_; ++sm)
            if (const std::uint32_t c = next_cta(sm); c != memsub::cta::no_cta)
                return memsub::cta::cta_assignment{.cta = c, .sm = sm, .module = 0};
        return std::nullopt;
    }
    std::uint32_t next_cta(std::uint32_t sm) noexcept {
        if (sm >= sms_per_module_ || next_ == ctas_ || running_[sm] >= max_per_sm_)
            return memsub::cta::no_cta;
        ++running_[sm];
        ++stats_.started;
        return next_++;
    }
    void on_cta_complete(std::uint32_t sm) noexcept {
        if (sm < running_.size() && running_[sm] > 0)
            --running_[sm];
        else
            ++stats_.ignored_completions;
    }
    [[nodiscard]] std::uint32_t modules() const noexcept { return modules_; }
    [[nodiscard]] std::uint32_t sms() const noexcept { return modules_ * sms_per_module_; }
    [[nodiscard]] std::uint32_t unstarted() const noexcept { return ctas_ - next_; }
    [[nodiscard]] std::uint32_t running() const noexcept {
        std::uint32_t n = 0;
        for (const std::uint32_t r : running_) n += r;
        return n;
    }
    [[nodiscard]] std::uint32_t running_on(std::uint32_t sm) const noexcept {
        return sm < running_.size() ? running_[sm] : 0;
    }
    [[nodiscard]] bool finished() const noexcept { return unstarted() == 0 && running() == 0; }
    [[nodiscard]] const memsub::cta::cta_stats& stats() const noexcept { return stats_; }

private:
    std::uint32_t modules_, sms_per_module_;
    std::vector<std::uint32_t> running_;
    std::uint32_t ctas_ = 0, next_ = 0, max_per_sm_ = 1;
    memsub::cta::cta_stats stats_{};
};
static_assert(memsub::cta::cta_scheduler<module_zero_only>);

/// A placement named like one of the library's configurations.
class named_baseline : public all_in_module_zero {
public:
    using all_in_module_zero::all_in_module_zero;
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "baseline"; }
};

/// The CSV's rows by configuration name, each as column name -> cell.
using csv_rows = std::map<std::string, std::map<std::string, std::string>>;

csv_rows parse_csv(const std::filesystem::path& file) {
    csv_rows rows;
    for (auto& row : csv_table_of(file)) rows[row["config"]] = row;
    return rows;
}

double number(const csv_rows& rows, const std::string& config, const std::string& column) {
    return std::stod(rows.at(config).at(column));
}

/// Runs run_mcm_explorer<Extras...> on stencil (analytic timing, 4 x 8 SMs) with its CSV in a
/// folder of its own; returns the exit status and the CSV's rows.
template <class... Extras>
std::pair<int, csv_rows> run_study(std::string_view folder) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / folder;
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path csv = dir / "mcm.csv";
    std::vector<std::string> args{"my_mcm_explorer", "--quiet",   "--timing",  "constant",
                                  "--kernels",       "stencil",   "--scale",   "0.05",
                                  "--launches",      "2",         "--scaling", "none",
                                  "--csv",           csv.string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    const int status =
        memsub::explorer::run_mcm_explorer<Extras...>(static_cast<int>(argv.size()), argv.data());
    csv_rows rows = fs::exists(csv) ? parse_csv(csv) : csv_rows{};
    fs::remove_all(dir);
    return {status, rows};
}

} // namespace

TEST_CASE("run_mcm_explorer: a user's placement and CTA scheduler run as configurations of "
          "their own") {
    const auto [status, rows] =
        run_study<all_in_module_zero, module_zero_only>("memsub_mcm_user_types_test");
    CHECK(status == 0);
    REQUIRE(rows.count("baseline") == 1);
    REQUIRE(rows.count("all_in_module_zero") == 1);
    REQUIRE(rows.count("module_zero_only") == 1);
    CHECK(rows.size() == 10); // the library's eight, then the two extras

    // Both run the same kernel: the same warp instructions as the baseline.
    const double instructions = number(rows, "baseline", "warp_instructions");
    CHECK(instructions > 0);
    CHECK(number(rows, "all_in_module_zero", "warp_instructions") == instructions);
    CHECK(number(rows, "module_zero_only", "warp_instructions") == instructions);

    // The placement puts every byte in module 0's DRAM: its busiest partition carries the
    // traffic the interleave spreads over four (the same CTA order: the same misses).
    CHECK(number(rows, "all_in_module_zero", "dram_read_bytes") ==
          number(rows, "baseline", "dram_read_bytes"));
    CHECK(number(rows, "all_in_module_zero", "dram_bound_cycles") >
          3 * number(rows, "baseline", "dram_bound_cycles"));
    // Module 0's requests are local, the other three modules' remote: about a quarter local.
    const double local = number(rows, "all_in_module_zero", "local_requests");
    const double remote = number(rows, "all_in_module_zero", "remote_requests");
    CHECK(local / (local + remote) > 0.15);
    CHECK(local / (local + remote) < 0.35);

    // The scheduler keeps three modules idle: the issue takes at least twice the baseline's.
    CHECK(number(rows, "module_zero_only", "issue_cycles") >
          2 * number(rows, "baseline", "issue_cycles"));
    CHECK(number(rows, "module_zero_only", "cycles") > number(rows, "baseline", "cycles"));
}

TEST_CASE("run_mcm_explorer: an extra named like another configuration is a usage error") {
    const auto [status, rows] = run_study<named_baseline>("memsub_mcm_user_types_clash_test");
    CHECK(status == 2);
    CHECK(rows.empty()); // nothing ran
}
