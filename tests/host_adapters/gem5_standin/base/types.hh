// Stand-in of gem5's src/base/types.hh (see ../README.md): the address type.
#ifndef __BASE_TYPES_HH__
#define __BASE_TYPES_HH__

#include <cstdint>

namespace gem5 {

typedef std::uint64_t Addr;

} // namespace gem5

#endif // __BASE_TYPES_HH__
