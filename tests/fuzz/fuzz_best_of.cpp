// libFuzzer target: best_of over all five algorithms (member-path dispatch, nested metadata) —
// see fuzz_common.hpp.
#include "fuzz_common.hpp"

#include <memory>
#include <vector>

#include <memsub/compression/all.hpp>

namespace {
std::shared_ptr<const memsub::compression::huffman_code_book> book() {
    // A fixed book with small integers, zero and a few constants (built once).
    static const auto b = [] {
        std::vector<memsub::compression::value_count> counts;
        for (std::uint32_t v = 0; v < 64; ++v) counts.push_back({v, 1000u / (v + 1)});
        counts.push_back({0xFFFFFFFFu, 300});
        counts.push_back({0x3F800000u, 50});
        return std::make_shared<const memsub::compression::huffman_code_book>(counts, 10000);
    }();
    return b;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mc = memsub::compression;
    memsub_fuzz::input in(data, size);
    const std::uint8_t h = in.byte();
    if (h & 0x04) {
        mc::best_of_classic::params p;
        p.line_bytes = memsub_fuzz::line_size_from(h);
        memsub_fuzz::run(mc::best_of_classic(p), in);
    } else {
        mc::best_of_all::params p;
        p.line_bytes = memsub_fuzz::line_size_from(h);
        std::get<mc::sc2::params>(p.members).code_book = book();
        memsub_fuzz::run(mc::best_of_all(p), in);
    }
    return 0;
}
