// check_cta_contract: memsub's CTA schedulers and a minimal one pass; for every check a
// scheduler broken in that one way fails with the check's label and the rule's.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/cta/all.hpp>
#include <memsub/testing/all.hpp>

#include "contract_report_checks.hpp"

using namespace memsub;

namespace {

/// The ways a scheduler can break one rule each.
enum class flaw {
    none,
    full_slot,         // CT3: dispatch fills an SM past its slots
    sm_range,          // CT3: dispatch names SM sms()
    cta_range,         // CT3/CT4: CTA ids 1 … ctas
    twice,             // CTP2: next_cta hands out an id again
    full_next,         // CT4: next_cta serves a full SM
    wrong_module,      // CTP1: module = sm mod modules
    stuck,             // CTP2: the last CTA is never offered
    unstarted_wrong,   // CT6
    running_wrong,     // CT6
    running_on_wrong,  // CT6
    finished_wrong,    // CT6
    ignored_uncounted, // CT5
    started_wrong,     // CT6: stats().started
    no_config_error,   // CT2
    no_logic_error,    // CT2
    nondeterministic,  // CTP3: a counter shared by every instance picks the first SM
    throws,            // K7
};

inline std::uint32_t shared_counter = 0;

/// Centralised first-come first-served: the next CTA in order to the first SM (from a
/// rotating cursor) with a free slot. With `flaw::none`, the smallest correct cta_scheduler.
template <flaw F>
class toy_scheduler {
public:
    struct params {
        std::uint32_t modules = 2;
        std::uint32_t sms_per_module = 4;
    };
    explicit toy_scheduler(const params& p) : p_(p), resident_(p.modules * p.sms_per_module, 0) {}

    void launch(const cta::kernel_launch& k) {
        if (F != flaw::no_config_error)
            memsub::require(k.max_ctas_per_sm >= 1, "toy", "max_ctas_per_sm", k.max_ctas_per_sm,
                            "must be at least 1");
        if (F != flaw::no_logic_error && running_ != 0)
            throw std::logic_error("toy: launch while CTAs run");
        if (F == flaw::throws && ++launches_ == 5) throw std::runtime_error("toy: out of ids");
        k_ = k;
        next_ = 0;
    }
    std::optional<cta::cta_assignment> dispatch() noexcept {
        if (F == flaw::nondeterministic) cursor_ = shared_counter++ % sms();
        for (std::uint32_t i = 0; i < sms(); ++i) {
            const std::uint32_t sm = (cursor_ + i) % sms();
            const bool room = F == flaw::full_slot ? resident_[sm] <= k_.max_ctas_per_sm
                                                   : resident_[sm] < k_.max_ctas_per_sm;
            if (room && offer()) {
                cursor_ = (sm + 1) % sms();
                const std::uint32_t cta = start(sm);
                const std::uint32_t named = F == flaw::sm_range && cta == 7 ? sms() : sm;
                return cta::cta_assignment{
                    .cta = cta,
                    .sm = named,
                    .module = F == flaw::wrong_module ? sm % p_.modules : sm / p_.sms_per_module};
            }
        }
        return std::nullopt;
    }
    std::uint32_t next_cta(std::uint32_t sm) noexcept {
        if (sm >= sms() || !offer()) return cta::no_cta;
        if (F != flaw::full_next && resident_[sm] >= k_.max_ctas_per_sm) return cta::no_cta;
        if (F == flaw::twice && next_ == 5) {
            ++resident_[sm], ++running_, ++started_;
            return 4; // CTA 4 again
        }
        return start(sm);
    }
    void on_cta_complete(std::uint32_t sm) noexcept {
        if (sm >= sms() || resident_[sm] == 0) {
            if (F != flaw::ignored_uncounted) ++stats_.ignored_completions;
            return;
        }
        --resident_[sm];
        --running_;
    }

    std::uint32_t modules() const noexcept { return p_.modules; }
    std::uint32_t sms() const noexcept { return p_.modules * p_.sms_per_module; }
    std::uint32_t unstarted() const noexcept {
        return k_.ctas - next_ + (F == flaw::unstarted_wrong && next_ > 3 ? 1 : 0);
    }
    std::uint32_t running() const noexcept {
        return running_ + (F == flaw::running_wrong && running_ > 9 ? 1 : 0);
    }
    std::uint32_t running_on(std::uint32_t sm) const noexcept {
        if (sm >= sms()) return 0;
        return resident_[sm] + (F == flaw::running_on_wrong && sm == 3 && resident_[sm] > 1);
    }
    bool finished() const noexcept {
        return F == flaw::finished_wrong ? next_ == k_.ctas : next_ == k_.ctas && running_ == 0;
    }
    const cta::cta_stats& stats() const noexcept {
        stats_.started = F == flaw::started_wrong ? started_ / 2 : started_;
        return stats_;
    }
    std::string_view name() const noexcept { return "toy"; }

private:
    bool offer() const noexcept { return next_ + (F == flaw::stuck ? 1 : 0) < k_.ctas; }
    std::uint32_t start(std::uint32_t sm) noexcept {
        ++resident_[sm];
        ++running_;
        ++started_;
        return next_++ + (F == flaw::cta_range ? 1 : 0);
    }

    params p_;
    std::vector<std::uint32_t> resident_;
    cta::kernel_launch k_{};
    std::uint32_t next_ = 0, running_ = 0, cursor_ = 0, launches_ = 0;
    std::uint64_t started_ = 0;
    mutable cta::cta_stats stats_{};
};
static_assert(cta::cta_scheduler<toy_scheduler<flaw::none>>);

template <class S>
testing::contract_report check(const typename S::params& p = {}) {
    testing::cta_contract_options o;
    o.launches = 12;
    o.max_ctas = 200;
    return testing::check_cta_contract<S>(p, o);
}

using memsub_test::fails_with;

} // namespace

TEST_CASE("cta contract: memsub's CTA schedulers pass") {
    const auto pass = [](const testing::contract_report& r) {
        memsub_test::check_clean_pass(r, 2);
        INFO(r.text());
        CHECK(r.notes.empty());
    };
    using namespace cta;
    pass(check<centralized_round_robin>({.modules = 4, .sms_per_module = 8}));
    pass(check<centralized_round_robin>({.modules = 3, .sms_per_module = 5}));
    pass(check<fine_grain_round_robin>({.modules = 4, .sms_per_module = 8}));
    pass(check<contiguous_batches>({.modules = 4, .sms_per_module = 8}));
    pass(check<contiguous_batches>({.modules = 3, .sms_per_module = 7}));
    pass(check<batches_with_stealing>({.modules = 4, .sms_per_module = 8}));
    pass(check<batches_with_stealing>(
        {.modules = 3, .sms_per_module = 4, .steal_ctas = 3, .steal_on_free_slot = true}));
    pass(check<adaptive_batches>({.modules = 4, .sms_per_module = 8}));
    pass(check<adaptive_batches>({.modules = 2, .sms_per_module = 3, .min_group_ctas = 1}));
    pass(testing::check_cta_contract<contiguous_batches>()); // defaults: 4 × 64 SMs
}

TEST_CASE("cta contract: a minimal scheduler passes") {
    const auto r = check<toy_scheduler<flaw::none>>();
    INFO(r.text());
    CHECK(r.ok());
    CHECK(r.accesses > 0);
}

TEST_CASE("cta contract: each broken scheduler fails with its label") {
    CHECK(fails_with(check<toy_scheduler<flaw::full_slot>>(), "K2", "CT3: dispatch started"));
    CHECK(fails_with(check<toy_scheduler<flaw::sm_range>>(), "K2", "CT3: dispatch named"));
    CHECK(fails_with(check<toy_scheduler<flaw::cta_range>>(), "K2", "CT"));
    CHECK(
        fails_with(check<toy_scheduler<flaw::twice>>(), "K1", "CTP2: a CTA id was started twice"));
    CHECK(fails_with(check<toy_scheduler<flaw::full_next>>(), "K2", "CT4: next_cta gave"));
    CHECK(fails_with(check<toy_scheduler<flaw::wrong_module>>(), "K1", "CTP1"));
    CHECK(fails_with(check<toy_scheduler<flaw::stuck>>(), "K1", "CTP2: with every SM idle"));
    CHECK(fails_with(check<toy_scheduler<flaw::unstarted_wrong>>(), "K1", "CT6: unstarted()"));
    CHECK(fails_with(check<toy_scheduler<flaw::running_wrong>>(), "K1", "CT6: running()"));
    CHECK(fails_with(check<toy_scheduler<flaw::running_on_wrong>>(), "K1", "CT6: running_on"));
    CHECK(fails_with(check<toy_scheduler<flaw::finished_wrong>>(), "K1", "CT6: finished()"));
    CHECK(fails_with(check<toy_scheduler<flaw::ignored_uncounted>>(), "K1", "CT5"));
    CHECK(fails_with(check<toy_scheduler<flaw::started_wrong>>(), "K1", "CT6: stats().started"));
    CHECK(fails_with(check<toy_scheduler<flaw::no_config_error>>(), "K1", "CT2: a launch with"));
    CHECK(fails_with(check<toy_scheduler<flaw::no_logic_error>>(), "K1", "CT2: a launch while"));
    CHECK(fails_with(check<toy_scheduler<flaw::nondeterministic>>(), "K3", "CTP3"));
    const auto threw = check<toy_scheduler<flaw::throws>>();
    CHECK(fails_with(threw, "K7", "the pass threw"));
    CHECK(threw.passes[0].status == testing::pass_status::threw);
}
