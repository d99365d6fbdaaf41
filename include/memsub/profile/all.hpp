// memsub — the profile family: observers a host feeds beside its cache or its reference stream
// to characterise a workload (hit kinds, zero-reuse departures, utilisation, traffic; reuse
// distances per PC and divergence bin). They decide nothing; bypass/offline_trainer.hpp trains
// ID-Cache's tables from a reuse-distance profile.
#pragma once

#include <memsub/profile/l1_statistics.hpp>
#include <memsub/profile/reuse_distance_profile.hpp>
