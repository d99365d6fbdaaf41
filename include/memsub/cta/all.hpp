// memsub — every CTA scheduler (the list tests and benchmarks iterate).
#pragma once

#include <memsub/cta/adaptive_batches.hpp>
#include <memsub/cta/batches_with_stealing.hpp>
#include <memsub/cta/centralized_round_robin.hpp>
#include <memsub/cta/concept.hpp>
#include <memsub/cta/contiguous_batches.hpp>
#include <memsub/cta/fine_grain_round_robin.hpp>
