// The tools built on the explorer module run a user's own types: a compressor that is not in the
// library runs through run_compressibility and has its own columns in the CSV, with the ratios
// its sizes give; a row policy that is not in the library runs through run_memory_explorer as a
// configuration of its own.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/concept.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/explorer/run_compressibility.hpp>
#include <memsub/explorer/run_memory_explorer.hpp>
#include <memsub/memory/fr_fcfs.hpp>
#include <memsub/memory/row_policy_concept.hpp>

#include "csv_support.hpp"

namespace {

using namespace explorer_test;

/// A line as a dictionary of its distinct 32-bit words (32 bits each) and one 4-bit index per
/// word: a made-up scheme, so no library compressor gives its sizes.
class word_dictionary {
public:
    struct params {
        std::uint32_t line_bytes = 64;
    };
    explicit word_dictionary(const params& p) : line_bytes_(p.line_bytes) {
        memsub::require(p.line_bytes == 64, "word_dictionary", "line_bytes", p.line_bytes,
                        "must be 64 (16 words, 4-bit indices)");
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "word_dictionary"; }
    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return line_bytes_; }
    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        std::uint32_t words[16];
        std::uint32_t distinct = 0;
        for (std::size_t w = 0; w < 16; ++w) {
            std::uint32_t v;
            std::memcpy(&v, line.data() + 4 * w, 4);
            bool seen = false;
            for (std::uint32_t d = 0; d < distinct; ++d) seen = seen || words[d] == v;
            if (!seen) words[distinct++] = v;
        }
        return 32 * distinct + 16 * 4;
    }
    [[nodiscard]] static constexpr std::uint32_t metadata_bits() noexcept { return 0; }
    [[nodiscard]] static constexpr std::uint32_t compress_latency_cycles() noexcept { return 1; }
    [[nodiscard]] static constexpr std::uint32_t decompress_latency_cycles() noexcept { return 1; }
    [[nodiscard]] static constexpr double compress_energy_nj() noexcept { return 0.0; }
    [[nodiscard]] static constexpr double decompress_energy_nj() noexcept { return 0.0; }

private:
    std::uint32_t line_bytes_;
};
static_assert(memsub::compression::compressor<word_dictionary>);

/// Runs run_compressibility<word_dictionary, bdi> on `data` in a folder of its own; returns the
/// exit status and the CSV.
std::pair<int, std::string> run_on(const std::vector<std::byte>& data, std::string_view folder) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / folder;
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path input = dir / "lines.bin";
    {
        std::ofstream out(input, std::ios::binary);
        out.write(reinterpret_cast<const char*>(data.data()),
                  static_cast<std::streamsize>(data.size()));
    }
    std::vector<std::string> args{"my_compressibility", "--quiet",    "--no-plot",
                                  "--output-dir",       dir.string(), input.string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    const int status =
        memsub::explorer::run_compressibility<word_dictionary, memsub::compression::bdi>(
            static_cast<int>(argv.size()), argv.data());
    std::string csv = read_text(dir / "compressibility.csv");
    fs::remove_all(dir);
    return {status, csv};
}

} // namespace

TEST_CASE("run_compressibility: a user's compressor has its own columns with its ratios") {
    // 64 lines of one repeated word: 1 distinct word, 32 + 64 = 96 bits = 12 bytes, stored in
    // two 8-byte segments: ratio 64 / 16 = 4, exact (byte-granular) ratio 64 / 12.
    std::vector<std::byte> data(64 * 64);
    for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = std::byte{static_cast<unsigned char>(i % 4 == 0 ? 0x5a : 0x01)};
    const auto [status, csv] = run_on(data, "memsub_user_compressor_test");
    CHECK(status == 0);
    const auto header = csv.substr(0, csv.find('\n'));
    CHECK(header.find(",ratio_word_dictionary,ratio_bdi,") != std::string::npos);
    CHECK(header.find(",exact_ratio_word_dictionary,exact_ratio_bdi,") != std::string::npos);
    // The row: input, name, bytes, lines, line_bytes, segment_bytes, then the ratios.
    CHECK(csv.find(",lines.bin,4096,64,64,8,4.000000,") != std::string::npos);
    CHECK(csv.find(",5.333333,") != std::string::npos);
    // No compressor of the list takes a code book: none was trained.
    CHECK(header.find("sc2_training") != std::string::npos);
    CHECK(csv.find("first 10 %") == std::string::npos);
}

TEST_CASE("run_compressibility: each line is sized by the compressor of its column") {
    // 16 distinct words per line: 16 x 32 + 64 = 576 bits, more than the line: stored raw
    // (ratio 1), while BDI still compresses the small deltas.
    std::vector<std::byte> data(64 * 64);
    for (std::size_t w = 0; w < data.size() / 4; ++w) {
        const auto v = static_cast<std::uint32_t>(1000 + w);
        std::memcpy(data.data() + 4 * w, &v, 4);
    }
    const auto [status, csv] = run_on(data, "memsub_user_compressor_test_raw");
    CHECK(status == 0);
    const auto row = csv.substr(csv.find('\n') + 1);
    CHECK(row.find(",lines.bin,4096,64,64,8,1.000000,") != std::string::npos);
    CHECK(row.find(",lines.bin,4096,64,64,8,1.000000,1.000000,") == std::string::npos);
}

namespace {

/// A row policy of the user's: it closes the row after every access, as the library's
/// closed_page does, under a name of its own.
class always_close {
public:
    struct params {};
    explicit always_close(const params& = {}, std::uint32_t = 1) noexcept {}
    [[nodiscard]] std::uint64_t close_at(std::uint32_t, std::uint64_t) const noexcept { return 0; }
    void observe(std::uint32_t, memsub::memory::row_class, bool) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "always_close"; }
};
static_assert(memsub::memory::row_policy<always_close>);

/// The CSV rows of configuration `config` without its name (the figures and CDF points).
std::multiset<std::string> rows_of(const std::string& csv, const std::string& config) {
    std::multiset<std::string> out;
    std::istringstream in(csv);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with(config + ",")) out.insert(line.substr(config.size()));
    return out;
}

} // namespace

TEST_CASE("run_memory_explorer: a user's row policy is a configuration of its own") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "memsub_user_row_policy_test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string csv_file = (dir / "m.csv").string();
    std::vector<std::string> args{"my_memory_explorer",
                                  "--quiet",
                                  "--accesses",
                                  "20000",
                                  "--cdf",
                                  "",
                                  "--configs",
                                  "ddr4-frfcfs,ddr4-closed,ddr4-fr-fcfs-always_close",
                                  "--csv",
                                  csv_file};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    using mine = memsub::explorer::ddr4_configuration<memsub::memory::fr_fcfs, always_close>;
    const int status =
        memsub::explorer::run_memory_explorer<mine>(static_cast<int>(argv.size()), argv.data());
    const std::string csv = read_text(csv_file);
    fs::remove_all(dir);
    CHECK(status == 0);
    const auto own = rows_of(csv, "ddr4-fr-fcfs-always_close");
    // It ran on the same requests as the library's configurations, and closing every row gives
    // the closed-page controller's figures exactly, not the open-page one's.
    REQUIRE(!own.empty());
    CHECK(own == rows_of(csv, "ddr4-closed"));
    CHECK(own != rows_of(csv, "ddr4-frfcfs"));
}
