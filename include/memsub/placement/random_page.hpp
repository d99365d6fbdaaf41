// memsub — seeded random page placement (Kim et al. [MemNet] §3.4: "4 KB pages, random page
// placement"; G2.2 (docs/mechanisms/multi_module_gpu.md): uniform over partitions, a deterministic
// seeded generator).
//
// Rule: the page numbers of the address space (k = address_bits − log2 page bits) are permuted
// by a seeded bijection π on k bits, and page v goes to partition π(v) mod P as frame
// π(v) / P of that partition — a uniformly random physical frame per page, as G2.2 reads
// "random page placement" (frame chosen at random, so the partition is random per page).
// Because π is a bijection, two pages never share a frame, and the policy needs no table: it
// is stateless, independent of access order, and invertible (`global_address` applies π⁻¹).
// π = xorshift ∘ multiply ∘ xorshift ∘ multiply ∘ xor-with-seed, each a bijection on k bits
// (odd multipliers derived from the seed; a right xorshift by ⌈k/2⌉ is its own inverse).
// Inside a partition channels interleave on the granule. The requester is ignored. Models
// `invertible_placement` (placement/concept.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <memsub/core/rng.hpp>
#include <memsub/core/types.hpp>
#include <memsub/placement/concept.hpp>
#include <memsub/placement/detail/partition_shape.hpp>

namespace memsub::placement {

class random_page {
public:
    static constexpr std::string_view component = "memsub::placement::random_page";

    struct params {
        std::uint32_t partitions = 4;
        std::uint32_t channels_per_partition = 1;
        std::uint32_t page_bytes = 4096;
        std::uint32_t granule_bytes = 128;
        std::uint32_t address_bits = 48;
        std::uint64_t seed = 1;
    };

    random_page() : random_page(params{}) {}
    explicit random_page(const params& p)
        : p_(p)
        , shape_(component, p.partitions, p.channels_per_partition, p.page_bytes, p.granule_bytes) {
        detail::require_address_bits(component, p.address_bits, shape_);
        address_mask_ = (std::uint64_t{1} << p.address_bits) - 1;
        const std::uint32_t k = p.address_bits - shape_.page_shift();
        page_mask_ = (std::uint64_t{1} << k) - 1;
        shift_ = (k + 1) / 2;
        std::uint64_t s = p.seed;
        xor_key_ = splitmix64(s) & page_mask_;
        mul1_ = splitmix64(s) | 1;
        mul2_ = splitmix64(s) | 1;
        inv1_ = inverse_odd(mul1_);
        inv2_ = inverse_odd(mul2_);
        const std::uint64_t pages = page_mask_ + 1;
        partition_bytes_ = ((pages + p.partitions - 1) / p.partitions) << shape_.page_shift();
    }

    [[nodiscard]] location place(byte_address a, std::uint32_t /*requester*/ = 0) const noexcept {
        const std::uint64_t addr = a.value & address_mask_;
        const std::uint64_t v = permute(addr >> shape_.page_shift());
        const std::uint64_t frame = shape_.partition_divider().div(v);
        const auto partition = static_cast<std::uint32_t>(v - frame * p_.partitions);
        return shape_.in_frame(partition, frame, addr & (p_.page_bytes - 1));
    }
    [[nodiscard]] std::optional<location> locate(byte_address a) const noexcept { return place(a); }
    [[nodiscard]] byte_address global_address(std::uint32_t partition,
                                              std::uint64_t local_address) const noexcept {
        const std::uint64_t frame = local_address >> shape_.page_shift();
        const std::uint64_t page = unpermute(frame * p_.partitions + partition);
        return byte_address{(page << shape_.page_shift()) | (local_address & (p_.page_bytes - 1))};
    }

    [[nodiscard]] std::uint32_t partitions() const noexcept { return shape_.partitions(); }
    [[nodiscard]] std::uint32_t channels_per_partition() const noexcept {
        return shape_.channels();
    }
    [[nodiscard]] std::uint32_t page_bytes() const noexcept { return shape_.page_bytes(); }
    [[nodiscard]] std::uint32_t granule_bytes() const noexcept { return shape_.granule_bytes(); }
    [[nodiscard]] std::uint64_t partition_bytes() const noexcept { return partition_bytes_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "random_page"; }

private:
    /// The inverse of an odd number modulo 2^64 (Newton's iteration; each step doubles the
    /// correct low bits: 1 → 64 in six steps from x = m, which is right to 3 bits).
    static constexpr std::uint64_t inverse_odd(std::uint64_t m) noexcept {
        std::uint64_t x = m;
        for (int i = 0; i < 6; ++i) x *= 2 - m * x;
        return x;
    }
    [[nodiscard]] std::uint64_t permute(std::uint64_t x) const noexcept {
        x ^= xor_key_;
        x = (x * mul1_) & page_mask_;
        x ^= x >> shift_;
        x = (x * mul2_) & page_mask_;
        x ^= x >> shift_;
        return x;
    }
    [[nodiscard]] std::uint64_t unpermute(std::uint64_t x) const noexcept {
        x ^= x >> shift_; // 2·shift ≥ k: the xorshift is an involution on k bits
        x = (x * inv2_) & page_mask_;
        x ^= x >> shift_;
        x = (x * inv1_) & page_mask_;
        return x ^ xor_key_;
    }

    params p_;
    detail::partition_shape shape_;
    std::uint64_t address_mask_ = 0;
    std::uint64_t page_mask_ = 0;
    std::uint32_t shift_ = 1;
    std::uint64_t xor_key_ = 0, mul1_ = 1, mul2_ = 1, inv1_ = 1, inv2_ = 1;
    std::uint64_t partition_bytes_ = 0;
};

static_assert(invertible_placement<random_page>);

} // namespace memsub::placement
