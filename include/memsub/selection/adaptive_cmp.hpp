// memsub — `selection::adaptive_cmp`: Alameldeen & Wood's adaptive compression ([Adaptive-CMP]
// §4; the GPU baseline of [Dissertation] §4.3.7).
//
// One global saturating counter (the "global compression predictor") weighs compression's
// benefit against its cost, from each access's LRU stack depth among the set's tags:
//  * a hit at depth ≥ the uncompressed associativity is a line resident only because lines are
//    compressed: an avoided miss, + the miss penalty;
//  * a miss to a line whose tag is still held as a tag-only entry and that would have been
//    resident had the lines above it been compressed: an avoidable miss, + the miss penalty;
//  * a hit at depth < the uncompressed associativity to a compressed line would have hit
//    uncompressed too: a penalized hit, − the decompression latency of the line's mode;
//  * every other access leaves the counter.
// New lines are stored in the compressed mode while the counter is positive, uncompressed
// otherwise. Decision (the GPU adaptation is not given in the text): the compressed mode is a
// param, default 2 (SC², LATTE-CC's high-capacity mode); the counter has [Adaptive-CMP]'s 19
// bits and starts at 0 (so the cache starts uncompressed and compresses once tag-only entries
// show avoidable misses); the spare tags of the compressed cache keep recently evicted lines as
// tag-only entries below the resident ones in LRU order, as in that paper (the host reports
// them through `access_outcome::stack_depth` / `fits_if_compressed`, SO3). Stores (write-evict)
// leave the counter.
// Storage: the counter (19 bits); the tag-only entries reuse the compressed cache's spare tags.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/selection/concept.hpp>

namespace memsub::selection {

class adaptive_cmp {
public:
    struct params {
        /// The mode new lines use while the counter is positive.
        std::uint32_t compressed_mode = 2;
        /// Width of the signed saturating counter, 2..62.
        std::uint32_t counter_bits = 19;
    };
    static constexpr std::string_view component = "memsub::selection::adaptive_cmp";
    static constexpr bool needs_stack_depth = true;

    adaptive_cmp(const selection_shape& shape, const params& p)
        : mode_(p.compressed_mode)
        , bits_(p.counter_bits)
        , penalty_(shape.miss_latency)
        , uncompressed_ways_(shape.uncompressed_ways) {
        shape.validate(component);
        require(p.compressed_mode >= 1 && p.compressed_mode < shape.modes.size(), component,
                "compressed_mode", p.compressed_mode, "must name a compressed mode of the cache");
        require(p.counter_bits >= 2 && p.counter_bits <= 62, component, "counter_bits",
                p.counter_bits, "must be in 2..62");
        max_ = (std::int64_t{1} << (p.counter_bits - 1)) - 1;
        min_ = -(std::int64_t{1} << (p.counter_bits - 1));
        for (std::size_t m = 0; m < shape.modes.size(); ++m)
            decompress_[m] = shape.modes[m].decompress_cycles;
    }

    [[nodiscard]] std::uint32_t insertion_mode(set_index) const noexcept {
        return counter_ > 0 ? mode_ : 0u;
    }

    void on_access(const access_outcome& o) noexcept {
        if (!o.is_load()) return;
        if (o.is_hit()) {
            if (o.stack_depth == no_depth) return;
            if (o.stack_depth >= uncompressed_ways_) {
                add(penalty_);
                ++avoided_misses_;
            } else if (o.compressed) {
                add(-std::int64_t{decompress_[o.mode < max_modes ? o.mode : 0]});
                ++penalized_hits_;
            }
            return;
        }
        if (o.stack_depth != no_depth && o.fits_if_compressed) {
            add(penalty_);
            ++avoidable_misses_;
        }
    }

    [[nodiscard]] std::string_view name() const noexcept { return "adaptive-cmp"; }
    /// SO3: the mode whose sizes decide "would have fit compressed".
    [[nodiscard]] std::uint32_t compressed_mode() const noexcept { return mode_; }
    [[nodiscard]] std::int64_t counter() const noexcept { return counter_; }
    [[nodiscard]] std::uint64_t avoided_misses() const noexcept { return avoided_misses_; }
    [[nodiscard]] std::uint64_t avoidable_misses() const noexcept { return avoidable_misses_; }
    [[nodiscard]] std::uint64_t penalized_hits() const noexcept { return penalized_hits_; }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return bits_; }

private:
    void add(std::int64_t delta) noexcept {
        const std::int64_t v = counter_ + delta;
        counter_ = v > max_ ? max_ : (v < min_ ? min_ : v);
    }

    std::uint32_t mode_;
    std::uint32_t bits_;
    std::int64_t penalty_;
    std::uint32_t uncompressed_ways_;
    std::int64_t max_ = 0, min_ = 0;
    std::int64_t counter_ = 0;
    std::uint32_t decompress_[max_modes]{};
    std::uint64_t avoided_misses_ = 0, avoidable_misses_ = 0, penalized_hits_ = 0;
};

static_assert(diagnose_mode_selector<adaptive_cmp>());

} // namespace memsub::selection
