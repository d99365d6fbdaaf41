// memsub — `linesize::whole_line`: the engine's default line-size part. A miss inserts the whole
// line, and a store hit keeps the size of the block it hits. A host that sizes blocks itself (a
// compressed cache, a hierarchy level fed block shapes) passes a `cache::block_spec` or a spec
// source with the access; with this part, those are the only way a block other than the whole
// line enters. Storage: 0 bits.
//
// Unlike `static_size<line bytes>`, it never asks a store hit to take a size: `static_size` is a
// predictor whose answer the engine applies to store hits too (a resident block of another span
// is then left as it is and counted in `access_result::resize_refused`), while `whole_line` means
// "no predictor" and leaves every resident block, whatever the host inserted it as, untouched.
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/core/access.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

namespace memsub::linesize {

class whole_line {
public:
    struct params {};

    whole_line(const geometry& g, const params&) noexcept : line_bytes_(g.line_bytes) {}
    explicit whole_line(const geometry& g) noexcept : whole_line(g, params{}) {}

    /// The line size, whatever the access (LS3).
    [[nodiscard]] std::uint32_t block_bytes(set_index, const access&) const noexcept {
        return line_bytes_;
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "whole_line"; }
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 0; }

private:
    std::uint32_t line_bytes_;
};

} // namespace memsub::linesize
