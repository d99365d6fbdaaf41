// Stand-in of ChampSim's inc/access_type.h (see champsim.h).
#ifndef ACCESS_TYPE_H
#define ACCESS_TYPE_H

enum class access_type : unsigned {
    LOAD = 0,
    RFO,
    PREFETCH,
    WRITE,
    TRANSLATION,
    NUM_TYPES,
};

#endif
