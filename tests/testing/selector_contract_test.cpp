// check_selector_contract: memsub's mode selectors and a minimal archetype pass; for each check
// a deliberately broken selector fails it with its label (SE2, SE3, SE5, SO2, SO3, K3, K6).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/selection/all.hpp>
#include <memsub/testing/all.hpp>

using namespace memsub;
using selection::access_outcome;
using selection::selection_shape;
using testing::check_selector_contract;
using testing::contract_report;
using testing::selector_contract_options;

namespace {

selector_contract_options quick() {
    return {.accesses = 8000, .isolate_passes = false};
}

bool found(const contract_report& r, std::string_view check, std::string_view words) {
    for (const auto& v : r.violations)
        if (v.check == check && v.rule.find(words) != std::string::npos) return true;
    return false;
}

/// The smallest legal selector: every line in mode 1 while the last 16 fills were hit at least
/// as often as missed, else mode 0.
class hit_vote {
public:
    struct params {};
    hit_vote(const selection_shape&, const params&) {}
    std::uint32_t insertion_mode(set_index) const noexcept { return votes_ >= 0 ? 1u : 0u; }
    void on_access(const access_outcome& o) noexcept {
        if (o.is_hit() && votes_ < 16) ++votes_;
        if (o.is_fill() && votes_ > -16) --votes_;
    }
    std::string_view name() const noexcept { return "hit-vote"; }
    std::uint64_t storage_bits() const noexcept { return 6; }

private:
    int votes_ = 0;
};
static_assert(selection::diagnose_mode_selector<hit_vote>());

enum class fault {
    mode_too_high,
    ignores_mask,
    nondeterministic,
    storage_grows,
    empty_name,
    throws,
    bad_compressed_mode,
    no_storage
};

std::uint64_t fills_ever = 0; // shared by every instance of the nondeterministic selector

template <fault F>
class broken {
public:
    struct params {};
    static constexpr bool needs_stack_depth = F == fault::bad_compressed_mode;
    broken(const selection_shape& shape, const params&) : modes_(shape.modes.size()) {
        if constexpr (F == fault::throws)
            memsub::require(shape.sets <= 16, "broken", "sets", shape.sets, "must be <= 16");
    }
    std::uint32_t insertion_mode(set_index s) const noexcept {
        if constexpr (F == fault::mode_too_high) return s.value == 5 ? modes_ : 1u;
        if constexpr (F == fault::ignores_mask) return 2;
        if constexpr (F == fault::nondeterministic) return fills_ever % 5 == 0 ? 2u : 1u;
        return 1;
    }
    void on_access(const access_outcome& o) noexcept {
        if (o.is_fill()) ++fills_ever;
        ++accesses_;
    }
    std::string_view name() const noexcept { return F == fault::empty_name ? "" : "broken"; }
    std::uint64_t storage_bits() const noexcept requires(F != fault::no_storage) {
        return F == fault::storage_grows ? accesses_ : 8;
    }
    // SO2, ignored.
    void set_allowed_modes(std::uint32_t) noexcept {}
    std::uint64_t decisions() const noexcept { return accesses_ / 256; }
    std::uint32_t compressed_mode() const noexcept { return 7; }

private:
    std::uint32_t modes_;
    std::uint64_t accesses_ = 0;
};

} // namespace

TEST_CASE("selector contract: memsub's selectors and a minimal archetype pass") {
    const auto latte = check_selector_contract<selection::latte_cc>({}, quick());
    CHECK_MESSAGE(latte.ok(), latte.text());
    CHECK(latte.notes.empty());
    const auto ahc = check_selector_contract<selection::adaptive_hit_count>({}, quick());
    CHECK_MESSAGE(ahc.ok(), ahc.text());
    const auto cmp = check_selector_contract<selection::adaptive_cmp>({}, quick());
    CHECK_MESSAGE(cmp.ok(), cmp.text());
    const auto fixed = check_selector_contract<selection::static_mode>({.mode = 2}, quick());
    CHECK_MESSAGE(fixed.ok(), fixed.text());
    const auto archetype = check_selector_contract<hit_vote>({}, quick());
    CHECK_MESSAGE(archetype.ok(), archetype.text());
    CHECK(archetype.accesses == 2 * 8000);
    CHECK(archetype.passes.size() == 1);
}

TEST_CASE("selector contract: SE3 — a mode the cache does not have") {
    CHECK(found(check_selector_contract<broken<fault::mode_too_high>>({}, quick()), "SE3",
                "does not have"));
}

TEST_CASE("selector contract: SO2 — allowed modes are honoured by the followers") {
    const auto r = check_selector_contract<broken<fault::ignores_mask>>({}, quick());
    CHECK(found(r, "SO2", "disallowed mode"));
    // static_mode{2} has no SO2 hook: nothing to check.
    CHECK_FALSE(
        found(check_selector_contract<selection::static_mode>({.mode = 2}, quick()), "SO2", ""));
}

TEST_CASE("selector contract: K3 and K6 — determinism and a fixed budget") {
    CHECK(found(check_selector_contract<broken<fault::nondeterministic>>({}, quick()), "K3",
                "different modes"));
    CHECK(found(check_selector_contract<broken<fault::storage_grows>>({}, quick()), "K6",
                "changed during a run"));
}

TEST_CASE("selector contract: SE5, SE2 and SO3") {
    CHECK(found(check_selector_contract<broken<fault::empty_name>>({}, quick()), "SE5", "empty"));
    const auto r = check_selector_contract<broken<fault::throws>>({}, quick());
    CHECK(found(r, "SE2", "threw"));
    selector_contract_options small = quick();
    small.shape.sets = 16;
    CHECK_FALSE(found(check_selector_contract<broken<fault::throws>>({}, small), "SE2", ""));
    CHECK(found(check_selector_contract<broken<fault::bad_compressed_mode>>({}, quick()), "SO3",
                "compressed_mode"));
}

TEST_CASE("selector contract: a note when storage_bits() is missing") {
    const auto r = check_selector_contract<broken<fault::no_storage>>({}, quick());
    REQUIRE(r.notes.size() == 1);
    CHECK(r.notes[0].starts_with("SO4"));
    CHECK(check_selector_contract<broken<fault::storage_grows>>({}, quick()).notes.empty());
}
