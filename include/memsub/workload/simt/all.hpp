// memsub — every SIMT kernel workload, the GTO scheduler and the inputs (the warp instruction
// they emit is core/warp_instruction.hpp).
#pragma once

#include <memsub/workload/simt/accel_sim_trace_kernel.hpp>
#include <memsub/workload/simt/bfs.hpp>
#include <memsub/workload/simt/csr_inputs.hpp>
#include <memsub/workload/simt/gto_scheduler.hpp>
#include <memsub/workload/simt/histogram.hpp>
#include <memsub/workload/simt/kernel_support.hpp>
#include <memsub/workload/simt/kmeans.hpp>
#include <memsub/workload/simt/matmul.hpp>
#include <memsub/workload/simt/phase_kernel.hpp>
#include <memsub/workload/simt/saxpy.hpp>
#include <memsub/workload/simt/spmv.hpp>
#include <memsub/workload/simt/stencil.hpp>
#include <memsub/workload/simt/timed_run.hpp>
