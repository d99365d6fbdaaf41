// memsub — the replacement policies the C interface (memsub/host/memsub_host.h) offers, as the
// runtime_choice its set-associative and variable-block caches run. A C++ host or test that
// wants the same cache without the C interface builds it from this type:
//
//   memsub::cache::set_associative_cache<memsub::host::policy_choice> llc(shape, {.name =
//   "srrip"});
//
// The alternatives are every policy of replacement::all_policies, then OPT (oracle_policies):
// the C access record carries the next use OPT reads (`memsub_access::next_use`).
#pragma once

#include <tuple>

#include <memsub/replacement/all.hpp>
#include <memsub/replacement/runtime_choice.hpp>

/// The C interface's C++ side (memsub/host/memsub_host.h): the types its caches are made of.
namespace memsub::host {

namespace detail {
template <class A, class B>
struct choice_of_both;
template <class... A, class... B>
struct choice_of_both<std::tuple<A...>, std::tuple<B...>> {
    using type = replacement::runtime_choice<A..., B...>;
};
} // namespace detail

/// The policy of every set-associative and variable-block cache the C interface creates: the
/// one named at creation, among all_policies and oracle_policies, with its default params.
using policy_choice =
    typename detail::choice_of_both<replacement::all_policies, replacement::oracle_policies>::type;

} // namespace memsub::host
