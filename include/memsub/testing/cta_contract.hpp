// memsub::testing — the contract check of a CTA scheduler (cta/concept.hpp):
//
//   auto report = memsub::testing::check_cta_contract<my_scheduler>({.modules = 4,
//                                                                    .sms_per_module = 8});
//   if (!report.ok()) std::fputs(report.text().c_str(), stderr);
//
// The check is a reference host. It launches a seeded random series of kernels (grid sizes
// from 0 to `max_ctas`, occupancies from 1 to `max_ctas_per_sm`, a few kernel ids launched
// again and again so a scheduler that learns between launches of a kernel does), and runs each
// to its end as a GPU does: SMs with room ask for CTAs — by `dispatch()` until nullopt (a
// scheduler-driven host), by `next_cta(sm)` for each SM with a free slot (an SM-driven host),
// or both mixed, one mode per launch — and running CTAs complete in a random order
// (`on_cta_complete`), with now and then a completion on an SM that runs nothing (CT5). It
// mirrors what the scheduler started (per-SM resident counts, every CTA id started) and checks
// each answer against the mirror. Pass "launches": two instances alike, fed the same calls;
// pass "launch rules": a third instance, for CT2's errors.
// Labels (the contract checks K1–K8 of testing/contract.hpp, here on a CTA scheduler):
//   K1. the protocol and the observers: CTP1 (an assignment's module is sm / sms_per_module),
//       CTP2 (every CTA id of a kernel starts exactly once, and the kernel can finish: with
//       every SM idle and CTAs unstarted, some SM is offered one), CT2 (a launch with
//       max_ctas_per_sm 0 throws config_error, a launch while CTAs run throws
//       std::logic_error), CT5 (a completion on an idle SM is counted in
//       stats().ignored_completions), CT6 (modules(), sms(), unstarted(), running(),
//       running_on(sm), finished() and stats().started agree with the host's count);
//   K2. every pick is among those offered: CT3 (dispatch names an SM below sms() that had a
//       free slot, and a CTA id below the kernel's grid) and CT4 (next_cta gives a full SM no
//       CTA, and a CTA id below the grid);
//   K3. determinism (CTP3): the two instances decide alike, answer by answer;
//   K7. the passes run to completion (an exception is reported with its message).
// Not checked: CTP4 (no allocation on launch / dispatch / next_cta / on_cta_complete: count
// allocations in your own test with a replaced global operator new; a header cannot replace it).
// Decision: the passes run in-process, not in a child process as the cache checks' passes do:
// their isolation reports a crash in terms of cache geometry (sets, ways, entries per set),
// which a scheduler does not have; an exception is still caught and reported as K7.
// The concept has no optional member, and simt::gto_scheduler (which runs a scheduler in the
// SIMT workloads and in mcm_explorer's streams) reads only the concept's: the report has no
// notes.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/cta/concept.hpp>
#include <memsub/testing/contract_report.hpp>

namespace memsub::testing {

struct cta_contract_options {
    /// Kernel launches per instance.
    std::uint32_t launches = 24;
    /// Grid sizes are drawn in 0 … max_ctas.
    std::uint32_t max_ctas = 600;
    /// Occupancies (kernel_launch::max_ctas_per_sm) are drawn in 1 … max_ctas_per_sm.
    std::uint32_t max_ctas_per_sm = 4;
    /// Distinct kernel ids the launches draw from (each is launched several times).
    std::uint32_t kernels = 3;
    std::uint64_t seed = 1;
};

namespace detail {

/// The reference host of one instance: runs the launches, checks every answer into `out` (if
/// not null) and returns the decisions for K3.
template <cta::cta_scheduler S>
class cta_host {
public:
    cta_host(S& s, const cta_contract_options& o, contract_report* out)
        : s_(s)
        , o_(o)
        , out_(out)
        , rng_(o.seed)
        , sms_(s.sms())
        , modules_(s.modules())
        , per_module_(modules_ == 0 ? 0 : sms_ / modules_)
        , resident_(sms_, 0) {}

    std::vector<std::uint64_t> run() {
        for (std::uint32_t l = 0; l < o_.launches; ++l) launch_one(l);
        return std::move(log_);
    }

private:
    static constexpr std::string_view pass = "launches";

    void add(std::string_view check, std::string_view rule, const std::string& at) {
        if (out_ != nullptr) out_->add(check, pass, rule, at);
    }
    [[nodiscard]] std::string where() const {
        return "launch " + std::to_string(launch_) + " (" + std::to_string(ctas_) + " CTAs, " +
               std::to_string(max_per_sm_) + " per SM), call " + std::to_string(calls_);
    }

    void launch_one(std::uint32_t l) {
        launch_ = l;
        ctas_ = static_cast<std::uint32_t>(rng_.below(std::uint64_t{o_.max_ctas} + 1));
        max_per_sm_ = 1 + static_cast<std::uint32_t>(rng_.below(o_.max_ctas_per_sm));
        const std::uint64_t kernel = rng_.below(o_.kernels == 0 ? 1 : o_.kernels);
        const auto mode = static_cast<std::uint32_t>(rng_.below(3)); // dispatch, next_cta, mixed
        s_.launch(
            cta::kernel_launch{.ctas = ctas_, .max_ctas_per_sm = max_per_sm_, .kernel_id = kernel});
        started_.assign(ctas_, false);
        unstarted_ = ctas_;
        running_.clear();
        log_.push_back(0xffffffff00000000ULL | l);
        observe();
        const std::uint64_t budget = 4 * (std::uint64_t{ctas_} + 1) + 64;
        for (std::uint64_t round = 0; round < budget; ++round) {
            start_phase(mode);
            if (unstarted_ != 0 && running_.empty()) {
                add("K1",
                    "CTP2: with every SM idle and CTAs unstarted, no SM was offered a CTA (the "
                    "kernel can never finish)",
                    where() + ", " + std::to_string(unstarted_) + " CTAs unstarted");
                break;
            }
            if (running_.empty()) break;
            complete_phase();
        }
        // The kernel is over (or given up): drain what still runs so the next launch is legal.
        while (!running_.empty()) complete(rng_.below(running_.size()));
        if (unstarted_ == 0) {
            if (!s_.finished())
                add("K1", "CT6: finished() is false after every CTA started and completed",
                    where());
        }
        for (std::uint32_t sm = 0; sm < sms_; ++sm)
            if (s_.running_on(sm) != 0) {
                add("K1", "CT6: running_on(sm) is not 0 after every CTA completed",
                    where() + ", SM " + std::to_string(sm));
                break;
            }
        if (s_.stats().started != total_started_)
            add("K1", "CT6: stats().started differs from the CTAs the scheduler started",
                where() + ": " + std::to_string(s_.stats().started) + ", the host counted " +
                    std::to_string(total_started_));
        if (s_.stats().ignored_completions != ignored_)
            add("K1",
                "CT5: a completion on an SM with nothing running was not counted in "
                "stats().ignored_completions",
                where() + ": " + std::to_string(s_.stats().ignored_completions) +
                    ", the host sent " + std::to_string(ignored_));
    }

    /// SMs with room ask for CTAs, in the launch's mode.
    void start_phase(std::uint32_t mode) {
        const bool by_dispatch = mode == 0 || (mode == 2 && rng_.below(2) == 0);
        if (by_dispatch) {
            // A correct scheduler answers nullopt after at most sms × max_per_sm CTAs.
            const std::uint64_t limit = std::uint64_t{sms_} * max_per_sm_ + 1;
            for (std::uint64_t k = 0; k < limit; ++k) {
                ++calls_;
                const std::optional<cta::cta_assignment> a = s_.dispatch();
                log_.push_back(a ? (std::uint64_t{a->cta} << 32 | a->sm) : ~std::uint64_t{0});
                if (!a) break;
                if (a->sm >= sms_) {
                    add("K2", "CT3: dispatch named an SM not below sms()",
                        where() + ": SM " + std::to_string(a->sm));
                    break; // nothing of the host's can hold it
                }
                if (resident_[a->sm] >= max_per_sm_)
                    add("K2", "CT3: dispatch started a CTA on an SM with no free slot",
                        where() + ": SM " + std::to_string(a->sm) + " runs " +
                            std::to_string(resident_[a->sm]));
                if (per_module_ != 0 && a->module != a->sm / per_module_)
                    add("K1", "CTP1: the assignment's module is not sm / sms_per_module",
                        where() + ": SM " + std::to_string(a->sm) + ", module " +
                            std::to_string(a->module));
                started(a->cta, a->sm, "CT3: dispatch");
            }
        } else {
            // Each SM with a free slot asks until it is full or told no; one full SM asks too.
            const std::uint32_t first = static_cast<std::uint32_t>(rng_.below(sms_));
            for (std::uint32_t k = 0; k < sms_; ++k) {
                const std::uint32_t sm = (first + k) % sms_;
                while (resident_[sm] < max_per_sm_) {
                    ++calls_;
                    const std::uint32_t cta = s_.next_cta(sm);
                    log_.push_back(std::uint64_t{cta} << 32 | sm);
                    if (cta == cta::no_cta) break;
                    started(cta, sm, "CT4: next_cta");
                }
            }
            const std::uint32_t sm = first;
            if (resident_[sm] >= max_per_sm_) {
                ++calls_;
                const std::uint32_t cta = s_.next_cta(sm);
                log_.push_back(std::uint64_t{cta} << 32 | sm);
                if (cta != cta::no_cta) {
                    add("K2", "CT4: next_cta gave a CTA to an SM whose slots were full",
                        where() + ": SM " + std::to_string(sm) + ", CTA " + std::to_string(cta));
                    started(cta, sm, "CT4: next_cta");
                }
            }
        }
        observe();
    }

    /// The scheduler started `cta` on `sm` (it now runs there, whatever the checks say).
    void started(std::uint32_t cta, std::uint32_t sm, std::string_view who) {
        ++total_started_;
        ++resident_[sm];
        running_.emplace_back(cta, sm);
        const std::string at =
            where() + ": CTA " + std::to_string(cta) + " on SM " + std::to_string(sm);
        if (cta >= ctas_) {
            add("K2", std::string(who) + "'s CTA id is not below the kernel's ctas", at);
        } else if (started_[cta]) {
            add("K1", "CTP2: a CTA id was started twice", at + " (" + std::string(who) + ")");
        } else {
            started_[cta] = true;
            --unstarted_;
        }
        if (s_.running_on(sm) != resident_[sm])
            add("K1", "CT6: running_on(sm) differs from the CTAs started there and not completed",
                at + ": running_on says " + std::to_string(s_.running_on(sm)) +
                    ", the host counts " + std::to_string(resident_[sm]));
    }

    /// A random share of the running CTAs complete; now and then an idle SM reports one too.
    void complete_phase() {
        const std::uint64_t n = 1 + rng_.below(running_.size());
        for (std::uint64_t k = 0; k < n && !running_.empty(); ++k)
            complete(rng_.below(running_.size()));
        if (rng_.below(8) == 0) {
            const auto sm = static_cast<std::uint32_t>(rng_.below(sms_));
            if (resident_[sm] == 0) {
                ++calls_;
                s_.on_cta_complete(sm);
                ++ignored_;
            }
        }
        observe();
    }

    void complete(std::uint64_t i) {
        const std::uint32_t sm = running_[i].second;
        running_[i] = running_.back();
        running_.pop_back();
        --resident_[sm];
        ++calls_;
        s_.on_cta_complete(sm);
        if (s_.running_on(sm) != resident_[sm])
            add("K1", "CT6: running_on(sm) differs from the CTAs started there and not completed",
                where() + ": after a completion on SM " + std::to_string(sm) + ", running_on " +
                    std::to_string(s_.running_on(sm)) + ", the host counts " +
                    std::to_string(resident_[sm]));
    }

    /// CT6's counters against the mirror.
    void observe() {
        if (s_.unstarted() != unstarted_)
            add("K1", "CT6: unstarted() differs from the CTAs not yet started",
                where() + ": " + std::to_string(s_.unstarted()) + ", the host counts " +
                    std::to_string(unstarted_));
        if (s_.running() != running_.size())
            add("K1", "CT6: running() differs from the CTAs started and not completed",
                where() + ": " + std::to_string(s_.running()) + ", the host counts " +
                    std::to_string(running_.size()));
        if (s_.finished() != (unstarted_ == 0 && running_.empty()))
            add("K1", "CT6: finished() is not (nothing unstarted and nothing running)",
                where() + ": finished() = " + std::to_string(s_.finished()));
    }

    S& s_;
    const cta_contract_options& o_;
    contract_report* out_;
    xoshiro256ss rng_;
    std::uint32_t sms_, modules_, per_module_;
    std::vector<std::uint32_t> resident_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> running_; // (cta, sm)
    std::vector<bool> started_;
    std::vector<std::uint64_t> log_;
    std::uint32_t launch_ = 0, ctas_ = 0, max_per_sm_ = 1, unstarted_ = 0;
    std::uint64_t calls_ = 0, total_started_ = 0, ignored_ = 0;
};

template <class S>
concept cta_params_shape = requires(const typename S::params& p) {
    { p.modules } -> std::convertible_to<std::uint32_t>;
    { p.sms_per_module } -> std::convertible_to<std::uint32_t>;
};

template <cta::cta_scheduler S>
void cta_launches_pass(const typename S::params& params, const cta_contract_options& o,
                       contract_report& out) {
    const std::string_view pass = "launches";
    S a(params), b(params);
    const std::uint32_t modules = a.modules(), sms = a.sms();
    if (modules == 0 || sms == 0 || sms % modules != 0) {
        out.add("K1", pass, "CT6: sms() must be a positive multiple of modules() (CTP1)",
                std::to_string(sms) + " SMs, " + std::to_string(modules) + " modules");
        return;
    }
    if constexpr (cta_params_shape<S>)
        if (modules != params.modules || sms != params.modules * params.sms_per_module)
            out.add("K1", pass, "CT6: modules() and sms() differ from the params' machine shape",
                    std::to_string(modules) + " modules, " + std::to_string(sms) + " SMs; params " +
                        std::to_string(params.modules) + " × " +
                        std::to_string(params.sms_per_module));
    const std::vector<std::uint64_t> checked = cta_host<S>(a, o, &out).run();
    const std::vector<std::uint64_t> twin = cta_host<S>(b, o, nullptr).run();
    if (checked != twin) {
        std::size_t i = 0;
        while (i < checked.size() && i < twin.size() && checked[i] == twin[i]) ++i;
        out.add("K3", pass, "CTP3: two instances fed the same calls decided differently",
                "answer " + std::to_string(i));
    }
    out.accesses += 2 * o.launches; // the report's "accesses" of this family are launches
}

template <cta::cta_scheduler S>
void cta_launch_rules_pass(const typename S::params& params, contract_report& out) {
    const std::string_view pass = "launch rules";
    S s(params);
    bool threw = false;
    try {
        s.launch(cta::kernel_launch{.ctas = 10, .max_ctas_per_sm = 0});
    } catch (const config_error&) {
        threw = true;
    }
    if (!threw)
        out.add("K1", pass, "CT2: a launch with max_ctas_per_sm 0 did not throw config_error",
                "launch of 10 CTAs");
    S t(params);
    t.launch(cta::kernel_launch{.ctas = 4 * t.sms(), .max_ctas_per_sm = 2});
    if (!t.dispatch()) return; // a scheduler with nothing to start at once: K1 CTP2 elsewhere
    threw = false;
    try {
        t.launch(cta::kernel_launch{.ctas = 10, .max_ctas_per_sm = 2});
    } catch (const std::logic_error&) {
        threw = true;
    }
    if (!threw)
        out.add("K1", pass,
                "CT2: a launch while CTAs of the previous kernel run did not throw "
                "std::logic_error",
                "a second launch with 1 CTA running");
}

template <class Body>
void run_cta_pass(std::string_view name, std::uint32_t runs, contract_report& report, Body&& body) {
    contract_report r;
    contract_pass pass{
        .name = std::string(name), .description = "seeded kernel launches", .runs = runs};
    try {
        body(r);
    } catch (const std::exception& e) {
        pass.status = pass_status::threw;
        r.add("K7", name, "the pass threw an exception", e.what());
    } catch (...) {
        pass.status = pass_status::threw;
        r.add("K7", name, "the pass threw an exception", "not derived from std::exception");
    }
    pass.accesses = r.accesses;
    report.merge(r);
    report.passes.push_back(pass);
}

} // namespace detail

/// Runs K1–K3 and K7 for CTA scheduler `S` (constructed with `params`) and returns what it found.
template <cta::cta_scheduler S>
[[nodiscard]] contract_report check_cta_contract(const typename S::params& params = {},
                                                 const cta_contract_options& o = {}) {
    contract_report report;
    detail::run_cta_pass("launches", 2, report,
                         [&](contract_report& r) { detail::cta_launches_pass<S>(params, o, r); });
    detail::run_cta_pass("launch rules", 2, report,
                         [&](contract_report& r) { detail::cta_launch_rules_pass<S>(params, r); });
    return report;
}

} // namespace memsub::testing
