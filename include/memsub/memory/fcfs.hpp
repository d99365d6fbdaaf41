// memsub — FCFS request scheduler (models `request_scheduler`, memory/scheduler_concept.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/scheduler_concept.hpp>

namespace memsub::memory {

/// First-come first-served: strictly the oldest request, when its bank can take it
/// (ReMAP Table 2.3's controller). Storage: none beyond the queue.
class fcfs {
public:
    struct params {};
    explicit fcfs(const params& = {}, std::uint32_t = 1) noexcept {}

    template <class View>
    [[nodiscard]] selection select(std::size_t n, const View& v) noexcept {
        if (n == 0) return {};
        if (v.ready(0)) return {.index = 0, .wake = 0};
        return {.index = selection::none, .wake = v.ready_at(0)};
    }
    template <class View>
    void on_selected(const View&, std::size_t) noexcept {}
    [[nodiscard]] std::string_view name() const noexcept { return "fcfs"; }
};

static_assert(request_scheduler<fcfs>);

} // namespace memsub::memory
