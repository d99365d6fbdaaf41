// The cross-kernel synergy of distributed CTA scheduling and first-touch placement ([MCM-GPU]
// §5.3, Figure 12; C5.5 (docs/mechanisms/multi_module_gpu.md) / C5.6): a kernel launched repeatedly
// (a convergence loop) whose CTA c works on its own pages. With contiguous batches the CTA lands on
// the same module every launch, so the pages it first touched stay local; with the centralised
// round robin the CTA moves between modules as timing changes and the pages become remote;
// fine-grain interleave is local for 1 / M of the accesses whatever the scheduler.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <memsub/core/rng.hpp>
#include <memsub/cta/all.hpp>
#include <memsub/placement/all.hpp>

#include "host.hpp"

using memsub::byte_address;
namespace pl = memsub::placement;
using namespace memsub::cta;

namespace {

constexpr std::uint32_t modules = 4, ctas = 256, pages_per_cta = 4;

/// Fraction of local accesses per launch: CTA c touches its pages 4c … 4c + 3 (every line).
template <class Scheduler, class Placement>
std::vector<double> local_fraction(Scheduler& s, Placement& p, int launches) {
    memsub::xoshiro256ss rng(9);
    std::vector<double> out;
    for (int l = 0; l < launches; ++l) {
        std::vector<std::uint64_t> d(ctas);
        for (auto& x : d) x = 10 + rng() % 40; // timing differs per launch
        const auto r = ctatest::run_kernel(s, {.ctas = ctas, .max_ctas_per_sm = 2, .kernel_id = 1},
                                           [&](std::uint32_t c) { return d[c]; });
        std::uint64_t local = 0, all = 0;
        for (const cta_assignment& a : r.order) // pages touched in CTA start order
            for (std::uint64_t pg = 0; pg < pages_per_cta; ++pg)
                for (std::uint64_t line = 0; line < 4096; line += 128) {
                    const std::uint64_t addr = (a.cta * pages_per_cta + pg) * 4096 + line;
                    local += p.place(byte_address{addr}, a.module).partition == a.module;
                    ++all;
                }
        out.push_back(static_cast<double>(local) / static_cast<double>(all));
    }
    return out;
}

} // namespace

TEST_CASE("distributed scheduling + first touch keep pages local across launches (Fig 12)") {
    const pl::first_touch::params ftp{.partitions = modules,
                                      .partition_bytes = std::uint64_t{16} << 20,
                                      .footprint_bytes = std::uint64_t{16} << 20};
    contiguous_batches dist({.modules = modules, .sms_per_module = 4});
    centralized_round_robin cent({.modules = modules, .sms_per_module = 4});
    pl::first_touch ft_dist(ftp), ft_cent(ftp);
    pl::fine_grain_interleave fg({.partitions = modules});

    const auto dist_ft = local_fraction(dist, ft_dist, 4);
    const auto cent_ft = local_fraction(cent, ft_cent, 4);
    const auto dist_fg = local_fraction(dist, fg, 2);
    adaptive_batches adaptive({.modules = modules, .sms_per_module = 4});
    pl::first_touch ft_adaptive(ftp);
    const auto adaptive_ft = local_fraction(adaptive, ft_adaptive, 4);
    // Launch 1: first touch makes every page local to its toucher under either scheduler.
    CHECK(dist_ft[0] == 1.0);
    CHECK(cent_ft[0] == 1.0);
    for (int l = 1; l < 4; ++l) {
        CHECK(dist_ft[l] == 1.0);     // the same CTA on the same module: still local
        CHECK(adaptive_ft[l] == 1.0); // noise alone does not move its groups
        CHECK(cent_ft[l] < 0.6);      // CTAs moved: most of their pages are remote now
    }
    for (double f : dist_fg) CHECK(f == doctest::Approx(1.0 / modules));
}
