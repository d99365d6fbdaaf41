// memsub — the accessors of the `compressor` concept (compression/concept.hpp, C4 and C7) that
// every compressor answers straight from its params: line size, the params themselves, and the
// compress/decompress latencies and energies. A compressor derives from
// params_accessors<Itself>, keeps its `params p_` and befriends this base.
#pragma once

#include <cstdint>

namespace memsub::compression::detail {

template <class Compressor>
class params_accessors {
public:
    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return p().line_bytes; }
    [[nodiscard]] const auto& parameters() const noexcept { return p(); }
    [[nodiscard]] std::uint32_t compress_latency_cycles() const noexcept {
        return p().compress_latency_cycles;
    }
    [[nodiscard]] std::uint32_t decompress_latency_cycles() const noexcept {
        return p().decompress_latency_cycles;
    }
    [[nodiscard]] double compress_energy_nj() const noexcept { return p().compress_energy_nj; }
    [[nodiscard]] double decompress_energy_nj() const noexcept { return p().decompress_energy_nj; }

private:
    [[nodiscard]] const auto& p() const noexcept {
        return static_cast<const Compressor&>(*this).p_;
    }
};

} // namespace memsub::compression::detail
