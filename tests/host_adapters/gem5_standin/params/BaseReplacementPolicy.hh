// Stand-in of the parameter struct gem5 generates for BaseReplacementPolicy (see ../README.md).
#ifndef __PARAMS__BaseReplacementPolicy__
#define __PARAMS__BaseReplacementPolicy__

#include "sim/sim_object.hh"

namespace gem5 {

struct BaseReplacementPolicyParams : public SimObjectParams {};

} // namespace gem5

#endif // __PARAMS__BaseReplacementPolicy__
