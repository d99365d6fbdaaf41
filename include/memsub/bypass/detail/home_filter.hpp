// memsub — the shared body of the home-based allocation filters (memory_side, module_side,
// remote_only): a bypass predictor that asks the host's `home_of(address) -> module` which
// module's memory holds the line and compares it with the module that owns the cache
// (C5.2, C5.3 in docs/mechanisms/multi_module_gpu.md).
//
// The home function is the host's (a placement policy: fine-grain interleave, first-touch, …);
// memsub does not depend on any particular one. It is held by value in `params::home_of`; a
// stateful placement shared by every module (a first-touch page table filled at run time) is
// held by reference through `home_ref<F>`, whose default (unbound) value the filter rejects
// with `config_error`.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include <memsub/bypass/concept.hpp>
#include <memsub/core/errors.hpp>

namespace memsub::bypass {

/// A home function: `home_of(address)` → the module whose memory holds that address. Called
/// from `should_bypass`, which is noexcept, so it must not throw; a params member, so it must be
/// default-constructible and copyable (B1).
template <class F>
concept home_function = std::default_initializable<F> && std::copy_constructible<F> &&
    std::is_nothrow_invocable_r_v<std::uint32_t, const F&, byte_address>;

/// Holds a host's home function by reference (e.g. one first-touch placement that every
/// module's filter consults). Default-constructed it is unbound, and a filter built with an
/// unbound `home_ref` throws `config_error`. The referenced function must outlive the filter.
/// It is also how a capturing lambda (not default-constructible) becomes a home function:
///   auto home = [&placement](byte_address a) noexcept { return placement.partition_of(a); };
///   remote_only<home_ref<decltype(home)>> l15(g, {.home_of = home_ref{home}, .module = m});
template <class F>
requires std::is_nothrow_invocable_r_v<std::uint32_t, const F&, byte_address>
class home_ref {
public:
    constexpr home_ref() noexcept = default;
    constexpr explicit home_ref(const F& f) noexcept : f_(&f) {}
    [[nodiscard]] constexpr bool bound() const noexcept { return f_ != nullptr; }
    [[nodiscard]] std::uint32_t operator()(byte_address a) const noexcept {
        return static_cast<std::uint32_t>((*f_)(a));
    }

private:
    const F* f_ = nullptr;
};

namespace detail {

enum class home_rule : std::uint8_t { memory_side, module_side, remote_only };

template <class F>
inline constexpr bool is_home_ref = false;
template <class F>
inline constexpr bool is_home_ref<home_ref<F>> = true;

template <home_rule Rule, home_function HomeOf>
class home_filter {
public:
    struct params {
        /// The host's home function (by value; `home_ref<F>` for by reference).
        HomeOf home_of{};
        /// The module that owns this cache.
        std::uint32_t module = 0;
        /// Modules in the system; 0 = unchecked. When set, `module` must be below it.
        std::uint32_t modules = 0;
    };

    home_filter(const geometry&, const params& p) : home_of_(p.home_of), module_(p.module) {
        if constexpr (is_home_ref<HomeOf>)
            if (!p.home_of.bound())
                throw config_error(component(), "home_of", "unbound home_ref",
                                   "must refer to the host's home function");
        if (p.modules != 0 && p.module >= p.modules)
            throw config_error(component(), "module", p.module,
                               "must be below modules = " + std::to_string(p.modules));
    }

    /// True when the line of `a` is homed in this module's memory.
    [[nodiscard]] bool is_local(byte_address a) const noexcept { return home_of_(a) == module_; }

    /// Whether a fill of `a` may allocate here, by the rule (no state touched).
    [[nodiscard]] bool admits(byte_address a) const noexcept {
        if constexpr (Rule == home_rule::memory_side)
            return is_local(a);
        else if constexpr (Rule == home_rule::remote_only)
            return !is_local(a);
        else
            return true;
    }

    /// B3: bypass what the rule does not admit; counts local and remote allocating misses.
    [[nodiscard]] bool should_bypass(set_index, const access& a) noexcept {
        const bool local = is_local(a.address);
        ++(local ? local_misses_ : remote_misses_);
        if constexpr (Rule == home_rule::memory_side)
            return !local;
        else if constexpr (Rule == home_rule::remote_only)
            return local;
        else
            return false;
    }

    [[nodiscard]] static constexpr std::string_view name() noexcept {
        if constexpr (Rule == home_rule::memory_side)
            return "memory_side";
        else if constexpr (Rule == home_rule::remote_only)
            return "remote_only";
        else
            return "module_side";
    }
    /// No per-entry state: the home comes from the placement, not from the cache.
    [[nodiscard]] static constexpr std::uint64_t storage_bits() noexcept { return 0; }

    [[nodiscard]] std::uint32_t module() const noexcept { return module_; }
    [[nodiscard]] const HomeOf& home_of() const noexcept { return home_of_; }
    /// Allocating misses seen whose line is homed here / elsewhere.
    [[nodiscard]] std::uint64_t local_misses() const noexcept { return local_misses_; }
    [[nodiscard]] std::uint64_t remote_misses() const noexcept { return remote_misses_; }

private:
    static constexpr std::string_view component() noexcept {
        if constexpr (Rule == home_rule::memory_side)
            return "memsub::bypass::memory_side";
        else if constexpr (Rule == home_rule::remote_only)
            return "memsub::bypass::remote_only";
        else
            return "memsub::bypass::module_side";
    }

    HomeOf home_of_;
    std::uint32_t module_;
    std::uint64_t local_misses_ = 0;
    std::uint64_t remote_misses_ = 0;
};

} // namespace detail
} // namespace memsub::bypass
