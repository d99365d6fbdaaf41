// memsub — the energy models and metrics.
#pragma once

#include <memsub/energy/calibration.hpp>
#include <memsub/energy/gpujoule.hpp>
#include <memsub/energy/multi_module.hpp>
#include <memsub/energy/scaling_metrics.hpp>
