// memsub::testing — the contract check of a page placement (placement/concept.hpp):
//
//   auto report = memsub::testing::check_placement_contract<my_placement>();
//   if (!report.ok()) std::fputs(report.text().c_str(), stderr);
//
// The check is a reference host (PP1): it draws a seeded random stream of (address, requester)
// pairs from a pool of pages scattered over the address space, the requester being a module id
// below `partitions()`, and calls `place` for each, as a multi-module GPU's memory side does for
// every request that goes to memory. Before the first `place` of a page it asks `locate` (a host
// may look an address up before it is placed); after every `place` it asks `locate` again, and
// for an invertible placement it maps the location back with `global_address`. It keeps a
// mirror of every page's first location. One pass, "random stream", builds four instances alike:
//   A — checked call by call against the concept and the mirror;
//   B — fed the very same calls, to compare decisions with A (K3);
//   C — fed the same calls without the lookups before a page's first place (PL3: a lookup
//       changes nothing);
//   D — built after A's run, fed a second stream beside A after `A.reset()` (PP2; only for a
//       policy with `reset()`).
// Labels (the contract checks K1–K8 of testing/contract.hpp, here on a placement):
//   K1. the protocol: PL3 (locate agrees with place and changes nothing; a stateless, invertible
//       policy never answers nullopt), PP2 (a page's location never changes; reset() forgets
//       every placement), PP3 (one page in one partition at contiguous local addresses; channel
//       = (local / granule) mod channels);
//   K2. every decision is legal: the location's partition, channel and local address are below
//       partitions(), channels_per_partition() and partition_bytes() (PL2, PL4, PL5), and, for
//       an invertible policy, place(global_address(l.partition, l.local_address)) == l (PLI1);
//       the shape observers are positive (PL4);
//   K3. determinism: A and B place every address alike;
//   K6. the shape (PL4, PL5: partitions, channels, page and granule bytes, partition bytes) is
//       fixed at construction: it reads the same before and after a run, and for A and B;
//   K7. the pass runs to completion: building the instances and every call return (an exception
//       — a config_error from the params, a capacity_error from a table sized too small — is
//       reported with its message).
// Not checked: PP1's "stateless policies ignore the requester" (a policy may use it), and PP4
// (no allocation in place/locate: count allocations in your own test with a replaced global
// operator new; a header cannot replace it).
// Decision: the pass runs in-process, not in a child process as the cache checks' passes do:
// their isolation reports a crash in terms of cache geometry (sets, ways, entries per set),
// which a placement does not have; an exception is still caught and reported as K7.
// Notes (not violations, `placement_notes`): no `global_address` (PLI1), and no `reset()` on a
// policy that is not invertible (so probably has state).
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/testing/contract_report.hpp>

namespace memsub::testing {

struct placement_contract_options {
    /// `place` calls per instance in the main stream (the reset stream is a quarter as long).
    std::uint64_t accesses = 20000;
    std::uint64_t seed = 1;
    /// Distinct pages (of the subject's `page_bytes()`) the stream draws from.
    std::uint64_t footprint_pages = 512;
    /// Pages are drawn below 2^address_bits (scattered, so every partition and bit is touched).
    std::uint32_t address_bits = 40;
};

namespace detail {

template <class P>
concept resettable_placement = requires(P& p) {
    p.reset();
};

inline std::string hex(std::uint64_t v) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    do {
        s.insert(s.begin(), digits[v & 15]);
        v >>= 4;
    } while (v != 0);
    return "0x" + s;
}

inline std::string location_text(const placement::location& l) {
    return "partition " + std::to_string(l.partition) + ", channel " + std::to_string(l.channel) +
           ", local " + hex(l.local_address);
}

/// PL4 and PL5, read at once.
struct placement_shape {
    std::uint32_t partitions = 0, channels = 0, page = 0, granule = 0;
    std::uint64_t partition_bytes = 0;
    friend bool operator==(const placement_shape&, const placement_shape&) = default;
    [[nodiscard]] std::string text() const {
        return std::to_string(partitions) + " partitions × " + std::to_string(channels) +
               " channels, " + std::to_string(page) + " B pages, " + std::to_string(granule) +
               " B granules, " + std::to_string(partition_bytes) + " B per partition";
    }
};

template <class P>
placement_shape shape_of(const P& p) {
    return {p.partitions(), p.channels_per_partition(), p.page_bytes(), p.granule_bytes(),
            p.partition_bytes()};
}

/// The reference host's stream: a pool of scattered pages, then (address, requester) draws.
class placement_stream {
public:
    placement_stream(const placement_contract_options& o, std::uint64_t seed,
                     const placement_shape& s)
        : rng_(seed)
        , page_(s.page)
        , partitions_(s.partitions) {
        const std::uint32_t bits = o.address_bits < 63 ? o.address_bits : 63;
        const std::uint64_t pages = (std::uint64_t{1} << bits) / page_;
        pool_.reserve(o.footprint_pages);
        for (std::uint64_t i = 0; i < o.footprint_pages; ++i)
            pool_.push_back(pages == 0 ? i : rng_.below(pages));
    }
    struct draw {
        byte_address address;
        std::uint32_t requester;
    };
    draw next() {
        const std::uint64_t page = pool_[rng_.below(pool_.size())];
        return {byte_address{page * page_ + rng_.below(page_)},
                static_cast<std::uint32_t>(rng_.below(partitions_))};
    }

private:
    xoshiro256ss rng_;
    std::uint64_t page_;
    std::uint32_t partitions_;
    std::vector<std::uint64_t> pool_;
};

/// What one instance decided: every `place` result and every `locate` answer (three words each).
struct placement_log {
    std::vector<std::uint64_t> places, lookups;
    friend bool operator==(const placement_log&, const placement_log&) = default;
};

/// One instance's run of the stream, the same calls whether or not it is checked; with `out`,
/// every call is checked into it. `probe` asks `locate` before a page's first place.
template <placement::placement_policy P>
placement_log drive_placement(P& p, const placement_contract_options& o, std::uint64_t seed,
                              std::uint64_t steps, bool probe, const std::string& pass,
                              contract_report* out) {
    const placement_shape shape = shape_of(p);
    placement_log log;
    log.places.reserve(steps * 6);
    const auto record = [](std::vector<std::uint64_t>& to,
                           const std::optional<placement::location>& l) {
        to.push_back(l ? l->partition : 0xffffffffu);
        to.push_back(l ? l->channel : 0xffffffffu);
        to.push_back(l ? l->local_address : ~std::uint64_t{0});
    };
    const auto add = [&](std::string_view check, std::string_view rule, const std::string& at) {
        if (out != nullptr) out->add(check, pass, rule, at);
    };
    struct page_record {
        std::uint32_t partition;
        std::uint64_t base;
        byte_address first;
    };
    std::unordered_map<std::uint64_t, page_record> pages; // the mirror: each page's first place
    placement_stream stream(o, seed, shape);
    for (std::uint64_t i = 0; i < steps; ++i) {
        // Named members, not a structured binding: the lambdas below capture the address,
        // and clang before 16 cannot capture a binding.
        const auto d = stream.next();
        const byte_address a = d.address;
        const std::uint32_t requester = d.requester;
        const std::uint64_t page = a.value / shape.page;
        const std::uint64_t offset = a.value % shape.page;
        const auto at = [&] { return "access " + std::to_string(i) + ", address " + hex(a.value); };
        const auto seen = pages.find(page);
        std::optional<placement::location> before;
        if (probe && seen == pages.end()) {
            before = p.locate(a);
            record(log.lookups, before);
            if (!before && placement::invertible_placement<P>)
                add("K1", "PL3: locate answered nullopt on a stateless (invertible) placement",
                    at());
        }
        if (out != nullptr) ++out->accesses;
        const placement::location l = p.place(a, requester);
        record(log.places, l);
        const auto where = [&] { return at() + ": " + location_text(l); };
        if (l.partition >= shape.partitions)
            add("K2", "PL4: the location's partition is not below partitions()", where());
        if (l.channel >= shape.channels)
            add("K2", "PL4: the location's channel is not below channels_per_partition()", where());
        if (l.local_address >= shape.partition_bytes)
            add("K2", "PL5: the location's local address is not below partition_bytes()", where());
        if (l.channel != (l.local_address / shape.granule) % shape.channels)
            add("K1", "PP3: the channel is not (local address / granule_bytes) mod channels",
                where());
        if (before && *before != l)
            add("K1",
                "PL3: locate before the page's first place named a location place did not give",
                where() + "; locate said " + location_text(*before));
        const auto after = p.locate(a);
        record(log.lookups, after);
        if (after != l)
            add("K1", "PL3: locate after place differs from the location place gave",
                where() + "; locate says " +
                    (after ? location_text(*after) : std::string("nullopt")));
        if constexpr (placement::invertible_placement<P>) {
            const byte_address back = p.global_address(l.partition, l.local_address);
            const placement::location again = p.place(back, requester);
            record(log.places, again);
            if (again != l)
                add("K2", "PLI1: place(global_address(partition, local address)) differs",
                    where() + "; global_address gave " + hex(back.value) + ", placed at " +
                        location_text(again));
        }
        if (seen == pages.end()) {
            pages.emplace(page, page_record{l.partition, l.local_address - offset, a});
        } else if (l.partition != seen->second.partition ||
                   l.local_address != seen->second.base + offset) {
            // Did the page move (PP2), or is this address out of line with its page (PP3)?
            const auto first = p.locate(seen->second.first);
            record(log.lookups, first);
            const std::uint64_t first_offset = seen->second.first.value % shape.page;
            const bool moved = !first || first->partition != seen->second.partition ||
                               first->local_address != seen->second.base + first_offset;
            const std::string was = "; the page was first in partition " +
                                    std::to_string(seen->second.partition) + " at local " +
                                    hex(seen->second.base);
            if (moved)
                add("K1", "PP2: a page's location changed after its first place", where() + was);
            else
                add("K1",
                    "PP3: addresses of one page are not in one partition at contiguous local "
                    "addresses",
                    where() + was);
        }
    }
    return log;
}

/// Where two logs first differ: "place 12" (the 13th decision), or "locate 4".
inline std::string first_difference(const placement_log& a, const placement_log& b) {
    const auto at = [](const std::vector<std::uint64_t>& x, const std::vector<std::uint64_t>& y) {
        std::size_t i = 0;
        while (i < x.size() && i < y.size() && x[i] == y[i]) ++i;
        return std::to_string(i / 3);
    };
    return a.places != b.places ? "place " + at(a.places, b.places)
                                : "locate " + at(a.lookups, b.lookups);
}

template <placement::placement_policy P>
void placement_pass(const typename P::params& params, const placement_contract_options& o,
                    contract_report& out) {
    const std::string pass = "random stream";
    P a(params), b(params), c(params);
    const placement_shape shape = shape_of(a);
    if (shape.partitions == 0 || shape.channels == 0 || shape.page == 0 || shape.granule == 0) {
        out.add("K2", pass,
                "PL4: partitions(), channels_per_partition(), page_bytes() and granule_bytes() "
                "must be positive",
                shape.text());
        return;
    }
    if (shape_of(b) != shape)
        out.add("K6", pass, "two instances built alike report different shapes",
                shape.text() + " and " + shape_of(b).text());
    const placement_log checked = drive_placement(a, o, o.seed, o.accesses, true, pass, &out);
    const placement_log twin = drive_placement(b, o, o.seed, o.accesses, true, pass, nullptr);
    const placement_log unprobed = drive_placement(c, o, o.seed, o.accesses, false, pass, nullptr);
    if (checked != twin)
        out.add("K3", pass, "two instances fed the same calls decided differently",
                first_difference(checked, twin));
    else if (checked.places != unprobed.places)
        out.add("K1", pass,
                "PL3: locate before a page's first place changed what place decided (locate "
                "must change nothing)",
                first_difference(checked, placement_log{unprobed.places, checked.lookups}));
    for (const P* p : {&a, &b})
        if (shape_of(*p) != shape)
            out.add("K6", pass, "the shape changed during a run",
                    "from " + shape.text() + " to " + shape_of(*p).text());
    if constexpr (resettable_placement<P>) {
        a.reset();
        P fresh(params);
        const std::uint64_t seed = o.seed + 0x9e3779b97f4a7c15ULL;
        const auto after_reset = drive_placement(a, o, seed, o.accesses / 4, true, pass, nullptr);
        const auto from_new = drive_placement(fresh, o, seed, o.accesses / 4, true, pass, nullptr);
        if (after_reset != from_new)
            out.add("K1", pass,
                    "PP2: after reset() the policy decided differently from a new instance "
                    "(reset() must forget every placement)",
                    first_difference(after_reset, from_new) + " of the stream after reset()");
    }
}

} // namespace detail

/// Notes on optional members a host or tool uses (no violation): PLI1 (`global_address`,
/// which `placed_mapping` needs for `unmap`) on a policy without state, and `reset()` (PP2, a
/// new application) on a policy with state.
template <placement::placement_policy P>
std::vector<std::string> placement_notes() {
    std::vector<std::string> notes;
    if constexpr (!placement::invertible_placement<P>)
        notes.push_back(
            "PLI1: the placement has no `global_address(partition, local_address)`; "
            "placement::placed_mapping in front of it has no unmap (it models address_mapping, "
            "not invertible_address_mapping)");
    if constexpr (!placement::invertible_placement<P> && !detail::resettable_placement<P>)
        notes.push_back("PP2: the placement has no `reset()`; if it keeps state (a page table), "
                        "a host must build a new instance for a new application");
    return notes;
}

/// Runs K1–K3, K6 and K7 for placement `P` (constructed with `params`) and returns what it found.
template <placement::placement_policy P>
[[nodiscard]] contract_report check_placement_contract(const typename P::params& params = {},
                                                       const placement_contract_options& o = {}) {
    contract_report report;
    contract_pass pass{
        .name = "random stream", .description = "seeded addresses and requesters", .runs = 3};
    try {
        detail::placement_pass<P>(params, o, report);
    } catch (const std::exception& e) {
        pass.status = pass_status::threw;
        report.add("K7", pass.name, "the pass threw an exception", e.what(), 1,
                   "a config_error comes from the params; a capacity error from a table sized "
                   "for fewer pages than the stream's footprint_pages");
    } catch (...) {
        pass.status = pass_status::threw;
        report.add("K7", pass.name, "the pass threw an exception",
                   "not derived from std::exception");
    }
    pass.accesses = report.accesses;
    report.passes.push_back(pass);
    for (auto& n : placement_notes<P>()) report.notes.push_back(std::move(n));
    return report;
}

} // namespace memsub::testing
