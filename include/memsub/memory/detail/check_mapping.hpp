// memsub — the construction-time check that a controller's address mapping describes the same
// DRAM organisation as its timing preset (channels, ranks, bank groups, banks, burst, columns).
#pragma once

#include <string>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/dram_timing.hpp>

namespace memsub::memory::detail {

/// Checks that a mapping's organisation matches a timing preset.
inline void check_mapping(const dram_organisation& o, const dram_timing& t,
                          std::string_view component) {
    require(o.channels == t.channels, component, "mapping channels", o.channels,
            "must equal timing.channels (" + std::to_string(t.channels) + ")");
    require(o.ranks == t.ranks, component, "mapping ranks", o.ranks,
            "must equal timing.ranks (" + std::to_string(t.ranks) + ")");
    require(o.bank_groups == t.bank_groups, component, "mapping bank_groups", o.bank_groups,
            "must equal timing.bank_groups (" + std::to_string(t.bank_groups) + ")");
    require(o.banks_per_group == t.banks_per_group, component, "mapping banks_per_group",
            o.banks_per_group,
            "must equal timing.banks_per_group (" + std::to_string(t.banks_per_group) + ")");
    require(o.burst_bytes == t.burst_bytes(), component, "mapping burst_bytes", o.burst_bytes,
            "must equal timing burst bytes (" + std::to_string(t.burst_bytes()) + ")");
    require(o.columns <= t.columns(), component, "mapping columns", o.columns,
            "must be <= the bursts per row (" + std::to_string(t.columns()) + ")");
}

} // namespace memsub::memory::detail
