// memsub — `bypass::pc_only`: ID-Cache's online PC-only bypass predictor.
//
// Citation: [Dissertation], §3.2.2 "Dynamic Bypassing" and Algorithm 3;
// docs/mechanisms/id_cache.md, 'Bypass predictors'.
// Rules: "a 128-entry reuse distance prediction table of saturating counters … indexed by the
// lower 7 bits of an instruction PC"; a miss bypasses iff its PC's counter is 0, a hit counts
// up, the eviction of a never-reused line counts down (bypass/detail/reuse_table.hpp has the
// training rules and the resolutions shared with `pc_divergence`).
// Resolutions (spec): 3-bit counters starting at 1 (SHiP's SHCT; the text prints neither);
// the PC bits fixed by instruction alignment are dropped first (`pc_alignment_bits`, 3 for
// Fermi's 8-byte SASS instructions of Table 3.1; Accel-Sim traces of Volta and later step PCs
// by 16: use 4); a hit trains the inserting PC's entry (`train_hit_on`); recovery sampling off.
// Storage (defaults): 128 × 3 + tag entries × 7 bits — 128 × 3 + 128 × 7 = 1,664 bits on the
// Table 3.1 L1 (32 sets × 4 ways), 128 × 3 + 512 × 7 = 3,968 bits with 16 tags per set.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/detail/reuse_table.hpp>

namespace memsub::bypass {

class pc_only : public detail::indexed_reuse_predictor<pc_only> {
public:
    struct params {
        /// Table entries = 2^pc_index_bits ("128-entry", §3.2.2).
        std::uint32_t pc_index_bits = 7;
        /// Low PC bits dropped before indexing (instruction alignment).
        std::uint32_t pc_alignment_bits = 3;
        std::uint32_t counter_bits = 3;
        std::uint32_t initial_counter = 1;
        /// 0 = off (the dissertation); N > 0 = insert one in N misses the table would bypass.
        std::uint32_t learning_sample_rate = 0;
        hit_training train_hit_on = hit_training::inserting;
    };

    pc_only(const geometry& g, const params& p)
        : indexed_reuse_predictor(
              g,
              (detail::validate_pc_params(p.pc_index_bits, p.pc_alignment_bits, component),
               detail::reuse_table::settings{.index_bits = p.pc_index_bits,
                                             .counter_bits = p.counter_bits,
                                             .initial_counter = p.initial_counter,
                                             .learning_sample_rate = p.learning_sample_rate,
                                             .train_hit_on = p.train_hit_on}),
              component)
        , index_bits_(p.pc_index_bits)
        , alignment_bits_(p.pc_alignment_bits) {}
    explicit pc_only(const geometry& g) : pc_only(g, params{}) {}
    /// The offline-trained variant (§3.2.2): the counters of `t` (bypass/offline_trainer.hpp);
    /// a frozen table never learns online. config_error when `t` does not fit the params.
    pc_only(const geometry& g, const params& p, const trained_table& t) : pc_only(g, p) { load(t); }

    static constexpr std::string_view component = "memsub::bypass::pc_only";

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "pc_only"; }

    /// The table index of an access: its PC's low bits.
    [[nodiscard]] std::uint32_t index_of(const access& a) const noexcept {
        return detail::pc_bits(a.pc, alignment_bits_, index_bits_);
    }

private:
    std::uint32_t index_bits_;
    std::uint32_t alignment_bits_;
};

static_assert(bypass_predictor<pc_only>);

} // namespace memsub::bypass
