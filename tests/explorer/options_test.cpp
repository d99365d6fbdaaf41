// The example programs' option parsing (memsub/explorer/): numbers at full width with their
// field's range checked, real values, plot formats, and the explorer's command line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/options.hpp>
#include <memsub/explorer/plot.hpp>

using namespace memsub::explorer;

namespace {

std::string error_of(auto&& f) {
    try {
        f();
    } catch (const option_error& e) {
        return e.what();
    }
    return "(no option_error)";
}

explorer_options parse(std::vector<std::string_view> args) {
    return parse_explorer_options(args);
}

} // namespace

TEST_CASE("numbers are parsed at full width and checked against the field's range") {
    CHECK(parse_unsigned("--n", "0") == 0);
    CHECK(parse_unsigned("--n", "18446744073709551615") ==
          std::numeric_limits<std::uint64_t>::max());
    CHECK(error_of([] { parse_unsigned("--n", "18446744073709551616"); }) ==
          "--n = 18446744073709551616 is out of range: it must be in 0..18446744073709551615");
    // A 32-bit field: 2^32 + 1024 used to become 1024, 2^32 became 0.
    CHECK(parse_unsigned_as<std::uint32_t>("--sets", "4294967295") == 4294967295u);
    CHECK(error_of([] { parse_unsigned_as<std::uint32_t>("--sets", "4294968320"); }) ==
          "--sets = 4294968320 is out of range: it must be in 0..4294967295");
    CHECK(error_of([] { parse_unsigned_as<std::uint32_t>("--sets", "4294967296", 1); }) ==
          "--sets = 4294967296 is out of range: it must be in 1..4294967295");
    CHECK(error_of([] { parse_unsigned("--limit", "12x"); }) ==
          "--limit expects a whole number in 0..18446744073709551615, got '12x'");
    CHECK(error_of([] { parse_unsigned("--limit", ""); }).find("--limit expects") == 0);
    CHECK(error_of([] { parse_unsigned("--limit", "-1"); }).find("got '-1'") != std::string::npos);
    CHECK(error_of([] { parse_unsigned("--requesters", "0", 1, 1024); }) ==
          "--requesters = 0 is out of range: it must be in 1..1024");
    CHECK(parse_unsigned("--requesters", "1024", 1, 1024) == 1024);
}

TEST_CASE("real values must be finite, positive and within the option's bound") {
    CHECK(parse_positive_real("--x", "24") == 24.0);
    CHECK(parse_positive_real("--x", "1e12", 1e12) == 1e12);
    for (const char* bad : {"0", "-1", "nan", "inf", "1e400", "", "12ns", "0x"}) {
        CAPTURE(bad);
        CHECK(error_of([&] { parse_positive_real("--x", bad); }).find("--x expects") == 0);
    }
    CHECK(error_of([] { parse_positive_real("--access-ns", "1e15", 1e12); }) ==
          "--access-ns = 1e15 is out of range: it must be at most 1e+12");
}

TEST_CASE("a plot's format follows its file extension") {
    CHECK(gnuplot_terminal_for("a.png") == "pngcairo");
    CHECK(gnuplot_terminal_for("dir.v2/A.SVG") == "svg dynamic");
    CHECK(gnuplot_terminal_for("a.pdf") == "pdfcairo");
    CHECK_FALSE(gnuplot_terminal_for("out.gif"));
    CHECK_FALSE(gnuplot_terminal_for("out"));
    CHECK_FALSE(gnuplot_terminal_for("dir.png/out"));
}

TEST_CASE("the explorer's command line") {
    const auto o = parse({"--sets", "1024", "--ways", "8", "--line-bytes", "128", "--policies",
                          "lru,srrip", "--no-opt", "--limit", "5000000000", "a.din", "--trace",
                          "b.lackey", "--plot", "m.pdf", "--quiet"});
    CHECK(o.shape == memsub::geometry{.sets = 1024, .ways = 8, .line_bytes = 128});
    CHECK(o.policies == std::vector<std::string>{"lru", "srrip"});
    CHECK(o.no_opt);
    CHECK_FALSE(o.progress);
    CHECK(o.limit == 5'000'000'000ull); // 64-bit, not cut to 32
    CHECK(o.traces == std::vector<std::string>{"a.din", "b.lackey"});
    CHECK(o.plot == "m.pdf");
    // A policy's settings ride in the list: an item with '=' and no ':' continues the spec.
    CHECK(parse({"--policies", "lru,srrip:rrpv_bits=3,promotion=frequency_priority,drrip,"
                               "ship:counter_bits=2"})
              .policies ==
          std::vector<std::string>{"lru", "srrip:rrpv_bits=3,promotion=frequency_priority", "drrip",
                                   "ship:counter_bits=2"});
    CHECK(split_policy_list("a=1,lru") == std::vector<std::string>{"a=1", "lru"}); // no spec yet
    CHECK(split_policy_list("lru,a=1") == std::vector<std::string>{"lru", "a=1"}); // nor here
    CHECK(spec_policy_name("srrip:rrpv_bits=3") == "srrip");
    CHECK(spec_settings("srrip:rrpv_bits=3") == "rrpv_bits=3");
    CHECK(spec_settings("srrip").empty());
    CHECK(parse({"--help", "--bogus"}).what == explorer_options::action::help);
    CHECK(parse({"--list"}).what == explorer_options::action::list);
    CHECK(error_of([] { parse({"--sets", "4294968320"}); }).find("--sets = 4294968320") == 0);
    // Each option states its own range, not its field's (ways: 1..64; sets: powers of two).
    CHECK(error_of([] {
              parse({"--ways", "0"});
          }) == "--ways = 0 is out of range: it must be in 1..64");
    CHECK(error_of([] {
              parse({"--ways", "65"});
          }) == "--ways = 65 is out of range: it must be in 1..64");
    CHECK(error_of([] {
              parse({"--sets", "1000"});
          }) == "--sets = 1000 is not a power of two (try 512 or 1024)");
    CHECK(error_of([] {
              parse({"--sets", "4294967296"});
          }) == "--sets = 4294967296 is out of range: it must be in 1..2147483648");
    CHECK(error_of([] {
              parse({"--line-bytes", "2"});
          }) == "--line-bytes = 2 is out of range: it must be in 4..2147483648");
    CHECK(parse({"--sets", "2147483648"}).shape.sets == 2147483648u);
    CHECK(error_of([] { parse({"--plot", "out.gif"}); }).find("--plot out.gif: unknown plot") == 0);
    CHECK(error_of([] { parse({"--csv"}); }) == "--csv needs a value");
    CHECK(error_of([] { parse({"--format", "xml"}); }) == "unknown format 'xml'");
    CHECK(error_of([] { parse({"--frobnicate"}); }) == "unknown option --frobnicate");
}

TEST_CASE("the explorer's fully associative, 3C and object-size options") {
    const auto defaults = parse({});
    CHECK_FALSE(defaults.fully_associative);
    CHECK_FALSE(defaults.three_c);
    CHECK(defaults.object_bytes == 64);
    const auto o = parse({"--fully-associative", "--3c", "--object-bytes", "1", "t.bin"});
    CHECK(o.fully_associative);
    CHECK(o.three_c);
    CHECK(o.object_bytes == 1);
    CHECK(o.traces == std::vector<std::string>{"t.bin"});
    CHECK(error_of([] {
              parse({"--object-bytes", "0"});
          }).find("--object-bytes = 0 is out of range") != std::string::npos);
}

TEST_CASE("the explorer's --jobs and --opt-memory") {
    const auto defaults = parse({});
    CHECK(defaults.jobs == 1);
    CHECK(defaults.opt_memory_mib == 1024);
    const auto o = parse({"--jobs", "4", "--opt-memory", "64"});
    CHECK(o.jobs == 4);
    CHECK(o.opt_memory_mib == 64);
    CHECK(error_of([] {
              parse({"--jobs", "0"});
          }).find("--jobs = 0 is out of range") != std::string::npos);
    CHECK(error_of([] {
              parse({"--jobs", "5000"});
          }).find("must be in 1..1024") != std::string::npos);
    CHECK(error_of([] {
              parse({"--opt-memory", "0"});
          }).find("--opt-memory = 0 is out") != std::string::npos);
}

TEST_CASE("wrap_text: lines at most the width, words whole, continuation indented") {
    using memsub::explorer::wrap_text;
    CHECK(wrap_text("") == "");
    CHECK(wrap_text("one two three", 7) == "one two\nthree");
    CHECK(wrap_text("one two three", 9, 2) == "one two\n  three");
    CHECK(wrap_text("a verylongword b", 4) == "a\nverylongword\nb");
    const std::string text = "note: mlp_aware needs each miss's MLP-based cost in "
                             "hints.miss_cost_cycles (or update_cost): without costs every "
                             "cost_q is 0 and it replaces exactly as LRU.";
    const std::string wrapped = wrap_text(text, 40, 6);
    std::size_t longest = 0, start = 0;
    for (std::size_t nl; (nl = wrapped.find('\n', start)) != std::string::npos; start = nl + 1)
        longest = std::max(longest, nl - start);
    longest = std::max(longest, wrapped.size() - start);
    CHECK(longest <= 40);
    std::string rejoined; // the words are the text's, in order
    for (const char c : wrapped) rejoined += c == '\n' ? ' ' : c;
    std::string squeezed;
    for (const char c : rejoined)
        if (!(c == ' ' && !squeezed.empty() && squeezed.back() == ' ')) squeezed += c;
    CHECK(squeezed == text);
}

TEST_CASE("shared options: the one parser of every trace tool's inputs and outputs") {
    const std::vector<std::string_view> args{"--trace", "a.din",      "b.din", "--limit",
                                             "5",       "--accesses", "7",     "--seed",
                                             "9",       "--csv",      "o.csv", "--quiet"};
    shared_options o;
    for (std::size_t i = 0; i < args.size(); ++i) parse_shared_option(args, i, o);
    CHECK(o.traces == std::vector<std::string>{"a.din", "b.din"});
    CHECK(o.limit == 5);
    CHECK(o.default_accesses == 7);
    CHECK(o.seed == 9);
    CHECK(o.csv == "o.csv");
    CHECK_FALSE(o.progress);

    const auto error_of = [](std::vector<std::string_view> bad) {
        shared_options x;
        try {
            for (std::size_t i = 0; i < bad.size(); ++i) parse_shared_option(bad, i, x);
        } catch (const option_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(error_of({"--bogus"}) == "unknown option --bogus");
    CHECK(error_of({"--limit"}) == "--limit needs a value");
    CHECK(error_of({"--plot", "p.gif"}).starts_with("--plot p.gif: unknown plot format"));
    // The explorer's parser hands its arguments to the same function.
    CHECK(parse_explorer_options(args).default_accesses == 7);
}
