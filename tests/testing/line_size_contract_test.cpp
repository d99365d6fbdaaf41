// check_line_size_contract: memsub's line-size predictors, the archetype and a learning
// predictor pass; for each rule it checks, a predictor broken in exactly that way is reported
// under the rule's label.
#include <doctest/doctest.h>

#include <bit>
#include <csignal>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/linesize/all.hpp>
#include <memsub/testing/all.hpp>

using namespace memsub;

namespace {

/// The one thing a test predictor gets wrong.
enum class flaw {
    none,
    not_power_of_two,     // LP2: 96 B
    below_segment,        // LP2: 16 B in a cache of 32 B segments
    above_line,           // LP2: 256 B in a cache of 128 B lines
    unchecked_geometry,   // LS2/LP2: builds for any geometry, answers 32 B in all of them
    wants_64_byte_lines,  // LS2: refuses the check's main shape
    throws_runtime_error, // LS2
    empty_name,           // LS4
    instance_dependent,   // K3: the second instance built starts with another size
    growing_storage,      // K6: storage_bits() counts departures
    throws_on_divergence, // K7: a throw from the noexcept block_bytes
};

int instances_built = 0; // for flaw::instance_dependent

/// A learning predictor (one size per 4 KB region, from the spatial use of the region's
/// departing blocks: all segments used -> larger, at most half -> smaller) — and `F`.
template <flaw F = flaw::none>
class region_sizer {
public:
    struct params {
        std::uint32_t entries = 64;
    };
    region_sizer(const geometry& g, const params& p)
        : segment_(g.segment_size())
        , largest_(static_cast<std::uint8_t>(std::countr_zero(g.line_bytes / g.segment_size())))
        , table_(p.entries, largest_)
        , serial_(instances_built++) {
        memsub::require(std::has_single_bit(p.entries), "region_sizer", "entries", p.entries,
                        "must be a power of two");
        if constexpr (F == flaw::wants_64_byte_lines)
            memsub::require(g.line_bytes == 64, "region_sizer", "line_bytes", g.line_bytes,
                            "must be 64");
        if constexpr (F == flaw::throws_runtime_error)
            if (g.segment_size() == 64) throw std::runtime_error("64 B segments");
        if constexpr (F == flaw::instance_dependent)
            if (serial_ % 2 == 1) table_.assign(table_.size(), 0);
    }
    std::uint32_t block_bytes(set_index, const memsub::access& a) noexcept {
        if constexpr (F == flaw::not_power_of_two) return 96;
        if constexpr (F == flaw::below_segment) return 16;
        if constexpr (F == flaw::above_line) return 256;
        if constexpr (F == flaw::unchecked_geometry) return 32;
        if constexpr (F == flaw::throws_on_divergence)
            if (a.divergence > 30) return table_.at(table_.size()); // std::out_of_range
        return segment_ << table_[slot(a.address)];
    }
    void on_evict(set_index, entry_index, const memsub::evicted_block& b) noexcept {
        if constexpr (F == flaw::growing_storage) ++departures_;
        auto& k = table_[slot(b.address)];
        const int used = std::popcount(b.touched_segments);
        const auto span = static_cast<int>(b.bytes / segment_);
        if (used == span && k < largest_)
            ++k;
        else if (2 * used <= span && k > 0)
            --k;
    }
    std::uint64_t storage_bits() const noexcept {
        return table_.size() * std::bit_width(largest_) + departures_;
    }
    std::string_view name() const noexcept { return F == flaw::empty_name ? "" : "region"; }

private:
    std::size_t slot(byte_address a) const noexcept { return (a.value >> 12) % table_.size(); }
    std::uint32_t segment_;
    std::uint8_t largest_;
    std::vector<std::uint8_t> table_;
    int serial_;
    std::uint64_t departures_ = 0;
};

static_assert(linesize::line_size_predictor<region_sizer<>>);
static_assert(linesize::observes_evictions<region_sizer<>>);

testing::line_size_contract_options quick() {
    testing::line_size_contract_options o;
    o.accesses = 6000;
    return o;
}

/// Passes, with `built` passes completed and `notes` notes.
template <class S>
void check_passes(std::size_t built, std::size_t notes, const typename S::params& p = {}) {
    const auto rep = testing::check_line_size_contract<S>(p, quick());
    INFO(rep.text());
    CHECK(rep.ok());
    CHECK(rep.passes.size() == built);
    for (const auto& pass : rep.passes) CHECK(pass.status == testing::pass_status::completed);
    CHECK(rep.notes.size() == notes);
    CHECK(rep.misses > 0);
}

/// The first violation kind the check finds in `region_sizer<F>` is labelled `label` in pass
/// `pass`, and its rule starts with `rule`.
template <flaw F>
void check_reported(std::string_view label, std::string_view pass, std::string_view rule) {
    const auto rep = testing::check_line_size_contract<region_sizer<F>>({}, quick());
    INFO(rep.text());
    CHECK(!rep.ok());
    if (rep.ok()) return; // the next flaw's check still runs
    CHECK(rep.violations[0].check == label);
    CHECK(rep.violations[0].pass == pass);
    CHECK(rep.violations[0].rule.starts_with(rule));
}

} // namespace

TEST_CASE("check_line_size_contract passes memsub's predictors, the archetype and a learner") {
    // ALSI's 32/64/128 B answers fit only the main shape; it refuses the three others.
    check_passes<linesize::alsi>(1, 3);
    check_passes<linesize::static_size<32>>(3, 1);   // refuses 64 B segments
    check_passes<linesize::static_size<64>>(3, 1);   // refuses 32 B lines
    check_passes<linesize::static_size<128>>(2, 2);  // refuses 64 and 32 B lines
    check_passes<testing::linesize_archetype>(4, 1); // and notes LO2
    check_passes<region_sizer<>>(4, 0);
    check_passes<region_sizer<>>(4, 0, {.entries = 1});
}

TEST_CASE("check_line_size_contract notes a predictor without storage_bits()") {
    const auto rep = testing::check_line_size_contract<testing::linesize_archetype>({}, quick());
    REQUIRE(rep.notes.size() == 1);
    CHECK(rep.notes[0].starts_with("LO2: the predictor has no"));
}

TEST_CASE("check_line_size_contract reports each broken rule under its label") {
    const std::string main = "128 B lines, 32 B segments";
    check_reported<flaw::not_power_of_two>("LP2", main, "block_bytes answered a size that is not");
    check_reported<flaw::below_segment>("LP2", main, "block_bytes answered a size smaller than");
    check_reported<flaw::above_line>("LP2", main, "block_bytes answered a size larger than");
    check_reported<flaw::unchecked_geometry>("LP2", "128 B lines, 64 B segments",
                                             "block_bytes answered a size smaller than");
    check_reported<flaw::wants_64_byte_lines>("LS2", main,
                                              "the predictor refused the check's main shape");
    check_reported<flaw::throws_runtime_error>(
        "LS2", "128 B lines, 64 B segments",
        "the constructor threw something other than config_error");
    check_reported<flaw::empty_name>("LS4", main, "name() is empty");
    check_reported<flaw::instance_dependent>("K3", main, "two instances fed the same stream");
    check_reported<flaw::growing_storage>("K6", main, "storage_bits() changed during a run");
}

TEST_CASE("check_line_size_contract: an illegal size in another shape points at LS2") {
    const auto rep =
        testing::check_line_size_contract<region_sizer<flaw::unchecked_geometry>>({}, quick());
    INFO(rep.text());
    REQUIRE(rep.violations.size() == 1);
    CHECK(rep.violations[0].hint.starts_with("LS2: refuse a geometry"));
    CHECK(rep.violations[0].count == quick().accesses); // the first run's answers
}

#if MEMSUB_TESTING_CAN_FORK
TEST_CASE("check_line_size_contract: a throw from block_bytes is K7 in every pass") {
    const auto rep =
        testing::check_line_size_contract<region_sizer<flaw::throws_on_divergence>>({}, quick());
    INFO(rep.text());
    REQUIRE(rep.passes.size() == 4);
    REQUIRE(rep.violations.size() == 4);
    for (const auto& v : rep.violations) {
        CHECK(v.check == "K7");
        CHECK(v.rule.starts_with("the predictor crashed with signal " + std::to_string(SIGABRT)));
    }
}
#endif
