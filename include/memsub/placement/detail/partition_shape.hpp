// memsub — shared arithmetic of the placement policies: a divider (shifts for powers of two,
// division otherwise) and the partition shape (partitions, channels, page, granule) with the
// rule every policy uses inside a partition: channel = (local / granule) mod channels
// (C5.1 applied within a partition, C5.6; docs/mechanisms/multi_module_gpu.md).
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/placement/concept.hpp>

namespace memsub::placement::detail {

/// Division and remainder by a count fixed at construction.
class divider {
public:
    divider() = default;
    explicit divider(std::uint32_t d) noexcept
        : d_(d)
        , pow2_(std::has_single_bit(d))
        , shift_(static_cast<std::uint32_t>(std::countr_zero(d)))
        , mask_(d - 1) {}
    [[nodiscard]] std::uint64_t div(std::uint64_t x) const noexcept {
        return pow2_ ? x >> shift_ : x / d_;
    }
    [[nodiscard]] std::uint32_t mod(std::uint64_t x) const noexcept {
        return static_cast<std::uint32_t>(pow2_ ? x & mask_ : x % d_);
    }
    [[nodiscard]] std::uint32_t value() const noexcept { return d_; }

private:
    std::uint32_t d_ = 1;
    bool pow2_ = true;
    std::uint32_t shift_ = 0;
    std::uint64_t mask_ = 0;
};

/// Partitions, channels per partition, placement unit (page) and channel granule, validated.
class partition_shape {
public:
    partition_shape() = default;
    partition_shape(std::string_view component, std::uint32_t partitions, std::uint32_t channels,
                    std::uint32_t page_bytes, std::uint32_t granule_bytes) {
        require(partitions >= 1 && partitions <= 4096, component, "partitions", partitions,
                "must be in 1..4096");
        require(channels >= 1 && channels <= 4096, component, "channels_per_partition", channels,
                "must be in 1..4096");
        require(std::has_single_bit(granule_bytes), component, "granule_bytes", granule_bytes,
                "must be a power of two (G5.2, docs/mechanisms/multi_module_gpu.md)");
        require(std::has_single_bit(page_bytes), component, "page_bytes", page_bytes,
                "must be a power of two (G5.1, docs/mechanisms/multi_module_gpu.md)");
        require(page_bytes >= granule_bytes, component, "page_bytes", page_bytes,
                "must be at least granule_bytes (" + std::to_string(granule_bytes) +
                    "): channels interleave inside a page");
        partitions_ = divider(partitions);
        channels_ = divider(channels);
        page_bytes_ = page_bytes;
        granule_bytes_ = granule_bytes;
        page_shift_ = static_cast<std::uint32_t>(std::countr_zero(page_bytes));
        granule_shift_ = static_cast<std::uint32_t>(std::countr_zero(granule_bytes));
    }

    /// The location of byte `offset` of frame `frame` of `partition` (PP3).
    [[nodiscard]] location in_frame(std::uint32_t partition, std::uint64_t frame,
                                    std::uint64_t offset) const noexcept {
        const std::uint64_t local = (frame << page_shift_) | offset;
        return location{.partition = partition,
                        .channel = channels_.mod(local >> granule_shift_),
                        .local_address = local};
    }

    [[nodiscard]] std::uint32_t partitions() const noexcept { return partitions_.value(); }
    [[nodiscard]] std::uint32_t channels() const noexcept { return channels_.value(); }
    [[nodiscard]] std::uint32_t page_bytes() const noexcept { return page_bytes_; }
    [[nodiscard]] std::uint32_t granule_bytes() const noexcept { return granule_bytes_; }
    [[nodiscard]] std::uint32_t page_shift() const noexcept { return page_shift_; }
    [[nodiscard]] std::uint32_t granule_shift() const noexcept { return granule_shift_; }
    [[nodiscard]] const divider& partition_divider() const noexcept { return partitions_; }
    [[nodiscard]] const divider& channel_divider() const noexcept { return channels_; }

private:
    divider partitions_{};
    divider channels_{};
    std::uint32_t page_bytes_ = 4096;
    std::uint32_t granule_bytes_ = 128;
    std::uint32_t page_shift_ = 12;
    std::uint32_t granule_shift_ = 7;
};

/// Checks `address_bits` against the shape: at least one placement unit per partition.
inline void require_address_bits(std::string_view component, std::uint32_t address_bits,
                                 const partition_shape& s) {
    require(address_bits >= s.page_shift() + 1 && address_bits <= 63, component, "address_bits",
            address_bits, "must be in (log2 page_bytes + 1)..63");
    require((std::uint64_t{1} << (address_bits - s.page_shift())) >= s.partitions(), component,
            "address_bits", address_bits, "must give at least one placement unit per partition");
}

} // namespace memsub::placement::detail
