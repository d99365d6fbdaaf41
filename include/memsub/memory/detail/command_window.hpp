// memsub — a time-ordered window of recent DRAM commands (the ACTs a tFAW check needs).
//
// Entries (anything with a `std::uint64_t at` member) are kept sorted by `at`. A controller
// places commands ahead of the present and may place a later-selected command before an
// earlier-selected one, so insertion goes to its sorted position (searched from the young
// end, where it almost always lands). Entries too old to constrain any future command are
// dropped with `drop_before`. Storage is allocated once; the caller states the most entries
// that can be live at a time (`bound`), and the buffer is twice that, compacted when full.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <memsub/config.hpp>

namespace memsub::memory::detail {

template <class Entry>
class command_window {
public:
    command_window() = default;
    explicit command_window(std::size_t bound) : buf_(2 * bound + 8), bound_(bound) {}

    /// Drops the entries with `at < t` (they are the oldest).
    void drop_before(std::uint64_t t) noexcept {
        while (begin_ < end_ && buf_[begin_].at < t) ++begin_;
        if (begin_ == end_) begin_ = end_ = 0;
    }

    /// Inserts at the sorted position (after entries with the same `at`); returns that
    /// position among `entries()`.
    std::size_t insert(const Entry& e) noexcept {
        if (end_ == buf_.size()) {
            std::copy(buf_.begin() + static_cast<std::ptrdiff_t>(begin_),
                      buf_.begin() + static_cast<std::ptrdiff_t>(end_), buf_.begin());
            end_ -= begin_;
            begin_ = 0;
        }
        MEMSUB_ASSERT(end_ - begin_ <= bound_ && end_ < buf_.size());
        std::size_t i = end_;
        while (i > begin_ && buf_[i - 1].at > e.at) {
            buf_[i] = buf_[i - 1];
            --i;
        }
        buf_[i] = e;
        ++end_;
        return i - begin_;
    }

    [[nodiscard]] std::span<const Entry> entries() const noexcept {
        return {buf_.data() + begin_, end_ - begin_};
    }
    [[nodiscard]] std::size_t size() const noexcept { return end_ - begin_; }
    [[nodiscard]] bool empty() const noexcept { return end_ == begin_; }

private:
    std::vector<Entry> buf_;
    std::size_t bound_ = 0;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
};

} // namespace memsub::memory::detail
