// memsub — the shared body of the bypass combinators `all_of` and `any_of`.
//
// A combination holds its member predictors by value, asks every member on every allocating
// miss (no short-circuit: each member's state evolves exactly as if it ran alone, so a member
// with a sampling counter counts every miss) and forwards the training hooks T1–T3 to every
// member that has them — the blocks the combination admitted are the ones its members train on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include <memsub/bypass/concept.hpp>

namespace memsub::bypass::detail {

template <class Vote, bypass_predictor... Members>
class combination {
    static_assert(sizeof...(Members) >= 1, "a combination needs at least one member");

public:
    struct params {
        std::tuple<typename Members::params...> members{};
    };

    combination(const geometry& g, const params& p)
        : combination(g, p, std::index_sequence_for<Members...>{}) {}

    [[nodiscard]] bool should_bypass(set_index s, const access& a) noexcept {
        return std::apply(
            [&](auto&... m) { return Vote{}(static_cast<bool>(m.should_bypass(s, a))...); },
            members_);
    }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        std::apply([&](auto&... m) { (bypass::notify_hit(m, s, e, a), ...); }, members_);
    }
    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        std::apply([&](auto&... m) { (bypass::notify_insert(m, s, e, a), ...); }, members_);
    }
    void on_evict(set_index s, entry_index e, const evicted_block& x) noexcept {
        std::apply([&](auto&... m) { (bypass::notify_evict(m, s, e, x), ...); }, members_);
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return std::apply([](const auto&... m) { return (bypass::storage_bits_of(m) + ...); },
                          members_);
    }

    /// "all_of(pc_reuse,home_filter)" and the like.
    [[nodiscard]] std::string_view name() const noexcept { return name_; }

    /// Member `I`, for inspection.
    template <std::size_t I>
    [[nodiscard]] auto& member() noexcept {
        return std::get<I>(members_);
    }
    template <std::size_t I>
    [[nodiscard]] const auto& member() const noexcept {
        return std::get<I>(members_);
    }

private:
    template <std::size_t... I>
    combination(const geometry& g, const params& p, std::index_sequence<I...>)
        : members_(Members(g, std::get<I>(p.members))...) {
        name_ = std::string(Vote::name) + "(";
        std::apply(
            [&](const auto&... m) {
                std::size_t i = 0;
                ((name_ += (i++ == 0 ? "" : ","), name_ += std::string_view(m.name())), ...);
            },
            members_);
        name_ += ")";
    }

    std::tuple<Members...> members_;
    std::string name_;
};

} // namespace memsub::bypass::detail
