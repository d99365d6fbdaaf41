// memsub — `linesize::static_size<Bytes>`: every miss inserts blocks of `Bytes` bytes — the
// static 32 B, 64 B and 128 B line-size configurations ID-Cache compares against ([Dissertation]
// §3.1.3, Fig. 3.4; docs/mechanisms/id_cache.md, 'Workloads and baselines': static 32B, 64B and
// 128B lines), run on the same variable-block cache as ALSI so that only the insertion size
// differs. With Bytes = the line size it behaves as a conventional cache of that line size (one
// block per line; tests/linesize checks the equivalence). Storage: 0 bits.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <memsub/linesize/concept.hpp>

namespace memsub::linesize {

template <std::uint32_t Bytes>
class static_size {
    static_assert(Bytes >= 1 && (Bytes & (Bytes - 1)) == 0, "Bytes must be a power of two");

public:
    struct params {};

    static_size(const geometry& g, const params&) {
        require_block_bytes(g, Bytes, "memsub::linesize::static_size", "Bytes");
    }
    explicit static_size(const geometry& g) : static_size(g, params{}) {}

    [[nodiscard]] static constexpr std::uint32_t block_bytes(set_index, const access&) noexcept {
        return Bytes;
    }
    /// "static_32B", "static_64B", "static_128B", …
    [[nodiscard]] static constexpr std::string_view name() noexcept {
        return {name_storage.data(), name_length};
    }
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 0; }

private:
    static constexpr std::size_t digits = [] {
        std::size_t n = 1;
        for (std::uint32_t v = Bytes; v >= 10; v /= 10) ++n;
        return n;
    }();
    static constexpr std::size_t name_length = 7 + digits + 1; // "static_" digits "B"
    static constexpr std::array<char, name_length> name_storage = [] {
        std::array<char, name_length> s{'s', 't', 'a', 't', 'i', 'c', '_'};
        std::uint32_t v = Bytes;
        for (std::size_t i = 0; i < digits; ++i, v /= 10)
            s[7 + digits - 1 - i] = static_cast<char>('0' + v % 10);
        s[name_length - 1] = 'B';
        return s;
    }();
};

static_assert(line_size_predictor<static_size<32>>);

} // namespace memsub::linesize
