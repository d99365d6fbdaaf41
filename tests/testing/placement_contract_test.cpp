// check_placement_contract: memsub's placements and a minimal one pass; for every check a
// placement broken in that one way fails with the check's label and the rule's.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

#include <memsub/placement/all.hpp>
#include <memsub/testing/all.hpp>

#include "contract_report_checks.hpp"

using namespace memsub;
using placement::location;

namespace {

/// The smallest placement: page i → partition i mod 4, frame i / 4; one channel. Stateless and
/// invertible (the archetype of the concept, PL1–PL5 and PLI1).
struct page_modulo {
    struct params {};
    explicit page_modulo(const params&) {}
    location place(byte_address a, std::uint32_t) const noexcept { return *locate(a); }
    std::optional<location> locate(byte_address a) const noexcept {
        const std::uint64_t page = a.value / 4096;
        return location{.partition = static_cast<std::uint32_t>(page % 4),
                        .channel = 0,
                        .local_address = page / 4 * 4096 + a.value % 4096};
    }
    byte_address global_address(std::uint32_t partition, std::uint64_t local) const noexcept {
        return byte_address{(local / 4096 * 4 + partition) * 4096 + local % 4096};
    }
    std::uint32_t partitions() const noexcept { return 4; }
    std::uint32_t channels_per_partition() const noexcept { return 1; }
    std::uint32_t page_bytes() const noexcept { return 4096; }
    std::uint32_t granule_bytes() const noexcept { return 4096; }
    std::uint64_t partition_bytes() const noexcept { return std::uint64_t{1} << 62; }
    std::string_view name() const noexcept { return "page_modulo"; }
};
static_assert(placement::invertible_placement<page_modulo>);

/// The ways a stateless placement can break one rule each.
enum class flaw {
    none,
    partition_range,  // PL4: partition = partitions()
    channel_range,    // PL4: channel = channels
    local_range,      // PL5: partition_bytes() too small
    channel_rule,     // PP3: channel from the page number, not the local address
    not_contiguous,   // PP3: the page's bytes are scattered in the partition
    locate_differs,   // PL3: locate names another partition
    locate_nullopt,   // PL3: a stateless placement answers nullopt
    inverse_wrong,    // PLI1: global_address off by a page
    nondeterministic, // K3: a counter shared by every instance
    shape_drifts,     // K6: partitions() grows as the run goes
    shape_differs,    // K6: instances built alike differ
    zero_partitions,  // PL4: partitions() = 0
    throws,           // K7: place throws
};

inline std::uint64_t shared_counter = 0; // the hidden state of `nondeterministic`

template <flaw F>
class stateless {
public:
    struct params {};
    explicit stateless(const params&) : instance_(++instances()) {}
    static std::uint32_t& instances() {
        static std::uint32_t n = 0;
        return n;
    }

    location place(byte_address a, std::uint32_t) {
        if constexpr (F == flaw::throws)
            if (++calls_ == 1000) throw std::runtime_error("out of frames");
        ++places_;
        return at(a);
    }
    std::optional<location> locate(byte_address a) const noexcept {
        if constexpr (F == flaw::locate_nullopt) return std::nullopt;
        location l = at(a);
        if constexpr (F == flaw::locate_differs) l.partition = (l.partition + 1) % 4;
        return l;
    }
    byte_address global_address(std::uint32_t partition, std::uint64_t local) const noexcept {
        const std::uint64_t frame = local / 4096;
        const std::uint64_t page = frame * 4 + partition + (F == flaw::inverse_wrong ? 4 : 0);
        return byte_address{page * 4096 + local % 4096};
    }
    std::uint32_t partitions() const noexcept {
        if constexpr (F == flaw::zero_partitions) return 0;
        if constexpr (F == flaw::shape_drifts) return places_ > 100 ? 5 : 4;
        if constexpr (F == flaw::shape_differs) return instance_ % 2 == 0 ? 8 : 4;
        return 4;
    }
    std::uint32_t channels_per_partition() const noexcept { return 2; }
    std::uint32_t page_bytes() const noexcept { return 4096; }
    std::uint32_t granule_bytes() const noexcept { return 256; }
    std::uint64_t partition_bytes() const noexcept {
        return F == flaw::local_range ? 4096 * 16 : std::uint64_t{1} << 40;
    }
    std::string_view name() const noexcept { return "stateless"; }

private:
    location at(byte_address a) const noexcept {
        std::uint64_t page = a.value / 4096;
        std::uint64_t offset = a.value % 4096;
        if constexpr (F == flaw::nondeterministic)
            page += (shared_counter++ * 0x9e3779b97f4a7c15ULL) >> 63;
        if constexpr (F == flaw::not_contiguous) offset = (offset * 7) % 4096;
        auto partition = static_cast<std::uint32_t>(page % 4);
        if constexpr (F == flaw::partition_range)
            if (page % 64 == 5) partition = 4;
        const std::uint64_t local = page / 4 * 4096 + offset;
        auto channel = static_cast<std::uint32_t>(local / 256 % 2);
        if constexpr (F == flaw::channel_range) channel = local % 1000 == 0 ? 2 : channel;
        if constexpr (F == flaw::channel_rule) channel = static_cast<std::uint32_t>(page % 2);
        return location{.partition = partition, .channel = channel, .local_address = local};
    }
    std::uint32_t instance_;
    std::uint64_t places_ = 0;
    std::uint64_t calls_ = 0;
};

/// The ways a first-touch placement (state: a page table) can break one rule each.
enum class stateful_flaw {
    none,
    moves,         // PP2: every place re-places the page at its requester
    guesses,       // PL3: locate of an unplaced page answers partition 0 instead of nullopt
    locate_places, // PL3: locate places the page (for requester 0)
    reset_forgets, // PP2: reset() keeps the table
    no_reset,      // note: no reset()
};

template <stateful_flaw F>
class first_touch_toy {
public:
    struct params {};
    explicit first_touch_toy(const params&) {}

    location place(byte_address a, std::uint32_t requester) {
        const std::uint64_t page = a.value / 4096;
        auto it = table_.find(page);
        if (it == table_.end() || F == stateful_flaw::moves) {
            const std::uint64_t frame = it == table_.end() ? used_[requester]++ : it->second.frame;
            it = table_.insert_or_assign(page, entry{requester, frame}).first;
        }
        return at(it->second, a);
    }
    std::optional<location> locate(byte_address a) const noexcept {
        const auto it = table_.find(a.value / 4096);
        if (it != table_.end()) return at(it->second, a);
        if constexpr (F == stateful_flaw::guesses) return at(entry{0, 0}, a);
        if constexpr (F == stateful_flaw::locate_places) {
            auto& self = const_cast<first_touch_toy&>(*this);
            return self.place(a, 0);
        }
        return std::nullopt;
    }
    void reset() noexcept requires(F != stateful_flaw::no_reset) {
        if (F == stateful_flaw::reset_forgets) return;
        table_.clear();
        for (auto& u : used_) u = 0;
    }
    std::uint32_t partitions() const noexcept { return 4; }
    std::uint32_t channels_per_partition() const noexcept { return 1; }
    std::uint32_t page_bytes() const noexcept { return 4096; }
    std::uint32_t granule_bytes() const noexcept { return 128; }
    std::uint64_t partition_bytes() const noexcept { return std::uint64_t{1} << 30; }
    std::string_view name() const noexcept { return "first_touch_toy"; }

private:
    struct entry {
        std::uint32_t partition;
        std::uint64_t frame;
    };
    static location at(const entry& e, byte_address a) noexcept {
        return {.partition = e.partition,
                .channel = 0,
                .local_address = e.frame * 4096 + a.value % 4096};
    }
    std::unordered_map<std::uint64_t, entry> table_;
    std::uint64_t used_[4]{};
};

template <class P>
testing::contract_report check(const typename P::params& p = {}) {
    testing::placement_contract_options o;
    o.accesses = 4000;
    return testing::check_placement_contract<P>(p, o);
}

using memsub_test::fails_with;

} // namespace

TEST_CASE("placement contract: memsub's placements pass") {
    using namespace placement;
    const auto pass = [](const testing::contract_report& r) {
        memsub_test::check_clean_pass(r, 1);
        INFO(r.text());
        CHECK(r.accesses > 0);
    };
    pass(check<fine_grain_interleave>());
    pass(check<fine_grain_interleave>({.partitions = 3, .channels_per_partition = 2}));
    pass(check<round_robin_page>());
    pass(check<round_robin_page>(
        {.partitions = 5, .channels_per_partition = 3, .page_bytes = 65536, .granule_bytes = 256}));
    pass(check<random_page>());
    pass(check<random_page>({.partitions = 6, .channels_per_partition = 4, .seed = 7}));
    pass(check<first_touch>());
    pass(check<first_touch>({.partitions = 3,
                             .channels_per_partition = 2,
                             .partition_bytes = std::uint64_t{1} << 20,
                             .footprint_bytes = std::uint64_t{2} << 20}));
    // Invertible policies need no reset(): no note. First touch is not invertible: one note.
    CHECK(check<random_page>().notes.empty());
    const auto ft = check<first_touch>();
    REQUIRE(ft.notes.size() == 1);
    CHECK(ft.notes[0].starts_with("PLI1"));
}

TEST_CASE("placement contract: a minimal placement and a correct first touch pass") {
    const auto minimal = check<page_modulo>();
    INFO(minimal.text());
    CHECK(minimal.ok());
    CHECK(minimal.notes.empty());
    const auto toy = check<first_touch_toy<stateful_flaw::none>>();
    INFO(toy.text());
    CHECK(toy.ok());
    CHECK(check<stateless<flaw::none>>().ok());
}

TEST_CASE("placement contract: each broken placement fails with its label") {
    CHECK(fails_with(check<stateless<flaw::partition_range>>(), "K2",
                     "PL4: the location's partition"));
    CHECK(fails_with(check<stateless<flaw::channel_range>>(), "K2", "PL4: the location's channel"));
    CHECK(fails_with(check<stateless<flaw::local_range>>(), "K2", "PL5"));
    CHECK(fails_with(check<stateless<flaw::channel_rule>>(), "K1", "PP3: the channel"));
    CHECK(fails_with(check<stateless<flaw::not_contiguous>>(), "K1", "PP3: addresses of one page"));
    CHECK(fails_with(check<stateless<flaw::locate_differs>>(), "K1", "PL3: locate after place"));
    CHECK(
        fails_with(check<stateless<flaw::locate_nullopt>>(), "K1", "PL3: locate answered nullopt"));
    CHECK(fails_with(check<stateless<flaw::inverse_wrong>>(), "K2", "PLI1"));
    CHECK(fails_with(check<stateless<flaw::nondeterministic>>(), "K3", "two instances"));
    CHECK(fails_with(check<stateless<flaw::shape_drifts>>(), "K6", "the shape changed"));
    CHECK(fails_with(check<stateless<flaw::shape_differs>>(), "K6", "two instances built alike"));
    CHECK(fails_with(check<stateless<flaw::zero_partitions>>(), "K2", "PL4: partitions()"));
    const auto threw = check<stateless<flaw::throws>>();
    CHECK(fails_with(threw, "K7", "the pass threw"));
    REQUIRE(threw.passes.size() == 1);
    CHECK(threw.passes[0].status == testing::pass_status::threw);

    CHECK(
        fails_with(check<first_touch_toy<stateful_flaw::moves>>(), "K1", "PP2: a page's location"));
    CHECK(fails_with(check<first_touch_toy<stateful_flaw::guesses>>(), "K1",
                     "PL3: locate before the page's first place"));
    CHECK(fails_with(check<first_touch_toy<stateful_flaw::locate_places>>(), "K1",
                     "PL3: locate before a page's first place changed"));
    CHECK(fails_with(check<first_touch_toy<stateful_flaw::reset_forgets>>(), "K1",
                     "PP2: after reset()"));
}

TEST_CASE("placement contract: a stateful placement without reset() gets a note, not a violation") {
    const auto r = check<first_touch_toy<stateful_flaw::no_reset>>();
    INFO(r.text());
    CHECK(r.ok());
    REQUIRE(r.notes.size() == 2);
    CHECK(r.notes[1].starts_with("PP2"));
}
