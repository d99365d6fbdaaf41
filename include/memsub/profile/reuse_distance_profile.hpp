// memsub — `reuse_distance_profile`: reuse distances of a line reference stream, per PC and per
// (PC, divergence bin), as ID-Cache's characterisation measures them ([Dissertation] §3.1,
// Figs. 3.6–3.8: median, 25th and 75th percentiles); bypass/offline_trainer.hpp trains ID-Cache's
// tables from one.
//
// Decision (docs/mechanisms/id_cache.md, 'Offline-trained variant'): distance = distinct lines
// referenced in the same L1 set between two references to a line (an LRU stack per set; 32 sets
// of 128 B lines by default); a first reference, or one whose line fell more than `max_distance`
// lines down the stack, counts as "beyond" (reported as max_distance + 1). Divergence bins as
// bypass::pc_divergence: d = 1 | 2–3 | 4–15 | ≥ 16. A host calls `reference` once per line
// request of a warp instruction (not per sector run). It does not allocate after construction.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>

namespace memsub::profile {

class reuse_distance_profile {
public:
    struct params {
        std::uint32_t sets = 32;
        std::uint32_t line_bytes = 128;
        /// Distances above this are "beyond" (max_distance + 1).
        std::uint32_t max_distance = 64;
        /// Distinct PCs tracked; later ones share one "other PCs" row.
        std::uint32_t max_pcs = 64;
        /// As bypass::pc_divergence's bins: d < 2 | 2..3 | 4..15 | >= 16.
        std::array<std::uint32_t, 3> divergence_bin_starts{2, 4, 16};
    };
    static constexpr std::uint32_t bins = 4;

    struct summary {
        std::uint64_t references = 0;
        std::uint32_t p25 = 0, median = 0, p75 = 0;
    };

    reuse_distance_profile() : reuse_distance_profile(params{}) {}
    explicit reuse_distance_profile(const params& p)
        : p_((validate(p), p))
        , line_shift_(static_cast<std::uint32_t>(std::countr_zero(p.line_bytes)))
        , stacks_(std::size_t{p.sets} * p.max_distance + p.sets)
        , depth_(p.sets, 0)
        , pcs_(p.max_pcs + 1, 0)
        , histogram_(std::size_t{p.max_pcs + 1} * bins * (p.max_distance + 2), 0) {}

    /// One reference to the line holding `address` by instruction `pc` with divergence `d`;
    /// returns its distance (max_distance + 1 = beyond).
    std::uint32_t reference(std::uint64_t pc, std::uint32_t d, std::uint64_t address) noexcept {
        const std::uint64_t line = address >> line_shift_;
        const auto set = static_cast<std::uint32_t>(line % p_.sets);
        std::uint64_t* stack = &stacks_[std::size_t{set} * (p_.max_distance + 1)];
        std::uint32_t& depth = depth_[set];
        std::uint32_t pos = 0;
        while (pos < depth && stack[pos] != line) ++pos;
        const std::uint32_t distance = pos < depth ? pos : p_.max_distance + 1;
        // Move to the front (the stack keeps max_distance + 1 lines: distances 0..max).
        std::uint32_t from = pos < depth ? pos : std::min(depth, p_.max_distance);
        if (pos >= depth && depth <= p_.max_distance) ++depth;
        for (; from > 0; --from) stack[from] = stack[from - 1];
        stack[0] = line;
        ++histogram_[index(pc_slot(pc), bin_of(d), distance)];
        return distance;
    }

    /// Percentiles of one PC's distances over all divergence bins (nullopt: PC never seen).
    [[nodiscard]] std::optional<summary> of_pc(std::uint64_t pc) const noexcept {
        const auto s = find_pc(pc);
        if (!s) return std::nullopt;
        return summarise(*s, 0, bins);
    }
    /// Percentiles of one PC's distances with divergence bin `bin`.
    [[nodiscard]] std::optional<summary> of_pc_bin(std::uint64_t pc,
                                                   std::uint32_t bin) const noexcept {
        const auto s = find_pc(pc);
        if (!s || bin >= bins) return std::nullopt;
        return summarise(*s, bin, bin + 1);
    }
    /// Every reference together (Fig. 3.6's per-application distribution).
    [[nodiscard]] summary overall() const noexcept {
        std::vector<std::uint64_t> counts(p_.max_distance + 2, 0);
        for (std::uint32_t s = 0; s <= p_.max_pcs; ++s)
            for (std::uint32_t b = 0; b < bins; ++b)
                for (std::uint32_t d = 0; d <= p_.max_distance + 1; ++d)
                    counts[d] += histogram_[index(s, b, d)];
        return from_counts(counts);
    }
    /// The PCs seen, in first-seen order (at most max_pcs).
    [[nodiscard]] std::vector<std::uint64_t> pcs() const {
        return {pcs_.begin(), pcs_.begin() + used_pcs_};
    }
    [[nodiscard]] std::uint32_t bin_of(std::uint32_t d) const noexcept {
        const auto& b = p_.divergence_bin_starts;
        return static_cast<std::uint32_t>(d >= b[0]) + static_cast<std::uint32_t>(d >= b[1]) +
               static_cast<std::uint32_t>(d >= b[2]);
    }
    [[nodiscard]] std::uint32_t beyond() const noexcept { return p_.max_distance + 1; }

private:
    static void validate(const params& p) {
        constexpr std::string_view c = "memsub::profile::reuse_distance_profile";
        memsub::require(p.sets >= 1, c, "sets", p.sets, "must be >= 1");
        memsub::require(std::has_single_bit(p.line_bytes), c, "line_bytes", p.line_bytes,
                        "must be a power of two");
        memsub::require(p.max_distance >= 1 && p.max_distance <= 4096, c, "max_distance",
                        p.max_distance, "must be in 1..4096");
        memsub::require(p.max_pcs >= 1 && p.max_pcs <= 4096, c, "max_pcs", p.max_pcs,
                        "must be in 1..4096");
        const auto& b = p.divergence_bin_starts;
        memsub::require(b[0] >= 2 && b[1] > b[0] && b[2] > b[1], c, "divergence_bin_starts", b[0],
                        "must be strictly increasing, the first >= 2");
    }
    [[nodiscard]] std::size_t index(std::uint32_t slot, std::uint32_t bin,
                                    std::uint32_t d) const noexcept {
        return (std::size_t{slot} * bins + bin) * (p_.max_distance + 2) + d;
    }
    std::uint32_t pc_slot(std::uint64_t pc) noexcept {
        for (std::uint32_t i = 0; i < used_pcs_; ++i)
            if (pcs_[i] == pc) return i;
        if (used_pcs_ < p_.max_pcs) {
            pcs_[used_pcs_] = pc;
            return used_pcs_++;
        }
        return p_.max_pcs; // "other PCs"
    }
    [[nodiscard]] std::optional<std::uint32_t> find_pc(std::uint64_t pc) const noexcept {
        for (std::uint32_t i = 0; i < used_pcs_; ++i)
            if (pcs_[i] == pc) return i;
        return std::nullopt;
    }
    [[nodiscard]] summary summarise(std::uint32_t slot, std::uint32_t bin_lo,
                                    std::uint32_t bin_hi) const {
        std::vector<std::uint64_t> counts(p_.max_distance + 2, 0);
        for (std::uint32_t b = bin_lo; b < bin_hi; ++b)
            for (std::uint32_t d = 0; d <= p_.max_distance + 1; ++d)
                counts[d] += histogram_[index(slot, b, d)];
        return from_counts(counts);
    }
    /// The smallest distance whose cumulative count reaches q of the total (nearest rank).
    static summary from_counts(const std::vector<std::uint64_t>& counts) {
        summary s{};
        for (const auto c : counts) s.references += c;
        if (s.references == 0) return s;
        const auto quantile = [&](std::uint64_t num, std::uint64_t den) {
            const std::uint64_t rank = (s.references * num + den - 1) / den; // ceil, >= 1
            std::uint64_t seen = 0;
            for (std::uint32_t d = 0; d < counts.size(); ++d)
                if ((seen += counts[d]) >= std::max<std::uint64_t>(rank, 1)) return d;
            return static_cast<std::uint32_t>(counts.size() - 1);
        };
        s.p25 = quantile(1, 4);
        s.median = quantile(1, 2);
        s.p75 = quantile(3, 4);
        return s;
    }

    params p_;
    std::uint32_t line_shift_;
    std::vector<std::uint64_t> stacks_;
    std::vector<std::uint32_t> depth_;
    std::vector<std::uint64_t> pcs_;
    std::uint32_t used_pcs_ = 0;
    std::vector<std::uint64_t> histogram_;
};

} // namespace memsub::profile
