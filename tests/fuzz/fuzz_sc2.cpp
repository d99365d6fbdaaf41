// libFuzzer target: SC² decompressor with code books built from the input itself (any number
// of symbols, length limits down to the minimum, both ESC weights and both limit repairs) or
// the escape-only book — see fuzz_common.hpp.
#include "fuzz_common.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <vector>

#include <memsub/compression/sc2.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace mc = memsub::compression;
    using book_t = mc::huffman_code_book;
    memsub_fuzz::input in(data, size);
    const std::uint8_t h = in.byte();
    mc::sc2::params p;
    p.line_bytes = memsub_fuzz::line_size_from(h);
    if ((h & 0x04) == 0) {
        // Sample the input's words (cycling through it) into a small VFT.
        mc::value_frequency_table vft(
            mc::value_frequency_table::params{.entries = 64, .ways = 4, .counter_bits = 6});
        const auto rest = in.rest();
        for (std::size_t i = 0; i + 4 <= rest.size() && i < 1024; i += 4) {
            std::uint32_t w = 0;
            std::memcpy(&w, rest.data() + i, 4);
            const int repeat = 1 + rest[i] % 5;
            for (int r = 0; r < repeat; ++r) vft.sample(w);
        }
        const auto counts = vft.counts();
        const std::uint32_t min_len =
            std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::bit_width(counts.size())));
        book_t::params bp;
        bp.max_code_length_bits = std::min<std::uint32_t>(32, min_len + (h >> 5));
        bp.escape = (h & 0x08) ? book_t::esc_weight::max : book_t::esc_weight::residual;
        bp.limit = (h & 0x10) ? book_t::length_limit::drop : book_t::length_limit::clamp_fix;
        p.code_book = std::make_shared<const book_t>(counts, vft.total_sampled_words(), bp);
    }
    const mc::sc2 c(p);
    memsub_fuzz::run(c, in);
    return 0;
}
