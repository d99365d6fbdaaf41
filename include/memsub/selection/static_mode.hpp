// memsub — `selection::static_mode`: every inserted line in one mode (Static-BDI and Static-SC
// of [Dissertation] §4.3.4; mode 0 is the uncompressed baseline).
#pragma once

#include <cstdint>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/selection/concept.hpp>

namespace memsub::selection {

class static_mode {
public:
    struct params {
        /// The mode every line is inserted in (< the shape's modes).
        std::uint32_t mode = 0;
    };
    static constexpr std::string_view component = "memsub::selection::static_mode";

    static_mode(const selection_shape& shape, const params& p) : mode_(p.mode) {
        shape.validate(component);
        memsub::require(p.mode < shape.modes.size(), component, "mode", p.mode,
                        "must name one of the cache's modes");
    }

    [[nodiscard]] std::uint32_t insertion_mode(set_index) const noexcept { return mode_; }
    void on_access(const access_outcome&) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "static"; }
    [[nodiscard]] std::uint32_t mode() const noexcept { return mode_; }
    /// No state beyond the configured mode.
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 0; }

private:
    std::uint32_t mode_;
};

static_assert(diagnose_mode_selector<static_mode>());

} // namespace memsub::selection
