// memsub — a fixed-capacity, age-ordered request queue for associative schedulers.
//
// Index 0 is the oldest entry. The scheduling keys (bank, row, visibility) are kept apart from
// the requests in a compact array, so a scheduler scanning the queue touches 16 bytes per
// entry. Storage is a ring (allocated once): removing entry i shifts whichever side of it is
// shorter, so FCFS-like removal of old entries is O(1). Queues of up to 64 entries also keep,
// per bank, the bitmask of the positions holding it (`positions_of`), so the entries of a set
// of banks are found without a scan. Those queues use a ring of 64 slots and keep the masks
// over ring slots (bit s = slot s; entry i is at slot head + i mod 64): removing the oldest
// entry only moves the head, and a position mask is the slot mask rotated by the head.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/memory/concept.hpp>

namespace memsub::memory::detail {

class request_queue {
public:
    struct key {
        std::uint64_t visible_at = 0; ///< first cycle the scheduler may consider it
        std::uint32_t row = 0;
        std::uint32_t bank = 0; ///< flat bank within the channel
    };

    request_queue() = default;
    explicit request_queue(std::size_t capacity)
        : cap_(capacity)
        , mask_(capacity <= 64 ? 63 : std::bit_ceil(capacity) - 1)
        , keys_(mask_ + 1)
        , reqs_(mask_ + 1) {}

    [[nodiscard]] std::size_t size() const noexcept { return n_; }
    [[nodiscard]] std::size_t capacity() const noexcept { return cap_; }
    [[nodiscard]] bool empty() const noexcept { return n_ == 0; }
    [[nodiscard]] bool full() const noexcept { return n_ >= cap_; }

    void push_back(const key& k, const mem_request& r) noexcept {
        MEMSUB_ASSERT(!full());
        const std::size_t s = (head_ + n_) & mask_;
        keys_[s] = k;
        reqs_[s] = r;
        if (tracks_positions()) {
            MEMSUB_ASSERT(k.bank < 64);
            slots_[k.bank] |= std::uint64_t{1} << s;
            banks_ |= std::uint64_t{1} << k.bank;
        }
        ++n_;
    }
    /// Whether `positions_of` is kept (capacity ≤ 64).
    [[nodiscard]] bool tracks_positions() const noexcept { return cap_ <= 64; }
    /// Positions (bit i = entry i) of the entries of `bank` (capacity ≤ 64).
    [[nodiscard]] std::uint64_t positions_of(std::uint32_t bank) const noexcept {
        return std::rotr(slots_[bank], static_cast<int>(head_));
    }
    /// Positions of the entries of the banks in `bank_mask` (capacity ≤ 64).
    [[nodiscard]] std::uint64_t positions_of_banks(std::uint64_t bank_mask) const noexcept {
        std::uint64_t m = 0;
        for (; bank_mask != 0; bank_mask &= bank_mask - 1)
            m |= slots_[static_cast<std::size_t>(std::countr_zero(bank_mask))];
        return std::rotr(m, static_cast<int>(head_));
    }
    /// Banks with at least one entry (capacity ≤ 64).
    [[nodiscard]] std::uint64_t banks() const noexcept { return banks_; }
    [[nodiscard]] const key& key_at(std::size_t i) const noexcept {
        return keys_[(head_ + i) & mask_];
    }
    [[nodiscard]] const mem_request& request(std::size_t i) const noexcept {
        return reqs_[(head_ + i) & mask_];
    }
    void erase(std::size_t i) noexcept {
        MEMSUB_ASSERT(i < n_);
        const bool track = tracks_positions();
        if (track) {
            const std::uint32_t gone = key_at(i).bank;
            slots_[gone] &= ~(std::uint64_t{1} << ((head_ + i) & 63));
            if (slots_[gone] == 0) banks_ &= ~(std::uint64_t{1} << gone);
        }
        // Each entry that moves one slot takes its bank's slot bit along (the slot it moves
        // to is free at that point).
        auto move = [&](std::size_t to, std::size_t from) {
            keys_[to] = keys_[from];
            reqs_[to] = reqs_[from];
            if (track)
                slots_[keys_[to].bank] ^= (std::uint64_t{1} << to) | (std::uint64_t{1} << from);
        };
        if (i < n_ / 2) {
            // Shift the older entries one place towards the young end, then drop the head.
            for (std::size_t k = i; k > 0; --k) move((head_ + k) & mask_, (head_ + k - 1) & mask_);
            head_ = (head_ + 1) & mask_;
        } else {
            for (std::size_t k = i; k + 1 < n_; ++k)
                move((head_ + k) & mask_, (head_ + k + 1) & mask_);
        }
        --n_;
    }

private:
    std::size_t cap_ = 0;
    std::size_t mask_ = 0; ///< ring slots − 1 (64 slots when positions are tracked)
    std::vector<key> keys_;
    std::vector<mem_request> reqs_;
    std::size_t head_ = 0;
    std::size_t n_ = 0;
    std::array<std::uint64_t, 64> slots_{}; ///< per bank: ring slots of its entries
    std::uint64_t banks_ = 0;               ///< banks with entries
};

} // namespace memsub::memory::detail
