// memsub::explorer — run traces (or the built-in default workload) through an LLC geometry with
// a list of replacement policies (or a chosen subset) and compare miss ratios against Belady's
// OPT.
//
// The explorer is a function, so a program can run it on its own policies:
//
//   #include <memsub/explorer/run_explorer.hpp>
//   int main(int argc, char** argv) {
//       return memsub::explorer::run_explorer<std::tuple<memsub::replacement::lru, my_policy>>(
//           argc, argv);
//   }
//
// examples/tools/explorer.cpp runs it on memsub's own policies (replacement::all_policies) and
// examples/my_policy_explorer.cpp on a policy written in the example. Each policy is listed and
// chosen (--list, --policies) by the name it reports with default params, optionally with its
// own settings after a colon ("srrip:rrpv_bits=3", core/param_text.hpp; the row is named by that
// spec, so one policy can run under several settings side by side); a policy that rejects the
// geometry is reported and left out.
//
//   explorer                                   built-in workload (zipf + loop + scan mix)
//   explorer --trace app.lackey --sets 1024    a valgrind lackey trace, 1 MiB 16-way LLC
//   explorer --policies lru,srrip,drrip --csv out.csv --json out.json app.din
//
// Each reference is counted as valgrind's cachegrind counts it: a read-modify-write (lackey's
// M) is one read, and a reference whose bytes cross a line boundary touches every line it
// covers but is one access with at most one miss (basic_cache::access_spanning). With the same
// geometry (e.g. --sets 64 --ways 8 --line-bytes 64 for cachegrind's --D1=32768,8,64) and the
// lru policy, a lackey trace of a program gives cachegrind's D1 refs and misses, read and write.
// Every row follows this one rule: the set-associative policies, OPT, the fully associative rows
// and the 3C split (so a one-set LRU equals fa_lru, and has no conflict misses).
//
// The trace is streamed in chunks (constant memory for the simulation). OPT needs the next use
// of every access: it keeps 16 bytes per line touched in memory up to --opt-memory (default
// 1024 MiB), then spills the stream to a temporary file (memsub/explorer/opt_spool.hpp), so its
// memory is bounded by that budget plus about 50 bytes per distinct line. --jobs N runs the
// policies on N threads (one decode pass for all). Exit statuses: explorer_status in
// memsub/explorer/options.hpp. Result schema: memsub/explorer/result_table.hpp; the explorer's
// columns are those of results_table() below (one row per trace and policy).
//
// Part of the explorer module: CMake target memsub::explorer (links memsub::memsub, fmt::fmt and
// Threads::Threads), found with find_package(memsub COMPONENTS explorer).
#pragma once

#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/fully_associative.hpp>
#include <memsub/cache/three_c.hpp>
#include <memsub/core/param_text.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/trace/open.hpp>
#include <memsub/workload/synthetic.hpp>

#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/opt_spool.hpp>
#include <memsub/explorer/options.hpp>
#include <memsub/explorer/plot.hpp>
#include <memsub/explorer/progress.hpp>
#include <memsub/explorer/result_table.hpp>
#include <memsub/explorer/run_report.hpp>
#include <memsub/explorer/signals.hpp>
#include <memsub/explorer/source.hpp>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

namespace memsub::explorer::detail {

using clock_type = std::chrono::steady_clock;

// ------------------------------------------------------------------ options

/// The program's name in its messages and files (argv[0]'s file name: "explorer", or the name of
/// a program that runs the explorer on its own policies).
inline std::string program = "explorer";

using options = memsub::explorer::explorer_options;
namespace status = memsub::explorer::explorer_status;

// ------------------------------------------------------------------ policy runners

using three_c_reference = memsub::cache::three_c_classifier::reference;

/// Type erasure over the policy list: one virtual call per chunk of accesses (chunk_accesses,
/// source.hpp), none per access.
class runner {
public:
    virtual ~runner() = default;
    [[nodiscard]] virtual std::string name() const = 0;
    /// Runs `chunk`; with `refs` (one per access, --3c) also classifies the misses.
    virtual void run(std::span<const memsub::access> chunk,
                     std::span<const three_c_reference> refs) = 0;
    [[nodiscard]] virtual const memsub::cache::cache_stats& stats() const = 0;
    [[nodiscard]] virtual std::optional<std::uint64_t> storage_bits() const = 0;
    double seconds = 0;
    memsub::cache::three_c_counts three_c;
};

/// Runs `chunk` through `cache` (anything with access(a).hit), timing it, and with `refs`
/// counting 3C classes into `r.three_c`.
template <class Cache>
void run_timed(runner& r, Cache& cache, std::span<const memsub::access> chunk,
               std::span<const three_c_reference> refs) {
    const auto t0 = clock_type::now();
    constexpr bool spans = requires {
        cache.access_all_spanning(chunk, [](const auto&, const auto&) noexcept {});
    };
    if (refs.empty()) {
        if constexpr (spans) // each reference counted as cachegrind counts it (see the top)
            cache.access_all_spanning(chunk, [](const memsub::access&, const auto&) noexcept {});
        else
            for (const auto& a : chunk) (void)cache.access(a);
    } else {
        for (std::size_t i = 0; i < chunk.size(); ++i) {
            bool hit = false;
            if constexpr (spans)
                hit = !cache.access_spanning(chunk[i], [](const auto&) noexcept {});
            else
                hit = cache.access(chunk[i]).hit;
            memsub::cache::three_c_classifier::count(r.three_c, refs[i], hit);
        }
    }
    r.seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// A runner over a cache type with `access(a).hit` and `stats()`.
template <class Cache>
class cache_runner : public runner {
public:
    void run(std::span<const memsub::access> chunk,
             std::span<const three_c_reference> refs) override {
        run_timed(*this, cache_, chunk, refs);
    }
    [[nodiscard]] const memsub::cache::cache_stats& stats() const override {
        return cache_.stats();
    }

protected:
    template <class... Args>
    explicit cache_runner(Args&&... args) : cache_(std::forward<Args>(args)...) {}
    Cache cache_;
};

template <class Policy>
class policy_runner final : public cache_runner<memsub::cache::set_associative_cache<Policy>> {
public:
    /// `label` names the row (the spec the user gave); empty = the policy's own name.
    policy_runner(const memsub::geometry& g, const typename Policy::params& p, std::string label)
        : policy_runner::cache_runner(g, p)
        , label_(std::move(label)) {}
    [[nodiscard]] std::string name() const override {
        return label_.empty() ? std::string(this->cache_.policy().name()) : label_;
    }
    [[nodiscard]] std::optional<std::uint64_t> storage_bits() const override {
        return memsub::replacement::reported_storage_bits(this->cache_.policy());
    }

private:
    std::string label_;
};

/// A fully associative cache of the geometry's capacity (--fully-associative): "fa_<order>".
template <class Order>
class fully_associative_runner final
    : public cache_runner<memsub::cache::fully_associative_cache<Order>> {
public:
    explicit fully_associative_runner(const memsub::geometry& g)
        : fully_associative_runner::cache_runner(std::uint64_t{g.sets} * g.ways, g.line_bytes) {}
    [[nodiscard]] std::string name() const override {
        return "fa_" + std::string(this->cache_.name());
    }
    [[nodiscard]] std::optional<std::uint64_t> storage_bits() const override {
        return std::nullopt; // a reference organisation, not a hardware budget
    }
};

/// --jobs: threads that run the runners on one chunk while the caller reads the next. Runner i
/// always runs on thread i mod jobs (its cache stays in that core's caches). No clock, no
/// queue: one chunk in flight, `start` then `wait`.
class runner_pool {
public:
    runner_pool(std::vector<std::unique_ptr<runner>>& runners, std::uint32_t jobs)
        : runners_(runners) {
        const auto threads = std::min<std::size_t>(jobs, runners.size());
        for (std::size_t id = 0; id < threads; ++id)
            threads_.emplace_back([this, id, threads] { work(id, threads); });
    }
    runner_pool(const runner_pool&) = delete;
    runner_pool& operator=(const runner_pool&) = delete;
    ~runner_pool() {
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        start_cv_.notify_all();
        for (auto& t : threads_) t.join();
    }

    /// Every runner starts on `chunk` (both spans must stay valid until `wait` returns).
    void start(std::span<const memsub::access> chunk, std::span<const three_c_reference> refs) {
        {
            const std::lock_guard lock(mutex_);
            chunk_ = chunk;
            refs_ = refs;
            busy_ = threads_.size();
            ++generation_;
        }
        start_cv_.notify_all();
    }
    /// Returns when every runner has finished the chunk of the last `start`.
    void wait() {
        std::unique_lock lock(mutex_);
        done_cv_.wait(lock, [&] { return busy_ == 0; });
    }

private:
    void work(std::size_t id, std::size_t threads) {
        std::uint64_t seen = 0;
        for (;;) {
            std::span<const memsub::access> chunk;
            std::span<const three_c_reference> refs;
            {
                std::unique_lock lock(mutex_);
                start_cv_.wait(lock, [&] { return stopping_ || generation_ != seen; });
                if (stopping_) return;
                seen = generation_;
                chunk = chunk_;
                refs = refs_;
            }
            for (std::size_t i = id; i < runners_.size(); i += threads)
                runners_[i]->run(chunk, refs);
            {
                const std::lock_guard lock(mutex_);
                if (--busy_ == 0) done_cv_.notify_one();
            }
        }
    }

    std::vector<std::unique_ptr<runner>>& runners_;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable start_cv_, done_cv_;
    std::span<const memsub::access> chunk_;
    std::span<const three_c_reference> refs_;
    std::size_t busy_ = 0;
    std::uint64_t generation_ = 0;
    bool stopping_ = false;
};

/// Belady's OPT is not one of the runners (it needs the whole stream's next uses); its row is
/// computed after the trace, see opt_rows().
constexpr std::string_view opt_name = "opt";

/// The name `P` reports with default params, known even when it rejects `shape` (a
/// tree-PLRU on 12 ways, set dueling on one set): it is then asked on a shape every policy of
/// memsub accepts, and failing that, named after the component its config_error names.
template <class P>
std::string policy_name(const memsub::geometry& shape) {
    std::string component;
    // A small shape first: the name does not depend on the shape, and building a policy for a
    // huge one (--sets 2147483648) only to ask its name would exhaust memory.
    for (const memsub::geometry& g :
         {memsub::geometry{.sets = 64, .ways = 16, .line_bytes = 64}, shape}) {
        try {
            return std::string(P(g, typename P::params{}).name());
        } catch (const memsub::config_error& e) {
            component = e.component();
        }
    }
    const auto colons = component.rfind("::");
    return colons == std::string::npos ? component : component.substr(colons + 2);
}

struct policy_entry {
    std::string name;
    /// Builds the runner with `settings` ("key=value,...", core/param_text.hpp; "" = the
    /// defaults) applied to the policy's params; throws memsub::config_error when a setting
    /// is unknown or does not parse, or the policy rejects the geometry or a setting's value.
    std::unique_ptr<runner> (*make)(const memsub::geometry&, std::string_view settings);
    /// The host hints the policy needs (replacement concept O8), which a trace cannot give.
    std::string_view hints_needed;
    /// This entry's own settings (from a spec in --policies); "" = the defaults.
    std::string settings{};
    /// The fields `settings` can set, with their defaults (for --list --policies P).
    std::vector<memsub::param_field> (*fields)() = nullptr;
    /// Throws memsub::config_error (naming `name`) when `settings` names a field the policy
    /// does not have or a value that does not parse; ranges are its constructor's to check.
    void (*check_settings)(std::string_view name, std::string_view settings) = nullptr;
    /// The row's name: the policy's, then its settings after a colon.
    [[nodiscard]] std::string label() const {
        return settings.empty() ? name : name + ':' + settings;
    }
};

template <class P>
constexpr std::string_view hints_needed_by() {
    if constexpr (memsub::replacement::states_host_hints<P>)
        return P::host_hints_needed;
    else
        return {};
}

template <class P>
std::unique_ptr<runner> make_runner(const memsub::geometry& g, std::string_view settings) {
    typename P::params p{};
    const std::string name = policy_name<P>(g);
    memsub::set_params_from_text(p, settings, name);
    return std::make_unique<policy_runner<P>>(
        g, p, settings.empty() ? std::string{} : name + ':' + std::string(settings));
}

template <class P>
std::vector<memsub::param_field> fields_of() {
    return memsub::param_fields(typename P::params{});
}

template <class P>
void check_settings_of(std::string_view name, std::string_view settings) {
    typename P::params p{};
    memsub::set_params_from_text(p, settings, name);
}

/// One entry per policy of `Policies` (a std::tuple of replacement policies), in order.
template <class Policies>
std::vector<policy_entry> policy_entries(const memsub::geometry& shape) {
    return [&]<class... Ps>(std::tuple<Ps...>*) {
        static_assert((memsub::replacement::replacement_policy<Ps> && ...),
                      "run_explorer: every type of the list must be a replacement policy");
        return std::vector<policy_entry>{policy_entry{policy_name<Ps>(shape),
                                                      &make_runner<Ps>,
                                                      hints_needed_by<Ps>(),
                                                      {},
                                                      &fields_of<Ps>,
                                                      &check_settings_of<Ps>}...};
    }(static_cast<Policies*>(nullptr));
}

/// The policies to run: every entry (when `wanted` is empty) or the named ones, minus those that
/// reject the geometry. Each rejection is reported on stderr with the config_error message;
/// `requested_rejected` receives the policies the user named that were rejected.
inline std::vector<policy_entry> select_policies(const options& o,
                                                 const std::vector<policy_entry>& entries,
                                                 std::vector<std::string>& requested_rejected) {
    std::vector<policy_entry> out;
    for (const auto& e : entries) {
        // Every spec in --policies that names this entry, in the order given ("" = all
        // policies, each with its defaults).
        std::vector<std::string> settings;
        for (const auto& spec : o.policies)
            if (memsub::explorer::spec_policy_name(spec) == e.name &&
                std::find(settings.begin(), settings.end(),
                          memsub::explorer::spec_settings(spec)) == settings.end())
                settings.emplace_back(memsub::explorer::spec_settings(spec)); // once each
        const bool named = !settings.empty();
        if (!o.policies.empty() && !named) continue;
        if (!named) settings.emplace_back();
        for (const auto& s : settings) {
            policy_entry chosen = e;
            chosen.settings = s;
            try {
                (void)chosen.make(o.shape, s); // the same construction each trace repeats
                out.push_back(std::move(chosen));
            } catch (const memsub::config_error& err) {
                fmt::print(stderr, "{}: {} cannot run on this geometry: {}\n", program,
                           chosen.label(), err.what());
                if (named) requested_rejected.emplace_back(chosen.label());
            }
        }
    }
    return out;
}

// ------------------------------------------------------------------ out of memory

/// What the explorer is doing, for the message when memory runs out (one thread sets it).
inline std::string memory_use = "starting";

/// Sets memory_use for the rest of the scope; an exception leaving the scope keeps it, so the
/// handler can say what was running.
class memory_phase {
public:
    explicit memory_phase(std::string what)
        : previous_(std::exchange(memory_use, std::move(what))) {}
    memory_phase(const memory_phase&) = delete;
    memory_phase& operator=(const memory_phase&) = delete;
    ~memory_phase() {
        if (std::uncaught_exceptions() == exceptions_) memory_use = std::move(previous_);
    }

private:
    std::string previous_;
    int exceptions_ = std::uncaught_exceptions();
};

/// The caches' memory is the geometry's: say so with its size, and what to change.
inline std::string caches_phase(const options& o) {
    const double lines = static_cast<double>(o.shape.sets) * static_cast<double>(o.shape.ways);
    const double gib = lines * o.shape.line_bytes / 1073741824.0;
    return fmt::format("building the caches of the geometry {} sets x {} ways x {} B ({:.0f} "
                       "lines, {:.{}f} GiB of cache): choose a smaller --sets or --ways",
                       o.shape.sets, o.shape.ways, o.shape.line_bytes, lines, gib,
                       gib < 10 ? 2 : 0);
}

// ------------------------------------------------------------------ sources

using source = memsub::explorer::explorer_source;

inline source make_source(const options& o, const std::optional<std::string>& file) {
    return memsub::explorer::open_explorer_source(
        {.format = o.format,
         .limit = o.limit,
         .object_bytes = o.object_bytes,
         .workload_lines = o.shape.capacity_bytes() / o.shape.line_bytes,
         .line_bytes = o.shape.line_bytes,
         .accesses = o.default_accesses,
         .seed = o.seed},
        file);
}

// ------------------------------------------------------------------ results

struct result_row {
    std::string policy;
    std::uint64_t accesses = 0, misses = 0;
    /// The same split as cachegrind's "D refs" and "D1 misses": reads (loads, read-modify-writes,
    /// prefetches, instruction fetches) and writes (stores, writebacks).
    std::uint64_t reads = 0, read_misses = 0, writes = 0, write_misses = 0;
    std::optional<std::uint64_t> writebacks, storage_bits; // unknown for OPT
    double seconds = 0;
    bool bound = false; // Belady's OPT: the lower bound, not a realisable policy
    std::optional<memsub::cache::three_c_counts> three_c; // --3c
};

struct trace_result {
    std::string label;
    std::optional<std::uint64_t> instructions;
    std::vector<result_row> rows;
    /// The memsub::input_error message when the trace was malformed or could not be opened; the
    /// rows then cover the accesses read before the bad record.
    std::optional<std::string> error;
    /// Why the OPT bound could not be computed (its temporary file), when it could not.
    std::optional<std::string> opt_problem;
    std::uint64_t accesses_read = 0;
    /// The signal that interrupted this trace (its rows cover the accesses read until then and
    /// OPT was skipped); 0 when it ran to its end.
    int interrupted_by = 0;
    /// The signal came during OPT's pass: every access was simulated, the bound is missing.
    bool opt_interrupted = false;

    /// Read without error and held no access at all (an empty or comments-only file).
    [[nodiscard]] bool empty() const { return !error && interrupted_by == 0 && accesses_read == 0; }

    [[nodiscard]] const result_row* opt() const {
        for (const auto& r : rows)
            if (r.bound && r.policy == opt_name) return &r; // the set-associative bound
        return nullptr;
    }
};

inline double miss_ratio(const result_row& r) {
    return r.accesses ? static_cast<double>(r.misses) / static_cast<double>(r.accesses) : 0.0;
}
/// Misses per 1000 instructions, when the trace counts instructions.
inline std::optional<double> mpki(const trace_result& t, const result_row& r) {
    if (!t.instructions || *t.instructions == 0) return std::nullopt;
    return 1000.0 * static_cast<double>(r.misses) / static_cast<double>(*t.instructions);
}
inline std::optional<double> accesses_per_second(const result_row& r) {
    if (!(r.seconds > 0)) return std::nullopt;
    return static_cast<double>(r.accesses) / r.seconds;
}

/// Fills the read/write split of `r` from a cache's per-kind counters.
inline void split_reads_writes(const memsub::cache::cache_stats& s, result_row& r) {
    for (std::size_t k = 0; k < memsub::access_kind_count; ++k) {
        const bool write = memsub::is_write(static_cast<memsub::access_kind>(k));
        (write ? r.writes : r.reads) += s.by_kind[k].accesses;
        (write ? r.write_misses : r.read_misses) += s.by_kind[k].misses;
    }
}

inline std::string percent(double x) {
    return fmt::format("{:.2f}%", 100.0 * x);
}

inline void print_table(const options& o, const trace_result& t) {
    fmt::print("\n{}{}{}\n", t.label,
               !t.error         ? ""
               : t.rows.empty() ? " (not read: input error)"
                                : " (truncated by an input error)",
               t.interrupted_by == 0 ? std::string()
               : t.opt_interrupted
                   ? fmt::format(" (PARTIAL: interrupted by signal {} during the OPT bound's "
                                 "pass, after all {} accesses ran; OPT skipped)",
                                 t.interrupted_by, t.accesses_read)
                   : fmt::format(" (PARTIAL: interrupted by signal {} after {} accesses; OPT "
                                 "skipped)",
                                 t.interrupted_by, t.accesses_read));
    if (t.empty()) fmt::print("(no accesses were read: every count is 0)\n");
    fmt::print("LLC: {} sets x {} ways x {} B = {} KiB\n", o.shape.sets, o.shape.ways,
               o.shape.line_bytes, o.shape.capacity_bytes() / 1024);
    // The policy column fits the longest row name (a policy with settings, "srrip:rrpv_bits=3").
    std::size_t w = 10;
    for (const auto& r : t.rows) w = std::max(w, r.policy.size());
    fmt::print("{:<{}} {:>12} {:>12} {:>12} {:>12} {:>10} {:>8} {:>10} {:>10} {:>9}\n", "policy", w,
               "accesses", "misses", "read misses", "write misses", "miss ratio", "MPKI", "vs OPT",
               "M acc/s", "meta KiB");
    fmt::print("{:-<{}}\n", "", 104 + w);
    const result_row* bound = t.opt();
    for (const auto& r : t.rows) {
        const auto m = mpki(t, r);
        const auto rate = accesses_per_second(r);
        std::string vs_opt = "-";
        if (r.bound)
            vs_opt = "bound";
        else if (bound && bound->misses > 0)
            vs_opt = fmt::format(
                "{:+.1f}%",
                100.0 * (static_cast<double>(r.misses) - static_cast<double>(bound->misses)) /
                    static_cast<double>(bound->misses));
        fmt::print("{:<{}} {:>12} {:>12} {:>12} {:>12} {:>10} {:>8} {:>10} {:>10} {:>9}\n",
                   r.policy, w, r.accesses, r.misses, r.read_misses, r.write_misses,
                   percent(miss_ratio(r)), m ? fmt::format("{:.2f}", *m) : std::string("-"), vs_opt,
                   rate ? fmt::format("{:.1f}", *rate / 1e6) : std::string("-"),
                   r.storage_bits
                       ? fmt::format("{:.1f}", static_cast<double>(*r.storage_bits) / 8.0 / 1024.0)
                       : std::string("-"));
    }
    if (t.rows.empty()) fmt::print("(no policy ran)\n");
    if (!o.three_c || t.rows.empty()) return;
    // Hill's 3C, as shares of all accesses (they add up to the miss ratio). "Hill conflict" is
    // the policy's misses minus the fully associative LRU's: negative where the policy beats it.
    fmt::print("3C misses against a fully associative LRU of {} lines, % of accesses:\n",
               std::uint64_t{o.shape.sets} * o.shape.ways);
    fmt::print("{:<{}} {:>11} {:>11} {:>11} {:>14}\n", "policy", w, "compulsory", "capacity",
               "conflict", "Hill conflict");
    for (const auto& r : t.rows) {
        if (!r.three_c) continue;
        const auto share = [&](double n) {
            return r.accesses == 0 ? std::string("-")
                                   : percent(n / static_cast<double>(r.accesses));
        };
        const auto& c = *r.three_c;
        fmt::print("{:<{}} {:>11} {:>11} {:>11} {:>14}\n", r.policy, w,
                   share(static_cast<double>(c.compulsory)), share(static_cast<double>(c.capacity)),
                   share(static_cast<double>(c.conflict)),
                   share(static_cast<double>(c.hill_conflict())));
    }
}

/// The results as one table (memsub/explorer/result_table.hpp): a row per policy and trace, and a
/// row with no policy for a trace that could not be read, so every input shows in the files. CSV
/// and JSON carry the same fields: the geometry; per trace its instructions, accesses read,
/// OPT's misses, `partial` (a stop signal or an input error cut the run short: the rows cover
/// `accesses_read` accesses, or OPT's pass was stopped, or its temporary file failed) with the
/// signal, `error` and `opt_problem`; per
/// policy its counts, rates, metadata bits (empty / null when unknown) and the 3C counts
/// (--3c).
inline memsub::explorer::result_table results_table(const options& o,
                                                    const std::vector<trace_result>& all) {
    memsub::explorer::result_table table(program);
    for (const auto& t : all) {
        const result_row* bound = t.opt();
        const auto trace_fields = [&](memsub::explorer::result_table::row& row) {
            row.text("trace", t.label)
                .number("sets", o.shape.sets)
                .number("ways", o.shape.ways)
                .number("line_bytes", o.shape.line_bytes)
                .optional_number("instructions", t.instructions)
                .number("accesses_read", t.accesses_read)
                .optional_number("opt_misses", bound ? std::optional(bound->misses) : std::nullopt)
                .boolean("partial",
                         t.interrupted_by != 0 || t.error.has_value() || t.opt_problem.has_value())
                .optional_number("interrupted_by_signal", t.interrupted_by != 0
                                                              ? std::optional(t.interrupted_by)
                                                              : std::nullopt)
                .optional_text("error", t.error)
                .optional_text("opt_problem", t.opt_problem);
        };
        if (t.rows.empty()) {
            auto& row = table.add_row();
            trace_fields(row);
            row.null("policy");
            continue;
        }
        for (const auto& r : t.rows) {
            auto& row = table.add_row();
            trace_fields(row);
            row.text("policy", r.policy)
                .boolean("bound", r.bound)
                .number("accesses", r.accesses)
                .number("misses", r.misses)
                .number("miss_ratio", miss_ratio(r), "{:.6f}")
                .optional_number("mpki", mpki(t, r), "{:.4f}")
                .optional_number("writebacks", r.writebacks)
                .number("reads", r.reads)
                .number("read_misses", r.read_misses)
                .number("writes", r.writes)
                .number("write_misses", r.write_misses)
                .number("seconds", r.seconds, "{:.6f}")
                .optional_number("accesses_per_second", accesses_per_second(r), "{:.0f}")
                .optional_number("storage_bits", r.storage_bits);
            const auto c = r.three_c;
            row.optional_number("compulsory", c ? std::optional(c->compulsory) : std::nullopt)
                .optional_number("capacity", c ? std::optional(c->capacity) : std::nullopt)
                .optional_number("conflict", c ? std::optional(c->conflict) : std::nullopt)
                .optional_number("hill_conflict",
                                 c ? std::optional(c->hill_conflict()) : std::nullopt);
        }
    }
    return table;
}

inline void write_csv(const options& o, const std::vector<trace_result>& all) {
    results_table(o, all).write_csv(o.csv);
}

inline void write_json(const options& o, const std::vector<trace_result>& all) {
    results_table(o, all).write_json(o.json);
}

/// Writes FILE.dat and FILE.gp (a grouped bar chart of miss ratio per policy, one group per
/// trace, OPT's bound as the last bar) and renders FILE with gnuplot when it is installed.
inline void write_plot(const options& o, const std::vector<trace_result>& all) {
    const std::string base = o.plot.substr(0, o.plot.find_last_of('.'));
    const std::string terminal = memsub::explorer::gnuplot_terminal_for(o.plot).value_or("");
    if (terminal.empty()) // parse_explorer_options rejects other names
        throw std::runtime_error("--plot " + o.plot + ": unknown plot format");
    {
        // Every policy that has a row in some trace, in table order; '?' where a trace lacks it
        // (a trace that could not be opened).
        std::vector<std::string> names;
        for (const auto& t : all)
            for (const auto& r : t.rows)
                if (std::find(names.begin(), names.end(), r.policy) == names.end())
                    names.push_back(r.policy);
        std::ofstream dat(base + ".dat");
        if (!dat) throw std::runtime_error("cannot write " + base + ".dat");
        fmt::print(dat, "policy");
        for (std::size_t i = 0; i < all.size(); ++i) fmt::print(dat, "\ttrace{}", i + 1);
        fmt::print(dat, "\n");
        for (const auto& n : names) {
            fmt::print(dat, "{}", n);
            for (const auto& t : all) {
                const auto it = std::find_if(t.rows.begin(), t.rows.end(),
                                             [&](const result_row& r) { return r.policy == n; });
                if (it == t.rows.end())
                    fmt::print(dat, "\t?");
                else
                    fmt::print(dat, "\t{:.6f}", 100.0 * miss_ratio(*it));
            }
            fmt::print(dat, "\n");
        }
    }
    {
        std::ofstream gp(base + ".gp");
        if (!gp) throw std::runtime_error("cannot write " + base + ".gp");
        // pdfcairo sizes are in inches; png and svg in pixels.
        fmt::print(gp, "set terminal {} size {} font ',11'\n", terminal,
                   terminal == "pdfcairo" ? "10in,5.2in" : "1000,520");
        fmt::print(gp, "set output {}\nset termoption noenhanced\n",
                   memsub::explorer::gnuplot_quoted(o.plot));
        fmt::print(gp,
                   "set title 'LLC miss ratio by replacement policy ({} sets x {} ways x {} B)'\n",
                   o.shape.sets, o.shape.ways, o.shape.line_bytes);
        fmt::print(gp, "set ylabel 'miss ratio (%)'\nset yrange [0:*]\nset grid ytics\n");
        fmt::print(gp, "set datafile missing '?'\n");
        fmt::print(gp, "set style data histograms\nset style histogram clustered gap 1\n");
        fmt::print(gp, "set style fill solid 0.8 border -1\nset boxwidth 0.9\n");
        fmt::print(
            gp,
            "set key outside bottom center horizontal box noenhanced\nset xtics rotate by -30\n");
        fmt::print(gp, "plot ");
        for (std::size_t i = 0; i < all.size(); ++i) {
            std::string title = all[i].label;
            if (title.size() > 40) title = "..." + title.substr(title.size() - 37);
            fmt::print(gp, "{}{} using {}:xtic(1) title {}", i ? ", " : "",
                       memsub::explorer::gnuplot_quoted(base + ".dat"), i + 2,
                       memsub::explorer::gnuplot_quoted(title));
        }
        fmt::print(gp, "\n");
    }
    // Paths are quoted for gnuplot above and for the shell here: any file name is safe.
    if (memsub::explorer::render_with_gnuplot(base + ".gp", o.plot))
        fmt::print("\nplot written to {} (data {}.dat, script {}.gp)\n", o.plot, base, base);
}

// ------------------------------------------------------------------ driver

/// The fully associative organisations' rows (`--fully-associative` runs all three; naming one
/// in --policies runs it).
constexpr std::string_view fully_associative_names[] = {"fa_lru", "fa_fifo", "fa_opt"};
inline bool wants_fully_associative(const options& o, std::string_view name) {
    return o.fully_associative ||
           std::find(o.policies.begin(), o.policies.end(), name) != o.policies.end();
}

/// Belady's OPT on the geometry ("opt") and, with --fully-associative, on a fully associative
/// cache of its capacity ("fa_opt"): every line of each reference, counted per reference as the
/// policies' rows are. No bypass: the bound for policies that always insert, as every policy in
/// the table does. Its time includes the next-use pass OPT needs. Writebacks are not modelled
/// (only line addresses are kept) and OPT is an oracle, not hardware, so both are reported as
/// unknown.
/// Empty when a stop signal interrupted the pass (the rows would be incomplete: none is kept).
inline std::optional<std::vector<result_row>> opt_rows(const options& o, opt_spool& stream,
                                                       const std::string& label) {
    const std::uint32_t line_shift = memsub::log2_exact(o.shape.line_bytes);
    const bool fully_associative = wants_fully_associative(o, "fa_opt");
    const int passes = fully_associative ? 2 : 1;
    memsub::explorer::progress_meter progress(o.progress, "OPT bound of " + label);
    std::vector<result_row> rows;
    const auto run = [&](auto& cache, std::string name, int pass) {
        const auto t0 = clock_type::now();
        result_row r;
        bool missed = false;  // the reference in progress missed somewhere
        bool pending = false; // a reference is in progress
        bool pending_write = false;
        const auto finish = [&] { // the reference in progress is complete
            ++r.accesses;
            (pending_write ? r.writes : r.reads) += 1;
            r.misses += missed;
            (pending_write ? r.write_misses : r.read_misses) += missed;
            missed = false;
        };
        memsub::access a;
        const bool complete = stream.replay(
            [&](std::uint64_t word, std::uint64_t next_use) {
                if (pending && (word & opt_spool::continues_flag) == 0) finish();
                pending = true;
                pending_write = (word & opt_spool::write_flag) != 0;
                a.address = memsub::byte_address{(word & opt_spool::line_mask) << line_shift};
                a.hints.next_use = next_use;
                missed |= !cache.access(a).hit;
            },
            [&](double fraction) {
                progress.update((pass + fraction) / passes);
                return memsub::explorer::stop_requested() == 0;
            });
        if (!complete) return false;
        if (pending) finish();
        r.policy = std::move(name);
        r.bound = true;
        r.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
        rows.push_back(std::move(r));
        return true;
    };
    const memory_phase phase(fmt::format("computing the OPT bound of {} (about 50 bytes a "
                                         "distinct line, 8 more a line touched unless spilled): "
                                         "try --no-opt or --limit N",
                                         label));
    bool complete = false;
    {
        memsub::cache::set_associative_cache<memsub::replacement::opt> set_assoc(o.shape);
        complete = run(set_assoc, std::string(opt_name), 0);
    }
    if (complete && fully_associative) {
        memsub::cache::fully_associative_cache<memsub::cache::fa_opt> fa(
            std::uint64_t{o.shape.sets} * o.shape.ways, o.shape.line_bytes);
        complete = run(fa, "fa_" + std::string(opt_name), 1);
    }
    progress.finish();
    if (!complete) return std::nullopt;
    return rows;
}

inline trace_result explore(const options& o, const std::vector<policy_entry>& policies,
                            std::optional<std::string> file) {
    trace_result t;
    t.label = file ? *file : std::string("built-in workload");
    std::optional<source> src;
    try {
        src.emplace(make_source(o, file));
    } catch (const memsub::input_error& e) {
        t.error = e.what(); // could not open or detect: nothing read
        return t;
    }
    t.label = src->label();
    std::vector<std::unique_ptr<runner>> runners;
    for (const auto& p : policies) runners.push_back(p.make(o.shape, p.settings));
    if (wants_fully_associative(o, "fa_lru"))
        runners.push_back(
            std::make_unique<fully_associative_runner<memsub::cache::fa_lru>>(o.shape));
    if (wants_fully_associative(o, "fa_fifo"))
        runners.push_back(
            std::make_unique<fully_associative_runner<memsub::cache::fa_fifo>>(o.shape));
    // --3c: the fully associative LRU and the first-reference test are the same for every
    // policy, so they run once per access and each runner counts against their outcome.
    std::optional<memsub::cache::three_c_classifier> classifier;
    if (o.three_c)
        classifier.emplace(std::uint64_t{o.shape.sets} * o.shape.ways, o.shape.line_bytes);
    const memory_phase reading(
        fmt::format("reading {}: {}{}try {}--limit N", t.label,
                    o.no_opt ? ""
                             : fmt::format("OPT's line stream keeps 16 bytes a line touched up to "
                                           "--opt-memory {} MiB; ",
                                           o.opt_memory_mib),
                    o.three_c ? "--3c keeps 8 bytes a distinct line; " : "",
                    o.no_opt ? "" : "a smaller --opt-memory, --no-opt or "));
    std::uint64_t done = 0;
    memsub::explorer::progress_meter progress(o.progress, src->label());
    if (!o.no_opt) progress.set_then("then the OPT bound's pass");
    // OPT needs every access's next use: keep each line each reference touches (8 bytes each;
    // 16 with the next uses; spilled to a temporary file beyond --opt-memory).
    opt_spool lines(o.opt_memory_mib << 20);
    const std::uint32_t line_shift = memsub::log2_exact(o.shape.line_bytes);
    // Two chunks: with --jobs, the pool simulates one while this thread reads the other.
    std::vector<memsub::access> chunks[2];
    std::vector<three_c_reference> refs[2];
    std::optional<runner_pool> pool;
    if (o.jobs > 1 && runners.size() > 1) pool.emplace(runners, o.jobs);
    // Reads chunk `k` and classifies its accesses (--3c); false at the end or on a bad record.
    const auto read = [&](int k) {
        try {
            if (!src->next_chunk(chunks[k])) return false;
        } catch (const memsub::input_error& e) {
            // Everything before the bad record has been delivered: keep it, report the error.
            t.error = e.what();
            return false;
        }
        refs[k].clear();
        if (classifier)
            for (const auto& a : chunks[k]) refs[k].push_back(classifier->observe(a));
        return true;
    };
    for (int cur = 0, more = read(0); more; cur ^= 1) {
        if (pool)
            pool->start(chunks[cur], refs[cur]);
        else
            for (auto& r : runners) r->run(chunks[cur], refs[cur]);
        if (!o.no_opt && !t.opt_problem) {
            try {
                for (const auto& a : chunks[cur]) lines.add(a, line_shift);
            } catch (const std::runtime_error& e) {
                // The spill file failed: OPT is lost, the policies' rows go on.
                t.opt_problem = e.what();
            }
        }
        done += chunks[cur].size();
        if ((t.interrupted_by = memsub::explorer::stop_requested()) != 0) {
            if (pool) pool->wait();
            break;
        }
        more = read(cur ^ 1); // while the pool runs `cur`
        if (pool) pool->wait();
        progress.update(done, src->fraction_done());
    }
    progress.finish();

    t.instructions = src->instructions();
    t.accesses_read = done;
    for (const auto& r : runners) {
        const auto& s = r->stats();
        t.rows.push_back({.policy = r->name(),
                          .accesses = s.accesses(),
                          .misses = s.misses(),
                          .writebacks = s.writebacks,
                          .storage_bits = r->storage_bits(),
                          .seconds = r->seconds,
                          .three_c = o.three_c ? std::optional(r->three_c) : std::nullopt});
        split_reads_writes(s, t.rows.back());
    }
    // An interrupted run skips OPT: its next-use pass would take as long again. A stop signal
    // during OPT's own pass drops it too (the trace's other rows are complete), and the run is
    // partial: the bound it promised is missing.
    if (!o.no_opt && t.interrupted_by == 0 && !t.opt_problem) {
        try {
            if (auto rows = opt_rows(o, lines, t.label))
                for (auto& row : *rows) t.rows.push_back(std::move(row));
            else {
                t.interrupted_by = memsub::explorer::stop_requested();
                t.opt_interrupted = true;
            }
        } catch (const std::runtime_error& e) { // the spill file: the other rows stand
            t.opt_problem = e.what();
        }
    }
    return t;
}

/// Writes every requested output; returns a message per output that could not be written (the
/// others are still written).
inline std::vector<std::string> write_outputs(const options& o,
                                              const std::vector<trace_result>& results) {
    memsub::explorer::output_attempts outputs;
    if (!o.csv.empty()) outputs.attempt([&] { write_csv(o, results); });
    if (!o.json.empty()) outputs.attempt([&] { write_json(o, results); });
    if (!o.plot.empty()) outputs.attempt([&] { write_plot(o, results); });
    return outputs.failures();
}

inline int run(const options& o, const std::vector<policy_entry>& entries) {
    std::vector<std::string> requested_rejected;
    std::vector<trace_result> results;
    o.shape.validate("explorer geometry");
    const memory_phase phase(caches_phase(o));
    const auto policies = select_policies(o, entries, requested_rejected);
    memsub::explorer::install_stop_handlers();
    if (o.traces.empty()) results.push_back(explore(o, policies, std::nullopt));
    const std::vector<std::string> not_run = memsub::explorer::run_until_stopped(
        o.traces.size(),
        [&](std::size_t i) { results.push_back(explore(o, policies, o.traces[i])); },
        [&](std::size_t i) { return o.traces[i]; });
    const int signal = memsub::explorer::stop_requested();
    for (const auto& r : results) print_table(o, r);
    // A trace carries no timing: policies that weigh misses by a host-supplied cost say what
    // they fall back to, so identical rows are not mistaken for a finding.
    for (const auto& p : policies)
        if (!p.hints_needed.empty())
            fmt::print("\n{}\n",
                       memsub::explorer::wrap_text(
                           fmt::format("note: {} needs {}.", p.label(), p.hints_needed), 100, 6));
    const std::vector<std::string> output_failures = write_outputs(o, results);

    // Problems are reported after the tables, so they are the last thing a user sees: every
    // trace error, every output that could not be written, then the interruption.
    bool input_failed = false, empty = false;
    for (const auto& r : results) {
        const bool accel_sim =
            r.error &&
            r.error->find(memsub::trace::detail::accel_sim_trace_problem) != std::string::npos;
        const auto found = memsub::explorer::report_trace_outcome(
            program, {.label = r.label,
                      .empty = r.empty(),
                      .error = &r.error,
                      .read = !r.rows.empty(),
                      .accesses = r.accesses_read,
                      .hint = accel_sim ? "gpu_l1_explorer --traceg replays Accel-Sim traces "
                                          "through GPU L1 configurations"
                                        : ""});
        input_failed = input_failed || found.input_failed;
        empty = empty || found.empty;
    }
    // OPT's temporary file is a file the explorer writes: its failure counts as an output's
    // (status 1), and the trace's rows, without the bound they promised, are partial.
    bool opt_failed = false;
    for (const auto& r : results)
        if (r.opt_problem) {
            opt_failed = true;
            fmt::print(stderr, "{}: the OPT bound of {} was not computed: {}\n", program, r.label,
                       *r.opt_problem);
        }
    for (const auto& f : output_failures) fmt::print(stderr, "{}: output error: {}\n", program, f);
    for (const auto& p : requested_rejected)
        fmt::print(stderr,
                   "{}: requested policy {} did not run (it rejects the geometry, "
                   "see above)\n",
                   program, p);
    if (signal != 0)
        return memsub::explorer::report_interruption(program, signal, not_run, "trace");
    if (input_failed || opt_failed || !output_failures.empty()) return status::input_error;
    if (!requested_rejected.empty()) return status::usage_error;
    if (empty) return status::empty_input;
    return status::ok;
}

} // namespace memsub::explorer::detail

namespace memsub::explorer {

/// The explorer's command line (`--help` lists it) on the replacement policies of `Policies`, a
/// std::tuple of types modelling memsub::replacement::replacement_policy, each built with
/// default params. Returns the exit status (explorer_status).
template <class Policies>
int run_explorer(int argc, char** argv) {
    using namespace detail;
    program = memsub::explorer::program_name(argc, argv, program);
    const std::vector<std::string_view> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    const options o = memsub::explorer::parse_or_exit(
        program, [&] { return memsub::explorer::parse_explorer_options(args); });
    if (o.what == options::action::help) {
        // The usage names the program as it was run (explorer, or a program built on it).
        std::string usage(memsub::explorer::explorer_usage);
        if (const auto at = usage.find("explorer"); at != std::string::npos)
            usage.replace(at, 8, program);
        fmt::print("{}", usage);
        return status::ok;
    }
    std::vector<policy_entry> entries;
    try {
        entries = policy_entries<Policies>(o.shape);
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "{}: out of memory while naming the policies\n", program);
        return status::out_of_memory;
    }
    // Every spec in --policies names a policy and settings it has (also for --list).
    for (const auto& spec : o.policies) {
        const auto p = memsub::explorer::spec_policy_name(spec);
        const auto settings = memsub::explorer::spec_settings(spec);
        const auto entry = std::find_if(entries.begin(), entries.end(),
                                        [&](const auto& e) { return e.name == p; });
        const bool bound = p == opt_name || std::find(std::begin(fully_associative_names),
                                                      std::end(fully_associative_names),
                                                      p) != std::end(fully_associative_names);
        if (entry == entries.end() && !bound) {
            fmt::print(stderr, "{}: unknown policy '{}'; --list shows them\n", program, p);
            return status::usage_error;
        }
        if (bound && !settings.empty()) {
            fmt::print(stderr, "{}: {} takes no settings here ('{}')\n", program, p, spec);
            return status::usage_error;
        }
        // A setting that names no field or does not parse is a usage error, before any run.
        try {
            if (entry != entries.end()) entry->check_settings(entry->name, settings);
        } catch (const memsub::config_error& e) {
            fmt::print(stderr, "{}: --policies {}: {}\n", program, spec, e.what());
            return status::usage_error;
        }
    }
    if (o.what == options::action::list && !o.policies.empty()) {
        // --list --policies P: each named policy's settings, their defaults and what they take
        // (the specs' own settings were checked above).
        for (const auto& spec : o.policies) {
            const auto name = memsub::explorer::spec_policy_name(spec);
            const auto e = std::find_if(entries.begin(), entries.end(),
                                        [&](const auto& x) { return x.name == name; });
            if (e == entries.end()) {
                fmt::print("{}: no settings\n", name); // the bounds: opt, fa_*
                continue;
            }
            const auto fields = e->fields();
            fmt::print("{}:{}\n", name, fields.empty() ? " no settings" : "");
            for (const auto& f : fields) fmt::print("  {}={}  ({})\n", f.key, f.value, f.takes);
        }
        return status::ok;
    }
    if (o.what == options::action::list) {
        for (const auto& e : entries) fmt::print("{}\n", e.name);
        fmt::print("{}\n", opt_name);
        for (const auto n : fully_associative_names) fmt::print("{}\n", n);
        return status::ok;
    }
    // Every output is checked before the run, so a long run cannot end in an output error
    // that was knowable at its start (the writers still report a failure while writing).
    if (!memsub::explorer::outputs_writable(program, o)) return status::usage_error;
    // OPT: on unless --no-opt; naming it in --policies asks for it (and only then may it stand
    // alone: `--policies opt` runs nothing but the bound).
    const bool opt_named =
        std::find(o.policies.begin(), o.policies.end(), opt_name) != o.policies.end();
    if (opt_named && o.no_opt) {
        fmt::print(stderr, "{}: --no-opt contradicts --policies {}\n", program, opt_name);
        return status::usage_error;
    }
    return memsub::explorer::run_reporting_errors(program, memory_use,
                                                  [&] { return run(o, entries); });
}

} // namespace memsub::explorer
