// check_scheduler_contract: memsub's schedulers and a minimal archetype pass; for each check a
// deliberately broken scheduler fails it with its label (MS1, MS2, MS4, K3).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/memory/fcfs.hpp>
#include <memsub/memory/fr_fcfs.hpp>
#include <memsub/memory/scheduler_concept.hpp>
#include <memsub/testing/all.hpp>

using namespace memsub;

using testing::check_scheduler_contract;
using testing::contract_report;
using testing::scheduler_contract_options;

namespace {

/// Fewer requests than the default (the suite stays quick); in-process (no crash expected).
scheduler_contract_options quick() {
    return {.requests = 1500, .isolate_passes = false};
}

/// True when `r` has a violation of `check` in `pass` whose rule contains `words`.
bool found(const contract_report& r, std::string_view check, std::string_view pass,
           std::string_view words) {
    for (const auto& v : r.violations)
        if (v.check == check && v.pass == pass && v.rule.find(words) != std::string::npos)
            return true;
    return false;
}

/// The smallest legal scheduler: the oldest ready request, else wait for the first bank.
class oldest_ready {
public:
    struct params {};
    oldest_ready(const params&, std::uint32_t) {}
    template <class View>
    memory::selection select(std::size_t n, const View& v) noexcept {
        std::uint64_t wake = never;
        for (std::size_t i = 0; i < n; ++i) {
            if (v.ready(i)) return {.index = i, .wake = 0};
            wake = std::min(wake, v.ready_at(i));
        }
        return {.index = memory::selection::none, .wake = wake};
    }
    template <class View>
    void on_selected(const View&, std::size_t) noexcept {}
    std::string_view name() const noexcept { return "oldest-ready"; }
};
static_assert(memory::request_scheduler<oldest_ready>);

/// oldest_ready with one fault, chosen by `Fault`.
enum class fault {
    index_n,
    not_ready,
    reads_beyond,
    wake_now,
    wake_never,
    late_wake,
    starves,
    nondeterministic,
    empty_name,
    renames,
    throws
};

// The nondeterministic scheduler's state shared by every instance: decisions made so far.
std::uint64_t decisions_ever = 0;

template <fault F>
class broken {
public:
    struct params {};
    broken(const params&, std::uint32_t banks) {
        if constexpr (F == fault::throws)
            memsub::require(banks <= 4, "broken", "banks", banks, "must be <= 4");
    }
    template <class View>
    memory::selection select(std::size_t n, const View& v) noexcept {
        ++calls_;
        if constexpr (F == fault::index_n) return {.index = n, .wake = 0};
        if constexpr (F == fault::not_ready) {
            for (std::size_t i = 0; i < n; ++i)
                if (!v.ready(i)) return {.index = i, .wake = 0};
        }
        if constexpr (F == fault::reads_beyond) (void)v.ready(n);
        if constexpr (F == fault::nondeterministic) {
            // Now and then the youngest ready request, by a count all instances share: each
            // choice is legal, but a second instance starts from another count.
            if (++decisions_ever % 7 == 0)
                for (std::size_t i = n; i-- > 0;)
                    if (v.ready(i)) return {.index = i, .wake = 0};
        }
        if constexpr (F == fault::starves) {
            // Never serves bank 1.
            std::uint64_t wake = never;
            for (std::size_t i = 0; i < n; ++i) {
                if (v.bank(i) == 1) continue;
                if (v.ready(i)) return {.index = i, .wake = 0};
                wake = std::min(wake, v.ready_at(i));
            }
            return {.index = memory::selection::none, .wake = wake};
        }
        std::uint64_t wake = never;
        for (std::size_t i = 0; i < n; ++i) {
            if (v.ready(i)) return {.index = i, .wake = 0};
            wake = std::min(wake, v.ready_at(i));
        }
        if constexpr (F == fault::wake_now) wake = 0;
        if constexpr (F == fault::wake_never) wake = never;
        if constexpr (F == fault::late_wake) wake += 50;
        return {.index = memory::selection::none, .wake = wake};
    }
    template <class View>
    void on_selected(const View&, std::size_t) noexcept {}
    std::string_view name() const noexcept {
        if constexpr (F == fault::empty_name) return "";
        if constexpr (F == fault::renames) return calls_ == 0 ? "fresh" : "used";
        return "broken";
    }

private:
    std::uint64_t calls_ = 0;
};

} // namespace

TEST_CASE("scheduler contract: fcfs, fr_fcfs (its variants) and a minimal archetype pass") {
    const auto fcfs = check_scheduler_contract<memory::fcfs>({}, quick());
    CHECK_MESSAGE(fcfs.ok(), fcfs.text());
    CHECK(fcfs.passes.size() == 3);
    const auto fr = check_scheduler_contract<memory::fr_fcfs>({}, quick());
    CHECK_MESSAGE(fr.ok(), fr.text());
    const auto rr = check_scheduler_contract<memory::fr_fcfs>(
        {.max_row_hit_bypasses = 2, .round_robin_hits = true, .round_robin_misses = true}, quick());
    CHECK_MESSAGE(rr.ok(), rr.text());
    const auto archetype = check_scheduler_contract<oldest_ready>({}, quick());
    CHECK_MESSAGE(archetype.ok(), archetype.text());
    CHECK(archetype.accesses == 6 * 1500);
}

TEST_CASE("scheduler contract: MS2 — a choice outside the offered requests") {
    const auto beyond = check_scheduler_contract<broken<fault::index_n>>({}, quick());
    CHECK(found(beyond, "MS2", "bank view", "index at or beyond n"));
    CHECK(found(beyond, "MS2", "timed view", "index at or beyond n"));
    CHECK(found(beyond, "MS2", "engine", "index at or beyond n"));
    const auto busy = check_scheduler_contract<broken<fault::not_ready>>({}, quick());
    CHECK(found(busy, "MS2", "bank view", "cannot take a request"));
    CHECK(found(busy, "MS2", "engine", "cannot take a request"));
    const auto reads = check_scheduler_contract<broken<fault::reads_beyond>>({}, quick());
    CHECK(found(reads, "MS2", "bank view", "read an entry at or beyond n"));
}

TEST_CASE("scheduler contract: MS2 — wake must be a later cycle, finite, and a lower bound") {
    CHECK(found(check_scheduler_contract<broken<fault::wake_now>>({}, quick()), "MS2", "bank view",
                "wake is not after the current cycle"));
    const auto never_wakes = check_scheduler_contract<broken<fault::wake_never>>({}, quick());
    CHECK(found(never_wakes, "MS2", "bank view", "wake = never"));
    // memsub's controller also wakes when a bank frees up: the engine pass survives it.
    CHECK(found(check_scheduler_contract<broken<fault::late_wake>>({}, quick()), "MS2",
                "timed view", "not a lower bound"));
}

TEST_CASE("scheduler contract: MS2 — a request never chosen is left unserved") {
    const auto r = check_scheduler_contract<broken<fault::starves>>({}, quick());
    CHECK(found(r, "MS2", "bank view", "left unserved"));
    CHECK((found(r, "MS2", "engine", "left unserved") || found(r, "MS2", "engine", "stalled")));
}

TEST_CASE("scheduler contract: K3 — two instances built alike decide alike") {
    const auto r = check_scheduler_contract<broken<fault::nondeterministic>>({}, quick());
    CHECK(found(r, "K3", "bank view", "decided differently"));
    CHECK(found(r, "K3", "engine", "decided differently"));
    CHECK_FALSE(found(r, "MS2", "bank view", ""));
}

TEST_CASE("scheduler contract: MS4 — a stable, non-empty name") {
    CHECK(found(check_scheduler_contract<broken<fault::empty_name>>({}, quick()), "MS4",
                "bank view", "empty"));
    CHECK(found(check_scheduler_contract<broken<fault::renames>>({}, quick()), "MS4", "bank view",
                "changed during a run"));
}

TEST_CASE("scheduler contract: MS1 — a scheduler that cannot be built for the banks") {
    const auto r = check_scheduler_contract<broken<fault::throws>>({}, quick());
    CHECK(found(r, "MS1", "bank view", "threw"));
    CHECK_FALSE(r.violations.front().hint.empty());
    scheduler_contract_options four = quick();
    four.banks = 4;
    four.engine_pass = false; // DDR4-2400 has 16 banks
    const auto fits = check_scheduler_contract<broken<fault::throws>>({}, four);
    CHECK_MESSAGE(fits.ok(), fits.text());
}
