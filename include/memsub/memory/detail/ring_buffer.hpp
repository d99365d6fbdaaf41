// memsub — a fixed-capacity FIFO ring buffer (storage allocated once, at construction).
#pragma once

#include <cstddef>
#include <vector>

#include <memsub/config.hpp>

namespace memsub::memory::detail {

template <class T>
class ring_buffer {
public:
    ring_buffer() = default;
    explicit ring_buffer(std::size_t capacity) : data_(capacity == 0 ? 1 : capacity) {}

    [[nodiscard]] std::size_t capacity() const noexcept { return data_.size(); }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] bool full() const noexcept { return size_ == data_.size(); }

    /// Precondition: !full().
    void push_back(const T& v) noexcept {
        MEMSUB_ASSERT(!full());
        data_[wrap(head_ + size_)] = v;
        ++size_;
    }
    /// Precondition: !empty().
    [[nodiscard]] const T& front() const noexcept {
        MEMSUB_ASSERT(!empty());
        return data_[head_];
    }
    [[nodiscard]] T& front() noexcept {
        MEMSUB_ASSERT(!empty());
        return data_[head_];
    }
    /// The i-th element from the front (0 = front).
    [[nodiscard]] const T& operator[](std::size_t i) const noexcept {
        return data_[wrap(head_ + i)];
    }
    [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_[wrap(head_ + i)]; }
    void pop_front() noexcept {
        MEMSUB_ASSERT(!empty());
        head_ = wrap(head_ + 1);
        --size_;
    }
    /// Removes the i-th element, keeping the order of the others (O(size)).
    void erase(std::size_t i) noexcept {
        MEMSUB_ASSERT(i < size_);
        if (i == 0) {
            pop_front();
            return;
        }
        for (std::size_t k = i; k + 1 < size_; ++k) (*this)[k] = (*this)[k + 1];
        --size_;
    }
    void clear() noexcept { head_ = size_ = 0; }

private:
    [[nodiscard]] std::size_t wrap(std::size_t i) const noexcept {
        return i >= data_.size() ? i - data_.size() : i;
    }
    std::vector<T> data_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

} // namespace memsub::memory::detail
