// memsub — the machinery every CTA scheduler shares (cta/concept.hpp CT2–CT6): per-SM resident
// counts, bit sets of SMs with a free slot and of idle SMs, and a round-robin scan for the next
// SM a policy has a CTA for. A policy (CRTP) supplies:
//   eligible_word(w) — the SM positions of word w it has a CTA for now (free or not);
//   eligible(pos), take(pos) — the same for one position, and the CTA it starts there;
//   on_launch(kernel), on_release(pos) — bookkeeping.
// SMs are scanned in a module-interleaved order: position k is SM (k mod M)·S + k / M, so
// consecutive positions are on different modules (the MCM-GPU centralised scheduler scatters
// consecutive CTAs across GPMs, [MCM-GPU] Fig 8(a)).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/cta/concept.hpp>

namespace memsub::cta::detail {

/// Division and remainder by a count fixed at construction (shifts for powers of two).
class small_divider {
public:
    small_divider() = default;
    explicit small_divider(std::uint32_t d) noexcept
        : d_(d)
        , pow2_(std::has_single_bit(d))
        , shift_(std::countr_zero(d)) {}
    [[nodiscard]] std::uint32_t div(std::uint32_t x) const noexcept {
        return pow2_ ? x >> shift_ : x / d_;
    }
    [[nodiscard]] std::uint32_t mod(std::uint32_t x) const noexcept {
        return pow2_ ? x & (d_ - 1) : x % d_;
    }

private:
    std::uint32_t d_ = 1;
    bool pow2_ = true;
    int shift_ = 0;
};

template <class Derived>
class scheduler_base {
public:
    /// CT3.
    [[nodiscard]] std::optional<cta_assignment> dispatch() noexcept {
        if (unstarted_ == 0 || free_sms_ == 0) return std::nullopt;
        const std::uint32_t pos = find_from(cursor_);
        if (pos == no_cta) return std::nullopt;
        return start(pos);
    }

    /// CT4.
    [[nodiscard]] std::uint32_t next_cta(std::uint32_t sm) noexcept {
        if (sm >= sms_ || unstarted_ == 0) return no_cta;
        const std::uint32_t pos = pos_of(sm);
        if ((free_[pos >> 6] >> (pos & 63) & 1) == 0 || !self().eligible(pos)) return no_cta;
        return start(pos).cta;
    }

    /// CT5.
    void on_cta_complete(std::uint32_t sm) noexcept {
        if (sm >= sms_ || running_[pos_of(sm)] == 0) {
            ++stats_.ignored_completions;
            return;
        }
        const std::uint32_t pos = pos_of(sm);
        --running_total_;
        const std::uint64_t bit = std::uint64_t{1} << (pos & 63);
        free_[pos >> 6] |= bit;
        if (running_[pos] == max_per_sm_) ++free_sms_;
        if (--running_[pos] == 0) idle_[pos >> 6] |= bit;
        self().on_release(pos);
    }

    /// CT2.
    void launch(const kernel_launch& k) {
        require(k.max_ctas_per_sm >= 1, Derived::component, "max_ctas_per_sm", k.max_ctas_per_sm,
                "must be at least 1");
        require(k.ctas < no_cta, Derived::component, "ctas", k.ctas, "must be below 2^32 - 1");
        if (running_total_ != 0)
            throw std::logic_error(std::string(Derived::component) + ": launch while " +
                                   std::to_string(running_total_) +
                                   " CTAs of the previous kernel still run (CTP2)");
        max_per_sm_ = k.max_ctas_per_sm;
        ctas_ = k.ctas;
        unstarted_ = k.ctas;
        cursor_ = 0;
        free_ = all_;
        idle_ = all_;
        free_sms_ = sms_;
        self().on_launch(k);
    }

    // ------------------------------------------------------------------ CT6

    [[nodiscard]] std::uint32_t modules() const noexcept { return modules_; }
    [[nodiscard]] std::uint32_t sms_per_module() const noexcept { return sms_per_module_; }
    [[nodiscard]] std::uint32_t sms() const noexcept { return sms_; }
    [[nodiscard]] std::uint32_t ctas() const noexcept { return ctas_; }
    [[nodiscard]] std::uint32_t unstarted() const noexcept { return unstarted_; }
    [[nodiscard]] std::uint32_t running() const noexcept { return running_total_; }
    [[nodiscard]] std::uint32_t running_on(std::uint32_t sm) const noexcept {
        return sm < sms_ ? running_[pos_of(sm)] : 0;
    }
    [[nodiscard]] bool finished() const noexcept { return unstarted_ == 0 && running_total_ == 0; }
    [[nodiscard]] const cta_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] std::uint32_t module_of(std::uint32_t sm) const noexcept {
        return sm_div_.div(sm);
    }
    [[nodiscard]] std::uint32_t max_ctas_per_sm() const noexcept { return max_per_sm_; }
    /// Word w of the visit positions of the modules in `module_set` (bit m = module m).
    [[nodiscard]] std::uint64_t modules_word(std::uint64_t module_set,
                                             std::uint32_t w) const noexcept {
        std::uint64_t out = 0;
        for (; module_set != 0; module_set &= module_set - 1)
            out |= module_masks_[std::size_t(std::countr_zero(module_set)) * words_ + w];
        return out;
    }

protected:
    scheduler_base(std::uint32_t modules, std::uint32_t sms_per_module) {
        require(modules >= 1 && modules <= 64, Derived::component, "modules", modules,
                "must be in 1..64");
        require(sms_per_module >= 1 && sms_per_module <= 4096, Derived::component, "sms_per_module",
                sms_per_module, "must be in 1..4096");
        require(std::uint64_t{modules} * sms_per_module <= 65536, Derived::component,
                "modules × sms_per_module", std::uint64_t{modules} * sms_per_module,
                "at most 65536 SMs");
        modules_ = modules;
        sms_per_module_ = sms_per_module;
        sms_ = modules * sms_per_module;
        words_ = (sms_ + 63) / 64;
        mod_div_ = small_divider(modules);
        sm_div_ = small_divider(sms_per_module);
        running_.assign(sms_, 0);
        all_.assign(words_, 0);
        for (std::uint32_t p = 0; p < sms_; ++p) all_[p >> 6] |= std::uint64_t{1} << (p & 63);
        free_ = all_;
        idle_ = all_;
        // Positions of each module: p ≡ m (mod M).
        module_masks_.assign(std::size_t{modules} * words_, 0);
        for (std::uint32_t p = 0; p < sms_; ++p)
            module_masks_[std::size_t{mod_div_.mod(p)} * words_ + (p >> 6)] |= std::uint64_t{1}
                                                                               << (p & 63);
    }

    [[nodiscard]] Derived& self() noexcept { return static_cast<Derived&>(*this); }
    [[nodiscard]] const Derived& self() const noexcept {
        return static_cast<const Derived&>(*this);
    }

    /// Visit position ↔ SM id (CTP1).
    [[nodiscard]] std::uint32_t sm_of(std::uint32_t pos) const noexcept {
        return mod_div_.mod(pos) * sms_per_module_ + mod_div_.div(pos);
    }
    [[nodiscard]] std::uint32_t pos_of(std::uint32_t sm) const noexcept {
        const std::uint32_t m = sm_div_.div(sm);
        return (sm - m * sms_per_module_) * modules_ + m;
    }
    [[nodiscard]] std::uint32_t module_of_pos(std::uint32_t pos) const noexcept {
        return mod_div_.mod(pos);
    }
    [[nodiscard]] bool is_idle(std::uint32_t pos) const noexcept {
        return (idle_[pos >> 6] >> (pos & 63) & 1) != 0;
    }
    [[nodiscard]] std::uint64_t idle_word(std::uint32_t w) const noexcept { return idle_[w]; }
    [[nodiscard]] std::uint64_t all_word(std::uint32_t w) const noexcept { return all_[w]; }
    [[nodiscard]] std::uint32_t words() const noexcept { return words_; }

    cta_stats stats_{};

private:
    cta_assignment start(std::uint32_t pos) noexcept {
        const std::uint32_t cta = self().take(pos);
        ++running_total_;
        --unstarted_;
        ++stats_.started;
        const std::uint64_t bit = std::uint64_t{1} << (pos & 63);
        idle_[pos >> 6] &= ~bit;
        if (++running_[pos] == max_per_sm_) {
            free_[pos >> 6] &= ~bit;
            --free_sms_;
        }
        cursor_ = pos + 1 == sms_ ? 0 : pos + 1;
        return cta_assignment{.cta = cta, .sm = sm_of(pos), .module = module_of_pos(pos)};
    }

    /// The first position at or after `from` (cyclically) with a free slot that the policy has
    /// a CTA for; no_cta if none.
    [[nodiscard]] std::uint32_t find_from(std::uint32_t from) const noexcept {
        const std::uint32_t w0 = from >> 6;
        const std::uint32_t b0 = from & 63;
        for (std::uint32_t i = 0; i <= words_; ++i) {
            std::uint32_t w = w0 + i;
            if (w >= words_) w -= words_;
            std::uint64_t m = free_[w];
            if (i == 0) m &= ~std::uint64_t{0} << b0;
            if (i == words_) m &= b0 == 0 ? 0 : (std::uint64_t{1} << b0) - 1;
            if (m == 0) continue;
            m &= self().eligible_word(w);
            if (m != 0) return w * 64 + static_cast<std::uint32_t>(std::countr_zero(m));
        }
        return no_cta;
    }

    std::uint32_t modules_ = 1, sms_per_module_ = 1, sms_ = 1, words_ = 1;
    small_divider mod_div_{}, sm_div_{};
    std::uint32_t max_per_sm_ = 1;
    std::uint32_t ctas_ = 0, unstarted_ = 0, running_total_ = 0, cursor_ = 0;
    /// SMs with a free slot (a full machine answers dispatch at once).
    std::uint32_t free_sms_ = 0;
    std::vector<std::uint32_t> running_;
    std::vector<std::uint64_t> all_, free_, idle_, module_masks_;
};

/// Balanced contiguous ranges (C5.5 with decision G5.3, docs/mechanisms/multi_module_gpu.md):
/// module g gets [⌊g·C/G⌋, ⌊(g+1)·C/G⌋).
[[nodiscard]] constexpr std::uint32_t range_begin(std::uint32_t g, std::uint32_t ctas,
                                                  std::uint32_t modules) noexcept {
    return static_cast<std::uint32_t>(std::uint64_t{g} * ctas / modules);
}

} // namespace memsub::cta::detail
