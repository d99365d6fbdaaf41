// memsub — ReMAP's cascaded Bloom-filter victim buffer: predicts a missing line's post-eviction
// reuse distance (PERD) from how recently it was evicted.
//
// Citation: [Dissertation] §2.2.2, §2.2.5, Fig. 2.2, Table 2.1; decisions in
// docs/mechanisms/remap.md, 'PERD: the cascaded victim buffer'.
//  * Three Bloom filters (stages). The buffer holds E addresses, E = entries_per_set × sets
//    (16 per set by default, "ReMAP-16"; §2.3 explores 8–64).
//  * Every address inserted goes into stage 1. When stage 1 has received E/3 insertions, the
//    stages shift: stage 3 is discarded, stage 2 → 3, stage 1 → 2, stage 1 starts empty. The
//    shift happens right after the (E/3)-th insertion, so the next insertion lands in the new
//    (empty) stage 1.
//  * `classify(address)`, youngest stage first: stage 1 → near (3), stage 2 → intermediate (2),
//    stage 3 → far (1), none → distant (0). An address never inserted is distant (up to false
//    positives).
//  * Each stage has c·(E/3) bits, c = 10 (≈1 % false positives, §2.3.5), k = 7 (Decision: the
//    optimum for 10 bits per entry; the dissertation gives no k).
//  * Decision: E/3 is rounded down (at least 1), so the stages never exceed the budget.
//    `stage_entries` overrides it: the dissertation's 18.75 KB budget is three 5K-entry stages
//    (5·1024·c bits each; the text's "5 * c bits" read as 5K·c) for a 1 MB 16-way LLC whose exact
//    E/3 is 5461 — pass 5120 to reproduce it.
// Layout (simulation, not hardware): the three stages use the same m and k, so a key's k probe
// positions are the same in every stage. The buffer keeps one byte per position whose bits 0–2
// are the three stages' bits: an insertion sets the youngest stage's bit at k positions, a
// lookup ANDs k bytes and reads all three stages at once (one hashing, k loads, no branch per
// stage). A shift renames the stages (a ring index) and clears one bit plane.
// Storage: 3 × c × stage_entries bits (no counters counted: the insertion counter of
// ⌈log2(stage_entries + 1)⌉ bits is reported separately by `counter_bits()`).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

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
        /// k, hashes per stage (Decision: 7, optimal for 10 bits per entry).
        std::uint32_t hashes = 7;
        /// Insertions per stage before a shift; 0 = ⌊E/3⌋ (at least 1).
        std::uint64_t stage_entries = 0;

        /// The fields text can set (core/param_text.hpp).
        template <class V>
        friend void describe_params(V& v, params& p) {
            v("entries_per_set", p.entries_per_set);
            v("bits_per_entry", p.bits_per_entry);
            v("hashes", p.hashes);
            v("stage_entries", p.stage_entries);
        }
    };

    cascaded_victim_buffer(std::uint32_t sets, const params& p)
        : stage_entries_(checked_stage_entries(sets, p))
        , stage_bits_(make(p).storage_bits())
        , hashes_(p.hashes)
        , cells_(stage_bits_, 0) {}

    /// Adds a departing line's address to stage 1; shifts the stages after every
    /// `stage_entries()` insertions. No allocation.
    void insert(std::uint64_t line) noexcept {
        const auto bit = static_cast<std::uint8_t>(1u << youngest_);
        std::uint8_t* cells = cells_.data();
        detail::for_each_probe(line, cells_.size(), hashes_,
                               [cells, bit](std::uint64_t pos) noexcept {
                                   cells[pos] |= bit;
                                   return true;
                               });
        ++inserted_[youngest_];
        if (inserted_[youngest_] == stage_entries_) shift();
    }
    /// The PERD class of `line` (youngest stage first).
    [[nodiscard]] reuse_distance classify(std::uint64_t line) const noexcept {
        const std::uint8_t found = stages_holding(line);
        for (std::uint32_t age = 0; age < stages; ++age)
            if ((found >> plane(age)) & 1u) return static_cast<reuse_distance>(3 - age);
        return reuse_distance::distant;
    }
    /// Whether stage `age` (0 = stage 1) holds `line` (up to false positives).
    [[nodiscard]] bool stage_contains(std::uint32_t age, std::uint64_t line) const noexcept {
        return ((stages_holding(line) >> plane(age)) & 1u) != 0;
    }
    /// Empties every stage.
    void clear() noexcept {
        for (auto& c : cells_) c = 0;
        inserted_ = {};
    }

    /// Insertions into stage `age` (0 = stage 1, the youngest … 2 = stage 3) since it was last
    /// emptied.
    [[nodiscard]] std::uint64_t stage_inserted(std::uint32_t age) const noexcept {
        return inserted_[plane(age)];
    }
    /// Bits set in stage `age`'s array.
    [[nodiscard]] std::uint64_t stage_bits_set(std::uint32_t age) const noexcept {
        const std::uint32_t b = plane(age);
        std::uint64_t n = 0;
        for (const auto c : cells_) n += (c >> b) & 1u;
        return n;
    }
    /// Insertions per stage between shifts (⌊E/3⌋ or the override).
    [[nodiscard]] std::uint64_t stage_entries() const noexcept { return stage_entries_; }
    /// Insertions into the current stage 1 so far (< stage_entries()).
    [[nodiscard]] std::uint64_t pending_in_stage1() const noexcept { return inserted_[youngest_]; }
    /// Shifts since construction.
    [[nodiscard]] std::uint64_t shifts() const noexcept { return shifts_; }
    /// Bits per stage (m = c × stage_entries) and hashes (k).
    [[nodiscard]] std::uint64_t stage_bits() const noexcept { return stage_bits_; }
    [[nodiscard]] std::uint32_t hashes() const noexcept { return hashes_; }
    /// The three stages' bit arrays: 3 × c × stage_entries.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::uint64_t{stages} * stage_bits_;
    }
    /// The insertion counter a hardware buffer needs to time its shifts.
    [[nodiscard]] std::uint64_t counter_bits() const noexcept {
        return static_cast<std::uint64_t>(std::bit_width(stage_entries_));
    }

private:
    static std::uint64_t checked_stage_entries(std::uint32_t sets, const params& p) {
        require(sets >= 1, component, "sets", sets, "must be >= 1");
        require(p.entries_per_set >= 1, component, "entries_per_set", p.entries_per_set,
                "must be >= 1");
        if (p.stage_entries != 0) return p.stage_entries;
        const std::uint64_t e = std::uint64_t{p.entries_per_set} * sets;
        return e / stages > 0 ? e / stages : 1;
    }
    // Validates c and k (and m's bound) through bloom_filter's rules, naming this component.
    bloom_filter make(const params& p) const {
        try {
            return bloom_filter({.entries = stage_entries_,
                                 .bits_per_entry = p.bits_per_entry,
                                 .hashes = p.hashes});
        } catch (const config_error& e) {
            throw config_error(component, e.parameter(), e.value(), e.rule());
        }
    }
    /// The bit plane of stage `age`.
    [[nodiscard]] std::uint32_t plane(std::uint32_t age) const noexcept {
        return (youngest_ + age) % stages;
    }
    /// Bit b set iff the stage in plane b holds `line`.
    [[nodiscard]] std::uint8_t stages_holding(std::uint64_t line) const noexcept {
        std::uint8_t all = 0x7;
        const std::uint8_t* cells = cells_.data();
        detail::for_each_probe(line, cells_.size(), hashes_,
                               [cells, &all](std::uint64_t pos) noexcept {
                                   all &= cells[pos];
                                   return true;
                               });
        return all;
    }
    void shift() noexcept {
        // The oldest stage (stage 3) is discarded and its plane becomes the new, empty stage 1.
        youngest_ = (youngest_ + stages - 1) % stages;
        const auto keep = static_cast<std::uint8_t>(~(1u << youngest_));
        for (auto& c : cells_) c &= keep;
        inserted_[youngest_] = 0;
        ++shifts_;
    }

    std::uint64_t stage_entries_;
    std::uint64_t stage_bits_;
    std::uint32_t hashes_;
    std::vector<std::uint8_t> cells_;
    std::array<std::uint64_t, stages> inserted_{};
    std::uint32_t youngest_ = 0;
    std::uint64_t shifts_ = 0;
};

} // namespace memsub::filter
