// memsub — ReMAP's memory-access-cost (MAC) estimation table ([Dissertation] §2.2.3, Table 2.2).
//
// Per DRAM bank: the row addresses of the two references preceding the current one, and the
// number of requests waiting at the bank. When the LLC inserts a missing line, its bank and row
// (from the address mapping) give a cost class 0–3:
//   0 lowest:  no bank conflict, row-buffer hit   — pending == 0 and row == previous row
//   1 lower:   bank conflict, row-buffer hit      — pending > 0 and row == previous == the one
//              before
//   2 higher:  no bank conflict, row-buffer miss  — pending == 0 and row != previous row
//   3 highest: bank conflict, some row miss       — pending > 0 and any of the three rows differ
// Decision: Table 2.2 names the classes in words (bank conflict or not, row-buffer hit or miss);
// the conditions above make each word testable against the state the table keeps (pending
// count, the two previous rows).
// Decision: the table is updated by every reference the LLC sends to memory (misses
// and writebacks) through `record`. The pending count comes from a memory controller
// (`estimate(bank, row, pending)`, e.g. with `controller.queued_at(address)`), or from the host;
// without either it is approximated: each bank's count is its references among the last Q
// references recorded (Q = `params::window`, 16 by default), so the estimator works from the
// miss stream alone. Why every reference: a writeback occupies its bank as a miss does, and
// [Dissertation] §2.3.6 suggests the host pass the real cost for complex schedulers, which the
// pending count from a controller does.
// Storage (`storage_bits`): per bank two row addresses; with the approximation, per bank a
// counter of 0..Q and the Q-entry history of bank ids.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/detail/ring_buffer.hpp>

namespace memsub::memory {

class mac_table {
public:
    static constexpr std::string_view component = "memsub::memory::mac_table";
    static constexpr std::uint32_t no_row = 0xffffffffu;

    struct params {
        /// Banks in the whole memory (channels × banks per channel).
        std::uint32_t banks = 8;
        /// Row-address bits stored per entry (for storage_bits).
        std::uint32_t row_bits = 16;
        /// Q: references remembered to approximate the pending count (0 = never approximate;
        /// the count is then 0 unless passed in).
        std::uint32_t window = 16;
    };

    mac_table() : mac_table(params{}) {}
    explicit mac_table(const params& p) : p_(p), entries_(p.banks), history_(p.window) {
        require(p.banks >= 1, component, "banks", p.banks, "must be >= 1");
        require(p.row_bits >= 1 && p.row_bits <= 32, component, "row_bits", p.row_bits,
                "must be in 1..32");
        require(p.window <= 4096, component, "window", p.window, "must be <= 4096");
    }

    /// Builds a table for every bank of a mapping's organisation.
    [[nodiscard]] static mac_table for_organisation(const dram_organisation& o,
                                                    std::uint32_t window = 16) {
        return mac_table(params{.banks = o.channels * o.banks_per_channel(),
                                .row_bits = std::max(1u, log2_exact(o.rows)),
                                .window = window});
    }

    /// Global bank id of a DRAM address: channel-major, then the flat bank of the channel.
    [[nodiscard]] static std::uint32_t bank_id(const dram_address& a,
                                               const dram_organisation& o) noexcept {
        return a.channel * o.banks_per_channel() + flat_bank(a, o);
    }

    /// Class 0–3 for a reference to `row` of `bank` with `pending` requests waiting there.
    [[nodiscard]] std::uint8_t estimate(std::uint32_t bank, std::uint32_t row,
                                        std::uint32_t pending) const noexcept {
        MEMSUB_ASSERT(bank < entries_.size());
        const entry& e = entries_[bank];
        if (pending == 0) return row == e.prev ? 0 : 2;
        return (row == e.prev && row == e.prev2) ? 1 : 3;
    }
    /// Class with the pending count approximated from the last Q references.
    [[nodiscard]] std::uint8_t estimate(std::uint32_t bank, std::uint32_t row) const noexcept {
        return estimate(bank, row, approximate_pending(bank));
    }

    /// Records a reference sent to memory (updates the bank's last two rows).
    void record(std::uint32_t bank, std::uint32_t row) noexcept {
        MEMSUB_ASSERT(bank < entries_.size());
        entry& e = entries_[bank];
        e.prev2 = e.prev;
        e.prev = row;
        if (p_.window == 0) return;
        if (history_.full()) {
            --entries_[history_.front()].recent;
            history_.pop_front();
        }
        history_.push_back(bank);
        ++e.recent;
    }

    /// The bank's references among the last Q recorded.
    [[nodiscard]] std::uint32_t approximate_pending(std::uint32_t bank) const noexcept {
        return entries_[bank].recent;
    }
    [[nodiscard]] std::uint32_t previous_row(std::uint32_t bank) const noexcept {
        return entries_[bank].prev;
    }
    [[nodiscard]] std::uint32_t row_before_previous(std::uint32_t bank) const noexcept {
        return entries_[bank].prev2;
    }

    /// Per bank: two row addresses and, when the approximation is on, a counter of its
    /// references among the last Q (0..Q: bit_width(Q) bits); plus the Q-entry history of bank
    /// ids. Without the approximation the pending count comes from outside (no counter).
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        const auto counter = static_cast<std::uint64_t>(std::bit_width(p_.window));
        const std::uint64_t bank_bits = static_cast<std::uint64_t>(
            std::bit_width(static_cast<std::uint32_t>(entries_.size() - 1)));
        return entries_.size() * (2ull * p_.row_bits + counter) + p_.window * bank_bits;
    }
    [[nodiscard]] std::uint32_t banks() const noexcept {
        return static_cast<std::uint32_t>(entries_.size());
    }

private:
    struct entry {
        std::uint32_t prev = no_row;
        std::uint32_t prev2 = no_row;
        std::uint32_t recent = 0;
    };
    params p_;
    std::vector<entry> entries_;
    detail::ring_buffer<std::uint32_t> history_;
};

} // namespace memsub::memory
