// memsub — ReMAP's cascaded Bloom-filter victim buffer: predicts a missing line's post-eviction
// reuse distance (PERD) from how recently it was evicted.
//
// Citation: seed 001 §2.2.2, §2.2.5, Fig. 2.2, Table 2.1; spec remap.md "PERD: the cascaded
// Bloom-filter victim buffer" (normative).
//  * Three Bloom filters (stages). The buffer holds E addresses, E = entries_per_set × sets
//    (16 per set by default, "ReMAP-16"; §2.3 explores 8–64).
//  * Every address inserted goes into stage 1. When stage 1 has received E/3 insertions, the
//    stages shift: stage 3 is discarded, stage 2 → 3, stage 1 → 2, stage 1 starts empty. The
//    shift happens right after the (E/3)-th insertion, so the next insertion lands in the new
//    (empty) stage 1.
//  * `classify(address)`, youngest stage first: stage 1 → near (3), stage 2 → intermediate (2),
//    stage 3 → far (1), none → distant (0). An address never inserted is distant (up to false
//    positives).
//  * Each stage has c·(E/3) bits, c = 10 (≈1 % false positives, §2.3.5), k = 7 [resolution, spec:
//    the dissertation gives no k].
//  * [resolution] E/3 is rounded down (at least 1). `stage_entries` overrides it: the
//    dissertation's 18.75 KB budget is three 5K-entry stages (5·1024·c bits each, spec "Hardware
//    budget") for a 1 MB 16-way LLC whose exact E/3 is 5461 — pass 5120 to reproduce it.
// The stages are a ring: a shift moves an index and clears one filter, never copies bits.
// Storage: 3 × c × stage_entries bits (no counters counted: the insertion counter of
// ⌈log2(stage_entries + 1)⌉ bits is reported separately by `counter_bits()`).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/filter/bloom_filter.hpp>

namespace memsub::filter {

/// PERD classes (Table 2.1), the 2-bit code stored with a line.
enum class reuse_distance : std::uint8_t { distant = 0, far = 1, intermediate = 2, near = 3 };

class cascaded_victim_buffer {
public:
    static constexpr std::string_view component = "memsub::filter::cascaded_victim_buffer";
    static constexpr std::uint32_t stages = 3;

    struct params {
        /// Addresses held per cache set (E = entries_per_set × sets); ≥ 1.
        std::uint32_t entries_per_set = 16;
        /// c, bits per entry of each stage (10: ≈1 % false positives).
        std::uint32_t bits_per_entry = 10;
        /// k, hashes per stage [resolution: 7].
        std::uint32_t hashes = 7;
        /// Insertions per stage before a shift; 0 = ⌊E/3⌋ (at least 1).
        std::uint64_t stage_entries = 0;
    };

    cascaded_victim_buffer(std::uint32_t sets, const params& p)
        : stage_entries_(checked_stage_entries(sets, p))
        , filters_{make(p), make(p), make(p)} {}

    /// Adds a departing line's address to stage 1; shifts the stages after every
    /// `stage_entries()` insertions.
    void insert(std::uint64_t line) noexcept {
        filters_[youngest_].insert(line);
        if (++in_youngest_ == stage_entries_) shift();
    }
    /// The PERD class of `line` (youngest stage first).
    [[nodiscard]] reuse_distance classify(std::uint64_t line) const noexcept {
        for (std::uint32_t age = 0; age < stages; ++age)
            if (stage(age).contains(line)) return static_cast<reuse_distance>(3 - age);
        return reuse_distance::distant;
    }
    /// Empties every stage.
    void clear() noexcept {
        for (auto& f : filters_) f.clear();
        in_youngest_ = 0;
    }

    /// Stage `age` (0 = stage 1, the youngest … 2 = stage 3).
    [[nodiscard]] const bloom_filter& stage(std::uint32_t age) const noexcept {
        return filters_[(youngest_ + age) % stages];
    }
    /// Insertions per stage between shifts (⌊E/3⌋ or the override).
    [[nodiscard]] std::uint64_t stage_entries() const noexcept { return stage_entries_; }
    /// Insertions into the current stage 1 so far (< stage_entries()).
    [[nodiscard]] std::uint64_t pending_in_stage1() const noexcept { return in_youngest_; }
    /// Shifts since construction.
    [[nodiscard]] std::uint64_t shifts() const noexcept { return shifts_; }
    /// The three stages' bit arrays: 3 × c × stage_entries.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{stages} * filters_[0].storage_bits();
    }
    /// The insertion counter a hardware buffer needs to time its shifts.
    [[nodiscard]] std::uint64_t counter_bits() const noexcept {
        return static_cast<std::uint64_t>(std::bit_width(stage_entries_));
    }

private:
    static std::uint64_t checked_stage_entries(std::uint32_t sets, const params& p) {
        using memsub::detail::require;
        require(sets >= 1, component, "sets", sets, "must be >= 1");
        require(p.entries_per_set >= 1, component, "entries_per_set", p.entries_per_set,
                "must be >= 1");
        if (p.stage_entries != 0) return p.stage_entries;
        const std::uint64_t e = std::uint64_t{p.entries_per_set} * sets;
        return e / stages > 0 ? e / stages : 1;
    }
    bloom_filter make(const params& p) const {
        try {
            return bloom_filter({.entries = stage_entries_,
                                 .bits_per_entry = p.bits_per_entry,
                                 .hashes = p.hashes});
        } catch (const config_error& e) { // name this component and its parameter
            throw config_error(component, e.parameter(), e.value(), e.rule());
        }
    }
    void shift() noexcept {
        // The oldest stage (stage 3) is discarded and becomes the new, empty stage 1.
        youngest_ = (youngest_ + stages - 1) % stages;
        filters_[youngest_].clear();
        in_youngest_ = 0;
        ++shifts_;
    }

    std::uint64_t stage_entries_;
    std::array<bloom_filter, stages> filters_;
    std::uint32_t youngest_ = 0;
    std::uint64_t in_youngest_ = 0;
    std::uint64_t shifts_ = 0;
};

} // namespace memsub::filter
