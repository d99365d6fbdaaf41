// Stand-in of ChampSim's inc/champsim.h for the memsub module's CI test: only what the module
// and the stand-in cache use, with ChampSim's names and signatures (written from its public
// headers; not ChampSim's code).
#ifndef CHAMPSIM_H
#define CHAMPSIM_H

#include <type_traits>

namespace champsim {
template <typename E>
constexpr std::underlying_type_t<E> to_underlying(E e) noexcept {
    return static_cast<std::underlying_type_t<E>>(e);
}
namespace data {
enum class bits : unsigned long long {};
}
} // namespace champsim

#endif
