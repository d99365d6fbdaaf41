// memsub — a controller's completed requests, ordered by done cycle, and the drain side of the
// host protocol (memory/concept.hpp MC4–MC6) shared by the controllers that keep them here.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>

namespace memsub::memory::detail {

/// Completions ordered by done cycle (ties in insertion order). A ring of 16-byte keys sorted
/// by done cycle (a new completion almost always lands at or near the young end, so insertion
/// scans from there); the completions sit in a slot pool. All storage is reserved at
/// construction.
class completion_queue {
public:
    completion_queue() = default;
    explicit completion_queue(std::size_t capacity)
        : slots_(capacity)
        , keys_(std::bit_ceil(capacity == 0 ? std::size_t{1} : capacity))
        , mask_(keys_.size() - 1) {
        free_.resize(capacity);
        for (std::size_t i = 0; i < capacity; ++i)
            free_[i] = static_cast<std::uint32_t>(capacity - 1 - i);
        free_n_ = capacity;
    }
    void push(const completion& c) noexcept {
        MEMSUB_ASSERT(free_n_ != 0);
        const std::uint32_t slot = free_[--free_n_];
        slots_[slot] = c;
        std::size_t i = n_;
        while (i > 0 && key(i - 1).done > c.done_cycle) {
            key(i) = key(i - 1);
            --i;
        }
        key(i) = entry{c.done_cycle, slot};
        ++n_;
    }
    [[nodiscard]] bool empty() const noexcept { return n_ == 0; }
    [[nodiscard]] std::size_t size() const noexcept { return n_; }
    [[nodiscard]] std::uint64_t top_cycle() const noexcept { return key(0).done; }
    [[nodiscard]] const completion& top() const noexcept { return slots_[key(0).slot]; }
    /// The earliest done cycle > t (never if none).
    [[nodiscard]] std::uint64_t first_after(std::uint64_t t) const noexcept {
        std::size_t lo = 0, hi = n_;
        while (lo < hi) {
            const std::size_t mid = (lo + hi) / 2;
            if (key(mid).done <= t)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < n_ ? key(lo).done : never;
    }
    completion pop() noexcept {
        MEMSUB_ASSERT(n_ > 0);
        const std::uint32_t slot = key(0).slot;
        head_ = (head_ + 1) & mask_;
        --n_;
        free_[free_n_++] = slot;
        return slots_[slot];
    }

    // The drain side of the host protocol (memory/concept.hpp MC4, MC5), shared by the
    // controllers that keep their completions here; `retire` is the controller's bookkeeping
    // for a completion leaving (held counts, statistics), called before the host sees it.

    /// Pops every completion done by `now`, in done order, into `sink`.
    template <class Retire, class Sink>
    std::size_t drain(std::uint64_t now, Retire&& retire, Sink&& sink) {
        std::size_t n = 0;
        while (!empty() && top_cycle() <= now) {
            const completion c = pop();
            retire(c);
            sink(c);
            ++n;
        }
        return n;
    }
    /// Pops up to `out.size()` completions done by `now`, in done order, into `out`.
    template <class Retire>
    std::size_t drain(std::uint64_t now, std::span<completion> out, Retire&& retire) noexcept {
        std::size_t n = 0;
        while (n < out.size() && !empty() && top_cycle() <= now) {
            out[n] = pop();
            retire(out[n]);
            ++n;
        }
        return n;
    }
    /// The next completion event after `now` (never if none): completions already drainable
    /// are not events (MC5), the next one still ahead is.
    [[nodiscard]] std::uint64_t next_event_after(std::uint64_t now) const noexcept {
        if (empty()) return never;
        return top_cycle() > now ? top_cycle() : first_after(now);
    }

private:
    struct entry {
        std::uint64_t done;
        std::uint32_t slot;
    };
    [[nodiscard]] entry& key(std::size_t i) noexcept { return keys_[(head_ + i) & mask_]; }
    [[nodiscard]] const entry& key(std::size_t i) const noexcept {
        return keys_[(head_ + i) & mask_];
    }
    std::vector<completion> slots_;
    std::vector<entry> keys_;
    std::size_t mask_ = 0;
    std::size_t head_ = 0;
    std::size_t n_ = 0;
    std::vector<std::uint32_t> free_; ///< a stack of free slots: [0, free_n_)
    std::size_t free_n_ = 0;
};

} // namespace memsub::memory::detail
