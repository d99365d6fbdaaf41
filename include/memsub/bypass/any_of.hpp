// memsub — `bypass::any_of<Bs...>`: bypass when at least one member says bypass (an OR of the
// members' bypass votes; equivalently, insert only when every member would insert), e.g. a
// remote-only L1.5 filter OR a reuse predictor. Itself a bypass predictor (docs/design.md,
// principle 5). Storage: the members' bits.
#pragma once

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/detail/combination.hpp>

namespace memsub::bypass {

namespace detail {
struct or_vote {
    static constexpr const char* name = "any_of";
    template <class... V>
    constexpr bool operator()(V... votes) const noexcept {
        return (votes || ...);
    }
};
} // namespace detail

template <bypass_predictor... Members>
class any_of : public detail::combination<detail::or_vote, Members...> {
public:
    using base = detail::combination<detail::or_vote, Members...>;
    using params = typename base::params;
    using base::base;
};

} // namespace memsub::bypass
