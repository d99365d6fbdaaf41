// memsub — closed-page (auto-precharge) row policy (models `row_policy`,
// memory/row_policy_concept.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/row_policy_concept.hpp>

namespace memsub::memory {

/// Closed page: every column access auto-precharges (RDA / WRA); every request finds its bank
/// empty (or still precharging). The default of `hmc_vault_controller` (its Decision note in
/// dram_controller.hpp: [MemNet] names no row policy).
class closed_page {
public:
    struct params {};
    explicit closed_page(const params& = {}, std::uint32_t = 1) noexcept {}
    [[nodiscard]] std::uint64_t close_at(std::uint32_t, std::uint64_t) const noexcept { return 0; }
    void observe(std::uint32_t, row_class, bool) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "closed"; }
};

static_assert(row_policy<closed_page>);

} // namespace memsub::memory
