// Stand-in of gem5's src/sim/sim_object.hh (see ../README.md): a named object built from its
// parameters.
#ifndef __SIM_OBJECT_HH__
#define __SIM_OBJECT_HH__

#include <string>

namespace gem5 {

struct SimObjectParams {
    virtual ~SimObjectParams() = default;
    std::string name;
};

class SimObject {
public:
    typedef SimObjectParams Params;
    explicit SimObject(const Params& p) : _name(p.name) {}
    virtual ~SimObject() = default;
    virtual std::string name() const { return _name; }

private:
    std::string _name;
};

} // namespace gem5

#endif // __SIM_OBJECT_HH__
