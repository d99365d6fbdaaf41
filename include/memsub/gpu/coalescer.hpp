// memsub — `gpu::coalescer`: one warp memory instruction (32 lane addresses, an active mask and
// the per-lane access size) → the line requests a GPU L1 sees, and the degree of memory
// divergence d.
//
// Source: [Dissertation], §3.1: "GPGPUs employ coalescers that try to merge
// multiple requests from a single warp into as few memory requests as possible … In the worst
// case, memory divergence could result in up to 32 individual cache lines";
// docs/mechanisms/id_cache.md, 'Inputs from the host': d = number of distinct 128 B-aligned line
// requests the coalescer produced for that warp instruction (1 = fully coalesced, up to 32). Rules:
//  * Every active lane touches the bytes [address, address + access_bytes). Inactive lanes
//    touch nothing.
//  * One line request per distinct line touched, in the order of the first lane (lowest lane
//    number) that touches it; a lane whose bytes cross a line boundary touches both lines, the
//    lower one first. Each request carries the byte mask of its line, the mask of `sector_bytes`
//    sectors holding a touched byte and the lanes it serves.
//  * d = the number of line requests. Decision: a lane straddling a line boundary adds both
//    lines to d (d counts distinct line requests, and both must be fetched); then d may exceed 32
//    (at most 64). A warp with no active lane has d = 0 and no request.
//  * The memsub::access records a cache sees carry d in `access::divergence`. `for_each_request`
//    makes one access per line request, as the L1 sees it (GPGPU-Sim's sectored L1 looks up one
//    line request with its sector mask): its first to last touched byte with
//    `access::sector_mask` = the touched sectors, so a variable-block L1 whose segments are the
//    sectors requests exactly those, and hits, misses and trains its predictors once per
//    request. `for_each_access` (kept for hosts that count sector runs) makes one access per
//    maximal run of touched sectors of a request, without a mask: two runs of one request are
//    two L1 accesses, and the second "hits" the line the first filled.
// Nothing here allocates; `coalesce` costs O(active lanes) for up to 16 distinct lines (a
// fingerprint compare per lane), O(active lanes × d / 16) beyond.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/byte_match.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace memsub::gpu {

/// Threads per warp (Table 3.1: "Warp Size (SIMD Width) 32 threads").
inline constexpr std::uint32_t warp_size = 32;
/// The most line requests one warp instruction can produce (every lane straddling two lines).
inline constexpr std::uint32_t max_line_requests = 2 * warp_size;
/// The largest line a coalescer handles (the byte mask has 128 bits).
inline constexpr std::uint32_t max_coalescer_line_bytes = 128;
/// The most sectors per line `for_each_request` can name (access::sector_mask has 16 bits).
inline constexpr std::uint32_t max_mask_sectors = 16;

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
    /// Maximal runs of touched sectors (what for_each_access makes accesses of): the sectors
    /// whose lower neighbour is not touched.
    [[nodiscard]] constexpr std::uint32_t sector_runs() const noexcept {
        return static_cast<std::uint32_t>(std::popcount(sector_mask & ~(sector_mask << 1)));
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
    /// Runs of touched sectors over all the line requests.
    [[nodiscard]] std::uint32_t sector_runs() const noexcept {
        std::uint32_t runs = 0;
        for (const line_request& r : lines()) runs += r.sector_runs();
        return runs;
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
        , sector_shift_(log2_exact(p.sector_bytes)) {
        for (std::uint32_t b = 0; b < line_bytes_; ++b) { // sectors of one line: < 32
            const std::uint32_t sector = b >> sector_shift_;
            sectors_.from[b] = ~0u << sector;
            sectors_.through[b] = (2u << sector) - 1u; // all ones when sector is 31
        }
    }

    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return line_bytes_; }
    [[nodiscard]] std::uint32_t sector_bytes() const noexcept { return 1u << sector_shift_; }

    /// Coalesces one warp instruction into `out` (overwritten). Lane i's address is `lanes[i]`;
    /// it is active when bit i of `active_mask` is set. Throws `config_error` naming
    /// `access_bytes` unless it is in 1..line_bytes (it is the instruction's operand size, an
    /// input the host takes from its trace or kernel).
    void coalesce(std::span<const std::uint64_t, warp_size> lanes, std::uint32_t active_mask,
                  std::uint32_t access_bytes, coalesced_warp& out) const {
        // The check inline, the throw out of line: an unconditional call cost every warp ~14
        // instructions.
        if (MEMSUB_UNLIKELY(access_bytes - 1u >= line_bytes_))
            memsub::require(false, "memsub::gpu::coalescer::coalesce", "access_bytes", access_bytes,
                            "must be in 1..line_bytes");
        out.count = 0;
        if (active_mask == 0) return;
        if (unit_stride(lanes, active_mask, access_bytes, out)) return;
        // Locals, not members: the request stores below may alias any uint32 member (and
        // out.count), which would be reloaded after each of them.
        const std::uint32_t line_bytes = line_bytes_;
        const std::uint32_t sector_shift = sector_shift_;
        const std::uint64_t offset_mask = line_bytes - 1;
        // Used only when a lane stays in one 64-byte word, so at most 64 bytes.
        const std::uint64_t run = nonzero_low_bits_mask(std::min(access_bytes, 64u));
        line_index index{};       // which request holds a line: one byte compare per 16 lines
        std::uint32_t count = 0;  // requests so far (out.count, written once at the end)
        std::uint32_t recent = 0; // the request the previous lane added to
        for (std::uint32_t m = active_mask; m != 0; m &= m - 1) {
            const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
            const std::uint64_t first = lanes[lane];
            const std::uint64_t last = first + (access_bytes - 1); // inclusive
            const std::uint64_t base = first & ~offset_mask;
            const auto lo = static_cast<std::uint32_t>(first & offset_mask);
            if (MEMSUB_LIKELY((last & ~offset_mask) == base)) {
                recent = add_in_line(out, index, count, base, lo, access_bytes, run, lane, recent,
                                     sectors_);
            } else { // straddles: the tail of this line, then the head of the next
                // On a copy: `index` never has its address taken, so it stays in registers.
                line_index copy = index;
                recent = add_straddling(out, copy, count, base, lo, last, lane, recent, line_bytes,
                                        sector_shift);
                index = copy;
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

    /// Calls `fn(const memsub::access&)` once per line request of the warp, in request order:
    /// the access covers the request's first to last touched byte, its `sector_mask` is the
    /// request's touched sectors (bit i = sector i of the line), and it has `prototype`'s pc,
    /// kind, requester and hints and `divergence` = d. This is what an L1 sees: one lookup per
    /// coalesced line request. Precondition: the coalescer's `sector_bytes` is the L1's segment
    /// size (a variable-block L1 reads the mask in its segments; a conventional one ignores it).
    /// Throws `config_error` naming `sector_bytes` if a line has more than 16 sectors (the
    /// mask has 16 bits).
    template <class Fn>
    void for_each_request(const coalesced_warp& w, const memsub::access& prototype, Fn&& fn) const {
        if (MEMSUB_UNLIKELY(line_bytes_ >> sector_shift_ > max_mask_sectors))
            memsub::require(false, "memsub::gpu::coalescer::for_each_request", "sector_bytes",
                            sector_bytes(), "must leave at most 16 sectors per line");
        memsub::access a = prototype;
        a.divergence = w.divergence();
        a.data = {};
        for (const line_request& r : w.lines()) {
            std::uint32_t first_byte = 0, last_byte = max_coalescer_line_bytes - 1;
            if ((r.byte_mask[0] & r.byte_mask[1]) != ~std::uint64_t{0}) { // not a whole line
                first_byte = first_set(r.byte_mask);
                last_byte = last_set(r.byte_mask);
            }
            a.address = byte_address{r.line_base.value + first_byte};
            a.size = last_byte - first_byte + 1;
            a.sector_mask = static_cast<std::uint16_t>(r.sector_mask);
            fn(static_cast<const memsub::access&>(a));
        }
    }

    /// Calls `fn(const memsub::access&)` for every maximal run of touched sectors of each of
    /// the warp's requests: the access covers the run's first to last touched byte, with
    /// `prototype`'s pc, kind, requester and hints, `divergence` = d and no sector mask. It
    /// counts sector runs, not L1 lookups: a request touching sectors 0 and 3 makes two
    /// accesses (for_each_request makes one).
    template <class Fn>
    void for_each_access(const coalesced_warp& w, const memsub::access& prototype, Fn&& fn) const {
        memsub::access a = prototype;
        a.divergence = w.divergence();
        a.data = {};
        a.sector_mask = 0;
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
                    if ((r.byte_mask[0] & r.byte_mask[1]) == ~std::uint64_t{0}) {
                        // A whole 128-byte line (coalesced warps): skips the search below,
                        // which measurably slowed the regular stream's coalescer_only row.
                        last_byte = max_coalescer_line_bytes - 1;
                    } else {
                        first_byte = first_set(r.byte_mask); // the whole mask's first
                        last_byte = last_set(r.byte_mask);   // and last touched bytes
                    }
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
    /// The sectors at and after the one holding byte b, and those up to and including it:
    /// a lane reading bytes lo..end touches `from[lo] & through[end]`.
    struct sector_tables {
        std::array<std::uint32_t, max_coalescer_line_bytes> from{};
        std::array<std::uint32_t, max_coalescer_line_bytes> through{};
    };

    static void validate(const params& p) {
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
    [[gnu::always_inline]] static void mark_bytes(line_request& r, std::uint32_t lo,
                                                  std::uint32_t hi,
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

    /// One-byte fingerprints of the requests' line bases (entry i = request i's; the bytes at
    /// and past the request count are ignored): a lane's line is found with one 16-byte
    /// compare per 16 requests and a check of the (usually single) candidate's base, with no
    /// probing (an open-addressing index cost ~60 instructions per lane); zeroed once per warp
    /// so that the compares never read indeterminate bytes.
    struct line_index {
#if defined(__SSE2__)
        /// Requests 0-15 and 16-31, in registers: a fingerprint stored to memory and read back by
        /// the next lane's 16-byte compare waited for the store to retire (no forwarding).
        __m128i low = _mm_setzero_si128(), high = _mm_setzero_si128();
        /// Requests 32-63 (only lanes straddling lines make them).
        alignas(16) std::array<std::uint8_t, max_line_requests - 32> rest{};
#else
        alignas(16) std::array<std::uint8_t, max_line_requests> fingerprint{};
#endif
    };
#if defined(__SSE2__)
    /// 0xff at byte 32 only: the 32 bytes from byte 32 - i have 0xff at byte i alone.
    static constexpr std::array<std::uint8_t, 64> one_byte = [] {
        std::array<std::uint8_t, 64> a{};
        a[32] = 0xff;
        return a;
    }();
#endif

    /// The request of the line at `base`, with `lane` added to its lanes. `recent` is tried
    /// first: consecutive lanes usually share a line. `count` is the number of requests so far.
    [[gnu::always_inline]] static std::uint32_t claim(coalesced_warp& out, line_index& index,
                                                      std::uint32_t& count, std::uint64_t base,
                                                      std::uint32_t lane,
                                                      std::uint32_t recent) noexcept {
        std::uint32_t i = recent;
        if (i >= count || out.bases[i] != base) i = find_or_append(out, index, count, base);
        out.requests[i].lanes |= 1u << lane;
        return i;
    }

    /// Marks bytes [lo, hi) of the line at `base` as touched by `lane`; returns the request.
    /// Inlined: it runs once per active lane of a divergent warp.
    [[gnu::always_inline]] static std::uint32_t add(coalesced_warp& out, line_index& index,
                                                    std::uint32_t& count, std::uint64_t base,
                                                    std::uint32_t lo, std::uint32_t hi,
                                                    std::uint32_t lane, std::uint32_t recent,
                                                    std::uint32_t sector_shift) noexcept {
        const std::uint32_t i = claim(out, index, count, base, lane, recent);
        mark_bytes(out.requests[i], lo, hi, sector_shift);
        return i;
    }
    /// `add` for a lane inside one line, reading `access_bytes` at offset `lo`: `run` is
    /// low_bits_mask(access_bytes), computed once per warp, and the sector bits come from two
    /// table loads (four variable shifts cost ~13 instructions a lane on x86-64 without BMI2).
    [[gnu::always_inline]] static std::uint32_t
    add_in_line(coalesced_warp& out, line_index& index, std::uint32_t& count, std::uint64_t base,
                std::uint32_t lo, std::uint32_t access_bytes, std::uint64_t run, std::uint32_t lane,
                std::uint32_t recent, const sector_tables& sectors) noexcept {
        const std::uint32_t i = claim(out, index, count, base, lane, recent);
        line_request& r = out.requests[i];
        const std::uint32_t end = lo + access_bytes - 1u; // inclusive, inside the line
        if (MEMSUB_LIKELY(((lo ^ end) & 64u) == 0)) {
            r.byte_mask[lo >> 6] |= run << (lo & 63u);
        } else { // across the middle: lo < 64 <= end
            r.byte_mask[0] |= ~std::uint64_t{0} << lo;
            r.byte_mask[1] |= ~std::uint64_t{0} >> (127u - end);
        }
        r.sector_mask |= sectors.from[lo] & sectors.through[end];
        return i;
    }

    /// The request of the line at `base`, appended (in first-lane order) if there is none.
    [[gnu::always_inline]] static std::uint32_t find_or_append(coalesced_warp& out,
                                                               line_index& index,
                                                               std::uint32_t& count,
                                                               std::uint64_t base) noexcept {
        const std::uint8_t f = byte_fingerprint(base);
        // The first 32 requests always (two compares): a branch on the count there
        // mispredicted on streams whose warps alternate between few lines and many.
#if defined(__SSE2__)
        const __m128i fv = detail::broadcast_byte(f);
        std::uint64_t c =
            detail::byte_equal_bits(index.low, fv) | detail::byte_equal_bits(index.high, fv) << 16;
        if (MEMSUB_UNLIKELY(count > 32)) // only lanes straddling lines get here
            c |= byte_equal_mask(index.rest.data(), 32, f) << 32;
#else
        std::uint64_t c = byte_equal_mask(index.fingerprint.data(), 32, f);
        if (MEMSUB_UNLIKELY(count > 32)) // only lanes straddling lines get here
            c |= byte_equal_mask(index.fingerprint.data() + 32, 32, f) << 32;
#endif
        for (c &= low_bits_mask(count); c != 0; c &= c - 1) {
            const auto j = static_cast<std::uint32_t>(std::countr_zero(c));
            if (MEMSUB_LIKELY(out.bases[j] == base)) return j;
        }
        const std::uint32_t i = count++;
#if defined(__SSE2__)
        if (MEMSUB_LIKELY(i < 32)) { // f into byte i of the two registers
            const auto* one = reinterpret_cast<const __m128i*>(one_byte.data() + 32 - i);
            index.low = _mm_or_si128(index.low, _mm_and_si128(fv, _mm_loadu_si128(one)));
            index.high = _mm_or_si128(index.high, _mm_and_si128(fv, _mm_loadu_si128(one + 1)));
        } else {
            index.rest[i - 32] = f;
        }
#else
        index.fingerprint[i] = f;
#endif
        out.bases[i] = base;
        out.requests[i] = line_request{.line_base = byte_address{base}};
        return i;
    }

    /// A lane whose bytes [first, last] cross a line boundary: the tail of the line at `base`,
    /// then the head of the next. Out of line: aligned accesses never get here.
    [[gnu::noinline]] static std::uint32_t
    add_straddling(coalesced_warp& out, line_index& index, std::uint32_t& count, std::uint64_t base,
                   std::uint32_t lo, std::uint64_t last, std::uint32_t lane, std::uint32_t recent,
                   std::uint32_t line_bytes, std::uint32_t sector_shift) noexcept {
        recent = add(out, index, count, base, lo, line_bytes, lane, recent, sector_shift);
        return add(out, index, count, base + line_bytes, 0,
                   static_cast<std::uint32_t>(last & (line_bytes - 1)) + 1u, lane, recent,
                   sector_shift);
    }

    /// The first and the last set bit of a non-empty mask, without branches: which half holds
    /// them is data (a gather's lines are touched in either half at random), and
    /// first_set_from's and last_set_below's tests mispredicted about once per request.
    [[gnu::always_inline]] static std::uint32_t
    first_set(const std::array<std::uint64_t, 2>& m) noexcept {
        // Arithmetic, not `?:`: GCC turned the selects into branches.
        const std::uint64_t low_empty = 0 - std::uint64_t{m[0] == 0};
        const std::uint64_t w = m[0] | (m[1] & low_empty); // not 0: the OR keeps its lowest bit
        return static_cast<std::uint32_t>(low_empty & 64u) +
               static_cast<std::uint32_t>(std::countr_zero(w | std::uint64_t{1} << 63));
    }
    [[gnu::always_inline]] static std::uint32_t
    last_set(const std::array<std::uint64_t, 2>& m) noexcept {
        const std::uint64_t high_empty = 0 - std::uint64_t{m[1] == 0};
        const std::uint64_t w = m[1] | (m[0] & high_empty); // not 0: the OR keeps its highest bit
        return 127u - static_cast<std::uint32_t>(high_empty & 64u) -
               static_cast<std::uint32_t>(std::countl_zero(w | 1u));
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
    sector_tables sectors_;
};

} // namespace memsub::gpu
