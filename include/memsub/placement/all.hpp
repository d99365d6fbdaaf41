// memsub — every page-placement policy and the placement stage in front of a DRAM mapping.
#pragma once

#include <memsub/placement/concept.hpp>
#include <memsub/placement/fine_grain_interleave.hpp>
#include <memsub/placement/first_touch.hpp>
#include <memsub/placement/placed_mapping.hpp>
#include <memsub/placement/random_page.hpp>
#include <memsub/placement/round_robin_page.hpp>
