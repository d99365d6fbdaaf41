// The per-decision paths never allocate (placement/concept.hpp PP4, cta/concept.hpp CTP4;
// design principle 4): first-touch placement including first touches (the table is reserved at
// construction), the stateless placements, and every CTA scheduler's launch, dispatch, next_cta
// and on_cta_complete. Like tests/compression/test_no_alloc.cpp, this file replaces the
// executable's global allocation functions with counting ones (a test-only device).
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include <memsub/core/rng.hpp>
#include <memsub/cta/all.hpp>
#include <memsub/placement/all.hpp>

#include "../support/counting_allocator.hpp"

namespace {
using memsub_test::allocations;
} // namespace

namespace {

template <class Scheduler>
std::size_t scheduler_allocations(Scheduler& s, memsub::xoshiro256ss& rng) {
    const std::size_t before = allocations.load();
    for (int launch = 0; launch < 3; ++launch) {
        s.launch({.ctas = 1000, .max_ctas_per_sm = 3, .kernel_id = 5});
        while (!s.finished()) {
            while (s.dispatch()) {
            }
            const auto sm = static_cast<std::uint32_t>(rng() % s.sms());
            if (s.running_on(sm) != 0) s.on_cta_complete(sm);
            (void)s.next_cta(static_cast<std::uint32_t>(rng() % s.sms()));
        }
    }
    return allocations.load() - before;
}

} // namespace

TEST_CASE("placement and CTA scheduling decisions do not allocate") {
    using namespace memsub;
    placement::first_touch ft({.partitions = 4,
                               .channels_per_partition = 8,
                               .partition_bytes = std::uint64_t{1} << 28,
                               .footprint_bytes = std::uint64_t{1} << 28});
    const placement::fine_grain_interleave fg({.partitions = 4, .channels_per_partition = 8});
    const placement::round_robin_page rr({.partitions = 4});
    const placement::random_page rp({.partitions = 4});
    {
        // The counter sees allocations: building a first-touch table allocates (once).
        const std::size_t at_start = allocations.load();
        const placement::first_touch small({.partitions = 2});
        CHECK(allocations.load() > at_start);
    }
    xoshiro256ss rng(1);
    std::uint64_t sink = 0;
    const std::size_t before = allocations.load();
    for (int i = 0; i < 100000; ++i) {
        const byte_address a{rng() % (std::uint64_t{1} << 28)};
        const auto req = static_cast<std::uint32_t>(rng() % 4);
        sink += ft.place(a, req).partition + fg.place(a).channel + rr.place(a).partition +
                rp.place(a).partition;
        if (const auto l = ft.locate(a)) sink += l->local_address;
    }
    CHECK(allocations.load() == before);
    CHECK(ft.stats().pages > 10000); // first touches happened inside the counted window
    CHECK(sink != 0);

    cta::centralized_round_robin a({.modules = 4, .sms_per_module = 8});
    cta::fine_grain_round_robin b({.modules = 4, .sms_per_module = 8});
    cta::contiguous_batches c({.modules = 4, .sms_per_module = 8});
    cta::batches_with_stealing d({.modules = 4, .sms_per_module = 8, .steal_ctas = 2});
    cta::adaptive_batches e({.modules = 4, .sms_per_module = 8});
    CHECK(scheduler_allocations(a, rng) == 0);
    CHECK(scheduler_allocations(b, rng) == 0);
    CHECK(scheduler_allocations(c, rng) == 0);
    CHECK(scheduler_allocations(d, rng) == 0);
    CHECK(scheduler_allocations(e, rng) == 0);
    CHECK(a.stats().started == 3000);
}
