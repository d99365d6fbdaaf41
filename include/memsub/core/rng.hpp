// memsub — small, seedable pseudo-random generators owned by the policies that use them.
//
// No global RNG exists in memsub: every random policy owns a generator seeded from its params,
// so runs are reproducible and independent instances do not interfere.
#pragma once

#include <cstdint>
#include <limits>

namespace memsub {

namespace detail {
__extension__ using uint128 = unsigned __int128;
} // namespace detail

/// SplitMix64 (Steele, Lea, Flood 2014): used to expand seeds and as a 64-bit mixer.
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// A stateless 64-bit mix (the SplitMix64 finaliser) for hashing addresses and PCs.
[[nodiscard]] constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/// xoshiro256** (Blackman & Vigna 2018): fast, 256-bit state, satisfies
/// UniformRandomBitGenerator so it works with <random> distributions too.
class xoshiro256ss {
public:
    using result_type = std::uint64_t;

    constexpr explicit xoshiro256ss(std::uint64_t seed = 0x6d656d737562ULL) noexcept {
        reseed(seed);
    }

    constexpr void reseed(std::uint64_t seed) noexcept {
        std::uint64_t sm = seed;
        for (auto& w : s_) w = splitmix64(sm);
    }

    static constexpr result_type min() noexcept { return 0; }
    static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

    constexpr result_type operator()() noexcept {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    /// Uniform integer in [0, bound) without modulo bias worth caring about (Lemire's
    /// multiply-shift; bias < bound / 2^64).
    constexpr std::uint64_t below(std::uint64_t bound) noexcept {
        return static_cast<std::uint64_t>((static_cast<detail::uint128>((*this)()) * bound) >> 64);
    }

    /// Uniform double in [0, 1).
    constexpr double uniform() noexcept { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

private:
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
        return (x << k) | (x >> (64 - k));
    }
    std::uint64_t s_[4]{};
};

} // namespace memsub
