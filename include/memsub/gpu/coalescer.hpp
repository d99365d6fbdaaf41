// memsub — `gpu::coalescer`: one warp memory instruction (32 lane addresses, an active mask and
// the per-lane access size) → the line requests a GPU L1 sees, and the degree of memory
// divergence d.
//
// Source: seed 001 (Arunkumar, dissertation), §3.1: "GPGPUs employ coalescers that try to merge
// multiple requests from a single warp into as few memory requests as possible … In the worst
// case, memory divergence could result in up to 32 individual cache lines"; spec id-cache.md,
// "Inputs from the host": d = number of distinct 128 B-aligned line requests the coalescer
// produced for that warp instruction (1 = fully coalesced, up to 32).
// Rules:
//  * Every active lane touches the bytes [address, address + access_bytes). Inactive lanes
//    touch nothing.
//  * One line request per distinct line touched, in the order of the first lane (lowest lane
//    number) that touches it; a lane whose bytes cross a line boundary touches both lines, the
//    lower one first. Each request carries the byte mask of its line, the mask of `sector_bytes`
//    sectors holding a touched byte and the lanes it serves.
//  * d = the number of line requests. [resolution] A lane straddling a line boundary adds both
//    lines to d (the spec counts distinct line requests); then d may exceed 32 (at most 64).
//    A warp with no active lane has d = 0 and no request.
//  * The memsub::access records a cache sees (`for_each_access`) carry d in
//    `access::divergence`; a request whose touched sectors are not contiguous becomes one access
//    per maximal run of touched sectors, since a memsub access names one contiguous byte range
//    (the engine would otherwise count the untouched sectors between as requested).
// Nothing here allocates; `coalesce` costs O(active lanes) (a small hash index of the lines).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::gpu {

/// Threads per warp (Table 3.1: "Warp Size (SIMD Width) 32 threads").
inline constexpr std::uint32_t warp_size = 32;
/// The most line requests one warp instruction can produce (every lane straddling two lines).
inline constexpr std::uint32_t max_line_requests = 2 * warp_size;
/// The largest line a coalescer handles (the byte mask has 128 bits).
inline constexpr std::uint32_t max_coalescer_line_bytes = 128;

/// One line request: the touched bytes of one line.
struct line_request {
    /// The line's first byte (aligned to the coalescer's line size).
    byte_address line_base{};
    /// Bit i = byte i of the line is touched; word 0 holds bytes 0–63, word 1 bytes 64–127.
    std::array<std::uint64_t, 2> byte_mask{};
    /// Bit i = sector i of the line holds a touched byte.
    std::uint32_t sector_mask = 0;
    /// Bit i = lane i touches this line.
    std::uint32_t lanes = 0;

    [[nodiscard]] constexpr bool touches_byte(std::uint32_t i) const noexcept {
        return ((byte_mask[i >> 6] >> (i & 63)) & 1u) != 0;
    }
    [[nodiscard]] constexpr std::uint32_t touched_bytes() const noexcept {
        return static_cast<std::uint32_t>(std::popcount(byte_mask[0]) +
                                          std::popcount(byte_mask[1]));
    }
    friend constexpr bool operator==(const line_request&, const line_request&) = default;
};

/// The line requests of one warp instruction (storage for the worst case, no allocation).
struct coalesced_warp {
    std::array<line_request, max_line_requests> requests{};
    /// `requests[i].line_base`, packed: the coalescer searches these for a lane's line.
    std::array<std::uint64_t, max_line_requests> bases{};
    std::uint32_t count = 0;

    /// The degree of memory divergence d: distinct lines touched (spec, "Inputs from the host").
    [[nodiscard]] constexpr std::uint32_t divergence() const noexcept { return count; }
    [[nodiscard]] std::span<const line_request> lines() const noexcept {
        return {requests.data(), count};
    }
};

class coalescer {
public:
    struct params {
        /// Line (request) size: a power of two in 4..128 (the byte mask has 128 bits).
        std::uint32_t line_bytes = 128;
        /// Sector size of the sector mask: a power of two dividing the line.
        std::uint32_t sector_bytes = 32;
    };

    coalescer() : coalescer(params{}) {}
    explicit coalescer(const params& p)
        : line_bytes_((validate(p), p.line_bytes))
        , sector_shift_(log2_exact(p.sector_bytes)) {}

    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return line_bytes_; }
    [[nodiscard]] std::uint32_t sector_bytes() const noexcept { return 1u << sector_shift_; }

    /// Coalesces one warp instruction into `out` (overwritten). Lane i's address is `lanes[i]`;
    /// it is active when bit i of `active_mask` is set. Throws `config_error` naming
    /// `access_bytes` unless it is in 1..line_bytes (it is the instruction's operand size, an
    /// input the host takes from its trace or kernel).
    void coalesce(std::span<const std::uint64_t, warp_size> lanes, std::uint32_t active_mask,
                  std::uint32_t access_bytes, coalesced_warp& out) const {
        detail::require(access_bytes >= 1 && access_bytes <= line_bytes_,
                        "memsub::gpu::coalescer::coalesce", "access_bytes", access_bytes,
                        "must be in 1..line_bytes");
        out.count = 0;
        if (active_mask == 0) return;
        if (unit_stride(lanes, active_mask, access_bytes, out)) return;
        // Locals, not members: the request stores below may alias any uint32 member (and
        // out.count), which would be reloaded after each of them.
        const std::uint32_t line_bytes = line_bytes_;
        const std::uint32_t sector_shift = sector_shift_;
        const std::uint64_t offset_mask = line_bytes - 1;
        line_index index;         // which request holds a line: O(1) per lane, whatever d is
        std::uint32_t count = 0;  // requests so far (out.count, written once at the end)
        std::uint32_t recent = 0; // the request the previous lane added to
        for (std::uint32_t m = active_mask; m != 0; m &= m - 1) {
            const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
            const std::uint64_t first = lanes[lane];
            const std::uint64_t last = first + (access_bytes - 1); // inclusive
            const std::uint64_t base = first & ~offset_mask;
            const auto lo = static_cast<std::uint32_t>(first & offset_mask);
            if ((last & ~offset_mask) == base) {
                recent =
                    add(out, index, count, base, lo, lo + access_bytes, lane, recent, sector_shift);
            } else { // straddles: the tail of this line, then the head of the next
                recent = add(out, index, count, base, lo, line_bytes, lane, recent, sector_shift);
                recent = add(out, index, count, base + line_bytes, 0,
                             static_cast<std::uint32_t>(last & offset_mask) + 1u, lane, recent,
                             sector_shift);
            }
        }
        out.count = count;
    }

    [[nodiscard]] coalesced_warp coalesce(std::span<const std::uint64_t, warp_size> lanes,
                                          std::uint32_t active_mask,
                                          std::uint32_t access_bytes) const {
        coalesced_warp out;
        coalesce(lanes, active_mask, access_bytes, out);
        return out;
    }

    /// Calls `fn(const memsub::access&)` for every access the warp's requests make: one per
    /// maximal run of touched sectors of each request, covering the run's first to last touched
    /// byte, with `prototype`'s pc, kind, requester and hints and `divergence` = d.
    template <class Fn>
    void for_each_access(const coalesced_warp& w, const memsub::access& prototype, Fn&& fn) const {
        memsub::access a = prototype;
        a.divergence = w.divergence();
        a.data = {};
        const std::uint32_t sector = 1u << sector_shift_;
        for (const line_request& r : w.lines()) {
            std::uint32_t sectors = r.sector_mask;
            // One run of sectors (nearly every request): it holds every touched byte, so the
            // access spans the line's first to last touched byte; no per-run masks needed.
            const bool one_run = (sectors & (sectors + (sectors & (0u - sectors)))) == 0;
            while (sectors != 0) {
                std::uint32_t first_byte = 0, last_byte = 0;
                if (one_run) {
                    sectors = 0;
                    first_byte = first_set_from(r.byte_mask, 0);  // the whole mask's first
                    last_byte = last_set_below(r.byte_mask, 128); // and last touched bytes
                } else {
                    const auto first_sector = static_cast<std::uint32_t>(std::countr_zero(sectors));
                    const auto run =
                        static_cast<std::uint32_t>(std::countr_one(sectors >> first_sector));
                    sectors &= ~(static_cast<std::uint32_t>(low_bits_mask(run)) << first_sector);
                    const std::uint32_t lo = first_sector * sector;
                    const std::uint32_t hi = (first_sector + run) * sector; // exclusive
                    // The run's first and last sectors hold touched bytes (they are in the mask).
                    first_byte = first_set_from(r.byte_mask, lo);
                    last_byte = last_set_below(r.byte_mask, hi);
                }
                // One call site: `fn` (a whole cache access, inlined) is not duplicated, which
                // kept GCC from inlining the engine into the caller (the baseline L1 stored its
                // whole access_result to memory on every access).
                a.address = byte_address{r.line_base.value + first_byte};
                a.size = last_byte - first_byte + 1;
                fn(static_cast<const memsub::access&>(a));
            }
        }
    }

private:
    static void validate(const params& p) {
        using memsub::detail::require;
        constexpr std::string_view component = "memsub::gpu::coalescer";
        require(std::has_single_bit(p.line_bytes) && p.line_bytes >= 4 &&
                    p.line_bytes <= max_coalescer_line_bytes,
                component, "line_bytes", p.line_bytes, "must be a power of two in 4..128");
        require(std::has_single_bit(p.sector_bytes) && p.sector_bytes <= p.line_bytes &&
                    p.line_bytes / p.sector_bytes <= 32,
                component, "sector_bytes", p.sector_bytes,
                "must be a power of two <= line_bytes, with at most 32 sectors per line");
    }

    /// The fully coalesced case, without a per-lane search: the active lanes are one run
    /// (l0..l1) and lane l reads access_bytes at lanes[l0] + (l − l0) × access_bytes, so the warp
    /// touches one contiguous byte range; each line it covers gets the part of the range inside
    /// it and the run of lanes reading there. Fills `out` exactly as the general path would and
    /// returns true; false (nothing written) when the lanes do not follow the pattern.
    bool unit_stride(std::span<const std::uint64_t, warp_size> lanes, std::uint32_t active_mask,
                     std::uint32_t access_bytes, coalesced_warp& out) const noexcept {
        const auto l0 = static_cast<std::uint32_t>(std::countr_zero(active_mask));
        const std::uint32_t run = active_mask >> l0;
        if ((run & (run + 1)) != 0) return false; // the active lanes are not one run
        const auto n = static_cast<std::uint32_t>(std::countr_one(run));
        const std::uint64_t start = lanes[l0];
        // The second lane first: a gather or a column walk fails here, without the whole check.
        if (n > 1 && lanes[l0 + 1] != start + access_bytes) return false;
        std::uint64_t differ = 0; // branch-free: the compiler vectorises the check
        std::uint64_t expected = start;
        for (std::uint32_t k = 0; k < n; ++k, expected += access_bytes)
            differ |= lanes[l0 + k] ^ expected;
        if (differ != 0) return false;
        const std::uint64_t end = start + std::uint64_t{n} * access_bytes; // exclusive
        if (end < start) return false; // wraps the address space: the general path handles it
        const std::uint64_t offset_mask = line_bytes_ - 1;
        for (std::uint64_t base = start & ~offset_mask; base < end; base += line_bytes_) {
            const std::uint64_t from = base > start ? base : start;
            const std::uint64_t to = end - base < line_bytes_ ? end : base + line_bytes_;
            const auto lo = static_cast<std::uint32_t>(from - base);
            const auto hi = static_cast<std::uint32_t>(to - base);
            const auto first_lane = static_cast<std::uint32_t>((from - start) / access_bytes);
            const auto last_lane = static_cast<std::uint32_t>((to - 1 - start) / access_bytes);
            line_request& r = out.requests[out.count];
            r = line_request{.line_base = byte_address{base}};
            out.bases[out.count] = base;
            ++out.count;
            r.lanes = static_cast<std::uint32_t>(low_bits_mask(last_lane - first_lane + 1))
                      << (l0 + first_lane);
            mark_bytes(r, lo, hi, sector_shift_);
            if (base + line_bytes_ < base) break; // the last line of the address space
        }
        return true;
    }

    /// Sets bytes [lo, hi) of `r`'s byte mask (lo < hi ≤ 128) and the sectors holding them.
    /// Shifts only, no compare-and-select per word: this runs once per active lane of a
    /// divergent warp (callgrind: 30 instructions a lane with low_bits_mask on each word).
    static void mark_bytes(line_request& r, std::uint32_t lo, std::uint32_t hi,
                           std::uint32_t sector_shift) noexcept {
        constexpr std::uint64_t ones = ~std::uint64_t{0};
        if (((lo ^ (hi - 1)) & 64u) == 0) { // inside one 64-byte word
            r.byte_mask[lo >> 6] |= nonzero_low_bits_mask(hi - lo) << (lo & 63u);
        } else { // across the middle: lo < 64 < hi
            r.byte_mask[0] |= ones << lo;
            r.byte_mask[1] |= ones >> (128u - hi);
        }
        const std::uint32_t first_sector = lo >> sector_shift;
        const std::uint32_t last_sector = (hi - 1) >> sector_shift;
        r.sector_mask |=
            static_cast<std::uint32_t>(nonzero_low_bits_mask(last_sector - first_sector + 1))
            << first_sector;
    }

    /// An open-addressing table from a line's base to its request (index + 1; 0 = empty): 128
    /// slots for at most 64 lines, so probes stay short. Rebuilt for every warp (128 bytes).
    struct line_index {
        std::array<std::uint8_t, 2 * max_line_requests> slot{};
    };

    /// Marks bytes [lo, hi) of the line at `base` as touched by `lane`; returns the request.
    /// `recent` is tried first: consecutive lanes usually share a line. `count` is the number
    /// of requests so far.
    static std::uint32_t add(coalesced_warp& out, line_index& index, std::uint32_t& count,
                             std::uint64_t base, std::uint32_t lo, std::uint32_t hi,
                             std::uint32_t lane, std::uint32_t recent,
                             std::uint32_t sector_shift) noexcept {
        std::uint32_t i = recent;
        if (i >= count || out.bases[i] != base) {
            constexpr std::uint32_t mask = 2 * max_line_requests - 1;
            auto h = static_cast<std::uint32_t>((base * 0x9e3779b97f4a7c15ull) >> 57) & mask;
            for (;; h = (h + 1) & mask) {
                const std::uint8_t s = index.slot[h];
                if (s == 0) { // a new line: the next request, in first-lane order
                    i = count++;
                    index.slot[h] = static_cast<std::uint8_t>(i + 1);
                    out.bases[i] = base;
                    out.requests[i] = line_request{.line_base = byte_address{base}};
                    break;
                }
                if (out.bases[s - 1u] == base) {
                    i = s - 1u;
                    break;
                }
            }
        }
        line_request& r = out.requests[i];
        r.lanes |= 1u << lane;
        mark_bytes(r, lo, hi, sector_shift);
        return i;
    }

    /// The first set bit at or after `from` (one exists).
    static std::uint32_t first_set_from(const std::array<std::uint64_t, 2>& m,
                                        std::uint32_t from) noexcept {
        if (from < 64) {
            const std::uint64_t w = m[0] & (~std::uint64_t{0} << from);
            if (w != 0) return static_cast<std::uint32_t>(std::countr_zero(w));
            from = 64;
        }
        return 64u + static_cast<std::uint32_t>(
                         std::countr_zero(m[1] & (~std::uint64_t{0} << (from - 64))));
    }
    /// The last set bit before `to` (one exists).
    static std::uint32_t last_set_below(const std::array<std::uint64_t, 2>& m,
                                        std::uint32_t to) noexcept {
        if (to > 64) {
            const std::uint64_t w = m[1] & low_bits_mask(to - 64);
            if (w != 0) return 127u - static_cast<std::uint32_t>(std::countl_zero(w));
            to = 64;
        }
        return 63u - static_cast<std::uint32_t>(std::countl_zero(m[0] & low_bits_mask(to)));
    }

    std::uint32_t line_bytes_;
    std::uint32_t sector_shift_;
};

} // namespace memsub::gpu
