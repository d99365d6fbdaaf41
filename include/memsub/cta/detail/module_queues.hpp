// memsub — per-module CTA queues of the batch schedulers: module m's unstarted CTAs are the
// range [lo_m, hi_m), and the SM positions of modules with work are cached as bit words
// (recomputed when a module runs dry or gains work: at most a few times per launch).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace memsub::cta::detail {

class module_queues {
public:
    module_queues() = default;
    module_queues(std::uint32_t modules, std::uint32_t words)
        : lo_(modules, 0)
        , hi_(modules, 0)
        , words_(words, 0) {}

    [[nodiscard]] bool has_work(std::uint32_t m) const noexcept { return lo_[m] != hi_[m]; }
    [[nodiscard]] std::uint32_t remaining(std::uint32_t m) const noexcept {
        return hi_[m] - lo_[m];
    }
    [[nodiscard]] std::uint64_t work_set() const noexcept { return set_; }
    [[nodiscard]] std::uint64_t word(std::uint32_t w) const noexcept { return words_[w]; }
    [[nodiscard]] std::uint32_t lo(std::uint32_t m) const noexcept { return lo_[m]; }
    [[nodiscard]] std::uint32_t hi(std::uint32_t m) const noexcept { return hi_[m]; }

    /// Sets module m's range (call refresh() after a batch of changes).
    void set(std::uint32_t m, std::uint32_t lo, std::uint32_t hi) noexcept {
        lo_[m] = lo;
        hi_[m] = hi;
        const std::uint64_t bit = std::uint64_t{1} << m;
        set_ = lo != hi ? set_ | bit : set_ & ~bit;
    }
    /// Takes the first CTA of module m's range; true if the module ran dry.
    bool pop_front(std::uint32_t m, std::uint32_t& cta) noexcept {
        cta = lo_[m]++;
        if (lo_[m] != hi_[m]) return false;
        set_ &= ~(std::uint64_t{1} << m);
        return true;
    }
    /// Removes the last `k` CTAs of module m's range (k ≤ remaining); true if it ran dry.
    bool pop_back(std::uint32_t m, std::uint32_t k) noexcept {
        hi_[m] -= k;
        if (lo_[m] != hi_[m]) return false;
        set_ &= ~(std::uint64_t{1} << m);
        return true;
    }
    /// Recomputes the cached position words from the work set.
    template <class Base>
    void refresh(const Base& base) noexcept {
        for (std::uint32_t w = 0; w < words_.size(); ++w) words_[w] = base.modules_word(set_, w);
    }

private:
    std::vector<std::uint32_t> lo_, hi_;
    std::vector<std::uint64_t> words_;
    std::uint64_t set_ = 0;
};

} // namespace memsub::cta::detail
