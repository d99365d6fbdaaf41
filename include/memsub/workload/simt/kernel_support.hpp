// memsub — what a SIMT kernel is built from: the device memory its arrays live in, its launch
// shape and each warp's origin, the CTA → data block remapping between launches, and the helpers
// that fill a `warp_instruction` (core/warp_instruction.hpp) lane by lane.
//
// Kernels own their arrays in a `device_memory`, so the bytes at every address a warp touches
// are the kernel's real values at that point of the run (stores write them):
// `device_memory::read` gives them to a later study (e.g. a compressed cache).
//
// `cta_remap` lets a kernel that launches several times give hardware CTA c a different block of
// data at each launch (`launch_mapping::shuffled`), so a study can tell locality that comes from
// the data from locality that comes from a CTA landing on the same SM or module every launch.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/core/warp_instruction.hpp>

namespace memsub::workload::simt {

/// The flat address space of a kernel's arrays. Each array gets a 4 KB-aligned region with a
/// 4 KB gap after it (so two arrays never share a line or a page). No allocation after setup:
/// arrays are allocated when a kernel is built.
class device_memory {
public:
    /// The first array's address.
    static constexpr std::uint64_t base_address = 0x1000'0000;
    static constexpr std::uint64_t region_alignment = 4096;

    /// A typed view of one array: element i is at `address(i)`.
    template <class T>
    class array {
        static_assert(std::is_trivially_copyable_v<T>);

    public:
        array() = default;
        [[nodiscard]] std::uint64_t base() const noexcept { return base_; }
        [[nodiscard]] std::size_t size() const noexcept { return count_; }
        [[nodiscard]] std::uint64_t address(std::size_t i) const noexcept {
            return base_ + i * sizeof(T);
        }
        [[nodiscard]] T get(std::size_t i) const noexcept {
            T v;
            std::memcpy(&v, bytes_ + i * sizeof(T), sizeof(T));
            return v;
        }
        void set(std::size_t i, T v) noexcept {
            std::memcpy(bytes_ + i * sizeof(T), &v, sizeof(T));
        }

    private:
        friend class device_memory;
        array(std::uint64_t base, std::size_t count, std::byte* bytes)
            : base_(base)
            , count_(count)
            , bytes_(bytes) {}
        std::uint64_t base_ = 0;
        std::size_t count_ = 0;
        std::byte* bytes_ = nullptr;
    };

    device_memory() = default;
    // Array views point into the regions: copying would leave them pointing at the original.
    device_memory(const device_memory&) = delete;
    device_memory& operator=(const device_memory&) = delete;
    device_memory(device_memory&&) = default;
    device_memory& operator=(device_memory&&) = default;

    /// A zero-filled array of `count` elements named `name` (the name appears in `region_of`).
    template <class T>
    array<T> allocate(std::string_view name, std::size_t count) {
        const std::uint64_t base = next_;
        const std::size_t bytes = count * sizeof(T);
        regions_.push_back(region{std::string(name), base, std::vector<std::byte>(bytes)});
        next_ = align_up(base + bytes) + region_alignment;
        return array<T>(base, count, regions_.back().bytes.data());
    }

    /// Copies the bytes at [address, address + out.size()) into `out`; addresses no array
    /// covers read as zero (a line may run past an array's end). O(arrays).
    void read(std::uint64_t address, std::span<std::byte> out) const noexcept {
        const std::uint64_t end = address + out.size();
        // Fast path: one array holds the whole range (a compressed L1 reads a line per fill).
        for (const region& r : regions_) {
            if (address >= r.base && end <= r.base + r.bytes.size()) {
                const std::byte* from = r.bytes.data() + (address - r.base);
                // A line of a GPU cache's common sizes is copied inline, not by a library call.
                switch (out.size()) {
                case 128:
                    std::memcpy(out.data(), from, 128);
                    break;
                case 64:
                    std::memcpy(out.data(), from, 64);
                    break;
                case 32:
                    std::memcpy(out.data(), from, 32);
                    break;
                default:
                    std::memcpy(out.data(), from, out.size());
                }
                return;
            }
        }
        std::memset(out.data(), 0, out.size());
        for (const region& r : regions_) {
            const std::uint64_t r_end = r.base + r.bytes.size();
            const std::uint64_t lo = address > r.base ? address : r.base;
            const std::uint64_t hi = end < r_end ? end : r_end;
            if (lo < hi)
                std::memcpy(out.data() + (lo - address), r.bytes.data() + (lo - r.base), hi - lo);
        }
    }

    /// The name of the array holding `address`, or "" if none does.
    [[nodiscard]] std::string_view region_of(std::uint64_t address) const noexcept {
        for (const region& r : regions_)
            if (address >= r.base && address < r.base + r.bytes.size()) return r.name;
        return {};
    }

    /// Bytes of all arrays.
    [[nodiscard]] std::uint64_t footprint_bytes() const noexcept {
        std::uint64_t n = 0;
        for (const region& r : regions_) n += r.bytes.size();
        return n;
    }

private:
    struct region {
        std::string name;
        std::uint64_t base;
        std::vector<std::byte> bytes;
    };
    static constexpr std::uint64_t align_up(std::uint64_t a) noexcept {
        return (a + region_alignment - 1) & ~(region_alignment - 1);
    }

    std::vector<region> regions_;
    std::uint64_t next_ = base_address;
};

/// The shape of one kernel launch: `ctas` CTAs of `threads_per_cta` threads.
struct launch_shape {
    std::uint32_t ctas = 0;
    std::uint32_t threads_per_cta = 0;
};

/// Where a warp sits in its launch (what a kernel's per-thread code derives thread ids from).
struct warp_origin {
    std::uint32_t cta = 0;
    std::uint32_t warp_in_cta = 0;
    std::uint32_t threads_per_cta = 0;

    /// Lanes that are threads of the CTA (the last warp of a CTA may be partial).
    [[nodiscard]] constexpr std::uint32_t existing_lanes() const noexcept {
        const std::uint32_t first = warp_in_cta * warp_lanes;
        const std::uint32_t n =
            threads_per_cta - first < warp_lanes ? threads_per_cta - first : warp_lanes;
        return n == warp_lanes ? ~0u : (1u << n) - 1u;
    }
    /// Thread index inside the CTA of `lane`.
    [[nodiscard]] constexpr std::uint32_t thread_in_cta(std::uint32_t lane) const noexcept {
        return warp_in_cta * warp_lanes + lane;
    }
    /// blockIdx.x × blockDim.x + threadIdx.x for a 1D launch.
    [[nodiscard]] constexpr std::uint64_t global_thread(std::uint32_t lane) const noexcept {
        return std::uint64_t{cta} * threads_per_cta + thread_in_cta(lane);
    }
};

/// Whether hardware CTA c works on data block c at every launch (`same`, the default), or on a
/// block that a fresh permutation chooses at each launch after the first (`shuffled`).
enum class launch_mapping : std::uint8_t { same, shuffled };

struct cta_remap_params {
    launch_mapping mapping = launch_mapping::same;
    /// Launch L > 0's permutation comes from xoshiro256**(seed ^ L).
    std::uint64_t seed = 1;
};

/// The hardware CTA → data block mapping of one launch. Launch 0 (and every launch under
/// `same`) is the identity; launch L > 0 under `shuffled` is a Fisher–Yates permutation drawn
/// from xoshiro256**(seed ^ L), so a run is reproducible and each launch gets its own mapping.
/// `begin_launch` allocates (once per launch); `data_block` is a table lookup.
class cta_remap {
public:
    void begin_launch(const cta_remap_params& p, std::uint32_t launch, std::uint32_t ctas) {
        if (p.mapping == launch_mapping::same || launch == 0) {
            blocks_.clear();
            return;
        }
        blocks_.resize(ctas);
        for (std::uint32_t c = 0; c < ctas; ++c) blocks_[c] = c;
        xoshiro256ss rng(p.seed ^ launch);
        for (std::uint32_t i = ctas; i > 1; --i) {
            const auto j = static_cast<std::uint32_t>(rng.below(i));
            const std::uint32_t t = blocks_[i - 1];
            blocks_[i - 1] = blocks_[j];
            blocks_[j] = t;
        }
    }

    /// The data block hardware CTA `cta` of the current launch works on.
    [[nodiscard]] std::uint32_t data_block(std::uint32_t cta) const noexcept {
        return blocks_.empty() ? cta : blocks_[cta];
    }
    /// `o` with its CTA replaced by the data block it works on (what a kernel's `start_warp`
    /// derives thread ids from).
    [[nodiscard]] warp_origin data_origin(const warp_origin& o) const noexcept {
        return warp_origin{data_block(o.cta), o.warp_in_cta, o.threads_per_cta};
    }
    [[nodiscard]] bool identity() const noexcept { return blocks_.empty(); }

private:
    std::vector<std::uint32_t> blocks_; // empty = identity
};

/// Fills the instruction fields a kernel sets; `address(lane)` gives each active lane's address.
template <class AddressOf>
void emit(warp_instruction& out, std::uint64_t pc, access_kind kind, std::uint32_t bytes,
          std::uint32_t mask, bool stalls, AddressOf&& address) {
    out.pc = pc;
    out.kind = kind;
    out.access_bytes = bytes;
    out.active_mask = mask;
    out.stalls = stalls;
    for (std::uint32_t m = mask; m != 0; m &= m - 1) {
        const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
        out.lanes[lane] = address(lane);
    }
}

/// Calls `fn(lane)` for every lane of `mask`, lowest first.
template <class Fn>
void for_lanes(std::uint32_t mask, Fn&& fn) {
    for (std::uint32_t m = mask; m != 0; m &= m - 1)
        fn(static_cast<std::uint32_t>(std::countr_zero(m)));
}

/// The lanes of `candidates` for which `pred(lane)` holds.
template <class Pred>
[[nodiscard]] std::uint32_t lanes_where(std::uint32_t candidates, Pred&& pred) {
    std::uint32_t mask = 0;
    for (std::uint32_t m = candidates; m != 0; m &= m - 1) {
        const auto lane = static_cast<std::uint32_t>(std::countr_zero(m));
        if (pred(lane)) mask |= 1u << lane;
    }
    return mask;
}

} // namespace memsub::workload::simt
