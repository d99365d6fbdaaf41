// memsub — a Bloom filter over 64-bit keys (line addresses): m = bits_per_entry × entries bits,
// k hashes, fixed storage.
//
// Citation: Bloom, "Space/time trade-offs in hash coding with allowable errors", CACM 1970;
// double hashing: Kirsch & Mitzenmacher, "Less hashing, same performance: building a better
// Bloom filter", ESA 2006 (g_i = h1 + i·h2 loses nothing asymptotically against k independent
// hashes). ReMAP's victim buffer ([Dissertation] §2.2.2, §2.3.5; docs/mechanisms/remap.md, 'PERD:
// the cascaded victim buffer') sizes each stage at c = 10 bits per entry, k = 7 (a decision, the
// optimum for c = 10): false-positive rate (1 − e^(−k/c))^k ≈ 0.82 % once `entries` keys are in.
// Hashing: the SplitMix64 finaliser of the key gives h1, the finaliser of h1 gives h2 (forced
// odd); probe i folds g_i = h1 + i·h2 to 32 bits (high half XOR low half) and reduces that to
// [0, m) by a multiply-shift (Lemire's fast range), so no division on the access path. The fold
// matters for small arrays: reducing only the high bits of g_i maps two keys whose (h1, h2)
// agree in their top log2(m) bits to the same k positions, a false-positive floor of ≈ 1/m² per
// pair of keys (seen in a test: a spurious hit within ~5000 lookups of 1024-bit stages); the
// low half moves by h2's low bits at every probe and breaks such ties.
// Storage: m bits (`storage_bits()`), allocated once at construction; insert / contains / clear
// never allocate.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>

namespace memsub::filter {

namespace detail {
/// Calls `f(bit)` for the `hashes` probe positions in [0, bits) of `key` while it returns true;
/// the result is whether every call did (the hashing rule of the header comment). Shared by
/// bloom_filter and the cascaded victim buffer, whose stages use the same positions.
template <class F>
bool for_each_probe(std::uint64_t key, std::uint64_t bits, std::uint32_t hashes, F f) noexcept {
    const std::uint64_t h = mix64(key ^ 0x5bd1e9955bd1e995ULL);
    std::uint64_t g = h;
    const std::uint64_t step = mix64(h) | 1u;
    for (std::uint32_t i = 0; i < hashes; ++i) {
        const auto folded = static_cast<std::uint32_t>(g >> 32) ^ static_cast<std::uint32_t>(g);
        if (!f((std::uint64_t{folded} * bits) >> 32)) return false;
        g += step;
    }
    return true;
}
} // namespace detail

class bloom_filter {
public:
    static constexpr std::string_view component = "memsub::filter::bloom_filter";
    /// The most bits one filter may have (m must fit the 32-bit fast range).
    static constexpr std::uint64_t max_bits = std::uint64_t{1} << 32;

    struct params {
        /// Keys the filter is sized for (n), ≥ 1.
        std::uint64_t entries = 1024;
        /// c: bits of the array per entry, 1..64 (m = c·n).
        std::uint32_t bits_per_entry = 10;
        /// k: probes per key, 1..32 (7 is optimal for c = 10: k = c·ln 2).
        std::uint32_t hashes = 7;
    };

    bloom_filter() : bloom_filter(params{}) {}
    explicit bloom_filter(const params& p)
        : bits_((validate(p), p.entries * p.bits_per_entry))
        , hashes_(p.hashes)
        , entries_(p.entries)
        , words_((bits_ + 63) / 64, 0) {}

    /// Adds `key` (k bits set). No allocation.
    void insert(std::uint64_t key) noexcept {
        probe(key, [this](std::uint64_t bit) noexcept {
            words_[bit >> 6] |= std::uint64_t{1} << (bit & 63u);
            return true;
        });
        ++inserted_;
    }
    /// True when all k bits of `key` are set: always for an inserted key, with probability ≈ the
    /// false-positive rate for another one.
    [[nodiscard]] bool contains(std::uint64_t key) const noexcept {
        return probe(key, [this](std::uint64_t bit) noexcept {
            return ((words_[bit >> 6] >> (bit & 63u)) & 1u) != 0;
        });
    }
    /// Empties the filter (O(m/64) word stores, no allocation).
    void clear() noexcept {
        for (auto& w : words_) w = 0;
        inserted_ = 0;
    }

    /// Insertions since construction or the last clear().
    [[nodiscard]] std::uint64_t inserted() const noexcept { return inserted_; }
    [[nodiscard]] std::uint64_t entries() const noexcept { return entries_; }
    [[nodiscard]] std::uint32_t hashes() const noexcept { return hashes_; }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return bits_; }
    /// Bits currently set (for tests and diagnostics).
    [[nodiscard]] std::uint64_t bits_set() const noexcept {
        std::uint64_t n = 0;
        for (const auto w : words_) n += static_cast<std::uint64_t>(std::popcount(w));
        return n;
    }

private:
    static void validate(const params& p) {
        require(p.entries >= 1, component, "entries", p.entries, "must be >= 1");
        require(p.bits_per_entry >= 1 && p.bits_per_entry <= 64, component, "bits_per_entry",
                p.bits_per_entry, "must be in 1..64");
        require(p.hashes >= 1 && p.hashes <= 32, component, "hashes", p.hashes, "must be in 1..32");
        require(p.entries <= max_bits / p.bits_per_entry, component, "entries", p.entries,
                "entries × bits_per_entry must be at most 2^32 bits");
    }

    template <class F>
    bool probe(std::uint64_t key, F f) const noexcept {
        return detail::for_each_probe(key, bits_, hashes_, f);
    }

    std::uint64_t bits_;
    std::uint32_t hashes_;
    std::uint64_t entries_;
    std::uint64_t inserted_ = 0;
    std::vector<std::uint64_t> words_;
};

} // namespace memsub::filter
