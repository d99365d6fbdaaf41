// memsub — `linesize::alsi`: ID-Cache's divergence-guided Adaptive Line Size Insertion.
//
// Citation: [Dissertation], §3.2.4 and Algorithm 4; docs/mechanisms/id_cache.md, 'ALSI'.
// Rule (Decision: the intended reading): d == 1 → 128 B; 2 ≤ d < 4 → 64 B; d ≥ 4 → 32 B, where d
// is the warp instruction's divergence degree (`access::divergence`, gpu::coalescer). Text vs
// algorithm: the printed Algorithm 4's second test is an `if`, not an `else if`, so as printed
// d = 1 would end at 64 B; the text says convergent loads insert 128 B lines, and this
// header follows the text.
// Decisions: the inserted block is the aligned block of the predicted size holding the
// requested bytes, every touched one if the request spans several; a partial miss fetches only
// the missing blocks at the predicted size (memsub's variable-block engine does both, given
// `block_spec{span, span}`). d = 0 (a host that leaves divergence unset to 0) counts as
// convergent. The thresholds and the three sizes are params.
// Storage: 0 bits (a pure function of d).
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/linesize/concept.hpp>

namespace memsub::linesize {

class alsi {
public:
    struct params {
        /// The smallest d that inserts `medium_bytes` (Algorithm 4: d ≥ 2).
        std::uint32_t medium_from_divergence = 2;
        /// The smallest d that inserts `small_bytes` (Algorithm 4: d ≥ 4).
        std::uint32_t small_from_divergence = 4;
        std::uint32_t large_bytes = 128;
        std::uint32_t medium_bytes = 64;
        std::uint32_t small_bytes = 32;
    };

    alsi(const geometry& g, const params& p)
        : medium_from_((validate(g, p), p.medium_from_divergence))
        , small_from_(p.small_from_divergence)
        , large_(p.large_bytes)
        , medium_(p.medium_bytes)
        , small_(p.small_bytes) {}
    explicit alsi(const geometry& g) : alsi(g, params{}) {}

    [[nodiscard]] std::uint32_t block_bytes(set_index, const access& a) const noexcept {
        return bytes_for(a.divergence);
    }
    /// Algorithm 4 (the intended reading) for a divergence degree d.
    [[nodiscard]] std::uint32_t bytes_for(std::uint32_t d) const noexcept {
        if (d >= small_from_) return small_;
        if (d >= medium_from_) return medium_;
        return large_;
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "alsi"; }
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 0; }

private:
    static void validate(const geometry& g, const params& p) {
        constexpr std::string_view component = "memsub::linesize::alsi";
        memsub::require(p.medium_from_divergence >= 2, component, "medium_from_divergence",
                        p.medium_from_divergence, "must be >= 2 (d = 1 is the convergent case)");
        memsub::require(p.small_from_divergence >= p.medium_from_divergence, component,
                        "small_from_divergence", p.small_from_divergence,
                        "must be >= medium_from_divergence");
        require_block_bytes(g, p.large_bytes, component, "large_bytes");
        require_block_bytes(g, p.medium_bytes, component, "medium_bytes");
        require_block_bytes(g, p.small_bytes, component, "small_bytes");
    }

    std::uint32_t medium_from_;
    std::uint32_t small_from_;
    std::uint32_t large_;
    std::uint32_t medium_;
    std::uint32_t small_;
};

static_assert(line_size_predictor<alsi>);

} // namespace memsub::linesize
