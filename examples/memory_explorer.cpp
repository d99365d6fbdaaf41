// memsub memory explorer — replay a trace (or the built-in workload) through a memsub LLC and
// send its miss / writeback stream to several memory-controller configurations; compare their
// latency (mean, p50, p95, p99), row-hit rate and bandwidth, and plot the latency CDFs.
//
//   memory_explorer                                built-in workload, all configurations
//   memory_explorer --trace app.lackey             a Valgrind Lackey trace (any memsub format)
//   memory_explorer --configs ddr4-frfcfs,hbm2-pmc --cdf lat.svg --csv lat.csv
//
// Time base: the LLC sees one access every --access-ns nanoseconds (the host's clock); each
// miss is a 64 B read and each dirty eviction a 64 B write arriving at that time; each
// controller converts it to its own command clock (tCK) and reports in ns. A request refused by
// a full controller queue waits at the host with its original arrival time, so back-pressure
// counts as queueing.
//
// Requesters (what the partitioned controller partitions by; --requesters N, --requester-map):
//   built-in workload  its 16 clusters (cluster mod N with --requesters N);
//   traces             trace readers carry no requester, so by default a trace is ONE requester
//                      and the partitioned controller gets requesters = 1 with the full
//                      iso-storage depth (one 32-entry read FIFO and write FIFO per channel).
//                      --requesters N with --requester-map pc (default) hashes the access's PC
//                      (a stand-in for "which core/thread issued it"), page hashes its 4 KiB page
//                      (threads owning address regions), trace keeps the record's requester and
//                      fails if it is >= N.
//
// Built-in workload (memory-side structure matters here, so it is the example's own): 16
// clusters issue in turn; each access is, with probability 0.4, the next line of the
// cluster's own sequential stream (row-buffer friendly), 0.3 a uniformly random line of a
// 256 MB region (irregular), 0.3 a line of a 512 KB hot set (LLC hits); a fixed quarter of the
// lines are written. Cluster c's stream starts at 4 GiB + c · (1 GiB + 9 KiB): 1 GiB apart puts the
// streams in different rows, the extra 9 KiB (8 KiB + 1 KiB) in different banks (8 KiB rows)
// and different HBM2 channels (1 KiB interleave), so the streams do not all fight over one bank.
#include <memsub/cache/basic_cache.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/memory/all.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/trace/open.hpp>

#include "common/example_support.hpp"

#include <fmt/core.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace mm = memsub::memory;
using clock_type = std::chrono::steady_clock;
using memsub_examples::chunk_accesses;

// ------------------------------------------------------------------ options

struct options {
    std::optional<std::string> trace;
    std::optional<memsub::trace::trace_format> format;
    memsub::geometry shape{.sets = 1024, .ways = 16, .line_bytes = 64}; // ReMAP Table 2.3 L3
    double access_ns = 24.0;
    std::uint64_t accesses = 2'000'000;
    std::uint64_t limit = 0;
    std::uint64_t seed = 2026;
    std::vector<std::string> configs; // empty = all
    std::string cdf = "memory_latency_cdf.svg";
    std::string csv;
    bool progress = true;
    /// Requesters (0 = the default: 16 for the built-in workload, 1 for a trace).
    std::uint32_t requesters = 0;
    enum class requester_map { pc, page, trace } map = requester_map::pc;
};

[[noreturn]] void usage(int code) {
    std::fputs(
        "usage: memory_explorer [options]\n"
        "  --trace FILE        replay a trace (lackey | din | text | u64 | oracleGeneral)\n"
        "  --format NAME       trace format (default: detect)\n"
        "  --limit N           stop the trace after N accesses\n"
        "  --accesses N        length of the built-in workload (default 2000000)\n"
        "  --seed N            seed of the built-in workload (default 2026)\n"
        "  --sets N --ways N   LLC shape (default 1024 x 16, 64 B lines: 1 MB, ReMAP Table 2.3)\n"
        "  --access-ns X       ns between two LLC accesses (default 24)\n"
        "  --configs A,B,...   configurations to run (default all; --list shows them)\n"
        "  --requesters N      requesters the partitioned controller partitions by (default\n"
        "                      16 for the built-in workload, 1 for a trace)\n"
        "  --requester-map M   trace accesses -> requester: pc (hash of the PC, default),\n"
        "                      page (hash of the 4 KiB page) or trace (the record's own; must\n"
        "                      be < N)\n"
        "  --cdf FILE          latency CDF plot, SVG (default memory_latency_cdf.svg; '' = none)\n"
        "  --csv FILE          also write the CDF points as CSV\n"
        "  --quiet             no progress on stderr\n"
        "  --list              list the configurations and exit\n"
        "Numbers are decimal and checked against their field's range (nothing is truncated);\n"
        "--access-ns is at most 1e12, and the simulated time (accesses x --access-ns) at most\n"
        "1e18 ns. One --trace per run (a second one is an error).\n"
        "SIGINT / SIGTERM (Ctrl-C): the results so far are printed (marked partial) and the\n"
        "CDF plot and CSV written, then the program exits with 128 + the signal number.\n"
        "exit status: 0 success; 1 the trace could not be read or is malformed (results before\n"
        "the bad record are still printed), or an output file could not be written; 2 bad\n"
        "usage or configuration; 3 the trace held no accesses (warning; all-zero table); 4 out\n"
        "of memory; 130 / 143 interrupted by SIGINT / SIGTERM.\n",
        code == 0 ? stdout : stderr);
    std::exit(code);
}

std::uint64_t parse_number(std::string_view flag, std::string_view text, std::uint64_t min = 0,
                           std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
    return memsub_examples::parse_number("memory_explorer", flag, text, min, max);
}

/// Largest --access-ns (1000 s between two LLC accesses) and largest simulated time: the
/// controllers count cycles in 64 bits, and a double of the time in ns must convert exactly
/// enough (1e18 ns is 1.2e18 DDR4 cycles, well inside 2^64).
constexpr double max_access_ns = 1e12;
constexpr double max_simulated_ns = 1e18;

double parse_real(std::string_view flag, std::string_view text) {
    return memsub_examples::parse_or_exit("memory_explorer", [&] {
        return memsub_examples::parse_positive_real(flag, text, max_access_ns);
    });
}

namespace status {
constexpr int ok = 0, input_error = 1, usage_error = 2, empty_input = 3, out_of_memory = 4;
} // namespace status

// ------------------------------------------------------------------ memory requests

struct mem_event {
    double t_ns;
    memsub::byte_address address;
    bool write;
    std::uint32_t requester;
};

/// Type erasure for the example only: one virtual call per chunk of requests.
class runner {
public:
    virtual ~runner() = default;
    [[nodiscard]] virtual std::string_view name() const = 0;
    [[nodiscard]] virtual std::string_view description() const = 0;
    virtual void feed(std::span<const mem_event> events) = 0;
    virtual void finish() = 0;
    [[nodiscard]] virtual const mm::controller_stats& stats() const = 0;
    [[nodiscard]] virtual double tck_ns() const = 0;
    [[nodiscard]] virtual double peak_gb_per_s() const = 0;
    double seconds = 0;
};

template <class Controller>
class controller_runner final : public runner {
public:
    controller_runner(std::string name, std::string description, double tck_ns, double peak,
                      Controller c)
        : name_(std::move(name))
        , description_(std::move(description))
        , tck_(tck_ns)
        , peak_(peak)
        , c_(std::move(c)) {}

    [[nodiscard]] std::string_view name() const override { return name_; }
    [[nodiscard]] std::string_view description() const override { return description_; }
    [[nodiscard]] const mm::controller_stats& stats() const override { return c_.stats(); }
    [[nodiscard]] double tck_ns() const override { return tck_; }
    [[nodiscard]] double peak_gb_per_s() const override { return peak_; }

    void feed(std::span<const mem_event> events) override {
        const auto t0 = clock_type::now();
        for (const mem_event& e : events) {
            const auto arrival = static_cast<std::uint64_t>(std::ceil(e.t_ns / tck_));
            // Everything strictly before the arrival happens first (protocol MP2).
            if (arrival > now_ + 1) advance(arrival - 1);
            const mm::mem_request r{.id = id_++,
                                    .address = e.address,
                                    .is_write = e.write,
                                    .requester = e.requester,
                                    .arrival_cycle = arrival};
            for (mm::enqueue_result e; (e = c_.enqueue(r)) != mm::enqueue_result::accepted;) {
                if (e == mm::enqueue_result::rejected)
                    throw std::runtime_error(fmt::format(
                        "{} rejected a request of requester {} (it has fewer requesters): "
                        "see --requesters / --requester-map",
                        name_, r.requester));
                // Back-pressure: wait for the controller's next event, then retry.
                const std::uint64_t next = c_.next_event_cycle();
                advance(next == memsub::never || next <= now_ ? now_ + 1 : next);
            }
        }
        seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
    }

    void finish() override {
        const auto t0 = clock_type::now();
        for (std::uint64_t next; (next = c_.next_event_cycle()) != memsub::never;)
            advance(std::max(next, now_ + 1));
        seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
    }

private:
    void advance(std::uint64_t t) {
        now_ = std::max(now_, t);
        c_.advance_to(now_);
        while (c_.drain(std::span<mm::completion>(buf_)) == buf_.size()) {
        }
    }

    std::string name_, description_;
    double tck_, peak_;
    Controller c_;
    std::uint64_t now_ = 0;
    std::uint64_t id_ = 0;
    std::array<mm::completion, 256> buf_{};
};

struct config_spec {
    std::string_view name;
    std::string_view description;
};

constexpr std::array<config_spec, 9> all_configs{{
    {"flat", "flat 45 ns, 12.8 GB/s (DDR3-1600 peak), the fast baseline"},
    {"ddr3-fcfs", "DDR3-1600K, FCFS, open page (ReMAP Table 2.3)"},
    {"ddr3-frfcfs", "DDR3-1600K, FR-FCFS, open page"},
    {"ddr4-frfcfs", "DDR4-2400R, FR-FCFS, open page, rorabgbachco"},
    {"ddr4-closed", "DDR4-2400R, FR-FCFS, closed page"},
    {"ddr4-timeout", "DDR4-2400R, FR-FCFS, timeout-adaptive page, XOR bank hash"},
    {"hbm2-frfcfs", "HBM2 (8 ch), shared-queue FR-FCFS, 32+32 entries/ch (HTA baseline)"},
    {"hbm2-pmc", "HBM2 (8 ch), partitioned controller (HTA), iso-storage FIFOs"},
    {"hmc-closed", "HMC cube (16 vaults, Kim et al.), FR-FCFS, closed page, 16-entry queue "
                   "per vault; 64 B requests as one BL16 transfer on the 32-bit vault bus"},
}};

std::unique_ptr<runner> make_runner(std::string_view name, std::uint32_t requesters) {
    const std::string n(name);
    std::string d;
    for (const auto& c : all_configs)
        if (c.name == name) d = std::string(c.description);
    const auto& d3 = mm::presets::ddr3_1600_remap;
    const auto& d4 = mm::presets::ddr4_2400;
    const auto& hb = mm::presets::hbm2_4gb_x128;
    if (name == "flat") {
        // 45 ns at a 1 GHz cycle, bandwidth of one DDR3-1600 channel (12.8 B/ns).
        return std::make_unique<controller_runner<mm::flat_memory>>(
            n, d, 1.0, d3.peak_gb_per_s(),
            mm::flat_memory(mm::flat_memory::params{
                .latency_cycles = 45, .bytes_per_cycle = d3.peak_gb_per_s(), .request_bytes = 64}));
    }
    if (name == "ddr3-fcfs" || name == "ddr3-frfcfs") {
        const auto m = mm::bit_field_mapping::from_order("rorabachco", d3);
        if (name == "ddr3-fcfs")
            return std::make_unique<controller_runner<mm::fcfs_controller<>>>(
                n, d, d3.tck_ns, d3.peak_gb_per_s(), mm::fcfs_controller<>(m, {.timing = d3}));
        return std::make_unique<controller_runner<mm::fr_fcfs_controller<>>>(
            n, d, d3.tck_ns, d3.peak_gb_per_s(), mm::fr_fcfs_controller<>(m, {.timing = d3}));
    }
    if (name == "ddr4-frfcfs") {
        const auto m = mm::bit_field_mapping::from_order("rorabgbachco", d4);
        return std::make_unique<controller_runner<mm::fr_fcfs_controller<>>>(
            n, d, d4.tck_ns, d4.peak_gb_per_s(), mm::fr_fcfs_controller<>(m, {.timing = d4}));
    }
    if (name == "ddr4-closed") {
        const auto m = mm::bit_field_mapping::from_order("rorabgbachco", d4);
        using ctl = mm::fr_fcfs_controller<mm::closed_page>;
        return std::make_unique<controller_runner<ctl>>(n, d, d4.tck_ns, d4.peak_gb_per_s(),
                                                        ctl(m, {.timing = d4}));
    }
    if (name == "ddr4-timeout") {
        const auto m = mm::bit_field_mapping::from_order("rorabgbachco", d4, 48, true);
        using ctl = mm::fr_fcfs_controller<mm::timeout_adaptive>;
        return std::make_unique<controller_runner<ctl>>(n, d, d4.tck_ns, d4.peak_gb_per_s(),
                                                        ctl(m, {.timing = d4}));
    }
    if (name == "hmc-closed") {
        // One HMC cube: 16 vault channels. The LLC's 64 B lines are two of the preset's 32 B
        // bursts back to back on the 32-bit vault bus, i.e. one BL16 transfer (8 cycles).
        mm::dram_timing hmc = mm::presets::hmc_vault;
        hmc.channels = 16;
        hmc.burst_length = 16;
        const auto m = mm::bit_field_mapping::kim_multi_gpu(hmc, 1, 1, 64);
        return std::make_unique<controller_runner<mm::hmc_vault_controller<>>>(
            n, d, hmc.tck_ns, hmc.channels * hmc.peak_gb_per_s(),
            mm::hmc_vault_controller<>(m, mm::hmc_vault_params(hmc)));
    }
    const auto hm = mm::bit_field_mapping::from_order("rorabgbachco", hb);
    const double hb_peak = hb.channels * hb.peak_gb_per_s();
    if (name == "hbm2-frfcfs")
        return std::make_unique<controller_runner<mm::fr_fcfs_controller<>>>(
            n, d, hb.tck_ns, hb_peak, mm::fr_fcfs_controller<>(hm, {.timing = hb}));
    if (name == "hbm2-pmc") {
        // Iso-storage (G4.3): the shared 32-entry queues split over the requesters
        // (max(2, 32 / requesters) entries per FIFO; one requester keeps all 32).
        const mm::partitioned_controller<>::params pp{.timing = hb, .requesters = requesters};
        d += fmt::format(", {} requester(s) x {}-entry FIFOs", requesters, pp.depth());
        return std::make_unique<controller_runner<mm::partitioned_controller<>>>(
            n, d, hb.tck_ns, hb_peak, mm::partitioned_controller<>(hm, pp));
    }
    return nullptr;
}

// ------------------------------------------------------------------ the access source

/// The built-in workload (see the header comment).
class builtin_workload {
public:
    explicit builtin_workload(std::uint64_t seed) : rng_(seed) {
        // Stream c starts at 4 GiB + c · (1 GiB + 9 KiB) (as a line index): other rows, banks
        // and HBM2 channels for each stream (see the header comment), clear of the random
        // region (2 GiB) and the hot set (3 GiB).
        for (std::uint32_t c = 0; c < clusters; ++c)
            stream_[c] = ((4ull << 30) + std::uint64_t{c} * ((1ull << 30) + 9 * 1024)) / 64;
    }
    memsub::access next() noexcept {
        const auto c = static_cast<std::uint32_t>(n_++ % clusters);
        const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
        std::uint64_t line = 0;
        if (u < 0.4)
            line = stream_[c]++;
        else if (u < 0.7)
            line = (2ull << 30) / 64 + rng_() % ((256ull << 20) / 64);
        else
            line = (3ull << 30) / 64 + rng_() % ((512ull << 10) / 64);
        memsub::access a;
        a.address = memsub::byte_address{line * 64};
        a.requester = c;
        a.kind = ((line * 0x9e3779b97f4a7c15ull) >> 62) == 0 ? memsub::access_kind::store
                                                             : memsub::access_kind::load;
        return a;
    }

private:
    static constexpr std::uint32_t clusters = 16;
    memsub::xoshiro256ss rng_;
    std::array<std::uint64_t, clusters> stream_{};
    std::uint64_t n_ = 0;
};

using source = memsub_examples::chunked_source<builtin_workload>;

source make_source(const options& o) {
    if (o.trace) return source(*o.trace, o.format, o.limit);
    return source(builtin_workload(o.seed),
                  fmt::format("built-in: 16 clusters, 40% streams / 30% random / 30% hot set, "
                              "25% of lines written, seed {}",
                              o.seed),
                  o.accesses, o.limit);
}

// ------------------------------------------------------------------ output

double ns(const runner& r, std::uint64_t cycles) {
    return static_cast<double>(cycles) * r.tck_ns();
}

/// CDF points (latency ns, fraction ≤) from a runner's histogram.
std::vector<std::pair<double, double>> cdf_points(const runner& r) {
    std::vector<std::pair<double, double>> pts;
    const auto& h = r.stats().latency;
    if (h.count() == 0) return pts;
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < mm::latency_histogram::bucket_count; ++b) {
        const std::uint64_t n = h.bucket_count_at(b);
        if (n == 0) continue;
        seen += n;
        const std::uint64_t hi =
            mm::latency_histogram::bucket_low(b) + mm::latency_histogram::bucket_width(b) - 1;
        pts.emplace_back(ns(r, hi), static_cast<double>(seen) / static_cast<double>(h.count()));
    }
    return pts;
}

std::string xml_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '&')
            out += "&amp;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

/// Throws std::runtime_error when `file` cannot be written.
void write_svg(const std::string& file, const std::vector<std::unique_ptr<runner>>& rs,
               const std::string& title) {
    std::ofstream out(file);
    if (!out) throw std::runtime_error("cannot write " + file);
    constexpr double W = 900, H = 520, L = 70, R = 260, T = 40, B = 60;
    // Logarithmic latency axis: an overloaded configuration's tail does not flatten the rest.
    double xmin = 1e300, xmax = 1;
    for (const auto& r : rs) {
        if (r->stats().latency.count() == 0) continue;
        xmin = std::min(xmin, ns(*r, std::max<std::uint64_t>(1, r->stats().latency.min())));
        xmax = std::max(xmax, ns(*r, r->stats().latency.max()));
    }
    if (xmin > xmax) xmin = 1;
    const double lo = std::floor(std::log10(std::max(xmin, 1e-3)));
    const double hi = std::max(lo + 1, std::ceil(std::log10(xmax)));
    // One colour per configuration (all nine differ), and a dash pattern cycling every three
    // so neighbouring curves differ in print too.
    constexpr std::array<const char*, 10> colours{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                  "#9467bd", "#8c564b", "#e377c2", "#17becf",
                                                  "#bcbd22", "#7f7f7f"};
    static_assert(colours.size() >= all_configs.size());
    constexpr std::array<const char*, 3> dashes{"none", "7,3", "2,2"};
    auto X = [&](double v) {
        const double l = std::log10(std::max(v, std::pow(10.0, lo)));
        return L + (W - L - R) * (l - lo) / (hi - lo);
    };
    auto Y = [&](double f) { return T + (H - T - B) * (1.0 - f); };
    fmt::print(out,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n",
               W, H);
    fmt::print(out, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    fmt::print(out, "<text x=\"{}\" y=\"22\" font-size=\"14\">Memory latency CDF — {}</text>\n", L,
               xml_escape(title));
    for (int i = 0; i <= 10; ++i) {
        const double f = i / 10.0;
        fmt::print(out,
                   "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                   "stroke=\"#ddd\"/>\n",
                   L, Y(f), W - R, Y(f));
        fmt::print(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.1f}</text>\n",
                   L - 6, Y(f) + 4, f);
    }
    for (double d = lo; d <= hi + 1e-9; d += 1.0)
        for (const double m : {1.0, 2.0, 5.0}) {
            const double x = m * std::pow(10.0, d);
            if (std::log10(x) > hi + 1e-9) break;
            fmt::print(out,
                       "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "stroke=\"#eee\"/>\n",
                       X(x), T, X(x), H - B);
            if (m != 1.0 && hi - lo > 3) continue; // label only decades on wide ranges
            const std::string label = x < 1e3   ? fmt::format("{:g}", x)
                                      : x < 1e6 ? fmt::format("{:g}k", x / 1e3)
                                                : fmt::format("{:g}M", x / 1e6);
            fmt::print(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       X(x), H - B + 16, label);
        }
    fmt::print(out,
               "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">latency (ns, log "
               "scale), arrival at the controller to last data beat</text>\n",
               (L + W - R) / 2, H - 18);
    fmt::print(out,
               "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
               "stroke=\"black\"/>\n",
               L, T, W - L - R, H - T - B);
    for (std::size_t i = 0; i < rs.size(); ++i) {
        const auto pts = cdf_points(*rs[i]);
        if (pts.empty()) continue;
        fmt::print(out,
                   "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"{}\" "
                   "stroke-dasharray=\"{}\" points=\"",
                   colours[i % colours.size()], dashes[i % dashes.size()]);
        double prev = 0;
        for (const auto& [x, f] : pts) {
            fmt::print(out, "{:.1f},{:.1f} {:.1f},{:.1f} ", X(x), Y(prev), X(x), Y(f));
            prev = f;
        }
        fmt::print(out, "\"/>\n");
        const double ly = T + 10 + 20.0 * static_cast<double>(i);
        fmt::print(out,
                   "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"{}\" "
                   "stroke-dasharray=\"{}\" stroke-width=\"3\"/>\n",
                   W - R + 15, ly, W - R + 40, ly, colours[i % colours.size()],
                   dashes[i % dashes.size()]);
        fmt::print(out, "<text x=\"{}\" y=\"{:.1f}\">{}</text>\n", W - R + 46, ly + 4,
                   rs[i]->name());
    }
    fmt::print(out, "</svg>\n");
    if (!out) throw std::runtime_error("error writing " + file);
}

/// Throws std::runtime_error when `file` cannot be written.
void write_csv(const std::string& file, const std::vector<std::unique_ptr<runner>>& rs) {
    std::ofstream out(file);
    if (!out) throw std::runtime_error("cannot write " + file);
    fmt::print(out, "config,latency_ns,cdf\n");
    for (const auto& r : rs)
        for (const auto& [x, f] : cdf_points(*r))
            fmt::print(out, "{},{:.3f},{:.6f}\n", r->name(), x, f);
    if (!out) throw std::runtime_error("error writing " + file);
}

} // namespace

int main(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) {
                fmt::print(stderr, "memory_explorer: {} needs a value\n", arg);
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h")
            usage(0);
        else if (arg == "--trace") {
            const char* file = value();
            if (o.trace) {
                fmt::print(stderr,
                           "memory_explorer: --trace given twice ('{}' and '{}'); it replays one "
                           "trace per run\n",
                           *o.trace, file);
                return status::usage_error;
            }
            o.trace = file;
        } else if (arg == "--format") {
            const std::string_view v = value();
            o.format = memsub::trace::parse_format(v);
            if (!o.format) {
                fmt::print(stderr, "memory_explorer: unknown format '{}'\n", v);
                return 2;
            }
        } else if (arg == "--limit")
            o.limit = parse_number(arg, value());
        else if (arg == "--accesses")
            o.accesses = parse_number(arg, value());
        else if (arg == "--seed")
            o.seed = parse_number(arg, value());
        else if (arg == "--sets")
            o.shape.sets = static_cast<std::uint32_t>(
                parse_number(arg, value(), 1, std::numeric_limits<std::uint32_t>::max()));
        else if (arg == "--ways")
            o.shape.ways = static_cast<std::uint32_t>(
                parse_number(arg, value(), 1, std::numeric_limits<std::uint32_t>::max()));
        else if (arg == "--access-ns")
            o.access_ns = parse_real(arg, value());
        else if (arg == "--configs")
            o.configs = memsub_examples::split_list(value());
        else if (arg == "--cdf")
            o.cdf = value();
        else if (arg == "--csv")
            o.csv = value();
        else if (arg == "--quiet")
            o.progress = false;
        else if (arg == "--requesters") {
            o.requesters = static_cast<std::uint32_t>(parse_number(arg, value(), 1, 1024));
        } else if (arg == "--requester-map") {
            const std::string_view v = value();
            if (v == "pc")
                o.map = options::requester_map::pc;
            else if (v == "page")
                o.map = options::requester_map::page;
            else if (v == "trace")
                o.map = options::requester_map::trace;
            else {
                fmt::print(stderr, "memory_explorer: --requester-map is pc, page or trace\n");
                return 2;
            }
        } else if (arg == "--list") {
            for (const auto& c : all_configs) fmt::print("{:<14} {}\n", c.name, c.description);
            return 0;
        } else {
            fmt::print(stderr, "memory_explorer: unknown argument {}\n", arg);
            usage(2);
        }
    }

    if (!o.trace) {
        const std::uint64_t n = o.limit != 0 ? std::min(o.limit, o.accesses) : o.accesses;
        if (static_cast<double>(n) * o.access_ns > max_simulated_ns) {
            fmt::print(stderr,
                       "memory_explorer: {} accesses at --access-ns {:g} simulate more than {:g} "
                       "ns; lower --access-ns or --accesses\n",
                       n, o.access_ns, max_simulated_ns);
            return status::usage_error;
        }
    }
    // Built-in workload: its 16 clusters; a trace: one requester unless told otherwise.
    const std::uint32_t requesters = o.requesters != 0 ? o.requesters : (o.trace ? 1u : 16u);
    try {
        std::vector<std::unique_ptr<runner>> runners;
        for (const auto& c : all_configs)
            if (o.configs.empty() ||
                std::find(o.configs.begin(), o.configs.end(), c.name) != o.configs.end())
                runners.push_back(make_runner(c.name, requesters));
        for (const auto& want : o.configs)
            if (std::none_of(all_configs.begin(), all_configs.end(),
                             [&](const config_spec& c) { return c.name == want; })) {
                fmt::print(stderr, "memory_explorer: unknown configuration '{}' (--list)\n", want);
                return 2;
            }

        memsub::cache::set_associative_cache<memsub::replacement::lru> llc(o.shape);
        source src = make_source(o);
        std::vector<memsub::access> chunk;
        chunk.reserve(chunk_accesses);
        std::vector<mem_event> events;
        events.reserve(2 * chunk_accesses);
        std::uint64_t done = 0;
        std::string error_text;
        int interrupted_by = 0; // the signal that stopped the run early
        memsub_examples::progress_meter progress(o.progress, "");
        const std::uint32_t line = o.shape.line_bytes;
        // Which requester a memory request belongs to (see the header comment).
        const auto mix = [](std::uint64_t x) {
            x ^= x >> 33;
            x *= 0xff51afd7ed558ccdull;
            return x ^ (x >> 33);
        };
        const auto requester_of = [&](const memsub::access& a, memsub::byte_address target) {
            if (!o.trace) return a.requester % requesters; // built-in clusters
            switch (o.map) {
            case options::requester_map::pc:
                return static_cast<std::uint32_t>(mix(a.pc) % requesters);
            case options::requester_map::page:
                return static_cast<std::uint32_t>(mix(target.value >> 12) % requesters);
            case options::requester_map::trace:
                if (a.requester >= requesters)
                    throw std::runtime_error(
                        fmt::format("the trace's requester {} is not below --requesters {}",
                                    a.requester, requesters));
                return a.requester;
            }
            return 0u;
        };
        auto run_chunk = [&] {
            events.clear();
            // The controllers count cycles in 64 bits: refuse a simulated time they cannot
            // represent rather than overflow a conversion (checked once per chunk).
            if (static_cast<double>(done + chunk.size()) * o.access_ns > max_simulated_ns)
                throw std::range_error(fmt::format(
                    "the simulated time passes {:g} ns after {} accesses at --access-ns {:g}; "
                    "lower --access-ns or --limit",
                    max_simulated_ns, done, o.access_ns));
            for (const memsub::access& a : chunk) {
                const double t = static_cast<double>(done++) * o.access_ns;
                const auto r = llc.access(a);
                // Dirty victims are written back, then the missing line is fetched.
                for (const auto& ev : r.evictions)
                    if (ev.dirty)
                        events.push_back({t, ev.address, true, requester_of(a, ev.address)});
                if (!r.hit && r.bytes_fetched > 0) {
                    const memsub::byte_address fill{a.address.value / line * line};
                    events.push_back({t, fill, false, requester_of(a, fill)});
                }
            }
            for (auto& r : runners) r->feed(events);
        };
        try {
            memsub_examples::install_stop_handlers();
            while (src.next_chunk(chunk)) {
                run_chunk();
                if ((interrupted_by = memsub_examples::stop_requested()) != 0) break;
                progress.update(done, src.fraction_done());
            }
        } catch (const memsub::input_error& e) {
            error_text = e.what();
            run_chunk(); // everything read before the bad record
        }
        for (auto& r : runners) r->finish();
        progress.finish();

        const auto& cs = llc.stats();
        fmt::print("workload: {}{}\n", src.label(),
                   interrupted_by != 0
                       ? fmt::format(" (PARTIAL: interrupted by signal {} after {} accesses)",
                                     interrupted_by, done)
                       : std::string());
        fmt::print("LLC {} KB {}-way {} B lines (LRU): {} accesses, miss ratio {:.3f}, {} "
                   "writebacks; one access every {} ns\n\n",
                   o.shape.capacity_bytes() / 1024, o.shape.ways, o.shape.line_bytes, cs.accesses(),
                   cs.miss_ratio(), cs.writebacks, o.access_ns);
        fmt::print("{:<13} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>6} {:>7} {:>9}\n", "config",
                   "requests", "mean ns", "p50 ns", "p95 ns", "p99 ns", "q95 ns", "row hits",
                   "bus %", "GB/s", "sim M/s");
        for (const auto& r : runners) {
            const auto& s = r->stats();
            const double elapsed_ns = static_cast<double>(s.elapsed_cycles()) * r->tck_ns();
            const double gbs = elapsed_ns > 0 ? static_cast<double>(s.bytes) / elapsed_ns : 0.0;
            fmt::print("{:<13} {:>9} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f}% "
                       "{:>5.1f} {:>7.2f} {:>9.2f}\n",
                       r->name(), s.completed(), s.latency.mean() * r->tck_ns(),
                       ns(*r, s.latency.percentile(0.50)), ns(*r, s.latency.percentile(0.95)),
                       ns(*r, s.latency.percentile(0.99)), ns(*r, s.queueing.percentile(0.95)),
                       100.0 * s.row_hit_rate(), 100.0 * gbs / r->peak_gb_per_s(), gbs,
                       r->seconds > 0 ? static_cast<double>(s.completed()) / r->seconds / 1e6
                                      : 0.0);
        }
        fmt::print("\n");
        for (const auto& r : runners) fmt::print("  {:<13} {}\n", r->name(), r->description());
        fmt::print("  (q95 = 95th percentile of queueing delay; bus % = share of the peak "
                   "data-bus bandwidth over the run)\n");
        // Partitioned vs shared: what this run measured, nothing more (whether partitioning
        // helps depends on the load and the requesters; tests/memory/partitioned_test.cpp
        // measures it at saturation).
        const runner* shared = nullptr;
        const runner* pmc = nullptr;
        for (const auto& r : runners) {
            if (r->name() == "hbm2-frfcfs") shared = r.get();
            if (r->name() == "hbm2-pmc") pmc = r.get();
        }
        if (shared != nullptr && pmc != nullptr && shared->stats().completed() > 0 &&
            pmc->stats().completed() > 0) {
            const auto& a = shared->stats();
            const auto& b = pmc->stats();
            auto gb_per_s = [](const runner& r) {
                const double elapsed = static_cast<double>(r.stats().elapsed_cycles()) * r.tck_ns();
                return elapsed > 0 ? static_cast<double>(r.stats().bytes) / elapsed : 0.0;
            };
            auto change = [](double from, double to) {
                return from > 0 ? fmt::format(" ({:+.0f} %)", 100.0 * (to - from) / from)
                                : std::string();
            };
            const double q_a = ns(*shared, a.queueing.percentile(0.95));
            const double q_b = ns(*pmc, b.queueing.percentile(0.95));
            const double m_a = a.latency.mean() * shared->tck_ns();
            const double m_b = b.latency.mean() * pmc->tck_ns();
            fmt::print("\nHBM2, partitioned (hbm2-pmc) against shared queue (hbm2-frfcfs), {} "
                       "requester(s), this run:\n"
                       "  p95 queueing {:.1f} -> {:.1f} ns{}; mean latency {:.1f} -> {:.1f} ns{}; "
                       "bandwidth {:.2f} -> {:.2f} GB/s ({:.1f} -> {:.1f} % of peak).\n",
                       requesters, q_a, q_b, change(q_a, q_b), m_a, m_b, change(m_a, m_b),
                       gb_per_s(*shared), gb_per_s(*pmc),
                       100.0 * gb_per_s(*shared) / shared->peak_gb_per_s(),
                       100.0 * gb_per_s(*pmc) / pmc->peak_gb_per_s());
        }
        std::vector<std::string> output_failures;
        auto attempt = [&](const std::string& what, const std::string& file, auto&& write) {
            try {
                write();
                fmt::print("{}: {}\n", what, file);
            } catch (const std::bad_alloc&) {
                throw;
            } catch (const std::exception& e) {
                output_failures.emplace_back(e.what());
            }
        };
        if (!o.cdf.empty())
            attempt("latency CDF plot", o.cdf, [&] { write_svg(o.cdf, runners, src.label()); });
        if (!o.csv.empty())
            attempt("latency CDF points", o.csv, [&] { write_csv(o.csv, runners); });
        if (error_text.empty() && interrupted_by == 0 && done == 0)
            fmt::print(stderr,
                       "memory_explorer: warning: {} holds no accesses (an empty input, or only "
                       "comments or blank lines); every figure is 0\n",
                       src.label());
        if (!error_text.empty()) {
            fmt::print(stderr, "memory_explorer: trace error: {}\n", error_text);
            fmt::print(stderr, "memory_explorer: results cover the {} accesses before it\n", done);
        }
        for (const auto& f : output_failures)
            fmt::print(stderr, "memory_explorer: output error: {}\n", f);
        if (interrupted_by != 0) {
            fmt::print(stderr,
                       "memory_explorer: interrupted by signal {}: the results above are partial "
                       "({} accesses)\n",
                       interrupted_by, done);
            return memsub_examples::stopped_exit_status(interrupted_by);
        }
        if (!error_text.empty() || !output_failures.empty()) return status::input_error;
        if (done == 0) return status::empty_input;
    } catch (const memsub::config_error& e) {
        fmt::print(stderr, "memory_explorer: configuration error: {}\n", e.what());
        return status::usage_error;
    } catch (const memsub::input_error& e) {
        fmt::print(stderr, "memory_explorer: {}\n", e.what());
        return status::input_error;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "memory_explorer: out of memory\n");
        return status::out_of_memory;
    } catch (const std::runtime_error& e) {
        fmt::print(stderr, "memory_explorer: {}\n", e.what());
        return status::usage_error;
    }
    return status::ok;
}
