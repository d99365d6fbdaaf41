// memsub — the per-set metadata rows of a replacement policy, in the policy's own storage or
// hosted by the cache engine (replacement_policy hook O5, concept.hpp). Part of the policy
// writer's kit, with rrpv_state.hpp and recency_stack.hpp.
//
// A row is `row_bytes` bytes (a multiple of 16), row s at base + s·2^shift. A policy starts with
// the rows in its own storage; an engine that has room in its per-set header block calls
// `place`, which copies every row there, so one access touches a single metadata cache line for
// the set's state, its tag fingerprints and the policy's row.
//
// Ownership: hosted rows belong to the engine that also owns the policy. A copy of a set_rows
// always owns its rows (a copied policy never aliases the cache it was copied from); a move
// keeps hosted rows where they are (moving an engine moves its header storage with them).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/huge_page_allocator.hpp>
#include <memsub/core/types.hpp>

namespace memsub::replacement {

/// One row of bytes per set, for a policy whose per-set state fits a fixed-size row (LRU ages,
/// RRPVs, ReMAP's counters) and that wants the engine to host it (O5).
///
/// Guarantees: row s is `row_bytes()` bytes, 16-byte aligned, at a power-of-two stride from row
/// 0, in the policy's own storage until `place` moves every row to engine memory (then they stay
/// there: a policy forwards O5 as `row_bytes()` and `place_rows(first, stride) { place(...); }`).
/// A copy owns its rows (a copied policy never aliases the engine it came from); a move keeps
/// hosted rows where they are. `row` and `place` never allocate; only construction and copying
/// do.
///
/// Use (a policy with one age byte per entry, entries ≤ 16):
///
///     set_rows rows_{g.sets, 16, 0};                       // every byte 0
///     std::byte* r = rows_.row(set);                       // the set's 16 bytes
///     r[e.value] = std::byte{1};                           // entry e's byte
///     std::uint32_t row_bytes() const noexcept { return rows_.row_bytes(); }
///     void place_rows(std::byte* f, std::size_t s) noexcept { rows_.place(f, s); }
class set_rows {
public:
    /// `sets` rows of `row_bytes` bytes (a multiple of 16), every byte = `fill`.
    set_rows(std::uint32_t sets, std::uint32_t row_bytes, std::uint8_t fill)
        : sets_(sets)
        , row_bytes_(row_bytes)
        , shift_(log2_exact(std::bit_ceil(row_bytes)))
        , owned_((std::size_t{sets} << shift_) / sizeof(row_block))
        , base_(reinterpret_cast<std::byte*>(owned_.data())) {
        if (!owned_.empty()) std::memset(base_, fill, owned_.size() * sizeof(row_block));
    }

    set_rows(const set_rows& other)
        : sets_(other.sets_)
        , row_bytes_(other.row_bytes_)
        , shift_(log2_exact(std::bit_ceil(other.row_bytes_)))
        , owned_((std::size_t{other.sets_} << shift_) / sizeof(row_block))
        , base_(reinterpret_cast<std::byte*>(owned_.data())) {
        for (std::uint32_t s = 0; s < sets_; ++s)
            std::memcpy(row(set_index{s}), other.row(set_index{s}), row_bytes_);
    }
    set_rows& operator=(const set_rows& other) {
        if (this != &other) {
            set_rows copy(other);
            *this = std::move(copy);
        }
        return *this;
    }
    set_rows(set_rows&&) noexcept = default;
    set_rows& operator=(set_rows&&) noexcept = default;
    ~set_rows() = default;

    /// Bytes of one row (as constructed).
    [[nodiscard]] std::uint32_t row_bytes() const noexcept { return row_bytes_; }
    [[nodiscard]] std::uint32_t sets() const noexcept { return sets_; }

    /// The first byte of set `s`'s row (16-byte aligned), wherever the rows live now.
    [[nodiscard]] std::byte* row(set_index s) noexcept {
        return base_ + (std::size_t{s.value} << shift_);
    }
    [[nodiscard]] const std::byte* row(set_index s) const noexcept {
        return base_ + (std::size_t{s.value} << shift_);
    }

    /// Moves the rows to first + s·stride (`stride` a power of two ≥ row_bytes, `first`
    /// 16-byte aligned, the memory outliving this object's use of it) and frees the own storage.
    void place(std::byte* first, std::size_t stride) noexcept {
        MEMSUB_ASSERT(std::has_single_bit(stride) && stride >= row_bytes_);
        MEMSUB_ASSERT(reinterpret_cast<std::uintptr_t>(first) % 16 == 0);
        for (std::uint32_t s = 0; s < sets_; ++s)
            std::memcpy(first + std::size_t{s} * stride, row(set_index{s}), row_bytes_);
        base_ = first;
        shift_ = log2_exact(stride);
        decltype(owned_)().swap(owned_);
    }

private:
    std::uint32_t sets_;
    std::uint32_t row_bytes_;
    std::uint32_t shift_;
    /// 16 bytes of rows. Bytes, not words, so the storage holds the row stores of any type
    /// (row_byte in core/byte_match.hpp).
    struct alignas(16) row_block {
        std::byte bytes[16];
    };
    /// Empty once hosted; large row arrays in huge pages, as the engine's (huge_page_allocator).
    std::vector<row_block, huge_page_allocator<row_block>> owned_;
    std::byte* base_;
};

} // namespace memsub::replacement
