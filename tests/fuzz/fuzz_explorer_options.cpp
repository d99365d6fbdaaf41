// libFuzzer target: the explorer's command-line parser (include/memsub/explorer/options.hpp)
// and the number parsers under it. The input is split at NUL bytes into arguments. Properties,
// besides no crash and no UB:
//   * parse_explorer_options returns or throws option_error — nothing else;
//   * it is deterministic (a second parse gives the same options or the same message);
//   * a plot file it accepts has a gnuplot terminal;
//   * parse_unsigned agrees with std::from_chars on every argument (accepts exactly the
//     all-digit texts that fit in 64 bits, with the same value) and honours its range;
//   * parse_positive_real accepts only finite values in (0, max].
// A broken property calls __builtin_trap(), which libFuzzer reports as a crash.
#include <memsub/explorer/options.hpp>
#include <memsub/explorer/plot.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

void require(bool ok) {
    if (!ok) __builtin_trap();
}

bool same(const memsub::explorer::explorer_options& a,
          const memsub::explorer::explorer_options& b) {
    return a.what == b.what && a.traces == b.traces && a.format == b.format && a.shape == b.shape &&
           a.policies == b.policies && a.no_opt == b.no_opt && a.progress == b.progress &&
           a.limit == b.limit && a.default_accesses == b.default_accesses && a.seed == b.seed &&
           a.csv == b.csv && a.json == b.json && a.plot == b.plot;
}

void check_numbers(std::string_view text, std::uint64_t lo, std::uint64_t hi) {
    using memsub::explorer::option_error;
    std::uint64_t reference = 0;
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                     [](char c) { return c >= '0' && c <= '9'; });
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), reference);
    const bool fits = digits && ec == std::errc{} && end == text.data() + text.size();
    try {
        const std::uint64_t v = memsub::explorer::parse_unsigned("--n", text, lo, hi);
        require(fits && v == reference && v >= lo && v <= hi);
    } catch (const option_error&) {
        require(!fits || reference < lo || reference > hi);
    }
    try {
        const double v = memsub::explorer::parse_positive_real("--x", text, 1e12);
        require(std::isfinite(v) && v > 0 && v <= 1e12);
    } catch (const option_error&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> words;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= input.size(); ++i)
        if (i == input.size() || input[i] == '\0') {
            words.push_back(input.substr(start, i - start));
            start = i + 1;
        }
    const std::vector<std::string_view> args(words.begin(), words.end());
    const std::uint64_t lo = size > 0 ? data[0] % 4 : 0;
    const std::uint64_t hi =
        size > 1 && data[1] % 2 ? std::uint64_t{0xffffffff} : ~std::uint64_t{0};
    for (const auto& w : args) check_numbers(w, lo, hi);

    std::string first_error, second_error;
    memsub::explorer::explorer_options first, second;
    try {
        first = memsub::explorer::parse_explorer_options(args);
    } catch (const memsub::explorer::option_error& e) {
        first_error = e.what();
        require(!first_error.empty());
    }
    try {
        second = memsub::explorer::parse_explorer_options(args);
    } catch (const memsub::explorer::option_error& e) {
        second_error = e.what();
    }
    require(first_error == second_error);
    if (first_error.empty()) {
        require(same(first, second));
        require(first.plot.empty() || memsub::explorer::gnuplot_terminal_for(first.plot));
    }
    return 0;
}
