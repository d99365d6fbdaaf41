// memsub — `bypass::all_of<Bs...>`: bypass only when every member says bypass (an AND of the
// members' bypass votes; equivalently, insert when any member would insert). Itself a bypass
// predictor (docs/design.md, principle 5). Storage: the members' bits.
#pragma once

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/detail/combination.hpp>

namespace memsub::bypass {

namespace detail {
struct and_vote {
    static constexpr const char* name = "all_of";
    template <class... V>
    constexpr bool operator()(V... votes) const noexcept {
        return (votes && ...);
    }
};
} // namespace detail

template <bypass_predictor... Members>
class all_of : public detail::combination<detail::and_vote, Members...> {
public:
    using base = detail::combination<detail::and_vote, Members...>;
    using params = typename base::params;
    using base::base;
};

} // namespace memsub::bypass
