// memsub explorer — run traces (or the built-in default workload) through an LLC geometry with
// every replacement policy (or a chosen subset) and compare miss ratios against Belady's OPT.
//
//   explorer                                   built-in workload (zipf + loop + scan mix)
//   explorer --trace app.lackey --sets 1024    a valgrind lackey trace, 1 MiB 16-way LLC
//   explorer --policies lru,srrip,drrip --csv out.csv --json out.json app.din
//
// The trace is streamed in chunks (constant memory for the simulation); OPT needs the next use
// of every access, so it keeps 16 bytes per access of the trace (use --no-opt on huge traces).
#include <memsub/cache/basic_cache.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/trace/open.hpp>
#include <memsub/workload/synthetic.hpp>

#include "common/example_support.hpp"

#include <fmt/core.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

// ------------------------------------------------------------------ options

struct options {
    std::vector<std::string> traces;
    std::optional<memsub::trace::trace_format> format;
    memsub::geometry shape{.sets = 2048, .ways = 16, .line_bytes = 64};
    std::vector<std::string> policies; // empty = all
    bool opt = true;
    bool progress = true;
    std::uint64_t limit = 0; // 0 = whole trace
    std::uint64_t default_accesses = 5'000'000;
    std::uint64_t seed = 2026;
    std::string csv, json, plot;
};

[[noreturn]] void usage(int code) {
    std::fputs(
        "usage: explorer [options] [TRACE ...]\n"
        "  --trace FILE         a trace to replay (repeatable; bare arguments too)\n"
        "  --format NAME        lackey | din | text | u64 | oracleGeneral (default: detect)\n"
        "  --sets N             sets (power of two; default 2048)\n"
        "  --ways N             ways (default 16)\n"
        "  --line-bytes N       line size (default 64)\n"
        "  --policies A,B,...   policies to run (default: all; --list shows them)\n"
        "  --no-opt             skip Belady's OPT bound\n"
        "  --limit N            stop each trace after N accesses\n"
        "  --accesses N         length of the built-in workload (default 5000000)\n"
        "  --seed N             seed of the built-in workload (default 2026)\n"
        "  --csv FILE           also write the results as CSV\n"
        "  --json FILE          also write the results as JSON\n"
        "  --plot FILE.png|svg  also draw miss ratio per policy (needs gnuplot)\n"
        "  --quiet              no progress on stderr\n"
        "  --list               list the policies and exit\n",
        code == 0 ? stdout : stderr);
    std::exit(code);
}

std::uint64_t parse_number(std::string_view flag, std::string_view text) {
    return memsub_examples::parse_number("explorer", flag, text);
}

// ------------------------------------------------------------------ policy runners

/// Type erasure for the example only: one virtual call per chunk of 64 Ki accesses.
class runner {
public:
    virtual ~runner() = default;
    [[nodiscard]] virtual std::string name() const = 0;
    virtual void run(std::span<const memsub::access> chunk) = 0;
    [[nodiscard]] virtual const memsub::cache::cache_stats& stats() const = 0;
    [[nodiscard]] virtual std::uint64_t storage_bits() const = 0;
    double seconds = 0;
};

template <class Policy>
class policy_runner final : public runner {
public:
    explicit policy_runner(const memsub::geometry& g) : cache_(g) {}
    [[nodiscard]] std::string name() const override { return std::string(cache_.policy().name()); }
    void run(std::span<const memsub::access> chunk) override {
        const auto t0 = clock_type::now();
        cache_.access_all(chunk, [](const memsub::access&, const auto&) noexcept {});
        seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
    }
    [[nodiscard]] const memsub::cache::cache_stats& stats() const override {
        return cache_.stats();
    }
    [[nodiscard]] std::uint64_t storage_bits() const override {
        return memsub::replacement::storage_bits_of(cache_.policy());
    }

private:
    memsub::cache::set_associative_cache<Policy> cache_;
};

template <class... Policies>
std::vector<std::string> policy_names(const memsub::geometry& g, std::tuple<Policies...>*) {
    return {std::string(Policies(g, {}).name())...};
}

template <class... Policies>
std::vector<std::unique_ptr<runner>> make_runners(const memsub::geometry& g,
                                                  const std::vector<std::string>& wanted,
                                                  std::tuple<Policies...>*) {
    std::vector<std::unique_ptr<runner>> out;
    auto add = [&]<class P>(P*) {
        const std::string n(P(g, {}).name());
        if (wanted.empty() || std::find(wanted.begin(), wanted.end(), n) != wanted.end())
            out.push_back(std::make_unique<policy_runner<P>>(g));
    };
    (add(static_cast<Policies*>(nullptr)), ...);
    return out;
}

// ------------------------------------------------------------------ sources

using source = memsub_examples::chunked_source<memsub::workload::mixed_stream>;

source make_source(const options& o, const std::optional<std::string>& file) {
    if (file) return source(*file, o.format, o.limit);
    return source(memsub::workload::mixed_stream(memsub::workload::mixed_stream::params{
                      .cache_lines = o.shape.capacity_bytes() / o.shape.line_bytes,
                      .line_bytes = o.shape.line_bytes,
                      .seed = o.seed}),
                  fmt::format("built-in mix (zipf 55% / loop 30% / scan 15%, seed {})", o.seed),
                  o.default_accesses, o.limit);
}

// ------------------------------------------------------------------ results

struct result_row {
    std::string policy;
    std::uint64_t accesses = 0, misses = 0, writebacks = 0, storage_bits = 0;
    double seconds = 0;
};

struct trace_result {
    std::string label;
    std::optional<std::uint64_t> instructions;
    std::vector<result_row> rows;
    std::optional<std::uint64_t> opt_misses;
};

std::string percent(double x) {
    return fmt::format("{:.2f}%", 100.0 * x);
}

void print_table(const options& o, const trace_result& t) {
    fmt::print("\n{}\n", t.label);
    fmt::print("LLC: {} sets x {} ways x {} B = {} KiB\n", o.shape.sets, o.shape.ways,
               o.shape.line_bytes, o.shape.capacity_bytes() / 1024);
    fmt::print("{:<10} {:>12} {:>12} {:>10} {:>8} {:>10} {:>10} {:>9}\n", "policy", "accesses",
               "misses", "miss ratio", "MPKI", "vs OPT", "M acc/s", "meta KiB");
    fmt::print("{:-<88}\n", "");
    auto mpki = [&](std::uint64_t misses) {
        return t.instructions && *t.instructions > 0
                   ? fmt::format("{:.2f}", 1000.0 * static_cast<double>(misses) /
                                               static_cast<double>(*t.instructions))
                   : std::string("-");
    };
    for (const auto& r : t.rows) {
        const double ratio =
            r.accesses ? static_cast<double>(r.misses) / static_cast<double>(r.accesses) : 0.0;
        const std::string vs_opt =
            t.opt_misses && *t.opt_misses > 0
                ? fmt::format(
                      "{:+.1f}%",
                      100.0 * (static_cast<double>(r.misses) - static_cast<double>(*t.opt_misses)) /
                          static_cast<double>(*t.opt_misses))
                : std::string("-");
        const std::string rate =
            r.seconds > 0 ? fmt::format("{:.1f}", static_cast<double>(r.accesses) / r.seconds / 1e6)
                          : std::string("-");
        fmt::print("{:<10} {:>12} {:>12} {:>10} {:>8} {:>10} {:>10} {:>9.1f}\n", r.policy,
                   r.accesses, r.misses, percent(ratio), mpki(r.misses), vs_opt, rate,
                   static_cast<double>(r.storage_bits) / 8.0 / 1024.0);
    }
    if (t.opt_misses && !t.rows.empty()) {
        const auto n = t.rows.front().accesses;
        fmt::print("{:<10} {:>12} {:>12} {:>10} {:>8} {:>10} {:>10} {:>9}\n", "opt", n,
                   *t.opt_misses,
                   percent(n ? static_cast<double>(*t.opt_misses) / static_cast<double>(n) : 0.0),
                   mpki(*t.opt_misses), "bound", "-", "-");
    }
}

std::string json_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                out += fmt::format("\\u{:04x}", c);
            else
                out += c;
        }
    }
    return out;
}

std::string csv_quote(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

void write_csv(const options& o, const std::vector<trace_result>& all) {
    std::ofstream out(o.csv);
    if (!out) throw std::runtime_error("cannot write " + o.csv);
    fmt::print(out, "trace,sets,ways,line_bytes,policy,accesses,misses,miss_ratio,mpki,"
                    "writebacks,accesses_per_second,storage_bits\n");
    for (const auto& t : all) {
        auto row = [&](std::string_view policy, std::uint64_t n, std::uint64_t misses,
                       std::uint64_t wb, double seconds, std::uint64_t bits) {
            fmt::print(out, "{},{},{},{},{},{},{},{:.6f},{},{},{},{}\n", csv_quote(t.label),
                       o.shape.sets, o.shape.ways, o.shape.line_bytes, policy, n, misses,
                       n ? static_cast<double>(misses) / static_cast<double>(n) : 0.0,
                       t.instructions && *t.instructions
                           ? fmt::format("{:.4f}", 1000.0 * static_cast<double>(misses) /
                                                       static_cast<double>(*t.instructions))
                           : std::string(),
                       wb,
                       seconds > 0 ? fmt::format("{:.0f}", static_cast<double>(n) / seconds) : "",
                       bits);
        };
        for (const auto& r : t.rows)
            row(r.policy, r.accesses, r.misses, r.writebacks, r.seconds, r.storage_bits);
        if (t.opt_misses && !t.rows.empty())
            row("opt", t.rows.front().accesses, *t.opt_misses, 0, 0, 0);
    }
}

void write_json(const options& o, const std::vector<trace_result>& all) {
    std::ofstream out(o.json);
    if (!out) throw std::runtime_error("cannot write " + o.json);
    fmt::print(out, "{{\n  \"geometry\": {{\"sets\": {}, \"ways\": {}, \"line_bytes\": {}}},\n",
               o.shape.sets, o.shape.ways, o.shape.line_bytes);
    fmt::print(out, "  \"traces\": [\n");
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& t = all[i];
        fmt::print(out, "    {{\"trace\": \"{}\", \"instructions\": {}, \"opt_misses\": {},\n",
                   json_escape(t.label), t.instructions ? std::to_string(*t.instructions) : "null",
                   t.opt_misses ? std::to_string(*t.opt_misses) : "null");
        fmt::print(out, "     \"policies\": [\n");
        for (std::size_t j = 0; j < t.rows.size(); ++j) {
            const auto& r = t.rows[j];
            fmt::print(out,
                       "       {{\"policy\": \"{}\", \"accesses\": {}, \"misses\": {}, "
                       "\"writebacks\": {}, \"seconds\": {:.6f}, \"storage_bits\": {}}}{}\n",
                       r.policy, r.accesses, r.misses, r.writebacks, r.seconds, r.storage_bits,
                       j + 1 < t.rows.size() ? "," : "");
        }
        fmt::print(out, "     ]}}{}\n", i + 1 < all.size() ? "," : "");
    }
    fmt::print(out, "  ]\n}}\n");
}

/// Writes FILE.dat and FILE.gp (a grouped bar chart of miss ratio per policy, one group per
/// trace, OPT's bound as the last bar) and renders FILE with gnuplot when it is installed.
void write_plot(const options& o, const std::vector<trace_result>& all) {
    const std::string base = o.plot.substr(0, o.plot.find_last_of('.'));
    const bool svg = o.plot.ends_with(".svg");
    {
        std::ofstream dat(base + ".dat");
        if (!dat) throw std::runtime_error("cannot write " + base + ".dat");
        fmt::print(dat, "policy");
        for (std::size_t i = 0; i < all.size(); ++i) fmt::print(dat, "\ttrace{}", i + 1);
        fmt::print(dat, "\n");
        const std::size_t rows = all.front().rows.size();
        for (std::size_t r = 0; r <= rows; ++r) {
            if (r == rows && !all.front().opt_misses) break;
            fmt::print(dat, "{}", r < rows ? all.front().rows[r].policy : std::string("opt"));
            for (const auto& t : all) {
                const double n = static_cast<double>(t.rows.empty() ? 0 : t.rows.front().accesses);
                const double m = static_cast<double>(r < rows ? t.rows[r].misses : *t.opt_misses);
                fmt::print(dat, "\t{:.6f}", n > 0 ? 100.0 * m / n : 0.0);
            }
            fmt::print(dat, "\n");
        }
    }
    {
        std::ofstream gp(base + ".gp");
        if (!gp) throw std::runtime_error("cannot write " + base + ".gp");
        fmt::print(gp, "set terminal {} size 1000,520 font ',11'\n",
                   svg ? "svg dynamic" : "pngcairo");
        fmt::print(gp, "set output '{}'\nset termoption noenhanced\n", o.plot);
        fmt::print(gp,
                   "set title 'LLC miss ratio by replacement policy ({} sets x {} ways x {} B)'\n",
                   o.shape.sets, o.shape.ways, o.shape.line_bytes);
        fmt::print(gp, "set ylabel 'miss ratio (%)'\nset yrange [0:*]\nset grid ytics\n");
        fmt::print(gp, "set style data histograms\nset style histogram clustered gap 1\n");
        fmt::print(gp, "set style fill solid 0.8 border -1\nset boxwidth 0.9\n");
        fmt::print(gp, "set key inside top right box opaque noenhanced\nset xtics rotate by -30\n");
        fmt::print(gp, "plot ");
        for (std::size_t i = 0; i < all.size(); ++i) {
            std::string title = all[i].label;
            if (title.size() > 40) title = "..." + title.substr(title.size() - 37);
            for (auto& c : title)
                if (c == '\'') c = ' ';
            fmt::print(gp, "{}'{}.dat' using {}:xtic(1) title '{}'", i ? ", " : "", base, i + 2,
                       title);
        }
        fmt::print(gp, "\n");
    }
    if (std::system("command -v gnuplot >/dev/null 2>&1") == 0 &&
        std::system(fmt::format("gnuplot '{}.gp'", base).c_str()) == 0)
        fmt::print("\nplot written to {} (data {}.dat, script {}.gp)\n", o.plot, base, base);
    else
        fmt::print(stderr, "explorer: gnuplot not found; render with: gnuplot {}.gp\n", base);
}

// ------------------------------------------------------------------ driver

/// Belady's OPT over the recorded line stream (no bypass: the bound for policies that always
/// insert, as every policy in the table does).
std::uint64_t opt_misses(const options& o, std::span<const memsub::line_address> lines) {
    const auto next = memsub::replacement::next_use_positions(lines);
    memsub::cache::set_associative_cache<memsub::replacement::opt> cache(o.shape);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        memsub::access a;
        a.address = memsub::byte_address{lines[i].value << memsub::log2_exact(o.shape.line_bytes)};
        a.hints.next_use = next[i];
        cache.access(a);
    }
    return cache.stats().misses;
}

trace_result explore(const options& o, std::optional<std::string> file) {
    source src = make_source(o, file);
    auto runners =
        make_runners(o.shape, o.policies, static_cast<memsub::replacement::all_policies*>(nullptr));
    std::vector<memsub::access> chunk;
    chunk.reserve(memsub_examples::chunk_accesses);
    std::uint64_t done = 0;
    auto last_report = clock_type::now();
    const auto start = last_report;
    bool trace_error = false;
    std::string error_text;
    // OPT needs every access's next use: keep the line address of each access (8 bytes each).
    std::vector<memsub::line_address> lines;
    const std::uint32_t line_shift = memsub::log2_exact(o.shape.line_bytes);
    auto consume = [&](const std::vector<memsub::access>& c) {
        for (auto& r : runners) r->run(c);
        if (o.opt)
            for (const auto& a : c)
                lines.push_back(memsub::line_address{a.address.value >> line_shift});
        done += c.size();
    };
    try {
        while (src.next_chunk(chunk)) {
            consume(chunk);
            const auto now = clock_type::now();
            if (o.progress && now - last_report > std::chrono::seconds(1)) {
                last_report = now;
                const double secs = std::chrono::duration<double>(now - start).count();
                if (src.expected())
                    fmt::print(stderr, "\r  {}: {:.1f} M accesses ({:.0f}%), {:.0f} s   ",
                               src.label().substr(0, 40), static_cast<double>(done) / 1e6,
                               100.0 * static_cast<double>(done) /
                                   static_cast<double>(src.expected()),
                               secs);
                else
                    fmt::print(stderr, "\r  {}: {:.1f} M accesses, {:.0f} s   ",
                               src.label().substr(0, 40), static_cast<double>(done) / 1e6, secs);
            }
        }
    } catch (const memsub::input_error& e) {
        // Everything read before the bad record has been simulated: report it, say so.
        trace_error = true;
        error_text = e.what();
        consume(chunk);
    }
    if (o.progress && std::chrono::duration<double>(clock_type::now() - start).count() > 1.0)
        fmt::print(stderr, "\n");

    trace_result t;
    t.label = src.label();
    t.instructions = src.instructions();
    for (const auto& r : runners) {
        const auto& s = r->stats();
        t.rows.push_back(
            {r->name(), s.accesses, s.misses, s.writebacks, r->storage_bits(), r->seconds});
    }
    if (o.opt) t.opt_misses = opt_misses(o, lines);
    if (trace_error) {
        fmt::print(stderr, "explorer: trace error: {}\n", error_text);
        fmt::print(stderr, "explorer: results below cover the {} accesses before it\n", done);
        t.label += " (truncated by an input error)";
    }
    return t;
}

} // namespace

int main(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) {
                fmt::print(stderr, "explorer: {} needs a value\n", arg);
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h")
            usage(0);
        else if (arg == "--trace")
            o.traces.emplace_back(value());
        else if (arg == "--format") {
            const auto v = value();
            o.format = memsub::trace::parse_format(v);
            if (!o.format) {
                fmt::print(stderr, "explorer: unknown format '{}'\n", v);
                return 2;
            }
        } else if (arg == "--sets")
            o.shape.sets = static_cast<std::uint32_t>(parse_number(arg, value()));
        else if (arg == "--ways")
            o.shape.ways = static_cast<std::uint32_t>(parse_number(arg, value()));
        else if (arg == "--line-bytes")
            o.shape.line_bytes = static_cast<std::uint32_t>(parse_number(arg, value()));
        else if (arg == "--policies")
            o.policies = memsub_examples::split_list(value());
        else if (arg == "--no-opt")
            o.opt = false;
        else if (arg == "--limit")
            o.limit = parse_number(arg, value());
        else if (arg == "--accesses")
            o.default_accesses = parse_number(arg, value());
        else if (arg == "--seed")
            o.seed = parse_number(arg, value());
        else if (arg == "--csv")
            o.csv = value();
        else if (arg == "--json")
            o.json = value();
        else if (arg == "--plot")
            o.plot = value();
        else if (arg == "--quiet")
            o.progress = false;
        else if (arg == "--list") {
            for (const auto& n :
                 policy_names(o.shape.sets ? o.shape : memsub::geometry{1, 1, 64},
                              static_cast<memsub::replacement::all_policies*>(nullptr)))
                fmt::print("{}\n", n);
            return 0;
        } else if (arg.starts_with("--")) {
            fmt::print(stderr, "explorer: unknown option {}\n", arg);
            usage(2);
        } else
            o.traces.emplace_back(arg);
    }
    try {
        o.shape.validate("explorer geometry");
        const auto known =
            policy_names(o.shape, static_cast<memsub::replacement::all_policies*>(nullptr));
        for (const auto& p : o.policies)
            if (p != "opt" && std::find(known.begin(), known.end(), p) == known.end()) {
                fmt::print(stderr, "explorer: unknown policy '{}'; --list shows them\n", p);
                return 2;
            }
        std::vector<trace_result> results;
        if (o.traces.empty()) results.push_back(explore(o, std::nullopt));
        for (const auto& t : o.traces) results.push_back(explore(o, t));
        for (const auto& r : results) print_table(o, r);
        if (!o.csv.empty()) write_csv(o, results);
        if (!o.json.empty()) write_json(o, results);
        if (!o.plot.empty()) write_plot(o, results);
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "explorer: {}\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "explorer: {}\n", e.what());
        return 1;
    }
    return 0;
}
