// memsub::testing — the contract check of a DRAM request scheduler (memory/scheduler_concept.hpp's
// `request_scheduler`, requirements MS1–MS4).
//
//   auto report = memsub::testing::check_scheduler_contract<my_scheduler>();
//   if (!report.ok()) std::fputs(report.text().c_str(), stderr);
//
// The check drives the scheduler in three passes, each with two instances built alike and fed
// the same requests:
//   * "bank view"  — a reference driver: one queue of up to `queue_entries` requests over
//     `banks` banks, whose view offers bank / hit / ready / ready_at only (MS2's members). A
//     bank takes a new request a few cycles after its last one (more after a row miss), so
//     readiness is the bank's and monotone in age within a bank, as MS2 promises. One decision
//     per cycle; when nothing is chosen the driver sleeps until the scheduler's `wake` or the
//     next arrival, as a controller does. Now and then it offers only the oldest part of its
//     queue (a controller may: MS2's `n`).
//   * "timed view" — the same driver with a view that also has `now()` and `issue_at(i)` (a row
//     hit's earliest column command, against a data bus that carries one burst per 4 cycles):
//     the members a first-ready scheduler reads when they exist.
//   * "engine" — memsub's shared-queue DRAM controller (`memory::dram_controller`, DDR4-2400,
//     open page) built with the scheduler, fed seeded reads and writes through its public
//     interface (enqueue, advance_to, next_event_cycle, drain).
// The violations, each labelled by the requirement it breaks:
//   MS1. building the scheduler from (params, banks) threw (`config_error`: the options' banks).
//   MS2. `select` chose an index ≥ n, or an entry whose bank cannot take a request
//       (`view.ready(i)` false); it read an entry ≥ n of the view; it chose nothing and gave a
//       `wake` at or before the current cycle, or `never` with requests queued (a controller
//       would ask again at once, or sleep for ever); its `wake` was not a lower bound (a copy of
//       the scheduler, asked at the first cycle the view changes before `wake`, chooses
//       something: checked when the scheduler is copyable); or requests were left unserved
//       (the run exceeded `cycles_per_request` × requests cycles, or the engine stalled).
//   MS4. `name()` is empty, or differs between two instances or before and after a run.
//   K3. determinism: the two instances decided differently (the driver's decisions, the
//       engine's completions and their cycles).
//   K7. a pass did not complete: the scheduler crashed, exited, threw or hung (as in
//       testing/contract.hpp; passes run in a child process where POSIX fork exists).
// MS3 (`on_selected` follows the `select` that chose) is the driver's duty: the driver and the
// engine call it before removing the chosen request, so the view still describes it.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/dram_controller.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/open_page.hpp>
#include <memsub/memory/scheduler_concept.hpp>
#include <memsub/testing/contract_report.hpp>
#include <memsub/testing/detail/isolated_pass.hpp>

namespace memsub::testing {

struct scheduler_contract_options {
    /// Banks of the reference driver's channel (1..64; the scheduler is built with this many).
    std::uint32_t banks = 16;
    /// Requests the reference driver's queue holds.
    std::uint32_t queue_entries = 32;
    /// Rows per bank the requests draw from (few rows: many row hits for a first-ready rule).
    std::uint32_t rows_per_bank = 4;
    /// Requests per run (each pass has two runs).
    std::uint64_t requests = 4000;
    std::uint64_t seed = 1;
    /// A run that takes more than this many cycles per request has left requests unserved (MS2).
    std::uint64_t cycles_per_request = 200;
    /// Run the "engine" pass (memory::dram_controller built with the scheduler).
    bool engine_pass = true;
    /// Run each pass in a child process (POSIX), so a crash is reported as K7.
    bool isolate_passes = true;
    /// Seconds an isolated pass may run before it is reported as hung (K7); 0 = no limit.
    std::uint32_t pass_time_limit_seconds = 300;
};

namespace detail {

/// A queued request of the reference driver.
struct driven_request {
    std::uint64_t id = 0;
    std::uint32_t bank = 0;
    std::uint32_t row = 0;
    std::uint64_t arrival = 0;
};

/// The reference driver's channel: its queue, each bank's open row and the cycle it takes a new
/// request, and the data bus of the timed view.
struct driven_channel {
    static constexpr std::uint32_t no_row = ~std::uint32_t{0};
    static constexpr std::uint64_t hit_busy = 4;   // the next request of a bank after a hit
    static constexpr std::uint64_t miss_busy = 26; // after a miss: precharge and activate
    static constexpr std::uint64_t burst = 4;      // data bus cycles per request (timed view)
    std::vector<driven_request> queue;
    std::vector<std::uint32_t> open_row;
    std::vector<std::uint64_t> bank_ready;
    std::uint64_t bus_next = 0;
    std::uint64_t now = 0;

    explicit driven_channel(std::uint32_t banks) : open_row(banks, no_row), bank_ready(banks, 0) {}

    [[nodiscard]] bool hit(const driven_request& r) const noexcept {
        return open_row[r.bank] == r.row;
    }
    /// The first cycle after `now` at which the view changes without an arrival (never if none).
    [[nodiscard]] std::uint64_t next_change(std::size_t n, bool timed) const noexcept {
        std::uint64_t t = never;
        for (std::size_t i = 0; i < n; ++i)
            if (bank_ready[queue[i].bank] > now) t = std::min(t, bank_ready[queue[i].bank]);
        if (timed && bus_next > now) t = std::min(t, bus_next);
        return t;
    }
    /// Serves entry `index` at `now` and removes it.
    void serve(std::size_t index) {
        const driven_request r = queue[index];
        const bool was_hit = hit(r);
        const std::uint64_t column = std::max(now + (was_hit ? 0 : miss_busy - hit_busy), bus_next);
        bus_next = column + burst;
        bank_ready[r.bank] = std::max(now + (was_hit ? hit_busy : miss_busy), column + 1);
        open_row[r.bank] = r.row;
        queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(index));
    }
};

/// The view of the "bank view" pass: MS2's members only. A read of an entry ≥ n is recorded (and
/// answered as entry 0, so the run goes on).
class driven_view {
public:
    driven_view(const driven_channel& ch, std::size_t n) noexcept : ch_(&ch), n_(n) {}
    [[nodiscard]] std::uint32_t bank(std::size_t i) const noexcept { return at(i).bank; }
    [[nodiscard]] bool hit(std::size_t i) const noexcept { return ch_->hit(at(i)); }
    [[nodiscard]] bool ready(std::size_t i) const noexcept { return ready_at(i) <= ch_->now; }
    [[nodiscard]] std::uint64_t ready_at(std::size_t i) const noexcept {
        return ch_->bank_ready[at(i).bank];
    }
    /// The first entry ≥ n read, if any.
    [[nodiscard]] std::optional<std::size_t> read_beyond() const noexcept { return beyond_; }

protected:
    const driven_request& at(std::size_t i) const noexcept {
        if (i < n_) return ch_->queue[i];
        if (!beyond_) beyond_ = i;
        return ch_->queue[0];
    }
    const driven_channel* ch_;
    std::size_t n_;
    mutable std::optional<std::size_t> beyond_;
};

/// The view of the "timed view" pass: adds `now()` and a row hit's `issue_at(i)`.
class driven_timed_view : public driven_view {
public:
    using driven_view::driven_view;
    [[nodiscard]] std::uint64_t now() const noexcept { return ch_->now; }
    [[nodiscard]] std::uint64_t issue_at(std::size_t i) const noexcept {
        return std::max({ch_->now, ch_->bus_next, ch_->bank_ready[at(i).bank]});
    }
};

/// Builds a scheduler for `banks` banks, reporting a throw as MS1 (nullopt then).
template <memory::request_scheduler S>
std::optional<S> build_scheduler(const typename S::params& params, std::uint32_t banks,
                                 std::string_view pass, contract_report& out) {
    try {
        return std::optional<S>(std::in_place, params, banks);
    } catch (const std::exception& e) {
        out.add("MS1", pass, "MS1: building the scheduler from (params, banks) threw", e.what(), 1,
                "check scheduler_contract_options::banks (" + std::to_string(banks) +
                    ") against what the scheduler supports, or its params");
        return std::nullopt;
    }
}

/// One run of the reference driver; returns its decisions (index or none, and wake) for K3.
template <memory::request_scheduler S, bool Timed>
std::vector<std::uint64_t> drive_scheduler(S& s, const scheduler_contract_options& o,
                                           std::string_view pass, contract_report& out) {
    using view_type = std::conditional_t<Timed, driven_timed_view, driven_view>;
    xoshiro256ss rng(o.seed);
    driven_channel ch(o.banks);
    std::vector<driven_request> arrivals;
    arrivals.reserve(o.requests);
    std::uint64_t t = 0;
    for (std::uint64_t k = 0; k < o.requests; ++k) {
        t += rng.below(8); // bursts of arrivals in the same cycle, and gaps
        // Half the requests go to a quarter of the banks: queues with several per bank.
        const std::uint32_t hot = std::max<std::uint32_t>(1, o.banks / 4);
        const auto bank =
            static_cast<std::uint32_t>(rng.below(2) == 0 ? rng.below(hot) : rng.below(o.banks));
        arrivals.push_back({.id = k,
                            .bank = bank,
                            .row = static_cast<std::uint32_t>(rng.below(o.rows_per_bank)),
                            .arrival = t});
    }
    std::vector<std::uint64_t> decisions;
    std::size_t next = 0;
    std::uint64_t served = 0;
    const std::uint64_t limit = o.cycles_per_request * std::max<std::uint64_t>(1, o.requests);
    const auto at = [&] { return "cycle " + std::to_string(ch.now); };
    while (served < o.requests) {
        while (next < arrivals.size() && arrivals[next].arrival <= ch.now &&
               ch.queue.size() < o.queue_entries)
            ch.queue.push_back(arrivals[next++]);
        const std::uint64_t next_arrival =
            next < arrivals.size() && ch.queue.size() < o.queue_entries ? arrivals[next].arrival
                                                                        : never;
        if (ch.now > limit) {
            out.add("MS2", pass, "MS2: requests were left unserved",
                    std::to_string(o.requests - served) + " of " + std::to_string(o.requests) +
                        " after " + std::to_string(ch.now) + " cycles",
                    1, "every queued request must be chosen eventually");
            break;
        }
        if (ch.queue.empty()) {
            ch.now = next_arrival;
            continue;
        }
        // Now and then only the oldest part of the queue is offered.
        std::size_t n = ch.queue.size();
        if (rng.below(8) == 0) n = 1 + static_cast<std::size_t>(rng.below(n));
        const view_type v(ch, n);
        const memory::selection sel = s.select(n, v);
        decisions.push_back(sel.index == memory::selection::none ? ~std::uint64_t{0} : sel.index);
        if (const auto i = v.read_beyond())
            out.add("MS2", pass, "MS2: select read an entry at or beyond n",
                    at() + ": entry " + std::to_string(*i) + ", n = " + std::to_string(n));
        if (sel.index != memory::selection::none) {
            if (sel.index >= n) {
                out.add("MS2", pass, "MS2: select chose an index at or beyond n",
                        at() + ": index " + std::to_string(sel.index) +
                            ", n = " + std::to_string(n));
                ++ch.now;
                continue;
            }
            if (!v.ready(sel.index))
                out.add("MS2", pass, "MS2: select chose an entry whose bank cannot take a request",
                        at() + ": index " + std::to_string(sel.index) + ", bank " +
                            std::to_string(v.bank(sel.index)) + " ready at " +
                            std::to_string(v.ready_at(sel.index)),
                        1, "choose only entries with view.ready(i)");
            s.on_selected(v, sel.index); // MS3: before the request leaves
            ch.serve(sel.index);
            ++served;
            ++ch.now; // one decision per cycle
            continue;
        }
        decisions.push_back(sel.wake);
        std::uint64_t wake = sel.wake;
        if (wake <= ch.now) {
            out.add("MS2", pass, "MS2: nothing chosen and wake is not after the current cycle",
                    at() + ": wake " + std::to_string(wake), 1,
                    "give the first later cycle a choice may become possible");
            wake = ch.now + 1;
        } else if (wake == never) {
            out.add("MS2", pass, "MS2: nothing chosen and wake = never with requests queued",
                    at() + ", " + std::to_string(n) + " offered", 1,
                    "a controller would never ask again: give view.ready_at of the entry awaited");
            const std::uint64_t change = ch.next_change(n, Timed);
            wake = change == never ? ch.now + 1 : std::max(ch.now + 1, change);
        } else if constexpr (std::copy_constructible<S>) {
            // Lower bound: at the first cycle the view changes before wake, a copy must choose
            // nothing either.
            const std::uint64_t change = ch.next_change(n, Timed);
            if (change < wake && change < next_arrival) {
                S probe = s;
                const std::uint64_t saved = ch.now;
                ch.now = change;
                const memory::selection later = probe.select(n, view_type(ch, n));
                ch.now = saved;
                if (later.index != memory::selection::none)
                    out.add("MS2", pass, "MS2: wake is not a lower bound",
                            at() + ": wake " + std::to_string(wake) + ", but it chooses at cycle " +
                                std::to_string(change),
                            1, "give the earliest cycle a choice may become possible");
            }
        }
        ch.now = std::max(ch.now + 1, std::min(wake, next_arrival));
    }
    return decisions;
}

/// Wraps a scheduler inside memsub's controller and checks its choices on the controller's own
/// views (index < n, its bank ready). An illegal choice is replaced by nothing, with a wake one
/// cycle later, so the run goes on.
template <memory::request_scheduler S>
class checked_scheduler {
public:
    struct params {
        typename S::params inner{};
    };
    checked_scheduler(const params& p, std::uint32_t banks) : inner_(p.inner, banks) {}

    template <class View>
    [[nodiscard]] memory::selection select(std::size_t n, const View& v) noexcept {
        memory::selection s = inner_.select(n, v);
        if (s.index == memory::selection::none) return s;
        if (s.index >= n) {
            note("MS2: select chose an index at or beyond n",
                 "index " + std::to_string(s.index) + ", n = " + std::to_string(n), v);
            return {.index = memory::selection::none, .wake = now_of(v) + 1};
        }
        if (!v.ready(s.index)) {
            note("MS2: select chose an entry whose bank cannot take a request",
                 "index " + std::to_string(s.index) + ", bank " + std::to_string(v.bank(s.index)),
                 v);
            return {.index = memory::selection::none, .wake = v.ready_at(s.index)};
        }
        return s;
    }
    template <class View>
    void on_selected(const View& v, std::size_t index) noexcept {
        inner_.on_selected(v, index);
    }
    [[nodiscard]] std::string_view name() const noexcept { return inner_.name(); }
    [[nodiscard]] const contract_report& found() const noexcept { return found_; }

private:
    template <class View>
    static std::uint64_t now_of(const View& v) noexcept {
        if constexpr (requires { v.now(); })
            return v.now();
        else
            return 0;
    }
    template <class View>
    void note(std::string_view rule, const std::string& what, const View& v) noexcept {
        try {
            std::string where = what;
            if constexpr (requires { v.now(); })
                where = "cycle " + std::to_string(v.now()) + ": " + where;
            found_.add("MS2", "engine", rule, where, 1, "choose only entries with view.ready(i)");
        } catch (...) { // out of memory while reporting: the count is lost, not the run
        }
    }
    S inner_;
    contract_report found_;
};

/// One run of memsub's controller with the scheduler; returns (id, done cycle) per completion.
template <memory::request_scheduler S>
std::vector<std::uint64_t> drive_engine(const typename S::params& params,
                                        const scheduler_contract_options& o, contract_report& out) {
    using controller = memory::dram_controller<checked_scheduler<S>, memory::open_page>;
    const memory::dram_timing timing = memory::presets::ddr4_2400;
    const auto mapping = memory::bit_field_mapping::from_order("rorabgbachco", timing);
    typename controller::params p{};
    p.timing = timing;
    p.scheduler.inner = params;
    controller c(mapping, p);
    // Requests to a few rows of a few banks (row hits, conflicts, reads of queued writes),
    // in bursts: the queues fill and refuse, and a refused request is retried with its arrival.
    xoshiro256ss rng(o.seed);
    std::vector<memory::mem_request> requests(o.requests);
    std::uint64_t t = 0;
    for (std::uint64_t k = 0; k < o.requests; ++k) {
        t += rng.below(6);
        memory::dram_address d{};
        d.bank_group = static_cast<std::uint32_t>(rng.below(2));
        d.bank = static_cast<std::uint32_t>(rng.below(2));
        d.row = static_cast<std::uint32_t>(rng.below(o.rows_per_bank));
        d.column = static_cast<std::uint32_t>(rng.below(32));
        requests[k] = {.id = k,
                       .address = mapping.unmap(d),
                       .is_write = rng.below(4) == 0,
                       .arrival_cycle = t};
    }
    std::vector<std::uint64_t> completions;
    const auto sink = [&](const memory::completion& x) {
        completions.push_back(x.id);
        completions.push_back(x.done_cycle);
    };
    const std::uint64_t limit = o.cycles_per_request * std::max<std::uint64_t>(1, o.requests);
    std::size_t next = 0;
    std::uint64_t now = 0;
    while (true) {
        while (next < requests.size() && requests[next].arrival_cycle <= now &&
               c.enqueue(requests[next]) == memory::enqueue_result::accepted)
            ++next;
        c.advance_to(now);
        c.drain(sink);
        if (next == requests.size() && c.pending() == 0) break;
        std::uint64_t to = c.next_event_cycle();
        // A refused request waits for an event (a completion frees its slot).
        if (next < requests.size() && requests[next].arrival_cycle > now)
            to = std::min(to, requests[next].arrival_cycle);
        if (to == never) {
            out.add(
                "MS2", "engine", "MS2: the controller stalled with requests pending",
                "cycle " + std::to_string(now) + ", " + std::to_string(c.pending()) + " pending", 1,
                "when nothing is chosen, wake must name a cycle a choice may become possible");
            break;
        }
        if (to > limit) {
            out.add("MS2", "engine", "MS2: requests were left unserved",
                    std::to_string(c.pending() + (requests.size() - next)) + " of " +
                        std::to_string(o.requests) + " after " + std::to_string(now) + " cycles",
                    1, "every queued request must be chosen eventually");
            break;
        }
        now = std::max(now + 1, to);
    }
    for (const auto& v : c.scheduler(0).found().violations)
        out.add(v.check, v.pass, v.rule, v.first, v.count, v.hint);
    return completions;
}

/// Adds K3 when two runs decided differently.
inline void compare_runs(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                         std::string_view pass, std::string_view what, contract_report& out) {
    if (a == b) return;
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    out.add("K3", pass, "two instances fed the same requests decided differently",
            std::string(what) + " " + std::to_string(i));
}

} // namespace detail

/// Runs the scheduler checks (MS1, MS2, MS4, K3, K7) on scheduler `S` built with `params`.
template <memory::request_scheduler S>
[[nodiscard]] contract_report check_scheduler_contract(const typename S::params& params = {},
                                                       const scheduler_contract_options& o = {}) {
    contract_report report;
    const auto spec = [&](std::string name) {
        const std::string what =
            name == "engine"
                ? "dram_controller on DDR4-2400, " + std::to_string(o.requests) + " requests"
                : std::to_string(o.banks) + " banks, queue of " + std::to_string(o.queue_entries);
        return detail::pass_spec{.name = std::move(name),
                                 .shape = geometry{},
                                 .description = what,
                                 .subject = "scheduler",
                                 .state = "per-bank state",
                                 .runs = 2,
                                 .accesses = o.requests,
                                 .isolate = o.isolate_passes,
                                 .time_limit = o.pass_time_limit_seconds};
    };
    const auto driver_pass = [&]<bool Timed>(std::bool_constant<Timed>, std::string name) {
        detail::run_pass(spec(name), report, [&](contract_report& out, detail::pass_channel&) {
            std::vector<std::uint64_t> decisions[2];
            std::string names[2][2];
            for (int run = 0; run < 2; ++run) {
                auto s = detail::build_scheduler<S>(params, o.banks, name, out);
                if (!s) return;
                names[run][0] = std::string(s->name());
                // The second run adds only kinds the first did not find: counts are one run's.
                contract_report mine;
                decisions[run] = detail::drive_scheduler<S, Timed>(*s, o, name, mine);
                if (run == 0)
                    out.merge(mine);
                else
                    out.merge_new_kinds(mine);
                names[run][1] = std::string(s->name());
                out.accesses += o.requests;
            }
            if (names[0][0].empty())
                out.add("MS4", name, "MS4: name() is empty", "a fresh instance", 1,
                        "return a short stable identifier");
            if (names[0][0] != names[0][1])
                out.add("MS4", name, "MS4: name() changed during a run",
                        "'" + names[0][0] + "' then '" + names[0][1] + "'");
            if (names[0][0] != names[1][0])
                out.add("MS4", name, "MS4: two instances built alike have different names",
                        "'" + names[0][0] + "' and '" + names[1][0] + "'");
            detail::compare_runs(decisions[0], decisions[1], name, "decision", out);
        });
    };
    driver_pass(std::false_type{}, "bank view");
    driver_pass(std::true_type{}, "timed view");
    if (o.engine_pass)
        detail::run_pass(spec("engine"), report, [&](contract_report& out, detail::pass_channel&) {
            std::vector<std::uint64_t> completions[2];
            for (int run = 0; run < 2; ++run) {
                contract_report mine;
                completions[run] = detail::drive_engine<S>(params, o, mine);
                if (run == 0)
                    out.merge(mine);
                else
                    out.merge_new_kinds(mine);
                out.accesses += o.requests;
            }
            detail::compare_runs(completions[0], completions[1], "engine", "completion word", out);
        });
    return report;
}

} // namespace memsub::testing
