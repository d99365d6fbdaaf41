// memsub — every interconnect topology helper.
#pragma once

#include <memsub/topology/concept.hpp>
#include <memsub/topology/crossbar_switch.hpp>
#include <memsub/topology/distributor_flattened_butterfly.hpp>
#include <memsub/topology/flattened_butterfly.hpp>
#include <memsub/topology/link_timing.hpp>
#include <memsub/topology/link_traffic.hpp>
#include <memsub/topology/ring.hpp>
#include <memsub/topology/sliced_flattened_butterfly.hpp>
