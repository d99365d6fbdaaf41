// Stand-in of ChampSim's inc/address.h (see champsim.h): an address value with the checked
// conversion `to<T>()` ChampSim's address classes offer.
#ifndef ADDRESS_H
#define ADDRESS_H

#include <cstdint>

namespace champsim {
class address {
public:
    constexpr address() = default;
    constexpr explicit address(uint64_t value) : value_(value) {}
    template <typename T>
    [[nodiscard]] constexpr T to() const {
        return static_cast<T>(value_);
    }
    friend constexpr bool operator==(address a, address b) { return a.value_ == b.value_; }

private:
    uint64_t value_ = 0;
};
} // namespace champsim

#endif
