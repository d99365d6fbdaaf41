// memsub — `bypass::pc_divergence`: ID-Cache's online PC+Div bypass predictor (ID-Cache Bypass).
//
// Citation: [Dissertation], §3.2.2 "Dynamic Bypassing" and Algorithm 3,
// §3.2.5 (Algorithm 5 uses it); docs/mechanisms/id_cache.md, 'Bypass predictors'.
// Rules: "for each PC, I use four bins to learn the reuse behavior of instructions with
// different divergence degrees … a 512-entry reuse distance prediction table of saturating
// counters"; index = hash(PC, deg_divergence) (Algorithm 3); training as `pc_only`
// (bypass/detail/reuse_table.hpp). The divergence degree is `access::divergence`, which
// gpu::coalescer fills.
// Resolutions (spec): bins d = 1 | 2–3 | 4–15 | ≥ 16 (`divergence_bin_starts` = {2, 4, 16}: the
// ALSI size boundaries of §3.2.4 and ELL's ">15 requests" of §3.2.1); index = PC bits × 4 + bin;
// 3-bit counters starting at 1; PC alignment bits dropped first; a hit trains the inserting
// (PC, bin) entry; recovery sampling off. A divergence of 0 (no active lane) falls in bin 0.
// Storage (defaults): 512 × 3 + tag entries × 9 bits — 512 × 3 + 128 × 9 = 2,688 bits on the
// Table 3.1 L1, 512 × 3 + 512 × 9 = 6,144 bits with 16 tags per set.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/detail/reuse_table.hpp>

namespace memsub::bypass {

class pc_divergence : public detail::indexed_reuse_predictor<pc_divergence> {
public:
    /// Divergence bins per PC ("four bins", §3.2.2).
    static constexpr std::uint32_t bins = 4;
    static constexpr std::uint32_t bin_bits = 2;

    struct params {
        /// PCs tracked = 2^pc_index_bits ("indexed by the lower 7 bits of an instruction PC").
        std::uint32_t pc_index_bits = 7;
        /// Low PC bits dropped before indexing (instruction alignment; see pc_only).
        std::uint32_t pc_alignment_bits = 3;
        /// The smallest divergence of bins 1, 2 and 3 (bin 0 holds everything below the first):
        /// strictly increasing, the first ≥ 2.
        std::array<std::uint32_t, bins - 1> divergence_bin_starts{2, 4, 16};
        std::uint32_t counter_bits = 3;
        std::uint32_t initial_counter = 1;
        /// 0 = off (the dissertation); N > 0 = insert one in N misses the table would bypass.
        std::uint32_t learning_sample_rate = 0;
        hit_training train_hit_on = hit_training::inserting;
    };

    pc_divergence(const geometry& g, const params& p)
        : indexed_reuse_predictor(
              g,
              (validate(p),
               detail::reuse_table::settings{.index_bits = p.pc_index_bits + bin_bits,
                                             .counter_bits = p.counter_bits,
                                             .initial_counter = p.initial_counter,
                                             .learning_sample_rate = p.learning_sample_rate,
                                             .train_hit_on = p.train_hit_on}),
              component)
        , index_bits_(p.pc_index_bits)
        , alignment_bits_(p.pc_alignment_bits)
        , bin_starts_(p.divergence_bin_starts) {}
    explicit pc_divergence(const geometry& g) : pc_divergence(g, params{}) {}
    /// The offline-trained variant (§3.2.2): the counters of `t` (bypass/offline_trainer.hpp);
    /// a frozen table never learns online. config_error when `t` does not fit the params.
    pc_divergence(const geometry& g, const params& p, const trained_table& t)
        : pc_divergence(g, p) {
        load(t);
    }

    static constexpr std::string_view component = "memsub::bypass::pc_divergence";

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "pc_divergence"; }

    /// The divergence bin of a degree d: how many bin starts it reaches.
    [[nodiscard]] std::uint32_t bin_of(std::uint32_t divergence) const noexcept {
        return static_cast<std::uint32_t>(divergence >= bin_starts_[0]) +
               static_cast<std::uint32_t>(divergence >= bin_starts_[1]) +
               static_cast<std::uint32_t>(divergence >= bin_starts_[2]);
    }
    /// The table index of an access: its PC's low bits × 4 + its divergence bin.
    [[nodiscard]] std::uint32_t index_of(const access& a) const noexcept {
        return (detail::pc_bits(a.pc, alignment_bits_, index_bits_) << bin_bits) |
               bin_of(a.divergence);
    }

private:
    static void validate(const params& p) {
        detail::validate_pc_params(p.pc_index_bits, p.pc_alignment_bits, component);
        const auto& b = p.divergence_bin_starts;
        require(b[0] >= 2, component, "divergence_bin_starts[0]", b[0],
                "must be >= 2 (bin 0 holds the convergent d = 1)");
        require(b[1] > b[0], component, "divergence_bin_starts[1]", b[1],
                "must be greater than divergence_bin_starts[0]");
        require(b[2] > b[1], component, "divergence_bin_starts[2]", b[2],
                "must be greater than divergence_bin_starts[1]");
    }

    std::uint32_t index_bits_;
    std::uint32_t alignment_bits_;
    std::array<std::uint32_t, bins - 1> bin_starts_;
};

static_assert(bypass_predictor<pc_divergence>);

} // namespace memsub::bypass
