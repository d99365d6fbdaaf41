// memsub::explorer — sample data for the compression tools and benchmarks when the user names
// none: binary code, the first bytes of the largest shared library of this machine, or
// generated code-like bytes when there is none large enough.
//
// Part of the explorer module (CMake target memsub::explorer). Needs only the core library.
#pragma once

#include <memsub/core/rng.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace memsub::explorer {

/// Binary code of `bytes` bytes. `source` is set to the library's file name, or left empty when
/// the bytes were generated instead (short opcodes, 32-bit displacements around 0 and zero
/// padding, from `seed`): the machine may lack a library of that size, and a report says which
/// data it measured.
inline std::vector<std::byte> binary_code_sample(std::size_t bytes, std::uint64_t seed,
                                                 std::string& source) {
    namespace fs = std::filesystem;
    std::vector<std::byte> out(bytes);
    source.clear();
    std::error_code ec;
    std::pair<std::uintmax_t, fs::path> largest{0, {}};
    for (const auto& e : fs::directory_iterator("/usr/lib/x86_64-linux-gnu", ec)) {
        const auto name = e.path().filename().string();
        if (e.is_regular_file(ec) && name.find(".so") != std::string::npos &&
            e.file_size(ec) > largest.first)
            largest = {e.file_size(ec), e.path()};
    }
    if (largest.first >= bytes) {
        std::ifstream in(largest.second, std::ios::binary);
        in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(bytes));
        if (static_cast<std::size_t>(in.gcount()) == bytes) {
            source = largest.second.filename().string();
            return out;
        }
    }
    memsub::xoshiro256ss rng(seed);
    for (std::size_t i = 0; i < out.size();) {
        const auto k = rng.below(10);
        if (k < 5) {
            out[i++] = static_cast<std::byte>(rng.below(256));
        } else if (k < 8 && i + 4 <= out.size()) {
            const auto v = static_cast<std::uint32_t>(rng.below(1 << 16)) - (1 << 15);
            std::memcpy(&out[i], &v, 4);
            i += 4;
        } else {
            out[i++] = std::byte{0};
        }
    }
    return out;
}

} // namespace memsub::explorer
