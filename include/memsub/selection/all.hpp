// memsub — every mode selector and the latency arithmetic LATTE-CC uses.
#pragma once

#include <memsub/selection/adaptive_cmp.hpp>
#include <memsub/selection/adaptive_hit_count.hpp>
#include <memsub/selection/amat.hpp>
#include <memsub/selection/concept.hpp>
#include <memsub/selection/latency_tolerance.hpp>
#include <memsub/selection/latte_cc.hpp>
#include <memsub/selection/static_mode.hpp>
