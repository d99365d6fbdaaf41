// memsub — `none`: the identity compressor (every line stored as its raw bytes).
//
// The baseline every compressed configuration is compared against, and the smallest model of
// `invertible_compressor` (concept.hpp). Payload = the line's bytes in order, 8·L bits; no tag
// metadata; zero latency and energy. Hardware budget: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/detail/params_accessors.hpp>
#include <memsub/config.hpp>

namespace memsub::compression {

class none : public detail::params_accessors<none> {
public:
    struct params {
        std::uint32_t line_bytes = 64;
        std::uint32_t compress_latency_cycles = 0;
        std::uint32_t decompress_latency_cycles = 0;
        double compress_energy_nj = 0.0;
        double decompress_energy_nj = 0.0;
    };

    none() : none(params{}) {}
    explicit none(const params& p) : p_(p) {
        require_line_bytes(p.line_bytes, "memsub::compression::none");
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept { return "none"; }

    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        return static_cast<std::uint32_t>(line.size() * 8);
    }
    [[nodiscard]] static constexpr std::uint32_t metadata_bits() noexcept { return 0; }

    [[nodiscard]] compressed_line compress(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        compressed_line c;
        const std::size_t n = line.size() <= max_line_bytes ? line.size() : max_line_bytes;
        std::memcpy(c.payload.data(), line.data(), n);
        c.bits = static_cast<std::uint32_t>(n * 8);
        return c;
    }

    [[nodiscard]] decode_result decompress(compressed_view v,
                                           std::span<std::byte> out) const noexcept {
        const std::uint32_t L = p_.line_bytes;
        if (out.size() != L) return {decode_status::wrong_output_size, 0};
        if (v.bits > v.payload.size() * 8) return {decode_status::bad_view, 0};
        if (v.encoding != 0 || v.member != 0) return {decode_status::unknown_encoding, 0};
        if (v.bits < 8 * L) return {decode_status::truncated, v.bits & ~7u};
        if (v.bits > 8 * L) return {decode_status::trailing_bits, 8 * L};
        std::memcpy(out.data(), v.payload.data(), L);
        return {};
    }

private:
    friend detail::params_accessors<none>;
    params p_;
};

static_assert(invertible_compressor<none>);

} // namespace memsub::compression
