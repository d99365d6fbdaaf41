// memsub — the compressors by name, as the C interface (memsub/host/memsub_host.h) and the
// Python module offer them: the compressibility tool's list (bdi, fpc, cpack, cpack_z, bpc, sc2,
// best_of_all), then the two trivial ones (none, zero), each with its default parameters.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <memsub/compression/all.hpp>

namespace memsub::compression {

/// The names `visit_by_name` takes, in the order the interfaces list them.
inline constexpr std::array<std::string_view, 9> offered_names{
    "bdi", "fpc", "cpack", "cpack_z", "bpc", "sc2", "best_of_all", "none", "zero"};

/// `C`'s default params for lines of `line_bytes` bytes (what the interfaces build each named
/// compressor with).
template <class C>
[[nodiscard]] typename C::params default_params_for(std::uint32_t line_bytes) {
    typename C::params p{};
    p.line_bytes = line_bytes;
    return p;
}

/// Calls `f.template operator()<C>()` with the compressor type named `name` (one of
/// `offered_names`); returns false, calling nothing, for any other name.
template <class F>
bool visit_by_name(std::string_view name, F&& f) {
    if (name == "bdi")
        f.template operator()<bdi>();
    else if (name == "fpc")
        f.template operator()<fpc>();
    else if (name == "cpack")
        f.template operator()<cpack>();
    else if (name == "cpack_z")
        f.template operator()<cpack_z>();
    else if (name == "bpc")
        f.template operator()<bpc>();
    else if (name == "sc2")
        f.template operator()<sc2>();
    else if (name == "best_of_all")
        f.template operator()<best_of_all>();
    else if (name == "none")
        f.template operator()<none>();
    else if (name == "zero")
        f.template operator()<zero>();
    else
        return false;
    return true;
}

} // namespace memsub::compression
