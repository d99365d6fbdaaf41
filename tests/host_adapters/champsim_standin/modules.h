// Stand-in of ChampSim's inc/modules.h (see champsim.h): the replacement module base.
#ifndef MODULES_H
#define MODULES_H

#include "access_type.h"
#include "address.h"
#include "block.h"
#include "champsim.h"

class CACHE;
namespace champsim::modules {
template <typename T>
struct bound_to {
    T* intern_;
    explicit bound_to(T* bind_arg) { bind(bind_arg); }
    void bind(T* bind_arg) { intern_ = bind_arg; }
};

struct replacement : public bound_to<CACHE> {
    explicit replacement(CACHE* cache) : bound_to<CACHE>(cache) {}
};
} // namespace champsim::modules

#endif
