// memsub — open-page row policy (models `row_policy`, memory/row_policy_concept.hpp).
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

/// Open page: rows stay open until a conflicting request (or refresh) closes them.
/// ReMAP Table 2.3 and DRAMSim3's HBM2 configuration use it.
class open_page {
public:
    struct params {};
    explicit open_page(const params& = {}, std::uint32_t = 1) noexcept {}
    [[nodiscard]] std::uint64_t close_at(std::uint32_t, std::uint64_t) const noexcept {
        return never;
    }
    void observe(std::uint32_t, row_class, bool) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "open"; }
};

static_assert(row_policy<open_page>);

} // namespace memsub::memory
